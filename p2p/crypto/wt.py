"""Verifiable shuffle with a Terelius-Wikström proof (compact, non-interactive).

Statement (the same as :mod:`p2p.crypto.shuffle`): the output pile D is the input pile C permuted by
a secret pi and re-randomised under the table key K, ``D[i] = C[pi(i)] + s_i*(G, K)``, where a
ciphertext is ``(c1, c2) = (r*G, M + r*K)``.

The proof follows "GenShuffleProof" / "CheckShuffleProof" of Haenni, Locher, Koenig and Dubuis,
"Pseudo-Code Algorithms for Verifiable Re-Encryption Mix-Nets" (FC 2017 workshops), written
additively, with independent generators ``h, h_1..h_N`` (hash-to-curve, see :func:`generators`):

1. Permutation commitment ``c_pi(i) = r_pi(i)*G + h_i`` (N points).
2. ``u_i = H(context, K, C, D, c, i)`` and ``u'_i = u_pi(i)``.
3. Commitment chain ``ĉ_0 = h``, ``ĉ_i = r̂_i*G + u'_i*ĉ_(i-1)`` (N points).
4. Sigma-protocol commitments with random w1..w4, ŵ_i, w'_i::

       t1 = w1*G          t2 = w2*G          t3 = w3*G + sum w'_i*h_i
       t4 = -w4*(G, K) + sum w'_i*D[i]        t̂_i = ŵ_i*G + w'_i*ĉ_(i-1)

5. Challenge ``c = H(u-seed, ĉ, t1, t2, t3, t4, t̂)`` (the u-seed already hashes the context, K, both
   piles and the permutation commitment), 256 bits reduced mod n.
6. Responses ``s1 = w1 + c*sum r_j``, ``s2 = w2 + c*R̂`` (``ĉ_N = u*h + R̂*G``, ``u = prod u_i``),
   ``s3 = w3 + c*sum r_j u_j``, ``s4 = w4 + c*sum s_i u'_i``, ``ŝ_i = ŵ_i + c*r̂_i``,
   ``s'_i = w'_i + c*u'_i``.

The verifier recomputes every t from the responses (with ``c̄ = sum c_j - sum h_i``,
``ĉ = ĉ_N - u*h``, ``c̃ = sum u_j c_j``, ``ẽ = sum u_j C[j]``)::

    t1 = s1*G - c*c̄                        t2 = s2*G - c*ĉ
    t3 = s3*G + sum s'_i*h_i - c*c̃          t4 = -s4*(G, K) + sum s'_i*D[i] - c*ẽ
    t̂_i = ŝ_i*G + s'_i*ĉ_(i-1) - c*ĉ_i

and accepts iff hashing them gives back c. Soundness error is about N/n (< 2^-249): nothing to
grind. The t values are not sent (the challenge stands for them), which keeps the proof at
``130*N + 166`` bytes: 6,926 for 52 cards, 2,246 for 16.

Proof layout: ``b"FDW\\x01" | N u16 | c_1..c_N (33 each) | ĉ_1..ĉ_N (33 each) | c (32) |
s1 s2 s3 s4 (32 each) | ŝ_1..ŝ_N (32 each) | s'_1..s'_N (32 each)``; scalars are canonical (< n).

Costs per card: the prover knows ``ĉ_i = U_i*h + R_i*G`` (``U_i = prod_{j<=i} u'_j``), so it
computes the chain and the t̂_i from fixed-base tables for G and h: 7 fixed-base and 3
variable-base multiplications per card. The verifier does 1 fixed-base and 8 variable-base
multiplications per card. Each t is one ``secp256k1_ec_pubkey_combine`` call.

Every prover scalar comes from ``seed`` (HKDF bound to the context, K and the input pile, then
SHAKE-256), so a peer that crashes recomputes the identical pile and proof.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p.crypto.elgamal import CIPHERTEXT_SIZE
from p2p.crypto.errors import CryptoError, lp, require_bytes, tagged_hash
from p2p.crypto.group import (
    _COMPRESSED,
    _CTX,
    FIELD_P,
    ORDER,
    POINT_SIZE,
    SCALAR_SIZE,
    Multiplier,
    Point,
    _combine,
    _mul_ct,
    _parse,
    _serialize,
    ffi,
    generator_base,
    lib,
    stream,
    table_for,
)
from p2p.crypto.shuffle import MAX_PILE, _parse_pile

WT_MAGIC = b"FDW\x01"
"""First bytes of every Terelius-Wikström shuffle proof (version 1)."""
_HEADER = len(WT_MAGIC) + 2
_PERM_DRAW = 16  # bytes per Fisher-Yates draw: modulo bias < 2^-112
_SCALAR_DRAW = 48  # bytes per scalar: modulo bias < 2^-128
_IDENTITY = bytes(POINT_SIZE)  # how a computed t that is the point at infinity is hashed
_new = ffi.new
_tweak_mul = lib.secp256k1_ec_pubkey_tweak_mul


def proof_size(n: int) -> int:
    """Bytes in a proof for a pile of ``n`` cards: ``130*n + 166`` (just the header for n = 0)."""
    if n == 0:
        return _HEADER
    return _HEADER + n * (2 * POINT_SIZE + 2 * SCALAR_SIZE) + 5 * SCALAR_SIZE


# ---------------------------------------------------------------------------------------------
# independent generators h, h_1, h_2, ... (nothing up the sleeve)
# ---------------------------------------------------------------------------------------------

_GENS: list[Any] = []  # cffi pubkeys; index 0 is h, index i >= 1 is h_i
_GEN_BYTES: list[bytes] = []
_NEG_H_SUMS: dict[int, Any] = {}
_GEN_LOCK = threading.Lock()


def _hash_to_curve(index: int) -> tuple[Any, bytes]:
    """Try-and-increment with its own domain tag: x = H("shuffle-wt-generator", index, counter)."""
    for counter in range(256):
        x = int.from_bytes(
            tagged_hash("shuffle-wt-generator", index.to_bytes(4, "big"), counter.to_bytes(1, "big")), "big"
        )
        if x >= FIELD_P:
            continue
        data = b"\x02" + x.to_bytes(32, "big")
        out = _new("secp256k1_pubkey *")
        if lib.secp256k1_ec_pubkey_parse(_CTX, out, data, POINT_SIZE):
            return out, data
    raise CryptoError("hash-to-curve failed for a shuffle generator")  # probability 2^-256


def _generators(n: int) -> list[Any]:
    """The cached list ``[h, h_1, ..., h_m]`` with m >= n (extended on demand, never rebuilt).

    Extended under a lock: verifications may run in threads (``asyncio.to_thread``), and two
    threads appending the same index would shift every later generator.
    """
    if len(_GENS) > n:
        return _GENS
    with _GEN_LOCK:
        while len(_GENS) <= n:
            point, data = _hash_to_curve(len(_GENS))
            _GEN_BYTES.append(data)  # first, so that len(_GENS) > i implies _GEN_BYTES[i] exists
            _GENS.append(point)
    return _GENS


def _neg_h_sum(n: int) -> Any:
    """``-(h_1 + ... + h_n)``, cached per n."""
    cached = _NEG_H_SUMS.get(n)
    if cached is None:
        total = _sum_opt(_generators(n)[1 : n + 1])
        if total is None:  # pragma: no cover - would exhibit a relation between the generators
            raise CryptoError("shuffle generators sum to the identity")
        cached = _NEG_H_SUMS[n] = _neg(total)
    return cached


def _h_base(uses: int) -> Multiplier:
    """The multiplier for h, about to be used ``uses`` times (a table once h has been used enough)."""
    gens = _generators(0)
    return table_for(Point._wrap(gens[0], _GEN_BYTES[0]), uses)


def generators(n: int) -> list[Point]:
    """``[h, h_1, ..., h_n]``: points of unknown discrete logarithm (to G, to each other, to cards).

    Each is the first ``x = SHA-256("fairdeck/v1/shuffle-wt-generator", index, counter)`` that is on
    the curve, with even y; index 0 is h. They are never multiples of G chosen by anyone.
    """
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_PILE:
        raise CryptoError(f"generator count must be an int in [0, {MAX_PILE}]")
    gens = _generators(n)
    return [Point._wrap(gens[i], _GEN_BYTES[i]) for i in range(n + 1)]


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------


def shuffle_pile_wt(
    pile: Sequence[bytes], table_key: Point, seed: bytes, context: bytes
) -> tuple[list[bytes], bytes]:
    """Shuffle and re-randomise ``pile``; return ``(new_pile, proof)``, deterministic in ``seed``.

    ``seed`` is the seat's secret for this step (at least 16 bytes); ``context`` binds the proof
    to the game step (game id, entry seq, prover seat).
    """
    _check_params(table_key, context)
    if not isinstance(seed, bytes) or len(seed) < 16:
        raise CryptoError("shuffle seed must be at least 16 bytes")
    source = _parse_pile(pile, "pile")
    n = len(source)
    if n == 0:
        return [], WT_MAGIC + bytes(2)
    pile_bytes = b"".join(pile)
    key = table_key.to_bytes()
    perm, scalars = _witness(seed, context, key, pile_bytes, n)
    s = scalars[:n]

    gt, kt = generator_base(), table_for(table_key, n + 1)
    g_terms, k_terms = gt.terms, kt.terms
    out_c1: list[Any] = []
    out_c2: list[Any] = []
    for i in range(n):
        c1, c2 = source[perm[i]]
        terms = g_terms(s[i])
        terms.append(c1)
        out_c1.append(_sum_or_fail(terms))
        terms = k_terms(s[i])
        terms.append(c2)
        out_c2.append(_sum_or_fail(terms))
    out_bytes = b"".join(_ser(a) + _ser(b) for a, b in zip(out_c1, out_c2, strict=True))
    proof = _prove(context, key, pile_bytes, out_bytes, out_c1, out_c2, perm, s, scalars[n:], kt)
    new_pile = [out_bytes[i * CIPHERTEXT_SIZE : (i + 1) * CIPHERTEXT_SIZE] for i in range(n)]
    return new_pile, proof


def verify_shuffle_wt(
    pile_in: Sequence[bytes], pile_out: Sequence[bytes], proof: bytes, table_key: Point, context: bytes
) -> None:
    """Check that ``pile_out`` is a shuffle of ``pile_in`` under ``table_key``; CryptoError otherwise.

    Every point and scalar of the proof is validated before use; the reason names what failed.
    """
    _check_params(table_key, context)
    require_bytes(proof, "shuffle proof")
    source = _parse_pile(pile_in, "input pile")
    target = _parse_pile(pile_out, "shuffled pile")
    n = len(source)
    if len(target) != n:
        raise CryptoError(f"shuffled pile has {len(target)} ciphertexts, input pile has {n}")
    if len(proof) < _HEADER or proof[: len(WT_MAGIC)] != WT_MAGIC:
        raise CryptoError("shuffle proof malformed: bad header")
    proof_n = int.from_bytes(proof[len(WT_MAGIC) : _HEADER], "big")
    if proof_n != n:
        raise CryptoError(f"shuffle proof is for {proof_n} cards, the pile has {n}")
    expected = proof_size(n)
    if len(proof) != expected:
        raise CryptoError(f"shuffle proof malformed: {len(proof)} bytes, expected {expected}")
    if n == 0:
        return

    # parse and validate everything before any arithmetic
    pos = _HEADER
    pc_bytes = proof[pos : pos + POINT_SIZE * n]
    pc = [
        _parse(pc_bytes[33 * i : 33 * i + 33], f"shuffle proof permutation commitment {i}") for i in range(n)
    ]
    pos += POINT_SIZE * n
    chain_bytes = proof[pos : pos + POINT_SIZE * n]
    chain = [
        _parse(chain_bytes[33 * i : 33 * i + 33], f"shuffle proof commitment chain {i}") for i in range(n)
    ]
    pos += POINT_SIZE * n
    c = _read(proof, pos, "challenge")
    s1, s2, s3, s4 = (_read(proof, pos + 32 * k, f"response s{k}") for k in range(1, 5))
    pos += 5 * SCALAR_SIZE
    s_hat = [_read(proof, pos + 32 * i, f"response ŝ[{i}]") for i in range(n)]
    pos += SCALAR_SIZE * n
    s_prime = [_read(proof, pos + 32 * i, f"response s'[{i}]") for i in range(n)]

    pile_bytes = b"".join(pile_in)
    out_bytes = b"".join(pile_out)
    key = table_key.to_bytes()
    useed = _u_seed(context, key, n, pile_bytes, out_bytes, pc_bytes)
    u = _u_vector(useed, n)
    gens = _generators(n)
    hs = gens[1 : n + 1]
    gt, kt = generator_base(), table_for(table_key, 1)
    g_terms = gt.terms
    vmul = _vmul
    negc = (ORDER - c) % ORDER
    negcu = [negc * uj % ORDER for uj in u]

    # t1 = s1*G - c*(sum c_j - sum h_i)
    terms = g_terms(s1)
    cbar = _sum_opt([*pc, _neg_h_sum(n)])
    if cbar is not None:
        terms += vmul(cbar, negc)
    t1 = _sum_bytes(terms)
    # t2 = s2*G - c*ĉ_N + (c*u)*h
    prod_u = 1
    for uj in u:
        prod_u = prod_u * uj % ORDER
    terms = g_terms(s2)
    terms += _h_base(1).terms(c * prod_u % ORDER)
    terms += vmul(chain[-1], negc)
    t2 = _sum_bytes(terms)
    # t3 = s3*G + sum s'_i*h_i - c*sum u_j*c_j
    terms = g_terms(s3)
    for i in range(n):
        terms += vmul(hs[i], s_prime[i])
        terms += vmul(pc[i], negcu[i])
    t3 = _sum_bytes(terms)
    # t4 = -s4*(G, K) + sum s'_i*D[i] - c*sum u_j*C[j]
    neg_s4 = (ORDER - s4) % ORDER
    terms_a = g_terms(neg_s4)
    terms_b = kt.terms(neg_s4)
    for i in range(n):
        d1, d2 = target[i]
        terms_a += vmul(d1, s_prime[i])
        terms_b += vmul(d2, s_prime[i])
        e1, e2 = source[i]
        terms_a += vmul(e1, negcu[i])
        terms_b += vmul(e2, negcu[i])
    t4a = _sum_bytes(terms_a)
    t4b = _sum_bytes(terms_b)
    # t̂_i = ŝ_i*G + s'_i*ĉ_(i-1) - c*ĉ_i
    t_hat = []
    previous = gens[0]
    for i in range(n):
        terms = g_terms(s_hat[i])
        terms += vmul(previous, s_prime[i])
        terms += vmul(chain[i], negc)
        t_hat.append(_sum_bytes(terms))
        previous = chain[i]

    if _challenge(useed, chain_bytes, t1, t2, t3, t4a, t4b, t_hat) != c:
        raise CryptoError(
            "shuffle proof does not verify (not a shuffle of the input, or made for another pile, key "
            "or context)"
        )


# ---------------------------------------------------------------------------------------------
# the prover, given a claimed witness (tests call it with a wrong one to show it fails)
# ---------------------------------------------------------------------------------------------


def _prove(
    context: bytes,
    key: bytes,
    pile_bytes: bytes,
    out_bytes: bytes,
    out_c1: Sequence[Any],
    out_c2: Sequence[Any],
    perm: Sequence[int],
    s: Sequence[int],
    nonces: Sequence[int],
    kt: Multiplier,
) -> bytes:
    n = len(perm)
    r = nonces[:n]
    r_hat = nonces[n : 2 * n]
    w_hat = nonces[2 * n : 3 * n]
    w_prime = nonces[3 * n : 4 * n]
    w1, w2, w3, w4 = nonces[4 * n : 4 * n + 4]
    hs = _generators(n)[1 : n + 1]
    g_terms, h_terms = generator_base().terms, _h_base(2 * n).terms
    smul = _smul

    # permutation commitment: slot pi(i) commits to h_i (written for any claimed mapping, so that
    # tests can run a prover that claims a mapping that is not a permutation)
    committed: list[list[Any]] = [[] for _ in range(n)]
    for i in range(n):
        committed[perm[i]].append(hs[i])
    pc: list[bytes] = []
    for j in range(n):
        terms = g_terms(r[j])
        terms += committed[j]
        pc.append(_ser(_sum_or_fail(terms)))
    pc_bytes = b"".join(pc)
    useed = _u_seed(context, key, n, pile_bytes, out_bytes, pc_bytes)
    u = _u_vector(useed, n)
    u_prime = [u[perm[i]] for i in range(n)]

    # commitment chain and t̂, from ĉ_i = U_i*h + R_i*G (fixed bases only)
    chain: list[bytes] = []
    t_hat: list[bytes] = []
    big_u, big_r = 1, 0
    for i in range(n):
        terms = g_terms((w_hat[i] + w_prime[i] * big_r) % ORDER)
        terms += h_terms(w_prime[i] * big_u % ORDER)
        t_hat.append(_sum_bytes(terms))
        big_u = big_u * u_prime[i] % ORDER
        big_r = (r_hat[i] + u_prime[i] * big_r) % ORDER
        terms = g_terms(big_r)
        terms += h_terms(big_u)
        chain.append(_ser(_sum_or_fail(terms)))

    t1 = _sum_bytes(g_terms(w1))
    t2 = _sum_bytes(g_terms(w2))
    terms = g_terms(w3)
    for i in range(n):
        terms += smul(hs[i], w_prime[i])
    t3 = _sum_bytes(terms)
    neg_w4 = (ORDER - w4) % ORDER
    terms_a = g_terms(neg_w4)
    terms_b = kt.terms(neg_w4)
    for i in range(n):
        terms_a += smul(out_c1[i], w_prime[i])
        terms_b += smul(out_c2[i], w_prime[i])
    t4a = _sum_bytes(terms_a)
    t4b = _sum_bytes(terms_b)

    chain_bytes = b"".join(chain)
    c = _challenge(useed, chain_bytes, t1, t2, t3, t4a, t4b, t_hat)
    r_bar = sum(r) % ORDER
    r_u = sum(rj * uj for rj, uj in zip(r, u, strict=True)) % ORDER
    r_tilde = sum(si * ui for si, ui in zip(s, u_prime, strict=True)) % ORDER
    responses = [
        (w1 + c * r_bar) % ORDER,
        (w2 + c * big_r) % ORDER,
        (w3 + c * r_u) % ORDER,
        (w4 + c * r_tilde) % ORDER,
    ]
    responses += [(w_hat[i] + c * r_hat[i]) % ORDER for i in range(n)]
    responses += [(w_prime[i] + c * u_prime[i]) % ORDER for i in range(n)]
    return b"".join(
        [
            WT_MAGIC,
            n.to_bytes(2, "big"),
            pc_bytes,
            chain_bytes,
            c.to_bytes(SCALAR_SIZE, "big"),
            *(v.to_bytes(SCALAR_SIZE, "big") for v in responses),
        ]
    )


# ---------------------------------------------------------------------------------------------
# internals
# ---------------------------------------------------------------------------------------------


def _check_params(table_key: Point, context: bytes) -> None:
    if not isinstance(table_key, Point):
        raise CryptoError("table key must be a Point")
    require_bytes(context, "context")


def _witness(
    seed: bytes, context: bytes, key: bytes, pile_bytes: bytes, n: int
) -> tuple[list[int], list[int]]:
    """pi, then s_1..s_N, r_1..r_N, r̂, ŵ, w' (N each) and w1..w4: all from ``seed`` and the statement."""
    info = lp(context, key, hashlib.sha256(pile_bytes).digest())
    master = HKDF(hashes.SHA256(), 32, b"fairdeck/v1/shuffle-wt", info).derive(seed)
    return _derive(master, n, 5 * n + 4)


def _derive(key: bytes, n: int, count: int) -> tuple[list[int], list[int]]:
    """A uniform permutation of range(n) (Fisher-Yates) and ``count`` scalars mod n, from ``key``."""
    data = stream(key, n * _PERM_DRAW + count * _SCALAR_DRAW)
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        off = i * _PERM_DRAW
        j = int.from_bytes(data[off : off + _PERM_DRAW], "big") % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    base = n * _PERM_DRAW
    scalars = [
        int.from_bytes(data[base + k * _SCALAR_DRAW : base + (k + 1) * _SCALAR_DRAW], "big") % ORDER
        for k in range(count)
    ]
    return perm, scalars


def _u_seed(
    context: bytes, key: bytes, n: int, pile_bytes: bytes, out_bytes: bytes, pc_bytes: bytes
) -> bytes:
    return tagged_hash("shuffle-wt-u", context, key, n.to_bytes(2, "big"), pile_bytes, out_bytes, pc_bytes)


def _u_vector(useed: bytes, n: int) -> list[int]:
    """``u_i = H(u-seed, i)`` as 256-bit integers reduced mod n."""
    return [
        int.from_bytes(tagged_hash("shuffle-wt-u-i", useed, i.to_bytes(2, "big")), "big") % ORDER
        for i in range(n)
    ]


def _challenge(
    useed: bytes,
    chain_bytes: bytes,
    t1: bytes,
    t2: bytes,
    t3: bytes,
    t4a: bytes,
    t4b: bytes,
    t_hat: Sequence[bytes],
) -> int:
    digest = tagged_hash("shuffle-wt-challenge", useed, chain_bytes, t1, t2, t3, t4a, t4b, b"".join(t_hat))
    return int.from_bytes(digest, "big") % ORDER


def _read(proof: bytes, pos: int, what: str) -> int:
    value = int.from_bytes(proof[pos : pos + SCALAR_SIZE], "big")
    if value >= ORDER:
        raise CryptoError(f"shuffle proof {what}: scalar out of range")
    return value


def _vmul(point: Any, k: int) -> list[Any]:
    """``[k*P]`` for a public ``0 <= k < n`` (variable-time ``tweak_mul``; ``[]`` for k = 0). Verifier."""
    if not k:
        return []
    out = _new("secp256k1_pubkey *", point[0])
    _tweak_mul(_CTX, out, k.to_bytes(SCALAR_SIZE, "big"))
    return [out]


def _smul(point: Any, k: int) -> list[Any]:
    """``[k*P]`` for a secret ``0 <= k < n`` in constant time (``[]`` for k = 0). Prover."""
    if not k:
        return []
    return [_mul_ct(point, k.to_bytes(SCALAR_SIZE, "big"))]


def _neg(point: Any) -> Any:
    out = _new("secp256k1_pubkey *", point[0])
    lib.secp256k1_ec_pubkey_negate(_CTX, out)
    return out


def _sum_opt(terms: list[Any]) -> Any | None:
    """The sum of ``terms`` as a cffi pubkey, or None for the point at infinity (or no terms)."""
    if not terms:
        return None
    out = _new("secp256k1_pubkey *")
    if not _combine(_CTX, out, terms, len(terms)):
        return None
    return out


def _sum_or_fail(terms: list[Any]) -> Any:
    out = _sum_opt(terms)
    if out is None:
        # only for an adversarial input pile, or with probability ~2^-256
        raise CryptoError("shuffle: a re-randomised or committed point is the identity")
    return out


def _sum_bytes(terms: list[Any]) -> bytes:
    """Compressed encoding of the sum; 33 zero bytes stand for the point at infinity."""
    out = _sum_opt(terms)
    return _IDENTITY if out is None else _ser(out)


def _ser(point: Any) -> bytes:
    buf = _new("unsigned char[33]")
    size = _new("size_t *", POINT_SIZE)
    _serialize(_CTX, buf, size, point, _COMPRESSED)
    return bytes(ffi.buffer(buf, POINT_SIZE))
