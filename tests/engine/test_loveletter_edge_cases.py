"""Love Letter edge cases (rules ``shared/rules/love-letter.md`` §10 EC-n, §11 OQ-n) that the rule and
scenario modules leave loose: each test sets up the exact situation with the real engine and pins
what the rules (or the OQ decision recorded in ``engine/loveletter/game.py``) require.

Every EC-1..EC-22 and OQ-1..OQ-8 already has a test in ``test_loveletter_rules.py`` or
``test_loveletter_scenarios.py``; the tests here cover combinations those leave open.
"""

from __future__ import annotations

import pytest

from engine.core import Decide, Disclose, IllegalMove
from tests.engine.loveletter_support import Table

NO_REMOVAL = {"two_player_faceup_removal": False}
MODERN = {"edition": "2019"}


def test_ec15_ec16_knockout_on_the_last_turn_beats_the_showdown() -> None:
    """EC-15 / EC-16: the pile is already empty, but the Guard knocks out the last opponent: the round
    ends at once (one player left) and the Guard's player wins, although a showdown would have given
    the round to the opponent's King."""
    table = Table.build(2, [["guard", "priest"], ["king"]], pile=[], options=NO_REMOVAL)
    table.play(0, "guard", 1, "king")
    table.honest()  # hit
    assert table.state.out == (False, True)
    assert table.state.tokens == (1, 0) and table.state.last_winners == (0,)
    assert isinstance(table.game.pending(table.state), Disclose)  # no showdown Reveal of the hands


def test_ec16_empty_pile_after_a_miss_goes_to_the_showdown() -> None:
    """EC-16 / §4 step 5: a turn that ends with the pile empty and two players left ends the round
    with a showdown (every remaining hand revealed), not with another turn."""
    table = Table.build(2, [["guard", "priest"], ["king"]], pile=[], options=NO_REMOVAL)
    table.play(0, "guard", 1, "baron")
    table.decide({"hit": False})
    assert table.state.tokens == (0, 1)  # King (6) beats Priest (2)
    assert all(r in table.state.faces for h in table.state.hands for r in h)


def test_oq3_the_previous_starter_among_the_co_winners_starts_again() -> None:
    """OQ-3: the co-winner met first clockwise *from* the previous round's starter: when that starter
    is itself a co-winner, it starts the next round (recorded decision: "that starter included")."""
    table = Table.build(4, [["guard", "handmaid"], ["prince"], ["baron"], ["prince"]], pile=[], turn=0,
                        starter=3, discards=[[], ["guard", "priest"], [], ["priest", "guard"]])
    table.play(0, "handmaid")
    assert table.state.last_top == (1, 3) and table.state.last_winners == ()
    assert table.state.starter == 3


def test_oq7_a_lone_survivor_with_a_spy_gets_the_round_token_and_the_spy_token() -> None:
    """OQ-7 / §9 (2019): the Spy bonus comes on top of the token for winning the round, also when the
    round ends by knockout: the only player left is the only one still in with a Spy."""
    options = {**MODERN, **NO_REMOVAL}
    table = Table.build(2, [["guard", "priest"], ["baron"]], pile=["handmaid"],
                        discards=[["spy"], []], options=options)
    table.play(0, "guard", 1, "baron")
    table.honest()  # hit: seat 1 is out
    assert table.state.out == (False, True)
    assert table.state.tokens == (2, 0) and table.state.last_spy == 0


def test_oq7_the_spy_token_alone_can_win_the_game() -> None:
    """OQ-7 / §9: the Spy token "counts toward winning the game": a seat that loses the showdown but
    reaches the goal (5 tokens with 3 players) through the Spy bonus wins the game."""
    table = Table.build(3, [["guard", "handmaid"], ["priest"], ["king"]], pile=[], tokens=(4, 0, 0),
                        discards=[["spy"], [], []], options=MODERN)
    table.play(0, "handmaid")
    assert table.state.last_winners == (2,) and table.state.last_spy == 0
    assert table.state.tokens == (5, 0, 1)
    table.step()  # disclosure
    assert table.game.is_over(table.state)
    assert table.game.result(table.state)["winners"] == [0]


def test_ec01_2019_guard_may_name_the_spy_but_never_the_guard() -> None:
    """EC-1 in the 2019 deck: "name a card type other than Guard" — the Spy (0) is a card type too."""
    table = Table.build(3, [["guard", "priest"], ["baron"], ["king"]], pile=["guard", "handmaid"],
                        options=MODERN)
    guesses = {m["guess"] for m in table.legal() if m["face"] == "guard"}
    assert guesses == {"spy", "priest", "baron", "handmaid", "prince", "chancellor", "king", "countess",
                       "princess"}
    with pytest.raises(IllegalMove, match="cannot name the Guard"):
        table.game.apply(table.state, table.move_for(0, "guard", 1, "guard"))
    table.play(0, "guard", 1, "spy")
    assert table.legal() == [{"hit": False}]


def test_ec05_ec21_2019_prince_with_an_empty_pile_takes_the_set_aside_card_not_a_face_up_one() -> None:
    """EC-5 / EC-21 (2019, 2 players, 3 cards face up): with the pile empty the Prince's target takes
    the face-down set-aside card; the face-up cards never enter play."""
    # one Spy in each discard row: no Spy bonus (OQ-7)
    rest = ["guard"] * 5 + ["spy", "priest", "priest", "baron", "handmaid", "handmaid", "prince",
                            "chancellor", "spy"]
    table = Table.build(2, [["prince", "guard"], ["baron"]], pile=[], set_aside="king",
                        faceup=["princess", "countess", "chancellor"], discards=[rest[:7], rest[7:]],
                        options=MODERN)
    faceup = table.state.faceup
    aside = table.state.set_aside
    table.play(0, "prince", 1)
    assert table.state.hands[1] == (aside,) and table.hand(1) == ["king"]
    assert table.state.faceup == faceup and table.state.set_aside is None
    assert table.state.tokens == (0, 1)  # then the showdown: King (7) beats Guard (1)


def test_ec04_prince_on_yourself_draws_the_top_of_the_pile_and_play_goes_on() -> None:
    """EC-4: the Prince on yourself discards the kept card without effect (a Baron: no comparison)
    and draws the top card; the turn then passes to the next player (no second card to play)."""
    table = Table.build(3, [["prince", "baron"], ["guard"], ["priest"]], pile=["handmaid", "countess"])
    top = table.state.pile[0]
    table.play(0, "prince", 0)
    assert table.state.hands[0] == (top,) and table.hand(0) == ["handmaid"]
    assert [table.state.faces[r] for r in table.state.discards[0]] == ["prince", "baron"]
    assert not any(table.state.out)
    assert table.game.pending(table.state) == Decide(1, "play")


def test_ec10_baron_tie_reveals_nothing_and_the_later_showdown_reveals_both() -> None:
    """EC-10: a Baron tie (two Guards here) knocks nobody out and reveals no card; the showdown
    later reveals every remaining hand (§8 "Hands at a showdown: everyone")."""
    table = Table.build(3, [["baron", "guard"], ["guard"], ["priest"]], pile=["handmaid"])
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": None}]
    table.honest()
    assert not any(table.state.out)
    assert not any(r in table.state.faces for h in table.state.hands[:2] for r in h)
    table.play(1, "handmaid")  # seat 1 drew the last card: the turn ends with an empty pile
    assert all(r in table.state.faces for h in table.state.hands for r in h)
    assert table.state.tokens == (0, 0, 1)  # Priest (2) beats the two Guards
