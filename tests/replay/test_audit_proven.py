"""An audit may start from the proofs its own process has already checked: a node's at the end of
the game it played, a spectator's, the first of several logs of one game (``fairdeck audit A B``).

The verdict must be the same with or without them, and a proof that differs from a checked one in
a single byte must be checked as if nothing were known (a statement names every byte it covers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p.log import parse_envelope
from p2p.memtable import MemoryTable, build_table
from replay.audit import audit_envelopes, audit_path, main_audit
from tests.p2p.protocol_support import count_calls, identity_of, resign

SEED = 31
SEATS = 3


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[MemoryTable, Path]:
    """A whole fair Love Letter game whose parties wrote their logs to files."""
    folder = tmp_path_factory.mktemp("proven")
    table = build_table("loveletter", SEATS, seed=SEED, log_dir=folder)
    table.run()
    table.close()
    assert table.parties[0].table.ended == "over"
    return table, folder


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """The shuffle proofs and reveal tokens the protocol checks (the real checks, counted)."""
    return {
        "shuffle": count_calls(monkeypatch, "verify_shuffle_wt"),
        "token": count_calls(monkeypatch, "verify_token"),
    }


def _counted(checks: dict[str, list[int]]) -> dict[str, int]:
    """How many checks of each kind so far, then start counting again from zero."""
    counts = {kind: len(calls) for kind, calls in checks.items()}
    for calls in checks.values():
        calls.clear()
    return counts


def _kinds_by(log: list[bytes], seat: int, kind: str) -> int:
    return sum(1 for envelope in log[1:] if (e := parse_envelope(envelope)).seat == seat and e.kind == kind)


def test_a_nodes_own_checks_spare_its_audit_every_proof_but_its_own(
    played: tuple[MemoryTable, Path], checks: dict[str, list[int]]
) -> None:
    table, folder = played
    path = folder / "seat0.fdlog"
    plain = audit_path(path)
    from_scratch = _counted(checks)
    assert plain.exit_code == 0, plain.text()
    assert from_scratch["shuffle"] == sum(_kinds_by(table.logs[0], s, "shuffle") for s in range(SEATS))

    proven = frozenset(table.parties[0].table.verified)
    spared = audit_path(path, proven)
    counts = _counted(checks)
    assert spared.text() == plain.text() and spared.exit_code == plain.exit_code
    # seat 0 never checks its own proofs while it plays (the others do): its audit checks those
    assert counts["shuffle"] == _kinds_by(table.logs[0], 0, "shuffle") > 0
    assert 0 < counts["token"] < from_scratch["token"]


def test_several_logs_of_one_game_check_each_proof_once(
    played: tuple[MemoryTable, Path], checks: dict[str, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    table, folder = played
    paths = [str(folder / f"seat{s}.fdlog") for s in range(SEATS)]
    assert main_audit(paths[:1], as_json=False) == 0
    one = _counted(checks)
    capsys.readouterr()
    assert main_audit(paths, as_json=False) == 0
    assert _counted(checks) == one
    assert capsys.readouterr().out.count("VERDICT: CLEAN") == SEATS


def test_a_forged_proof_one_byte_away_from_a_checked_one_is_still_found() -> None:
    """Seat 1 re-signs its first shuffle with the proof's last byte changed. The audit is given
    every statement the honest game of the same seed proved, the true proof of that very place
    among them: it still checks the forged one, and names seat 1 at that entry."""
    honest = build_table("loveletter", SEATS, seed=SEED)
    honest.run()
    proven = set().union(*(p.table.verified for p in honest.parties))
    cheated: list[int] = []

    def tamper(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if sender == 1 and entry.kind == "shuffle" and not cheated:
            cheated.append(entry.seq)
            proof = entry.body["proof"]
            forged = proof[:-1] + bytes([proof[-1] ^ 0x01])
            return resign(identity_of(SEED, sender), envelope, body={**entry.body, "proof": forged})
        return envelope

    table = build_table("loveletter", SEATS, seed=SEED, tamper=tamper)
    table.run()
    assert cheated
    log = table.logs[0]
    without = audit_envelopes(log)
    given = audit_envelopes(log, proven=proven)
    assert [(f.seat, f.seq) for f in given.faults] == [(1, cheated[0])], given.text()
    assert given.text() == without.text()
