"""Helpers for the Love Letter tests: rigged tables whose cards are placed by name.

``Table.rigged`` plays a real game from ``initial_state()`` whose first shuffle puts the cards in a
chosen order, so the whole history is checkable. ``Table.build`` assembles a mid-round state
directly (hands, pile, discards...) for situations that would take many turns to reach.
Table operations are answered by the real ``TrustedDealer``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.core import Decide, Disclose, Event, FrozenDict, GameOver, Shuffle
from engine.dealer import TrustedDealer
from engine.loveletter import DRAW, PLAY, SHUFFLE, LoveLetter, State


def _complete(game: LoveLetter, top: Sequence[str]) -> list[str]:
    """``top`` followed by the rest of the deck (canonical order), checking ``top`` fits the deck."""
    rest = Counter(game.deck())
    rest.subtract(Counter(top))
    assert all(n >= 0 for n in rest.values()), f"more cards than the deck has: {top}"
    return list(top) + [f for f in dict.fromkeys(game.deck()) for _ in range(rest[f])]


class Table:
    """A game in progress with a trusted dealer, its history, and shortcuts to act by card name."""

    def __init__(self, game: LoveLetter, state: State, dealer: TrustedDealer, checkable: bool) -> None:
        self.game = game
        self.state = state
        self.dealer = dealer
        self.history: list[Event] = []
        self.checkable = checkable

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def rigged(cls, seats: int, order: Sequence[str], options: Mapping[str, Any] | None = None,
               starter: int = 0) -> Table:
        """A game whose first round deals ``order`` from the top (set-aside card first).

        Top of the fresh pile: the set-aside card, then (2 players with removal) 3 face-up cards,
        then one card per seat from ``starter`` clockwise, then the draws in turn order.
        """
        game = LoveLetter(seats, {"first_player": starter, **(options or {})})
        dealer = TrustedDealer(game, 0)
        table = cls(game, game.initial_state(), dealer, checkable=True)
        request = game.pending(table.state)
        assert isinstance(request, Shuffle)
        table.apply(dealer.resolve(request, _no_commit))
        n = len(game.deck())
        dealer.slots[-n:] = _complete(game, order)
        table.resolve()
        return table

    @classmethod
    def build(
        cls,
        seats: int,
        hands: Sequence[Sequence[str]],
        pile: Sequence[str],
        set_aside: str | None = None,
        discards: Sequence[Sequence[str]] | None = None,
        faceup: Sequence[str] | None = None,
        turn: int = 0,
        protected: Sequence[int] = (),
        out: Sequence[int] = (),
        tokens: Sequence[int] | None = None,
        options: Mapping[str, Any] | None = None,
        starter: int = 0,
    ) -> Table:
        """A round-1 state with exactly these cards (by face, pile top first).

        Cards not placed anywhere are put face up out of play (``faceup``) unless ``faceup`` is
        given, in which case every card must be placed. With ``set_aside=None`` the first leftover
        card is set aside. The turn seat must hold 1 card (waiting for its draw) or 2 (to play).
        """
        game = LoveLetter(seats, {"first_player": 0, **(options or {})})
        n = len(game.deck())
        base = n  # the live refs of round 1
        discards = [list(d) for d in (discards or [[] for _ in range(seats)])]
        placed = [*pile, *(f for h in hands for f in h), *(f for d in discards for f in d), *(faceup or [])]
        if set_aside is not None:
            placed.insert(0, set_aside)
        rest = _complete(game, placed)[len(placed):]
        if set_aside is None:
            assert rest, "no card left to set aside"
            set_aside, rest = rest[0], rest[1:]
        if faceup is None:
            faceup = rest
        else:
            assert not rest, f"cards left unplaced: {rest}"
        faces: list[str] = []

        def take(face_list: Sequence[str]) -> tuple[int, ...]:
            start = base + len(faces)
            faces.extend(face_list)
            return tuple(range(start, start + len(face_list)))

        aside_ref = take([set_aside])[0]
        pile_refs = take(pile)
        hand_refs = tuple(take(h) for h in hands)
        discard_refs = tuple(take(d) for d in discards)
        faceup_refs = take(faceup)
        public = {r: faces[r - base] for refs in (*discard_refs, faceup_refs) for r in refs}
        phase = PLAY if len(hands[turn]) == 2 else DRAW
        state = replace(
            game.initial_state(),
            phase=phase,
            round=1,
            starter=starter,
            turn=turn,
            next_ref=base + n,
            set_aside=aside_ref,
            faceup=faceup_refs,
            pile=pile_refs,
            hands=hand_refs,
            discards=discard_refs,
            out=tuple(s in out for s in range(seats)),
            protected=tuple(s in protected for s in range(seats)),
            faces=FrozenDict(public),
            tokens=tuple(tokens) if tokens is not None else (0,) * seats,
        )
        dealer = TrustedDealer(game, 0)
        dealer.slots = list(game.deck()) + faces
        dealer.public.update(public)
        for seat, refs in enumerate(hand_refs):
            for r in refs:
                dealer.knowledge[seat][r] = faces[r - base]
        table = cls(game, state, dealer, checkable=False)
        table.resolve()
        return table

    # -- acting -------------------------------------------------------------------------------
    def apply(self, event: Event) -> State:
        """Apply one event (``IllegalMove`` propagates, leaving the table as it was)."""
        self.state = self.game.apply(self.state, event)
        self.history.append(event)
        return self.state

    def resolve(self) -> State:
        """Let the dealer answer table operations until a seat must decide or the round is over.

        It stops before the end-of-round ``Disclose`` (or the next round's ``Shuffle``) so that tests
        can look at the finished round; ``step`` goes on from there. A re-masking ``Shuffle`` within
        the round (the Chancellor's) is resolved like any other table operation.
        """
        while True:
            request = self.game.pending(self.state)
            if isinstance(request, Decide | GameOver | Disclose):
                return self.state
            if isinstance(request, Shuffle) and self.state.phase == SHUFFLE:
                return self.state
            self.apply(self.dealer.resolve(request, _no_commit))

    def step(self) -> Event:
        """Answer exactly one table operation; return its event."""
        request = self.game.pending(self.state)
        event = self.dealer.resolve(request, _no_commit)
        self.apply(event)
        return event

    def face(self, ref: int) -> str:
        """The true face of ``ref``."""
        return self.dealer.slots[ref]

    def ref(self, seat: int, face: str) -> int:
        """The ref of a ``face`` card in ``seat``'s hand."""
        for r in self.state.hands[seat]:
            if self.face(r) == face:
                return r
        raise AssertionError(f"seat {seat} holds no {face}: {self.hand(seat)}")

    def hand(self, seat: int) -> list[str]:
        """The true faces in ``seat``'s hand."""
        return [self.face(r) for r in self.state.hands[seat]]

    def move_for(self, seat: int, face: str, target: int | None = None, guess: str | None = None) -> Event:
        """The play event for ``seat`` playing its ``face`` card."""
        data = {"card": self.ref(seat, face), "face": face, "target": target, "guess": guess}
        return Event.move(seat, data)

    def play(self, seat: int, face: str, target: int | None = None, guess: str | None = None,
             resolve: bool = True) -> State:
        """``seat`` plays its ``face`` card; table operations are then resolved."""
        self.apply(self.move_for(seat, face, target, guess))
        return self.resolve() if resolve else self.state

    def decide(self, move: Mapping[str, Any]) -> State:
        """The deciding seat makes ``move``; table operations are then resolved."""
        request = self.game.pending(self.state)
        assert isinstance(request, Decide), request
        self.apply(Event.move(request.seat, move))
        return self.resolve()

    def honest(self) -> State:
        """The deciding seat gives its (first) honest legal move."""
        request = self.game.pending(self.state)
        assert isinstance(request, Decide), request
        return self.decide(self.legal()[0])

    def legal(self, seat: int | None = None) -> list[dict[str, Any]]:
        """Legal moves of ``seat`` (default: the deciding seat) with what it knows."""
        if seat is None:
            request = self.game.pending(self.state)
            assert isinstance(request, Decide), request
            seat = request.seat
        return self.game.legal_moves(self.state, seat, self.dealer.known_to(seat))

    def all_faces(self) -> dict[int, str]:
        """Every ref's true face (what ``check`` gets after full disclosure)."""
        return dict(enumerate(self.dealer.slots))

    def check(self) -> list[Any]:
        """``game.check`` over the whole history (only for rigged tables)."""
        assert self.checkable, "a built table has no history from the start"
        return self.game.check(self.history, self.all_faces())


def _no_commit(seat: int, prompt: str) -> dict[str, Any]:
    raise AssertionError("Love Letter never asks for a Commit")
