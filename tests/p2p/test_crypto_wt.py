"""The Terelius-Wikström shuffle proof: honest shuffles verify, every single change is caught by name."""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.crypto import (
    GENERATOR,
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
    shuffle_pile_wt,
    table_key,
    token_point,
    unmask,
    verify_shuffle,
    verify_shuffle_wt,
    wt,
)
from p2p.crypto import shuffle as sh
from p2p.crypto.errors import lp
from p2p.crypto.group import FIELD_P, DirectBase, FixedBase, GeneratorBase, table_for

FACES = ["guard", "guard", "guard", "priest", "priest", "baron", "handmaid", "prince", "king", "princess"]
DECK = [f"{rank}{suit}" for suit in "SHDC" for rank in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
CODEC = CardCodec([*FACES, *DECK])
GAME = b"game-wt"


def keys(seats: int) -> tuple[list[int], Point]:
    xs = [derive_scalar(b"wt-test-seat-%d-secret-key" % s, "elgamal", GAME) for s in range(seats)]
    return xs, table_key([base_mul(x) for x in xs])


def ctx(seq: int, seat: int = 0, game: bytes = GAME) -> bytes:
    return make_context(game, seq, seat, "shuffle")


def seed(seat: int, seq: int) -> bytes:
    return hashlib.sha256(b"wt seat %d step %d" % (seat, seq)).digest()


def faces_of(pile: Sequence[bytes], xs: list[int]) -> list[str]:
    """Decrypt with every secret (the test is the only party that knows them all)."""
    return [CODEC.decode(unmask(ct, [token_point(x, ct) for x in xs])) for ct in pile]


XS, KEY = keys(3)
PILE = [open_ciphertext(f, KEY) for f in FACES]
N = len(PILE)
OUT, PROOF = shuffle_pile_wt(PILE, KEY, seed(0, 1), ctx(1))
NOT_VERIFY = "shuffle proof does not verify"


def forge(pile: Sequence[bytes], out: Sequence[bytes], context: bytes, key: Point = KEY) -> bytes:
    """Run the honest prover's algorithm on a claimed output with the witness of the honest shuffle.

    For the honest output this is exactly the honest proof (checked below); for any other output it
    is the best a prover without a valid witness can do with this algorithm.
    """
    n = len(pile)
    perm, scalars = wt._witness(seed(0, 1), context, key.to_bytes(), b"".join(pile), n)
    points = sh._parse_pile(out, "claimed output")
    return wt._prove(
        context,
        key.to_bytes(),
        b"".join(pile),
        b"".join(out),
        [p[0] for p in points],
        [p[1] for p in points],
        perm,
        scalars[:n],
        scalars[n:],
        table_for(key, 1),
    )


def off_curve() -> bytes:
    x = next(x for x in range(1, 100) if pow(x**3 + 7, (FIELD_P - 1) // 2, FIELD_P) != 1)
    return b"\x02" + x.to_bytes(32, "big")


def replace(data: bytes, pos: int, new: bytes) -> bytes:
    return data[:pos] + new + data[pos + len(new) :]


# ---------------------------------------------------------------------------------------------
# honest shuffles
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 16, 52])
def test_honest_shuffles_verify_and_keep_every_face(size: int) -> None:
    faces = DECK[:size]
    pile = [open_ciphertext(f, KEY) for f in faces]
    new, proof = shuffle_pile_wt(pile, KEY, seed(0, size), ctx(size))
    verify_shuffle_wt(pile, new, proof, KEY, ctx(size))
    assert len(new) == size and set(new).isdisjoint(pile)  # every ciphertext re-randomised
    assert Counter(faces_of(new, XS)) == Counter(faces)
    assert len(proof) == wt.proof_size(size) == 130 * size + 166
    if size == 52:
        assert faces_of(new, XS) != faces  # and the order changed


def test_proof_sizes_meet_the_targets() -> None:
    assert wt.proof_size(52) == 6926 <= 8 * 1024
    assert wt.proof_size(16) == 2246 <= 3 * 1024


def test_every_seat_shuffles_in_turn() -> None:
    xs, key = keys(4)
    pile = [open_ciphertext(f, key) for f in FACES]
    for seat in range(4):
        new, proof = shuffle_pile_wt(pile, key, seed(seat, 2), ctx(2, seat))
        verify_shuffle_wt(pile, new, proof, key, ctx(2, seat))
        pile = new
    assert Counter(faces_of(pile, xs)) == Counter(FACES)


def test_partial_reshuffle_of_a_sub_pile() -> None:
    sub = OUT[3:7]
    new, proof = shuffle_pile_wt(sub, KEY, seed(2, 2), ctx(2, 2))
    verify_shuffle_wt(sub, new, proof, KEY, ctx(2, 2))
    assert Counter(faces_of(new, XS)) == Counter(faces_of(sub, XS))
    with pytest.raises(CryptoError, match="shuffled pile has 4 ciphertexts, input pile has 10"):
        verify_shuffle_wt(OUT, new, proof, KEY, ctx(2, 2))
    with pytest.raises(CryptoError, match="shuffle proof is for 4 cards, the pile has 10"):
        verify_shuffle_wt(OUT, [*new, *OUT[4:]], proof, KEY, ctx(2, 2))


def test_empty_pile_is_a_trivial_shuffle() -> None:
    new, proof = shuffle_pile_wt([], KEY, seed(0, 1), ctx(1))
    assert new == [] and proof == wt.WT_MAGIC + bytes(2)
    verify_shuffle_wt([], [], proof, KEY, ctx(1))
    with pytest.raises(CryptoError, match="shuffle proof is for 0 cards, the pile has 10"):
        verify_shuffle_wt(PILE, OUT, proof, KEY, ctx(1))


def test_shuffle_is_deterministic_in_the_seed_and_the_statement() -> None:
    assert shuffle_pile_wt(PILE, KEY, seed(0, 1), ctx(1)) == (OUT, PROOF)  # a crashed peer recomputes it
    other_seed = shuffle_pile_wt(PILE, KEY, seed(0, 2), ctx(1))
    other_ctx = shuffle_pile_wt(PILE, KEY, seed(0, 1), ctx(2))
    for new, proof in (other_seed, other_ctx):
        assert set(new).isdisjoint(OUT) and proof[6:39] != PROOF[6:39]
    # the cut-and-choose shuffle with the same seed is unrelated
    assert set(shuffle_pile(PILE, KEY, seed(0, 1), 1, ctx(1))[0]).isdisjoint(OUT)


def test_forge_helper_reproduces_the_honest_proof() -> None:
    """The cheating-prover helper used below is the honest prover when given the honest output."""
    assert forge(PILE, OUT, ctx(1)) == PROOF


def test_table_and_direct_key_multiplication_give_identical_shuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    key = base_mul(derive_scalar(b"wt-table-versus-direct-secret", "elgamal", GAME))
    pile = [open_ciphertext(f, key) for f in FACES]
    monkeypatch.setattr(group, "TABLE_THRESHOLD", 10**9)
    assert isinstance(group.table_for(key, 1), group.DirectBase)
    direct = shuffle_pile_wt(pile, key, seed(0, 1), ctx(1))
    verify_shuffle_wt(pile, *direct, key, ctx(1))
    monkeypatch.setattr(group, "TABLE_THRESHOLD", 0)
    assert isinstance(group.table_for(key, 1), group.FixedBase)
    assert shuffle_pile_wt(pile, key, seed(0, 1), ctx(1)) == direct
    verify_shuffle_wt(pile, *direct, key, ctx(1))


# ---------------------------------------------------------------------------------------------
# generators
# ---------------------------------------------------------------------------------------------


def test_generators_are_hashed_to_the_curve_with_their_own_tag() -> None:
    gens = wt.generators(20)
    assert len(gens) == 21 and len(set(gens)) == 21
    assert GENERATOR not in gens and KEY not in gens
    assert not {card_point(f) for f in [*FACES, *DECK]} & set(gens)
    assert wt.generators(5) == gens[:6]  # one infinite sequence, cached
    # recompute h_3 from the documented recipe, independently of the module
    for counter in range(256):
        digest = hashlib.sha256(
            lp("fairdeck/v1/shuffle-wt-generator", (3).to_bytes(4, "big"), bytes([counter]))
        ).digest()
        if int.from_bytes(digest, "big") < FIELD_P:
            try:
                expected = Point.from_bytes(b"\x02" + digest)
            except CryptoError:
                continue
            break
    assert gens[3] == expected
    with pytest.raises(CryptoError, match="generator count"):
        wt.generators(-1)


def test_generators_are_the_same_when_threads_race_to_derive_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Verifications run in threads; a slow derivation must not let two threads append one index."""
    expected = wt.generators(12)
    monkeypatch.setattr(wt, "_GENS", [])
    monkeypatch.setattr(wt, "_GEN_BYTES", [])
    monkeypatch.setattr(wt, "_NEG_H_SUMS", {})
    derive = wt._hash_to_curve

    def slow(index: int) -> tuple[Any, bytes]:
        time.sleep(0.002)  # hand the GIL to the other threads mid-derivation
        return derive(index)

    monkeypatch.setattr(wt, "_hash_to_curve", slow)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(wt.generators, [12] * 4))
    assert all(result == expected for result in results)
    assert len(wt._GENS) == len(wt._GEN_BYTES) == 13


# ---------------------------------------------------------------------------------------------
# single changes: cards
# ---------------------------------------------------------------------------------------------


def substituted() -> list[bytes]:
    """The honest output with one card replaced by a fresh encryption of a princess."""
    return [encrypt(card_point("princess"), KEY, 0x5EED), *OUT[1:]]


def duplicated() -> list[bytes]:
    """The honest output with card 0 replaced by a re-randomisation of card 1 (one card twice)."""
    c1, c2 = sh._parse_pile(OUT[1:2], "x")[0]
    data = sh._rerandomise([(c1, c2)], [0], [777], None, group.generator_base(), table_for(KEY, 1))
    return [data, *OUT[1:]]


def reordered() -> list[bytes]:
    return [OUT[1], OUT[0], *OUT[2:]]


@pytest.mark.parametrize("make_fake", [substituted, duplicated, reordered])
def test_a_changed_card_is_rejected_with_any_proof(make_fake) -> None:  # type: ignore[no-untyped-def]
    fake = make_fake()
    assert fake != OUT and len(fake) == N
    if make_fake is not reordered:
        assert Counter(faces_of(fake, XS)) != Counter(FACES)  # not a shuffle at all
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(PILE, fake, PROOF, KEY, ctx(1))  # the honest proof for the real output
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(PILE, fake, forge(PILE, fake, ctx(1)), KEY, ctx(1))  # the prover run on the fake


def test_a_prover_claiming_a_mapping_that_is_not_a_permutation_fails() -> None:
    """Card 1 twice, card 0 gone, and a proof built consistently for that mapping.

    Every relation but one holds (the permutation commitment opens to the claimed mapping, the
    re-encryptions are exactly as claimed); the product of the u'_i is not the product of the u_j,
    so the commitment chain cannot end where the verifier expects.
    """
    n = len(PILE)
    perm, scalars = wt._witness(seed(0, 1), ctx(1), KEY.to_bytes(), b"".join(PILE), n)
    mapping = [perm[1], *perm[1:]]
    assert sorted(mapping) != list(range(n))
    source = sh._parse_pile(PILE, "pile")
    data = sh._rerandomise(source, mapping, scalars[:n], None, group.generator_base(), table_for(KEY, 1))
    fake = [data[66 * i : 66 * (i + 1)] for i in range(n)]
    assert Counter(faces_of(fake, XS)) != Counter(FACES)
    points = sh._parse_pile(fake, "fake")
    proof = wt._prove(
        ctx(1),
        KEY.to_bytes(),
        b"".join(PILE),
        b"".join(fake),
        [p[0] for p in points],
        [p[1] for p in points],
        mapping,
        scalars[:n],
        scalars[n:],
        table_for(KEY, 1),
    )
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(PILE, fake, proof, KEY, ctx(1))


def test_a_dropped_or_added_card_is_rejected() -> None:
    with pytest.raises(CryptoError, match="shuffled pile has 9 ciphertexts, input pile has 10"):
        verify_shuffle_wt(PILE, OUT[:-1], PROOF, KEY, ctx(1))
    with pytest.raises(CryptoError, match="shuffled pile has 11 ciphertexts, input pile has 10"):
        verify_shuffle_wt(PILE, [*OUT, OUT[0]], PROOF, KEY, ctx(1))
    # a proof for the shorter statement does not describe this pile either
    _, short_proof = shuffle_pile_wt(PILE[:-1], KEY, seed(0, 1), ctx(1))
    with pytest.raises(CryptoError, match="shuffle proof is for 9 cards, the pile has 10"):
        verify_shuffle_wt(PILE, OUT, short_proof, KEY, ctx(1))


def test_an_input_card_changed_is_rejected() -> None:
    other = [encrypt(card_point("princess"), KEY, 0xF00D), *PILE[1:]]
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(other, OUT, PROOF, KEY, ctx(1))


# ---------------------------------------------------------------------------------------------
# single changes: the proof's fields
# ---------------------------------------------------------------------------------------------


def fields(n: int) -> list[tuple[str, int, str]]:
    """(name in error messages, offset, kind) of every field of an n-card proof."""
    out: list[tuple[str, int, str]] = []
    pos = 6
    out += [(f"permutation commitment {i}", pos + 33 * i, "point") for i in range(n)]
    pos += 33 * n
    out += [(f"commitment chain {i}", pos + 33 * i, "point") for i in range(n)]
    pos += 33 * n
    out.append(("challenge", pos, "scalar"))
    out += [(f"response s{k}", pos + 32 * k, "scalar") for k in range(1, 5)]
    pos += 160
    out += [(f"response ŝ[{i}]", pos + 32 * i, "scalar") for i in range(n)]
    pos += 32 * n
    out += [(f"response s'[{i}]", pos + 32 * i, "scalar") for i in range(n)]
    assert pos + 32 * n == wt.proof_size(n)
    return out


def test_every_field_altered_to_a_valid_value_fails_verification() -> None:
    other_point = base_mul(0xC0FFEE).to_bytes()
    for name, pos, kind in fields(N):
        if kind == "point":
            bad = replace(PROOF, pos, other_point)
        else:
            value = int.from_bytes(PROOF[pos : pos + 32], "big")
            bad = replace(PROOF, pos, ((value + 1) % ORDER).to_bytes(32, "big"))
        assert bad != PROOF and len(bad) == len(PROOF)
        with pytest.raises(CryptoError, match=NOT_VERIFY):
            verify_shuffle_wt(PILE, OUT, bad, KEY, ctx(1))
        # a flipped low bit of the field's last byte is caught too (by name if it is no longer valid)
        last = pos + (32 if kind == "point" else 31)
        flipped = replace(PROOF, last, bytes([PROOF[last] ^ 1]))
        named = re.escape(f"shuffle proof {name}: point not on curve")
        with pytest.raises(CryptoError, match=rf"{NOT_VERIFY}|{named}"):
            verify_shuffle_wt(PILE, OUT, flipped, KEY, ctx(1))


def test_every_field_made_invalid_is_named() -> None:
    for name, pos, kind in fields(N):
        if kind == "point":
            cases = [
                (off_curve(), "point not on curve"),
                (b"\x05" + PROOF[pos + 1 : pos + 33], "malformed point, bad prefix byte 0x05"),
                (bytes(33), "identity point"),
            ]
        else:
            cases = [
                (b"\xff" * 32, "scalar out of range"),
                (ORDER.to_bytes(32, "big"), "scalar out of range"),
            ]
        for value, reason in cases:
            bad = replace(PROOF, pos, value)
            with pytest.raises(CryptoError, match=re.escape(f"shuffle proof {name}: {reason}")):
                verify_shuffle_wt(PILE, OUT, bad, KEY, ctx(1))


def test_header_and_size_errors_are_named() -> None:
    cases = [
        (PROOF[:-1], "shuffle proof malformed: 1465 bytes, expected 1466"),
        (PROOF + b"\x00", "shuffle proof malformed: 1467 bytes, expected 1466"),
        (b"FDS\x01" + PROOF[4:], "bad header"),
        (PROOF[:5], "bad header"),
        (b"", "bad header"),
        (PROOF[:4] + (11).to_bytes(2, "big") + PROOF[6:], "shuffle proof is for 11 cards, the pile has 10"),
    ]
    for proof, reason in cases:
        with pytest.raises(CryptoError, match=reason):
            verify_shuffle_wt(PILE, OUT, proof, KEY, ctx(1))
    with pytest.raises(CryptoError, match="shuffle proof must be bytes"):
        verify_shuffle_wt(PILE, OUT, bytearray(PROOF), KEY, ctx(1))  # type: ignore[arg-type]


def test_proofs_of_the_two_systems_are_not_interchangeable() -> None:
    new, cc_proof = shuffle_pile(PILE, KEY, seed(0, 1), 4, ctx(1))
    with pytest.raises(CryptoError, match="bad header"):
        verify_shuffle_wt(PILE, new, cc_proof, KEY, ctx(1))
    with pytest.raises(CryptoError, match="bad header"):
        verify_shuffle(PILE, OUT, PROOF, KEY, 4, ctx(1))


# ---------------------------------------------------------------------------------------------
# a proof moved to another statement
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "context",
    [ctx(1, 0, b"another-game"), ctx(2), ctx(1, 1), make_context(GAME, 1, 0, "deal")],
    ids=["game", "seq", "prover", "purpose"],
)
def test_proof_moved_to_another_context_is_rejected(context: bytes) -> None:
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(PILE, OUT, PROOF, KEY, context)


def test_proof_moved_to_another_key_or_pile_is_rejected() -> None:
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(PILE, OUT, PROOF, keys(2)[1], ctx(1))
    rerandomised_input, _ = shuffle_pile_wt(PILE, KEY, seed(7, 1), ctx(1))  # same faces, other ciphertexts
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(rerandomised_input, OUT, PROOF, KEY, ctx(1))
    other_output, _ = shuffle_pile_wt(PILE, KEY, seed(8, 1), ctx(1))  # a genuine shuffle, but not this one
    with pytest.raises(CryptoError, match=NOT_VERIFY):
        verify_shuffle_wt(PILE, other_output, PROOF, KEY, ctx(1))


def test_bad_inputs_are_rejected() -> None:
    cases: list[tuple[Any, str]] = [
        (lambda: shuffle_pile_wt(PILE, KEY, b"short", ctx(1)), "at least 16 bytes"),
        (lambda: shuffle_pile_wt(PILE, KEY.to_bytes(), seed(0, 1), ctx(1)), "table key must be a Point"),
        (lambda: shuffle_pile_wt(b"".join(PILE), KEY, seed(0, 1), ctx(1)), "sequence of ciphertext blobs"),
        (lambda: shuffle_pile_wt(PILE, KEY, seed(0, 1), "ctx"), "context must be bytes"),
        (lambda: shuffle_pile_wt([*PILE[:9], PILE[9][:65]], KEY, seed(0, 1), ctx(1)), r"pile\[9\] must be"),
        (
            lambda: verify_shuffle_wt(PILE, [*OUT[:3], off_curve() + OUT[3][33:], *OUT[4:]], PROOF, KEY, b""),
            r"shuffled pile\[3\] c1: point not on curve",
        ),
        (
            lambda: verify_shuffle_wt([*PILE[:9], PILE[9][:33] + bytes(33)], OUT, PROOF, KEY, ctx(1)),
            r"input pile\[9\] c2: identity point",
        ),
        (lambda: verify_shuffle_wt(PILE, OUT, PROOF, None, ctx(1)), "table key must be a Point"),
    ]
    for call, reason in cases:
        with pytest.raises(CryptoError, match=reason):
            call()


# ---------------------------------------------------------------------------------------------
# operation counts (the costs docs/crypto.md quotes)
# ---------------------------------------------------------------------------------------------


def count_multiplications(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()
    vmul, smul = wt._vmul, wt._smul

    def counting(terms: Any) -> Any:
        def counted_fixed(self: Any, u: int) -> list[Any]:
            counts["fixed"] += 1
            return terms(self, u)

        return counted_fixed

    def counted_vmul(point: Any, k: int) -> list[Any]:
        counts["variable"] += 1
        return vmul(point, k)

    def counted_smul(point: Any, k: int) -> list[Any]:
        counts["variable"] += 1
        return smul(point, k)

    for kind in (FixedBase, DirectBase, GeneratorBase):  # every u*B for a fixed base B, however computed
        monkeypatch.setattr(kind, "terms", counting(kind.terms))
    monkeypatch.setattr(wt, "_vmul", counted_vmul)
    monkeypatch.setattr(wt, "_smul", counted_smul)
    return counts


@pytest.mark.parametrize("size", [1, 16])
@pytest.mark.parametrize("threshold", [0, 10**9], ids=["tables", "no-tables"])
def test_multiplications_per_card(monkeypatch: pytest.MonkeyPatch, size: int, threshold: int) -> None:
    """The counts do not depend on how a fixed base is multiplied (a table or not)."""
    pile = [open_ciphertext(f, KEY) for f in DECK[:size]]
    monkeypatch.setattr(group, "TABLE_THRESHOLD", threshold)
    monkeypatch.setattr(group, "_K_TABLES", {})
    monkeypatch.setattr(group, "_K_USES", {})
    counts = count_multiplications(monkeypatch)
    new, proof = shuffle_pile_wt(pile, KEY, seed(0, 1), ctx(1))
    assert counts == {"fixed": 7 * size + 5, "variable": 3 * size}
    counts.clear()
    verify_shuffle_wt(pile, new, proof, KEY, ctx(1))
    assert counts == {"fixed": size + 6, "variable": 8 * size + 2}


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.integers(min_value=1, max_value=12),
    seeds=st.lists(st.binary(min_size=16, max_size=32), min_size=1, max_size=3),
    seq=st.integers(min_value=0, max_value=2**40),
)
def test_random_shuffles_preserve_every_face(size: int, seeds: list[bytes], seq: int) -> None:
    faces = DECK[13 : 13 + size]
    pile = [open_ciphertext(f, KEY) for f in faces]
    for seat, s in enumerate(seeds):
        new, proof = shuffle_pile_wt(pile, KEY, s, ctx(seq, seat))
        verify_shuffle_wt(pile, new, proof, KEY, ctx(seq, seat))
        pile = new
    assert Counter(faces_of(pile, XS)) == Counter(faces)


SMALL = PILE[:4]
SMALL_OUT, SMALL_PROOF = shuffle_pile_wt(SMALL, KEY, seed(0, 5), ctx(5))


def check_only_crypto_errors(proof: bytes) -> None:
    try:
        verify_shuffle_wt(SMALL, SMALL_OUT, proof, KEY, ctx(5))
    except CryptoError:
        return
    assert proof == SMALL_PROOF, "a proof other than the honest one verified"


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=700))
def test_arbitrary_bytes_raise_only_crypto_error(data: bytes) -> None:
    check_only_crypto_errors(data)
    check_only_crypto_errors(SMALL_PROOF[:6] + data)  # a valid header in front


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=0, max_value=len(SMALL_PROOF)), tail=st.binary(max_size=40))
def test_truncated_or_extended_proofs_raise_only_crypto_error(cut: int, tail: bytes) -> None:
    check_only_crypto_errors(SMALL_PROOF[:cut])
    check_only_crypto_errors(SMALL_PROOF[:cut] + tail)


@settings(max_examples=80, deadline=None)
@given(
    edits=st.lists(
        st.tuples(st.integers(min_value=0, max_value=len(SMALL_PROOF) - 1), st.integers(0, 255)),
        min_size=1,
        max_size=4,
    )
)
def test_mutated_proofs_raise_only_crypto_error(edits: list[tuple[int, int]]) -> None:
    proof = bytearray(SMALL_PROOF)
    for pos, value in edits:
        proof[pos] = value
    check_only_crypto_errors(bytes(proof))
