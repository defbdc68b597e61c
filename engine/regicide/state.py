"""Regicide's cards, phases and public state: the data its rules, words, presentation and bots share
(with the small pure helpers on faces and plays)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import (
    Face,
    IllegalMove,
    Knowledge,
    Record,
    Ref,
    Seat,
    Violation,
    evolve,
)

# ---------------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------------

SUITS: tuple[str, ...] = ("H", "D", "C", "S")
"""Suit letters in canonical order: Hearts, Diamonds, Clubs, Spades."""
SUIT_NAMES: dict[str, str] = {"H": "Hearts", "D": "Diamonds", "C": "Clubs", "S": "Spades"}
"""Suit letter -> English name."""
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Ranks in canonical order."""
JESTERS: tuple[Face, ...] = ("X1", "X2")
"""The two Jesters (jokers)."""
DECK: tuple[Face, ...] = tuple(r + s for s in SUITS for r in RANKS) + JESTERS
"""The canonical 54-card deck: ref ``i`` starts as ``DECK[i]``."""
ROYAL_RANKS: tuple[str, ...] = ("J", "Q", "K")
"""Enemy ranks, in the order they leave the Castle."""
ENEMY_HEALTH: dict[str, int] = {"J": 20, "Q": 30, "K": 40}
"""Enemy health by rank."""
ENEMY_ATTACK: dict[str, int] = {"J": 10, "Q": 15, "K": 20}
"""Enemy attack by rank."""
HAND_LIMIT: dict[int, int] = {1: 8, 2: 7, 3: 6, 4: 5}
"""Maximum hand size by seat count."""
TAVERN_JESTERS: dict[int, int] = {1: 0, 2: 0, 3: 1, 4: 2}
"""How many Jesters are shuffled into the Tavern, by seat count."""

_INDEX: dict[Face, Ref] = {face: i for i, face in enumerate(DECK)}
_NUMBER_RANKS = RANKS[1:10]


def is_jester(face: Face) -> bool:
    """True for ``"X1"`` / ``"X2"``."""
    return face in JESTERS


def rank_of(face: Face) -> str:
    """``"10H"`` -> ``"10"``; a Jester's rank is ``"X"``."""
    return "X" if is_jester(face) else face[:-1]


def suit_of(face: Face) -> str | None:
    """``"10H"`` -> ``"H"``; a Jester has no suit (``None``)."""
    return None if is_jester(face) else face[-1]


def value_of(face: Face) -> int:
    """Attack value when played and value when discarded: Ace 1, J/Q/K 10/15/20, Jester 0."""
    rank = rank_of(face)
    if rank == "X":
        return 0
    if rank == "A":
        return 1
    if rank in ROYAL_RANKS:
        return {"J": 10, "Q": 15, "K": 20}[rank]
    return int(rank)


def hand_order(face: Face) -> tuple[int, int]:
    """Where a card goes when a hand is listed: by rank (Ace low, 2-10, J, Q, K), then suit
    (Hearts, Diamonds, Clubs, Spades); Jesters last."""
    if is_jester(face):
        return (len(RANKS), 0)
    return (RANKS.index(rank_of(face)), SUITS.index(face[-1]))


def card_name(face: Face) -> str:
    """``"QS"`` -> ``"Queen of Spades"``; ``"X1"`` -> ``"Jester"``."""
    if is_jester(face):
        return "Jester"
    names = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}
    rank = rank_of(face)
    return f"{names.get(rank, rank)} of {SUIT_NAMES[face[-1]]}"


def _refs_of(faces: Iterable[Face]) -> tuple[Ref, ...]:
    return tuple(_INDEX[f] for f in faces)


JACK_REFS = _refs_of("J" + s for s in SUITS)
"""Canonical refs of the four Jacks (the first setup ``Shuffle``)."""
QUEEN_REFS = _refs_of("Q" + s for s in SUITS)
"""Canonical refs of the four Queens (the second setup ``Shuffle``)."""
KING_REFS = _refs_of("K" + s for s in SUITS)
"""Canonical refs of the four Kings (the third setup ``Shuffle``)."""
_TAVERN_BASE = tuple(r + s for s in SUITS for r in RANKS[:10])


def tavern_faces(seats: int) -> tuple[Face, ...]:
    """The faces shuffled into the Tavern for ``seats`` players (numbers, Aces, Jesters)."""
    return _TAVERN_BASE + JESTERS[: TAVERN_JESTERS[seats]]


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------

# Phases (``State.phase``); the decisions are PLAY, DISCARD and NEXT (they double as the Decide
# prompts), everything else waits for a table operation, or is the end (OVER).
SHUFFLE_JACKS = "shuffle_jacks"
SHUFFLE_QUEENS = "shuffle_queens"
SHUFFLE_KINGS = "shuffle_kings"
SETUP_REVEAL = "setup_reveal"
SHUFFLE_TAVERN = "shuffle_tavern"
DEAL_OPENING = "deal_opening"
PLAY = "play"
REVEAL_PLAY = "reveal_play"
HEAL_SHUFFLE = "heal_shuffle"
HEAL_REVEAL = "heal_reveal"
DRAW = "draw"
DISCARD = "discard"
REVEAL_DISCARD = "reveal_discard"
NEXT = "next"
FLIP_REVEAL = "flip_reveal"
REFILL = "refill"
REVEAL_ENEMY = "reveal_enemy"
DISCLOSE = "disclose"
OVER = "over"

_REVEAL_PHASES = (SETUP_REVEAL, REVEAL_ENEMY, REVEAL_PLAY, HEAL_REVEAL, REVEAL_DISCARD, FLIP_REVEAL)
_DEAL_PHASES = (DEAL_OPENING, DRAW, REFILL)


@dataclass(frozen=True)
class Play(Record):
    """One Step 1 play against the current enemy: who played it and the (claimed) faces."""

    seat: Seat
    cards: tuple[tuple[Ref, Face], ...]

    @property
    def faces(self) -> tuple[Face, ...]:
        """The faces of the play."""
        return tuple(face for _, face in self.cards)

    @property
    def refs(self) -> tuple[Ref, ...]:
        """The refs of the play."""
        return tuple(ref for ref, _ in self.cards)

    @property
    def attack(self) -> int:
        """X, the attack value of the whole play."""
        return sum(value_of(face) for face in self.faces)

    @property
    def is_jester(self) -> bool:
        """True for a Jester played alone."""
        return len(self.cards) == 1 and is_jester(self.cards[0][1])


@dataclass(frozen=True)
class State(Record):
    """The public state of a Regicide game (immutable; msgpack round-trip exact).

    ``seat`` is whose turn it is (or who decides). ``claim`` holds cards claimed by the move at
    ``claim_index`` and awaiting their ``Reveal``; ``reveal`` / ``deals`` hold the refs of the
    pending Reveal-or-Disclose / Deal request; ``heal_faces`` the faces of a discard pile being
    healed; ``window`` where a solo Jester refill returns to (``"play"`` or ``"discard"``);
    ``knowledge`` the knowledge model (:class:`engine.core.Knowledge`).
    """

    phase: str
    seat: Seat
    castle: tuple[Ref, ...]
    enemy: Ref | None
    damage: int
    immunity_cancelled: bool
    plays: tuple[Play, ...]
    tavern: tuple[Ref, ...]
    discard: tuple[Ref, ...]
    hands: tuple[tuple[Ref, ...], ...]
    public: Mapping[Ref, Face]
    last_yield: tuple[bool, ...]
    jesters: tuple[Ref, ...]
    jesters_used: tuple[Ref, ...]
    enemies_seen: tuple[Face, ...]
    defeated: int
    next_ref: Ref
    claim: tuple[tuple[Ref, Face], ...]
    claim_index: int
    reveal: tuple[Ref, ...]
    deals: tuple[tuple[Ref, Seat], ...]
    heal_faces: tuple[Face, ...]
    window: str
    outcome: str | None
    end_reason: str
    cannot_pay_index: int
    events: int
    fault: Violation | None
    knowledge: Knowledge = field(default_factory=Knowledge)


def _replace(state: State, **changes: Any) -> State:
    return evolve(state, **changes)


def _set_hand(state: State, seat: Seat, hand: tuple[Ref, ...]) -> tuple[tuple[Ref, ...], ...]:
    return state.hands[:seat] + (hand,) + state.hands[seat + 1 :]


def _parse_cards(raw: Any, what: str) -> list[tuple[Ref, Face]]:
    """``[[ref, face], ...]`` from a move, or :class:`IllegalMove` if malformed."""
    if not isinstance(raw, list | tuple):
        raise IllegalMove(f"'{what}' must be a list of [ref, face] pairs")
    cards: list[tuple[Ref, Face]] = []
    for item in raw:
        if (
            not isinstance(item, list | tuple)
            or len(item) != 2
            or not isinstance(item[0], int)
            or isinstance(item[0], bool)
            or not isinstance(item[1], str)
        ):
            raise IllegalMove(f"each entry of '{what}' must be a [ref, face] pair")
        cards.append((item[0], item[1]))
    if len({ref for ref, _ in cards}) != len(cards):
        raise IllegalMove("the same card is named twice")
    if len({face for _, face in cards}) != len(cards):
        raise IllegalMove("the same face is claimed twice")
    return cards


def play_shape_error(faces: Sequence[Face], multiplayer: bool) -> str | None:
    """Why ``faces`` is not a legal Step 1 play (single, Ace pair, combo, Jester), or ``None``."""
    if not faces:
        return "a play needs at least one card"
    if any(is_jester(f) for f in faces):
        if not multiplayer:
            return "there is no Jester to play in a 1-2 player game"
        return None if len(faces) == 1 else "a Jester must be played alone"
    if len(faces) == 1:
        return None
    ranks = [rank_of(f) for f in faces]
    if "A" in ranks:
        if len(faces) == 2:
            return None
        return "an Ace (Animal Companion) pairs with exactly one other card, never within a combo"
    if any(r in ROYAL_RANKS for r in ranks):
        return "a royal card can only be played alone or with an Ace"
    if len(set(ranks)) != 1:
        return "a combo must be cards of the same rank"
    total = sum(int(r) for r in ranks)
    if total > 10:
        return f"a combo may total at most 10, not {total}"
    return None


def discard_error(values: Sequence[int], attack: int, allow_overdiscard: bool) -> str | None:
    """Why a discard of cards worth ``values`` does not absorb ``attack`` (OQ-4), or ``None``."""
    total = sum(values)
    if attack <= 0:  # OQ-4: nothing to absorb, nothing to discard (overdiscard or not)
        return None if not values else "too many cards: the attack is 0, so there is nothing to absorb"
    if total < attack:
        return f"the discard is worth {total}, less than the attack of {attack}"
    if allow_overdiscard or not values:
        return None
    if total - max(values) >= attack:
        return (
            f"too many cards: the discard would already cover the attack of {attack} without its "
            "highest card (discarding more than needed is off in this game)"
        )
    return None
