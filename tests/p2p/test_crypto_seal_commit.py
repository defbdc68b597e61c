"""Private shows (sealed tokens), bad-seal evidence, commitments and joint randomness."""

from __future__ import annotations

from collections import Counter

import pytest

from p2p.crypto import (
    CryptoError,
    bad_seal_evidence,
    base_mul,
    card_point,
    commit,
    derive_scalar,
    derive_seal_key,
    encrypt,
    joint_random,
    make_context,
    reveal_token,
    seal,
    seal_public,
    table_key,
    token_point,
    unseal,
    verify_bad_seal_evidence,
    verify_opening,
    verify_token,
)

GAME = b"game-seal"
IDS = [b"identity-secret-of-seat-%d-0123" % s for s in range(3)]
XS = [derive_scalar(i, "elgamal", GAME) for i in IDS]
SHARES = [base_mul(x) for x in XS]
KEY = table_key(SHARES)
CT = encrypt(card_point("king"), KEY, 0xFEED)
SEAL_KEYS = [derive_seal_key(i, make_context(GAME, "seal")) for i in IDS]
PUBS = [seal_public(k) for k in SEAL_KEYS]
CTX = make_context(GAME, 12, 0, "show")


def test_seal_round_trip_and_determinism() -> None:
    token = reveal_token(XS[0], CT, CTX)
    blob = seal(token, SEAL_KEYS[0], PUBS[1], CTX)
    assert blob == seal(token, SEAL_KEYS[0], PUBS[1], CTX)  # a crashed peer re-seals identically
    assert token not in blob
    opened = unseal(blob, SEAL_KEYS[1], PUBS[0], CTX)
    assert opened == token
    assert verify_token(SHARES[0], CT, opened, CTX) == token_point(XS[0], CT)


def test_seal_keys_are_per_identity_and_context() -> None:
    assert PUBS[0] != PUBS[1]
    assert seal_public(derive_seal_key(IDS[0], make_context(b"other-game", "seal"))) != PUBS[0]
    assert seal_public(derive_seal_key(IDS[0], make_context(GAME, "seal"))) == PUBS[0]
    assert len(PUBS[0]) == 32


def test_two_tokens_under_one_context_use_different_nonces() -> None:
    a = seal(b"token-a" * 10, SEAL_KEYS[0], PUBS[1], CTX)
    b = seal(b"token-b" * 10, SEAL_KEYS[0], PUBS[1], CTX)
    assert a[1:13] != b[1:13]


@pytest.mark.parametrize(
    ("who", "sender_pub", "context"),
    [(2, 0, CTX), (1, 2, CTX), (1, 0, make_context(GAME, 13, 0, "show"))],
    ids=["wrong-recipient", "wrong-sender", "wrong-context"],
)
def test_unseal_with_wrong_keys_or_context_fails(who: int, sender_pub: int, context: bytes) -> None:
    blob = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    with pytest.raises(CryptoError, match="does not decrypt"):
        unseal(blob, SEAL_KEYS[who], PUBS[sender_pub], context)


def test_tampered_or_malformed_seals_fail() -> None:
    blob = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    with pytest.raises(CryptoError, match="does not decrypt"):
        unseal(blob[:-1] + bytes([blob[-1] ^ 1]), SEAL_KEYS[1], PUBS[0], CTX)
    with pytest.raises(CryptoError, match="sealed token malformed"):
        unseal(blob[:20], SEAL_KEYS[1], PUBS[0], CTX)
    with pytest.raises(CryptoError, match="sealed token malformed"):
        unseal(b"\x02" + blob[1:], SEAL_KEYS[1], PUBS[0], CTX)
    with pytest.raises(CryptoError, match="sender seal key must be 32 bytes"):
        unseal(blob, SEAL_KEYS[1], PUBS[0][:31], CTX)
    with pytest.raises(CryptoError, match="low-order point"):
        seal(b"t" * 97, SEAL_KEYS[0], bytes(32), CTX)


def test_seal_key_repr_does_not_leak() -> None:
    raw = IDS[0].hex()
    assert raw not in repr(SEAL_KEYS[0])
    evidence = bad_seal_evidence(b"\x01" * 40, SEAL_KEYS[1], PUBS[0], CTX)
    assert evidence[4:].hex() not in repr(SEAL_KEYS[1])


# ---------------------------------------------------------------------------------------------
# bad-seal evidence
# ---------------------------------------------------------------------------------------------


def judge(blob: bytes) -> str | None:
    evidence = bad_seal_evidence(blob, SEAL_KEYS[1], PUBS[0], CTX)
    return verify_bad_seal_evidence(evidence, blob, PUBS[0], PUBS[1], SHARES[0], CT, CTX)


def test_honest_seal_is_not_blamed() -> None:
    assert judge(seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)) is None


def test_sealed_token_with_a_wrong_proof_is_caught() -> None:
    wrong = reveal_token(XS[2], CT, CTX)  # another seat's token passed off as seat 0's
    reason = judge(seal(wrong, SEAL_KEYS[0], PUBS[1], CTX))
    assert reason is not None and "token proof invalid" in reason


def test_sealed_token_for_another_step_is_caught() -> None:
    stale = reveal_token(XS[0], CT, make_context(GAME, 3, 0, "show"))
    reason = judge(seal(stale, SEAL_KEYS[0], PUBS[1], CTX))
    assert reason is not None and "token proof invalid" in reason


def test_sealed_garbage_and_undecryptable_blobs_are_caught() -> None:
    reason = judge(seal(b"not a token", SEAL_KEYS[0], PUBS[1], CTX))
    assert reason is not None and "token must be 97 bytes" in reason
    # sealed to the wrong seat: the recipient cannot decrypt it
    reason = judge(seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[2], CTX))
    assert reason is not None and "does not decrypt" in reason
    reason = judge(b"\x01" + bytes(40))
    assert reason is not None and "does not decrypt" in reason


def test_forged_or_malformed_evidence_is_rejected() -> None:
    blob = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    forged = bad_seal_evidence(blob, SEAL_KEYS[2], PUBS[0], CTX)  # seat 2's key, not the recipient's
    with pytest.raises(CryptoError, match="does not match the recipient's seal key"):
        verify_bad_seal_evidence(forged, blob, PUBS[0], PUBS[1], SHARES[0], CT, CTX)
    evidence = bad_seal_evidence(blob, SEAL_KEYS[1], PUBS[0], CTX)
    with pytest.raises(CryptoError, match="ciphertext must be 66 bytes"):
        verify_bad_seal_evidence(evidence, blob, PUBS[0], PUBS[1], SHARES[0], CT[:40], CTX)
    with pytest.raises(CryptoError, match="evidence malformed"):
        verify_bad_seal_evidence(b"FDE\x01" + bytes(5), blob, PUBS[0], PUBS[1], SHARES[0], CT, CTX)


# ---------------------------------------------------------------------------------------------
# commitments and joint randomness
# ---------------------------------------------------------------------------------------------

NONCE = b"n" * 16


def test_commitment_opens_only_to_its_value() -> None:
    ctx = make_context(GAME, 20, 1, "pass")
    c = commit(ctx, b"KH", NONCE)
    assert len(c) == 32 and c == commit(ctx, b"KH", NONCE)
    verify_opening(c, ctx, b"KH", NONCE)
    with pytest.raises(CryptoError, match="does not open to this value"):
        verify_opening(c, ctx, b"QS", NONCE)
    with pytest.raises(CryptoError, match="does not open to this value"):
        verify_opening(c, ctx, b"KH", b"m" * 16)
    with pytest.raises(CryptoError, match="does not open to this value"):
        verify_opening(c, make_context(GAME, 21, 1, "pass"), b"KH", NONCE)
    with pytest.raises(CryptoError, match="commitment must be 32 bytes"):
        verify_opening(c[:31], ctx, b"KH", NONCE)
    with pytest.raises(CryptoError, match="at least 16 bytes"):
        commit(ctx, b"KH", b"short")


def test_commitment_boundaries_are_unambiguous() -> None:
    assert commit(b"ctx", b"ab", b"c" * 16) != commit(b"ctx", b"a", b"b" + b"c" * 16)


def test_joint_random_is_deterministic_in_range_and_order_sensitive() -> None:
    ctx = make_context(GAME, 30, "first-player")
    values = [b"a" * 16, b"b" * 16, b"c" * 16]
    r = joint_random(values, 4, ctx)
    assert 0 <= r < 4 and r == joint_random(values, 4, ctx)
    assert joint_random(values, 1, ctx) == 0
    big = joint_random(values, 2**200 + 1, ctx)
    assert 0 <= big <= 2**200
    seen = {joint_random([v, b"x" * 16], 1000, ctx) for v in (b"%016d" % i for i in range(20))}
    assert len(seen) >= 18  # different inputs, different outputs
    with pytest.raises(CryptoError, match="n >= 1"):
        joint_random(values, 0, ctx)
    with pytest.raises(CryptoError, match="non-empty"):
        joint_random([], 3, ctx)


def test_joint_random_is_close_to_uniform() -> None:
    # n = 3 is not a power of two: plain truncation would favour some values
    counts = Counter(joint_random([b"%08d" % i], 3, b"uniformity") for i in range(3000))
    assert set(counts) == {0, 1, 2}
    assert all(880 <= c <= 1120 for c in counts.values())  # ~6 sigma around 1000
