"""The signed, hash-chained msgpack log: entries, envelopes and log files.

Byte-level format (see docs/protocol.md):

- An **entry payload** is the msgpack array ``[v, game, seq, prev, seat, kind, body]`` (format 2).
  ``game`` is the 16-byte game id, ``seq`` counts from 0 (the genesis), ``prev`` is the SHA-256 of
  the previous *envelope* (32 zero bytes for the genesis), ``seat`` is the writer's party index.
  Nothing non-deterministic (no wall clock) is signed, so a party that recomputes an entry after a
  crash produces the very same bytes (Ed25519 signatures are deterministic), and a lost log tail
  never turns an honest party into an equivocator.
- An **envelope** is the msgpack array ``[payload_bytes, signature]``; the Ed25519 signature covers
  ``payload_bytes`` exactly as stored, so nothing is ever re-encoded before verifying.
- An entry's **hash** is SHA-256 of its envelope bytes.
- A **log file** is the plain concatenation of envelopes. A torn last envelope (a crash during a
  write) is dropped on load and reported; anything else that cannot be read is an error that names
  the entry and the byte offset.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from p2p.identity import Identity, verify_signature

FORMAT_VERSION = 2
ZERO_HASH = bytes(32)
GAME_ID_SIZE = 16
MAX_ENVELOPE = 8 * 1024 * 1024
"""No honest entry comes near this; anything larger is refused before parsing."""

PAYLOAD_FIELDS = ("v", "game", "seq", "prev", "seat", "kind", "body")


class LogError(ValueError):
    """An envelope or log file that cannot be read; the message says where and why."""


def pack(value: Any) -> bytes:
    """Canonical msgpack encoding used everywhere in fairdeck (bin type for bytes)."""
    return msgpack.packb(value, use_bin_type=True)


def unpack(data: bytes) -> Any:
    """Decode msgpack with the limits and options fairdeck uses."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


@dataclass(frozen=True)
class Entry:
    """One log entry: the decoded payload fields plus the exact stored bytes."""

    game: bytes
    seq: int
    prev: bytes
    seat: int
    kind: str
    body: dict[str, Any]
    payload: bytes = field(repr=False)
    signature: bytes = field(repr=False)
    envelope: bytes = field(repr=False)

    @property
    def hash(self) -> bytes:
        """SHA-256 of the envelope bytes."""
        return hashlib.sha256(self.envelope).digest()

    def signed_by(self, public_key: bytes) -> bool:
        """True if the signature is ``public_key``'s over the stored payload bytes."""
        return verify_signature(public_key, self.signature, self.payload)


def make_entry(
    identity: Identity,
    game: bytes,
    seq: int,
    prev: bytes,
    seat: int,
    kind: str,
    body: dict[str, Any],
) -> Entry:
    """Build and sign an entry (deterministic: the same arguments always give the same bytes)."""
    payload = pack([FORMAT_VERSION, game, seq, prev, seat, kind, body])
    signature = identity.sign(payload)
    return parse_envelope(pack([payload, signature]))


def parse_envelope(data: bytes) -> Entry:
    """Decode an envelope and check its structure (not its signature or place in a chain)."""
    if not isinstance(data, bytes | bytearray):
        raise LogError("an envelope must be bytes")
    if len(data) > MAX_ENVELOPE:
        raise LogError(f"envelope of {len(data)} bytes exceeds the {MAX_ENVELOPE}-byte limit")
    try:
        outer = unpack(bytes(data))
    except Exception as exc:  # msgpack raises several unrelated types for garbage
        raise LogError(f"envelope is not valid msgpack ({type(exc).__name__})") from None
    if not (isinstance(outer, list) and len(outer) == 2 and all(isinstance(x, bytes) for x in outer)):
        raise LogError("envelope must be a msgpack array [payload bytes, signature bytes]")
    payload, signature = outer
    if len(signature) != 64:
        raise LogError("signature must be 64 bytes")
    try:
        values = unpack(payload)
    except Exception as exc:
        raise LogError(f"payload is not valid msgpack ({type(exc).__name__})") from None
    if not isinstance(values, list) or len(values) != len(PAYLOAD_FIELDS):
        raise LogError(f"payload must be an array of {len(PAYLOAD_FIELDS)}: {', '.join(PAYLOAD_FIELDS)}")
    fields = dict(zip(PAYLOAD_FIELDS, values, strict=True))
    checks = [
        (fields["v"] == FORMAT_VERSION, f"unsupported format version {fields['v']!r}"),
        (isinstance(fields["game"], bytes) and len(fields["game"]) == GAME_ID_SIZE, "bad game id"),
        (type(fields["seq"]) is int and fields["seq"] >= 0, "bad seq"),
        (isinstance(fields["prev"], bytes) and len(fields["prev"]) == 32, "bad prev hash"),
        (type(fields["seat"]) is int and 0 <= fields["seat"] < 64, "bad seat"),
        (isinstance(fields["kind"], str) and 0 < len(fields["kind"]) <= 32, "bad kind"),
        (isinstance(fields["body"], dict), "body must be a map"),
    ]
    for ok, reason in checks:
        if not ok:
            raise LogError(reason)
    return Entry(
        game=fields["game"], seq=fields["seq"], prev=fields["prev"], seat=fields["seat"],
        kind=fields["kind"], body=fields["body"], payload=payload,
        signature=signature, envelope=bytes(data),
    )


@dataclass
class LoadedLog:
    """What :func:`read_log` found: the envelopes it could read, and what it could not."""

    envelopes: list[bytes]
    torn_bytes: int = 0
    """Bytes of a torn (incomplete) last envelope that were dropped."""
    error: str | None = None
    """Why reading stopped before the end, if it did for another reason than a tear."""


def iter_envelopes(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield ``(offset, envelope_bytes)`` for each complete envelope in ``data``.

    Raises :class:`LogError` for bytes that are not an envelope; a torn tail simply ends the
    iteration (the caller compares offsets to see it).
    """
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=MAX_ENVELOPE + 16)
    unpacker.feed(data)
    offset = 0
    index = 0
    while True:
        try:
            obj = unpacker.unpack()
        except msgpack.OutOfData:
            return
        except Exception as exc:
            raise LogError(
                f"entry {index} at byte {offset}: not a msgpack envelope ({type(exc).__name__})"
            ) from None
        end = unpacker.tell()
        if not (isinstance(obj, list) and len(obj) == 2 and all(isinstance(x, bytes) for x in obj)):
            raise LogError(f"entry {index} at byte {offset}: not an envelope [payload, signature]")
        yield offset, data[offset:end]
        offset = end
        index += 1


def read_log(path: Path | str) -> LoadedLog:
    """Read a log file; never raises for bad content (see :class:`LoadedLog`), only for I/O."""
    data = Path(path).read_bytes()
    result = LoadedLog([])
    end = 0
    try:
        for offset, envelope in iter_envelopes(data):
            result.envelopes.append(envelope)
            end = offset + len(envelope)
    except LogError as exc:
        result.error = str(exc)
        return result
    result.torn_bytes = len(data) - end
    return result


class LogWriter:
    """Appends envelopes to a log file, each flushed and fsynced before :meth:`append` returns."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def truncate_to(self, size: int) -> None:
        """Cut a torn tail off (called after loading, before appending again)."""
        os.ftruncate(self._fd, size)

    def append(self, envelope: bytes) -> None:
        """Write one envelope durably."""
        view = memoryview(envelope)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
