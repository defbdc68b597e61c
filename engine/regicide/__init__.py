"""Regicide (1-4 players, co-operative): one package holding the whole game.

``game`` the rules (:class:`Regicide`), ``state`` its cards, phases and public state, ``options``
its options, ``text`` its words, ``present`` how the programs show it, ``bots`` its bots. Importing
the package registers the game (:func:`engine.games.register`).
"""

from engine.games import register

from .bots import make_bot
from .game import Regicide
from .present import RegicidePresentation
from .state import *  # noqa: F403  (cards, phases, State and helpers, as before the package split)

GAME = Regicide

register(Regicide.name, Regicide, bots=make_bot, presentation=RegicidePresentation)
