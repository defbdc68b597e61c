"""The list of a player's games on a terminal (``fairdeck games``), driven by keys through
prompt-toolkit's pipe input: choose with the arrows, act with a letter, discard only after ``y``,
and a game that cannot go on is not resumed."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from fairdeck.console import ConsoleUI
from fairdeck.console.games import GamePicker
from fairdeck.games import GameEntry
from p2p.node import Notice
from tests.p2p.test_console import answer, decision, run_console, until
from tests.p2p.test_console_support import MemNode

DOWN = "\x1b[B"


def _entries() -> list[GameEntry]:
    now = time.time()
    return [
        GameEntry(1, Path("a.fdlog"), "highcard", ["you", "bob"], 0, now, "left", "you left it", False),
        GameEntry(
            2, Path("b.fdlog"), "highcard", ["you", "cy"], 0, now, "unfinished", "waiting for you", True
        ),
        GameEntry(3, Path("c.fdlog"), "highcard", ["you", "dee"], 0, now, "finished", "winner: dee", False),
    ]


def _pick(keys: str) -> tuple[object, GamePicker]:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        picker = GamePicker(_entries())
        pipe.send_text(keys)
        return picker.app.run(), picker


@dataclass
class _Seen:
    action: str
    number: int


def _seen(result: object) -> _Seen | None:
    if result is None:
        return None
    action, entry = result  # type: ignore[misc]
    return _Seen(action, entry.number)


def test_arrows_and_a_letter_choose_the_game_and_what_to_do() -> None:
    assert _seen(_pick(DOWN + "\r")[0]) == _Seen("r", 2)  # Enter resumes
    assert _seen(_pick(DOWN + DOWN + "v")[0]) == _Seen("v", 3)
    assert _seen(_pick("a")[0]) == _Seen("a", 1)
    assert _pick("q")[0] is None


def test_discard_asks_first_and_a_game_that_cannot_go_on_is_not_resumed() -> None:
    assert _pick("dnq")[0] is None  # "n": not discarded
    assert _seen(_pick("dy")[0]) == _Seen("d", 1)
    result, picker = _pick("rq")  # game 1 was left and its bots are gone
    assert result is None and picker.message.startswith("game 1 cannot be resumed")
    assert picker.message.endswith("(v replay  a audit  d discard it instead)")  # what can be done


def test_a_line_that_starts_with_nothing_happening_keeps_only_what_happened() -> None:
    seen: list[str] = []

    async def script(ui: ConsoleUI, keys: object, node: MemNode) -> None:
        await until(lambda: ui.started)
        for text in (
            "Mulan keeps her card. seat 2 wins the trick.",  # the trick's winner is news
            "Alice keeps the trick.",  # nothing happened at all
            "seat 1 does not use Cinderella's power for this trick.; seat 3 plays Fairy 5",
        ):
            ui.handle(Notice("accepted", text, {"seq": 9}))
        await asyncio.sleep(0)
        seen.extend(text for _, text in ui.log)

    run_console(MemNode("rebelprincess", 4, seed=3), script)
    assert any(line.startswith("seat 2") and "wins the trick." in line for line in seen), seen
    assert not any("Mulan keeps" in line or "Alice keeps" in line or "does not use" in line for line in seen)
    assert any(line.startswith("seat 3") and "plays Fairy 5" in line for line in seen), seen


def test_what_a_play_caused_is_said_after_the_play_even_when_the_table_is_further_on() -> None:
    # the stand-in node runs the bots' entries at once, so the console reads queued notices while
    # the table's state is already several entries ahead: every "takes N damage" / "is defeated"
    # line must still come after the play that dealt it
    async def script(ui: ConsoleUI, keys: object, node: MemNode) -> None:
        await decision(ui)
        for _ in range(40):
            if ui.over or any(" is defeated" in line for _, line in ui.log):
                break
            await answer(ui, keys)  # type: ignore[arg-type]

    ui = run_console(MemNode("regicide", 3, seed=4), script)
    plays = effects = 0
    for _, line in ui.log:
        if " plays " in line and "(attack 0)" not in line:
            plays += 1
        elif line.startswith("→ ") and (" damage" in line or " is defeated" in line):
            effects += 1
            assert effects <= plays, ui.log
    assert effects > 0 and plays > 0
    # a defeat is said once, with how it happened (the event line's own words are left out)
    defeats = [line for _, line in ui.log if " is defeated" in line]
    assert defeats and all(line.startswith("→ ") and " is defeated (" in line for line in defeats), defeats


def test_rebel_princess_re_masking_is_left_out_of_the_console_log() -> None:
    async def script(ui: ConsoleUI, keys: object, node: MemNode) -> None:
        await until(lambda: ui.started)
        ui.handle(
            Notice(
                "accepted",
                "seat 2's face-down cards are re-masked (shuffled in secret), so nobody can follow them "
                "through what comes next.; Each re-masked hand goes back to its owner.; "
                "Musical Chairs: everyone passes one card face down to the right.",
                {"seq": 9},
            )
        )
        await asyncio.sleep(0)

    ui = run_console(MemNode("rebelprincess", 4, seed=3), script)
    lines = [text for _, text in ui.log]
    assert not any("re-masked" in line for line in lines), lines
    assert any(line.startswith("Musical Chairs: everyone passes") for line in lines), lines


def test_the_list_on_a_terminal_shows_an_ended_games_audit_verdict(tmp_path: Path) -> None:
    """As the printed list does: a finished game's kept verdict sits on its row's second line; a
    game still going shows none."""
    from fairdeck.games import record_verdict

    entries = _entries()
    for entry in entries:
        entry.path = tmp_path / entry.path.name
        entry.path.write_bytes(b"log")
        record_verdict(entry.path, "clean")
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        picker = GamePicker(entries)
        rows = "".join(text for _, text in picker._rows()).split("\n")
    assert rows[5].endswith("winner: dee · audit: clean"), rows  # game 3 finished
    assert "audit" not in rows[1] and "audit" not in rows[3], rows  # left, unfinished: none


def test_a_long_row_is_cut_with_a_mark_keeping_its_verdict(tmp_path: Path) -> None:
    """A finished game's result with long names runs past the window: its lines end in ``…``
    within the width, and the audit verdict, at the end, is never the part cut off."""
    from fairdeck.games import record_verdict

    names = ["you", "bot-1, run by you", "bot-2, run by you", "bot-3, run by you"]
    detail = "winner: you (seat 0); tokens: " + " · ".join(f"{n}: 3" for n in names) + "; rounds: 12"
    path = tmp_path / "d.fdlog"
    path.write_bytes(b"log")
    record_verdict(path, "clean")
    entry = GameEntry(1, path, "loveletter", names, 0, time.time(), "finished", detail, False)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        picker = GamePicker([entry])
        width = picker.app.output.get_size().columns
        rows = "".join(text for _, text in picker._rows()).split("\n")
    assert all(len(row) < width for row in rows), rows
    assert rows[0].endswith("…") and rows[1].endswith("… · audit: clean"), rows
