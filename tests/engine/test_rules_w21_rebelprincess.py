"""Independent rules scenarios for Rebel Princess (w21): ``shared/rules/rebel-princess.md`` section by
section and the §12 decisions, focused on interactions of two effects (Round card x Princess), round
structure by Round card and player count, scoring edge cases, end-of-game tie-breaks, and
determinism. Pure trick/score functions are used where a whole table is not needed.
"""

from __future__ import annotations

import pytest

from engine.core import GameOver
from engine.dealer import play_trusted
from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.bots import make_bot
from engine.rebelprincess.cards import HAND_SIZE
from engine.rebelprincess.rounds import LETTERS, pile_score
from engine.rebelprincess.tricks import PlayContext, play_options, trick_winner

from .test_rebelprincess_rounds import P, faces_of, hand
from .test_rebelprincess_scenarios import scored
from .test_rebelprincess_support import Table

# -- §5 / §9: trick winners under Round cards and powers ------------------------------------------


def test_s5_basic_off_suit_never_wins_even_a_higher_prince() -> None:
    plays = [P(0, "fairy-2"), P(1, "prince-10", void=True), P(2, "fairy-3")]
    assert trick_winner("a", plays) == 2


def test_s8_1_f_royal_decree_a_void_queen_trumps_the_led_suit_and_the_highest_queen_wins() -> None:
    plays = [P(0, "fairy-10"), P(1, "queen-2", void=True), P(2, "queen-4", void=True), P(3, "fairy-9")]
    assert trick_winner("f", plays) == 2
    assert trick_winner("f", plays, cinderella=True) == 1  # reversed: the lowest Queen


@pytest.mark.parametrize(("later", "winner"), [(False, 1), (True, 2)])
def test_s5_2_poisoned_apple_equal_void_cards_earlier_or_later(later: bool, winner: int) -> None:
    plays = [P(0, "fairy-10"), P(1, "pet-7", void=True), P(2, "queen-7", void=True)]
    assert trick_winner("r", plays, apple_later=later) == winner


def test_s8_1_r_poisoned_apple_without_void_cards_is_normal() -> None:
    plays = [P(0, "fairy-3"), P(1, "fairy-9"), P(2, "fairy-5")]
    assert trick_winner("r", plays) == 1


def test_s8_1_x_upside_down_one_six_reverses_two_sixes_cancel_and_cinderella_toggles() -> None:
    one = [P(0, "pet-6"), P(1, "pet-2"), P(2, "pet-9")]
    assert trick_winner("x", one) == 1
    assert trick_winner("x", one, cinderella=True) == 2
    two = [P(0, "pet-6"), P(1, "queen-6", void=True), P(2, "pet-9"), P(3, "pet-2")]
    assert trick_winner("x", two) == 2


def test_s5_2_snow_white_zero_stays_the_weakest_when_the_order_is_reversed() -> None:
    plays = [P(0, "pet-5", zero=True), P(1, "pet-9"), P(2, "pet-7")]
    assert trick_winner("a", plays, cinderella=True) == 2
    assert trick_winner("a", plays) == 1


def test_s8_1_g_bridesmaid_second_highest_and_lone_lead() -> None:
    assert trick_winner("g", [P(0, "pet-5"), P(1, "pet-9"), P(2, "pet-7")]) == 2
    assert trick_winner("g", [P(0, "pet-5"), P(1, "fairy-9", void=True), P(2, "queen-7", void=True)]) == 0


def test_s8_1_l_sisterhood_farthest_ties_higher_and_all_void_leader_never_wins() -> None:
    assert trick_winner("l", [P(0, "pet-5"), P(1, "pet-2"), P(2, "pet-8")]) == 2  # both 3 away: higher
    assert trick_winner("l", [P(0, "pet-5"), P(1, "pet-2"), P(2, "pet-8")], cinderella=True) == 1
    # only some void: the void card is ignored even if farther
    assert trick_winner("l", [P(0, "pet-5"), P(1, "pet-6"), P(2, "fairy-12", void=True)]) == 1
    # all void: farthest of any suit
    all_void = [P(0, "pet-5"), P(1, "fairy-6", void=True), P(2, "queen-1", void=True)]
    assert trick_winner("l", all_void) == 2


def test_s8_1_v_midnight_makeover_fairy_ties_go_to_the_later_card() -> None:
    plays = [P(0, "pet-7"), P(1, "fairy-7"), P(2, "pet-3")]
    assert trick_winner("v", plays) == 1
    plays = [P(0, "fairy-7"), P(1, "pet-7", void=True), P(2, "fairy-3")]
    assert trick_winner("v", plays) == 0  # a Fairy lead: Fairies are the led suit; the Pet is void


def test_s8_1_v_a_fairy_may_be_played_while_holding_the_led_suit() -> None:
    ctx = PlayContext(letter="v", lead=False, follow="pet")
    options = play_options(ctx, hand("pet-3", "fairy-2", "queen-9"))
    assert faces_of(options) == {"pet-3", "fairy-2"}
    assert all(not void for *_, void in options)


def test_s8_1_u_rings_twice_sum_then_highest_single_card() -> None:
    # seat 0: 9 + 1 = 10; seat 1: 6 + 4 = 10; tie -> highest single card (seat 0's 9)
    plays = [P(0, "pet-9"), P(1, "pet-6"), P(2, "fairy-12", void=True),
             P(0, "pet-1"), P(1, "pet-4"), P(2, "queen-12", void=True)]
    assert trick_winner("u", plays) == 0
    # reversed (Cinderella): the lowest sum: seat 2 follows with 2 + 3 = 5
    plays = [P(0, "pet-9"), P(1, "pet-6"), P(2, "pet-2"), P(0, "pet-1"), P(1, "pet-4"), P(2, "pet-3")]
    assert trick_winner("u", plays, cinderella=True) == 2


def test_s8_1_w_pass_the_bouquet_the_last_new_suit_wins() -> None:
    plays = [P(0, "fairy-10"), P(1, "pet-2", void=True), P(2, "queen-3", void=True), P(3, "queen-1")]
    assert trick_winner("w", plays) == 2


# -- §5.1 / §9: legal plays ------------------------------------------------------------------------


def test_s5_1_leader_may_not_lead_a_prince_before_they_sneak_in_unless_only_princes() -> None:
    ctx = PlayContext(letter="a", lead=True)
    assert faces_of(play_options(ctx, hand("prince-3", "pet-2"))) == {"pet-2"}
    assert faces_of(play_options(ctx, hand("prince-3", "prince-9"))) == {"prince-3", "prince-9"}
    ctx = PlayContext(letter="a", lead=True, princes_in=True)
    assert faces_of(play_options(ctx, hand("prince-3", "pet-2"))) == {"prince-3", "pet-2"}


def test_s9_odds_and_evens_tiers() -> None:
    ctx = PlayContext(letter="s", lead=False, follow="pet", lead_number=4)
    assert faces_of(play_options(ctx, hand("pet-3", "pet-6", "fairy-2"))) == {"pet-6"}
    assert faces_of(play_options(ctx, hand("pet-3", "pet-5", "fairy-2"))) == {"pet-3", "pet-5"}
    assert faces_of(play_options(ctx, hand("fairy-3", "queen-2", "fairy-4"))) == {"queen-2", "fairy-4"}
    assert faces_of(play_options(ctx, hand("fairy-3", "queen-5"))) == {"fairy-3", "queen-5"}


def test_s7_2_thumbelina_may_ignore_follow_suit_but_never_with_a_prince_or_the_frog() -> None:
    ctx = PlayContext(letter="a", lead=False, follow="pet", princess="thumbelina", power_ready=True)
    options = play_options(ctx, hand("pet-3", "prince-9", "pet-8", "queen-4"))
    assert faces_of(options) == {"pet-3", "pet-8"}
    assert faces_of(options, power=True) == {"queen-4"}


# -- §6: scoring ----------------------------------------------------------------------------------


def test_s6_three_times_a_lady_prince_three_nets_minus_two_and_arranged_marriage_plus_five() -> None:
    assert pile_score(["prince-3"], "d", 1, False) == -2
    assert pile_score([], "e", 0, False) == 5
    assert pile_score(["prince-4"], "e", 1, False) == 1


def test_s6_1_rebel_of_the_ball_three_players_needs_princes_2_to_10_and_the_frog() -> None:
    game = RebelPrincess(3)
    rebel = [f"prince-{n}" for n in range(2, 11)] + ["pet-8"]
    assert scored(game, [rebel, [], []], "a") == (-10, 0, 0)
    assert scored(game, [rebel[1:], [rebel[0]], []], "a") == (13, 1, 0)
    # Arranged Marriage: the others won no trick and score +5; the rebel still exactly -10
    assert scored(game, [rebel, [], []], "e", tricks=(12, 0, 0)) == (-10, 5, 5)


def test_s6_1_rebel_of_the_ball_six_players_needs_all_twelve_princes() -> None:
    game = RebelPrincess(6)
    eleven = [f"prince-{n}" for n in range(1, 12)] + ["pet-8"]
    assert scored(game, [eleven, ["prince-12"], [], [], [], []], "a")[0] == 16
    assert scored(game, [[*eleven, "prince-12"], [], [], [], [], []], "a")[0] == -10


def test_s6_1_rebel_of_the_ball_off_in_the_zp_edition() -> None:
    game = RebelPrincess(3, {"edition": "zp"})
    rebel = [f"prince-{n}" for n in range(2, 11)] + ["pet-8"]
    assert scored(game, [rebel, [], []], "a") == (14, 0, 0)


def test_s8_1_z_dancing_queens_same_numbers_first() -> None:
    game = RebelPrincess(4)
    pile = ["prince-2", "prince-5", "prince-7", "queen-5", "queen-9"]
    # 5-5 same (3), 2 or 7 with the 9 (2), the last Prince alone (1)
    assert scored(game, [pile, [], [], []], "z") == (6, 0, 0, 0)


# -- round structure: tricks per round by Round card and player count -------------------------------


def _expected_tricks(letter: str, seats: int) -> int:
    h = HAND_SIZE[seats]
    return {"n": h - 3, "o": h // 2, "u": h // 2}.get(letter, h)


@pytest.mark.parametrize("seats", [3, 6])
@pytest.mark.parametrize("letter", list(LETTERS))
def test_s8_1_every_round_card_plays_its_tricks_and_scores_every_card(letter: str, seats: int) -> None:
    table = Table(seats, letter, options={"rounds": 3, "tiebreak_round": False})
    table.autoplay(stop=lambda s: len(s.scores) == 1)
    state = next(st for st in table.states if st.step == "disclose")
    assert state.tricks_played == _expected_tricks(letter, seats)
    assert sum(len(p) for p in state.won) == len(table.game.suit_cards)
    assert all(h == () for h in state.hands) and all(a == () for a in state.aside)


# -- §3.1 / §6.2: leaders and the end of the game ---------------------------------------------------


def test_s3_1_round_two_is_led_by_the_lowest_total() -> None:
    table = Table(3, "abf", options={"rounds": 3, "tiebreak_round": False})
    table.autoplay(stop=lambda s: len(s.scores) == 1)
    totals = table.game.totals(table.state)
    low = min(totals)
    tied = [s for s in range(3) if totals[s] == low]
    expected = next((0 + k) % 3 for k in range(1, 4) if (0 + k) % 3 in tied)
    assert table.state.first_leader == expected
    assert table.state.leader == expected


def test_s6_2_whole_game_ends_with_the_lowest_total_after_five_rounds() -> None:
    table = Table(4, "abfgi", options={"tiebreak_round": False})
    table.autoplay()
    assert table.request == GameOver()
    result = table.game.result(table.state)
    assert len(result["rounds"]) == 5
    totals = result["scores"]
    assert totals == [sum(r[s] for r in result["rounds"]) for s in range(4)]
    low = min(totals)
    pool = [s for s in range(4) if totals[s] == low]
    zeros = result["zero_rounds"]
    best = max(zeros[s] for s in pool)
    assert result["winners"] == [s for s in pool if zeros[s] == best]
    for r in result["rounds"]:  # 10 Princes + the Frog per plain round, unless a Rebel of the Ball
        assert sum(r) == 15 or -10 in r


def test_s2_three_round_game() -> None:
    table = Table(5, "fgh", options={"rounds": 3, "tiebreak_round": False})
    table.autoplay()
    assert len(table.game.result(table.state)["rounds"]) == 3
    assert table.game.result(table.state)["round_cards"] == ["f", "g", "h"]


# -- determinism ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [3, 5])
def test_same_seed_same_game(seats: int) -> None:
    def run(seed: int) -> list:
        game = RebelPrincess(seats, {"rounds": 3})
        bots = [make_bot("random", seed * 10 + s) for s in range(seats)]
        return [(e.kind, e.seat, repr(e.data)) for e in play_trusted(game, bots, seed).history]

    assert run(4) == run(4)


@pytest.mark.parametrize("letter", ["q", "m", "b", "n", "o", "u", "k"])
def test_s10_zp_edition_rounds_play_out_and_the_last_trick_winner_leads_round_two(letter: str) -> None:
    """§10 edition constants (ZP): Blind Man's Bluff sets half aside; round 2 is led by the winner
    of round 1's last trick (§3.1)."""
    table = Table(4, letter + "a" + ("f" if letter != "f" else "g"),
                  options={"rounds": 3, "tiebreak_round": False, "edition": "zp"})
    table.autoplay(stop=lambda s: len(s.scores) == 1)
    done = next(st for st in table.states if st.step == "disclose")
    assert done.tricks_played == _expected_tricks(letter, 4)
    assert sum(len(p) for p in done.won) == 40
    assert table.state.first_leader == done.last_winner


def test_s8_3_a_flagged_final_round_card_goes_last_in_random_setup() -> None:
    for seed in range(4):
        game = RebelPrincess(3, {"final_round_cards": "z", "rounds": 5, "tiebreak_round": False,
                                 "princess_powers": False})
        bots = [make_bot("random", seed + s) for s in range(3)]
        run = play_trusted(game, bots, seed)
        assert run.final.round_letters[-1] == "z"
        assert len(set(run.final.round_letters)) == 5
