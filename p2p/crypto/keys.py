"""Key shares: each seat's ElGamal public share with a Schnorr proof of knowledge of its secret.

The proof is bound to a context (game id + seat), so a share copied from another game or seat,
or a "rogue" share computed from the others' shares without knowing its secret, does not verify.
The table key is the sum of the verified shares; nobody knows its secret unless all seats collude.

Blob layout (97 bytes): ``X (33) || e (32) || s (32)`` with ``R = s*G - e*X`` and
``e = H("keyshare", context, X, R) mod n``.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p.crypto.errors import CryptoError, require_bytes
from p2p.crypto.group import (
    ORDER,
    POINT_SIZE,
    SCALAR_SIZE,
    Point,
    base_mul,
    derive_scalar,
    hash_to_scalar,
    lincomb_base,
    parse_point,
    point_sum,
    read_scalar,
    scalar_bytes,
)

KEY_SHARE_SIZE = POINT_SIZE + 2 * SCALAR_SIZE
"""Bytes in a key-share blob."""


def make_key_share(x: int, context: bytes) -> bytes:
    """Publish ``x*G`` with a Schnorr proof of knowledge of ``x`` bound to ``context``.

    Deterministic: the nonce is derived from ``x`` and ``context`` (same inputs, same blob).
    """
    require_bytes(context, "context")
    xb = scalar_bytes(x)
    share = base_mul(x)
    k = derive_scalar(xb, "keyshare-nonce", context)
    commitment = base_mul(k)
    e = hash_to_scalar("keyshare", context, share.to_bytes(), commitment.to_bytes())
    s = (k + e * int.from_bytes(xb, "big")) % ORDER
    return share.to_bytes() + e.to_bytes(SCALAR_SIZE, "big") + s.to_bytes(SCALAR_SIZE, "big")


def verify_key_share(blob: bytes, context: bytes) -> Point:
    """Check a key-share blob for ``context`` and return the share point; CryptoError otherwise."""
    require_bytes(blob, "key share")
    require_bytes(context, "context")
    if len(blob) != KEY_SHARE_SIZE:
        raise CryptoError(f"key share must be {KEY_SHARE_SIZE} bytes, got {len(blob)}")
    share = parse_point(blob[:POINT_SIZE], "key share")
    e = read_scalar(blob[POINT_SIZE : POINT_SIZE + SCALAR_SIZE], "key share proof challenge")
    s = read_scalar(blob[POINT_SIZE + SCALAR_SIZE :], "key share proof response")
    try:
        commitment = lincomb_base(s, ORDER - e, share)
    except CryptoError:
        raise CryptoError("key share proof invalid") from None
    if hash_to_scalar("keyshare", context, share.to_bytes(), commitment.to_bytes()) != e:
        raise CryptoError("key share proof invalid")
    return share


def table_key(shares: Sequence[Point]) -> Point:
    """The table's ElGamal public key: the sum of every seat's verified share."""
    if not shares:
        raise CryptoError("table key needs at least one share")
    if not all(isinstance(p, Point) for p in shares):
        raise CryptoError("table key shares must be Points")
    return point_sum(shares)
