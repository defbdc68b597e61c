"""Whole-table flows for 1 to 6 seats, as the table protocol will run them, plus a property test.

``Table`` below plays every seat in one process, but each seat only uses its own secrets and what
was "published" (verified blobs); the test alone keeps an oracle that decrypts with every secret.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.crypto import (
    CardCodec,
    CryptoError,
    Point,
    derive_scalar,
    derive_seal_key,
    make_context,
    make_key_share,
    open_ciphertext,
    reveal_token,
    seal,
    seal_public,
    shuffle_pile,
    table_key,
    token_point,
    unmask,
    unseal,
    verify_key_share,
    verify_shuffle,
    verify_token,
)

FACES = ["guard"] * 5 + [
    "priest",
    "priest",
    "baron",
    "baron",
    "handmaid",
    "prince",
    "king",
    "countess",
    "princess",
]
ROUNDS = 3  # tests only: the soundness is checked in test_crypto_shuffle


@dataclass
class Seat:
    """One seat's secrets and private knowledge."""

    index: int
    identity: bytes
    x: int
    seal_key: object
    known: dict[int, str] = field(default_factory=dict)


class Table:
    """A table of seats dealing with the crypto API exactly as peers would."""

    def __init__(self, seats: int, faces: list[str], game: bytes = b"game-table") -> None:
        self.game = game
        self.seq = 0
        self.codec = CardCodec(faces)
        self.seats: list[Seat] = []
        for s in range(seats):
            identity = hashlib.sha256(game + b"identity %d" % s).digest()
            x = derive_scalar(identity, "elgamal", game)
            self.seats.append(Seat(s, identity, x, derive_seal_key(identity, make_context(game, "seal"))))
        self.seal_pubs = [seal_public(seat.seal_key) for seat in self.seats]  # type: ignore[arg-type]
        # key shares: every seat publishes, every seat verifies the others
        blobs = [make_key_share(seat.x, make_context(game, "keyshare", seat.index)) for seat in self.seats]
        self.shares: list[Point] = [
            verify_key_share(blob, make_context(game, "keyshare", s)) for s, blob in enumerate(blobs)
        ]
        self.key = table_key(self.shares)
        self.deck: list[bytes] = [open_ciphertext(f, self.key) for f in faces]
        self.public: dict[int, str] = dict(enumerate(faces))  # the canonical deck is public
        self.public_tokens: dict[int, dict[int, Point]] = {}

    def ctx(self, seat: int, purpose: str) -> bytes:
        return make_context(self.game, self.seq, seat, purpose)

    def shuffle(self, refs: list[int], seats: list[int] | None = None) -> list[int]:
        """Each listed seat in turn shuffles the pile; every proof is verified; new refs returned."""
        for s in seats if seats is not None else range(len(self.seats)):
            self.seq += 1
            pile = [self.deck[r] for r in refs]
            seed = hashlib.sha256(self.seats[s].identity + b"shuffle %d" % self.seq).digest()
            new, proof = shuffle_pile(pile, self.key, seed, ROUNDS, self.ctx(s, "shuffle"))
            verify_shuffle(pile, new, proof, self.key, ROUNDS, self.ctx(s, "shuffle"))
            refs = list(range(len(self.deck), len(self.deck) + len(new)))
            self.deck.extend(new)
        return refs

    def publish_token(self, ref: int, s: int) -> None:
        """Seat s publishes its token for ``ref``; everyone verifies it against s's share."""
        self.seq += 1
        ct = self.deck[ref]
        token = reveal_token(self.seats[s].x, ct, self.ctx(s, "token"))
        self.public_tokens.setdefault(ref, {})[s] = verify_token(
            self.shares[s], ct, token, self.ctx(s, "token")
        )

    def deal(self, ref: int, to: int) -> str:
        """Every other seat publishes its token; the recipient adds its own privately."""
        for s in range(len(self.seats)):
            if s != to and s not in self.public_tokens.get(ref, {}):
                self.publish_token(ref, s)
        ct = self.deck[ref]
        tokens = [d for s, d in self.public_tokens.get(ref, {}).items() if s != to]
        face = self.codec.decode(unmask(ct, [*tokens, token_point(self.seats[to].x, ct)]))
        self.seats[to].known[ref] = face
        return face

    def reveal(self, ref: int) -> str:
        """Public reveal: every token still missing is published; anyone decodes."""
        for s in range(len(self.seats)):
            if s not in self.public_tokens.get(ref, {}):
                self.publish_token(ref, s)
        face = self.codec.decode(unmask(self.deck[ref], list(self.public_tokens[ref].values())))
        self.public[ref] = face
        return face

    def show(self, ref: int, holder: int, to: int) -> str:
        """The holder seals its token to ``to``, who checks it and decodes with the public tokens."""
        self.seq += 1
        ct = self.deck[ref]
        context = self.ctx(holder, "show")
        blob = seal(
            reveal_token(self.seats[holder].x, ct, context),
            self.seats[holder].seal_key,  # type: ignore[arg-type]
            self.seal_pubs[to],
            context,
        )
        token = unseal(blob, self.seats[to].seal_key, self.seal_pubs[holder], context)  # type: ignore[arg-type]
        d_holder = verify_token(self.shares[holder], ct, token, context)
        tokens = {s: d for s, d in self.public_tokens.get(ref, {}).items() if s != holder}
        tokens[holder] = d_holder
        if to not in tokens:
            tokens[to] = token_point(self.seats[to].x, ct)
        face = self.codec.decode(unmask(ct, list(tokens.values())))
        self.seats[to].known[ref] = face
        return face

    def disclose(self, refs: list[int]) -> dict[int, str]:
        """End of round: every seat publishes its tokens for every hidden card; all become public."""
        return {ref: self.reveal(ref) for ref in refs if ref not in self.public}

    def oracle(self, ref: int) -> str:
        """The true face (test only: uses every seat's secret)."""
        ct = self.deck[ref]
        return self.codec.decode(unmask(ct, [token_point(seat.x, ct) for seat in self.seats]))


@pytest.mark.parametrize("seats", [1, 2, 3, 4, 5, 6])
def test_a_round_of_play(seats: int) -> None:
    table = Table(seats, FACES)
    live = table.shuffle(list(range(len(FACES))))
    assert Counter(table.oracle(r) for r in live) == Counter(FACES)
    # private deal: one card to each seat
    hands = {s: live[s] for s in range(seats)}
    for s, ref in hands.items():
        assert table.deal(ref, s) == table.oracle(ref)
        for other in range(seats):
            if other != s:
                assert ref not in table.seats[other].known
    # private show: seat 0 shows its card to the last seat
    if seats > 1:
        assert table.show(hands[0], 0, seats - 1) == table.seats[0].known[hands[0]]
    # public reveal of the next card
    top = live[seats]
    assert table.reveal(top) == table.oracle(top)
    # partial reshuffle of the remaining sub-pile
    rest = live[seats + 1 :]
    before = Counter(table.oracle(r) for r in rest)
    rest = table.shuffle(rest)
    assert Counter(table.oracle(r) for r in rest) == before
    # end-of-round disclosure: every hidden card becomes public and matches what seats saw
    disclosed = table.disclose([*hands.values(), *rest])
    for s, ref in hands.items():
        assert disclosed[ref] == table.seats[s].known[ref]
    faces = [table.public[r] for r in [*hands.values(), top, *rest]]
    assert Counter(faces) == Counter(FACES)


def test_a_card_hidden_from_a_seat_stays_hidden_without_its_token() -> None:
    table = Table(3, FACES)
    live = table.shuffle(list(range(len(FACES))))
    table.deal(live[0], 1)
    # seat 2 has seat 0's public token and its own, but not seat 1's: the point decodes to nothing
    ct = table.deck[live[0]]
    guess = unmask(ct, [table.public_tokens[live[0]][0], token_point(table.seats[2].x, ct)])
    with pytest.raises(CryptoError, match="not a card of this game"):
        table.codec.decode(guess)


ops = st.lists(
    st.one_of(
        st.tuples(st.just("shuffle"), st.integers(0, 99), st.integers(2, 18), st.integers(0, 63)),
        st.tuples(st.just("deal"), st.integers(0, 99), st.integers(0, 5)),
        st.tuples(st.just("reveal"), st.integers(0, 99)),
        st.tuples(st.just("show"), st.integers(0, 99), st.integers(0, 5), st.integers(0, 5)),
    ),
    max_size=8,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(1, 6), steps=ops)
def test_any_sequence_of_operations_keeps_every_card(seats: int, steps: list[tuple]) -> None:  # type: ignore[type-arg]
    faces = FACES[:10]
    table = Table(seats, faces, game=b"prop-%d" % seats)
    live = table.shuffle(list(range(len(faces))))
    holder: dict[int, int] = {}
    for step in steps:
        if step[0] == "shuffle":
            _, start, length, seat_mask = step
            start %= len(live)
            sub = live[start : start + length]
            shufflers = [s for s in range(seats) if seat_mask >> s & 1] or [0]
            live[start : start + len(sub)] = table.shuffle(sub, shufflers)
        elif step[0] == "deal":
            ref = live[step[1] % len(live)]
            to = step[2] % seats
            holder[ref] = to
            assert table.deal(ref, to) == table.oracle(ref)
        elif step[0] == "reveal":
            ref = live[step[1] % len(live)]
            assert table.reveal(ref) == table.oracle(ref)
        else:
            ref = live[step[1] % len(live)]
            if ref in holder:
                to = step[3] % seats
                assert table.show(ref, holder[ref], to) == table.seats[holder[ref]].known[ref]
    # every knowledge a seat gained is true, and the multiset of faces never changed
    for seat in table.seats:
        assert all(table.oracle(ref) == face for ref, face in seat.known.items())
    table.disclose(live)
    assert Counter(table.public[r] for r in live) == Counter(faces)
