"""The Rebel Princess state machine: :class:`RebelPrincess` and its immutable :class:`State`.

Flow (one ``step`` at a time; each step is one core request):

setup      princess_shuffle -> princess_deal -> princess (Commit keep) -> princess_reveal
           -> round_shuffle [-> final_shuffle] -> first_leader (Random)
round      round_reveal -> deck_shuffle -> deal -> pass (Commit) -> pass_show
           -> aside (Late to the Ball, After Party, set-aside Blind Man's Bluff) | crystal -> crystal_reveal
trick      gift (Wedding Gift) -> power* (before-trick Princesses, with their sub-steps)
           -> play (Decide) -> play_reveal ... (Masquerade Ball: lead, then mask Commit -> play_reveal)
           -> mulan -> mulan_reveal -> alice -> alice_shuffle -> alice_deal | haggle -> haggle_reveal
after      bluff_show, pickup_show, chairs (Commit) -> chairs_show
round end  disclose -> scoring -> next round, the tie-break round, or over

hiding     before a face-down choice or a random draw from hands that another seat may partly know
           (pass, aside, gift, chairs, bazaar_pick, freeze_pick): hide (one Shuffle per such hand)
           -> hide_show (each owner sees its fresh refs) -> the step it was going to
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from engine.core import (
    COMMITTED,
    MOVE,
    Commit,
    Deal,
    Decide,
    Disclose,
    Event,
    Face,
    FrozenDict,
    Game,
    GameOver,
    Group,
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

from . import princesses as P
from .audit import audit_event
from .cards import FROG, HAND_SIZE, SUITS, card_name, is_prince, is_suit_face, number_of, suit_faces, suit_of
from .moves import moves_for
from .options import resolve_options
from .princesses import BEFORE_TRICK_POWERS, PRINCESSES
from .rounds import BY_LETTER, LEFT, LETTERS, ROUNDS, RoundInfo, pile_score
from .state import (
    PROMPTS,
    STEPS,
    SUIT_CLAIM,
    State,
)
from .text import card_text, describe, render
from .tricks import Play, PlayContext, follow_suit, follows, play_options, trick_winner

# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


class _OneChoice(dict):
    """The choices of a commit with only the seat being checked (see ``check_choice``)."""


def _move(data: Any) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise IllegalMove("a move must be a map")
    return data


def _int(move: Mapping[str, Any], key: str) -> int:
    value = move.get(key)
    if type(value) is not int:
        raise IllegalMove(f"'{key}' must be an integer")
    return value


POWER_KEYS = frozenset({"use", "round", "leader", "suit", "target"})
"""The fields of an answer to the before-trick power question."""

_PLAY_KEYS = frozenset({"card", "face", "power", "void"})
MOVE_KEYS: Mapping[str, frozenset[str]] = {
    "princess": frozenset({"keep"}),
    "pass": frozenset({"pass"}),
    "chairs": frozenset({"pass"}),
    "aside": frozenset({"aside"}),
    "crystal": frozenset({"suit", "cards"}),
    "gift": frozenset({"card"}),
    "power": POWER_KEYS,
    "spindle": frozenset({"card"}),
    "spindle_give": frozenset({"keep", "give"}),
    "bazaar": frozenset({"swap"}),
    "freeze": frozenset({"freeze"}),
    "play": _PLAY_KEYS,
    "mask": _PLAY_KEYS,
    "mulan": frozenset({"swap", "card", "face"}),
    "alice": frozenset({"use"}),
    "haggle": frozenset({"give", "take", "face"}),
}
"""The fields a move or committed choice of each step may carry: anything else is refused, as in the
other games (a signed move padded with fields nobody reads is not a move of this game)."""


def _check_keys(step: str, move: Any) -> None:
    allowed = MOVE_KEYS.get(step)
    if allowed is None or not isinstance(move, Mapping):
        return  # not a decision of a seat (or not a map: the step's handler refuses it)
    extra = [k for k in move if k not in allowed]
    if extra:
        shown = ", ".join(sorted(repr(k)[:40] for k in extra))
        fields = ", ".join(sorted(allowed))
        raise IllegalMove(f"unexpected fields in a {step} move: {shown} (allowed: {fields})")


def _bool(move: Mapping[str, Any], key: str, default: bool = False) -> bool:
    value = move.get(key, default)
    if type(value) is not bool:
        raise IllegalMove(f"'{key}' must be true or false")
    return value


def _refs(move: Mapping[str, Any], key: str) -> tuple[int, ...]:
    value = move.get(key)
    if not isinstance(value, list | tuple) or any(type(v) is not int for v in value):
        raise IllegalMove(f"'{key}' must be a list of card refs")
    if len(set(value)) != len(value):
        raise IllegalMove(f"'{key}' names a card twice")
    return tuple(value)


def _face_arg(move: Mapping[str, Any], key: str = "face") -> Face:
    value = move.get(key)
    if not is_suit_face(value):
        raise IllegalMove(f"'{key}' must be a suit card such as 'fairy-5', not {value!r}")
    return value  # type: ignore[return-value]


def _set(tup: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return tup[:index] + (value,) + tup[index + 1 :]


def _without(refs: Iterable[int], gone: Iterable[int]) -> tuple[int, ...]:
    drop = set(gone)
    return tuple(r for r in refs if r not in drop)


def _with(refs: Iterable[int], extra: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted((*refs, *extra)))


# ---------------------------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------------------------


class RebelPrincess(Game):
    """Rebel Princess (Deluxe), 3-6 players; see the package docstring for rules and options."""

    name = "rebelprincess"
    title = "Rebel Princess"
    min_seats = 3
    max_seats = 6
    default_seats = 4
    state_class = State

    def __init__(self, seats: int, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(seats, options)
        self.suit_cards: tuple[Face, ...] = suit_faces(seats)
        self._deck = self.suit_cards + tuple(p.face for p in PRINCESSES) + tuple(r.face for r in ROUNDS)
        self.princess_base = len(self.suit_cards)
        self.round_base = self.princess_base + len(PRINCESSES)
        self.hand_size = HAND_SIZE[seats]
        self.princes = frozenset(f for f in self.suit_cards if is_prince(f))
        self._suit_set = frozenset(self.suit_cards)

    # -- configuration ------------------------------------------------------------------------
    def resolve_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Validate options, apply the ``edition`` preset, fill in defaults (:mod:`.options`)."""
        return resolve_options(options, self.seats)

    def deck(self) -> tuple[Face, ...]:
        """Suit cards for the seat count, then the 12 Princesses, then the 26 Round cards a-z."""
        return self._deck

    # -- public facts -------------------------------------------------------------------------
    def public_face(self, state: State, ref: Ref) -> Face | None:
        """The face of ``ref`` if every seat knows it (canonical deck slots, revealed, disclosed)."""
        if 0 <= ref < len(self._deck):
            return self._deck[ref]
        return state.faces.get(ref)

    def totals(self, state: State) -> tuple[int, ...]:
        """Cumulative scores of the finished rounds."""
        return tuple(sum(r[s] for r in state.scores) for s in range(self.seats))

    def round_info(self, state: State) -> RoundInfo | None:
        """The current Round card's :class:`~engine.rebelprincess.rounds.RoundInfo` (None before round 1)."""
        return BY_LETTER.get(state.letter)

    def available(self, state: State, seat: Seat) -> tuple[int, ...]:
        """Cards of ``seat``'s playable hand that hand-affecting powers may touch (frozen card excluded)."""
        frozen = state.frozen[seat] if state.frozen else -1
        return tuple(r for r in state.hands[seat] if r != frozen)

    def hidden_hand(self, state: State, seat: Seat) -> tuple[int, ...]:
        """The face-down part of ``seat``'s playable hand: neither frozen nor laid out face up under
        Crystal Clear. Random draws take from it (ZP FAQ: laid-out cards are no longer random hand
        cards), and it is the group the knowledge model follows (:meth:`groups`)."""
        laid = state.laid[seat] if state.laid else ()
        return tuple(r for r in self.available(state, seat) if r not in laid)

    def groups(self, state: State) -> tuple[Group, ...]:
        """Face-down groups for the knowledge model: each seat's hidden hand, then its set-aside cards."""
        if not state.hands:
            return ()
        n = self.seats
        return tuple((t, self.hidden_hand(state, t)) for t in range(n)) + tuple(
            (t, tuple(state.aside[t])) for t in range(n)
        )

    def face_up(self, state: State) -> frozenset[Ref]:
        """Cards seen face up: the trick (and the last one, collected face up for all to see), frozen
        cards, laid-out cards, Sleeping Beauty's pile."""
        refs = {p.ref for p in (*state.trick, *state.last_trick)}
        refs.update(r for r in state.frozen if r >= 0)
        refs.update(r for laid in state.laid for r in laid)
        refs.update(r for r in state.contributions if r >= 0)
        return frozenset(refs)

    def trick_size(self, state: State) -> int:
        """Cards in a full trick: one per player, two each under The Prince Always Rings Twice."""
        return self.seats * (2 if state.letter == "u" else 1)

    def live_refs(self, state: State) -> list[int]:
        """Every current suit-card ref in play this round (hands, aside, tricks, piles, in transit)."""
        refs: list[int] = []
        for group in (state.hands, state.aside, state.won):
            for pile in group:
                refs.extend(pile)
        refs.extend(state.gift)
        refs.extend(p.ref for p in state.trick)
        refs.extend(r for r in state.contributions if r >= 0)
        return refs

    def play_context(self, state: State, seat: Seat) -> PlayContext:
        """The public limits on ``seat``'s next card in the current trick."""
        princess = state.princesses[seat] if state.princesses else ""
        return PlayContext(
            letter=state.letter,
            lead=not state.trick,
            follow=follow_suit(state.letter, state.trick),
            lead_number=number_of(state.trick[0].face) if state.trick else 0,
            princes_in=state.princes_in,
            rapunzel=state.rapunzel,
            mermaid=state.mermaid,
            pea=state.pea,
            princess=princess,
            power_ready=bool(princess) and not state.spent[seat],
            power_active=state.active[seat],
            frozen=state.frozen[seat],
            led=bool(state.trick) and state.trick[0].seat == seat,
        )

    def winner_now(self, state: State, plays: Sequence[Play]) -> Seat:
        """Who would win a trick made of ``plays`` under the current Round card and powers."""
        return trick_winner(state.letter, plays, state.reverse, self.options["poisoned_apple_tie"] == "later")

    # -- the state machine --------------------------------------------------------------------
    def initial_state(self) -> State:
        """Before the Princess draft (or the Round-card setup when powers are off)."""
        n = self.seats
        s = State(
            next_ref=len(self._deck),
            princesses=("",) * n,
            princess_refs=(-1,) * n,
            spent=(False,) * n,
            waived=(False,) * n,
            frozen=(-1,) * n,
            active=(False,) * n,
            hands=((),) * n,
            aside=((),) * n,
            won=((),) * n,
            tricks_won=(0,) * n,
            crystal=("",) * n,
            laid=((),) * n,
            deck_refs=tuple(range(self.princess_base)),
            knowledge=Knowledge.start(len(self._deck), n),
        )
        if self.options["princess_powers"]:
            return replace(
                s, step="princess_shuffle", op_refs=tuple(range(self.princess_base, self.round_base))
            )
        return self._setup_round_cards(s)

    def pending(self, state: State) -> Request:
        """What must happen next."""
        if state.fault is not None:
            return GameOver()
        kind = STEPS.get(state.step, "over")
        prompt = PROMPTS.get(state.step, state.step)
        if kind == "shuffle":
            return Shuffle(state.op_refs)
        if kind == "deal":
            return Deal(state.op_pairs)
        if kind == "show":
            return Show(state.op_pairs)
        if kind == "reveal":
            return Reveal(state.op_refs)
        if kind == "disclose":
            return Disclose(state.op_refs)
        if kind == "random":
            return Random(state.op_n, state.step)
        if kind == "decide":
            return Decide(state.decider, prompt)
        if kind == "commit":
            return Commit(state.commit_seats, prompt)
        return GameOver()

    @staticmethod
    def _choices(event: Event, seats: Iterable[Seat]) -> Iterator[tuple[Seat, Mapping[str, Any]]]:
        """Each seat's committed choice, in seat order (only the one being checked, for
        :meth:`check_choice`)."""
        choices = event.data["choices"]
        for seat in seats:
            if isinstance(choices, _OneChoice) and seat not in choices:
                continue
            yield seat, _move(choices[seat])

    def check_choice(self, state: State, seat: Seat, move: Mapping[str, Any]) -> None:
        """Raise ``IllegalMove`` if ``seat``'s committed ``move`` breaks a rule on its own (keeping
        a Princess it was not dealt, passing cards it does not hold, a Crystal Clear layout that
        contradicts public cards…), whatever the others chose."""
        request = self.pending(state)
        if not isinstance(request, Commit) or seat not in request.seats:
            raise IllegalMove(f"{seat_name(seat)} has no choice to make now")
        handler: Callable[[State, Event], State] = getattr(self, f"_on_{state.step}")
        _check_keys(state.step, move)
        try:
            handler(state, Event(COMMITTED, None, {"choices": _OneChoice({seat: move})}))
        except IllegalMove:
            raise
        except Exception:  # what follows the per-seat checks needs every seat's choice
            return

    def apply(self, state: State, event: Event) -> State:
        """Validate ``event`` against public information and return the next state."""
        if not isinstance(state, State):
            raise IllegalMove("not a Rebel Princess state")
        if not isinstance(event, Event) or not isinstance(event.data, Mapping):
            raise IllegalMove("not an event: expected an Event whose data is a map")
        request = self.pending(state)
        expect_event(request, event)
        if event.kind == MOVE:
            _check_keys(state.step, event.data)
        elif event.kind == COMMITTED and isinstance(choices := event.data.get("choices"), Mapping):
            for choice in choices.values():
                _check_keys(state.step, choice)
        handler: Callable[[State, Event], State] = getattr(self, f"_on_{state.step}")
        new = handler(state, event)
        if self.simulating:  # a bot's rollout: nobody watches, no knowledge model, no re-masking
            new = replace(new, events=state.events + 1)
        else:
            knowledge = track(self, state, request, event, new, state.knowledge)
            new = replace(new, events=state.events + 1, knowledge=knowledge)
        if any(new.laid):  # laid-out cards stop being laid out once they leave the hand
            laid = tuple(tuple(r for r in refs if r in new.hands[t]) for t, refs in enumerate(new.laid))
            new = replace(new, laid=laid)
        return new if self.simulating else self._hide_if_needed(new)

    # -- hiding: re-masking a hand before its cards move face down ------------------------------
    HIDE_BEFORE = frozenset({"pass", "aside", "gift", "chairs", "bazaar_pick", "freeze_pick"})
    """Steps that move cards face down out of hands by a private choice or a random draw."""

    def _hide_if_needed(self, s: State) -> State:
        """Before a step of :data:`HIDE_BEFORE`, re-mask every hand concerned that another seat may
        partly know (the knowledge model), so no card can be followed through the move."""
        if s.step not in self.HIDE_BEFORE or s.fault is not None:
            return s
        if s.step == "bazaar_pick":
            seats: Sequence[Seat] = (s.target, s.actor)
        elif s.step == "freeze_pick":
            seats = () if s.picks else (s.target,)
        else:
            seats = range(self.seats)
        queue = []
        for seat in seats:
            group = self.hidden_hand(s, seat)
            if group and s.knowledge.others_know(group, seat):
                queue.append((seat, *group))
        if not queue:
            return s
        return replace(s, step="hide", resume=s.step, hide=tuple(queue), op_refs=queue[0][1:], op_pairs=())

    def _on_hide(self, s: State, event: Event) -> State:
        owner, old = s.hide[0][0], s.hide[0][1:]
        fresh = tuple(range(s.next_ref, s.next_ref + len(old)))
        s = replace(
            s,
            next_ref=s.next_ref + len(old),
            hands=_set(s.hands, owner, _with(_without(s.hands[owner], old), fresh)),
            op_pairs=(*s.op_pairs, *((r, owner) for r in fresh)),
            hide=s.hide[1:],
            buried=(*s.buried, *old),
        )
        if s.hide:
            return replace(s, op_refs=s.hide[0][1:])
        return replace(s, step="hide_show", op_refs=())

    def _on_hide_show(self, s: State, event: Event) -> State:
        return replace(s, step=s.resume, resume="", op_pairs=())

    # -- request builders ---------------------------------------------------------------------
    @staticmethod
    def _decide(s: State, step: str, seat: Seat) -> State:
        return replace(s, step=step, decider=seat)

    def _commit(self, s: State, step: str, seats: Sequence[Seat] | None = None) -> State:
        return replace(s, step=step, commit_seats=tuple(range(self.seats)) if seats is None else tuple(seats))

    def _unknown(self, s: State, refs: Iterable[int]) -> tuple[int, ...]:
        return tuple(r for r in refs if self.public_face(s, r) is None)

    def _record_faces(self, s: State, event: Event, check: Callable[[int, Any], bool], what: str) -> State:
        faces = event.data["faces"]
        for ref, face in faces.items():
            if not isinstance(face, str) or not check(ref, face):
                raise IllegalMove(f"ref {ref} cannot be revealed as {face!r}: not {what}")
        new_faces = dict(s.faces)
        new_faces.update(faces)
        s = replace(s, faces=FrozenDict(new_faces))
        return self._settle_claims(s, faces)

    def _settle_claims(self, s: State, faces: Mapping[int, str]) -> State:
        """Compare revealed faces with the claims made about them; a mismatch ends the game."""
        keep = []
        for claim in s.claims:
            ref, expected, index, seat = claim
            if ref not in faces:
                keep.append(claim)
                continue
            actual = faces[ref]
            ok = (
                suit_of(actual) == expected[len(SUIT_CLAIM) :]
                if expected.startswith(SUIT_CLAIM)
                else actual == expected
            )
            if not ok and s.fault is None:
                shown = expected[len(SUIT_CLAIM) :] + " card" if expected.startswith(SUIT_CLAIM) else expected
                s = replace(
                    s, fault=Violation(index, seat, f"claimed ref {ref} was {shown} but it is {actual}")
                )
        s = replace(s, claims=tuple(keep))
        return replace(s, step="over") if s.fault is not None else s

    def _suit_reveal(self, s: State, event: Event) -> State:
        return self._record_faces(s, event, lambda _r, f: f in self._suit_set, "a suit card of this deck")

    # -- setup --------------------------------------------------------------------------------
    def _on_princess_shuffle(self, s: State, event: Event) -> State:
        base = s.next_ref
        offers = tuple((base + 2 * i, base + 2 * i + 1) for i in range(self.seats))
        pairs = tuple((ref, seat) for seat, pair in enumerate(offers) for ref in pair)
        return replace(
            s, step="princess_deal", next_ref=base + len(PRINCESSES), offers=offers, op_pairs=pairs
        )

    def _on_princess_deal(self, s: State, event: Event) -> State:
        return self._commit(s, "princess")

    def _on_princess(self, s: State, event: Event) -> State:
        kept = []
        for seat, move in self._choices(event, range(self.seats)):
            ref = _int(move, "keep")
            if ref not in s.offers[seat]:
                raise IllegalMove(
                    f"{seat_name(seat)} can only keep one of the Princesses dealt to it {s.offers[seat]}"
                )
            kept.append(ref)
        return replace(s, step="princess_reveal", princess_refs=tuple(kept), op_refs=tuple(kept))

    def _on_princess_reveal(self, s: State, event: Event) -> State:
        s = self._record_faces(s, event, lambda _r, f: f in P.BY_FACE, "a Princess")
        keys = tuple(P.BY_FACE[s.faces[r]].key for r in s.princess_refs)
        if len(set(keys)) != len(keys):
            raise IllegalMove("two seats cannot keep the same Princess")
        return self._setup_round_cards(replace(s, princesses=keys))

    def _setup_round_cards(self, s: State) -> State:
        chosen = self.options["round_cards"]
        if chosen is None:
            flagged = set(self.options["final_round_cards"])
            plain = tuple(self.round_base + i for i, ch in enumerate(LETTERS) if ch not in flagged)
            return replace(s, step="round_shuffle", op_refs=plain)
        if len(chosen) == self.options["rounds"]:
            spare = [ch for ch in self.options["final_round_cards"] + LETTERS if ch not in chosen]
            chosen += spare[0]
        refs = tuple(self.round_base + LETTERS.index(ch) for ch in chosen)
        return self._choose_first(replace(s, round_refs=refs))

    def _on_round_shuffle(self, s: State, event: Event) -> State:
        new = tuple(range(s.next_ref, s.next_ref + len(s.op_refs)))
        s = replace(s, next_ref=s.next_ref + len(new), round_refs=new)
        flagged = self.options["final_round_cards"]
        if flagged:
            refs = tuple(self.round_base + LETTERS.index(ch) for ch in sorted(flagged))
            return replace(s, step="final_shuffle", op_refs=refs)
        return self._choose_first(s)

    def _on_final_shuffle(self, s: State, event: Event) -> State:
        finals = tuple(range(s.next_ref, s.next_ref + len(s.op_refs)))
        plain, k = s.round_refs, self.options["rounds"] - 1
        # the last regular round and the tie-break round get final-round cards when there are enough
        order = plain[:k] + finals[:2] + plain[k:] + finals[2:]
        if len(finals) == 1:
            order = plain[:k] + finals + plain[k:]
        return self._choose_first(replace(s, next_ref=s.next_ref + len(finals), round_refs=order))

    def _choose_first(self, s: State) -> State:
        first = self.options["first_leader"]
        if first is None:
            return replace(s, step="first_leader", op_n=self.seats)
        return self._start_round(replace(s, first_leader=first), 0)

    def _on_first_leader(self, s: State, event: Event) -> State:
        return self._start_round(replace(s, first_leader=event.data["value"]), 0)

    # -- rounds -------------------------------------------------------------------------------
    def _start_round(self, s: State, number: int) -> State:
        n = self.seats
        leader = s.first_leader
        if number > 0:
            if self.options["round_leader"] == "last_winner":
                leader = s.last_winner
            else:
                totals = self.totals(s)
                low = min(totals)
                leader = next(
                    (s.first_leader + k) % n
                    for k in range(1, n + 1)
                    if totals[(s.first_leader + k) % n] == low
                )
        s = replace(
            s,
            round_no=number,
            letter="",
            first_leader=leader,
            leader=leader,
            spent=(False,) * n,
            waived=(False,) * n,
            princes_in=False,
            bluff_done=False,
            tricks_played=0,
            hands=((),) * n,
            aside=((),) * n,
            won=((),) * n,
            tricks_won=(0,) * n,
            gift=(),
            crystal=("",) * n,
            laid=((),) * n,
            trick=(),
            last_trick=(),
            last_trick_winner=-1,
            winner=-1,
        )
        s = self._clear_trick(s)
        ref = s.round_refs[number]
        face = self.public_face(s, ref)
        if face is None:
            return replace(s, step="round_reveal", op_refs=(ref,))
        return self._round_known(s, face)

    def _on_round_reveal(self, s: State, event: Event) -> State:
        s = self._record_faces(
            s, event, lambda _r, f: f.startswith("round-") and f[6:] in BY_LETTER, "a Round card"
        )
        return self._round_known(s, s.faces[s.op_refs[0]])

    def _round_known(self, s: State, face: Face) -> State:
        letter = face[len("round-") :]
        return replace(
            s,
            letter=letter,
            round_letters=(*s.round_letters, letter),
            step="deck_shuffle",
            op_refs=s.deck_refs,
        )

    def _on_deck_shuffle(self, s: State, event: Event) -> State:
        size, h = len(s.op_refs), self.hand_size
        new = tuple(range(s.next_ref, s.next_ref + size))
        hands = tuple(new[i * h : (i + 1) * h] for i in range(self.seats))
        pairs = tuple((ref, seat) for seat, hand in enumerate(hands) for ref in hand)
        return replace(
            s, step="deal", next_ref=s.next_ref + size, deck_refs=new, hands=hands, dealt=h, op_pairs=pairs
        )

    def _on_deal(self, s: State, event: Event) -> State:
        if BY_LETTER[s.letter].pass_count:
            return self._commit(s, "pass")
        return self._after_pass(s)

    def pass_targets(self, state: State, seat: Seat) -> list[Seat]:
        """Recipient of each card of ``seat``'s opening pass, in the order the move lists them."""
        out = []
        for direction, count in BY_LETTER[state.letter].passes:
            out += [(seat + 1) % self.seats if direction == LEFT else (seat - 1) % self.seats] * count
        return out

    def _on_pass(self, s: State, event: Event) -> State:
        count = BY_LETTER[s.letter].pass_count
        hands = [list(h) for h in s.hands]
        pairs: list[tuple[int, int]] = []
        for seat, move in self._choices(event, range(self.seats)):
            refs = _refs(move, "pass")
            if len(refs) != count or not set(refs) <= set(s.hands[seat]):
                raise IllegalMove(f"{seat_name(seat)} must pass exactly {count} cards from its own hand")
            pairs += zip(refs, self.pass_targets(s, seat), strict=True)
        for ref, to in pairs:
            owner = next(i for i in range(self.seats) if ref in s.hands[i])
            hands[owner].remove(ref)
            hands[to].append(ref)
        return replace(
            s, step="pass_show", hands=tuple(tuple(sorted(h)) for h in hands), op_pairs=tuple(pairs)
        )

    def _on_pass_show(self, s: State, event: Event) -> State:
        return self._after_pass(s)

    def aside_count(self, state: State) -> int:
        """Cards each player sets aside at the start of this round (0: no set-aside step)."""
        if state.letter == "b":
            return 1
        if state.letter == "m" or (state.letter == "q" and self.options["blind_mans_bluff"] == "set_aside"):
            return len(state.hands[0]) // 2
        return 0

    def _after_pass(self, s: State) -> State:
        if self.aside_count(s):
            return self._commit(s, "aside")
        if s.letter == "h":
            return self._commit(s, "crystal")
        return self._begin_trick(s)

    def _on_aside(self, s: State, event: Event) -> State:
        count = self.aside_count(s)
        hands, aside = list(s.hands), list(s.aside)
        for seat, move in self._choices(event, range(self.seats)):
            refs = _refs(move, "aside")
            if len(refs) != count or not set(refs) <= set(s.hands[seat]):
                raise IllegalMove(f"{seat_name(seat)} must set aside exactly {count} cards from its hand")
            hands[seat] = _without(s.hands[seat], refs)
            aside[seat] = tuple(sorted(refs))
        return self._begin_trick(replace(s, hands=tuple(hands), aside=tuple(aside)))

    def _on_crystal(self, s: State, event: Event) -> State:
        suits, claims, reveal, laid = [], list(s.claims), [], []
        for seat, move in self._choices(event, range(self.seats)):
            suit = move.get("suit")
            if suit not in SUITS:
                raise IllegalMove(f"{seat_name(seat)} must name a suit: one of {', '.join(SUITS)}")
            refs = _refs(move, "cards")
            if not refs or not set(refs) <= set(s.hands[seat]):
                raise IllegalMove(f"{seat_name(seat)} must lay out at least one card of its own hand")
            for ref in s.hands[seat]:
                face = self.public_face(s, ref)
                if face is not None and (suit_of(face) == suit) != (ref in refs):
                    raise IllegalMove(f"{seat_name(seat)}'s {suit} cards do not match what is publicly known")
            suits.append(suit)
            claims += [(r, SUIT_CLAIM + suit, s.events, seat) for r in refs]
            reveal += refs
            laid.append(tuple(sorted(refs)))
        s = replace(s, crystal=tuple(suits), claims=tuple(claims), laid=tuple(laid))
        return replace(s, step="crystal_reveal", op_refs=tuple(sorted(reveal)))

    def _on_crystal_reveal(self, s: State, event: Event) -> State:
        s = self._suit_reveal(s, event)
        return s if s.fault else self._begin_trick(s)

    # -- before a trick -----------------------------------------------------------------------
    def _clear_trick(self, s: State) -> State:
        n = self.seats
        return replace(
            s,
            trick=(),
            reverse=False,
            pea=False,
            mermaid="",
            rapunzel=False,
            lead_dictated=False,
            frozen=(-1,) * n,
            active=(False,) * n,
            power_queue=(),
            used=(),
            winner=-1,
            actor=-1,
            target=-1,
            picks=(),
            contributions=(),
        )

    def _begin_trick(self, s: State) -> State:
        s = self._clear_trick(s)
        if s.letter == "o" and all(len(h) >= 2 for h in s.hands):
            return self._commit(s, "gift")
        return self._open_powers(s)

    def _on_gift(self, s: State, event: Event) -> State:
        hands, gift = list(s.hands), list(s.gift)
        for seat, move in self._choices(event, range(self.seats)):
            ref = _int(move, "card")
            if ref not in s.hands[seat]:
                raise IllegalMove(f"{seat_name(seat)} must give a card from its own hand")
            hands[seat] = _without(s.hands[seat], (ref,))
            gift.append(ref)
        return self._open_powers(replace(s, hands=tuple(hands), gift=tuple(sorted(gift))))

    def _open_powers(self, s: State) -> State:
        if not self.options["princess_powers"]:
            return self._start_play(s)
        totals, n = self.totals(s), self.seats
        seats = [
            t
            for t in range(n)
            if s.princesses[t] in BEFORE_TRICK_POWERS and not s.spent[t] and not (s.waived and s.waived[t])
        ]
        # most proposals first, ties clockwise from the leader (rules §7.1 recommendation)
        seats.sort(key=lambda t: (-totals[t], (t - s.leader) % n))
        return self._next_power(replace(s, power_queue=tuple(seats)))

    def _next_power(self, s: State) -> State:
        queue = s.power_queue
        while queue:
            if self.power_uses(s, queue[0]):
                return self._decide(replace(s, power_queue=queue), "power", queue[0])
            queue = queue[1:]
        return self._start_play(replace(s, power_queue=()))

    def power_uses(self, state: State, seat: Seat) -> list[dict[str, Any]]:
        """Every way ``seat`` may use its before-trick power now (empty if it cannot)."""
        key = state.princesses[seat]
        if key not in BEFORE_TRICK_POWERS or state.spent[seat]:
            return []
        n, leader = self.seats, state.leader
        lead_forced = state.lead_dictated or state.frozen[leader] >= 0
        if key in (P.CINDERELLA, P.PEA):
            return [{"use": True}]
        if key == P.POCAHONTAS:
            return [
                {"use": True, "leader": t}
                for t in range(n)
                if not (state.lead_dictated and state.frozen[t] >= 0)
            ]
        if key == P.MERMAID:
            return [] if lead_forced else [{"use": True, "suit": suit} for suit in SUITS]
        if key == P.RAPUNZEL:
            return [] if lead_forced else [{"use": True}]
        if key == P.SLEEPING_BEAUTY:
            return [{"use": True}] if all(self.available(state, t) for t in range(n)) else []
        if key == P.SCHEHERAZADE:
            return [{"use": True, "target": t} for t in range(n) if t != seat and self.hidden_hand(state, t)]
        if key == P.ICE:
            return [
                {"use": True, "target": t}
                for t in range(n)
                if self.hidden_hand(state, t)
                and state.frozen[t] < 0
                and not (state.lead_dictated and t == leader)
            ]
        return []

    def _on_power(self, s: State, event: Event) -> State:
        seat, move = s.decider, _move(event.data)
        # one answer, one encoding: 'use' always said, 'round' only as true (a signed answer that
        # could be written two ways would carry a hidden bit)
        if (
            set(move) - POWER_KEYS
            or "use" not in move
            or ("round" in move and move["round"] is not True)
            or (_bool(move, "round") and move.get("use"))
        ):
            raise IllegalMove("answer use true (with its choice), use false, or use false for the round")
        if not _bool(move, "use"):
            if _bool(move, "round"):  # "not this round": not asked again before the next round
                s = replace(s, waived=_set(s.waived, seat, True))
            return self._next_power(replace(s, power_queue=s.power_queue[1:]))
        if any(k in move and type(move[k]) is not int for k in ("leader", "target")):
            raise IllegalMove("'leader' and 'target' must be seat numbers")
        wanted = {k: move[k] for k in ("use", "leader", "suit", "target") if k in move}
        if wanted not in self.power_uses(s, seat):
            raise IllegalMove(f"{seat_name(seat)} cannot use its power like that now: {wanted}")
        key = s.princesses[seat]
        s = replace(s, spent=_set(s.spent, seat, True), power_queue=s.power_queue[1:], used=(*s.used, key))
        if key == P.CINDERELLA:
            return self._next_power(replace(s, reverse=True))
        if key == P.PEA:
            return self._next_power(replace(s, pea=True))
        if key == P.POCAHONTAS:
            return self._next_power(replace(s, leader=move["leader"]))
        if key == P.MERMAID:
            return self._next_power(replace(s, mermaid=move["suit"], lead_dictated=True))
        if key == P.RAPUNZEL:
            return self._next_power(replace(s, rapunzel=True, lead_dictated=True))
        if key == P.SLEEPING_BEAUTY:
            return self._commit(replace(s, actor=seat), "spindle")
        target = move["target"]
        s = replace(s, actor=seat, target=target, picks=())
        if key == P.SCHEHERAZADE:
            return replace(s, step="bazaar_pick", op_n=len(self.hidden_hand(s, target)))
        # the Ice Princess: with a single face-down card there is nothing to choose
        cards = self.hidden_hand(s, target)
        if len(cards) == 1:
            return self._freeze(replace(s, picks=cards), cards[0])
        return replace(s, step="freeze_pick", op_n=len(cards))

    def _on_spindle(self, s: State, event: Event) -> State:
        hands, given = list(s.hands), []
        for seat, move in self._choices(event, range(self.seats)):
            ref = _int(move, "card")
            if ref not in self.available(s, seat):
                raise IllegalMove(f"{seat_name(seat)} must give Sleeping Beauty a card from its own hand")
            hands[seat] = _without(s.hands[seat], (ref,))
            given.append(ref)
        s = replace(s, hands=tuple(hands), contributions=tuple(given))
        unknown = self._unknown(s, given)
        if not unknown:
            return self._decide(s, "spindle_give", s.actor)
        return replace(s, step="spindle_reveal", op_refs=tuple(sorted(unknown)))

    def _on_spindle_reveal(self, s: State, event: Event) -> State:
        return self._decide(self._suit_reveal(s, event), "spindle_give", s.actor)

    def _on_spindle_give(self, s: State, event: Event) -> State:
        move, actor = _move(event.data), s.actor
        keep = _int(move, "keep")
        give = move.get("give")
        if keep not in s.contributions:
            raise IllegalMove("Sleeping Beauty must keep one of the contributed cards")
        if not isinstance(give, list | tuple) or any(
            not isinstance(p, list | tuple) or len(p) != 2 or any(type(x) is not int for x in p) for p in give
        ):
            raise IllegalMove("'give' must be a list of [seat, ref] pairs")
        others = sorted(t for t in range(self.seats) if t != actor)
        rest = sorted(r for r in s.contributions if r != keep)
        if sorted(p[0] for p in give) != others or sorted(p[1] for p in give) != rest:
            raise IllegalMove(
                "Sleeping Beauty must give each other player exactly one of the remaining cards"
            )
        hands = list(s.hands)
        hands[actor] = _with(hands[actor], (keep,))
        for seat, ref in give:
            hands[seat] = _with(hands[seat], (ref,))
        return self._next_power(replace(s, hands=tuple(hands), contributions=(), actor=-1))

    def _on_bazaar_pick(self, s: State, event: Event) -> State:
        ref = self.hidden_hand(s, s.target)[event.data["value"]]
        return replace(s, step="bazaar_show", picks=(ref,), op_pairs=((ref, s.actor),))

    def _on_bazaar_show(self, s: State, event: Event) -> State:
        return self._decide(s, "bazaar", s.actor)

    def _on_bazaar(self, s: State, event: Event) -> State:
        move, actor, target = _move(event.data), s.actor, s.target
        swap = move.get("swap")
        if swap is None:
            return self._next_power(replace(s, actor=-1, target=-1, picks=()))
        if type(swap) is not int or swap not in self.available(s, actor):
            raise IllegalMove(
                "Scheherazade must swap a card from her own hand, or give the card back (swap: null)"
            )
        taken = s.picks[0]
        hands = list(s.hands)
        hands[target] = _with(_without(hands[target], (taken,)), (swap,))
        hands[actor] = _with(_without(hands[actor], (swap,)), (taken,))
        s = replace(s, hands=tuple(hands))
        return replace(s, step="bazaar_return", op_pairs=((swap, target),))

    def _on_bazaar_return(self, s: State, event: Event) -> State:
        return self._next_power(replace(s, actor=-1, target=-1, picks=()))

    def _on_freeze_pick(self, s: State, event: Event) -> State:
        remaining = _without(self.hidden_hand(s, s.target), s.picks)
        picks = (*s.picks, remaining[event.data["value"]])
        if len(picks) < 2:
            return replace(s, step="freeze_pick", picks=picks, op_n=len(remaining) - 1)
        return replace(s, step="freeze_show", picks=picks, op_pairs=tuple((r, s.actor) for r in picks))

    def _on_freeze_show(self, s: State, event: Event) -> State:
        return self._decide(s, "freeze", s.actor)

    def _on_freeze(self, s: State, event: Event) -> State:
        ref = _int(_move(event.data), "freeze")
        if ref not in s.picks:
            raise IllegalMove(f"the Ice Princess must freeze one of the two cards she looked at {s.picks}")
        return self._freeze(s, ref)

    def _freeze(self, s: State, ref: int) -> State:
        s = replace(s, frozen=_set(s.frozen, s.target, ref), picks=(ref,))
        if self.public_face(s, ref) is None:
            return replace(s, step="freeze_reveal", op_refs=(ref,))
        return self._frozen(s)

    def _on_freeze_reveal(self, s: State, event: Event) -> State:
        return self._frozen(self._suit_reveal(s, event))

    def _frozen(self, s: State) -> State:
        face = self.public_face(s, s.picks[0])
        # a frozen Prince makes Princes sneak in at once (rules §5.1, §12.11)
        princes_in = s.princes_in or (face is not None and is_prince(face))
        return self._next_power(replace(s, princes_in=princes_in, actor=-1, target=-1, picks=()))

    # -- playing ------------------------------------------------------------------------------
    def _start_play(self, s: State) -> State:
        return self._decide(replace(s, trick=()), "play", s.leader)

    def play_problem(
        self,
        state: State,
        seat: Seat,
        move: tuple[Ref, Face, bool, bool],
        hand: Sequence[tuple[Ref, Face]],
        complete: bool,
    ) -> str | None:
        """Why ``move`` = (ref, face, power, void) breaks a rule given ``hand``, or None if it may stand.

        ``hand`` is what is known of the seat's playable hand, the played card included; with
        ``complete`` False unknown cards are left out and the claim gets the benefit of the doubt.
        """
        ref, face, power, void = move
        ctx = self.play_context(state, seat)
        frozen = ctx.frozen
        if frozen >= 0 and ref != frozen:
            return "a frozen card must be its owner's next play"
        if ref not in {r for r, _ in hand}:
            return "that card is not in the player's hand"
        options = play_options(ctx, hand)
        plain = {(r, f) for r, f, p, _ in options if not p}
        thumbelina = ctx.princess == P.THUMBELINA and not (ctx.lead or ctx.led) and frozen < 0
        exempt = frozen >= 0
        if power:
            if ctx.princess == P.SNOW_WHITE:
                if not ctx.power_ready or ctx.power_active:
                    return "Snow White's power is already spent this round"
                if number_of(face) > 7:
                    return "Snow White's power only works on a card numbered 7 or less"
            elif thumbelina and (ctx.power_ready or ctx.power_active):
                if is_prince(face) or face == FROG:
                    return "Thumbelina's power cannot play a Prince or the Frog"
                exempt = True
            else:
                return "no Princess power can be used with this card now"
        if (ref, face) not in plain and not (power and thumbelina):
            return self._explain(ctx, face, hand)
        if ctx.lead:
            return "the leader is never void" if void else None
        # the frozen card counts only when it follows suit itself (it is then no void card)
        holds_follow = [f for r, f in hand if (r != frozen or follows(face, ctx)) and follows(f, ctx)]
        if void and holds_follow:
            return f"claimed to be void in {ctx.follow} while holding {card_name(holds_follow[0])}"
        if not void:
            if not follows(face, ctx) and not exempt:
                return f"played off-suit without being void in {ctx.follow}"
            if complete and not holds_follow:
                return f"claimed not to be void in {ctx.follow} without holding any"
        return None

    def _explain(self, ctx: PlayContext, face: Face, hand: Sequence[tuple[Ref, Face]]) -> str:
        faces = [f for _, f in hand]
        if ctx.lead:
            if ctx.rapunzel and any(is_prince(f) for f in faces) and not is_prince(face):
                return "Rapunzel: the leader must lead a Prince"
            if ctx.mermaid and any(suit_of(f) == ctx.mermaid for f in faces) and suit_of(face) != ctx.mermaid:
                return f"the Little Mermaid: the leader must lead {ctx.mermaid} if they can"
            if is_prince(face) and not ctx.princes_in:
                return "Princes cannot be led before they sneak in (unless the hand holds only Princes)"
        elif not follows(face, ctx) and any(follows(f, ctx) for f in faces):
            return f"must follow suit ({ctx.follow})"
        if ctx.letter == "c":
            return "Magic Beans: only the highest or lowest card of the suit may be played"
        if ctx.letter == "s":
            return "Odds and Evens: follow the suit and the lead's parity when possible"
        if ctx.pea:
            return "the Pea Princess: a card higher than 5 must be played when possible"
        return f"{card_name(face)} cannot be played now"

    def _normalise_play(self, move: Any) -> tuple[Ref, Face, bool, bool | None]:
        move = _move(move)
        void = move.get("void")
        if void is not None and type(void) is not bool:
            raise IllegalMove("'void' must be true or false")
        return _int(move, "card"), _face_arg(move), _bool(move, "power"), void

    def _public_hand(self, s: State, seat: Seat, ref: Ref, face: Face) -> tuple[list[tuple[Ref, Face]], bool]:
        hand, complete = [], True
        for r in s.hands[seat]:
            known = self.public_face(s, r)
            if r == ref:
                hand.append((r, face))
            elif known is not None:
                hand.append((r, known))
            else:
                complete = False
        return hand, complete

    def _validate_play(self, s: State, seat: Seat, raw: Any) -> Play:
        ref, face, power, void = self._normalise_play(raw)
        if ref not in s.hands[seat]:
            raise IllegalMove(f"ref {ref} is not in {seat_name(seat)}'s playable hand")
        known = self.public_face(s, ref)
        if known is not None and known != face:
            raise IllegalMove(f"ref {ref} is publicly known to be {known}, not {face}")
        if known is None and face not in self._suit_set:
            raise IllegalMove(f"{face} is not in this deck")
        if known is None and any(self.public_face(s, r) == face for r in self.live_refs(s)):
            raise IllegalMove(f"{face} is publicly known to be elsewhere")
        ctx = self.play_context(s, seat)
        if void is None:
            void = not ctx.lead and not follows(face, ctx)
        hand, complete = self._public_hand(s, seat, ref, face)
        problem = self.play_problem(s, seat, (ref, face, power, void), hand, complete)
        if problem:
            raise IllegalMove(f"{seat_name(seat)} cannot play {card_name(face)}: {problem}")
        snow = ctx.princess == P.SNOW_WHITE and (power or ctx.power_active)
        return Play(seat, ref, face, power, void, zero=snow and number_of(face) <= 7, frozen=ctx.frozen >= 0)

    def _add_play(self, s: State, play: Play) -> State:
        seat = play.seat
        s = replace(
            s,
            trick=(*s.trick, play),
            hands=_set(s.hands, seat, _without(s.hands[seat], (play.ref,))),
            frozen=_set(s.frozen, seat, -1),
        )
        if play.power:
            s = replace(s, spent=_set(s.spent, seat, True), active=_set(s.active, seat, True))
        # Princes sneak in only through a void Prince play (rules §5.1); frozen ones did at freezing
        if is_prince(play.face) and play.void:
            s = replace(s, princes_in=True)
        if self.public_face(s, play.ref) is None:
            s = replace(s, claims=(*s.claims, (play.ref, play.face, s.events, seat)))
        return s

    def _on_play(self, s: State, event: Event) -> State:
        play = self._validate_play(s, s.decider, event.data)
        s = self._add_play(s, play)
        unknown = self._unknown(s, (play.ref,))
        if unknown:
            return replace(s, step="play_reveal", op_refs=unknown)
        return self._next_turn(s)

    def _on_mask(self, s: State, event: Event) -> State:
        plays = [self._validate_play(s, seat, move) for seat, move in self._choices(event, s.commit_seats)]
        for play in plays:
            s = self._add_play(s, play)
        unknown = self._unknown(s, (p.ref for p in plays))
        if unknown:
            return replace(s, step="play_reveal", op_refs=tuple(sorted(unknown)))
        return self._next_turn(s)

    def _on_play_reveal(self, s: State, event: Event) -> State:
        s = self._suit_reveal(s, event)
        return s if s.fault else self._next_turn(s)

    def _next_turn(self, s: State) -> State:
        done = len(s.trick)
        if done >= self.trick_size(s):
            return self._end_of_plays(s)
        if s.letter == "i" and done == 1:
            followers = tuple((s.leader + k) % self.seats for k in range(1, self.seats))
            return self._commit(s, "mask", followers)
        return self._decide(s, "play", (s.leader + done) % self.seats)

    # -- after the last card ------------------------------------------------------------------
    def mulan_swaps(self, state: State, seat: Seat, faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        """Mulan's possible exchanges given the faces she knows (her hand)."""
        ban = self.options["mulan_frog"]
        out = []
        for play in state.trick:
            if play.seat != seat or (play.face == FROG and ban in ("both", "out")):
                continue
            for ref in state.hands[seat]:
                face = faces.get(ref) or self.public_face(state, ref)
                if face is None or suit_of(face) != suit_of(play.face):
                    continue
                if face == FROG and ban in ("both", "in"):
                    continue
                out.append({"swap": play.ref, "card": ref, "face": face})
        return out

    def _mulan_seat(self, s: State) -> Seat | None:
        if not self.options["princess_powers"]:
            return None
        for seat in range(self.seats):
            if s.princesses[seat] == P.MULAN and not s.spent[seat] and s.hands[seat]:
                ban_out = self.options["mulan_frog"] in ("both", "out")
                if any(p.seat == seat and not (ban_out and p.face == FROG) for p in s.trick):
                    return seat
        return None

    def _end_of_plays(self, s: State) -> State:
        seat = self._mulan_seat(s)
        if seat is not None:
            return self._decide(s, "mulan", seat)
        return self._resolve(s)

    def _on_mulan(self, s: State, event: Event) -> State:
        move, seat = _move(event.data), s.decider
        if move.get("swap") is None:
            return self._resolve(s)
        old, new, face = _int(move, "swap"), _int(move, "card"), _face_arg(move)
        index = next((i for i, p in enumerate(s.trick) if p.ref == old and p.seat == seat), None)
        if index is None:
            raise IllegalMove("Mulan can only exchange a card she played in this trick")
        if new not in s.hands[seat]:
            raise IllegalMove("Mulan must bring in a card from her own playable hand")
        known = self.public_face(s, new)
        if known is not None and known != face:
            raise IllegalMove(f"ref {new} is publicly known to be {known}, not {face}")
        if known is None and any(self.public_face(s, r) == face for r in self.live_refs(s)):
            raise IllegalMove(f"{face} is publicly known to be elsewhere")
        old_play = s.trick[index]
        if {"swap": old, "card": new, "face": face} not in self.mulan_swaps(s, seat, {new: face}):
            raise IllegalMove(
                f"Mulan can only exchange {card_name(old_play.face)} for another {suit_of(old_play.face)} "
                "card, and never involve the Frog"
            )
        new_play = replace(old_play, ref=new, face=face, zero=False, power=False)
        hands = _set(s.hands, seat, _with(_without(s.hands[seat], (new,)), (old,)))
        s = replace(s, trick=_set(s.trick, index, new_play), hands=hands, spent=_set(s.spent, seat, True))
        if known is None:
            s = replace(
                s, claims=(*s.claims, (new, face, s.events, seat)), step="mulan_reveal", op_refs=(new,)
            )
            return s
        return self._resolve(s)

    def _on_mulan_reveal(self, s: State, event: Event) -> State:
        s = self._suit_reveal(s, event)
        return s if s.fault else self._resolve(s)

    def _resolve(self, s: State) -> State:
        winner = self.winner_now(s, s.trick)
        s = replace(s, winner=winner)
        if (
            self.options["princess_powers"]
            and s.princesses[winner] == P.ALICE
            and not s.spent[winner]
            and all(p.face != FROG for p in s.trick)
        ):
            return self._decide(s, "alice", winner)
        return self._haggle_window(s)

    def _on_alice(self, s: State, event: Event) -> State:
        if "use" not in _move(event.data):
            raise IllegalMove("answer use true or use false")
        if not _bool(_move(event.data), "use"):
            return self._haggle_window(s)
        s = replace(s, spent=_set(s.spent, s.winner, True))
        return replace(s, step="alice_shuffle", op_refs=tuple(sorted(p.ref for p in s.trick)))

    def _on_alice_shuffle(self, s: State, event: Event) -> State:
        n, winner = self.seats, s.winner
        new = tuple(range(s.next_ref, s.next_ref + len(s.op_refs)))
        pairs = tuple((ref, (winner + 1 + i) % n) for i, ref in enumerate(new))
        hands = list(s.hands)
        for ref, seat in pairs:
            hands[seat] = _with(hands[seat], (ref,))
        won = _set(s.won, winner, _with(s.won[winner], s.gift))
        s = replace(
            s,
            next_ref=s.next_ref + len(new),
            hands=tuple(hands),
            won=won,
            gift=(),
            op_pairs=pairs,
            step="alice_deal",
            last_trick=s.trick,
            last_trick_winner=winner,
            trick=(),
            tricks_won=_set(s.tricks_won, winner, s.tricks_won[winner] + 1),
            tricks_played=s.tricks_played + 1,
            leader=winner,
            last_winner=winner,
        )
        return s

    def _on_alice_deal(self, s: State, event: Event) -> State:
        return self._after_trick(s)

    def haggle_swaps(self, state: State, faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        """The trick winner's possible Haggle with the Hag swaps, given the faces it knows."""
        winner = state.winner
        out = []
        for give in state.hands[winner]:
            face = faces.get(give) or self.public_face(state, give)
            if face is None:
                continue
            out += [{"give": give, "face": face, "take": p.ref} for p in state.trick if p.seat != winner]
        return out

    def _haggle_window(self, s: State) -> State:
        if s.letter == "p" and s.hands[s.winner] and any(p.seat != s.winner for p in s.trick):
            return self._decide(s, "haggle", s.winner)
        return self._collect(s)

    def _on_haggle(self, s: State, event: Event) -> State:
        move, winner = _move(event.data), s.winner
        if move.get("give") is None:
            return self._collect(s)
        give, take, face = _int(move, "give"), _int(move, "take"), _face_arg(move)
        if give not in s.hands[winner]:
            raise IllegalMove("the trick winner must show a card from its own playable hand")
        index = next((i for i, p in enumerate(s.trick) if p.ref == take), None)
        if index is None or s.trick[index].seat == winner:
            raise IllegalMove("the trick winner may take any card of the trick except its own")
        known = self.public_face(s, give)
        if known is not None and known != face:
            raise IllegalMove(f"ref {give} is publicly known to be {known}, not {face}")
        if known is None and any(self.public_face(s, r) == face for r in self.live_refs(s)):
            raise IllegalMove(f"{face} is publicly known to be elsewhere")
        taken = s.trick[index]
        # the shown card takes the taken card's place in the trick; it never makes Princes sneak in
        trick = _set(s.trick, index, Play(taken.seat, give, face))
        hands = _set(s.hands, winner, _with(_without(s.hands[winner], (give,)), (take,)))
        s = replace(s, trick=trick, hands=hands)
        if known is None:
            return replace(
                s, claims=(*s.claims, (give, face, s.events, winner)), step="haggle_reveal", op_refs=(give,)
            )
        return self._collect(s)

    def _on_haggle_reveal(self, s: State, event: Event) -> State:
        s = self._suit_reveal(s, event)
        return s if s.fault else self._collect(s)

    def _collect(self, s: State) -> State:
        winner = s.winner
        won = _set(s.won, winner, _with(s.won[winner], (*(p.ref for p in s.trick), *s.gift)))
        s = replace(
            s,
            won=won,
            gift=(),
            last_trick=s.trick,
            last_trick_winner=winner,
            trick=(),
            tricks_won=_set(s.tricks_won, winner, s.tricks_won[winner] + 1),
            tricks_played=s.tricks_played + 1,
            leader=winner,
            last_winner=winner,
        )
        return self._after_trick(s)

    # -- between tricks -----------------------------------------------------------------------
    def _after_trick(self, s: State) -> State:
        n = self.seats
        s = replace(s, winner=-1)
        if s.letter == "n" and s.hands[0] and all(len(h) <= 3 for h in s.hands) and not any(s.aside):
            won = tuple(_with(s.won[i], s.hands[i]) for i in range(n))
            return self._end_round(replace(s, won=won, hands=((),) * n))
        if (
            s.letter == "q"
            and self.options["blind_mans_bluff"] == "pass_remaining"
            and not s.bluff_done
            and s.tricks_played >= s.dealt // 2
            and any(s.hands)
        ):
            pairs = tuple((ref, (seat - 1) % n) for seat in range(n) for ref in s.hands[seat])
            hands = tuple(s.hands[(seat + 1) % n] for seat in range(n))
            return replace(s, bluff_done=True, hands=hands, op_pairs=pairs, step="bluff_show")
        return self._pickup(s)

    def _on_bluff_show(self, s: State, event: Event) -> State:
        return self._pickup(s)

    def _pickup(self, s: State) -> State:
        n = self.seats
        if not any(s.hands) and any(s.aside):
            if s.letter == "q":
                pairs = tuple((ref, (seat - 1) % n) for seat in range(n) for ref in s.aside[seat])
                hands = tuple(s.aside[(seat + 1) % n] for seat in range(n))
                return replace(s, hands=hands, aside=((),) * n, op_pairs=pairs, step="pickup_show")
            s = replace(s, hands=s.aside, aside=((),) * n)
        return self._chairs(s)

    def _on_pickup_show(self, s: State, event: Event) -> State:
        return self._chairs(s)

    def _chairs(self, s: State) -> State:
        if s.letter == "k" and all(s.hands):
            return self._commit(s, "chairs")
        return self._next_trick(s)

    def _on_chairs(self, s: State, event: Event) -> State:
        n = self.seats
        hands = [list(h) for h in s.hands]
        pairs = []
        for seat, move in self._choices(event, range(n)):
            refs = _refs(move, "pass")
            if len(refs) != 1 or refs[0] not in s.hands[seat]:
                raise IllegalMove(f"{seat_name(seat)} must pass exactly one card from its own hand")
            pairs.append((refs[0], (seat - 1) % n))
        for (ref, to), seat in zip(pairs, range(n), strict=True):
            hands[seat].remove(ref)
            hands[to].append(ref)
        return replace(
            s, hands=tuple(tuple(sorted(h)) for h in hands), op_pairs=tuple(pairs), step="chairs_show"
        )

    def _on_chairs_show(self, s: State, event: Event) -> State:
        return self._next_trick(s)

    def _next_trick(self, s: State) -> State:
        if not any(s.hands) and not any(s.aside):
            return self._end_round(s)
        return self._begin_trick(s)

    # -- round end ----------------------------------------------------------------------------
    def _end_round(self, s: State) -> State:
        s = self._clear_trick(s)
        # the refs re-masked this round are disclosed too: the audit needs their faces (a void claim
        # made before the re-mask), and once the round is over they no longer hide anything
        hidden = self._unknown(s, (*self.live_refs(s), *s.buried))
        return replace(s, step="disclose", op_refs=tuple(sorted(hidden)), buried=())

    def _on_disclose(self, s: State, event: Event) -> State:
        s = self._suit_reveal(s, event)
        if s.fault:
            return s
        return self._score_round(s)

    def round_scores(self, state: State) -> tuple[int, ...]:
        """Scores of the round just played, from the captured piles (all faces public by now)."""
        totals = self.totals(state)
        top = max(totals)
        out = []
        for seat in range(self.seats):
            faces = [self.public_face(state, r) or "" for r in state.won[seat]]
            score = pile_score(
                faces, state.letter, state.tricks_won[seat], doubled_princes=totals[seat] != top
            )
            if self.options["rebel_of_the_ball"] and self.princes | {FROG} <= set(faces):
                score = -10
            out.append(score)
        return tuple(out)

    def _score_round(self, s: State) -> State:
        s = replace(s, scores=(*s.scores, self.round_scores(s)))
        s = replace(s, deck_refs=tuple(sorted(r for pile in s.won for r in pile)))
        played = len(s.scores)
        rounds = self.options["rounds"]
        if played < rounds:
            return self._start_round(s, played)
        if played == rounds:
            best = self.winners(s)
            if self.options["tiebreak_round"] and len(best) > 1:
                return self._start_round(replace(s, tied=tuple(best)), played)
        return replace(s, step="over")

    def zero_rounds(self, state: State) -> tuple[int, ...]:
        """Rounds each seat finished with zero proposals (or fewer, per the ``zero_rounds`` option)."""
        strict = self.options["zero_rounds"] == "exactly_zero"
        return tuple(
            sum(1 for r in state.scores if (r[s] == 0 if strict else r[s] <= 0)) for s in range(self.seats)
        )

    def winners(self, state: State) -> list[Seat]:
        """Lowest total wins; tie: most zero rounds; still tied: shared (after any tie-break round)."""
        totals, zeros = self.totals(state), self.zero_rounds(state)
        pool = list(state.tied) or list(range(self.seats))
        low = min(totals[s] for s in pool)
        pool = [s for s in pool if totals[s] == low]
        most = max(zeros[s] for s in pool)
        return [s for s in pool if zeros[s] == most]

    def result(self, state: State) -> dict[str, Any]:
        """``winners``, ``scores`` (totals), per-round ``rounds``, ``zero_rounds``, Princesses, fault."""
        return {
            "winners": self.winners(state) if state.fault is None and state.scores else [],
            "scores": list(self.totals(state)),
            "rounds": [list(r) for r in state.scores],
            "zero_rounds": list(self.zero_rounds(state)),
            "round_cards": list(state.round_letters),
            "princesses": list(state.princesses),
            "fault": state.fault.to_dict() if state.fault else None,
        }

    # -- private knowledge --------------------------------------------------------------------
    def known_hand(self, state: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[tuple[Ref, Face]]:
        """``seat``'s playable hand as (ref, face) pairs, from its own knowledge and public facts."""
        out = []
        for ref in state.hands[seat]:
            face = own_faces.get(ref) or self.public_face(state, ref)
            if face is not None:
                out.append((ref, face))
        return out

    def legal_moves(self, state: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        """Every honest move for ``seat``'s pending Decide or its part of a pending Commit."""
        request = self.pending(state)
        if isinstance(request, Decide):
            if request.seat != seat:
                return []
        elif not (isinstance(request, Commit) and seat in request.seats):
            return []
        return moves_for(self, state, seat, own_faces)

    # -- check --------------------------------------------------------------------------------
    def check(
        self, history: Sequence[Event], faces: Mapping[Ref, Face], *, states: Sequence[Any] | None = None
    ) -> list[Violation]:
        """Replay ``history`` knowing ``faces`` and report every broken hidden-information rule
        (``states``: the states already known along it, see :meth:`Game.check`)."""
        found: list[Violation] = []
        known = len(states) if states is not None else 0
        state = states[0] if states else self.initial_state()
        for index, event in enumerate(history):
            if isinstance(self.pending(state), GameOver):
                found.append(
                    Violation(
                        index, event.seat if event.seat is not None else -1, "event after the game ended"
                    )
                )
                break
            found += audit_event(self, state, event, faces, index)
            if index + 1 < known:
                assert states is not None
                state = states[index + 1]
                continue
            try:
                state = self.apply(state, event)
            except IllegalMove as exc:
                found.append(
                    Violation(index, event.seat if event.seat is not None else -1, f"illegal event: {exc}")
                )
                break
        return found

    # -- words --------------------------------------------------------------------------------
    def describe(self, state: State, event: Event) -> str:
        """One line of plain English for ``event`` applied to ``state`` (public facts only)."""
        return describe(self, state, event)

    def card_text(self, face: Face) -> str:
        """Name and effect of any card of the game."""
        return card_text(face)

    def render(self, state: State, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
        """The table as ``seat`` sees it (``None``: the public view)."""
        return render(self, state, seat, own_faces)
