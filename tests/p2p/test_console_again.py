"""The console's game-over screen offers "play again" (``a``) and shows the series' running score,
driven by keys through prompt-toolkit's pipe input at an in-memory table (see ``test_console.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.input import PipeInput

from fairdeck.console import ConsoleUI
from fairdeck.console.app import AGAIN_QUESTION
from fairdeck.series import Series
from p2p.memtable import build_table
from tests.p2p.test_console import ENTER, decision, play_to_the_end, run_console, screen, until
from tests.p2p.test_console_support import MemNode


def _earlier(game: str, seats: int, seed: int, tmp_path: Path) -> Series:
    """A series whose first game the same players (the same seeded identities as ``MemNode(game,
    seats, seed=seed)``) played to its end, under another game id."""
    table = build_table(game, seats, seed=seed, shuffle_rounds=1, game_id=bytes([seed + 1]) * 16)
    table.run()
    series = Series(tmp_path)
    series.add(table.parties[0].table, None)
    return series


def _series_game(
    node: MemNode, series: Series, key: str, shots: list[str] | None = None
) -> tuple[ConsoleUI, str]:
    """The person plays ``node``'s game of ``series`` to the game-over screen (offered "play again")
    and presses ``key`` there (``a``: then Enter, its confirmation); the console and that screen
    (and, in ``shots``, the screen after ``a``)."""
    shots = [] if shots is None else shots

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        ui.offer_again, ui.series = True, series
        await play_to_the_end(ui, keys)
        shots.insert(0, screen(ui))
        if key == "a":
            keys.send_text("a")
            await until(lambda: AGAIN_QUESTION in screen(ui))
            shots.append(screen(ui))
            keys.send_text(ENTER)
        else:
            keys.send_text(key)
        await until(lambda: not ui.app.is_running)

    return run_console(node, script), shots[0]


def test_a_plays_again_and_the_screen_shows_the_running_score(tmp_path: Path) -> None:
    series = _earlier("loveletter", 4, 2, tmp_path)
    asked: list[str] = []
    ui, over = _series_game(MemNode("loveletter", 4, seed=2), series, "a", asked)
    assert AGAIN_QUESTION in asked[-1]
    table = ui.node.party.table
    words = series.words(table)
    assert "══ Game over ══" in over and "Press a to play again with the same players, Enter to leave" in over
    assert words.startswith("series after 2 games: bot0 ") and words in over
    # the score shown adds this game's winners to the first game's
    first = series.games[0]["score"]["winners"]
    winners = table.game.result(table.state)["winners"]
    assert sum(series.score(table)["wins"]) == len(first) + len(winners)
    assert ui.wants_again and asyncio.run(ui.again()) == "yes"
    assert len(series.games) == 1  # showing the score adds nothing: the command adds the game


def test_enter_leaves_and_a_co_op_series_shows_the_tables_wins_and_losses(tmp_path: Path) -> None:
    series = _earlier("regicide", 2, 1, tmp_path)
    ui, over = _series_game(MemNode("regicide", 2, seed=1), series, ENTER)
    table = ui.node.party.table
    outcomes = [series.games[0]["score"]["outcome"], table.game.result(table.state)["outcome"]]
    won = outcomes.count("won")
    assert f"series after 2 games: the table won {won}, lost {2 - won}" in over
    assert not ui.wants_again and asyncio.run(ui.again()) == "no"


def test_a_game_that_did_not_end_by_its_rules_offers_no_rematch() -> None:
    shots: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        ui.offer_again = True
        await decision(ui)
        node.abandon(2, "gone")  # the person is awaited: another seat closes the game
        await until(lambda: ui.over)
        shots["over"] = screen(ui)
        # not offered: "a" is swallowed like any other key there (keys are handled in order)
        keys.send_text("a" + ENTER)
        await until(lambda: not ui.app.is_running)

    ui = run_console(MemNode("loveletter", 4, seed=3), script)
    assert "Press Enter to leave" in shots["over"] and "play again" not in shots["over"]
    assert not ui.wants_again and asyncio.run(ui.again()) == "no"


def test_what_to_press_stays_on_a_crowded_game_over_screen(tmp_path: Path) -> None:
    """Long names and a series line fill 80x24: the keys to press come first, so they are never cut."""
    names = [f"player-{i}, run by somebody with a long name" for i in range(4)]
    series = _earlier("loveletter", 4, 2, tmp_path)
    _, over = _series_game(MemNode("loveletter", 4, seed=2, names=names), series, ENTER)
    lines = over.splitlines()
    assert len(lines) <= 24 and "Press a to play again with the same players, Enter to leave" in over
    assert "series after 2 games" in over


def test_a_asks_once_more_and_any_other_key_answers_no(tmp_path: Path) -> None:
    """A word typed at a game that just ended holds an ``a`` (``clear``, ``say gg``): ``a`` asks, the
    word's next letter answers no, and its Enter then leaves, as Enter does there."""
    shots: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        ui.offer_again = True
        await play_to_the_end(ui, keys)
        keys.send_text("a")
        await until(lambda: AGAIN_QUESTION in screen(ui))
        shots["asked"] = screen(ui)
        keys.send_text("r")
        await until(lambda: AGAIN_QUESTION not in screen(ui))
        shots["no"] = screen(ui)
        keys.send_text("clear" + ENTER)
        await until(lambda: not ui.app.is_running)

    ui = run_console(MemNode("loveletter", 4, seed=2), script)
    assert "Press a to play again" not in shots["asked"]
    assert "Press a to play again with the same players, Enter to leave" in shots["no"]
    assert not ui.wants_again and asyncio.run(ui.again()) == "no"
