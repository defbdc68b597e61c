"""The opener of a table dies at the worst moments of the lobby; nobody waits forever.

- Right after it wrote the genesis, before any joiner heard of it (the host helper's
  ``--exit-before-start`` dies exactly there): restarted the documented way (``fairdeck bot --home
  <its home>``), it resends the start to the joiners still in the lobby, and the game is played out.
- In the lobby, with bots seated by ``fairdeck host --bots`` (each in its own session, so killing the
  host's process group does not reach them) and one more joined by hand: every bot notices the
  opener is gone and leaves within a bounded time (``p2p.node.LOBBY_SILENCE``) with one line and a
  non-zero exit; the process table is checked.

Real processes, loopback only, every process group killed at the end whatever happens.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from p2p.node import LOBBY_SILENCE
from tests.e2e.peer_support import (
    FAIRDECK,
    REPO,
    Cluster,
    Peer,
    processes_mentioning,
    read_entries,
    wait_for,
)


def test_the_opener_killed_right_after_the_genesis_starts_the_table_when_it_comes_back(
    tmp_path: Path,
) -> None:
    with Cluster(tmp_path, rounds=8, quiet_bots=False) as cluster:
        cluster.host_exits_before_start = True
        cluster.start()
        host = cluster.peers[0]
        assert host.wait(60) == 9, host.tail()  # died with its genesis written, nothing sent
        path = host.log_path()
        assert path is not None and len(read_entries(path)) == 1
        assert all(p.log_path() is None for p in cluster.peers[1:])  # the joiners never heard of it
        time.sleep(1.0)
        cluster.restart_as_bot(host)
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()
    assert len({p.read_bytes() for p in logs}) == 1
    assert read_entries(logs[0])[0].envelope == read_entries(path)[0].envelope  # that very genesis
    audit = subprocess.run(
        [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=180, cwd=REPO
    )
    assert audit.returncode == 0, audit.stdout


@pytest.mark.slow
def test_bots_leave_a_lobby_whose_opener_died(tmp_path: Path) -> None:
    env = {**os.environ, "FAIRDECK_HOME": str(tmp_path / "host"), "TMPDIR": str(tmp_path)}
    host = subprocess.Popen(
        [*FAIRDECK, "host", "loveletter", "--seats", "4", "--bots", "1", "--plain", "--no-advertise",
         "--bind", "127.0.0.1", "--port", "0"],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
    )  # fmt: skip
    hand: Peer | None = None
    try:
        assert host.stdout is not None
        line = host.stdout.readline()
        assert "fairdeck join" in line, line
        port = line.split("fairdeck join 127.0.0.1:", 1)[1].split()[0]
        cluster = Cluster(tmp_path / "hand")
        cluster.address = f"127.0.0.1:{port}"
        hand = Peer("bot-by-hand", tmp_path / "hand" / "bot", cluster.bot_argv(9, cluster.address)).start()
        wait_for(lambda: cluster.lobby()["free"] == 1, 60, "two bots in the lobby")
        spawned = processes_mentioning(str(tmp_path / "fairdeck-bots-"))
        assert len(spawned) == 1  # the host's own bot, in a session of its own
        os.killpg(host.pid, signal.SIGKILL)
        host.wait()
        # nobody waits forever: both bots go, within the lobby's silence limit (and some slack)
        wait_for(
            lambda: not processes_mentioning(str(tmp_path)),
            LOBBY_SILENCE * 3,
            "every bot to leave the dead lobby",
            every=0.5,
        )
        code = hand.wait(5)
        errors = [e for e in hand.errors().splitlines() if e and not e.startswith("---")]
    finally:
        for proc in [host, *([hand.proc] if hand is not None and hand.proc is not None else [])]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        for pid in processes_mentioning(str(tmp_path)):
            os.kill(pid, signal.SIGKILL)
    assert code == 2
    assert len(errors) == 1 and errors[0].startswith("fairdeck bot: the table at 127.0.0.1:"), errors
    assert f"nothing from its opener for {LOBBY_SILENCE:g} s" in errors[0]
