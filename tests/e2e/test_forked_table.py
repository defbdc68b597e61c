"""A table split by an equivocator, over real peers: one seat signs two versions of a move and
sends one to the last seat and the other to everyone else, keeping each side on its own version.
No honest party receives both from it. The honest parties find the other version from each other
(an entry that extends another chain makes a node ask for the last entries again, and a caught
pair is passed on to everyone), an ``expose`` is written on each side within seconds, not at the
table's 300-second deadline, and every honest log names the equivocator and nobody else."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.audit import audit_path
from tests.e2e.peer_support import Cluster, fold_log

pytestmark = pytest.mark.xdist_group("peers")


def test_a_table_split_by_an_equivocator_names_it_in_every_honest_log(tmp_path: Path) -> None:
    with Cluster(tmp_path, game="loveletter", seats=4, quiet_bots=False, stall_after=300) as cluster:
        cluster.start(bots=2)
        forker = cluster.start_dishonest("forker")
        for peer in cluster.peers:
            assert peer.wait(180) == 0, peer.tail()
        honest = [p for p in cluster.peers if p is not forker]
        logs = [p.log_path() for p in honest]
    assert "forked: entry" in forker.output(), forker.tail()
    assert all(logs)
    cheat = None
    for log in logs:
        assert log is not None
        table = fold_log(log)
        cheat = table.seat_of_key(forker.identity().public_key)
        # exposed, not closed on anyone at the deadline: no honest party is named for a stall
        assert table.ended == "accused", log
        assert table.entries[-1].kind == "expose" and table.entries[-1].seat != cheat
        report = audit_path(log)
        assert report.exit_code == 1, report.text()
        assert {f.seat for f in report.faults} == {cheat}, report.text()
        assert report.headline().startswith(f"faults: seat {cheat} ("), report.headline()
    for peer in honest:
        assert f"seat {cheat}" in peer.output() and "caught cheating" in peer.output(), peer.tail()
