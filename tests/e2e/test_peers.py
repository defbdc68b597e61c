"""Real peers over loopback: four separate processes, each with its own identity and home, play a
whole fair Love Letter game; their logs are byte-identical and ``fairdeck audit`` passes them.

Only 127.0.0.1 is used (bind and connect); no discovery runs here.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from p2p.log import read_log
from p2p.protocol import Table
from tests.e2e.peer_support import FAIRDECK, REPO, Cluster, read_entries, run_fairdeck

ROUNDS = 8  # shuffle-proof rounds: soundness is not under test here, the peers are


def _audit(*logs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=120, cwd=REPO
    )


def _processes_mentioning(text: str) -> list[int]:
    """Pids of live processes whose command line mentions ``text`` (read from /proc only)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry.name))
    return found


def test_four_peer_processes_play_a_whole_fair_game(tmp_path: Path) -> None:
    with Cluster(tmp_path, rounds=ROUNDS) as cluster:
        cluster.start()
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()

    # four homes, four identities, four distinct processes' logs
    assert len({path.parent.parent for path in logs}) == 4
    data = [path.read_bytes() for path in logs]
    assert len(set(data)) == 1, "the four peers' logs differ"
    loaded = read_log(logs[0])
    assert loaded.torn_bytes == 0 and loaded.error is None

    table = Table(loaded.envelopes[0])
    keys = {peer.identity().public_key for peer in cluster.peers}
    assert {party.key for party in table.parties} == keys
    assert table.proof == "wt"  # the default, and the floor every peer holds the table to

    entries = read_entries(logs[0])
    kinds = {e.kind for e in entries}
    assert {"genesis", "countersign", "keyshare", "shuffle", "tokens", "sealed", "move", "final"} <= kinds
    assert [e.seat for e in entries if e.kind == "final"] == [0, 1, 2, 3]
    # every party wrote moves: nobody sat out
    assert {e.seat for e in entries if e.kind == "move"} == {0, 1, 2, 3}

    result = _audit(*logs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "VERDICT: CLEAN" in result.stdout
    assert "finished; result confirmed by all 4 parties" in result.stdout


def test_fairdeck_play_with_four_bots_runs_and_audits_clean(tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "FAIRDECK_HOME": str(home), "TMPDIR": str(scratch)}
    code, out, err = run_fairdeck(["play", "loveletter", "--bots", "4"], env)
    assert code == 0, out[-3000:] + err[-3000:]
    assert "you watch 4 bots play (3 bots joining)" in out
    assert "Game over — winner:" in out
    assert "audit: clean" in out
    logs = list((home / "games").glob("*.fdlog"))
    assert len(logs) == 1
    assert _audit(logs[0]).returncode == 0
    # the bot peers ended with the game (none left running, their scratch homes removed)
    assert _processes_mentioning(str(scratch)) == []
    assert list(scratch.iterdir()) == []


def test_fairdeck_play_trusted_says_no_audit_can_vouch_for_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, out, err = run_fairdeck(["play", "loveletter", "--bots", "4", "--trusted"], {
        **os.environ, "FAIRDECK_HOME": str(home)
    })  # fmt: skip
    assert code == 0, out[-3000:] + err[-3000:]
    assert "Game over — winner:" in out and "audit: clean" not in out
    assert "audit: not auditable: a trusted game: the opener's seat dealt every card" in out
    logs = list((home / "games").glob("*.fdlog"))
    assert len(logs) == 1
    # the one verdict, everywhere: `fairdeck games` shows what the end of the game said
    audited = _audit(logs[0])
    assert audited.returncode == 3 and "VERDICT: NOT AUDITABLE" in audited.stdout
    env = {**os.environ, "FAIRDECK_HOME": str(home)}
    listed = subprocess.run(
        [*FAIRDECK, "games", "list"], capture_output=True, text=True, timeout=120, cwd=REPO, env=env
    ).stdout
    said = next(line for line in out.splitlines() if line.startswith("audit: "))
    assert f"     {said}" in listed, listed
