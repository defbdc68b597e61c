"""A peer stopped (SIGSTOP) for longer than the table's deadline, then let go on. The others close
the game on it, rightly. When it wakes it must not act on its old view: it used to write its own
entry for the place already closed, refuse the close as a lie, go on alone, and at the next
deadline close the game on an honest party that had left, naming it in its own log. Now it reads
what came while it was away, sees that the close named it after its own deadline, and stops
without writing anything more; every log names only the frozen seat, or nobody."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from p2p.log import read_log
from p2p.protocol import Table
from replay.audit import audit_path, compare_logs
from tests.e2e.peer_support import Cluster, Peer, PeerFailure, read_entries, wait_for

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]

STALL = 6
AWAY = 3 * STALL


def _under_way(cluster: Cluster) -> bool:
    try:
        return all(len(read_entries(p)) > 30 for p in cluster.logs())
    except (PeerFailure, OSError):
        return False  # not every log is there yet


@pytest.mark.parametrize("frozen", ["a bot", "the opener"])
def test_a_peer_frozen_past_the_deadline_names_nobody_when_it_wakes(tmp_path: Path, frozen: str) -> None:
    with Cluster(tmp_path, game="loveletter", seats=4, quiet_bots=False, stall_after=STALL) as cluster:
        cluster.start()
        wait_for(lambda: _under_way(cluster), 90, "the game under way")
        victim = cluster.peers[0] if frozen == "the opener" else cluster.peers[2]
        victim.stop()
        time.sleep(AWAY)
        victim.signal(signal.SIGCONT)
        codes = cluster.wait_finished(120)
        logs = [p.log_path() for p in cluster.peers]
    assert all(logs)
    envelopes = read_log(logs[0] if victim is not cluster.peers[0] else logs[1]).envelopes  # type: ignore[arg-type]
    seat = Table(envelopes[0]).seat_of_key(victim.identity().public_key)
    for peer, log, code in zip(cluster.peers, logs, codes, strict=True):
        assert log is not None
        report = audit_path(log)
        blamed = {f.seat for f in report.faults}
        assert blamed <= {seat, None}, (peer.name, report.text(), peer.tail())
        if peer is victim:
            # it stopped on its own, and said why; or it woke in time to take the close itself
            assert code in (0, 3), peer.tail()
            assert code == 0 or "naming us" in peer.errors(), peer.tail()
        else:
            assert code == 0, peer.tail()
            assert blamed == {seat}, (peer.name, report.text())


def _seats_of(peers: list[Peer], logs: list[Path]) -> set[int]:
    """The seats of ``peers``, read off a log's genesis."""
    table = Table(read_log(logs[0]).envelopes[0])
    return {table.seat_of_key(p.identity().public_key) for p in peers}


@pytest.mark.parametrize(
    ("game", "seats", "fault"),
    [("loveletter", 4, "stopped"), ("regicide", 3, "stopped"), ("loveletter", 4, "killed")],
    ids=["two of four stopped", "two of three stopped", "two of four killed and restarted"],
)
def test_two_peers_away_past_the_deadline_never_get_an_honest_party_named(
    tmp_path: Path, game: str, seats: int, fault: str
) -> None:
    """Two peers away at once. Stopped: one of them may read the other's late entry before the
    close and refuse it; it used to go on and close the game on a party whose game had ended
    there. With two of three stopped, the opener hears nobody: it must neither close the game on
    a stopped one nor stop before they are back. Killed and restarted past the deadline: the two
    answered each other's catch-up, went on and closed the game on a party that had left."""
    with Cluster(tmp_path, game=game, seats=seats, quiet_bots=False, stall_after=STALL) as cluster:
        cluster.no_rematch = True
        cluster.start()
        wait_for(lambda: _under_way(cluster), 90, "the game under way")
        away = cluster.peers[1:3]
        for peer in away:
            if fault == "stopped":
                peer.stop()
            else:
                peer.kill()
        time.sleep(STALL + 4)
        for peer in away:
            if fault == "stopped":
                peer.signal(signal.SIGCONT)
            else:
                peer.start()
        codes = cluster.wait_finished(150)
        logs = cluster.logs()
    suspects: set[int | None] = {*_seats_of(away, logs), None}
    for peer, log, code in zip(cluster.peers, logs, codes, strict=True):
        report = audit_path(log)
        assert {f.seat for f in report.faults} <= suspects, (peer.name, report.text(), peer.tail())
        if peer not in away:
            assert code == 0, peer.tail()
    assert {f.seat for f in compare_logs(logs, [audit_path(p) for p in logs])} <= suspects
