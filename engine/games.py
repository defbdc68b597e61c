"""The registry of games: the only place that lists them, by the names used on the command line.

A game is one package (``engine/<game>/``, see docs/adding-a-game.md) whose ``__init__`` calls
:func:`register` with its :class:`~engine.core.Game` subclass, its bots and its presentation hooks.
Built-in games are listed in :data:`GAMES` and imported when first used. Games from elsewhere are
plug-ins: every module named in the environment variable ``FAIRDECK_EXTRA_GAMES`` (comma-separated,
e.g. ``FAIRDECK_EXTRA_GAMES=tests.highcard``) is imported when this module is, and registers its
games the same way; peers that play together must all have the same plug-ins.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import Game, RandomBot
from engine.present import Presentation

GAMES: dict[str, str] = {
    "loveletter": "engine.loveletter",
    "regicide": "engine.regicide",
    "rebelprincess": "engine.rebelprincess",
}
"""name -> the module that registers the game (built-ins above; plug-ins are added by register)."""

BOT_LEVELS = ("random", "heuristic", "hard")
"""Bot strengths: uniform legal moves, the game's rule-of-thumb bot, and determinized search over it
(``engine.search``); a game without its own bots plays random legal moves at every level."""

EXTRA_GAMES_VARIABLE = "FAIRDECK_EXTRA_GAMES"
"""The environment variable naming plug-in modules that register more games."""

BotFactory = Callable[[str, Any], Any]
"""``make_bot(level, seed)``: an agent with ``choose(game, state, seat, own_faces, prompt)``."""


def random_bots(level: str, seed: Any) -> RandomBot:
    """The bots of a game that has none of its own: a random legal move at every level."""
    return RandomBot(seed)


@dataclass(frozen=True)
class Registration:
    """One game as registered: its class, how to make its bots, its presentation hooks."""

    name: str
    game: type[Game]
    bots: BotFactory = random_bots
    presentation: Callable[[Game], Presentation] = Presentation


_REGISTERED: dict[str, Registration] = {}


def register(
    name: str,
    factory: type[Game],
    *,
    bots: BotFactory | None = None,
    presentation: Callable[[Game], Presentation] | None = None,
) -> None:
    """Make game ``name`` known: ``factory`` is its Game subclass (``factory(seats, options)``);
    ``bots(level, seed)`` makes its bots (default: random legal moves); ``presentation(game)`` its
    :class:`~engine.present.Presentation` (default: the generic one). Registering a name again
    replaces it."""
    if not name or name != getattr(factory, "name", None):
        raise ValueError(f"game {name!r} must be registered under its class's name {factory.name!r}")
    _REGISTERED[name] = Registration(name, factory, bots or random_bots, presentation or Presentation)
    GAMES.setdefault(name, factory.__module__)


def registration(name: str) -> Registration:
    """The registration of game ``name`` (importing its module on first use); ``ValueError`` names
    the known games otherwise."""
    if name not in _REGISTERED:
        if name not in GAMES:
            raise ValueError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}")
        importlib.import_module(GAMES[name])
        if name not in _REGISTERED:
            raise ValueError(f"module {GAMES[name]} did not register game {name!r}")
    return _REGISTERED[name]


def game_class(name: str) -> type[Game]:
    """The Game subclass called ``name``; ``ValueError`` names the known games otherwise."""
    return registration(name).game


def make_game(name: str, seats: int, options: Mapping[str, Any] | None = None) -> Game:
    """Build a game by name."""
    return game_class(name)(seats, options)


def make_bot(name: str, level: str, seed: int | str | bytes) -> Any:
    """Build a bot for game ``name`` at ``level`` ("random", "heuristic" or "hard")."""
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of: {', '.join(BOT_LEVELS)}")
    return registration(name).bots(level, seed)


def default_seats(name: str) -> int:
    """How many seats a table of ``name`` has unless told otherwise."""
    return game_class(name).default_seats


def presentation_of(game: Game) -> Presentation:
    """The presentation hooks of ``game`` (generic ones for a game that is not registered)."""
    try:
        entry = registration(game.name)
    except (ValueError, ImportError):
        return Presentation(game)
    if not isinstance(game, entry.game):
        return Presentation(game)
    return entry.presentation(game)


def _load_extra_games() -> None:
    """Import the plug-in modules named in ``FAIRDECK_EXTRA_GAMES``; each registers its games."""
    for module in os.environ.get(EXTRA_GAMES_VARIABLE, "").split(","):
        if module.strip():
            importlib.import_module(module.strip())


_load_extra_games()
