"""``fairdeck audit LOG`` reads ``LOG.evidence``, the pairs of versions of one entry a node kept.

An equivocation caught in play is written into the log (``expose``), but a pair that reached a node
only as the game ended is proved by the file beside the log alone. The file is not signed as a
whole: a pair proves something only when both versions are signed by the place's writer, so an
outsider who edits or forges it can neither blame a seat nor hide a cheat the log proves.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from p2p.log import LogWriter, parse_envelope
from p2p.memtable import build_table
from replay.audit import CLEAN, FAULTS, audit_path, main_audit
from tests.p2p.protocol_support import identity_of, resign

SEED = 33


@functools.cache
def honest_log() -> tuple[bytes, ...]:
    table = build_table("loveletter", 3, seed=SEED)
    table.run()
    assert table.parties[0].table.ended == "over"
    return tuple(table.logs[0])


def _write(tmp_path: Path, evidence: bytes | None) -> Path:
    log = tmp_path / "game.fdlog"
    with LogWriter(log) as writer:
        for envelope in honest_log():
            writer.append(envelope, sync=False)
    if evidence is not None:
        log.with_suffix(".evidence").write_bytes(evidence)
    return log


def _a_move() -> tuple[int, bytes]:
    """The place and envelope of a move in the middle of the game, and its writer."""
    log = honest_log()
    index = next(i for i in range(len(log) // 2, len(log)) if parse_envelope(log[i]).kind == "move")
    return index, log[index]


def _other_version(envelope: bytes, signer_seat: int | None = None) -> bytes:
    entry = parse_envelope(envelope)
    seat = entry.seat if signer_seat is None else signer_seat
    # another entry for the same place (another choice): what a writer sends one peer
    move = dict(entry.body["move"])
    move["_"] = 1
    return resign(identity_of(SEED, seat), envelope, body={**entry.body, "move": move})


def test_a_pair_beside_the_log_names_the_equivocator(tmp_path: Path) -> None:
    seq, ours = _a_move()
    writer = parse_envelope(ours).seat
    log = _write(tmp_path, ours + _other_version(ours))
    report = audit_path(log)
    assert report.exit_code == FAULTS
    assert [(f.seat, f.seq) for f in report.faults] == [(writer, seq)]
    assert report.faults[0].reason.startswith("equivocation")
    assert "game.evidence holds both signed entries" in report.faults[0].evidence
    assert report.headline().startswith(f"faults: seat {writer} (")
    assert "1 proving an equivocation" in report.text()


@pytest.mark.parametrize(
    "damage",
    ["forged by another seat", "the same bytes twice", "another place", "garbage", "cut short", "odd one",
     "another history"],
)
def test_a_pair_that_proves_nothing_blames_nobody(tmp_path: Path, damage: str) -> None:
    seq, ours = _a_move()
    writer = parse_envelope(ours).seat
    evidence = {
        "forged by another seat": ours + _other_version(ours, signer_seat=(writer + 1) % 3),
        "the same bytes twice": ours + ours,
        "another place": ours + honest_log()[seq + 1],
        "garbage": b"\xc1not a log\xff" * 7,
        "cut short": (ours + _other_version(ours))[:-10],
        "odd one": ours,
        "another history": ours + resign(identity_of(SEED, writer), ours, prev=bytes(32)),
    }[damage]
    report = audit_path(_write(tmp_path, evidence))
    assert report.exit_code == CLEAN, report.text()
    assert report.faults == []
    assert report.beside.startswith("game.evidence")
    assert "beside the log: game.evidence" in report.text()


def test_no_file_beside_the_log_changes_nothing(tmp_path: Path) -> None:
    report = audit_path(_write(tmp_path, None))
    assert report.exit_code == CLEAN and report.beside == ""
    assert "beside the log" not in report.text()


def test_json_and_text_agree_on_the_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _seq, ours = _a_move()
    log = _write(tmp_path, ours + _other_version(ours))
    assert main_audit([str(log)], as_json=True) == FAULTS
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "faults" and out["faults"][0]["reason"].startswith("equivocation")
    assert out["evidence_file"].startswith("game.evidence: 1 pair")
    assert main_audit([str(log)], as_json=False) == FAULTS
    assert "VERDICT: 1 FAULT" in capsys.readouterr().out


def test_a_pair_beside_the_log_comes_before_what_followed_it(tmp_path: Path) -> None:
    """A log that ends in a fault after the equivocation (here: an outsider's torn tail) lists the
    equivocation first, and the headline names the equivocator."""
    seq, ours = _a_move()
    writer = parse_envelope(ours).seat
    log = _write(tmp_path, ours + _other_version(ours))
    with log.open("ab") as handle:
        handle.write(b"\x93\x01")  # a torn record at the end
    report = audit_path(log)
    assert report.faults[0].seat == writer and report.faults[0].seq == seq
    assert len(report.faults) == 2 and report.faults[1].seat is None  # the torn tail, blaming nobody
    assert report.headline().startswith(f"faults: seat {writer} (")
