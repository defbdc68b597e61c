"""The "hard" bots (``engine.search``): selectable everywhere, legal, deterministic, quick enough."""

from __future__ import annotations

import time
from typing import Any

import pytest

from engine.dealer import play_trusted
from engine.games import BOT_LEVELS, make_bot, make_game
from engine.search import SearchBot

GAMES = [("loveletter", 4), ("rebelprincess", 4), ("regicide", 1), ("regicide", 3)]


def test_hard_is_a_level_of_every_game_and_of_the_command_line() -> None:
    assert "hard" in BOT_LEVELS
    for name in ("loveletter", "rebelprincess", "regicide"):
        bot = make_bot(name, "hard", 1)
        assert isinstance(bot, SearchBot) and bot.level == "hard"
    from fairdeck.cli import build_parser

    args = build_parser().parse_args(["play", "loveletter", "--bots", "3", "--level", "hard"])
    assert args.level == "hard"


class Timed:
    """Wraps a bot, recording how long each decision took."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.times: list[float] = []

    def choose(self, game: Any, state: Any, seat: int, own: Any, prompt: str) -> dict[str, Any]:
        began = time.perf_counter()
        move = self.bot.choose(game, state, seat, own, prompt)
        self.times.append(time.perf_counter() - began)
        return move


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_hard_bots_play_whole_games_legally_and_deterministically(name: str, seats: int) -> None:
    game = make_game(name, seats)

    def run(seed: int) -> Any:
        bots = [Timed(make_bot(name, "hard" if s == 0 else "heuristic", f"{seed}/{s}")) for s in range(seats)]
        return play_trusted(game, bots, seed), bots[0]

    first, hard = run(3)
    again, _ = run(3)
    assert first.history == again.history  # no clock, no global randomness
    assert game.is_over(first.final) and first.final.fault is None
    assert first.dealer is not None and game.check(first.history, dict(enumerate(first.dealer.slots))) == []
    assert hard.bot.searched > 0
    # every move it made was one of its legal moves (play_trusted would have raised otherwise) and
    # a move takes well under a second on average (the budgets are counts, not a clock)
    assert sum(hard.times) / len(hard.times) < 0.5


def test_evolve_is_replace_without_the_constructor() -> None:
    import dataclasses

    from engine.core import evolve
    from engine.rebelprincess import RebelPrincess

    state = RebelPrincess(4).initial_state()
    assert evolve(state, step="x", events=3) == dataclasses.replace(state, step="x", events=3)
    assert evolve(state, step="x").step == "x" and state.step != "x"
    with pytest.raises(TypeError):
        evolve(state, no_such_field=1)


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_a_simulated_copy_skips_the_knowledge_model_and_plays_whole_games(name: str, seats: int) -> None:
    import copy

    game = make_game(name, seats)
    sim = copy.copy(game)
    sim.simulating = True
    assert not game.simulating
    run = play_trusted(sim, [make_bot(name, "heuristic", s) for s in range(seats)], 4)
    assert sim.is_over(run.final) and run.final.fault is None
    assert run.final.knowledge == run.states[0].knowledge  # never updated
