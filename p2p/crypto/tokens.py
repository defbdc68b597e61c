"""Reveal tokens ``d = x * c1`` with a Chaum-Pedersen (DLEQ) proof that log_G(X) = log_c1(d).

The proof is bound to the context (game id, entry seq, seat) and to the exact ciphertext, so a
token cannot be replayed for another card or another step, and a seat cannot publish a wrong
token without being caught on the spot.

Blob layout (97 bytes): ``d (33) || e (32) || s (32)`` with ``A1 = s*G - e*X``,
``A2 = s*c1 - e*d`` and ``e = H("token", context, ciphertext, X, d, A1, A2) mod n``.
"""

from __future__ import annotations

from p2p.crypto.elgamal import parse_ciphertext
from p2p.crypto.errors import CryptoError, lp, require_bytes
from p2p.crypto.group import (
    ORDER,
    POINT_SIZE,
    SCALAR_SIZE,
    Point,
    base_mul,
    derive_scalar,
    hash_to_scalar,
    lincomb,
    lincomb_base,
    parse_point,
    read_scalar,
    scalar_bytes,
)

TOKEN_SIZE = POINT_SIZE + 2 * SCALAR_SIZE
"""Bytes in a reveal-token blob."""


def reveal_token(x: int, ciphertext: bytes, context: bytes) -> bytes:
    """Seat secret ``x``'s token for ``ciphertext`` with a DLEQ proof bound to ``context``.

    Deterministic: the proof nonce is derived from ``x``, the ciphertext and the context.
    """
    require_bytes(context, "context")
    xb = scalar_bytes(x)
    c1, _ = parse_ciphertext(ciphertext)
    xi = int.from_bytes(xb, "big")
    share = base_mul(xi)
    d = c1.mul_secret(xi)
    k = derive_scalar(xb, "token-nonce", lp(context, ciphertext))
    a1, a2 = base_mul(k), c1.mul_secret(k)
    e = _challenge(context, ciphertext, share, d, a1, a2)
    s = (k + e * xi) % ORDER
    return d.to_bytes() + e.to_bytes(SCALAR_SIZE, "big") + s.to_bytes(SCALAR_SIZE, "big")


def verify_token(share: Point, ciphertext: bytes, token: bytes, context: bytes) -> Point:
    """Check ``token`` from the seat whose key share is ``share``; return its ``d``.

    Raises CryptoError ("token proof invalid", "token d: point not on curve", ...) otherwise.
    """
    if not isinstance(share, Point):
        raise CryptoError("share must be a Point")
    require_bytes(token, "token")
    require_bytes(context, "context")
    c1, _ = parse_ciphertext(ciphertext)
    if len(token) != TOKEN_SIZE:
        raise CryptoError(f"token must be {TOKEN_SIZE} bytes, got {len(token)}")
    d = parse_point(token[:POINT_SIZE], "token d")
    e = read_scalar(token[POINT_SIZE : POINT_SIZE + SCALAR_SIZE], "token proof challenge")
    s = read_scalar(token[POINT_SIZE + SCALAR_SIZE :], "token proof response")
    try:
        a1 = lincomb_base(s, ORDER - e, share)
        a2 = lincomb(s, c1, ORDER - e, d)
    except CryptoError:
        raise CryptoError("token proof invalid") from None
    if _challenge(context, ciphertext, share, d, a1, a2) != e:
        raise CryptoError("token proof invalid")
    return d


def _challenge(context: bytes, ciphertext: bytes, share: Point, d: Point, a1: Point, a2: Point) -> int:
    return hash_to_scalar(
        "token", context, ciphertext, share.to_bytes(), d.to_bytes(), a1.to_bytes(), a2.to_bytes()
    )
