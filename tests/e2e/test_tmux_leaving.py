"""Leaving a game against bots, every way a person does: Ctrl-C then ``y``, a second Ctrl-C right
after, SIGTERM, and a closed terminal (SIGHUP). Each time the bots and their temporary folder go
with the person's process.

A private tmux server runs ``fairdeck play loveletter --bots 3`` (four real peer processes) with a
private ``TMPDIR`` and ``FAIRDECK_HOME``. Every process of the run is found in the process table by
that private home in its environment; the temporary folders are whatever appears in that ``TMPDIR``.
The assertions are on the process table and the file system: once the bots are gone (however long
that takes), within 2 s nothing of the run is left — no process, no temporary folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.tmux_support import FAIRDECK, Terminal, run_processes, wait_decision

PATIENCE = 300.0
"""Seconds before a run that never gets there is declared stuck (never a timing assertion)."""


def wait_until(condition: object, patience: float = PATIENCE) -> None:
    deadline = time.monotonic() + patience
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "never got there"
        time.sleep(0.1)


@pytest.fixture
def private_tmp(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "tmp"
    path.mkdir()
    yield path


def _start(terminal: Terminal, tmp: Path, session: str = "play") -> tuple[int, list[int]]:
    """Start a game against three bots; wait for the person's first decision; return the pids of
    the person's process and of the bots."""
    terminal.run(session, [*FAIRDECK, "play", "loveletter", "--bots", "3"], env={"TMPDIR": str(tmp)})
    wait_decision(terminal, session)
    procs = run_processes(str(terminal.home))
    bots = [pid for pid, cmd in procs.items() if " bot " in cmd]
    main = [pid for pid, cmd in procs.items() if " play " in cmd]
    assert len(bots) == 3 and len(main) == 1, procs
    assert [p.name for p in tmp.iterdir()], "the bots' temporary folder is there while they play"
    return main[0], bots


def _assert_all_gone(terminal: Terminal, tmp: Path, bots: list[int]) -> None:
    """Once the bots have exited: within 2 s no process of the run and no temporary folder is left."""
    wait_until(lambda: not set(bots) & set(run_processes(str(terminal.home))))
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and (run_processes(str(terminal.home)) or list(tmp.iterdir())):
        time.sleep(0.05)
    assert run_processes(str(terminal.home)) == {}
    assert list(tmp.iterdir()) == []


def test_ctrl_c_then_y_leaves_at_once_with_the_bots(terminal: Terminal, private_tmp: Path) -> None:
    main, bots = _start(terminal, private_tmp)
    terminal.keys("play", "C-c")
    box = terminal.wait("play", lambda s: "Leave the table?" in s)
    # the bots stop with the person: the box says the game ends for good, not "resume"
    assert "Leaving ends this game for good: your bots stop with you" in box
    assert "fairdeck resume" not in box
    terminal.keys("play", "y")
    _assert_all_gone(terminal, private_tmp, bots)
    after = terminal.wait("play", lambda s: "FAIRDECK-EXIT=" in s)
    assert "FAIRDECK-EXIT=130" in after
    unwrapped = after.replace("\n", "")  # (the line wraps at the terminal's width)
    assert "you left the table: the game ends unfinished: your bots stopped with you" in unwrapped
    assert "Traceback" not in after
    # the game left is not offered by `resume`, and `games` says it was left
    done = subprocess.run(
        [*FAIRDECK, "resume"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAIRDECK_HOME": str(terminal.home)}, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode != 0 and "no unfinished game to resume" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    listed = subprocess.run(
        [*FAIRDECK, "games"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAIRDECK_HOME": str(terminal.home)}, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert "left" in listed.stdout and "you left the table; its bots are gone" in listed.stdout
    assert "bot-1, run by tester" in listed.stdout


def test_a_second_ctrl_c_still_takes_the_bots(terminal: Terminal, private_tmp: Path) -> None:
    main, bots = _start(terminal, private_tmp)
    terminal.keys("play", "C-c")
    terminal.wait("play", lambda s: "Leave the table?" in s)
    terminal.keys("play", "y", "C-c")
    _assert_all_gone(terminal, private_tmp, bots)
    after = terminal.wait("play", lambda s: "FAIRDECK-EXIT=" in s)
    assert "Traceback" not in after


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_takes_the_bots(terminal: Terminal, private_tmp: Path, sig: signal.Signals) -> None:
    main, bots = _start(terminal, private_tmp)
    os.kill(main, sig)
    _assert_all_gone(terminal, private_tmp, bots)
    after = terminal.wait("play", lambda s: "FAIRDECK-EXIT=" in s)
    assert "Traceback" not in after
    listed = subprocess.run(
        [*FAIRDECK, "games"], capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAIRDECK_HOME": str(terminal.home)}, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert "its bots are gone, so it cannot go on" in listed.stdout, listed.stdout


def test_a_closed_terminal_takes_the_bots(terminal: Terminal, private_tmp: Path) -> None:
    main, bots = _start(terminal, private_tmp)
    terminal.tmux("kill-session", "-t", "play")  # the terminal goes: SIGHUP to what runs in it
    _assert_all_gone(terminal, private_tmp, bots)
