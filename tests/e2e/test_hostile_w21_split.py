"""A party that sends one honest party a broken entry and the others a valid version of it, over
real peers (``tests/e2e/w21_hostile_split.py``).

The party that got the broken version folds it as proof against its writer and ends its game. The
others go on with the valid version and wait for that party at their next place; it writes nothing
more (its game is over), and both sides hold the same number of entries, so nothing made anyone
ask for more. Before, the others waited out the table's deadline and then closed the game on the
honest party that had stopped, naming it. Now a node whose game another party's entry stopped
passes that entry on: the others hold two versions signed for one place and expose the writer.
Every honest log names the cheat and nobody else; every process ends cleanly, long before the
table's deadline (300 s).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from replay.audit import audit_path
from tests.e2e.peer_support import Cluster, fold_log, run_fairdeck

pytestmark = [pytest.mark.xdist_group("peers")]


# (who gets the broken version, counted in places after the cheat: those a seated cheat at a table
# of three, at any seat, would pick to leave the other side waiting for that party)
@pytest.mark.parametrize(("kind", "bad"), [("shuffle", 1), ("tokens", 2)])
def test_a_broken_version_sent_to_one_party_names_its_writer_in_every_honest_log(
    tmp_path: Path, kind: str, bad: int
) -> None:
    with Cluster(tmp_path, game="loveletter", seats=3, quiet_bots=False, stall_after=300) as cluster:
        cluster.start(bots=1)
        cluster.env.update(W21_SPLIT_KIND=kind, W21_SPLIT_BAD=str(bad))
        cheat_peer = cluster.start_dishonest("w21_hostile_split")
        honest = [p for p in cluster.peers if p is not cheat_peer]
        for peer in honest:
            assert peer.wait(120) == 0, peer.tail()
        cheat_peer.wait(60)
        logs = [p.log_path() for p in honest]
    assert "split: entry" in cheat_peer.output(), cheat_peer.tail()
    cheat = None
    for log in logs:
        assert log is not None
        table = fold_log(log)
        cheat = table.seat_of_key(cheat_peer.identity().public_key)
        assert table.ended in ("faulted", "accused"), log  # never closed on anyone for a stall
        assert {f.seat for f in table.findings} == {cheat}, table.findings
        report = audit_path(log)
        assert report.exit_code == 1, report.text()
        assert {f.seat for f in report.faults} == {cheat}, report.text()
    code, out, err = run_fairdeck(["audit", *map(str, logs)], dict(os.environ), timeout=60)
    assert code == 1, out + err
    assert f"seat {cheat}" in out and "Traceback" not in out + err
    for peer in honest:
        assert "Traceback" not in peer.output() + peer.errors(), peer.tail()
