"""Key shares (Schnorr proofs), reveal tokens (Chaum-Pedersen proofs) and unmasking."""

from __future__ import annotations

import pytest

from p2p.crypto import (
    GENERATOR,
    ORDER,
    CardCodec,
    CryptoError,
    base_mul,
    card_point,
    derive_scalar,
    encrypt,
    make_context,
    make_key_share,
    open_ciphertext,
    reveal_token,
    table_key,
    token_point,
    unmask,
    verify_key_share,
    verify_token,
)
from p2p.crypto.group import FIELD_P

GAME = b"game-0001"


def secret(seat: int) -> int:
    return derive_scalar(b"identity-of-seat-%d-0123456789" % seat, "elgamal", GAME)


def share_ctx(seat: int) -> bytes:
    return make_context(GAME, "keyshare", seat)


def off_curve() -> bytes:
    x = next(x for x in range(1, 100) if pow(x**3 + 7, (FIELD_P - 1) // 2, FIELD_P) != 1)
    return b"\x02" + x.to_bytes(32, "big")


@pytest.mark.parametrize("seats", [1, 2, 3, 4, 5, 6])
def test_key_shares_verify_and_sum_to_the_table_key(seats: int) -> None:
    xs = [secret(s) for s in range(seats)]
    shares = [verify_key_share(make_key_share(x, share_ctx(s)), share_ctx(s)) for s, x in enumerate(xs)]
    assert shares == [base_mul(x) for x in xs]
    assert table_key(shares) == base_mul(sum(xs) % ORDER)


def test_key_share_is_deterministic() -> None:
    assert make_key_share(secret(0), share_ctx(0)) == make_key_share(secret(0), share_ctx(0))


def test_key_share_for_another_context_is_rejected() -> None:
    blob = make_key_share(secret(0), share_ctx(0))
    with pytest.raises(CryptoError, match="key share proof invalid"):
        verify_key_share(blob, share_ctx(1))  # copied to another seat
    with pytest.raises(CryptoError, match="key share proof invalid"):
        verify_key_share(blob, make_context(b"other-game", "keyshare", 0))


def test_rogue_key_share_without_knowledge_is_rejected() -> None:
    # the last seat tries to make the table key one it knows: X = target - others, with no secret
    others = base_mul(secret(0)) + base_mul(secret(1))
    rogue = base_mul(777) - others
    honest = make_key_share(secret(2), share_ctx(2))
    forged = rogue.to_bytes() + honest[33:]
    with pytest.raises(CryptoError, match="key share proof invalid"):
        verify_key_share(forged, share_ctx(2))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda b: b[:-1], "key share must be 97 bytes, got 96"),
        (lambda b: off_curve() + b[33:], "key share: point not on curve"),
        (lambda b: bytes(33) + b[33:], "key share: identity point"),
        (
            lambda b: b[:33] + b[33:65] + ORDER.to_bytes(32, "big"),
            "key share proof response: scalar out of range",
        ),
        (lambda b: b[:33] + bytes(32) + b[65:], "key share proof challenge: scalar out of range"),
        (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "key share proof invalid"),
        (lambda b: b[:40] + bytes([b[40] ^ 1]) + b[41:], "key share proof invalid"),
    ],
)
def test_malformed_key_shares_are_rejected(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    blob = make_key_share(secret(0), share_ctx(0))
    with pytest.raises(CryptoError, match=message):
        verify_key_share(mutate(blob), share_ctx(0))


def test_key_share_rejects_bad_secret_without_echoing_it() -> None:
    with pytest.raises(CryptoError) as info:
        make_key_share(ORDER, share_ctx(0))
    assert str(ORDER) not in str(info.value) and format(ORDER, "x") not in str(info.value)
    with pytest.raises(CryptoError, match="at least one share"):
        table_key([])


# ---------------------------------------------------------------------------------------------
# tokens
# ---------------------------------------------------------------------------------------------


def setup_table(seats: int = 3):  # type: ignore[no-untyped-def]
    xs = [secret(s) for s in range(seats)]
    shares = [base_mul(x) for x in xs]
    key = table_key(shares)
    ct = encrypt(card_point("baron"), key, 0xABCDEF)
    return xs, shares, key, ct


def tok_ctx(seat: int, seq: int = 7) -> bytes:
    return make_context(GAME, seq, seat, "token")


def test_tokens_from_every_seat_unmask_the_card() -> None:
    xs, shares, _, ct = setup_table(4)
    ds = [verify_token(shares[s], ct, reveal_token(x, ct, tok_ctx(s)), tok_ctx(s)) for s, x in enumerate(xs)]
    assert ds == [token_point(x, ct) for x in xs]
    assert CardCodec(["guard", "baron"]).decode(unmask(ct, ds)) == "baron"


def test_missing_token_leaves_the_card_hidden() -> None:
    xs, _, _, ct = setup_table(3)
    partial = unmask(ct, [token_point(x, ct) for x in xs[:2]])
    with pytest.raises(CryptoError, match="not a card of this game"):
        CardCodec(["guard", "baron"]).decode(partial)


def test_open_ciphertext_is_public_and_shared() -> None:
    xs, shares, key, _ = setup_table(2)
    ct = open_ciphertext("guard", key)
    assert ct == open_ciphertext("guard", key)
    assert ct[:33] == GENERATOR.to_bytes()
    # with r = 1 each seat's token is its public share: anyone can read the unshuffled deck
    assert CardCodec(["guard"]).decode(unmask(ct, shares)) == "guard"
    assert [token_point(x, ct) for x in xs] == shares


def test_wrong_reveal_token_is_rejected() -> None:
    xs, shares, _, ct = setup_table(3)
    # a token made with another secret, checked against seat 0's share
    wrong = reveal_token(secret(9), ct, tok_ctx(0))
    with pytest.raises(CryptoError, match="token proof invalid"):
        verify_token(shares[0], ct, wrong, tok_ctx(0))
    # a correct proof but a different d
    good = reveal_token(xs[0], ct, tok_ctx(0))
    shifted = (token_point(xs[0], ct) + GENERATOR).to_bytes() + good[33:]
    with pytest.raises(CryptoError, match="token proof invalid"):
        verify_token(shares[0], ct, shifted, tok_ctx(0))


def test_token_replayed_for_another_context_or_ciphertext_is_rejected() -> None:
    xs, shares, key, ct = setup_table(3)
    token = reveal_token(xs[1], ct, tok_ctx(1, seq=7))
    with pytest.raises(CryptoError, match="token proof invalid"):
        verify_token(shares[1], ct, token, tok_ctx(1, seq=8))
    other_ct = encrypt(card_point("guard"), key, 0x1234)
    with pytest.raises(CryptoError, match="token proof invalid"):
        verify_token(shares[1], other_ct, token, tok_ctx(1, seq=7))
    # same c1, different c2: the proof is bound to the whole ciphertext
    same_c1 = ct[:33] + other_ct[33:]
    with pytest.raises(CryptoError, match="token proof invalid"):
        verify_token(shares[1], same_c1, token, tok_ctx(1, seq=7))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda t: t + b"\x00", "token must be 97 bytes, got 98"),
        (lambda t: off_curve() + t[33:], "token d: point not on curve"),
        (lambda t: bytes(33) + t[33:], "token d: identity point"),
        (lambda t: b"\x04" + t[1:], "token d: malformed point"),
        (lambda t: t[:65] + b"\xff" * 32, "token proof response: scalar out of range"),
    ],
)
def test_malformed_tokens_are_rejected(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    xs, shares, _, ct = setup_table(2)
    token = reveal_token(xs[0], ct, tok_ctx(0))
    with pytest.raises(CryptoError, match=message):
        verify_token(shares[0], ct, mutate(token), tok_ctx(0))


def test_malformed_ciphertexts_are_rejected() -> None:
    xs, shares, _, ct = setup_table(2)
    token = reveal_token(xs[0], ct, tok_ctx(0))
    with pytest.raises(CryptoError, match="ciphertext must be 66 bytes"):
        verify_token(shares[0], ct[:65], token, tok_ctx(0))
    with pytest.raises(CryptoError, match="ciphertext c1: point not on curve"):
        verify_token(shares[0], off_curve() + ct[33:], token, tok_ctx(0))
    with pytest.raises(CryptoError, match="ciphertext c2: identity point"):
        reveal_token(xs[0], ct[:33] + bytes(33), tok_ctx(0))
    with pytest.raises(CryptoError, match="at least one token"):
        unmask(ct, [])


def test_errors_never_contain_the_secret() -> None:
    xs, shares, _, ct = setup_table(2)
    x = xs[0]
    forms = [str(x), format(x, "x"), format(x, "X"), x.to_bytes(32, "big").hex()]
    messages = []
    for bad in (ct[:10], off_curve() + ct[33:], ct[:33] + bytes(33)):
        with pytest.raises(CryptoError) as info:
            reveal_token(x, bad, tok_ctx(0))
        messages.append(str(info.value))
    with pytest.raises(CryptoError) as info:
        reveal_token(x, ct, "not bytes")  # type: ignore[arg-type]
    messages.append(str(info.value))
    assert all(form not in message for form in forms for message in messages)
