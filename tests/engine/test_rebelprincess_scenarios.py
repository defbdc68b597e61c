"""Rules scenarios for Rebel Princess that the other test modules leave unpinned.

Each test names the section of ``/work/shared/rules/rebel-princess.md`` (§n), the FAQ ruling (§11)
or the gap decision (§12.n) it pins.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.cards import FROG
from engine.rebelprincess.rounds import BY_LETTER
from engine.rebelprincess.tricks import PlayContext, play_options, trick_winner

from .test_rebelprincess_rounds import P, faces_of, hand
from .test_rebelprincess_rules import assert_illegal, move
from .test_rebelprincess_support import STANDARD, Table, cards


def scored(
    game: RebelPrincess,
    piles: list[list[str]],
    letter: str,
    totals: tuple[int, ...] | None = None,
    tricks: tuple[int, ...] | None = None,
) -> tuple[int, ...]:
    """Round scores of captured piles under ``letter`` (canonical refs carry public faces)."""
    deck = game.deck()
    won = tuple(tuple(deck.index(f) for f in pile) for pile in piles)
    state = replace(
        game.initial_state(),
        won=won,
        letter=letter,
        tricks_won=tricks if tricks is not None else tuple(1 if p else 0 for p in piles),
    )
    if totals is not None:
        state = replace(state, scores=(totals,))
    return game.round_scores(state)


# -- §8.1 / §12.4: every opening pass ------------------------------------------------------------

PASSES = {
    "a": "3R", "b": "1R", "c": "3L", "d": "3R", "e": "1L+1R", "f": "3R", "g": "1R", "h": "2R",
    "i": "1L", "j": "1L+1R", "k": "1R", "l": "2R", "m": "1L", "n": "2R", "o": "1L+1R", "p": "1L",
    "q": "1R", "r": "2L", "s": "2R", "t": "1L", "u": "1L+1R", "v": "3R", "w": "3L", "x": "2L",
    "y": "2R", "z": "2R",
}  # fmt: skip


@pytest.mark.parametrize("letter", sorted(PASSES))
def test_s8_1_every_round_card_has_its_pass_instruction(letter: str) -> None:
    """§8.1 table (S13), Midnight Makeover 3R and Bathroom Break 2R per §12.4."""
    shown = "+".join(f"{count}{direction}" for direction, count in BY_LETTER[letter].passes)
    assert shown == PASSES[letter]


def test_s4_split_pass_left_is_next_clockwise_right_is_previous_with_four_players() -> None:
    """§4 / §12.4: "left" = next player clockwise (seat + 1), "right" = previous (seat - 1)."""
    t = Table(4, "j")
    shows = next(s.op_pairs for s in t.states if s.step == "pass_show")
    dealt = next(s for s in t.states if s.step == "pass").hands
    for seat in range(4):
        move_ = t.game.pass_targets(t.state, seat)
        assert move_ == [(seat + 1) % 4, (seat - 1) % 4]  # the left card is listed first
        assert sorted(to for ref, to in shows if ref in dealt[seat]) == sorted(move_)


# -- §5.1 Princes sneaking in ----------------------------------------------------------------------


def test_s5_1_princes_sneaking_in_resets_at_the_start_of_every_round() -> None:
    t = Table(3, "af", [STANDARD])
    t.play("pet-2", "queen-2", "prince-4")  # seat 2 void in Pets: Princes sneak in
    assert t.state.princes_in
    t.autoplay(stop=lambda s: len(s.scores) == 1 and s.step == "play")
    assert t.state.letter == "f" and t.state.tricks_played == 0 and not t.state.princes_in
    leader = t.request.seat
    held = [t.face(r) for r in t.state.hands[leader]]
    if any(not f.startswith("prince-") for f in held):
        assert not any(f.startswith("prince-") for f in t.legal_faces(leader))


def test_s12_13_a_mermaid_forced_all_prince_lead_does_not_make_princes_sneak_in() -> None:
    """§12.13: only a void Prince play (or a frozen Prince) sets the flag."""
    hands = [cards("K2-10 F8-10"), cards("F2-7 P2-7"), cards("P8-10 Q2-10")]
    t = Table(3, "a", [hands], princesses=["thumbelina", "little-mermaid", "snow-white"])
    # three tricks strip seat 0 down to Princes (the Mermaid waits)
    for f0, f1, f2 in (("fairy-10", "fairy-2", "queen-2"), ("fairy-9", "fairy-3", "queen-3")):
        t.play(f0, f1, f2)
    t.play("fairy-8", "fairy-4", "queen-4")
    assert t.state.step == "power" and t.request.seat == 1
    t.decide({"use": True, "suit": "prince"})  # holds only Princes: the lead can be forced
    assert t.legal_faces(0) == set(cards("K2-10"))
    t.play("prince-2", "pet-2", "queen-5")
    assert not t.state.princes_in


def test_s8_1_w_pass_the_bouquet_a_void_prince_still_sneaks_in_and_moves_the_suit() -> None:
    """§8.1 w: Princes sneak in only via a void Prince play; the last introduced suit wins."""
    t = Table(3, "w", [STANDARD])
    t.play("pet-2", "queen-2")  # seat 1 void in Pets: Queens must now be followed
    assert t.legal_faces(2) == set(cards("F3 F4 F6 F8 F10 K4-10"))  # seat 2 holds no Queen
    t.play("prince-4")
    assert t.state.princes_in and t.state.last_trick_winner == 2


# -- §5.2 / §7.2 Ice Princess and void cards (engine bug fixed) -----------------------------------


def test_s7_2_a_frozen_card_that_follows_suit_is_no_void_card() -> None:
    """A void card is an off-suit card (§0); void is judged from the hand, not the frozen card."""
    on_suit = PlayContext("r", lead=False, follow="fairy", lead_number=2, frozen=0)
    assert play_options(on_suit, hand("fairy-9", "queen-3")) == [(0, "fairy-9", False, False)]
    off_suit_holding = PlayContext("r", lead=False, follow="fairy", lead_number=2, frozen=0)
    assert play_options(off_suit_holding, hand("queen-9", "fairy-3")) == [(0, "queen-9", False, False)]
    off_suit_void = PlayContext("r", lead=False, follow="fairy", lead_number=2, frozen=0)
    assert play_options(off_suit_void, hand("queen-9", "pet-3")) == [(0, "queen-9", False, True)]


POISON_HANDS = [cards("F2-5 P2-9"), cards("F9 Q2-10 K3 K4"), cards("F6-8 F10 P10 K2 K5-10")]


def _poison_table(wanted: set[str]) -> Table:
    """Round r (Poisoned Apple); the Ice Princess (seat 0) has looked at two cards of seat 1 whose
    faces are ``wanted`` (a seed is searched for)."""
    for seed in range(200):
        t = Table(3, "r", [POISON_HANDS], princesses=["ice-princess", "snow-white", "thumbelina"], seed=seed)
        t.decide({"use": True, "target": 1})
        picked = {t.face(r) for r in t.state.picks}
        if wanted <= picked or (len(wanted) == 1 and wanted & picked):
            return t
    raise AssertionError(f"no seed drew {wanted}")


def test_s8_1_r_poisoned_apple_a_frozen_card_of_the_led_suit_is_not_a_void_card() -> None:
    """Bug fixed: the engine flagged the frozen Fairy 9 (seat 1's only Fairy) as a void card, and
    under Poisoned Apple it beat the Fairy 10. A card of the led suit never is a void card."""
    t = _poison_table({"fairy-9"})
    t.decide({"freeze": t.ref("fairy-9")})
    t.play("fairy-2")
    assert [(m["face"], m["void"]) for m in t.legal() if not m["power"]] == [("fairy-9", False)]
    t.play("fairy-9")
    assert not t.state.trick[1].void
    t.play("fairy-10")
    assert t.state.last_trick_winner == 2  # no void card: the highest Fairy wins
    t.autoplay(stop=lambda s: len(s.scores) == 1)
    assert t.check() == []


def test_s7_2_poisoned_apple_void_is_judged_from_the_hand_not_the_frozen_card() -> None:
    """§7.2 Ice Princess: a frozen off-suit card of a player still holding the led suit is no void
    card (the Fairy 10 wins); a frozen Queen of a player void in Pets is one (it wins)."""
    t = _poison_table({"queen-2"})
    t.decide({"freeze": t.ref("queen-2")})
    t.play("fairy-2")
    assert [(m["face"], m["void"]) for m in t.legal() if not m["power"]] == [("queen-2", False)]
    # a frozen off-suit play states its void claim (engine decision 24); here it is not void
    t.play("queen-2", void=False)
    t.play("fairy-10")
    assert t.state.last_trick_winner == 2
    t2 = _poison_table({"queen-2"})
    t2.decide({"freeze": t2.ref("queen-2")})
    t2.play("pet-2")
    assert [(m["face"], m["void"]) for m in t2.legal() if not m["power"]] == [("queen-2", True)]
    t2.play("queen-2", void=True)
    t2.play("pet-10")
    assert t2.state.last_trick_winner == 1  # the only void card wins
    for table in (t, t2):
        table.autoplay(stop=lambda s: len(s.scores) == 1)
        assert table.check() == []  # both void claims were honest


def test_s7_2_a_false_void_claim_for_a_frozen_card_of_the_led_suit_is_refused() -> None:
    t = _poison_table({"fairy-9"})
    t.decide({"freeze": t.ref("fairy-9")})
    t.play("fairy-2")
    assert_illegal(t, move(1, t.play_move("fairy-9", void=True)), "void")


# -- §7.1 Princess powers: once per round, refreshed ------------------------------------------------


def test_s7_1_a_spent_power_is_refreshed_at_the_start_of_the_next_round() -> None:
    t = Table(3, "ab", [STANDARD], princesses=["cinderella", "snow-white", "thumbelina"])
    t.decide({"use": True})
    t.play("fairy-5", "fairy-9", "fairy-3")
    assert t.state.spent[0] and t.state.last_trick_winner == 2
    assert t.state.step == "play"  # spent: not asked again this round
    t.autoplay(stop=lambda s: len(s.scores) == 1 and s.step == "power")
    assert t.state.letter == "b" and not t.state.spent[0] and {"use": True} in t.legal(0)


# -- §11 FAQ (S14 second hand): the Mermaid's suit comes ahead of the Pea Princess ---------------


def test_s11_the_little_mermaid_suit_comes_before_the_pea_princess() -> None:
    ctx = PlayContext("a", lead=True, mermaid="fairy", pea=True)
    assert faces_of(play_options(ctx, hand("fairy-2", "fairy-3", "pet-9", "queen-10"))) == {
        "fairy-2",
        "fairy-3",
    }
    assert faces_of(play_options(ctx, hand("fairy-2", "fairy-8", "pet-9"))) == {"fairy-8"}


# -- §12.12 contradicting before-trick powers -------------------------------------------------------


def test_s12_12_after_the_mermaid_neither_rapunzel_nor_a_freeze_of_the_leader() -> None:
    t = Table(3, "a", [STANDARD], princesses=["little-mermaid", "rapunzel", "ice-princess"])
    assert t.request.seat == 0  # all on 0 proposals: clockwise from the leader
    t.decide({"use": True, "suit": "pet"})
    assert t.request.seat == 2 and t.game.power_uses(t.state, 1) == []  # Rapunzel skipped
    targets = {m["target"] for m in t.legal() if m.get("use")}
    assert targets == {1, 2}  # not the leader (seat 0)
    assert_illegal(t, move(2, {"use": True, "target": 0}), "cannot use")


def test_s12_12_after_rapunzel_pocahontas_cannot_hand_the_lead_to_a_frozen_player() -> None:
    t = Table(3, "a", [STANDARD], princesses=["ice-princess", "rapunzel", "pocahontas"])
    t.decide({"use": True, "target": 1})
    t.decide({"freeze": t.state.picks[0]})
    assert t.request.seat == 1
    t.decide({"use": True})
    assert t.request.seat == 2
    assert {m["leader"] for m in t.legal() if m.get("use")} == {0, 2}  # not the frozen seat 1


# -- §12.15 Pocahontas may choose herself -------------------------------------------------------------


def test_s12_15_pocahontas_may_choose_herself() -> None:
    t = Table(3, "a", [STANDARD], princesses=["thumbelina", "pocahontas", "snow-white"])
    assert t.request.seat == 1
    assert {m["leader"] for m in t.legal() if m.get("use")} == {0, 1, 2}  # "any player"
    t.decide({"use": True, "leader": 1})
    assert t.request.seat == 1 and t.state.step == "play" and t.state.leader == 1


def test_s12_15_pocahontas_may_name_the_current_leader_which_spends_her_power() -> None:
    t = Table(3, "a", [STANDARD], princesses=["thumbelina", "pocahontas", "snow-white"])
    assert t.state.leader == 0
    t.decide({"use": True, "leader": 0})
    assert t.state.step == "play" and t.state.leader == 0 and t.request.seat == 0
    assert t.state.spent[1]


# -- §12.11 Ice Princess targets ------------------------------------------------------------------------


def test_s12_11_the_ice_princess_may_freeze_her_own_card_and_a_single_card_is_frozen_at_once() -> None:
    t = Table(3, "a", [STANDARD], princesses=["ice-princess", "snow-white", "thumbelina"])
    assert {m["target"] for m in t.legal() if m.get("use")} == {0, 1, 2}  # herself included
    t.autoplay(stop=lambda s: s.step == "power" and s.tricks_played == 11)
    assert all(len(h) == 1 for h in t.state.hands)
    only = t.state.hands[0][0]
    t.decide({"use": True, "target": 0})
    assert not any(s.step == "freeze_pick" for s in t.states[-3:])  # nothing to draw
    assert t.state.frozen[0] == only and t.game.public_face(t.state, only) == t.face(only)
    t.autoplay(stop=lambda s: len(s.scores) == 1)
    assert t.check() == []


# -- §12.10 Sleeping Beauty only while every player holds a card ---------------------------------------


def test_s12_10_sleeping_beauty_needs_an_available_card_in_every_hand() -> None:
    t = Table(3, "a", [STANDARD], princesses=["sleeping-beauty", "snow-white", "thumbelina"])
    assert t.game.power_uses(t.state, 0) == [{"use": True}]
    only = t.state.hands[1][0]
    stripped = replace(t.state, hands=(t.state.hands[0], (only,), t.state.hands[2]), frozen=(-1, only, -1))
    assert t.game.power_uses(stripped, 0) == []  # seat 1's only card is frozen: out of reach


# -- §8.1 Round cards -------------------------------------------------------------------------------


def test_s8_1_v_a_fairy_lead_makes_fairies_the_led_suit() -> None:
    ctx = PlayContext("v", lead=False, follow="fairy", lead_number=5)
    assert faces_of(play_options(ctx, hand("fairy-2", "pet-9", "queen-4"))) == {"fairy-2"}
    assert trick_winner("v", [P(0, "fairy-5"), P(1, "pet-10", void=True), P(2, "fairy-7")]) == 2


def test_s8_1_k_musical_chairs_passes_after_every_trick_but_the_last() -> None:
    t = Table(3, "k")
    t.autoplay(stop=lambda s: len(s.scores) == 1)
    assert sum(1 for s in t.states if s.step == "chairs") == 12 - 1


def test_s8_1_y_bathroom_break_in_round_one_doubles_nobody() -> None:
    """§8.1 y: everyone tied for the highest total (all 0) is exempt."""
    game = RebelPrincess(3, {"rebel_of_the_ball": False})
    assert scored(game, [["prince-2", "prince-3"], ["prince-4"], []], "y") == (2, 1, 0)
    assert scored(game, [["prince-2", "prince-3"], ["prince-4"], []], "y", totals=(5, 5, 1)) == (2, 1, 0)
    assert scored(game, [["prince-2", "prince-3"], ["prince-4", FROG], []], "y", totals=(5, 1, 1)) == (
        2,
        2 + 5,
        0,
    )


def test_s8_1_g_always_the_bridesmaid_with_cinderella_second_lowest_wins() -> None:
    plays = [P(0, "fairy-5"), P(1, "fairy-9"), P(2, "fairy-2")]
    assert trick_winner("g", plays) == 0  # 9, 5, 2: the second highest is the 5
    assert trick_winner("g", plays, cinderella=True) == 0  # reversed: 2, 5, 9
    assert trick_winner("g", [P(0, "fairy-9"), P(1, "fairy-3"), P(2, "fairy-2")], cinderella=True) == 1


def test_s8_1_p_haggle_cannot_take_the_winners_own_card() -> None:
    t = Table(3, "p", [[["fairy-10", "prince-9"], ["fairy-2"], ["fairy-3"]]])
    t.play("fairy-10", "fairy-2", "fairy-3")
    assert t.state.step == "haggle"
    assert {m["take"] for m in t.legal() if m["give"] is not None} == {t.ref("fairy-2"), t.ref("fairy-3")}
    bad = {"give": t.ref("prince-9"), "face": "prince-9", "take": t.ref("fairy-10")}
    assert_illegal(t, move(0, bad), "except its own")


def test_s7_2_mulan_cannot_exchange_for_another_suit() -> None:
    t = Table(3, "a", [STANDARD], princesses=["thumbelina", "mulan", "snow-white"])
    t.play("fairy-5", "fairy-9", "fairy-8")
    assert t.state.step == "mulan"
    bad = {"swap": t.ref("fairy-9"), "card": t.ref("queen-2"), "face": "queen-2"}
    assert_illegal(t, move(1, bad), "same|another fairy")


# -- §6.1 Rebel of the Ball replaces every Round-card score -------------------------------------------


@pytest.mark.parametrize("letter", ["e", "j", "t", "z", "y", "n", "o"])
def test_s6_1_rebel_of_the_ball_is_exactly_minus_ten_under_scoring_round_cards(letter: str) -> None:
    game = RebelPrincess(4)
    princes = [f for f in game.suit_cards if f.startswith("prince-")]
    pile = [*princes, FROG, "pet-3", "queen-5", "fairy-1"]
    scores = scored(game, [pile, ["queen-4"], [], ["fairy-2"]], letter, totals=(0, 3, 3, 1))
    assert scores[0] == -10
    others = scored(game, [[], ["queen-4"], [], ["fairy-2"]], letter, totals=(0, 3, 3, 1))
    assert scores[1:] == others[1:]  # the others score normally


def test_s6_2_a_rebel_round_counts_as_a_zero_or_less_round_for_the_tie_break() -> None:
    """Seed (outranks §6.2's recommendation, engine decision 16): "zero or fewer proposals"."""
    game = RebelPrincess(3)
    state = replace(game.initial_state(), scores=((-10, 0, 5), (15, 5, 0)))
    assert game.totals(state) == (5, 5, 5) and game.zero_rounds(state) == (1, 1, 1)
    strict = RebelPrincess(3, {"zero_rounds": "exactly_zero"})
    assert strict.zero_rounds(state) == (0, 1, 1) and strict.winners(state) == [1, 2]


def test_s8_1_x_a_six_zeroed_by_snow_white_still_flips_the_order() -> None:
    """Engine decision 17 (recorded): Upside Down counts printed 6s; Snow White's zero only changes
    the value compared. Reversed, her 0 stays the weakest (ZP FAQ, §5.2)."""
    plays = [P(0, "fairy-5"), P(1, "fairy-6", power=True, zero=True), P(2, "fairy-9")]
    assert trick_winner("x", plays) == 0  # reversed by the 6: 5 beats 9, the 0 is weakest
    assert trick_winner("a", plays) == 2


def test_s5_2_sisterhood_all_void_same_number_with_cinderella_still_the_second_player() -> None:
    """§11 l: distance 0 everywhere, same number: the earliest of them (the second player) wins."""
    same = [P(0, "fairy-5"), P(1, "pet-5", void=True), P(2, "queen-5", void=True)]
    assert trick_winner("l", same, cinderella=True) == 1


def test_s12_alice_on_the_last_trick_deals_one_more_trick_without_crashing() -> None:
    """Odd but legal (engine decision 22): Alice shuffling the last trick back makes one more trick."""
    for seed in range(30):
        t = Table(3, "a", princesses=["alice", "snow-white", "thumbelina"], seed=seed)
        t.autoplay(stop=lambda s: (s.step == "alice" and s.tricks_played == 11) or len(s.scores) == 1)
        if t.state.step == "alice":
            break
    else:
        raise AssertionError("Alice never won the last trick")
    t.decide({"use": True})
    assert [len(h) for h in t.state.hands] == [1, 1, 1] and not t.state.scores
    t.autoplay(stop=lambda s: len(s.scores) == 1)
    end = t.last("disclose")
    assert end.tricks_played == 13 and sum(len(p) for p in end.won) == 36
    assert t.check() == []
