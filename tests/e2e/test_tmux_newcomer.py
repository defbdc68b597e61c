"""End to end in a real terminal, as a newcomer meets fairdeck: the games list opens a finished
game's replay on Enter (it used to refuse to "resume" it), the viewer's ``?`` shows its keys, and a
Regicide discard is titled in words (it used to read ``decide: discard``).

Each test runs in a private tmux server at 80x24 (see :mod:`tests.e2e.tmux_support`), always
killed at the end.
"""

from __future__ import annotations

import subprocess

from tests.e2e.tmux_support import FAIRDECK, REPO, SUMMARY, Terminal, _decision, dismiss_summary, moved_on

EXITED = "FAIRDECK-EXIT="


def test_enter_on_a_finished_game_in_the_list_opens_its_replay_and_question_mark_its_keys(
    terminal: Terminal,
) -> None:
    games = terminal.home / "games"
    games.mkdir()
    subprocess.run(
        [*FAIRDECK, "simulate", "loveletter", "--fair", "--players", "2", "--seed", "7",
         "--log", str(games / "finished.fdlog")],
        cwd=REPO, env={**terminal.env, "FAIRDECK_HOME": str(terminal.home)},
        capture_output=True, check=True, timeout=600,
    )  # fmt: skip
    session = "games"
    terminal.run(session, [*FAIRDECK, "games"])
    listed = terminal.wait(session, lambda s: "Your games" in s)
    assert "finished" in listed
    assert "Enter or v replay" in listed, listed  # what Enter does for this game, said first
    terminal.keys(session, "Enter")
    viewer = terminal.wait(session, lambda s: "fairdeck replay ·" in s or EXITED in s)
    assert "fairdeck replay ·" in viewer, viewer
    assert "cannot be resumed" not in viewer
    assert "before round 1" in viewer and "round 0" not in viewer, viewer
    assert "? help" in viewer
    terminal.keys(session, "?")
    keys = terminal.wait(session, lambda s: "Keys of the replay viewer" in s)
    assert "marked *" in keys and "entry N" in keys, keys
    terminal.keys(session, "q")  # back to the replay, not out of it
    back = terminal.wait(session, lambda s: "Keys of the replay viewer" not in s)
    assert "frame 1/" in back and EXITED not in back, back
    terminal.keys(session, "q")
    done = terminal.wait(session, lambda s: EXITED in s)
    assert f"{EXITED}0" in done, done


def test_a_regicide_discard_is_titled_by_what_to_do(terminal: Terminal) -> None:
    session = "regicide"
    terminal.run(session, [*FAIRDECK, "play", "regicide", "--bots", "1"])
    titles: list[str] = []

    def ready(s: str) -> bool:
        return _decision(s) or SUMMARY in s or "══ Game over ══" in s or EXITED in s

    text = terminal.wait(session, ready)
    while "══ Game over ══" not in text and EXITED not in text:
        if SUMMARY in text:
            text = dismiss_summary(terminal, session, text)
            continue
        heading = next(line for line in text.splitlines() if line.startswith("── ") and "left ─" in line)
        titles.append(heading)
        if "discard to absorb the attack" in heading:
            break
        terminal.keys(session, "Enter")
        text = terminal.wait(session, moved_on(text))
        text = terminal.wait(session, ready)
    assert any("── your turn: discard to absorb the attack" in t for t in titles), titles
    assert not any("decide:" in t for t in titles), titles
    terminal.keys(session, "C-c")
    terminal.wait(session, lambda s: "Leave the table?" in s)
    terminal.keys(session, "y")
    terminal.wait(session, lambda s: EXITED in s)
