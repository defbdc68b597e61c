"""High card's rules: shuffle, a private deal, one committed choice, a reveal, a winner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.core import (
    Commit,
    Deal,
    Event,
    Face,
    FrozenDict,
    Game,
    GameOver,
    IllegalMove,
    Ref,
    Request,
    Reveal,
    Seat,
    Shuffle,
    Violation,
    expect_event,
)

from . import text
from .state import CHOOSE, DEAL, DECK, HAND, OVER, REVEAL, SHUFFLE, State


class HighCard(Game):
    """High card for 2-4 players; no options."""

    name = "highcard"
    title = "High card"
    min_seats = 2
    max_seats = 4
    default_seats = 2
    state_class = State

    def deck(self) -> tuple[Face, ...]:
        """The eight cards, 1 to 8."""
        return DECK

    def initial_state(self) -> State:
        """Nothing has happened."""
        return State()

    def pending(self, state: State) -> Request:
        """Shuffle, deal, choose (committed), reveal, over."""
        if state.fault is not None or state.phase == OVER:
            return GameOver()
        if state.phase == SHUFFLE:
            return Shuffle(tuple(range(len(DECK))))
        if state.phase == DEAL:
            return Deal(tuple((r, s) for s, hand in enumerate(state.hands) for r in hand))
        if state.phase == CHOOSE:
            return Commit(tuple(range(self.seats)), "choose")
        return Reveal(state.chosen)

    def state_seats(self, state: State) -> int | None:
        """Seats of a dealt state: one hand each."""
        return len(state.hands) if state.hands else None

    def _choice(self, state: State, seat: Seat, move: Any) -> Ref:
        if not isinstance(move, Mapping) or set(move) != {"card"}:
            raise IllegalMove("a choice is {'card': ref}", seat)
        ref = move["card"]
        if not isinstance(ref, int) or isinstance(ref, bool) or ref not in state.hands[seat]:
            raise IllegalMove(f"seat {seat} does not hold card {ref!r}", seat)
        return ref

    def check_choice(self, state: Any, seat: Seat, move: Mapping[str, Any]) -> None:
        """A choice names one of the seat's two cards."""
        self._choice(state, seat, move)

    def apply(self, state: State, event: Event) -> State:
        """The state after ``event``; :class:`IllegalMove` if it is not the answer wanted now."""
        if not isinstance(event, Event):
            raise IllegalMove("not an event")
        expect_event(self.pending(state), event)
        s = replace(state, events=state.events + 1)
        if state.phase == SHUFFLE:
            fresh = tuple(range(state.next_ref, state.next_ref + len(DECK)))
            hands = tuple(fresh[i * HAND : (i + 1) * HAND] for i in range(self.seats))
            return replace(s, phase=DEAL, next_ref=state.next_ref + len(DECK), pile=fresh, hands=hands)
        if state.phase == DEAL:
            return replace(s, phase=CHOOSE)
        if state.phase == CHOOSE:
            choices = event.data["choices"]
            chosen = tuple(self._choice(state, seat, choices[seat]) for seat in range(self.seats))
            return replace(s, phase=REVEAL, chosen=chosen)
        faces = event.data["faces"]
        for face in faces.values():
            if face not in DECK:
                raise IllegalMove(f"{face!r} is not a card of high card")
        values = [int(faces[r]) for r in state.chosen]
        best = max(values)
        winners = tuple(seat for seat, v in enumerate(values) if v == best)
        return replace(s, phase=OVER, faces=FrozenDict({**state.faces, **faces}), winners=winners)

    def legal_moves(self, state: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        """Either of the seat's cards, while the choice is open."""
        if state.phase != CHOOSE or not 0 <= seat < self.seats:
            return []
        return [{"card": ref} for ref in state.hands[seat]]

    def check(self, history: Sequence[Event], faces: Mapping[Ref, Face]) -> list[Violation]:
        """No claims to check: a history the rules reject is reported against its event's seat."""
        state = self.initial_state()
        for index, event in enumerate(history):
            try:
                state = self.apply(state, event)
            except IllegalMove as exc:
                return [Violation(index, event.seat if event.seat is not None else -1, str(exc))]
        return []

    def result(self, state: State) -> dict[str, Any]:
        """``{"winners", "values"}``."""
        values = [int(state.faces[r]) if r in state.faces else 0 for r in state.chosen]
        return {"winners": list(state.winners), "values": values}

    def card_text(self, face: Face) -> str:
        """``"Card 5: worth 5."``."""
        return text.card_text(face)

    def describe(self, state: State, event: Event) -> str:
        """One public line per event."""
        return text.describe(self, state, event)

    def render(self, state: State, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
        """The table as text."""
        return text.render(self, state, seat, dict(own_faces))
