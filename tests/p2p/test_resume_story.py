"""A resumed game shows the game so far: the log's own words for every restored entry (public: the
same lines every party printed as they came), in the console and the plain interface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from p2p.log import LogWriter
from p2p.memtable import build_table
from p2p.node import Notice
from p2p.party import Party
from p2p.recovery import restore


def test_a_restored_log_tells_the_game_so_far_in_the_words_it_was_told(tmp_path: Path) -> None:
    table = build_table("loveletter", 3, seed=11)
    told: list[str] = []
    table.on_text = told.append  # what seat 0 printed as the entries came
    table.run()
    log = tmp_path / "g.fdlog"
    half = table.logs[0][: len(table.logs[0]) // 2]
    with LogWriter(log) as writer:
        for envelope in half:
            writer.append(envelope, sync=False)
    restored = restore(log, {"genesis": half[0]}, lambda genesis: Party(table.parties[0].identity, genesis))
    assert restored.story and restored.story == told[: len(restored.story)]
    assert restored.party.table.next_seq == len(half)


def test_the_console_shows_the_game_so_far_with_names_before_it_goes_on() -> None:
    from fairdeck.console.app import ConsoleUI
    from tests.p2p.test_console import run_console, screen, until
    from tests.p2p.test_console_support import MemNode

    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: Any, node: MemNode) -> None:
        lines = ["seat 1 plays the Guard on seat 0; seat 0: miss", "seat 2 draws a card (9 left in the pile)"]
        node.notices.put_nowait(Notice("history", "", {"lines": lines, "left_out": 40}))
        await until(lambda: "resumed here" in screen(ui))
        seen["screen"] = screen(ui)
        ui.app.exit()

    run_console(MemNode("loveletter", 3, seed=5), script)
    shot = seen["screen"]
    assert "the game so far (40 earlier entries not shown)" in shot
    assert "seat 1 (" in shot and "plays the Guard on seat 0 (you)" in shot
    assert "seat 2 (" in shot and "draws a card (9 left in the pile)" in shot
