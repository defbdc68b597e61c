"""A damaged or wrong ``<game>.roster`` beside a peer's log, and how the peer comes back from it.

Real peer processes on loopback. A bot is ``kill -9``-ed mid-game; while it is down its roster (the
game's endpoints and a copy of its genesis, the same file at every party) is damaged in the ways a
crash, a full disk or a careless copy leave it: cut short, garbage, valid msgpack of the wrong
shape, endpoints that are not ``tcp://HOST:PORT`` or too few for the game's parties, another game's
roster. Restarting the bot (``fairdeck bot``, as the tests restart every bot) and ``fairdeck
resume`` (a person's way back) must then say in one line which file is wrong and what to do —
never a traceback, never a bare ``IndexError`` — and leave the log exactly as it was (before this,
another game's roster made the peer move its whole log aside and rebuild *the other game* under
this game's file name). A roster whose kept genesis alone is unreadable heals from the log's own
genesis. Once the roster is copied from another party, as the line says, the game finishes with
identical logs and a clean audit.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import msgpack
import pytest

from p2p.identity import KEY_FILE
from p2p.recovery import read_roster
from tests.e2e.peer_support import (
    Cluster,
    Peer,
    assert_one_log_audited_clean,
    read_entries,
    run_fairdeck,
)
from tests.e2e.test_crash_recovery import own_move

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8
STALL_AFTER = 120  # nobody is closed out while the victim is down and restarted several times


def down_mid_game(cluster: Cluster) -> tuple[Peer, Path]:
    """Start ``cluster`` and kill -9 its seat 2 at one of its own moves; that peer and its log."""
    cluster.start()
    victim = cluster.peer_at(2)
    cluster.kill_when(victim, own_move, "its own move (mid-turn)", after_seq=30)
    path = victim.log_path()
    assert path is not None
    return victim, path


def _damaged_rosters(good: bytes) -> list[tuple[str, bytes]]:
    roster = msgpack.unpackb(good, raw=False)
    endpoints, genesis = roster["endpoints"], roster["genesis"]
    far = [f"{e}0000" for e in endpoints]
    return [
        ("cut short", good[: len(good) // 2]),
        ("emptied", b""),
        ("garbage", bytes(range(7, 250)) * 3),
        ("a list", msgpack.packb([1, 2, 3])),
        ("junk endpoints", msgpack.packb({"endpoints": ["junk"] * len(endpoints), "genesis": genesis})),
        ("too few endpoints", msgpack.packb({"endpoints": endpoints[:1], "genesis": genesis})),
        ("a port out of range", msgpack.packb({"endpoints": far, "genesis": genesis})),
    ]


def _assert_one_line_about(said: str, roster: Path) -> None:
    assert "Traceback" not in said and "unexpected error" not in said, said
    lines = [line for line in said.splitlines() if str(roster) in line]
    assert len(lines) == 1, said
    assert f"copy {roster.name} from another party" in lines[0], said


def test_a_damaged_roster_stops_a_resume_with_one_line_and_leaves_the_log_whole(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=STALL_AFTER) as cluster:
        victim, path = down_mid_game(cluster)
        roster = path.with_suffix(".roster")
        before, good = path.read_bytes(), roster.read_bytes()
        env = {**os.environ, **cluster.env, "FAIRDECK_HOME": str(victim.home)}
        for what, damaged in _damaged_rosters(good):
            roster.write_bytes(damaged)
            errors_before = len(victim.errors())
            victim.start()
            assert victim.wait(60) == 2, f"{what}\n{victim.tail()}"
            _assert_one_line_about(victim.errors()[errors_before:], roster)
            code, out, err = run_fairdeck(["resume", "--plain"], env, timeout=60)
            assert code == 2, f"{what}\n{out}\n{err}"
            _assert_one_line_about(err, roster)
            assert path.read_bytes() == before, f"{what}: the log changed"
            assert not list(path.parent.glob("*.damaged-*")), what
        # a roster whose genesis alone is unreadable: the log's own genesis stands in, and the
        # roster is written again whole
        kept = msgpack.unpackb(good, raw=False)
        roster.write_bytes(msgpack.packb({"endpoints": kept["endpoints"], "genesis": b"\x92garbage"}))
        victim.start()
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), 3)
        assert read_roster(path)["genesis"] == read_entries(path)[0].envelope
        assert "the genesis kept there cannot be read; using the log's own" in victim.errors()
        assert "Traceback" not in victim.errors()


def test_another_games_roster_is_refused_and_the_copy_from_another_party_finishes_the_game(
    tmp_path: Path,
) -> None:
    # an earlier game of the very same players: its roster seats the victim's identity too
    with Cluster(tmp_path / "first", seats=3, rounds=ROUNDS, no_rematch=True) as first:
        first.start()
        assert first.wait_finished() == [0, 0, 0], "\n".join(p.tail() for p in first.peers)
    for name in ("host", "bot1", "bot2"):  # the same identities at a second table
        (tmp_path / "second" / name).mkdir(parents=True)
        shutil.copy(tmp_path / "first" / name / KEY_FILE, tmp_path / "second" / name / KEY_FILE)
    second = Cluster(tmp_path / "second", seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=STALL_AFTER)
    with second as cluster:
        victim, path = down_mid_game(cluster)
        roster = path.with_suffix(".roster")
        before = path.read_bytes()
        (earlier,) = (tmp_path / "first" / victim.home.name / "games").glob("*.roster")
        shutil.copy(earlier, roster)
        victim.start()
        assert victim.wait(60) == 2, victim.tail()
        said = victim.errors()
        _assert_one_line_about(said, roster)
        assert "another game's" in said, said
        assert path.read_bytes() == before, "the log was changed by another game's roster"
        assert not list(path.parent.glob("*.damaged-*"))
        # as the line says: the roster copied from another party of this game
        (host_roster,) = (cluster.peers[0].home / "games").glob("*.roster")
        shutil.copy(host_roster, roster)
        victim.start()
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), 3)


def test_a_lost_roster_is_said_by_resume_and_games_and_a_copy_from_another_party_finishes(
    tmp_path: Path,
) -> None:
    with Cluster(tmp_path, seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=STALL_AFTER) as cluster:
        victim, path = down_mid_game(cluster)
        roster = path.with_suffix(".roster")
        kept = roster.read_bytes()
        roster.unlink()
        env = {**os.environ, **cluster.env, "FAIRDECK_HOME": str(victim.home)}
        code, _, err = run_fairdeck(["resume", "--plain"], env, timeout=60)
        assert code != 0 and "its roster is missing" in err, err
        assert f"copy {roster.name} from another party" in err, err
        code, out, _ = run_fairdeck(["games"], env, timeout=60)
        assert code == 0 and "its roster is missing" in out.replace("\n", " "), out
        # every party keeps the same file: the host's copy brings the victim back
        host_roster = cluster.peer_at(0).log_path()
        assert host_roster is not None and host_roster.with_suffix(".roster").read_bytes() == kept
        shutil.copy(host_roster.with_suffix(".roster"), roster)
        victim.start()
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), 3)
