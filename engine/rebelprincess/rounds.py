"""The 26 Deluxe Round cards (rules §8.1): names, opening passes, text and round scoring.

The trick-winning and play-restriction twists are in :mod:`engine.rebelprincess.tricks`; the
round-structure twists (set-aside cards, gift piles, passing after tricks...) in
:mod:`engine.rebelprincess.game`. Pass directions: ``"L"`` = the next player clockwise (seat + 1),
``"R"`` = the previous one (seat - 1), per rules §4.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.core import Face

from .cards import FAIRY, FROG, PET, PRINCE, QUEEN, base_points, is_prince, number_of, suit_of

LEFT = "L"
RIGHT = "R"


@dataclass(frozen=True)
class RoundInfo:
    """One Round card: letter, name, opening pass ``((direction, count), ...)`` and rule text."""

    letter: str
    name: str
    passes: tuple[tuple[str, int], ...]
    text: str

    @property
    def face(self) -> Face:
        """The card's face, ``"round-<letter>"``."""
        return f"round-{self.letter}"

    @property
    def pass_count(self) -> int:
        """How many cards each player passes at the start of the round (0 allowed)."""
        return sum(count for _, count in self.passes)

    @property
    def pass_text(self) -> str:
        """``"pass 3 right"``, ``"pass 1 left and 1 right"``, ``"no pass"``."""
        if not self.passes:
            return "no pass"
        words = {LEFT: "left", RIGHT: "right"}
        return "pass " + " and ".join(f"{count} {words[d]}" for d, count in self.passes)


def _r(letter: str, name: str, passes: str, text: str) -> RoundInfo:
    parts = tuple((p[-1], int(p[:-1])) for p in passes.split("+")) if passes else ()
    return RoundInfo(letter, name, parts, text)


ROUNDS: tuple[RoundInfo, ...] = (
    _r("a", "Once Upon a Time...", "3R", "No extra rule."),
    _r(
        "b",
        "Late to the Ball",
        "1R",
        "After the pass, each player sets one card aside face down — it comes back as their card for the "
        "last trick.",
    ),
    _r(
        "c",
        "Magic Beans",
        "3L",
        "You may only play the highest or the lowest card (of your own hand) of the suit you must play — a "
        "leader or a void player plays the highest or lowest card of any one suit.",
    ),
    _r("d", "Three Times a Lady", "3R", "Every captured 3 is worth -3 proposals (a Prince 3 nets -2)."),
    _r("e", "Arranged Marriage", "1L+1R", "A player who wins no trick this round scores +5 proposals."),
    _r("f", "Royal Decree", "3R", "Queens are trumps: if any Queen is in the trick, the highest Queen wins."),
    _r(
        "g",
        "Always the Bridesmaid",
        "1R",
        "The second-highest card of the led suit wins — if the lead is the only card of its suit, the leader "
        "wins.",
    ),
    _r(
        "h",
        "Crystal Clear",
        "2R",
        "After the pass, each player secretly picks a suit they hold and lays every card of that suit from "
        "their hand face up — those cards stay in the hand and are played normally.",
    ),
    _r(
        "i",
        "Masquerade Ball",
        "1L",
        "Only the lead is face up — everyone else plays face down (still legally) and the cards are revealed "
        "together.",
    ),
    _r("j", "Pets' Revenge", "1L+1R", "Every captured Pet is +1 proposal, the Frog included (Frog = 6)."),
    _r(
        "k",
        "Musical Chairs",
        "1R",
        "After each trick but the last, everyone passes one card face down to the player on their right.",
    ),
    _r(
        "l",
        "Sisterhood",
        "2R",
        "The led-suit card whose number is farthest from the lead's wins. If no other card follows suit, the "
        "farthest of the others (any suit) wins: the leader never wins. Ties: higher number (lower under a "
        "reversed order) — same number: the earlier card.",
    ),
    _r(
        "m",
        "After Party",
        "1L",
        "Split your hand into two equal halves and set one aside face down — play the first half, then pick "
        "up the second.",
    ),
    _r(
        "n",
        "Late for a Very Important Date",
        "2R",
        "Stop when each player has three cards left: those three are added to their captured cards and "
        "scored.",
    ),
    _r(
        "o",
        "Wedding Gift",
        "1L+1R",
        "Before each trick, every player puts one card face down into a gift pile — the trick winner also "
        "takes the gift pile.",
    ),
    _r(
        "p",
        "Haggle with the Hag",
        "1L",
        "The winner of a trick may show one card from hand and swap it for any card of that trick other "
        "than their own.",
    ),
    _r(
        "q",
        "Blind Man's Bluff",
        "1R",
        "Once half the originally dealt cards have been played, each player hands their remaining cards to "
        "the player on their right, who plays them.",
    ),
    _r(
        "r",
        "Poisoned Apple",
        "2L",
        "A void card wins the trick — with several, the highest void card (equal values: the earlier card, "
        "an option) — with none, normal.",
    ),
    _r(
        "s",
        "Odds and Evens",
        "2R",
        "Follow the led suit and the lead's parity if you can (suit comes first) — if void in the suit, "
        "still match the parity if you can.",
    ),
    _r("t", "Single Fairy", "1L", "Every captured Fairy is -1 proposal (scores may go negative)."),
    _r(
        "u",
        "The Prince Always Rings Twice",
        "1L+1R",
        "Everyone plays two cards per trick (two laps, each following the rules — the led suit stays). The "
        "highest sum of led-suit cards wins — tie: the highest single led-suit card.",
    ),
    _r(
        "v",
        "Midnight Makeover",
        "3R",
        "Fairies are wild: a Fairy may always be played, even when holding the led suit, and a player "
        "holding a Fairy is not void. The highest card among the led suit and Fairies wins — tie: the later "
        "card.",
    ),
    _r(
        "w",
        "Pass the Bouquet",
        "3L",
        "Whenever a void player plays a suit not yet played in this trick, that suit becomes the suit "
        "everyone after must follow — the highest card of the last such suit wins.",
    ),
    _r(
        "x",
        "Upside Down",
        "2L",
        "Every 6 played in a trick reverses the rank order for that trick (two 6s cancel).",
    ),
    _r(
        "y",
        "Bathroom Break",
        "2R",
        "Princes are worth 2 each, except for the player(s) tied for the highest total before this round, "
        "whose Princes stay at 1. The Frog is unchanged.",
    ),
    _r(
        "z",
        "Dancing Queens",
        "2R",
        "Pair each captured Prince with a captured Queen: same number 3 proposals, different numbers 2, an "
        "unpaired Prince 1, an unpaired Queen 0 (same numbers are paired first). The Frog is unchanged.",
    ),
)
"""Every Deluxe Round card, a to z."""

BY_LETTER: dict[str, RoundInfo] = {r.letter: r for r in ROUNDS}
BY_FACE: dict[Face, RoundInfo] = {r.face: r for r in ROUNDS}
LETTERS: str = "".join(r.letter for r in ROUNDS)
FIRST_GAME: str = "abcde"
"""The Deluxe first-game set (project seed)."""


def round_text(face: Face) -> str:
    """Help text for a Round card."""
    info = BY_FACE[face]
    return f"Round card {info.letter}: {info.name} ({info.pass_text}). {info.text}"


def dancing_queens(faces: Sequence[Face]) -> int:
    """Dancing Queens value of a pile: same-number Prince/Queen pairs 3, other pairs 2, lone Prince 1."""
    princes = sorted(number_of(f) for f in faces if is_prince(f))
    queens = sorted(number_of(f) for f in faces if suit_of(f) == QUEEN)
    same = set(princes) & set(queens)
    rest_p = [n for n in princes if n not in same]
    rest_q = [n for n in queens if n not in same]
    mixed = min(len(rest_p), len(rest_q))
    return 3 * len(same) + 2 * mixed + (len(rest_p) - mixed)


def card_value(face: Face, letter: str, doubled_princes: bool = False) -> int:
    """A single captured card's proposals under Round card ``letter`` (not for Dancing Queens).

    ``doubled_princes``: Bathroom Break applies to this player (not among the highest totals).
    """
    value = base_points(face)
    if letter == "d" and number_of(face) == 3:
        value -= 3
    elif letter == "j" and suit_of(face) == PET:
        value += 1
    elif letter == "t" and suit_of(face) == FAIRY:
        value -= 1
    elif letter == "y" and doubled_princes and suit_of(face) == PRINCE:
        value = 2
    return value


def pile_score(faces: Sequence[Face], letter: str, tricks_won: int, doubled_princes: bool) -> int:
    """A player's round score from their captured pile, before Rebel of the Ball."""
    if letter == "z":
        score = dancing_queens(faces) + sum(5 for f in faces if f == FROG)
    else:
        score = sum(card_value(f, letter, doubled_princes) for f in faces)
    if letter == "e" and tricks_won == 0:
        score += 5
    return score
