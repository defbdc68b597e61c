"""``fairdeck audit``: settle a dispute from the log alone.

The audit folds the log through the same replica every peer runs (so every signature, the hash
chain, the genesis and its countersignatures, every shuffle proof, reveal token and commitment is
verified), then reports what the engine's ``check`` found once cards were disclosed (false claims),
any claim disproved in play, an accusation with its evidence, and whether every seat confirmed the
result. Given several logs of one game it also compares them: two different entries signed by one
seat for the same step prove equivocation; so does a pair of them in ``LOG.evidence`` beside the log
(:func:`evidence_beside`), which a node keeps of every second version it received, and so do both
versions in one log file (copied or pasted there: the file's chain breaks where the second one lies,
but the two signatures are the signer's own, :func:`_equivocations_within`); two genesis entries
under one id signed by its opener, in one file or two, prove a reused game id.

**Who is blamed** (the rule is spelled out with examples in ``docs/protocol.md``): a seat is named
only when its own signature proves the fault — a signed entry that breaks a rule at its right place
in the chain, two signed entries for one step, a signed illegal choice, a claim disproved by the
cards — or when the table waited for it and it wrote nothing (a *stall*, reported as such). A log
that is broken in a way an outsider or a splice of two logs could cause (a bad signature, a wrong
sequence number, a broken hash chain) is reported where it breaks, with nobody blamed, and with
what other log would settle it. In a *trusted* game the opener's seat dealt and announced every
card, so a claim "disproved by the cards" may be the dealer's framing: no fault of such a log names
a seat. Every string that comes from the log is made inert before it is printed (``p2p.safetext``).

Exit codes (``fairdeck audit --help`` and the README say the same):

- **0 clean**: every entry verified and nobody broke a rule or a claim (for an unfinished game: so far,
  and the verdict says ``CLEAN SO FAR``);
- **1 faults**: something is wrong — a seat is named only when its own signature proves it;
- **2 unreadable**: no game could be read from the file;
- **3 nothing proved**: every entry verified, but the log proves no fair game, so nobody is named
  and nobody is cleared: a *trusted* game (the opener's seat dealt every card with a seeded
  generator and saw them all), shuffle proofs below the floor, or a game that never started (only
  the genesis, not countersigned). Its verdict is ``NOT AUDITABLE`` or ``NOT STARTED``.

Several logs: each is audited alone, then every pair is compared (``COMPARISON`` in the text,
``"comparison"`` in ``--json``); the exit code is 2 if any log is unreadable, else 1 if any log or
the comparison has a fault, else 3 if any log proves nothing, else 0.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core import Commit, Disclose, Random
from engine.present import presentation
from p2p.log import Entry, LoadedLog, LogError, iter_envelopes, parse_envelope, read_log
from p2p.protocol import CARRYING_KINDS, Table, bounded, carried_parts
from p2p.safetext import safe_text
from replay.replay import Replay, UnreadableLog, held_against_nobody, replay_envelopes, unreadable_words

CLEAN, FAULTS, UNREADABLE, NOTHING_PROVED = 0, 1, 2, 3
REASON_MAX = 2000
"""Longest reason (or evidence, or why a file is unreadable) a report holds: every one is a line or
two, and none may grow with what a file holds."""


HEADLINE_REASON = 120
"""Characters of a reason the one-line verdict shows; a longer one says where to read it whole."""
CUT_WORDS = " (fairdeck audit LOG says it whole)"
"""After a reason cut short in the one-line verdict (the line printed at a game's end)."""


def _cut(reason: str) -> str:
    shown = safe_text(reason, HEADLINE_REASON)
    return shown + CUT_WORDS if shown.endswith("…") and shown != safe_text(reason) else shown


def _plural(count: int, word: str, words: str | None = None) -> str:
    """``1 entry``, ``2 entries``."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


@dataclass
class Fault:
    """One thing wrong: who (``seat``, or ``None`` when nobody can be blamed), where, why."""

    seat: int | None
    seq: int | None
    reason: str
    evidence: str = ""

    def __post_init__(self) -> None:
        # a reason may quote what a log's writer (or an outsider) put in it: however it was
        # worded, the report stays a few lines long
        self.reason, self.evidence = bounded(self.reason, REASON_MAX), bounded(self.evidence, REASON_MAX)

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
    unproved: str | None = None
    """Why the log, though it verifies, proves no fair game (trusted mode, weak shuffle proofs, a
    game that never started): nobody is named for it and nobody is cleared."""
    started: bool = True
    """Every party countersigned the genesis: the game began."""
    finished: bool = False
    """The game ended (by its rules, or closed), so the log holds all of it."""
    beside: str = ""
    """What the file beside the log (``LOG.evidence``, see :func:`evidence_beside`) added, in words."""

    @property
    def exit_code(self) -> int:
        """0 clean, 1 faults, 2 unreadable, 3 nothing proved (see the module docstring)."""
        if self.unreadable is not None:
            return UNREADABLE
        if self.faults:
            return FAULTS
        return NOTHING_PROVED if self.unproved is not None else CLEAN

    @property
    def verdict(self) -> str:
        """``clean``, ``faults``, ``unreadable``, ``not auditable`` or ``not started``: the one word
        shown everywhere (the end of a game, ``fairdeck games``, the viewer, ``--json``)."""
        if self.exit_code == NOTHING_PROVED:
            return "not auditable" if self.started else "not started"
        return ("clean", "faults", "unreadable")[self.exit_code]

    def headline(self) -> str:
        """The verdict in one line: ``clean``, ``faults: seat 2 (carol) ...``, ``not auditable: ...``."""
        if self.unreadable is not None:
            return f"unreadable: {_cut(self.unreadable)}"
        if self.faults:
            # a seat proven at fault comes first: damage that names nobody (an outsider's torn or
            # padded file, say) must not push the proven cheater out of the one line people read
            first = next((f for f in self.faults if f.seat is not None), self.faults[0])
            more = f" (and {len(self.faults) - 1} more)" if len(self.faults) > 1 else ""
            return f"faults: {self.who(first.seat)}: {_cut(first.reason)}{more}"
        if self.unproved is not None:
            return f"{self.verdict}: {safe_text(self.unproved, 200)}; nobody is named"
        if not self.finished:
            verified = _plural(self.stats.get("entries", 0), "entry", "entries")
            return f"clean so far: the game is unfinished ({verified} verified)"
        return "clean"

    def who(self, seat: int | None) -> str:
        """``seat 2 (carol)`` or ``nobody``."""
        if seat is None:
            return "no seat can be blamed"
        name = self.names[seat] if 0 <= seat < len(self.names) else "?"
        if name.endswith(" (witness)"):  # a witness holds no seat: "party 3 (witness0, a witness)"
            return f"party {seat} ({safe_text(name.removesuffix(' (witness)'), 60)}, a witness)"
        return f"seat {seat} ({safe_text(name, 60)})"

    def as_dict(self) -> dict[str, Any]:
        """Everything, for ``--json`` (the keys of earlier versions keep their meaning; ``headline``,
        ``finished``, ``unproved`` and ``exit_code`` were added)."""
        return {
            "log": self.path,
            "verdict": self.verdict,
            "headline": self.headline(),
            "exit_code": self.exit_code,
            "status": self.status,
            "finished": self.finished,
            "unproved": self.unproved,
            "unreadable": self.unreadable,
            "faults": [f.as_dict() for f in self.faults],
            "stats": self.stats,
            "result": self.result,
            "evidence_file": self.beside or None,
        }

    def result_words(self) -> str:
        """The result in words (winners by name, per-seat numbers by name), never a Python list or
        dict; a game words its own odd parts (a list per round, card codes) through its
        presentation's ``result_parts``."""
        game = self.replay.table.game if self.replay is not None else None
        own = presentation(game).result_parts(self.result or {}, self.who) if game is not None else {}
        labels = presentation(game).result_labels if game is not None else {}
        parts = []
        for key, value in (self.result or {}).items():
            if value is None or value is False:
                continue
            label = labels.get(key) or safe_text(key, 40).replace("_", " ")
            if key in own:
                if own[key]:
                    parts.append(safe_text(own[key], 4000))
            elif key == "winners" and isinstance(value, list):
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
            elif isinstance(value, list):
                parts.append(f"{label}: " + (", ".join(safe_text(v, 40) for v in value) or "none"))
            else:
                parts.append(f"{label}: {safe_text(value, 200)}")
        return "; ".join(parts)

    def _result_lines(self) -> list[str]:
        """``  result: …`` on one line when it is short; else each of its parts (a round's scores,
        the Round cards…) on a line of its own under the first, so a long game's result reads."""
        words = self.result_words()
        if len(words) <= RESULT_LINE:
            return [f"  result: {words}"]
        first, *rest = words.split("; ")
        return [f"  result: {first}", *(f"          {part}" for part in rest)]

    def _verified(self) -> str:
        """What was verified, true to the log: ``1 entry``, a genesis not countersigned ..."""
        s = self.stats
        others, signed = s.get("parties", 1) - 1, s.get("countersigned", 0)
        if others <= 0:
            genesis = "genesis (a single party: nobody to countersign it)"
        elif signed >= others:
            genesis = "genesis countersigned"
        elif signed == 0:
            genesis = "genesis signed by the opener (not countersigned)"
        else:
            genesis = f"genesis (countersigned by {signed} of the {others} other parties)"
        counts = (
            _plural(s.get("shuffles", 0), "shuffle proof"),
            _plural(s.get("tokens", 0), "reveal token"),
            _plural(s.get("commitments", 0), "commitment"),
        )
        entries = _plural(s.get("entries", 0), "entry", "entries")
        return f"{entries} verified: signatures, hash chain, {genesis}, " + ", ".join(counts)

    def text(self) -> str:
        """The report a person reads."""
        lines = [f"fairdeck audit: {safe_text(self.path)}"]
        if self.unreadable is not None:
            lines += [f"  {safe_text(self.unreadable)}", "VERDICT: UNREADABLE"]
            return "\n".join(lines)
        s = self.stats
        lines.append(
            f"  game: {safe_text(s.get('game'))} with {_plural(int(s.get('seats') or 0), 'seat')}: "
            + "; ".join(f"{i}={safe_text(n, 60)}" for i, n in enumerate(self.names))  # (names hold commas)
        )
        lines.append(f"  {self._verified()}")
        lines.append(f"  status: {safe_text(self.status)}")
        for seat, seqs in sorted(s.get("late", {}).items()):
            shown = ", ".join(map(str, seqs[:12])) + (" …" if len(seqs) > 12 else "")
            times = f"{len(seqs)} time{'s' if len(seqs) > 1 else ''}"
            lines.append(
                f"  {self.who(seat)} let the table's deadline pass {times}: its own node played for it,"
                f" as the table's policy says (entries {shown})"
            )
        if self.result:
            lines += self._result_lines()
        if self.beside:
            lines.append(f"  beside the log: {safe_text(self.beside)}")
        if self.faults:
            if self.unproved is not None:
                lines.append(f"  beside the faults below: {safe_text(self.unproved)}")
            lines.append(f"VERDICT: {len(self.faults)} FAULT{'S' if len(self.faults) > 1 else ''}")
            for fault in self.faults:
                where = f"entry {fault.seq}" if fault.seq is not None else "the file"
                lines.append(f"  - {self.who(fault.seat)}, {where}: {safe_text(fault.reason)}")
                if fault.evidence:
                    lines.append(f"      evidence: {safe_text(fault.evidence)}")
        elif self.unproved is not None and not self.started:
            lines.append(f"VERDICT: NOT STARTED — {safe_text(self.unproved)}; there is nothing to audit")
        elif self.unproved is not None:
            lines.append(f"VERDICT: NOT AUDITABLE — {safe_text(self.unproved)}; nobody is named")
        elif not self.finished:
            lines.append(
                "VERDICT: CLEAN SO FAR — the game is unfinished: every entry in this log verified and no"
                " rule or claim was broken up to here; the rest of the game is not in this log"
            )
        else:
            lines.append("VERDICT: CLEAN — every entry verified and no rule or claim was broken")
        return "\n".join(lines)


def _stats(table: Table) -> dict[str, Any]:
    # an entry that broke a rule is kept as proof but nothing in it was used: its body may be any
    # shape at all (``tokens: 5``), and none of its proofs or tokens counts as verified
    used = table.entries[:-1] if table.ended == "faulted" else table.entries
    kinds = Counter(e.kind for e in used)
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
        "tokens": sum(len(e.body.get("tokens", [])) for e in used if e.kind == "tokens")
        + sum(len(e.body.get("seals", [])) for e in used if e.kind == "sealed")
        + sum(len(part) for e in used if e.kind in CARRYING_KINDS for part in carried_parts(e.body)),
        "commitments": kinds["commit"],
        "countersigned": kinds["countersign"],
        "game_id": table.game_id.hex(),
    }


def audit_envelopes(
    envelopes: Sequence[bytes],
    path: str = "<log>",
    torn_bytes: int = 0,
    read_error: str | None = None,
    proven: Iterable[bytes] = (),
) -> Report:
    """Audit a list of envelopes (see the module docstring); ``proven`` as for
    :func:`replay.replay.replay_envelopes` (the verdict is the same with or without it)."""
    report = Report(path)
    try:
        replay = replay_envelopes(envelopes, proven=proven)
    except UnreadableLog as exc:
        report.unreadable = bounded(str(exc) if read_error is None else f"{exc} ({read_error})", REASON_MAX)
        return report
    replay.torn_bytes, replay.read_error = torn_bytes, read_error
    report.replay = replay
    table = replay.table
    report.names = [p.name for p in table.parties][: table.seats] + [
        f"{p.name} (witness)" for p in table.parties[table.seats :]
    ]
    report.stats = _stats(table)
    for finding in table.findings:
        report.faults.append(Fault(finding.seat, finding.seq, finding.reason))
    fault = table.fault()
    if fault is not None and all(f.reason != fault.reason for f in report.faults):
        seq = table.event_seq[fault.index] if fault.index < len(table.event_seq) else None
        # a claim made in a committed choice was signed in its author's own opening, not in the
        # opening that completed the step (another seat's entry)
        seq = table.event_seats.get(fault.index, {}).get(fault.seat, seq)
        report.faults.append(Fault(fault.seat, seq, f"claim disproved in play: {fault.reason}"))
    # in the order of the log: what was proved in the entries read comes before where reading broke
    damage = replay.damage()
    if damage is not None:
        report.faults.append(Fault(damage.seat, damage.seq, damage.reason))
    for fault in _equivocations_within(table, envelopes):
        known = {(f.seat, f.seq) for f in report.faults if f.reason.startswith("equivocation")}
        if (fault.seat, fault.seq) not in known:
            later = next((i for i, f in enumerate(report.faults) if f.seq is None or f.seq > fault.seq), None)
            report.faults.insert(len(report.faults) if later is None else later, fault)
    others = len(table.parties) - 1
    report.started = report.stats["countersigned"] >= others
    if table.mode == "trusted":
        report.unproved = (
            "a trusted game: the opener's seat dealt every card with a seeded generator"
            " and saw them all, so nothing about the deal was proved (a benchmark baseline)"
        )
    elif table.proof != "wt":
        report.unproved = (
            f"the shuffle proofs are cut-and-choose with {table.shuffle_rounds} rounds, below the floor"
            " (Wikström–Terelius): such a proof can be forged by grinding hashes, so a stacked deck"
            " cannot be ruled out"
        )
    report.finished = table.ended is not None
    if table.ended == "over":
        report.result = table.game.result(table.state)
        everyone = "both parties" if len(table.parties) == 2 else f"all {len(table.parties)} parties"
        cheats = sorted({f.seat for f in report.faults if f.seat is not None})
        report.status = (
            f"finished; result confirmed by {everyone}"
            if not cheats
            else f"finished, but {' and '.join(report.who(seat) for seat in cheats)} broke the rules"
            " (below): the result is the one played, not a fair one"
        )
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
    elif not report.started:
        signed = report.stats["countersigned"]
        report.status = "not started: " + (
            "no other party countersigned the genesis"
            if signed == 0
            else f"{signed} of the {others} other parties countersigned the genesis"
        )
        # a damaged log that stops in its setup is reported as damaged, not as a game never begun
        if not report.faults:
            report.unproved = "the game never started: the log holds the opener's genesis, which " + (
                "no other party countersigned"
                if signed == 0
                else f"only {signed} of the {others} other parties countersigned"
            )
    else:
        expected = table.expected()
        # (the log alone cannot tell a game still being played from one its players left)
        report.status = (
            f"unfinished: the log stops where entry {table.next_seq}, seat {expected[0]}'s"
            f" {expected[1]!r}, was due"
            if expected
            else "unfinished"
        )
    if table.mode == "trusted":
        _name_nobody(report)
    return report


def _equivocations_within(table: Table, envelopes: Sequence[bytes]) -> list[Fault]:
    """Equivocations the file itself proves: an envelope the fold did not take (after the place
    where the log breaks) that is another version of an entry the fold took, or two such envelopes
    that are versions of one place, each signed by that place's writer (same game, seq and ``prev``:
    :func:`_equivocation`). An outsider who copies both versions into one file, where they break its
    chain, shows what the signer did; it cannot make one (docs/protocol.md §6: two signed entries for
    one place prove it). Each place is named once, in the log's order.

    Signatures are checked only where they can prove something: at a place that holds a second,
    different envelope. A tail of any number of entries each at a place of its own (an outsider's
    junk, a log pasted after another game's) costs one decoding apiece, not one signature check
    apiece; and at most :data:`VERSIONS_PER_PLACE` versions of one place are weighed (an outsider who
    can bury a real pair under a thousand forged versions could as well delete it)."""
    taken = len(table.entries)
    if taken >= len(envelopes):
        return []
    folded = {(e.seq, e.seat, e.prev): e.envelope for e in table.entries[1:]}
    # each place's versions after the break, in the log's order (the same bytes again are no
    # second version: a copied tail), with the log's entry index of each
    versions: dict[tuple[int, int, bytes], list[tuple[int, bytes]]] = {}
    found: dict[int, tuple[int, Fault]] = {}
    for index, envelope in enumerate(envelopes[taken:], start=taken):
        try:
            entry = parse_envelope(envelope)
        except LogError:
            continue
        if entry.game != table.game_id:
            continue
        if entry.seq == 0:
            if 0 not in found and _another_genesis(table, entry):
                reason = f"this log holds both signed genesis entries (the second at the log's entry {index})"
                found[0] = (index, Fault(0, 0, REUSED_ID, reason))
            continue
        if not 0 <= entry.seat < len(table.parties):
            continue
        place = (entry.seq, entry.seat, entry.prev)
        held = versions.setdefault(place, [])
        fresh = envelope != folded.get(place) and all(envelope != e for _, e in held)
        if fresh and len(held) < VERSIONS_PER_PLACE:
            held.append((index, envelope))
    key_of = {seat: party.key for seat, party in enumerate(table.parties)}
    for place, held in versions.items():
        ours = folded.get(place)
        if ours is None and len(held) < 2:
            continue  # one version of a place: nothing to compare it with, nothing to verify
        if ours is None:
            # the first validly signed version stands for the place, as the fold's own entry would
            key = key_of[place[1]]
            first = next((i for i, (_, e) in enumerate(held) if parse_envelope(e).signed_by(key)), None)
            if first is None:
                continue
            ours, held = held[first][1], held[first + 1 :]
        for index, envelope in held:
            fault = _equivocation(table, ours, envelope, "this log holds")
            if fault is not None:
                fault.evidence += f" (the second at the log's entry {index})"
                if place[0] not in found or index < found[place[0]][0]:
                    found[place[0]] = (index, fault)
                break
    return [found[seq][1] for seq in sorted(found)]


VERSIONS_PER_PLACE = 16
"""Versions of one place after the break that :func:`_equivocations_within` weighs."""


REUSED_ID = (
    "reused game id: the opener signed two different games under one id, which would make parties"
    " re-derive their secrets"
)


def _another_genesis(table: Table, entry: Entry) -> bool:
    """``entry`` is another genesis under this game's id signed by this game's opener (its key from
    this log's genesis): every table has a fresh id, so only the opener can have made both."""
    genesis = table.genesis
    return (
        entry.envelope != genesis.envelope
        and (entry.kind, entry.seat, entry.prev) == ("genesis", 0, genesis.prev)
        and entry.signed_by(table.parties[0].key)
    )


def _name_nobody(report: Report) -> None:
    """A trusted game: the dealer announced every face, so a broken rule or a claim "disproved by the
    cards" may be its framing, and a stall is a closer's word: no fault is held against a seat."""
    for fault in report.faults:
        if fault.seat is not None:
            fault.reason, fault.seat = held_against_nobody(fault.reason, report.who(fault.seat)), None


RESULT_LINE = 100
"""A result longer than this many characters is printed a part a line."""

OWED_WORDS = {
    "countersign": "its signature under the table's terms",
    "keyshare": "its key share",
    "move": "a move",
    "shuffle": "its shuffle of the deck",
    "tokens": "its part in turning over or dealing a card",
    "sealed": "its part in showing a card privately",
    "commit": "its secret choice (sealed, to be opened later)",
    "open": "the opening of its secret choice",
    "final": "its confirmation of the result",
    "deal": "the dealer's answer",
}
"""What a stopped party owed, in a player's words (the entry kind follows in brackets)."""


def _stall(table: Table, report: Report) -> Fault:
    """The party the table waited for when the game was closed: it stopped. What it had seen (the
    others' openings) and what could no longer be checked (the round's claims) go in the reason."""
    step = table.step
    waited = step.writers[0] if step.writers else None
    owed = OWED_WORDS.get(step.kind, "an entry")
    reason = f"stopped: it owed {owed} (a {step.kind!r} entry) and wrote nothing before the table was closed"
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


def audit_path(path: Path | str, proven: Iterable[bytes] = (), loaded: LoadedLog | None = None) -> Report:
    """Audit one log file; ``proven``: proof statements this process has already found true (see
    :func:`replay.replay.replay_envelopes`), such as a node's at the end of the game it wrote;
    ``loaded``: the file as :func:`p2p.log.read_log` already read it (else it is read here)."""
    if loaded is None:
        try:
            loaded = read_log(path)
        except LogError as exc:  # the file cannot be read at all (missing, a directory, I/O)
            report = Report(str(path))
            report.unreadable = bounded(str(exc), REASON_MAX)
            return report
    if not loaded.envelopes:
        report = Report(str(path))
        report.unreadable = bounded(unreadable_words(loaded, path), REASON_MAX)
        return report
    report = audit_envelopes(loaded.envelopes, str(path), loaded.torn_bytes, loaded.error, proven)
    if report.replay is not None:
        evidence_beside(Path(path), report)
    return report


EVIDENCE_SUFFIX = ".evidence"
"""A node keeps every pair of versions of one entry it received beside its log, in ``LOG.evidence``
(the envelope its log holds, then the other; pairs one after another). An equivocation caught in
play is also written into the log (``expose``); the file still proves one the game ended before
anyone could expose."""

EVIDENCE_MAX_BYTES = 64 * 1024 * 1024
"""A larger evidence file is not read (an honest node keeps a few pairs at most)."""


def evidence_beside(path: Path, report: Report) -> None:
    """Add to ``report`` what ``path.with_suffix(".evidence")`` proves: each pair of different
    entries for one place of this game, both signed by that place's writer, is an equivocation by
    it. A pair that proves nothing (another game, a bad signature, a file someone edited) is only
    counted: the file is not signed as a whole, so it can add proof but never blame by itself."""
    beside = path.with_suffix(EVIDENCE_SUFFIX)
    if beside == path or not beside.is_file():
        return
    name = safe_text(beside.name)
    try:
        if beside.stat().st_size > EVIDENCE_MAX_BYTES:
            report.beside = f"{name} is larger than {EVIDENCE_MAX_BYTES >> 20} MiB: not read"
            return
        data = beside.read_bytes()
        envelopes = [envelope for _, envelope in iter_envelopes(data)]
    except (OSError, LogError) as exc:
        report.beside = f"{name} could not be read: {safe_text(exc, 200)}"
        return
    assert report.replay is not None
    table = report.replay.table
    known = {(f.seat, f.seq) for f in report.faults if f.reason.startswith("equivocation")}
    proved = ignored = 0
    for ours, other in zip(envelopes[0::2], envelopes[1::2], strict=False):
        fault = _equivocation(table, ours, other, f"{name} holds")
        if fault is None:
            ignored += 1
        elif (fault.seat, fault.seq) not in known:
            known.add((fault.seat, fault.seq))
            # in the log's order, like the rest: a stall it caused comes after it
            later = next((i for i, f in enumerate(report.faults) if f.seq is None or f.seq > fault.seq), None)
            report.faults.insert(len(report.faults) if later is None else later, fault)
            proved += 1
    ignored += len(envelopes) % 2
    words = [f"{name}: {_plural(len(envelopes) // 2, 'pair')} of versions of one entry"]
    if proved:
        words.append(f"{proved} proving an equivocation this log does not already show")
    if ignored:
        words.append(f"{ignored} proving nothing (not two versions signed by one writer of this game)")
    if len(envelopes) // 2 and not proved and not ignored:
        words.append("each already shown by the log")
    report.beside = "; ".join(words)


def _equivocation(table: Table, ours: bytes, other: bytes, held: str) -> Fault | None:
    """The fault two envelopes prove, if they are different entries for one place of this game
    (same game id, seq, writer and ``prev``), each signed by its writer's key from this log's
    genesis. ``held`` says where they are ("X holds", "X and Y hold"). An entry of another game
    between the same players (a rematch) or of another history is no second version of this place."""
    try:
        a, b = parse_envelope(ours), parse_envelope(other)
    except LogError:
        return None
    parties = table.parties
    same_place = a.game == b.game == table.game_id and (a.seq, a.seat, a.prev) == (b.seq, b.seat, b.prev)
    if not same_place or ours == other or not 0 <= a.seat < len(parties) or a.seq == 0:
        return None
    key = parties[a.seat].key
    if not (a.signed_by(key) and b.signed_by(key)):
        return None
    return Fault(
        a.seat,
        a.seq,
        f"equivocation: signed two different entries for entry {a.seq}",
        f"{held} both signed entries (hashes {a.hash.hex()[:16]}, {b.hash.hex()[:16]})",
    )


def _envelopes_of(path: Path | str) -> list[bytes]:
    try:
        return read_log(path).envelopes
    except LogError:  # already reported as unreadable by audit_path
        return []


@dataclass
class Pair:
    """How two logs relate, found by comparing them entry by entry."""

    a: str
    b: str
    relation: str
    """``identical``, ``prefix`` (one holds the other and more), ``diverge`` (they part at
    ``common``), ``different games``, ``one id, two games`` or ``not compared`` (one is unreadable)."""
    words: str
    common: int = 0
    """Entries the two hold alike from the start."""
    sizes: tuple[int, int] = (0, 0)
    faults: list[Fault] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    """The seats' names, from the pair's genesis (for naming a fault's seat)."""

    def as_dict(self) -> dict[str, Any]:
        """Plain form for ``--json``."""
        return {
            "logs": [self.a, self.b],
            "relation": self.relation,
            "words": self.words,
            "entries": list(self.sizes),
            "common": self.common,
        }


@dataclass
class Comparison:
    """Every pair of several logs compared, and what the differences prove."""

    logs: int = 0
    pairs: list[Pair] = field(default_factory=list)
    faults: list[tuple[Fault, Pair]] = field(default_factory=list)
    """Each fault once (a fault seen between several pairs is kept with the first)."""

    @property
    def agree(self) -> bool:
        """Every pair is of one game, and one log of it holds the other (or both are identical)."""
        return bool(self.pairs) and all(p.relation in ("identical", "prefix") for p in self.pairs)

    def who(self, fault: Fault, pair: Pair) -> str:
        """The fault's seat by name, or that no seat can be blamed."""
        if fault.seat is None:
            return "no seat can be blamed"
        name = pair.names[fault.seat] if 0 <= fault.seat < len(pair.names) else "?"
        return f"seat {fault.seat} ({safe_text(name, 60)})"

    def text(self) -> str:
        """The comparison a person reads."""
        lines = [f"comparison of the {self.logs} logs:"]
        lines += [f"  - {p.words}" for p in self.pairs]
        if self.faults:
            count = len(self.faults)
            lines.append(f"COMPARISON: {count} FAULT{'S' if count > 1 else ''}")
            for fault, pair in self.faults:
                lines.append(f"  - {self.who(fault, pair)}, entry {fault.seq}: {safe_text(fault.reason)}")
                if fault.evidence:
                    lines.append(f"      evidence: {safe_text(fault.evidence)}")
        elif self.agree:
            lines.append("COMPARISON: THE LOGS AGREE — each pair is of one game, and one log holds the other")
        elif all(p.relation in ("different games", "not compared") for p in self.pairs):
            lines.append("COMPARISON: NOTHING COMPARED — no two of these logs are readable logs of one game")
        else:
            agree = sum(p.relation in ("identical", "prefix") for p in self.pairs)
            parted = sum(p.relation == "diverge" for p in self.pairs)
            apart = len(self.pairs) - agree - parted
            counts = [
                f"{_plural(agree, 'pair')} of logs {'agrees' if agree == 1 else 'agree'}" if agree else "",
                f"{_plural(parted, 'pair')} {'parts' if parted == 1 else 'part'}, proving nothing against"
                " anyone"
                if parted
                else "",
                f"{_plural(apart, 'pair')} not compared (different games, or unreadable)" if apart else "",
            ]
            lines.append("COMPARISON: NO FAULT — " + "; ".join(c for c in counts if c))
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """Plain form for ``--json``."""
        return {
            "agree": self.agree,
            "pairs": [p.as_dict() for p in self.pairs],
            "faults": [f.as_dict() for f, _ in self.faults],
        }


def compare(paths: Sequence[Path | str], logs: Sequence[Sequence[bytes]] | None = None) -> Comparison:
    """Compare every pair of logs: whether they agree (identical, or one holds the other and more),
    are of different games, or part at some entry, and what that proves (:func:`compare_logs`).
    ``logs``: the envelopes of each path as already read (else each file is read here)."""
    result = Comparison(len(paths))
    logs = [_envelopes_of(p) for p in paths] if logs is None else logs
    seen: set[tuple[int | None, int | None, str]] = set()
    for i in range(len(logs)):
        for j in range(i + 1, len(logs)):
            pair = _relate(paths[i], logs[i], paths[j], logs[j])
            if pair.relation == "diverge" or pair.relation == "one id, two games":
                pair.faults = _compare_pair(paths[i], logs[i], paths[j], logs[j])
                if pair.relation == "diverge" and not pair.faults:
                    pair.words += (
                        "; the difference proves nothing against anyone (each log's own verdict stands)"
                    )
            result.pairs.append(pair)
            for fault in pair.faults:
                key = (fault.seat, fault.seq, fault.reason[:40])
                if key not in seen:
                    seen.add(key)
                    result.faults.append((fault, pair))
    return result


def compare_logs(paths: Sequence[Path | str], reports: Sequence[Report]) -> list[Fault]:
    """Compare every pair of logs: two different entries signed by one seat for one place prove
    equivocation; two games under one game id signed by one opener prove a reused id."""
    return [fault for fault, _pair in compare(paths).faults]


def _relate(path_a: Path | str, log_a: Sequence[bytes], path_b: Path | str, log_b: Sequence[bytes]) -> Pair:
    """How two logs relate (see :class:`Pair`); the faults are found by :func:`_compare_pair`."""
    a, b = safe_text(str(path_a)), safe_text(str(path_b))
    pair = Pair(str(path_a), str(path_b), "not compared", "", sizes=(len(log_a), len(log_b)))
    try:
        genesis_a = Table(log_a[0]) if log_a else None
        genesis_b = Table(log_b[0]) if log_b else None
    except Exception:  # an unreadable genesis is reported by that log's own audit
        genesis_a = genesis_b = None
    if genesis_a is None or genesis_b is None:
        pair.words = f"{a} and {b} are not compared: one of them holds no readable game"
        return pair
    pair.names = [p.name for p in genesis_a.parties]
    if genesis_a.game_id != genesis_b.game_id:
        pair.relation, pair.words = (
            "different games",
            f"{a} and {b} are logs of different games: not compared",
        )
        return pair
    common = next((k for k, (x, y) in enumerate(zip(log_a, log_b, strict=False)) if x != y), None)
    if common == 0:
        pair.relation = "one id, two games"
        pair.words = f"{a} and {b} hold two different games under one game id"
        return pair
    if common is None:
        pair.common = min(len(log_a), len(log_b))
        shorter, longer = (a, b) if len(log_a) <= len(log_b) else (b, a)
        more = abs(len(log_a) - len(log_b))
        if more == 0:
            pair.relation = "identical"
            pair.words = (
                f"{a} and {b} agree: they are identical ({_plural(len(log_a), 'entry', 'entries')} each)"
            )
        else:
            pair.relation = "prefix"
            pair.words = (
                f"{a} and {b} agree: {longer} holds {shorter}'s {_plural(pair.common, 'entry', 'entries')}"
                f" and {more} more"
            )
        return pair
    pair.relation, pair.common = "diverge", common
    pair.words = (
        f"{a} and {b} hold the same first {_plural(common, 'entry', 'entries')} and part at entry {common}"
    )
    return pair


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
                    REUSED_ID,
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
            # two versions of one place, or an edit: a shifted copy, an entry of another game of the
            # same players (a rematch) or of another history, which proves nothing about this one
            fault = _equivocation(genesis_a, a, b, f"{safe_text(path_a)} and {safe_text(path_b)} hold")
            return [fault] if fault is not None and fault.seq == seq else []
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
    if (close.game, close.seq, close.prev) != (entry.game, entry.seq, entry.prev):
        return []  # not two entries for one place of this game: an edit, which its log's audit finds
    try:
        # those that went on from the entry; a fellow member of its concurrent step, written ahead
        # on the same base (docs/protocol.md §3.1), went on from nothing
        later = [parse_envelope(e) for e in log[entry.seq + 1 :]]
        went_on = sorted({e.seat for e in later if e.prev != entry.prev} - {close.seat})
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


_SEVERITY = (UNREADABLE, FAULTS, NOTHING_PROVED, CLEAN)
"""Exit codes, the worst first: several logs exit with the worst of theirs."""


def fit_to_terminal(text: str, width: int | None = None) -> str:
    """``text`` as a terminal shows it whole: each line longer than ``width`` (the terminal's, when
    standard output is one; else the text is returned as it is, one line per finding for ``grep``)
    wrapped at spaces, continuing two columns in from where it started (under a finding's words,
    past its ``-``), instead of being cut mid-word by the terminal."""
    if width is None:
        if not sys.stdout.isatty():
            return text
        width = shutil.get_terminal_size().columns - 1
    width = max(width, 40)
    out: list[str] = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        if len(line) <= width or not body:
            out.append(line)
            continue
        indent = line[: len(line) - len(body)]
        out += textwrap.wrap(
            body, width, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False
        )
    return "\n".join(out)


def main_audit(paths: Sequence[str], as_json: bool) -> int:
    """The ``fairdeck audit`` command: print the report(s) and return the exit code.

    One log: its report (``--json``: one object, as ever). Several: each log's report, then the
    comparison of every pair (``--json``: ``{"logs": [report, ...], "comparison": {"agree",
    "pairs", "faults"}, "verdict", "exit_code"}``)."""
    reports: list[Report] = []
    logs: list[list[bytes]] = []
    proven: set[bytes] = set()  # logs of one game prove the same statements: each is checked once
    for path in paths:
        # each file is read once, and the comparison weighs the very entries its audit read: a
        # pipe (``cat LOG | fairdeck audit /dev/stdin OTHER``) holds nothing the second time, and a
        # log being written holds more (either way two logs that disagree were compared as if not)
        try:
            loaded: LoadedLog | None = read_log(path)
        except LogError:
            loaded = None  # (its audit reads it again, and says why it cannot)
        reports.append(audit_path(path, proven, loaded))
        logs.append(loaded.envelopes if loaded is not None else [])
        if reports[-1].replay is not None:
            proven |= reports[-1].replay.table.verified
    if len(reports) == 1:
        report = reports[0]
        text = report.text()
        print(json.dumps(report.as_dict(), indent=2, default=str) if as_json else fit_to_terminal(text))
        return report.exit_code
    comparison = compare(paths, logs)
    codes = {r.exit_code for r in reports} | ({FAULTS} if comparison.faults else set())
    code = next(c for c in _SEVERITY if c in codes)
    if as_json:
        worst = next((r.verdict for r in reports if r.exit_code == code), "faults")
        out = {
            "logs": [r.as_dict() for r in reports],
            "comparison": comparison.as_dict(),
            "verdict": worst,
            "exit_code": code,
        }
        print(json.dumps(out, indent=2, default=str))
    else:
        print(fit_to_terminal("\n\n".join([*(r.text() for r in reports), comparison.text()])))
    return code
