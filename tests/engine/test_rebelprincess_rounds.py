"""One test (or more) per Deluxe Round card a-z, plus the FAQ rulings on c, d, l, p (rules §8, §11)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import IllegalMove
from engine.rebelprincess.rounds import BY_LETTER, ROUNDS, dancing_queens, pile_score
from engine.rebelprincess.tricks import Play, PlayContext, follow_suit, play_options, trick_winner

from .test_rebelprincess_support import Table


def P(seat: int, face: str, **kw: Any) -> Play:  # noqa: N802 - reads like a card
    """A card in a trick."""
    return Play(seat, 100 + seat * 20 + len(face), face, **kw)


def faces_of(options: list[tuple[int, str, bool, bool]], power: bool = False) -> set[str]:
    """The faces of the (plain, or power) options."""
    return {f for _, f, p, _ in options if p == power}


def hand(*faces: str) -> list[tuple[int, str]]:
    """A hand of known cards with made-up refs."""
    return [(i, f) for i, f in enumerate(faces)]


def test_every_round_card_is_there_with_its_pass() -> None:
    assert "".join(r.letter for r in ROUNDS) == "abcdefghijklmnopqrstuvwxyz"
    passes = {r.letter: r.pass_text for r in ROUNDS}
    assert passes["a"] == "pass 3 right" and passes["c"] == "pass 3 left"
    assert (
        passes["e"] == "pass 1 left and 1 right"
        and passes["v"] == "pass 3 right"
        and passes["y"] == "pass 2 right"
    )


@pytest.mark.parametrize(("letter", "direction"), [("a", -1), ("c", +1)])
def test_a_c_opening_pass_goes_to_the_right_or_left_neighbour(letter: str, direction: int) -> None:
    t = Table(4, letter)
    shows = next(s.op_pairs for s in t.states if s.step == "pass_show")
    dealt = next(s for s in t.states if s.step == "pass").hands
    for ref, to in shows:
        giver = next(seat for seat in range(4) if ref in dealt[seat])
        assert to == (giver + direction) % 4
    assert len(shows) == 12


def test_e_split_pass_sends_one_card_to_each_neighbour_and_scores_no_trick_plus_five() -> None:
    t = Table(3, "e")
    shows = next(s.op_pairs for s in t.states if s.step == "pass_show")
    dealt = next(s for s in t.states if s.step == "pass").hands
    for seat in range(3):
        targets = sorted(to for ref, to in shows if ref in dealt[seat])
        assert targets == sorted([(seat + 1) % 3, (seat - 1) % 3])
    assert pile_score([], "e", tricks_won=0, doubled_princes=False) == 5
    assert pile_score(["fairy-2"], "e", tricks_won=1, doubled_princes=False) == 0


def test_a_basic_trick_highest_of_led_suit_wins_off_suit_never() -> None:
    assert trick_winner("a", [P(0, "fairy-5"), P(1, "fairy-9"), P(2, "queen-10", void=True)]) == 1
    assert trick_winner("a", [P(0, "fairy-5"), P(1, "pet-9", void=True), P(2, "prince-10", void=True)]) == 0


def test_b_late_to_the_ball_card_waits_for_the_last_trick_out_of_reach() -> None:
    t = Table(3, "b", princesses=["scheherazade", "cinderella", "pea-princess"])
    assert t.state.step == "aside"
    asides = {s: t.state.hands[s][0] for s in range(3)}
    t.commit({s: {"aside": [asides[s]]} for s in range(3)})
    assert all(asides[s] not in t.state.hands[s] and t.state.aside[s] == (asides[s],) for s in range(3))
    # hand-affecting powers cannot reach it (ZP FAQ): Scheherazade draws from 11 cards only
    t.decide({"use": True, "target": 1})
    assert t.last("bazaar_pick").op_n == 11
    t.autoplay(stop=lambda s: s.step == "play" and s.tricks_played == 11)
    assert t.state.hands == tuple((asides[s],) for s in range(3))
    assert all(not a for a in t.state.aside)
    assert t.check() == []


def test_c_magic_beans_highest_or_lowest_of_your_own_hand() -> None:
    lead = PlayContext("c", lead=False, follow="fairy", lead_number=4)
    # FAQ: highest/lowest *of your own hand*: fairy-5 is legal although fairy-9 exists elsewhere
    assert faces_of(play_options(lead, hand("fairy-3", "fairy-4", "fairy-5", "pet-2"))) == {
        "fairy-3",
        "fairy-5",
    }
    void = play_options(lead, hand("queen-2", "queen-4", "queen-6", "pet-3", "pet-7"))
    assert faces_of(void) == {"queen-2", "queen-6", "pet-3", "pet-7"}
    leader = PlayContext("c", lead=True)
    assert faces_of(play_options(leader, hand("pet-2", "pet-5", "pet-9", "prince-3", "prince-8"))) == {
        "pet-2",
        "pet-9",
    }


def test_d_three_times_a_lady_and_snow_white_faq() -> None:
    assert pile_score(["prince-3", "fairy-3", "prince-5"], "d", 1, False) == (1 - 3) - 3 + 1
    # FAQ: a zeroed 3 counts 0 in the trick (the 2 beats it) and still -3 at scoring
    assert trick_winner("d", [P(0, "fairy-2"), P(1, "fairy-3", zero=True, power=True)]) == 0
    assert pile_score(["fairy-3"], "d", 1, False) == -3


def test_f_royal_decree_queens_are_trumps() -> None:
    plays = [P(0, "fairy-9"), P(1, "queen-2", void=True), P(2, "queen-5", void=True)]
    assert trick_winner("f", plays) == 2
    assert trick_winner("f", [P(0, "fairy-3"), P(1, "fairy-9"), P(2, "pet-10", void=True)]) == 1


def test_g_always_the_bridesmaid_second_highest_wins() -> None:
    assert trick_winner("g", [P(0, "fairy-5"), P(1, "fairy-9"), P(2, "fairy-7")]) == 2
    assert trick_winner("g", [P(0, "fairy-5"), P(1, "pet-9", void=True), P(2, "queen-10", void=True)]) == 0


def test_h_crystal_clear_lays_out_one_suit_and_check_catches_a_hidden_card() -> None:
    seat0 = ["fairy-2", "fairy-3", "fairy-4", *(f"queen-{n}" for n in range(2, 11))]
    t = Table(3, "h", [[seat0, [], []]])
    assert t.state.step == "crystal"
    ok = {s: t.legal(s)[0] for s in (1, 2)}
    fairies = [t.ref("fairy-2"), t.ref("fairy-3")]  # hides fairy-4
    with pytest.raises(IllegalMove):
        t.game.apply(t.state, _commit({0: {"suit": "fairy", "cards": []}, **ok}))
    index = len(t.history)
    t.commit({0: {"suit": "fairy", "cards": fairies}, **ok})
    assert t.state.crystal[0] == "fairy"
    assert all(t.game.public_face(t.state, r) for r in fairies)  # laid out face up, still in the hand
    assert set(fairies) <= set(t.state.hands[0])
    violations = t.check()
    assert [(v.index, v.seat) for v in violations] == [(index, 0)] and "fairy 4" in violations[
        0
    ].reason.lower()


def test_h_crystal_clear_wrong_suit_claim_is_a_fault() -> None:
    t = Table(3, "h", [[["fairy-2", "pet-3"], [], []]])
    moves = {s: t.legal(s)[0] for s in (1, 2)}
    index = len(t.history)
    t.commit({0: {"suit": "fairy", "cards": [t.ref("fairy-2"), t.ref("pet-3")]}, **moves})
    assert t.state.fault is not None and t.state.fault.index == index and t.state.fault.seat == 0
    assert t.game.is_over(t.state)


def _commit(choices: dict[int, Any]) -> Any:
    from engine.core import Event

    return Event("committed", None, {"choices": choices})


def test_i_masquerade_ball_followers_commit_face_down_then_reveal_together() -> None:
    t = Table(3, "i", [[["fairy-2"], ["fairy-9"], ["fairy-5"]]])
    t.play("fairy-2")
    request = t.request
    assert request.prompt == "play" and request.seats == (1, 2) and t.state.step == "mask"
    t.commit({1: t.play_move("fairy-9"), 2: t.play_move("fairy-5")})
    assert t.state.last_trick_winner == 1 and t.state.tricks_played == 1
    reveal = next(e for e in reversed(t.history) if e.kind == "revealed")
    assert reveal.kind == "revealed" and set(reveal.data["faces"].values()) == {"fairy-9", "fairy-5"}


def test_j_pets_revenge_every_pet_counts_frog_six() -> None:
    assert pile_score(["pet-8", "pet-2", "prince-4", "queen-9"], "j", 1, False) == 6 + 1 + 1


def test_k_musical_chairs_passes_right_after_each_trick_before_powers() -> None:
    t = Table(3, "k", princesses=["cinderella", "mulan", "alice"])
    assert t.state.step == "power"  # no exchange before the first trick
    t.no_power()
    t.autoplay(stop=lambda s: s.step == "chairs")
    assert t.state.tricks_played == 1
    moves = {s: t.legal(s)[0] for s in range(3)}
    t.commit(moves)
    for seat in range(3):
        assert moves[seat]["pass"][0] in t.state.hands[(seat - 1) % 3]
    assert t.state.step == "power"  # ZP FAQ: the exchange happens before Princess powers
    t.autoplay()
    assert sum(1 for s in t.states if s.step == "chairs") >= 11 and t.check() == []


def test_l_sisterhood_farthest_from_the_lead_and_faq_rulings() -> None:
    assert trick_winner("l", [P(0, "fairy-5"), P(1, "fairy-9"), P(2, "fairy-2")]) == 1
    tie = [P(0, "fairy-5"), P(1, "fairy-8"), P(2, "fairy-2")]
    assert trick_winner("l", tie) == 1  # equal distance: the higher number
    assert trick_winner("l", tie, cinderella=True) == 2  # FAQ: Cinderella only flips ties
    all_void = [P(0, "fairy-5"), P(1, "pet-9", void=True), P(2, "queen-2", void=True)]
    assert trick_winner("l", all_void) == 1  # the leader never wins
    same = [P(0, "fairy-5"), P(1, "pet-5", void=True), P(2, "queen-5", void=True)]
    assert trick_winner("l", same) == 1  # FAQ: distance 0 everywhere: the second player wins
    partly = [P(0, "fairy-5"), P(1, "fairy-6"), P(2, "pet-10", void=True)]
    assert trick_winner("l", partly) == 1  # void cards are ignored while someone followed


def test_m_after_party_plays_one_half_then_the_other() -> None:
    t = Table(3, "m")
    assert t.state.step == "aside"
    halves = {s: list(t.state.hands[s][:6]) for s in range(3)}
    t.commit({s: {"aside": halves[s]} for s in range(3)})
    assert all(len(t.state.hands[s]) == 6 and list(t.state.aside[s]) == halves[s] for s in range(3))
    assert all(m["card"] not in halves[0] for m in t.legal(0))
    t.autoplay(stop=lambda s: s.tricks_played == 6 and s.step == "play")
    assert all(sorted(t.state.hands[s]) == halves[s] for s in range(3)) and not any(t.state.aside)
    t.autoplay()
    assert t.check() == []


def test_m_hand_affecting_powers_reach_only_the_half_in_play() -> None:
    t = Table(3, "m", princesses=["scheherazade", "cinderella", "pea-princess"])
    t.commit({s: {"aside": list(t.state.hands[s][:6])} for s in range(3)})
    t.decide({"use": True, "target": 2})
    assert t.last("bazaar_pick").op_n == 6  # ZP FAQ: only the half in play


def test_n_late_for_a_very_important_date_keeps_and_scores_the_last_three() -> None:
    t = Table(3, "n")
    t.autoplay(stop=lambda s: len(s.scores) == 1)
    at_end = t.last("disclose")
    assert at_end.tricks_played == 12 - 3
    assert not any(at_end.hands) and sum(len(p) for p in at_end.won) == 36
    held = t.before("disclose")
    for seat in range(3):
        left = [r for r in held.hands[seat] if all(r != p.ref for p in held.trick)]
        assert set(left) <= set(at_end.won[seat])
    assert t.check() == []


def test_o_wedding_gift_pile_goes_to_the_trick_winner() -> None:
    t = Table(3, "o")
    assert t.state.step == "gift"
    gifts = {s: t.legal(s)[0] for s in range(3)}
    t.commit(gifts)
    assert sorted(t.state.gift) == sorted(g["card"] for g in gifts.values())
    t.autoplay(stop=lambda s: s.tricks_played == 1)
    winner = t.state.last_trick_winner
    assert all(g["card"] in t.state.won[winner] for g in gifts.values()) and t.state.gift == ()
    t.autoplay(stop=lambda s: len(s.scores) == 1)
    assert t.last("disclose").tricks_played == 6  # H / 2 tricks
    assert t.check() == []


def test_p_haggle_swap_never_makes_princes_sneak_in() -> None:
    hands = [[["fairy-10", "prince-9"], ["fairy-2"], ["fairy-3"]]]
    t = Table(3, "p", hands)
    t.play("fairy-10", "fairy-2", "fairy-3")
    assert t.state.step == "haggle" and t.state.winner == 0
    t.decide({"give": t.ref("prince-9"), "face": "prince-9", "take": t.ref("fairy-2")})
    assert not t.state.princes_in  # FAQ p
    assert t.ref("prince-9") in t.state.won[0] and t.ref("fairy-2") in t.state.hands[0]
    assert t.check() == []


def test_q_blind_mans_bluff_hands_pass_right_half_way() -> None:
    t = Table(3, "q")
    t.autoplay(stop=lambda s: s.tricks_played == 6 and s.step == "play")
    handed = t.last("bluff_show")
    before = t.before("bluff_show")
    assert handed.tricks_played == 6
    for seat in range(3):
        assert handed.hands[(seat - 1) % 3] == before.hands[seat]
        assert all(to == (seat - 1) % 3 for ref, to in handed.op_pairs if ref in before.hands[seat])
    assert t.state.bluff_done
    t.autoplay()
    assert t.check() == []


def test_q_blind_mans_bluff_set_aside_variant_passes_the_set_aside_half() -> None:
    t = Table(3, "q", options={"blind_mans_bluff": "set_aside"})
    assert t.state.step == "aside"
    halves = {s: list(t.state.hands[s][:6]) for s in range(3)}
    t.commit({s: {"aside": halves[s]} for s in range(3)})
    t.autoplay(stop=lambda s: s.tricks_played == 6 and s.step == "play")
    for seat in range(3):
        assert sorted(t.state.hands[(seat - 1) % 3]) == halves[seat]


def test_r_poisoned_apple_void_card_wins_with_tie_rule_option() -> None:
    assert trick_winner("r", [P(0, "fairy-5"), P(1, "fairy-9"), P(2, "pet-3", void=True)]) == 2
    tie = [P(0, "fairy-5"), P(1, "pet-7", void=True), P(2, "queen-7", void=True)]
    assert trick_winner("r", tie) == 1
    assert trick_winner("r", tie, apple_later=True) == 2
    assert trick_winner("r", [P(0, "fairy-5"), P(1, "fairy-9"), P(2, "pet-3", power=True)]) == 1


def test_s_odds_and_evens_suit_then_parity() -> None:
    ctx = PlayContext("s", lead=False, follow="fairy", lead_number=5)
    assert faces_of(play_options(ctx, hand("fairy-3", "fairy-4", "pet-7"))) == {"fairy-3"}
    assert faces_of(play_options(ctx, hand("fairy-4", "pet-7", "pet-2"))) == {"fairy-4"}
    assert faces_of(play_options(ctx, hand("pet-7", "pet-2", "queen-9"))) == {"pet-7", "queen-9"}
    assert faces_of(play_options(ctx, hand("pet-2", "queen-4"))) == {"pet-2", "queen-4"}
    # ZP FAQ: Snow White meets the parity with the printed number, then may zero it
    snow = PlayContext(
        "s", lead=False, follow="fairy", lead_number=5, princess="snow-white", power_ready=True
    )
    assert faces_of(play_options(snow, hand("fairy-3", "fairy-4")), power=True) == {"fairy-3"}
    # ZP FAQ: Pea Princess + Odds and Evens: a >5 card of the right parity, else the parity rule
    pea = PlayContext("s", lead=False, follow="fairy", lead_number=5, pea=True)
    assert faces_of(play_options(pea, hand("fairy-3", "fairy-7", "fairy-4"))) == {"fairy-7"}
    assert faces_of(play_options(pea, hand("pet-3", "pet-9", "queen-4"))) == {"pet-9"}
    assert faces_of(play_options(pea, hand("fairy-3", "fairy-8"))) == {"fairy-3"}


def test_t_single_fairy_each_fairy_minus_one() -> None:
    assert pile_score(["fairy-2", "fairy-9", "prince-3"], "t", 1, False) == -1


def test_u_prince_always_rings_twice_sums_and_two_laps() -> None:
    plays = [
        P(0, "fairy-5"),
        P(1, "fairy-9"),
        P(2, "fairy-2"),
        P(0, "fairy-6"),
        P(1, "pet-3", void=True),
        P(2, "fairy-10"),
    ]
    assert trick_winner("u", plays) == 2  # sums 11, 9, 12
    tie = [
        P(0, "fairy-5"),
        P(1, "fairy-7"),
        P(2, "fairy-3"),
        P(0, "fairy-6"),
        P(1, "fairy-4"),
        P(2, "fairy-8"),
    ]
    assert trick_winner("u", tie) == 2  # sums 11, 11, 11: the highest single card (8) wins
    low = [
        P(0, "fairy-5"),
        P(1, "fairy-9"),
        P(2, "fairy-2"),
        P(0, "fairy-6"),
        P(1, "fairy-3"),
        P(2, "fairy-4"),
    ]
    assert trick_winner("u", low, cinderella=True) == 2  # ZP FAQ: with Cinderella the lowest sum wins
    seat0 = ["fairy-2", "fairy-3", "pet-3", "pet-4", *(f"queen-{n}" for n in range(3, 11))]
    seat1 = [
        "fairy-9",
        "pet-2",
        "pet-5",
        "pet-6",
        "pet-7",
        "pet-9",
        "pet-10",
        *(f"prince-{n}" for n in range(2, 7)),
    ]
    t = Table(3, "u", [[seat0, seat1, ["fairy-5", "queen-2"]]])
    t.play("fairy-2", "fairy-9", "fairy-5")
    assert t.request.seat == 0 and t.legal_faces(0) == {"fairy-3"}  # the leader follows in lap 2
    t.play("fairy-3")
    assert "pet-2" in t.legal_faces(1)  # void in fairies: anything
    t.play("pet-2", "fairy-4")
    # sums 5, 9, 9: the tie goes to the highest single led-suit card (fairy 9)
    assert t.state.last_trick_winner == 1 and t.state.tricks_played == 1 and len(t.state.last_trick) == 6


def test_v_midnight_makeover_fairies_are_wild() -> None:
    ctx = PlayContext("v", lead=False, follow="pet", lead_number=5)
    opts = play_options(ctx, hand("pet-5", "fairy-2", "queen-9"))
    assert faces_of(opts) == {"pet-5", "fairy-2"}
    only_fairy = play_options(ctx, hand("fairy-2", "queen-9"))
    assert faces_of(only_fairy) == {"fairy-2"} and not any(v for *_, v in only_fairy)  # not void
    assert trick_winner("v", [P(0, "pet-5"), P(1, "fairy-7"), P(2, "pet-7")]) == 2  # tie: the later card
    assert trick_winner("v", [P(0, "pet-5"), P(1, "fairy-9"), P(2, "pet-7")]) == 1


def test_w_pass_the_bouquet_void_card_changes_the_suit_to_follow() -> None:
    plays = [P(0, "fairy-5"), P(1, "pet-3", void=True)]
    assert follow_suit("w", plays) == "pet"
    ctx = PlayContext("w", lead=False, follow=follow_suit("w", plays), lead_number=5)
    assert faces_of(play_options(ctx, hand("fairy-9", "pet-2", "pet-9"))) == {"pet-2", "pet-9"}
    assert trick_winner("w", [*plays, P(2, "pet-9")]) == 2
    assert trick_winner("w", [*plays, P(2, "pet-2")]) == 1


def test_x_upside_down_each_six_flips_the_order() -> None:
    assert trick_winner("x", [P(0, "fairy-6"), P(1, "fairy-9"), P(2, "fairy-2")]) == 2
    assert trick_winner("x", [P(0, "fairy-6"), P(1, "pet-6", void=True), P(2, "fairy-9")]) == 2
    assert trick_winner("x", [P(0, "fairy-5"), P(1, "pet-6", void=True), P(2, "fairy-9")]) == 0
    # Cinderella and one 6 cancel
    assert trick_winner("x", [P(0, "fairy-5"), P(1, "fairy-6"), P(2, "fairy-9")], cinderella=True) == 2


def test_y_bathroom_break_doubles_princes_except_for_the_highest_totals() -> None:
    assert pile_score(["prince-3", "prince-4", "pet-8"], "y", 1, doubled_princes=True) == 4 + 5
    assert pile_score(["prince-3", "prince-4", "pet-8"], "y", 1, doubled_princes=False) == 2 + 5
    t = Table(3, "ay", options={"rebel_of_the_ball": False})
    t.autoplay(stop=lambda s: len(s.scores) == 2)
    first, second = t.state.scores
    top = max(first)
    won = t.last("disclose")
    for seat in range(3):
        faces = [t.face(r) for r in won.won[seat]]
        assert second[seat] == pile_score(
            faces, "y", won.tricks_won[seat], doubled_princes=first[seat] != top
        )


def test_z_dancing_queens_pairs() -> None:
    assert dancing_queens(["prince-3", "queen-3", "prince-5", "queen-9", "prince-7"]) == 3 + 2 + 1
    assert dancing_queens(["queen-3", "queen-4"]) == 0
    assert pile_score(["prince-3", "queen-3", "pet-8"], "z", 1, False) == 3 + 5


def test_round_card_texts_exist() -> None:
    for info in ROUNDS:
        assert info.name and info.text and BY_LETTER[info.letter] is info


def test_a_round_card_reads_as_one_line_in_the_console() -> None:
    # the console shows an entry's events one per "; "-separated part: a Round card's text holding
    # "; " was cut into fragments (and then said a second time whole)
    for info in ROUNDS:
        assert "; " not in info.text, (info.letter, info.text)
        assert "; " not in info.name and "; " not in info.pass_text
