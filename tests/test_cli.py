"""The `fairdeck` command line: help, simulate, options and bad arguments."""

from __future__ import annotations

import os
import subprocess
import sys


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fairdeck", *args], capture_output=True, text=True, timeout=300
    )


def test_help_lists_every_subcommand_with_one_line() -> None:
    done = _run("--help")
    assert done.returncode == 0
    for command in ("play", "simulate", "audit", "replay", "host", "join", "tables", "bot", "whoami"):
        assert f"    {command}" in done.stdout


def test_simulate_prints_a_readable_game_to_its_end() -> None:
    done = _run("simulate", "loveletter", "--players", "4", "--seed", "7")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "plays the" in out and "wins round 1" in out and "Game over: seat" in out
    assert "is out of the round" in out


def test_options_from_the_command_line_reach_the_engine() -> None:
    done = _run("simulate", "loveletter", "--players", "5", "--option", "edition=2019", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "Game over" in done.stdout


def test_bad_arguments_get_a_clear_error_and_exit_two() -> None:
    for args, words in [
        (("simulate", "loveletter", "--option", "bogus=1"), "no option bogus; its options:"),
        (("simulate", "loveletter", "--players", "9"), "Love Letter is for 2-4 players, not 9"),
        (("simulate", "loveletter", "--players", "5"), "2-4 players"),
        (("simulate", "loveletter", "--players", "zero"), "not a whole number"),
        (("play", "chess"), "invalid choice"),
        (("join", "nowhere:notaport", "--plain"), "HOST:PORT"),  # never a LAN lookup in tests
    ]:
        done = _run(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_stuck_looking_fairdeck_prints_its_threads_stacks_on_sigusr1() -> None:
    """``kill -USR1`` shows where a running fairdeck is (code locations only), and it keeps running."""
    import select
    import signal
    import time

    code = (
        "from fairdeck.cli import dump_stacks_on_signal; dump_stacks_on_signal()\n"
        "import time; print('up', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    err = ""
    try:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().strip() == "up"
        proc.send_signal(signal.SIGUSR1)
        # wait for the whole dump (its last frame is the script's line 2), however busy the machine
        deadline = time.monotonic() + 30
        while 'File "<string>", line 2' not in err and time.monotonic() < deadline:
            if select.select([proc.stderr], [], [], 0.5)[0]:
                chunk = os.read(proc.stderr.fileno(), 65536)
                if not chunk:  # it ended: the assertion below says so
                    break
                err += chunk.decode()
        assert proc.poll() is None, "the signal must not stop it"
    finally:
        proc.kill()
        proc.communicate(timeout=10)
    assert "most recent call first" in err and 'File "<string>", line 2' in err, err


def test_simulate_rounds_asks_for_a_cut_and_choose_proof_and_says_what_it_proves(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # `--rounds` once printed a default of 16 while every fair simulation used Wikström–Terelius
    from p2p.log import parse_envelope, read_log

    log = tmp_path / "cc.fdlog"
    args = ("--players", "1", "--fair", "--rounds", "8", "--log", str(log), "--quiet")
    done = _run("simulate", "regicide", *args)
    assert done.returncode == 1, done.stdout + done.stderr  # a proof below the floor proves nothing
    assert "cut-and-choose with 8 rounds, below the floor" in done.stdout and "nobody is named" in done.stdout
    genesis = parse_envelope(read_log(log).envelopes[0]).body
    assert genesis["proof"] == "cc" and genesis["shuffle_rounds"] == 8
