"""A party that is there but says nothing: its process and mesh live on (its links stay up and its
transport keeps pinging), but from entry 40 on it reads, writes and answers nothing
(``tests/e2e/w21_mute_peer.py``). Real peer processes on loopback.

Being connected must not shield it: the honest parties close the game at the table's deadline,
naming it and only it, their logs are identical, and the audit of them names the mute seat as the
party that stopped. Nobody waits longer than the deadline (a generous bound, not a timing check).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.e2e.peer_support import FAIRDECK, REPO, Cluster, read_entries

pytestmark = [pytest.mark.xdist_group("peers")]


def test_a_connected_party_that_writes_nothing_is_closed_out_and_named(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=8, quiet_bots=False, stall_after=8) as cluster:
        cluster.start(bots=1)
        mute = cluster.start_dishonest("w21_mute_peer")
        honest = cluster.peers[:2]
        for peer in honest:
            assert peer.wait(120) == 0, peer.tail()
        assert mute.running, mute.tail()  # it never left: it only went silent
        assert "mute from entry" in mute.output()
        logs = [peer.log_path() for peer in honest]
        assert logs[0] is not None and logs[1] is not None
        assert logs[0].read_bytes() == logs[1].read_bytes()
        entries = read_entries(logs[0])
        keys = [p["key"] for p in entries[0].body["parties"]]
        mute_seat = keys.index(mute.identity().public_key)
        closing = entries[-1]
        assert closing.kind == "abandon", closing
        assert f"seat {mute_seat} (" in closing.body["reason"], closing.body
        audit = subprocess.run(
            [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=300, cwd=REPO
        )
        assert "VERDICT: 1 FAULT" in audit.stdout, audit.stdout
        named = f"seat {mute_seat} (mute)"
        assert named in audit.stdout and "stopped:" in audit.stdout, audit.stdout
        for peer in honest:
            assert "Traceback" not in peer.errors(), peer.tail()
