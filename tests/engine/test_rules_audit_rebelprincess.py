"""Rules audit of Rebel Princess against ``shared/rules/rebel-princess.md``: combinations of Round
cards, Princess powers and scoring that the per-card tests leave loose (rules audit, pass 2).

Every test names the section (§n), FAQ ruling (§11) or gap decision (§12.n) it pins; where the
rules file leaves a point open, the docstring says which recommendation is followed.
"""

from __future__ import annotations

import pytest

from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.tricks import PlayContext, play_options, trick_winner

from .test_rebelprincess_rounds import P, faces_of, hand
from .test_rebelprincess_scenarios import scored

PILE = ["prince-3", "queen-3", "pet-8", "fairy-3", "prince-7", "queen-7", "pet-2"]
"""Two Princes (3, 7), two Queens (3, 7), the Frog, a Fairy 3 and a Pet 2."""


@pytest.mark.parametrize(
    ("letter", "expected"),
    [
        ("a", 7),  # §6: Princes 1 each + Frog 5
        ("d", -2),  # Three Times a Lady: Prince 3 = 1 - 3, Queen 3 -3, Fairy 3 -3, Frog 5, Prince 7 1
        ("j", 9),  # Pets' Revenge: Frog 6, Pet 2 = 1, Princes 2
        ("t", 6),  # Single Fairy: Fairy -1, Princes 2, Frog 5
        ("z", 11),  # Dancing Queens: two same-number pairs 3 + 3, Frog 5
    ],
)
def test_s6_s8_1_one_captured_pile_scored_under_each_scoring_round_card(letter: str, expected: int) -> None:
    """§6 and §8.1 d, j, t, z: the same pile, scored by hand under each scoring Round card; the
    other seats captured nothing and score 0 (+5 under none of these cards)."""
    game = RebelPrincess(4)
    assert scored(game, [PILE, [], [], []], letter) == (expected, 0, 0, 0)


def test_s8_1_y_bathroom_break_doubles_princes_only_below_the_highest_total_frog_unchanged() -> None:
    """§8.1 y: before this round seat 1 has the highest total (4), so its Princes stay at 1 (2 + 5);
    everyone else's Princes count 2 (4 + 5), the Frog always 5."""
    game = RebelPrincess(3)
    piles = [["prince-3", "prince-7", "pet-8"], ["prince-4", "prince-6", "pet-8"], []]
    # the Frog is in two piles only to compare them: each pile is scored on its own
    assert scored(game, piles, "y", totals=(2, 4, 0)) == (9, 7, 0)


def test_s6_1_rebel_of_the_ball_is_minus_ten_and_the_others_keep_dancing_queens_scores() -> None:
    """§6.1 under Dancing Queens (4 players: Princes 1-10): the seat holding every Prince and the
    Frog scores exactly -10; another seat's unpaired Queens score 0, a third scores nothing."""
    game = RebelPrincess(4)
    rebel = [f"prince-{n}" for n in range(1, 11)] + ["pet-8", "queen-1", "queen-2"]
    assert scored(game, [rebel, ["queen-5", "queen-9"], ["fairy-1"], []], "z") == (-10, 0, 0, 0)
    missing_one = [f for f in rebel if f != "prince-10"]
    # one Prince short: pairs 1-1 and 2-2 (3 each), Princes 3-9 unpaired (1 each), the Frog 5
    assert scored(game, [missing_one, ["prince-10"], [], []], "z") == (18, 1, 0, 0)


def test_s9_magic_beans_then_the_pea_princess_narrows_the_extremes() -> None:
    """§8.1 c then §7.2 Pea (Princess after Round card, §7.1): of the led Fairies 2, 4, 9 only the
    extremes 2 and 9 are legal, and of those only the 9 is above 5; with 2, 4, 5 nothing is above 5,
    so both extremes stay legal."""
    ctx = PlayContext(letter="c", lead=False, follow="fairy", pea=True)
    assert faces_of(play_options(ctx, hand("fairy-2", "fairy-4", "fairy-9", "pet-10"))) == {"fairy-9"}
    low = hand("fairy-2", "fairy-4", "fairy-5", "pet-10")
    assert faces_of(play_options(ctx, low)) == {"fairy-2", "fairy-5"}


def test_s7_2_mermaid_suit_then_magic_beans_extremes_for_the_leader() -> None:
    """§7.2 Little Mermaid names Pets; under Magic Beans the leader leads the highest or lowest Pet."""
    ctx = PlayContext(letter="c", lead=True, mermaid="pet")
    options = play_options(ctx, hand("fairy-2", "pet-4", "pet-6", "pet-9", "queen-10"))
    assert faces_of(options) == {"pet-4", "pet-9"}


def test_s7_2_rapunzel_then_the_pea_princess_leads_the_high_prince() -> None:
    """§7.2 Rapunzel (a Prince must be led, even before they sneak in) with the Pea Princess: the
    Prince above 5."""
    ctx = PlayContext(letter="a", lead=True, rapunzel=True, pea=True)
    options = play_options(ctx, hand("fairy-2", "prince-2", "prince-8", "queen-10"))
    assert faces_of(options) == {"prince-8"}


def test_s8_1_v_a_fairy_holder_without_the_led_suit_must_play_a_fairy_and_is_not_void() -> None:
    """§8.1 v Midnight Makeover: Fairies always follow, so a player holding a Fairy is never void
    (S14): Pets led, hand Fairy 2, Fairy 7, Queen 10 -> only the Fairies, neither void; holding a Pet
    as well, the Pet or a Fairy; holding neither, anything, as a void card."""
    ctx = PlayContext(letter="v", lead=False, follow="pet")
    fairies = play_options(ctx, hand("fairy-2", "fairy-7", "queen-10"))
    assert faces_of(fairies) == {"fairy-2", "fairy-7"} and not any(v for *_, v in fairies)
    assert faces_of(play_options(ctx, hand("pet-3", "fairy-7", "queen-10"))) == {"pet-3", "fairy-7"}
    void = play_options(ctx, hand("prince-3", "queen-10"))
    assert faces_of(void) == {"prince-3", "queen-10"} and all(v for *_, v in void)


def test_s8_1_v_a_fairy_beats_a_lower_led_card_and_the_later_of_equal_values_wins() -> None:
    """§8.1 v: Fairies compete with the led suit; Pet 5 led, Fairy 5 later, Pet 9 later still:
    Pet 9 wins; without the Pet 9 the tie 5-5 goes to the later card (the Fairy)."""
    assert trick_winner("v", [P(0, "pet-5"), P(1, "fairy-5"), P(2, "pet-9")]) == 2
    assert trick_winner("v", [P(0, "pet-5"), P(1, "fairy-5"), P(2, "pet-4")]) == 1


def test_s5_2_u_rings_twice_equal_sums_go_to_the_highest_single_led_card() -> None:
    """§5.2, §8.1 u: seat 0 plays Fairy 5 + Fairy 6 (11), seat 1 Fairy 9 + Fairy 2 (11), seat 2 is
    void then plays Fairy 1: the sums tie, the single highest led card (Fairy 9) wins."""
    plays = [P(0, "fairy-5"), P(1, "fairy-9"), P(2, "pet-2", void=True), P(0, "fairy-6"), P(1, "fairy-2"),
             P(2, "fairy-1")]
    assert trick_winner("u", plays) == 1
    # Cinderella: the lowest sum wins (ZP FAQ), seat 2's single Fairy 1
    assert trick_winner("u", plays, cinderella=True) == 2


def test_s8_1_l_sisterhood_equal_distances_the_higher_number_wins_reversed_the_lower() -> None:
    """§8.1 l, §11 l: lead Fairy 5, followers Fairy 1 and Fairy 9 are both 4 away: the higher number
    (9) wins; under Cinderella the lower (1). A void card is ignored when someone followed suit."""
    plays = [P(0, "fairy-5"), P(1, "fairy-1"), P(2, "fairy-9")]
    assert trick_winner("l", plays) == 2
    assert trick_winner("l", plays, cinderella=True) == 1
    assert trick_winner("l", [P(0, "fairy-5"), P(1, "fairy-6"), P(2, "pet-12", void=True)]) == 1


def test_s8_1_s_odds_and_evens_tiers() -> None:
    """§9 Odds and Evens: Fairy 4 led (even). Fairy 3, Fairy 5 (no even Fairy): follow suit with
    either. Void in Queens: match the parity (Pet 2) if possible."""
    follow = PlayContext(letter="s", lead=False, follow="fairy", lead_number=4)
    cards = hand("fairy-3", "fairy-5", "pet-2", "pet-7")
    assert faces_of(play_options(follow, cards)) == {"fairy-3", "fairy-5"}
    void = PlayContext(letter="s", lead=False, follow="queen", lead_number=4)
    assert faces_of(play_options(void, cards)) == {"pet-2"}
