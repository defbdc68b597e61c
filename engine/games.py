"""The registry of games and their bots, by the names used on the command line."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from engine.core import Game

GAMES: dict[str, tuple[str, str]] = {
    "loveletter": ("engine.loveletter", "LoveLetter"),
    "regicide": ("engine.regicide", "Regicide"),
    "rebelprincess": ("engine.rebelprincess", "RebelPrincess"),
}
"""name -> (module, Game subclass)."""

BOTS: dict[str, str] = {
    "loveletter": "engine.loveletter.bots",
    "regicide": "engine.regicide.bots",
    "rebelprincess": "engine.rebelprincess.bots",
}
"""name -> module with ``make_bot(level: str, seed) -> Agent`` (levels: "random", "heuristic")."""

BOT_LEVELS = ("random", "heuristic")


def game_class(name: str) -> type[Game]:
    """The Game subclass called ``name``; ``ValueError`` names the known games otherwise."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}")
    module, cls = GAMES[name]
    return getattr(importlib.import_module(module), cls)


def make_game(name: str, seats: int, options: Mapping[str, Any] | None = None) -> Game:
    """Build a game by name."""
    return game_class(name)(seats, options)


def make_bot(name: str, level: str, seed: int | str) -> Any:
    """Build a bot for game ``name`` at ``level`` ("random" or "heuristic")."""
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of: {', '.join(BOT_LEVELS)}")
    game_class(name)
    return importlib.import_module(BOTS[name]).make_bot(level, seed)
