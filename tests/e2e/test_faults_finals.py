"""A peer that dies in the game's last step, the concurrent ``final`` entries, and comes back.

Real peer processes on loopback. The host killed right after its own ``final`` went out is
``test_crash_recovery``'s; here a bot dies just *before* its own ``final`` leaves
(``tests/e2e/final_crasher.py``), alone or with another bot killed at the same moment. The others
hold their finals and wait for it (the game is not over without every final); it is restarted with
the same home, writes its final, and every log ends identical with a clean audit.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.peer_support import Cluster, assert_one_log_audited_clean

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8


@pytest.mark.parametrize(("game", "seats"), [("loveletter", 4), ("regicide", 3)])
@pytest.mark.parametrize("together", [False, True], ids=["alone", "with-another"])
def test_a_peer_dead_before_its_final_went_out_comes_back_and_every_log_ends_alike(
    tmp_path: Path, game: str, seats: int, together: bool
) -> None:
    with Cluster(tmp_path, game=game, seats=seats, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start(bots=seats - 2)
        crasher = cluster.start_dishonest("final_crasher")
        assert crasher.wait(180) == 9, crasher.tail()
        assert "crashing: my final" in crasher.output(), crasher.tail()
        if together:
            other = cluster.peers[1]
            other.kill()
        time.sleep(1.0)
        if together:
            other.start()
        cluster.restart_as_bot(crasher)
        codes = cluster.wait_finished()
        assert codes == [0] * seats, "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), seats)
        assert not any("leaving before" in line for p in cluster.peers for _, line in p.lines())
