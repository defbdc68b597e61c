"""Folding a log through the protocol replica and the engine, deterministically.

Anyone can replay the public view; a seat can replay its own view with its identity key (it then
sees the cards that were dealt or shown to it); after end-of-round disclosure everything is public.
The fold is :class:`p2p.protocol.Table` itself, so a replay sees exactly what every peer saw.
:func:`text_lines` is ``fairdeck replay --text``: the game in words, every string the log's writers
chose (names, an abandon reason, a refusal's reason) made inert with :func:`p2p.safetext.safe_text`.

A log that cannot be folded to its end (an entry refused, damaged bytes, a torn tail) is described by
:meth:`Replay.damage` in the very words, and with the very entry number (the place in the log, which
is the seq the log expects there), that ``fairdeck audit`` prints; the replay and the viewer say it
and exit 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core import Event, Face, Ref, Seat
from engine.present import name_seats, presentation, seat_label
from p2p.identity import Identity
from p2p.log import FILE_MAGIC, LoadedLog, LogError, parse_envelope, read_log
from p2p.party import Party
from p2p.protocol import Rejected, Table
from p2p.safetext import safe_text


class UnreadableLog(ValueError):
    """The log cannot be replayed at all (no readable, valid genesis)."""


def unreadable_words(loaded: LoadedLog, path: Path | str | None = None) -> str:
    """Why a file of which no complete entry could be read (``loaded``, read from ``path``) is no
    log, in plain words. What the file is, is told from the bytes it held when it was read
    (``loaded.head``), never by opening it again: a named pipe opened again waits for a writer for
    ever (``fairdeck audit`` of a pipe someone had written a line into hung there), and a pipe holds
    nothing the second time (``echo text | fairdeck audit /dev/stdin`` was not called text)."""
    if loaded.error is not None:
        if loaded.header_bytes:  # a log's header, then nothing that reads as its first entry
            return f"a fairdeck log whose first entry cannot be read ({loaded.error})"
        if newer := _newer_format(loaded.head):
            return f"a fairdeck log of format {newer}, which this version of fairdeck cannot read"
        if _looks_like_text(loaded.head):
            return "not a fairdeck log (it is a text file; a log is a series of signed binary entries)"
        return "not a fairdeck log (it does not begin with a log entry)"
    if loaded.torn_bytes:
        return f"no complete entry: {loaded.torn_bytes} bytes of a torn one (a torn write or a damaged file)"
    if loaded.head or (path is not None and _size(Path(path)) > 0):
        return "the file holds no entry (only a log's header)"
    return "the file is empty"


def _newer_format(head: bytes) -> str:
    """The format a file's first bytes name, when they are a fairdeck log header of another format."""
    stem = FILE_MAGIC[: FILE_MAGIC.rindex(b" ") + 1]  # b"fairdeck log "
    line = head[: len(FILE_MAGIC) + 8].split(b"\n", 1)[0]
    number = line[len(stem) :]
    return number.decode() if line.startswith(stem) and number.isdigit() else ""


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def held_against_nobody(reason: str, who: str) -> str:
    """A fault of a trusted game, worded so that it names nobody: the opener's seat dealt and
    announced every card, so the log cannot tell a broken rule from the dealer's framing."""
    return (
        f"{reason} (written by {who}; in a trusted game the opener's seat dealt and announced every"
        " card and could have framed anyone, so the audit holds nothing in it against a seat)"
    )


def _looks_like_text(head: bytes) -> bool:
    """A file's first bytes are printable UTF-8 text (a log starts with a binary header)."""
    try:
        text = head.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return False  # (a cut multi-byte character at the end of the sample counts as binary: rare)
    return bool(text) and all(c.isprintable() or c in "\t\r\n" for c in text)


@dataclass
class Damage:
    """Where and why a log could not be replayed to its end: ``seat`` is the party whose own
    signature proves the fault, or ``None`` when no seat can be blamed from this log alone."""

    seat: int | None
    seq: int
    """The place in the log (the seq the log expects there), as ``fairdeck audit`` numbers it."""
    reason: str


@dataclass
class Frame:
    """The game after one engine event: for stepping through a game."""

    seq: int
    """The log entry that completed the event."""
    event: Event
    before: Any
    after: Any
    text: str
    private_faces: dict[Ref, Face] = field(default_factory=dict)
    """Faces the viewing seat knew at this point (empty for the public view)."""
    public_faces: dict[Ref, Face] = field(default_factory=dict)


@dataclass
class Replay:
    """A folded log: the replica at its end, every frame, and where and why folding stopped."""

    table: Table
    frames: list[Frame]
    entries: int
    stopped: str | None = None
    """Why folding stopped before the last envelope (a rejected entry), if it did."""
    stopped_seat: int | None = None
    stopped_seq: int | None = None
    """The place of the refused entry in the log (the seq expected there, whatever it carries)."""
    stopped_envelope: bytes | None = None
    stopped_provable: bool = False
    """True if the refused entry's own signature proves its writer broke a rule."""
    read_error: str | None = None
    torn_bytes: int = 0
    party: Party | None = None
    _refused: Damage | None = field(default=None, repr=False)

    @property
    def final_state(self) -> Any:
        """The engine state after the last accepted entry."""
        return self.table.state

    def damage(self) -> Damage | None:
        """Why the log could not be folded to its end (``None``: it was, every byte of it). A writer
        is named only when its own signature proves the fault; otherwise the place where the log
        breaks is said, and that no seat can be blamed from this log alone."""
        table = self.table
        if self.stopped is not None:
            # asked on every redraw of the viewer: the refused entry's signature is checked once
            if self._refused is None:
                self._refused = self._refusal()
            return self._refused
        if self.read_error is not None:
            where = table.next_seq
            return Damage(None, where, f"the file is damaged after entry {where - 1}: {self.read_error}")
        if self.torn_bytes:
            return Damage(
                None,
                table.next_seq,
                f"the log is cut off: {self.torn_bytes} trailing "
                f"{'byte is' if self.torn_bytes == 1 else 'bytes are'} not a complete entry "
                "(a torn write or a damaged file)",
            )
        return None

    def _refusal(self) -> Damage:
        table, place = self.table, self.stopped_seq if self.stopped_seq is not None else self.table.next_seq
        reason = self.stopped or "refused"
        try:
            entry = parse_envelope(self.stopped_envelope or b"")
        except LogError as exc:
            return Damage(None, place, f"the log breaks at its entry {place}, which cannot be read: {exc}")
        if self.stopped_provable and table.mode == "trusted":
            who = seat_label(entry.seat, [safe_text(p.name, 60) for p in table.parties])
            return Damage(None, place, held_against_nobody(reason, who))
        if self.stopped_provable:
            return Damage(entry.seat, place, reason)
        signed = entry.seat < len(table.parties) and entry.signed_by(table.parties[entry.seat].key)
        if entry.game != table.game_id:
            # a flipped bit in the game id looks exactly like an entry of another game
            why = "does not belong to this game: altered, or spliced in from another game"
        elif not signed:
            why = "is not validly signed (forged or damaged)"
        elif entry.seq != place:
            why = f"carries seq {entry.seq} in place {place} (entries deleted, duplicated or moved)"
        elif table.ended is not None:
            # e.g. a fellow writer of the step whose entry ended the game, signed before it knew:
            # its writer did nothing wrong, but an honest node keeps nothing after the end
            why = (
                f"is seat {entry.seat}'s, but comes after the game ended at entry {place - 1} "
                "(an honest node keeps nothing after the end: added to the file)"
            )
        elif entry.prev != table.head:
            why = (
                f"is seat {entry.seat}'s, but extends a different entry {place - 1} than the one here; "
                f"another log holding the entry {place - 1} it extends would show who signed two versions"
            )
        else:
            why = f"is refused: {reason}"
        where = f"the log breaks at its entry {place}, which {why}"
        return Damage(None, place, f"{where}; no seat can be blamed from this log alone")

    def fold(self, envelope: bytes) -> bool:
        """Fold one more envelope (frames and all); ``False``, with :attr:`stopped` set, once one is
        refused (and for every envelope after that). A log being received folds this way."""
        if self.stopped is not None:
            return False
        table, party = self.table, self.party
        try:
            entry, events = table.accept(envelope)
        except Rejected as exc:
            # numbered by its place, not by the seq it carries: a duplicated or spliced entry carries
            # another entry's number, and the audit names the place
            self.stopped, self.stopped_seat, self.stopped_seq = exc.reason, exc.seat, table.next_seq
            self.stopped_provable, self.stopped_envelope = exc.provable, bytes(envelope)
            return False
        if party is not None:
            party.learn(entry)
        self.entries += 1
        new = [
            Frame(entry.seq, event, before, table.state, table.describe(before, event),
                  public_faces=dict(table.public_faces))
            for before, event in events
        ]  # fmt: skip
        for i, frame in enumerate(new):
            # each frame's "after" is the state right after its own event, not the entry's last
            frame.after = new[i + 1].before if i + 1 < len(new) else table.state
            if party is not None:
                frame.private_faces = dict(party.private_faces)
        self.frames.extend(new)
        return True


def replay_envelopes(
    envelopes: Sequence[bytes], identity: Identity | None = None, proven: Iterable[bytes] = ()
) -> Replay:
    """Fold ``envelopes`` (the first must be the genesis); with ``identity``, as that party sees it.

    ``proven``: proof statements this process has already checked and found true (a node's
    :attr:`p2p.protocol.Table.verified` at the end of its game, or another log's replay of the same
    game): their proofs are not checked again. A statement names every byte its proof covers, so a
    proof that differs in any byte is checked as if nothing were known."""
    if not envelopes:
        raise UnreadableLog("the log is empty")
    try:
        if identity is not None:
            party: Party | None = Party(identity, envelopes[0])
            table = party.table
        else:
            party = None
            table = Table(envelopes[0])
    except Rejected as exc:
        raise UnreadableLog(f"entry 0 is not a valid genesis: {exc.reason}") from None
    table.verified.update(proven)
    result = Replay(table, [], 1, party=party)
    for envelope in envelopes[1:]:
        if not result.fold(envelope):
            break
    return result


def replay_log(path: Path | str, identity: Identity | None = None) -> Replay:
    """Read and fold a log file (see :func:`replay_envelopes`)."""
    try:
        loaded = read_log(path)
    except LogError as exc:  # missing, a directory, an I/O error
        raise UnreadableLog(str(exc)) from None
    if not loaded.envelopes:
        raise UnreadableLog(unreadable_words(loaded, path))
    result = replay_envelopes(loaded.envelopes, identity)
    result.read_error = loaded.error
    result.torn_bytes = loaded.torn_bytes
    return result


def closing_words(table: Any, names: Sequence[str], me: Seat | None = None) -> str:
    """How ``table`` (a :class:`p2p.protocol.Table`) was closed when not by its rules, in one line:
    who wrote the ``abandon`` entry and the reason they gave, or the faults the table proved (an
    accusation, a signed entry that broke a rule); ``""`` otherwise. Reasons may quote what another
    party signed, so they are made inert here; ``names`` must already be safe. (Shared by the replay's
    text, the console and the plain interface.)"""
    if table.ended == "abandoned":
        closer = next((e for e in reversed(table.entries) if e.kind == "abandon"), None)
        if closer is None:
            return ""
        reason = closer.body.get("reason", "") if isinstance(closer.body, Mapping) else ""
        said = safe_text(reason, 200) if reason else "(no reason given)"
        return f"{seat_label(closer.seat, names, me)} closed the game: {said}"
    if table.ended in ("accused", "faulted"):
        return "; ".join(
            f"{seat_label(f.seat, names, me) if isinstance(f.seat, int) else 'no seat'}: "
            f"{safe_text(f.reason, 200)}"
            for f in table.findings
        )
    return ""


def per_seat(names: Sequence[str], values: Sequence[int]) -> str:
    """``alice 2, bob 1``; with names that hold commas ("bot-1, run by you") the numbers would read
    as part of them, so ``bot-0, run by you: 2 · bot-1, run by you: 1``."""
    if any("," in n for n in names):
        return " · ".join(f"{n}: {v}" for n, v in zip(names, values, strict=True))
    return ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))


def result_words(game: Any, result: dict[str, Any], names: list[str]) -> list[str]:
    """A game's result in words, one part each: winners by name, the outcome, per-seat numbers by
    name (``tokens: alice 2, bob 1``), a proven fault; never a Python list or dict. (Shared by the
    replay's text, the end of a game in both interfaces, ``games`` and the series.)"""
    parts = []

    def who(seat: Any) -> str:
        if not isinstance(seat, int) or not 0 <= seat < len(names):
            return "?"
        return names[seat] if names[seat] == f"seat {seat}" else f"{names[seat]} (seat {seat})"

    if (winners := result.get("winners")) is not None:
        parts.append(f"winner: {', '.join(who(w) for w in winners) or 'nobody'}")
    if result.get("outcome"):
        grade = f" ({result['grade']})" if result.get("grade") else ""
        parts.append(f"the players {result['outcome']}{grade}")
    labels = presentation(game).result_labels if game is not None else {}
    for key, value in result.items():
        if key in ("winners", "outcome", "grade", "fault"):
            continue
        label = labels.get(key) or key.replace("_", " ")
        if isinstance(value, list) and len(value) == len(names) and all(isinstance(v, int) for v in value):
            parts.append(f"{label}: " + per_seat(names, value))
        elif isinstance(value, int | str) and not isinstance(value, bool):
            parts.append(f"{label}: {safe_text(value, 80)}")
    fault = result.get("fault")
    if isinstance(fault, dict):
        reason = safe_text(fault.get("reason"), 300)
        parts.append(f"stopped by a proven fault: {who(fault.get('seat'))}: {reason}")
    elif fault:
        parts.append(f"stopped by a proven fault: {safe_text(fault, 300)}")
    return parts


def text_lines(result: Replay) -> Iterator[str]:
    """The replayed game as lines of text (``fairdeck replay --text``): who sits where, one line per
    event with the entry that completed it, why folding stopped (if it did) and how the game was
    closed when not by its rules. Every line is safe to print: nothing in it can act on a terminal."""
    table = result.table
    names = [safe_text(p.name, 40) for p in table.parties]
    seats = ", ".join(
        f"seat {i} ({n})" if i < table.seats else f"witness {i} ({n})" for i, n in enumerate(names)
    )
    yield f"{table.game.name}: {seats}"
    for frame in result.frames:
        if frame.text:
            yield f"[{frame.seq:5d}] {name_seats(safe_text(frame.text, 500), names)}"
    if table.ended == "over":
        players = names[: table.game.seats]
        yield "game over — " + "; ".join(result_words(table.game, table.game.result(table.state), players))
    damage = result.damage()
    if damage is not None:
        yield stop_words(damage, names)
    if table.ended is not None and table.ended != "over":
        closing = closing_words(table, names)
        yield f"the game was {table.ended}" + (f": {closing}" if closing else "")


def stop_words(damage: Damage, names: Sequence[str]) -> str:
    """``replay stopped at entry N: ...``: where the replay could not go on, worded as the audit
    words it (``names`` must already be safe)."""
    who = f"{seat_label(damage.seat, names)}: " if damage.seat is not None else ""
    return f"replay stopped at entry {damage.seq}: {who}{safe_text(damage.reason, 500)}"
