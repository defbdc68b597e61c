"""A log far larger than one envelope's limit (8 MiB) loads, and ``fairdeck audit`` gives one clear
verdict on it. Before, the loader fed the whole file to an unpacker capped at one envelope's size,
and audit, replay and resume died with msgpack's BufferFull.

The 20 MB log is a real game (played in memory by the protocol parties, ``p2p.memtable``) followed
by copies of its own entries: every envelope in the file is valid and signed, the chain breaks where
the copies begin, so the audit must read all of it and name that entry.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from p2p.log import read_log
from p2p.memtable import build_table
from tests.e2e.peer_support import FAIRDECK, REPO

TARGET = 20 * 1024 * 1024


def _real_game(tmp_path: Path) -> list[bytes]:
    table = build_table("loveletter", 2, seed=7, shuffle_rounds=2, log_dir=tmp_path)
    try:
        table.run()
    finally:
        table.close()
    envelopes = read_log(tmp_path / "seat0.fdlog").envelopes
    assert envelopes and len(envelopes) == len(table.parties[0].table.entries)
    return envelopes


def test_a_20_mb_log_loads_and_is_audited_with_one_verdict(tmp_path: Path) -> None:
    game = _real_game(tmp_path)
    path = tmp_path / "big.fdlog"
    count = len(game)
    with path.open("wb") as out:
        out.write(b"".join(game))
        size = sum(map(len, game))
        while size < TARGET:
            for envelope in game[1:]:
                out.write(envelope)
                size += len(envelope)
                count += 1
    assert path.stat().st_size >= TARGET

    loaded = read_log(path)
    assert len(loaded.envelopes) == count and loaded.error is None and loaded.torn_bytes == 0

    done = subprocess.run(
        [*FAIRDECK, "audit", str(path)], capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr  # a fault, clearly stated
    verdicts = [line for line in done.stdout.splitlines() if line.startswith("VERDICT:")]
    assert verdicts == ["VERDICT: 1 FAULT"], done.stdout[-2000:]
    assert f"in place {len(game)}" in done.stdout  # where the copies begin


def test_a_20_mb_log_cut_mid_entry_is_read_up_to_the_tear(tmp_path: Path) -> None:
    game = _real_game(tmp_path)
    path = tmp_path / "big.fdlog"
    body = b"".join(game[1:])
    copies = TARGET // len(body) + 1
    data = b"".join(game) + body * copies
    path.write_bytes(data[: len(data) - len(game[-1]) // 2])
    loaded = read_log(path)
    assert len(loaded.envelopes) == len(game) + copies * (len(game) - 1) - 1
    assert loaded.torn_bytes == len(game[-1]) - len(game[-1]) // 2 and loaded.error is None
