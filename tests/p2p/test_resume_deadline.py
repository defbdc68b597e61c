"""A person who comes back (``fairdeck resume``) to a decision the others have been waiting for is
shown the time the table really has left: the others' clocks ran while its node was down, and they
close the game by theirs. Real nodes on 127.0.0.1 (ZeroMQ, CurveZMQ, logs on disk)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fairdeck.commands import BotDriver
from p2p.memtable import seeded_identity
from p2p.node import Node

AWAY = 3.0  # seconds the person's node is down while the others wait for its move


def test_a_resumed_decision_counts_down_from_when_the_others_began_waiting(tmp_path: Path) -> None:
    async def main() -> None:
        ann = Node(seeded_identity("deadline-ann"), tmp_path / "ann", name="ann", bind_host="127.0.0.1")
        bob = Node(seeded_identity("deadline-bob"), tmp_path / "bob", name="bob", bind_host="127.0.0.1")
        nodes = [ann, bob]
        try:
            port = await ann.open_table("loveletter", 2, shuffle_rounds=2)
            BotDriver(ann, "loveletter", "heuristic", 0)  # bob is a person who does not answer
            await bob.join(f"127.0.0.1:{port}")
            for _ in range(600):
                if bob.party is not None and bob.party.waiting_for_me() is not None:
                    break
                await asyncio.sleep(0.05)
            assert bob.party is not None and bob.log_path is not None
            assert bob.party.waiting_for_me() is not None, "bob was never asked to move"
            log_path = bob.log_path
            await bob.close()  # bob's program is gone; ann waits for his move
            await asyncio.sleep(AWAY)
            back = Node(seeded_identity("deadline-bob"), tmp_path / "bob", name="bob", bind_host="127.0.0.1")
            nodes.append(back)
            await back.resume(log_path)
            assert back.party is not None and back.party.waiting_for_me() is not None
            left = back.own_deadline()
            assert left is not None
            # ann has waited AWAY seconds and more (her clock looks every 0.5 s): the countdown
            # does not start afresh
            assert left <= back.stall_after() - AWAY + 1.0, (left, back.stall_after())
            assert left > back.stall_after() - 60  # and it is not made up either
        finally:
            for node in nodes:
                await node.close()

    asyncio.run(main())
