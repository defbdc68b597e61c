"""Low-round cut-and-choose proofs can be forged by grinding; the WT proof has nothing to grind.

The forger (tests/p2p/grind.py) claims that a pile with a substituted card is a shuffle. At a few
rounds it finds an accepted proof after about 2^R challenge hashes; at 80 rounds it does not, and
no proof makes verify_shuffle_wt accept the substituted pile.
"""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from p2p.crypto import (
    CardCodec,
    CryptoError,
    base_mul,
    card_point,
    derive_scalar,
    encrypt,
    make_context,
    open_ciphertext,
    shuffle_pile,
    shuffle_pile_wt,
    table_key,
    token_point,
    unmask,
    verify_shuffle,
    verify_shuffle_wt,
    wt,
)
from p2p.crypto import shuffle as sh
from p2p.crypto.group import table_for
from tests.p2p.grind import grind_cut_and_choose

FACES = ["guard", "guard", "guard", "priest", "priest", "baron", "handmaid", "prince", "king", "princess"]
CODEC = CardCodec(FACES)
XS = [derive_scalar(b"grind-test-seat-%d-secret" % s, "elgamal", b"grind") for s in range(3)]
KEY = table_key([base_mul(x) for x in XS])
PILE = [open_ciphertext(f, KEY) for f in FACES]
CTX = make_context(b"game-grind", 4, 1, "shuffle")


def faces_of(pile: list[bytes]) -> Counter[str]:
    return Counter(CODEC.decode(unmask(ct, [token_point(x, ct) for x in XS])) for ct in pile)


def substituted() -> list[bytes]:
    """A genuine shuffle of PILE, then one card replaced by a fresh encryption of a princess."""
    new, _ = shuffle_pile(PILE, KEY, hashlib.sha256(b"grind honest").digest(), 1, CTX)
    fake = list(new)
    fake[0] = encrypt(card_point("princess"), KEY, 0x5EED)
    return fake


FAKE = substituted()


def test_the_claimed_pile_is_not_a_shuffle() -> None:
    assert faces_of(FAKE) != Counter(FACES)


@pytest.mark.parametrize("rounds", [6, 8, 10])
def test_grinding_forges_a_low_round_cut_and_choose_proof(rounds: int) -> None:
    forgery = grind_cut_and_choose(PILE, FAKE, KEY, rounds, CTX, max_attempts=64 * 2**rounds)
    assert forgery.accepted_guess
    verify_shuffle(PILE, FAKE, forgery.proof, KEY, rounds, CTX)  # accepted: a pile with a card swapped
    assert faces_of(FAKE) != Counter(FACES)
    # the same forgery is refused by a table that requires 80 rounds
    with pytest.raises(CryptoError, match=f"shuffle proof has {rounds} rounds, the table requires 80"):
        verify_shuffle(PILE, FAKE, forgery.proof, KEY, 80, CTX)


def test_grinding_does_not_reach_80_rounds() -> None:
    forgery = grind_cut_and_choose(PILE, FAKE, KEY, 80, CTX, max_attempts=20_000)
    assert not forgery.accepted_guess and forgery.attempts == 20_000
    with pytest.raises(CryptoError, match=r"shuffle proof round \d+ does not open"):
        verify_shuffle(PILE, FAKE, forgery.proof, KEY, 80, CTX)


def test_no_proof_makes_the_wt_verifier_accept_the_substituted_pile() -> None:
    forged_cc = grind_cut_and_choose(PILE, FAKE, KEY, 8, CTX, max_attempts=64 * 2**8).proof
    honest_out, honest_proof = shuffle_pile_wt(PILE, KEY, hashlib.sha256(b"grind wt").digest(), CTX)
    n = len(PILE)
    perm, scalars = wt._witness(hashlib.sha256(b"grind wt").digest(), CTX, KEY.to_bytes(), b"".join(PILE), n)
    points = sh._parse_pile(FAKE, "fake")
    prover_on_fake = wt._prove(
        CTX,
        KEY.to_bytes(),
        b"".join(PILE),
        b"".join(FAKE),
        [p[0] for p in points],
        [p[1] for p in points],
        perm,
        scalars[:n],
        scalars[n:],
        table_for(KEY, 1),
    )
    cases = [
        (honest_proof, "does not verify"),  # a real proof, for the real output
        (prover_on_fake, "does not verify"),  # the prover's algorithm run on the substituted pile
        (forged_cc, "bad header"),  # the ground cut-and-choose proof
        (wt.WT_MAGIC + n.to_bytes(2, "big") + bytes(wt.proof_size(n) - 6), "identity point"),
    ]
    verify_shuffle_wt(PILE, honest_out, honest_proof, KEY, CTX)
    for proof, reason in cases:
        with pytest.raises(CryptoError, match=reason):
            verify_shuffle_wt(PILE, FAKE, proof, KEY, CTX)
