"""Test-only: forge a cut-and-choose shuffle proof by grinding the Fiat-Shamir challenge.

For every round the forger builds two shadows it can open: one from the input pile C (opens for
bit 0, with its seed) and one from the claimed output D (opens for bit 1, since D is a
re-randomised permutation of it). Committing to one of the two per round fixes a guess of the
challenge bits; the forger hashes, and wins when the challenge equals its guess (probability
2^-R per attempt, whatever D is). Nothing is recomputed per attempt but the challenge hash: guesses
are enumerated like a counter with the last round as the low bit, and the SHA-256 state after every
prefix of commitments is kept, so an attempt hashes on average two 32-byte commitments from a
cached midstate. Fresh variants of round 0's shadows give more than 2^R distinct attempts.

This is why soundness 2^-R of a non-interactive cut-and-choose proof is worth only R bits of
hashing work. It is not part of the package.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from p2p.crypto import ORDER, Point
from p2p.crypto import shuffle as sh
from p2p.crypto.errors import lp
from p2p.crypto.group import SCALAR_SIZE, generator_base, table_for


@dataclass
class Forgery:
    """The proof bytes, how many challenge hashes were tried, and whether the guess came true."""

    proof: bytes
    attempts: int
    accepted_guess: bool


@dataclass
class _Shadow:
    commitment: bytes
    opening: bytes  # what the proof carries if the challenge bit is the one this shadow was made for
    seed: bytes  # a bit-0 opening (a seed); for a bit-1 shadow it does not open


def grind_cut_and_choose(
    pile: Sequence[bytes],
    claimed: Sequence[bytes],
    table_key: Point,
    rounds: int,
    context: bytes,
    max_attempts: int,
) -> Forgery:
    """Grind a cut-and-choose proof that ``claimed`` is a shuffle of ``pile`` (it need not be).

    Returns the first proof whose challenge matched the guess, or after ``max_attempts`` the
    last attempt's proof (which then has rounds that do not open).
    """
    n = len(pile)
    source, target = sh._parse_pile(pile, "pile"), sh._parse_pile(claimed, "claimed")
    gt, kt = generator_base(), table_for(table_key, n * rounds)
    identity_tau = b"".join(i.to_bytes(2, "big") for i in range(n))

    def shadow(t: int, bit: int, v: int) -> _Shadow:
        seed = hashlib.sha256(b"grind %d %d %d" % (t, bit, v) + context).digest()
        sigma, r = sh._derive(seed, n)
        if bit == 0:
            data = sh._rerandomise(source, sigma, r, None, gt, kt)
            return _Shadow(sh._shadow_hash(context, t, data), seed, seed)
        # E[j] = D[sigma(j)] + r_j*(G, K); open with tau = sigma^-1 and u_i = -r_tau(i)
        data = sh._rerandomise(target, sigma, r, None, gt, kt)
        tau = [0] * n
        for j, i in enumerate(sigma):
            tau[i] = j
        opening = b"".join(j.to_bytes(2, "big") for j in tau)
        opening += b"".join(((-r[tau[i]]) % ORDER).to_bytes(SCALAR_SIZE, "big") for i in range(n))
        return _Shadow(sh._shadow_hash(context, t, data), opening, seed)

    # shadows[t][bit][v]: rounds after the first have one shadow per bit; round 0 gets a new variant
    # of both of its shadows each time the 2^R guesses have all been tried
    shadows = [[[shadow(t, bit, 0)] for bit in (0, 1)] for t in range(rounds)]

    # sh._challenge is tagged_hash over length-prefixed parts; the last part is the commitments
    base = hashlib.sha256(
        lp(
            "fairdeck/v1/shuffle-challenge",
            context,
            table_key.to_bytes(),
            rounds.to_bytes(2, "big"),
            n.to_bytes(2, "big"),
            b"".join(pile),
            b"".join(claimed),
        )
    )
    base.update((32 * rounds).to_bytes(4, "big"))
    nbytes = (rounds + 7) // 8

    attempts = 0
    guess_bits: list[int] = [0] * rounds
    challenge = b""
    variant = last_variant = 0
    while attempts < max_attempts:
        states = [base.copy()]
        for t in range(rounds):
            state = states[-1].copy()
            state.update(shadows[t][0][variant if t == 0 else 0].commitment)
            states.append(state)
        guess = 0
        while attempts < max_attempts:
            attempts += 1
            last_variant = variant
            guess_bits = [(guess >> (rounds - 1 - t)) & 1 for t in range(rounds)]
            challenge = states[rounds].digest()[:nbytes]
            if all(sh._bit(challenge, t) == guess_bits[t] for t in range(rounds)):
                return Forgery(_assemble(rounds, n, challenge, shadows, guess_bits, variant), attempts, True)
            guess += 1
            if guess >> rounds:
                break  # every guess tried with this variant of round 0
            # rounds from the highest changed bit on get new commitments; the prefix state is kept
            changed = rounds - 1 - ((guess ^ (guess - 1)).bit_length() - 1)
            for t in range(changed, rounds):
                state = states[t].copy()
                bit = (guess >> (rounds - 1 - t)) & 1
                state.update(shadows[t][bit][variant if t == 0 else 0].commitment)
                states[t + 1] = state
        variant += 1
        for bit in (0, 1):
            shadows[0][bit].append(shadow(0, bit, variant))
    return Forgery(
        _assemble(rounds, n, challenge, shadows, guess_bits, last_variant, identity_tau), attempts, False
    )


def _assemble(
    rounds: int,
    n: int,
    challenge: bytes,
    shadows: list[list[list[_Shadow]]],
    guess_bits: list[int],
    variant: int,
    identity_tau: bytes = b"",
) -> bytes:
    proof = bytearray(sh._MAGIC + rounds.to_bytes(2, "big") + n.to_bytes(2, "big") + challenge)
    chosen = [shadows[t][guess_bits[t]][variant if t == 0 else 0] for t in range(rounds)]
    proof += b"".join(s.commitment for s in chosen)
    for t, s in enumerate(chosen):
        wanted = sh._bit(challenge, t)
        if wanted == guess_bits[t]:
            proof += s.opening
        elif wanted == 0:
            proof += s.seed  # the seed of a shadow built from the claimed pile: it does not open
        else:  # a well-formed bit-1 opening that does not open
            proof += identity_tau + (1).to_bytes(SCALAR_SIZE, "big") * n
    return bytes(proof)
