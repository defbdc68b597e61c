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
from p2p.log import LogError, parse_envelope
from p2p.node import Node
from tests.e2e.dishonest_peer import Decide, main, play_honestly
from tests.p2p.protocol_support import resign


def _other_guess(body: dict[str, Any]) -> dict[str, Any]:
    move = dict(body["move"])
    move["guess"] = "priest" if move["guess"] != "priest" else "baron"
    return {**body, "move": move}


def fork(node: Node, identity: Identity) -> Decide:
    """Play honestly; sign the first Guard guess twice and keep each side on its own version."""
    twin: list[bytes] = []  # (the version most get, the one the last seat gets)
    send = node._send

    async def forked_send(curve: bytes, message: dict[str, Any]) -> None:
        party = node.party
        if party is not None and message.get("t") == "entry":
            envelope = message["env"]
            if not twin:
                try:
                    entry = parse_envelope(envelope)
                except LogError:
                    entry = None
                ours = entry is not None and entry.kind == "move" and entry.seat == party.me
                move = entry.body.get("move") if ours and entry is not None else None
                if entry is not None and isinstance(move, dict) and move.get("guess"):
                    twin[:] = [envelope, resign(identity, envelope, body=_other_guess(entry.body))]
                    print(f"forked: entry {entry.seq} signed twice", flush=True)
            last = len(party.table.parties) - 1 if party.me != len(party.table.parties) - 1 else 0
            if twin and envelope == twin[0] and curve == party.table.parties[last].curve:
                message = {**message, "env": twin[1]}
        await send(curve, message)

    node._send = forked_send  # type: ignore[method-assign]

    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("forker", fork))
