"""The verifiable shuffle: honest shuffles verify, and every kind of cheat is caught by name."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

import pytest

from p2p.crypto import (
    DEFAULT_SHUFFLE_ROUNDS,
    ORDER,
    CardCodec,
    CryptoError,
    Point,
    base_mul,
    card_point,
    derive_scalar,
    encrypt,
    group,
    make_context,
    open_ciphertext,
    shuffle_pile,
    table_key,
    token_point,
    unmask,
    verify_shuffle,
)
from p2p.crypto import shuffle as sh
from p2p.crypto.group import FIELD_P, SCALAR_SIZE, generator_base, table_for

FACES = ["guard", "guard", "guard", "priest", "priest", "baron", "handmaid", "prince", "king", "princess"]
CODEC = CardCodec(FACES)
ROUNDS = 12


def keys(seats: int) -> tuple[list[int], Point]:
    xs = [derive_scalar(b"shuffle-test-seat-%d-secret" % s, "elgamal", b"g") for s in range(seats)]
    return xs, table_key([base_mul(x) for x in xs])


def ctx(seq: int, seat: int = 0) -> bytes:
    return make_context(b"game-shuffle", seq, seat, "shuffle")


def seed(seat: int, seq: int) -> bytes:
    return hashlib.sha256(b"seat %d step %d" % (seat, seq)).digest()


def faces_of(pile: Sequence[bytes], xs: list[int]) -> list[str]:
    """Decrypt with every secret (the test is the only party that knows them all)."""
    return [CODEC.decode(unmask(ct, [token_point(x, ct) for x in xs])) for ct in pile]


XS, KEY = keys(3)
PILE = [open_ciphertext(f, KEY) for f in FACES]


@pytest.mark.parametrize("seats", [1, 2, 3, 4, 5, 6])
def test_every_seat_shuffles_and_the_cards_survive(seats: int) -> None:
    xs, key = keys(seats)
    pile = [open_ciphertext(f, key) for f in FACES]
    for seat in range(seats):
        new, proof = shuffle_pile(pile, key, seed(seat, 1), ROUNDS, ctx(1, seat))
        verify_shuffle(pile, new, proof, key, ROUNDS, ctx(1, seat))
        assert len(new) == len(pile) and set(new).isdisjoint(pile)  # every ciphertext re-randomised
        pile = new
    assert sorted(faces_of(pile, xs)) == sorted(FACES)


def test_shuffle_is_deterministic_in_the_seed_and_depends_on_it() -> None:
    a = shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    assert a == shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    b = shuffle_pile(PILE, KEY, seed(0, 2), ROUNDS, ctx(1))
    assert a[0] != b[0] and a[1] != b[1]
    # the same seed under another context gives unrelated randomness too
    assert shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(2))[0] != a[0]


def test_shuffle_actually_permutes() -> None:
    new, _ = shuffle_pile(PILE, KEY, seed(1, 1), ROUNDS, ctx(1))
    order = faces_of(new, XS)
    assert sorted(order) == sorted(FACES) and order != FACES


def test_full_deck_at_default_rounds() -> None:
    faces = [f"{rank}{suit}" for suit in "SHDC" for rank in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    codec = CardCodec(faces)
    pile = [open_ciphertext(f, KEY) for f in faces]
    new, proof = shuffle_pile(pile, KEY, seed(0, 9), DEFAULT_SHUFFLE_ROUNDS, ctx(9))
    verify_shuffle(pile, new, proof, KEY, DEFAULT_SHUFFLE_ROUNDS, ctx(9))
    assert sorted(codec.decode(unmask(ct, [token_point(x, ct) for x in XS])) for ct in new) == sorted(faces)


@pytest.mark.parametrize("size", [0, 1, 2])
def test_tiny_piles(size: int) -> None:
    pile = PILE[:size]
    new, proof = shuffle_pile(pile, KEY, seed(0, 3), ROUNDS, ctx(3))
    verify_shuffle(pile, new, proof, KEY, ROUNDS, ctx(3))
    assert sorted(faces_of(new, XS)) == sorted(FACES[:size])


def test_partial_reshuffle_of_a_sub_pile() -> None:
    deck, _ = shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    sub = deck[3:7]
    new, proof = shuffle_pile(sub, KEY, seed(2, 2), ROUNDS, ctx(2, 2))
    verify_shuffle(sub, new, proof, KEY, ROUNDS, ctx(2, 2))
    assert Counter(faces_of(new, XS)) == Counter(faces_of(sub, XS))
    # the sub-pile's proof says nothing about the rest of the deck
    with pytest.raises(CryptoError, match="shuffled pile has 4 ciphertexts, input pile has 10"):
        verify_shuffle(deck, new, proof, KEY, ROUNDS, ctx(2, 2))


# ---------------------------------------------------------------------------------------------
# a cheating prover: commits to shadows that can be opened for the bit it guesses
# ---------------------------------------------------------------------------------------------


def cheat(
    pile: Sequence[bytes], fake: Sequence[bytes], key: Point, rounds: int, context: bytes, guess: bytes
) -> bytes:
    """The best a prover can do for an output that is not a shuffle: guess each challenge bit.

    For a guessed 0 the shadow is a real shuffle of the input (opens for bit 0); for a guessed 1 it
    is a shuffle of the fake output (opens for bit 1). A wrong guess leaves a round it cannot open.
    """
    n = len(pile)
    source, target = sh._parse_pile(pile, "pile"), sh._parse_pile(fake, "fake")
    gt, kt = generator_base(), table_for(key)
    guesses = hashlib.sha256(b"guess" + guess).digest()
    shadows, commitments = [], []
    for t in range(rounds):
        round_seed = hashlib.sha256(guess + bytes([t])).digest()
        sigma, r = sh._derive(round_seed, n)
        if sh._bit(guesses, t):
            # E[j] = D[sigma(j)] + r_j; open bit 1 with tau = sigma^-1, u_i = -r_tau(i)
            shadow = sh._rerandomise(target, sigma, r, None, gt, kt)
            tau = [0] * n
            for j, i in enumerate(sigma):
                tau[i] = j
            opening = b"".join(j.to_bytes(2, "big") for j in tau)
            opening += b"".join(((-r[tau[i]]) % ORDER).to_bytes(SCALAR_SIZE, "big") for i in range(n))
            shadows.append((opening, round_seed))
        else:
            shadow = sh._rerandomise(source, sigma, r, None, gt, kt)
            shadows.append((round_seed, b""))  # a wrong guess is padded below
        commitments.append(sh._shadow_hash(context, t, shadow))
    challenge = sh._challenge(context, key.to_bytes(), rounds, n, b"".join(pile), b"".join(fake), commitments)
    proof = bytearray(sh._MAGIC + rounds.to_bytes(2, "big") + n.to_bytes(2, "big") + challenge)
    proof += b"".join(commitments)
    for t in range(rounds):
        guessed = sh._bit(guesses, t)
        wanted = sh._bit(challenge, t)
        if wanted == guessed:
            proof += shadows[t][0]
        elif wanted == 0:
            proof += shadows[t][1]  # the seed of a shadow built from the fake pile: will not open
        else:  # pad with a well-formed but wrong bit-1 opening
            proof += b"".join(i.to_bytes(2, "big") for i in range(n)) + (1).to_bytes(32, "big") * n
    return bytes(proof)


def substituted(pile: Sequence[bytes]) -> list[bytes]:
    """A re-randomised pile where one card became a princess (not a shuffle of the input)."""
    new, _ = shuffle_pile(pile, KEY, seed(5, 5), 1, ctx(5))
    fake = list(new)
    fake[0] = encrypt(card_point("princess"), KEY, 0x5EED)
    return fake


def duplicated(pile: Sequence[bytes]) -> list[bytes]:
    """A re-randomised pile where the last input card (the princess) appears twice, a guard is gone."""
    source = sh._parse_pile(pile, "pile")
    mapping = [len(pile) - 1, *range(1, len(pile))]
    data = sh._rerandomise(
        source, mapping, [11 + i for i in range(len(pile))], None, generator_base(), table_for(KEY)
    )
    return [data[66 * i : 66 * (i + 1)] for i in range(len(pile))]


@pytest.mark.parametrize("make_fake", [substituted, duplicated], ids=["substitution", "duplication"])
def test_cheating_shuffles_are_rejected(make_fake) -> None:  # type: ignore[no-untyped-def]
    fake = make_fake(PILE)
    assert Counter(faces_of(fake, XS)) != Counter(FACES)
    proof = cheat(PILE, fake, KEY, 16, ctx(4), b"attempt-1")
    with pytest.raises(CryptoError, match=r"shuffle proof round \d+ does not open"):
        verify_shuffle(PILE, fake, proof, KEY, 16, ctx(4))


def test_soundness_is_about_one_half_per_round() -> None:
    """With a single round the guessing cheater wins about half the time; every win is a real forgery.

    This is what makes 2^-rounds the exact soundness, and why the round count is a table setting.
    """
    fake = substituted(PILE)
    accepted = 0
    for attempt in range(40):
        proof = cheat(PILE, fake, KEY, 1, ctx(4), b"attempt-%d" % attempt)
        try:
            verify_shuffle(PILE, fake, proof, KEY, 1, ctx(4))
            accepted += 1
        except CryptoError as exc:
            assert "does not open" in str(exc)
    assert 8 <= accepted <= 32
    # and at 16 rounds none of the same 40 attempts gets through
    for attempt in range(40):
        with pytest.raises(CryptoError, match="does not open"):
            verify_shuffle(
                PILE, fake, cheat(PILE, fake, KEY, 16, ctx(4), b"attempt-%d" % attempt), KEY, 16, ctx(4)
            )


def test_output_swapped_after_proving_is_rejected() -> None:
    new, proof = shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    fake = substituted(PILE)
    with pytest.raises(CryptoError, match="challenge does not match"):
        verify_shuffle(PILE, fake, proof, KEY, ROUNDS, ctx(1))
    reordered = [new[1], new[0], *new[2:]]
    with pytest.raises(CryptoError, match="challenge does not match"):
        verify_shuffle(PILE, reordered, proof, KEY, ROUNDS, ctx(1))


def test_proof_replayed_for_another_input_context_or_key_is_rejected() -> None:
    new, proof = shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    other_pile, _ = shuffle_pile(PILE, KEY, seed(1, 1), ROUNDS, ctx(1))
    with pytest.raises(CryptoError, match="challenge does not match"):
        verify_shuffle(other_pile, new, proof, KEY, ROUNDS, ctx(1))
    with pytest.raises(CryptoError, match="challenge does not match"):
        verify_shuffle(PILE, new, proof, KEY, ROUNDS, ctx(2))
    with pytest.raises(CryptoError, match="challenge does not match"):
        verify_shuffle(PILE, new, proof, keys(2)[1], ROUNDS, ctx(1))
    with pytest.raises(CryptoError, match="shuffle proof has 12 rounds, the table requires 40"):
        verify_shuffle(PILE, new, proof, KEY, 40, ctx(1))


def test_a_challenge_computed_honestly_but_with_a_forged_opening_fails_its_round() -> None:
    new, proof = shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    challenge = proof[8:10]
    ones = [t for t in range(ROUNDS) if sh._bit(challenge, t)]
    zeros = [t for t in range(ROUNDS) if not sh._bit(challenge, t)]
    assert ones and zeros  # this fixed seed exercises both kinds of opening

    def offset(round_index: int) -> int:
        pos = 8 + 2 + 32 * ROUNDS
        for t in range(round_index):
            pos += 32 if not sh._bit(challenge, t) else len(PILE) * 34
        return pos

    # flip a byte of a bit-0 round seed
    pos = offset(zeros[0])
    bad = proof[:pos] + bytes([proof[pos] ^ 1]) + proof[pos + 1 :]
    with pytest.raises(CryptoError, match=f"shuffle proof round {zeros[0]} does not open"):
        verify_shuffle(PILE, new, bad, KEY, ROUNDS, ctx(1))
    # change one scalar of a bit-1 opening
    pos = offset(ones[0]) + 2 * len(PILE) + 31
    bad = proof[:pos] + bytes([proof[pos] ^ 1]) + proof[pos + 1 :]
    with pytest.raises(CryptoError, match=f"shuffle proof round {ones[0]} does not open"):
        verify_shuffle(PILE, new, bad, KEY, ROUNDS, ctx(1))
    # make the bit-1 permutation map two outputs to one slot
    pos = offset(ones[0])
    bad = proof[:pos] + proof[pos + 2 : pos + 4] + proof[pos + 2 :]
    with pytest.raises(CryptoError, match=f"shuffle proof round {ones[0]}: opening is not a permutation"):
        verify_shuffle(PILE, new, bad, KEY, ROUNDS, ctx(1))
    # an out-of-range scalar
    pos = offset(ones[0]) + 2 * len(PILE)
    bad = proof[:pos] + b"\xff" * 32 + proof[pos + 32 :]
    with pytest.raises(CryptoError, match=f"shuffle proof round {ones[0]}: scalar out of range"):
        verify_shuffle(PILE, new, bad, KEY, ROUNDS, ctx(1))
    # tamper with a commitment: the challenge no longer matches
    pos = 10 + 32 * zeros[0]
    bad = proof[:pos] + bytes([proof[pos] ^ 1]) + proof[pos + 1 :]
    with pytest.raises(CryptoError, match="challenge does not match"):
        verify_shuffle(PILE, new, bad, KEY, ROUNDS, ctx(1))


def test_malformed_proofs_and_piles_are_rejected() -> None:
    new, proof = shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    off_x = next(x for x in range(1, 100) if pow(x**3 + 7, (FIELD_P - 1) // 2, FIELD_P) != 1)
    off_curve = b"\x02" + off_x.to_bytes(32, "big")
    cases = [
        ((PILE, new, proof[:-1]), "shuffle proof malformed"),
        ((PILE, new, proof + b"\x00"), "shuffle proof malformed"),
        ((PILE, new, b"XXXX" + proof[4:]), "bad header"),
        ((PILE, new, b""), "bad header"),
        ((PILE, new[:-1], proof), "shuffled pile has 9 ciphertexts, input pile has 10"),
        (
            (PILE, [*new[:3], off_curve + new[3][33:], *new[4:]], proof),
            r"shuffled pile\[3\] c1: point not on curve",
        ),
        (
            (PILE, [*new[:3], new[3][:33] + bytes(33), *new[4:]], proof),
            r"shuffled pile\[3\] c2: identity point",
        ),
        (([*PILE[:9], PILE[9][:65]], new, proof), r"input pile\[9\] must be a 66-byte ciphertext"),
        ((PILE, new, "proof"), "shuffle proof must be bytes"),
    ]
    for (pile, out, prf), message in cases:
        with pytest.raises(CryptoError, match=message):
            verify_shuffle(pile, out, prf, KEY, ROUNDS, ctx(1))  # type: ignore[arg-type]


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(CryptoError, match="at least 16 bytes"):
        shuffle_pile(PILE, KEY, b"short", ROUNDS, ctx(1))
    with pytest.raises(CryptoError, match="rounds must be an int"):
        shuffle_pile(PILE, KEY, seed(0, 1), 0, ctx(1))
    with pytest.raises(CryptoError, match="rounds must be an int"):
        shuffle_pile(PILE, KEY, seed(0, 1), 257, ctx(1))
    with pytest.raises(CryptoError, match="table key must be a Point"):
        shuffle_pile(PILE, KEY.to_bytes(), seed(0, 1), ROUNDS, ctx(1))  # type: ignore[arg-type]
    with pytest.raises(CryptoError, match="sequence of ciphertext blobs"):
        shuffle_pile(b"".join(PILE), KEY, seed(0, 1), ROUNDS, ctx(1))  # type: ignore[arg-type]


def test_proof_size_matches_the_layout() -> None:
    _, proof = shuffle_pile(PILE, KEY, seed(0, 1), ROUNDS, ctx(1))
    ones = sum(sh._bit(proof[8:10], t) for t in range(ROUNDS))
    assert len(proof) == 8 + 2 + 32 * ROUNDS + ones * len(PILE) * 34 + (ROUNDS - ones) * 32


def test_table_and_direct_multiplication_give_identical_shuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Peers with and without a cached fixed-base table must produce byte-identical entries."""
    key = base_mul(derive_scalar(b"table-versus-direct-secret", "elgamal", b"g"))
    pile = [open_ciphertext(f, key) for f in FACES]
    monkeypatch.setattr(group, "TABLE_THRESHOLD", 10**9)
    assert isinstance(group.table_for(key, 1), group.DirectBase)
    direct = shuffle_pile(pile, key, seed(0, 1), ROUNDS, ctx(1))
    monkeypatch.setattr(group, "TABLE_THRESHOLD", 0)
    assert isinstance(group.table_for(key, 1), group.FixedBase)
    assert shuffle_pile(pile, key, seed(0, 1), ROUNDS, ctx(1)) == direct
    verify_shuffle(pile, *direct, key, ROUNDS, ctx(1))
