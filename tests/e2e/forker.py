"""A deliberately dishonest peer for the e2e tests: ``python -m tests.e2e.forker --join HOST:PORT``.

It plays Love Letter like a heuristic bot, except that its first Guard guess is signed twice: the
last seat of the table gets one version (another guess) and everyone else the other, and it keeps
each side on its own version whenever it resends the entry. No honest party receives both from it,
so the table splits in two; the honest parties must find each other's version, name it, and blame
nobody else.
"""

from __future__ import annotations

import sys
from typing import Any

from p2p.identity import Identity
from p2p.log import Entry
from p2p.node import Node
from p2p.party import Party
from tests.e2e.dishonest_peer import Decide, main, play_honestly, send_a_twin


def _other_guess(body: dict[str, Any]) -> dict[str, Any]:
    move = dict(body["move"])
    move["guess"] = "priest" if move["guess"] != "priest" else "baron"
    return {**body, "move": move}


def fork(node: Node, identity: Identity) -> Decide:
    """Play honestly; sign the first Guard guess twice and keep each side on its own version."""

    def other_guess(entry: Entry) -> dict[str, Any] | None:
        move = entry.body.get("move") if entry.kind == "move" else None
        return _other_guess(entry.body) if isinstance(move, dict) and move.get("guess") else None

    def last_but_us(party: Party) -> int:  # (the last seat, or seat 0 when we are the last)
        last = len(party.table.parties) - 1
        return last if party.me != last else 0

    send_a_twin(node, identity, other_guess, last_but_us, "forked")
    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("forker", fork))
