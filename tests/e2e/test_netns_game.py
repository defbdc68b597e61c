"""A whole game across three network namespaces joined by a bridge (``tests/netns.py``).

- ns0 (10.213.8.1): ``fairdeck host loveletter --bind 0.0.0.0 --bots 1`` — it advertises the table
  with zeroconf on *all* of its namespace's interfaces (there are only ``lo`` and the bridge's veth),
  seats a local bot peer, and its own seat is played from stdin by a "person" who always types 1
  (the first legal move);
- ns1 and ns2: ``fairdeck tables`` finds the table from another namespace, then a
  ``fairdeck bot --join ADDRESS:PORT --bind <own address>`` peer joins from each.

The game crosses the bridge (every endpoint in the roster is a bridge address), all four logs are
byte-identical and ``fairdeck audit`` passes them. The test creates and removes the namespaces; the
processes that use zeroconf on "all" interfaces only ever run inside them. Needs root (CI has it):
without it the test fails with a clear message rather than skipping.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path
from typing import IO, Any

import msgpack
import pytest

from tests.e2e.peer_support import (
    FAIRDECK,
    GAME_TIMEOUT,
    REPO,
    PeerFailure,
    assert_one_log_audited_clean,
    wait_for,
)
from tests.netns import Lan, list_namespaces, require_netns

pytestmark = [pytest.mark.netns, pytest.mark.slow]

ROUNDS = 8
_TABLE_LINE = re.compile(r"\s(?P<addr>\d+\.\d+\.\d+\.\d+(?:,\d+\.\d+\.\d+\.\d+)*):(?P<port>\d+)$")


def _start(
    lan: Lan, index: int, argv: list[str], home: Path, files: list[IO[Any]], **env: str
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in player namespace ``index`` with its own home; output goes to files."""
    home.mkdir(parents=True, exist_ok=True)
    out = (home.parent / f"{home.name}.out").open("ab")
    err = (home.parent / f"{home.name}.err").open("ab")
    files += [out, err]
    return lan.run(
        lan.players[index],
        argv,
        cwd=REPO,
        env={**os.environ, "FAIRDECK_HOME": str(home), "PYTHONUNBUFFERED": "1", **env},
        stdin=subprocess.PIPE,
        stdout=out,
        stderr=err,
    )


def _find_table(lan: Lan, index: int, name: str, home: Path) -> str:
    """Run ``fairdeck tables`` in namespace ``index`` until it lists ``name``; return HOST:PORT."""
    deadline = time.monotonic() + 60
    seen = ""
    while time.monotonic() < deadline:
        proc = lan.run(
            lan.players[index],
            [*FAIRDECK, "tables", "--wait", "3"],
            cwd=REPO,
            env={**os.environ, "FAIRDECK_HOME": str(home)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        seen, _ = proc.communicate(timeout=60)
        for line in seen.decode(errors="replace").splitlines():
            match = _TABLE_LINE.search(line)
            if line.startswith(name) and match:
                return f"{match['addr'].split(',')[0]}:{match['port']}"
    raise PeerFailure(f"`fairdeck tables` in {lan.players[index]} never listed {name!r}; last saw:\n{seen!r}")


def _one_log(directory: Path) -> Path:
    logs = list(directory.glob("**/games/*.fdlog"))
    assert len(logs) == 1, f"expected one log under {directory}, found {logs}"
    return logs[0]


def test_discovery_and_a_whole_game_across_three_namespaces(tmp_path: Path) -> None:
    require_netns()  # a clear failure, not a skip, without root or iproute2
    lan = Lan(players=3)
    table = f"netns-{lan.hub.split('-')[2]}"
    homes = [tmp_path / f"ns{i}" for i in range(3)]
    scratch = tmp_path / "host-scratch"  # where `fairdeck host --bots 1` puts its bot's home
    scratch.mkdir()
    files: list[IO[Any]] = []
    try:
        with lan:
            host = _start(
                lan,
                0,
                [*FAIRDECK, "host", "loveletter", "--bind", "0.0.0.0", "--bots", "1", "--plain"]
                + ["--name", table],
                homes[0],
                files,
                TMPDIR=str(scratch),
                FAIRDECK_DEBUG="1",
            )
            assert host.stdin is not None
            host.stdin.write(b"1\n" * 5000)  # the person's answers; the pipe stays open
            host.stdin.flush()
            host_out = homes[0].parent / "ns0.out"
            wait_for(lambda: "table open" in host_out.read_text(), 60, "the host's table")

            address = _find_table(lan, 1, table, homes[1])
            assert address.startswith(lan.address(0) + ":")  # found from ns1 at ns0's bridge address
            assert _find_table(lan, 2, table, homes[2]) == address
            bots = [
                _start(
                    lan,
                    i,
                    [*FAIRDECK, "bot", "--join", address, "--bind", lan.address(i), "--name", f"remote-{i}"]
                    + ["--home", str(homes[i])],
                    homes[i],
                    files,
                )
                for i in (1, 2)
            ]
            deadline = time.monotonic() + GAME_TIMEOUT
            codes = []
            for proc, name in [(host, "host"), *zip(bots, ["ns1", "ns2"], strict=True)]:
                try:
                    codes.append(proc.wait(timeout=max(1.0, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    outputs = "\n".join(
                        f"[{p.name}]\n{p.read_text(errors='replace')[-2500:]}"
                        for p in sorted(tmp_path.glob("*.out")) + sorted(tmp_path.glob("*.err"))
                    )
                    raise PeerFailure(f"{name} did not finish\n{outputs}") from None
            made = [lan.hub, *lan.players]
        assert not set(made) & set(list_namespaces())  # namespaces (and bridge, veths) are gone
    finally:
        for handle in files:
            handle.close()

    host_text = (homes[0].parent / "ns0.out").read_text()
    assert codes == [0, 0, 0], host_text[-3000:]
    assert "Game over" in host_text and "audit: clean" in host_text
    for i in (1, 2):  # a bot run by hand says where its log is and what the audit found, too
        bot_text = (homes[i].parent / f"ns{i}.out").read_text()
        assert "Game over" in bot_text and "audit: clean" in bot_text, bot_text[-2000:]
        assert f"log: {_one_log(homes[i])}" in bot_text, bot_text[-2000:]

    # the host's own bot kept its home in the host's temp dir, which the host removes as it leaves
    assert not list(scratch.glob("**/games/*.fdlog"))
    logs = [_one_log(home) for home in homes]
    assert_one_log_audited_clean(logs, 4)  # the three people's and remote bots' logs
    roster = msgpack.unpackb(logs[0].with_suffix(".roster").read_bytes(), raw=False)
    hosts = sorted(e.removeprefix("tcp://").rsplit(":", 1)[0] for e in roster["endpoints"])
    # every peer was reached over the bridge; the host's local bot too, at ns0's address
    assert hosts == sorted([lan.address(0), lan.address(0), lan.address(1), lan.address(2)])
    print(f"\nnetns game across the bridge: {logs[0].stat().st_size} bytes of log, audit clean")


_JOIN_PORT = re.compile(r"fairdeck join (?:<this machine's address>|[0-9.]+):(\d+)")  # (its LAN address)


def test_a_player_whose_cable_is_pulled_mid_game_comes_back_and_the_game_finishes(tmp_path: Path) -> None:
    """Fault injection: ns2's cable is pulled for some seconds in the middle of a game (its packets
    vanish, nothing is reset) and plugged back. Nobody is blamed, nobody hangs: the links notice,
    reconnect, catch up, and the game ends with identical logs and a clean audit."""
    require_netns()
    lan = Lan(players=3)
    homes = [tmp_path / f"ns{i}" for i in range(3)]
    scratch = tmp_path / "host-scratch"
    scratch.mkdir()
    files: list[IO[Any]] = []
    procs: list[subprocess.Popen[bytes]] = []

    def outputs() -> str:
        return "\n".join(
            f"[{p.name}]\n{p.read_text(errors='replace')[-2500:]}"
            for p in sorted(tmp_path.glob("*.out")) + sorted(tmp_path.glob("*.err"))
        )

    try:
        with lan:
            argv = [*FAIRDECK, "host", "loveletter", "--bind", "0.0.0.0", "--bots", "1", "--plain"]
            host = _start(lan, 0, [*argv, "--name", "cable"], homes[0], files, TMPDIR=str(scratch))
            assert host.stdin is not None
            host.stdin.write(b"1\n" * 5000)
            host.stdin.flush()
            host_out = homes[0].parent / "ns0.out"
            wait_for(lambda: _JOIN_PORT.search(host_out.read_text()) is not None, 60, "the host's table")
            match = _JOIN_PORT.search(host_out.read_text())
            assert match is not None
            address = f"{lan.address(0)}:{match[1]}"
            for i in (1, 2):
                argv = [*FAIRDECK, "bot", "--join", address, "--bind", lan.address(i), "--name"]
                procs.append(_start(lan, i, [*argv, f"remote-{i}", "--home", str(homes[i])], homes[i], files))
            procs.insert(0, host)
            wait_for(lambda: host_out.read_text().count(" draws") >= 3, GAME_TIMEOUT, "the game under way")

            lan.cable(2, plugged=False)
            time.sleep(8)  # more than the links' 3-second timeout, far less than the stall deadline
            assert all(p.poll() is None for p in procs), "the game ended during the cut:\n" + outputs()
            lan.cable(2, plugged=True)

            deadline = time.monotonic() + GAME_TIMEOUT
            codes = []
            for proc, name in zip(procs, ["host", "ns1", "ns2"], strict=True):
                try:
                    codes.append(proc.wait(timeout=max(1.0, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    why = f"{name} did not finish after the cable came back"
                    raise PeerFailure(f"{why}\n{outputs()}") from None
    finally:
        for handle in files:
            handle.close()

    host_text = (homes[0].parent / "ns0.out").read_text()
    assert codes == [0, 0, 0], outputs()
    assert "Game over" in host_text and "audit: clean" in host_text
    # the player at ns0 was told who went and came back, and nothing about the others
    link_news = re.compile(r"\) (connected|disconnected|back after)")
    news = [line for line in host_text.splitlines() if link_news.search(line)]
    # (seats follow the order of joining: remote-2 is the one in ns2, whatever its seat)
    assert len(news) == 2 and all("remote-2 (seat" in line for line in news), news
    assert news[0].endswith(") disconnected") and ") back after " in news[1], news
    assert_one_log_audited_clean([_one_log(home) for home in homes], 4)
