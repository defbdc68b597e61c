"""A deliberately dishonest peer: ``python -m tests.e2e.w22_chatter --join HOST:PORT --home DIR``.

It plays like a heuristic bot, and meanwhile floods every other party with chat: as many ``chat``
messages of the longest allowed text as its node can send, from the start of the game to its end.
A seated party's chat is authenticated and allowed, so nothing drops it at the door: the honest
parties must go on playing, in time, and nobody may be closed out or named for the flooder's noise.
"""

from __future__ import annotations

import asyncio
import sys

from p2p.identity import Identity
from p2p.node import MAX_CHAT, Node
from tests.e2e.dishonest_peer import Decide, main, play_honestly


def chatter(node: Node, identity: Identity) -> Decide:
    """Play honestly; flood the table with chat until the game is over."""

    async def flood() -> None:
        await node.wait_started()
        print("flooding the table with chat", flush=True)
        text = "spam " * (MAX_CHAT // 5)
        sent = 0
        message = {"t": "chat", "text": text[:MAX_CHAT]}
        while not node.ended:
            party, mesh = node.party, node.mesh
            assert party is not None and mesh is not None
            for index, info in enumerate(party.table.parties):
                link = mesh._links.get(info.curve)
                # keep our own send queue short, so that our own entries are never dropped by it:
                # the noise costs the others, not our own part in the game
                if index != party.me and link is not None and link.outbox_bytes < 64 * 1024:
                    await node._send(info.curve, message)
                    sent += 1
            await asyncio.sleep(0)  # our own node must still play its part
        print(f"sent {sent} chat messages", flush=True)

    task = asyncio.get_running_loop().create_task(flood())
    node._tasks.append(task)
    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("w22_chatter", chatter))
