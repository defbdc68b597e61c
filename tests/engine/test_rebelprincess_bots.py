"""Rebel Princess bots: both levels play every Round card and Princess legally; the heuristic bot
beats random bots clearly (the full >= 1,000-game figure is measured outside the test suite)."""

from __future__ import annotations

import pytest

from engine.core import RandomBot
from engine.dealer import play_trusted
from engine.games import make_bot
from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.bots import HeuristicBot, danger
from engine.rebelprincess.bots import make_bot as rp_make_bot

from .test_rebelprincess_support import Table, cards


def test_make_bot_levels() -> None:
    assert isinstance(make_bot("rebelprincess", "random", 1), RandomBot)
    assert isinstance(make_bot("rebelprincess", "heuristic", 1), HeuristicBot)
    with pytest.raises(ValueError):
        rp_make_bot("genius", 1)


@pytest.mark.parametrize(
    ("seats", "letters"), [(3, "abcde"), (4, "fghij"), (5, "klmno"), (6, "pqrst"), (4, "uvwxy"), (5, "zabcd")]
)
def test_heuristic_bots_play_every_round_card_legally(seats: int, letters: str) -> None:
    game = RebelPrincess(seats, {"round_cards": letters})
    run = play_trusted(game, [HeuristicBot(s) for s in range(seats)], seed=seats)
    assert (
        game.is_over(run.final) and run.final.fault is None and run.final.round_letters[:5] == tuple(letters)
    )
    assert run.dealer is not None and game.check(run.history, dict(enumerate(run.dealer.slots))) == []


def test_heuristic_bot_passes_the_frog_and_high_princes() -> None:
    # the planned pass puts these three in seat 0's dealt hand (seat 0 passes right, to seat 2)
    t = Table(3, "a", [[[], [], ["pet-8", "prince-10", "prince-9"]]])
    at_pass = t.last("pass")
    choice = HeuristicBot(0).choose(t.game, at_pass, 0, t.known(0), "pass")
    assert sorted(t.face(r) for r in choice["pass"]) == ["pet-8", "prince-10", "prince-9"]
    assert danger("pet-8", "a") > danger("prince-10", "a") > danger("prince-2", "a") > danger("fairy-2", "a")
    assert danger("fairy-3", "d") < danger("fairy-4", "d")  # under Three Times a Lady a 3 is welcome


def test_heuristic_ducks_under_the_lead() -> None:
    t = Table(3, "a", [[cards("F9 K9 P2-10 K2"), cards("F10 F2 Q2-10 K3"), cards("F3-8 K4-8 K10")]])
    t.play("fairy-9")
    assert HeuristicBot(0).choose(t.game, t.state, 1, t.known(1), "play")["face"] == "fairy-2"


def test_heuristic_uses_alice_on_a_trick_with_princes() -> None:
    t = Table(
        3,
        "a",
        [[cards("F10 P2-10 K2 K3"), cards("F2 Q2-10 K4 K5"), cards("F3-9 K6-10")]],
        princesses=["alice", "thumbelina", "snow-white"],
    )
    t.play("fairy-10", "fairy-2", "fairy-3")
    assert t.state.step == "alice"
    assert HeuristicBot(0).choose(t.game, t.state, 0, t.known(0), "alice") == {"use": False}
    t.decide({"use": False})
    t.play("pet-2", "prince-4")
    t.play("fairy-4")
    assert t.state.step == "alice"
    assert HeuristicBot(0).choose(t.game, t.state, 0, t.known(0), "alice") == {"use": True}


def test_heuristic_beats_random_clearly() -> None:
    wins, heuristic_total, random_total, games = 0.0, 0, 0.0, 60
    for seed in range(games):
        hero = seed % 4
        game = RebelPrincess(4)
        agents = [HeuristicBot(seed * 10 + i) if i == hero else RandomBot(seed * 10 + i) for i in range(4)]
        result = game.result(play_trusted(game, agents, seed=1000 + seed).final)
        wins += (hero in result["winners"]) / len(result["winners"])
        heuristic_total += result["scores"][hero]
        random_total += (sum(result["scores"]) - result["scores"][hero]) / 3
    assert wins >= games / 2  # chance would be a quarter
    assert heuristic_total / games < random_total / games - 5


@pytest.mark.parametrize("seed", range(8))
def test_heuristic_never_leads_the_frog_unforced(seed: int) -> None:
    # seat 0 leads holding the Frog with every other Pet, Fairy 2 and a Prince
    t = Table(3, "a", [[cards("F2 F3 P2-10 K2"), cards("F10 Q2-10 K3 K4"), cards("F4-9 K5-10")]], seed=seed)
    assert t.request.seat == 0 and not t.state.trick
    move = HeuristicBot(seed).choose(t.game, t.state, 0, t.known(0), "play")
    assert move["face"] != "pet-8"
    # a whole game: the Frog is led only when the leader could lead nothing else
    game = RebelPrincess(4, {"princess_powers": False, "round_cards": "abcfx"})
    run = play_trusted(game, [HeuristicBot(seed * 10 + s) for s in range(4)], seed=seed)
    assert run.dealer is not None
    for state, event in zip(run.states, run.history, strict=False):
        if state.step == "play" and not state.trick and event.data.get("face") == "pet-8":
            known = run.dealer.known_to(state.decider)
            assert all(m["face"] == "pet-8" for m in game.legal_moves(state, state.decider, known))
