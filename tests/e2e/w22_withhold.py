"""A deliberately dishonest peer: ``python -m tests.e2e.w22_withhold --join HOST:PORT --home DIR``.

It plays like a heuristic bot, except that it never sends one party (the next seat after its own,
wrapping around) any of its own entries from seq ``W22_WITHHOLD_FROM`` on (10 by default; up to
``W22_WITHHOLD_UNTIL``, excluded, if that is set), or only
those of kind ``W22_WITHHOLD_KIND`` if that is set (``final``: the very last entries of the game).
Not in answer to a catch-up either: that party can only get them from the others. Nobody can prove
the withholding (a lost message looks the same), so nobody may be named; the honest parties must
pass the entries on to each other and every log must end alike.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from p2p.identity import Identity
from p2p.log import LogError, parse_envelope
from p2p.node import Node
from tests.e2e.dishonest_peer import Decide, main, play_honestly


def withhold(node: Node, identity: Identity) -> Decide:
    """Play honestly; keep our own entries (from a seq on, or of one kind) from one party."""
    start = int(os.environ.get("W22_WITHHOLD_FROM", "10"))
    until = int(os.environ.get("W22_WITHHOLD_UNTIL") or "-1")
    kind = os.environ.get("W22_WITHHOLD_KIND") or None
    send = node._send
    told: list[int] = []

    async def withholding_send(curve: bytes, message: dict[str, Any]) -> None:
        party = node.party
        if party is not None and message.get("t") == "entry":
            parties = party.table.parties
            victim = (party.me + 1) % len(parties)
            try:
                entry = parse_envelope(message["env"])
            except LogError:
                entry = None
            if (
                entry is not None
                and curve == parties[victim].curve
                and entry.seat == party.me
                and entry.seq >= start
                and (until < 0 or entry.seq < until)
                and (kind is None or entry.kind == kind)
            ):
                if not told:
                    told.append(entry.seq)
                    print(f"withholding from seat {victim} from entry {entry.seq}", flush=True)
                return
        await send(curve, message)

    node._send = withholding_send  # type: ignore[method-assign]
    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("w22_withhold", withhold))
