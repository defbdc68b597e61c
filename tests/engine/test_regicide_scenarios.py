"""Regicide rules scenarios: an audit of ``shared/rules/regicide.md`` against the engine.

Each test drives the real engine through a hand-built position (:class:`Table` from
``test_regicide_rules``, a truthful dealer) and pins one rule of play, edge case (EC-n) or open
question decision (OQ-n) that the one-test-per-edge-case file leaves loose: whole-play X for
multi-suit plays, immunity per suit, the Jester's choice and what follows it, yield chains made by
real moves, hand limits per player count, card flow (exact kills, healing royals back), the
solo Jester windows, the end of the game, and refusals of moves made in the wrong step.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine.core import DEALT, REVEALED, SHUFFLED, Deal, Decide, Event, GameOver, IllegalMove, Reveal, Shuffle
from engine.regicide import ENEMY_HEALTH, HAND_LIMIT, ROYAL_RANKS, Regicide, State, play_shape_error

from .test_regicide_rules import Table


def _set_up(seats: int, first_player: int = 0) -> tuple[Regicide, State, list[Any]]:
    """Run a game's setup with a dealer that answers every Reveal with a fresh royal of the due rank."""
    game = Regicide(seats, {"first_player": first_player})
    state = game.initial_state()
    requests: list[Any] = []
    while not isinstance(game.pending(state), Decide):
        request = game.pending(state)
        requests.append(request)
        if isinstance(request, Reveal):
            event = Event(REVEALED, None, {"faces": {request.refs[0]: "JS"}})
        elif isinstance(request, Shuffle):
            event = Event(SHUFFLED)
        else:
            assert isinstance(request, Deal)
            event = Event(DEALT)
        state = game.apply(state, event)
    return game, state, requests


# ---------------------------------------------------------------------------------------------
# §2 settings by player count, §3 setup
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "limit", "jesters", "tavern_before", "tavern_after"),
    [(1, 8, 0, 40, 32), (2, 7, 0, 40, 26), (3, 6, 1, 41, 23), (4, 5, 2, 42, 22)],
)
def test_settings_by_player_count_hand_limit_jesters_and_tavern_sizes(
    seats: int, limit: int, jesters: int, tavern_before: int, tavern_after: int
) -> None:
    game, state, requests = _set_up(seats)
    assert game.hand_limit == HAND_LIMIT[seats] == limit
    tavern = next(r for r in requests if isinstance(r, Shuffle) and len(r.refs) > 4)
    assert len(tavern.refs) == tavern_before
    assert sum(game.deck()[r].startswith("X") for r in tavern.refs) == jesters
    assert [len(h) for h in state.hands] == [limit] * seats
    assert len(state.tavern) == tavern_after
    assert len(state.castle) == 11 and state.discard == () and state.plays == ()
    assert state.damage == 0 and not state.immunity_cancelled
    # solo: both Jesters face up beside the table as the power tokens (§10)
    assert len(state.jesters) == (2 if seats == 1 else 0)
    assert state.last_yield == (False,) * seats  # OQ-3: nobody has yielded before the first turn


def test_setup_first_player_is_a_parameter_and_takes_the_first_turn_oq8() -> None:
    game, state, _ = _set_up(4, first_player=3)
    assert game.pending(state) == Decide(3, "play")


# ---------------------------------------------------------------------------------------------
# §4.1 legal plays
# ---------------------------------------------------------------------------------------------


def test_legal_combos_are_exactly_the_listed_sets() -> None:
    suits = "HDCS"
    legal = set()
    for rank in range(2, 11):
        for k in range(2, 5):
            faces = [f"{rank}{s}" for s in suits[:k]]
            if play_shape_error(faces, multiplayer=True) is None:
                legal.add((rank, k))
    # {2,2}, {2,2,2}, {2,2,2,2}, {3,3}, {3,3,3}, {4,4}, {5,5} and nothing else
    assert legal == {(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (4, 2), (5, 2)}


def test_combo_of_four_twos_is_legal_and_mixed_ranks_or_too_big_are_refused() -> None:
    t = Table(3, hands=[["2H", "2D", "2C", "2S", "3H", "3D", "4C"], ["5C"], ["6C"]], enemy="JS")
    t.illegal({"play": t.cards("3H", "3D", "4C")}, "same rank")
    t.illegal({"play": t.cards("2H", "2D", "2C", "2S", "3H")}, "same rank")
    t.play("2H", "2D", "2C", "2S")
    assert t.state.damage == 16  # X = 8, Clubs double it


def test_royal_pair_and_royal_in_combo_are_illegal_but_ace_plus_royal_is_legal_ec10() -> None:
    t = Table(
        hands=[["JH", "JD", "AS", "10C"]],
        enemy="QC",
        enemies_seen=["JH", "JD"],
        public_hand=["JH", "JD"],
    )
    t.illegal({"play": t.cards("JH", "JD")}, "royal")
    t.illegal({"play": t.cards("JH", "10C")}, "royal")
    t.illegal({"play": t.cards("AS", "JH", "10C")}, "Ace")
    t.play("AS", "JH")
    assert t.state.damage == 11 and t.game.shield(t.state) == 11


def test_companion_pair_takes_exactly_one_other_card_and_no_combo_ec8() -> None:
    t = Table(hands=[["AH", "2C", "2S", "7D"]], enemy="JS")
    t.illegal({"play": t.cards("AH", "2C", "2S")}, "Ace")  # A + 2 + 2: pair and combo together
    t.illegal({"play": t.cards("AH", "2C", "7D")}, "Ace")


# ---------------------------------------------------------------------------------------------
# §5 resolving a play: X of the whole play, immunity per suit
# ---------------------------------------------------------------------------------------------


def test_multi_suit_combo_uses_the_total_x_for_every_power() -> None:
    # rules §5.1: 3D + 3S + 3C gives X = 9: draw 9, shield 9, damage 18
    tavern = [f"{r}H" for r in range(2, 11)] + ["AC"]
    t = Table(2, hands=[["3D", "3S", "3C", "9H"], ["2H"]], enemy="JH", tavern=tavern)
    t.play("3D", "3S", "3C")
    assert t.state.damage == 18
    assert t.game.shield(t.state) == 9
    assert t.game.attack_due(t.state) == 1
    assert [len(h) for h in t.state.hands] == [6, 5]  # 9 drawn in turn from seat 0: 5 to it, 4 to seat 1
    assert len(t.state.tavern) == 1


def test_ace_companion_draws_and_doubles_with_the_total_x() -> None:
    # rules §5.1: AC + 8D gives X = 9: draw 9 cards and deal 18 damage
    tavern = [f"{r}S" for r in range(2, 11)] + ["AH"]
    t = Table(3, hands=[["AC", "8D", "9H"], ["2H"], ["3H"]], enemy="JS", tavern=tavern)
    t.play("AC", "8D")
    assert t.state.damage == 18
    assert [len(h) for h in t.state.hands] == [4, 4, 4]  # 1+3, 1+3, 1+3 = 9 draws round the table
    assert len(t.state.tavern) == 1


def test_hearts_blocked_by_a_heart_enemy_heal_nothing() -> None:
    t = Table(hands=[["7H", "9C"]], enemy="JH", discard=["2S", "3S"], tavern=["4C"])
    t.play("7H")
    assert t.state.damage == 7
    assert len(t.state.discard) == 2 and len(t.state.tavern) == 1
    assert "Shuffle" not in t.kinds()


def test_clubs_blocked_by_a_club_enemy_deal_plain_damage() -> None:
    t = Table(hands=[["8C", "9H"]], enemy="QC")
    t.play("8C")
    assert t.state.damage == 8
    assert t.game.attack_due(t.state) == 15


def test_spades_blocked_by_a_spade_enemy_add_no_shield() -> None:
    t = Table(2, hands=[["4S", "4C", "10H"], ["2H"]], enemy="JS")
    t.play("4S", "4C")
    assert t.state.damage == 16  # X = 8, Clubs still double
    assert t.game.shield(t.state) == 0 and t.game.attack_due(t.state) == 10


def test_ace_and_card_both_of_the_enemy_suit_fire_nothing() -> None:
    t = Table(hands=[["AD", "9D", "10C"]], enemy="JD", tavern=["2C", "3C"])
    t.play("AD", "9D")
    assert t.state.damage == 10
    assert t.hand(0) == ["10C"] and len(t.state.tavern) == 2


def test_hearts_then_diamonds_in_one_play_with_hearts_blocked_still_draws_ec5() -> None:
    t = Table(hands=[["AH", "7D", "10C"]], enemy="JH", tavern=["2S", "3S"], discard=["4S", "5S"])
    t.play("AH", "7D")
    assert len(t.state.discard) == 2  # Hearts blocked
    assert sorted(t.hand(0)) == ["10C", "2S", "3S"]  # Diamonds drew the whole Tavern


def test_hearts_heal_exactly_x_cards_from_a_bigger_discard_pile() -> None:
    t = Table(
        2, hands=[["3H", "9C"], ["2D"]], enemy="JS", discard=[f"{r}C" for r in range(2, 9)], tavern=["AS"]
    )
    t.play("3H")
    assert len(t.state.discard) == 4 and len(t.state.tavern) == 4
    assert t.faces(t.state.tavern[:1]) == ["AS"]  # healed cards go under, not on top


def test_solo_diamonds_draw_at_most_up_to_eight() -> None:
    hand = ["7D", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    t = Table(hands=[hand], enemy="JS", tavern=[f"{r}H" for r in range(2, 11)])
    t.play("7D")
    assert len(t.state.hands[0]) == 8  # X = 7, but only one card fits
    assert len(t.state.tavern) == 8


def test_four_player_diamonds_respect_the_hand_limit_of_five() -> None:
    hands = [["9D", "2C"], ["3C", "4C", "5C", "6C", "7C"], ["8C"], ["9C", "10C", "2H", "3H"]]
    t = Table(4, hands=hands, enemy="JS", tavern=[f"{r}S" for r in range(2, 11)])
    t.play("9D")
    assert [len(h) for h in t.state.hands] == [5, 5, 5, 5]  # 4 + 0 + 4 + 1 = 9 draws
    assert len(t.state.tavern) == 0


def test_diamonds_tavern_runs_out_mid_round_ec3_ec29() -> None:
    t = Table(3, hands=[["2C"], ["5D", "3C"], ["4C"]], enemy="JS", tavern=["AH", "AC"], seat=1)
    t.play("5D")
    deal = next(r for r in t.requests if isinstance(r, Deal))
    assert [s for _, s in deal.deals] == [1, 2]  # the current player first, then clockwise; then empty
    assert [len(h) for h in t.state.hands] == [1, 2, 2]
    assert t.state.tavern == () and t.pending == Decide(1, "discard")


# ---------------------------------------------------------------------------------------------
# Shields, damage, defeat
# ---------------------------------------------------------------------------------------------


def test_spade_shields_accumulate_across_players_and_turns() -> None:
    t = Table(2, hands=[["4S", "6H", "9H"], ["3S", "7H", "8H"]], enemy="JC")
    t.play("4S")
    assert t.game.attack_due(t.state) == 6
    t.pay("6H")
    t.play("3S")  # seat 1: the shield is now 4 + 3
    assert t.game.shield(t.state) == 7 and t.game.attack_due(t.state) == 3
    t.pay("7H")
    assert t.state.damage == 7 and t.pending == Decide(0, "play")


def test_damage_accumulates_and_an_exact_total_is_an_exact_kill() -> None:
    t = Table(2, hands=[["8H", "10H"], ["2S"]], enemy="JC", damage=12, plays=[(1, ["5D"]), (0, ["7S"])])
    enemy = t.state.enemy
    t.play("8H")
    assert t.state.defeated == 1 and t.state.tavern[:1] == (enemy,)
    assert sorted(t.faces(t.state.discard)) == ["5D", "7S", "8H"]  # every card played against it


def test_an_enemy_killed_by_doubled_clubs_landing_exactly_goes_on_the_tavern() -> None:
    t = Table(hands=[["5C", "9H"]], enemy="JH", damage=10, tavern=["2S"])
    enemy = t.state.enemy
    t.play("5C")
    assert t.state.tavern == (enemy, t.state.tavern[1]) and t.faces(t.state.tavern[1:]) == ["2S"]


def test_exact_kill_royal_is_the_next_card_drawn_and_plays_with_its_suit_power_ec14() -> None:
    t = Table(
        2,
        hands=[["10C", "3D", "9S"], ["2S", "10H"]],
        enemy="JH",
        castle=["JS", "JD", "JC"],
        tavern=["4C", "5C", "6C"],
        discard=["7S", "8S"],
    )
    jack = t.state.enemy
    t.play("10C")  # 20 exactly: the Jack of Hearts goes face down on top of the Tavern
    assert t.state.tavern[0] == jack and t.pending == Decide(0, "play")
    assert t.game.enemy_face(t.state) == "JS"
    t.play("3D")  # the new turn: Diamonds draw the Jack first (seat 0, seat 1, seat 0)
    assert jack in t.state.hands[0] and t.state.public[jack] == "JH"
    assert t.hand(0) == ["9S", "JH", "5C"] and t.hand(1) == ["2S", "10H", "4C"]
    t.pay("9S", "5C")
    t.play("2S")  # seat 1 against the Jack of Spades: no shield
    t.pay("10H")
    discard = len(t.state.discard)
    assert discard == 6
    t.play("JH")  # worth 10, Hearts heal 10 (all 6 discards)
    assert t.state.damage == 3 + 2 + 10
    assert t.state.discard == () and len(t.state.tavern) == 7
    assert t.faces(t.state.tavern[:1]) == ["6C"]  # healed under the one card left
    assert t.state.outcome == "lost"  # seat 0's hand is now empty against an attack of 10


def test_an_overkilled_royal_healed_back_can_be_drawn_and_played_ec15() -> None:
    t = Table(hands=[["5H", "2D", "10S"]], enemy="JC", discard=["JH"], enemies_seen=["JH"], tavern=[])
    t.play("5H")  # the Jack of Hearts goes under the (empty) Tavern, face down
    assert len(t.state.tavern) == 1 and t.state.tavern[0] not in t.state.public
    t.pay("10S")
    t.play("2D")  # X = 2 draws the one card there is
    assert sorted(t.hand(0)) == ["JH"]
    t.pay("JH")  # worth 10 against the attack of 10
    assert t.state.hands[0] == () and t.pending == Decide(0, "play")  # a Jester is left


def test_overkill_of_the_last_king_also_wins() -> None:
    t = Table(2, hands=[["10C", "2S"], ["3C"]], enemy="KH", damage=30, castle=[], defeated=11)
    king = t.state.enemy
    t.play("10C")
    assert t.state.outcome == "won" and king in t.state.discard
    result = t.game.result(t.state)
    assert result == {"outcome": "won", "grade": None, "enemies_defeated": 12, "fault": None}


def test_the_next_enemy_after_four_jacks_is_a_queen() -> None:
    t = Table(hands=[["10C", "2S"]], enemy="JH", damage=10, castle=["QS", "QD", "KH"], defeated=3)
    t.play("10C")
    assert t.game.enemy_face(t.state) == "QS" and t.state.defeated == 4
    assert t.game.health_left(t.state) == ENEMY_HEALTH["Q"] and t.game.attack_due(t.state) == 15
    assert ROYAL_RANKS.index("Q") == 1


def test_step4_discard_counts_royals_at_their_values() -> None:
    t = Table(hands=[["QH", "2C", "3C"]], enemy="KD", enemies_seen=["QH"], public_hand=["QH"], castle=["KS"])
    t.play("3C")  # attack 20, hand worth 17
    moves = t.game.legal_moves(t.state, 0, t.own(0))
    assert {"cannot_pay": True} in moves and not any("discard" in m for m in moves)
    t2 = Table(
        2, hands=[["QH", "5C", "10C", "3C"], ["2S"]], enemy="QD", enemies_seen=["QH"], public_hand=["QH"]
    )
    t2.play("3C")  # attack 15
    sets = [sorted(f for _, f in m["discard"]) for m in t2.game.legal_moves(t2.state, 0, t2.own(0))]
    assert sorted(sets) == [["10C", "5C"], ["10C", "QH"], ["5C", "QH"], ["QH"]]  # strict (OQ-4)
    t2.illegal({"discard": t2.cards("QH", "5C", "10C")}, "too many cards")
    t2.pay("QH")
    assert t2.hand(0) == ["5C", "10C"] and t2.pending == Decide(1, "play")


def test_a_hand_worth_less_than_the_attack_loses_and_all_players_lose() -> None:
    t = Table(3, hands=[["2C", "3C", "4S"], ["10H"], ["10D"]], enemy="QH")
    t.play("2C")
    moves = t.game.legal_moves(t.state, 0, t.own(0))
    assert moves == [{"cannot_pay": True}]  # 3 + 4 < 15; no Jester power outside solo
    t.illegal({"discard": t.cards("3C", "4S")}, "less than the attack")
    t.do({"cannot_pay": True})
    assert isinstance(t.pending, GameOver) and t.game.result(t.state)["outcome"] == "lost"


def test_cannot_pay_is_refused_when_there_is_no_attack() -> None:
    t = Table(hands=[["10S", "9H"]], enemy="JC")
    t.play("10S")  # shield 10: the solo Step 4 window at an attack of 0
    t.illegal({"cannot_pay": True}, "nothing to absorb")


# ---------------------------------------------------------------------------------------------
# §6 the Jester (3-4 players)
# ---------------------------------------------------------------------------------------------


def test_jester_skips_damage_and_attack_and_the_chosen_player_starts_then_play_goes_on_from_them() -> None:
    t = Table(4, hands=[["X1", "9C"], ["2H"], ["3H", "10D"], ["4H"]], enemy="JS")
    t.play("X1")
    assert t.state.damage == 0 and t.hand(0) == ["9C"]  # nothing taken, nothing discarded
    assert t.pending == Decide(0, "next")
    t.do({"next": 2})
    assert t.pending == Decide(2, "play")
    t.play("3H")
    t.pay("10D")
    assert t.pending == Decide(3, "play")  # clockwise from the chosen player, not from the Jester's


def test_jester_goes_to_the_discard_pile_with_the_other_played_cards() -> None:
    t = Table(3, hands=[["X1", "10C"], ["2H"], ["3H"]], enemy="JC", damage=10, plays=[(1, ["10H"])])
    jester = t.ref("X1")
    t.play("X1")
    assert jester in t.game.zones(t.state)["table"]
    t.do({"next": 0})
    t.play("10C")  # immunity cancelled: doubled, 10 + 20 = 30: overkill
    assert t.state.defeated == 1 and jester in t.state.discard
    assert t.game.zones(t.state)["table"] == ()


@pytest.mark.parametrize("enemy", ["JH", "JD"])
def test_jester_lets_the_enemy_suit_fire_afterwards_for_hearts_and_diamonds(enemy: str) -> None:
    t = Table(
        3,
        hands=[["X1", "4H", "4D", "10S"], ["2C"], ["3C"]],
        enemy=enemy,
        tavern=["5S", "6S", "7S", "8S"],
        discard=["2S", "3S", "4S", "5C"],
    )
    t.play("X1")
    t.do({"next": 0})
    t.play("4H", "4D")  # X = 8: heal 4 (all), then draw 8 round the table
    assert t.state.discard == ()
    assert len(t.state.tavern) == 0
    assert [len(h) for h in t.state.hands] == [4, 4, 3]  # seat 0, 1, 2, 0, 1, 2, 0, 1


def test_jester_counts_earlier_and_later_spades_against_a_spade_enemy_ec19() -> None:
    t = Table(3, hands=[["X1", "3S", "10H"], ["2C"], ["3C"]], enemy="QS", damage=4, plays=[(1, ["4S"])])
    assert t.game.attack_due(t.state) == 15
    t.play("X1")
    t.do({"next": 0})
    assert t.game.attack_due(t.state) == 11
    t.play("3S")
    assert t.game.shield(t.state) == 7 and t.game.attack_due(t.state) == 8
    t.pay("10H")


def test_two_jesters_against_the_same_enemy_in_four_players_oq7() -> None:
    t = Table(4, hands=[["X1", "5C"], ["X2", "6C"], ["7C"], ["8C"]], enemy="JC")
    t.play("X1")
    t.do({"next": 1})
    t.play("X2")  # a second Jester against the same enemy: still legal, still no attack
    assert t.state.immunity_cancelled and t.pending == Decide(1, "next")
    t.do({"next": 0})
    t.play("5C")
    assert t.state.damage == 10


def test_jester_breaks_a_yield_chain_oq3() -> None:
    t = Table(
        3, hands=[["9C", "10H", "10D"], ["9S", "10S", "8H"], ["X1", "9H"]], enemy="JS", plays=[(0, ["AC"])]
    )
    t.do({"yield": True})
    t.pay("10H")
    t.do({"yield": True})
    t.pay("10S")
    assert {"yield": True} not in t.game.legal_moves(t.state, 2, t.own(2))  # two yields in a row
    t.play("X1")
    t.do({"next": 0})
    assert {"yield": True} in t.game.legal_moves(t.state, 0, t.own(0))  # the Jester was not a yield
    assert t.state.last_yield == (True, True, False)


def test_jester_choice_of_a_player_with_an_empty_hand_oq2() -> None:
    # another seat can always yield (the Jester's player just played); the Jester's player who picks
    # themselves with an empty hand after two yields can do nothing and the game is lost (§9)
    t = Table(3, hands=[["X1", "9C"], [], ["3C"]], enemy="JS", last_yield=[False, True, True])
    t.play("X1")
    t.do({"next": 1})
    assert t.pending == Decide(1, "play") and t.game.legal_moves(t.state, 1, t.own(1)) == [{"yield": True}]
    t2 = Table(3, hands=[["X1"], ["2C"], ["3C"]], enemy="JS", last_yield=[False, True, True])
    t2.play("X1")
    t2.do({"next": 0})
    assert isinstance(t2.pending, GameOver) and t2.state.outcome == "lost"
    assert "may not yield" in t2.state.end_reason


# ---------------------------------------------------------------------------------------------
# §7 yielding, §8 who goes next
# ---------------------------------------------------------------------------------------------


def test_yield_skips_powers_and_damage_and_goes_to_step_four_ec23() -> None:
    t = Table(2, hands=[["9D", "10H"], ["2C"]], enemy="JS", damage=3, tavern=["2S"])
    t.do({"yield": True})
    assert t.state.damage == 3 and t.state.plays == () and len(t.state.tavern) == 1
    assert t.pending == Decide(0, "discard") and t.game.attack_due(t.state) == 10
    t.pay("10H")
    assert t.pending == Decide(1, "play") and t.state.last_yield == (True, False)


def test_two_players_cannot_yield_right_after_the_partner_yielded() -> None:
    t = Table(2, hands=[["10H", "2C"], ["10D", "3C"]], enemy="JS")
    assert t.game.can_yield(t.state, 0)  # OQ-3: no turn yet counts as no yield
    t.do({"yield": True})
    t.pay("10H")
    assert not t.game.can_yield(t.state, 1)
    t.illegal({"yield": True}, "every other player yielded")
    t.play("3C")
    t.pay("10D")
    assert t.game.can_yield(t.state, 0)  # seat 1 played: the chain is broken


def test_four_players_after_three_yields_the_fourth_must_play() -> None:
    hands = [["10H", "2C"], ["10D", "3C"], ["10S", "4C"], ["10C", "5C"]]
    t = Table(4, hands=hands, enemy="JH")
    for card in ("10H", "10D", "10S"):
        t.do({"yield": True})
        t.pay(card)
    assert t.pending == Decide(3, "play")
    assert {"yield": True} not in t.game.legal_moves(t.state, 3, t.own(3))
    t.play("5C")
    t.pay("10C")
    assert t.pending == Decide(0, "play") and t.game.can_yield(t.state, 0)


def test_yield_history_is_not_reset_by_a_defeat_oq3() -> None:
    t = Table(2, hands=[["10H", "2S"], ["10C", "9D"]], enemy="JH", damage=0)
    t.do({"yield": True})
    t.pay("10H")
    t.play("10C")  # seat 1 kills the Jack exactly and plays again
    assert t.state.defeated == 1 and t.pending == Decide(1, "play")
    assert not t.game.can_yield(t.state, 1)  # seat 0's last turn is still a yield
    assert {"yield": True} not in t.game.legal_moves(t.state, 1, t.own(1))


def test_play_passes_clockwise_and_wraps_round() -> None:
    hands = [["2H", "10H"], ["3H", "10D"], ["4H", "10S"], ["5H", "10C"]]
    t = Table(4, hands=hands, enemy="JS", seat=2)
    t.play("4H")
    t.pay("10S")
    assert t.pending == Decide(3, "play")
    t.play("5H")
    t.pay("10C")
    assert t.pending == Decide(0, "play")


def test_a_kill_skips_step_four_even_when_the_hand_could_not_pay() -> None:
    t = Table(2, hands=[["10C"], ["2H"]], enemy="QH", damage=10, castle=["QS", "KH"], defeated=4)
    t.play("10C")  # 30 exactly: no attack although the hand is now empty
    assert t.state.defeated == 5 and t.state.outcome is None
    assert t.pending == Decide(0, "play") and t.game.legal_moves(t.state, 0, t.own(0)) == [{"yield": True}]


# ---------------------------------------------------------------------------------------------
# §10 solo
# ---------------------------------------------------------------------------------------------


def test_solo_refill_does_not_cancel_the_enemy_immunity() -> None:
    t = Table(hands=[["2C"]], enemy="JD", tavern=[f"{r}S" for r in range(2, 10)] + ["5D", "3H"])
    t.do({"jester_power": True})
    assert not t.state.immunity_cancelled
    hand = t.hand(0)
    assert len(hand) == 8 and "5D" not in hand
    t2 = Table(hands=[["5D", "9S"]], enemy="JD", tavern=["2C", "3C"])
    t2.do({"jester_power": True})  # refill to 8 from a Tavern of 2: hand = 2C, 3C
    assert sorted(t2.hand(0)) == ["2C", "3C"] and not t2.state.immunity_cancelled


def test_solo_jester_power_is_offered_at_the_start_of_a_new_turn_after_a_kill() -> None:
    t = Table(hands=[["10C", "2S"]], enemy="JH", tavern=[f"{r}H" for r in range(2, 11)])
    t.play("10C")
    assert t.pending == Decide(0, "play")
    assert {"jester_power": True} in t.game.legal_moves(t.state, 0, t.own(0))
    t.do({"jester_power": True})
    assert len(t.hand(0)) == 8 and t.pending == Decide(0, "play")


def test_solo_empty_hand_at_step_one_may_only_flip_or_loses_without_jesters() -> None:
    t = Table(hands=[[]], enemy="JD", jesters=1, tavern=["2C", "3C"])
    assert t.game.legal_moves(t.state, 0, t.own(0)) == [{"jester_power": True}]
    t.illegal({"yield": True}, "not allowed in a solo game")
    t.do({"jester_power": True})
    assert sorted(t.hand(0)) == ["2C", "3C"] and t.state.jesters == ()
    t2 = Table(hands=[["10S"]], enemy="JC", jesters=0)
    t2.play("10S")  # attack 0, hand empty, no Jester, no yield
    assert t2.state.outcome == "lost" and "may not yield" in t2.state.end_reason


def test_solo_step_four_with_an_empty_hand_and_a_jester_left_can_flip() -> None:
    t = Table(hands=[["9C"]], enemy="JD", jesters=1, tavern=["10H", "2S"])
    t.play("9C")
    assert t.pending == Decide(0, "discard")
    assert t.game.legal_moves(t.state, 0, t.own(0)) == [{"cannot_pay": True}, {"jester_power": True}]
    t.do({"jester_power": True})
    assert sorted(t.hand(0)) == ["10H", "2S"] and t.pending == Decide(0, "discard")
    t.pay("10H")
    assert t.pending == Decide(0, "play") and t.hand(0) == ["2S"]


def test_solo_refill_from_an_empty_tavern_with_no_jester_left_loses() -> None:
    t = Table(hands=[["9C", "AS"]], enemy="JD", jesters=1, tavern=[])
    t.play("9C")
    t.do({"jester_power": True})  # the hand (AS) goes to the discard pile, nothing to draw
    assert t.state.outcome == "lost" and isinstance(t.pending, GameOver)
    assert "no card to absorb 10" in t.state.end_reason


def test_solo_flip_window_is_closed_when_the_turn_is_in_another_step() -> None:
    t = Table(hands=[["9H", "10S"]], enemy="JD", discard=["2C"], tavern=["3C"])
    t.do({"play": t.cards("9H")}, settle=False)  # the play waits for its Reveal (Step 1 is over)
    with pytest.raises(IllegalMove):
        t.game.apply(t.state, Event.move(0, {"jester_power": True}))


# ---------------------------------------------------------------------------------------------
# Refusals and odd but legal positions
# ---------------------------------------------------------------------------------------------


def test_moves_of_the_wrong_step_are_refused_with_the_keys_allowed() -> None:
    t = Table(3, hands=[["X1", "5C", "10H"], ["2C"], ["3C"]], enemy="JS")
    t.illegal({"discard": t.cards("5C")}, "exactly one of the keys play, yield")
    t.illegal({"cannot_pay": True}, "exactly one of the keys play, yield")
    t.illegal({"next": 1}, "exactly one of the keys play, yield")
    t.illegal({"play": t.cards("5C"), "yield": True}, "exactly one of the keys")
    t.play("5C")
    assert t.pending == Decide(0, "discard")
    t.illegal({"play": t.cards("10H")}, "exactly one of the keys discard, cannot_pay")
    t.illegal({"yield": True}, "exactly one of the keys discard, cannot_pay")
    t.pay("10H")
    t.illegal({"play": t.cards("2C")}, "seat 1's turn", seat=0)
    t3 = Table(3, hands=[["X1"], ["2C"], ["3C"]], enemy="JS")
    t3.play("X1")
    t3.illegal({"play": t3.cards("2C")}, "exactly one of the keys next", seat=0)
    t3.illegal({"next": 1}, "seat 0's turn", seat=1)


def test_no_move_is_accepted_once_the_game_is_over() -> None:
    t = Table(hands=[["10C", "2S"]], enemy="KH", damage=20, castle=[], defeated=11)
    t.play("10C")
    assert isinstance(t.pending, GameOver)
    with pytest.raises(IllegalMove, match="the game is over"):
        t.game.apply(t.state, Event.move(0, {"play": t.cards("2S")}))
    assert t.game.legal_moves(t.state, 0, t.own(0)) == []


def test_hearts_and_diamonds_with_empty_discard_and_empty_tavern_change_nothing() -> None:
    t = Table(2, hands=[["3H", "3D", "10S"], ["2C"]], enemy="JC")
    t.play("3H", "3D")
    assert t.state.damage == 6 and t.state.tavern == () and t.state.discard == ()
    assert t.kinds() == ["Reveal"] and t.pending == Decide(0, "discard")


def test_every_hand_empty_ends_the_game_instead_of_looping() -> None:
    t = Table(2, hands=[["10S"], []], enemy="JC", plays=[(1, ["AS"])])
    t.play("10S")  # full shield: seat 0 survives with an empty hand (EC-18)
    assert t.pending == Decide(1, "play") and t.game.legal_moves(t.state, 1, t.own(1)) == [{"yield": True}]
    t.do({"yield": True})  # nothing to pay; seat 0 has no card and may not yield
    assert isinstance(t.pending, GameOver) and t.state.outcome == "lost"


def test_last_enemy_killed_with_an_empty_tavern_and_empty_hands_wins() -> None:
    t = Table(2, hands=[["5D"], []], enemy="KS", damage=35, castle=[], defeated=11, tavern=[])
    t.play("5D")
    assert t.state.outcome == "won" and isinstance(t.pending, GameOver)
    assert t.state.tavern[:1] == (t.ref("KS"),)  # exact kill, though it no longer matters (EC-24)


def test_hearts_and_diamonds_played_before_a_jester_are_not_rerun() -> None:
    # rules §6.3: against a Diamond enemy the earlier Diamonds drew nothing, and the Jester does not
    # make them draw now
    t = Table(
        3, hands=[["X1", "9C"], ["2C"], ["3C"]], enemy="JD", plays=[(1, ["8D"])], damage=8, tavern=["4S"]
    )
    t.play("X1")
    assert t.state.immunity_cancelled
    assert t.faces(t.state.tavern) == ["4S"] and [len(h) for h in t.state.hands] == [1, 1, 1]
    assert t.state.damage == 8


def test_the_castle_order_is_enforced_when_a_king_is_due() -> None:
    t = Table(hands=[["10C", "2S"]], enemy="QH", damage=10, castle=["KS", "KD"], defeated=7)
    t.do({"play": t.cards("10C")}, settle=False)
    t.state = t.game.apply(t.state, t.answer(t.pending))  # the 10C is revealed: 30, the Queen dies
    request = t.pending
    assert isinstance(request, Reveal) and request.refs == (t.state.enemy,)
    with pytest.raises(IllegalMove, match="a K was due"):
        t.game.apply(t.state, Event(REVEALED, None, {"faces": {t.state.enemy: "QS"}}))
    t.settle()
    assert t.game.enemy_face(t.state) == "KS" and t.game.attack_due(t.state) == 20


def test_the_offered_plays_are_exactly_the_legal_shapes() -> None:
    rng = random.Random(2024)
    for seats in (1, 2, 3, 4):
        game = Regicide(seats)
        faces = sorted(game.hand_faces)
        for _ in range(150):
            cards = list(enumerate(rng.sample(faces, game.hand_limit)))
            offered = {tuple(sorted(p)) for p in game.candidate_plays(cards)}
            legal = {
                sub
                for k in range(1, len(cards) + 1)
                for sub in itertools.combinations(cards, k)
                if play_shape_error([f for _, f in sub], seats >= 3) is None
            }
            assert offered == legal
