"""``fairdeck.series``: the games of a series, its running score and its file (games played to their
end at in-memory tables, the same seeded players each time)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdeck.series import SERIES_SUFFIX, Series, game_score, load_series
from p2p.memtable import build_table
from p2p.protocol import Table


def _played(game: str, seats: int, number: int, seed: int = 1) -> Table:
    """Game ``number`` of the players of ``seed``, played to its end by bots."""
    table = build_table(game, seats, seed=seed, shuffle_rounds=1, game_id=bytes([number]) * 16)
    table.run()
    assert table.parties[0].table.ended == "over"
    return table.parties[0].table


def test_a_co_op_series_counts_the_tables_wins_and_losses_and_is_kept_in_a_file(tmp_path: Path) -> None:
    games = [_played("regicide", 2, n) for n in (1, 2)]
    closed = build_table("regicide", 2, seed=1, shuffle_rounds=1, game_id=bytes([3]) * 16)
    closed.close_stalled(0, "seat 1 wrote nothing")  # a third game, closed before it began
    games.append(closed.parties[0].table)
    series = Series(tmp_path)
    for number, table in enumerate(games, 1):
        series.add(table, tmp_path / f"game{number}.fdlog")
    series.add(games[0], tmp_path / "game1.fdlog")  # a game is counted once
    outcomes = [table.game.result(table.state)["outcome"] for table in games[:2]]
    won = outcomes.count("won")
    assert [g["score"] for g in series.games] == [{"outcome": o} for o in outcomes] + [{}]
    assert series.score() == {"won": won, "lost": 2 - won}
    assert series.words() == f"series after 3 games: the table won {won}, lost {2 - won}"
    assert series.games[2]["result"] == "game abandoned"

    path = series.save()
    assert path == tmp_path / "games" / f"{bytes([1]).hex() * 16}{SERIES_SUFFIX}"
    assert load_series(path) == series.to_json()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # nothing left aside
    kept = load_series(path)
    assert kept is not None
    assert [g["log"] for g in kept["games"]] == ["game1.fdlog", "game2.fdlog", "game3.fdlog"]
    assert [p["name"] for p in kept["players"]] == ["bot0", "bot1"]


def test_a_series_counts_games_won_per_player_and_only_for_the_same_players(tmp_path: Path) -> None:
    first = _played("loveletter", 4, 1, seed=5)
    series = Series(tmp_path)
    series.add(first, None)
    winners = game_score(first)["winners"]
    assert winners and series.score()["wins"] == [int(seat in winners) for seat in range(4)]
    words = " · ".join(f"bot{seat} {int(seat in winners)}" for seat in range(4))
    assert series.words() == f"series after 1 game: {words}"
    with pytest.raises(ValueError, match="same players"):
        series.add(_played("loveletter", 4, 2, seed=6), None)
    assert len(series.games) == 1
