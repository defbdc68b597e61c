"""Love Letter's cards, phases and public state: the data its rules, words, presentation and bots
share (no behaviour beyond small helpers)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core import (
    Face,
    FrozenDict,
    Knowledge,
    Record,
    Ref,
    Seat,
    Violation,
)

# ---------------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------------

CLASSIC = "classic"
EDITION_2019 = "2019"
EDITIONS = (CLASSIC, EDITION_2019)
"""The values of the ``edition`` option."""

_COMPOSITION: dict[str, tuple[tuple[Face, int, int], ...]] = {
    # (face, value, copies), in value order
    CLASSIC: (
        ("guard", 1, 5),
        ("priest", 2, 2),
        ("baron", 3, 2),
        ("handmaid", 4, 2),
        ("prince", 5, 2),
        ("king", 6, 1),
        ("countess", 7, 1),
        ("princess", 8, 1),
    ),
    EDITION_2019: (
        ("spy", 0, 2),
        ("guard", 1, 6),
        ("priest", 2, 2),
        ("baron", 3, 2),
        ("handmaid", 4, 2),
        ("prince", 5, 2),
        ("chancellor", 6, 2),
        ("king", 7, 1),
        ("countess", 8, 1),
        ("princess", 9, 1),
    ),
}

_TOKENS_TO_WIN: dict[str, dict[int, int]] = {
    CLASSIC: {2: 7, 3: 5, 4: 4},
    EDITION_2019: {2: 6, 3: 5, 4: 4, 5: 3, 6: 3},
}

NAMES: dict[Face, str] = {
    "spy": "Spy",
    "guard": "Guard",
    "priest": "Priest",
    "baron": "Baron",
    "handmaid": "Handmaid",
    "prince": "Prince",
    "chancellor": "Chancellor",
    "king": "King",
    "countess": "Countess",
    "princess": "Princess",
}
"""Display name of every face."""

_EFFECTS: dict[Face, str] = {
    "spy": "No effect when played. At the end of the round, if you are the only player still in "
    "the round with a Spy in your discard row, you gain an extra token.",
    "guard": "Choose another player and name a card other than the Guard. If they hold it, they are "
    "out of the round.",
    "priest": "Choose another player and look at their hand in private.",
    "baron": "Choose another player and compare hands in private; the lower card is out of the round "
    "(a tie does nothing).",
    "handmaid": "Until the start of your next turn, other players' cards cannot target you.",
    "prince": "Choose any player, yourself included: they discard their hand without its effect "
    "(the Princess knocks them out) and draw a new card (the set-aside card if the pile is empty).",
    "chancellor": "Draw 2 cards, keep 1 of the cards in your hand and put the others under the pile "
    "in any order.",
    "king": "Choose another player and swap hands with them.",
    "countess": "No effect, but you must play her if your other card is the King or a Prince.",
    "princess": "If you discard her for any reason, you are out of the round.",
}

_NEEDS_OTHER = frozenset({"guard", "priest", "baron", "king"})
"""Cards that target another seat; with none targetable they are played with no effect (EC-2)."""
_COUNTESS_FORCERS = frozenset({"king", "prince"})

# ---------------------------------------------------------------------------------------------
# Phases: what the state is waiting for
# ---------------------------------------------------------------------------------------------

FIRST_PLAYER = "first_player"
SHUFFLE = "shuffle"
FACEUP = "faceup"
OPENING_DEAL = "deal"
DRAW = "draw"
PLAY = "play"
REVEAL_PLAY = "reveal_play"
GUARD_ANSWER = "guard_answer"
GUARD_REVEAL = "guard_reveal"
PRIEST_SHOW = "priest_show"
BARON_SHOW = "baron_show"
BARON_RESULT = "baron_result"
BARON_REVEAL = "baron_reveal"
PRINCE_REVEAL = "prince_reveal"
PRINCE_DEAL = "prince_deal"
KING_SHOW = "king_show"
CHANCELLOR_DEAL = "chancellor_deal"
CHANCELLOR_HIDE = "chancellor_hide"
CHANCELLOR_SHOW = "chancellor_show"
CHANCELLOR = "chancellor"
KNOCKOUT_REVEAL = "knockout_reveal"
SHOWDOWN = "showdown"
DISCLOSE = "disclose"
OVER = "over"
_BETWEEN_ROUNDS = frozenset({FIRST_PLAYER, SHUFFLE, DISCLOSE, OVER})


@dataclass(frozen=True)
class Play(Record):
    """The card being resolved: who played which ref claiming which face, on whom.

    ``index`` is the play move's event index; ``claim`` that of the follow-up claim (the Guard
    answer or the Baron result), ``-1`` before it; ``loser`` the Baron loser claimed.
    """

    seat: Seat
    card: Ref
    face: Face
    target: Seat | None = None
    guess: Face | None = None
    index: int = 0
    claim: int = -1
    loser: Seat | None = None


@dataclass(frozen=True)
class State(Record):
    """Everything public about a Love Letter game.

    Locations of this round's live refs: ``set_aside`` (face down, or ``None`` once a Prince gave
    it out), ``faceup`` (2-player removal), ``pile`` (top first), ``hands`` and ``discards`` (per
    seat, in play order). ``faces`` holds the faces made public this round. ``starter`` is the seat
    that starts the current round (the next one once a round has ended); ``turn`` the seat whose
    turn it is. ``last_winners`` got a token for the last finished round, ``last_top`` were tied
    for the top of it (its co-winners), ``last_spy`` got the Spy bonus. ``winners`` are the game's
    winners once it is over. ``knowledge`` is the knowledge model (:class:`engine.core.Knowledge`);
    ``buried`` the refs re-masked this round (disclosed with the rest at its end, for the audit).
    """

    events: int = 0
    fault: Violation | None = None
    phase: str = FIRST_PLAYER
    tokens: tuple[int, ...] = ()
    round: int = 0
    starter: Seat | None = None
    turn: Seat | None = None
    next_ref: int = 0
    set_aside: Ref | None = None
    faceup: tuple[Ref, ...] = ()
    pile: tuple[Ref, ...] = ()
    hands: tuple[tuple[Ref, ...], ...] = ()
    discards: tuple[tuple[Ref, ...], ...] = ()
    out: tuple[bool, ...] = ()
    protected: tuple[bool, ...] = ()
    faces: Mapping[Ref, Face] = field(default_factory=FrozenDict)
    play: Play | None = None
    last_winners: tuple[Seat, ...] = ()
    last_top: tuple[Seat, ...] = ()
    last_spy: Seat | None = None
    winners: tuple[Seat, ...] = ()
    knowledge: Knowledge = field(default_factory=Knowledge)
    buried: tuple[Ref, ...] = ()


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1 :]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _the(face: Face) -> str:
    return f"the {NAMES.get(face, repr(face))}"
