"""A peer that goes mute but stays connected: ``python -m tests.e2e.w21_mute_peer --join HOST:PORT
--home DIR [--after N]``.

It plays honestly (the heuristic bot) until its log holds ``N`` entries, then stops its node's
receive and watch loops: from then on it reads nothing, writes nothing and answers nobody, but its
process and its mesh live on, so its transport still sends the mesh's one-second pings and its
links stay up. To the others it is a party that is there and never writes: the table must close
on it at its deadline, naming it, and nobody else. It runs until it is killed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from p2p.identity import Identity
from p2p.node import Node
from tests.e2e.dishonest_peer import play_honestly


async def run(address: str, home: Path, name: str, after: int) -> int:
    identity = Identity.load_or_create(home)
    node = Node(identity, home, name=name, bind_host="127.0.0.1")
    try:
        await node.join(address)
        node.on_decide = play_honestly(node, identity)
        assert node.party is not None
        if (prompt := node.party.waiting_for_me()) is not None:
            await node.on_decide(prompt, node.party.legal_moves())
        while node.party.table.next_seq < after and not node.ended:
            await asyncio.sleep(0.001)
        for task in node._tasks:  # mute: the mesh (and its pings) lives on
            if task.get_name() in ("receive", "watch"):
                task.cancel()
        print(f"mute from entry {node.party.table.next_seq}", flush=True)
        await asyncio.Event().wait()  # until killed
        return 0
    finally:
        await node.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="w21_mute_peer")
    parser.add_argument("--join", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--name", default="mute")
    parser.add_argument("--after", type=int, default=40)
    args = parser.parse_args(argv)
    return asyncio.run(run(args.join, Path(args.home), args.name, args.after))


if __name__ == "__main__":
    sys.exit(main())
