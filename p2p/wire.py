"""What travels between nodes beside the log's entries: the bounds of a wire message and of a chat
line, the fields a join request signs, and the addresses they name."""

from __future__ import annotations

import socket
from typing import Any

from p2p.log import pack

MAX_CHAT = 500
"""Longest chat line, in characters (longer ones are cut)."""
WIRE_OBJECTS = 512
WIRE_DEPTH = 4
"""A wire message is a small flat map (an entry travels as one bin field): at most this many msgpack
objects, nested at most this deep, checked before anything is decoded."""


def local_address_towards(host: str) -> str:
    """The local IPv4 address the kernel would use to reach ``host`` (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((host, 9))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def endpoint_host(endpoint: str) -> str:
    """``tcp://HOST:PORT`` -> ``HOST``."""
    return endpoint.split("//", 1)[-1].rsplit(":", 1)[0]


def signed_join_fields(fields: dict[str, Any]) -> bytes:
    """The bytes a join request's signature covers: who joins, with which keys, where, as what."""
    signed = {k: fields[k] for k in ("name", "key", "curve", "endpoint", "role")}
    if fields.get("fresh") is not None:
        signed["fresh"] = fields["fresh"]
    return pack(signed)
