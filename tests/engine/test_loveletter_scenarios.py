"""Love Letter rules scenarios: situations from ``shared/rules/love-letter.md`` that the rule tests
(``test_loveletter_rules.py``) do not pin yet, each built by hand and played to its exact outcome.

Every test names the rule it pins: a section (§n), an edge case (EC-n) or an open question (OQ-n).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import (
    DEALT,
    DISCLOSED,
    MOVE,
    REVEALED,
    Deal,
    Decide,
    Disclose,
    Event,
    Reveal,
    Shuffle,
)
from tests.engine.loveletter_support import Table
from tests.engine.test_loveletter_rules import NO_REMOVAL, assert_rejected, kinds


def discarded(table: Table, seat: int) -> list[str]:
    """The faces of ``seat``'s discard row (every one is public)."""
    return [table.state.faces[r] for r in table.state.discards[seat]]


def next_round(table: Table) -> None:
    """From a finished round: disclose, shuffle, deal and draw up to the first decision."""
    assert isinstance(table.game.pending(table.state), Disclose)
    table.step()
    assert isinstance(table.game.pending(table.state), Shuffle)
    table.step()
    table.resolve()


# ---------------------------------------------------------------------------------------------
# §2 Round setup and §1 tokens to win
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "pile", "faceup"),
    [(4, {}, 11, 0), (3, {}, 12, 0), (2, {}, 10, 3), (2, NO_REMOVAL, 13, 0)],
)
def test_s2_setup_sets_one_card_aside_face_down_and_leaves_the_right_pile(
    seats: int, options: dict[str, Any], pile: int, faceup: int
) -> None:
    table = Table.rigged(seats, [], options)
    s = table.state
    # the starter has drawn once: the pile after the opening deal was one card larger
    assert table.game.pending(s) == Decide(0, "play")
    assert len(s.pile) + 1 == pile
    assert [len(h) for h in s.hands] == [2] + [1] * (seats - 1)
    assert s.set_aside is not None and s.set_aside not in s.faces  # face down: nobody knows it
    assert len(s.faceup) == faceup and all(r in s.faces for r in s.faceup)  # face up: everyone
    assert len({s.set_aside, *s.faceup, *s.pile, *(r for h in s.hands for r in h)}) == 16


@pytest.mark.parametrize(
    ("seats", "before", "over"),
    [(2, 6, True), (2, 5, False), (3, 4, True), (3, 3, False), (4, 3, True), (4, 2, False)],
)
def test_s1_tokens_to_win_by_player_count(seats: int, before: int, over: bool) -> None:
    # seat 0 knocks out its last opponent and takes a token: 7 / 5 / 4 tokens win (§1, §7.3)
    hands = [["guard", "priest"], ["baron"]] + [[] for _ in range(seats - 2)]
    table = Table.build(seats, hands, pile=["handmaid", "handmaid"], out=range(2, seats),
                        tokens=(before,) + (0,) * (seats - 1), options=NO_REMOVAL)
    table.play(0, "guard", 1, "baron")
    table.honest()
    assert table.state.tokens[0] == before + 1
    table.step()  # the round's hidden cards are disclosed
    assert table.game.is_over(table.state) is over
    if over:
        assert table.game.result(table.state)["winners"] == [0]
    else:
        assert isinstance(table.game.pending(table.state), Shuffle)


def test_oq1_two_player_faceup_cards_are_reshuffled_and_replaced_next_round() -> None:
    table = Table.rigged(2, ["baron", "king", "countess", "handmaid", "guard", "priest", "guard"])
    first = table.state.faceup
    table.play(0, "guard", 1, "priest")
    table.honest()  # hit: seat 0 wins round 1
    table.step()  # disclosure
    assert set(first) <= set(table.game.pending(table.state).refs)  # type: ignore[union-attr]
    table.step()  # shuffle
    assert table.state.round == 2
    table.resolve()
    s = table.state
    assert len(s.faceup) == 3 and not set(s.faceup) & set(first)
    assert all(r in s.faces for r in s.faceup) and len(s.pile) + 1 == 10


# ---------------------------------------------------------------------------------------------
# §3 Turn order and who starts the next round
# ---------------------------------------------------------------------------------------------


def test_s3_turns_go_clockwise_and_skip_players_out_of_the_round() -> None:
    table = Table.build(4, [["guard", "handmaid"], [], ["priest"], ["baron"]],
                        pile=["guard", "guard", "countess", "prince"], discards=[[], ["princess"], [], []],
                        out=[1])
    table.play(0, "handmaid")
    assert table.game.pending(table.state) == Decide(2, "play")  # seat 1 is skipped
    table.play(2, "guard", 3, "king")
    table.honest()  # miss
    assert table.game.pending(table.state) == Decide(3, "play")
    table.play(3, "guard", 2, "king")
    table.honest()
    assert table.game.pending(table.state) == Decide(0, "play")


def test_s3_the_winner_of_a_round_by_knockout_starts_the_next_round() -> None:
    table = Table.build(3, [["guard", "priest"], ["baron"], ["king"]],
                        pile=["guard", "handmaid", "handmaid"])
    table.play(0, "guard", 1, "baron")
    table.honest()  # seat 1 is out
    table.play(2, "guard", 0, "priest")
    table.honest()  # seat 0 is out: seat 2 is the last one left
    assert table.state.tokens == (0, 0, 1) and table.state.starter == 2
    table.step()
    table.step()
    # the opening deal starts with seat 2, and seat 2 takes the first turn
    request = table.game.pending(table.state)
    assert isinstance(request, Deal) and [seat for _, seat in request.deals] == [2, 0, 1]
    table.resolve()
    assert table.game.pending(table.state) == Decide(2, "play")
    assert table.state.out == (False, False, False) and table.state.discards == ((), (), ())


def test_s3_the_winner_of_a_showdown_starts_the_next_round() -> None:
    table = Table.build(3, [["guard", "handmaid"], ["king"], ["priest"]], pile=[])
    table.play(0, "handmaid")
    assert table.state.tokens == (0, 1, 0) and table.state.starter == 1
    next_round(table)
    assert table.game.pending(table.state) == Decide(1, "play")


# ---------------------------------------------------------------------------------------------
# §5 Cards
# ---------------------------------------------------------------------------------------------


def test_s5_guard_miss_does_nothing_and_reveals_nothing() -> None:
    table = Table.build(3, [["guard", "priest"], ["baron"], ["king"]], pile=["guard", "handmaid"])
    card = table.state.hands[1][0]
    table.play(0, "guard", 1, "princess")
    assert table.legal() == [{"hit": False}]
    start = len(table.history)
    table.honest()
    assert kinds(table, start) == [MOVE, DEALT]  # no Reveal
    assert not any(table.state.out) and card not in table.state.faces
    assert table.state.hands[1][0] == card  # kept, and seat 1 has drawn for its turn


def test_s5_guard_hit_on_the_princess_reveals_and_knocks_out() -> None:
    table = Table.build(3, [["guard", "priest"], ["princess"], ["king"]], pile=["guard", "handmaid"])
    table.play(0, "guard", 1, "princess")
    assert table.legal() == [{"hit": True}]
    table.honest()
    assert table.state.out == (False, True, False)
    assert discarded(table, 1) == ["princess"] and table.state.hands[1] == ()
    assert table.game.pending(table.state) == Decide(2, "play")


def test_oq6_guard_may_target_a_player_whose_card_is_known() -> None:
    table = Table.build(3, [["priest", "guard"], ["baron"], ["king"]],
                        pile=["guard", "countess", "priest", "handmaid", "handmaid"])
    table.play(0, "priest", 1)
    baron = table.state.hands[1][0]
    assert table.dealer.known_to(0)[baron] == "baron"
    table.play(1, "guard", 2, "princess")
    table.honest()  # miss
    table.play(2, "countess")  # forced by the King (EC-8)
    move = {"card": table.ref(0, "guard"), "face": "guard", "target": 1, "guess": "baron"}
    assert move in table.legal()
    table.decide(move)
    table.honest()
    assert table.state.out[1] and discarded(table, 1) == ["guard", "baron"]


def test_s5_priest_shows_the_card_only_to_its_player() -> None:
    table = Table.build(3, [["priest", "guard"], ["baron"], ["king"]], pile=["guard", "handmaid"])
    card = table.state.hands[1][0]
    start = len(table.history)
    table.play(0, "priest", 1)
    assert kinds(table, start) == [MOVE, REVEALED, "shown", DEALT]
    assert table.dealer.known_to(0)[card] == "baron"
    assert card not in table.dealer.known_to(2) and card not in table.state.faces
    assert table.state.hands[1][0] == card and not any(table.state.out)


def test_s5_baron_the_player_with_the_lower_card_can_be_the_one_who_played_it() -> None:
    table = Table.build(3, [["baron", "guard"], ["king"], ["priest"]], pile=["guard", "handmaid"])
    king = table.state.hands[1][0]
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": 0}]
    table.honest()
    assert table.state.out == (True, False, False)
    assert discarded(table, 0) == ["baron", "guard"]
    assert king not in table.state.faces  # the winner's card stays secret ...
    assert table.dealer.known_to(0)[king] == "king"  # ... except from the loser (§6)
    assert table.game.pending(table.state) == Decide(1, "play")


def test_s5_baron_with_the_princess_always_wins() -> None:
    table = Table.build(3, [["baron", "princess"], ["king"], ["priest"]], pile=["guard", "handmaid"])
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": 1}]
    table.honest()
    assert table.state.out == (False, True, False) and discarded(table, 1) == ["king"]


def test_ec15_baron_knocking_out_the_last_opponent_ends_the_round_at_once() -> None:
    table = Table.build(2, [["baron", "king"], ["guard"]], pile=["handmaid", "handmaid", "priest"],
                        options=NO_REMOVAL)
    table.play(0, "baron", 1)
    table.honest()
    assert table.state.out == (False, True) and table.state.tokens == (1, 0)
    assert len(table.state.pile) == 3 and isinstance(table.game.pending(table.state), Disclose)


def test_ec15_losing_your_own_baron_to_the_last_opponent_gives_them_the_round() -> None:
    table = Table.build(2, [["baron", "guard"], ["king"]], pile=["handmaid", "priest"], options=NO_REMOVAL)
    table.play(0, "baron", 1)
    table.honest()
    assert table.state.out == (True, False) and table.state.tokens == (0, 1)
    assert table.state.last_winners == (1,) and table.state.starter == 1


@pytest.mark.parametrize("face", ["guard", "priest", "baron", "king"])
def test_ec02_with_four_players_every_other_one_protected_or_out(face: str) -> None:
    table = Table.build(4, [[face, "prince"], ["baron"], ["guard"], []], pile=["guard", "countess"],
                        discards=[[], ["handmaid"], ["handmaid"], ["princess"]], protected=[1, 2], out=[3])
    guess = "priest" if face == "guard" else None
    moves = [m for m in table.legal() if m["face"] == face]
    assert moves == [{"card": table.ref(0, face), "face": face, "target": None, "guess": None}]
    for target in (1, 2):
        assert_rejected(table, table.move_for(0, face, target, guess), "protected")
    assert_rejected(table, table.move_for(0, face, 3, guess), "out of the round")
    if face == "guard":  # no target, so nothing to name
        assert_rejected(table, table.move_for(0, face, None, "priest"), "only a Guard with a target")
    before = table.state.hands
    kept = [r for r in before[0] if r != table.ref(0, face)]
    start = len(table.history)
    table.play(0, face)
    assert kinds(table, start) == [MOVE, REVEALED, DEALT]  # no answer, look, comparison or swap
    after = table.state.hands
    assert list(after[0]) == kept and after[1][0] == before[1][0] and after[2] == before[2]
    assert table.state.out == (False, False, False, True)
    assert table.game.pending(table.state) == Decide(1, "play")


def test_ec02_king_with_no_target_keeps_your_card() -> None:
    table = Table.build(3, [["king", "princess"], ["baron"], []], pile=["guard", "handmaid"],
                        discards=[[], ["handmaid"], ["guard"]], protected=[1], out=[2])
    princess = table.ref(0, "princess")
    table.play(0, "king")
    assert table.state.hands[0] == (princess,) and not table.state.out[0]


def test_ec03_prince_with_four_players_every_other_one_protected_or_out() -> None:
    table = Table.build(4, [["prince", "guard"], ["baron"], ["guard"], []], pile=["guard", "countess"],
                        discards=[[], ["handmaid"], ["handmaid"], ["princess"]], protected=[1, 2], out=[3])
    assert [m["target"] for m in table.legal() if m["face"] == "prince"] == [0]
    for target, match in [(1, "protected"), (2, "protected"), (3, "out of the round")]:
        assert_rejected(table, table.move_for(0, "prince", target), match)
    table.play(0, "prince", 0)
    assert discarded(table, 0) == ["prince", "guard"] and table.hand(0) == ["guard"]


def test_ec03_seed_tip_prince_and_princess_with_everyone_protected_knocks_you_out() -> None:
    # seed tip: "Princess + Prince (and everyone else is protected)" loses the round
    table = Table.build(2, [["prince", "princess"], ["baron"]], pile=["guard", "handmaid"],
                        discards=[[], ["handmaid"]], protected=[1], options=NO_REMOVAL)
    assert {m["face"]: m["target"] for m in table.legal()} == {"prince": 0, "princess": None}
    table.play(0, "prince", 0)
    assert table.state.out == (True, False) and table.state.tokens == (0, 1)
    assert discarded(table, 0) == ["prince", "princess"]


def test_ec04_ec05_prince_on_yourself_with_an_empty_pile_takes_the_set_aside_card() -> None:
    table = Table.build(2, [["prince", "baron"], ["guard"]], pile=[], set_aside="king", options=NO_REMOVAL)
    aside = table.state.set_aside
    table.play(0, "prince", 0)
    assert discarded(table, 0) == ["prince", "baron"]
    assert table.state.hands[0] == (aside,) and table.state.set_aside is None
    # the turn left the pile empty: showdown, the King beats the Guard
    assert table.state.tokens == (1, 0)


def test_ec04_ec06_prince_on_yourself_keeping_the_princess_with_an_empty_pile() -> None:
    table = Table.build(3, [["prince", "princess"], ["guard"], ["priest"]], pile=[], set_aside="king")
    aside = table.state.set_aside
    table.play(0, "prince", 0)
    assert table.state.out == (True, False, False)
    assert table.state.set_aside == aside and table.state.hands[0] == ()  # no draw at all
    assert table.state.tokens == (0, 0, 1)  # showdown of the two left: Priest beats Guard


def test_ec06_prince_on_a_princess_with_an_empty_pile_draws_nothing() -> None:
    table = Table.build(3, [["prince", "guard"], ["princess"], ["priest"]], pile=[], set_aside="king")
    aside = table.state.set_aside
    table.play(0, "prince", 1)
    assert table.state.out == (False, True, False) and table.state.set_aside == aside
    assert table.state.tokens == (0, 0, 1)


def test_ec06_ec15_prince_on_the_last_opponents_princess_wins_the_round_at_once() -> None:
    table = Table.build(3, [["prince", "guard"], ["princess"], []], pile=["baron", "handmaid"],
                        discards=[[], [], ["priest"]], out=[2])
    pile = table.state.pile
    table.play(0, "prince", 1)
    assert table.state.out == (False, True, True) and table.state.tokens == (1, 0, 0)
    assert table.state.pile == pile  # no draw for the knocked-out player
    assert isinstance(table.game.pending(table.state), Disclose)


@pytest.mark.parametrize("victim", ["priest", "handmaid", "prince", "countess"])
def test_ec07_prince_forced_discard_of_other_cards_has_no_effect(victim: str) -> None:
    table = Table.rigged(3, ["baron", "guard", victim, "priest", "prince"])
    start = len(table.history)
    table.play(0, "prince", 1)
    assert kinds(table, start) == [MOVE, REVEALED, REVEALED, DEALT, DEALT]  # no look, no second Prince
    assert table.state.protected == (False, False, False)  # a forced Handmaid protects nobody
    assert discarded(table, 1) == [victim]
    assert table.game.pending(table.state) == Decide(1, "play")
    assert table.check() == []


def test_ec16_prince_on_yourself_drawing_the_last_card_then_showdown() -> None:
    table = Table.build(2, [["prince", "guard"], ["baron"]], pile=["king"], set_aside="princess",
                        options=NO_REMOVAL)
    aside = table.state.set_aside
    table.play(0, "prince", 0)
    assert table.hand(0) == ["king"] and table.state.set_aside == aside  # the pile's card
    assert table.state.tokens == (1, 0)


@pytest.mark.parametrize("forcer", ["king", "prince"])
def test_ec08_countess_is_forced_even_when_everyone_else_is_protected(forcer: str) -> None:
    # the King would do nothing and the Prince would have to hit yourself: the Countess still must go
    table = Table.build(3, [["countess", forcer], ["baron"], []], pile=["guard", "guard"],
                        discards=[[], ["handmaid"], ["guard"]], protected=[1], out=[2])
    assert [m["face"] for m in table.legal()] == ["countess"]
    table.play(0, "countess")
    assert table.hand(0) == [forcer] and discarded(table, 0) == ["countess"]


@pytest.mark.parametrize("forcer", ["king", "prince"])
def test_ec08_countess_rule_in_the_2019_edition(forcer: str) -> None:
    table = Table.build(3, [["countess", forcer], ["baron"], ["priest"]], pile=["guard", "guard"],
                        options={"edition": "2019"})
    assert [m["face"] for m in table.legal()] == ["countess"]


def test_s5_king_swaps_the_princess_away_without_a_discard() -> None:
    table = Table.build(3, [["king", "princess"], ["guard"], ["priest"]], pile=["baron", "handmaid"])
    princess, guard = table.ref(0, "princess"), table.state.hands[1][0]
    table.play(0, "king", 1)
    assert table.state.hands[0] == (guard,) and table.state.hands[1][0] == princess
    assert not any(table.state.out) and princess not in table.state.faces
    assert table.dealer.known_to(0)[guard] == "guard" and table.dealer.known_to(1)[princess] == "princess"
    assert princess not in table.dealer.known_to(2)
    assert table.game.pending(table.state) == Decide(1, "play")


def test_ec14_ec15_playing_the_princess_against_the_last_opponent_gives_them_the_round() -> None:
    table = Table.build(2, [["princess", "guard"], ["baron"]], pile=["handmaid", "priest"],
                        options=NO_REMOVAL)
    table.play(0, "princess")
    assert table.state.out == (True, False)
    assert discarded(table, 0) == ["princess", "guard"]  # the other card face up too (EC-19)
    assert table.state.tokens == (0, 1) and table.state.starter == 1


def test_s5_handmaid_protects_only_against_the_other_players() -> None:
    # seat 1's protection stops seat 2's cards; seat 1 is not asked for anything meanwhile
    table = Table.build(3, [["prince"], ["handmaid", "baron"], ["king"]],
                        pile=["guard", "priest", "countess"], turn=1)
    table.play(1, "handmaid")
    assert table.state.protected == (False, True, False)
    assert {m["target"] for m in table.legal() if m["face"] in ("guard", "king")} == {0}
    table.play(2, "king", 0)
    assert table.state.protected == (False, True, False)
    assert_rejected(table, table.move_for(0, "guard", 1, "baron"), "protected")
    assert_rejected(table, table.move_for(0, "priest", 1), "protected")


def test_s5_handmaid_protection_ends_with_the_round() -> None:
    table = Table.build(3, [["guard", "handmaid"], ["king"], ["priest"]], pile=[])
    table.play(0, "handmaid")  # the last turn: protection for a turn that never comes
    assert table.state.tokens == (0, 1, 0)
    assert table.state.protected == (False, False, False)
    next_round(table)
    assert table.state.protected == (False, False, False)


# ---------------------------------------------------------------------------------------------
# §7 Showdown, ties and the next starter
# ---------------------------------------------------------------------------------------------


def test_s7_showdown_highest_card_wins_over_a_bigger_discard_total() -> None:
    table = Table.build(3, [["guard", "handmaid"], ["priest"], ["baron"]], pile=[],
                        discards=[["guard"], ["prince", "king"], []])
    table.play(0, "handmaid")
    assert table.state.tokens == (0, 0, 1)  # the Baron (3): totals only break ties


def test_s7_showdown_ignores_players_out_of_the_round() -> None:
    table = Table.build(4, [["guard", "handmaid"], ["prince"], ["prince"], []], pile=[],
                        discards=[[], ["guard"], ["priest"], ["baron", "princess"]], out=[3])
    table.play(0, "handmaid")
    # the two Princes tie; seat 2's discards (2) beat seat 1's (1); seat 3 is out
    assert table.state.tokens == (0, 0, 1, 0) and table.state.last_top == (2,)


def test_ec17_three_way_tie_broken_by_the_discard_total() -> None:
    # three Guards; totals: seat 0 = 4 (its Handmaid), seat 1 = 5 + 1 = 6, seat 2 = 3
    table = Table.build(3, [["guard", "handmaid"], ["guard"], ["guard"]], pile=[],
                        discards=[[], ["prince", "guard"], ["baron"]])
    table.play(0, "handmaid")
    assert table.state.tokens == (0, 1, 0) and table.state.last_top == (1,)


@pytest.mark.parametrize(("policy", "tokens"), [("none", (0, 0, 0, 0)), ("all_tied_win", (0, 1, 0, 1))])
def test_ec18_oq8_complete_tie_of_two_among_four(policy: str, tokens: tuple[int, ...]) -> None:
    # four Guards; totals: seat 0 = 4 (its Handmaid), seat 1 = 5, seat 2 = 2, seat 3 = 5
    table = Table.build(4, [["guard", "handmaid"], ["guard"], ["guard"], ["guard"]], pile=[], turn=0,
                        starter=2, discards=[[], ["prince"], ["priest"], ["baron", "priest"]],
                        options={"final_tie_policy": policy})
    table.play(0, "handmaid")
    assert table.state.tokens == tokens
    assert table.state.last_top == (1, 3)
    assert table.state.starter == 3  # OQ-3: clockwise from the starter (seat 2): 2, 3, ...


def test_oq3_co_winners_clockwise_from_the_previous_starter() -> None:
    # seats 1 and 3 tie completely; the round's starter was seat 2: clockwise 2, 3, 0, 1 -> seat 3
    table = Table.build(4, [["guard", "handmaid"], ["prince"], ["baron"], ["prince"]], pile=[], turn=0,
                        starter=2, discards=[[], ["guard", "priest"], [], ["priest", "guard"]])
    table.play(0, "handmaid")
    assert table.state.tokens == (0, 0, 0, 0) and table.state.last_winners == ()
    assert table.state.last_top == (1, 3) and table.state.starter == 3
    next_round(table)
    assert table.game.pending(table.state) == Decide(3, "play")


def test_oq3_all_tied_win_co_winners_also_pick_the_starter_clockwise() -> None:
    table = Table.build(4, [["guard", "handmaid"], ["prince"], ["baron"], ["prince"]], pile=[], turn=0,
                        starter=0, discards=[[], ["guard", "priest"], [], ["priest", "guard"]],
                        options={"final_tie_policy": "all_tied_win"})
    table.play(0, "handmaid")
    assert table.state.tokens == (0, 1, 0, 1) and table.state.last_winners == (1, 3)
    assert table.state.starter == 1  # clockwise from seat 0: seat 1 comes before seat 3


def test_s7_3_game_ends_at_once_when_a_showdown_token_reaches_the_goal() -> None:
    table = Table.build(3, [["guard", "handmaid"], ["king"], ["priest"]], pile=[], tokens=(4, 4, 4))
    table.play(0, "handmaid")
    assert table.state.tokens == (4, 5, 4)
    table.step()
    assert table.game.is_over(table.state) and table.game.result(table.state)["winners"] == [1]


# ---------------------------------------------------------------------------------------------
# Illegal moves: refused with a clear error, nothing changed
# ---------------------------------------------------------------------------------------------


def test_illegal_targets_for_every_targeted_card() -> None:
    table = Table.build(4, [["guard", "baron"], ["priest"], ["handmaid"], []], pile=["guard", "guard"],
                        discards=[[], [], ["handmaid"], ["princess"]], protected=[2], out=[3])
    for face in ("guard", "baron"):
        guess = "priest" if face == "guard" else None
        assert_rejected(table, table.move_for(0, face, 0, guess), "another player, not yourself")
        assert_rejected(table, table.move_for(0, face, 2, guess), "protected by the Handmaid")
        assert_rejected(table, table.move_for(0, face, 3, guess), "out of the round")
        assert_rejected(table, table.move_for(0, face, -1, guess), "no seat")
        assert_rejected(table, table.move_for(0, face, None, guess), "needs a target|only a Guard")
    assert_rejected(table, table.move_for(0, "guard", 1, 3), "must name a card")  # type: ignore[arg-type]
    assert_rejected(table, table.move_for(0, "guard", 1, "Priest"), "must name a card")


def test_illegal_prince_king_and_untargeted_cards() -> None:
    table = Table.build(3, [["prince", "king"], ["priest"], []], pile=["guard", "guard"],
                        discards=[[], [], ["princess"]], out=[2])
    assert_rejected(table, table.move_for(0, "prince", 2), "out of the round")
    assert_rejected(table, table.move_for(0, "prince", 5), "no seat")
    assert_rejected(table, table.move_for(0, "king", 0), "another player")
    assert_rejected(table, table.move_for(0, "king", 2), "out of the round")
    table = Table.build(3, [["countess", "handmaid"], ["priest"], ["guard"]], pile=["guard", "guard"])
    assert_rejected(table, table.move_for(0, "countess", 1), "takes no target")
    assert_rejected(table, table.move_for(0, "handmaid", 0), "takes no target")
    table = Table.build(3, [["princess", "guard"], ["priest"], ["guard"]], pile=["guard", "guard"])
    assert_rejected(table, table.move_for(0, "princess", 1), "takes no target")


def test_illegal_moves_out_of_turn_and_by_players_out_of_the_round() -> None:
    table = Table.build(3, [["guard", "priest"], [], ["king"]], pile=["guard", "guard"],
                        discards=[[], ["princess"], []], out=[1])
    move = table.move_for(0, "guard", 2, "king")
    assert_rejected(table, Event.move(1, dict(move.data)), "seat 0's turn")
    assert_rejected(table, Event.move(2, dict(move.data)), "seat 0's turn")
    assert table.game.legal_moves(table.state, 1, table.dealer.known_to(1)) == []
    # playing the other seat's card
    other = {"card": table.state.hands[2][0], "face": "king", "target": 2}
    assert_rejected(table, Event.move(0, other), "does not hold")


def test_odd_but_legal_guard_naming_a_card_you_hold_yourself() -> None:
    table = Table.build(3, [["guard", "princess"], ["baron"], ["king"]], pile=["guard", "handmaid"])
    table.play(0, "guard", 1, "princess")  # seat 0 holds the only Princess: a sure miss
    assert table.legal() == [{"hit": False}]
    table.honest()
    assert not any(table.state.out)


def test_odd_but_legal_prince_on_yourself_discarding_your_other_prince() -> None:
    table = Table.build(3, [["prince", "prince"], ["baron"], ["king"]], pile=["guard", "handmaid"])
    first, second = table.state.hands[0]
    table.apply(Event.move(0, {"card": first, "face": "prince", "target": 0, "guess": None}))
    table.resolve()
    assert table.state.discards[0] == (first, second)  # the second Prince has no effect (EC-7)
    assert table.hand(0) == ["guard"] and table.game.pending(table.state) == Decide(1, "play")


# ---------------------------------------------------------------------------------------------
# Whole rounds, several rounds, and the optional 2019 module (§9)
# ---------------------------------------------------------------------------------------------


def test_s3_two_players_round_two_removes_three_cards_then_deals_from_the_winner() -> None:
    # seat 0: Priest, draws a Guard; seat 1: Guard, draws a Guard
    table = Table.rigged(2, ["baron", "king", "countess", "handmaid", "priest", "guard", "guard"])
    table.play(0, "guard", 1, "baron")
    table.honest()  # miss
    table.play(1, "guard", 0, "priest")
    table.honest()  # hit: seat 1 wins round 1
    assert table.state.tokens == (0, 1) and table.state.starter == 1
    table.step()  # disclosure
    table.step()  # shuffle
    request = table.game.pending(table.state)
    assert isinstance(request, Reveal) and len(request.refs) == 3  # the face-up removal comes first
    table.step()
    request = table.game.pending(table.state)
    assert isinstance(request, Deal) and [seat for _, seat in request.deals] == [1, 0]
    table.resolve()
    assert table.game.pending(table.state) == Decide(1, "play")
    assert table.check() == []


def test_several_rounds_accumulate_tokens_and_reset_the_round() -> None:
    table = Table.build(3, [["guard", "priest"], ["baron"], ["king"]], pile=["guard", "handmaid", "handmaid"],
                        tokens=(2, 1, 0))
    table.play(0, "guard", 1, "baron")
    table.honest()
    table.play(2, "guard", 0, "priest")
    table.honest()  # seat 2 is the last one left
    assert table.state.tokens == (2, 1, 1)
    next_round(table)
    s = table.state
    assert s.round == 2 and s.tokens == (2, 1, 1) and s.turn == 2
    assert s.out == (False, False, False) and s.protected == (False, False, False)
    assert s.discards == ((), (), ()) and [len(h) for h in s.hands] == [1, 1, 2]
    assert len(s.pile) == 11 and s.set_aside is not None and s.set_aside not in s.faces


def test_rigged_scenario_histories_pass_the_audit() -> None:
    # a whole honest round: Guard miss, Priest, Baron tie, Handmaid, Prince, King, then a showdown
    order = ["countess", "guard", "priest", "baron", "guard", "priest", "baron", "handmaid",
             "prince", "king", "guard", "guard", "handmaid", "prince", "princess"]
    table = Table.rigged(3, order)
    plays = 0
    while table.state.round == 1 and isinstance(table.game.pending(table.state), Decide):
        table.honest()
        plays += 1
    assert plays > 3 and table.check() == []


def test_oq7_2019_spy_discarded_by_a_prince_counts_for_the_bonus() -> None:
    table = Table.build(3, [["prince", "guard"], ["spy"], ["king"]], pile=["priest"],
                        options={"edition": "2019"})
    table.play(0, "prince", 1)  # seat 1 discards the Spy and draws the last card: showdown
    assert discarded(table, 1) == ["spy"]
    # seat 2's King wins the showdown; seat 1 is the only one with a Spy in its row
    assert table.state.tokens == (0, 1, 1) and table.state.last_spy == 1


def test_s9_2019_two_player_setup_also_removes_three_face_up_cards() -> None:
    table = Table.rigged(2, [], {"edition": "2019"})
    s = table.state
    assert len(s.faceup) == 3 and len(s.pile) + 1 == 21 - 1 - 3 - 2
    assert table.game.threshold == 6


# ---------------------------------------------------------------------------------------------
# Malformed table operations: refused with IllegalMove, never a crash
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("junk", [["guard"], {"face": "guard"}, None, 3, "Guard"])
def test_reveals_and_disclosures_with_malformed_faces_are_refused(junk: Any) -> None:
    # a list or a map as a face once crashed with TypeError (unhashable) instead of IllegalMove
    table = Table.rigged(2, ["baron", "king", "countess", "handmaid", "priest", "guard", "guard"])
    assert_rejected(table, table.move_for(0, "guard", 1, "guard"), "cannot name the Guard")
    table.play(0, "guard", 1, "baron", resolve=False)
    card = table.history[-1].data["card"]
    assert_rejected(table, Event(REVEALED, None, {"faces": {card: junk}}), "no such card")
    table.resolve()
    table.honest()  # miss
    table.play(1, "guard", 0, "priest")
    table.honest()  # hit: the round is over, its hidden cards are to be disclosed
    request = table.game.pending(table.state)
    assert isinstance(request, Disclose)
    faces = {r: junk for r in request.refs}
    assert_rejected(table, Event(DISCLOSED, None, {"faces": faces}), "no such card")
    table.step()
    table.step()  # shuffle: the next request is the 2-player face-up removal
    request = table.game.pending(table.state)
    assert isinstance(request, Reveal)
    assert_rejected(table, Event(REVEALED, None, {"faces": {r: junk for r in request.refs}}), "no such card")


@pytest.mark.parametrize("face", ["priest", "baron", "king", "prince"])
def test_s4_effects_are_compulsory_a_target_must_be_chosen_when_one_exists(face: str) -> None:
    table = Table.build(3, [[face, "guard"], ["handmaid"], ["guard"]], pile=["guard", "guard"])
    assert_rejected(table, table.move_for(0, face, None), "needs a target")
    assert all(m["target"] is not None for m in table.legal() if m["face"] == face)


@pytest.mark.parametrize("cards", [["countess"], ["countess", "guard"]])
def test_ec12_protection_ends_when_its_players_turn_begins_even_in_a_built_state(cards: list[str]) -> None:
    # seat 0 played the Handmaid on its previous turn and its turn now begins (draw) or is under way
    # (play): either way the protection is over (§4 step 1), for the rest of the round
    table = Table.build(3, [cards, ["guard"], ["baron"]], pile=["guard", "guard", "priest"],
                        discards=[["handmaid"], [], []], protected=[0])
    assert table.game.pending(table.state) == Decide(0, "play")
    if len(cards) == 1:  # the draw began the turn
        assert table.state.protected == (False, False, False)
    table.play(0, "countess")
    assert table.state.protected == (False, False, False)
    assert 0 in {m["target"] for m in table.legal() if m["face"] == "guard"}
    table.play(1, "guard", 0, "king")
    table.honest()
    assert not table.state.out[0]
