"""A peer that comes back to a game the others have already closed and left.

Its log ends before the close: by its own log the game is still on, and nobody is there to say
otherwise. It must not go on alone — writing its own entries, then closing the game on whoever is
awaited next, which would name an innocent party for the stall that was its own. It writes nothing
until another party answers, and stops with one clear line if nobody does within the table's
deadline. Real processes on loopback."""

from __future__ import annotations

import subprocess
from pathlib import Path

from fairdeck.commands import FAILURE_EXIT
from tests.e2e.peer_support import FAIRDECK, REPO, Cluster, read_entries
from tests.e2e.test_crash_recovery import ROUNDS, own_move

STALL_AFTER = 8  # the table's deadline: how long the returning peer waits for an answer


def test_a_peer_back_after_the_others_closed_the_game_and_left_names_nobody(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=ROUNDS, abandon_after=2.0, stall_after=STALL_AFTER) as cluster:
        cluster.start()
        gone = cluster.peer_at(2)
        cluster.kill_when(gone, own_move, "its own move (mid-turn)", after_seq=30)
        survivors = [p for p in cluster.peers if p is not gone]
        for peer in survivors:
            assert peer.wait(120) == 0, peer.tail()
        closed_log, gone_log = survivors[0].log_path(), gone.log_path()
        assert closed_log is not None and gone_log is not None
        closing = read_entries(closed_log)[-1]
        assert closing.kind == "abandon" and "seat 2" in closing.body["reason"]
        before = [e.envelope for e in read_entries(gone_log)]
        # everyone else has left: the killed peer comes back to nobody
        cluster.restart_as_bot(gone)
        code = gone.wait(60)
        after = [e.envelope for e in read_entries(gone_log)]
    assert code == FAILURE_EXIT, gone.tail()
    assert after == before, "the returning peer wrote to a game it could not know was still on"
    said = gone.errors() + gone.output()
    assert "nobody at the table answered" in said, said
    assert "fairdeck resume" in said, said
    # the audit of both logs names the peer that stopped, and nobody else
    audit = subprocess.run(
        [*FAIRDECK, "audit", str(closed_log), str(gone_log)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert "VERDICT: 1 FAULT" in audit.stdout, audit.stdout
    assert "stopped: it owed" in audit.stdout, audit.stdout
