"""The group layer: point validation, arithmetic, hash-to-curve, codecs, scalar derivation."""

from __future__ import annotations

import copy
import hashlib
import pickle

import pytest
from hypothesis import given, settings
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
    make_context,
)
from p2p.crypto.group import (
    FIELD_P,
    DirectBase,
    FixedBase,
    _sum,
    generator_base,
    lincomb,
    lincomb_base,
    point_sum,
    table_for,
)

scalars = st.integers(min_value=1, max_value=ORDER - 1)


def off_curve_encoding() -> bytes:
    """A 33-byte compressed encoding whose x has no point on secp256k1 (x^3 + 7 is a non-residue)."""
    for x in range(1, 100):
        if pow(x**3 + 7, (FIELD_P - 1) // 2, FIELD_P) != 1:
            return b"\x02" + x.to_bytes(32, "big")
    raise AssertionError("no off-curve x found")


def test_point_round_trip_is_canonical() -> None:
    point = base_mul(123456789)
    data = point.to_bytes()
    assert len(data) == 33 and data[0] in (2, 3)
    again = Point.from_bytes(data)
    assert again == point and hash(again) == hash(point) and again.to_bytes() == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (off_curve_encoding(), "point not on curve"),
        (b"\x02" + FIELD_P.to_bytes(32, "big"), "point not on curve"),  # x >= p is not canonical
        (b"\x00", "identity point"),
        (bytes(33), "identity point"),
        (b"\x02" + bytes(31), "malformed point, expected 33 bytes, got 32"),
        (b"\x04" + bytes(64), "malformed point, expected 33 bytes, got 65"),
        (b"\x05" + bytes(32), "malformed point, bad prefix byte 0x05"),
        (b"", "malformed point"),
    ],
)
def test_bad_point_encodings_are_rejected(data: bytes, message: str) -> None:
    with pytest.raises(CryptoError, match=message):
        Point.from_bytes(data)


def test_non_bytes_point_is_rejected() -> None:
    with pytest.raises(CryptoError, match="must be bytes"):
        Point.from_bytes("02" * 33)  # type: ignore[arg-type]


def test_points_cannot_be_built_or_changed_directly() -> None:
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(AttributeError):
        GENERATOR._b = b"x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del GENERATOR._b


def test_points_copy_and_pickle_through_validation() -> None:
    point = base_mul(2024)
    assert copy.deepcopy(point) == point and copy.copy(point) == point
    assert pickle.loads(pickle.dumps(point)) == point


@settings(max_examples=40, deadline=None)
@given(scalars, scalars)
def test_arithmetic_agrees_with_scalars(a: int, b: int) -> None:
    pa, pb = base_mul(a), base_mul(b)
    if (a + b) % ORDER:
        assert pa + pb == base_mul(a + b)
    if (a - b) % ORDER:
        assert pa - pb == base_mul(a - b)
    assert pa.mul(b) == base_mul(a * b % ORDER)
    assert pa.mul_secret(b) == base_mul(a * b % ORDER)  # the constant-time path agrees
    assert -pa == base_mul(ORDER - a)
    if (a + b) % ORDER:
        assert lincomb_base(a, b, GENERATOR) == base_mul(a + b)
    if (a + b * b) % ORDER:
        assert lincomb(a, GENERATOR, b, pb) == base_mul(a + b * b)


def test_results_that_would_be_the_identity_raise() -> None:
    p = base_mul(42)
    with pytest.raises(CryptoError, match="identity point"):
        p - p
    with pytest.raises(CryptoError, match="identity point"):
        p + (-p)
    with pytest.raises(CryptoError, match="zero modulo the group order"):
        p.mul(ORDER)
    with pytest.raises(CryptoError, match="zero modulo the group order"):
        p.mul_secret(2 * ORDER)
    with pytest.raises(CryptoError, match="zero modulo the group order"):
        base_mul(0)
    with pytest.raises(CryptoError, match="empty"):
        point_sum([])


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=ORDER - 1))
def test_fixed_base_table_matches_scalar_multiplication(u: int) -> None:
    base = base_mul(0xC0FFEE)
    table = table_for(base)
    other = base_mul(7)
    got = Point._wrap(_sum([*table.terms(u), other._c]))
    expected = other + base.mul(u) if u else other
    assert got == expected


_G_BY_TABLE = FixedBase(GENERATOR)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=ORDER - 1))
def test_every_multiplier_of_g_gives_the_same_sum(u: int) -> None:
    """The library's generator multiplication, a table and a direct multiplication agree term for
    term (peers that multiply differently must write byte-identical piles and proofs)."""
    other = base_mul(11)
    sums = {
        Point._wrap(_sum([*multiplier.terms(u), other._c]))
        for multiplier in (generator_base(), _G_BY_TABLE, DirectBase(GENERATOR))
    }
    assert sums == {other + GENERATOR.mul(u) if u else other}
    if u:
        assert generator_base().mul(u) == DirectBase(GENERATOR).mul(u) == base_mul(u)


def test_secret_multiplication_handles_extreme_scalars() -> None:
    p = base_mul(0xABCDEF)
    for k in (1, 2, ORDER - 1, ORDER - 2, 2**128, 2**255, 3 * ORDER + 5):
        assert p.mul_secret(k) == p.mul(k)
    assert GENERATOR.mul_secret(ORDER - 1) == -GENERATOR


def test_fixed_base_handles_extreme_digits() -> None:
    base = base_mul(99)
    table = FixedBase(base)
    for u in (1, 2, 255, 256, 2**248, ORDER - 1, int.from_bytes(b"\xff" * 31 + b"\x00", "big") % ORDER):
        assert table.mul(u) == base.mul(u)


def test_card_points_are_deterministic_distinct_and_domain_separated() -> None:
    faces = ["guard", "priest", "baron", "KH", "AS", "10D"]
    points = [card_point(f) for f in faces]
    assert len(set(points)) == len(faces)
    assert card_point("guard") == points[0]
    # not the naive hash of the face: the domain tag is part of the input
    naive = int.from_bytes(hashlib.sha256(b"guard").digest(), "big")
    assert points[0].to_bytes()[1:] != naive.to_bytes(32, "big")
    with pytest.raises(CryptoError, match="non-empty str"):
        card_point("")


def test_codec_decodes_faces_and_refuses_other_points() -> None:
    codec = CardCodec(["guard", "guard", "princess"])
    assert codec.decode(card_point("guard")) == "guard"
    assert codec.decode(codec.encode("princess")) == "princess"
    with pytest.raises(CryptoError, match="not a card of this game"):
        codec.decode(card_point("king"))
    with pytest.raises(CryptoError, match="not a card of this game"):
        codec.decode(base_mul(5))
    with pytest.raises(CryptoError, match="not a card of this game"):
        codec.encode("king")
    with pytest.raises(CryptoError, match="at least one face"):
        CardCodec([])


def test_derive_scalar_is_deterministic_and_separated() -> None:
    secret = b"identity-secret-0123456789abcdef"
    a = derive_scalar(secret, "elgamal", b"game-1")
    assert a == derive_scalar(secret, "elgamal", b"game-1")
    assert 0 < a < ORDER
    others = {
        derive_scalar(secret, "elgamal", b"game-2"),
        derive_scalar(secret, "seal", b"game-1"),
        derive_scalar(secret + b"x", "elgamal", b"game-1"),
        # label/context boundary must not be ambiguous
        derive_scalar(secret, "elgamalg", b"ame-1"),
    }
    assert a not in others and len(others) == 4
    with pytest.raises(CryptoError, match="at least 16 bytes"):
        derive_scalar(b"short", "elgamal", b"game")


def test_make_context_is_unambiguous() -> None:
    assert make_context("a", 1) != make_context("a1")
    assert make_context(b"a", "b") != make_context("a", b"b")
    assert make_context("game", 3, 2) == make_context("game", 3, 2)
    assert make_context(1) != make_context(-1)
    with pytest.raises(CryptoError, match="64-bit"):
        make_context(2**64)
    with pytest.raises(CryptoError, match="must be bytes, str or int"):
        make_context(1.5)  # type: ignore[arg-type]


def test_point_repr_is_short_and_public() -> None:
    point = base_mul(31337)
    assert repr(point).startswith("Point(") and point.to_bytes()[:6].hex() in repr(point)


def test_table_bookkeeping_holds_under_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker threads ask for multipliers at once (several games' proofs, more bases than the cache
    keeps): every answer still multiplies correctly and nothing raises."""
    from concurrent.futures import ThreadPoolExecutor

    from p2p.crypto import group

    monkeypatch.setattr(group, "TABLE_THRESHOLD", 3)
    monkeypatch.setattr(group, "_K_TABLES_MAX", 1)
    monkeypatch.setattr(group, "_K_TABLES", {})
    monkeypatch.setattr(group, "_K_USES", {})
    bases = [base_mul(1000 + i) for i in range(3)]

    def ask(i: int) -> bool:
        base = bases[i % len(bases)]
        return table_for(base, 1).mul(12345 + i) == base.mul(12345 + i)

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(ask, range(48)))
    assert len(group._K_TABLES) <= 1
