"""Basic rules, options, scoring, illegal moves, check() and the words of the Rebel Princess engine."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine.core import Event, IllegalMove
from engine.games import make_game
from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.cards import FROG, HAND_SIZE, is_suit_face, suit_faces

from .test_rebelprincess_support import STANDARD, Table, cards

EVERY_PRINCESS_BUT = ["thumbelina", "snow-white", "pea-princess"]


def move(seat: int, data: Any) -> Event:
    """A decision event."""
    return Event.move(seat, data)


def assert_illegal(t: Table, event: Event, match: str) -> None:
    """``event`` raises IllegalMove mentioning ``match`` and the table state is untouched."""
    before = t.state.to_dict()
    with pytest.raises(IllegalMove, match=match):
        t.game.apply(t.state, event)
    assert t.state.to_dict() == before


# -- deck and setup ---------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "size"), [(3, 36), (4, 40), (5, 40), (6, 48)])
def test_deck_by_player_count(seats: int, size: int) -> None:
    game = RebelPrincess(seats)
    deck = game.deck()
    assert len(deck) == size + 12 + 26 and len(set(deck)) == len(deck)
    assert sum(1 for f in deck if is_suit_face(f)) == size and FROG in deck
    assert size == HAND_SIZE[seats] * seats
    assert ("fairy-1" in deck) == (seats > 3) and ("queen-12" in deck) == (seats == 6)
    assert len(game.princes) == size // 4


def test_registry_builds_the_game() -> None:
    game = make_game("rebelprincess", 4, {"rounds": 3})
    assert isinstance(game, RebelPrincess) and game.options["rounds"] == 3


def test_princess_draft_deals_two_and_keeps_one_for_the_game() -> None:
    t = Table(4, "a", princesses=["mulan", "alice", "rapunzel", "cinderella"])
    deal = next(s for s in t.states if s.step == "princess_deal")
    assert [len(o) for o in deal.offers] == [2, 2, 2, 2]
    assert t.state.princesses == ("mulan", "alice", "rapunzel", "cinderella")
    assert [t.face(r) for r in t.state.princess_refs] == [f"princess-{k}" for k in t.state.princesses]


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"rounds": 4},
        {"round_cards": "abc"},
        {"round_cards": "aabcd"},
        {"round_cards": "abcd1"},
        {"first_leader": 7},
        {"round_leader": "random"},
        {"edition": "first"},
        {"princess_powers": "yes"},
        {"final_round_cards": "?"},
        {"mulan_frog": "never"},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        RebelPrincess(4, options)


def test_edition_preset_and_overrides() -> None:
    zp = RebelPrincess(4, {"edition": "zp"}).options
    assert (
        zp["round_leader"],
        zp["poisoned_apple_tie"],
        zp["blind_mans_bluff"],
        zp["rebel_of_the_ball"],
    ) == (
        "last_winner",
        "later",
        "set_aside",
        False,
    )
    assert RebelPrincess(4, {"edition": "zp", "rebel_of_the_ball": True}).options["rebel_of_the_ball"]
    assert RebelPrincess(4, {"round_cards": ["a", "b", "c"], "rounds": 3}).options["round_cards"] == "abc"


def test_first_leader_is_a_joint_random_choice_by_default() -> None:
    game = RebelPrincess(5, {"princess_powers": False, "round_cards": "abcde"})
    state = game.initial_state()
    request = game.pending(state)
    assert request.n == 5 and request.purpose == "first_leader"
    state = game.apply(state, Event("random", None, {"value": 3}))
    assert state.leader == 3 and state.first_leader == 3


# -- basic trick play ---------------------------------------------------------------------------


def test_princes_cannot_be_led_until_a_void_prince_sneaks_in() -> None:
    t = Table(3, "a", [STANDARD])
    assert "prince-2" not in t.legal_faces(0)
    t.play("pet-2", "queen-2")
    assert not t.state.princes_in
    t.play("prince-4")  # void in Pets
    assert t.state.princes_in and t.state.last_trick_winner == 0
    assert "prince-2" in t.legal_faces(0)


def test_the_frog_does_not_make_princes_sneak_in() -> None:
    hands = [cards("F2 F5 Q2-10 K2"), cards("F7 F9 P2-10 K3"), cards("F3 F4 F6 F8 F10 K4-10")]
    t = Table(3, "a", [hands])
    t.play("queen-2", "pet-8", "fairy-3")  # seats 1 and 2 are void in Queens
    assert t.state.last_trick[1].void and not t.state.princes_in


def test_an_all_prince_hand_may_lead_a_prince_without_sneaking_in() -> None:
    hands = [cards("K2-10 F8-10"), cards("F2-7 P2-7"), cards("P8-10 Q2-10")]
    t = Table(3, "a", [hands])
    t.play("fairy-10", "fairy-2", "queen-2", "fairy-9", "fairy-3", "queen-3", "fairy-8", "fairy-4", "queen-4")
    assert t.request.seat == 0 and t.legal_faces(0) == set(cards("K2-10"))
    t.play("prince-2", "pet-2", "queen-5")
    assert not t.state.princes_in


def test_round_leader_lowest_total_ties_clockwise_after_the_previous_leader() -> None:
    t = Table(4, "ab", options={"rebel_of_the_ball": False})
    t.autoplay(stop=lambda s: len(s.scores) == 1 and s.step not in ("round_reveal",) and s.letter == "b")
    totals = t.game.totals(t.state)
    low = min(totals)
    expected = next((0 + k) % 4 for k in range(1, 5) if totals[(0 + k) % 4] == low)
    assert t.state.first_leader == expected == t.state.leader


def test_round_leader_option_last_trick_winner() -> None:
    t = Table(4, "ab", options={"round_leader": "last_winner"})
    t.autoplay(stop=lambda s: len(s.scores) == 1 and s.letter == "b")
    assert t.state.leader == t.last("disclose").last_winner


# -- scoring ------------------------------------------------------------------------------------


def scored(
    game: RebelPrincess, piles: list[list[str]], letter: str = "a", totals: tuple[int, ...] | None = None
) -> tuple:
    """Round scores of captured piles (canonical refs carry public faces)."""
    deck = game.deck()
    won = tuple(tuple(deck.index(f) for f in pile) for pile in piles)
    state = replace(
        game.initial_state(), won=won, letter=letter, tricks_won=tuple(len(p) and 1 for p in piles)
    )
    if totals is not None:
        state = replace(state, scores=(totals,))
    return game.round_scores(state)


def test_basic_scoring_princes_one_frog_five() -> None:
    game = RebelPrincess(3)
    assert scored(game, [["prince-2", "prince-9", FROG, "queen-4"], ["fairy-3"], []]) == (7, 0, 0)


def test_rebel_of_the_ball_scores_minus_ten_whatever_the_round_card() -> None:
    game = RebelPrincess(3)
    everything = [f for f in game.suit_cards if f.startswith("prince-")] + [FROG, "fairy-3"]
    assert scored(game, [everything, ["queen-4"], []], letter="d") == (-10, 0, 0)
    assert scored(game, [everything[1:], ["queen-4"], []])[0] == 8 + 5  # one Prince short: no Rebel
    off = RebelPrincess(3, {"rebel_of_the_ball": False})
    assert scored(off, [everything, [], []])[0] == 9 + 5


def test_winner_lowest_total_then_zero_rounds_with_options() -> None:
    game = RebelPrincess(3)
    state = replace(game.initial_state(), scores=((0, 3, 0), (5, 2, -1), (0, 0, 6)))
    assert game.totals(state) == (5, 5, 5)
    assert game.zero_rounds(state) == (2, 1, 2)  # "zero or fewer" (seed): -1 counts
    assert game.winners(state) == [0, 2]
    strict = RebelPrincess(3, {"zero_rounds": "exactly_zero"})
    assert strict.zero_rounds(state) == (2, 1, 1) and strict.winners(state) == [0]


def test_a_tie_after_the_last_round_plays_one_extra_round_among_the_tied() -> None:
    t = Table(3, "abc", options={"rounds": 3, "rebel_of_the_ball": False})
    t.autoplay(stop=lambda s: len(s.scores) == 3)
    index = max(i for i, s in enumerate(t.states) if s.step == "disclose")
    last = t.game.apply(t.states[index], t.history[index]).scores[-1]
    # earlier rounds rigged so that totals and zero rounds tie after the last round
    second = tuple(1 if r <= 0 else 0 for r in last)
    first = tuple(100 - r - z for r, z in zip(last, second, strict=True))
    rigged = replace(t.states[index], scores=(first, second))
    after = t.game.apply(rigged, t.history[index])
    assert after.tied == (0, 1, 2) and after.round_no == 3 and t.game.totals(after) == (100, 100, 100)
    t.state = after
    t.autoplay()
    assert len(t.state.scores) == 4 and len(t.state.round_letters) == 4 and t.game.is_over(t.state)
    assert set(t.game.result(t.state)["winners"]) <= {0, 1, 2}


def test_no_tiebreak_round_when_the_option_is_off() -> None:
    game = RebelPrincess(3, {"tiebreak_round": False})
    state = replace(game.initial_state(), scores=((0, 0, 0),) * 4)
    assert game.winners(state) == [0, 1, 2]


def test_three_round_game_and_final_round_card_last() -> None:
    t = Table(4, "abc", options={"rounds": 3, "round_cards": None, "final_round_cards": "q"})
    t.autoplay()
    assert t.game.result(t.state)["round_cards"][2] == "q"
    assert len(t.state.scores) in (3, 4) and t.check() == []


def test_without_princess_powers_nothing_is_drafted_or_offered() -> None:
    t = Table(4, "abcde")
    t.autoplay()
    steps = {s.step for s in t.states}
    assert not steps & {"princess", "power", "mulan", "alice"}
    assert t.game.result(t.state)["princesses"] == ["", "", "", ""]


# -- illegal moves -------------------------------------------------------------------------------


def test_illegal_plays_are_refused_with_the_state_unchanged() -> None:
    t = Table(3, "a", [STANDARD])
    assert_illegal(t, move(1, t.play_move("fairy-7")), "turn")
    assert_illegal(t, move(0, t.play_move("fairy-7")), "not in seat 0")
    assert_illegal(t, Event("move", 0, "fairy-2"), "map")  # type: ignore[arg-type]
    assert_illegal(t, move(0, {"card": True, "face": "fairy-2"}), "integer")
    assert_illegal(t, move(0, {"card": t.ref("fairy-2"), "face": "unicorn-3"}), "suit card")
    assert_illegal(t, move(0, {"card": t.ref("fairy-2"), "face": "fairy-2", "void": "no"}), "void")
    assert_illegal(t, move(0, t.play_move("fairy-2", power=True)), "power")
    assert_illegal(t, move(0, t.play_move("fairy-2", void=True)), "void")
    assert_illegal(t, move(0, {"card": t.ref("pet-2"), "face": "queen-12"}), "not in this deck")
    assert_illegal(t, Event("revealed", None, {"faces": {}}), "expected a 'move'")
    t.play("fairy-2", "fairy-7")
    # seat 2's fairy-7 claim is contradicted by the face revealed a moment ago
    assert_illegal(t, move(2, {"card": t.ref("fairy-3"), "face": "fairy-7"}), "elsewhere")


def test_publicly_known_cards_bind_follow_suit_and_lead_claims() -> None:
    seat0 = cards("F2 F3 F4 Q2-10")
    t = Table(3, "h", [[seat0, [], []]], options={"first_leader": 1})
    laid = {0: {"suit": "fairy", "cards": [t.ref(f) for f in ("fairy-2", "fairy-3", "fairy-4")]}}
    t.commit({**laid, 1: t.legal(1)[0], 2: t.legal(2)[0]})
    fairy_lead = next(m for m in t.legal(1) if m["face"].startswith("fairy-"))
    t.decide(fairy_lead)
    t.decide(t.legal(2)[0])
    # seat 0's fairies are face up: an off-suit "void" play is publicly false
    assert_illegal(t, move(0, t.play_move("queen-5")), "follow suit")
    assert_illegal(t, move(0, {"card": t.ref("fairy-3"), "face": "fairy-9"}), "publicly known to be fairy-3")


def test_illegal_table_answers_are_refused() -> None:
    t = Table(3, "a", princesses=["mulan", "alice", "cinderella"])
    assert t.state.step == "power"
    assert_illegal(t, move(2, {"use": True, "leader": 1}), "cannot use")
    assert_illegal(t, move(2, {"use": "yes"}), "true or false")
    assert_illegal(t, move(2, {"use": True, "target": True}), "seat numbers")
    fresh = Table(3, "a", princesses=["mulan", "alice", "cinderella"])
    princess_state = next(s for s in fresh.states if s.step == "princess")
    with pytest.raises(IllegalMove, match="keep one of the Princesses"):
        fresh.game.apply(
            princess_state,
            Event("committed", None, {"choices": {0: {"keep": 0}, 1: {"keep": 0}, 2: {"keep": 0}}}),
        )
    pass_state = next(s for s in fresh.states if s.step == "pass")
    bad = {s: {"pass": list(pass_state.hands[s][:2])} for s in range(3)}
    with pytest.raises(IllegalMove, match="exactly 3"):
        fresh.game.apply(pass_state, Event("committed", None, {"choices": bad}))
    stolen = {s: {"pass": list(pass_state.hands[(s + 1) % 3][:3])} for s in range(3)}
    with pytest.raises(IllegalMove, match="own hand"):
        fresh.game.apply(pass_state, Event("committed", None, {"choices": stolen}))
    with pytest.raises(IllegalMove, match="exactly one choice"):
        fresh.game.apply(pass_state, Event("committed", None, {"choices": {0: bad[0]}}))
    reveal_state = next(s for s in fresh.states if s.step == "princess_reveal")
    faces = {r: "fairy-3" for r in reveal_state.op_refs}
    with pytest.raises(IllegalMove, match="not a Princess"):
        fresh.game.apply(reveal_state, Event("revealed", None, {"faces": faces}))


# -- claims and check ----------------------------------------------------------------------------


def test_check_catches_a_hidden_follow_suit_violation_at_that_event() -> None:
    t = Table(3, "a", [STANDARD])
    t.play("fairy-2")
    index = len(t.history)
    t.decide(t.play_move("queen-4"))  # seat 1 holds fairy-7 and fairy-9: a false void claim
    assert t.state.fault is None
    t.autoplay()
    violations = t.check()
    assert [(v.index, v.seat) for v in violations] == [(index, 1)]
    assert "follow suit" in violations[0].reason


def test_a_false_face_claim_is_a_fault_when_revealed() -> None:
    t = Table(3, "a", [STANDARD])
    index = len(t.history)
    t.decide({"card": t.ref("pet-2"), "face": "pet-3"})
    assert t.state.fault is not None and (t.state.fault.index, t.state.fault.seat) == (index, 0)
    assert t.game.is_over(t.state) and t.game.legal_moves(t.state, 1, {}) == []
    assert [v.index for v in t.check()] == [index]


def test_check_catches_a_false_all_prince_lead() -> None:
    t = Table(3, "a", [STANDARD])
    index = len(t.history)
    t.decide(t.play_move("prince-2"))  # accepted: nothing public says seat 0 holds other cards
    t.autoplay(stop=lambda s: s.tricks_played == 1)
    assert [(v.index, v.seat) for v in t.check()] == [(index, 0)]


def test_check_catches_magic_beans_and_thumbelina_false_claims() -> None:
    t = Table(3, "c", [STANDARD])
    index = len(t.history)
    t.decide(t.play_move("pet-5"))  # neither the highest nor the lowest Pet of seat 0
    t.autoplay(stop=lambda s: s.tricks_played == 1)
    assert [(v.index, v.seat) for v in t.check()] == [(index, 0)]
    thumb = Table(3, "a", [STANDARD], princesses=["snow-white", "thumbelina", "pea-princess"])
    thumb.play("pet-2")
    index = len(thumb.history)
    # seat 1 holds no Pet: claiming not to be void is false
    thumb.decide(thumb.play_move("queen-3", power=True, void=False))
    thumb.autoplay(stop=lambda s: s.tricks_played == 1)
    assert [(v.index, v.seat) for v in thumb.check()] == [(index, 1)]


def test_honest_rigged_games_check_clean_with_public_faces_only() -> None:
    t = Table(4, "hikmp", princesses=["ice-princess", "mulan", "alice", "sleeping-beauty"])
    t.autoplay()
    public = dict(enumerate(t.game.deck()))
    for event in t.history:
        if event.kind in ("revealed", "disclosed"):
            public.update(event.data["faces"])
    assert t.check() == [] and t.game.check(t.history, public) == []


# -- words ----------------------------------------------------------------------------------------


def test_describe_render_and_card_text() -> None:
    t = Table(4, "bhiko", princesses=["ice-princess", "mulan", "alice", "scheherazade"])
    t.autoplay(stop=lambda s: len(s.scores) == 1)
    lines = [t.game.describe(s, e) for s, e in zip(t.states, t.history, strict=False)]
    assert all(line and "(" not in line[:1] for line in lines)
    for state, event, line in zip(t.states, t.history, lines, strict=False):
        if event.kind == "committed" and state.step in ("pass", "aside", "gift", "chairs"):
            assert not any(face in line for face in t.game.suit_cards)  # nothing secret leaks
    assert any("Round 1 ends" in line for line in lines)
    public = t.game.render(t.state, None, {})
    mine = t.game.render(t.state, 2, t.known(2))
    assert "Your hand" not in public and "Your hand" in mine and "Princesses:" in mine
    for face in t.game.deck():
        assert len(t.game.card_text(face)) > 15
    assert "Frog" in t.game.card_text(FROG) and "Snow White" in t.game.card_text("princess-snow-white")


def test_legal_moves_only_for_the_asked_seats() -> None:
    t = Table(3, "o")
    assert t.state.step == "gift"
    assert all(t.legal(s) for s in range(3))
    t.commit({s: t.legal(s)[0] for s in range(3)})
    seat = t.request.seat
    assert t.legal(seat) and all(
        t.game.legal_moves(t.state, s, t.known(s)) == [] for s in range(3) if s != seat
    )


def test_state_round_trips_through_its_dict() -> None:
    t = Table(5, "uvw", princesses=["ice-princess", "mulan", "alice", "scheherazade", "snow-white"])
    t.autoplay(stop=lambda s: s.tricks_played == 3 and bool(s.trick))
    assert t.game.state_from_dict(t.state.to_dict()) == t.state
    assert suit_faces(5) == t.game.suit_cards


def test_check_flags_a_reveal_that_disagrees_with_the_given_faces() -> None:
    t = Table(3, "a", [STANDARD])
    t.play("fairy-2", "fairy-7", "fairy-3")
    index = max(i for i, e in enumerate(t.history) if e.kind == "revealed")
    ref = next(iter(t.history[index].data["faces"]))
    faces = dict(enumerate(t.dealer.slots))
    faces[ref] = "queen-9"
    found = [(v.index, v.seat) for v in t.game.check(t.history, faces)]
    # the dealing layer is blamed for the reveal; the player's claim now also looks false
    assert found == [(index - 1, 2), (index, -1)]


def test_first_game_preset_uses_round_cards_a_to_e() -> None:
    assert RebelPrincess(4, {"round_cards": "first-game"}).options["round_cards"] == "abcde"
    assert RebelPrincess(4, {"round_cards": "first-game", "rounds": 3}).options["round_cards"] == "abc"
