"""A peer that crashes at one chosen moment, for the e2e tests: ``python -m tests.e2e.crasher
--join HOST:PORT --home DIR``.

It plays like a heuristic bot — except that its secret choices are its own, legal but not the bot's,
as a person's would be — until its first secret commitment goes out *ahead of its place* (a
``commit`` of a concurrent step, sent before the members before it have reached it, so it is not in
its own log yet: ``docs/protocol.md`` §3.1). It then lets its links deliver it, while it takes nothing
in, and dies (``os._exit(9)``): the others hold its commitment, its own log
does not, and only its ``.choice`` file knows what it chose. Restarted as an ordinary bot, it must
commit to and open that very choice, not ask its bot again. Honest throughout: this stands for a
machine losing power.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from engine.core import Commit
from p2p.identity import Identity
from p2p.log import parse_envelope
from p2p.node import Node
from p2p.party import Effect
from tests.e2e.dishonest_peer import Decide, honest_move, main

SENT_GRACE = 1.0
"""Seconds the links get to deliver the commitment before the process dies."""


def crash_after_a_commitment_sent_ahead(node: Node, identity: Identity) -> Decide:
    """Play honestly; die right after the first own commitment sent ahead of its place."""
    bots: dict[str, Any] = {}
    carry_out = node._carry_out_effect

    async def carry_out_then_crash(effect: Effect) -> None:
        await carry_out(effect)
        party = node.party
        if effect.kind != "send" or party is None:
            return
        entry = parse_envelope(effect.envelope)
        if entry.kind == "commit" and entry.seat == party.me and entry.seq > party.table.next_seq - 1:
            # the entry leaves from the link's queue, drained by the loop; incoming entries wait for the
            # party lock this call holds, so nothing more joins our log meanwhile
            await asyncio.sleep(SENT_GRACE)
            print(f"crashing: my commitment for entry {entry.seq} went out ahead of its place", flush=True)
            os._exit(9)

    node._carry_out_effect = carry_out_then_crash  # type: ignore[method-assign]

    async def on_decide(prompt: str, moves: list[dict[str, Any]]) -> None:
        move = honest_move(node, identity, prompt, bots)
        party = node.party
        if party is not None and isinstance(party.table.step.request, Commit):
            # a person's own secret choice: legal, and not what a bot in its place would choose, so
            # a bot that comes back in its place and is asked again would choose another one
            move = next((m for m in reversed(moves) if m != move), move)
        await node.decide(move)

    return on_decide


if __name__ == "__main__":
    sys.exit(main("crasher", crash_after_a_commitment_sent_ahead))
