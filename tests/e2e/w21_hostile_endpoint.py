"""A dishonest opener: ``python -m tests.e2e.w21_hostile_endpoint [peer_support host options]``.

It opens and plays a table like ``tests.e2e.peer_support host``, except that

- the ``start`` it sends party 1 lists a wrong endpoint for party 2 (a port where nothing listens):
  party 1's own link to party 2 never comes up, although party 2 reaches party 1 (and everyone else)
  and keeps sending it its entries and pings;
- from entry ``--frame-at`` on, the moment its own entry makes party 2 the awaited one, it closes
  the game naming party 2 and sends the close ahead of the entry (a lie in its own signed
  ``abandon``: party 2 did not stall).

Party 1 must not take that close: party 2 is there (it hears it), only its own way to party 2 is
broken — by the opener's doing.
"""

from __future__ import annotations

import sys
from typing import Any

from p2p.log import parse_envelope
from p2p.node import Node
from tests.e2e import peer_support

WRONG = "tcp://127.0.0.1:9"
"""Where party 1 is told party 2 listens (the discard port: nothing listens there)."""

_send = Node._send


async def _send_wrong_endpoint(self: Node, curve: bytes, message: dict[str, Any]) -> None:
    if message.get("t") == "start" and len(message.get("endpoints", [])) > 2:
        parties = parse_envelope(message["genesis"]).body["parties"]
        if curve == parties[1]["curve"]:
            endpoints = list(message["endpoints"])
            endpoints[2] = WRONG
            message = {**message, "endpoints": endpoints}
            print("told party 1 a wrong endpoint for party 2", flush=True)
    await _send(self, curve, message)


if __name__ == "__main__":
    Node._send = _send_wrong_endpoint  # type: ignore[method-assign]
    frame = peer_support._frame
    peer_support._frame = lambda node, at: frame(node, at, only=2)
    sys.exit(peer_support.main(["host", *sys.argv[1:]]))
