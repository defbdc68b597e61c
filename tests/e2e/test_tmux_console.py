"""End to end in a real terminal: a person plays a whole game in the console by keystrokes, then
steps through its log in the replay viewer.

A private tmux server (``tmux -L <unique>``, 80x24, ``LANG=C.UTF-8``, ``FAIRDECK_HOME`` in a temp
dir) runs ``fairdeck play loveletter --bots 3``: four real peer processes. The scripted
person reads the screen with ``capture-pane -p`` and presses keys (Enter, arrows, numbers, F1)
until the game-over screen; then ``fairdeck replay`` runs on that game's log. The tmux server is
always killed at the end.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.e2e.tmux_support import FAIRDECK, SUMMARY, Terminal, _decision, dismiss_summary, moved_on


def _step_text(screen: str) -> str:
    """The viewer's "this step" section."""
    return screen.split("── this step")[-1].split("── log")[0]


def _frame(screen: str) -> str:
    """The viewer's ``frame N/M`` marker."""
    found = re.search(r"frame \d+/\d+", screen)
    return found.group(0) if found else ""


EXITED = "FAIRDECK-EXIT="
CONFIRM = "Are you sure?"
"""The box a move that costs its player dear (the Princess) puts up before it is sent."""
"""What the terminal shows once the command has ended."""


def test_a_person_plays_a_whole_game_by_keys_then_replays_it(terminal: Terminal) -> None:
    session = "play"
    terminal.run(session, [*FAIRDECK, "play", "loveletter", "--bots", "3"])
    screens: dict[str, str] = {}
    presses = 0
    seen: list[str] = []

    # (a round may end before the person's first decision: its summary comes first then; and the
    # Enter that dismisses the last round's summary may come just as the game-over screen replaces
    # it, and leave it: the console has then exited, printing the result)
    def ready(s: str) -> bool:
        return _decision(s) or "══ Game over ══" in s or SUMMARY in s or EXITED in s or CONFIRM in s

    text = terminal.wait(session, ready)
    while "══ Game over ══" not in text and EXITED not in text:
        if SUMMARY in text:  # a round's summary stays until dismissed
            screens.setdefault("summary", text)
            text = dismiss_summary(terminal, session, text)
            continue
        if CONFIRM in text:  # Down picked the Princess, listed last: asked first; no, another move
            screens.setdefault("confirm", text)
            terminal.keys(session, "n")
            text = terminal.wait(session, lambda s: CONFIRM not in s and ready(s))
            continue
        if _decision(text):
            seen.append(text)
            if "your turn: play a card" in text and "table" not in screens:
                screens["table"] = text
                terminal.keys(session, "F1")
                screens["help"] = terminal.wait(session, lambda s: "How to play Love Letter" in s)
                terminal.keys(session, "Escape")
                text = terminal.wait(session, lambda s: "── log" in s)
                if not _decision(text):  # (a summary came up meanwhile)
                    continue
            # vary the ways of choosing: Enter on the highlight, Down then Enter, a number
            way = presses % 3
            if way == 1 and "   2  " in text:
                terminal.keys(session, "Down", "Enter")
            elif way == 2:
                terminal.keys(session, "1", "Enter")
            else:
                terminal.keys(session, "Enter")
            presses += 1
            text = terminal.wait(session, moved_on(text))
            continue
        text = terminal.wait(session, ready)
    if EXITED in text:  # left as the game-over screen came up: what the console printed on leaving
        after = screens["over"] = text
        assert "Game over —" in after, after
    else:
        screens["over"] = text
        terminal.keys(session, "Enter")
        after = terminal.wait(session, lambda s: EXITED in s)

    _save(screens)
    assert presses >= 5, screens["over"]
    table = screens["table"]
    assert "your turn: play a card" in table
    # card effects: each card in hand with its effect, or (little room) the highlighted move's card's
    effects = ("Choose another player", "No effect", "discard", "Until the start of your next", "about: ")
    assert any(effect in table for effect in effects), table
    assert "── log" in table
    assert any("draws a card" in shot and "plays the" in shot for shot in seen)  # the log in words
    assert "seat 1 (bot-" in table or "bot-1" in table
    assert "Guard (1, x5)" in screens["help"]
    over = screens["over"]
    won = ("wins." in over or "You win" in over or "win." in over or "winner:" in over)
    assert "Game over" in over and won, over
    assert "tokens:" in over
    assert "audit: clean" in after and "FAIRDECK-EXIT=0" in after

    logs = sorted((terminal.home / "games").glob("*.fdlog"))
    assert len(logs) == 1
    viewer = "replay"
    terminal.run(viewer, [*FAIRDECK, "replay", str(logs[0])])
    first = terminal.wait(viewer, lambda s: "frame 1/" in s)
    assert "view: seat" in first  # your own game, your key at home: it opens as your seat saw it
    terminal.keys(viewer, "Right", "Right")
    terminal.wait(viewer, lambda s: "frame 3/" in s)
    terminal.keys(viewer, "]")
    second_round = terminal.wait(viewer, lambda s: "round 2 " in s)
    assert "▶ round 2:" in second_round
    public = second_round
    for _ in range(12):  # step on to the round's first draw: every seat holds a card by then
        if "draws a card" in _step_text(public):
            break
        frame = _frame(public)
        terminal.keys(viewer, "Right")
        public = terminal.wait(viewer, lambda s, f=frame: _frame(s) != f)
    assert "draws a card" in _step_text(public)
    assert "▒" in public.split("── this step")[0]  # the seat's view hides the others' hands
    terminal.keys(viewer, "v")
    full = terminal.wait(viewer, lambda s: "view: full" in s)
    assert "▒" not in full.split("── this step")[0]  # the full view shows every hand
    terminal.wait(viewer, lambda s: "audit: CLEAN" in s)
    terminal.keys(viewer, "a")
    terminal.wait(viewer, lambda s: "VERDICT: CLEAN" in s)
    terminal.keys(viewer, "q")
    terminal.wait(viewer, lambda s: "frame " in s)
    terminal.keys(viewer, "q")
    done = terminal.wait(viewer, lambda s: "FAIRDECK-EXIT=" in s)
    assert "FAIRDECK-EXIT=0" in done

    _save({"replay": public, "replay-full": full})


def _save(screens: dict[str, str]) -> None:
    """Keep text captures of the screens (for docs/console.md) when ``FAIRDECK_CAPTURE`` names a folder."""
    if os.environ.get("FAIRDECK_CAPTURE"):
        out = Path(os.environ["FAIRDECK_CAPTURE"])
        out.mkdir(parents=True, exist_ok=True)
        for name, shot in screens.items():
            (out / f"{name}.txt").write_text(shot)
