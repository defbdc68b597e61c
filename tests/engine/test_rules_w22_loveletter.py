"""Independent rules scenarios for Love Letter (w22): ``shared/rules/love-letter.md``.

Focus: the information model of §8 (who may see which card after a Priest, a Baron, a King, a
Prince, a knockout; the set-aside card; the console's per-seat picture), illegal moves refused with
a message and no change of state, the token goal per player count reached in unusual ways, and
property tests over random whole games (offered moves equal an independent reading of §4/§5, cards
are conserved, hidden cards never become public before the rules make them so).

Each test names the rule it pins. Positions come from ``tests.engine.loveletter_support``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Decide, Disclose, Event, GameOver, IllegalMove
from engine.dealer import TrustedDealer, play_trusted
from engine.loveletter import DRAW, PLAY, LoveLetter, State
from engine.loveletter.bots import make_bot
from tests.engine.loveletter_support import Table


def finish(table: Table) -> None:
    """Answer the end-of-round Disclose (if any), stopping before the next round's shuffle."""
    while isinstance(table.game.pending(table.state), Disclose):
        table.step()


def refused(table: Table, seat: int, move: dict[str, Any], match: str) -> None:
    """``move`` by ``seat`` raises ``IllegalMove`` matching ``match`` and leaves the state as it was."""
    before = table.state.to_dict()
    with pytest.raises(IllegalMove, match=match):
        table.game.apply(table.state, Event.move(seat, move))
    assert table.state.to_dict() == before


def knows(table: Table, seat: int, ref: int) -> bool:
    """Whether the dealing layer told ``seat`` the face of ``ref`` (dealt, shown or public)."""
    return ref in table.dealer.known_to(seat) and ref >= len(table.game.deck())


# -- §8 information model -------------------------------------------------------------------------


def test_s8_priest_look_is_private_to_the_priest_player() -> None:
    """§5 Priest / §8: only the Priest's player sees the target's card; it is not made public."""
    t = Table.build(3, hands=[["priest", "guard"], ["princess"], ["baron"]], pile=["guard", "guard", "guard"])
    target_card = t.state.hands[1][0]
    assert not knows(t, 0, target_card)
    t.play(0, "priest", target=1)
    assert knows(t, 0, target_card)
    assert not knows(t, 2, target_card)
    assert target_card not in t.state.faces
    assert t.state.knowledge.knows(0, target_card) and not t.state.knowledge.knows(2, target_card)
    assert target_card in t.state.hands[1] and not t.state.out[1]


def test_s8_baron_loss_makes_only_the_losers_card_public() -> None:
    """§5 Baron / §6 / §8: the loser's card goes face up; the winner's stays secret except from the
    loser, who saw it in the comparison; a third player learns nothing more."""
    t = Table.build(3, hands=[["baron", "king"], ["guard"], ["priest"]], pile=["guard", "guard", "guard"])
    king = t.ref(0, "king")
    guard = t.state.hands[1][0]
    t.play(0, "baron", target=1)
    t.honest()
    assert t.state.out == (False, True, False)
    assert t.state.faces[guard] == "guard" and guard in t.state.discards[1]
    assert king not in t.state.faces
    assert knows(t, 1, king) and not knows(t, 2, king)
    assert t.state.hands[0] == (king,)


def test_s8_baron_tie_shows_each_card_only_to_the_other_player_of_the_comparison() -> None:
    """EC-10 / §8: on a tie nothing happens and the other players learn nothing more."""
    t = Table.build(3, hands=[["baron", "priest"], ["priest"], ["guard"]], pile=["guard", "guard", "guard"])
    mine, theirs = t.ref(0, "priest"), t.state.hands[1][0]
    t.play(0, "baron", target=1)
    t.honest()
    assert t.state.out == (False, False, False)
    assert knows(t, 0, theirs) and knows(t, 1, mine)
    assert not knows(t, 2, mine) and not knows(t, 2, theirs)
    assert mine not in t.state.faces and theirs not in t.state.faces


def test_s8_king_swap_both_players_know_both_cards_a_third_player_neither() -> None:
    """§5 King / §8: the two players involved know the two cards that changed hands."""
    t = Table.build(3, hands=[["king", "handmaid"], ["countess"], ["guard"]],
                    pile=["guard", "guard", "guard"])
    handmaid, countess = t.ref(0, "handmaid"), t.state.hands[1][0]
    t.play(0, "king", target=1)
    assert t.state.hands[0] == (countess,) and handmaid in t.state.hands[1]
    assert knows(t, 0, countess) and knows(t, 0, handmaid)
    assert knows(t, 1, countess) and knows(t, 1, handmaid)
    assert not knows(t, 2, countess) and not knows(t, 2, handmaid)
    assert handmaid not in t.state.faces and countess not in t.state.faces


def test_s8_prince_discard_is_public_but_the_replacement_card_is_seen_by_its_drawer_only() -> None:
    """§5 Prince / §8: the discarded card is face up; the new card is drawn from the top of the pile
    (never the set-aside card while the pile has cards) and only its drawer sees it."""
    t = Table.build(3, hands=[["prince", "guard"], ["baron"], ["priest"]],
                    pile=["handmaid", "guard", "guard"],
                    set_aside="princess")
    aside = t.state.set_aside
    top = t.state.pile[0]
    t.play(0, "prince", target=1)
    assert t.face(t.state.discards[1][0]) == "baron" and t.state.discards[1][0] in t.state.faces
    assert top in t.state.hands[1] and t.face(top) == "handmaid"
    assert t.state.set_aside == aside
    assert knows(t, 1, top) and not knows(t, 0, top) and not knows(t, 2, top)
    assert not any(knows(t, s, aside) for s in range(3)) and aside not in t.state.faces


def test_s8_guard_miss_reveals_nothing_a_hit_reveals_the_named_card() -> None:
    """§5 Guard / §6 / §8: a miss leaves the target's card hidden; a hit puts it face up."""
    t = Table.build(3, hands=[["guard", "priest"], ["countess"], ["baron"]], pile=["guard", "guard", "guard"])
    countess = t.state.hands[1][0]
    t.play(0, "guard", target=1, guess="princess")
    t.honest()
    assert countess not in t.state.faces and not t.state.out[1]
    assert not knows(t, 0, countess) and not knows(t, 2, countess)
    # seat 1's turn: it draws, then seat 2 guesses right
    t.play(1, "guard", target=2, guess="baron")
    t.honest()
    baron = t.state.discards[2][-1]
    assert t.state.out[2] and t.state.faces[baron] == "baron"


def test_s8_render_shows_a_seat_its_own_hand_and_nothing_hidden_from_it() -> None:
    """§8: the per-seat picture names the seat's own card and no other hand, nor the set-aside card;
    the public picture names no hand at all."""
    t = Table.build(4, hands=[["king", "guard"], ["princess"], ["countess"], ["handmaid"]],
                    pile=["guard", "guard", "guard", "guard"], set_aside="baron",
                    discards=[[], [], [], []], faceup=["priest", "priest", "baron", "prince", "prince",
                                                       "handmaid"])
    for seat, own in ((1, "Princess"), (2, "Countess")):
        seen = t.game.render(t.state, seat, t.dealer.known_to(seat))
        assert own in seen
        for hidden in ("King", "Princess", "Countess"):
            if hidden != own:
                assert hidden not in seen, (seat, hidden, seen)
    public = t.game.render(t.state, None, {})
    for hidden in ("King", "Princess", "Countess"):
        assert hidden not in public


def test_s8_the_set_aside_card_stays_secret_until_the_round_is_scored() -> None:
    """§2 / §8 (and the recorded audit departure): the set-aside card is face down through the whole
    round, including the showdown; only the end-of-round Disclose names it."""
    t = Table.build(2, hands=[["priest", "guard"], ["baron"]], pile=["handmaid"], set_aside="princess")
    aside = t.state.set_aside
    t.play(0, "priest", target=1)
    t.play(1, "handmaid")
    assert t.game.pending(t.state) == Disclose(t.game._hidden(t.state))
    assert aside not in t.state.faces
    assert t.state.last_winners == (1,)  # baron 3 beats guard 1 at the showdown
    finish(t)
    assert t.state.faces[aside] == "princess"


# -- §4.1 / §5: illegal moves are refused with a message and change nothing ------------------------


def test_s4_1_guard_refuses_yourself_an_out_player_a_protected_player_and_a_guard_guess() -> None:
    """§4.1 targeting, EC-1, EC-11 style refusals for the Guard; the state never changes."""
    t = Table.build(4, hands=[["guard", "priest"], ["baron"], ["priest"], ["king"]],
                    pile=["guard", "guard", "guard"], out=[2], protected=[3],
                    discards=[[], [], ["handmaid"], ["handmaid"]])
    card = t.ref(0, "guard")
    refused(t, 0, {"card": card, "face": "guard", "target": 0, "guess": "baron"}, "another player")
    refused(t, 0, {"card": card, "face": "guard", "target": 2, "guess": "baron"}, "out of the round")
    refused(t, 0, {"card": card, "face": "guard", "target": 3, "guess": "baron"}, "protected")
    refused(t, 0, {"card": card, "face": "guard", "target": 1, "guess": "guard"}, "EC-1")
    refused(t, 0, {"card": card, "face": "guard", "target": 1, "guess": None}, "must name")
    refused(t, 0, {"card": card, "face": "guard", "target": None, "guess": None}, "needs a target")
    refused(t, 0, {"card": card, "face": "guard", "target": 7, "guess": "baron"}, "no seat")


def test_ec1_classic_guard_cannot_name_a_card_of_the_2019_deck() -> None:
    """§5 Guard: the name is a card of the deck in play (classic: values 2-8)."""
    t = Table.build(3, hands=[["guard", "priest"], ["baron"], ["priest"]], pile=["guard", "guard", "guard"])
    card = t.ref(0, "guard")
    for name in ("spy", "chancellor", "joker"):
        refused(t, 0, {"card": card, "face": "guard", "target": 1, "guess": name}, "must name a card")


def test_ec2_untargeted_guard_with_a_guess_is_refused_when_everyone_is_protected() -> None:
    """EC-2: with no valid target the Guard is played without a target and names nothing."""
    t = Table.build(3, hands=[["guard", "priest"], ["baron"], ["priest"]], pile=["guard", "guard", "guard"],
                    protected=[1, 2], discards=[[], ["handmaid"], ["handmaid"]])
    card = t.ref(0, "guard")
    refused(t, 0, {"card": card, "face": "guard", "target": None, "guess": "baron"}, "names a card")
    refused(t, 0, {"card": card, "face": "guard", "target": 1, "guess": "baron"}, "protected")
    t.play(0, "guard")
    assert t.state.out == (False, False, False)


def test_s4_playing_out_of_turn_a_card_not_held_or_a_second_move_is_refused() -> None:
    """§4: only the player on turn plays, one of their two cards, once."""
    t = Table.build(3, hands=[["handmaid", "priest"], ["baron"], ["priest"]],
                    pile=["guard", "guard", "guard"])
    own = t.ref(0, "handmaid")
    other = t.state.hands[1][0]
    refused(t, 1, {"card": other, "face": "baron", "target": 0, "guess": None}, "turn")
    refused(t, 0, {"card": other, "face": "baron", "target": 1, "guess": None}, "does not hold")
    refused(t, 0, {"card": own, "face": "handmaid", "target": 1, "guess": None}, "takes no target")
    refused(t, 0, {"card": own, "face": "handmaid", "target": None, "guess": None, "extra": 1}, "unexpected")
    t.play(0, "handmaid")
    assert t.state.turn == 1 and t.state.phase == PLAY
    refused(t, 0, {"card": t.ref(0, "priest"), "face": "priest", "target": 1, "guess": None}, "turn")


def test_ec11_king_and_baron_refuse_players_out_of_the_round_and_priest_refuses_yourself() -> None:
    """EC-11 and §4.1: knocked-out players cannot be targeted; Priest/Baron/King need another player."""
    t = Table.build(3, hands=[["king", "baron"], ["priest"], ["guard"]], pile=["guard", "guard"],
                    out=[1], discards=[[], ["handmaid"], []])
    refused(t, 0, {"card": t.ref(0, "king"), "face": "king", "target": 1, "guess": None}, "out of the round")
    refused(t, 0, {"card": t.ref(0, "baron"), "face": "baron", "target": 0, "guess": None}, "another player")
    t.play(0, "king", target=2)
    assert t.hand(0) == ["guard"] and "baron" in t.hand(2) and t.state.turn == 2


def test_ec3_ec13_prince_may_not_pick_a_protected_player_only_yourself() -> None:
    """EC-3 / EC-13: the only other player is protected, so the Prince must target yourself."""
    t = Table.build(2, hands=[["prince", "guard"], ["princess"]], pile=["priest", "baron"], protected=[1],
                    discards=[[], ["handmaid"]])
    card = t.ref(0, "prince")
    refused(t, 0, {"card": card, "face": "prince", "target": 1, "guess": None}, "protected")
    refused(t, 0, {"card": card, "face": "prince", "target": None, "guess": None}, "needs a target")
    moves = [m for m in t.legal() if m["face"] == "prince"]
    assert [m["target"] for m in moves] == [0]
    t.play(0, "prince", target=0)
    assert t.face(t.state.discards[0][-1]) == "guard" and t.hand(0) == ["priest"]


# -- §1 / §7.3: token goals reached in unusual ways -----------------------------------------------


@pytest.mark.parametrize(
    ("seats", "edition", "goal"),
    [(2, "classic", 7), (3, "classic", 5), (4, "classic", 4), (5, "2019", 3), (6, "2019", 3)],
)
def test_s7_3_a_knockout_that_gives_the_last_missing_token_ends_the_game(seats: int, edition: str,
                                                                         goal: int) -> None:
    """§1 table / §7.3: the winner of a round won by knockout reaches the goal and the game ends."""
    hands = [["guard", "handmaid"], ["priest"]] + [[] for _ in range(seats - 2)]
    out = list(range(2, seats))
    discards = [[], []] + [["guard"] for _ in range(seats - 2)]
    tokens = [goal - 1] * seats
    t = Table.build(seats, hands=hands, pile=["prince"], out=out, discards=discards, tokens=tokens,
                    options={"edition": edition})
    t.play(0, "guard", target=1, guess="priest")
    t.honest()
    finish(t)
    assert isinstance(t.game.pending(t.state), GameOver)
    assert t.state.tokens[0] == goal
    assert t.game.result(t.state)["winners"] == [0]


def test_s7_3_one_token_short_of_the_goal_starts_a_new_round_led_by_the_winner() -> None:
    """§7.3 / §3: below the goal a new round starts, and the round's winner starts it."""
    t = Table.build(3, hands=[["guard", "handmaid"], ["priest"], ["baron"]], pile=["guard"], out=[1],
                    discards=[[], ["guard"], []], tokens=[0, 0, 3])
    t.play(0, "guard", target=2, guess="baron")
    t.honest()
    finish(t)
    assert t.state.tokens == (1, 0, 3) and t.state.starter == 0
    assert not isinstance(t.game.pending(t.state), GameOver)


# -- §4 / §7.1: turns and round ends ----------------------------------------------------------------


def test_ec16_a_handmaid_drawn_as_the_last_card_still_leads_to_the_showdown() -> None:
    """§4 step 5 / §7.1: a turn that leaves the pile empty ends the round; the Handmaid's protection
    does not matter at a showdown (protection ends with the round)."""
    t = Table.build(3, hands=[["guard", "priest"], ["king"], ["countess"]], pile=["handmaid"], turn=2,
                    discards=[[], [], []])
    assert t.state.phase == DRAW or t.state.phase == PLAY
    t.play(2, "handmaid")
    assert t.state.last_top == (2,) and t.state.last_winners == (2,)
    assert t.state.protected == (False, False, False)


def test_s3_turn_order_skips_a_player_knocked_out_by_their_own_baron() -> None:
    """§3 / §6: a player who loses their own Baron is out; the next player still in takes the turn."""
    t = Table.build(4, hands=[["baron", "guard"], ["princess"], ["priest"], ["king"]],
                    pile=["guard", "guard", "guard", "guard"])
    t.play(0, "baron", target=1)
    t.honest()
    assert t.state.out == (True, False, False, False)
    assert t.state.turn == 1 and len(t.state.hands[1]) == 2


# -- property tests over whole random games -------------------------------------------------------


def independent_moves(game: LoveLetter, state: State, seat: int, faces: dict[int, str]) -> set[tuple]:
    """§4.1 / §5 read independently: every play the seat may make with its two known cards."""
    hand = state.hands[seat]
    targets = [s for s in range(game.seats) if s != seat and not state.out[s] and not state.protected[s]]
    out: set[tuple] = set()
    for ref in hand:
        face = faces[ref]
        other = [faces[r] for r in hand if r != ref]
        if face in ("king", "prince") and "countess" in other:
            continue  # EC-8
        if face == "guard":
            names = [f for f in game.faces_by_value if f != "guard"]  # EC-1
            guesses = {(ref, face, t, g) for t in targets for g in names}
            out |= guesses if targets else {(ref, face, None, None)}
        elif face in ("priest", "baron", "king"):
            out |= {(ref, face, t, None) for t in targets} if targets else {(ref, face, None, None)}  # EC-2
        elif face == "prince":
            out |= {(ref, face, t, None) for t in [seat, *targets]}  # EC-3 / EC-13
        else:
            out.add((ref, face, None, None))
    return out


@settings(max_examples=12, deadline=None)
@given(seats=st.integers(2, 4), edition=st.sampled_from(["classic", "2019"]), seed=st.integers(0, 100_000))
def test_property_offered_moves_hidden_cards_and_conservation(seats: int, edition: str, seed: int) -> None:
    """Over whole random games: the offered plays are exactly §4.1/§5's; every live card is in one
    place; before the end of a round no card in the hand of a player still in it is public, the
    set-aside card is known to nobody, and a seat is told only its own hand's faces (plus what a
    Priest, Baron or King showed it)."""
    game = LoveLetter(seats, {"edition": edition})
    bots = [make_bot("random", seed + s) for s in range(seats)]
    dealer = TrustedDealer(game, seed)
    state = game.initial_state()
    checked = 0
    for _ in range(20_000):
        request = game.pending(state)
        if isinstance(request, GameOver):
            break
        if state.phase in (PLAY, DRAW):
            live = game.live_refs(state)
            assert len(live) == len(set(live)) == len(game.deck())
            for seat in game.in_round(state):
                assert not any(ref in state.faces for ref in state.hands[seat])
            aside = state.set_aside
            assert aside is None or not any(aside in dealer.knowledge[s] for s in range(seats))
        if isinstance(request, Decide):
            seat = request.seat
            known = dealer.known_to(seat)
            if request.prompt == "play":
                faces = {r: dealer.slots[r] for r in state.hands[seat]}
                offered = {(m["card"], m["face"], m["target"], m["guess"])
                           for m in game.legal_moves(state, seat, known)}
                assert offered == independent_moves(game, state, seat, faces)
                checked += 1
            event = Event.move(seat, bots[seat].choose(game, state, seat, known, request.prompt))
        else:
            event = dealer.resolve(request, lambda s, p: {})
        state = game.apply(state, event)
    assert isinstance(game.pending(state), GameOver)
    assert max(state.tokens) >= game.threshold
    assert checked > 0


@settings(max_examples=10, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 100_000))
def test_property_replay_is_deterministic_and_tokens_per_round_are_at_most_the_tied_winners(
        seats: int, seed: int) -> None:
    """Replaying a history gives the same states (determinism); each classic round gives at most one
    token per co-winner and none on a complete BGA tie (§7.2)."""
    game = LoveLetter(seats)
    bots = [make_bot("random", seed + s) for s in range(seats)]
    run = play_trusted(game, bots, seed)
    state = game.initial_state()
    for event, expected in zip(run.history, run.states[1:], strict=True):
        state = game.apply(state, event)
        assert state == expected
    previous: tuple[int, ...] = (0,) * seats
    for s in run.states:
        pairs = enumerate(zip(s.tokens, previous, strict=True))
        gained = Counter({i: a - b for i, (a, b) in pairs if a != b})
        if gained:
            assert all(v == 1 for v in gained.values())
            assert set(gained) == set(s.last_winners)
            assert len(s.last_winners) == 1 or s.last_winners == ()
        previous = s.tokens


# -- the last card of the pile ---------------------------------------------------------------------


def test_s7_1_king_on_the_last_turn_the_swapped_cards_decide_the_showdown() -> None:
    """§5 King / §7.1: after a King swap on the turn that emptied the pile, the showdown compares
    the cards as swapped."""
    t = Table.build(3, hands=[["king", "guard"], ["princess"], ["priest"]], pile=[], turn=0)
    t.play(0, "king", target=1)
    assert t.state.last_top == t.state.last_winners == (0,)  # seat 0 now holds the Princess
    assert t.face(t.state.hands[0][0]) == "princess"


def test_s7_1_baron_knockout_on_the_last_turn_then_showdown_between_the_others() -> None:
    """§5 Baron / §7.1: the Baron knocks out the lower card; the pile is empty so the two players
    left compare cards."""
    t = Table.build(3, hands=[["baron", "countess"], ["guard"], ["prince"]], pile=[], turn=0)
    t.play(0, "baron", target=1)
    t.honest()
    assert t.state.out == (False, True, False)
    assert t.state.last_winners == (0,)  # countess 7 beats prince 5


def test_ec5_prince_on_an_opponent_on_the_last_turn_gives_the_set_aside_card_and_it_counts() -> None:
    """EC-5 / EC-16: the target takes the set-aside card and then the showdown uses it."""
    t = Table.build(3, hands=[["prince", "guard"], ["baron"], ["priest"]], pile=[], set_aside="princess",
                    turn=0)
    t.play(0, "prince", target=2)
    assert t.state.set_aside is None
    assert t.face(t.state.hands[2][0]) == "princess"
    assert t.state.last_winners == (2,)


def test_s9_chancellor_with_two_cards_left_returns_two_and_the_round_goes_on() -> None:
    """§9 Chancellor (2019): draw 2, keep 1 of 3, put 2 under the pile: the pile is not empty, so
    the next player takes a turn."""
    t = Table.build(3, hands=[["chancellor", "guard"], ["baron"], ["priest"]], pile=["spy", "king"],
                    turn=0, options={"edition": "2019"})
    t.play(0, "chancellor")
    assert len(t.state.hands[0]) == 3
    keep = t.ref(0, "king")
    rest = [r for r in t.state.hands[0] if r != keep]
    t.decide({"keep": keep, "bottom": rest})
    assert t.hand(0) == ["king"]
    assert t.state.phase == PLAY and t.state.turn == 1
    assert len(t.state.pile) == 1  # seat 1 drew one of the two returned cards
