"""Rebel Princess rules points (``shared/rules/rebel-princess.md``: numbered sections §n, the FAQ
rulings of §11 and the gap decisions §12.1-§12.18) that the other test modules leave loose. Each
test sets up the exact situation with the real engine and pins what the rules, or the decision
recorded in the ``engine.rebelprincess`` package docstring, require.
"""

from __future__ import annotations

import pytest

from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.cards import FROG
from engine.rebelprincess.rounds import dancing_queens
from engine.rebelprincess.tricks import Play, PlayContext, play_options, trick_winner

from .test_rebelprincess_rounds import P, faces_of, hand
from .test_rebelprincess_rules import assert_illegal, move
from .test_rebelprincess_scenarios import scored
from .test_rebelprincess_support import STANDARD, Table

# -- §6.1 / §12.9 Rebel of the Ball: every Prince of the deck in use --------------------------------


@pytest.mark.parametrize("letter", ["a", "d"])
def test_s6_1_rebel_of_the_ball_with_three_players_needs_the_nine_princes_in_use(letter: str) -> None:
    """§6.1: "every Prince in the deck in use (9, 10 or 12 by player count)": with 3 players the
    Princes 2-10 and the Frog score exactly -10 (also under Three Times a Lady, whose Prince 3 would
    otherwise net -2); one Prince short is an ordinary score."""
    game = RebelPrincess(3)
    princes = [f"prince-{n}" for n in range(2, 11)]
    assert scored(game, [[*princes, FROG], ["queen-4"], []], letter)[0] == -10
    short = scored(game, [[*princes[:-1], FROG], ["prince-10"], []], letter)
    assert short[0] == (8 + 5 if letter == "a" else 8 + 5 - 3)
    assert short[0] != -10


def test_s6_1_rebel_of_the_ball_with_six_players_needs_princes_eleven_and_twelve() -> None:
    """§6.1: with 6 players the deck holds 12 Princes; Princes 1-10 and the Frog are not enough."""
    game = RebelPrincess(6)
    ten = [f"prince-{n}" for n in range(1, 11)]
    piles = [[*ten, FROG], ["prince-11", "prince-12"], [], [], [], []]
    assert scored(game, piles, "a")[:2] == (10 + 5, 2)
    every = [[*ten, "prince-11", "prince-12", FROG], [], [], [], [], []]
    assert scored(game, every, "a")[0] == -10


def test_s6_1_rebel_pile_includes_cards_kept_under_late_for_a_very_important_date_and_gifts() -> None:
    """§12.9: the condition is tested on the whole scored pile (trick cards, gift piles, the three
    kept cards of Late for a Very Important Date): the captured pile scores -10 under n and o."""
    game = RebelPrincess(4)
    pile = [*(f"prince-{n}" for n in range(1, 11)), FROG, "queen-3"]
    for letter in ("n", "o"):
        assert scored(game, [pile, [], [], ["fairy-2"]], letter)[0] == -10


# -- §8.1 z Dancing Queens: same numbers paired first ----------------------------------------------


def test_s8_1_z_dancing_queens_pairs_same_numbers_first() -> None:
    """§8.1 z: same-number pair 3, different-number pair 2, unpaired Prince 1, unpaired Queen 0, same
    numbers paired first: Princes 3, 5 with Queen 5 score 3 (5-5) + 1 (lone Prince 3) = 4, not a
    3-5 pair (2) plus a lone Prince 5 (1)."""
    assert dancing_queens(["prince-3", "prince-5", "queen-5"]) == 4
    assert dancing_queens(["prince-3", "prince-5", "queen-5", "queen-7"]) == 3 + 2
    assert dancing_queens(["prince-2", "queen-2", "queen-9"]) == 3


# -- §7.2 Princess powers: what the forcing powers leave free ---------------------------------------


def test_s7_2_little_mermaid_a_leader_without_the_named_suit_leads_freely() -> None:
    """§7.2 (6): "the leader must lead that suit *if they can*": without it, any legal lead (still no
    Prince before Princes sneak in)."""
    ctx = PlayContext("a", lead=True, mermaid="queen")
    assert faces_of(play_options(ctx, hand("fairy-2", "pet-3", "prince-4"))) == {"fairy-2", "pet-3"}


def test_s7_2_rapunzel_a_leader_without_a_prince_leads_freely() -> None:
    """§7.2 (11): "the leader must lead a Prince *if they hold one*": without one, any card."""
    ctx = PlayContext("a", lead=True, rapunzel=True)
    assert faces_of(play_options(ctx, hand("fairy-2", "pet-3", "queen-9"))) == {"fairy-2", "pet-3", "queen-9"}


def test_s7_1_thumbelina_beats_magic_beans() -> None:
    """§7.1 precedence "Princess power > Round card" (engine decision 17: Thumbelina lifts every play
    restriction): under Magic Beans a follower holding Fairies 3, 4, 5 may only play the 3 or the 5,
    but with her power Thumbelina may play the Fairy 4 or an off-suit card (not a Prince or the Frog)."""
    plain = PlayContext("c", lead=False, follow="fairy", lead_number=2)
    cards = hand("fairy-3", "fairy-4", "fairy-5", "queen-9", "prince-7", FROG)
    assert faces_of(play_options(plain, cards)) == {"fairy-3", "fairy-5"}
    thumb = PlayContext(
        "c", lead=False, follow="fairy", lead_number=2, princess="thumbelina", power_ready=True
    )
    assert faces_of(play_options(thumb, cards), power=True) == {"fairy-4", "queen-9"}


def test_s7_2_a_frozen_card_beats_odds_and_evens_and_magic_beans() -> None:
    """§7.2 (10): the frozen card "must be that player's next play, even if it breaks follow-suit or
    another play restriction" — here the parity rule of Odds and Evens and Magic Beans' extremes."""
    cards = hand("fairy-3", "fairy-4", "fairy-5", "fairy-7")
    for letter in ("s", "c"):
        ctx = PlayContext(letter, lead=False, follow="fairy", lead_number=5, frozen=1)
        assert play_options(ctx, cards) == [(1, "fairy-4", False, False)]


def test_s12_19_sisterhood_distance_uses_snow_whites_zero() -> None:
    """Engine decision 19: Sisterhood distances use the counted value: a Fairy 2 zeroed by Snow White
    is 5 away from a lead of 5 and beats a Fairy 9 (4 away)."""
    plays = [P(0, "fairy-5"), P(1, "fairy-2", power=True, zero=True), P(2, "fairy-9")]
    assert trick_winner("l", plays) == 1
    assert trick_winner("l", [P(0, "fairy-5"), P(1, "fairy-2"), P(2, "fairy-9")]) == 2


def test_s5_2_royal_decree_queens_trump_a_led_suit_under_cinderella_lowest_queen() -> None:
    """§8.1 f with §7.2 Cinderella (the rank order reversed for the trick): the Queens still trump the
    led suit, and the strongest Queen under the reversed order (the lowest) wins."""
    plays = [P(0, "fairy-9"), P(1, "queen-8", void=True), P(2, "queen-3", void=True)]
    assert trick_winner("f", plays) == 1
    assert trick_winner("f", plays, cinderella=True) == 2
    assert trick_winner("f", [Play(0, 1, "fairy-9"), Play(1, 2, "fairy-2")], cinderella=True) == 1


# -- §7.2 Princess powers on a real table -------------------------------------------------------------


def _table(seat_princess: dict[int, str]) -> Table:
    spare = iter(p for p in ["thumbelina", "snow-white", "pea-princess", "cinderella"]
                 if p not in seat_princess.values())
    keys = [seat_princess.get(s) or next(spare) for s in range(3)]
    return Table(3, "a", [STANDARD], princesses=keys)


def test_s7_2_mulan_may_swap_a_losing_card_for_a_winning_one() -> None:
    """§7.2 (4): Mulan's exchange "may be used whether or not she would win the trick": losing with
    the Fairy 7 to the Fairy 8, she swaps in her Fairy 9 and the trick is resolved with it."""
    t = _table({1: "mulan"})
    t.play("fairy-5", "fairy-7", "fairy-8")
    assert t.state.step == "mulan" and t.request.seat == 1
    t.decide({"swap": t.ref("fairy-7"), "card": t.ref("fairy-9"), "face": "fairy-9"})
    assert t.state.last_trick_winner == 1
    assert t.ref("fairy-9") in t.state.won[1] and t.ref("fairy-7") in t.state.hands[1]
    assert t.check() == []


def test_s7_2_mulan_without_another_card_of_the_suit_can_only_decline() -> None:
    """§7.2 (4): the exchange needs another card of the same suit in her hand: having played her only
    Prince, Mulan may only decline."""
    t = _table({1: "mulan"})
    t.play("pet-2", "prince-3", "prince-4")  # seat 1 (no Pet) plays its only Prince
    assert t.state.step == "mulan" and t.request.seat == 1
    assert t.legal() == [{"swap": None}]
    bad = {"swap": t.ref("prince-3"), "card": t.ref("queen-2"), "face": "queen-2"}
    assert_illegal(t, move(1, bad), "same|another")


def test_s7_2_scheherazade_may_give_the_card_back() -> None:
    """§7.2 (9): Scheherazade looks at a random card of another player and "either swaps it for a card
    of her own hand or gives it back": giving it back changes no hand and spends the power."""
    t = _table({0: "scheherazade"})
    faces_before = [t.hand(s) for s in range(3)]
    t.decide({"use": True, "target": 2})
    assert t.state.step == "bazaar"
    taken = t.state.picks[0]
    t.decide({"swap": None})
    assert [t.hand(s) for s in range(3)] == faces_before
    assert taken in t.state.hands[2] and t.state.spent[0]
    assert t.game.power_uses(t.state, 0) == []  # once per round
    assert t.check() == []
