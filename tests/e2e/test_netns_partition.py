"""One peer's cable pulled for longer than the table's deadline, on a LAN of network namespaces.

A partition is not a freeze: the cut-off peer runs on and hears nobody. It used to wait out the
deadline for whichever party the table awaited, then close the game on it — an honest party, playing
on with the others — and its log named that party. Now a peer that hears none of the other parties
(at a table of three or more) closes the game on nobody: once the deadline has passed it stops
without writing anything, and says so. The others, who still hear each other, close the game on the
cut-off seat when they await it. Every log names that seat alone, or nobody.

Host and bots run in their own namespaces on one bridge (``tests/netns.py``); everything is killed
and deleted at the end, whatever happened. Needs root (CI runs as root).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from p2p.log import read_log
from p2p.protocol import Table
from replay.audit import audit_path
from tests.e2e.peer_support import Cluster, Peer, PeerFailure, read_entries, wait_for
from tests.netns import Lan, require_netns

pytestmark = [pytest.mark.netns, pytest.mark.xdist_group("peers"), pytest.mark.slow]

STALL = 6
CUT = 3 * STALL  # long enough for the cut-off peer's deadline, and for the others' at its turn


def _in(lan: Lan, index: int, argv: list[str]) -> list[str]:
    """``argv`` run inside player ``index``'s namespace, bound to its LAN address."""
    argv = list(argv)
    argv[argv.index("--bind") + 1] = lan.address(index)
    return ["ip", "netns", "exec", lan.players[index], *argv]


def _start(cluster: Cluster, lan: Lan) -> None:
    """The host in namespace 0 and a bot in each other one (what ``Cluster.start`` does on loopback)."""
    host = Peer("host", cluster.base / "host", _in(lan, 0, cluster.host_argv()), env=dict(cluster.env))
    cluster.peers.append(host.start())
    ready = wait_for(lambda: cluster._ready_line(host), 60, "the host to open its table")
    cluster.address = f"{lan.address(0)}:{ready['bootstrap']}"
    for index in range(1, cluster.seats):
        argv = _in(lan, index, cluster.bot_argv(index, cluster.address))
        bot = Peer(f"bot{index}", cluster.base / f"bot{index}", argv, env=dict(cluster.env))
        cluster.peers.append(bot.start())


def _under_way(cluster: Cluster) -> bool:
    try:
        return len(cluster.peers) == cluster.seats and all(len(read_entries(p)) > 30 for p in cluster.logs())
    except (PeerFailure, OSError):
        return False  # not every log is there yet


@pytest.mark.parametrize("cut", [2, 0], ids=["a bot", "the opener"])
def test_a_peer_cut_off_past_the_deadline_closes_the_game_on_nobody(tmp_path: Path, cut: int) -> None:
    require_netns()  # a clear failure (not a skip) without root or ip
    with Lan(players=3) as lan, Cluster(tmp_path, game="loveletter", seats=3, stall_after=STALL) as cluster:
        cluster.no_rematch = True
        _start(cluster, lan)
        wait_for(lambda: _under_way(cluster), 120, "the game under way")
        lan.cable(cut, plugged=False)
        time.sleep(CUT)
        lan.cable(cut, plugged=True)
        codes = cluster.wait_finished(120)
        logs = cluster.logs()
    victim = cluster.peers[cut]
    envelopes = read_log(logs[(cut + 1) % 3]).envelopes
    seat = Table(envelopes[0]).seat_of_key(victim.identity().public_key)
    for peer, log, code in zip(cluster.peers, logs, codes, strict=True):
        report = audit_path(log)
        blamed = {f.seat for f in report.faults}
        assert blamed <= {seat, None}, (peer.name, report.text(), peer.tail())
        if peer is victim:
            # it wrote no close of its own, and said why it stopped
            assert all(e.kind != "abandon" or e.seat != seat for e in read_entries(log)), report.text()
            # stopped on its own, saying why; or back in time to take the others' close of it
            assert code == 0 or "closed the game on nobody" in peer.output() + peer.errors(), peer.tail()
        else:
            assert code == 0, peer.tail()
            assert blamed == {seat}, (peer.name, report.text())
