"""A peer's own log, checked and healed when the peer starts again.

Every entry is signed and every other party holds them all, so a damaged log never has to stop a
game. On restart (:meth:`p2p.node.Node.resume`) the log is folded through the party's replica entry
by entry — signature, chain, proofs, rules, exactly as if received — and everything from the first
entry that does not verify (a flipped bit, a broken chain, a torn or garbled write) to the end of
the file is **moved aside** to ``<log>.damaged-N`` next to it (never deleted), and the file is cut
back to what verified. A log that is gone (deleted, or 0 bytes) is started again from the genesis
kept in the roster file (``<game>.roster``). Either way the node then asks the other parties for
what they hold (``hello``), and every entry they send back goes through the normal receive path,
verified one by one, before it is written.

While it catches up, a resumed party holds its own writes (:class:`Party`), so it never signs
again an entry it had already sent and lost from its log: it waits a short, bounded time for the
others' answers (``held``) and only then writes what it still owes.

Each thing done is told in one line that names the file and the entry.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from p2p.log import LogError, read_log
from p2p.protocol import Party, Rejected

MAX_ROSTER = 1024 * 1024
"""A roster holds endpoints and the genesis; anything larger is not one."""


class RecoveryError(Exception):
    """A game that cannot be resumed from what is on disk; the message says why, in one line."""


def roster_path(log_path: Path) -> Path:
    """The roster file next to a log (endpoints, and the genesis since this version)."""
    return log_path.with_suffix(".roster")


def read_roster(log_path: Path) -> dict[str, Any]:
    """The roster of a game as a dict with ``endpoints`` (and ``genesis`` if kept); raises
    :class:`RecoveryError` with one line if it is missing or unreadable."""
    path = roster_path(log_path)
    try:
        data = path.read_bytes()
        if len(data) > MAX_ROSTER:
            raise ValueError("too large")
        roster = msgpack.unpackb(data, raw=False)
    except FileNotFoundError:
        raise RecoveryError(f"{path} is missing: the game cannot be resumed without it") from None
    except (OSError, ValueError, msgpack.UnpackException) as exc:
        raise RecoveryError(f"{path} cannot be read ({exc}): the game cannot be resumed") from None
    if not (
        isinstance(roster, dict)
        and isinstance(roster.get("endpoints"), list)
        and all(isinstance(e, str) for e in roster["endpoints"])
        and isinstance(roster.get("genesis", b""), bytes)
    ):
        raise RecoveryError(f"{path} is not a fairdeck roster: the game cannot be resumed")
    return roster


def saved_genesis(log_path: Path) -> bytes | None:
    """The genesis of a saved game: the log's first entry if it can be read, else the roster's."""
    try:
        roster = read_roster(log_path)
    except RecoveryError:
        roster = {}
    if isinstance(roster.get("genesis"), bytes):
        return roster["genesis"]  # type: ignore[no-any-return]
    try:
        envelopes = read_log(log_path).envelopes
    except LogError:
        return None
    return envelopes[0] if envelopes else None


@dataclass
class Restored:
    """What :func:`restore` made of a log: the party folded up to its last verifiable entry."""

    party: Party
    valid_bytes: int
    """Size of the log file now (what verified)."""
    write_genesis: bool
    """The file is empty: the genesis (from the roster) must be written first."""
    lines: list[str] = field(default_factory=list)
    """What was done, one line each."""
    story: list[str] = field(default_factory=list)
    """What the restored entries did, in the table's words (public: every party's replica says the
    same), one item per entry that did something, oldest first: a resumed console shows the game so
    far."""


def _aside_path(log_path: Path) -> Path:
    n = 1
    while True:
        candidate = log_path.with_name(f"{log_path.name}.damaged-{n}")
        if not candidate.exists():
            return candidate
        n += 1


def move_aside(log_path: Path, offset: int) -> tuple[Path, int]:
    """Move the bytes of ``log_path`` from ``offset`` on to a new ``<log>.damaged-N`` file (made
    durable first), then cut the log there; returns (that file, bytes moved)."""
    aside = _aside_path(log_path)
    with log_path.open("rb") as source:
        source.seek(offset)
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        moved = 0
        with os.fdopen(fd, "wb") as target:
            while chunk := source.read(1 << 20):
                target.write(chunk)
                moved += len(chunk)
            target.flush()
            os.fsync(target.fileno())
    os.truncate(log_path, offset)
    return aside, moved


def restore(log_path: Path, roster: dict[str, Any], make_party: Callable[[bytes], Party]) -> Restored:
    """Check ``log_path`` entry by entry and fold what verifies into a party (made by
    ``make_party(genesis)``); move whatever follows the last verifiable entry aside.

    Raises :class:`RecoveryError` (one line) when not even the genesis can be had.
    """
    kept: bytes | None = roster.get("genesis")
    name = log_path.name
    lines: list[str] = []
    story: list[str] = []
    try:
        loaded = read_log(log_path)
        exists = True
    except LogError:
        loaded, exists = None, log_path.exists()
    if loaded is None and exists:
        raise RecoveryError(f"{log_path} cannot be read at all; move it away and start again to rebuild it")
    envelopes = loaded.envelopes if loaded is not None else []
    size = log_path.stat().st_size if exists else 0

    bad: tuple[int, str] | None = None  # (entry index, why)
    genesis = envelopes[0] if envelopes else None
    if genesis is not None and kept is not None and genesis != kept:
        bad, genesis = (0, "it is not the genesis kept in the roster"), None
    if genesis is None and bad is None and envelopes == [] and size == 0:
        why = "is missing" if not exists else "is empty"
        if kept is None:
            raise RecoveryError(f"{log_path} {why} and its roster keeps no genesis: cannot resume the game")
        lines.append(
            f"{name} {why}: rebuilding it from the genesis kept in {roster_path(log_path).name} "
            "and the other parties' copies"
        )
    party: Party | None = None
    if genesis is not None:
        try:
            party = make_party(genesis)
        except Rejected as exc:
            bad = (0, exc.reason)
    if party is None:
        if kept is None:
            why = f"its genesis does not verify ({bad[1]})" if bad else "its genesis cannot be read"
            raise RecoveryError(f"{log_path}: {why}, and its roster keeps no copy: cannot resume the game")
        try:
            party = make_party(kept)
        except Rejected as exc:
            where = roster_path(log_path)
            raise RecoveryError(f"{where}: the genesis kept there is refused ({exc.reason})") from None
    if bad is None and genesis is not None:
        for index, envelope in enumerate(envelopes[1:], 1):
            try:
                entry, events = party.table.accept(envelope)
            except Rejected as exc:
                bad = (index, exc.reason)
                break
            party.learn(entry)
            if said := "; ".join(t for before, event in events if (t := party.table.describe(before, event))):
                story.append(said)
    good = envelopes[: bad[0]] if bad is not None else envelopes
    valid = loaded.end_of(len(good)) if loaded is not None else 0
    if size > valid:
        aside, moved = move_aside(log_path, valid)
        if bad is not None:
            what = f"entry {bad[0]} at byte {valid} does not verify ({bad[1]})"
        elif loaded is not None and loaded.error is not None:
            what = f"entry {len(good)} at byte {valid} cannot be read ({loaded.error})"
        else:
            what = f"entry {len(good)} at byte {valid} is torn (a write cut short)"
        lines.append(
            f"{name}: {what}; moved the {moved} bytes from there to {aside.name}; "
            "fetching the entries again from the other parties"
        )
    return Restored(party=party, valid_bytes=valid, write_genesis=not good, lines=lines, story=story)
