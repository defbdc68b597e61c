"""The one exception type of the crypto library, and the canonical byte encodings it hashes."""

from __future__ import annotations

import hashlib


class CryptoError(ValueError):
    """Input that failed validation or a proof that does not verify.

    The message names what failed ("shuffle proof round 17 does not open", "point not on curve")
    and never contains a secret scalar, nonce, seed or key.
    """


def lp(*parts: bytes | str) -> bytes:
    """Length-prefix and concatenate ``parts`` (str as UTF-8), so that distinct tuples never collide."""
    out = bytearray()
    for part in parts:
        raw = part.encode() if isinstance(part, str) else part
        out += len(raw).to_bytes(4, "big")
        out += raw
    return bytes(out)


def tagged_hash(tag: str, *parts: bytes | str) -> bytes:
    """SHA-256 of a domain tag and length-prefixed ``parts``; every Fiat-Shamir hash goes through this."""
    return hashlib.sha256(lp("fairdeck/v1/" + tag, *parts)).digest()


def make_context(*parts: bytes | str | int) -> bytes:
    """Build an unambiguous context from e.g. (game id, entry seq, seat, purpose).

    Ints are encoded as signed 8-byte big-endian, strs as UTF-8, bytes as-is; every part is
    length-prefixed and typed so ``("a", 1)`` and ``("a1",)`` differ.
    """
    out = bytearray()
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, bytes | str | int):
            raise CryptoError(f"context parts must be bytes, str or int, got {type(part).__name__}")
        if isinstance(part, int):
            if not -(2**63) <= part < 2**63:
                raise CryptoError("context int part out of the signed 64-bit range")
            out += b"i" + lp(part.to_bytes(8, "big", signed=True))
        elif isinstance(part, str):
            out += b"s" + lp(part)
        else:
            out += b"b" + lp(part)
    return bytes(out)


def require_bytes(value: object, what: str) -> bytes:
    """Return ``value`` if it is ``bytes``; raise :class:`CryptoError` naming ``what`` otherwise."""
    if not isinstance(value, bytes):
        raise CryptoError(f"{what} must be bytes, got {type(value).__name__}")
    return value
