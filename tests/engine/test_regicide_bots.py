"""Regicide bots: factory, no peeking at other hands, sensible choices, and heuristic >> random."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import games
from engine.core import Decide, RandomBot
from engine.dealer import play_trusted
from engine.regicide import Regicide
from engine.regicide.bots import DEFAULT_WEIGHTS, HeuristicBot, cheapest_discard, make_bot
from tests.engine.test_regicide_rules import Table


def test_make_bot_levels_and_registry() -> None:
    assert isinstance(make_bot("random", 1), RandomBot)
    assert isinstance(make_bot("heuristic", 1), HeuristicBot)
    assert isinstance(games.make_bot("regicide", "heuristic", 3), HeuristicBot)
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("genius", 1)
    with pytest.raises(ValueError, match="unknown weights"):
        HeuristicBot(0, {"courage": 1.0})
    assert set(DEFAULT_WEIGHTS) >= {"dmg", "kill", "exact", "jester_power"}


def test_cheapest_discard_follows_the_strict_rule() -> None:
    # values 5, 6, 10 against 5: {5,6} and {10,5} are over-discards; the cheapest single card wins
    assert cheapest_discard([5, 6, 10], [5.0, 6.0, 10.0], 5, overdiscard=False) == 5.0
    assert cheapest_discard([2, 2, 9], [3.0, 3.0, 20.0], 4, overdiscard=False) == 6.0
    assert cheapest_discard([2, 2], [1.0, 1.0], 5, overdiscard=False) is None
    assert cheapest_discard([1, 1], [1.0, 1.0], 0, overdiscard=False) == 0.0


def _choose(t: Table, seed: int = 0) -> dict[str, Any]:
    request = t.pending
    assert isinstance(request, Decide)
    return HeuristicBot(seed).choose(t.game, t.state, request.seat, t.own(request.seat), request.prompt)


def _faces(move: dict[str, Any], key: str = "play") -> list[str]:
    return sorted(f for _, f in move.get(key, []))


def test_heuristic_goes_for_the_exact_kill() -> None:
    t = Table(hands=[["10C", "5S", "9H", "3D", "7S"]], enemy="JH")
    assert _faces(_choose(t)) == ["10C"]  # 20 damage: the Jack goes on top of the Tavern


def test_heuristic_keeps_enough_to_survive() -> None:
    t = Table(2, hands=[["10C", "3S", "4H"], ["2D"]], enemy="QH")
    move = _choose(t)
    # 10C or 4H would leave 7 or 13 against an attack of 15: fatal
    assert move == {"yield": True} or _faces(move) == ["3S"]


def test_heuristic_plays_the_jester_to_escape_a_fatal_attack() -> None:
    t = Table(3, hands=[["X1", "2C"], ["2D", "3D"], ["4D", "5D", "6D"]], enemy="QS")
    assert _faces(_choose(t)) == ["X1"]
    t.play("X1")
    assert _choose(t) == {"next": 2}  # no kill in hand: the partner with most cards goes next


def test_heuristic_refills_with_a_solo_jester_instead_of_dying() -> None:
    t = Table(hands=[["2C", "3C"]], enemy="JD", tavern=[f"{r}S" for r in range(2, 11)])
    t.play("2C")
    assert _choose(t) == {"jester_power": True}
    t2 = Table(hands=[["2C", "3C"]], enemy="JD", tavern=[f"{r}S" for r in range(2, 11)], jesters=0)
    t2.play("2C")
    assert _choose(t2) == {"cannot_pay": True}  # the only honest move left


def test_heuristic_discards_cheaply() -> None:
    t = Table(hands=[["2C", "AH", "9D", "10C", "5S"]], enemy="JS", plays=[(0, ["4H"])])
    t.play("2C")  # attack 10
    move = _choose(t)
    assert move in t.game.legal_moves(t.state, 0, t.own(0))
    worth = {"AH": 1, "9D": 9, "10C": 10, "5S": 5}
    assert 10 <= sum(worth[f] for f in _faces(move, "discard")) <= 11  # no card thrown away for nothing


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_heuristic_never_reads_other_hands(seats: int, seed: int) -> None:
    """Given every face of the table, the bot chooses exactly as with its own knowledge only."""
    game = Regicide(seats)
    run = play_trusted(game, [make_bot("heuristic", seed + i) for i in range(seats)], seed)
    assert run.dealer is not None
    everything = dict(enumerate(run.dealer.slots))
    checked = 0
    for state in run.states[6::3]:
        request = game.pending(state)
        if not isinstance(request, Decide):
            continue
        seat = request.seat
        own = {**state.public, **{r: everything[r] for r in state.hands[seat]}}
        mine = HeuristicBot(seed).choose(game, state, seat, own, request.prompt)
        omniscient = HeuristicBot(seed).choose(game, state, seat, everything, request.prompt)
        assert mine == omniscient
        checked += 1
    assert checked > 0


def _sample(seats: int, level: str, games_count: int) -> tuple[int, float]:
    wins = defeated = 0
    for seed in range(games_count):
        game = Regicide(seats)
        bots = [make_bot(level, 1000 * seed + i) for i in range(seats)]
        result = game.result(play_trusted(game, bots, f"bot-sample-{seed}").final)
        wins += result["outcome"] == "won"
        defeated += result["enemies_defeated"]
    return wins, defeated / games_count


@pytest.mark.parametrize("seats", [1, 4])
def test_heuristic_clearly_beats_random(seats: int) -> None:
    h_wins, h_defeated = _sample(seats, "heuristic", 40)
    r_wins, r_defeated = _sample(seats, "random", 40)
    assert h_defeated >= r_defeated + 3.0, (h_defeated, r_defeated)
    assert h_wins >= r_wins


def test_heuristic_never_stalls_a_solo_game_by_yielding_under_a_full_shield() -> None:
    t = Table(hands=[["10S", "3C", "4H"]], enemy="JD", options={"solo_yield_allowed": True}, jesters=0)
    t.play("10S")  # shield 10: attack 0
    assert t.pending == Decide(0, "play") and t.game.attack_due(t.state) == 0
    assert {"yield": True} in t.game.legal_moves(t.state, 0, t.own(0))
    assert "play" in _choose(t)
    game = Regicide(1, {"solo_yield_allowed": True})
    run = play_trusted(game, [make_bot("heuristic", 0)], 0, max_events=5_000)
    assert game.is_over(run.final)


def test_heuristic_takes_a_slim_diamonds_chance_over_a_certain_loss() -> None:
    # solo, no Jester left, the Queen of Hearts attacks for 15; the hand is 2D 5S AH (worth 8).
    # 5S shields 5, but the 3 left cannot pay the remaining 10: a certain loss (the old choice);
    # 2D draws the Tavern's last card, and with a 7 or more the hand covers the attack (a 10 here)
    t = Table(hands=[["2D", "5S", "AH"]], enemy="QH", tavern=["10H"], jesters=0)
    for seed in range(4):
        move = HeuristicBot(seed).choose(t.game, t.state, 0, t.own(0), "play")
        assert move == {"play": t.cards("2D")}
    t.play("2D")
    t.pay("10H", "5S")
    assert t.state.outcome is None and t.hand(0) == ["AH"]
