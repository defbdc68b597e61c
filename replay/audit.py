"""``fairdeck audit``: settle a dispute from the log alone.

The audit folds the log through the same replica every peer runs (so every signature, the hash
chain, the genesis and its countersignatures, every shuffle proof, reveal token and commitment is
verified), then reports what the engine's ``check`` found once cards were disclosed (false claims),
any claim disproved in play, an accusation with its evidence, and whether every seat confirmed the
result. Given several logs of one game it also compares them: two different entries signed by one
seat for the same step prove equivocation.

Exit codes: 0 clean, 1 faults found, 2 unreadable.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2p.log import LogError, parse_envelope, read_log
from p2p.protocol import Table
from replay.replay import Replay, UnreadableLog, replay_envelopes

CLEAN, FAULTS, UNREADABLE = 0, 1, 2


@dataclass
class Fault:
    """One thing wrong: who (``seat``, or ``None`` when nobody can be blamed), where, why."""

    seat: int | None
    seq: int | None
    reason: str
    evidence: str = ""

    def as_dict(self) -> dict[str, Any]:
        """Plain form for ``--json``."""
        return {"seat": self.seat, "entry": self.seq, "reason": self.reason, "evidence": self.evidence}


@dataclass
class Report:
    """The audit's verdict and the facts behind it."""

    path: str
    faults: list[Fault] = field(default_factory=list)
    status: str = ""
    unreadable: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    names: list[str] = field(default_factory=list)
    replay: Replay | None = None

    @property
    def exit_code(self) -> int:
        """0 clean, 1 faults, 2 unreadable."""
        if self.unreadable is not None:
            return UNREADABLE
        return FAULTS if self.faults else CLEAN

    @property
    def verdict(self) -> str:
        """``clean``, ``faults`` or ``unreadable``."""
        return ("clean", "faults", "unreadable")[self.exit_code]

    def who(self, seat: int | None) -> str:
        """``seat 2 (carol)`` or ``nobody``."""
        if seat is None:
            return "no seat can be blamed"
        name = self.names[seat] if 0 <= seat < len(self.names) else "?"
        return f"seat {seat} ({name})"

    def as_dict(self) -> dict[str, Any]:
        """Everything, for ``--json``."""
        return {
            "log": self.path,
            "verdict": self.verdict,
            "status": self.status,
            "unreadable": self.unreadable,
            "faults": [f.as_dict() for f in self.faults],
            "stats": self.stats,
            "result": self.result,
        }

    def text(self) -> str:
        """The report a person reads."""
        lines = [f"fairdeck audit: {self.path}"]
        if self.unreadable is not None:
            lines += [f"  cannot read this log: {self.unreadable}", "VERDICT: UNREADABLE"]
            return "\n".join(lines)
        s = self.stats
        lines.append(
            f"  game: {s.get('game')} with {s.get('seats')} seats: "
            + ", ".join(f"{i}={n}" for i, n in enumerate(self.names))
        )
        lines.append(
            f"  {s.get('entries')} entries verified: signatures, hash chain, genesis countersigned,"
            f" {s.get('shuffles', 0)} shuffle proofs, {s.get('tokens', 0)} reveal tokens,"
            f" {s.get('commitments', 0)} commitments"
        )
        lines.append(f"  status: {self.status}")
        if self.result:
            lines.append(f"  result: {self.result}")
        if not self.faults:
            lines.append("VERDICT: CLEAN — every entry verified and no rule or claim was broken")
        else:
            lines.append(f"VERDICT: {len(self.faults)} FAULT{'S' if len(self.faults) > 1 else ''}")
            for fault in self.faults:
                where = f"entry {fault.seq}" if fault.seq is not None else "the file"
                lines.append(f"  - {self.who(fault.seat)}, {where}: {fault.reason}")
                if fault.evidence:
                    lines.append(f"      evidence: {fault.evidence}")
        return "\n".join(lines)


def _stats(table: Table) -> dict[str, Any]:
    kinds = Counter(e.kind for e in table.entries)
    return {
        "game": table.game.name,
        "seats": table.seats,
        "parties": len(table.parties),
        "entries": len(table.entries),
        "shuffles": kinds["shuffle"],
        "tokens": sum(len(e.body.get("tokens", [])) for e in table.entries if e.kind == "tokens")
        + sum(len(e.body.get("seals", [])) for e in table.entries if e.kind == "sealed"),
        "commitments": kinds["commit"],
        "game_id": table.game_id.hex(),
    }


def audit_envelopes(
    envelopes: Sequence[bytes], path: str = "<log>", torn_bytes: int = 0, read_error: str | None = None
) -> Report:
    """Audit a list of envelopes (see the module docstring)."""
    report = Report(path)
    try:
        replay = replay_envelopes(envelopes)
    except UnreadableLog as exc:
        report.unreadable = str(exc) if read_error is None else f"{exc} ({read_error})"
        return report
    report.replay = replay
    table = replay.table
    report.names = [p.name for p in table.parties][: table.seats] + [
        f"{p.name} (witness)" for p in table.parties[table.seats :]
    ]
    report.stats = _stats(table)
    if replay.stopped is not None:
        report.faults.append(_classify_rejection(table, envelopes, replay))
    elif read_error is not None:
        report.faults.append(
            Fault(None, table.next_seq, f"the file is damaged after entry {table.next_seq - 1}: {read_error}")
        )
    elif torn_bytes:
        report.faults.append(
            Fault(
                None,
                table.next_seq,
                f"the log is cut off: {torn_bytes} trailing bytes are "
                f"not a complete entry (a torn write or a damaged file)",
            )
        )
    for finding in table.findings:
        report.faults.append(Fault(finding.seat, finding.seq, finding.reason))
    fault = table.fault()
    if fault is not None and all(f.reason != fault.reason for f in report.faults):
        seq = table.event_seq[fault.index] if fault.index < len(table.event_seq) else None
        report.faults.append(Fault(fault.seat, seq, f"claim disproved in play: {fault.reason}"))
    if table.mode == "trusted":
        report.faults.append(
            Fault(
                0,
                0,
                "trusted mode: seat 0 dealt with a seeded generator and saw every "
                "card, so the fairness of this deal cannot be shown (a benchmark baseline)",
            )
        )
    if table.ended == "over":
        report.result = table.game.result(table.state)
        report.status = f"finished; result confirmed by all {len(table.parties)} parties"
    elif table.ended == "abandoned":
        last = table.entries[-1]
        # The replica still holds the step it was waiting on: that, not the abandoner's free-text
        # reason, says who was gone. Closing a game is no fault of anyone's, so the verdict stays clean.
        waited = f"{report.who(table.step.writers[0])}'s" if table.step.writers else "the"
        reason = str(last.body.get("reason", ""))[:200]
        report.status = (
            f"abandoned by {report.who(last.seat)} while waiting for {waited} {table.step.kind!r} entry"
            f" ({reason})"
        )
        since = max((i for i, e in enumerate(table.history) if e.kind == "disclosed"), default=-1)
        if any(e.kind == "move" for e in table.history[since + 1 :]):
            report.status += (
                "; the unfinished round's cards were never disclosed, so the claims made in it"
                " could not be checked"
            )
    elif table.ended == "accused":
        report.status = "stopped by an accusation with evidence"
    else:
        expected = table.expected()
        report.status = (
            f"in progress: entry {table.next_seq} would be seat {expected[0]}'s {expected[1]!r}"
            if expected
            else "in progress"
        )
    return report


def _classify_rejection(table: Table, envelopes: Sequence[bytes], replay: Replay) -> Fault:
    """Blame the writer of a refused entry only when its signature proves it wrote it."""
    seq = replay.stopped_seq
    reason = replay.stopped or "refused"
    index = replay.entries  # the envelope that was refused
    envelope = envelopes[index] if index < len(envelopes) else b""
    try:
        entry = parse_envelope(envelope)
    except LogError as exc:
        return Fault(None, index, f"entry {index} cannot be read: {exc}")
    signed = entry.seat < len(table.parties) and entry.signed_by(table.parties[entry.seat].key)
    if not signed:
        return Fault(None, index, f"entry {index} is not validly signed (forged or damaged): {reason}")
    return Fault(entry.seat, seq if seq is not None else index, reason)


def audit_path(path: Path | str) -> Report:
    """Audit one log file."""
    try:
        loaded = read_log(path)
    except LogError as exc:  # the file cannot be read at all (missing, a directory, I/O)
        report = Report(str(path))
        report.unreadable = str(exc)
        return report
    if not loaded.envelopes:
        report = Report(str(path))
        report.unreadable = loaded.error or (
            f"no complete entry ({loaded.torn_bytes} bytes of a torn one)"
            if loaded.torn_bytes
            else "the file is empty"
        )
        return report
    return audit_envelopes(loaded.envelopes, str(path), loaded.torn_bytes, loaded.error)


def _envelopes_of(path: Path | str) -> list[bytes]:
    try:
        return read_log(path).envelopes
    except LogError:  # already reported as unreadable by audit_path
        return []


def compare_logs(paths: Sequence[Path | str], reports: Sequence[Report]) -> list[Fault]:
    """Equivocation across logs of one game: the same seat signed two different entries for a seq."""
    faults: list[Fault] = []
    logs = [_envelopes_of(p) for p in paths]
    base = next((r.replay.table for r in reports if r.replay is not None), None)
    if base is None:
        return faults
    for i in range(1, len(logs)):
        for seq, (a, b) in enumerate(zip(logs[0], logs[i], strict=False)):
            if a == b:
                continue
            try:
                ea, eb = parse_envelope(a), parse_envelope(b)
            except LogError:
                break
            if ea.game != eb.game:
                faults.append(Fault(None, None, f"{paths[i]} is the log of another game"))
            elif (
                ea.seat == eb.seat
                and ea.seat < len(base.parties)
                and ea.signed_by(base.parties[ea.seat].key)
                and eb.signed_by(base.parties[eb.seat].key)
            ):
                faults.append(
                    Fault(
                        ea.seat,
                        seq,
                        "equivocation: signed two different entries for this step",
                        f"{paths[0]} and {paths[i]} hold both signed entries (hashes "
                        f"{ea.hash.hex()[:16]}, {eb.hash.hex()[:16]})",
                    )
                )
            elif "abandon" not in (ea.kind, eb.kind):
                # one line, one writer per place: two writers for one place never happens honestly
                faults.append(
                    Fault(
                        None,
                        seq,
                        f"the logs diverge here: {paths[0]} has seat {ea.seat}'s {ea.kind!r}, {paths[i]} has "
                        f"seat {eb.seat}'s {eb.kind!r}; no seat signed both, so nobody is blamed",
                    )
                )
            # else: the game was closed as abandoned while the absent seat's last entry was unsent;
            # that seat's log simply ends with an entry nobody else received, which is no fault
            break
    return faults


def main_audit(paths: Sequence[str], as_json: bool) -> int:
    """The ``fairdeck audit`` command: print the report(s) and return the exit code."""
    reports = [audit_path(p) for p in paths]
    extra = compare_logs(paths, reports) if len(paths) > 1 else []
    if extra and reports:
        reports[0].faults.extend(extra)
    if as_json:
        out: Any = [r.as_dict() for r in reports] if len(reports) > 1 else reports[0].as_dict()
        print(json.dumps(out, indent=2, default=str))
    else:
        print("\n\n".join(r.text() for r in reports))
    return max(r.exit_code for r in reports)
