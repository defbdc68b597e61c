"""A peer that dies at the last step of the game, for the e2e tests: ``python -m
tests.e2e.final_crasher --join HOST:PORT --home DIR``.

It plays as the heuristic bot until its own ``final`` entry (the concurrent last step, §3.1) is
about to be written or sent ahead of its place, and dies right then (``os._exit(9)``), before that
entry leaves: the others may hold their finals and wait for its one. Restarted as an ordinary bot
with the same home, it must write that final and the game end alike everywhere. Honest throughout:
this stands for a machine losing power in the game's last second.
"""

from __future__ import annotations

import os
import sys

from p2p.identity import Identity
from p2p.log import parse_envelope
from p2p.node import Node
from p2p.party import Effect
from tests.e2e.dishonest_peer import Decide, main, play_honestly


def crash_before_own_final(node: Node, identity: Identity) -> Decide:
    """Play honestly; die just before our own final goes out."""
    carry_out = node._carry_out_effect

    async def die_before_final(effect: Effect) -> None:
        party = node.party
        if effect.kind in ("write", "send") and party is not None:
            entry = parse_envelope(effect.envelope)
            if entry.kind == "final" and entry.seat == party.me:
                print(f"crashing: my final for entry {entry.seq} was about to go out", flush=True)
                os._exit(9)
        await carry_out(effect)

    node._carry_out_effect = die_before_final  # type: ignore[method-assign]

    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("final_crasher", crash_before_own_final))
