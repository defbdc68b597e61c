"""Folding a log through the protocol replica and the engine, deterministically.

Anyone can replay the public view; a seat can replay its own view with its identity key (it then
sees the cards that were dealt or shown to it); after end-of-round disclosure everything is public.
The fold is :class:`p2p.protocol.Table` itself, so a replay sees exactly what every peer saw.
:func:`text_lines` is ``fairdeck replay --text``: the game in words, every string the log's writers
chose (names, an abandon reason, a refusal's reason) made inert with :func:`p2p.safetext.safe_text`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core import Event, Face, Ref, Seat
from engine.present import name_seats, seat_label
from p2p.identity import Identity
from p2p.log import read_log
from p2p.protocol import Party, Rejected, Table
from p2p.safetext import safe_text


class UnreadableLog(ValueError):
    """The log cannot be replayed at all (no readable, valid genesis)."""


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
    stopped_provable: bool = False
    """True if the refused entry's own signature proves its writer broke a rule."""
    read_error: str | None = None
    torn_bytes: int = 0
    party: Party | None = None

    @property
    def final_state(self) -> Any:
        """The engine state after the last accepted entry."""
        return self.table.state

    def fold(self, envelope: bytes) -> bool:
        """Fold one more envelope (frames and all); ``False``, with :attr:`stopped` set, once one is
        refused (and for every envelope after that). A log being received folds this way."""
        if self.stopped is not None:
            return False
        table, party = self.table, self.party
        try:
            entry, events = table.accept(envelope)
        except Rejected as exc:
            self.stopped, self.stopped_seat, self.stopped_seq = exc.reason, exc.seat, exc.seq
            self.stopped_provable = exc.provable
            if exc.seq is None:
                self.stopped_seq = table.next_seq
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


def replay_envelopes(envelopes: Sequence[bytes], identity: Identity | None = None) -> Replay:
    """Fold ``envelopes`` (the first must be the genesis); with ``identity``, as that party sees it."""
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
    result = Replay(table, [], 1, party=party)
    for envelope in envelopes[1:]:
        if not result.fold(envelope):
            break
    return result


def replay_log(path: Path | str, identity: Identity | None = None) -> Replay:
    """Read and fold a log file (see :func:`replay_envelopes`)."""
    loaded = read_log(path)
    if not loaded.envelopes:
        raise UnreadableLog(
            loaded.error
            or (
                "the log is empty"
                if not loaded.torn_bytes
                else f"the log holds only {loaded.torn_bytes} bytes of a torn entry"
            )
        )
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
    if result.stopped:
        yield f"replay stopped at entry {result.stopped_seq}: {safe_text(result.stopped, 500)}"
    if table.ended is not None and table.ended != "over":
        closing = closing_words(table, names)
        yield f"the game was {table.ended}" + (f": {closing}" if closing else "")
