"""Independent rules scenarios for Regicide (w21): ``shared/rules/regicide.md`` section by section,
edge cases EC-n and open-question decisions OQ-n, focused on interactions of two effects, defeats
and victories, player counts and solo Jesters, moves offered in unusual states, and determinism.

Positions are built with the ``Table`` helper of ``tests.engine.test_regicide_rules``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Decide, GameOver
from engine.dealer import TrustedDealer, play_trusted
from engine.regicide import Regicide
from engine.regicide.bots import make_bot
from engine.regicide.state import rank_of

from .test_regicide_rules import Table


def moves(t: Table) -> list[dict[str, Any]]:
    request = t.pending
    assert isinstance(request, Decide)
    return t.game.legal_moves(t.state, request.seat, t.own(request.seat))


def plays(t: Table) -> set[frozenset[str]]:
    return {frozenset(f for _, f in m["play"]) for m in moves(t) if "play" in m}


# -- §2 / §3: setup by player count -----------------------------------------------------------------


@pytest.mark.parametrize(("seats", "limit", "tavern"), [(1, 8, 32), (2, 7, 26), (3, 6, 23), (4, 5, 22)])
def test_s2_s3_setup_hand_limits_tavern_sizes_and_a_jack_first(seats: int, limit: int, tavern: int) -> None:
    game = Regicide(seats)
    dealer = TrustedDealer(game, 7)
    state = game.initial_state()
    while not isinstance(game.pending(state), Decide):
        state = game.apply(state, dealer.resolve(game.pending(state), lambda s, p: {}))
    assert [len(h) for h in state.hands] == [limit] * seats
    assert len(state.tavern) == tavern
    assert rank_of(state.public[state.enemy]) == "J"
    assert len(state.castle) == 11
    jesters_in_hands_or_tavern = sum(
        1 for r in (*state.tavern, *(r for h in state.hands for r in h)) if dealer.slots[r].startswith("X")
    )
    assert jesters_in_hands_or_tavern == {1: 0, 2: 0, 3: 1, 4: 2}[seats]
    # OQ-8: round-robin deal from the first player
    assert game.pending(state) == Decide(0, "play")


def test_oq8_first_player_option_deals_from_and_starts_with_that_seat() -> None:
    game = Regicide(3, {"first_player": 2})
    dealer = TrustedDealer(game, 1)
    state = game.initial_state()
    while not isinstance(game.pending(state), Decide):
        state = game.apply(state, dealer.resolve(game.pending(state), lambda s, p: {}))
    assert game.pending(state) == Decide(2, "play")
    assert state.hands[2][0] < state.hands[0][0] < state.hands[1][0]


# -- §4.1: legal plays --------------------------------------------------------------------------------


def test_s4_1_every_legal_combination_is_offered_and_nothing_more() -> None:
    """Hand 2C 2D 2H 2S 5C 5D AH 6C (solo): singles, every Ace pair, the 2-combos up to four 2s,
    the 5 pair; no 6 pair (only one 6), no Ace inside a combo."""
    t = Table(hands=[["2C", "2D", "2H", "2S", "5C", "5D", "AH", "6C"]], enemy="JS")
    got = plays(t)
    twos = ["2C", "2D", "2H", "2S"]
    singles = {frozenset([c]) for c in t.hand(0)}
    ace_pairs = {frozenset(["AH", c]) for c in t.hand(0) if c != "AH"}
    from itertools import combinations

    combos = {frozenset(c) for k in (2, 3, 4) for c in combinations(twos, k)} | {frozenset(["5C", "5D"])}
    assert got == singles | ace_pairs | combos
    assert {"yield": True} not in moves(t)  # OQ-1: no solo yield
    assert {"jester_power": True} in moves(t)


def test_ec11_three_and_four_of_a_kind_respect_the_total_of_ten() -> None:
    t = Table(2, hands=[["3C", "3D", "3H", "3S", "4C", "4D", "4H"], ["2C"]], enemy="JS")
    got = plays(t)
    assert frozenset(["3C", "3D", "3H"]) in got
    assert frozenset(["3C", "3D", "3H", "3S"]) not in got  # 12
    assert frozenset(["4C", "4D"]) in got and frozenset(["4C", "4D", "4H"]) not in got
    t.illegal({"play": t.cards("3C", "3D", "3H", "3S")}, "at most 10")


def test_s4_1_jester_only_alone_in_multiplayer_and_never_with_an_ace() -> None:
    t = Table(3, hands=[["X1", "AC", "7H"], ["2C"], ["3C"]], enemy="JS")
    got = plays(t)
    assert frozenset(["X1"]) in got
    assert not any("X1" in p and len(p) > 1 for p in got)
    t.illegal({"play": t.cards("AC", "X1")}, "alone")


def test_ec10_ace_with_a_royal_from_hand_heals_and_doubles() -> None:
    """A♣ + Q♥ (a royal from an exact kill) against the K♠: X = 16, heal 16, damage 32."""
    t = Table(
        hands=[["AC", "QH", "2S"]], enemy="KS", discard=[f"{n}D" for n in range(2, 11)],
        enemies_seen=["QH"], public_hand=["QH"], tavern=["3C"],
    )
    t.play("AC", "QH")
    assert t.state.damage == 32
    assert len(t.state.discard) == 0 and len(t.state.tavern) == 10


# -- §5: effects and their interactions ----------------------------------------------------------------


def test_ec12_ec14_combo_exact_kill_draws_first_then_the_enemy_tops_the_tavern() -> None:
    """5♣ + 5♦ against J♥ (health 20): diamonds draw 10 (to the limit), clubs double to 20 = exact.
    The J♥ goes face up on top of the Tavern; the same player starts again against the next enemy."""
    t = Table(hands=[["5C", "5D", "2S"]], enemy="JH", tavern=[f"{n}S" for n in range(3, 11)] + ["AC"],
              castle=["JD", "JC", "JS"])
    t.play("5C", "5D")
    assert len(t.state.hands[0]) == 8  # 1 left + 7 drawn (solo limit 8)
    assert t.faces(t.state.tavern) == ["JH", "10S", "AC"]
    assert t.state.public[t.state.tavern[0]] == "JH"
    assert t.state.damage == 0 and t.state.plays == ()
    assert t.state.public[t.state.enemy] == "JD"
    assert t.pending == Decide(0, "play")
    assert sorted(t.faces(t.state.discard)) == ["5C", "5D"]


def test_ec15_overkill_sends_the_enemy_to_discard_where_hearts_can_heal_it_back() -> None:
    t = Table(hands=[["10C", "9H", "2S"]], enemy="JS", damage=5, castle=["JD", "JC"], tavern=[])
    t.play("10C")  # 5 + 20 = 25 > 20: overkill
    assert sorted(t.faces(t.state.discard)) == ["10C", "JS"]
    assert t.state.public[t.state.enemy] == "JD"
    t.play("9H")  # heal 9: both discards go under the (empty) Tavern
    assert t.state.discard == ()
    assert sorted(t.faces(t.state.tavern)) == ["10C", "JS"]


def test_ec13_ec16_blocked_suit_cards_still_count_for_damage() -> None:
    """A♥ + J♥ (royal) against the Q♥: Hearts blocked for both, X = 11, damage 11, nothing healed."""
    t = Table(hands=[["AH", "JH", "2S"]], enemy="QH", discard=["3C", "4C"], enemies_seen=["JH"],
              public_hand=["JH"])
    t.play("AH", "JH")
    assert t.state.damage == 11
    assert len(t.state.discard) == 2  # nothing healed
    assert t.game.attack_due(t.state) == 15


def test_s5_2_shields_of_several_players_accumulate_and_reset_with_the_next_enemy() -> None:
    t = Table(2, hands=[["7S", "10C", "9C"], ["8S", "10D"]], enemy="JC", damage=0, castle=["JD"])
    t.play("7S")  # shield 7, attack 3: discard
    t.pay("9C")
    t.play("8S")  # shield 15 -> attack 0: no Step 4 in multiplayer
    assert t.game.shield(t.state) == 15 and t.game.attack_due(t.state) == 0
    assert t.pending == Decide(0, "play")
    t.play("10C")  # JC immune to clubs: 7 + 8 + 10 = 25 >= 20: overkill
    assert t.state.public[t.state.enemy] == "JD"
    assert t.game.shield(t.state) == 0 and t.game.attack_due(t.state) == 10
    assert t.pending == Decide(0, "play")  # same seat, new turn


def test_ec19_oq7_jester_makes_earlier_spades_count_until_the_enemy_falls_then_immunity_returns() -> None:
    t = Table(
        4,
        hands=[["X1", "2C"], ["10C", "10D"], ["3C"], ["4C"]],
        enemy="JS",
        damage=9,
        plays=[(2, ["5S"]), (3, ["AS", "4S"])],
        castle=["JD", "QS"],
    )
    assert t.game.shield(t.state) == 0
    t.play("X1")
    assert t.state.damage == 9 and t.game.shield(t.state) == 10 and t.game.attack_due(t.state) == 0
    assert t.pending == Decide(0, "next")
    t.do({"next": 1})
    t.play("10C")  # 9 + 20 (clubs) = 29: overkill
    assert t.state.public[t.state.enemy] == "JD"
    assert t.state.immunity_cancelled is False
    assert t.game.active_suits(t.state, ["5D"]) == frozenset()


def test_ec20_jester_does_not_double_earlier_clubs() -> None:
    t = Table(3, hands=[["X1", "2H"], ["3H"], ["4H"]], enemy="JC", damage=8, plays=[(1, ["8C"])])
    t.play("X1")
    assert t.state.damage == 8
    t.do({"next": 0})
    t.play("2H")
    assert t.state.damage == 10


def test_s6_2_jester_skips_step_4_even_with_a_huge_attack() -> None:
    t = Table(3, hands=[["X1"], ["3H"], ["4H"]], enemy="KH", castle=[])
    t.play("X1")
    assert t.pending == Decide(0, "next")
    assert {m["next"] for m in moves(t)} == {0, 1, 2}
    t.do({"next": 2})
    assert t.pending == Decide(2, "play")
    assert t.hand(0) == []


def test_s6_2_jester_player_choosing_themselves_with_an_empty_hand_can_still_yield() -> None:
    """After the Jester the last yields are (no, yes, no): seat 0 (empty hand) may yield."""
    t = Table(3, hands=[["X1"], ["3H"], ["4H"]], enemy="JH", last_yield=[False, True, False],
              plays=[(1, ["10S"]), (2, ["AS", "9S"])])
    t.play("X1")
    t.do({"next": 0})
    assert t.pending == Decide(0, "play")
    assert moves(t) == [{"yield": True}]
    t.do({"yield": True})  # shield 10 + 10 = 20 >= 10: no damage
    assert t.pending == Decide(1, "play")


def test_s9_jester_player_choosing_themselves_with_an_empty_hand_after_two_yields_loses() -> None:
    """§9 defeat 2: both others yielded last; the Jester's player picks themselves with no card."""
    t = Table(3, hands=[["X1"], ["3H"], ["4H"]], enemy="JH", last_yield=[False, True, True])
    t.play("X1")
    t.do({"next": 0})
    assert t.game.result(t.state)["outcome"] == "lost"


# -- §7 yielding --------------------------------------------------------------------------------------


def test_s7_three_players_the_third_may_not_yield_after_two_yields() -> None:
    t = Table(3, hands=[["2C"], ["3C"], ["4C"]], enemy="JS", seat=2, last_yield=[True, True, False])
    assert {"yield": True} not in moves(t)
    t.illegal({"yield": True}, "may not yield")


def test_s7_oq3_four_players_a_seat_with_no_turn_counts_as_not_yielding() -> None:
    t = Table(4, hands=[["2C"], ["3C"], ["4C"], ["5C"]], enemy="JS", seat=3,
              last_yield=[True, True, False, False])
    assert {"yield": True} in moves(t)


def test_oq3_yields_survive_an_enemy_defeat() -> None:
    """2 players: seat 1 yielded; seat 0 defeats the enemy and starts again: still no yield."""
    t = Table(2, hands=[["10C", "2H"], ["3C"]], enemy="JH", damage=10, last_yield=[False, True],
              castle=["JD"])
    t.play("10C")
    assert t.pending == Decide(0, "play") and t.state.public[t.state.enemy] == "JD"
    assert {"yield": True} not in moves(t)


def test_s9_step1_defeat_empty_hand_and_no_yield_loses_at_once() -> None:
    """2 players: seat 0 yields (covered by the shield); seat 1 with an empty hand may not yield."""
    t = Table(2, hands=[["2C"], []], enemy="JH", plays=[(0, ["10S"])], damage=10)
    t.do({"yield": True})
    assert t.pending == GameOver() or t.game.result(t.state)["outcome"] == "lost"
    t.settle()
    assert t.game.result(t.state)["outcome"] == "lost"


def test_s9_empty_hand_may_yield_when_the_partner_did_not_and_survives_a_zero_attack() -> None:
    t = Table(2, hands=[["2C"], []], enemy="JH", plays=[(0, ["10S"])], damage=10)
    t.play("2C")  # seat 0 plays; JH: 12 damage; attack 0 (shield 10)
    assert t.pending == Decide(1, "play")
    assert moves(t) == [{"yield": True}]
    t.do({"yield": True})
    assert t.game.result(t.state)["outcome"] == "lost"  # seat 0, empty hand, may not yield


# -- §5.4 / OQ-4 discards ------------------------------------------------------------------------------


def test_oq4_overdiscard_option_accepts_any_covering_set_but_not_a_short_one() -> None:
    t = Table(2, hands=[["3C", "4C", "5C", "2H"], ["2C"]], enemy="JS", damage=0,
              options={"allow_overdiscard": True}, plays=[(1, ["5S"])])
    t.do({"yield": True})  # the partner did not yield: allowed
    # attack 10 (spades blocked by the J♠): sets worth >= 10
    from itertools import combinations

    hand = ["3C", "4C", "5C", "2H"]
    values = {"3C": 3, "4C": 4, "5C": 5, "2H": 2}
    want = {frozenset(c) for k in range(5) for c in combinations(hand, k) if sum(values[x] for x in c) >= 10}
    got = {frozenset(f for _, f in m["discard"]) for m in moves(t) if "discard" in m}
    assert got == want


def test_ec21_a_jester_may_be_discarded_along_with_cards_that_cover_the_damage() -> None:
    t = Table(3, hands=[["X1", "10C", "2C"], ["2H"], ["3H"]], enemy="JS", last_yield=[False, False, False])
    t.do({"yield": True})
    got = {frozenset(f for _, f in m["discard"]) for m in moves(t) if "discard" in m}
    # strict (OQ-4): sum - max < A, so 2C then 10C is fine; the 0-value Jester always fits
    assert got == {frozenset(["10C"]), frozenset(["X1", "10C"]), frozenset(["2C", "10C"]),
                   frozenset(["X1", "2C", "10C"])}


def test_s5_4_hand_worth_less_than_the_attack_offers_only_cannot_pay() -> None:
    t = Table(2, hands=[["2C", "3C"], ["2H"]], enemy="JS")
    t.do({"yield": True})
    assert moves(t) == [{"cannot_pay": True}]
    t.do({"cannot_pay": True})
    t.settle()
    assert t.game.result(t.state)["outcome"] == "lost"


# -- §10 solo -----------------------------------------------------------------------------------------


def test_s10_step4_flip_refills_and_the_discard_is_asked_again() -> None:
    t = Table(hands=[["2C"]], enemy="JS", tavern=["10C", "9C", "8C", "7C"])
    t.play("2C")
    assert t.pending == Decide(0, "discard")
    assert moves(t) == [{"cannot_pay": True}, {"jester_power": True}]
    t.do({"jester_power": True})
    assert sorted(t.hand(0)) == ["10C", "7C", "8C", "9C"]  # OQ-6: a short Tavern gives what it has
    assert t.pending == Decide(0, "discard")
    assert len(t.state.jesters) == 1
    t.pay("10C")
    assert t.pending == Decide(0, "play")


def test_ec31_oq5_both_jesters_back_to_back_at_step_1_and_bronze_grade() -> None:
    t = Table(hands=[["2C"]], enemy="KS", castle=[], damage=39, tavern=["3C", "4C"], defeated=11)
    t.do({"jester_power": True})
    assert sorted(t.hand(0)) == ["3C", "4C"]
    t.do({"jester_power": True})
    assert t.hand(0) == []
    assert t.game.result(t.state)["outcome"] == "lost"  # empty hand, no Jester, no yield


def test_s10_solo_yield_option_offers_the_yield() -> None:
    t = Table(hands=[["2C"]], enemy="JS", options={"solo_yield_allowed": True})
    assert {"yield": True} in moves(t)
    t.do({"yield": True})
    assert t.pending == Decide(0, "discard")


def test_s10_gold_victory_with_no_jester_used() -> None:
    t = Table(hands=[["10C", "2H"]], enemy="KH", castle=[], damage=20, defeated=11)
    t.play("10C")
    result = t.game.result(t.state)
    assert result == {"outcome": "won", "grade": "gold", "enemies_defeated": 12, "fault": None}


def test_ec24_exact_kill_of_the_last_king_wins_at_once() -> None:
    t = Table(2, hands=[["10D", "2H"], ["3C"]], enemy="KH", castle=[], damage=30, defeated=11)
    t.play("10D")
    assert t.game.result(t.state)["outcome"] == "won"
    assert t.pending == GameOver()


# -- determinism ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_same_seed_same_game(seats: int) -> None:
    def run(seed: int) -> list:
        game = Regicide(seats)
        bots = [make_bot("random", seed * 10 + s) for s in range(seats)]
        return [(e.kind, e.seat, repr(e.data)) for e in play_trusted(game, bots, seed).history]

    assert run(3) == run(3)


@settings(max_examples=12, deadline=None)
@given(seats=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_property_hand_limits_and_every_card_in_one_zone(seats: int, seed: int) -> None:
    """§2 hand limits (EC-4, EC-26) and conservation of the live cards over whole random games."""
    game = Regicide(seats)
    bots = [make_bot("random", seed + s) for s in range(seats)]
    run = play_trusted(game, bots, seed)
    for state in run.states:
        assert all(len(h) <= game.hand_limit for h in state.hands)
        if state.enemy is not None and state.phase not in ("shuffle_jacks",):
            live = [r for refs in game.zones(state).values() for r in refs]
            assert len(live) == len(set(live))
    result = game.result(run.final)
    assert result["outcome"] in ("won", "lost")
    assert (result["outcome"] == "won") == (result["enemies_defeated"] == 12)
