"""``kill -9`` at odd moments, every game, real peer processes on loopback:

- a peer killed, restarted, and killed again while it is still catching up (its second run has
  barely reloaded its log), then restarted for good — a bot, and the opener (which comes back as a
  bot, ``fairdeck bot --home``);
- a Rebel Princess peer dead just before its own ``final`` went out, with another peer killed at
  the same moment (the existing suite covers Love Letter and Regicide).

Every time: the game finishes, every process exits 0, every log is byte-identical and whole and
audits clean with the result confirmed by every party; nothing prints a traceback.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from p2p.log import Entry
from p2p.protocol import Table
from tests.e2e.peer_support import Cluster, KillPoint, Peer, assert_one_log_audited_clean, wait_for

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]


def owes(kind: str) -> KillPoint:
    """A kill point: the victim owes an entry of ``kind`` in the step under way."""

    def point(table: Table, last: Entry, me: int) -> bool:
        return table.step.kind == kind and me in table.step.writers

    return point


def _finish_clean(cluster: Cluster) -> None:
    codes = cluster.wait_finished()
    assert codes == [0] * len(cluster.peers), "\n".join(p.tail() for p in cluster.peers)
    assert_one_log_audited_clean(cluster.logs(), len(cluster.peers))
    for peer in cluster.peers:
        assert "Traceback" not in peer.errors(), peer.tail()


def _restart(cluster: Cluster, victim: Peer, as_bot: bool) -> None:
    if as_bot:
        cluster.restart_as_bot(victim)
    else:
        victim.start()


CASES = [
    ("regicide", 3, "move", False),
    ("rebelprincess", 4, "open", False),
    ("loveletter", 2, "tokens", False),
    ("rebelprincess", 3, "commit", True),
]


@pytest.mark.parametrize(
    ("game", "seats", "kind", "opener"),
    CASES,
    ids=[f"{g}-{s}-{k}-{'opener' if o else 'bot'}" for g, s, k, o in CASES],
)
def test_a_peer_killed_again_while_catching_up_finishes_the_game(
    tmp_path: Path, game: str, seats: int, kind: str, opener: bool
) -> None:
    with Cluster(tmp_path, game=game, seats=seats, quiet_bots=False) as cluster:
        cluster.no_rematch = True
        cluster.start()
        victim = cluster.peers[0] if opener else cluster.peers[-1]
        _table, last = cluster.kill_when(victim, owes(kind), f"a {kind} it owes", after_seq=12)
        time.sleep(0.5)
        _restart(cluster, victim, opener)
        # the second run has reloaded its log and said hello; kill it before it is done catching up
        wait_for(lambda: victim.output().count("--- run 2") == 1, 30, "the second run")
        time.sleep(0.8)
        victim.kill()
        time.sleep(0.5)
        _restart(cluster, victim, opener)
        _finish_clean(cluster)
        assert victim.starts == 3 and victim.exits[:2] == [-9, -9], victim.exits


@pytest.mark.parametrize("seats", [3, 4])
def test_a_rebel_princess_peer_dead_before_its_final_went_out_comes_back_and_every_log_ends_alike(
    tmp_path: Path, seats: int
) -> None:
    """``tests/e2e/final_crasher.py`` dies just before its own ``final`` leaves, and a bot is
    killed at the same moment; both come back, and the game ends alike everywhere."""
    with Cluster(tmp_path, game="rebelprincess", seats=seats, quiet_bots=False) as cluster:
        cluster.no_rematch = True
        cluster.start(bots=seats - 2)
        crasher = cluster.start_dishonest("final_crasher")
        assert crasher.wait(180) == 9, crasher.tail()
        assert "crashing: my final" in crasher.output(), crasher.tail()
        other = cluster.peers[1]
        other.kill()
        time.sleep(1.0)
        other.start()
        cluster.restart_as_bot(crasher)
        _finish_clean(cluster)
