"""What goes wrong before or around a game says so in one line and exits non-zero, with nothing left
behind: a busy port, no terminal to read moves from, a home that cannot be written; and
``fairdeck tables`` counts the free seats as they are after each join.

Every command is a real ``fairdeck`` process (with a private ``FAIRDECK_HOME`` and ``TMPDIR``);
tables listen on loopback only.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.peer_support import FAIRDECK, Peer, wait_for
from tests.e2e.tmux_support import run_processes

REPO = Path(__file__).resolve().parents[2]


def _env(home: Path, tmp: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "FAIRDECK_HOME": str(home), "PYTHONPATH": str(REPO), "USER": "tester"}
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    return env


def _one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


def _run(argv: list[str], home: Path, tmp: Path | None = None, **kw: object) -> Any:
    return subprocess.run(
        [*FAIRDECK, *argv], capture_output=True, text=True, timeout=300, env=_env(home, tmp), cwd=REPO, **kw
    )  # type: ignore[call-overload]


def test_host_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _run(
            ["host", "loveletter", "--bind", "127.0.0.1", "--port", str(port), "--no-advertise", "--plain"],
            tmp_path / "home",
            input="",
        )
    assert done.returncode != 0
    line = _one_line(done.stderr)
    assert line.startswith("fairdeck host: cannot listen on 127.0.0.1:") and str(port) in line


def test_host_port_is_the_port_others_join_at(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    host = Peer(
        "host",
        tmp_path / "host",
        [*FAIRDECK, "host", "loveletter", "--bind", "127.0.0.1", "--port", str(port), "--no-advertise",
         "--plain"],
        stdin_text="",
    )  # fmt: skip
    try:
        host.start()
        wait_for(lambda: "fairdeck join" in host.output(), 60, "the table to open")
        assert f"fairdeck join 127.0.0.1:{port}" in host.output()  # where it listens
    finally:
        host.kill()


def test_play_with_an_empty_or_closed_input_says_so_in_one_line(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    home = tmp_path / "home"
    done = _run(["play", "loveletter", "--bots", "3"], home, tmp, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert _one_line(done.stderr).startswith(
        "fairdeck: input closed: the game ends unfinished: your bots stopped with you"
    )
    wait_for(lambda: not run_processes(str(home)), 30, "the bots to be gone")
    assert list(tmp.iterdir()) == []
    # no stdin at all (closed by the shell): refused before anything starts
    command = " ".join([*FAIRDECK, "play", "loveletter", "--bots", "3"]) + " 0<&-"
    closed = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, timeout=120, env=_env(home, tmp), cwd=REPO
    )
    assert closed.returncode == 2
    assert _one_line(closed.stderr) == "fairdeck: no input to read moves from (stdin is closed)"


def test_play_whose_input_closes_mid_game_leaves_in_one_line_with_the_bots(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    home = tmp_path / "home"
    done = _run(["play", "loveletter", "--bots", "3"], home, tmp, input="")  # a pipe, closed at once
    assert done.returncode == 1
    assert _one_line(done.stderr).startswith(
        "fairdeck: input closed: the game ends unfinished: your bots stopped with you"
    )
    wait_for(lambda: not run_processes(str(home)), 30, "the bots to be gone")
    assert list(tmp.iterdir()) == []


def test_an_unattended_game_whose_output_closes_is_not_offered_to_resume(tmp_path: Path) -> None:
    # `fairdeck play loveletter --bots 4 | head -3`: the bots stop with the program, so the game
    # can never go on; `games` must say so and `resume` must not offer it
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    tmp.mkdir()
    command = " ".join([*FAIRDECK, "play", "loveletter", "--bots", "4"]) + " | head -3"
    subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, timeout=120, env=_env(home, tmp), cwd=REPO
    )
    wait_for(lambda: not run_processes(str(home)), 30, "the bots to be gone")
    listed = _run(["games"], home)
    assert "its bots are gone, so it cannot go on" in listed.stdout, listed.stdout
    again = _run(["resume"], home, stdin=subprocess.DEVNULL)
    assert again.returncode != 0 and "no unfinished game to resume" in again.stderr


def test_a_game_against_bots_whose_program_is_killed_is_not_offered_to_resume(tmp_path: Path) -> None:
    # `kill -9` of `fairdeck play`: no `finally` runs, but its bots stop with it (they watch their
    # parent), so the game can never go on; while it ran, `games` said it was being played
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    tmp.mkdir()
    person = subprocess.Popen(
        [*FAIRDECK, "play", "loveletter", "--bots", "2", "--plain"],
        stdin=subprocess.PIPE,  # open and silent: the person thinks
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(home, tmp),
        cwd=REPO,
    )
    try:
        wait_for(lambda: list((home / "games").glob("*.fdlog")), 60, "the game to start")
        wait_for(lambda: "being played now" in _run(["games"], home).stdout, 30, "the game listed as live")
        again = _run(["resume"], home, stdin=subprocess.DEVNULL)
        assert again.returncode != 0 and "no unfinished game to resume" in again.stderr, again.stderr
    finally:
        person.kill()
        person.wait(timeout=10)
    wait_for(lambda: not run_processes(str(home)), 60, "the bots to be gone")
    listed = _run(["games"], home)
    assert "its bots are gone, so it cannot go on" in listed.stdout, listed.stdout
    again = subprocess.run(
        [*FAIRDECK, "resume"], capture_output=True, text=True, timeout=60, env=_env(home), cwd=REPO,
        stdin=subprocess.DEVNULL,
    )
    assert again.returncode != 0 and "no unfinished game to resume" in again.stderr, again.stderr
    number = re.search(r"^\s*(\d+)", listed.stdout, re.M)
    assert number is not None, listed.stdout
    named = _run(["resume", number.group(1)], home, stdin=subprocess.DEVNULL)
    assert named.returncode != 0 and "cannot be resumed" in named.stderr, named.stderr


def _read_only(home: Path) -> list[str]:
    """A command prefix that runs with ``home`` read-only (a read-only bind mount as root, else the
    folder's mode), or skips the test."""
    if os.geteuid() != 0:
        for path in [home, *home.rglob("*")]:
            path.chmod(0o500 if path.is_dir() else 0o400)
        return []
    if shutil.which("unshare") is None:
        pytest.skip("root without unshare: cannot make a read-only home")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no mount namespace here")
    script = f'mount --bind "{home}" "{home}" && mount -o remount,bind,ro "{home}" && exec "$@"'
    return ["unshare", "-m", "sh", "-c", script, "sh"]


def test_play_with_a_read_only_home_says_so_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    assert _run(["whoami"], home).returncode == 0  # the home holds an identity
    prefix = _read_only(home)
    done = subprocess.run(
        [*prefix, *FAIRDECK, "play", "loveletter", "--bots", "3", "--plain"],
        capture_output=True, text=True, timeout=120, env=_env(home, tmp), cwd=REPO, input="1\n" * 50,
    )  # fmt: skip
    assert done.returncode != 0
    line = _one_line(done.stderr)
    assert line.startswith("fairdeck: cannot write game logs in") and "FAIRDECK_HOME" in line
    assert list(tmp.iterdir()) == []
    assert not run_processes(str(home))


def _tables(home: Path, name: str) -> str:
    """The lines ``fairdeck tables --loopback`` prints for the table called ``name`` (its line and
    the indented ones under it)."""
    done = _run(["tables", "--loopback", "--wait", "2"], home)
    assert done.returncode == 0, done.stderr
    assert all(len(line) <= 80 for line in done.stdout.splitlines()), done.stdout  # (no wrapping)
    blocks = re.split(r"\n(?! )", done.stdout)
    return "\n".join(block for block in blocks if block.startswith(name))


def test_tables_counts_the_free_seats_after_each_join(tmp_path: Path) -> None:
    name = f"t-{uuid.uuid4().hex[:8]}"
    host = Peer(
        "host",
        tmp_path / "host",
        [*FAIRDECK, "host", "loveletter", "--seats", "3", "--bind", "127.0.0.1", "--name", name, "--plain",
         "--spectators"],  # fmt: skip
        stdin_text="1\n" * 3000,
    )
    bots: list[Peer] = []
    looker = tmp_path / "looker"
    try:
        host.start()
        opened = wait_for(
            lambda: re.search(r"fairdeck join 127\.0\.0\.1:(\d+)", host.output()), 60, "a table"
        )
        address = f"127.0.0.1:{opened.group(1)}"
        def two_free() -> str | None:
            listed = _tables(looker, name)
            return listed if "2/3 seats free" in listed else None

        assert "spectators welcome (fairdeck watch)" in wait_for(two_free, 60, "two free seats")
        for count in (1, 2):
            argv = [*FAIRDECK, "bot", "--join", address, "--quiet"]
            bots.append(Peer(f"bot{count}", tmp_path / f"bot{count}", argv).start())
            wait_for(lambda c=count: host.output().count(" joined") >= c, 60, "a join")
            listed = _tables(looker, name)
            if count == 1:
                assert "1/3 seats free" in listed, listed
            else:  # full and playing: listed as such while its advertisement lingers, else gone
                assert "seats free" not in listed, listed
                assert listed == "" or "full, playing" in listed, listed
    finally:
        for peer in [host, *bots]:
            peer.kill()


def test_joining_or_watching_where_nothing_listens_says_so_at_once(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for argv in (["join", f"127.0.0.1:{port}", "--yes"], ["watch", f"127.0.0.1:{port}", "--plain"]):
        done = _run(argv, tmp_path / "home", stdin=subprocess.DEVNULL)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        line = _one_line(done.stderr)
        assert f"no table at 127.0.0.1:{port}: nothing is listening there" in line, line
        assert "within" not in line  # not the request's timeout: said before any request
