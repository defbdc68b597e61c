"""High card's bots: ``random`` (the core's), ``heuristic`` (the higher of its two cards)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Face, Game, RandomBot, Ref, Seat, legal_moves_or_fail


class HighestBot:
    """Chooses its highest card."""

    level = "heuristic"

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """The legal move whose card is worth most."""
        moves = legal_moves_or_fail(game, state, seat, own_faces, prompt)
        return max(moves, key=lambda m: int(own_faces.get(m["card"], "0")))


def make_bot(level: str, seed: Any) -> RandomBot | HighestBot:
    """A bot at ``level``."""
    return HighestBot() if level == "heuristic" else RandomBot(seed)
