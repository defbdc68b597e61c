"""Verifiable shuffle: permute and re-randomise a pile, with a cut-and-choose proof.

Statement: the output pile D is the input pile C, permuted by a secret pi and re-randomised under
the table key K: ``D[i] = C[pi(i)] + s_i*(G, K)``.

Proof with R rounds (Fiat-Shamir, soundness 2^-R):

1. For each round t the prover makes a *shadow* shuffle ``E_t[j] = C[sigma_t(j)] + r_tj*(G, K)``
   from a fresh 32-byte round seed (sigma_t and r_t are derived from it) and commits to
   ``h_t = H(context, t, E_t)``. The shadows themselves are not sent.
2. The challenge bits are the hash of the context, K, C, D and every h_t.
3. Bit 0: reveal the round seed; the verifier rebuilds E_t from C.
   Bit 1: reveal ``tau_t = sigma_t^-1 o pi`` and ``u_ti = s_i - r_t,tau_t(i)``; the verifier
   rebuilds E_t from D, since ``E_t[tau_t(i)] = D[i] - u_ti*(G, K)``.
   Either way the verifier hashes the rebuilt shadow and compares it with h_t.

If D is not a shuffle of C, no shadow can be opened both ways (that would make D a shuffle of E_t
and E_t a shuffle of C), so a cheater must guess every bit in advance. Bit-1 openings are a one-time
pad on (pi, s) by the unrevealed (sigma_t, r_t), so the proof reveals nothing about pi.

Every scalar and permutation comes from ``seed`` (HKDF, then SHAKE-256), so a peer that crashes
recomputes the identical pile and proof.

Proof layout: ``b"FDS\\x01" | rounds u16 | n u16 | challenge ceil(R/8) bytes | h_1..h_R (32 each)``,
then per round in order: bit 0 -> round seed (32); bit 1 -> tau (n x u16) and u (n x 32).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p.crypto.elgamal import CIPHERTEXT_SIZE
from p2p.crypto.errors import CryptoError, lp, require_bytes, tagged_hash
from p2p.crypto.group import (
    _COMPRESSED,
    _CTX,
    ORDER,
    POINT_SIZE,
    SCALAR_SIZE,
    Multiplier,
    Point,
    _combine,
    _parse,
    _serialize,
    ffi,
    generator_base,
    stream,
    table_for,
)

DEFAULT_SHUFFLE_ROUNDS = 80
"""Default cut-and-choose rounds (soundness 2^-80): a 52-card, 4-seat shuffle measured under 1 s
(docs/crypto.md). Tests use a handful of rounds."""
MAX_SHUFFLE_ROUNDS = 256
"""Upper bound on rounds (one challenge hash supplies 256 bits)."""
MAX_PILE = 65535
"""Largest pile a proof can describe (indices are u16)."""

_MAGIC = b"FDS\x01"
_HEADER = len(_MAGIC) + 4
_PERM_DRAW = 16  # bytes per Fisher-Yates draw: modulo bias < 2^-112
_SCALAR_DRAW = 48  # bytes per scalar: modulo bias < 2^-128


def shuffle_pile(
    pile: Sequence[bytes], table_key: Point, seed: bytes, rounds: int, context: bytes
) -> tuple[list[bytes], bytes]:
    """Shuffle and re-randomise ``pile``; return ``(new_pile, proof)``, deterministic in ``seed``.

    ``seed`` is the seat's secret for this step (at least 16 bytes, e.g. HKDF of its identity,
    the game id and the entry sequence). ``context`` binds the proof to the game step.
    """
    _check_params(table_key, rounds, context)
    if not isinstance(seed, bytes) or len(seed) < 16:
        raise CryptoError("shuffle seed must be at least 16 bytes")
    source = _parse_pile(pile, "pile")
    n = len(source)
    pile_bytes = b"".join(pile)
    gt, kt = generator_base(), table_for(table_key, n * (rounds + 1))
    key = table_key.to_bytes()

    info = lp(context, key, hashlib.sha256(pile_bytes).digest(), rounds.to_bytes(2, "big"))
    master = HKDF(hashes.SHA256(), 32, b"fairdeck/v1/shuffle", info).derive(seed)
    perm, scal = _derive(master, n)
    out_bytes = _rerandomise(source, perm, scal, None, gt, kt)

    round_seeds = [tagged_hash("shuffle-round", master, t.to_bytes(2, "big")) for t in range(rounds)]
    shadows = [_derive(round_seed, n) for round_seed in round_seeds]
    commitments = [
        _shadow_hash(context, t, _rerandomise(source, sigma, r, None, gt, kt))
        for t, (sigma, r) in enumerate(shadows)
    ]
    challenge = _challenge(context, key, rounds, n, pile_bytes, out_bytes, commitments)

    proof = bytearray(_MAGIC + rounds.to_bytes(2, "big") + n.to_bytes(2, "big") + challenge)
    for commitment in commitments:
        proof += commitment
    for t, (sigma, r) in enumerate(shadows):
        if not _bit(challenge, t):
            proof += round_seeds[t]
            continue
        position = [0] * n
        for j, card in enumerate(sigma):
            position[card] = j
        tau = [position[perm[i]] for i in range(n)]
        proof += b"".join(j.to_bytes(2, "big") for j in tau)
        proof += b"".join(((scal[i] - r[tau[i]]) % ORDER).to_bytes(SCALAR_SIZE, "big") for i in range(n))
    new_pile = [out_bytes[i * CIPHERTEXT_SIZE : (i + 1) * CIPHERTEXT_SIZE] for i in range(n)]
    return new_pile, bytes(proof)


def verify_shuffle(
    pile: Sequence[bytes],
    new_pile: Sequence[bytes],
    proof: bytes,
    table_key: Point,
    rounds: int,
    context: bytes,
) -> None:
    """Check that ``new_pile`` is a shuffle of ``pile`` under ``table_key``; CryptoError otherwise.

    ``rounds`` is the table's setting: a proof with fewer (or more) rounds is refused.
    """
    _check_params(table_key, rounds, context)
    require_bytes(proof, "shuffle proof")
    source = _parse_pile(pile, "input pile")
    target = _parse_pile(new_pile, "shuffled pile")
    n = len(source)
    if len(target) != n:
        raise CryptoError(f"shuffled pile has {len(target)} ciphertexts, input pile has {n}")
    if len(proof) < _HEADER or proof[: len(_MAGIC)] != _MAGIC:
        raise CryptoError("shuffle proof malformed: bad header")
    proof_rounds = int.from_bytes(proof[4:6], "big")
    proof_n = int.from_bytes(proof[6:8], "big")
    if proof_rounds != rounds:
        raise CryptoError(f"shuffle proof has {proof_rounds} rounds, the table requires {rounds}")
    if proof_n != n:
        raise CryptoError(f"shuffle proof is for {proof_n} cards, the pile has {n}")
    nbits = (rounds + 7) // 8
    challenge = proof[_HEADER : _HEADER + nbits]
    if len(challenge) != nbits:
        raise CryptoError("shuffle proof malformed: truncated")
    ones = sum(_bit(challenge, t) for t in range(rounds))
    opening_one = n * (2 + SCALAR_SIZE)
    expected = _HEADER + nbits + 32 * rounds + ones * opening_one + (rounds - ones) * 32
    if len(proof) != expected:
        raise CryptoError(f"shuffle proof malformed: {len(proof)} bytes, expected {expected}")

    pile_bytes = b"".join(pile)
    out_bytes = b"".join(new_pile)
    key = table_key.to_bytes()
    pos = _HEADER + nbits
    commitments = [proof[pos + 32 * t : pos + 32 * (t + 1)] for t in range(rounds)]
    if _challenge(context, key, rounds, n, pile_bytes, out_bytes, commitments) != challenge:
        raise CryptoError(
            "shuffle proof challenge does not match (proof made for another pile, key or context)"
        )

    gt, kt = generator_base(), table_for(table_key, n * rounds)
    pos += 32 * rounds
    for t in range(rounds):
        try:
            if not _bit(challenge, t):
                sigma, r = _derive(proof[pos : pos + 32], n)
                pos += 32
                shadow = _rerandomise(source, sigma, r, None, gt, kt)
            else:
                tau = [int.from_bytes(proof[pos + 2 * i : pos + 2 * i + 2], "big") for i in range(n)]
                pos += 2 * n
                if sorted(tau) != list(range(n)):
                    raise CryptoError(f"shuffle proof round {t}: opening is not a permutation")
                u = [int.from_bytes(proof[pos + 32 * i : pos + 32 * i + 32], "big") for i in range(n)]
                pos += 32 * n
                if any(v >= ORDER for v in u):
                    raise CryptoError(f"shuffle proof round {t}: scalar out of range")
                shadow = _rerandomise(target, range(n), [(-v) % ORDER for v in u], tau, gt, kt)
        except _Identity:
            raise CryptoError(f"shuffle proof round {t} does not open (identity point)") from None
        if _shadow_hash(context, t, shadow) != commitments[t]:
            raise CryptoError(f"shuffle proof round {t} does not open")


# ---------------------------------------------------------------------------------------------
# internals
# ---------------------------------------------------------------------------------------------


class _Identity(Exception):
    """A re-randomisation hit the point at infinity (never for honest inputs)."""


def _check_params(table_key: Point, rounds: int, context: bytes) -> None:
    if not isinstance(table_key, Point):
        raise CryptoError("table key must be a Point")
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_SHUFFLE_ROUNDS:
        raise CryptoError(f"shuffle rounds must be an int in [1, {MAX_SHUFFLE_ROUNDS}]")
    require_bytes(context, "context")


def _parse_pile(pile: Sequence[bytes], what: str) -> list[tuple[Any, Any]]:
    if isinstance(pile, bytes | str) or not isinstance(pile, Sequence):
        raise CryptoError(f"{what} must be a sequence of ciphertext blobs")
    if len(pile) > MAX_PILE:
        raise CryptoError(f"{what} has {len(pile)} cards, at most {MAX_PILE} can be shuffled")
    out = []
    for i, ct in enumerate(pile):
        if not isinstance(ct, bytes) or len(ct) != CIPHERTEXT_SIZE:
            raise CryptoError(f"{what}[{i}] must be a {CIPHERTEXT_SIZE}-byte ciphertext")
        out.append((_parse(ct[:POINT_SIZE], f"{what}[{i}] c1"), _parse(ct[POINT_SIZE:], f"{what}[{i}] c2")))
    return out


def _derive(key: bytes, n: int) -> tuple[list[int], list[int]]:
    """A uniform permutation of range(n) (Fisher-Yates) and n scalars in [0, n), from ``key``."""
    data = stream(key, n * (_PERM_DRAW + _SCALAR_DRAW))
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        off = i * _PERM_DRAW
        j = int.from_bytes(data[off : off + _PERM_DRAW], "big") % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    base = n * _PERM_DRAW
    scalars = [
        int.from_bytes(data[base + k * _SCALAR_DRAW : base + (k + 1) * _SCALAR_DRAW], "big") % ORDER
        for k in range(n)
    ]
    return perm, scalars


def _rerandomise(
    source: list[tuple[Any, Any]],
    gather: Sequence[int],
    scalars: Sequence[int],
    scatter: Sequence[int] | None,
    gt: Multiplier,
    kt: Multiplier,
) -> bytes:
    """Serialised pile whose slot ``scatter[i]`` (or i) is ``source[gather[i]] + scalars[i]*(G, K)``.

    The hot loop of both prover and verifier: two fixed-base table sums per card, written straight
    into one buffer.
    """
    n = len(source)
    buf = ffi.new("unsigned char[]", max(1, n * CIPHERTEXT_SIZE))
    size = ffi.new("size_t *")
    out = ffi.new("secp256k1_pubkey *")
    g_terms, k_terms = gt.terms, kt.terms
    for i in range(n):
        c1, c2 = source[gather[i]]
        u = scalars[i]
        slot = (scatter[i] if scatter is not None else i) * CIPHERTEXT_SIZE
        terms = g_terms(u)
        terms.append(c1)
        if not _combine(_CTX, out, terms, len(terms)):
            raise _Identity
        size[0] = POINT_SIZE
        _serialize(_CTX, buf + slot, size, out, _COMPRESSED)
        terms = k_terms(u)
        terms.append(c2)
        if not _combine(_CTX, out, terms, len(terms)):
            raise _Identity
        size[0] = POINT_SIZE
        _serialize(_CTX, buf + slot + POINT_SIZE, size, out, _COMPRESSED)
    return bytes(ffi.buffer(buf, n * CIPHERTEXT_SIZE))


def _shadow_hash(context: bytes, t: int, shadow: bytes) -> bytes:
    return tagged_hash("shuffle-shadow", context, t.to_bytes(2, "big"), shadow)


def _challenge(
    context: bytes,
    key: bytes,
    rounds: int,
    n: int,
    pile_bytes: bytes,
    out_bytes: bytes,
    commitments: Sequence[bytes],
) -> bytes:
    """The first ceil(rounds/8) bytes of the Fiat-Shamir hash over every public input."""
    digest = tagged_hash(
        "shuffle-challenge",
        context,
        key,
        rounds.to_bytes(2, "big"),
        n.to_bytes(2, "big"),
        pile_bytes,
        out_bytes,
        b"".join(commitments),
    )
    return digest[: (rounds + 7) // 8]


def _bit(challenge: bytes, t: int) -> int:
    return (challenge[t // 8] >> (t % 8)) & 1
