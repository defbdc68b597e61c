"""The console on a real network node: lobby, start, moves by keys, connection marks, leaving.

Four :class:`p2p.node.Node` peers in one event loop on 127.0.0.1 (ZeroMQ, CurveZMQ, the signed
log on disk): the person opens the table with the console, three bot peers join with
:class:`fairdeck.commands.BotDriver`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from fairdeck.commands import BotDriver
from fairdeck.console import ConsoleUI
from p2p.memtable import seeded_identity
from p2p.node import Node
from tests.p2p.test_console import CTRL_C, answer, decision, screen, until


def test_the_console_runs_a_real_table_from_the_lobby_to_leaving(tmp_path: Path) -> None:
    quits: list[int] = []
    seen: dict[str, str] = {}

    async def main() -> None:
        nodes = [
            Node(seeded_identity(f"console-{i}"), tmp_path / f"n{i}", name=name, bind_host="127.0.0.1")
            for i, name in enumerate(["ann", "bot-1", "bot-2", "bot-3"])
        ]
        opener, bots = nodes[0], nodes[1:]
        try:
            with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
                ui = ConsoleUI(
                    opener, on_quit=lambda: quits.append(1), answer_forced=False, round_summaries=False
                )
                port = await opener.open_table("loveletter", 4, shuffle_rounds=2)
                task = asyncio.create_task(ui.show_notices())
                await until(lambda: ui.app.is_running and ui.lobby_port == port)
                seen["lobby"] = screen(ui)
                for i, bot in enumerate(bots):
                    BotDriver(bot, "loveletter", "heuristic", i)
                await asyncio.gather(*(bot.join(f"127.0.0.1:{port}") for bot in bots))
                await until(lambda: ui.started)
                await decision(ui)
                moves = 0
                while moves < 3 and not ui.over:
                    await answer(ui, keys)
                    moves += 1
                await until(lambda: screen(ui).count(" ● ") == 3)  # every bot linked
                seen["table"] = screen(ui)
                keys.send_text(CTRL_C + "y")
                await asyncio.wait_for(task, 30)
        finally:
            for node in nodes:
                await node.close()

    asyncio.run(main())
    lobby = seen["lobby"]
    assert "fairdeck join 127.0.0.1:" in lobby  # the address the opener listens at
    assert "seat 0  ann (you)" in lobby and "(free)" in lobby
    table = seen["table"]
    assert "bot-1" in table and "bot-3" in table and "── log" in table
    assert "you " in table  # our own link mark
    assert quits == [1]
