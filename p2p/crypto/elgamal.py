"""ElGamal ciphertexts of card points under the table key, as 66-byte blobs ``c1 || c2``.

A card M under table key K = sum(x_s * G) is ``(r*G, M + r*K)``. Seat s's reveal token for a
ciphertext is ``d_s = x_s * c1``; the sum of all seats' tokens is ``r*K``, so
``c2 - sum(d_s) = M``. Without every seat's token the card stays hidden (DDH).
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p.crypto.errors import CryptoError, require_bytes
from p2p.crypto.group import (
    GENERATOR,
    POINT_SIZE,
    Point,
    base_mul,
    card_point,
    parse_point,
    point_sum,
)

CIPHERTEXT_SIZE = 2 * POINT_SIZE
"""Bytes in a ciphertext blob."""


def parse_ciphertext(ciphertext: bytes, what: str = "ciphertext") -> tuple[Point, Point]:
    """Validate a 66-byte ciphertext and return ``(c1, c2)``; CryptoError naming ``what`` otherwise."""
    require_bytes(ciphertext, what)
    if len(ciphertext) != CIPHERTEXT_SIZE:
        raise CryptoError(f"{what} must be {CIPHERTEXT_SIZE} bytes, got {len(ciphertext)}")
    return (
        parse_point(ciphertext[:POINT_SIZE], f"{what} c1"),
        parse_point(ciphertext[POINT_SIZE:], f"{what} c2"),
    )


def encode_ciphertext(c1: Point, c2: Point) -> bytes:
    """The 66-byte blob of ``(c1, c2)``."""
    return c1.to_bytes() + c2.to_bytes()


def open_ciphertext(face: str, table_key: Point) -> bytes:
    """The public encryption of ``face`` with r = 1: ``(G, M + K)``.

    Everyone computes the same initial deck from the faces and the table key; the first shuffle
    re-randomises it, after which nobody alone can open a card.
    """
    if not isinstance(table_key, Point):
        raise CryptoError("table key must be a Point")
    return encode_ciphertext(GENERATOR, card_point(face) + table_key)


def encrypt(message: Point, table_key: Point, r: int) -> bytes:
    """``(r*G, M + r*K)`` for a nonzero scalar ``r`` (used by tests and tools)."""
    return encode_ciphertext(base_mul(r), message + table_key.mul_secret(r))


def token_point(x: int, ciphertext: bytes) -> Point:
    """A seat's own reveal token ``x * c1``, without a proof (for cards dealt to itself)."""
    c1, _ = parse_ciphertext(ciphertext)
    return c1.mul_secret(x)


def unmask(ciphertext: bytes, tokens_d: Sequence[Point]) -> Point:
    """``c2 - sum(d)``: the card point once every seat's token is in ``tokens_d``.

    Decode the result with :meth:`CardCodec.decode`; a missing or wrong token gives a point that
    does not decode.
    """
    _, c2 = parse_ciphertext(ciphertext)
    if not tokens_d:
        raise CryptoError("unmask needs at least one token")
    if not all(isinstance(d, Point) for d in tokens_d):
        raise CryptoError("tokens must be Points (from verify_token or token_point)")
    return c2 - point_sum(tokens_d)
