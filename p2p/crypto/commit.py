"""Commit-reveal for simultaneous secret choices and joint randomness.

``commit = H("commit", context, value, nonce)``: hiding while the nonce is secret (at least 16
random bytes; derive it from the seat's secret and the step so a crashed peer recommits the same
way), binding by collision resistance. ``joint_random`` folds every seat's opened value into one
number; it is uniform if any one seat's value was uniform and committed before anyone opened.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence

from p2p.crypto.errors import CryptoError, require_bytes, tagged_hash

COMMITMENT_SIZE = 32
"""Bytes in a commitment."""
MIN_NONCE = 16
"""Shortest accepted commitment nonce."""


def commit(context: bytes, value: bytes, nonce: bytes) -> bytes:
    """A 32-byte commitment to ``value`` under ``context``, hidden by ``nonce``."""
    require_bytes(context, "context")
    require_bytes(value, "committed value")
    require_bytes(nonce, "commitment nonce")
    if len(nonce) < MIN_NONCE:
        raise CryptoError(f"commitment nonce must be at least {MIN_NONCE} bytes")
    return tagged_hash("commit", context, value, nonce)


def verify_opening(commitment: bytes, context: bytes, value: bytes, nonce: bytes) -> None:
    """Raise CryptoError unless ``(value, nonce)`` opens ``commitment`` under ``context``."""
    require_bytes(commitment, "commitment")
    if len(commitment) != COMMITMENT_SIZE:
        raise CryptoError(f"commitment must be {COMMITMENT_SIZE} bytes, got {len(commitment)}")
    if not hmac.compare_digest(commit(context, value, nonce), commitment):
        raise CryptoError("commitment does not open to this value")


def joint_random(values: Sequence[bytes], n: int, context: bytes) -> int:
    """An unbiased integer in ``[0, n)`` from every seat's opened value (in seat order).

    Rejection sampling on a hash stream keeps it exactly uniform for any ``n``.
    """
    require_bytes(context, "context")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise CryptoError("joint_random needs an int n >= 1")
    if isinstance(values, bytes | str) or not values:
        raise CryptoError("joint_random needs a non-empty sequence of values")
    for i, value in enumerate(values):
        require_bytes(value, f"joint random value {i}")
    seed = tagged_hash("joint-random", context, n.to_bytes((n.bit_length() + 7) // 8 or 1, "big"), *values)
    bits = (n - 1).bit_length()
    size = (bits + 7) // 8
    counter = 0
    while True:
        block = tagged_hash("joint-random-draw", seed, counter.to_bytes(8, "big"))
        while len(block) < size:
            counter += 1
            block += tagged_hash("joint-random-draw", seed, counter.to_bytes(8, "big"))
        candidate = int.from_bytes(block[:size], "big") & ((1 << bits) - 1)
        if candidate < n:
            return candidate
        counter += 1
