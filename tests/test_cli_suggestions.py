"""Newcomers' slips at the command line: a mistyped game, command or choice is refused naming the
closest one (``did you mean loveletter?``); a game's number given to ``replay``/``audit`` points to
``fairdeck games replay N``/``audit N``; a game left is listed saying so once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from p2p.log import LogWriter, read_log

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str, cwd: Path | None = None, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if home is not None:
        env["FAIRDECK_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "fairdeck", *args], capture_output=True, text=True, timeout=300,
        cwd=cwd, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_mistyped_game_name_is_refused_naming_the_closest_game() -> None:
    for args, closest in [
        (("play", "loveleter"), "loveletter"),
        (("host", "regicde"), "regicide"),
        (("simulate", "rebelprinces"), "rebelprincess"),
    ]:
        done = _run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert f"invalid choice: {args[1]!r}; did you mean {closest}?" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    done = _run("play", "chess")  # nothing close: the choices alone
    assert done.returncode == 2 and "invalid choice: 'chess'" in done.stderr
    assert "did you mean" not in done.stderr and "'loveletter'" in done.stderr


def test_a_mistyped_command_or_choice_is_refused_naming_the_closest_one() -> None:
    for args, words in [
        (("pley", "loveletter"), "invalid choice: 'pley'; did you mean play?"),
        (("games", "replya", "1"), "invalid choice: 'replya'; did you mean replay?"),
        (("play", "loveletter", "--level", "hrad"), "invalid choice: 'hrad'; did you mean hard?"),
    ]:
        done = _run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "(see `fairdeck" in done.stderr and "Traceback" not in done.stderr


def test_a_game_number_given_as_a_log_points_to_fairdeck_games(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for command in ("replay", "audit"):
        done = _run(command, "1", cwd=tmp_path, home=home)
        assert done.returncode == 2, done.stderr
        assert "there is no file 1" in done.stderr and f"run `fairdeck games {command} 1`" in done.stderr
        assert "No such file or directory" not in done.stderr and done.stdout == ""
        # the command pointed to exists and takes that number (this home has no game 1 yet)
        pointed = _run("games", command, "1", cwd=tmp_path, home=home)
        assert pointed.returncode == 2 and "no game 1: the list has 0" in pointed.stderr, pointed.stderr
    # --json still prints its report (unreadable), the pointer on stderr
    done = _run("audit", "--json", "1", cwd=tmp_path, home=home)
    assert json.loads(done.stdout)["verdict"] == "unreadable"
    assert "run `fairdeck games audit 1`" in done.stderr and done.returncode == 2
    # a file that is called 1 is read as the log it is
    (tmp_path / "1").write_bytes(b"not a log")
    for command in ("replay", "audit"):
        done = _run(command, "1", cwd=tmp_path, home=home)
        assert done.returncode == 2 and "fairdeck games" not in done.stderr + done.stdout
    # a name that is not a number is no game's number
    done = _run("replay", "1x", cwd=tmp_path, home=home)
    assert done.returncode == 2 and "cannot read 1x" in done.stderr and "fairdeck games" not in done.stderr


def test_a_game_left_is_listed_saying_so_once(tmp_path: Path) -> None:
    finished = tmp_path / "game.fdlog"
    done = _run(
        "simulate", "loveletter", "--players", "2", "--fair", "--log", str(finished), "--quiet",
        home=tmp_path / "sim",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    games = tmp_path / "home" / "games"
    games.mkdir(parents=True)
    envelopes = read_log(finished).envelopes
    for prefix, why in (("aaaa", "you left the table"), ("bbbb", "interrupted")):
        path = games / f"{prefix}{'0' * 28}.fdlog"
        writer = LogWriter(path)
        for envelope in envelopes[:30]:  # unfinished, as a game left before its end
            writer.append(envelope)
        writer.close()
        path.with_suffix(".left").write_text(json.dumps({"why": why, "resumable": False}))
    done = _run("games", home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "you left the table; its bots are gone, so it cannot go on" in done.stdout, done.stdout
    assert "you left it: interrupted; its bots are gone" in done.stdout, done.stdout
    assert "you left it (" not in done.stdout and "(you left the table)" not in done.stdout


def test_an_address_without_its_port_is_refused_saying_the_port_is_missing() -> None:
    for command in ("join", "watch"):
        for address in ("127.0.0.1", "192.168.1.20", "localhost"):
            done = _run(command, address)
            assert done.returncode == 2, (command, address, done.stderr)
            said = done.stderr.strip()
            port_words = f"{address} looks like an address: add the table's port, e.g. {address}:47017"
            assert port_words in said, said
            assert "no table called" not in said and len(said.splitlines()) == 1 and "Traceback" not in said


def test_a_host_on_every_interface_names_its_lan_address_in_the_join_hint(tmp_path: Path) -> None:
    """``fairdeck host`` bound to 0.0.0.0 (the default) tells the address others can type, read from
    this machine's interfaces; only a machine without any LAN address gets the placeholder."""
    import socket

    from fairdeck.console.addresses import join_addresses, lan_addresses

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    host = subprocess.Popen(
        [sys.executable, "-m", "fairdeck", "host", "loveletter", "--port", str(port), "--no-advertise",
         "--plain"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "FAIRDECK_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    try:  # (it waits in its lobby: the first line is the hint, then it is stopped)
        assert host.stdout is not None
        hint = host.stdout.readline()
    finally:
        host.terminate()
        host.wait(60)
    assert "others join with" in hint, hint
    found = lan_addresses()
    if found:  # (this machine has one: the hint must name it, never the placeholder)
        assert f"fairdeck join {found[0]}:{port}" in hint, hint
        assert "<this machine's address>" not in hint, hint
        assert all(not a.startswith(("127.", "169.254.")) for a in found)
    else:
        assert f"fairdeck join <this machine's address>:{port}" in hint, hint
    assert join_addresses("127.0.0.1", port) == [f"127.0.0.1:{port}"]  # a table bound to one address
    assert join_addresses("192.168.7.9", port) == [f"192.168.7.9:{port}"]
