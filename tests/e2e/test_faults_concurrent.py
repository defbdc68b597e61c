"""Faults in the concurrent steps of Rebel Princess (secret choices: every seat commits, then every
seat opens; entries may be written ahead of their place) among real peer processes on loopback.

- two peers ``kill -9``-ed at nearly the same moment, one at its commitment or its opening, the
  other wherever it is, both restarted: the game finishes, logs identical, audit clean;
- a full disk on one peer mid-game (``FAIRDECK_FAULT_DISK_FULL_AT``), on a bot and on the opener:
  it stops with one line, exit 3, nobody else is blamed; with room again it comes back and the game
  finishes clean;
- a peer frozen (SIGSTOP) past the table's deadline during a secret choice, then continued: the
  others close the game naming it and only it; it names nobody.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from engine.core import Commit
from p2p.log import FAULT_DISK_FULL_AT
from p2p.protocol import Table
from replay.audit import audit_path
from tests.e2e.peer_support import (
    Cluster,
    KillPoint,
    LogFollower,
    Peer,
    assert_one_log_audited_clean,
    own_commit_written,
    own_opening_owed,
    wait_for,
)

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8


def _finish_clean(cluster: Cluster) -> None:
    codes = cluster.wait_finished()
    assert codes == [0] * len(cluster.peers), "\n".join(p.tail() for p in cluster.peers)
    assert_one_log_audited_clean(cluster.logs(), len(cluster.peers))
    for peer in cluster.peers:
        assert not list(peer.home.glob("games/*.evidence")), f"{peer.name} holds evidence of equivocation"
        assert "Traceback" not in peer.errors(), peer.tail()


@pytest.mark.parametrize("point", [own_commit_written, own_opening_owed], ids=["commit", "open"])
def test_two_peers_killed_at_once_in_a_secret_choice(tmp_path: Path, point: KillPoint) -> None:
    with Cluster(tmp_path, game="rebelprincess", rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        first, second = cluster.peer_at(1), cluster.peer_at(2)
        cluster.kill_when(first, point, point.__name__, after_seq=12)
        second.kill()  # a moment later: wherever it is, likely in the same step
        time.sleep(1.0)
        second.start()
        time.sleep(0.2)
        first.start()
        _finish_clean(cluster)
        assert first.exits[0] == -9 and second.exits[0] == -9


def _disk_full_then_room(cluster: Cluster, victim: Peer, opener: bool) -> None:
    code = victim.wait(150)
    assert code == 3, victim.tail()
    assert "No space left on device" in victim.errors(), victim.tail()
    others = [p for p in cluster.peers if p is not victim]
    assert all(p.running for p in others), "a peer left while the table waited for the one with a full disk"
    victim.env = {k: v for k, v in victim.env.items() if k != FAULT_DISK_FULL_AT}  # room again
    if opener:
        cluster.restart_as_bot(victim)
    else:
        victim.start()
    _finish_clean(cluster)


@pytest.mark.parametrize(
    ("game", "who", "at"),
    [("rebelprincess", "a bot", 200_000), ("loveletter", "the opener", 150_000)],
    ids=["rebelprincess-bot", "loveletter-opener"],
)
def test_a_full_disk_on_one_peer_blames_nobody_and_it_finishes_later(
    tmp_path: Path, game: str, who: str, at: int
) -> None:
    with Cluster(tmp_path, game=game, rounds=ROUNDS, quiet_bots=False) as cluster:
        room = dict(cluster.env)
        if who == "the opener":
            cluster.env = {**room, FAULT_DISK_FULL_AT: str(at)}
            cluster.start(bots=0)
            cluster.env = room
            for _ in range(3):
                cluster.start_bot()
            victim = cluster.peers[0]
        else:
            cluster.start(bots=2)
            cluster.env = {**room, FAULT_DISK_FULL_AT: str(at)}
            victim = cluster.start_bot()
            cluster.env = room
        _disk_full_then_room(cluster, victim, who == "the opener")


STALL = 6


def test_a_peer_frozen_past_the_deadline_in_a_secret_choice_is_the_only_one_named(tmp_path: Path) -> None:
    game = "rebelprincess"
    with Cluster(tmp_path, game=game, quiet_bots=False, stall_after=STALL, rounds=ROUNDS) as cluster:
        cluster.no_rematch = True
        cluster.start()
        victim = cluster.peer_at(2)
        host_log = wait_for(cluster.peers[0].log_path, 60, "the host's log")
        follower = LogFollower(host_log)

        def in_commit_phase() -> bool:
            follower.poll()
            table = follower.table
            return (
                table is not None
                and table.next_seq > 12
                and isinstance(table.step.request, Commit)
                and table.step.kind == "commit"
            )

        wait_for(in_commit_phase, 120, "a secret choice under way", every=0.005)
        victim.stop()
        time.sleep(3 * STALL)
        victim.signal(signal.SIGCONT)
        codes = cluster.wait_finished(150)
        logs = cluster.logs()
        seat = Table(follower.entries[0].envelope).seat_of_key(victim.identity().public_key)
        for peer, log, code in zip(cluster.peers, logs, codes, strict=True):
            report = audit_path(log)
            blamed = {f.seat for f in report.faults}
            if peer is victim:
                assert code in (0, 3), peer.tail()
                assert blamed <= {seat, None}, (peer.name, report.text(), peer.tail())
            else:
                assert code == 0, peer.tail()
                assert blamed <= {seat}, (peer.name, report.text(), peer.tail())
