"""A peer down at the very end for longer than the others stay, and back to a log without their finals.

Real peer processes on loopback. A game plays to its end; then one peer's log is cut back to what it
held had it crashed right after its own ``final`` went out (the first of the concurrent finals is
made durable before it is sent): its own final is there, the others' are not. The others have
ended the game, lingered their ``LINGER_AFTER_END`` for a late party and left. Restarted, the peer
has nobody to fetch the missing finals from: it must not wait out the table's whole deadline (the
finals only repeat a result its log already fixes, and nothing it could write after a deadline would
be right), nor write anything, nor crash. It stops with one line that says the game is over by its
log and which finals are missing, and its log audits clean as far as it goes; with any other party's
log, the audit confirms the result.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import msgpack
import pytest

from fairdeck.commands import FAILURE_EXIT
from tests.e2e.peer_support import FAIRDECK, REPO, Cluster, entry_starts, read_entries

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8
STALL_AFTER = 150  # the table's deadline: far longer than the returning peer may take to say so


def _audit(*logs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=300, cwd=REPO
    )


def test_a_peer_back_after_everyone_left_without_the_others_finals_stops_at_once_and_says_so(
    tmp_path: Path,
) -> None:
    cluster = Cluster(tmp_path, seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=STALL_AFTER)
    cluster.no_rematch = True
    with cluster as c:
        c.start()
        assert c.wait_finished() == [0, 0, 0], "\n".join(p.tail() for p in c.peers)
        late = c.peer_at(0)
        path = late.log_path()
        assert path is not None
        finals = [e for e in read_entries(path) if e.kind == "final"]
        assert [e.seat for e in finals] == [0, 1, 2]
        # as a crash right after our own final was made durable (and sent) leaves it
        path.write_bytes(path.read_bytes()[: entry_starts(path)[finals[0].seq + 1]])
        roster = path.with_suffix(".roster")
        kept = msgpack.unpackb(roster.read_bytes(), raw=False)
        kept.pop("ended", None)  # the crash came before the end was noted beside the log
        roster.write_bytes(msgpack.packb(kept))
        before = path.read_bytes()
        c.restart_as_bot(late)
        code = late.wait(STALL_AFTER / 2)  # well before the table's deadline
        other = c.peers[1].log_path()
    assert code == FAILURE_EXIT, late.tail()
    said = late.errors()
    assert "Traceback" not in said, said
    assert "the game is over by this log, but the final entries of seat 1 (" in said, said
    assert "), seat 2 (" in said and "are not in it" in said, said
    assert path.read_bytes() == before, "the returning peer wrote to a game nobody else was at"
    alone = _audit(path)
    assert alone.returncode == 0 and "VERDICT: CLEAN SO FAR" in alone.stdout, alone.stdout
    assert other is not None
    both = _audit(path, other)
    assert both.returncode == 0 and "VERDICT: CLEAN —" in both.stdout, both.stdout
    assert "THE LOGS AGREE" in both.stdout, both.stdout
