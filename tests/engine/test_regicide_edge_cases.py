"""Regicide edge cases (rules ``shared/rules/regicide.md`` §12 EC-n, §13 OQ-n) that the rule and
scenario modules leave loose: each test sets up the exact situation with the real engine and pins
what the rules (or the OQ decision recorded in ``engine/regicide/game.py``) require.

Every EC-1..EC-32 and OQ-1..OQ-9 already has a test in ``test_regicide_rules.py`` or
``test_regicide_scenarios.py``; OQ-10 (no mulligan) had none.
"""

from __future__ import annotations

import pytest

from engine.core import DEALT, REVEALED, SHUFFLED, Deal, Decide, Event, IllegalMove, Reveal, Shuffle
from engine.regicide import Regicide
from tests.engine.test_regicide_rules import Table


def test_oq10_no_mulligan_the_first_player_plays_straight_after_the_deal() -> None:
    """OQ-10: no mulligan. The opening Deal is followed at once by the first player's Step 1; there
    is no mulligan request, and a mulligan move is refused."""
    game = Regicide(2, {"first_player": 1})
    state = game.initial_state()
    kinds = []
    while not isinstance(game.pending(state), Decide):
        request = game.pending(state)
        kinds.append(type(request).__name__)
        if isinstance(request, Reveal):
            event = Event(REVEALED, None, {"faces": {request.refs[0]: "JD"}})
        else:
            event = Event(SHUFFLED if isinstance(request, Shuffle) else DEALT)
        state = game.apply(state, event)
    assert kinds == ["Shuffle", "Shuffle", "Shuffle", "Reveal", "Shuffle", "Deal"]
    assert game.pending(state) == Decide(1, "play")
    assert [len(h) for h in state.hands] == [7, 7]
    with pytest.raises(IllegalMove):
        game.apply(state, Event.move(1, {"mulligan": True}))


def test_ec23_the_killers_new_turn_may_not_yield_when_the_partner_yielded() -> None:
    """EC-23 + §7: after a kill the same player takes a new turn, and "may yield if §7 allows": in a
    2-player game whose partner yielded on their last turn, that new turn may not yield."""
    t = Table(2, hands=[["10C", "2S", "3S"], ["4C"]], enemy="JH", last_yield=[False, True])
    t.play("10C")  # clubs double: 20 = exact kill
    assert t.state.defeated == 1 and t.pending == Decide(0, "play")
    assert {"yield": True} not in t.game.legal_moves(t.state, 0, t.own(0))
    t.illegal({"yield": True}, "every other player yielded")


def test_ec06_ace_and_same_suit_diamond_draws_x_once_not_twice() -> None:
    """EC-6: A♦ + 9♦ is X = 10 and the Diamond power fires once: 10 cards are drawn in total, round
    the table from the current player, although both hands could take 12."""
    tavern = [f"{r}S" for r in range(2, 11)] + ["2H", "3H", "4H", "5H"]
    t = Table(2, hands=[["AD", "9D", "2C"], ["3C"]], enemy="JC", tavern=tavern)
    t.play("AD", "9D")
    deal = next(r for r in t.requests if isinstance(r, Deal))
    assert len(deal.deals) == 10
    assert [seat for _, seat in deal.deals] == [0, 1] * 5
    assert [len(h) for h in t.state.hands] == [6, 6] and len(t.state.tavern) == 3
    assert t.state.damage == 10  # clubs are not in the play: no doubling


def test_s5_1_four_suit_combo_uses_the_total_x_and_only_the_enemy_suit_is_blocked() -> None:
    """§5.1 / EC-12: 2♥ 2♦ 2♣ 2♠ against a ♥ enemy: X = 8; Hearts blocked (nothing healed), draw up
    to 8 (solo: up to the hand limit), 16 damage, shield 8 (attack 10 - 8 = 2)."""
    tavern = [f"{r}S" for r in range(3, 11)] + ["3H", "4H"]
    t = Table(hands=[["2H", "2D", "2C", "2S", "9C"]], enemy="JH", tavern=tavern, discard=["5C", "6C"])
    t.play("2H", "2D", "2C", "2S")
    assert t.faces(t.state.discard) == ["5C", "6C"]  # not healed
    assert len(t.state.hands[0]) == 8  # 1 left + 7 drawn (hand limit 8)
    assert t.state.damage == 16
    assert t.game.shield(t.state) == 8 and t.game.attack_due(t.state) == 2


def test_s5_4_discarding_the_whole_hand_is_allowed_and_play_goes_on() -> None:
    """§5.4 step 4: ending Step 4 with an empty hand is allowed; the game goes on with the next
    player."""
    t = Table(2, hands=[["2C", "10S"], ["3C"]], enemy="JH")
    t.play("2C")  # 4 damage, attack 10
    assert t.game.attack_due(t.state) == 10
    t.pay("10S")
    assert t.state.hands[0] == () and t.state.outcome is None
    assert t.pending == Decide(1, "play")


def test_ec21_oq4_a_jester_may_join_a_discard_but_not_a_needless_card() -> None:
    """EC-21 / OQ-4 (strict): 0-value Jesters may always be added to a discard; a card that is not
    needed may not (sum(S) - max(S) < A)."""
    t = Table(3, hands=[["X1", "8H", "2C", "3D"], ["2D"], ["3S"]], enemy="JC")
    t.play("2C")  # attack 10
    sets = sorted(sorted(f for _, f in m["discard"]) for m in t.game.legal_moves(t.state, 0, t.own(0))
                  if "discard" in m)
    assert sets == [["3D", "8H"], ["3D", "8H", "X1"]]
    t.illegal({"discard": t.cards("8H")}, "less than the attack")
    t.pay("X1", "3D", "8H")
    assert t.state.hands[0] == ()


def test_oq3_a_jester_turn_is_not_a_yield_for_the_next_players_restriction() -> None:
    """§7 / OQ-3: a Jester play is not a yield. With 3 players, if seat 1 yielded and seat 2 then
    played the Jester and chose seat 0, seat 0 may yield (not every other player yielded)."""
    t = Table(3, hands=[["9C", "10C"], ["9S", "10S"], ["X1", "9H"]], enemy="JD", seat=2,
              last_yield=[False, True, True])
    t.play("X1")
    t.do({"next": 0})
    assert t.state.last_yield == (False, True, False)
    assert {"yield": True} in t.game.legal_moves(t.state, 0, t.own(0))
