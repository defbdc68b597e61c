"""Love Letter (2-6 players): one package holding the whole game.

``game`` the rules (:class:`LoveLetter`), ``state`` its cards, phases and public state, ``options``
its options, ``text`` its words, ``present`` how the programs show it, ``bots`` its bots. Importing
the package registers the game (:func:`engine.games.register`).
"""

from engine.games import register

from .bots import make_bot
from .game import LoveLetter
from .present import LoveLetterPresentation
from .state import *  # noqa: F403  (cards, phases and State, as before the package split)

GAME = LoveLetter

register(LoveLetter.name, LoveLetter, bots=make_bot, presentation=LoveLetterPresentation)
