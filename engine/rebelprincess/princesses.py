"""The 12 Deluxe Princess cards (rules §7.2): names, timing and power text.

Effects live in :mod:`engine.rebelprincess.game` (before-trick and after-trick windows) and
:mod:`engine.rebelprincess.tricks` (powers that change which card may be played or wins).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Face

SNOW_WHITE = "snow-white"
CINDERELLA = "cinderella"
POCAHONTAS = "pocahontas"
MULAN = "mulan"
PEA = "pea-princess"
MERMAID = "little-mermaid"
SLEEPING_BEAUTY = "sleeping-beauty"
ALICE = "alice"
SCHEHERAZADE = "scheherazade"
ICE = "ice-princess"
RAPUNZEL = "rapunzel"
THUMBELINA = "thumbelina"

BEFORE_TRICK = "before a trick"
ON_PLAY = "when she plays a card"
BEFORE_RESOLVE = "after the last card of a trick, before it is resolved"
AFTER_WIN = "right after she wins a trick"


@dataclass(frozen=True)
class PrincessInfo:
    """One Princess: ``key`` (face suffix), display name, power name, timing and effect text."""

    key: str
    name: str
    power: str
    timing: str
    text: str

    @property
    def face(self) -> Face:
        """The card's face, ``"princess-<key>"``."""
        return f"princess-{self.key}"


PRINCESSES: tuple[PrincessInfo, ...] = (
    PrincessInfo(
        SNOW_WHITE,
        "Snow White",
        "Seven Dwarfs",
        ON_PLAY,
        "A card numbered 7 or less that she plays counts as 0 to decide the trick (under a reversed "
        "order it is still the weakest). Its suit and printed number still count for follow-suit, "
        "play restrictions and scoring.",
    ),
    PrincessInfo(
        CINDERELLA,
        "Cinderella",
        "Everything Changes at Midnight",
        BEFORE_TRICK,
        "For this trick the rank order is reversed: the lowest card wins.",
    ),
    PrincessInfo(
        POCAHONTAS,
        "Pocahontas",
        "Wilderness Guide",
        BEFORE_TRICK,
        "Choose any player (herself included) to lead this trick.",
    ),
    PrincessInfo(
        MULAN,
        "Mulan",
        "Camouflage",
        BEFORE_RESOLVE,
        "Exchange a card she played in this trick for another card of the same suit from her hand; "
        "the trick is decided with the new card. The Frog can be neither swapped out nor in.",
    ),
    PrincessInfo(
        PEA,
        "The Pea Princess",
        "Five More Minutes!",
        BEFORE_TRICK,
        "In this trick every player must play a card higher than 5 if one is among their otherwise "
        "legal cards (following suit still comes first).",
    ),
    PrincessInfo(
        MERMAID,
        "The Little Mermaid",
        "Hypnotic Song",
        BEFORE_TRICK,
        "Name a suit: the leader must lead it if they can. Princes cannot be forced before they "
        "have snuck in, unless the leader holds only Princes.",
    ),
    PrincessInfo(
        SLEEPING_BEAUTY,
        "Sleeping Beauty",
        "The Spindle of Fate",
        BEFORE_TRICK,
        "Every player, her included, gives her one card face up. She keeps one and gives each other "
        "player one of the rest. Only while every player holds a card.",
    ),
    PrincessInfo(
        ALICE,
        "Alice",
        "Cheshire's Challenge",
        AFTER_WIN,
        "After winning a trick without the Frog, shuffle its cards and deal them back out, one to "
        "every player (two each in two-card tricks); the trick scores nothing. Princes in it stay "
        "snuck in.",
    ),
    PrincessInfo(
        SCHEHERAZADE,
        "Scheherazade",
        "Barter in the Bazaar",
        BEFORE_TRICK,
        "Take one random card from another player's hand and look at it; swap it for a card from "
        "her own hand, or give it back.",
    ),
    PrincessInfo(
        ICE,
        "The Ice Princess",
        "Freezing",
        BEFORE_TRICK,
        "Look at two random cards of one player (herself included); give one back and put the other "
        "face up in front of its owner. That card is the owner's next play, whatever the rules say. "
        "A frozen Prince makes Princes sneak in.",
    ),
    PrincessInfo(
        RAPUNZEL,
        "Rapunzel",
        "Royal Hair Climb",
        BEFORE_TRICK,
        "The leader must lead a Prince if they hold one, even if Princes have not snuck in (this "
        "lead does not make them sneak in).",
    ),
    PrincessInfo(
        THUMBELINA,
        "Thumbelina",
        "Ignorance is Bliss",
        ON_PLAY,
        "When not leading she may ignore follow-suit (and every other play restriction) and play any "
        "card that is not a Prince and not the Frog.",
    ),
)
"""Every Princess, in the rules file's order."""

BY_KEY: dict[str, PrincessInfo] = {p.key: p for p in PRINCESSES}
BY_FACE: dict[Face, PrincessInfo] = {p.face: p for p in PRINCESSES}
BEFORE_TRICK_POWERS = frozenset(p.key for p in PRINCESSES if p.timing == BEFORE_TRICK)
"""Princesses whose power is offered in the before-trick window."""
LEAD_DICTATING = frozenset({MERMAID, RAPUNZEL})
"""Powers that dictate the lead card; with an Ice Princess freeze of the leader, only one per trick."""


def princess_text(face: Face) -> str:
    """Help text for a Princess card."""
    info = BY_FACE[face]
    return f"{info.name} - {info.power} ({info.timing}, once per round): {info.text}"
