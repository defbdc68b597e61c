"""One test (or more) per Deluxe Princess power, and the power-ordering rules (rules §7, §11)."""

from __future__ import annotations

import pytest

from engine.core import IllegalMove
from engine.rebelprincess.tricks import Play, PlayContext, play_options, strength, trick_winner

from .test_rebelprincess_support import STANDARD, Table, cards

OTHERS = ["cinderella", "pea-princess", "pocahontas", "little-mermaid", "rapunzel", "alice", "mulan"]


def table(seat_princess: dict[int, str], letter: str = "a", hands: list[list[str]] | None = None) -> Table:
    """A 3-seat table with the standard layout and the given Princesses (others get harmless ones)."""
    spare = iter(
        p
        for p in ["thumbelina", "snow-white", "pea-princess", "cinderella"]
        if p not in seat_princess.values()
    )
    keys = [seat_princess.get(s) or next(spare) for s in range(3)]
    return Table(3, letter, [hands or STANDARD], princesses=keys)


def test_snow_white_zeroes_a_card_of_seven_or_less_once_per_round() -> None:
    t = table({1: "snow-white"})
    t.play("fairy-2")
    assert {m["face"] for m in t.legal() if m["power"]} == {"fairy-7"}  # not the 9
    with pytest.raises(IllegalMove, match="7 or less"):
        t.game.apply(t.state, _move(1, t.play_move("fairy-9", power=True)))
    t.play("fairy-7", power=True)
    assert t.state.spent[1] and t.state.trick[-1].zero
    t.play("fairy-3")
    assert t.state.last_trick_winner == 2  # 3 > 2 > 0
    t.play("fairy-4", "pet-2")
    with pytest.raises(IllegalMove, match="spent"):
        t.game.apply(t.state, _move(1, t.play_move("fairy-9", power=True)))
    # ZP FAQ: under a reversed order her 0 counts as 13, still the weakest
    assert strength(0, reverse=True) == 0 < strength(12, reverse=True)
    reversed_trick = [
        Play(0, 1, "fairy-9"),
        Play(1, 2, "fairy-2", power=True, zero=True),
        Play(2, 3, "fairy-10"),
    ]
    assert trick_winner("a", reversed_trick, cinderella=True) == 0


def test_snow_white_may_satisfy_the_pea_princess_with_a_six_or_seven_then_zero_it() -> None:
    ctx = PlayContext(
        "a", lead=False, follow="fairy", lead_number=3, pea=True, princess="snow-white", power_ready=True
    )
    options = play_options(ctx, [(1, "fairy-2"), (2, "fairy-6"), (3, "fairy-7")])
    assert {(f, p) for _, f, p, _ in options} == {
        ("fairy-6", False),
        ("fairy-7", False),
        ("fairy-6", True),
        ("fairy-7", True),
    }


def test_cinderella_reverses_the_order_for_one_trick() -> None:
    t = table({0: "cinderella"})
    assert t.state.step == "power" and t.request.seat == 0
    t.decide({"use": True})
    t.no_power()
    assert t.state.reverse
    t.play("fairy-5", "fairy-9", "fairy-3")
    assert t.state.last_trick_winner == 2 and not t.state.reverse


def test_not_this_round_stops_the_power_question_until_the_next_round() -> None:
    t = table({0: "cinderella"})
    assert t.state.step == "power" and {"use": False, "round": True} in t.legal()
    t.decide({"use": False})  # "not now": asked again before the next trick
    t.no_power()
    t.play("fairy-5", "fairy-9", "fairy-3")
    assert t.state.step == "power" and t.request.seat == 0
    t.decide({"use": False, "round": True})  # "not this round"
    rounds = len(t.state.scores)
    asked = lambda s: s.step == "power" and s.decider == 0  # noqa: E731
    t.autoplay(stop=lambda s: asked(s) or len(s.scores) > rounds)
    assert len(t.state.scores) > rounds, "asked again in the same round"
    assert "cinderella" not in t.state.used  # the power was never used that round
    t.autoplay(stop=asked)  # the next round asks again
    assert asked(t.state) and t.state.waived == (False,) * 3


@pytest.mark.parametrize(
    "bad",
    [
        {"use": True, "round": True},
        {"use": False, "round": 1},
        {"use": False, "when": "later"},
        # one answer, one encoding: "not now" is {"use": false}, never {} or round: false
        {},
        {"round": True},
        {"use": False, "round": False},
    ],
)
def test_a_power_answer_has_exactly_its_fields(bad: dict) -> None:
    t = table({0: "cinderella"})
    before = t.state
    with pytest.raises(IllegalMove):
        t.decide(bad)
    assert t.state == before


def test_alice_must_say_whether_she_uses_her_power() -> None:
    t = table({0: "alice"})
    t.play("pet-8", "queen-2", "prince-4")
    t.play("pet-9", "queen-3", "prince-5")
    assert t.state.step == "alice"
    with pytest.raises(IllegalMove, match="use true or use false"):
        t.decide({})
    assert t.state.step == "alice"
    t.decide({"use": False})
    assert t.state.step != "alice"


def test_pocahontas_chooses_who_leads() -> None:
    t = table({0: "pocahontas"})
    assert {"use": True, "leader": 2} in t.legal()
    t.decide({"use": True, "leader": 2})
    t.no_power()
    assert t.request.seat == 2 and t.state.leader == 2


def test_mulan_swaps_her_card_before_the_trick_is_decided() -> None:
    t = table({1: "mulan"})
    t.play("fairy-5", "fairy-9", "fairy-8")
    assert t.state.step == "mulan" and t.request.seat == 1
    assert {"swap": t.ref("fairy-9"), "card": t.ref("fairy-7"), "face": "fairy-7"} in t.legal()
    old = t.ref("fairy-9")
    t.decide({"swap": old, "card": t.ref("fairy-7"), "face": "fairy-7"})
    assert t.state.last_trick_winner == 2  # decided with the 7: the 8 wins
    assert old in t.state.hands[1] and t.game.public_face(t.state, old) == "fairy-9"
    assert t.state.spent[1]
    assert t.check() == []


def test_mulan_never_swaps_the_frog_in_or_out() -> None:
    t = table({0: "mulan"})
    t.play("pet-5", "queen-2", "prince-4")
    assert t.state.step == "mulan"
    offered = {m["face"] for m in t.legal() if m.get("swap") is not None}
    assert "pet-8" not in offered and offered == set(cards("P2-4 P6-7 P9-10"))
    with pytest.raises(IllegalMove, match="Frog"):
        t.game.apply(t.state, _move(0, {"swap": t.ref("pet-5"), "card": t.ref("pet-8"), "face": "pet-8"}))
    t.decide({"swap": None})
    t.play("pet-8", "queen-3", "prince-5")  # seat 0 won and leads the Frog
    assert t.state.step != "mulan"  # the Frog cannot be swapped out


def test_pea_princess_forces_cards_above_five() -> None:
    t = table({0: "pea-princess"})
    t.decide({"use": True})
    t.no_power()
    assert t.legal_faces(0) == set(cards("P6-10"))
    t.play("pet-6")
    assert t.legal_faces(1) == set(cards("F7 F9 Q6-10"))  # void: any card above 5


def test_pea_princess_keeps_the_follow_suit_duty_first() -> None:
    ctx = PlayContext("a", lead=False, follow="fairy", lead_number=8, pea=True)
    assert {f for _, f, *_ in play_options(ctx, [(1, "fairy-2"), (2, "fairy-3"), (3, "queen-9")])} == {
        "fairy-2",
        "fairy-3",
    }


def test_little_mermaid_names_the_suit_to_lead() -> None:
    t = table({1: "little-mermaid"})
    t.no_power() if t.request.seat != 1 else None
    assert t.request.seat == 1
    t.decide({"use": True, "suit": "fairy"})
    t.no_power()
    assert t.legal_faces(0) == {"fairy-2", "fairy-5"}


def test_little_mermaid_cannot_force_princes_before_they_sneak_in() -> None:
    ctx = PlayContext("a", lead=True, mermaid="prince")
    hand = [(1, "prince-2"), (2, "fairy-3"), (3, "pet-4")]
    assert {f for _, f, *_ in play_options(ctx, hand)} == {"fairy-3", "pet-4"}
    only = [(1, "prince-2"), (2, "prince-5")]
    assert {f for _, f, *_ in play_options(ctx, only)} == {"prince-2", "prince-5"}


def test_sleeping_beauty_collects_face_up_and_hands_out() -> None:
    t = table({2: "sleeping-beauty"})
    t.no_power() if t.request.seat != 2 else None
    t.decide({"use": True})
    assert t.state.step == "spindle" and t.request.seats == (0, 1, 2)
    given = {0: t.ref("pet-8"), 1: t.ref("queen-2"), 2: t.ref("prince-10")}
    t.commit({s: {"card": r} for s, r in given.items()})
    assert all(t.game.public_face(t.state, r) for r in given.values())  # face up
    t.decide({"keep": given[1], "give": [[0, given[2]], [1, given[0]]]})
    assert given[1] in t.state.hands[2] and given[2] in t.state.hands[0] and given[0] in t.state.hands[1]
    assert [len(h) for h in t.state.hands] == [12, 12, 12]
    with pytest.raises(IllegalMove):
        t.game.apply(t.states[-2], _move(2, {"keep": given[1], "give": [[0, given[2]], [0, given[0]]]}))


def test_alice_shuffles_a_won_trick_back_into_every_hand_but_never_one_with_the_frog() -> None:
    t = table({0: "alice"})
    t.play("pet-8", "queen-2", "prince-4")
    assert t.state.step != "alice" and t.state.princes_in  # Frog in the trick: no offer
    t.play("pet-9", "queen-3", "prince-5")
    assert t.state.step == "alice"
    t.decide({"use": True})
    assert [len(h) for h in t.state.hands] == [11, 11, 11]  # 10 left + 1 dealt back each
    assert t.state.tricks_won[0] == 2 and len(t.state.won[0]) == 3  # only the first trick scored
    assert t.state.princes_in
    for seat in range(3):
        assert any(t.face(r) in {"pet-9", "queen-3", "prince-5"} for r in t.state.hands[seat])
    assert t.check() == []


def test_scheherazade_takes_a_random_card_and_may_swap() -> None:
    t = table({0: "scheherazade"})
    t.decide({"use": True, "target": 1})
    assert t.state.step == "bazaar"
    taken = t.state.picks[0]
    assert taken in t.known(0) and taken in t.state.hands[1]  # she looks at it
    mine = t.ref("fairy-2")
    t.decide({"swap": mine})
    assert taken in t.state.hands[0] and mine in t.state.hands[1] and mine in t.known(1)


def test_ice_princess_freezes_a_card_that_must_be_played_next() -> None:
    t = table({0: "ice-princess"})
    t.decide({"use": True, "target": 1})
    assert t.state.step == "freeze" and len(t.state.picks) == 2 and set(t.state.picks) <= set(t.known(0))
    frozen = max(t.state.picks, key=lambda r: t.face(r))
    t.decide({"freeze": frozen})
    t.no_power()
    assert t.state.frozen[1] == frozen and t.game.public_face(t.state, frozen) == t.face(frozen)
    t.play("pet-2")
    assert {m["card"] for m in t.legal()} == {frozen}  # whatever the led suit
    t.decide(t.legal()[0])
    assert t.state.frozen[1] == -1


def test_a_frozen_prince_makes_princes_sneak_in() -> None:
    hands = [cards("F2 F5 P2-10 K2"), cards("F7 F9 Q2-10 K3"), cards("F3 F4 F6 F8 F10 K4-10")]
    for seed in range(40):
        t = Table(3, "a", [hands], princesses=["ice-princess", "alice", "mulan"], seed=seed)
        t.decide({"use": True, "target": 2})
        prince = next((r for r in t.state.picks if t.face(r).startswith("prince-")), None)
        if prince is not None:
            t.decide({"freeze": prince})
            assert t.state.princes_in
            return
    raise AssertionError("never drew a Prince from an all-but-five-Princes hand")


def test_rapunzel_forces_a_prince_lead_without_sneaking_in() -> None:
    t = table({1: "rapunzel"})
    t.no_power() if t.request.seat != 1 else None
    t.decide({"use": True})
    t.no_power()
    assert t.legal_faces(0) == {"prince-2"}
    t.play("prince-2")
    assert not t.state.princes_in


def test_thumbelina_may_ignore_follow_suit_but_not_with_a_prince_or_the_frog() -> None:
    t = table({1: "thumbelina"})
    t.play("fairy-2")
    powered = {m["face"] for m in t.legal() if m["power"]}
    assert powered == set(cards("Q2-10")) and not any(
        m["face"] == "prince-3" and m["power"] for m in t.legal()
    )
    t.play("queen-2", power=True, void=False)
    assert t.state.spent[1] and not t.state.trick[-1].void
    ctx = PlayContext("a", lead=True, princess="thumbelina", power_ready=True)
    assert not any(p for *_, p, _ in play_options(ctx, [(1, "fairy-2"), (2, "queen-3")]))  # not as leader


def test_before_trick_powers_go_by_most_proposals_then_clockwise_from_the_leader() -> None:
    t = Table(
        3, "a", princesses=["cinderella", "pea-princess", "pocahontas"], options={"rebel_of_the_ball": False}
    )
    t.autoplay(stop=lambda s: len(s.scores) == 1 and s.step == "power")
    totals = t.game.totals(t.state)
    leader = t.state.leader
    expected = sorted(range(3), key=lambda s: (-totals[s], (s - leader) % 3))
    assert list(t.state.power_queue) == expected


def test_two_powers_dictating_the_lead_cannot_both_be_used() -> None:
    t = Table(3, "a", [STANDARD], princesses=["ice-princess", "little-mermaid", "alice"])
    t.decide({"use": True, "target": 0})  # freezes the leader's card
    t.decide({"freeze": t.state.picks[0]})
    assert t.state.step == "play"  # the Little Mermaid is not offered this trick
    assert not t.state.spent[1]


def _commit(choices: dict) -> object:
    from engine.core import Event

    return Event("committed", None, {"choices": choices})


def _move(seat: int, move: dict) -> object:
    from engine.core import Event

    return Event.move(seat, move)


def test_snow_white_announces_her_power_when_playing_face_down() -> None:
    t = table({1: "snow-white"}, letter="i")
    t.play("fairy-2")
    commit = {1: t.play_move("fairy-7", power=True), 2: t.play_move("fairy-3")}
    line = t.game.describe(t.state, _commit(commit))
    t.commit(commit)
    assert "seat 1 announces Snow White's power" in line
    assert t.state.last_trick[1].zero and t.state.last_trick_winner == 2


def test_a_per_card_power_used_on_the_first_card_lasts_the_whole_two_card_trick() -> None:
    snow = PlayContext(
        "u", lead=False, follow="fairy", princess="snow-white", power_ready=False, power_active=True
    )
    assert not any(p for *_, p, _ in play_options(snow, [(1, "fairy-3")]))  # nothing more to spend
    thumb = PlayContext(
        "u", lead=False, follow="fairy", princess="thumbelina", power_ready=False, power_active=True
    )
    assert {f for _, f, p, _ in play_options(thumb, [(1, "fairy-3"), (2, "queen-4")]) if p} == {"queen-4"}
    t = table(
        {1: "snow-white"},
        letter="u",
        hands=[cards("F2 F5 P2-10 K2"), cards("F6 F7 Q2-10 K3"), cards("F3 F4 F8 F9 F10 K4-10")],
    )
    t.play("fairy-2")
    t.play("fairy-6", power=True)
    t.play("fairy-3", "fairy-5")
    t.play("fairy-7")  # no power flag: still zero, the power lasts the whole trick
    assert t.state.trick[-1].zero and t.state.trick[1].zero


def test_thumbelina_as_the_leader_of_a_two_card_trick_must_follow_suit_with_her_second_card() -> None:
    """Rules §7 (Thumbelina: "when she plays a card but is **not the leader**"), under The Prince
    Always Rings Twice (two cards each): her second card is still the leader's, so it follows the
    led suit like anyone's; before, only the trick's very first card was barred from her power."""
    t = table(
        {0: "thumbelina"},
        letter="u",
        hands=[cards("F2 F5 P2-10 K2"), cards("F6 F7 Q2-10 K3"), cards("F3 F4 F8 F9 F10 K4-10")],
    )
    t.play("fairy-2")
    t.play("fairy-6")
    t.play("fairy-3")
    assert t.state.trick[0].seat == 0 and t.request.seat == 0  # the leader's second card
    assert {(m["face"], m["power"]) for m in t.legal()} == {("fairy-5", False)}
    with pytest.raises(IllegalMove):
        t.game.apply(t.state, _move(0, t.play_move("pet-3", power=True)))


def test_crystal_clear_only_at_round_start_later_cards_stay_hidden() -> None:
    hands = [cards("F2 F5 P2-10 K2"), cards("F7 F9 Q2-10 K3"), cards("F3 F4 F6 F8 F10 K4-10")]
    t = Table(3, "h", [hands], princesses=["scheherazade", "thumbelina", "snow-white"])
    t.commit(
        {
            0: {"suit": "pet", "cards": [t.ref(f) for f in cards("P2-10")]},
            1: {"suit": "queen", "cards": [t.ref(f) for f in cards("Q2-10")]},
            2: {"suit": "fairy", "cards": [t.ref(f) for f in cards("F3 F4 F6 F8 F10")]},
        }
    )
    t.decide({"use": True, "target": 2})
    mine = t.ref("fairy-5")
    t.decide({"swap": mine})
    assert mine in t.state.hands[2] and t.game.public_face(t.state, mine) is None  # stays hidden
