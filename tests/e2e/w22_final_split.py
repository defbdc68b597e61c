"""A deliberately dishonest peer: ``python -m tests.e2e.w22_final_split --join HOST:PORT --home DIR``.

It plays like a heuristic bot to the very end, where it signs its ``final`` (the game's concurrent
last step) twice: the next party after it (wrapping around) gets a version claiming another result,
everyone else the true one, and each side keeps getting its own version whenever the entry is sent
again. The party with the false version keeps it as proof; the others hold the true one.
"""

from __future__ import annotations

import sys
from typing import Any

from p2p.identity import Identity
from p2p.log import LogError, parse_envelope
from p2p.node import Node
from tests.e2e.dishonest_peer import Decide, main, play_honestly
from tests.p2p.protocol_support import resign


def _false_result(result: Any) -> Any:
    """Another result: every number in it changed (a lie about the score or the winner)."""
    if isinstance(result, bool):
        return not result
    if isinstance(result, int):
        return result + 1
    if isinstance(result, dict):
        return {k: _false_result(v) for k, v in result.items()}
    if isinstance(result, list):
        return [_false_result(v) for v in result]
    return ["not", result]


def split_final(node: Node, identity: Identity) -> Decide:
    """Play honestly; send one party a false version of our final."""
    twin: list[bytes] = []  # (the true version, the false one)
    send = node._send

    async def split_send(curve: bytes, message: dict[str, Any]) -> None:
        party = node.party
        if party is not None and message.get("t") == "entry":
            envelope = message["env"]
            if not twin:
                try:
                    entry = parse_envelope(envelope)
                except LogError:
                    entry = None
                if entry is not None and entry.kind == "final" and entry.seat == party.me:
                    body = {**entry.body, "result": _false_result(entry.body["result"])}
                    twin[:] = [envelope, resign(identity, envelope, body=body)]
                    print(f"split: final {entry.seq} signed twice", flush=True)
            parties = party.table.parties
            if twin and envelope == twin[0] and curve == parties[(party.me + 1) % len(parties)].curve:
                message = {**message, "env": twin[1]}
        await send(curve, message)

    node._send = split_send  # type: ignore[method-assign]
    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("w22_final_split", split_final))
