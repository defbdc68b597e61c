"""``fairdeck audit``: settle a dispute from the log alone.

The audit folds the log through the same replica every peer runs (so every signature, the hash
chain, the genesis and its countersignatures, every shuffle proof, reveal token and commitment is
verified), then reports what the engine's ``check`` found once cards were disclosed (false claims),
any claim disproved in play, an accusation with its evidence, and whether every seat confirmed the
result. Given several logs of one game it also compares them: two different entries signed by one
seat for the same step prove equivocation.

**Who is blamed** (the rule is spelled out with examples in ``docs/protocol.md``): a seat is named
only when its own signature proves the fault — a signed entry that breaks a rule at its right place
in the chain, two signed entries for one step, a signed illegal choice, a claim disproved by the
cards — or when the table waited for it and it wrote nothing (a *stall*, reported as such). A log
that is broken in a way an outsider or a splice of two logs could cause (a bad signature, a wrong
sequence number, a broken hash chain) is reported where it breaks, with nobody blamed, and with
what other log would settle it. Every string that comes from the log is made inert before it is
printed (``p2p.safetext``).

Exit codes: 0 clean, 1 faults found, 2 unreadable.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core import Commit, Disclose, Random
from p2p.log import Entry, LogError, parse_envelope, read_log
from p2p.protocol import CARRYING_KINDS, Table, carried_parts
from p2p.safetext import safe_text
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

    def headline(self) -> str:
        """The verdict in one line: ``clean``, ``faults: seat 2 (carol) ...`` or ``unreadable: ...``."""
        if self.unreadable is not None:
            return f"unreadable: {safe_text(self.unreadable, 120)}"
        if not self.faults:
            return "clean"
        first = self.faults[0]
        more = f" (and {len(self.faults) - 1} more)" if len(self.faults) > 1 else ""
        return f"faults: {self.who(first.seat)}: {safe_text(first.reason, 120)}{more}"

    def who(self, seat: int | None) -> str:
        """``seat 2 (carol)`` or ``nobody``."""
        if seat is None:
            return "no seat can be blamed"
        name = self.names[seat] if 0 <= seat < len(self.names) else "?"
        return f"seat {seat} ({safe_text(name, 60)})"

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

    def result_words(self) -> str:
        """The result in words (winners by name, per-seat numbers by name), never a Python dict."""
        parts = []
        for key, value in (self.result or {}).items():
            if value is None or value is False:
                continue
            label = safe_text(key, 40).replace("_", " ")
            if key == "winners" and isinstance(value, list):
                parts.append("winners: " + (", ".join(self.who(w) for w in value) or "nobody"))
            elif isinstance(value, list) and len(value) == len(self.names):
                parts.append(
                    f"{label}: " + ", ".join(f"{self.who(i)} {safe_text(v, 40)}" for i, v in enumerate(value))
                )
            elif isinstance(value, dict):
                parts.append(
                    f"{label}: "
                    + ", ".join(f"{safe_text(k, 40)} {safe_text(v, 200)}" for k, v in value.items())
                )
            else:
                parts.append(f"{label}: {safe_text(value, 200)}")
        return "; ".join(parts)

    def text(self) -> str:
        """The report a person reads."""
        lines = [f"fairdeck audit: {safe_text(self.path)}"]
        if self.unreadable is not None:
            lines += [f"  cannot read this log: {self.unreadable}", "VERDICT: UNREADABLE"]
            return "\n".join(lines)
        s = self.stats
        lines.append(
            f"  game: {safe_text(s.get('game'))} with {s.get('seats')} seats: "
            + ", ".join(f"{i}={safe_text(n, 60)}" for i, n in enumerate(self.names))
        )
        lines.append(
            f"  {s.get('entries')} entries verified: signatures, hash chain, genesis countersigned,"
            f" {s.get('shuffles', 0)} shuffle proofs, {s.get('tokens', 0)} reveal tokens,"
            f" {s.get('commitments', 0)} commitments"
        )
        lines.append(f"  status: {safe_text(self.status)}")
        for seat, seqs in sorted(s.get("late", {}).items()):
            shown = ", ".join(map(str, seqs[:12])) + (" …" if len(seqs) > 12 else "")
            times = f"{len(seqs)} time{'s' if len(seqs) > 1 else ''}"
            lines.append(
                f"  {self.who(seat)} let the table's deadline pass {times}: its own node played for it,"
                f" as the table's policy says (entries {shown})"
            )
        if self.result:
            lines.append(f"  result: {self.result_words()}")
        if not self.faults:
            lines.append("VERDICT: CLEAN — every entry verified and no rule or claim was broken")
        else:
            lines.append(f"VERDICT: {len(self.faults)} FAULT{'S' if len(self.faults) > 1 else ''}")
            for fault in self.faults:
                where = f"entry {fault.seq}" if fault.seq is not None else "the file"
                lines.append(f"  - {self.who(fault.seat)}, {where}: {safe_text(fault.reason)}")
                if fault.evidence:
                    lines.append(f"      evidence: {safe_text(fault.evidence)}")
        return "\n".join(lines)


def _stats(table: Table) -> dict[str, Any]:
    kinds = Counter(e.kind for e in table.entries)
    late: dict[int, list[int]] = {}
    for seq in table.late_moves:
        late.setdefault(table.entries[seq].seat, []).append(seq)
    return {
        "late": late,
        "game": table.game.name,
        "seats": table.seats,
        "parties": len(table.parties),
        "entries": len(table.entries),
        "shuffles": kinds["shuffle"],
        "tokens": sum(len(e.body.get("tokens", [])) for e in table.entries if e.kind == "tokens")
        + sum(len(e.body.get("seals", [])) for e in table.entries if e.kind == "sealed")
        + sum(len(part) for e in table.entries if e.kind in CARRYING_KINDS for part in carried_parts(e.body)),
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
    elif table.proof != "wt":
        report.faults.append(
            Fault(
                0,
                0,
                f"the opener chose cut-and-choose shuffle proofs with {table.shuffle_rounds} rounds: below "
                "the floor (Wikström–Terelius); such a proof can be forged by grinding hashes, so a "
                "stacked deck cannot be ruled out",
            )
        )
    if table.ended == "over":
        report.result = table.game.result(table.state)
        report.status = f"finished; result confirmed by all {len(table.parties)} parties"
    elif table.ended == "abandoned":
        last = table.entries[-1]
        report.status = (
            f"closed by {report.who(last.seat)} after the table's {table.stall_after}-second deadline"
            f" (its reason: {safe_text(last.body.get('reason', ''), 200)})"
        )
        report.faults.append(_stall(table, report))
    elif table.ended == "accused":
        report.status = "stopped by an accusation with evidence"
    elif table.ended == "faulted":
        report.status = "stopped by a signed entry that breaks the rules (kept in the log as proof)"
    else:
        expected = table.expected()
        report.status = (
            f"in progress: entry {table.next_seq} would be seat {expected[0]}'s {expected[1]!r}"
            if expected
            else "in progress"
        )
    return report


def _stall(table: Table, report: Report) -> Fault:
    """The party the table waited for when the game was closed: it stopped. What it had seen (the
    others' openings) and what could no longer be checked (the round's claims) go in the reason."""
    step = table.step
    waited = step.writers[0] if step.writers else None
    reason = f"stopped: it owed a {step.kind!r} entry and wrote nothing before the table was closed"
    if isinstance(step.request, Commit | Random) and step.kind == "open" and step.openings:
        seen = ", ".join(str(p) for p in sorted(step.openings))
        reason += f", after seeing the openings of seat(s) {seen}"
    if isinstance(step.request, Disclose):
        reason += "; it withheld its disclosure, so this round's claims could not be checked"
    else:
        since = max((i for i, e in enumerate(table.history) if e.kind == "disclosed"), default=-1)
        if any(e.kind in ("move", "committed") for e in table.history[since + 1 :]):
            reason += "; the unfinished round's cards were never disclosed: its claims could not be checked"
    return Fault(waited, step.start_seq if waited is None else table.next_seq - 1, reason)


def _classify_rejection(table: Table, envelopes: Sequence[bytes], replay: Replay) -> Fault:
    """Blame the writer of a refused entry only when its own signature proves the fault; otherwise
    say exactly where the log breaks and that no seat can be blamed from this log alone."""
    seq = replay.stopped_seq
    reason = replay.stopped or "refused"
    index = replay.entries  # the envelope that was refused
    envelope = envelopes[index] if index < len(envelopes) else b""
    try:
        entry = parse_envelope(envelope)
    except LogError as exc:
        return Fault(None, index, f"the log breaks at its entry {index}, which cannot be read: {exc}")
    if replay.stopped_provable:
        return Fault(entry.seat, seq if seq is not None else index, reason)
    signed = entry.seat < len(table.parties) and entry.signed_by(table.parties[entry.seat].key)
    if entry.game != table.game_id:
        why = "belongs to another game (spliced in)"
    elif not signed:
        why = "is not validly signed (forged or damaged)"
    elif entry.seq != index:
        why = f"carries seq {entry.seq} in place {index} (entries deleted, duplicated or moved)"
    elif entry.prev != table.head:
        why = (
            f"is seat {entry.seat}'s, but extends a different entry {index - 1} than the one here; "
            f"another log holding the entry {index - 1} it extends would show who signed two versions"
        )
    else:
        why = f"is refused: {reason}"
    where = f"the log breaks at its entry {index}, which {why}"
    return Fault(None, index, f"{where}; no seat can be blamed from this log alone")


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
    """Compare every pair of logs: two different entries signed by one seat for one place prove
    equivocation; two games under one game id signed by one opener prove a reused id."""
    faults: list[Fault] = []
    logs = [_envelopes_of(p) for p in paths]
    seen: set[tuple[int | None, int | None, str]] = set()
    for i in range(len(logs)):
        for j in range(i + 1, len(logs)):
            for fault in _compare_pair(paths[i], logs[i], paths[j], logs[j]):
                key = (fault.seat, fault.seq, fault.reason[:40])
                if key not in seen:
                    seen.add(key)
                    faults.append(fault)
    return faults


def _compare_pair(
    path_a: Path | str, log_a: Sequence[bytes], path_b: Path | str, log_b: Sequence[bytes]
) -> list[Fault]:
    """What the first place where two logs differ proves."""
    if not log_a or not log_b:
        return []
    try:
        genesis_a, genesis_b = Table(log_a[0]), Table(log_b[0])
    except Exception:  # an unreadable genesis is reported by that log's own audit
        return []
    if genesis_a.game_id != genesis_b.game_id:
        return []  # two different games: nothing to compare
    if log_a[0] != log_b[0]:
        opener_a, opener_b = genesis_a.parties[0].key, genesis_b.parties[0].key
        if opener_a == opener_b:
            return [
                Fault(
                    0,
                    0,
                    "reused game id: the opener signed two different games under one id, which "
                    "would make parties re-derive their secrets",
                    f"{safe_text(path_a)} and {safe_text(path_b)} hold both signed genesis entries",
                )
            ]
        both = f"{safe_text(path_a)} and {safe_text(path_b)}"
        return [Fault(None, 0, f"{both} are two games under one game id")]
    parties = genesis_a.parties
    for seq, (a, b) in enumerate(zip(log_a, log_b, strict=False)):
        if a == b:
            continue
        try:
            ea, eb = parse_envelope(a), parse_envelope(b)
        except LogError:
            return []
        signed_a = ea.seat < len(parties) and ea.signed_by(parties[ea.seat].key)
        signed_b = eb.seat < len(parties) and eb.signed_by(parties[eb.seat].key)
        if ea.seat == eb.seat and signed_a and signed_b:
            if ea.seq != eb.seq:
                return []  # shifted copies (an edit), not two versions of one step
            return [
                Fault(
                    ea.seat,
                    seq,
                    "equivocation: signed two different entries for this step",
                    f"{safe_text(path_a)} and {safe_text(path_b)} hold both signed entries (hashes "
                    f"{ea.hash.hex()[:16]}, {eb.hash.hex()[:16]})",
                )
            ]
        if "abandon" in (ea.kind, eb.kind):
            # the game was closed while the awaited seat's entry was unsent: its log simply ends
            # with an entry nobody else received, which is no fault — unless the others took that
            # entry and went on, i.e. refused the close (docs/protocol.md §6)
            return _refused_close((path_a, ea, signed_a, log_a), (path_b, eb, signed_b, log_b))
        if signed_a and signed_b:
            return [
                Fault(
                    None,
                    seq,
                    f"the logs diverge here: {safe_text(path_a)} has seat {ea.seat}'s "
                    f"{safe_text(ea.kind)!r}, {safe_text(path_b)} has seat {eb.seat}'s "
                    f"{safe_text(eb.kind)!r}; no seat signed both, so nobody is blamed",
                )
            ]
        return []  # one of them is damaged or forged: its own audit says where
    return []


_Side = tuple[Path | str, Entry, bool, Sequence[bytes]]
"""One log at the place two logs part: its path, its entry there, whether that is validly signed,
and all its envelopes."""


def _refused_close(a: _Side, b: _Side) -> list[Fault]:
    """One log ends with an ``abandon`` where the other holds a signed entry and goes on with
    entries of other seats: the table did not take the close. A stall is its closer's word, so the
    stall named in the closer's log is disputed; nobody is blamed for it here (each log's own
    verdict says who stopped there)."""
    closed_side, other = (a, b) if a[1].kind == "abandon" else (b, a)
    (closed_path, close, close_signed, _), (path, entry, signed, log) = closed_side, other
    if not (close_signed and signed) or entry.kind == "abandon":
        return []
    try:
        went_on = sorted({parse_envelope(e).seat for e in log[entry.seq + 1 :]} - {close.seat})
    except LogError:
        return []  # a damaged tail: that log's own audit says where
    if not went_on:
        return []
    return [
        Fault(
            None,
            close.seq,
            f"the logs diverge here: in {safe_text(closed_path)} seat {close.seat} closed the game (its "
            f"own word that the awaited party stalled); in {safe_text(path)} seat {entry.seat}'s entry "
            f"holds this place and seat(s) {', '.join(map(str, went_on))} went on from it: the table "
            "did not take the close, so the stall it names is disputed",
        )
    ]


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
