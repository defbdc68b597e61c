"""Love Letter (classic 16-card edition, and the 2019 0-9 edition) as a pure state machine.

The rules are ``shared/rules/love-letter.md``; edge cases EC-n are covered by
``tests/engine/test_loveletter_rules.py``. This module only speaks ``engine.core``'s vocabulary.

Flow (the contract with the dealing layer)
------------------------------------------
Refs ``0..len(deck)-1`` are the canonical public deck. Every round starts with ``Shuffle`` of all the
live refs; the fresh pile is ``next_ref .. next_ref+k-1`` (top first). Its top card is set aside
face down (a location, no request). With 2 players (and ``two_player_faceup_removal``) the next 3
are ``Reveal``-ed and removed. One ``Deal`` gives every seat one card, from the round's starter
clockwise. A turn is ``Deal`` (the draw) then ``Decide(seat, "play")`` with the move
``{"card": ref, "face": f, "target": seat|None, "guess": face|None}``, then ``Reveal`` of the played
card (a different face is a disproved claim: ``fault`` is set and the game is over), then the
card's effect:

- Guard: ``Decide(target, "guard_answer")`` ``{"hit": bool}``; a hit is followed by ``Reveal`` of
  the target's card (a face other than the guess disproves the answer).
- Priest: ``Show`` of the target's card to the player.
- Baron: ``Show`` both cards crosswise, ``Decide(player, "baron_result")`` ``{"loser": seat|None}``,
  then ``Reveal`` of the loser's card (if every card that could beat it is face up, the result is
  publicly impossible: a fault).
- Prince: ``Reveal`` of the target's card (discarded), then ``Deal`` of a new one (the set-aside
  card if the pile is empty) unless it was the Princess.
- King: the refs are swapped, then ``Show`` each seat its new card.
- Chancellor (2019): ``Deal`` of up to 2 cards, then ``Decide(player, "chancellor")``
  ``{"keep": ref, "bottom": [ref, ...]}``: ``bottom`` is placed under the pile in the order given,
  so its last ref ends up at the very bottom.
- Princess (played): the player is out; their other card is ``Reveal``-ed (EC-19).
- Handmaid, Countess, Spy: no request.

A round ends when one seat is left, or after a turn that leaves the pile empty (then a ``Reveal``
of every remaining hand: the showdown). Tokens are awarded at once; then ``Disclose`` names every
live ref whose face is still hidden (set-aside card, pile, a lone survivor's hand) so the round can
be checked; then the next round, or the end of the game.

Claims checked by :meth:`LoveLetter.check` once faces are known: the face named by every play, the
Countess rule (EC-8) implicit in every play, every Guard answer and every Baron result.

Decisions on the open questions (OQ) and other choices
------------------------------------------------------
- OQ-1: 2 players are supported with the printed rule: 3 cards removed face up
  (option ``two_player_faceup_removal``, default ``True``); tokens 7 (classic) / 6 (2019).
- OQ-2: option ``first_player``: a seat, or ``None`` (default) for a joint ``Random(seats)``
  request at the start of the game.
- OQ-3: the next round is started by the round's winner; with several co-winners (the seats tied
  for the top after every tie-break, whether or not they got a token), by the first of them met
  going clockwise from the previous round's starter, that starter included.
- OQ-4: the previous round's winner starts the next round (printed rule).
- OQ-5: Prince-forced discards count toward the discard total (they are in the discard row).
- OQ-6: the Guard may target a seat whose card is known.
- OQ-7 (2019): the Spy bonus compares only the seats still in the round at its end; a Spy
  discarded by a Prince counts; exactly one such seat gets one extra token.
- OQ-8: option ``final_tie_policy``: ``"none"`` (default for classic, BGA: nobody scores when the
  discard totals tie too) or ``"all_tied_win"``. The 2019 edition has no discard tie-break and
  always gives every seat tied on the highest card a token, so it only accepts
  ``"all_tied_win"``.
- Ours: when several seats reach the token goal in the same round (possible with 2019 ties or
  the Spy bonus), the game is won by those with the most tokens (all of them on a tie).
- Ours: a claimed face whose every copy is already face up this round is rejected publicly.
- Ours: the Princess played voluntarily (EC-14) also puts the player's other card face up (EC-19).
- Ours: protection flags are cleared at the end of a round; ``out`` stays visible until the next
  shuffle.
- ``check`` reports a history that the rules reject as a violation by the event's seat (``-1`` for a
  table operation, which the dealing layer authenticates) and stops there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.core import (
    MOVE,
    Deal,
    Decide,
    Disclose,
    Event,
    Face,
    FrozenDict,
    Game,
    GameOver,
    IllegalMove,
    Random,
    Record,
    Ref,
    Request,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Violation,
    expect_event,
    seat_name,
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
    winners once it is over.
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


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1 :]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _the(face: Face) -> str:
    return f"the {NAMES.get(face, repr(face))}"


# ---------------------------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------------------------


class LoveLetter(Game):
    """Love Letter for 2-4 (classic) or 2-6 (2019 edition) seats; see the module docstring.

    Options: ``edition`` (``"classic"`` | ``"2019"``), ``two_player_faceup_removal`` (bool),
    ``final_tie_policy`` (``"none"`` | ``"all_tied_win"``), ``first_player`` (seat or ``None``).
    """

    name = "loveletter"
    min_seats = 2
    max_seats = 6

    def __init__(self, seats: int, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(seats, options)
        self.edition: str = self.options["edition"]
        if seats not in _TOKENS_TO_WIN[self.edition]:
            raise ValueError(f"the {self.edition} edition of Love Letter is for 2-4 players, not {seats}")
        composition = _COMPOSITION[self.edition]
        self.values: dict[Face, int] = {face: value for face, value, _ in composition}
        """Value of every face of this edition."""
        self.counts: dict[Face, int] = {face: copies for face, _, copies in composition}
        """Copies of every face in the deck."""
        self.faces_by_value: tuple[Face, ...] = tuple(face for face, _, _ in composition)
        """Every face of this edition, lowest value first."""
        self.threshold: int = _TOKENS_TO_WIN[self.edition][seats]
        """Tokens needed to win the game."""
        self._deck: tuple[Face, ...] = tuple(f for f, _, copies in composition for _ in range(copies))

    # -- configuration --------------------------------------------------------------------
    def resolve_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Validate the options and fill in the defaults; ``ValueError`` on anything unknown."""
        known = {"edition", "two_player_faceup_removal", "final_tie_policy", "first_player"}
        unknown = sorted(set(options) - known, key=str)
        if unknown:
            raise ValueError(f"loveletter has no options {unknown}; known: {sorted(known)}")
        edition = options.get("edition", CLASSIC)
        if edition == 2019:  # "--option edition=2019" arrives as a number
            edition = EDITION_2019
        if edition not in EDITIONS:
            raise ValueError(f"edition must be one of {list(EDITIONS)}, not {edition!r}")
        removal = options.get("two_player_faceup_removal", True)
        if not isinstance(removal, bool):
            raise ValueError(f"two_player_faceup_removal must be true or false, not {removal!r}")
        default_policy = "none" if edition == CLASSIC else "all_tied_win"
        policy = options.get("final_tie_policy", default_policy)
        if policy not in ("none", "all_tied_win"):
            raise ValueError(f"final_tie_policy must be 'none' or 'all_tied_win', not {policy!r}")
        if edition == EDITION_2019 and policy != "all_tied_win":
            raise ValueError("the 2019 edition always lets every tied player win: final_tie_policy "
                             "must be 'all_tied_win'")
        first = options.get("first_player")
        if first is not None and not (_is_int(first) and 0 <= first < self.seats):
            raise ValueError(f"first_player must be a seat in 0..{self.seats - 1} or None, not {first!r}")
        return {
            "edition": edition,
            "two_player_faceup_removal": removal,
            "final_tie_policy": policy,
            "first_player": first,
        }

    def deck(self) -> tuple[Face, ...]:
        """The canonical deck: every card of the edition, lowest value first."""
        return self._deck

    def value(self, face: Face) -> int:
        """The value of ``face`` in this edition."""
        return self.values[face]

    # -- helpers on states ------------------------------------------------------------------
    def live_refs(self, state: State) -> range:
        """The refs in play now (those of the latest shuffle)."""
        return range(state.next_ref - len(self._deck), state.next_ref)

    def in_round(self, state: State) -> list[Seat]:
        """Seats still in the current round."""
        return [s for s in range(self.seats) if not state.out[s]]

    def targets(self, state: State, seat: Seat) -> list[Seat]:
        """Other seats that ``seat``'s cards may target now: in the round and not protected."""
        return [s for s in range(self.seats) if s != seat and not state.out[s] and not state.protected[s]]

    def _clockwise(self, start: Seat) -> list[Seat]:
        return [(start + k) % self.seats for k in range(self.seats)]

    def _next_in_round(self, state: State, seat: Seat) -> Seat:
        for k in range(1, self.seats + 1):
            candidate = (seat + k) % self.seats
            if not state.out[candidate]:
                return candidate
        raise AssertionError("nobody is left in the round")  # callers end the round first

    # -- the state machine ------------------------------------------------------------------
    def initial_state(self) -> State:
        """Before the first round: waiting for the first player (or the first shuffle)."""
        first = self.options["first_player"]
        n = self.seats
        return State(
            phase=FIRST_PLAYER if first is None else SHUFFLE,
            tokens=(0,) * n,
            starter=first,
            next_ref=len(self._deck),
            hands=((),) * n,
            discards=((),) * n,
            out=(False,) * n,
            protected=(False,) * n,
        )

    def pending(self, state: State) -> Request:
        """What must happen next (see the module docstring)."""
        s = state
        phase = s.phase
        if s.fault is not None or phase == OVER:
            return GameOver()
        play = s.play
        if phase == FIRST_PLAYER:
            return Random(self.seats, "first player")
        if phase == SHUFFLE:
            return Shuffle(tuple(self.live_refs(s)))
        if phase == FACEUP:
            return Reveal(s.pile[:3])
        if phase == OPENING_DEAL:
            assert s.starter is not None
            return Deal(tuple((s.pile[k], seat) for k, seat in enumerate(self._clockwise(s.starter))))
        if phase == DRAW:
            assert s.turn is not None
            return Deal(((s.pile[0], s.turn),))
        if phase == PLAY:
            assert s.turn is not None
            return Decide(s.turn, "play")
        if phase == SHOWDOWN:
            return Reveal(tuple(r for seat in self.in_round(s) for r in s.hands[seat]))
        if phase == DISCLOSE:
            return Disclose(self._hidden(s))
        assert play is not None, phase
        target = play.target
        if phase == REVEAL_PLAY:
            return Reveal((play.card,))
        if phase == KNOCKOUT_REVEAL:
            return Reveal(s.hands[play.seat])
        if phase == CHANCELLOR_DEAL:
            return Deal(tuple((r, play.seat) for r in s.pile[:2]))
        if phase == CHANCELLOR:
            return Decide(play.seat, "chancellor")
        if phase == BARON_RESULT:
            return Decide(play.seat, "baron_result")
        assert target is not None, phase
        if phase == GUARD_ANSWER:
            return Decide(target, "guard_answer")
        if phase == GUARD_REVEAL:
            return Reveal(s.hands[target])
        if phase == PRIEST_SHOW:
            return Show(((s.hands[target][0], play.seat),))
        if phase == BARON_SHOW:
            return Show(((s.hands[play.seat][0], target), (s.hands[target][0], play.seat)))
        if phase == BARON_REVEAL:
            assert play.loser is not None
            return Reveal(s.hands[play.loser])
        if phase == PRINCE_REVEAL:
            return Reveal(s.hands[target])
        if phase == PRINCE_DEAL:
            ref = s.pile[0] if s.pile else s.set_aside
            assert ref is not None
            return Deal(((ref, target),))
        if phase == KING_SHOW:
            return Show(((s.hands[target][0], target), (s.hands[play.seat][0], play.seat)))
        raise AssertionError(f"unknown phase {phase!r}")

    def _hidden(self, s: State) -> tuple[Ref, ...]:
        return tuple(r for r in self.live_refs(s) if r not in s.faces)

    def apply(self, state: State, event: Event) -> State:
        """The state after ``event``; ``IllegalMove`` (nothing changed) if the rules forbid it."""
        if not isinstance(state, State):
            raise IllegalMove("not a Love Letter state")
        if not isinstance(event, Event):
            raise IllegalMove("not an event")
        if not isinstance(event.data, Mapping):
            raise IllegalMove("an event's data must be a map")
        request = self.pending(state)
        expect_event(request, event)
        handler = getattr(self, f"_on_{state.phase}")
        new: State = handler(state, request, event)
        return replace(new, events=state.events + 1)

    # -- table operations -------------------------------------------------------------------
    def _public_faces(self, s: State, event: Event) -> tuple[FrozenDict, dict[Ref, Face]]:
        """Merge a Reveal/Disclose event's faces into the round's public faces, validating them."""
        given = dict(event.data["faces"])
        for ref, face in given.items():
            if face not in self.counts:
                raise IllegalMove(f"card {ref} cannot be {face!r}: no such card in the {self.edition} deck")
        faces = dict(s.faces)
        faces.update(given)
        seen = Counter(faces.values())
        for face, count in seen.items():
            if count > self.counts[face]:
                raise IllegalMove(f"{count} copies of {_the(face)} would be face up; the deck has "
                                  f"{self.counts[face]}")
        return FrozenDict(faces), given

    def _on_first_player(self, s: State, request: Request, event: Event) -> State:
        return replace(s, starter=event.data["value"], phase=SHUFFLE)

    def _on_shuffle(self, s: State, request: Request, event: Event) -> State:
        n = self.seats
        base = s.next_ref
        size = len(self._deck)
        two_player_removal = n == 2 and self.options["two_player_faceup_removal"]
        return replace(
            s,
            phase=FACEUP if two_player_removal else OPENING_DEAL,
            round=s.round + 1,
            turn=None,
            next_ref=base + size,
            set_aside=base,
            faceup=(),
            pile=tuple(range(base + 1, base + size)),
            hands=((),) * n,
            discards=((),) * n,
            out=(False,) * n,
            protected=(False,) * n,
            faces=FrozenDict(),
            play=None,
        )

    def _on_faceup(self, s: State, request: Request, event: Event) -> State:
        faces, _ = self._public_faces(s, event)
        return replace(s, phase=OPENING_DEAL, faceup=s.pile[:3], pile=s.pile[3:], faces=faces)

    def _on_deal(self, s: State, request: Request, event: Event) -> State:
        assert isinstance(request, Deal)
        hands = list(s.hands)
        for ref, seat in request.deals:
            hands[seat] = (ref,)
        return replace(s, phase=DRAW, hands=tuple(hands), pile=s.pile[self.seats :], turn=s.starter)

    def _on_draw(self, s: State, request: Request, event: Event) -> State:
        assert s.turn is not None
        return replace(s, phase=PLAY, hands=_set(s.hands, s.turn, s.hands[s.turn] + s.pile[:1]),
                       pile=s.pile[1:])

    # -- the play ---------------------------------------------------------------------------
    def _check_keys(self, data: Mapping[str, Any], allowed: set[str], what: str) -> None:
        extra = [k for k in data if k not in allowed]
        if extra:
            raise IllegalMove(f"unexpected keys {sorted(map(str, extra))} in a {what} move; "
                              f"allowed: {sorted(allowed)}")

    def _check_target(self, s: State, seat: Seat, face: Face, target: Any) -> None:
        """Raise unless ``target`` is a legal target for ``face`` played by ``seat`` (EC-2/3/11/13)."""
        card = NAMES[face]
        if face in _NEEDS_OTHER or face == "prince":
            others = self.targets(s, seat)
            if target is None:
                if face == "prince":
                    raise IllegalMove("the Prince needs a target (yourself included)")
                if others:
                    raise IllegalMove(f"the {card} needs a target: one of seats {others}")
                return
            if not _is_int(target) or not 0 <= target < self.seats:
                raise IllegalMove(f"there is no seat {target!r}")
            if target == seat:
                if face == "prince":
                    return
                raise IllegalMove(f"the {card} must target another player, not yourself")
            if s.out[target]:
                raise IllegalMove(f"{seat_name(target)} is out of the round and cannot be targeted")
            if s.protected[target]:
                raise IllegalMove(f"{seat_name(target)} is protected by the Handmaid")
            return
        if target is not None:
            raise IllegalMove(f"the {card} takes no target")

    def _on_play(self, s: State, request: Request, event: Event) -> State:
        seat = event.seat
        assert seat is not None
        data = event.data
        self._check_keys(data, {"card", "face", "target", "guess"}, "play")
        card, face = data.get("card"), data.get("face")
        target, guess = data.get("target"), data.get("guess")
        if not _is_int(card):
            raise IllegalMove(f"'card' must be a card reference (an integer), not {card!r}")
        if card not in s.hands[seat]:
            raise IllegalMove(f"{seat_name(seat)} does not hold card {card}; "
                              f"their hand is {list(s.hands[seat])}")
        if not isinstance(face, str) or face not in self.counts:
            raise IllegalMove(f"'face' must be a card of the {self.edition} deck "
                              f"({', '.join(self.faces_by_value)}), not {face!r}")
        public = sum(1 for r, f in s.faces.items() if f == face and r != card)
        if public >= self.counts[face]:
            raise IllegalMove(f"card {card} cannot be {_the(face)}: every copy is already face up")
        self._check_target(s, seat, face, target)
        if face == "guard" and target is not None:
            if guess == "guard":
                raise IllegalMove("the Guard cannot name the Guard (EC-1)")
            if not isinstance(guess, str) or guess not in self.counts:
                raise IllegalMove(f"the Guard must name a card of the {self.edition} deck other than "
                                  f"the Guard, not {guess!r}")
        elif guess is not None:
            raise IllegalMove("only a Guard with a target names a card ('guess' must be None)")
        hand = tuple(r for r in s.hands[seat] if r != card)
        return replace(
            s,
            phase=REVEAL_PLAY,
            hands=_set(s.hands, seat, hand),
            discards=_set(s.discards, seat, s.discards[seat] + (card,)),
            play=Play(seat, card, face, target, guess, s.events),
        )

    def _on_reveal_play(self, s: State, request: Request, event: Event) -> State:
        play = s.play
        assert play is not None
        faces, given = self._public_faces(s, event)
        s = replace(s, faces=faces)
        true = given[play.card]
        if true != play.face:
            return replace(s, fault=Violation(play.index, play.seat,
                                              f"claimed to play {_the(play.face)} but played {_the(true)}"))
        face, seat, target = play.face, play.seat, play.target
        if face in _NEEDS_OTHER and target is None:
            return self._end_turn(s)  # EC-2: nobody to target, no effect
        if face == "guard":
            return replace(s, phase=GUARD_ANSWER)
        if face == "priest":
            return replace(s, phase=PRIEST_SHOW)
        if face == "baron":
            return replace(s, phase=BARON_SHOW)
        if face == "prince":
            return replace(s, phase=PRINCE_REVEAL)
        if face == "king":
            assert target is not None
            hands = _set(s.hands, seat, s.hands[target])
            hands = _set(hands, target, s.hands[seat])
            return replace(s, phase=KING_SHOW, hands=hands)
        if face == "handmaid":
            return self._end_turn(replace(s, protected=_set(s.protected, seat, True)))
        if face == "princess":
            s = replace(s, out=_set(s.out, seat, True))
            return replace(s, phase=KNOCKOUT_REVEAL) if s.hands[seat] else self._end_turn(s)
        if face == "chancellor":
            return replace(s, phase=CHANCELLOR_DEAL) if s.pile else self._end_turn(s)
        return self._end_turn(s)  # countess, spy: no effect

    def _knock_out(self, s: State, seat: Seat, faces: FrozenDict) -> State:
        """``seat`` discards its hand face up (already revealed) and is out of the round."""
        return replace(
            s,
            faces=faces,
            hands=_set(s.hands, seat, ()),
            discards=_set(s.discards, seat, s.discards[seat] + s.hands[seat]),
            out=_set(s.out, seat, True),
        )

    def _on_knockout_reveal(self, s: State, request: Request, event: Event) -> State:
        assert s.play is not None
        faces, _ = self._public_faces(s, event)
        return self._end_turn(self._knock_out(s, s.play.seat, faces))

    def _on_guard_answer(self, s: State, request: Request, event: Event) -> State:
        assert s.play is not None
        self._check_keys(event.data, {"hit"}, "guard_answer")
        hit = event.data.get("hit")
        if not isinstance(hit, bool):
            raise IllegalMove(f"a Guard answer is {{'hit': true|false}}, not {dict(event.data)!r}")
        if not hit:
            return self._end_turn(s)
        return replace(s, phase=GUARD_REVEAL, play=replace(s.play, claim=s.events))

    def _on_guard_reveal(self, s: State, request: Request, event: Event) -> State:
        play = s.play
        assert play is not None and play.target is not None and play.guess is not None
        faces, given = self._public_faces(s, event)
        true = given[s.hands[play.target][0]]
        if true != play.guess:
            reason = f"answered 'hit' to a guess of {_the(play.guess)} but held {_the(true)}"
            return replace(s, faces=faces, fault=Violation(play.claim, play.target, reason))
        return self._end_turn(self._knock_out(s, play.target, faces))

    def _on_priest_show(self, s: State, request: Request, event: Event) -> State:
        return self._end_turn(s)

    def _on_baron_show(self, s: State, request: Request, event: Event) -> State:
        return replace(s, phase=BARON_RESULT)

    def _on_baron_result(self, s: State, request: Request, event: Event) -> State:
        play = s.play
        assert play is not None
        self._check_keys(event.data, {"loser"}, "baron_result")
        if "loser" not in event.data:
            raise IllegalMove("a Baron result is {'loser': seat or None}")
        loser = event.data["loser"]
        if loser is not None and (not _is_int(loser) or loser not in (play.seat, play.target)):
            raise IllegalMove(f"the Baron's loser must be seat {play.seat}, seat {play.target} "
                              f"or None (a tie), not {loser!r}")
        if loser is None:
            return self._end_turn(s)  # EC-10
        return replace(s, phase=BARON_REVEAL, play=replace(play, claim=s.events, loser=loser))

    def _on_baron_reveal(self, s: State, request: Request, event: Event) -> State:
        play = s.play
        assert play is not None and play.loser is not None
        faces, given = self._public_faces(s, event)
        lost = given[s.hands[play.loser][0]]
        # The winner's hidden card must beat the loser's: if every higher card is face up, the
        # reported result is publicly impossible (e.g. the Princess "losing").
        public = Counter(faces.values())
        if not any(self.values[f] > self.values[lost] and public[f] < n for f, n in self.counts.items()):
            reason = f"reported that seat {play.loser} lost the Baron comparison with {_the(lost)}, " \
                     "which no hidden card beats"
            return replace(s, faces=faces, fault=Violation(play.claim, play.seat, reason))
        return self._end_turn(self._knock_out(s, play.loser, faces))

    def _on_prince_reveal(self, s: State, request: Request, event: Event) -> State:
        play = s.play
        assert play is not None and play.target is not None
        target = play.target
        faces, given = self._public_faces(s, event)
        ref = s.hands[target][0]
        s = replace(s, faces=faces, hands=_set(s.hands, target, ()),
                    discards=_set(s.discards, target, s.discards[target] + (ref,)))
        if given[ref] == "princess":  # EC-6: out, no new card
            return self._end_turn(replace(s, out=_set(s.out, target, True)))
        if not s.pile and s.set_aside is None:  # cannot happen with one Prince per turn; be safe
            return self._end_turn(s)
        return replace(s, phase=PRINCE_DEAL)

    def _on_prince_deal(self, s: State, request: Request, event: Event) -> State:
        assert s.play is not None and s.play.target is not None and isinstance(request, Deal)
        ref = request.deals[0][0]
        target = s.play.target
        # EC-5: with the pile empty the target takes the set-aside card.
        s = replace(s, pile=s.pile[1:]) if s.pile else replace(s, set_aside=None)
        return self._end_turn(replace(s, hands=_set(s.hands, target, (ref,))))

    def _on_king_show(self, s: State, request: Request, event: Event) -> State:
        return self._end_turn(s)

    def _on_chancellor_deal(self, s: State, request: Request, event: Event) -> State:
        assert s.play is not None and isinstance(request, Deal)
        seat = s.play.seat
        drawn = tuple(r for r, _ in request.deals)
        return replace(s, phase=CHANCELLOR, hands=_set(s.hands, seat, s.hands[seat] + drawn),
                       pile=s.pile[len(drawn):])

    def _on_chancellor(self, s: State, request: Request, event: Event) -> State:
        assert s.play is not None
        seat = s.play.seat
        hand = s.hands[seat]
        data = event.data
        self._check_keys(data, {"keep", "bottom"}, "chancellor")
        keep, bottom = data.get("keep"), data.get("bottom")
        if not _is_int(keep) or keep not in hand:
            raise IllegalMove(f"'keep' must be one of your cards {list(hand)}, not {keep!r}")
        if not isinstance(bottom, list | tuple) or not all(_is_int(r) for r in bottom):
            raise IllegalMove(f"'bottom' must be a list of card references, not {bottom!r}")
        if sorted([keep, *bottom]) != sorted(hand):
            raise IllegalMove(f"keep one card and put all the others {sorted(set(hand) - {keep})} "
                              "under the pile, each once")
        return self._end_turn(replace(s, hands=_set(s.hands, seat, (keep,)), pile=s.pile + tuple(bottom)))

    # -- end of turn and round --------------------------------------------------------------
    def _end_turn(self, s: State) -> State:
        s = replace(s, play=None)
        alive = self.in_round(s)
        if len(alive) <= 1:  # EC-15: the round ends at once
            return self._end_round(s, tuple(alive))
        if not s.pile:  # EC-16
            return replace(s, phase=SHOWDOWN)
        assert s.turn is not None
        nxt = self._next_in_round(s, s.turn)
        # EC-12: the Handmaid protects until the start of its player's next turn.
        return replace(s, phase=DRAW, turn=nxt, protected=_set(s.protected, nxt, False))

    def _on_showdown(self, s: State, request: Request, event: Event) -> State:
        faces, _ = self._public_faces(s, event)
        s = replace(s, faces=faces)
        alive = self.in_round(s)
        best = max(self.values[faces[s.hands[seat][0]]] for seat in alive)
        top = [seat for seat in alive if self.values[faces[s.hands[seat][0]]] == best]
        if self.edition == CLASSIC and len(top) > 1:  # EC-17, OQ-5: the discard total breaks ties
            totals = {seat: sum(self.values[faces[r]] for r in s.discards[seat]) for seat in top}
            most = max(totals.values())
            top = [seat for seat in top if totals[seat] == most]
        return self._end_round(s, tuple(top))

    def _end_round(self, s: State, top: tuple[Seat, ...]) -> State:
        """Score the round: ``top`` are the seats tied for the win (usually one)."""
        # EC-18 (BGA): by default a complete tie gives nobody a token.
        winners = top if len(top) == 1 or self.options["final_tie_policy"] == "all_tied_win" else ()
        tokens = list(s.tokens)
        for seat in winners:
            tokens[seat] += 1
        spy: Seat | None = None
        if self.edition == EDITION_2019:  # OQ-7: only seats still in the round compete
            spies = [seat for seat in self.in_round(s)
                     if any(s.faces.get(r) == "spy" for r in s.discards[seat])]
            if len(spies) == 1:
                spy = spies[0]
                tokens[spy] += 1
        starter = s.starter
        if top:  # OQ-3
            assert starter is not None
            starter = next(seat for seat in self._clockwise(starter) if seat in top)
        game_winners: tuple[Seat, ...] = ()
        if max(tokens) >= self.threshold:
            most = max(tokens)
            game_winners = tuple(seat for seat in range(self.seats) if tokens[seat] == most)
        s = replace(s, tokens=tuple(tokens), starter=starter, turn=None, last_winners=winners,
                    last_top=top, last_spy=spy, winners=game_winners, protected=(False,) * self.seats)
        if self._hidden(s):
            return replace(s, phase=DISCLOSE)
        return replace(s, phase=OVER if game_winners else SHUFFLE)

    def _on_disclose(self, s: State, request: Request, event: Event) -> State:
        faces, _ = self._public_faces(s, event)
        return replace(s, faces=faces, phase=OVER if s.winners else SHUFFLE)

    # -- moves ------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        """Every honest move for ``seat`` now, given the faces it knows; ``[]`` if not its decision."""
        request = self.pending(state)
        if not isinstance(request, Decide) or request.seat != seat:
            return []
        s = state
        play = s.play
        if request.prompt == "play":
            return self._play_moves(s, seat, own_faces)
        if request.prompt == "guard_answer":
            assert play is not None
            held = own_faces.get(s.hands[seat][0])
            return [] if held is None else [{"hit": held == play.guess}]
        if request.prompt == "baron_result":
            assert play is not None and play.target is not None
            mine = own_faces.get(s.hands[seat][0])
            theirs = own_faces.get(s.hands[play.target][0])
            if mine is None or theirs is None:
                return []
            return [{"loser": self._baron_loser(seat, mine, play.target, theirs)}]
        if request.prompt == "chancellor":
            hand = s.hands[seat]
            moves = []
            for keep in hand:
                rest = [r for r in hand if r != keep]
                orders = [rest] if len(rest) < 2 else [rest, rest[::-1]]
                moves.extend({"keep": keep, "bottom": list(order)} for order in orders)
            return moves
        return []

    def _baron_loser(self, a: Seat, face_a: Face, b: Seat, face_b: Face) -> Seat | None:
        va, vb = self.values[face_a], self.values[face_b]
        return None if va == vb else (a if va < vb else b)

    def _play_moves(self, s: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        hand = s.hands[seat]
        faces = {r: own_faces[r] for r in hand if r in own_faces}
        others = self.targets(s, seat)
        moves: list[dict[str, Any]] = []
        for ref, face in faces.items():
            rest = [faces.get(r) for r in hand if r != ref]
            if face in _COUNTESS_FORCERS and "countess" in rest:
                continue  # EC-8
            base = {"card": ref, "face": face, "target": None, "guess": None}
            if face == "guard":
                guesses = [f for f in self.faces_by_value if f != "guard"]  # EC-1
                moves.extend({**base, "target": t, "guess": g} for t in others for g in guesses)
                if not others:
                    moves.append(base)
            elif face in _NEEDS_OTHER:
                moves.extend({**base, "target": t} for t in others)
                if not others:
                    moves.append(base)  # EC-2
            elif face == "prince":
                moves.extend({**base, "target": t} for t in [seat, *others])  # EC-3, EC-13
            else:
                moves.append(base)
        return moves

    # -- check ------------------------------------------------------------------------------
    def check(self, history: Sequence[Event], faces: Mapping[Ref, Face]) -> list[Violation]:
        """Replay ``history`` knowing ``faces`` and report every broken claim or rule.

        Claims whose faces are not (yet) in ``faces`` are skipped, so a running game can be
        checked up to its last disclosure. ``ValueError`` if ``faces`` contradicts a face that
        the history itself made public (a caller's mistake, not a seat's).
        """
        state = self.initial_state()
        found: list[Violation] = []
        for index, event in enumerate(history):
            self._agrees(index, event, faces)
            request = self.pending(state)
            if isinstance(request, Decide) and isinstance(event, Event) and event.kind == MOVE \
                    and event.seat == request.seat:
                found.extend(self._audit(state, request.prompt, index, event, faces))
            try:
                state = self.apply(state, event)
            except IllegalMove as exc:
                seat = event.seat if isinstance(event, Event) and event.seat is not None else -1
                found.append(Violation(index, seat, f"illegal event: {exc}"))
                break
        if state.fault is not None and not any(
            (v.index, v.seat) == (state.fault.index, state.fault.seat) for v in found
        ):
            found.append(state.fault)
        return sorted(found, key=lambda v: v.index)

    @staticmethod
    def _agrees(index: int, event: Any, faces: Mapping[Ref, Face]) -> None:
        """``faces`` must agree with every face the history made public; else the caller erred."""
        data = event.data if isinstance(event, Event) else None
        shown = data.get("faces") if isinstance(data, Mapping) else None
        if isinstance(shown, Mapping):
            for ref, face in shown.items():
                if ref in faces and faces[ref] != face:
                    raise ValueError(f"faces disagree with event {index}: card {ref} was shown as {face!r}")

    def _audit(self, s: State, prompt: str, index: int, event: Event,
               faces: Mapping[Ref, Face]) -> list[Violation]:
        seat = event.seat
        assert seat is not None
        data = event.data
        found: list[Violation] = []
        if prompt == "play":
            card = data.get("card")
            true = faces.get(card) if _is_int(card) else None
            if true is not None and data.get("face") != true:
                found.append(Violation(index, seat, f"claimed to play {_the(str(data.get('face')))} "
                                                    f"but played {_the(true)}"))
            others = [faces.get(r) for r in s.hands[seat] if r != card]
            if true in _COUNTESS_FORCERS and "countess" in others:
                found.append(Violation(index, seat, f"played {_the(true)} while holding the Countess (EC-8)"))
        elif prompt == "guard_answer" and s.play is not None and s.play.target is not None:
            held = faces.get(s.hands[s.play.target][0])
            hit = data.get("hit")
            if held is not None and isinstance(hit, bool) and hit != (held == s.play.guess):
                word = "hit" if hit else "miss"
                guess = _the(s.play.guess or "")
                reason = f"answered '{word}' to a guess of {guess} while holding {_the(held)}"
                found.append(Violation(index, seat, reason))
        elif prompt == "baron_result" and s.play is not None and s.play.target is not None:
            target = s.play.target
            mine, theirs = faces.get(s.hands[seat][0]), faces.get(s.hands[target][0])
            if mine is not None and theirs is not None and "loser" in data:
                truth = self._baron_loser(seat, mine, target, theirs)
                if data["loser"] != truth:
                    said = "a tie" if data["loser"] is None else f"seat {data['loser']} lost"
                    real = "a tie" if truth is None else f"seat {truth} lost"
                    found.append(Violation(index, seat, f"reported {said} in the Baron comparison, but "
                                                        f"{real} ({NAMES[mine]} against {NAMES[theirs]})"))
        return found

    # -- results ----------------------------------------------------------------------------
    def result(self, state: State) -> dict[str, Any]:
        """``{"winners", "tokens", "rounds", "fault"}``; no winners while running or after a fault."""
        return {
            "winners": [] if state.fault is not None else list(state.winners),
            "tokens": list(state.tokens),
            "rounds": state.round,
            "fault": None if state.fault is None else state.fault.to_dict(),
        }

    def state_from_dict(self, data: Mapping[str, Any]) -> State:
        """Rebuild a state from ``state.to_dict()`` (after a msgpack round trip, too)."""
        try:
            state = State.from_dict(data)
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a Love Letter state: {exc}") from exc
        if len(state.tokens) != self.seats:
            raise ValueError(f"a state for {len(state.tokens)} seats, not {self.seats}")
        return state

    # -- words ------------------------------------------------------------------------------
    def card_text(self, face: Face) -> str:
        """``"Guard (1, x5): Choose another player ..."`` for this edition."""
        if face not in self.counts:
            raise ValueError(f"no card {face!r} in the {self.edition} deck")
        return f"{NAMES[face]} ({self.values[face]}, x{self.counts[face]}): {_EFFECTS[face]}"

    def _card(self, face: Face | None) -> str:
        return "?" if face is None else f"{NAMES[face]}({self.values[face]})"

    def describe(self, state: State, event: Event) -> str:
        """One line of English for ``event`` applied to ``state``, from public information only."""
        try:
            after = self.apply(state, event)
        except IllegalMove as exc:
            return f"rejected {getattr(event, 'kind', 'event')}: {exc}"
        line = self._describe(state, event, after)
        if after.fault is not None:
            return f"{line} — {seat_name(after.fault.seat)} cheated ({after.fault.reason}): the game stops"
        if state.phase not in _BETWEEN_ROUNDS and after.phase in _BETWEEN_ROUNDS:
            line += " — " + self._round_summary(after)
        if after.phase == OVER and state.phase != OVER:
            won = ", ".join(seat_name(s) for s in after.winners)
            line += f" — game over: {won} {'wins' if len(after.winners) == 1 else 'win'}"
        return line

    def _round_summary(self, after: State) -> str:
        if len(after.last_winners) == 1:
            text = f"{seat_name(after.last_winners[0])} wins round {after.round}"
        elif after.last_winners:
            text = f"{', '.join(map(seat_name, after.last_winners))} share round {after.round}"
        else:
            text = f"round {after.round} is a complete tie: no token"
        if after.last_spy is not None:
            text += f"; {seat_name(after.last_spy)} gets the Spy bonus"
        return text + f" (tokens {list(after.tokens)})"

    def _describe(self, s: State, event: Event, after: State) -> str:
        phase, play = s.phase, s.play
        who = seat_name(play.seat) if play is not None else ""
        target = seat_name(play.target) if play is not None and play.target is not None else ""
        revealed: Mapping[Ref, Face] = event.data.get("faces", {})
        if phase == FIRST_PLAYER:
            return f"{seat_name(event.data['value'])} is chosen at random to start"
        if phase == SHUFFLE:
            return (f"round {s.round + 1}: the {len(self._deck)} cards are shuffled and the top one is set "
                    "aside face down")
        if phase == FACEUP:
            return "removed face up for this round: " + ", ".join(NAMES[revealed[r]] for r in s.pile[:3])
        if phase == OPENING_DEAL:
            return f"each seat is dealt one card, starting with {seat_name(after.starter or 0)}"
        if phase == DRAW:
            return f"{seat_name(s.turn or 0)} draws a card ({len(after.pile)} left in the pile)"
        if phase == PLAY:
            return self._describe_play(event)
        if phase == REVEAL_PLAY and play is not None:
            line = f"{who}'s card is revealed: {_the(revealed[play.card])}"
            if play.face in _NEEDS_OTHER and play.target is None:
                return line + " (no effect: nobody can be targeted)"
            if play.face == "handmaid":
                return line + f"; {who} is protected until their next turn"
            if play.face == "king":
                return line + f"; {who} and {target} swap hands"
            if play.face == "princess":
                return line + f"; {who} is out of the round"
            if play.face == "chancellor" and not s.pile:
                return line + " (no effect: the pile is empty)"
            return line
        if phase == GUARD_ANSWER and play is not None:
            hit = event.data["hit"]
            holds = "holds" if hit else "does not hold"
            return f"{target}: {'hit' if hit else 'miss'} — {holds} {_the(play.guess or '')}"
        if phase in (GUARD_REVEAL, BARON_REVEAL, KNOCKOUT_REVEAL) and play is not None:
            loser = {GUARD_REVEAL: play.target, BARON_REVEAL: play.loser, KNOCKOUT_REVEAL: play.seat}[phase]
            shown = ", ".join(_the(f) for f in revealed.values())
            if after.fault is not None:
                return f"{seat_name(loser or 0)}'s card is revealed: {shown}"
            return f"{seat_name(loser or 0)} discards {shown} and is out of the round"
        if phase == PRIEST_SHOW:
            return f"{who} looks at {target}'s hand in private"
        if phase == BARON_SHOW:
            return f"{who} and {target} compare hands in private"
        if phase == BARON_RESULT:
            loser = event.data["loser"]
            return f"{who} reports " + ("a tie: nothing happens" if loser is None
                                        else f"that {seat_name(loser)} has the lower card")
        if phase == PRINCE_REVEAL:
            face = next(iter(revealed.values()))
            extra = " and is out of the round" if face == "princess" else ""
            return f"{target} discards {_the(face)}{extra}"
        if phase == PRINCE_DEAL:
            source = "a new card" if s.pile else "the set-aside card (the pile is empty)"
            return f"{target} draws {source}"
        if phase == KING_SHOW:
            return f"{who} and {target} each look at their new card"
        if phase == CHANCELLOR_DEAL:
            n = min(2, len(s.pile))
            return f"{who} draws {n} card{'s' if n > 1 else ''} for the Chancellor"
        if phase == CHANCELLOR:
            n = len(event.data["bottom"])
            return f"{who} keeps one card and puts {n} under the pile"
        if phase == SHOWDOWN:
            shown = "; ".join(f"{seat_name(seat)} {NAMES[revealed[s.hands[seat][0]]]}"
                              for seat in self.in_round(s))
            return f"the pile is empty — showdown: {shown}"
        if phase == DISCLOSE:
            aside = revealed.get(s.set_aside) if s.set_aside is not None else None
            text = f"round {s.round}'s {len(revealed)} hidden cards are disclosed for checking"
            return text + (f" (the set-aside card was {_the(aside)})" if aside else "")
        return f"{event.kind}"

    def _describe_play(self, event: Event) -> str:
        data = event.data
        seat, face, target, guess = event.seat or 0, data["face"], data.get("target"), data.get("guess")
        line = f"{seat_name(seat)} plays {_the(face)}"
        if target is not None:
            line += " on themselves" if target == seat else f" on {seat_name(target)}"
        elif face in _NEEDS_OTHER:
            line += " with no target"
        if guess is not None:
            line += f", guessing {_the(guess)}"
        return line

    def _waiting_for(self, s: State) -> str:
        request = self.pending(s)
        if isinstance(request, GameOver):
            if s.fault is not None:
                return f"game stopped: {seat_name(s.fault.seat)} cheated ({s.fault.reason})"
            return "game over: " + ", ".join(map(seat_name, s.winners)) + " won"
        if isinstance(request, Decide):
            what = {"play": "to play a card", "guard_answer": "to answer the Guard",
                    "baron_result": "to report the Baron comparison",
                    "chancellor": "to choose a card to keep"}[request.prompt]
            return f"{seat_name(request.seat)} {what}"
        return f"table: {type(request).__name__.lower()} ({s.phase.replace('_', ' ')})"

    def render(self, state: State, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
        """The table as ``seat`` sees it (``None``: the public view), as a few lines of text."""
        s = state
        lines = [f"Love Letter ({self.edition}, {self.seats} players) — round {s.round} — "
                 f"{self.threshold} tokens to win"]
        for p in range(self.seats):
            marks = []
            if s.out[p]:
                marks.append("OUT")
            if s.protected[p]:
                marks.append("protected")
            if s.turn == p and s.phase not in _BETWEEN_ROUNDS:
                marks.append("turn")
            row = " ".join(self._card(s.faces.get(r)) for r in s.discards[p]) or "-"
            me = ">" if p == seat else " "
            lines.append(f"{me} {seat_name(p):7} tokens {s.tokens[p]}  {','.join(marks):20} discards: {row}")
        if s.faceup:
            row = " ".join(self._card(s.faces.get(r)) for r in s.faceup)
            lines.append(f"face up (out of this round): {row}")
        aside = "1 card" if s.set_aside is not None and s.set_aside not in s.faces else "none"
        lines.append(f"pile: {len(s.pile)} card{'' if len(s.pile) == 1 else 's'} · set aside: {aside}")
        if seat is not None:
            hand = " ".join(self._card(own_faces.get(r)) for r in s.hands[seat]) or "-"
            lines.append(f"your hand: {hand}")
            known = [f"{seat_name(p)} holds {self._card(own_faces[r])}"
                     for p in range(self.seats) if p != seat
                     for r in s.hands[p] if r in own_faces and r not in s.faces]
            if known:
                lines.append("you know: " + "; ".join(known))
        lines.append("now: " + self._waiting_for(s))
        return "\n".join(lines)
