"""A disk that fills at the very start of a game: a joiner whose log can take its genesis but not much
more (its countersignature or key share fails), or the opener's. Real peer processes on loopback,
``FAIRDECK_FAULT_DISK_FULL_AT`` (the existing suites fill the disk mid-game).

The peer stops with one clear line (no traceback), exit 3; nobody is named; with room again the
same command resumes it and the game finishes with identical logs and a clean audit.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from p2p.log import FAULT_DISK_FULL_AT
from tests.e2e.peer_support import Cluster, Peer, assert_one_log_audited_clean

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]


@pytest.mark.parametrize(
    ("game", "who", "at"),
    [("regicide", "a bot", 1500), ("rebelprincess", "a bot", 4000), ("loveletter", "the opener", 3000)],
    ids=["regicide-bot-1500", "rebelprincess-bot-4000", "loveletter-opener-3000"],
)
def test_a_disk_full_at_the_start_stops_one_peer_and_it_finishes_the_game_later(
    tmp_path: Path, game: str, who: str, at: int
) -> None:
    with Cluster(tmp_path, game=game, seats=3, quiet_bots=False) as cluster:
        cluster.no_rematch = True
        room = dict(cluster.env)
        victim: Peer
        if who == "the opener":
            cluster.env = {**room, FAULT_DISK_FULL_AT: str(at)}
            cluster.start(bots=0)
            cluster.env = room
            cluster.start_bot()
            cluster.start_bot()
            victim = cluster.peers[0]
        else:
            cluster.start(bots=1)
            cluster.env = {**room, FAULT_DISK_FULL_AT: str(at)}
            victim = cluster.start_bot()
            cluster.env = room
        code = victim.wait(120)
        assert code == 3, victim.tail()
        errors = [line for line in victim.errors().splitlines() if line and not line.startswith("---")]
        assert len(errors) == 1 and "No space left on device" in errors[0], victim.errors()
        others = [p for p in cluster.peers if p is not victim]
        assert all(p.running for p in others), "\n".join(p.tail() for p in others)
        time.sleep(0.5)
        victim.env = dict(room)  # room again
        if who == "the opener":
            cluster.restart_as_bot(victim)
        else:
            victim.start()
        codes = cluster.wait_finished()
        assert codes == [0] * 3, "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), 3)
        for peer in cluster.peers:
            assert "Traceback" not in peer.errors(), peer.tail()
