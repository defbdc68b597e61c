"""A seated party that lies in its ``held`` news to rush another party's player.

On a table whose policy plays a safe move for a player who lets the deadline pass (``on_stall:
"bot"``), a node counts its player's deadline from the earliest time the others say they have
waited at this place (``held``'s ``waited``), so that after a resume it does not overrun the clocks
they close the game by. One party's word alone must not shorten it: a liar telling a person's node
"I have waited here for ages" used to make that node play a "late" move for its player at once,
and the audit then reported the honest player as one who let the table's deadline pass.

Three :class:`p2p.node.Node` peers in one event loop on 127.0.0.1 (ZeroMQ, CurveZMQ, logs on
disk): the opener and the liar are played by :class:`fairdeck.commands.BotDriver`; the third is a
person who has not answered yet (no driver).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from fairdeck.commands import BotDriver
from p2p.memtable import seeded_identity
from p2p.node import Node

STALL = 300  # the table's deadline: far beyond this test, so no honest clock runs out


async def _until(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def test_one_partys_held_news_cannot_run_out_another_players_deadline(tmp_path: Path) -> None:
    async def main() -> None:
        names = ["ann", "liar", "cy"]
        nodes = [
            Node(seeded_identity(f"w22-rush-{n}"), tmp_path / n, name=n, bind_host="127.0.0.1") for n in names
        ]
        ann, liar, cy = nodes
        try:
            port = await ann.open_table(
                "loveletter", 3, shuffle_rounds=2, stall_after=STALL, on_stall="bot"
            )
            BotDriver(ann, "loveletter", "heuristic", 0)
            BotDriver(liar, "loveletter", "heuristic", 1)
            await asyncio.gather(liar.join(f"127.0.0.1:{port}"), cy.join(f"127.0.0.1:{port}"))
            assert cy.party is not None and liar.party is not None
            # the game goes on until the person at cy is asked for a move
            await _until(lambda: cy.party.waiting_for_me() is not None, 120, "cy's first decision")
            assert cy.own_deadline() is not None and cy.own_deadline() > STALL / 2
            place = cy.party.table.next_seq
            me = cy.party.table.parties[cy.party.me]
            # the lie: "I have waited for you here for a day"
            await liar._send(me.curve, {"t": "held", "next": place, "waited": 86_400.0})
            liar_seat = liar.party.me
            lie = time.monotonic() - 80_000

            def read() -> bool:
                said = cy._waited_there.get(liar_seat)
                return said is not None and said[1] < lie

            await _until(read, 30, "cy to read the lie")
            left = cy.own_deadline()
            assert left is not None and left > STALL / 2, f"one party's word ran cy's deadline down to {left}"
            # and a few looks of cy's watch later, nothing was played for its player
            looked = cy._last_look
            await _until(lambda: cy._last_look > looked + 1.5, 30, "cy's watch to look again")
            assert cy.party.table.late_moves == [], "a late move was played for a player on time"
            assert cy.party.waiting_for_me() is not None
        finally:
            for node in nodes:
                await node.close()

    asyncio.run(main())
