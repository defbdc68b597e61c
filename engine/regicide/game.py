"""Regicide (Badgers From Mars): co-operative, 1-4 players, against the twelve royals of the Castle.

The rules are specified in ``shared/rules/regicide.md`` (edge cases EC-1..EC-32, open questions
OQ-1..OQ-10); this module follows every recommendation there.

Faces and refs
--------------
A face is rank + suit letter: ``"AH"``, ``"2H"`` .. ``"10H"``, ``"JH"``, ``"QH"``, ``"KH"`` for
Hearts, then the same for Diamonds (``D``), Clubs (``C``) and Spades (``S``); the two Jesters are
``"X1"`` and ``"X2"``. ``deck()`` lists the 54 cards in that order (suits H, D, C, S; ranks A, 2..10,
J, Q, K; then X1, X2), so ref ``i`` of the canonical deck is ``DECK[i]``. Only ``X1`` is used with 3
players; both with 4; in solo both are the face-up Jester tokens (their canonical refs 52, 53);
with 2 players neither is in play.

Solo departs from the seed here: the seed's setup says "Tavern deck: shuffle cards 2-10 with 4
Animal Companions and 2 Jesters", but the same seed then flips the Jesters as the solo power (at
most 2 per game, graded Gold/Silver/Bronze by how many were flipped), and the official solo rules
(rules §2, §10, R1) keep both Jesters out of the Tavern, face up beside it. A Jester shuffled into
the Tavern would be drawn into the hand, where a solo player cannot play it (rules §4.1), and could
not also be a flip token; so the Tavern holds the 40 number cards and Aces only, and the two
Jesters are the face-up tokens.

Zones (all in the public :class:`State`): ``castle`` (index 0 = top), ``enemy``, the cards played
against the enemy (``plays``, "the table"), ``tavern`` (index 0 = top), ``discard`` (last = top),
``hands``, and in solo ``jesters`` / ``jesters_used``. ``public`` maps every live ref whose face is
public to that face (refs that died in a shuffle are dropped from it).

Flow of requests
----------------
Setup: ``Shuffle`` the Jacks, then the Queens, then the Kings (the Castle is Jacks + Queens + Kings,
Jacks on top); ``Reveal`` the top Castle card; ``Shuffle`` the Tavern (numbers, Aces and the Jesters
for the seat count); one ``Deal`` for the opening hands, one card at a time round-robin from the
first player (OQ-8).

A turn: ``Decide(seat, "play")`` with ``{"play": [[ref, face], ...]}``, ``{"yield": True}`` or, in
solo, ``{"jester_power": True}``. A play is validated against its claimed faces and public
information, put on the table, then its hidden refs are ``Reveal``-ed; a revealed face that
contradicts the claim sets ``fault`` and ends the game. Hearts heal: ``Shuffle`` the discard pile,
the first ``min(X, n)`` fresh refs go under the Tavern in that order (the first one just below the
old bottom card, the last one the new bottom card: OQ-9) and the rest are ``Reveal``-ed back onto
the discard pile. Diamonds: one ``Deal``. Damage; on a defeat the enemy goes face down on top of
the Tavern (exact kill; rules §5.3 and EC-14 say face down, and everyone saw which card it was, so
its face stays public knowledge: whoever draws it is known to hold it) or to the discard pile, the
table to the discard pile, the next Castle card is ``Reveal``-ed and the same seat plays again.
Otherwise ``Decide(seat, "discard")`` with ``{"discard": [[ref, face], ...]}`` (claimed, then
revealed and checked like a play), ``{"cannot_pay": True}`` or, in solo, ``{"jester_power": True}``.
After a Jester (3-4 players): ``Decide(seat, "next")`` with ``{"next": seat}``. The solo Jester
power moves the whole hand to the discard pile (``Reveal`` of its hidden refs) and refills it with
one ``Deal``.

Game end (won or lost): ``Disclose`` every live ref whose face is not public, then ``GameOver``.
A fault (disproved claim) ends the game at once, as ``engine.core`` prescribes.

Claims and ``check``
--------------------
``{"cannot_pay": True}`` claims that the hand is worth less than the attack: the game is lost at
once and ``check`` verifies the claim against the disclosed faces. Every claimed face (plays and
discards) is verified against the real faces too. ``check`` reports an illegal move in the history
as a violation of its seat and stops there; a malformed table event raises :class:`IllegalMove`.

Decisions on the open questions
-------------------------------
- OQ-1: no yielding in solo unless option ``solo_yield_allowed`` (default False).
- OQ-2: after a Jester, its player may choose any seat, including their own.
- OQ-3: a seat that has not had a turn counts as not having yielded; yields are not reset when an
  enemy is defeated.
- OQ-4: strict discards by default: ``sum(S) >= A`` and ``sum(S) - max(S) < A`` (so ``S`` is empty
  when ``A == 0``); option ``allow_overdiscard`` accepts any ``S`` with ``sum(S) >= A`` while there
  is an attack to absorb. When ``A == 0`` nothing is asked (Step 4 is skipped) unless a solo player
  still has a Jester, who is then asked so that the Step 4 Jester window exists (OQ-5); in that
  window the only discard is the empty one, with or without ``allow_overdiscard`` (there is no
  attack to suffer, so Step 4 gives no licence to throw cards away).
- OQ-5: both solo Jesters may be used in the same window; the power is offered at the start of
  Step 1 and of Step 4, including when ``A == 0``.
- OQ-6: a solo refill from a short Tavern draws what is left.
- OQ-7: a Jester's immunity cancellation lasts until the current enemy is defeated.
- OQ-8: the first player is option ``first_player`` (default 0); round-robin deal from that seat.
- OQ-9: see Hearts above.
- OQ-10: no mulligan.

Termination (and one more loss): a solo player with an empty hand and no Jester left loses at
Step 1 even when ``solo_yield_allowed`` is on, since nothing can ever be drawn again (the only move,
yielding, would lose at Step 4 or repeat for ever under a full shield). With 2-4 players every round
of turns holds a play (yields cannot all follow each other) and every play but a Jester deals
damage, so games end. With ``solo_yield_allowed`` a solo player holding cards could still yield for
ever under a shield that covers the whole attack: that is a player stalling (the bots never do it),
not something the rules stop.

Other choices: an empty hand that must absorb a positive attack (and, in solo, has no Jester left)
loses at once without a decision, as does a Step 1 with an empty hand, no yield and no Jester.

Table talk (rules §11, §6.2): players may not reveal or hint at the cards in their hands (only public
facts such as hand sizes); after a Jester, until the chosen player starts, they may say in general
terms whether they want to go next. The engine cannot enforce speech; the rule is in the help text
(``text.RULES``, shown by the console's help screen), and the bots never talk.

Hidden information (issue #17): no face-down card ever leaves a hand without being revealed (plays,
discards and the solo flip are face up; draws come from the top of the Tavern in public), so no
re-masking is needed beyond the Hearts shuffle of the discard pile; the knowledge model
(``engine.core.Knowledge``) is kept in the state like in every game.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import (
    DISCLOSED,
    MOVE,
    REVEALED,
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
    Ref,
    Request,
    Reveal,
    Seat,
    Shuffle,
    Violation,
    expect_event,
    seat_name,
    track,
)

from . import text
from .options import resolve_options
from .state import (
    _DEAL_PHASES,
    _INDEX,
    _NUMBER_RANKS,
    _REVEAL_PHASES,
    DEAL_OPENING,
    DECK,
    DISCARD,
    DISCLOSE,
    DRAW,
    ENEMY_ATTACK,
    ENEMY_HEALTH,
    FLIP_REVEAL,
    HAND_LIMIT,
    HEAL_REVEAL,
    HEAL_SHUFFLE,
    JACK_REFS,
    JESTERS,
    KING_REFS,
    NEXT,
    OVER,
    PLAY,
    QUEEN_REFS,
    REFILL,
    REVEAL_DISCARD,
    REVEAL_ENEMY,
    REVEAL_PLAY,
    ROYAL_RANKS,
    SETUP_REVEAL,
    SHUFFLE_JACKS,
    SHUFFLE_KINGS,
    SHUFFLE_QUEENS,
    SHUFFLE_TAVERN,
    SUITS,
    TAVERN_JESTERS,
    Play,
    State,
    _parse_cards,
    _refs_of,
    _replace,
    _set_hand,
    discard_error,
    is_jester,
    play_shape_error,
    rank_of,
    suit_of,
    tavern_faces,
    value_of,
)

# ---------------------------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------------------------


class Regicide(Game):
    """Regicide for 1-4 players; options ``solo_yield_allowed``, ``allow_overdiscard``, ``first_player``."""

    name = "regicide"
    title = "Regicide"
    min_seats = 1
    max_seats = 4
    default_seats = 2
    state_class = State

    def __init__(self, seats: int, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(seats, options)
        self.solo = seats == 1
        self.hand_limit = HAND_LIMIT[seats]
        self.tavern_refs: tuple[Ref, ...] = _refs_of(tavern_faces(seats))
        self.hand_faces: frozenset[Face] = frozenset(tavern_faces(seats)) | frozenset(
            r + s for s in SUITS for r in ROYAL_RANKS
        )

    # -- configuration --------------------------------------------------------------------
    def resolve_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Defaults: ``solo_yield_allowed=False``, ``allow_overdiscard=False``, ``first_player=0``
        (:mod:`.options`)."""
        return resolve_options(options, self.seats)

    def deck(self) -> tuple[Face, ...]:
        """All 54 cards in canonical order (see the module docstring)."""
        return DECK

    @property
    def live_count(self) -> int:
        """How many cards are in play: 52 plus the Jesters in the Tavern, or the 2 solo tokens."""
        return 52 + (2 if self.solo else TAVERN_JESTERS[self.seats])

    # -- public helpers (for bots, UIs and tests) ------------------------------------------
    def enemy_face(self, state: State) -> Face | None:
        """The current enemy's face, once revealed."""
        return None if state.enemy is None else state.public.get(state.enemy)

    def shield(self, state: State) -> int:
        """The Spades shield against the current enemy (retroactive after a Jester, EC-19)."""
        face = self.enemy_face(state)
        if face is None or (suit_of(face) == "S" and not state.immunity_cancelled):
            return 0
        return sum(p.attack for p in state.plays if any(suit_of(f) == "S" for f in p.faces))

    def attack_due(self, state: State) -> int:
        """A = max(0, enemy attack - shield): what Step 4 costs now."""
        face = self.enemy_face(state)
        if face is None:
            return 0
        return max(0, ENEMY_ATTACK[rank_of(face)] - self.shield(state))

    def health_left(self, state: State) -> int:
        """Damage still needed to defeat the current enemy."""
        face = self.enemy_face(state)
        return 0 if face is None else ENEMY_HEALTH[rank_of(face)] - state.damage

    def active_suits(self, state: State, faces: Iterable[Face]) -> frozenset[str]:
        """The suit powers ``faces`` would trigger now (the enemy's suit is blocked unless cancelled)."""
        suits = {s for s in (suit_of(f) for f in faces) if s is not None}
        enemy = self.enemy_face(state)
        if enemy is not None and not state.immunity_cancelled:
            suits.discard(suit_of(enemy))
        return frozenset(suits)

    def can_yield(self, state: State, seat: Seat) -> bool:
        """Whether ``seat`` may yield (§7, OQ-1, OQ-3)."""
        if self.solo:
            return bool(self.options["solo_yield_allowed"])
        return not all(state.last_yield[s] for s in range(self.seats) if s != seat)

    def zones(self, state: State) -> dict[str, tuple[Ref, ...]]:
        """Every live ref by zone (each live ref is in exactly one zone)."""
        zones: dict[str, tuple[Ref, ...]] = {
            "castle": state.castle,
            "enemy": () if state.enemy is None else (state.enemy,),
            "table": tuple(r for p in state.plays for r in p.refs),
            "tavern": state.tavern,
            "discard": state.discard,
            "jesters": state.jesters,
            "jesters_used": state.jesters_used,
        }
        for seat, hand in enumerate(state.hands):
            zones[f"hand{seat}"] = hand
        return zones

    def hidden_refs(self, state: State) -> tuple[Ref, ...]:
        """Live refs whose face is not public, in ref order."""
        return tuple(sorted(r for refs in self.zones(state).values() for r in refs if r not in state.public))

    # -- the state machine ------------------------------------------------------------------
    def initial_state(self) -> State:
        """Before the Castle is shuffled."""
        jesters = _refs_of(JESTERS) if self.solo else ()
        return State(
            phase=SHUFFLE_JACKS,
            seat=self.options["first_player"],
            castle=(),
            enemy=None,
            damage=0,
            immunity_cancelled=False,
            plays=(),
            tavern=(),
            discard=(),
            hands=((),) * self.seats,
            public=FrozenDict({r: DECK[r] for r in jesters}),
            last_yield=(False,) * self.seats,
            jesters=jesters,
            jesters_used=(),
            enemies_seen=(),
            defeated=0,
            next_ref=len(DECK),
            claim=(),
            claim_index=-1,
            reveal=(),
            deals=(),
            heal_faces=(),
            window="",
            outcome=None,
            end_reason="",
            cannot_pay_index=-1,
            events=0,
            fault=None,
            knowledge=Knowledge.start(len(DECK), self.seats),
        )

    def pending(self, state: State) -> Request:
        """What must happen next (see the module docstring for the order)."""
        phase = state.phase
        if phase == OVER:
            return GameOver()
        if phase == SHUFFLE_JACKS:
            return Shuffle(JACK_REFS)
        if phase == SHUFFLE_QUEENS:
            return Shuffle(QUEEN_REFS)
        if phase == SHUFFLE_KINGS:
            return Shuffle(KING_REFS)
        if phase == SHUFFLE_TAVERN:
            return Shuffle(self.tavern_refs)
        if phase == HEAL_SHUFFLE:
            return Shuffle(state.discard)
        if phase in _REVEAL_PHASES:
            return Reveal(state.reveal)
        if phase in _DEAL_PHASES:
            return Deal(state.deals)
        if phase in (PLAY, DISCARD, NEXT):
            return Decide(state.seat, phase)
        if phase == DISCLOSE:
            return Disclose(state.reveal)
        raise ValueError(f"unknown phase {phase!r}")

    def apply(self, state: State, event: Event) -> State:
        """Return the state after ``event``; :class:`IllegalMove` (state unchanged) if not allowed."""
        if not isinstance(state, State):
            raise IllegalMove("not a Regicide state")
        if not isinstance(event, Event) or not isinstance(event.data, Mapping):
            raise IllegalMove("not an event")
        request = self.pending(state)
        expect_event(request, event)
        new = self._apply(state, event)
        if self.simulating:
            return _replace(new, events=state.events + 1)
        knowledge = track(self, state, request, event, new, state.knowledge)
        return _replace(new, events=state.events + 1, knowledge=knowledge)

    def face_up(self, state: State) -> frozenset[Ref]:
        """Cards lying face up: the enemy, the cards played against it, the discard pile, solo Jesters."""
        refs = {r for p in state.plays for r in p.refs}
        refs.update(state.discard, state.jesters, state.jesters_used)
        if state.enemy is not None:
            refs.add(state.enemy)
        return frozenset(refs)

    def _apply(self, st: State, event: Event) -> State:
        phase = st.phase
        if phase in (SHUFFLE_JACKS, SHUFFLE_QUEENS, SHUFFLE_KINGS):
            fresh = tuple(range(st.next_ref, st.next_ref + 4))
            st = _replace(st, castle=st.castle + fresh, next_ref=st.next_ref + 4)
            if phase == SHUFFLE_JACKS:
                return _replace(st, phase=SHUFFLE_QUEENS)
            if phase == SHUFFLE_QUEENS:
                return _replace(st, phase=SHUFFLE_KINGS)
            return self._next_enemy(st, SETUP_REVEAL)
        if phase == SHUFFLE_TAVERN:
            n = len(self.tavern_refs)
            fresh = tuple(range(st.next_ref, st.next_ref + n))
            total = self.seats * self.hand_limit
            first = self.options["first_player"]
            deals = tuple((fresh[i], (first + i) % self.seats) for i in range(total))
            return _replace(st, tavern=fresh, next_ref=st.next_ref + n, phase=DEAL_OPENING, deals=deals)
        if phase in _DEAL_PHASES:
            return self._apply_deal(st)
        if phase in _REVEAL_PHASES:
            return self._apply_reveal(st, event.data["faces"])
        if phase == HEAL_SHUFFLE:
            return self._apply_heal_shuffle(st)
        if phase == PLAY:
            return self._apply_play_move(st, event.data)
        if phase == DISCARD:
            return self._apply_discard_move(st, event.data)
        if phase == NEXT:
            return self._apply_next_move(st, event.data)
        if phase == DISCLOSE:
            faces = self._checked_faces(event.data["faces"])
            return _replace(st, public=FrozenDict({**st.public, **faces}), reveal=(), phase=OVER)
        raise IllegalMove(f"nothing can happen in phase {phase!r}")

    # -- table operations -----------------------------------------------------------------
    def _checked_faces(self, raw: Mapping[Any, Any]) -> dict[Ref, Face]:
        faces: dict[Ref, Face] = {}
        for ref, face in raw.items():
            if not isinstance(face, str) or face not in _INDEX:
                raise IllegalMove(f"{face!r} is not a Regicide card")
            faces[ref] = face
        return faces

    def _apply_deal(self, st: State) -> State:
        hands = [list(h) for h in st.hands]
        for ref, seat in st.deals:
            hands[seat].append(ref)
        st = _replace(
            st,
            hands=tuple(tuple(h) for h in hands),
            tavern=st.tavern[len(st.deals) :],
            deals=(),
        )
        if st.phase == DEAL_OPENING:
            return self._begin_turn(st, self.options["first_player"])
        if st.phase == DRAW:
            return self._deal_damage(st)
        return self._after_refill(st)

    def _apply_reveal(self, st: State, raw: Mapping[Any, Any]) -> State:
        faces = self._checked_faces(raw)
        phase = st.phase
        if phase in (SETUP_REVEAL, REVEAL_ENEMY):
            face = faces[st.enemy]  # type: ignore[index]
            want = ROYAL_RANKS[min(st.defeated // 4, 2)]
            if rank_of(face) != want or face in st.enemies_seen:
                raise IllegalMove(f"the Castle card revealed as {face} cannot be there (a {want} was due)")
        if phase == HEAL_REVEAL and Counter(faces.values()) - Counter(st.heal_faces):
            raise IllegalMove("the faces revealed after healing were not in the shuffled discard pile")
        st = _replace(st, public=FrozenDict({**st.public, **faces}), reveal=())
        if phase in (SETUP_REVEAL, REVEAL_ENEMY):
            st = _replace(st, enemies_seen=st.enemies_seen + (faces[st.enemy],))  # type: ignore[index]
            if phase == SETUP_REVEAL:
                return _replace(st, phase=SHUFFLE_TAVERN)
            return self._begin_turn(st, st.seat)
        if phase == HEAL_REVEAL:
            return self._after_heal(_replace(st, heal_faces=()))
        if phase == FLIP_REVEAL:
            return self._refill(st)
        # a play or a discard: compare the claim with the revealed faces
        lies = [(r, claimed, faces[r]) for r, claimed in st.claim if r in faces and faces[r] != claimed]
        if lies:
            reason = "; ".join(f"claimed card #{r} was {c} but it is {real}" for r, c, real in lies)
            fault = Violation(st.claim_index, st.seat, reason)
            return _replace(
                st, fault=fault, outcome="lost", end_reason="a claimed card was false", phase=OVER, claim=()
            )
        st = _replace(st, claim=())
        if phase == REVEAL_PLAY:
            return self._resolve_play(st)
        return self._end_turn(st)

    def _apply_heal_shuffle(self, st: State) -> State:
        old = st.discard
        n = len(old)
        k = min(st.plays[-1].attack, n)
        fresh = tuple(range(st.next_ref, st.next_ref + n))
        dead = set(old)  # the shuffled refs die; their fresh twins are face down
        public = {r: f for r, f in st.public.items() if r not in dead}
        st = _replace(
            st,
            tavern=st.tavern + fresh[:k],
            discard=fresh[k:],
            next_ref=st.next_ref + n,
            heal_faces=tuple(st.public[r] for r in old),
            public=FrozenDict(public),
        )
        if fresh[k:]:
            return _replace(st, phase=HEAL_REVEAL, reveal=fresh[k:])
        return self._after_heal(_replace(st, heal_faces=()))

    # -- moves ------------------------------------------------------------------------------
    def _only_key(self, data: Mapping[str, Any], allowed: Sequence[str]) -> str:
        keys = list(data)
        if len(keys) != 1 or keys[0] not in allowed:
            raise IllegalMove(f"a move here is a map with exactly one of the keys {', '.join(allowed)}")
        return keys[0]

    def _check_claim(self, st: State, seat: Seat, cards: Sequence[tuple[Ref, Face]]) -> None:
        """Raise unless every claimed card is in ``seat``'s hand and public information allows its face."""
        hand = set(st.hands[seat])
        by_face = {face: ref for ref, face in st.public.items()}  # the enemy's face is public too
        for ref, face in cards:
            if ref not in hand:
                raise IllegalMove(f"card #{ref} is not in your hand")
            if face not in self.hand_faces:
                if is_jester(face) and face in _INDEX:
                    raise IllegalMove(f"there is no {face} Jester in a hand in a {self.seats}-player game")
                raise IllegalMove(f"{face!r} is not a card that can be in a hand")
            known = st.public.get(ref)
            if known is not None and known != face:
                raise IllegalMove(f"card #{ref} is the {known} (public), not the {face}")
            if by_face.get(face, ref) != ref:
                raise IllegalMove(f"the {face} is face up elsewhere, not in your hand")
            if rank_of(face) in ROYAL_RANKS and face not in st.enemies_seen:
                raise IllegalMove(f"the {face} is still in the Castle, not in your hand")

    def _apply_play_move(self, st: State, data: Mapping[str, Any]) -> State:
        seat = st.seat
        key = self._only_key(data, ("play", "yield", "jester_power") if self.solo else ("play", "yield"))
        if key == "yield":
            if data[key] is not True:
                raise IllegalMove("a yield is {'yield': true}")
            if not self.can_yield(st, seat):
                if self.solo:
                    raise IllegalMove("yielding is not allowed in a solo game")
                raise IllegalMove("you may not yield: every other player yielded on their last turn")
            st = _replace(st, last_yield=self._set_yield(st, seat, True))
            return self._step4(st)
        if key == "jester_power":
            return self._flip(st, data[key], PLAY)
        cards = _parse_cards(data[key], "play")
        self._check_claim(st, seat, cards)
        error = play_shape_error([f for _, f in cards], not self.solo and self.seats >= 3)
        if error:
            raise IllegalMove(error)
        played = {ref for ref, _ in cards}
        ordered = tuple(sorted(cards))
        st = _replace(
            st,
            hands=_set_hand(st, seat, tuple(r for r in st.hands[seat] if r not in played)),
            plays=st.plays + (Play(seat, ordered),),
            last_yield=self._set_yield(st, seat, False),
        )
        hidden = tuple(r for r, _ in ordered if r not in st.public)
        if hidden:
            return _replace(st, phase=REVEAL_PLAY, reveal=hidden, claim=ordered, claim_index=st.events)
        return self._resolve_play(st)

    def _apply_discard_move(self, st: State, data: Mapping[str, Any]) -> State:
        seat = st.seat
        allowed = ("discard", "cannot_pay", "jester_power") if self.solo else ("discard", "cannot_pay")
        key = self._only_key(data, allowed)
        attack = self.attack_due(st)
        if key == "jester_power":
            return self._flip(st, data[key], DISCARD)
        if key == "cannot_pay":
            if data[key] is not True:
                raise IllegalMove("the claim is {'cannot_pay': true}")
            if attack <= 0:
                raise IllegalMove("the attack is 0: there is nothing to absorb, so nothing to fail to pay")
            known = sum(value_of(st.public[r]) for r in st.hands[seat] if r in st.public)
            if known >= attack:
                raise IllegalMove(
                    f"your face-up cards alone are worth {known}: enough for the attack of {attack}"
                )
            st = _replace(st, cannot_pay_index=st.events)
            return self._end_game(st, "lost", f"{seat_name(seat)} could not absorb {attack} damage")
        cards = _parse_cards(data[key], "discard")
        self._check_claim(st, seat, cards)
        error = discard_error([value_of(f) for _, f in cards], attack, self.options["allow_overdiscard"])
        if error:
            raise IllegalMove(error)
        gone = {ref for ref, _ in cards}
        ordered = tuple(sorted(cards))
        st = _replace(
            st,
            hands=_set_hand(st, seat, tuple(r for r in st.hands[seat] if r not in gone)),
            discard=st.discard + tuple(r for r, _ in ordered),
        )
        hidden = tuple(r for r, _ in ordered if r not in st.public)
        if hidden:
            return _replace(st, phase=REVEAL_DISCARD, reveal=hidden, claim=ordered, claim_index=st.events)
        return self._end_turn(st)

    def _apply_next_move(self, st: State, data: Mapping[str, Any]) -> State:
        self._only_key(data, ("next",))
        chosen = data["next"]
        if not isinstance(chosen, int) or isinstance(chosen, bool) or not 0 <= chosen < self.seats:
            raise IllegalMove(f"'next' must be a seat in 0..{self.seats - 1}")
        return self._begin_turn(st, chosen)

    def _flip(self, st: State, flag: Any, window: str) -> State:
        """The solo Jester power: discard the whole hand, then refill to the hand limit."""
        if flag is not True:
            raise IllegalMove("the Jester power is {'jester_power': true}")
        if not st.jesters:
            raise IllegalMove("both Jesters have been used")
        hand = st.hands[st.seat]
        st = _replace(
            st,
            jesters=st.jesters[1:],
            jesters_used=st.jesters_used + st.jesters[:1],
            hands=_set_hand(st, st.seat, ()),
            discard=st.discard + hand,
            window=window,
        )
        hidden = tuple(r for r in hand if r not in st.public)
        if hidden:
            return _replace(st, phase=FLIP_REVEAL, reveal=hidden)
        return self._refill(st)

    # -- turn flow -----------------------------------------------------------------------------
    def _set_yield(self, st: State, seat: Seat, value: bool) -> tuple[bool, ...]:
        return st.last_yield[:seat] + (value,) + st.last_yield[seat + 1 :]

    def _begin_turn(self, st: State, seat: Seat) -> State:
        st = _replace(st, phase=PLAY, seat=seat, window="")
        if not st.hands[seat] and not st.jesters:
            if not self.can_yield(st, seat):
                return self._end_game(st, "lost", f"{seat_name(seat)} has no card to play and may not yield")
            if self.solo:
                # solo yields allowed: an empty hand with no Jester can never draw again, and the only
                # move (yield) either loses at Step 4 or repeats for ever under a full shield
                return self._end_game(st, "lost", "no card left and no Jester: the hand can never refill")
        return st

    def _end_turn(self, st: State) -> State:
        return self._begin_turn(st, (st.seat + 1) % self.seats)

    def _resolve_play(self, st: State) -> State:
        play = st.plays[-1]
        if play.is_jester:
            # §6.2: immunity cancelled, no damage, no attack; its player picks who goes next.
            return _replace(st, immunity_cancelled=True, phase=NEXT)
        active = self.active_suits(st, play.faces)
        if "H" in active and st.discard:
            return _replace(st, phase=HEAL_SHUFFLE)
        return self._after_heal(st)

    def draw_deals(self, state: State, count: int) -> tuple[tuple[Ref, Seat], ...]:
        """Diamonds: ``count`` draws one at a time from the current seat clockwise, skipping full hands."""
        sizes = [len(h) for h in state.hands]
        deals: list[tuple[Ref, Seat]] = []
        seat = state.seat
        while len(deals) < count and len(deals) < len(state.tavern):
            if all(size >= self.hand_limit for size in sizes):
                break
            if sizes[seat] < self.hand_limit:
                deals.append((state.tavern[len(deals)], seat))
                sizes[seat] += 1
            seat = (seat + 1) % self.seats
        return tuple(deals)

    def _after_heal(self, st: State) -> State:
        play = st.plays[-1]
        if "D" in self.active_suits(st, play.faces):
            deals = self.draw_deals(st, play.attack)
            if deals:
                return _replace(st, phase=DRAW, deals=deals)
        return self._deal_damage(st)

    def _deal_damage(self, st: State) -> State:
        play = st.plays[-1]
        x = play.attack
        damage = st.damage + (2 * x if "C" in self.active_suits(st, play.faces) else x)
        health = ENEMY_HEALTH[rank_of(self.enemy_face(st) or "JH")]
        st = _replace(st, damage=damage)
        if damage < health:
            return self._step4(st)
        # defeated (§5.3): exact kill -> face down on top of the Tavern (its face stays public: everyone
        # saw it go there); else the discard pile
        enemy = st.enemy
        assert enemy is not None
        table = tuple(r for p in st.plays for r in p.refs)
        exact = damage == health
        st = _replace(
            st,
            tavern=((enemy,) + st.tavern) if exact else st.tavern,
            discard=st.discard + table + (() if exact else (enemy,)),
            enemy=None,
            plays=(),
            damage=0,
            immunity_cancelled=False,
            defeated=st.defeated + 1,
        )
        if not st.castle:
            return self._end_game(st, "won", "the last King was defeated")
        return self._next_enemy(st, REVEAL_ENEMY)

    def _next_enemy(self, st: State, phase: str) -> State:
        return _replace(st, enemy=st.castle[0], castle=st.castle[1:], phase=phase, reveal=st.castle[:1])

    def _step4(self, st: State) -> State:
        attack = self.attack_due(st)
        if attack == 0 and not st.jesters:
            return self._end_turn(st)
        if attack > 0 and not st.hands[st.seat] and not st.jesters:
            return self._end_game(st, "lost", f"{seat_name(st.seat)} has no card to absorb {attack} damage")
        return _replace(st, phase=DISCARD, window="")

    def _refill(self, st: State) -> State:
        n = min(self.hand_limit - len(st.hands[st.seat]), len(st.tavern))
        deals = tuple((st.tavern[i], st.seat) for i in range(n))
        if deals:
            return _replace(st, phase=REFILL, deals=deals)
        return self._after_refill(st)

    def _after_refill(self, st: State) -> State:
        if st.window == PLAY:
            return self._begin_turn(st, st.seat)
        return self._step4(st)

    def _end_game(self, st: State, outcome: str, reason: str) -> State:
        st = _replace(st, outcome=outcome, end_reason=reason, window="")
        hidden = self.hidden_refs(st)
        if hidden:
            return _replace(st, phase=DISCLOSE, reveal=hidden)
        return _replace(st, phase=OVER)

    # -- moves for a seat ------------------------------------------------------------------------
    def known_hand(self, state: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[tuple[Ref, Face]]:
        """``seat``'s hand as (ref, face) pairs, for the refs whose face it knows."""
        cards = []
        for ref in state.hands[seat]:
            face = state.public.get(ref) or own_faces.get(ref)
            if face is not None and face in self.hand_faces:
                cards.append((ref, face))
        return cards

    def candidate_plays(self, cards: Sequence[tuple[Ref, Face]]) -> list[tuple[tuple[Ref, Face], ...]]:
        """Every legal Step 1 card combination from ``cards`` (singles, Ace pairs, combos, Jester)."""
        multiplayer = self.seats >= 3
        cards = sorted(cards)
        plays: list[tuple[tuple[Ref, Face], ...]] = []
        for card in cards:
            if not is_jester(card[1]) or multiplayer:
                plays.append((card,))
        for a, b in itertools.combinations(cards, 2):
            if (rank_of(a[1]) == "A" or rank_of(b[1]) == "A") and not (is_jester(a[1]) or is_jester(b[1])):
                plays.append((a, b))
        for rank in _NUMBER_RANKS[:4]:  # 2..5: only these can form a combo of total <= 10
            same = [c for c in cards if rank_of(c[1]) == rank]
            for k in range(2, len(same) + 1):
                if k * int(rank) <= 10:
                    plays.extend(itertools.combinations(same, k))
        return plays

    def discard_sets(
        self, cards: Sequence[tuple[Ref, Face]], attack: int
    ) -> list[tuple[tuple[Ref, Face], ...]]:
        """Every valid discard from ``cards`` against ``attack`` (at most 2^8 subsets: hands are <= 8)."""
        cards = sorted(cards)
        overdiscard = self.options["allow_overdiscard"]
        sets = []
        for k in range(len(cards) + 1):
            for subset in itertools.combinations(cards, k):
                if discard_error([value_of(f) for _, f in subset], attack, overdiscard) is None:
                    sets.append(subset)
        return sets

    def legal_moves(self, state: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        """All honest legal moves of ``seat`` now, given the faces it knows (own hand included)."""
        request = self.pending(state)
        if not isinstance(request, Decide) or request.seat != seat:
            return []
        if state.phase == NEXT:
            return [{"next": s} for s in range(self.seats)]
        cards = self.known_hand(state, seat, own_faces)
        moves: list[dict[str, Any]] = []
        if state.phase == PLAY:
            moves = [{"play": [[r, f] for r, f in p]} for p in self.candidate_plays(cards)]
            if self.can_yield(state, seat):
                moves.append({"yield": True})
        else:
            attack = self.attack_due(state)
            if sum(value_of(f) for _, f in cards) < attack:
                if len(cards) == len(state.hands[seat]):
                    moves.append({"cannot_pay": True})
            else:
                moves = [{"discard": [[r, f] for r, f in s]} for s in self.discard_sets(cards, attack)]
        if state.jesters:
            moves.append({"jester_power": True})
        return moves

    # -- audit ---------------------------------------------------------------------------------
    def check(
        self, history: Sequence[Event], faces: Mapping[Ref, Face], *, states: Sequence[Any] | None = None
    ) -> list[Violation]:
        """Replay ``history`` knowing every face; report false claimed faces and false ``cannot_pay``.

        ``faces`` maps refs to their true faces (missing refs fall back to the faces made public in
        the history). An illegal move is reported as its seat's violation and ends the replay.
        ``states``: the states already known along ``history`` (see :meth:`Game.check`), used
        instead of replaying.
        """
        trail = list(states[: len(history) + 1]) if states else [self.initial_state()]
        found: dict[int, Violation] = {}
        for index in range(len(trail) - 1, len(history)):
            event = history[index]
            before = trail[-1]
            try:
                after = self.apply(before, event)
            except IllegalMove as exc:
                if isinstance(event, Event) and event.kind == MOVE and event.seat is not None:
                    found[index] = Violation(index, event.seat, f"illegal move: {exc}")
                    break
                raise IllegalMove(f"event {index}: {exc}") from exc
            trail.append(after)
        final = trail[-1]
        truth: dict[Ref, Face] = {}
        for event in history[: len(trail) - 1]:
            if event.kind in (REVEALED, DISCLOSED):
                truth.update(event.data["faces"])
        truth.update(final.public)
        truth.update(faces)
        for index, (state, event) in enumerate(zip(trail, history, strict=False)):
            if index in found or event.kind != MOVE or event.seat is None:
                continue
            violation = self._check_move(state, event, index, truth)
            if violation is not None:
                found[index] = violation
        if final.fault is not None and final.fault.index not in found:
            found[final.fault.index] = final.fault
        return [found[i] for i in sorted(found)]

    def _check_move(
        self, state: State, event: Event, index: int, truth: Mapping[Ref, Face]
    ) -> Violation | None:
        seat = event.seat
        assert seat is not None
        data = event.data
        for key in ("play", "discard"):
            if key in data:
                lies = [
                    (ref, face, truth[ref]) for ref, face in data[key] if ref in truth and truth[ref] != face
                ]
                if lies:
                    reason = "; ".join(f"claimed card #{r} was {c} but it is {real}" for r, c, real in lies)
                    return Violation(index, seat, reason)
        if data.get("cannot_pay") is True:
            hand = state.hands[seat]
            if all(r in truth for r in hand):
                attack = self.attack_due(state)
                worth = sum(value_of(truth[r]) for r in hand)
                if worth >= attack:
                    return Violation(
                        index, seat, f"claimed it could not pay {attack} damage; its hand was worth {worth}"
                    )
        return None

    # -- results -------------------------------------------------------------------------------
    def result(self, state: State) -> dict[str, Any]:
        """``{"outcome", "grade", "enemies_defeated", "fault"}``; outcome is ``"playing"`` until over."""
        outcome = state.outcome if state.phase == OVER else "playing"
        grade = None
        if outcome == "won" and self.solo:
            grade = ("gold", "silver", "bronze")[len(state.jesters_used)]
        return {
            "outcome": outcome,
            "grade": grade,
            "enemies_defeated": state.defeated,
            "fault": None if state.fault is None else state.fault.to_dict(),
        }

    def state_seats(self, state: State) -> int:
        """Seats of a state: one hand each."""
        return len(state.hands)

    # -- words (engine/regicide/text.py) ---------------------------------------------------------
    def card_text(self, face: Face) -> str:
        """A card's name, values and powers (in hand and as an enemy)."""
        return text.card_text(self, face)

    def describe(self, state: State, event: Event) -> str:
        """One line of English for ``event`` applied to ``state``, from public information only."""
        return text.describe(self, state, event)

    def render(self, state: State, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
        """The table as ``seat`` sees it: enemy, piles, hand sizes, and that seat's hand."""
        return text.render(self, state, seat, own_faces)

    def public_face(self, state: State, ref: Ref) -> Face | None:
        """The public face of ``ref``, if any."""
        return state.public.get(ref)
