"""High card: a test-only game, defined entirely here and plugged in through the registry.

It shows that a game is one package: nothing outside this folder names it. Tests register it by
importing this package (in-process), or have ``fairdeck`` processes import it through the plug-in
hook ``FAIRDECK_EXTRA_GAMES=tests.highcard`` (see docs/adding-a-game.md).

2-4 players: the eight cards are shuffled, each seat is dealt two in private, everyone chooses one
in secret (a simultaneous committed choice), the chosen cards are revealed, and the highest wins.
"""

from engine.games import register

from .bots import make_bot
from .game import HighCard
from .present import HighCardPresentation

GAME = HighCard

register(HighCard.name, HighCard, bots=make_bot, presentation=HighCardPresentation)

__all__ = ["GAME", "HighCard", "make_bot"]
