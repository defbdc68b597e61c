"""Private shows (sealed tokens), bad-seal evidence, commitments and joint randomness."""

from __future__ import annotations

import copy
import importlib
import pickle
from collections import Counter

import pytest
from cryptography.exceptions import InvalidTag

from p2p.crypto import (
    SEAL_PUBLIC_SIZE,
    CryptoError,
    SealKey,
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
    validate_seal_public,
    verify_bad_seal_evidence,
    verify_opening,
    verify_token,
)
from p2p.crypto.group import FIELD_P, ORDER, Point

GAME = b"game-seal"
IDS = [b"identity-secret-of-seat-%d-0123" % s for s in range(3)]
XS = [derive_scalar(i, "elgamal", GAME) for i in IDS]
SHARES = [base_mul(x) for x in XS]
KEY = table_key(SHARES)
CT = encrypt(card_point("king"), KEY, 0xFEED)
CT2 = encrypt(card_point("queen"), KEY, 0xBEEF)
SEAL_KEYS = [derive_seal_key(i, make_context(GAME, "seal")) for i in IDS]
PUBS = [seal_public(k) for k in SEAL_KEYS]
CTX = make_context(GAME, 12, 0, "show")
seal_mod = importlib.import_module("p2p.crypto.seal")  # the package's `seal` is the function
NOT_FOR_US = "not sealed by this sender to this recipient for this context"


def off_curve() -> bytes:
    x = next(x for x in range(1, 100) if pow(x**3 + 7, (FIELD_P - 1) // 2, FIELD_P) != 1)
    return b"\x02" + x.to_bytes(32, "big")


def open_with_shared_point(shared: Point, blob: bytes, recipient: int, sender: int, context: bytes) -> bytes:
    """What anyone holding a published shared point can do: derive the blob's key and decrypt."""
    big_r = Point.from_bytes(blob[1:34])
    aead, nonce = seal_mod._aead(shared, big_r, PUBS[recipient], PUBS[sender], context)
    return aead.decrypt(nonce, blob[seal_mod._BLOB_HEAD :], seal_mod.lp("seal", context))


# ---------------------------------------------------------------------------------------------
# sealing
# ---------------------------------------------------------------------------------------------


def test_seal_round_trip_and_determinism() -> None:
    token = reveal_token(XS[0], CT, CTX)
    blob = seal(token, SEAL_KEYS[0], PUBS[1], CTX)
    assert blob == seal(token, SEAL_KEYS[0], PUBS[1], CTX)  # a crashed peer re-seals identically
    assert token not in blob and len(blob) == 1 + 33 + 64 + len(token) + 16
    opened = unseal(blob, SEAL_KEYS[1], PUBS[0], CTX)
    assert opened == token
    assert verify_token(SHARES[0], CT, opened, CTX) == token_point(XS[0], CT)


@pytest.mark.parametrize("plaintext", [b"", b"KH", b"princess", b"guard-3" * 20])
def test_arbitrary_short_plaintexts_round_trip(plaintext: bytes) -> None:
    blob = seal(plaintext, SEAL_KEYS[0], PUBS[2], CTX)
    assert unseal(blob, SEAL_KEYS[2], PUBS[0], CTX) == plaintext


def test_seal_keys_are_per_identity_and_context() -> None:
    assert PUBS[0] != PUBS[1]
    assert seal_public(derive_seal_key(IDS[0], make_context(b"other-game", "seal"))) != PUBS[0]
    assert seal_public(derive_seal_key(IDS[0], make_context(GAME, "seal"))) == PUBS[0]
    assert len(PUBS[0]) == SEAL_PUBLIC_SIZE == 33
    for pub in PUBS:
        validate_seal_public(pub)
    with pytest.raises(CryptoError, match="at least 16 bytes"):
        derive_seal_key(b"short", CTX)


def test_every_item_gets_its_own_ephemeral_key() -> None:
    a = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    b = seal(reveal_token(XS[0], CT2, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    c = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[2], CTX)
    assert len({a[1:34], b[1:34], c[1:34]}) == 3


@pytest.mark.parametrize(
    ("who", "sender_pub", "context"),
    [(2, 0, CTX), (1, 2, CTX), (1, 0, make_context(GAME, 13, 0, "show"))],
    ids=["wrong-recipient", "wrong-sender", "wrong-context"],
)
def test_unseal_with_wrong_keys_or_context_fails(who: int, sender_pub: int, context: bytes) -> None:
    blob = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    with pytest.raises(CryptoError, match=NOT_FOR_US):
        unseal(blob, SEAL_KEYS[who], PUBS[sender_pub], context)


def test_tampered_or_malformed_seals_fail() -> None:
    blob = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    cases = [
        (blob[:-1] + bytes([blob[-1] ^ 1]), "does not decrypt"),
        (blob[:60] + bytes([blob[60] ^ 1]) + blob[61:], NOT_FOR_US),  # the proof's challenge
        (blob[:1] + off_curve() + blob[34:], "sealed token malformed: ephemeral key: point not on curve"),
        (blob[:34] + b"\xff" * 32 + blob[66:], "malformed: ephemeral key proof: scalar out of range"),
        (blob[:20], "sealed token malformed"),
        (blob[: seal_mod._BLOB_HEAD + 15], "sealed token malformed"),
        (b"\x01" + blob[1:], "sealed token malformed"),
    ]
    for bad, reason in cases:
        with pytest.raises(CryptoError, match=reason):
            unseal(bad, SEAL_KEYS[1], PUBS[0], CTX)
    with pytest.raises(CryptoError, match="sealed token must be bytes"):
        unseal(bytearray(blob), SEAL_KEYS[1], PUBS[0], CTX)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("public", "reason"),
    [
        (bytes(32), "expected 33 bytes, got 32"),  # the X25519 all-zero low-order key of the old scheme
        (bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"), "got 32"),
        (bytes(33), "identity point"),
        (b"\x00", "identity point"),
        (off_curve(), "point not on curve"),
        (b"\x04" + bytes(64), "expected 33 bytes, got 65"),
        (b"\x05" + PUBS[0][1:], "bad prefix byte 0x05"),
        (b"\x02" + FIELD_P.to_bytes(32, "big"), "point not on curve"),  # x = p: not a field element
    ],
)
def test_bad_seal_public_keys_are_refused_everywhere(public: bytes, reason: str) -> None:
    with pytest.raises(CryptoError, match=f"seal public key: .*{reason}"):
        validate_seal_public(public)
    with pytest.raises(CryptoError, match=f"recipient seal key: .*{reason}"):
        seal(b"t" * 97, SEAL_KEYS[0], public, CTX)
    blob = seal(b"t" * 97, SEAL_KEYS[0], PUBS[1], CTX)
    with pytest.raises(CryptoError, match=f"sender seal key: .*{reason}"):
        unseal(blob, SEAL_KEYS[1], public, CTX)
    with pytest.raises(CryptoError, match=f"sender seal key: .*{reason}"):
        bad_seal_evidence(blob, SEAL_KEYS[1], public, CTX)
    with pytest.raises(CryptoError, match=f"accuser seal key: .*{reason}"):
        verify_bad_seal_evidence(b"FDE\x02", blob, PUBS[0], public, SHARES[0], CT, CTX)
    with pytest.raises(CryptoError, match="must be bytes"):
        validate_seal_public(public.hex())  # type: ignore[arg-type]


def test_seal_key_never_shows_its_secret() -> None:
    secret = SEAL_KEYS[0]._y
    for text in (secret.to_bytes(32, "big").hex(), str(secret), hex(secret)[2:]):
        assert text not in repr(SEAL_KEYS[0]) and text not in str(SEAL_KEYS[0])
    with pytest.raises(TypeError):
        pickle.dumps(SEAL_KEYS[0])
    assert copy.deepcopy(SEAL_KEYS[0]) is SEAL_KEYS[0]
    with pytest.raises(AttributeError):
        SEAL_KEYS[0]._y = 5  # type: ignore[misc]
    with pytest.raises(CryptoError, match="must be a SealKey"):
        seal(b"x", secret, PUBS[1], CTX)  # type: ignore[arg-type]
    with pytest.raises(CryptoError, match=r"scalar in \[1, n\)"):
        SealKey(ORDER)
    # no error message on any path carries the secret either
    blob = seal(b"t" * 97, SEAL_KEYS[0], PUBS[1], CTX)
    for call in (
        lambda: unseal(blob[:-1] + b"\x00", SEAL_KEYS[1], PUBS[0], CTX),
        lambda: unseal(blob, SEAL_KEYS[2], PUBS[0], CTX),
        lambda: seal(b"x", SEAL_KEYS[1], bytes(33), CTX),
    ):
        with pytest.raises(CryptoError) as info:
            call()
        message = str(info.value)
        for key in SEAL_KEYS:
            assert key._y.to_bytes(32, "big").hex() not in message and str(key._y) not in message


# ---------------------------------------------------------------------------------------------
# bad-seal evidence
# ---------------------------------------------------------------------------------------------


def judge(blob: bytes, accuser: int = 1, sender: int = 0) -> str | None:
    evidence = bad_seal_evidence(blob, SEAL_KEYS[accuser], PUBS[sender], CTX)
    return verify_bad_seal_evidence(evidence, blob, PUBS[sender], PUBS[accuser], SHARES[sender], CT, CTX)


def test_false_accusation_of_an_honest_seal_returns_none() -> None:
    assert judge(seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)) is None


def test_sealed_token_with_a_wrong_proof_is_caught() -> None:
    wrong = reveal_token(XS[2], CT, CTX)  # another seat's token passed off as seat 0's
    reason = judge(seal(wrong, SEAL_KEYS[0], PUBS[1], CTX))
    assert reason is not None and "token proof invalid" in reason


def test_sealed_token_for_another_step_or_card_is_caught() -> None:
    stale = reveal_token(XS[0], CT, make_context(GAME, 3, 0, "show"))
    reason = judge(seal(stale, SEAL_KEYS[0], PUBS[1], CTX))
    assert reason is not None and "token proof invalid" in reason
    other_card = reveal_token(XS[0], CT2, CTX)
    reason = judge(seal(other_card, SEAL_KEYS[0], PUBS[1], CTX))
    assert reason is not None and "token proof invalid" in reason


def test_a_blob_that_does_not_decrypt_is_proved_bad() -> None:
    """A sender that encrypts under a wrong key (but a well-formed blob): the evidence proves it."""
    blob = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    tampered = blob[:-1] + bytes([blob[-1] ^ 1])
    reason = judge(tampered)
    assert reason is not None and "does not decrypt" in reason


def test_sealed_garbage_and_malformed_blobs_are_caught() -> None:
    reason = judge(seal(b"not a token", SEAL_KEYS[0], PUBS[1], CTX))
    assert reason is not None and "token must be 97 bytes" in reason
    # sealed to the wrong seat: malformed for this recipient, and no secret is needed to show it
    wrong_seat = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[2], CTX)
    assert bad_seal_evidence(wrong_seat, SEAL_KEYS[1], PUBS[0], CTX) == b"FDE\x02"
    reason = judge(wrong_seat)
    assert reason is not None and NOT_FOR_US in reason
    for blob in (b"\x02" + bytes(40), b"", b"\x02" + bytes(200)):
        assert bad_seal_evidence(blob, SEAL_KEYS[1], PUBS[0], CTX) == b"FDE\x02"
        reason = judge(blob)
        assert reason is not None and reason.startswith("sealed token malformed")


def test_forged_or_malformed_evidence_is_rejected() -> None:
    blob = seal(reveal_token(XS[0], CT, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    evidence = bad_seal_evidence(blob, SEAL_KEYS[1], PUBS[0], CTX)
    assert len(evidence) == 4 + 33 + 64

    def verdict(ev: bytes, accuser_pub: bytes = PUBS[1], the_blob: bytes = blob) -> str | None:
        return verify_bad_seal_evidence(ev, the_blob, PUBS[0], accuser_pub, SHARES[0], CT, CTX)

    assert verdict(evidence) is None
    other_point = base_mul(0xABCDEF).to_bytes()
    other_blob = seal(reveal_token(XS[0], CT2, CTX), SEAL_KEYS[0], PUBS[1], CTX)
    cases = [
        (lambda: verdict(evidence[:4] + other_point + evidence[37:]), "bad-seal evidence proof invalid"),
        (lambda: verdict(evidence[:-1] + bytes([evidence[-1] ^ 1])), "bad-seal evidence proof invalid"),
        (lambda: verdict(evidence, the_blob=other_blob), "bad-seal evidence proof invalid"),  # another blob
        (lambda: verdict(evidence[:4] + off_curve() + evidence[37:]), "shared point: point not on curve"),
        (lambda: verdict(evidence[:37] + b"\xff" * 32 + evidence[69:]), "challenge: scalar out of range"),
        (lambda: verdict(evidence[:-1]), "evidence malformed: 100 bytes"),
        (lambda: verdict(b"FDE\x02"), "evidence malformed: 4 bytes"),  # the bare header for a good blob
        (lambda: verdict(b"FDE\x01" + evidence[4:]), "evidence malformed: bad header"),
        (lambda: verify_bad_seal_evidence(evidence, blob, *PUBS[:2], SHARES[0], CT[:40], CTX), "66 bytes"),
        (lambda: verify_bad_seal_evidence(evidence, blob, *PUBS[:2], b"x", CT, CTX), "must be a Point"),
    ]
    for call, reason in cases:
        with pytest.raises(CryptoError, match=reason):
            call()
    # seat 2 "proving" a bad seal it did not receive: bad_seal_evidence gives it only the bare header
    # (the blob is not for seat 2), and a full-form proof made with its own key fails for seat 1's
    forged = bad_seal_evidence(blob, SEAL_KEYS[2], PUBS[0], CTX)
    assert forged == b"FDE\x02"
    with pytest.raises(CryptoError, match="evidence malformed: 4 bytes"):
        verdict(forged)
    y2, big_r = SEAL_KEYS[2]._y, Point.from_bytes(blob[1:34])
    k = 0x1234567
    a1, a2 = base_mul(k), big_r.mul(k)
    e = seal_mod._evidence_challenge(CTX, PUBS[0], PUBS[1], blob, big_r.mul(y2), a1, a2)
    response = ((k + e * y2) % ORDER).to_bytes(32, "big")
    forged = b"FDE\x02" + big_r.mul(y2).to_bytes() + e.to_bytes(32, "big") + response
    with pytest.raises(CryptoError, match="bad-seal evidence proof invalid"):
        verdict(forged)
    # the judge judges the blob against the recipient the log names: for seat 2 it is not a seal at all
    assert NOT_FOR_US in str(verdict(evidence, PUBS[2]))


def test_evidence_opens_its_own_blob_and_no_other() -> None:
    """With the evidence for one blob, try to open every other blob the accuser sent or received."""
    accuser = 1
    contexts = [make_context(GAME, seq, seat, "show") for seq in (12, 13) for seat in range(3)]
    received = [
        (seal(reveal_token(XS[s], ct, c), SEAL_KEYS[s], PUBS[accuser], c), s, accuser, c)
        for s in (0, 2)
        for ct in (CT, CT2)
        for c in contexts
    ]
    sent = [
        (seal(reveal_token(XS[accuser], ct, c), SEAL_KEYS[accuser], PUBS[r], c), accuser, r, c)
        for r in (0, 2)
        for ct in (CT, CT2)
        for c in contexts
    ]
    accused_blob, sender, _, context = received[0]
    evidence = bad_seal_evidence(accused_blob, SEAL_KEYS[accuser], PUBS[sender], context)
    shared = Point.from_bytes(evidence[4:37])
    # it opens the accused blob (so the attempts below are real attempts)...
    opened = open_with_shared_point(shared, accused_blob, accuser, sender, context)
    assert opened == reveal_token(XS[0], CT, context)
    # ...and nothing else, whichever keys and context one tries it with
    attempts = 0
    for blob, s, r, c in received[1:] + sent:
        for try_sender, try_recipient in ((s, r), (r, s)):
            with pytest.raises(InvalidTag):
                open_with_shared_point(shared, blob, try_recipient, try_sender, c)
            attempts += 1
    assert attempts == 2 * (len(received) - 1 + len(sent)) == 94
    # the accuser's own seal key stays secret: its unseal still works only for the accuser
    assert SEAL_KEYS[accuser]._y.to_bytes(32, "big") not in evidence


def test_a_copied_ephemeral_key_cannot_make_the_recipient_open_another_blob() -> None:
    """Seat 2 copies R (and R's proof) from seat 0's blob to seat 1 into a bad blob of its own.

    If seat 1 then published y1*R, anyone could open seat 0's blob. The proof of knowledge of r
    binds R to its sender and step, so the copy is malformed on its face and the evidence is bare.
    """
    victim_ctx, cheat_ctx = make_context(GAME, 12, 0, "show"), make_context(GAME, 14, 2, "show")
    victim = seal(reveal_token(XS[0], CT, victim_ctx), SEAL_KEYS[0], PUBS[1], victim_ctx)
    copied = victim[: seal_mod._BLOB_HEAD] + bytes(113)
    # the premise: y1*R is exactly what opens the victim's blob
    shared = Point.from_bytes(victim[1:34]).mul(SEAL_KEYS[1]._y)
    assert open_with_shared_point(shared, victim, 1, 0, victim_ctx) == reveal_token(XS[0], CT, victim_ctx)
    # the defence: seat 1 refuses the copy, publishes no secret, and the judge blames seat 2
    with pytest.raises(CryptoError, match=NOT_FOR_US):
        unseal(copied, SEAL_KEYS[1], PUBS[2], cheat_ctx)
    evidence = bad_seal_evidence(copied, SEAL_KEYS[1], PUBS[2], cheat_ctx)
    assert evidence == b"FDE\x02"
    reason = verify_bad_seal_evidence(evidence, copied, PUBS[2], PUBS[1], SHARES[2], CT, cheat_ctx)
    assert reason is not None and NOT_FOR_US in reason
    # the same with seat 0's public seal key as the "ephemeral" key (y1*Y0 would leak too)
    fake = b"\x02" + PUBS[0] + victim[34:]
    assert bad_seal_evidence(fake, SEAL_KEYS[1], PUBS[2], cheat_ctx) == b"FDE\x02"


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
