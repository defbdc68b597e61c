"""The "Leave the table?" box says what leaving does where the person is: in the lobby of a table
they opened (it closes the table), in another's lobby (it gives the seat up), and in a game against
their own bots (it ends the game for good) — never "resume" where there is nothing to resume.

Real :class:`p2p.node.Node` peers on 127.0.0.1, the console driven by keys through a pipe input."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from fairdeck.console import ConsoleUI
from p2p.memtable import seeded_identity
from p2p.node import Node
from tests.p2p.test_console import CTRL_C, screen, until


def _box_in_lobby(tmp_path: Path, joiner: bool) -> str:
    """The quit box shown by the opener's (or a joiner's) console in the lobby of a 3-seat table."""
    seen: dict[str, str] = {}

    async def main() -> None:
        opener = Node(seeded_identity("box-0"), tmp_path / "n0", name="ann", bind_host="127.0.0.1")
        other = Node(seeded_identity("box-1"), tmp_path / "n1", name="bob", bind_host="127.0.0.1")
        try:
            port = await opener.open_table("loveletter", 3, shuffle_rounds=2)
            person = other if joiner else opener
            joining = asyncio.create_task(other.join(f"127.0.0.1:{port}")) if joiner else None
            with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
                ui = ConsoleUI(person, answer_forced=False, round_summaries=False)
                ui.app.fixed_size = (80, 24)  # type: ignore[attr-defined]
                task = asyncio.create_task(ui.show_notices())
                await until(lambda: ui.app.is_running and len(ui.lobby_seats) == (2 if joiner else 1))
                keys.send_text(CTRL_C)
                await until(lambda: ui.overlay == "quit")
                seen["box"] = screen(ui)
                keys.send_text("y")
                assert await asyncio.wait_for(task, 30) == "you left the table"
        finally:
            if joining is not None:
                joining.cancel()
            await other.close()
            await opener.close()

    asyncio.run(main())
    return seen["box"]


def test_the_openers_box_in_its_lobby_says_leaving_closes_the_table(tmp_path: Path) -> None:
    box = _box_in_lobby(tmp_path, joiner=False)
    assert "Leave the table?" in box
    assert "Leaving closes this table: its game has not started" in box, box
    assert "resume" not in box.replace("nothing\n  to resume", "") and "abandoned" not in box, box
    assert "cannot go on" not in box


def test_a_joiners_box_in_the_lobby_says_leaving_gives_up_the_seat(tmp_path: Path) -> None:
    box = _box_in_lobby(tmp_path, joiner=True)
    assert "Leaving gives up your seat at this table: its game has not started" in box, box
    assert "abandoned" not in box and "cannot go on" not in box and "fairdeck resume" not in box
