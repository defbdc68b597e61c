"""``fairdeck replay --text``: a finished game ends with its result in words, by name."""

from __future__ import annotations

from pathlib import Path

from p2p.memtable import build_table
from replay.replay import per_seat, replay_log, result_words, text_lines


def test_a_finished_game_ends_with_its_result_by_name(tmp_path: Path) -> None:
    table = build_table("loveletter", 3, seed=11, log_dir=tmp_path)
    table.run()
    table.close()
    replayed = replay_log(tmp_path / "seat0.fdlog")
    lines = list(text_lines(replayed))
    result = replayed.table.game.result(replayed.table.state)
    (winner,) = result["winners"]
    assert lines[-1].startswith(f"game over — winner: bot{winner} (seat {winner}); tokens: ")
    tokens = ", ".join(f"bot{i} {n}" for i, n in enumerate(result["tokens"]))
    assert f"tokens: {tokens}" in lines[-1]
    assert all(line.startswith("[") for line in lines[1:-1]), "the result is said once, at the end"


def test_numbers_per_seat_stay_apart_from_names_that_hold_commas() -> None:
    assert per_seat(["alice", "bob"], [2, 1]) == "alice 2, bob 1"
    names = ["bot-0, run by you", "bot-1, run by you"]
    assert per_seat(names, [1, 4]) == "bot-0, run by you: 1 · bot-1, run by you: 4"
    words = result_words(None, {"winners": [1], "tokens": [1, 4]}, names)
    assert words == [
        "winner: bot-1, run by you (seat 1)",
        "tokens: bot-0, run by you: 1 · bot-1, run by you: 4",
    ]


def test_a_result_key_a_player_would_not_understand_reads_in_the_games_own_words() -> None:
    """Rebel Princess's tie-break counts rounds that gave a player no proposal: "zero rounds" told a
    newcomer nothing (newcomer trial 4), in the game-over line, `games` and the audit alike."""
    from engine.games import make_game

    game = make_game("rebelprincess", 3, {})
    result = {"winners": [0], "scores": [3, 5, 9], "zero_rounds": [2, 1, 0]}
    words = result_words(game, result, ["a", "b", "c"])
    assert "rounds with no proposal (the tie-break): a 2, b 1, c 0" in words
    assert not any("zero rounds" in w for w in words)
