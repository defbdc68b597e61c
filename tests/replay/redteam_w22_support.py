"""Helpers for ``test_redteam_w22_*.py``: the honest games of wave 2 session 21's red team (real
crypto, a witness at every table; reused, not rebuilt), the secrets no report may show, format-3
log files taken apart record by record, and checks every verdict must pass."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from p2p.log import FILE_MAGIC, read_log
from p2p.memtable import build_table
from p2p.party import Party
from replay.audit import Report, audit_envelopes
from replay.replay import replay_envelopes
from tests.replay.redteam_w21_support import GAMES, SEED, WITNESSES, entries, honest, identity, parties

REPORT_LIMIT = 20_000
"""No report, text or ``--json``, of any file here is longer than this many characters: a report is
a few lines, whatever the file holds."""


@functools.cache
def rematch(game: str) -> tuple[bytes, ...]:
    """Another honest game of ``game`` between the very same parties (the same keys), under another
    game id: what an outsider splices in has valid signatures of this table's parties."""
    seats, options = GAMES[game]
    ids = [identity(i) for i in range(parties(game))]
    table = build_table(
        game, seats, seed=SEED, options=options, witnesses=WITNESSES, shuffle_rounds=4,
        identities=ids, game_id=b"rematch-" + game.encode()[:8].ljust(8, b"-"),
    )  # fmt: skip
    table.run()
    assert table.parties[0].table.ended == "over"
    return tuple(table.logs[0])


@functools.cache
def proven(game: str) -> frozenset[bytes]:
    """The proof statements of the honest game, checked once: an audit given them checks again only
    what differs in any byte (so a cheat's entry is checked in full), and the verdict is the same."""
    return frozenset(replay_envelopes(list(honest(game))).table.verified)


def audit(log: list[bytes] | tuple[bytes, ...], game: str) -> Report:
    """``replay.audit.audit_envelopes`` of ``log``, a log of ``game``'s table."""
    return audit_envelopes(list(log), proven=proven(game))


def blamed(report: Report) -> list[tuple[int | None, int | None]]:
    """``(seat, entry)`` of every fault."""
    return [(f.seat, f.seq) for f in report.faults]


def names_nobody(report: Report) -> bool:
    """No fault of the report names a party."""
    return all(f.seat is None for f in report.faults)


def records(path: Path) -> tuple[bytes, list[bytes]]:
    """A format-3 file as its header and its records, byte for byte (``header + b"".join(records)``
    is the file)."""
    data = path.read_bytes()
    loaded = read_log(path)
    assert loaded.error is None and not loaded.torn_bytes and data.startswith(FILE_MAGIC)
    starts = [len(FILE_MAGIC), *loaded.ends[:-1]]
    return FILE_MAGIC, [data[s:e] for s, e in zip(starts, loaded.ends, strict=True)]


@functools.cache
def secrets(game: str) -> tuple[bytes, ...]:
    """Every party's secrets at ``game``'s table: its identity's private key, its key share and its
    seal key (each 32 bytes), as they would leak."""
    out: list[bytes] = []
    log = honest(game)
    for party in range(parties(game)):
        holder = Party(identity(party), log[0])
        holder.restore(log[1:])
        out += [
            identity(party)._key.private_bytes_raw(),
            holder._x.to_bytes(32, "big"),
            holder._seal._y.to_bytes(32, "big"),
        ]
    return tuple(out)


def leaked(game: str, text: str) -> list[str]:
    """The forms (hex, decimal, the bytes' own repr) of ``game``'s secrets found in ``text``."""
    found = []
    for secret in secrets(game):
        forms = (secret.hex(), str(int.from_bytes(secret, "big")), repr(secret)[2:-1][:40], secret.hex()[:24])
        found += [form for form in forms if form in text]
    return found


def private_faces_at(game: str, cut: int) -> set[str]:
    """Faces of cards some party held privately after the honest log's first ``cut`` entries and
    nobody had turned over (as the holders' own replays see them)."""
    log = honest(game)
    hidden: set[str] = set()
    for party in range(GAMES[game][0]):
        holder = Party(identity(party), log[0])
        holder.restore(log[1:cut])
        public = holder.table.public_faces
        hidden |= {face for ref, face in holder.private_faces.items() if ref not in public}
    return hidden


def words(text: str) -> set[str]:
    """The words of a report (what a face's name would be among)."""
    return set(re.findall(r"[A-Za-z0-9_]+", text.lower()))


def first_index(game: str, kind: str, start: int = 1, **where: Any) -> int:
    """The first entry of ``kind`` from ``start`` on whose attributes match ``where``."""
    es = entries(game)
    return next(
        i
        for i in range(start, len(es))
        if es[i].kind == kind and all(getattr(es[i], k) == v for k, v in where.items())
    )
