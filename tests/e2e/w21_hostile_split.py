"""A deliberately dishonest peer: ``python -m tests.e2e.w21_hostile_split --join HOST:PORT --home DIR``.

It plays like a heuristic bot, except that its first entry of kind ``W21_SPLIT_KIND`` (``shuffle``
by default, or ``tokens``) is signed twice: the party ``W21_SPLIT_BAD`` places after it (1 by
default: the next party; the count wraps around the table) gets a version
that breaks a rule (one byte of its proof or of a token flipped), everyone else the valid one, and
it keeps each side on its own version whenever it resends the entry. The party that got the bad
version folds it as proof and ends its game; the others go on with the valid version and wait for
that party at their next place.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from p2p.identity import Identity
from p2p.log import Entry
from p2p.node import Node
from tests.e2e.dishonest_peer import Decide, main, play_honestly, send_a_twin


def _flip(blob: bytes) -> bytes:
    return blob[:-1] + bytes([blob[-1] ^ 1])


def _broken(kind: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """A version of ``body`` whose proof (shuffle) or first token (tokens) does not verify."""
    if kind == "shuffle":
        return {**body, "proof": _flip(body["proof"])}
    if kind == "tokens" and body["tokens"]:
        (ref, token), *rest = body["tokens"]
        return {**body, "tokens": [[ref, _flip(token)], *rest]}
    return None


def split(node: Node, identity: Identity) -> Decide:
    """Play honestly; send one party a broken version of our first ``W21_SPLIT_KIND`` entry."""
    kind = os.environ.get("W21_SPLIT_KIND", "shuffle")
    offset = int(os.environ.get("W21_SPLIT_BAD", "1"))

    def broken(entry: Entry) -> dict[str, Any] | None:
        return _broken(kind, entry.body) if entry.kind == kind else None

    send_a_twin(node, identity, broken, lambda party: (party.me + offset) % len(party.table.parties), "split")
    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("w21_hostile_split", split))
