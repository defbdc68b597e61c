"""Commit poisoning over real peers: a seat opens an illegal committed choice before the last
opener. It is named live (every honest replica records the finding and ends the game) and by the
audit; the honest peers' logs are identical and every process ends cleanly."""

from __future__ import annotations

from pathlib import Path

from replay.audit import audit_path
from tests.e2e.peer_support import Cluster, fold_log


def test_a_poisoned_princess_choice_is_named_live_and_by_the_audit(tmp_path: Path) -> None:
    with Cluster(tmp_path, game="rebelprincess", seats=3, quiet_bots=False) as cluster:
        cluster.start(bots=1)
        poisoner = cluster.start_dishonest("poisoner")
        for peer in cluster.peers:
            assert peer.wait(180) == 0, peer.tail()
        honest = [p for p in cluster.peers if p is not poisoner]
        logs = [p.log_path() for p in honest]
    assert all(logs)
    contents = {p.read_bytes() for p in logs if p}
    assert len(contents) == 1, "the honest peers' logs differ"
    assert "poisoned" in poisoner.output()
    table = fold_log(logs[0])
    cheat = table.seat_of_key(poisoner.identity().public_key)
    assert table.ended == "faulted"
    assert [f.seat for f in table.findings] == [cheat]
    assert table.entries[table.findings[0].seq].kind == "open"
    # named live: every honest peer said so as the game ended
    for peer in honest:
        assert f"seat {cheat}" in peer.output() and "broke the rules" in peer.output(), peer.tail()
    report = audit_path(logs[0])
    assert report.exit_code == 1 and [f.seat for f in report.faults] == [cheat], report.text()
    assert "Princess" in report.faults[0].reason
