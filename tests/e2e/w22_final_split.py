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
from p2p.log import Entry
from p2p.node import Node
from p2p.party import Party
from tests.e2e.dishonest_peer import Decide, main, play_honestly, send_a_twin


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
    """Play honestly; send the next party a false version of our final."""

    def false_final(entry: Entry) -> dict[str, Any] | None:
        if entry.kind != "final":
            return None
        return {**entry.body, "result": _false_result(entry.body["result"])}

    def next_party(party: Party) -> int:
        return (party.me + 1) % len(party.table.parties)

    send_a_twin(node, identity, false_final, next_party, "split: final")
    return play_honestly(node, identity)


if __name__ == "__main__":
    sys.exit(main("w22_final_split", split_final))
