"""A running peer's log changed under it by another program, among real peer processes on loopback.

The peer is stopped (SIGSTOP) mid-game, and while it stands still its log file is:

- cut back to an earlier entry in place (``truncate``): the writer sees the size it left is gone;
- *replaced* by an older copy of itself through a rename (what ``sed -i``, an editor's save or a
  restore with ``mv``/``rsync`` do): the path now names another file, while the peer's open file
  descriptor still writes to the old one, now unlinked;
- deleted (``rm``): the same, with nothing at the path.

Then it is let go on. It must not go on writing into a file nobody can read any more (before, it
finished the game "cleanly" with every later entry written to an unlinked inode, and its log on disk
was the old copy, or nothing): it stops with one line, exit 3, and, started again, heals its log
from the other parties; the game ends with identical logs and a clean audit.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.peer_support import Cluster, assert_one_log_audited_clean, entry_starts, read_entries, wait_for

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8


@pytest.mark.parametrize("change", ["truncated", "replaced", "deleted"])
def test_a_log_changed_by_another_program_while_the_peer_runs_stops_it_and_heals(
    tmp_path: Path, change: str
) -> None:
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        victim = cluster.peer_at(2)
        path = wait_for(victim.log_path, 60, "the victim's log")
        wait_for(lambda: len(read_entries(path)) > 30, 120, "the game under way")
        victim.stop()
        try:
            starts = entry_starts(path)
            older = path.read_bytes()[: starts[len(starts) - 12]]
            if change == "truncated":
                os.truncate(path, len(older))
            elif change == "replaced":
                fresh = path.with_name(path.name + ".new")
                fresh.write_bytes(older)
                os.replace(fresh, path)
            else:
                path.unlink()
        finally:
            victim.signal(signal.SIGCONT)
        code = victim.wait(120)
        assert code == 3, victim.tail()
        said = [line for line in victim.errors().splitlines() if line.startswith("fairdeck: cannot write")]
        assert said and "another program" in said[0], victim.tail()
        time.sleep(0.5)
        victim.start()
        codes = cluster.wait_finished()
        assert codes == [0] * 4, "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), 4)
        assert "Traceback" not in victim.errors(), victim.tail()
