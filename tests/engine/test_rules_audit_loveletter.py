"""Rules audit of Love Letter against ``shared/rules/love-letter.md``: combinations of rules that the
per-rule tests leave loose, each set up exactly and played to its outcome (rules audit, pass 2).

Every test names the rule it pins: a section (§n), an edge case (EC-n) or an open question (OQ-n).
"""

from __future__ import annotations

import pytest

from engine.core import Decide, Disclose
from tests.engine.loveletter_support import Table
from tests.engine.test_loveletter_rules import NO_REMOVAL, assert_rejected

CLASSIC_GUESSES = {"priest", "baron", "handmaid", "prince", "king", "countess", "princess"}


def test_s5_guard_is_offered_every_targetable_player_times_every_card_but_the_guard() -> None:
    """§5 Guard, EC-1, §4.1: seat 3 is out and seat 2 protected, so only seat 1 can be named;
    the seven non-Guard cards (values 2-8) are each offered once, and nothing else."""
    table = Table.build(4, [["guard", "priest"], ["baron"], ["king"], []], pile=["guard", "guard"],
                        discards=[[], [], ["handmaid"], ["princess"]], out=[3], protected=[2])
    guard = [m for m in table.legal() if m["face"] == "guard"]
    assert {m["target"] for m in guard} == {1}
    assert {m["guess"] for m in guard} == CLASSIC_GUESSES
    assert len(guard) == 7
    priest = [m for m in table.legal() if m["face"] == "priest"]
    assert [m["target"] for m in priest] == [1]
    assert_rejected(table, table.move_for(0, "guard", 1, "guard"), "Guard")


def test_ec07_a_handmaid_forced_out_by_a_prince_protects_nobody() -> None:
    """EC-7: the Handmaid discarded through a Prince has no effect, so its owner can be targeted
    by the very next player."""
    table = Table.build(3, [["prince", "guard"], ["guard"], ["handmaid"]], pile=["priest", "baron", "king"])
    table.play(0, "prince", 2)
    assert table.state.protected == (False, False, False)
    assert table.game.pending(table.state) == Decide(1, "play")
    assert {m["target"] for m in table.legal() if m["face"] == "guard"} == {0, 2}


def test_ec07_a_baron_forced_out_by_a_prince_compares_nothing() -> None:
    """EC-7 with the Baron: no comparison, nobody out, the target just draws again."""
    table = Table.build(3, [["prince", "guard"], ["baron"], ["princess"]], pile=["priest", "king", "guard"])
    table.play(0, "prince", 1)
    assert not any(table.state.out)
    assert table.hand(1) == ["priest", "king"]  # the replacement, then its own draw
    assert table.game.pending(table.state) == Decide(1, "play")


def test_s9_2019_showdown_tie_ignores_discard_totals_and_the_spy_bonus_goes_to_a_loser() -> None:
    """§9 (2019): every player tied on the highest card wins a token, whatever the discard totals;
    the lone survivor with a Spy in their discard row gets the extra token even without winning.
    OQ-3: the next starter is the first co-winner clockwise from this round's starter (seat 0)."""
    table = Table.build(
        3, [["handmaid", "chancellor"], ["chancellor"], ["baron"]], pile=[],
        discards=[["guard"], ["guard", "priest", "prince"], ["spy"]],
        options={"edition": "2019"},
    )
    table.play(0, "handmaid")
    assert table.state.tokens == (1, 1, 1)
    assert table.state.last_winners == (0, 1) and table.state.last_spy == 2
    assert table.state.starter == 0


def test_oq7_2019_two_survivors_with_a_spy_cancel_the_bonus_even_if_one_is_knocked_out_later() -> None:
    """OQ-7: only players still in the round are compared; seat 1's Spy no longer counts once
    seat 1 is out, so seat 0 is the only survivor with a Spy and gets the bonus on top of the round."""
    table = Table.build(
        3, [["guard", "priest"], ["king"], ["baron"]], pile=["guard", "guard"],
        discards=[["spy"], ["spy"], ["handmaid"]], options={"edition": "2019"},
    )
    table.play(0, "guard", 1, "king")
    table.honest()  # hit: seat 1 is out
    assert table.state.out == (False, True, False)
    # seat 2 plays a Guard on seat 0 naming the King: a miss
    table.play(2, "guard", 0, "king")
    table.honest()
    # seat 0 plays its Priest on seat 2, leaving the pile empty: showdown, seat 2's Baron beats
    # seat 0's Guard; seat 0 alone among the survivors has a Spy
    table.play(0, "priest", 2)
    assert isinstance(table.game.pending(table.state), Disclose)
    assert table.state.last_winners == (2,) and table.state.last_spy == 0
    assert table.state.tokens == (1, 0, 1)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_s3_the_round_winner_starts_even_when_a_knockout_ends_the_round(seats: int) -> None:
    """§3 later rounds and EC-15: the winner of the last round starts; the round ended by a
    Guard hit mid-pile, and only the last opponent had to be knocked out."""
    hands: list[list[str]] = [["guard", "handmaid"]] + [["prince"]] + [[] for _ in range(seats - 2)]
    out = list(range(2, seats))
    discards = [[], []] + [["priest"] for _ in range(seats - 2)]
    table = Table.build(seats, hands, pile=["baron", "king"], discards=discards, out=out, starter=1,
                        options=NO_REMOVAL if seats == 2 else None)
    table.play(0, "guard", 1, "prince")
    table.honest()
    assert table.state.tokens[0] == 1 and sum(table.state.tokens) == 1
    assert table.state.starter == 0
