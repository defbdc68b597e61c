"""An opener that gives one joiner a wrong endpoint for another, then closes the game on that other
party with a lie, over real peers (``tests/e2e/w21_hostile_endpoint.py``).

Party 1's own link to party 2 never comes up (the opener's ``start`` sent it elsewhere), yet party 2
reaches party 1 and keeps sending it its entries and its pings: it is there. Before, party 1 took
"our link to it is down" for "gone from the mesh", so it agreed at once to the opener's close naming
party 2 and its log named an honest party for a stall. Now a party we have heard from within the
last 3 s is present, whatever our own link to it: party 1 refuses the close like everyone else,
the honest logs agree and name only the opener.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.audit import audit_path
from tests.e2e.peer_support import Cluster, read_entries

pytestmark = [pytest.mark.xdist_group("peers")]


class _HostileCluster(Cluster):
    def host_argv(self) -> list[str]:
        argv = super().host_argv()
        at = argv.index("tests.e2e.peer_support")
        return [*argv[:at], "tests.e2e.w21_hostile_endpoint", *argv[at + 2 :]]  # (without "host")


def test_a_close_on_a_party_the_opener_cut_us_off_from_is_refused(tmp_path: Path) -> None:
    options = {"rounds": 8, "abandon_after": 2.0, "quiet_bots": False, "host_abandons": False}
    with _HostileCluster(tmp_path, game="loveletter", seats=3, stall_after=60, **options) as cluster:
        cluster.host_frames_at = 12
        cluster.start()
        codes = cluster.wait_finished()
        host, honest = cluster.peers[0], cluster.peers[1:]
        assert codes == [0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()[1:]
        said = host.output()
    assert "told party 1 a wrong endpoint for party 2" in said, said
    assert "framing party 2" in said, said
    assert len({path.read_bytes() for path in logs}) == 1, "the honest parties' logs differ"
    for path in logs:
        report = audit_path(path)
        assert {f.seat for f in report.faults} == {0}, report.text()
    entries = read_entries(logs[0])
    assert not any(e.kind == "abandon" and e.seat != 0 and "seat 2" in e.body["reason"] for e in entries)
    assert all("Traceback" not in p.output() + p.errors() for p in honest)
