"""Independent rules scenarios for Love Letter (w21): ``shared/rules/love-letter.md`` section by
section, edge cases EC-n and open-question decisions OQ-n, focused on interactions, round and game
ends, tie-breaks, editions and player counts, moves offered in unusual states, and determinism.

Each test names the rule it pins. Positions are built with ``tests.engine.loveletter_support``.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Decide, Disclose, GameOver, IllegalMove, Shuffle
from engine.dealer import play_trusted
from engine.loveletter import LoveLetter
from engine.loveletter.bots import make_bot
from tests.engine.loveletter_support import Table


def finish(table: Table) -> None:
    """Answer the end-of-round Disclose (if any), stopping before the next round's shuffle."""
    while isinstance(table.game.pending(table.state), Disclose):
        table.step()


# -- §1 / §9: decks, token goals, seat counts ---------------------------------------------------


@pytest.mark.parametrize(
    ("edition", "seats", "goal"),
    [("classic", 2, 7), ("classic", 3, 5), ("classic", 4, 4),
     ("2019", 2, 6), ("2019", 3, 5), ("2019", 4, 4), ("2019", 5, 3), ("2019", 6, 3)],
)
def test_s1_s9_token_goal_by_edition_and_player_count(edition: str, seats: int, goal: int) -> None:
    game = LoveLetter(seats, {"edition": edition})
    assert game.threshold == goal
    assert len(game.deck()) == (16 if edition == "classic" else 21)


@pytest.mark.parametrize("seats", [1, 5, 6, 7])
def test_s1_classic_refuses_seat_counts_outside_2_to_4(seats: int) -> None:
    with pytest.raises(ValueError):
        LoveLetter(seats, {"edition": "classic"})


def test_s9_2019_values_and_copies() -> None:
    game = LoveLetter(4, {"edition": "2019"})
    assert Counter(game.deck()) == {"spy": 2, "guard": 6, "priest": 2, "baron": 2, "handmaid": 2,
                                    "prince": 2, "chancellor": 2, "king": 1, "countess": 1, "princess": 1}
    assert [game.value(f) for f in ("spy", "chancellor", "king", "countess", "princess")] == [0, 6, 7, 8, 9]


# -- §2: round setup sizes ----------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "edition", "pile"),
                         [(2, "classic", 10), (3, "classic", 12), (4, "classic", 11),
                          (2, "2019", 15), (5, "2019", 15), (6, "2019", 14)])
def test_s2_draw_pile_size_after_the_opening_deal(seats: int, edition: str, pile: int) -> None:
    """§2.5: set-aside card, (2p) 3 face-up cards, one card per seat; the rest is the pile."""
    table = Table.rigged(seats, [], {"edition": edition})
    # the starter has drawn already: one more card is out of the pile
    assert len(table.state.pile) == pile - 1
    assert len(table.state.faceup) == (3 if seats == 2 else 0)
    assert table.state.set_aside is not None


# -- §4.1 / EC-2 / EC-3 / EC-13: moves offered when every opponent is protected ------------------


def test_ec2_ec3_everyone_protected_offers_untargeted_cards_and_a_prince_on_yourself_only() -> None:
    """Seat 1 is out, seat 2 protected: Guard, Priest, Baron, King are offered once with no target
    (and no guess); the Prince only on oneself."""
    table = Table.build(3, [["guard", "prince"], [], ["baron"]], pile=["priest", "king"],
                        discards=[[], ["princess"], ["handmaid"]], out=[1], protected=[2])
    moves = table.legal()
    assert {"card": table.ref(0, "guard"), "face": "guard", "target": None, "guess": None} in moves
    assert [m["target"] for m in moves if m["face"] == "prince"] == [0]
    assert len(moves) == 2
    with pytest.raises(IllegalMove):
        table.game.apply(table.state, table.move_for(0, "prince", 2))
    with pytest.raises(IllegalMove):
        table.game.apply(table.state, table.move_for(0, "guard", 2, "baron"))


def test_ec2_king_with_everyone_protected_keeps_the_card_and_swaps_nothing() -> None:
    table = Table.build(2, [["king", "guard"], ["princess"]], pile=["priest", "baron"],
                        protected=[1], options={"two_player_faceup_removal": False})
    assert [m["target"] for m in table.legal() if m["face"] == "king"] == [None]
    table.play(0, "king")
    assert table.hand(0) == ["guard"] and table.hand(1) == ["princess", "priest"]
    assert table.game.pending(table.state) == Decide(1, "play")  # drew; seat 1's protection ended
    assert table.state.protected == (False, False)


def test_ec12_protection_lasts_exactly_until_its_owner_draws_again() -> None:
    """EC-12: seat 0's Handmaid blocks seat 1's Guard; at seat 0's next turn the flag is gone."""
    table = Table.build(2, [["handmaid", "guard"], ["guard"]], pile=["guard", "priest", "baron"],
                        options={"two_player_faceup_removal": False})
    table.play(0, "handmaid")
    assert table.state.protected == (True, False)
    assert [m["target"] for m in table.legal() if m["face"] == "guard"] == [None, None]
    table.play(1, "guard")
    assert table.state.protected == (False, False)
    assert table.game.pending(table.state) == Decide(0, "play")


# -- §5 Prince / EC-4 / EC-5 / EC-6 / EC-21 -----------------------------------------------------


def test_ec5_ec21_prince_on_the_last_turn_gives_the_set_aside_card_never_a_faceup_one() -> None:
    """2 players with the face-up removal: the pile is empty after seat 0's draw; a Prince on seat 1
    hands it the set-aside card (not one of the 3 face-up cards), then the round ends (EC-16)."""
    table = Table.build(2, [["prince", "guard"], ["baron"]], pile=[], set_aside="princess",
                        faceup=["guard", "guard", "guard"],
                        discards=[["guard", "priest", "priest", "handmaid", "baron", "countess"],
                                  ["handmaid", "prince", "king"]])
    assert len(table.state.faceup) == 3
    table.play(0, "prince", 1)
    assert table.state.set_aside is None
    assert table.hand(1) == ["princess"]
    assert table.state.out == (False, False)  # the Princess was drawn, not discarded
    # showdown: guard (1) against princess (8): seat 1 wins the round
    assert table.state.last_top == (1,) and table.state.tokens == (0, 1)
    assert table.state.starter == 1


def test_ec4_ec6_prince_on_yourself_while_keeping_the_princess_knocks_you_out() -> None:
    table = Table.build(3, [["prince", "princess"], ["guard"], ["priest"]], pile=["baron", "king"])
    table.play(0, "prince", 0)
    assert table.state.out == (True, False, False)
    assert table.state.hands[0] == ()
    assert len(table.state.pile) == 1  # no replacement was drawn
    assert table.game.pending(table.state) == Decide(1, "play")


def test_ec6_ec15_prince_discarding_the_last_opponents_princess_wins_the_round_at_once() -> None:
    table = Table.build(2, [["prince", "guard"], ["princess"]], pile=["baron", "king", "priest"],
                        options={"two_player_faceup_removal": False}, tokens=[6, 0])
    table.play(0, "prince", 1)
    finish(table)
    assert table.state.tokens == (7, 0)
    assert table.game.result(table.state)["winners"] == [0]
    assert table.game.pending(table.state) == GameOver()


def test_oq5_ec17_prince_forced_discard_counts_for_the_tie_break() -> None:
    """Both end on a Baron; seat 1's discard row holds a Prince-forced Handmaid, which makes its
    total 4+... higher than seat 0's: seat 1 wins the showdown."""
    table = Table.build(
        2, [["prince", "baron"], ["handmaid"]], pile=["baron"],
        discards=[["guard", "guard"], ["guard"]],
        options={"two_player_faceup_removal": False},
    )
    table.play(0, "prince", 1)  # seat 1 discards the Handmaid (4), draws the last Baron
    # showdown: baron vs baron; totals: seat 0 = 1+1+5 = 7, seat 1 = 1+4 = 5 -> seat 0
    assert table.state.last_top == (0,)
    assert table.state.tokens == (1, 0)


def test_ec17_discard_totals_tie_break_forced_discard_tipping_the_balance() -> None:
    table = Table.build(
        2, [["prince", "baron"], ["handmaid"]], pile=["baron"],
        discards=[["guard"], ["guard", "priest"]],
        options={"two_player_faceup_removal": False},
    )
    table.play(0, "prince", 1)
    # totals: seat 0 = 1+5 = 6, seat 1 = 1+2+4 = 7 -> seat 1 (the forced Handmaid decides)
    assert table.state.last_top == (1,)
    assert table.state.tokens == (0, 1)
    assert table.state.starter == 1


# -- §7.2 / EC-18 / OQ-3 / OQ-8 -----------------------------------------------------------------


def test_ec18_oq3_classic_full_tie_gives_no_token_and_the_first_cowinner_clockwise_starts() -> None:
    """Seat 1 (the round's starter) plays the last turn; seats 0 and 2 end on a Prince with equal
    discard totals (5 each): classic BGA policy gives nobody a token."""
    table = Table.build(
        3, [["prince"], ["handmaid", "guard"], ["prince"]], pile=[],
        discards=[["guard", "handmaid"], ["priest"], ["baron", "priest"]],
        turn=1, starter=1, set_aside="countess",
    )
    table.play(1, "guard", 0, "princess")  # miss
    table.decide({"hit": False})
    assert table.state.last_top == (0, 2)
    assert table.state.last_winners == ()
    assert table.state.tokens == (0, 0, 0)
    # OQ-3: co-winners 0 and 2; clockwise from the round's starter (1): 2 comes before 0
    assert table.state.starter == 2


def test_oq8_all_tied_win_gives_every_fully_tied_player_a_token() -> None:
    table = Table.build(
        3, [["prince"], ["handmaid", "guard"], ["prince"]], pile=[],
        discards=[["guard", "handmaid"], ["priest"], ["baron", "priest"]],
        turn=1, starter=1, set_aside="countess", options={"final_tie_policy": "all_tied_win"},
    )
    table.play(1, "guard", 0, "princess")
    table.decide({"hit": False})
    assert table.state.last_winners == (0, 2)
    assert table.state.tokens == (1, 0, 1)
    assert table.state.starter == 2


def test_s7_3_all_tied_win_two_players_reaching_the_goal_together_share_the_game() -> None:
    table = Table.build(
        3, [["prince"], ["handmaid", "guard"], ["prince"]], pile=[],
        discards=[["guard", "handmaid"], ["priest"], ["baron", "priest"]],
        turn=1, starter=1, set_aside="countess", options={"final_tie_policy": "all_tied_win"},
        tokens=[4, 3, 4],
    )
    table.play(1, "guard", 0, "princess")
    table.decide({"hit": False})
    finish(table)
    assert table.game.pending(table.state) == GameOver()
    assert table.game.result(table.state)["winners"] == [0, 2]


def test_s7_3_reaching_the_goal_ends_the_game_but_one_short_starts_a_new_round() -> None:
    table = Table.build(3, [["guard", "priest"], ["baron"], ["king"]], pile=["guard", "guard"],
                        discards=[[], [], ["princess"]], out=[2], tokens=[3, 4, 0])
    table.play(0, "guard", 1, "baron")
    table.decide({"hit": True})
    finish(table)
    assert table.state.tokens == (4, 4, 0)
    assert isinstance(table.game.pending(table.state), Shuffle)  # 5 needed with 3 players
    assert table.game.result(table.state)["winners"] == []
    assert table.state.starter == 0


# -- §9 2019: Spy, Chancellor, ties -------------------------------------------------------------


def test_s9_oq7_spy_bonus_plus_round_win_can_end_a_5_player_game() -> None:
    """5 players (2019): goal 3. Seat 0 has 1 token, wins the round as the last one in and is the
    only survivor with a Spy: 1 + 1 + 1 = 3, game over."""
    table = Table.build(
        5, [["guard", "handmaid"], ["priest"], [], [], []], pile=["guard", "guard"],
        discards=[["spy"], [], ["spy", "princess"], ["guard"], ["guard"]],
        out=[2, 3, 4], tokens=[1, 2, 0, 0, 0], options={"edition": "2019"},
    )
    table.play(0, "guard", 1, "priest")
    table.decide({"hit": True})
    assert table.state.tokens == (3, 2, 0, 0, 0)
    assert table.state.last_spy == 0
    finish(table)
    assert table.game.result(table.state)["winners"] == [0]


def test_s9_chancellor_with_one_card_in_the_pile_draws_it_and_returns_one() -> None:
    table = Table.build(2, [["chancellor", "guard"], ["baron"]], pile=["priest"],
                        options={"edition": "2019", "two_player_faceup_removal": False})
    table.play(0, "chancellor")
    assert table.game.pending(table.state) == Decide(0, "chancellor")
    moves = table.legal()
    assert len(moves) == 2 and all(len(m["bottom"]) == 1 for m in moves)
    keep = table.ref(0, "priest")
    other = table.ref(0, "guard")
    table.decide({"keep": keep, "bottom": [other]})
    assert table.hand(0) == ["priest"]
    # the pile was not empty: the round goes on, and seat 1 draws the returned Guard
    assert table.game.pending(table.state) == Decide(1, "play")
    assert table.hand(1) == ["baron", "guard"] and table.state.pile == ()


def test_s9_chancellor_with_an_empty_pile_does_nothing_and_the_round_ends() -> None:
    table = Table.build(2, [["chancellor", "guard"], ["baron"]], pile=[],
                        options={"edition": "2019", "two_player_faceup_removal": False})
    table.play(0, "chancellor")
    assert table.hand(0) == ["guard"]
    assert table.state.last_top == (1,)  # showdown: baron beats guard


def test_s9_chancellor_puts_two_cards_under_the_pile_in_the_chosen_order() -> None:
    table = Table.build(3, [["chancellor", "guard"], ["baron"], ["spy"]],
                        pile=["priest", "king", "handmaid"], options={"edition": "2019"})
    table.play(0, "chancellor")
    assert len(table.legal()) == 6  # 3 cards to keep x 2 orders
    refs = {f: table.ref(0, f) for f in ("guard", "priest", "king")}
    table.decide({"keep": refs["king"], "bottom": [refs["priest"], refs["guard"]]})
    assert table.hand(1) == ["baron", "handmaid"]  # the old top card; the returned ones are below
    assert [table.face(r) for r in table.state.pile] == ["priest", "guard"]


def test_s9_2019_countess_is_forced_by_the_king_worth_7() -> None:
    table = Table.build(3, [["countess", "king"], ["baron"], ["spy"]], pile=["priest", "guard"],
                        options={"edition": "2019"})
    assert {m["face"] for m in table.legal()} == {"countess"}


def test_s9_2019_guard_may_name_the_spy() -> None:
    table = Table.build(2, [["guard", "priest"], ["spy"]], pile=["guard", "baron"],
                        options={"edition": "2019", "two_player_faceup_removal": False})
    guesses = {m["guess"] for m in table.legal() if m["face"] == "guard"}
    assert "spy" in guesses and "guard" not in guesses and len(guesses) == 9
    table.play(0, "guard", 1, "spy")
    table.decide({"hit": True})
    assert table.state.out == (False, True)
    assert table.state.tokens == (1, 0)


def test_s9_2019_refuses_the_none_tie_policy() -> None:
    with pytest.raises(ValueError):
        LoveLetter(4, {"edition": "2019", "final_tie_policy": "none"})


# -- §5 Baron / EC-10, Guard / EC-22, Princess / EC-14 -------------------------------------------


def test_ec10_baron_tie_keeps_both_in_and_nothing_is_revealed() -> None:
    table = Table.build(3, [["baron", "priest"], ["priest"], ["guard"]], pile=["guard", "guard"])
    table.play(0, "baron", 1)
    assert table.game.pending(table.state) == Decide(0, "baron_result")
    assert table.legal() == [{"loser": None}]
    table.decide({"loser": None})
    assert table.state.out == (False, False, False)
    assert table.game.pending(table.state) == Decide(1, "play")


def test_s5_baron_winner_knocks_out_the_lower_card_which_becomes_public() -> None:
    table = Table.build(3, [["baron", "king"], ["priest"], ["guard"]], pile=["guard", "guard"])
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": 1}]
    table.decide({"loser": 1})
    assert table.state.out == (False, True, False)
    ref = table.state.discards[1][-1]
    assert table.state.faces[ref] == "priest"


def test_ec22_guard_naming_a_card_whose_every_copy_is_face_up_is_still_offered() -> None:
    table = Table.build(3, [["guard", "priest"], ["baron"], ["guard"]], pile=["guard", "guard"],
                        discards=[["king"], [], []])
    assert any(m["guess"] == "king" for m in table.legal() if m["face"] == "guard")
    table.play(0, "guard", 1, "king")
    table.decide({"hit": False})
    assert table.state.out == (False, False, False)


def test_ec14_playing_the_princess_knocks_yourself_out_and_shows_the_other_card() -> None:
    table = Table.build(2, [["princess", "guard"], ["baron"]], pile=["guard", "priest"],
                        options={"two_player_faceup_removal": False})
    assert any(m["face"] == "princess" for m in table.legal())
    table.play(0, "princess")
    assert table.state.out == (True, False)
    assert table.state.tokens == (0, 1)
    assert [table.state.faces[r] for r in table.state.discards[0]] == ["princess", "guard"]


def test_ec9_countess_with_the_princess_forces_nothing() -> None:
    table = Table.build(2, [["countess", "princess"], ["baron"]], pile=["guard", "priest"],
                        options={"two_player_faceup_removal": False})
    assert {m["face"] for m in table.legal()} == {"countess", "princess"}


def test_s5_king_swap_of_the_princess_is_not_a_discard() -> None:
    table = Table.build(2, [["king", "princess"], ["guard"]], pile=["guard", "priest"],
                        options={"two_player_faceup_removal": False})
    table.play(0, "king", 1)
    assert table.hand(0) == ["guard"] and table.hand(1) == ["princess", "guard"]
    assert table.state.out == (False, False)


# -- §3 later rounds ------------------------------------------------------------------------------


# -- determinism ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "edition"), [(2, "classic"), (4, "classic"), (6, "2019")])
def test_same_seed_same_game(seats: int, edition: str) -> None:
    def run(seed: int) -> list:
        game = LoveLetter(seats, {"edition": edition})
        bots = [make_bot("random", seed * 10 + s) for s in range(seats)]
        return [(e.kind, e.seat, repr(e.data)) for e in play_trusted(game, bots, seed).history]

    assert run(5) == run(5)
    assert run(5) != run(6)




@settings(max_examples=15, deadline=None)
@given(seats=st.integers(2, 6), seed=st.integers(0, 10_000))
def test_property_2019_games_end_at_the_goal_and_hands_hold_at_most_two_cards(seats: int, seed: int) -> None:
    """§4 (two cards at most outside a Chancellor), §7.3 (the game ends when someone reaches the goal;
    tokens only grow) over whole random 2019 games, 2-6 players."""
    game = LoveLetter(seats, {"edition": "2019"})
    bots = [make_bot("random", seed + s) for s in range(seats)]
    run = play_trusted(game, bots, seed)
    previous = (0,) * seats
    for state in run.states:
        assert all(len(h) <= (3 if state.phase.startswith("chancellor") else 2) for h in state.hands)
        assert all(a >= b for a, b in zip(state.tokens, previous, strict=True))
        previous = state.tokens
    final = run.final
    assert max(final.tokens) >= game.threshold
    winners = game.result(final)["winners"]
    assert winners and all(final.tokens[w] == max(final.tokens) for w in winners)
    assert game.check(run.history, dict(enumerate(run.dealer.slots))) == []
