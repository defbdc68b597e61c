"""Regicide and Rebel Princess among real peer processes over loopback: every seat count the games
allow ends in a result, with byte-identical logs and a clean audit; solo Regicide with a witness."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from p2p.log import read_log
from p2p.protocol import Table
from replay.audit import audit_path
from tests.e2e.peer_support import Cluster, run_fairdeck

ROUNDS = 4  # shuffle-proof rounds: soundness is not under test here, the peers are


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("regicide", 2),
        ("regicide", 3),
        ("regicide", 4),
        ("rebelprincess", 3),
        ("rebelprincess", 4),
        ("rebelprincess", 5),
        ("rebelprincess", 6),
    ],
)
def test_whole_fair_game_among_peer_processes(tmp_path: Path, game: str, seats: int) -> None:
    with Cluster(tmp_path, game=game, seats=seats, rounds=ROUNDS) as cluster:
        cluster.start()
        codes = cluster.wait_finished()
        assert codes == [0] * seats, "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()
    data = {path.read_bytes() for path in logs}
    assert len(data) == 1, "the peers' logs differ"
    report = audit_path(logs[0])
    assert report.exit_code == 0, report.text()
    table = report.replay.table
    assert table.ended == "over" and len(table.parties) == seats
    result = table.game.result(table.state)
    assert result.get("winners") or result.get("outcome") in ("won", "lost")


@pytest.mark.slow
def test_solo_regicide_with_a_witness_peer_is_provable(tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "FAIRDECK_HOME": str(home), "TMPDIR": str(scratch)}
    code, out, err = run_fairdeck(["play", "regicide", "--solo", "--bots", "1"], env)
    assert code == 0, out[-3000:] + err[-3000:]
    assert "you watch a bot play (a witness joining)" in out and "audit: clean" in out
    [log] = list((home / "games").glob("*.fdlog"))
    table = Table(read_log(log).envelopes[0])
    assert table.seats == 1 and len(table.parties) == 2, "one player and one witness"
    report = audit_path(log)
    assert report.exit_code == 0 and report.replay is not None
    entries = report.replay.table.entries
    # the witness really took part in the deal: it shuffled and gave tokens, and never moved
    assert {e.kind for e in entries if e.seat == 1} >= {"shuffle", "tokens", "final"}
    assert all(e.kind != "move" for e in entries if e.seat == 1)
    assert report.replay.table.game.result(report.replay.table.state)["outcome"] in ("won", "lost")
