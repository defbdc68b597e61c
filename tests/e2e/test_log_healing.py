"""A peer's own log damaged while it is down heals from the other parties when it comes back.

Real peer processes on loopback (see ``peer_support``). A bot is ``kill -9``-ed mid-game, its log is
damaged on disk while it is down, and it is restarted with the same command and home:

- its own last *sent* entry (and what followed) removed: it asks the others what they hold before it
  writes anything, gets its own entry back, and signs nothing twice (no evidence, nobody accused);
- one bit flipped in an entry, the file cut to 0 bytes, the file deleted: everything past the last
  entry that verifies is moved aside to ``<log>.damaged-N`` (kept, never deleted), the rest is
  fetched again from the others through the normal receive path, one line says what was done;
- a full disk (the log writer's test-only fault ``FAIRDECK_FAULT_DISK_FULL_AT``): the peer says so in
  one line and exits non-zero at once (no deaf process answering heartbeats); restarted with room
  again, it heals the torn entry the full disk left and the game finishes.

Each game must then finish with identical logs on every peer and a clean audit.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from p2p.log import FAULT_DISK_FULL_AT, Entry, read_log
from p2p.protocol import Table
from tests.e2e.peer_support import FAIRDECK, REPO, Cluster, Peer, entry_starts, read_entries

ROUNDS = 8


def _finish_clean(cluster: Cluster) -> list[Path]:
    codes = cluster.wait_finished()
    assert codes == [0] * len(cluster.peers), "\n".join(p.tail() for p in cluster.peers)
    logs = cluster.logs()
    assert len({path.read_bytes() for path in logs}) == 1, "logs differ after healing"
    loaded = read_log(logs[0])
    assert loaded.torn_bytes == 0 and loaded.error is None
    audit = subprocess.run(
        [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=180, cwd=REPO
    )
    assert audit.returncode == 0, audit.stdout
    assert "finished; result confirmed by all 4 parties" in audit.stdout
    for peer in cluster.peers:
        assert not list(peer.home.glob("games/*.evidence")), f"{peer.name} holds evidence of equivocation"
        assert "Traceback" not in peer.errors(), peer.tail()
        assert "two different entries" not in peer.output() + peer.errors()
    return logs


def _mid_game(after: int):  # noqa: ANN202 - a KillPoint
    def point(table: Table, last: Entry, me: int) -> bool:
        return last.seq > after and last.seat != me and any(e.seat == me for e in table.entries[-8:])

    return point


def test_own_last_sent_entry_removed_comes_back_from_the_others(tmp_path: Path) -> None:
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        victim = cluster.peer_at(2)
        table, last = cluster.kill_when(victim, _mid_game(30), "a point past its own entry")
        path = victim.log_path()
        assert path is not None
        entries = read_entries(path)
        own = max(e.seq for e in entries if e.seat == 2)
        assert own < last.seq  # others wrote after it: it was sent, they hold it
        cut = entry_starts(path)[own]
        with path.open("r+b") as handle:
            handle.truncate(cut)
        time.sleep(0.5)
        victim.start()
        logs = _finish_clean(cluster)
    resumed = [line for _, line in victim.lines() if "resumed" in line]
    assert resumed[-1].lstrip("* ") == f"resumed {logs[0].name} at entry {own}"
    # the entry it got back is the very one it had signed before the kill, byte for byte
    assert read_entries(logs[0])[own].envelope == entries[own].envelope


def _flip_a_bit(path: Path) -> tuple[int, int]:
    starts = entry_starts(path)
    index = len(starts) // 2
    start = starts[index]
    data = bytearray(path.read_bytes())
    data[(start + starts[index + 1]) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    return index, start


def _down_mid_game(cluster: Cluster) -> tuple[Peer, Path]:
    """Start the cluster, ``kill -9`` the bot at party 1 mid-game; it and its log's path."""
    cluster.start()
    victim = cluster.peer_at(1)
    cluster.kill_when(victim, _mid_game(30), "mid-game")
    path = victim.log_path()
    assert path is not None
    return victim, path


@pytest.mark.parametrize("damage", ["bit-flip", "emptied", "deleted"])
def test_a_damaged_or_lost_log_heals_from_the_other_parties(tmp_path: Path, damage: str) -> None:
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        victim, path = _down_mid_game(cluster)
        before = path.read_bytes()
        if damage == "bit-flip":
            index, start = _flip_a_bit(path)
        elif damage == "emptied":
            path.write_bytes(b"")
        else:
            path.unlink()
        time.sleep(0.5)
        victim.start()
        logs = _finish_clean(cluster)
        out = victim.output() + victim.errors()

    aside = sorted(path.parent.glob(f"{path.name}.damaged-*"))
    if damage == "bit-flip":
        # the damaged bytes are kept aside, exactly as they were on disk (flipped bit included)
        assert [p.name for p in aside] == [f"{path.name}.damaged-1"]
        kept = aside[0].read_bytes()
        assert len(kept) == len(before) - start and kept != before[start:]
        assert sum(a != b for a, b in zip(kept, before[start:], strict=True)) == 1
        line = f"{path.name}: entry {index} at byte {start} does not verify"
        assert line in out and f"moved the {len(kept)} bytes from there to {aside[0].name}" in out
    else:
        assert aside == []  # nothing was there to keep
        word = "is empty" if damage == "emptied" else "is missing"
        assert f"{path.name} {word}: rebuilding it from the genesis kept in {path.stem}.roster" in out
    assert logs[0].read_bytes().startswith(before)


def test_a_torn_choice_file_beside_the_log_does_not_stop_a_resume(tmp_path: Path) -> None:
    # kill -9 in the middle of writing the file that keeps a committed choice leaves it torn; the
    # restarted peer says it cannot read it and plays on (once, that ended the bot at resume)
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        victim, path = _down_mid_game(cluster)
        path.with_suffix(".choice").write_bytes(b"\x82\xa4keep")  # a map cut short
        time.sleep(0.5)
        victim.start()
        _finish_clean(cluster)
        assert "cannot read our committed choice" in victim.errors()


def test_a_full_disk_stops_the_peer_with_one_line_and_it_finishes_the_game_later(tmp_path: Path) -> None:
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start(bots=2)
        assert cluster.address is not None
        victim = Peer("bot3", tmp_path / "bot3", cluster.bot_argv(3, cluster.address))
        victim.env = {FAULT_DISK_FULL_AT: "150000"}  # the disk fills up mid-game
        cluster.peers.append(victim.start())
        code = victim.wait(120)
        assert code == 3, victim.tail()
        errors = [line for line in victim.errors().splitlines() if line and not line.startswith("---")]
        path = victim.log_path()
        assert path is not None
        assert errors == [
            f"fairdeck: cannot write {path}: No space left on device; stopped (nothing more is written or "
            "sent); free some space and start it again to resume the game"
        ], victim.errors()
        assert path.stat().st_size <= 150000
        others = [p for p in cluster.peers if p is not victim]
        assert all(p.running for p in others)  # the table waits for it: nobody finished without it
        victim.env = {}  # room again
        victim.start()
        logs = _finish_clean(cluster)
    # what the full disk let through of its last write was a torn entry: kept aside, not deleted
    torn = list(path.parent.glob(f"{path.name}.damaged-*"))
    assert len(torn) <= 1
    if torn:
        assert f"is torn (a write cut short); moved the {torn[0].stat().st_size} bytes" in victim.errors()
    assert path in logs
