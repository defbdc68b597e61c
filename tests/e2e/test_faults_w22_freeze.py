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
from tests.e2e.peer_support import CI, Cluster, KillPoint

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]

STALL = 6
AWAY = 3 * STALL


def owes(kind: str) -> KillPoint:
    """The victim owes an entry of ``kind`` in the step under way."""

    def point(table: Table, last: Entry, me: int) -> bool:
        return table.step.kind == kind and me in table.step.writers

    return point


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
if CI:  # bounded: every game, the start (the case that named an honest opener), a shuffle, a move
    CASES = [CASES[1], CASES[3], CASES[5], CASES[6]]


@pytest.mark.parametrize(("game", "seats", "kind"), CASES, ids=[f"{g}-{s}-{k}" for g, s, k in CASES])
def test_a_peer_frozen_where_it_owes_an_entry_is_the_only_one_named(
    tmp_path: Path, game: str, seats: int, kind: str
) -> None:
    with Cluster(tmp_path, game=game, seats=seats, quiet_bots=False, stall_after=STALL) as cluster:
        cluster.no_rematch = True
        cluster.start()
        victim = cluster.peers[-1]
        # (after entry 8 for kinds of the game proper: a peer prepares its shuffle ahead, so the
        # moment it is the very next writer is too short to catch)
        after = EARLY.get(kind, 8)
        cluster.kill_when(victim, owes(kind), f"owing a {kind}", after_seq=after, stop_only=True)
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
