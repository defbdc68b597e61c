"""A deliberately dishonest peer for the e2e tests: ``python -m tests.e2e.poisoner --join HOST:PORT``.

It plays Rebel Princess like a heuristic bot, except that at the first Princess choice it commits to
keeping a Princess dealt to *another* seat — an illegal committed choice. Its own party would refuse
that move (``Party.decide`` checks it), so it bypasses that guard as a cheater's client would.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from fairdeck.commands import network_bot
from p2p.identity import Identity
from p2p.node import Node


async def _run(address: str, home: Path, name: str) -> int:
    identity = Identity.load_or_create(home)
    node = Node(identity, home, name=name, bind_host="127.0.0.1")
    poisoned: list[int] = []
    bot: Any = None

    async def on_decide(prompt: str, moves: list[dict[str, Any]]) -> None:
        nonlocal bot
        party = node.party
        assert party is not None
        table = party.table
        if bot is None:
            bot = network_bot(identity, table.game.name, "heuristic", table.game_id)
        if getattr(table.state, "step", "") == "princess" and not poisoned:
            other = (party.me + 1) % table.seats
            poisoned.append(table.next_seq)
            # past the party's own guard
            party._pending_choice = {"keep": table.state.offers[other][0]}
            party._pending_for = table.step.start_seq
            await node._carry_out(party._act())
            print(f"poisoned: keeping seat {other}'s Princess", flush=True)
            return
        move = bot.choose(table.game, table.state, party.seat, party.known_faces(), prompt)
        await node.decide(move)

    try:
        await node.join(address)
        node.on_decide = on_decide
        assert node.party is not None
        if (prompt := node.party.waiting_for_me()) is not None:
            await on_decide(prompt, node.party.legal_moves())
        await node.wait_ended()
        await asyncio.sleep(0.5)
        return 0
    finally:
        await node.close()


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(prog="poisoner")
    parser.add_argument("--join", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--name", default="poisoner")
    args = parser.parse_args(argv)
    return asyncio.run(_run(args.join, Path(args.home), args.name))


if __name__ == "__main__":
    sys.exit(main())
