"""Helpers for ``test_redteam_w21.py``: honest logs of real games (real crypto, every party in one
process), entries re-signed by a seat's own key, and ``fairdeck audit`` run as a command on real files."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path
from typing import Any

from p2p.log import FORMAT_VERSION, Entry, LogWriter, pack, parse_envelope
from p2p.memtable import build_table, seeded_identity

ROOT = Path(__file__).resolve().parents[2]
FAIRDECK = ROOT / ".venv" / "bin" / "fairdeck"
GAMES: dict[str, tuple[int, dict[str, Any] | None]] = {
    "loveletter": (3, None),
    "regicide": (2, None),
    "rebelprincess": (3, {"rounds": 3}),
}
SEED = 2121
WITNESSES = 1
"""Every table here seats one witness besides its players: a witness deals and signs like a seat,
so it can cheat like one, and must be named as a party, not a seat."""


def identity(party: int) -> Any:
    """The identity :func:`p2p.memtable.build_table` gives ``party`` at these tables."""
    return seeded_identity(f"{SEED}-{party}")


@functools.cache
def honest(game: str) -> tuple[bytes, ...]:
    """An honest fair game of ``game`` played to its end (party 0's copy of the log)."""
    seats, options = GAMES[game]
    table = build_table(game, seats, seed=SEED, options=options, witnesses=WITNESSES, shuffle_rounds=4)
    table.run()
    assert table.parties[0].table.ended == "over"
    return tuple(table.logs[0])


@functools.cache
def entries(game: str) -> tuple[Entry, ...]:
    return tuple(parse_envelope(e) for e in honest(game))


def parties(game: str) -> int:
    return GAMES[game][0] + WITNESSES


def witness(game: str) -> int:
    """The witness's party index (after the players' seats)."""
    return GAMES[game][0]


def forge(envelope: bytes, *, signer: int | None = None, **changes: Any) -> bytes:
    """``envelope`` with payload fields changed, signed by ``signer``'s key (by default the key of
    the party its ``seat`` then names): a cheat can sign any payload with its own key."""
    entry = parse_envelope(envelope)
    fields = {"game": entry.game, "seq": entry.seq, "prev": entry.prev, "seat": entry.seat,
              "kind": entry.kind, "body": entry.body, **changes}  # fmt: skip
    payload = pack([FORMAT_VERSION, fields["game"], fields["seq"], fields["prev"], fields["seat"],
                    fields["kind"], fields["body"]])  # fmt: skip
    key = identity(fields["seat"] if signer is None else signer)
    return pack([payload, key.sign(payload)])


def write_log(path: Path, log: list[bytes] | tuple[bytes, ...]) -> Path:
    """Write ``log`` as a node writes it (format 3, compact records)."""
    path.unlink(missing_ok=True)
    with LogWriter(path) as writer:
        for envelope in log:
            writer.append(envelope, sync=False)
    return path


def run_audit(*args: str) -> subprocess.CompletedProcess[str]:
    """``fairdeck audit ARGS`` as a person runs it; never a traceback, never anything on stderr."""
    done = subprocess.run(
        [str(FAIRDECK), "audit", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert not done.stderr.strip(), done.stderr
    return done


def cli_json(path: Path) -> tuple[int, dict[str, Any]]:
    """``fairdeck audit --json PATH``: the exit code and the report."""
    done = run_audit("--json", str(path))
    return done.returncode, json.loads(done.stdout)


def named(report: dict[str, Any]) -> list[tuple[int | None, int | None]]:
    """``(seat, entry)`` of every fault of a ``--json`` report that names a seat."""
    return [(f["seat"], f["entry"]) for f in report["faults"] if f["seat"] is not None]
