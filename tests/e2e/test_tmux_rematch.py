"""Playing again in a real terminal: ``fairdeck play regicide --bots 1`` (two real peer processes) in
a private tmux server; the person plays by keys to the game-over screen, presses ``a``, plays the
next game at the same table in a fresh console, and the second game-over screen shows the series'
score; Enter then leaves, and both games' logs audit clean."""

from __future__ import annotations

import json

from replay.audit import audit_path
from tests.e2e.tmux_support import FAIRDECK, OVER, Terminal, _decision, play_to_game_over, run_processes

PATIENCE = 900.0


def test_a_plays_again_in_the_console_and_the_series_score_is_shown(terminal: Terminal) -> None:
    session = "again"
    terminal.run(session, [*FAIRDECK, "play", "regicide", "--bots", "1"])
    first = play_to_game_over(terminal, session)
    assert "Press a to play again with the same players, Enter to leave" in first, first
    assert "series after" not in first  # one game is no series yet
    terminal.keys(session, "a")
    terminal.wait(session, lambda s: "Play again with the same players? Enter: yes" in s, PATIENCE)
    terminal.keys(session, "Enter")
    # the next game's console: a new table with the same players
    terminal.wait(session, lambda s: OVER not in s and ("now: " in s or _decision(s)), PATIENCE)
    second = play_to_game_over(terminal, session)
    assert "series after 2 games: the table won " in second, second
    terminal.keys(session, "Enter")
    after = terminal.wait(session, lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
    assert "FAIRDECK-EXIT=0" in after and "no rematch: you declined" in after, after

    logs = sorted((terminal.home / "games").glob("*.fdlog"))
    assert len(logs) == 2
    reports = [audit_path(log) for log in logs]
    assert all(r.exit_code == 0 for r in reports), [r.text() for r in reports]
    keys = [[p.key for p in r.replay.table.parties] for r in reports if r.replay is not None]
    assert len(keys) == 2 and keys[0] == keys[1]
    series = json.loads(next((terminal.home / "games").glob("*.series")).read_text())
    assert sorted(g["id"] for g in series["games"]) == sorted(log.stem for log in logs)
    outcomes = [r.result["outcome"] for r in reports if r.result is not None]
    assert series["score"] == {"won": outcomes.count("won"), "lost": outcomes.count("lost")}
    assert series["words"] in second.replace("\n  ", " ") or series["words"] in second
    assert not run_processes(str(terminal.home)), "a process of the series is still running"


def test_leaving_a_rematch_against_bots_is_said_to_end_it_for_good(terminal: Terminal) -> None:
    """The next game's console (a fresh one) knows the bots stop with the person, as the first did:
    its "Leave the table?" box does not promise a `fairdeck resume` that the bots' leaving rules out."""
    session = "again-leave"
    terminal.run(session, [*FAIRDECK, "play", "regicide", "--bots", "1"])
    play_to_game_over(terminal, session)
    terminal.keys(session, "a")
    terminal.wait(session, lambda s: "Play again with the same players? Enter: yes" in s, PATIENCE)
    terminal.keys(session, "Enter")
    terminal.wait(session, lambda s: OVER not in s and _decision(s), PATIENCE)
    terminal.keys(session, "C-c")
    box = terminal.wait(session, lambda s: "Leave the table?" in s, PATIENCE)
    assert "Leaving ends this game for good: your bots stop with you" in box, box
    assert "fairdeck resume" not in box and "abandoned" not in box, box
    terminal.keys(session, "y")
    after = terminal.wait(session, lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
    assert "your bots stopped with you" in after.replace("\n", ""), after
    assert not run_processes(str(terminal.home)), "a process of the series is still running"
