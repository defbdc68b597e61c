"""High card in words."""

from __future__ import annotations

from engine.core import COMMITTED, DEALT, MOVE, REVEALED, SHUFFLED, Event, Face, Game, seat_name

from .state import CHOOSE, DECK, State

RULES = (
    "High card: each player is dealt two cards and chooses one in secret; the choices are opened "
    "together, the chosen cards are revealed, and the highest card wins.",
)
"""The rules in short, for the help screen."""


def card_text(face: Face) -> str:
    """``"Five (5): worth 5."``."""
    if face not in DECK:
        raise ValueError(f"no card {face!r} in high card")
    return f"Card {face}: worth {face}."


def describe(game: Game, state: State, event: Event) -> str:
    """One public line for ``event`` applied to ``state``."""
    if event.kind == SHUFFLED:
        return f"the {len(DECK)} cards are shuffled"
    if event.kind == DEALT:
        return "each seat is dealt two cards"
    if event.kind == MOVE or (event.kind == COMMITTED and state.phase != CHOOSE):
        return f"{seat_name(event.seat or 0)} chooses a card"
    if event.kind == COMMITTED:
        return "everyone has chosen a card in secret"
    if event.kind == REVEALED:
        faces = event.data.get("faces", {})
        shown = ", ".join(f"{seat_name(s)} {faces.get(r, '?')}" for s, r in enumerate(state.chosen))
        try:
            after = game.apply(state, event)
        except ValueError as exc:
            return f"rejected reveal: {exc}"
        won = ", ".join(seat_name(s) for s in after.winners)
        verb = "wins" if len(after.winners) == 1 else "win"
        return f"the chosen cards are revealed: {shown} — {won} {verb}"
    return event.kind


def render(game: Game, state: State, seat: int | None, own_faces: dict[int, Face]) -> str:
    """The table as text."""
    lines = [f"High card, {game.seats} players — {state.phase}"]
    for s, hand in enumerate(state.hands):
        cards = " ".join(state.faces.get(r) or own_faces.get(r) or "?" for r in hand)
        lines.append(f"{seat_name(s)}: {cards}")
    if state.winners:
        lines.append("won by " + ", ".join(seat_name(s) for s in state.winners))
    return "\n".join(lines)
