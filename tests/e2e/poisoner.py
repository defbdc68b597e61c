"""A deliberately dishonest peer for the e2e tests: ``python -m tests.e2e.poisoner --join HOST:PORT``.

It plays Rebel Princess like a heuristic bot, except that at the first Princess choice it commits to
keeping a Princess dealt to *another* seat — an illegal committed choice. Its own party would refuse
that move (``Party.decide`` checks it), so it bypasses that guard as a cheater's client would.
"""

from __future__ import annotations

import sys
from typing import Any

from p2p.identity import Identity
from p2p.node import Node
from tests.e2e.dishonest_peer import Decide, honest_move, main


def poison(node: Node, identity: Identity) -> Decide:
    """Play honestly, except for the first Princess choice."""
    poisoned: list[int] = []
    bots: dict[str, Any] = {}

    async def on_decide(prompt: str, moves: list[dict[str, Any]]) -> None:
        party = node.party
        assert party is not None
        table = party.table
        if getattr(table.state, "step", "") == "princess" and not poisoned:
            other = (party.me + 1) % table.seats
            poisoned.append(table.next_seq)
            # past the party's own guard
            party._pending_choice = {"keep": table.state.offers[other][0]}
            party._pending_for = table.step.start_seq
            await node._carry_out(party._act())
            print(f"poisoned: keeping seat {other}'s Princess", flush=True)
            return
        await node.decide(honest_move(node, identity, prompt, bots))

    return on_decide


if __name__ == "__main__":
    sys.exit(main("poisoner", poison))
