"""A peer frozen (SIGSTOP) past the table's deadline at an exact kind of step, in every game.

The existing suites freeze a peer "somewhere under way" (Love Letter), two peers at once, or a
Rebel Princess peer at a secret choice. Here the peer is stopped exactly when its own log says it
owes an entry of a given kind — its countersignature or key share at the start, a shuffle, reveal
tokens, a move, a commitment or an opening — kept stopped for three deadlines, then continued.
Real peer processes on loopback.

Every honest party must end (exit 0, well before the test's generous bound), close the game
naming the frozen seat and only it, hold a log identical to every other honest party's, and the
audit of every log must name nobody else; nothing may print a traceback.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from p2p.log import Entry, read_log
from p2p.protocol import Table
from replay.audit import audit_path, compare_logs
from tests.e2e.peer_support import GAME_TIMEOUT, Cluster, LogFollower, Peer, PeerFailure

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]

STALL = 6
AWAY = 3 * STALL


def stop_when_owed(victim: Peer, kind: str, after_seq: int = 8, timeout: float = GAME_TIMEOUT) -> Entry:
    """SIGSTOP ``victim`` as soon as its own log says it owes an entry of ``kind`` in the step
    under way (after entry ``after_seq``; a peer prepares its shuffle ahead, so the moment it is
    the very next writer is too short to catch); return the last entry it held then. The victim is stopped
    while each new piece of its log is read, so a short step cannot slip by."""
    deadline = time.monotonic() + timeout
    follower: LogFollower | None = None
    size = -1
    while time.monotonic() < deadline:
        if not victim.running:
            raise PeerFailure(f"{victim.name} exited before owing a {kind}\n{victim.tail()}")
        path = follower.path if follower is not None else victim.log_path()
        now = path.stat().st_size if path is not None and path.exists() else -1
        if path is None or now == size:
            time.sleep(0.001)
            continue
        victim.stop()
        size = path.stat().st_size
        follower = follower or LogFollower(path)
        follower.poll()
        table, last = follower.table, follower.last
        if table is not None and last is not None and table.ended is None and last.seq > after_seq:
            me = table.seat_of_key(victim.identity().public_key)
            step = table.step
            if step.kind == kind and me in step.writers:
                return last  # stays stopped
        victim.signal(signal.SIGCONT)
        time.sleep(0.0005)
    raise PeerFailure(f"{victim.name} never owed a {kind} within {timeout:g} s\n{victim.tail()}")


EARLY = {"countersign": -1, "keyshare": -1, "shuffle": 0}
"""Kinds written at the start of the game: looked for from the genesis on."""

CASES = [
    ("loveletter", 3, "countersign"),
    ("regicide", 2, "keyshare"),
    ("regicide", 2, "shuffle"),
    ("rebelprincess", 4, "shuffle"),
    ("loveletter", 3, "tokens"),
    ("regicide", 3, "move"),
    ("rebelprincess", 3, "commit"),
    ("rebelprincess", 4, "open"),
]


@pytest.mark.parametrize(("game", "seats", "kind"), CASES, ids=[f"{g}-{s}-{k}" for g, s, k in CASES])
def test_a_peer_frozen_where_it_owes_an_entry_is_the_only_one_named(
    tmp_path: Path, game: str, seats: int, kind: str
) -> None:
    with Cluster(tmp_path, game=game, seats=seats, quiet_bots=False, stall_after=STALL) as cluster:
        cluster.no_rematch = True
        cluster.start()
        victim = cluster.peers[-1]
        stop_when_owed(victim, kind, after_seq=EARLY.get(kind, 8))
        time.sleep(AWAY)
        victim.signal(signal.SIGCONT)
        codes = cluster.wait_finished(150)
        logs = cluster.logs()
    genesis = Table(read_log(logs[0]).envelopes[0])
    seat = genesis.seat_of_key(victim.identity().public_key)
    honest = [p for p in cluster.peers if p is not victim]
    honest_logs = [log for p, log in zip(cluster.peers, logs, strict=True) if p is not victim]
    assert len({log.read_bytes() for log in honest_logs}) == 1, "the honest parties' logs differ"
    reports = [audit_path(log) for log in logs]
    for peer, report, code in zip(cluster.peers, reports, codes, strict=True):
        blamed = {f.seat for f in report.faults}
        assert blamed <= {seat, None}, (peer.name, report.text(), peer.tail())
        assert "Traceback" not in peer.errors(), peer.tail()
        if peer is victim:
            assert code in (0, 3), peer.tail()
        else:
            assert code == 0, peer.tail()
            assert blamed == {seat}, (peer.name, report.text())
    assert {f.seat for f in compare_logs(logs, reports)} <= {seat, None}
    assert all(p.exits for p in honest)
