"""Suit cards: faces, suits, numbers and the deck for each player count.

A suit card's face is ``"<suit>-<number>"`` (``"fairy-5"``, ``"prince-12"``); the Frog is
``"pet-8"``. Princess faces are ``"princess-<key>"`` and Round card faces ``"round-<letter>"``
(see :mod:`engine.rebelprincess.princesses` and :mod:`engine.rebelprincess.rounds`).
"""

from __future__ import annotations

from engine.core import Face

FAIRY = "fairy"
PET = "pet"
PRINCE = "prince"
QUEEN = "queen"
SUITS: tuple[str, ...] = (FAIRY, PET, PRINCE, QUEEN)
"""The four suits, in canonical deck order."""

FROG: Face = "pet-8"
"""The Frog is the Pet 8 (rules §1): worth 5 proposals, never a Prince."""

RANKS: dict[int, tuple[int, ...]] = {
    3: tuple(range(2, 11)),
    4: tuple(range(1, 11)),
    5: tuple(range(1, 11)),
    6: tuple(range(1, 13)),
}
"""Ranks used in every suit by player count (rules §1.1: 3 players drop 1, 11, 12; 4-5 drop 11, 12)."""

HAND_SIZE: dict[int, int] = {3: 12, 4: 10, 5: 8, 6: 8}
"""Cards dealt to each player (the whole deck is always dealt)."""

SUIT_NAMES: dict[str, str] = {FAIRY: "Fairy", PET: "Pet", PRINCE: "Prince", QUEEN: "Queen"}
SUIT_PLURALS: dict[str, str] = {FAIRY: "Fairies", PET: "Pets", PRINCE: "Princes", QUEEN: "Queens"}
"""Each suit's name for several of its cards (``Fairies``)."""


def suit_faces(seats: int) -> tuple[Face, ...]:
    """Every suit card for ``seats`` players, suit by suit, low to high."""
    return tuple(f"{suit}-{rank}" for suit in SUITS for rank in RANKS[seats])


def is_suit_face(face: object) -> bool:
    """True for a well-formed suit-card face (any rank 1-12)."""
    if not isinstance(face, str) or "-" not in face:
        return False
    suit, _, number = face.partition("-")
    return suit in SUITS and number.isdigit() and 1 <= int(number) <= 12 and str(int(number)) == number


def suit_of(face: Face) -> str:
    """The suit of a suit-card face."""
    return face.partition("-")[0]


def number_of(face: Face) -> int:
    """The printed number of a suit-card face."""
    return int(face.partition("-")[2])


def is_prince(face: Face) -> bool:
    """True for any Prince (the Frog is a Pet, never a Prince)."""
    return face.startswith("prince-")


def hand_order(face: Face) -> tuple[int, int, int]:
    """Where a card goes when a hand is listed: suit cards by suit (Fairy, Pet, Prince, Queen),
    then number; any other card after them."""
    if is_suit_face(face):
        return (0, SUITS.index(suit_of(face)), number_of(face))
    return (1, 0, 0)


def card_name(face: Face) -> str:
    """``"Prince 3"``, ``"the Frog (Pet 8)"``."""
    if face == FROG:
        return "the Frog (Pet 8)"
    return f"{SUIT_NAMES[suit_of(face)]} {number_of(face)}"


def base_points(face: Face) -> int:
    """Proposals of a captured card under the basic rules: Prince 1, Frog 5, else 0."""
    if face == FROG:
        return 5
    return 1 if is_prince(face) else 0


def suit_card_text(face: Face) -> str:
    """Help text for a suit card."""
    if face == FROG:
        return "The Frog: Pet 8. Worth 5 proposals to whoever captures it. It is a Pet, not a Prince."
    if is_prince(face):
        return (
            f"{card_name(face)}: worth 1 proposal when captured. Princes may not be led until one has "
            "snuck in (played by a player void in the led suit), unless the leader holds only Princes."
        )
    return f"{card_name(face)}: worth no proposals under the basic rules."
