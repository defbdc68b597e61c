"""Regicide rules: one test per edge case EC-1..EC-32, the open-question decisions, illegal moves.

Positions are built by hand with :class:`Table`, which also plays a truthful dealer (it knows
every face and answers table operations), so each test drives the real engine event by event.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from engine.core import (
    DEALT,
    DISCLOSED,
    REVEALED,
    SHUFFLED,
    Deal,
    Decide,
    Disclose,
    Event,
    FrozenDict,
    GameOver,
    IllegalMove,
    Request,
    Reveal,
    Shuffle,
)
from engine.regicide import (
    DECK,
    ENEMY_ATTACK,
    ROYAL_RANKS,
    SUITS,
    Play,
    Regicide,
    State,
    rank_of,
)


class Table:
    """A hand-built Regicide position plus a truthful dealer that knows every face.

    Hands and the Tavern are hidden (their faces are in ``truth``), the enemy and the discard pile
    are public; ``public_tavern`` / ``public_hand`` make some of those face up (e.g. a royal from
    an exact kill). Shuffles keep the given order unless ``shuffle_seed`` is set.
    """

    def __init__(
        self,
        seats: int = 1,
        *,
        hands: Sequence[Sequence[str]] = ((),),
        enemy: str = "JC",
        tavern: Sequence[str] = (),
        discard: Sequence[str] = (),
        plays: Sequence[tuple[int, Sequence[str]]] = (),
        castle: Sequence[str] | None = None,
        damage: int = 0,
        seat: int = 0,
        options: Mapping[str, Any] | None = None,
        last_yield: Sequence[bool] | None = None,
        immunity_cancelled: bool = False,
        enemies_seen: Sequence[str] = (),
        public_tavern: Iterable[str] = (),
        public_hand: Iterable[str] = (),
        jesters: int | None = None,
        defeated: int | None = None,
        shuffle_seed: int | None = None,
    ) -> None:
        self.game = Regicide(seats, options)
        self.truth: dict[int, str] = {}
        self.requests: list[Request] = []
        self.rng = random.Random(shuffle_seed) if shuffle_seed is not None else None
        self._next = 1000
        public: dict[int, str] = {}
        shown = set(public_tavern) | set(public_hand)

        def alloc(faces: Iterable[str], visible: bool = False) -> tuple[int, ...]:
            refs = []
            for face in faces:
                ref = self._next
                self._next += 1
                self.truth[ref] = face
                if visible or face in shown:
                    public[ref] = face
                refs.append(ref)
            return tuple(refs)

        enemy_ref = alloc([enemy], True)[0]
        seen = tuple(dict.fromkeys([*enemies_seen, enemy]))
        if castle is None:
            rank_index = ROYAL_RANKS.index(rank_of(enemy))
            castle = [r + s for r in ROYAL_RANKS[rank_index:] for s in SUITS if r + s not in seen]
        if jesters is None:
            jesters = 2 if seats == 1 else 0
        jester_refs = tuple(range(52, 52 + jesters)) if seats == 1 else ()
        used = tuple(range(52 + jesters, 54)) if seats == 1 else ()
        for ref in jester_refs + used:
            public[ref] = DECK[ref]
            self.truth[ref] = DECK[ref]
        self.state = State(
            phase="play",
            seat=seat,
            castle=alloc(castle),
            enemy=enemy_ref,
            damage=damage,
            immunity_cancelled=immunity_cancelled,
            plays=tuple(Play(s, tuple(zip(alloc(fs, True), fs, strict=True))) for s, fs in plays),
            tavern=alloc(tavern),
            discard=alloc(discard, True),
            hands=tuple(alloc(h) for h in hands),
            public=FrozenDict(public),
            last_yield=tuple(last_yield) if last_yield is not None else (False,) * seats,
            jesters=jester_refs,
            jesters_used=used,
            enemies_seen=seen,
            defeated=4 * ROYAL_RANKS.index(rank_of(enemy)) if defeated is None else defeated,
            next_ref=self._next + 100,
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
        )

    # -- knowledge ---------------------------------------------------------------------------
    def ref(self, face: str) -> int:
        """The live ref holding ``face``."""
        live = {r for refs in self.game.zones(self.state).values() for r in refs}
        matches = [r for r, f in self.truth.items() if f == face and r in live]
        assert len(matches) == 1, (face, matches)
        return matches[0]

    def own(self, seat: int) -> dict[int, str]:
        """What ``seat`` knows: its hand and every public face."""
        return {**{r: self.truth[r] for r in self.state.hands[seat]}, **self.state.public}

    def hand(self, seat: int) -> list[str]:
        """The faces in ``seat``'s hand."""
        return [self.truth[r] for r in self.state.hands[seat]]

    def faces(self, refs: Iterable[int]) -> list[str]:
        """The true faces of ``refs``."""
        return [self.truth[r] for r in refs]

    # -- driving -------------------------------------------------------------------------------
    @property
    def pending(self) -> Request:
        """The engine's current request."""
        return self.game.pending(self.state)

    def cards(self, *faces: str) -> list[list[Any]]:
        """``[[ref, face], ...]`` for faces currently held."""
        return [[self.ref(f), f] for f in faces]

    def do(self, move: Mapping[str, Any], seat: int | None = None, settle: bool = True) -> State:
        """Apply a move by the deciding seat (or ``seat``), then let the dealer run."""
        request = self.pending
        if seat is None:
            assert isinstance(request, Decide), request
            seat = request.seat
        self.state = self.game.apply(self.state, Event.move(seat, move))
        if settle:
            self.settle()
        return self.state

    def play(self, *faces: str) -> State:
        """The deciding seat plays ``faces``."""
        return self.do({"play": self.cards(*faces)})

    def pay(self, *faces: str) -> State:
        """The deciding seat discards ``faces``."""
        return self.do({"discard": self.cards(*faces)})

    def settle(self) -> None:
        """Answer table operations truthfully until a decision or the end."""
        while True:
            request = self.pending
            if isinstance(request, Decide | GameOver):
                return
            self.requests.append(request)
            self.state = self.game.apply(self.state, self.answer(request))

    def answer(self, request: Request) -> Event:
        """The truthful event for a table operation."""
        if isinstance(request, Shuffle):
            faces = [self.truth[r] for r in request.refs]
            if self.rng is not None:
                self.rng.shuffle(faces)
            for i, face in enumerate(faces):
                self.truth[self.state.next_ref + i] = face
            return Event(SHUFFLED)
        if isinstance(request, Deal):
            return Event(DEALT)
        if isinstance(request, Reveal):
            return Event(REVEALED, None, {"faces": {r: self.truth[r] for r in request.refs}})
        if isinstance(request, Disclose):
            return Event(DISCLOSED, None, {"faces": {r: self.truth[r] for r in request.refs}})
        raise AssertionError(request)

    def illegal(self, move: Mapping[str, Any], match: str, seat: int | None = None) -> None:
        """Assert that ``move`` raises IllegalMove matching ``match`` and changes nothing."""
        before = self.state
        snapshot = before.to_dict()
        request = self.pending
        if seat is None:
            assert isinstance(request, Decide)
            seat = request.seat
        with pytest.raises(IllegalMove, match=match):
            self.game.apply(before, Event.move(seat, move))
        assert self.state is before and before.to_dict() == snapshot

    def kinds(self) -> list[str]:
        """The kinds of table requests seen so far."""
        return [type(r).__name__ for r in self.requests]


# ---------------------------------------------------------------------------------------------
# EC-1 .. EC-32
# ---------------------------------------------------------------------------------------------


def test_ec_01_hearts_with_empty_discard_pile_does_nothing() -> None:
    t = Table(hands=[["5H", "9C"]], tavern=["2C", "3C"])
    t.play("5H")
    assert "Shuffle" not in t.kinds()
    assert t.faces(t.state.tavern) == ["2C", "3C"]
    assert t.state.discard == ()
    assert t.pending == Decide(0, "discard")


def test_ec_02_hearts_moves_whole_small_discard_pile_under_tavern() -> None:
    t = Table(hands=[["8H", "9C"]], tavern=["2C", "3C"], discard=["4S", "6D", "7C"], shuffle_seed=3)
    t.play("8H")
    assert t.kinds() == ["Reveal", "Shuffle"]  # the played card, then the heal (nothing left to turn up)
    assert t.state.discard == ()
    assert t.faces(t.state.tavern[:2]) == ["2C", "3C"]
    assert sorted(t.faces(t.state.tavern[2:])) == ["4S", "6D", "7C"]
    assert all(r not in t.state.public for r in t.state.tavern[2:])  # healed cards are face down


def test_ec_03_diamonds_stop_when_the_tavern_runs_out() -> None:
    t = Table(hands=[["7D", "9C"]], tavern=["2C", "3S"])
    t.play("7D")
    assert t.state.tavern == ()
    assert sorted(t.hand(0)) == ["2C", "3S", "9C"]
    assert t.pending == Decide(0, "discard")  # no penalty: the turn goes on


def test_ec_04_diamonds_draw_nothing_beyond_full_hands() -> None:
    full = ["2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    t = Table(2, hands=[["9D", "2C", "3C", "4C", "5C", "6C", "7C"], full], tavern=["8C", "9C", "10C"])
    t.play("9D")
    assert len(t.state.hands[0]) == 7 and len(t.state.hands[1]) == 7
    assert t.faces(t.state.tavern) == ["9C", "10C"]  # only one card fitted; the rest stays


def test_ec_05_hearts_resolve_before_diamonds() -> None:
    t = Table(
        hands=[["AH", "7D", "10C"]],
        tavern=[],
        discard=["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S"],
    )
    t.play("AH", "7D")
    kinds = t.kinds()
    assert kinds.index("Shuffle") < kinds.index("Deal")
    # X = 8: 8 of the 9 discards healed under the empty Tavern, then 7 drawn (hand limit 8)
    assert len(t.state.hands[0]) == 8
    assert len(t.state.tavern) == 1
    assert len(t.state.discard) == 1


def test_ec_06_ace_with_same_suit_fires_the_power_once() -> None:
    t = Table(hands=[["AS", "9S", "10C"]], enemy="JC")
    t.play("AS", "9S")
    assert t.game.shield(t.state) == 10
    assert t.game.attack_due(t.state) == 0
    assert t.state.damage == 10
    assert t.pending == Decide(0, "discard")  # solo with Jesters left: the Step 4 window (OQ-5)


def test_ec_07_ace_with_ace_is_legal_and_both_powers_fire() -> None:
    t = Table(hands=[["AH", "AD", "10C"]], enemy="JC", tavern=["2C", "3C", "4C"], discard=["9S", "8S"])
    t.play("AH", "AD")
    assert t.state.damage == 2
    assert len(t.state.discard) == 0  # 2 healed
    assert len(t.state.hands[0]) == 3  # 1 left + 2 drawn
    assert t.faces(t.state.tavern[:1]) == ["4C"]


def test_ec_08_ace_in_a_combo_or_aces_combo_is_illegal() -> None:
    t = Table(hands=[["AH", "2C", "2S", "AD", "AS"]])
    t.illegal({"play": t.cards("AH", "2C", "2S")}, "Ace")
    t.illegal({"play": t.cards("AH", "AD", "AS")}, "Ace")


def test_ec_09_ace_with_jester_is_illegal() -> None:
    t = Table(3, hands=[["AH", "X1", "5C"], ["2C"], ["3C"]])
    t.illegal({"play": t.cards("AH", "X1")}, "Jester must be played alone")


def test_ec_10_ace_with_royal_from_hand() -> None:
    t = Table(
        hands=[["AC", "QH", "9S"]],
        enemy="KS",
        enemies_seen=["QH"],
        public_hand=["QH"],
        castle=["KH"],
        discard=[f"{r}D" for r in range(2, 11)] + [f"{r}C" for r in range(2, 11)],
    )
    t.play("AC", "QH")
    assert t.state.damage == 32
    assert len(t.state.discard) == 18 - 16


def test_ec_11_pair_of_fives_legal_pair_of_sixes_illegal() -> None:
    t = Table(hands=[["5C", "5S", "6C", "6S"]], enemy="QH")
    t.illegal({"play": t.cards("6C", "6S")}, "at most 10")
    t.play("5C", "5S")
    assert t.state.damage == 20  # clubs double 10
    assert t.game.shield(t.state) == 10


def test_ec_12_combo_with_the_enemy_suit() -> None:
    t = Table(hands=[["4D", "4C", "9S"]], enemy="JD", tavern=["2C", "3C"])
    t.play("4D", "4C")
    assert t.state.damage == 16
    assert len(t.state.tavern) == 2 and len(t.state.hands[0]) == 1


def test_ec_13_ace_matching_the_enemy_suit() -> None:
    t = Table(hands=[["AD", "8C", "9S"]], enemy="JD", tavern=["2C"])
    t.play("AD", "8C")
    assert t.state.damage == 18
    assert len(t.state.tavern) == 1


def test_ec_14_exact_kill_goes_face_down_on_top_of_the_tavern_after_the_draw() -> None:
    t = Table(hands=[["5D", "9S"]], enemy="JS", damage=15, tavern=["2C", "3C", "4C", "5C", "6C", "7C"])
    enemy = t.state.enemy
    t.play("5D")
    assert t.state.tavern[0] == enemy
    assert t.state.public[enemy] == "JS"  # face down, but everyone saw which card went there
    assert "Tavern: 2 (top JS, face down)" in t.game.render(t.state, None, {})
    t2 = Table(hands=[["5D", "9S"]], enemy="JS", damage=15, tavern=["2C", "3C", "4C", "5C", "6C", "7C"])
    t2.do({"play": t2.cards("5D")}, settle=False)  # the 5D is revealed, the draw made, then the kill
    lines = []
    while not isinstance(t2.pending, Decide | GameOver):
        event = t2.answer(t2.pending)
        lines.append(t2.game.describe(t2.state, event))
        t2.state = t2.game.apply(t2.state, event)
    assert any("defeated with exact damage and goes face down on top of the Tavern" in x for x in lines)
    assert enemy not in t.game.face_up(t.state)
    assert sorted(t.hand(0)) == ["2C", "3C", "4C", "5C", "6C", "9S"]  # the draw came first
    assert t.state.defeated == 1 and t.game.enemy_face(t.state) != "JS"


def test_ec_15_overkill_goes_to_the_discard_pile() -> None:
    t = Table(hands=[["9C", "9S"]], enemy="JH", damage=15)
    enemy = t.state.enemy
    t.play("9C")
    assert enemy in t.state.discard
    assert enemy not in t.state.tavern


def test_ec_16_royal_from_hand_blocked_by_same_suit_enemy() -> None:
    t = Table(hands=[["JS", "9C"]], enemy="KS", enemies_seen=["JS"], public_hand=["JS"], castle=["KH"])
    t.play("JS")
    assert t.state.damage == 10
    assert t.game.shield(t.state) == 0
    assert t.game.attack_due(t.state) == 20


def test_ec_17_shield_beyond_attack_and_no_carry_over() -> None:
    t = Table(2, hands=[["10S", "2C"], ["3C"]], enemy="JC", plays=[(1, ["5S"])], damage=5)
    t.play("10S")
    assert t.game.shield(t.state) == 15
    assert t.game.attack_due(t.state) == 0
    assert t.pending == Decide(1, "play")  # nothing to discard; the turn passed
    t.play("3C")
    t.play("2C")  # 5 + 10 + 3 + 2 = 20: defeated
    assert t.state.defeated == 1
    assert t.game.shield(t.state) == 0 and t.game.attack_due(t.state) == 10


def test_ec_18_empty_hand_survives_a_zero_attack() -> None:
    t = Table(2, hands=[["10S"], ["3C"]], enemy="JC", plays=[(1, ["2S"])])
    t.play("10S")
    assert t.state.hands[0] == ()
    assert t.state.outcome is None
    assert t.pending == Decide(1, "play")


def test_ec_19_jester_makes_earlier_spades_count_against_a_spade_enemy() -> None:
    t = Table(3, hands=[["X1", "9C"], ["2C"], ["3C"]], enemy="JS", plays=[(1, ["7S"]), (2, ["AS", "2S"])])
    assert t.game.shield(t.state) == 0
    t.play("X1")
    assert t.state.immunity_cancelled
    assert t.game.shield(t.state) == 10
    assert t.state.damage == 0 and t.pending == Decide(0, "next")


def test_ec_20_jester_does_not_double_earlier_clubs() -> None:
    t = Table(3, hands=[["X1", "9C"], ["4C"], ["3C"]], enemy="JC", damage=6, plays=[(1, ["6C"])])
    t.play("X1")
    assert t.state.damage == 6
    t.do({"next": 0})
    enemy = t.state.enemy
    t.play("9C")
    assert t.state.defeated == 1 and enemy in t.state.discard  # 6 + 18 = 24: only a doubled 9C kills


def test_ec_21_jester_in_hand_is_worth_zero_and_may_join_a_discard() -> None:
    t = Table(3, hands=[["X1", "10H", "2C", "3S"], ["2D"], ["3D"]], enemy="JC")
    t.play("2C")
    assert t.game.attack_due(t.state) == 10
    moves = t.game.legal_moves(t.state, 0, t.own(0))
    assert {"discard": t.cards("X1", "10H")} in moves
    t.illegal({"discard": t.cards("X1", "3S")}, "less than the attack")
    t.pay("X1", "10H")
    assert t.hand(0) == ["3S"]


def test_ec_22_no_jester_in_the_tavern_with_one_or_two_players() -> None:
    for seats, jesters in ((1, 0), (2, 0), (3, 1), (4, 2)):
        faces = [DECK[r] for r in Regicide(seats).tavern_refs]
        assert sum(f.startswith("X") for f in faces) == jesters
        assert len(faces) == 40 + jesters
    assert Regicide(1).initial_state().jesters == (52, 53)  # the solo power tokens
    t = Table(hands=[["5C"]])
    t.illegal({"play": [[t.ref("5C"), "X1"]]}, "Jester")


def test_ec_23_the_killer_plays_again_and_may_yield() -> None:
    t = Table(2, hands=[["10C", "2S"], ["3C"]], enemy="JH", seat=0)
    t.play("10C")
    assert t.state.defeated == 1
    assert t.pending == Decide(0, "play")
    assert {"yield": True} in t.game.legal_moves(t.state, 0, t.own(0))


def test_ec_24_last_king_exact_kill_wins_at_once() -> None:
    t = Table(hands=[["10C", "2S"]], enemy="KH", damage=20, castle=[], defeated=11)
    t.play("10C")
    assert t.state.outcome == "won"
    result = t.game.result(t.state)
    assert result["outcome"] == "won" and result["grade"] == "gold" and result["enemies_defeated"] == 12


def test_ec_25_empty_tavern_draws_nothing_without_penalty() -> None:
    t = Table(hands=[["8D", "9C"]], tavern=[])
    t.play("8D")
    assert "Deal" not in t.kinds()
    assert t.hand(0) == ["9C"]
    assert t.pending == Decide(0, "discard")


def test_ec_26_hearts_with_a_full_hand() -> None:
    t = Table(2, hands=[["5H", "2C", "3C", "4C", "5C", "6C", "7C"], ["2D"]], discard=["9S", "10S"])
    t.play("5H")
    assert len(t.state.hands[0]) == 6
    assert len(t.state.tavern) == 2 and t.state.discard == ()


def test_ec_27_cards_on_the_table_are_not_healed() -> None:
    t = Table(2, hands=[["9H", "2C"], ["2D"]], plays=[(1, ["7S"])], discard=["3S"])
    on_table = t.state.plays[0].refs
    t.play("9H")
    assert t.state.plays[0].refs == on_table
    assert len(t.state.tavern) == 1  # only the one discarded card was healed


def test_ec_28_discard_pile_is_public_and_its_top_card_shown() -> None:
    t = Table(hands=[["5C"]], discard=["3S", "7D"])
    assert all(t.state.public[r] for r in t.state.discard)
    text = t.game.render(t.state, 0, t.own(0))
    assert "Discard: 2 (top 7D)" in text
    assert "Your hand: 5C" in text


def test_ec_29_diamonds_draw_clockwise_from_the_current_player() -> None:
    t = Table(
        3,
        hands=[["2S", "3S", "4S", "5S", "6S"], ["9D", "2C", "3C"], ["4C", "5C", "6C", "7C"]],
        tavern=["AC", "AH", "AS", "7H", "8H", "9H", "10H", "10S"],
        seat=1,
    )
    t.play("9D")
    deal = t.requests[1]
    assert isinstance(deal, Deal)
    assert [s for _, s in deal.deals] == [1, 2, 0, 1, 2, 1, 1]  # seat 1 first, wrap round, skip full
    assert t.faces(r for r, _ in deal.deals) == ["AC", "AH", "AS", "7H", "8H", "9H", "10H"]
    assert [len(h) for h in t.state.hands] == [6, 6, 6]


def test_ec_30_solo_jester_refill_against_a_diamond_enemy() -> None:
    t = Table(hands=[["2C", "3C"]], enemy="JD", tavern=[f"{r}S" for r in range(2, 11)])
    t.do({"jester_power": True})
    assert len(t.state.hands[0]) == 8
    assert len(t.state.jesters) == 1 and len(t.state.jesters_used) == 1
    assert sorted(t.faces(t.state.discard)) == ["2C", "3C"]
    assert t.pending == Decide(0, "play")


def test_ec_31_both_solo_jesters_in_the_same_window() -> None:
    t = Table(
        hands=[["2C"]], enemy="JD", tavern=[f"{r}S" for r in range(2, 11)] + [f"{r}H" for r in range(2, 11)]
    )
    t.do({"jester_power": True})
    t.do({"jester_power": True})
    assert t.state.jesters == () and len(t.state.jesters_used) == 2
    assert len(t.state.hands[0]) == 8 and len(t.state.discard) == 9
    assert {"jester_power": True} not in t.game.legal_moves(t.state, 0, t.own(0))


def test_ec_32_suit_powers_are_mandatory() -> None:
    t = Table(hands=[["7H", "9C"]], discard=["10S", "9S"], tavern=["2C"])
    moves = t.game.legal_moves(t.state, 0, t.own(0))
    assert all(set(m) <= {"play", "jester_power"} for m in moves)
    t.illegal({"play": t.cards("7H"), "skip_power": True}, "exactly one of the keys")
    t.play("7H")
    assert t.state.discard == () and len(t.state.tavern) == 3


# ---------------------------------------------------------------------------------------------
# Open questions and flow
# ---------------------------------------------------------------------------------------------


def test_setup_requests_follow_the_specified_order() -> None:
    game = Regicide(3, {"first_player": 2})
    state = game.initial_state()
    seen: list[Request] = []
    while not isinstance(game.pending(state), Decide):
        request = game.pending(state)
        seen.append(request)
        if isinstance(request, Reveal):
            event = Event(REVEALED, None, {"faces": {request.refs[0]: "JH"}})
        else:
            event = Event(SHUFFLED if isinstance(request, Shuffle) else DEALT)
        state = game.apply(state, event)
    assert [type(r).__name__ for r in seen] == ["Shuffle"] * 3 + ["Reveal", "Shuffle", "Deal"]
    for request, rank in zip(seen[:3], "JQK", strict=True):
        assert request == Shuffle(tuple(DECK.index(rank + s) for s in SUITS))
    assert seen[3] == Reveal((54,))  # the first fresh Jack ref is the top of the Castle
    tavern = seen[4]
    assert isinstance(tavern, Shuffle) and len(tavern.refs) == 41
    assert DECK.index("X1") in tavern.refs and DECK.index("X2") not in tavern.refs
    assert state.castle == tuple(range(55, 66))  # Jacks, then Queens, then Kings
    assert [len(h) for h in state.hands] == [6, 6, 6]
    assert len(state.tavern) == 41 - 18
    assert game.enemy_face(state) == "JH"
    assert game.pending(state) == Decide(2, "play")


def test_opening_deal_is_round_robin_from_the_first_player() -> None:
    game = Regicide(2, {"first_player": 1})
    state = game.initial_state()
    for _ in range(5):
        is_shuffle = isinstance(game.pending(state), Shuffle)
        state = game.apply(state, Event(SHUFFLED) if is_shuffle else _reveal_jack(game, state))
    request = game.pending(state)
    assert isinstance(request, Deal)
    assert [s for _, s in request.deals] == [1, 0] * 7
    assert [r for r, _ in request.deals] == list(state.tavern[:14])


def _reveal_jack(game: Regicide, state: State) -> Event:
    request = game.pending(state)
    assert isinstance(request, Reveal)
    return Event(REVEALED, None, {"faces": {request.refs[0]: "JS"}})


def test_oq1_solo_yield_forbidden_unless_option() -> None:
    t = Table(hands=[["5C"]])
    assert {"yield": True} not in t.game.legal_moves(t.state, 0, t.own(0))
    t.illegal({"yield": True}, "not allowed in a solo game")
    t2 = Table(hands=[["5C", "9H"]], options={"solo_yield_allowed": True})
    t2.do({"yield": True})
    assert t2.pending == Decide(0, "discard") and t2.game.attack_due(t2.state) == 10


def test_oq2_jester_player_may_choose_themselves() -> None:
    t = Table(4, hands=[["X1", "9C"], ["2C"], ["3C"], ["4C"]], enemy="JS")
    t.play("X1")
    assert t.game.legal_moves(t.state, 0, t.own(0)) == [{"next": s} for s in range(4)]
    t.do({"next": 0})
    assert t.pending == Decide(0, "play")


def test_oq3_yield_restriction_counts_only_last_turns() -> None:
    t = Table(
        3, hands=[["9C", "10C"], ["9S", "10S"], ["9H", "10H"]], enemy="JD", last_yield=[False, True, True]
    )
    t.illegal({"yield": True}, "every other player yielded")
    t2 = Table(
        3, hands=[["9C", "10C"], ["9S", "10S"], ["9H", "10H"]], enemy="JD", last_yield=[False, True, False]
    )
    t2.do({"yield": True})
    assert t2.state.last_yield == (True, True, False)


def test_oq4_strict_discard_and_overdiscard_option() -> None:
    hands = [["2C", "5S", "6S", "10H"]]
    t = Table(hands=hands, enemy="JD", plays=[(0, ["AS", "4S"])])
    t.play("2C")  # shield 5: attack 5
    assert t.game.attack_due(t.state) == 5
    t.illegal({"discard": t.cards("5S", "6S")}, "too many cards")
    t.illegal({"discard": t.cards("10H", "5S")}, "too many cards")
    moves = t.game.legal_moves(t.state, 0, t.own(0))
    sets = sorted(sorted(f for _, f in m["discard"]) for m in moves if "discard" in m)
    assert sets == [["10H"], ["5S"], ["6S"]]
    t2 = Table(hands=hands, enemy="JD", plays=[(0, ["AS", "4S"])], options={"allow_overdiscard": True})
    t2.play("2C")
    sets2 = [m["discard"] for m in t2.game.legal_moves(t2.state, 0, t2.own(0)) if "discard" in m]
    assert len(sets2) == 7  # every non-empty subset is worth at least 5
    t2.pay("5S", "6S")
    assert t2.hand(0) == ["10H"]


def test_oq4_strict_zero_attack_discards_nothing() -> None:
    t = Table(hands=[["10S", "9H"]], enemy="JC")
    t.play("10S")
    assert t.game.attack_due(t.state) == 0
    moves = t.game.legal_moves(t.state, 0, t.own(0))
    assert moves == [{"discard": []}, {"jester_power": True}]
    t.illegal({"discard": t.cards("9H")}, "too many cards")
    t.pay()
    assert t.pending == Decide(0, "play")


def test_oq5_jester_window_at_step_4() -> None:
    t = Table(hands=[["2C", "3C"]], enemy="JD", tavern=[f"{r}S" for r in range(2, 11)])
    t.play("2C")
    assert t.pending == Decide(0, "discard")  # attack 10, hand worth 3
    moves = t.game.legal_moves(t.state, 0, t.own(0))
    assert moves == [{"cannot_pay": True}, {"jester_power": True}]
    t.do({"jester_power": True})
    assert t.pending == Decide(0, "discard") and len(t.state.hands[0]) == 8
    t.pay("9S", "2S")
    assert t.pending == Decide(0, "play")


def test_oq6_short_tavern_refill_draws_what_is_left() -> None:
    t = Table(hands=[["2C"]], tavern=["3S", "4S"])
    t.do({"jester_power": True})
    assert sorted(t.hand(0)) == ["3S", "4S"]


def test_oq7_immunity_returns_for_the_next_enemy() -> None:
    t = Table(3, hands=[["X1", "10C", "9C"], ["2C"], ["3C"]], enemy="JC")
    t.play("X1")
    t.do({"next": 0})
    t.play("10C")
    assert t.state.defeated == 1 and not t.state.immunity_cancelled


def test_oq9_healed_cards_go_under_the_tavern_in_shuffled_order() -> None:
    t = Table(hands=[["2H", "9C"]], tavern=["2C"], discard=["3S", "4S", "5S", "6S"], shuffle_seed=7)
    before = t.state.next_ref
    t.play("2H")
    assert t.state.tavern[1:] == (before, before + 1)  # the first fresh refs, first one just below
    assert t.state.discard == (before + 2, before + 3)
    assert sorted(t.faces(t.state.tavern[1:] + t.state.discard)) == ["3S", "4S", "5S", "6S"]


def test_cannot_pay_ends_the_game_and_discloses() -> None:
    t = Table(hands=[["2C", "3C"]], enemy="JD", tavern=["9S"], jesters=0)
    t.play("2C")
    t.do({"cannot_pay": True})
    assert isinstance(t.pending, GameOver)
    disclose = t.requests[-1]
    assert isinstance(disclose, Disclose) and t.state.hands[0][0] in disclose.refs
    assert t.state.castle[0] in disclose.refs and t.state.tavern[0] in disclose.refs
    assert t.game.hidden_refs(t.state) == ()
    assert t.state.cannot_pay_index == 2
    assert t.game.result(t.state) == {"outcome": "lost", "grade": None, "enemies_defeated": 0, "fault": None}


def test_cannot_pay_refused_when_public_cards_cover_the_attack() -> None:
    t = Table(hands=[["JC", "JH", "2C"]], enemy="QD", enemies_seen=["JC", "JH"], public_hand=["JC", "JH"])
    t.play("2C")
    assert t.game.attack_due(t.state) == 15
    t.illegal({"cannot_pay": True}, "enough for the attack")


def test_empty_hand_at_step_four_loses_without_a_decision() -> None:
    t = Table(2, hands=[["10C"], ["2C"]], enemy="QS")
    t.play("10C")
    assert t.state.outcome == "lost" and "no card to absorb 15" in t.state.end_reason
    assert isinstance(t.pending, GameOver)


def test_empty_hand_at_step_one_loses_when_yield_is_forbidden() -> None:
    t = Table(2, hands=[[], ["10S", "2C"]], enemy="JC", seat=1)
    t.do({"yield": True})
    t.pay("10S")
    assert t.state.outcome == "lost" and "no card to play and may not yield" in t.state.end_reason


def test_solo_grades_count_flipped_jesters() -> None:
    for flipped, grade in ((0, "gold"), (1, "silver"), (2, "bronze")):
        t = Table(hands=[["10C"]], enemy="KH", damage=20, castle=[], jesters=2 - flipped)
        t.play("10C")
        assert t.game.result(t.state)["grade"] == grade


def test_card_text_and_describe() -> None:
    game = Regicide(3)
    assert "Diamonds" in game.card_text("7D") and "draw" in game.card_text("7D")
    assert "Animal Companion" in game.card_text("AS")
    assert "health 30" in game.card_text("QS") and "immune to Spades" in game.card_text("QS")
    assert "cancels the enemy's immunity" in game.card_text("X1")
    assert "not a Regicide card" in game.card_text("ZZ")
    t = Table(3, hands=[["5C", "5S"], ["2C"], ["3C"]])
    line = t.game.describe(t.state, Event.move(0, {"play": t.cards("5C", "5S")}))
    assert line == "seat 0 plays 5C + 5S (attack 10, Spades shield 10)"  # the Jack of Clubs blocks the Clubs
    hearts = Table(3, hands=[["5C", "5S", "4H", "6D"], ["2C"], ["3C"]], enemy="JH")
    line = hearts.game.describe(hearts.state, Event.move(0, {"play": hearts.cards("5C", "5S")}))
    assert line == "seat 0 plays 5C + 5S (attack 10, doubled by Clubs: 20, Spades shield 10)"
    # every power the play triggers is said, but the enemy's own suit, which it is immune to
    for cards, words in ((["4H"], "(attack 4)"), (["6D"], "(attack 6, Diamonds draw 6)")):
        line = hearts.game.describe(hearts.state, Event.move(0, {"play": hearts.cards(*cards)}))
        assert line.endswith(words), line
    spades = Table(3, hands=[["4H", "5S"], ["2C"], ["3C"]], enemy="JC")
    line = spades.game.describe(spades.state, Event.move(0, {"play": spades.cards("4H")}))
    assert line.endswith("(attack 4, Hearts heal 4)"), line
    assert "not valid" in t.game.describe(t.state, Event.move(0, {"play": 7}))
    text = t.game.render(t.state, 1, t.own(1))
    assert "Jack of Clubs" in text and "attack 10" in text and "immune to Clubs" in text
    assert "Your hand: 2C" in text and "5C" not in text.split("Your hand")[1]


# ---------------------------------------------------------------------------------------------
# Illegal moves: IllegalMove with a clear message, state unchanged
# ---------------------------------------------------------------------------------------------


def test_illegal_combinations() -> None:
    hand = ["2C", "3C", "4C", "4S", "6D", "7D", "X1", "JH"]
    t = Table(3, hands=[hand, ["2D"], ["3D"]], enemies_seen=["JH"], public_hand=["JH"], enemy="JS")
    t.illegal({"play": t.cards("2C", "3C")}, "same rank")
    t.illegal({"play": t.cards("6D", "7D")}, "same rank")
    t.illegal({"play": t.cards("X1", "2C")}, "Jester must be played alone")
    t.illegal({"play": t.cards("JH", "4C")}, "royal")
    t.illegal({"play": []}, "at least one card")


def test_illegal_wrong_seat_and_wrong_event() -> None:
    t = Table(2, hands=[["5C"], ["6C"]])
    t.illegal({"play": [[t.ref("6C"), "6C"]]}, "seat 0's turn", seat=1)
    with pytest.raises(IllegalMove, match="expected a 'move'"):
        t.game.apply(t.state, Event(SHUFFLED))


def test_illegal_card_not_held_or_misnamed() -> None:
    t = Table(2, hands=[["5C", "7S"], ["6C"]], discard=["9H"], public_hand=["7S"])
    t.illegal({"play": [[t.ref("6C"), "6C"]]}, "not in your hand")
    t.illegal({"play": [[t.ref("5C"), "9H"]]}, "face up elsewhere")
    t.illegal({"play": [[t.ref("7S"), "8S"]]}, "is the 7S")
    t.illegal({"play": [[t.ref("5C"), "KS"]]}, "still in the Castle")
    t.illegal({"play": [[t.ref("5C"), "JC"]]}, "JC is face up elsewhere")  # the enemy
    t.illegal({"play": [[t.ref("5C"), "ZZ"]]}, "not a card")
    t.illegal({"play": [[t.ref("5C"), "5C"], [t.ref("5C"), "5C"]]}, "named twice")
    t.illegal({"play": [[True, "5C"]]}, "pair")
    t.illegal({"play": "5C"}, "list")
    t.illegal({}, "exactly one of the keys")


def test_illegal_jester_in_solo_and_jester_power_rules() -> None:
    t = Table(hands=[["5C"]], jesters=0)
    t.illegal({"play": [[t.ref("5C"), "X2"]]}, "Jester")
    t.illegal({"jester_power": True}, "both Jesters have been used")
    t2 = Table(hands=[["5C"]])
    t2.illegal({"jester_power": 1}, "jester_power")
    t3 = Table(3, hands=[["5C"], ["2C"], ["3C"]])
    t3.illegal({"jester_power": True}, "exactly one of the keys")


def test_illegal_over_discard_in_strict_mode_and_bad_discards() -> None:
    t = Table(hands=[["2C", "5S", "6S", "AH", "9D"]], enemy="JD", plays=[(0, ["AS", "4S"])])
    t.play("2C")
    t.illegal({"discard": t.cards("5S", "6S")}, "too many cards")
    t.illegal({"discard": t.cards("AH")}, "less than the attack")
    t.illegal({"discard": [[t.ref("9D"), "9D"], [t.state.enemy, "JD"]]}, "not in your hand")
    t.illegal({"cannot_pay": False}, "cannot_pay")
    t.pay("AH", "5S")  # 6 >= 5 and 6 - 5 < 5: fine
    assert t.hand(0) == ["6S", "9D"]


def test_illegal_yield_and_next() -> None:
    t = Table(2, hands=[["5C"], ["6C"]], last_yield=[False, True])
    t.illegal({"yield": True}, "every other player yielded")
    t.illegal({"yield": 1}, "yield")
    t3 = Table(3, hands=[["X1"], ["2C"], ["3C"]])
    t3.play("X1")
    t3.illegal({"next": 3}, "seat in 0..2")
    t3.illegal({"next": True}, "seat in 0..2")


def test_bad_table_events_are_rejected() -> None:
    game = Regicide(1)
    state = game.initial_state()
    for _ in range(3):
        state = game.apply(state, Event(SHUFFLED))
    with pytest.raises(IllegalMove, match="exactly the requested refs"):
        game.apply(state, Event(REVEALED, None, {"faces": {0: "JH"}}))
    ref = game.pending(state).refs[0]  # type: ignore[union-attr]
    with pytest.raises(IllegalMove, match="a J was due"):
        game.apply(state, Event(REVEALED, None, {"faces": {ref: "QH"}}))
    with pytest.raises(IllegalMove, match="not a Regicide card"):
        game.apply(state, Event(REVEALED, None, {"faces": {ref: "??"}}))
    with pytest.raises(IllegalMove, match="not an event"):
        game.apply(state, {"kind": "revealed"})  # type: ignore[arg-type]
    with pytest.raises(IllegalMove, match="not a Regicide state"):
        game.state_from_dict({"phase": "play"})


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="no option mulligan; its options: allow_overdiscard"):
        Regicide(2, {"mulligan": True})
    with pytest.raises(ValueError, match="first_player"):
        Regicide(2, {"first_player": 2})
    with pytest.raises(ValueError, match="true or false"):
        Regicide(2, {"allow_overdiscard": "yes"})
    with pytest.raises(ValueError, match="1-4 players"):
        Regicide(5)
    assert Regicide(4).options == {"solo_yield_allowed": False, "allow_overdiscard": False, "first_player": 0}


def test_enemy_attack_constants() -> None:
    assert ENEMY_ATTACK == {"J": 10, "Q": 15, "K": 20}
    assert len(DECK) == 54 and len(set(DECK)) == 54 and Regicide(2).deck() == DECK


def test_solo_empty_hand_without_jester_loses_even_when_yielding_is_allowed() -> None:
    t = Table(hands=[["10S"]], enemy="JD", options={"solo_yield_allowed": True}, jesters=0)
    t.play("10S")  # shield 10: attack 0, nothing to pay, and the hand is empty
    assert t.state.outcome == "lost" and "can never refill" in t.state.end_reason
    t2 = Table(hands=[["10S"]], enemy="JD", options={"solo_yield_allowed": True}, jesters=1)
    t2.play("10S")
    assert t2.state.outcome is None  # a Jester can still refill the hand
