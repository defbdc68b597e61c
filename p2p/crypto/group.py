"""The prime-order group: secp256k1 points via coincurve's libsecp256k1 bindings.

Everything else in :mod:`p2p.crypto` talks to the curve only through this module, so the backend
can be swapped. Points are always validated on the way in (33-byte compressed SEC1, on the curve,
x < p; the identity has no 33-byte encoding and is refused), and every point this module returns is
a valid non-identity point. secp256k1 has cofactor 1, so "on the curve" means "in the group".

We call libsecp256k1 through coincurve's cffi module rather than its ``PublicKey`` class: the class
re-validates and copies on every call, which costs more than the arithmetic in the hot loops of the
shuffle proof.

Speed notes (2-core EPYC, coincurve 21): variable-base ``tweak_mul`` ~24 us, ``k*G`` ~15 us,
adding two points ~2.7 us, parsing ~4.6 us, serialising ~0.4 us. :class:`FixedBase` turns ``u*B``
for a base used thousands of times into one 33-point addition (~9 us), but its table costs ~8k
additions to build, so a base gets one only once it has been used enough (:func:`table_for`); G
never needs one (:class:`GeneratorBase`: the library's own ``ecmult_gen`` is as fast).

Timing: ``k*G`` (``ecmult_gen``) is constant time, ``tweak_mul`` is not (libsecp256k1 runs its
variable-time ``ecmult``; short scalars are measurably faster). :meth:`Point.mul` is for public
scalars; :meth:`Point.mul_secret` (``ecmult_const`` via ``secp256k1_ecdh``) for keys and nonces.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from operator import getitem
from typing import Any

from coincurve._libsecp256k1 import ffi, lib
from coincurve.context import GLOBAL_CONTEXT
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p.crypto.errors import CryptoError, lp, tagged_hash

ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
"""n, the order of the group (and of G)."""
FIELD_P = 2**256 - 2**32 - 977
"""p, the size of the base field."""
POINT_SIZE = 33
"""Bytes in a compressed point."""
SCALAR_SIZE = 32
"""Bytes in an encoded scalar."""

_CTX = GLOBAL_CONTEXT.ctx
_COMPRESSED = lib.SECP256K1_EC_COMPRESSED
_combine = lib.secp256k1_ec_pubkey_combine
_serialize = lib.secp256k1_ec_pubkey_serialize


# ---------------------------------------------------------------------------------------------
# raw helpers on cffi ``secp256k1_pubkey *`` values (internal; no Python objects in the hot path)
# ---------------------------------------------------------------------------------------------


def _parse(data: bytes, what: str = "point") -> Any:
    """Validate a 33-byte compressed point and return it as a cffi pubkey; raise CryptoError."""
    if not isinstance(data, bytes):
        raise CryptoError(f"{what} must be bytes, got {type(data).__name__}")
    if data == b"\x00" or (len(data) == POINT_SIZE and not any(data)):
        raise CryptoError(f"{what}: identity point")
    if len(data) != POINT_SIZE:
        raise CryptoError(f"{what}: malformed point, expected {POINT_SIZE} bytes, got {len(data)}")
    if data[0] not in (2, 3):
        raise CryptoError(f"{what}: malformed point, bad prefix byte 0x{data[0]:02x}")
    out = ffi.new("secp256k1_pubkey *")
    if not lib.secp256k1_ec_pubkey_parse(_CTX, out, data, POINT_SIZE):
        raise CryptoError(f"{what}: point not on curve")
    return out


def _ser(c: Any) -> bytes:
    """Compressed encoding of a cffi pubkey."""
    out = ffi.new("unsigned char[33]")
    size = ffi.new("size_t *", POINT_SIZE)
    _serialize(_CTX, out, size, c, _COMPRESSED)
    return bytes(ffi.buffer(out, POINT_SIZE))


def _sum(points: list[Any]) -> Any:
    """Sum of cffi pubkeys; raise CryptoError if it is the identity."""
    out = ffi.new("secp256k1_pubkey *")
    if not _combine(_CTX, out, points, len(points)):
        raise CryptoError("identity point (the sum is the point at infinity)")
    return out


def _neg(c: Any) -> Any:
    out = ffi.new("secp256k1_pubkey *", c[0])
    lib.secp256k1_ec_pubkey_negate(_CTX, out)
    return out


def _mul(c: Any, k32: bytes) -> Any:
    """k*P for a canonical nonzero 32-byte scalar.

    NOT constant time: ``secp256k1_ec_pubkey_tweak_mul`` runs libsecp256k1's variable-time
    ``ecmult`` (a 75-bit scalar takes about half the time of a 256-bit one). Use it for public
    scalars only; secret scalars times a point go through :func:`_mul_ct`.
    """
    out = ffi.new("secp256k1_pubkey *", c[0])
    if not lib.secp256k1_ec_pubkey_tweak_mul(_CTX, out, k32):
        raise CryptoError("scalar out of range")
    return out


def _base(k32: bytes) -> Any:
    """k*G for a canonical nonzero 32-byte scalar (constant time in libsecp256k1: ``ecmult_gen``)."""
    out = ffi.new("secp256k1_pubkey *")
    if not lib.secp256k1_ec_pubkey_create(_CTX, out, k32):
        raise CryptoError("scalar out of range")
    return out


@ffi.callback("int(unsigned char *, const unsigned char *, const unsigned char *, void *)")
def _copy_xy(output: Any, x32: Any, y32: Any, data: Any) -> int:
    """ECDH "hash" that hands back the shared point itself: x || y."""
    ffi.memmove(output, x32, 32)
    ffi.memmove(output + 32, y32, 32)
    return 1


def _mul_ct(c: Any, k32: bytes) -> Any:
    """k*P in constant time for a canonical nonzero 32-byte scalar (~30 us against ~24 us for ``_mul``).

    libsecp256k1 exposes its constant-time ``ecmult_const`` only through ``secp256k1_ecdh``; a
    hash callback that copies the coordinates out turns it into a plain multiplication.
    """
    buf = ffi.new("unsigned char[65]", b"\x04")
    if not lib.secp256k1_ecdh(_CTX, buf + 1, c, k32, _copy_xy, ffi.NULL):
        raise CryptoError("scalar out of range")
    out = ffi.new("secp256k1_pubkey *")
    if not lib.secp256k1_ec_pubkey_parse(_CTX, out, buf, 65):  # pragma: no cover - k*P is on the curve
        raise CryptoError("constant-time multiplication failed")
    return out


def scalar_bytes(k: int) -> bytes:
    """Reduce ``k`` mod n and encode it in 32 bytes; raise CryptoError if it is zero mod n."""
    if not isinstance(k, int) or isinstance(k, bool):
        raise CryptoError(f"scalar must be an int, got {type(k).__name__}")
    k %= ORDER
    if k == 0:
        raise CryptoError("scalar is zero modulo the group order")
    return k.to_bytes(SCALAR_SIZE, "big")


def read_scalar(data: bytes, what: str, *, allow_zero: bool = False) -> int:
    """Decode a canonical 32-byte scalar (< n) from a proof; raise CryptoError naming ``what``."""
    value = int.from_bytes(data, "big")
    if value >= ORDER or (value == 0 and not allow_zero):
        raise CryptoError(f"{what}: scalar out of range")
    return value


def hash_to_scalar(tag: str, *parts: bytes | str) -> int:
    """A Fiat-Shamir challenge: ``tagged_hash`` read as an integer mod n (bias < 2^-127)."""
    return int.from_bytes(tagged_hash(tag, *parts), "big") % ORDER


# ---------------------------------------------------------------------------------------------
# Point
# ---------------------------------------------------------------------------------------------


class Point:
    """An immutable, hashable, validated secp256k1 point other than the identity.

    Build one with :meth:`from_bytes` (validates) or from arithmetic on other points. Operations
    whose result would be the identity raise :class:`CryptoError` ("identity point").
    """

    __slots__ = ("_b", "_c")
    _b: bytes
    _c: Any

    def __init__(self) -> None:
        raise TypeError("use Point.from_bytes(), base_mul() or point arithmetic")

    @classmethod
    def _wrap(cls, c: Any, data: bytes | None = None) -> Point:
        obj = object.__new__(cls)
        object.__setattr__(obj, "_c", c)
        object.__setattr__(obj, "_b", data if data is not None else _ser(c))
        return obj

    @classmethod
    def from_bytes(cls, b: bytes) -> Point:
        """Validate a 33-byte compressed point; rejects malformed, off-curve and identity encodings."""
        return cls._wrap(_parse(b), b)

    def to_bytes(self) -> bytes:
        """The 33-byte compressed encoding (canonical: ``from_bytes(p.to_bytes()) == p``)."""
        return self._b

    def __add__(self, other: Point) -> Point:
        if not isinstance(other, Point):
            return NotImplemented
        return Point._wrap(_sum([self._c, other._c]))

    def __sub__(self, other: Point) -> Point:
        if not isinstance(other, Point):
            return NotImplemented
        return Point._wrap(_sum([self._c, _neg(other._c)]))

    def __neg__(self) -> Point:
        return Point._wrap(_neg(self._c))

    def mul(self, k: int) -> Point:
        """``k * self`` for a public ``k`` (variable time); reduced mod n, must not be zero mod n."""
        return Point._wrap(_mul(self._c, scalar_bytes(k)))

    def mul_secret(self, k: int) -> Point:
        """``k * self`` in constant time for a secret ``k`` (a key or a nonce); same result as :meth:`mul`."""
        return Point._wrap(_mul_ct(self._c, scalar_bytes(k)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Point is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Point is immutable")

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        # pickle/copy through the validated constructor, never by poking at slots
        return (Point.from_bytes, (self._b,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and self._b == other._b

    def __hash__(self) -> int:
        return hash(self._b)

    def __repr__(self) -> str:
        return f"Point({self._b[:6].hex()}…)"


def parse_point(data: bytes, what: str) -> Point:
    """:meth:`Point.from_bytes` with error messages that start with ``what`` (e.g. "key share")."""
    return Point._wrap(_parse(data, what), data)


def base_mul(k: int) -> Point:
    """``k * G``; ``k`` is reduced mod n and must not be zero mod n."""
    return Point._wrap(_base(scalar_bytes(k)))


def point_sum(points: Iterable[Point]) -> Point:
    """The sum of one or more points (one call into the library, however many points)."""
    cs = [p._c for p in points]
    if not cs:
        raise CryptoError("cannot sum an empty list of points")
    return Point._wrap(_sum(cs))


GENERATOR = base_mul(1)
"""G, the standard secp256k1 generator."""


def lincomb_base(a: int, b: int, point: Point) -> Point:
    """``a*G + b*point`` for scalars given as ints (either may be zero mod n, not both)."""
    a %= ORDER
    b %= ORDER
    parts = []
    if a:
        parts.append(_base(a.to_bytes(SCALAR_SIZE, "big")))
    if b:
        parts.append(_mul(point._c, b.to_bytes(SCALAR_SIZE, "big")))
    if not parts:
        raise CryptoError("identity point (both scalars are zero)")
    return Point._wrap(_sum(parts))


def lincomb(a: int, p: Point, b: int, q: Point) -> Point:
    """``a*p + b*q`` for scalars given as ints (either may be zero mod n, not both)."""
    a %= ORDER
    b %= ORDER
    parts = []
    if a:
        parts.append(_mul(p._c, a.to_bytes(SCALAR_SIZE, "big")))
    if b:
        parts.append(_mul(q._c, b.to_bytes(SCALAR_SIZE, "big")))
    if not parts:
        raise CryptoError("identity point (both scalars are zero)")
    return Point._wrap(_sum(parts))


# ---------------------------------------------------------------------------------------------
# fixed-base multiplication by table lookup
# ---------------------------------------------------------------------------------------------

# sum over the 32 byte positions of 256^j: the table stores (digit + 1) * 256^j * B so that no
# entry is the identity and every multiplication adds exactly 32 entries whatever the scalar (no
# branch on zero digits); this constant's multiple of B is subtracted once at the end.
_DIGIT_OFFSET = sum(256**j for j in range(32)) % ORDER


class FixedBase:
    """``P + u*B`` for a fixed base B as a single 33-point addition (8-bit windows, 32x256 table).

    Building the table costs ~8k point additions (~25 ms); each use then costs ~10 us against
    ~27 us for ``tweak_mul`` plus an addition. The number of additions does not depend on ``u``;
    the table row that is read does (a cache-timing footprint only a co-resident process could
    observe). It is used for the shuffle's re-randomisation, never for long-term keys.
    """

    def __init__(self, base: Point) -> None:
        step = base._c
        rows_low_first: list[list[Any]] = []
        for j in range(32):
            row = [step]
            for _ in range(255):
                row.append(_sum([row[-1], step]))
            rows_low_first.append(row)
            if j < 31:
                step = _mul(step, (256).to_bytes(SCALAR_SIZE, "big"))
        # u.to_bytes(32, "big")[0] is the most significant byte, so the rows go high to low
        rows = rows_low_first[::-1]
        # fold the constant correction into the top row so a multiplication is 32 entries, not 33
        offset = _mul(base._c, (ORDER - _DIGIT_OFFSET).to_bytes(SCALAR_SIZE, "big"))
        rows[0] = [_sum([entry, offset]) for entry in rows[0]]
        self._rows = rows

    def terms(self, u: int) -> list[Any]:
        """The 32 table points whose sum is ``u*B`` (``0 <= u < n``); append points before summing."""
        return list(map(getitem, self._rows, u.to_bytes(SCALAR_SIZE, "big")))

    def mul(self, u: int) -> Point:
        """``u*B`` for ``0 < u < n``."""
        return Point._wrap(_sum(self.terms(u)))


class DirectBase:
    """The same interface as :class:`FixedBase` without a table: ``u*B`` by one constant-time
    multiplication (``u`` may be a secret: the shuffle's re-randomisation, a prover's nonce).

    Used for a base until it has been used enough to repay building its table.
    """

    def __init__(self, base: Point) -> None:
        self._base = base._c

    def terms(self, u: int) -> list[Any]:
        """``[u*B]`` (or ``[]`` for u = 0); append points before summing."""
        return [_mul_ct(self._base, u.to_bytes(SCALAR_SIZE, "big"))] if u else []

    def mul(self, u: int) -> Point:
        """``u*B`` for ``0 < u < n``."""
        return Point._wrap(_sum(self.terms(u)))


class GeneratorBase:
    """The same interface as :class:`FixedBase` for G: ``u*G`` by libsecp256k1's own generator
    multiplication (``ecmult_gen``, constant time, on the library's built-in precomputed table).

    A table of our own for G was as fast or slower per use on this machine (40 us against 36 us
    for ``ecmult_gen``; 9.5 against 15 us on a faster day) and cost every process ~8k additions
    (60–150 ms) to build, more than the ~1,300 uses of G in a whole game with a 16-card deck could win back.
    """

    def terms(self, u: int) -> list[Any]:
        """``[u*G]`` (or ``[]`` for u = 0); append points before summing."""
        return [_base(u.to_bytes(SCALAR_SIZE, "big"))] if u else []

    def mul(self, u: int) -> Point:
        """``u*G`` for ``0 < u < n``."""
        return base_mul(u)


Multiplier = FixedBase | DirectBase | GeneratorBase
"""Anything that computes ``u*B`` for one fixed base B as terms of a sum."""

_GENERATOR_BASE = GeneratorBase()

# A table costs ~8k additions (20–60 ms) and saves 20–45 us per use: build one for a base only once
# it has been asked for this many multiplications in this process (one 52-card, 80-round
# cut-and-choose proof is ~4k; a 4-seat game with a 16-card deck asks a party for ~200 by its table key
# and ~350 by the shuffle generator h, so a game never pays for a table it cannot repay).
TABLE_THRESHOLD = 2000
_K_TABLES: dict[bytes, FixedBase] = {}
_K_USES: dict[bytes, int] = {}
_K_TABLES_MAX = 8
_K_LOCK = threading.Lock()


def generator_base() -> GeneratorBase:
    """The multiplier for G."""
    return _GENERATOR_BASE


def table_for(point: Point, uses: int = TABLE_THRESHOLD) -> FixedBase | DirectBase:
    """Multiplier for a base used about ``uses`` more times (a game uses one table key throughout).

    Returns the cached :class:`FixedBase` once the base's cumulative use reaches
    ``TABLE_THRESHOLD``, a :class:`DirectBase` before that.
    """
    key = point.to_bytes()
    with _K_LOCK:  # proofs are made and checked in worker threads, all sharing this bookkeeping
        table = _K_TABLES.get(key)
        if table is not None:
            return table
        used = _K_USES[key] = _K_USES.get(key, 0) + uses
        if used < TABLE_THRESHOLD:
            if len(_K_USES) > 64 * _K_TABLES_MAX:
                _K_USES.clear()
            return DirectBase(point)
    built = FixedBase(point)  # not under the lock: two threads building one table only waste work
    with _K_LOCK:
        if key not in _K_TABLES and len(_K_TABLES) >= _K_TABLES_MAX:
            _K_TABLES.pop(next(iter(_K_TABLES)))
        return _K_TABLES.setdefault(key, built)


# ---------------------------------------------------------------------------------------------
# cards and scalars
# ---------------------------------------------------------------------------------------------


def card_point(face: str) -> Point:
    """The fixed curve point of a card face: try-and-increment hash-to-curve, domain-separated.

    Nobody knows the discrete log of a card point, and distinct faces give distinct points.
    """
    if not isinstance(face, str) or not face:
        raise CryptoError("card face must be a non-empty str")
    for counter in range(256):
        x = int.from_bytes(tagged_hash("card", face, counter.to_bytes(1, "big")), "big")
        if x >= FIELD_P:
            continue
        out = ffi.new("secp256k1_pubkey *")
        if lib.secp256k1_ec_pubkey_parse(_CTX, out, b"\x02" + x.to_bytes(32, "big"), POINT_SIZE):
            return Point._wrap(out)
    raise CryptoError("hash-to-curve failed for this face")  # probability 2^-256


class CardCodec:
    """Maps the card points of one game's faces back to faces."""

    def __init__(self, faces: Iterable[str]) -> None:
        self._faces: dict[bytes, str] = {}
        for face in faces:
            self._faces[card_point(face).to_bytes()] = face
        if not self._faces:
            raise CryptoError("a card codec needs at least one face")

    def encode(self, face: str) -> Point:
        """The point of ``face`` (which must be one of this codec's faces)."""
        point = card_point(face)
        if point.to_bytes() not in self._faces:
            raise CryptoError("face is not a card of this game")
        return point

    def decode(self, point: Point) -> str:
        """The face whose card point is ``point``; CryptoError if it is not a card of this game."""
        if not isinstance(point, Point):
            raise CryptoError(f"decode needs a Point, got {type(point).__name__}")
        face = self._faces.get(point.to_bytes())
        if face is None:
            raise CryptoError("point is not a card of this game")
        return face


def derive_scalar(secret: bytes, label: str, context: bytes) -> int:
    """A nonzero scalar derived from ``secret`` by HKDF-SHA256, separated by ``label`` and ``context``.

    48 bytes of output are reduced mod n-1 (bias < 2^-128), then shifted to [1, n).
    """
    if not isinstance(secret, bytes) or len(secret) < 16:
        raise CryptoError("secret must be at least 16 bytes")
    if not isinstance(label, str) or not isinstance(context, bytes):
        raise CryptoError("label must be str and context bytes")
    okm = HKDF(hashes.SHA256(), 48, b"fairdeck/v1/scalar", lp(label, context)).derive(secret)
    return int.from_bytes(okm, "big") % (ORDER - 1) + 1


def stream(key: bytes, length: int) -> bytes:
    """``length`` pseudo-random bytes from a 32-byte secret key (SHAKE-256 as a keyed XOF)."""
    return hashlib.shake_256(b"fairdeck/v1/stream" + key).digest(length)
