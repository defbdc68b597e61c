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

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2p.log import GAME_ID_SIZE, LogError, pack, parse_envelope, read_log, read_log_bytes, safe_unpack
from p2p.party import Party
from p2p.protocol import Rejected

MAX_ROSTER = 1024 * 1024
"""A roster holds endpoints and the genesis; anything larger is not one."""
ROSTER_OBJECTS = 1024
ROSTER_DEPTH = 4
"""A roster is a map of a few keys: at most 64 endpoints, a genesis (one bin) and how it ended."""
FIRST_ENTRY_BYTES = 1024 * 1024
"""How much of a log's head is read for its genesis (a genesis is a few kilobytes at most)."""


class RecoveryError(Exception):
    """A game that cannot be resumed from what is on disk; the message says why, in one line."""


def roster_path(log_path: Path) -> Path:
    """The roster file next to a log (endpoints, and the genesis since this version)."""
    return log_path.with_suffix(".roster")


def roster_remedy(log_path: Path) -> str:
    """What to do about a roster that is missing or damaged: every party keeps the same file."""
    name = roster_path(log_path).name
    return (
        f"copy {name} from another party of the game (every party keeps the same file, in its "
        "games folder) and resume again"
    )


def endpoint_ok(endpoint: object) -> bool:
    """``tcp://HOST:PORT`` with a port a socket can have."""
    if not isinstance(endpoint, str) or not endpoint.startswith("tcp://") or len(endpoint) > 300:
        return False
    host, sep, port = endpoint[len("tcp://") :].rpartition(":")
    return bool(sep and host and port.isdigit() and 0 < int(port) < 65536)


def _genesis_fields(envelope: object) -> tuple[bytes, int] | None:
    """(game id, number of parties) of an envelope that reads as a genesis entry, else None."""
    if not isinstance(envelope, bytes):
        return None
    try:
        entry = parse_envelope(envelope)
    except LogError:
        return None
    parties = entry.body.get("parties")
    if entry.kind != "genesis" or entry.seq != 0 or not isinstance(parties, list):
        return None
    return entry.game, len(parties)


def first_envelope(log_path: Path) -> bytes | None:
    """The log's first entry (its genesis), read from the head of the file only; None if the file
    is missing or its head cannot be read."""
    try:
        with log_path.open("rb") as handle:
            head = handle.read(FIRST_ENTRY_BYTES)
    except OSError:
        return None
    envelopes = read_log_bytes(head).envelopes
    return envelopes[0] if envelopes else None


def _named_game(log_path: Path) -> bytes | None:
    """The game id the log's file name gives (``<game id in hex>.fdlog``), if it gives one."""
    try:
        game = bytes.fromhex(log_path.stem)
    except ValueError:
        return None
    return game if len(game) == GAME_ID_SIZE else None


def read_roster(log_path: Path) -> dict[str, Any]:
    """The roster of a game as a dict with ``endpoints`` (and ``genesis`` if kept); raises
    :class:`RecoveryError` with one line (the file, what is wrong, what to do) if it is missing,
    unreadable, not a roster, does not fit the game's parties or is another game's.

    A kept genesis that cannot be read is left out (``repaired`` then says so in one line) when the
    log's own genesis can stand in for it: the endpoints are all a resume needs from the roster."""
    path = roster_path(log_path)
    remedy = roster_remedy(log_path)
    try:
        data = path.read_bytes()
        if len(data) > MAX_ROSTER:
            raise ValueError(f"{len(data)} bytes, more than a roster ever holds")
        roster = safe_unpack(data, ROSTER_OBJECTS, ROSTER_DEPTH)
    except FileNotFoundError:
        raise RecoveryError(f"{path} is missing: the game cannot be resumed without it; {remedy}") from None
    except (OSError, ValueError, LogError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise RecoveryError(f"{path} cannot be read ({why}): the game cannot be resumed; {remedy}") from None
    endpoints = roster.get("endpoints") if isinstance(roster, dict) else None
    if not (isinstance(endpoints, list) and endpoints and all(endpoint_ok(e) for e in endpoints)):
        raise RecoveryError(
            f"{path} is not a fairdeck roster (it holds no list of tcp://HOST:PORT endpoints): the game "
            f"cannot be resumed; {remedy}"
        )
    assert isinstance(roster, dict)
    own = first_envelope(log_path)
    own_fields = _genesis_fields(own)
    kept = roster.get("genesis")
    if kept is not None:
        kept_fields = _genesis_fields(kept)
        if kept_fields is None:
            if own_fields is None:
                raise RecoveryError(
                    f"{path}: the genesis kept there cannot be read, nor can the log's: the game cannot "
                    f"be resumed; {remedy}"
                )
            roster = {k: v for k, v in roster.items() if k != "genesis"}
            roster["repaired"] = (
                f"{path.name}: the genesis kept there cannot be read; using the log's own "
                "(the endpoints are read from the roster)"
            )
            kept_fields = None
        elif own_fields is not None and own != kept and own_fields[0] != kept_fields[0]:
            # two games: the file name says which one this is; if it does not, touch nothing
            named = _named_game(log_path)
            if named != kept_fields[0]:
                whose = f"another game's ({kept_fields[0].hex()[:12]}…)"
                raise RecoveryError(
                    f"{path} is {whose} roster, not that of {log_path.name} (game "
                    f"{own_fields[0].hex()[:12]}…): the game cannot be resumed with it; {remedy}"
                )
        fields = kept_fields or own_fields
    else:
        fields = own_fields
    if fields is not None and fields[1] != len(endpoints):
        raise RecoveryError(
            f"{path} lists {len(endpoints)} endpoints for the game's {fields[1]} parties: the game "
            f"cannot be resumed with it; {remedy}"
        )
    return roster


def write_roster(log_path: Path, roster: dict[str, Any]) -> None:
    """Write the roster of the game at ``log_path``, whole or not at all: aside, synced, renamed over
    the old one (a crash while writing it must not leave a game that cannot be resumed)."""
    path = roster_path(log_path)
    aside = path.with_name(f"{path.name}-new")
    data = pack({k: v for k, v in roster.items() if k != "repaired"})
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(aside, path)
    except OSError:
        with contextlib.suppress(OSError):
            aside.unlink()
        raise
    with contextlib.suppress(OSError):
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def own_place(log_path: Path, roster: dict[str, Any], key: bytes) -> int | None:
    """Our party index in the saved game (by our identity key), from the genesis the roster keeps
    or the log's first entry; None if neither reads or we are not seated there."""
    for genesis in (roster.get("genesis"), first_envelope(log_path)):
        if _genesis_fields(genesis) is None:
            continue
        assert isinstance(genesis, bytes)
        parties = parse_envelope(genesis).body["parties"]
        for index, party in enumerate(parties):
            if isinstance(party, dict) and party.get("key") == key:
                return index if index < len(roster["endpoints"]) else None
        return None
    return None


def saved_genesis(log_path: Path) -> bytes | None:
    """The genesis of a saved game: the roster's (checked against the log's), else the log's first
    entry if it can be read."""
    try:
        roster = read_roster(log_path)
    except RecoveryError:
        roster = {}
    if isinstance(roster.get("genesis"), bytes):
        return roster["genesis"]  # type: ignore[no-any-return]
    return first_envelope(log_path)


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
            if "not seated" in exc.reason and kept in (None, genesis):  # another identity's home
                raise RecoveryError(
                    f"{log_path} cannot be resumed here: {exc.reason} (the log was left as it is; "
                    "resume it with the identity that played it, the identity.key of its home)"
                ) from None
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
