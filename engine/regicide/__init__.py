"""Regicide: the game's rules, words, console presentation and bots (see docs/adding-a-game.md)."""

from .game import *  # noqa: F403  (the module's public names, as before the package split)
from .game import Regicide

__all__ = ["Regicide"]
