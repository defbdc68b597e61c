"""``Game.check(history, faces, states=...)`` (the states a table already went through) reports
exactly what the replay from the start reports: for whole games of every game, for prefixes, for
histories with a cheating claim and for histories with an illegal event."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import DISCLOSED, MOVE, REVEALED, Event, Face, Game, RandomBot, Ref, Violation
from engine.dealer import Playthrough, play_trusted
from engine.loveletter import LoveLetter
from engine.loveletter.bots import make_bot as loveletter_bot
from engine.rebelprincess import RebelPrincess
from engine.regicide import Regicide
from engine.regicide.bots import make_bot as regicide_bot
from tests.engine.test_loveletter_properties import LIES, play_with_liar
from tests.engine.test_rebelprincess_props import Cheat
from tests.engine.test_regicide_props import Cheater


def known_at(game: Game, history: Sequence[Event]) -> dict[Ref, Face]:
    """The faces a table knows after ``history``: the open deck, then every reveal and disclosure."""
    faces: dict[Ref, Face] = dict(enumerate(game.deck()))
    for event in history:
        if event.kind in (REVEALED, DISCLOSED):
            faces.update(event.data["faces"])
    return faces


def cuts(history: Sequence[Event], extra: int = 8) -> list[int]:
    """Prefix lengths to check: after every disclosure (where a table checks), a few others, all."""
    at = [i + 1 for i, e in enumerate(history) if e.kind == DISCLOSED]
    step = max(1, len(history) // extra)
    return sorted({0, 1, *at, *range(step, len(history), step), len(history)})


def same_with_states(game: Game, run: Playthrough, truth: Mapping[Ref, Face]) -> list[Violation]:
    """Assert that every prefix is judged the same with and without its states (all of them, or
    all but the one after the last event), knowing every face or only the public ones; returns
    the whole history's violations knowing every face."""
    for n in cuts(run.history):
        history = run.history[:n]
        for faces in (truth, known_at(game, history)):
            plain = game.check(history, faces)
            assert game.check(history, faces, states=run.states[: n + 1]) == plain, n
            assert game.check(history, faces, states=run.states[:n]) == plain, n
    return game.check(run.history, truth)


def dealt(run: Playthrough) -> dict[Ref, Face]:
    """Every true face of a trusted game."""
    assert run.dealer is not None
    return dict(enumerate(run.dealer.slots))


# -- honest whole games --------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_loveletter_honest_games(seats: int, seed: int) -> None:
    game = LoveLetter(seats)
    run = play_trusted(game, [loveletter_bot("heuristic", f"{seed}/{s}") for s in range(seats)], seed)
    assert same_with_states(game, run, dealt(run)) == []


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_regicide_honest_games(seats: int, seed: int) -> None:
    game = Regicide(seats)
    run = play_trusted(game, [regicide_bot("heuristic", seed + s) for s in range(seats)], seed)
    assert same_with_states(game, run, dealt(run)) == []


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_rebelprincess_honest_games(seats: int) -> None:
    game = RebelPrincess(seats, {"princess_powers": True, "rounds": 3})
    run = play_trusted(game, [RandomBot(seats * 10 + s) for s in range(seats)], seats)
    assert same_with_states(game, run, dealt(run)) == []


# -- histories with a cheating claim ---------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(LIES))
def test_loveletter_lies_are_reported_the_same(kind: str) -> None:
    game = LoveLetter(4)
    caught = 0
    for seed in range(200):
        run, liar = play_with_liar(game, ["random"] * 4, seed, seed % 4, kind)
        if liar.lied_at is None:
            continue
        found = same_with_states(game, run, dealt(run))
        assert (found[0].index, found[0].seat) == (liar.lied_at, seed % 4)
        caught += 1
        if caught == 2:
            break
    assert caught == 2


@pytest.mark.parametrize("kind", ["cannot_pay", "play", "discard"])
def test_regicide_false_claims_are_reported_the_same(kind: str) -> None:
    caught = 0
    for seed in range(60):
        seats = 1 + seed % 4
        cheater = Cheater(kind, seed)
        game = Regicide(seats)
        agents = [cheater] + [regicide_bot("heuristic", seed + i) for i in range(1, seats)]
        run = play_trusted(game, agents, seed)
        if cheater.index is None:
            continue
        found = same_with_states(game, run, dealt(run))
        assert [v.index for v in found] == [cheater.index]
        caught += 1
        if caught == 2:
            break
    assert caught == 2


@pytest.mark.parametrize("lie", [False, True])
def test_rebelprincess_false_claims_are_reported_the_same(lie: bool) -> None:
    caught = 0
    for seed in range(40):
        seats = 3 + seed % 4
        game = RebelPrincess(seats, {"princess_powers": seed % 2 == 0, "rounds": 3})
        cheat = Cheat(seed, 30 + seed, lie)
        agents: list[Any] = [cheat if s == 1 else RandomBot(seed + s) for s in range(seats)]
        run = play_trusted(game, agents, seed)
        if cheat.index is None:
            continue
        found = same_with_states(game, run, dealt(run))
        assert [(v.index, v.seat) for v in found] == [(cheat.index, 1)]
        caught += 1
        if caught == 2:
            break
    assert caught == 2


# -- a history with an illegal event: the states stop before it --------------------------------------


def _forged(game: Game, run: Playthrough, move: Mapping[str, Any]) -> None:
    """Replace the middle move by ``move``: given the states up to it, the check applies the forged
    event itself and must report it (and stop) exactly as a whole replay does."""
    moves = [i for i, e in enumerate(run.history) if e.kind == MOVE]
    index = moves[len(moves) // 2]
    seat = run.history[index].seat
    assert seat is not None
    history = [*run.history[:index], Event.move(seat, dict(move)), *run.history[index + 1 :]]
    truth = dealt(run)
    plain = game.check(history, truth)
    assert any(v.index == index for v in plain), plain
    assert game.check(history, truth, states=run.states[: index + 1]) == plain
    assert game.check(history[: index + 1], truth, states=run.states[: index + 1]) == game.check(
        history[: index + 1], truth
    )


def test_an_illegal_event_is_reported_the_same() -> None:
    game: Game = LoveLetter(3)
    _forged(game, play_trusted(game, [loveletter_bot("random", s) for s in range(3)], 5), {"card": 9999})
    game = Regicide(2)
    run = play_trusted(game, [regicide_bot("random", s) for s in range(2)], 5)
    _forged(game, run, {"play": [[9999, "5H"]]})
    game = RebelPrincess(4)
    _forged(game, play_trusted(game, [RandomBot(s) for s in range(4)], 5), {"card": 9999})


# -- any game, any prefix --------------------------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["loveletter", "regicide", "rebelprincess"]), st.integers(0, 2**32 - 1),
       st.integers(1, 4), st.floats(0, 1))
def test_any_prefix_of_any_game(name: str, seed: int, seats: int, where: float) -> None:
    if name == "loveletter":
        game: Game = LoveLetter(max(2, seats))
        agents: list[Any] = [loveletter_bot("random", f"{seed}/{s}") for s in range(game.seats)]
    elif name == "regicide":
        game = Regicide(seats)
        agents = [regicide_bot("random", seed + s) for s in range(seats)]
    else:
        game = RebelPrincess(seats + 2, {"rounds": 3})
        agents = [RandomBot(seed + s) for s in range(seats + 2)]
    run = play_trusted(game, agents, seed)
    n = round(where * len(run.history))
    history, truth = run.history[:n], dealt(run)
    for faces in (truth, known_at(game, history)):
        plain = game.check(history, faces)
        assert game.check(history, faces, states=run.states[: n + 1]) == plain
        assert game.check(history, faces, states=run.states[:n]) == plain
