"""A party that lies at the very last entry of the game: its ``final`` (the concurrent last step)
claims another result to one party and the true one to the others (``tests/e2e/w22_final_split.py``).
Real peer processes on loopback, every game.

The party that got the false version holds it as proof; every honest party must end (exit 0, no
hang), its log must name the liar and only it, and the audit of every honest log must agree;
nothing may print a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.audit import audit_path
from tests.e2e.peer_support import Cluster, fold_log

pytestmark = [pytest.mark.xdist_group("peers"), pytest.mark.slow]


@pytest.mark.parametrize(("game", "seats"), [("loveletter", 3), ("regicide", 3), ("rebelprincess", 4)])
def test_a_false_final_sent_to_one_party_names_its_writer_in_every_honest_log(
    tmp_path: Path, game: str, seats: int
) -> None:
    with Cluster(tmp_path, game=game, seats=seats, quiet_bots=False, stall_after=30) as cluster:
        cluster.no_rematch = True
        cluster.host_lingers = True
        cluster.start(bots=seats - 2)
        cheat_peer = cluster.start_dishonest("w22_final_split")
        honest = [p for p in cluster.peers if p is not cheat_peer]
        codes = [peer.wait(240) for peer in honest]
        logs = [p.log_path() for p in honest]
    assert "split: final" in cheat_peer.output(), cheat_peer.tail()
    assert codes == [0] * len(honest), "\n".join(p.tail() for p in honest)
    for peer, log in zip(honest, logs, strict=True):
        assert log is not None
        assert "Traceback" not in peer.output() + peer.errors(), peer.tail()
        table = fold_log(log)
        cheat = table.seat_of_key(cheat_peer.identity().public_key)
        report = audit_path(log)
        assert {f.seat for f in report.faults} == {cheat}, (peer.name, report.text())
