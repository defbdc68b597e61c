"""Issue #17: one test per rules decision taken (each recorded in its game's module docstring)."""

from __future__ import annotations

from typing import Any

from engine.core import Event, Random
from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.rounds import BY_LETTER
from engine.rebelprincess.tricks import Play, PlayContext, follow_suit, play_options, trick_winner
from engine.regicide import Regicide
from engine.regicide.present import RegicidePresentation
from engine.regicide.state import discard_error

from .test_rebelprincess_support import Table
from .test_regicide_rules import Table as RegicideTable


def P(seat: int, face: str, **kw: Any) -> Play:  # noqa: N802 - reads like a card
    return Play(seat, 100 + seat, face, **kw)


# ---------------------------------------------------------------------------------------------
# Rebel Princess
# ---------------------------------------------------------------------------------------------


def test_pass_the_bouquet_only_a_new_suit_moves_the_suit_to_follow() -> None:
    # F1, F6, then seat 2 void plays Pet 9 (new suit: Pets), seat 3 void in Pets plays Fairy 10
    plays = [P(0, "fairy-1"), P(1, "fairy-6"), P(2, "pet-9", void=True), P(3, "fairy-10", void=True)]
    assert follow_suit("w", plays[:3]) == "pet"
    assert follow_suit("w", plays) == "pet"  # the Fairies were already played: no way back
    assert trick_winner("w", plays) == 2
    # a third suit still moves it
    queens = [*plays[:3], P(3, "queen-2", void=True)]
    assert follow_suit("w", queens) == "queen" and trick_winner("w", queens) == 3
    # and the seat after must follow the Pets, not the Fairies
    ctx = PlayContext("w", lead=False, follow=follow_suit("w", plays[:3]), lead_number=1)
    options = play_options(ctx, [(1, "fairy-9"), (2, "pet-2")])
    assert {f for _, f, _, _ in options} == {"pet-2"}
    assert "not yet played" in BY_LETTER["w"].text


def test_crystal_clear_laid_out_cards_are_not_random_cards_for_scheherazade_or_the_ice_princess() -> None:
    for princess, pick in (("scheherazade", "bazaar_pick"), ("ice-princess", "freeze_pick")):
        t = Table(3, "h", princesses=["pea-princess", princess, "cinderella"])
        assert t.state.step == "crystal"
        # seat 0 lays out its Pets; the others their first suit
        moves = {s: t.legal(s)[0] for s in range(3)}
        moves[0] = next(m for m in t.legal(0) if m["suit"] == "pet")
        t.commit(moves)
        laid = set(t.state.laid[0])
        assert laid and all(t.game.public_face(t.state, r) for r in laid)
        while not (t.state.step == "power" and t.request.seat == 1):
            t.decide({"use": False})
        t.apply(Event.move(1, {"use": True, "target": 0}))
        while not isinstance(t.request, Random):
            t.apply(t.dealer.resolve(t.request, lambda s, p: {}))
        hidden = len(t.state.hands[0]) - len(laid)
        assert t.state.step == pick and t.request.n == hidden < len(t.state.hands[0])
        for value in range(t.request.n):  # whatever the draw, never a laid-out card
            after = t.game.apply(t.state, Event("random", None, {"value": value}))
            assert not set(after.picks) & laid


def test_crystal_clear_a_hand_all_laid_out_is_no_target_for_random_draws() -> None:
    game = RebelPrincess(3, {"round_cards": "habcd", "first_leader": 0})
    t = Table(3, "h", princesses=["pea-princess", "scheherazade", "cinderella"])
    state = t.state
    # pretend seat 0 laid out its whole hand
    from dataclasses import replace

    state = replace(state, laid=(tuple(state.hands[0]), (), ()), princesses=state.princesses)
    assert game.hidden_hand(state, 0) == ()
    assert all(use.get("target") != 0 for use in t.game.power_uses(replace(state, spent=(False,) * 3), 1))


def test_hourglass_cards_are_not_flagged_by_default_and_work_when_a_table_names_them() -> None:
    game = RebelPrincess(4)
    assert game.options["final_round_cards"] == ""
    import engine.rebelprincess as package

    assert "Hourglass" in (package.__doc__ or "") and "no source" in (package.__doc__ or "")
    # with flags, random setup puts a flagged card in the last round and the tie-break round
    flagged = RebelPrincess(4, {"final_round_cards": "ow", "princess_powers": False})
    t_state = flagged.initial_state()
    from engine.dealer import TrustedDealer

    dealer = TrustedDealer(flagged, 7)
    while t_state.step in ("round_shuffle", "final_shuffle"):
        t_state = flagged.apply(t_state, dealer.resolve(flagged.pending(t_state), lambda s, p: {}))
    last = dealer.slots[t_state.round_refs[4]]
    tiebreak = dealer.slots[t_state.round_refs[5]]
    assert {last, tiebreak} == {"round-o", "round-w"}
    assert all(dealer.slots[r] not in ("round-o", "round-w") for r in t_state.round_refs[:4])
    # an explicit five-card choice gets a flagged card for the tie-break round
    explicit = RebelPrincess(4, {"round_cards": "abcde", "final_round_cards": "o", "princess_powers": False})
    s = explicit.initial_state()
    assert explicit.deck()[s.round_refs[5]] == "round-o"


# ---------------------------------------------------------------------------------------------
# Regicide
# ---------------------------------------------------------------------------------------------


def test_regicide_nothing_may_be_discarded_against_an_attack_of_zero_even_with_overdiscard() -> None:
    for overdiscard in (False, True):
        assert discard_error([], 0, overdiscard) is None
        assert discard_error([5], 0, overdiscard) is not None
        assert discard_error([0], 0, overdiscard) is not None  # not even a worthless Jester
    assert discard_error([5, 9], 3, True) is None  # overdiscard still works against a real attack


def test_regicide_solo_window_at_attack_zero_offers_only_the_jester_or_nothing() -> None:
    t = RegicideTable(hands=[["10S", "9H"]], enemy="JC", options={"allow_overdiscard": True})
    t.play("10S")  # a full shield: the Step 4 window opens only for the solo Jester
    assert t.game.attack_due(t.state) == 0
    assert t.game.legal_moves(t.state, 0, t.own(0)) == [{"discard": []}, {"jester_power": True}]
    t.illegal({"discard": t.cards("9H")}, "nothing to absorb")
    t.pay()
    assert t.hand(0) == ["9H"]


def test_regicide_help_states_the_rule_against_revealing_your_hand_and_its_jester_exception() -> None:
    rules = " ".join(RegicidePresentation(Regicide(3)).rules)
    assert "reveal" in rules and "hand" in rules
    assert "Jester" in rules and "go next" in rules


def test_regicide_docstring_records_the_solo_seed_departure_and_the_exact_kill() -> None:
    import engine.regicide.game as module

    doc = " ".join((module.__doc__ or "").split())
    assert "2 Jesters" in doc and "seed" in doc
    assert "face down on top of the Tavern" in doc
