"""What a newcomer trips over in the console, the games list, the plain interface and the replay
viewer, driven by keys through prompt-toolkit's pipe input (and, for the plain interface, lines).

Each test pins one fix: a decision's title in the players' words (never ``decide: discard``), the
help under the game's own name, Enter on a finished game in ``fairdeck games`` opening its replay,
typed words in ``--plain``, the line under a round's summary, and the viewer's ``?`` screen and
status line.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from engine.games import make_game
from fairdeck.console import ConsoleUI, screen_text
from fairdeck.console.app import SUMMARY_HINT, TURN_HINT, prompt_title
from fairdeck.console.help import help_entries
from fairdeck.plainui import PLAIN_HINT
from fairdeck.viewer import KEYS_LINE, Viewer
from p2p.memtable import build_table
from replay.replay import replay_log
from tests.p2p.test_console import ENTER, answer, decision, run_console, screen, until
from tests.p2p.test_console_games import _entries
from tests.p2p.test_console_support import MemNode, ask_plain

# ---------------------------------------------------------------------------------------------
# The console
# ---------------------------------------------------------------------------------------------


def test_a_regicide_discard_is_titled_in_words_not_by_its_prompt_name() -> None:
    """Regicide names no menu title for its discard: the title over the moves used to read
    ``decide: discard`` (the protocol's name); it now says what to do, as the board's line does."""
    seen: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        for _ in range(60):
            await decision(ui)
            if ui.over:
                return
            if ui.decision is not None and ui.decision.prompt == "discard":
                await until(lambda: "discard to absorb" in screen(ui))
                seen.append(screen(ui))
                return
            await answer(ui, keys)

    run_console(MemNode("regicide", 2, seed=3), script)
    assert seen, "no discard came up"
    (text,) = seen
    assert "── your turn: discard to absorb the attack" in text, text
    assert "decide:" not in text, text


def test_a_prompt_without_words_still_reads_as_a_turn() -> None:
    regicide = make_game("regicide", 2)
    assert prompt_title(regicide, "next") == "your turn: choose who plays next"
    assert prompt_title(regicide, "cannot_pay") == "your turn: cannot pay"  # no words: still no "_"
    assert prompt_title(None, "discard") == "your turn: discard"


@pytest.mark.parametrize(
    ("name", "title"), [("loveletter", "Love Letter"), ("rebelprincess", "Rebel Princess")]
)
def test_the_help_is_headed_by_the_games_own_name(name: str, title: str) -> None:
    game = make_game(name, 4)
    headings = [head for style, head, _ in help_entries(game) if style == "class:heading"]
    assert headings[0] == f"How to play {title}", headings


def test_the_help_explains_every_figure_of_a_rebel_princess_seat_row() -> None:
    """Each seat's row ends "tricks N · M taken · total T": a newcomer reading the help (?) must find
    what each of the three figures counts, in the words the row uses."""
    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        seen["screen"] = screen(ui)

    run_console(MemNode("rebelprincess", 4, seed=3), script)
    rows = re.findall(r"tricks \d+ · \d+ taken · total -?\d+", seen["screen"])
    assert len(rows) == 4, seen["screen"]
    rules = " ".join(text for style, _, text in help_entries(make_game("rebelprincess", 4)) if style == "")
    for figure in ('"tricks N"', '"M taken"', '"total T"'):
        assert figure in rules, (figure, rules)


def test_the_line_under_a_rounds_summary_says_how_to_close_it() -> None:
    """A summary covers the moves; the line under it used to say "your turn: choose a move" (a
    number typed then chose nothing): it says what the summary waits for."""
    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        while ui.summary is None:
            await until(lambda: ui.summary is not None or ui.decision is not None or ui.over)
            await until(node.notices.empty)
            if ui.over:
                return
            if ui.summary is None:
                await answer(ui, keys)
        seen["summary"] = screen(ui)
        keys.send_text(ENTER)
        await until(lambda: ui.summary is None)
        await until(lambda: ui.decision is not None or ui.over)
        seen["after"] = screen(ui)

    run_console(MemNode("loveletter", 4, seed=5), script, round_summaries=True)
    summary = seen["summary"]
    assert "Press Enter to go on." in summary
    last = summary.rstrip("\n").splitlines()[-1]
    assert last.startswith(SUMMARY_HINT), summary
    assert TURN_HINT not in summary and "choose a move" not in summary, summary
    assert SUMMARY_HINT not in seen["after"]  # gone with the summary


# ---------------------------------------------------------------------------------------------
# fairdeck games
# ---------------------------------------------------------------------------------------------


def _picker_run(keys: str) -> tuple[Any, Any]:
    from fairdeck.console.games import GamePicker

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        picker = GamePicker(_entries())
        pipe.send_text(keys)
        return picker.app.run(), picker


def _foot(picker: Any) -> str:
    return "".join(text for _, text in picker._foot())


def test_enter_on_a_game_that_has_ended_opens_its_replay() -> None:
    """Enter used to mean "resume" for every game: on a finished one it only said it "cannot be
    resumed: winner: …" (the result read as if it were the reason)."""
    # (a "q" after each Enter quits the list if the Enter did not act: never a hang)
    result, picker = _picker_run("\x1b[B\x1b[B\rq")  # game 3: finished
    assert result is not None, picker.message
    action, entry = result
    assert (action, entry.number) == ("v", 3)
    result, picker = _picker_run("\rq")  # game 1: left, its bots gone: it can only be replayed
    assert result is not None, picker.message
    assert (result[0], result[1].number) == ("v", 1)
    result, _ = _picker_run("\x1b[B\rq")  # game 2 can go on: Enter resumes it
    assert (result[0], result[1].number) == ("r", 2)


def test_the_keys_line_says_what_enter_does_for_the_highlighted_game() -> None:
    _, picker = _picker_run("q")
    assert _foot(picker).startswith("↑↓ choose · Enter or v replay  r resume")  # game 1 cannot go on
    picker.cursor = 1
    assert _foot(picker).startswith("↑↓ choose · Enter or r resume  v replay")
    _, picker = _picker_run("\x1b[B\x1b[Brq")  # r on the finished game
    assert picker.message == (
        "game 3 has ended (finished): there is nothing to resume (v replay  a audit  d discard it instead)"
    )


# ---------------------------------------------------------------------------------------------
# --plain
# ---------------------------------------------------------------------------------------------


def _first_decision() -> tuple[MemNode, list[Any]]:
    node = MemNode("loveletter", 4, seed=5)
    node.on_decide = None
    node.start()
    assert node.party.waiting_for_me() is not None
    return node, node.party.legal_moves()


def _ask_plain(node: MemNode, moves: list[Any], answers: list[str]) -> list[str]:
    return ask_plain(node, "play", moves, answers)


def _listed(lines: list[str]) -> dict[int, str]:
    out = {}
    for line in lines:
        head, _, words = line.strip().partition(". ")
        if head.isdigit() and words:
            out[int(head)] = words
    return out


def test_plain_takes_the_words_of_a_move_as_the_console_does() -> None:
    node, moves = _first_decision()
    probe = _ask_plain(node, moves, ["1"])
    listed = _listed(probe)
    node, moves = _first_decision()  # the same table again: the same decision
    # the last move's words, typed in full, pick it (a number was the only way before)
    wanted = max(listed)
    lines = _ask_plain(node, moves, [listed[wanted]])
    assert PLAIN_HINT in lines  # what the prompt wants is said under the first list
    assert not any("type a number" in line for line in lines), lines
    (sent,) = node.sent
    assert sent == next(o.move for o in _options(node, moves) if o.number == wanted)


def test_plain_says_which_moves_fit_words_that_fit_several_and_why_none_fits() -> None:
    node, moves = _first_decision()
    options = _options(node, moves)
    verb = options[0].words.split()[0]  # "plays": every move fits it
    lines = _ask_plain(node, moves, [verb, "fly to the moon", "1"])
    assert len(options) > 1  # (the person's first turn: a card to play on a seat)
    several = [line for line in lines if line.startswith(f"  {len(options)} moves fit '{verb}' (1, 2")]
    assert several, lines
    none = "  no move fits 'fly to the moon': type a number from 1 to"
    assert any(line.startswith(none) for line in lines), lines
    assert node.sent == [options[0].move]


def _options(node: MemNode, moves: list[Any]) -> list[Any]:
    from fairdeck.console.moves import word_moves

    party = node.party
    names = [p.name for p in party.table.parties]
    return word_moves(party.table.game, party.table.state, party.seat, party.known_faces(), moves, names)[1]


# ---------------------------------------------------------------------------------------------
# The replay viewer
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A whole Love Letter game and a whole Regicide game, each seat 0's log."""
    out = {}
    for name, seats in (("loveletter", 4), ("regicide", 2)):
        folder = tmp_path_factory.mktemp(name)
        table = build_table(name, seats, seed=5, shuffle_rounds=1, log_dir=folder)
        table.run()
        table.close()
        out[name] = folder / "seat0.fdlog"
    return out


def _run_viewer(path: Path, script: Any) -> Viewer:
    replay = replay_log(path)
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = Viewer(replay, path, audit=lambda p: None)

        async def main() -> None:
            task = asyncio.create_task(viewer.run_async())
            await until(lambda: viewer.app.is_running)
            await script(viewer, keys)
            if viewer.app.is_running:
                keys.send_text("q")
            await asyncio.wait_for(task, 30)

        asyncio.run(main())
    return viewer


def _screen(viewer: Viewer) -> str:
    return screen_text(viewer.app, 80, 24)


def test_the_viewers_question_mark_shows_its_keys_and_what_its_marks_mean(logs: dict[str, Path]) -> None:
    """Its docstring promised ``?`` keys, but ``?`` did nothing, and nothing said what a ``*``
    beside a card or "entry N" means."""
    seen: dict[str, str] = {}

    async def script(viewer: Viewer, keys: PipeInput) -> None:
        seen["table"] = _screen(viewer)
        keys.send_text("?")
        await until(lambda: viewer.show_keys)
        seen["keys"] = _screen(viewer)
        keys.send_text("\x1b[C")  # → does not step behind the help screen
        keys.send_text("q")  # back to the table, not out of the viewer
        await until(lambda: not viewer.show_keys)
        await asyncio.sleep(0.05)
        assert viewer.app.is_running and viewer.index == 0
        seen["back"] = _screen(viewer)

    _run_viewer(logs["loveletter"], script)
    assert "? help" in seen["table"] and KEYS_LINE in seen["table"]
    keys_screen = seen["keys"]
    assert "Keys of the replay viewer" in keys_screen
    assert "marked *" in keys_screen and "\"entry N\"" in keys_screen, keys_screen
    assert "frame 1/" in seen["back"]


def test_the_viewers_status_line_never_says_round_0(logs: dict[str, Path]) -> None:
    seen: dict[str, str] = {}

    async def first_and_last(viewer: Viewer, keys: PipeInput) -> None:
        seen[f"{viewer.replay.table.game.name} first"] = _screen(viewer)
        keys.send_text("\x1b[F")  # End
        await until(lambda: viewer.index == len(viewer.frames) - 1)
        seen[f"{viewer.replay.table.game.name} last"] = _screen(viewer)

    _run_viewer(logs["loveletter"], first_and_last)
    _run_viewer(logs["regicide"], first_and_last)
    status = {key: text.splitlines()[1] for key, text in seen.items()}
    assert " · before round 1 · " in status["loveletter first"], status
    assert " · round 0 " not in "".join(status.values()), status
    assert " · round " in status["loveletter last"]
    # Regicide's "rounds" are its enemies: said as enemies, matching the board's "Enemy N/12"
    table = replay_log(logs["regicide"]).table
    assert f" · enemies defeated: {table.state.defeated} · " in status["regicide last"], status
