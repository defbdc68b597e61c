"""Love Letter (classic 16-card edition, and the 2019 0-9 edition) as a pure state machine.

The rules are ``shared/rules/love-letter.md``; edge cases EC-n are covered by
``tests/engine/test_loveletter_rules.py`` and ``tests/engine/test_loveletter_scenarios.py``. This
module only speaks ``engine.core``'s vocabulary.

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
  so its last ref ends up at the very bottom. If another seat may know a card of the player's hand
  (a Priest, a Baron or a King showed it), the hand is first re-masked: ``Shuffle`` of exactly its
  refs and ``Show`` of the fresh refs to the player (the knowledge model, ``engine.core.Knowledge``):
  at a real table nobody can tell which of the cards in a hand went under the pile.
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
  shuffle. A player's own flag is also cleared by their draw and their play (EC-12: their turn
  has begun), which only matters for a state built with the player on turn still protected.
- Ours, against §8 ("the set-aside card: nobody, ever"): once a round is scored, ``Disclose``
  names every card still hidden (the set-aside card, the pile, the hands of the players left), so
  that everyone can check the round's claims (Guard answers, Baron results, the Countess rule,
  the faces named by plays), which is what lets peers play without a trusted dealer. Nothing can
  change the round by then; the cards are then reshuffled as the rules say.
- ``check`` reports a history that the rules reject as a violation by the event's seat (``-1`` for a
  table operation, which the dealing layer authenticates) and stops there.
- Hidden information as at a real table (issue #17): refs live as long as a card can be followed;
  the only face-down move that hides a card's path is the Chancellor's (two cards of a hand of
  three go under the pile), and it re-masks the hand first when needed (above). The King swaps whole
  one-card hands (anyone who knew a card can follow it, as at the table). The re-masked refs are
  disclosed at the end of the round with the other hidden cards, so ``check`` can still judge the
  claims made about them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
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
    Knowledge,
    Random,
    Ref,
    Request,
    Reveal,
    Seat,
    Show,
    Shuffle,
    Violation,
    expect_event,
    seat_name,
    track,
)
from engine.core import (
    evolve as replace,
)

from . import text
from .options import resolve_options
from .state import (
    _COMPOSITION,
    _COUNTESS_FORCERS,
    _NEEDS_OTHER,
    _TOKENS_TO_WIN,
    BARON_RESULT,
    BARON_REVEAL,
    BARON_SHOW,
    CHANCELLOR,
    CHANCELLOR_DEAL,
    CHANCELLOR_HIDE,
    CHANCELLOR_SHOW,
    CLASSIC,
    DISCLOSE,
    DRAW,
    EDITION_2019,
    FACEUP,
    FIRST_PLAYER,
    GUARD_ANSWER,
    GUARD_REVEAL,
    KING_SHOW,
    KNOCKOUT_REVEAL,
    NAMES,
    OPENING_DEAL,
    OVER,
    PLAY,
    PRIEST_SHOW,
    PRINCE_DEAL,
    PRINCE_REVEAL,
    REVEAL_PLAY,
    SHOWDOWN,
    SHUFFLE,
    Play,
    State,
    _is_int,
    _set,
    _the,
)

# ---------------------------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------------------------


class LoveLetter(Game):
    """Love Letter for 2-4 (classic) or 2-6 (2019 edition) seats; see the module docstring.

    Options: ``edition`` (``"classic"`` | ``"2019"``), ``two_player_faceup_removal`` (bool),
    ``final_tie_policy`` (``"none"`` | ``"all_tied_win"``), ``first_player`` (seat or ``None``).
    """

    name = "loveletter"
    title = "Love Letter"
    min_seats = 2
    max_seats = 6
    default_seats = 4
    state_class = State

    def __init__(self, seats: int, options: Mapping[str, Any] | None = None) -> None:
        if not self.min_seats <= seats <= self.max_seats:
            resolve_options(dict(options or {}), seats)  # refused in the edition's own words
        super().__init__(seats, options)
        self.edition: str = self.options["edition"]
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
        """Validate the options and fill in the defaults (:mod:`.options`)."""
        return resolve_options(options, self.seats)

    def deck(self) -> tuple[Face, ...]:
        """The canonical deck: every card of the edition, lowest value first."""
        return self._deck

    def value(self, face: Face) -> int:
        """The value of ``face`` in this edition."""
        return self.values[face]

    # -- helpers on states ------------------------------------------------------------------
    def live_refs(self, state: State) -> tuple[Ref, ...]:
        """The refs in play now, in ref order (the canonical deck before the first shuffle)."""
        refs = [] if state.set_aside is None else [state.set_aside]
        refs += [*state.faceup, *state.pile]
        for hand, row in zip(state.hands, state.discards, strict=True):
            refs += [*hand, *row]
        return tuple(sorted(refs)) if refs else tuple(range(len(self._deck)))

    def face_up(self, state: State) -> frozenset[Ref]:
        """Discard rows and the 2-player face-up cards (the knowledge model's face-up places)."""
        return frozenset(state.faceup).union(*map(frozenset, state.discards))

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
            knowledge=Knowledge.start(len(self._deck), n),
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
        if phase == CHANCELLOR_HIDE:
            return Shuffle(s.hands[play.seat])
        if phase == CHANCELLOR_SHOW:
            return Show(tuple((r, play.seat) for r in s.hands[play.seat]))
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
        return tuple(r for r in (*self.live_refs(s), *s.buried) if r not in s.faces)

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
        if self.simulating:
            return replace(new, events=state.events + 1)
        knowledge = track(self, state, request, event, new, state.knowledge)
        new = replace(new, events=state.events + 1, knowledge=knowledge)
        if new.phase == CHANCELLOR and new.play is not None:
            hand = new.hands[new.play.seat]
            if knowledge.others_know(hand, new.play.seat):  # re-mask before two cards go under the pile
                new = replace(new, phase=CHANCELLOR_HIDE)
        return new

    # -- table operations -------------------------------------------------------------------
    def _public_faces(self, s: State, event: Event) -> tuple[FrozenDict, dict[Ref, Face]]:
        """Merge a Reveal/Disclose event's faces into the round's public faces, validating them."""
        given = dict(event.data["faces"])
        for ref, face in given.items():
            if not isinstance(face, str) or face not in self.counts:  # a list would not even hash
                raise IllegalMove(f"card {ref} cannot be {face!r}: no such card in the {self.edition} deck")
        faces = dict(s.faces)
        faces.update(given)
        buried = set(s.buried)  # re-masked refs: their faces are also on their fresh twins
        seen = Counter(f for r, f in faces.items() if r not in buried)
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
            buried=(),
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
        # EC-12: the turn has begun, so the player's own Handmaid protection is over (already
        # cleared when the turn passed to them; this also covers a state built at its draw).
        return replace(s, phase=PLAY, hands=_set(s.hands, s.turn, s.hands[s.turn] + s.pile[:1]),
                       pile=s.pile[1:], protected=_set(s.protected, s.turn, False))

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
            protected=_set(s.protected, seat, False),  # EC-12: a new Handmaid sets it again below
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

    def _on_chancellor_hide(self, s: State, request: Request, event: Event) -> State:
        assert s.play is not None
        seat = s.play.seat
        old = s.hands[seat]
        fresh = tuple(range(s.next_ref, s.next_ref + len(old)))
        return replace(s, phase=CHANCELLOR_SHOW, next_ref=s.next_ref + len(old),
                       hands=_set(s.hands, seat, fresh), buried=s.buried + old)

    def _on_chancellor_show(self, s: State, request: Request, event: Event) -> State:
        return replace(s, phase=CHANCELLOR)

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
    def check(
        self, history: Sequence[Event], faces: Mapping[Ref, Face], *, states: Sequence[Any] | None = None
    ) -> list[Violation]:
        """Replay ``history`` knowing ``faces`` and report every broken claim or rule.

        Claims whose faces are not (yet) in ``faces`` are skipped, so a running game can be
        checked up to its last disclosure. ``ValueError`` if ``faces`` contradicts a face that
        the history itself made public (a caller's mistake, not a seat's). ``states``: the states
        already known along ``history`` (see :meth:`Game.check`), used instead of replaying.
        """
        known = len(states) if states is not None else 0
        state = states[0] if states else self.initial_state()
        found: list[Violation] = []
        for index, event in enumerate(history):
            self._agrees(index, event, faces)
            if isinstance(event, Event) and event.kind == MOVE:  # only moves carry claims to audit
                request = self.pending(state)
                if isinstance(request, Decide) and event.seat == request.seat:
                    found.extend(self._audit(state, request.prompt, index, event, faces))
            if index + 1 < known:
                assert states is not None
                state = states[index + 1]
                continue
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

    def state_seats(self, state: State) -> int:
        """Seats of a state: one token count each."""
        return len(state.tokens)

    # -- words (engine/loveletter/text.py) ---------------------------------------------------
    def card_text(self, face: Face) -> str:
        """``"Guard (1, x5): Choose another player ..."`` for this edition."""
        return text.card_text(self, face)

    def describe(self, state: State, event: Event) -> str:
        """One line of English for ``event`` applied to ``state``, from public information only."""
        return text.describe(self, state, event)

    def render(self, state: State, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
        """The table as ``seat`` sees it (``None``: the public view), as a few lines of text."""
        return text.render(self, state, seat, own_faces)
