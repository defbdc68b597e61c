"""Arguments refused before anything starts: one line naming the flag or file, exit 2, nothing
printed on stdout (no table announced) and nothing created; what ``play --bots N`` opens; a closed
output pipe ends quietly. Every command is a real ``fairdeck`` process with a private home (none of
them reaches a table or the LAN: each is refused first), or the real parser and planning functions.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fairdeck.cli import PIPE_CLOSED_EXIT, build_parser
from fairdeck.tableplan import host_player, plan_play

REPO = Path(__file__).resolve().parents[1]


def _run(home: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "FAIRDECK_HOME": str(home), "PYTHONPATH": str(REPO), **env}
    return subprocess.run(
        [sys.executable, "-m", "fairdeck", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=environment,
        stdin=subprocess.DEVNULL,
    )


def _refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused command printed (exit 2, stdout empty, no traceback, no errno)."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert len(lines) == 1 and done.stdout == "", (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "[Errno" not in done.stderr, done.stderr
    return lines[0]


def _check(home: Path, cases: list[tuple[list[str], list[str], list[str]]]) -> None:
    """Each ``(argv, words it must say, words it must not say)`` is refused in one line."""
    for argv, said, unsaid in cases:
        line = _refused(_run(home, *argv))
        assert all(w in line for w in said), (argv, line)
        assert not any(w in line for w in unsaid), (argv, line)
    assert not home.exists(), "a refused command created the home"


def test_options_are_checked_against_the_table_really_opened(tmp_path: Path) -> None:
    _check(
        tmp_path / "home",
        [
            # you + 1 bot = 2 seats: the option's own error, not "for 2-6 players, not 1"
            (["play", "loveletter", "--bots", "1", "--option", "edition=bogus"], ["edition must"], ["not 1"]),
            (["play", "regicide", "--bots", "1", "--option", "first_player=9"], ["first_player", "0..1"], []),
            (["play", "rebelprincess", "--bots", "2", "--option", "rounds=9"], ["rounds must be"], ["not 2"]),
            # four bots alone at the classic edition: a seat is 0..3 there
            (["play", "loveletter", "--bots", "4", "--option", "first_player=4"], ["0..3"], ["not 5"]),
            (["host", "regicide", "--seats", "3", "--option", "first_player=9"], ["0..2"], []),
            (["simulate", "regicide", "--players", "2", "--option", "first_player=9"], ["0..1"], []),
            (["play", "loveletter", "--bots", "9"], ["--bots 9", "classic edition", "2-4 players"], []),
            (["play", "loveletter", "--option", "edition"], ["--option", "KEY=VALUE"], []),
            # choices and names in words, never as Python lists
            (["play", "loveletter", "--option", "edition=x"], ["edition must be classic or 2019"], ["["]),
            (["play", "rebelprincess", "--option", "rounds=0"], ["rounds must be 5 or 3, not 0"], ["["]),
            (
                ["play", "regicide", "--option", "x=1", "--option", "y=2"],
                ["regicide has no options x, y; its options: allow_overdiscard, first_player,"],
                ["["],
            ),
            (["play", "loveletter", "--option", "nope=1"], ["no option nope; its options: edition,"], ["["]),
        ],
    )


def test_ports_and_addresses_are_checked_before_a_table_is_announced(tmp_path: Path) -> None:
    _check(
        tmp_path / "home",
        [
            (["host", "loveletter", "--port", "99999", "--bind", "127.0.0.1"], ["--port", "0..65535"], []),
            (["host", "loveletter", "--port", "-1", "--no-advertise"], ["0..65535"], []),
            (["host", "loveletter", "--bind", "300.1.1.1", "--no-advertise"], ["--bind"], []),
            (["join", "127.0.0.1:99999", "--plain"], ["1..65535"], []),
            (["watch", "127.0.0.1:0", "--plain"], ["1..65535"], []),
            (["bot", "--join", "127.0.0.1:70000", "--quiet"], ["--join", "1..65535"], []),
            (["bot", "--join", "127.0.0.1:1", "--bind", "here", "--quiet"], ["--bind"], []),
            (["tables", "--loopback", "--wait", "-1"], ["--wait"], []),
        ],
    )
    assert build_parser().parse_args(["host", "loveletter", "--port", "0"]).port == 0  # 0: any free port


def test_bots_that_cannot_sit_are_refused_in_one_line(tmp_path: Path) -> None:
    _check(
        tmp_path / "home",
        [
            (["play", "loveletter", "--bots", "0"], ["--bots 0", "2 players"], []),
            (["play", "regicide", "--bots", "0"], ["--bots 0", "--solo"], []),
            (["play", "loveletter", "--bots", "-1"], ["--bots", "negative"], []),
            (["host", "loveletter", "--bots", "-1", "--no-advertise"], ["--bots", "negative"], []),
            (["host", "loveletter", "--seats", "2", "--bots", "5"], ["--bots 5", "at most 1"], []),
            (["play", "regicide", "--solo", "--bots", "2"], ["--solo", "--bots 2"], []),
            (["play", "loveletter", "--no-witness"], ["--no-witness", "--solo"], []),
            (["play", "loveletter", "--bots", "3", "--seed", "4"], ["--seed"], []),
        ],
    )


def test_bots_n_seats_n_bots_beside_you_while_the_table_takes_you() -> None:
    def plan(*argv: str) -> tuple[int, bool, int]:
        found = plan_play(build_parser().parse_args(["play", *argv]))
        return found.seats, found.person, found.bots

    assert plan("loveletter", "--bots", "3") == (4, True, 3)
    assert plan("loveletter") == (4, True, 3)
    assert plan("loveletter", "--bots", "4") == (4, False, 3)  # classic: 2-4 seats, so the bots alone
    assert plan("loveletter", "--bots", "4", "--option", "edition=2019") == (5, True, 4)
    assert plan("loveletter", "--bots", "4", "--option", "edition=2019", "--unattended") == (4, False, 3)
    assert plan("regicide", "--solo") == (1, True, 0)
    assert plan("regicide", "--solo", "--bots", "1") == (1, False, 0)  # a bot plays the solo seat


def test_host_name_names_the_table_and_player_names_the_opener() -> None:
    parse = build_parser().parse_args
    assert host_player(parse(["host", "loveletter", "--name", "Friday"])) == "Friday"
    assert host_player(parse(["host", "loveletter", "--name", "Friday", "--player", "ann"])) == "ann"


def test_simulate_fair_flags_are_checked_before_the_game(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    missing = tmp_path / "no" / "such" / "x.fdlog"
    _check(
        tmp_path / "home",
        [
            (["simulate", "loveletter", "--fair", "--log", str(folder)], ["--log", "is a folder"], []),
            (["simulate", "loveletter", "--fair", "--log", str(missing)], ["--log", "no folder"], []),
            (["simulate", "loveletter", "--log", str(folder / "x.fdlog")], ["--log", "--fair"], []),
            (["simulate", "loveletter", "--rounds", "3"], ["--rounds", "--fair"], []),
            (["simulate", "regicide", "--players", "1", "--witness"], ["--witness", "--fair"], []),
            (["simulate", "loveletter", "--fair", "--games", "2"], ["--games"], []),
        ],
    )
    assert not (tmp_path / "no").exists() and list(folder.iterdir()) == []


def test_files_and_homes_that_cannot_be_used_are_named_in_words(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    key = _refused(_run(tmp_path / "home", "replay", str(a_file), "--as", str(tmp_path / "none.key")))
    assert "--as" in key and "none.key" in key
    for home in (a_file, a_file / "below"):
        line = _refused(_run(home, "whoami"))
        assert line.startswith("fairdeck: FAIRDECK_HOME: ") and "is a file, not a folder" in line, line
    bot = _refused(_run(tmp_path / "home", "bot", "--join", "127.0.0.1:1", "--home", str(a_file)))
    assert "--home" in bot and "not a folder" in bot


def test_games_discard_without_a_terminal_wants_yes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    line = _refused(_run(home, "games", "discard", "1"))
    assert "--yes" in line
    assert "--yes" in _refused(_run(home, "games", "audit", "1", "--yes"))


@pytest.mark.parametrize("argv", [["simulate", "loveletter", "--seed", "3"], ["games"]])
def test_a_closed_output_pipe_ends_quietly(tmp_path: Path, argv: list[str]) -> None:
    """``fairdeck ... | head``: the reader is gone before fairdeck writes (deterministically: the
    pipe's read end is closed before it starts), so its first line fails; it says nothing."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "fairdeck", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            cwd=REPO,
            env={**os.environ, "FAIRDECK_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)},
        )
    finally:
        os.close(write)
    assert done.returncode == PIPE_CLOSED_EXIT and done.stderr == "", (done.returncode, done.stderr)


def test_a_table_too_small_for_you_and_one_bot_says_bot_not_bots() -> None:
    with pytest.raises(ValueError) as refused:
        plan_play(build_parser().parse_args(["play", "rebelprincess", "--bots", "1"]))
    assert str(refused.value).endswith("(you and 1 bot)"), str(refused.value)
