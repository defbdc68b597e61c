"""`fairdeck audit` and replay on real log files: verdicts, exit codes, damage of every kind."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from p2p.log import FILE_MAGIC, LogWriter, parse_envelope, read_log
from p2p.memtable import build_table
from replay.audit import audit_path
from replay.replay import UnreadableLog, replay_log


@pytest.fixture(scope="module")
def small_game(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    table = build_table("loveletter", 2, seed=1, shuffle_rounds=1)
    table.run()
    assert table.parties[0].table.ended == "over"
    return table.logs[0]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fairdeck", *args], capture_output=True, text=True, timeout=300
    )


def test_clean_log_exits_zero_with_readable_and_json_reports(small_game: list[bytes], tmp_path: Path) -> None:
    path = tmp_path / "game.fdlog"
    path.write_bytes(b"".join(small_game))
    done = _cli("audit", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "VERDICT: CLEAN" in done.stdout and "result confirmed by both parties" in done.stdout
    done = _cli("audit", "--json", str(path))
    report = json.loads(done.stdout)
    assert (
        report["verdict"] == "clean"
        and report["faults"] == []
        and report["stats"]["entries"] == len(small_game)
    )


def test_unreadable_inputs_exit_two_with_a_clear_message(tmp_path: Path) -> None:
    empty = tmp_path / "empty.fdlog"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.fdlog"
    garbage.write_bytes(b"\xc1 this is not a log")
    for path, words in [
        (empty, "empty"),
        (garbage, "not a fairdeck log (it does not begin with a log entry)"),
        (tmp_path / "missing.fdlog", "No such file"),
    ]:
        done = _cli("audit", str(path))
        assert done.returncode == 2, done.stdout
        assert words in done.stdout and "UNREADABLE" in done.stdout
        assert done.stdout.count("cannot read") <= 1, done.stdout  # said once, not twice
    done = _cli("audit")
    assert done.returncode == 2 and "the following arguments are required: logs" in done.stderr


def test_truncated_log_replays_up_to_the_tear_and_audit_reports_it(
    small_game: list[bytes], tmp_path: Path
) -> None:
    path = tmp_path / "torn.fdlog"
    data = b"".join(small_game)
    cut = len(b"".join(small_game[:20])) + 5
    path.write_bytes(data[:cut])
    replay = replay_log(path)
    assert replay.entries == 20 and replay.torn_bytes == 5
    assert replay.table.next_seq == 20
    report = audit_path(path)
    assert report.exit_code == 1
    assert "cut off" in report.faults[0].reason and report.faults[0].seq == 20


def test_replay_of_an_unreadable_log_raises_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.fdlog"
    path.write_bytes(b"\x92\xc4\x01a\xc4\x01b")
    with pytest.raises(UnreadableLog, match="genesis|signature|64 bytes"):
        replay_log(path)


def _flip_problems(path: Path, data: bytes, ends: list[int], positions: Sequence[int]) -> list[str]:
    """Flip each byte at ``positions`` of a log file holding ``data`` (entry ``i`` ending at
    ``ends[i]``), audit the file, and say what went wrong: each flip must be reported with the entry
    named (that entry or an earlier one), or as unreadable. Module-level, so worker processes can
    run it on their share of the positions."""
    problems: list[str] = []
    for position in positions:
        damaged = bytearray(data)
        damaged[position] ^= 0xFF
        path.write_bytes(bytes(damaged))
        report = audit_path(path)
        if report.exit_code == 0:
            problems.append(f"flip at byte {position} went unnoticed")
        elif report.exit_code == 2:
            if not report.unreadable:
                problems.append(f"flip at byte {position}: exit 2 without saying what is unreadable")
        else:
            fault = report.faults[0]
            entry = sum(1 for end in ends if end <= position)
            if fault.seq is None or fault.seq > entry:
                problems.append(f"flip at byte {position} (entry {entry}) blamed on {fault!r}")
    return problems


def _flip_and_audit(path: Path, data: bytes, ends: list[int], positions: range) -> None:
    """`_flip_problems` over ``positions``, spread over the machine's cores: every position is
    still flipped and audited (each audit is independent, CPU-bound work), only sooner."""
    workers = min(len(os.sched_getaffinity(0)), 4, max(1, len(positions) // 200))
    if workers == 1:
        problems = _flip_problems(path, data, ends, positions)
    else:
        # Interleaved shares: cost grows with the flipped entry's place in the log, so each worker
        # gets early and late positions alike. Spawned, not forked: the suite's process has threads.
        shares = [positions[k::workers] for k in range(workers)]
        paths = [path.with_suffix(f".{k}{path.suffix}") for k in range(workers)]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = pool.map(_flip_problems, paths, [data] * workers, [ends] * workers, shares)
            problems = [problem for result in results for problem in result]
    assert not problems, f"{len(problems)} flips mishandled, e.g. {problems[:5]}"


def _first_carrying_prefix(small_game: list[bytes]) -> list[bytes]:
    """The log up to its first move that carries tokens (protocol 3), so carried parts are
    flipped too."""
    entries = [parse_envelope(e) for e in small_game]
    last = next(e.seq for e in entries if e.kind == "move" and e.body.get("then"))
    return small_game[: last + 1]


@pytest.mark.slow
def test_every_single_byte_flip_is_detected(small_game: list[bytes], tmp_path: Path) -> None:
    """Exhaustive, on the format every writer writes (3: compact records): flip each byte of a
    small real log (header, genesis, setup, shuffles, tokens, a move) and audit the file."""
    path = tmp_path / "flipped.fdlog"
    with LogWriter(path) as writer:
        for envelope in _first_carrying_prefix(small_game):
            writer.append(envelope, sync=False)
    data = path.read_bytes()
    loaded = read_log(path)
    assert data.startswith(FILE_MAGIC) and loaded.envelopes == _first_carrying_prefix(small_game)
    _flip_and_audit(path, data, loaded.ends, range(len(data)))


def test_flipped_bytes_of_a_format_2_file_are_detected(small_game: list[bytes], tmp_path: Path) -> None:
    """The same on a log of plain envelopes (format 2, still read), at every 11th byte."""
    prefix = _first_carrying_prefix(small_game)
    ends = [len(b"".join(prefix[: i + 1])) for i in range(len(prefix))]
    data = b"".join(prefix)
    _flip_and_audit(tmp_path / "flipped.fdlog", data, ends, range(0, len(data), 11))


def test_logs_that_fork_between_two_seats_are_reported_without_blame(tmp_path: Path) -> None:
    from p2p.log import make_entry
    from p2p.protocol import Table
    from replay.audit import compare_logs
    from tests.p2p.protocol_support import identity_of

    table = build_table("loveletter", 3, seed=4, shuffle_rounds=1)
    table.run()
    log = table.logs[0]
    seq = 20
    writer = parse_envelope(log[seq]).seat
    other = (writer + 1) % 3
    replica = Table(log[0])
    for envelope in log[1:seq]:
        replica.accept(envelope)

    def rival(kind: str, body: dict) -> bytes:
        return make_entry(
            identity_of(4, other), replica.game_id, seq, replica.chain_head, other, kind, body
        ).envelope

    first, second = tmp_path / "a.fdlog", tmp_path / "b.fdlog"
    first.write_bytes(b"".join(log[: seq + 1]))
    # two writers for one place: never honest, but nobody signed both
    second.write_bytes(b"".join(log[:seq] + [rival("move", {"move": {}})]))
    faults = compare_logs([first, second], [audit_path(first), audit_path(second)])
    assert len(faults) == 1 and faults[0].seat is None and faults[0].seq == seq
    assert "diverge" in faults[0].reason
    # a game closed as abandoned while the absent seat's entry was unsent: the logs' difference is
    # no fault, and the closed game names the seat it waited for (it stopped), nobody else
    second.write_bytes(b"".join(log[:seq] + [rival("abandon", {"reason": "gone"})]))
    assert compare_logs([first, second], [audit_path(first), audit_path(second)]) == []
    closed = audit_path(second)
    assert [f.seat for f in closed.faults] == [writer] and "stopped" in closed.faults[0].reason
