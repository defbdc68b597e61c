"""A peer restarted from a *backup copy* of its home taken earlier in the game.

Real peer processes on loopback (see ``peer_support``). The ``games/`` folder of one bot is copied
while the bot is stopped (SIGSTOP: a consistent copy, as a backup tool would make), the game goes
on for a while, the bot is ``kill -9``-ed, its ``games/`` folder is replaced by the old copy and it
is restarted with the same command. Its log is then many entries behind what it had signed and
sent: it must fetch them back from the others, never sign a place again (no second version of any
entry, no evidence file), and the game must finish with identical logs and a clean audit.

In Rebel Princess the copy is also older than the bot's secret choice: it is killed between its
``commit`` and its ``open``, and the copy's ``.choice`` file answers an earlier step. Nothing on disk
says what it chose; the commitment in the log binds one legal choice, which it can find again.
"""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import pytest

from engine.core import Commit
from p2p.log import Entry
from p2p.protocol import Table
from tests.e2e.peer_support import Cluster, Peer, assert_one_log_audited_clean, read_entries, wait_for

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8


def _backup(peer: Peer, into: Path) -> int:
    """Copy ``peer``'s ``games/`` folder while it stands still; the number of entries copied."""
    peer.stop()
    try:
        shutil.copytree(peer.home / "games", into)
    finally:
        peer.signal(signal.SIGCONT)
    logs = sorted(into.glob("*.fdlog"))
    return len(read_entries(logs[0])) if logs else 0


def _restore(peer: Peer, backup: Path) -> None:
    shutil.rmtree(peer.home / "games")
    shutil.copytree(backup, peer.home / "games")


def _finish(cluster: Cluster, victim: Peer) -> list[Path]:
    codes = cluster.wait_finished()
    assert codes == [0] * len(cluster.peers), "\n".join(p.tail() for p in cluster.peers)
    assert -9 in victim.exits
    logs = cluster.logs()
    assert_one_log_audited_clean(logs, len(cluster.peers))
    for peer in cluster.peers:
        assert not list(peer.home.glob("games/*.evidence")), f"{peer.name} holds evidence of equivocation"
        assert "Traceback" not in peer.errors(), peer.tail()
    return logs


def _log_longer_than(peer: Peer, entries: int) -> bool:
    path = peer.log_path()
    return path is not None and len(read_entries(path)) > entries


def test_a_bot_restored_from_an_old_backup_fetches_what_it_had_signed(tmp_path: Path) -> None:
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        victim = cluster.peer_at(2)
        wait_for(lambda: _log_longer_than(victim, 20), 120, "the game under way")
        copied = _backup(victim, tmp_path / "backup")
        assert copied > 20

        def much_later(table: Table, last: Entry, me: int) -> bool:
            # well past the copy, and with entries of its own signed since
            own = [e for e in table.entries[copied:] if e.seat == me]
            return last.seq > copied + 40 and len(own) >= 3

        _, last = cluster.kill_when(victim, much_later, "well past the backup")
        signed_since = [e.envelope for e in read_entries(victim.log_path()) if e.seq >= copied]  # type: ignore[arg-type]
        _restore(victim, tmp_path / "backup")
        time.sleep(0.5)
        victim.start()
        logs = _finish(cluster, victim)
    # what it had signed after the copy is in the final log exactly as it was signed then
    final = [e.envelope for e in read_entries(logs[0])]
    assert final[copied : copied + len(signed_since)] == signed_since
    assert last.seq >= copied + 40


def _between_own_commit_and_open(table: Table, last: Entry, me: int) -> bool:
    """A Rebel Princess secret choice: the victim's commitment is in, its opening is not."""
    step = table.step
    return isinstance(step.request, Commit) and step.kind == "open" and me in step.writers


def test_a_rebel_princess_bot_restored_from_a_backup_older_than_its_secret_choice(tmp_path: Path) -> None:
    with Cluster(tmp_path, game="rebelprincess", rounds=ROUNDS, quiet_bots=False, stall_after=20) as cluster:
        cluster.start()
        victim = cluster.peer_at(2)
        wait_for(lambda: _log_longer_than(victim, 12), 120, "the game under way")
        copied = _backup(victim, tmp_path / "backup")
        point, what = _between_own_commit_and_open, "its commitment made, its opening owed"
        cluster.kill_when(victim, point, what, after_seq=copied + 4)
        _restore(victim, tmp_path / "backup")
        time.sleep(0.5)
        victim.start()
        _finish(cluster, victim)
