"""Rules audit of Regicide against ``shared/rules/regicide.md``: combinations of rules that the
per-rule tests leave loose, each set up exactly and played to its outcome (rules audit, pass 2).

Every test names the rule it pins: a section (§n), an edge case (EC-n) or an open question (OQ-n).
"""

from __future__ import annotations

from typing import Any

from engine.core import Decide

from .test_regicide_rules import Table


def discard_options(t: Table) -> set[frozenset[str]]:
    """The discards offered to the deciding seat, as sets of faces."""
    request = t.pending
    assert isinstance(request, Decide) and request.prompt == "discard"
    moves = t.game.legal_moves(t.state, request.seat, t.own(request.seat))
    return {frozenset(face for _, face in m["discard"]) for m in moves if "discard" in m}


def moves(t: Table) -> list[dict[str, Any]]:
    """Every legal move of the deciding seat."""
    request = t.pending
    assert isinstance(request, Decide)
    return t.game.legal_moves(t.state, request.seat, t.own(request.seat))


def test_s5_2_oq4_a_partial_shield_lowers_the_attack_and_the_strict_discards_are_exactly_these() -> None:
    """§5.2 shield (Σ X of the spade plays, from both players) and §5.4 with OQ-4 strict discards:
    Queen attack 15 - shield (3 + 5) = 7. Hand 7, 2, 5: a discard must reach 7 and stop on its last
    card, so {7}, {2, 5}, {2, 7}, {5, 7} - never all three (2 + 5 already covers 7)."""
    t = Table(2, hands=[["7C", "2D", "5H"], ["4C"]], enemy="QH", plays=[(0, ["3S"]), (1, ["5S"])], damage=8)
    assert t.game.shield(t.state) == 8 and t.game.attack_due(t.state) == 7
    t.do({"yield": True})
    assert discard_options(t) == {
        frozenset({"7C"}),
        frozenset({"2D", "5H"}),
        frozenset({"2D", "7C"}),
        frozenset({"5H", "7C"}),
    }
    t.illegal({"discard": t.cards("7C", "2D", "5H")}, "too many")
    t.illegal({"discard": t.cards("2D", "4C")[:1]}, "less than")
    t.pay("2D", "5H")
    assert t.hand(0) == ["7C"] and t.pending == Decide(1, "play")


def test_s5_2_ec29_diamonds_go_round_the_table_skipping_full_hands_until_everyone_is_full() -> None:
    """§5.2 Diamonds, EC-4, EC-29 (3 players, limit 6): X = 5, seat 0 holds 3 after playing, seat 1
    is full, seat 2 holds 5. One at a time from seat 0: 0, (1 full), 2, 0, (1, 2 full), 0 - then every
    hand is full and only 4 of the 5 cards are drawn, in Tavern order."""
    t = Table(
        3,
        hands=[
            ["5D", "2C", "3C", "4C"],
            ["2H", "3H", "4H", "5H", "6H", "7H"],
            ["2S", "3S", "4S", "5S", "6S"],
        ],
        enemy="JC",
        tavern=["8C", "8H", "8S", "9C", "9H", "9S"],
    )
    t.play("5D")
    assert [len(h) for h in t.state.hands] == [6, 6, 6]
    assert sorted(t.hand(0)) == sorted(["2C", "3C", "4C", "8C", "8S", "9C"])
    assert t.hand(2)[-1] == "8H"
    assert t.faces(t.state.tavern) == ["9H", "9S"]
    assert t.state.damage == 5 and t.pending == Decide(0, "discard")


def test_s6_2_oq2_jester_lets_the_clubs_enemy_be_doubled_by_the_player_it_chooses_itself() -> None:
    """§6.2, OQ-2, EC-20 (the other half): after the Jester, a player may pick themselves; their
    next turn's Clubs against the Clubs enemy now double (16, not 8)."""
    t = Table(3, hands=[["X1", "8C"], ["2H"], ["3H"]], enemy="JC")
    t.play("X1")
    assert t.pending == Decide(0, "next")
    assert {m["next"] for m in moves(t)} == {0, 1, 2}
    t.do({"next": 0})
    assert t.pending == Decide(0, "play")
    t.play("8C")
    assert t.state.damage == 16


def test_s7_2p_first_turn_may_yield_but_not_straight_after_the_partner() -> None:
    """§7, OQ-3: nobody has yielded before the game's first turn, so seat 0 may yield; then seat 1
    may not. With a shield covering the attack (A = 0), a yield costs nothing."""
    t = Table(2, hands=[["2C"], ["3C"]], enemy="JH", plays=[(0, ["10S"])], damage=10)
    assert {"yield": True} in moves(t)
    t.do({"yield": True})
    assert t.pending == Decide(1, "play")
    assert {"yield": True} not in moves(t)
    t.illegal({"yield": True}, "may not yield")


def test_s10_solo_overkill_of_the_last_king_after_one_flip_is_a_silver_victory() -> None:
    """§9 victory, §10 grading: one Jester flipped earlier (1 left), the last King overkilled
    (30 + 2x10 = 50 > 40) ends the game won at once, graded Silver."""
    t = Table(1, hands=[["10C", "2H"]], enemy="KS", castle=[], damage=30, jesters=1, defeated=11)
    assert {"jester_power": True} in moves(t)
    t.play("10C")
    result = t.game.result(t.state)
    assert result["outcome"] == "won" and result["grade"] == "silver"
    assert result["enemies_defeated"] == 12
