"""Love Letter rules: options, the request flow, every edge case EC-1..EC-22, illegal moves, claims."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgpack
import pytest

from engine.core import (
    DEALT,
    DISCLOSED,
    MOVE,
    RANDOM,
    REVEALED,
    SHUFFLED,
    Deal,
    Decide,
    Disclose,
    Event,
    GameOver,
    IllegalMove,
    Random,
    Reveal,
    Show,
    Shuffle,
)
from engine.games import make_game
from engine.loveletter import LoveLetter
from tests.engine.loveletter_support import Table

NO_REMOVAL = {"two_player_faceup_removal": False}


def assert_rejected(table: Table, event: Any, match: str) -> None:
    """``event`` raises IllegalMove mentioning ``match`` and changes nothing."""
    before = table.state
    snapshot = before.to_dict()
    length = len(table.history)
    with pytest.raises(IllegalMove, match=match):
        table.apply(event)
    assert table.state is before
    assert before.to_dict() == snapshot
    assert len(table.history) == length


def kinds(table: Table, start: int) -> list[str]:
    return [e.kind for e in table.history[start:]]


# ---------------------------------------------------------------------------------------------
# Options and setup
# ---------------------------------------------------------------------------------------------


def test_default_options_and_registry() -> None:
    game = make_game("loveletter", 4)
    assert isinstance(game, LoveLetter)
    assert game.options == {"edition": "classic", "two_player_faceup_removal": True,
                            "final_tie_policy": "none", "first_player": None}
    assert LoveLetter(3, {"edition": "2019"}).options["final_tie_policy"] == "all_tied_win"
    # resolved options are accepted again unchanged (they go into the genesis entry)
    assert LoveLetter(4, game.options).options == game.options


@pytest.mark.parametrize(
    ("seats", "options", "match"),
    [
        (4, {"colour": "red"}, "no option colour; its options: edition"),
        (4, {"edition": "2012"}, "edition"),
        (4, {"two_player_faceup_removal": "yes"}, "two_player_faceup_removal"),
        (4, {"final_tie_policy": "coin"}, "final_tie_policy"),
        (4, {"edition": "2019", "final_tie_policy": "none"}, "all_tied_win"),
        (4, {"first_player": 4}, "first_player"),
        (4, {"first_player": True}, "first_player"),
        (5, {}, "2-4 players"),
        (6, {"edition": "classic"}, "2-4 players"),
        (1, {}, "classic edition of Love Letter is for 2-4 players, not 1"),
        (7, {"edition": "2019"}, "2-6 players"),
    ],
)
def test_bad_options_are_rejected(seats: int, options: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        LoveLetter(seats, options)


def test_decks_and_token_goals() -> None:
    classic = LoveLetter(4)
    assert Counter(classic.deck()) == {"guard": 5, "priest": 2, "baron": 2, "handmaid": 2, "prince": 2,
                                       "king": 1, "countess": 1, "princess": 1}
    modern = LoveLetter(6, {"edition": "2019"})
    assert len(modern.deck()) == 21
    assert Counter(modern.deck())["spy"] == 2 and Counter(modern.deck())["chancellor"] == 2
    assert modern.value("spy") == 0 and modern.value("princess") == 9 and classic.value("princess") == 8
    assert [LoveLetter(n).threshold for n in (2, 3, 4)] == [7, 5, 4]
    assert [LoveLetter(n, {"edition": "2019"}).threshold for n in (2, 3, 4, 5, 6)] == [6, 5, 4, 3, 3]


def test_first_player_is_joint_random_then_round_setup() -> None:
    game = LoveLetter(3)
    state = game.initial_state()
    assert game.pending(state) == Random(3, "first player")
    state = game.apply(state, Event(RANDOM, None, {"value": 2}))
    assert state.starter == 2
    assert game.pending(state) == Shuffle(tuple(range(16)))
    state = game.apply(state, Event(SHUFFLED))
    assert state.set_aside == 16 and state.pile == tuple(range(17, 32)) and state.next_ref == 32
    # one Deal for the opening hands, from the starter clockwise
    assert game.pending(state) == Deal(((17, 2), (18, 0), (19, 1)))
    state = game.apply(state, Event(DEALT))
    assert state.hands == ((18,), (19,), (17,))
    assert game.pending(state) == Deal(((20, 2),))
    state = game.apply(state, Event(DEALT))
    assert game.pending(state) == Decide(2, "play")
    assert state.events == 4


def test_fixed_first_player_skips_the_random_request() -> None:
    game = LoveLetter(4, {"first_player": 3})
    assert game.pending(game.initial_state()) == Shuffle(tuple(range(16)))


def test_two_players_reveal_three_cards_unless_disabled() -> None:
    game = LoveLetter(2, {"first_player": 0})
    state = game.apply(game.initial_state(), Event(SHUFFLED))
    assert game.pending(state) == Reveal((17, 18, 19))
    state = game.apply(state, Event(REVEALED, None, {"faces": {17: "guard", 18: "king", 19: "priest"}}))
    assert state.faceup == (17, 18, 19) and game.pending(state) == Deal(((20, 0), (21, 1)))
    plain = LoveLetter(2, {"first_player": 0, **NO_REMOVAL})
    state = plain.apply(plain.initial_state(), Event(SHUFFLED))
    assert plain.pending(state) == Deal(((17, 0), (18, 1)))


def test_next_round_shuffles_the_live_refs_into_fresh_ones() -> None:
    table = Table.rigged(2, ["baron", "guard", "priest", "guard"], NO_REMOVAL)
    table.play(0, "guard", 1, "priest")
    table.honest()  # hit: seat 1 is out, the round is over
    assert table.state.tokens == (1, 0)
    assert isinstance(table.game.pending(table.state), Disclose)
    table.step()
    assert table.game.pending(table.state) == Shuffle(tuple(range(16, 32)))
    table.step()
    assert table.state.set_aside == 32 and table.state.pile[0] == 33 and table.state.round == 2
    assert table.check() == []


# ---------------------------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------------------------


def test_ec_01_guard_cannot_name_guard() -> None:
    table = Table.rigged(4, ["baron", "guard", "priest", "priest", "handmaid", "king"])
    assert_rejected(table, table.move_for(0, "guard", 1, "guard"), "cannot name the Guard")
    guard_moves = [m for m in table.legal() if m["face"] == "guard"]
    assert {m["guess"] for m in guard_moves} == {"priest", "baron", "handmaid", "prince", "king",
                                                "countess", "princess"}
    assert {m["target"] for m in guard_moves} == {1, 2, 3}


@pytest.mark.parametrize("face", ["guard", "priest", "baron", "king"])
def test_ec_02_targeted_card_with_everyone_protected_has_no_effect(face: str) -> None:
    # seat 1 starts and plays the Handmaid; seat 0 then holds `face` + Handmaid
    table = Table.rigged(2, ["countess", "prince", face, "handmaid", "handmaid"], NO_REMOVAL, starter=1)
    table.play(1, "handmaid")
    assert table.state.protected == (False, True)
    moves = [m for m in table.legal() if m["face"] == face]
    assert moves == [{"card": table.ref(0, face), "face": face, "target": None, "guess": None}]
    guess = "prince" if face == "guard" else None
    assert_rejected(table, table.move_for(0, face, 1, guess), "protected by the Handmaid")
    hands_before = table.state.hands
    start = len(table.history)
    table.play(0, face)
    assert kinds(table, start) == [MOVE, REVEALED, DEALT]  # no answer, no show: straight to seat 1's draw
    assert table.state.hands[1][0] == hands_before[1][0]  # no King swap either
    assert table.game.pending(table.state) == Decide(1, "play")


def test_ec_03_prince_with_everyone_else_protected_targets_yourself() -> None:
    table = Table.rigged(3, ["countess", "priest", "baron", "prince", "handmaid", "handmaid", "guard"],
                         starter=1)
    table.play(1, "handmaid")
    table.play(2, "handmaid")
    prince_moves = [m for m in table.legal() if m["face"] == "prince"]
    assert [m["target"] for m in prince_moves] == [0]
    assert_rejected(table, table.move_for(0, "prince", 1), "protected")
    assert_rejected(table, table.move_for(0, "prince", None), "needs a target")
    table.play(0, "prince", 0)
    assert [table.face(r) for r in table.state.discards[0]] == ["prince", "guard"]
    assert len(table.state.hands[0]) == 1


def test_ec_04_prince_on_yourself_discards_and_redraws() -> None:
    table = Table.rigged(2, ["king", "baron", "guard", "prince", "countess"], NO_REMOVAL)
    start = len(table.history)
    table.play(0, "prince", 0)
    # the Baron is discarded without effect (no Show), and the next pile card replaces it
    assert kinds(table, start) == [MOVE, REVEALED, REVEALED, DEALT, DEALT]
    assert [table.face(r) for r in table.state.discards[0]] == ["prince", "baron"]
    assert table.hand(0) == ["countess"] and not table.state.out[0]
    # keeping the Princess and targeting yourself knocks you out
    table = Table.rigged(2, ["king", "princess", "guard", "prince"], NO_REMOVAL)
    table.play(0, "prince", 0)
    assert table.state.out[0] and table.state.tokens == (0, 1)


def test_ec_05_prince_with_empty_pile_gives_the_set_aside_card() -> None:
    table = Table.build(2, [["prince", "guard"], ["baron"]], pile=[], set_aside="king", options=NO_REMOVAL)
    aside = table.state.set_aside
    table.play(0, "prince", 1, resolve=False)
    table.step()  # the Prince is revealed
    table.step()  # the Baron is discarded
    assert table.game.pending(table.state) == Deal(((aside, 1),))
    table.step()
    assert table.state.set_aside is None and table.state.hands[1] == (aside,)
    assert table.dealer.known_to(1)[aside] == "king"
    assert isinstance(table.game.pending(table.state), Reveal)  # the showdown follows


def test_ec_06_prince_on_princess_knocks_out_without_a_draw() -> None:
    table = Table.rigged(3, ["baron", "guard", "princess", "priest", "prince"])
    pile = len(table.state.pile)
    table.play(0, "prince", 1)
    assert table.state.out[1] and table.state.hands[1] == ()
    assert len(table.state.pile) == pile - 1  # only seat 2's draw came off the pile
    assert table.game.pending(table.state) == Decide(2, "play")


@pytest.mark.parametrize("victim", ["guard", "baron", "king"])
def test_ec_07_prince_forced_discard_has_no_effect(victim: str) -> None:
    table = Table.rigged(3, ["countess", "guard", victim, "priest", "prince"])
    start = len(table.history)
    table.play(0, "prince", 1)
    # reveal Prince, reveal the victim, deal a new card, seat 1's draw: no answer, show or swap
    assert kinds(table, start) == [MOVE, REVEALED, REVEALED, DEALT, DEALT]
    assert table.game.pending(table.state) == Decide(1, "play")
    assert table.hand(0) == ["guard"] and not any(table.state.out)


@pytest.mark.parametrize("forcer", ["king", "prince"])
def test_ec_08_countess_with_king_or_prince_must_be_played(forcer: str) -> None:
    table = Table.rigged(4, ["baron", "countess", "guard", "guard", "priest", forcer])
    assert {m["face"] for m in table.legal()} == {"countess"}
    # public information cannot tell, so apply accepts the play; check reports it
    index = len(table.history)
    table.play(0, forcer, 1)
    violations = table.check()
    assert len(violations) == 1
    assert (violations[0].index, violations[0].seat) == (index, 0)
    assert "Countess" in violations[0].reason


@pytest.mark.parametrize("other", ["princess", "guard", "handmaid"])
def test_ec_09_countess_with_other_cards_is_free(other: str) -> None:
    table = Table.rigged(4, ["baron", "countess", "guard", "guard", "priest", other])
    assert {m["face"] for m in table.legal()} == {"countess", other}


def test_ec_10_baron_tie_does_nothing() -> None:
    table = Table.rigged(3, ["countess", "guard", "guard", "priest", "baron"])
    table.play(0, "baron", 1)
    assert table.game.pending(table.state) == Decide(0, "baron_result")
    assert table.legal() == [{"loser": None}]
    start = len(table.history)
    table.honest()
    assert kinds(table, start) == [MOVE, DEALT]  # no Reveal: the others learn nothing
    assert not any(table.state.out)
    assert table.check() == []


def test_ec_11_king_cannot_target_a_player_out_of_the_round() -> None:
    table = Table.rigged(3, ["baron", "guard", "priest", "handmaid", "guard", "king"])
    table.play(0, "guard", 1, "priest")
    table.honest()
    assert table.state.out[1]
    assert_rejected(table, table.move_for(2, "king", 1), "out of the round")
    assert [m["target"] for m in table.legal() if m["face"] == "king"] == [0]


def test_ec_12_handmaid_protects_until_the_start_of_your_next_turn() -> None:
    order = ["princess", "handmaid", "guard", "priest", "baron", "guard", "prince", "guard"]
    table = Table.rigged(3, order)
    table.play(0, "handmaid")
    assert table.state.protected == (True, False, False)
    assert_rejected(table, table.move_for(1, "guard", 0, "baron"), "protected")
    assert {m["target"] for m in table.legal() if m["face"] == "guard"} == {2}
    table.play(1, "guard", 2, "king")
    table.honest()  # miss
    assert_rejected(table, table.move_for(2, "prince", 0), "protected")
    table.play(2, "prince", 1, resolve=False)
    while not (table.state.phase == "draw" and table.state.turn == 0):
        assert table.state.protected[0]  # still protected during seat 2's whole turn
        table.step()
    assert table.state.protected == (False, False, False)  # seat 0's turn has begun


def test_ec_13_only_a_protected_opponent_left_means_prince_on_yourself() -> None:
    table = Table.build(3, [["prince", "guard"], ["baron"], []], pile=["priest", "king"],
                        discards=[[], ["handmaid"], ["princess"]], out=[2], protected=[1])
    assert [m["target"] for m in table.legal() if m["face"] == "prince"] == [0]
    assert_rejected(table, table.move_for(0, "prince", 1), "protected")
    assert_rejected(table, table.move_for(0, "prince", 2), "out of the round")


def test_ec_14_playing_the_princess_is_legal_and_knocks_you_out() -> None:
    table = Table.rigged(3, ["baron", "princess", "priest", "handmaid", "guard"])
    assert any(m["face"] == "princess" for m in table.legal())
    table.play(0, "princess")
    assert table.state.out[0]
    assert [table.state.faces[r] for r in table.state.discards[0]] == ["princess", "guard"]
    assert table.game.pending(table.state) == Decide(1, "play")


def test_ec_15_round_ends_as_soon_as_one_player_is_left() -> None:
    table = Table.rigged(2, ["baron", "guard", "priest", "guard"], NO_REMOVAL)
    table.play(0, "guard", 1, "priest")
    table.honest()
    assert table.state.tokens == (1, 0) and table.state.last_winners == (0,)
    assert len(table.state.pile) > 0  # cards were left: the round still ended
    request = table.game.pending(table.state)
    assert isinstance(request, Disclose) and table.state.set_aside in request.refs


def test_ec_16_prince_drawing_the_last_card_ends_the_round_after_the_turn() -> None:
    table = Table.build(2, [["guard"], ["baron"]], pile=["prince", "handmaid"], set_aside="king",
                        options=NO_REMOVAL)
    assert table.game.pending(table.state) == Decide(0, "play")
    last = table.state.pile[0]
    table.play(0, "prince", 1, resolve=False)
    table.step()
    table.step()
    assert table.game.pending(table.state) == Deal(((last, 1),))  # the pile's card, not the set-aside one
    table.step()
    assert table.state.pile == () and table.state.set_aside is not None
    assert table.game.pending(table.state) == Reveal(table.state.hands[0] + table.state.hands[1])
    table.step()
    assert table.state.tokens == (0, 1)  # Handmaid (4) beats Guard (1)


def test_ec_17_discard_total_breaks_ties_and_counts_prince_discards() -> None:
    table = Table.build(2, [["baron"], ["king"]], pile=["prince", "baron"], set_aside="princess",
                        discards=[["guard", "guard"], ["guard", "guard"]], options=NO_REMOVAL)
    table.play(0, "prince", 1)  # seat 1 discards the King (6) and draws the last Baron
    # Barons tie; totals: seat 0 = 1+1+5 = 7, seat 1 = 1+1+6 = 8 thanks to the forced King
    assert table.state.tokens == (0, 1)
    assert table.state.last_top == (1,)


@pytest.mark.parametrize(("policy", "tokens"), [("none", (0, 0, 0)), ("all_tied_win", (1, 0, 1))])
def test_ec_18_complete_tie(policy: str, tokens: tuple[int, ...]) -> None:
    table = Table.build(3, [["baron"], ["guard", "handmaid"], ["baron"]], pile=[], turn=1, starter=1,
                        discards=[["guard", "priest"], [], ["guard", "priest"]],
                        options={"final_tie_policy": policy})
    table.play(1, "handmaid")
    assert table.state.tokens == tokens
    assert table.state.last_top == (0, 2)
    # OQ-3: the first co-winner clockwise from the previous starter (seat 1) starts the next round
    assert table.state.starter == 2
    table.step()  # disclosure
    table.step()  # shuffle
    request = table.game.pending(table.state)
    assert isinstance(request, Deal) and request.deals[0][1] == 2


def test_ec_19_knocked_out_hand_is_revealed_without_effect() -> None:
    table = Table.rigged(3, ["countess", "baron", "priest", "guard", "prince"])
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": 1}]
    table.honest()
    loser_card = table.state.discards[1][-1]
    assert table.state.faces[loser_card] == "priest" and table.state.out[1]
    assert table.state.hands[0][0] not in table.state.faces  # the winner's Prince stays secret
    assert table.game.pending(table.state) == Decide(2, "play")  # the Priest had no effect


def test_ec_20_a_protected_player_knocked_out_is_simply_out() -> None:
    order = ["princess", "guard", "guard", "king", "priest", "handmaid", "countess", "priest", "baron"]
    table = Table.rigged(3, order)
    table.play(0, "guard", 2, "prince")
    table.honest()
    table.play(1, "handmaid")
    table.play(2, "countess")
    table.play(0, "priest", 2)
    assert not table.state.protected[1]  # seat 1's turn began: protection over
    table.play(1, "baron", 2)
    table.honest()  # Guard loses to the King
    assert table.state.out[1] and not table.state.protected[1]
    assert 1 not in table.game.targets(table.state, 0)
    assert table.game.pending(table.state) == Decide(2, "play")
    assert table.check() == []


def test_ec_21_two_player_faceup_cards_never_enter_play() -> None:
    table = Table.rigged(2, ["baron", "princess", "countess", "handmaid", "guard", "priest", "guard"])
    faceup = table.state.faceup
    assert [table.state.faces[r] for r in faceup] == ["princess", "countess", "handmaid"]
    assert not set(faceup) & {r for h in table.state.hands for r in h}
    rest = ["guard", "guard", "priest", "baron", "handmaid", "guard", "guard", "priest", "prince"]
    table = Table.build(2, [["prince", "guard"], ["baron"]], pile=[], set_aside="king",
                        faceup=["princess", "countess", "handmaid"], discards=[rest[:5], rest[5:]])
    faceup = table.state.faceup
    table.play(0, "prince", 1)
    assert table.hand(1) == ["king"]  # the set-aside card, not a face-up one
    assert table.state.faceup == faceup


def test_ec_22_guard_may_name_a_card_already_fully_discarded() -> None:
    table = Table.build(3, [["guard", "priest"], ["baron"], ["handmaid"]], pile=["guard", "prince"],
                        discards=[[], [], ["king"]])
    move = {"card": table.ref(0, "guard"), "face": "guard", "target": 1, "guess": "king"}
    assert move in table.legal()
    table.play(0, "guard", 1, "king")
    assert table.legal() == [{"hit": False}]
    table.honest()
    assert not any(table.state.out)


# ---------------------------------------------------------------------------------------------
# Illegal events
# ---------------------------------------------------------------------------------------------


def _opening() -> Table:
    # seat 0: guard + king; seat 1: priest; seat 2: handmaid; seat 3: prince
    return Table.rigged(4, ["baron", "guard", "priest", "handmaid", "prince", "king"])


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"face": "guard", "target": 1, "guess": "priest"}, "card reference"),
        ({"card": "x", "face": "guard", "target": 1, "guess": "priest"}, "card reference"),
        ({"card": True, "face": "guard", "target": 1, "guess": "priest"}, "card reference"),
        ({"card": 999, "face": "guard", "target": 1, "guess": "priest"}, "does not hold"),
        ({"card": "GUARD", "face": "dragon", "target": 1, "guess": "priest"}, "must be a card"),
        ({"card": "GUARD", "face": "spy"}, "must be a card of the classic deck"),
        ({"card": "GUARD", "face": "guard", "target": 0, "guess": "priest"}, "another player"),
        ({"card": "GUARD", "face": "guard", "target": 9, "guess": "priest"}, "no seat 9"),
        ({"card": "GUARD", "face": "guard", "target": "1", "guess": "priest"}, "no seat"),
        ({"card": "GUARD", "face": "guard", "target": 1, "guess": "guard"}, "cannot name the Guard"),
        ({"card": "GUARD", "face": "guard", "target": 1}, "must name a card"),
        ({"card": "GUARD", "face": "guard", "target": 1, "guess": "spy"}, "must name a card"),
        ({"card": "GUARD", "face": "guard", "target": None, "guess": None}, "needs a target"),
        ({"card": "GUARD", "face": "guard", "target": 1, "guess": "priest", "x": 1}, "unexpected keys"),
        ({"card": "KING", "face": "king", "target": 1, "guess": "priest"}, "only a Guard"),
        ({"card": "KING", "face": "handmaid", "target": 1}, "takes no target"),
    ],
)
def test_malformed_play_moves_are_rejected(data: dict[str, Any], match: str) -> None:
    table = _opening()
    refs = {"GUARD": table.ref(0, "guard"), "KING": table.ref(0, "king")}
    if data.get("card") in refs:
        data = {**data, "card": refs[data["card"]]}
    if data.get("card") == 999:
        data = {**data, "card": table.state.hands[1][0]}  # another seat's card
    assert_rejected(table, Event.move(0, data), match)


def test_wrong_turn_wrong_kind_and_bad_table_events_are_rejected() -> None:
    table = _opening()
    move = table.move_for(0, "guard", 1, "priest")
    assert_rejected(table, Event.move(1, dict(move.data)), "seat 0's turn")
    assert_rejected(table, Event(DEALT), "expected a 'move' event")
    assert_rejected(table, Event(MOVE, 0, ["not", "a", "map"]), "data must be a map")  # type: ignore[arg-type]
    assert_rejected(table, {"kind": "move"}, "not an event")
    table.apply(move)
    card = move.data["card"]
    # a move while a table operation is pending
    assert_rejected(table, Event.move(0, {"hit": True}), "expected a 'revealed' event")
    assert_rejected(table, Event(REVEALED, None, {"faces": {card + 1: "guard"}}), "exactly the requested")
    assert_rejected(table, Event(REVEALED, None, {"faces": {card: "dragon"}}), "no such card")
    assert_rejected(table, Event(REVEALED, None, {}), "exactly the requested")


def test_claiming_a_face_whose_copies_are_all_public_is_rejected() -> None:
    table = Table.build(3, [["guard", "priest"], ["baron"], ["handmaid"]], pile=["guard"],
                        discards=[[], [], ["king"]])
    event = Event.move(0, {"card": table.ref(0, "priest"), "face": "king", "target": 1})
    assert_rejected(table, event, "every copy is already face up")


def test_protected_and_out_targets_are_rejected() -> None:
    table = Table.build(4, [["guard", "priest"], ["baron"], ["handmaid"], []], pile=["guard"],
                        discards=[[], ["handmaid"], [], ["princess"]], protected=[1], out=[3])
    assert_rejected(table, table.move_for(0, "priest", 1), "protected by the Handmaid")
    assert_rejected(table, table.move_for(0, "priest", 3), "out of the round")
    assert_rejected(table, table.move_for(0, "priest", 0), "another player")


def test_malformed_answers_are_rejected() -> None:
    table = _opening()
    table.play(0, "guard", 1, "priest")
    for data, match in [({"hit": "yes"}, "Guard answer"), ({"hit": 1}, "Guard answer"), ({}, "Guard answer"),
                        ({"hit": True, "also": 1}, "unexpected keys")]:
        assert_rejected(table, Event.move(1, data), match)
    assert_rejected(table, Event.move(0, {"hit": False}), "seat 1's turn")
    table = Table.rigged(3, ["countess", "guard", "guard", "priest", "baron"])
    table.play(0, "baron", 1)
    for data, match in [({"loser": 2}, "loser must be"), ({}, "Baron result"),
                        ({"loser": "1"}, "loser must be"), ({"loser": True}, "loser must be")]:
        assert_rejected(table, Event.move(0, data), match)


def test_nothing_is_accepted_after_the_game_is_over() -> None:
    table = Table.build(2, [["guard", "priest"], ["baron"]], pile=["handmaid"], tokens=(6, 0),
                        options=NO_REMOVAL)
    table.play(0, "guard", 1, "baron")
    table.honest()
    assert not table.game.is_over(table.state)  # the round's cards are disclosed first
    table.step()
    assert table.game.is_over(table.state)
    assert table.game.result(table.state) == {"winners": [0], "tokens": [7, 0], "rounds": 1, "fault": None}
    assert_rejected(table, Event(SHUFFLED), "game is over")
    assert table.game.legal_moves(table.state, 0, table.dealer.known_to(0)) == []


# ---------------------------------------------------------------------------------------------
# Claims: faults proven at once, and check()
# ---------------------------------------------------------------------------------------------


def test_false_face_claim_is_a_fault_that_ends_the_game() -> None:
    table = _opening()
    index = len(table.history)
    table.apply(Event.move(0, {"card": table.ref(0, "guard"), "face": "handmaid"}))  # a lie
    table.step()
    fault = table.state.fault
    assert fault is not None and (fault.index, fault.seat) == (index, 0)
    assert isinstance(table.game.pending(table.state), GameOver)
    assert table.game.result(table.state)["fault"] == fault.to_dict()
    assert table.game.result(table.state)["winners"] == []
    assert table.check() == [fault]


def test_false_guard_hit_is_disproved_by_the_reveal() -> None:
    table = _opening()
    table.play(0, "guard", 1, "baron")
    index = len(table.history)
    table.decide({"hit": True})  # seat 1 holds the Priest
    fault = table.state.fault
    assert fault is not None and (fault.index, fault.seat) == (index, 1)
    assert [(v.index, v.seat) for v in table.check()] == [(index, 1)]


def test_false_guard_miss_is_reported_by_check() -> None:
    table = _opening()
    table.play(0, "guard", 1, "priest")
    index = len(table.history)
    table.decide({"hit": False})
    assert table.state.fault is None and not table.state.out[1]
    assert [(v.index, v.seat) for v in table.check()] == [(index, 1)]


@pytest.mark.parametrize("lie", [None, 0])
def test_false_baron_result_is_reported_by_check(lie: int | None) -> None:
    table = Table.rigged(3, ["countess", "prince", "priest", "guard", "baron"])
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": 1}]
    index = len(table.history)
    table.decide({"loser": lie})
    violations = table.check()
    assert [(v.index, v.seat) for v in violations] == [(index, 0)]
    assert "Baron" in violations[0].reason


def test_impossible_baron_result_is_disproved_at_once() -> None:
    table = Table.rigged(3, ["countess", "guard", "princess", "priest", "baron"])
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": 0}]
    index = len(table.history)
    table.decide({"loser": 1})  # the Princess cannot lose
    fault = table.state.fault
    assert fault is not None and (fault.index, fault.seat) == (index, 0)
    assert "no hidden card beats" in fault.reason
    assert [(v.index, v.seat) for v in table.check()] == [(index, 0)]


def test_check_refuses_faces_that_contradict_the_history() -> None:
    table = _opening()
    table.play(0, "guard", 1, "priest")
    card = table.history[-1].data["faces"]
    ref = next(iter(card))
    with pytest.raises(ValueError, match="disagree"):
        table.game.check(table.history, {**table.all_faces(), ref: "princess"})


def test_check_reports_an_illegal_history_and_skips_unknown_faces() -> None:
    table = _opening()
    table.play(0, "guard", 1, "priest")
    table.decide({"hit": False})  # a lie, but without faces check cannot tell
    assert table.game.check(table.history, {}) == []
    broken = [*table.history[:5], Event(DISCLOSED, None, {"faces": {}})]
    violations = table.game.check(broken, table.all_faces())
    assert [(v.index, v.seat) for v in violations] == [(5, -1)]
    assert "illegal event" in violations[0].reason


# ---------------------------------------------------------------------------------------------
# 2019 edition: Spy, Chancellor, ties, several winners
# ---------------------------------------------------------------------------------------------

MODERN = {"edition": "2019"}


def test_chancellor_draws_two_and_puts_them_under_the_pile() -> None:
    table = Table.build(3, [["chancellor", "guard"], ["baron"], ["priest"]], pile=["king", "spy", "prince"],
                        options=MODERN)
    below = table.state.pile[2]
    table.play(0, "chancellor")
    assert table.game.pending(table.state) == Decide(0, "chancellor")
    moves = table.legal()
    assert len(moves) == 6
    keep, bottom = table.ref(0, "king"), [table.ref(0, "guard"), table.ref(0, "spy")]
    assert_rejected(table, Event.move(0, {"keep": keep, "bottom": bottom[:1]}), "keep one card")
    assert_rejected(table, Event.move(0, {"keep": keep, "bottom": [bottom[0], bottom[0]]}), "keep one card")
    assert_rejected(table, Event.move(0, {"keep": 999, "bottom": bottom}), "'keep' must be")
    assert_rejected(table, Event.move(0, {"keep": keep, "bottom": "no"}), "'bottom' must be")
    table.decide({"keep": keep, "bottom": bottom})
    assert table.hand(0) == ["king"]
    assert table.state.pile[-2:] == tuple(bottom)
    assert table.state.hands[1][-1] == below  # seat 1 then drew the card that was under them


def test_chancellor_with_one_card_or_none_left() -> None:
    options = {**MODERN, **NO_REMOVAL}
    table = Table.build(2, [["chancellor", "guard"], ["baron"]], pile=["king"], options=options)
    table.play(0, "chancellor")
    assert len(table.legal()) == 2 and all(len(m["bottom"]) == 1 for m in table.legal())
    table = Table.build(2, [["chancellor", "guard"], ["baron"]], pile=[], options=options)
    table.play(0, "chancellor")  # nothing to draw: no effect, and the round ends
    assert table.state.round == 1 and table.state.tokens == (0, 1)


def test_spy_bonus_counts_only_players_still_in_the_round() -> None:
    # seat 1 played a Spy but is out (OQ-7): seat 0 is the only survivor with a Spy
    table = Table.build(3, [["guard", "handmaid"], [], ["king"]], pile=[], options=MODERN,
                        discards=[["spy"], ["spy", "priest"], []], out=[1])
    table.play(0, "handmaid")
    assert table.state.tokens == (1, 0, 1)  # seat 2 wins the showdown, seat 0 the Spy bonus
    assert table.state.last_spy == 0
    # two survivors with a Spy: no bonus
    table = Table.build(3, [["guard", "handmaid"], ["priest"], ["king"]], pile=[], options=MODERN,
                        discards=[["spy"], ["spy"], []])
    table.play(0, "handmaid")
    assert table.state.tokens == (0, 0, 1) and table.state.last_spy is None


def test_2019_showdown_ties_all_win_and_game_winners_are_the_most_tokens() -> None:
    table = Table.build(3, [["guard", "handmaid"], ["baron"], ["baron"]], pile=[], tokens=(0, 4, 3),
                        discards=[["spy"], ["guard"], ["priest", "prince"]], options=MODERN)
    table.play(0, "handmaid")
    # both Barons win (no discard tie-break), seat 0 gets the Spy bonus; 5 > 4 for the goal of 5
    assert table.state.tokens == (1, 5, 4)
    table.step()  # the disclosure comes before the end
    assert table.game.is_over(table.state) and table.game.result(table.state)["winners"] == [1]


# ---------------------------------------------------------------------------------------------
# Words and serialisation
# ---------------------------------------------------------------------------------------------


def test_card_text_describe_and_render() -> None:
    game = LoveLetter(4)
    assert game.card_text("guard").startswith("Guard (1, x5): ")
    assert LoveLetter(4, MODERN).card_text("king").startswith("King (7, x1)")
    with pytest.raises(ValueError, match="no card"):
        game.card_text("spy")
    table = _opening()
    move = table.move_for(0, "guard", 1, "priest")
    assert game.describe(table.state, move) == "seat 0 plays the Guard on seat 1, guessing the Priest"
    table.play(0, "guard", 1, "priest")
    assert game.describe(table.state, Event.move(1, {"hit": True})) == "seat 1: hit — holds the Priest"
    assert "rejected move" in game.describe(table.state, Event.move(2, {"hit": True}))
    text = table.game.render(table.state, 1, table.dealer.known_to(1))
    assert "your hand: Priest(2)" in text and "seat 1 to answer the Guard" in text
    assert "Guard(1)" in text and "4 tokens to win" in text
    public = table.game.render(table.state, None, {})
    assert "your hand" not in public and "Priest(2)" not in public


def test_priest_description_reveals_nothing() -> None:
    table = Table.rigged(3, ["countess", "king", "baron", "guard", "priest"])
    table.play(0, "priest", 1, resolve=False)
    table.step()
    line = table.game.describe(table.state, table.dealer.resolve(table.game.pending(table.state), None))
    assert line == "seat 0 looks at seat 1's hand in private"


def test_a_played_card_is_named_once_and_a_false_claim_is_spelt_out() -> None:
    table = Table.rigged(3, ["countess", "king", "baron", "guard", "handmaid"])
    game = table.game
    table.play(0, "handmaid", resolve=False)
    reveal = table.dealer.resolve(game.pending(table.state), None)
    # the play's own line named the Handmaid; its reveal says only what it does
    assert game.describe(table.state, reveal) == "seat 0 is protected until their next turn"
    ref = next(iter(reveal.data["faces"]))
    forged = Event(reveal.kind, reveal.seat, {**reveal.data, "faces": {ref: "guard"}})
    line = game.describe(table.state, forged)
    assert line.startswith("seat 0's card is revealed: the Guard, not the Handmaid")
    assert "seat 0 cheated" in line


def test_states_round_trip_through_msgpack() -> None:
    table = Table.build(3, [["chancellor", "guard"], ["baron"], ["priest"]], pile=["king", "spy"],
                        options=MODERN, protected=[2])
    table.play(0, "chancellor")
    state = table.state
    data = msgpack.unpackb(msgpack.packb(state.to_dict()), strict_map_key=False)
    assert table.game.state_from_dict(data) == state
    with pytest.raises(ValueError, match="seats"):
        LoveLetter(4, MODERN).state_from_dict(data)


def test_show_requests_name_the_right_cards() -> None:
    table = Table.rigged(3, ["countess", "baron", "priest", "guard", "king"])
    table.play(0, "king", 1, resolve=False)
    table.step()
    mine, theirs = table.state.hands[0][0], table.state.hands[1][0]
    assert table.game.pending(table.state) == Show(((theirs, 1), (mine, 0)))
    table.step()
    assert table.hand(0) == ["priest"] and table.hand(1) == ["baron"]
    assert table.dealer.known_to(0)[mine] == "priest" and table.dealer.known_to(1)[theirs] == "baron"


@pytest.mark.parametrize(("hands", "loser", "words"), [
    (["countess", "baron", "king", "guard", "priest"], 0, "seat 0 reports having the lower card"),
    (["countess", "baron", "priest", "guard", "prince"], 1, "seat 0 reports that seat 1 has the lower card"),
])  # fmt: skip
def test_the_baron_result_is_worded_from_the_reporter(hands: list[str], loser: int, words: str) -> None:
    table = Table.rigged(3, hands)
    table.play(0, "baron", 1)
    assert table.legal() == [{"loser": loser}]
    assert table.game.describe(table.state, Event.move(0, {"loser": loser})) == words
