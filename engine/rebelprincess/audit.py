"""``check``'s per-event audit: hidden-information rules judged once every face is known.

Public validation in ``apply`` gives a claim the benefit of the doubt whenever a card it depends on
is still hidden. Here, with the faces of every card, each claim is judged again: a play must be an
honest option for the whole hand (follow-suit, void claims, lead restrictions, Magic Beans, Odds and
Evens, the Pea Princess...), every claimed face must be the card's face, and Crystal Clear players
must have laid out exactly their cards of the chosen suit. Reveals and disclosures must agree with
the faces given (seat -1: the dealing layer, not a player, is at fault).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import (
    COMMITTED,
    DISCLOSED,
    MOVE,
    REVEALED,
    Event,
    Face,
    Game,
    IllegalMove,
    Ref,
    Seat,
    Violation,
    seat_name,
)

from .cards import card_name, suit_of
from .state import State
from .tricks import follows


def _face_claim(index: int, seat: Seat, ref: Any, claimed: Any, faces: Mapping[Ref, Face]) -> list[Violation]:
    actual = faces.get(ref) if isinstance(ref, int) else None
    if actual is not None and actual != claimed:
        return [
            Violation(index, seat, f"{seat_name(seat)} claimed ref {ref} was {claimed} but it is {actual}")
        ]
    return []


def _audit_play(
    game: Game, state: State, seat: Seat, data: Any, faces: Mapping[Ref, Face], index: int
) -> list[Violation]:
    try:
        ref, face, power, void = game._normalise_play(data)
    except IllegalMove:
        return []  # apply rejects it and check reports that
    wrong = _face_claim(index, seat, ref, face, faces)
    if wrong:
        return wrong
    hand = [(r, faces.get(r)) for r in state.hands[seat]]
    if ref not in state.hands[seat] or any(f is None for _, f in hand):
        return []
    ctx = game.play_context(state, seat)
    if void is None:
        void = not ctx.lead and not follows(face, ctx)
    problem = game.play_problem(state, seat, (ref, face, power, void), hand, complete=True)  # type: ignore[arg-type]
    if problem:
        return [Violation(index, seat, f"{seat_name(seat)} played {card_name(face)}: {problem}")]
    return []


def _audit_crystal(
    state: State, seat: Seat, data: Any, faces: Mapping[Ref, Face], index: int
) -> list[Violation]:
    if not isinstance(data, Mapping) or not isinstance(data.get("cards"), list | tuple):
        return []
    suit, listed = data.get("suit"), set(data["cards"])
    truth = {r for r in state.hands[seat] if r in faces and suit_of(faces[r]) == suit}
    if any(r not in faces for r in state.hands[seat]) or listed == truth:
        return []
    missing = sorted(truth - listed)
    if missing:
        return [
            Violation(
                index, seat, f"{seat_name(seat)} hid {card_name(faces[missing[0]])} under Crystal Clear"
            )
        ]
    return [Violation(index, seat, f"{seat_name(seat)} laid out a card that is not a {suit} card")]


def audit_event(
    game: Game, state: State, event: Event, faces: Mapping[Ref, Face], index: int
) -> list[Violation]:
    """Violations committed by ``event`` (applied to ``state``), judged with full ``faces``."""
    step = state.step
    data = event.data
    if event.kind in (REVEALED, DISCLOSED) and isinstance(data.get("faces"), Mapping):
        # the dealing layer's public faces must agree with the faces the audit was given
        for ref, face in data["faces"].items():
            if ref in faces and faces[ref] != face:
                return [
                    Violation(index, -1, f"ref {ref} was revealed as {face} but its face is {faces[ref]}")
                ]
        return []
    if event.kind == MOVE and step == "play":
        return _audit_play(game, state, state.decider, data, faces, index)
    if event.kind == COMMITTED and isinstance(data.get("choices"), Mapping):
        choices = data["choices"]
        found: list[Violation] = []
        for seat in state.commit_seats:
            if seat not in choices:
                continue
            if step == "mask":
                found += _audit_play(game, state, seat, choices[seat], faces, index)
            elif step == "crystal":
                found += _audit_crystal(state, seat, choices[seat], faces, index)
        return found
    if event.kind == MOVE and step == "mulan" and isinstance(data, Mapping) and data.get("swap") is not None:
        return _face_claim(index, state.decider, data.get("card"), data.get("face"), faces)
    if event.kind == MOVE and step == "haggle" and isinstance(data, Mapping) and data.get("give") is not None:
        return _face_claim(index, state.decider, data.get("give"), data.get("face"), faces)
    return []
