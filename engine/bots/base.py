"""The bot every game gets for free: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import Face, Game, Ref, Seat


def legal_moves_or_fail(
    game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
) -> list[dict[str, Any]]:
    """The seat's legal moves; a bot asked to decide with none is a bug, said loudly."""
    moves = game.legal_moves(state, seat, own_faces)
    if not moves:
        raise RuntimeError(f"{game.name}: seat {seat} has no legal move for {prompt!r}")
    return moves


class RandomBot:
    """Chooses uniformly among the legal moves, with its own seeded generator.

    Its choices depend on its hidden cards (they decide which moves are legal), so whoever knows the
    seed can replay them and read its hand: a bot at a real table must get a secret seed
    (``fairdeck.commands.bot_seed``); fixed seeds are for simulations and tests."""

    level = "random"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self.rng = random.Random(seed)

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        return self.rng.choice(legal_moves_or_fail(game, state, seat, own_faces, prompt))
