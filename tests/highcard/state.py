"""High card's cards, phases and public state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.core import Face, FrozenDict, Record, Ref, Seat, Violation

DECK: tuple[Face, ...] = tuple(str(value) for value in range(1, 9))
"""Eight cards worth 1 to 8; a face is its value."""
HAND = 2
"""Cards dealt to each seat."""

SHUFFLE, DEAL, CHOOSE, REVEAL, OVER = "shuffle", "deal", "choose", "reveal", "over"
"""The phases, in order."""


@dataclass(frozen=True)
class State(Record):
    """Everything public: the phase, the live refs, the hands, the chosen refs once the choices are
    opened, the revealed faces and the winners."""

    events: int = 0
    fault: Violation | None = None
    phase: str = SHUFFLE
    next_ref: int = len(DECK)
    pile: tuple[Ref, ...] = ()
    hands: tuple[tuple[Ref, ...], ...] = ()
    chosen: tuple[Ref, ...] = ()
    faces: Mapping[Ref, Face] = field(default_factory=FrozenDict)
    winners: tuple[Seat, ...] = ()
