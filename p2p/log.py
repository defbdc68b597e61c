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

import contextlib
import errno
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

    @property
    def valid_bytes(self) -> int:
        """Bytes of the file taken by the envelopes read (where a damaged part begins)."""
        return sum(len(e) for e in self.envelopes)


_READ_CHUNK = 1 << 20
"""Bytes read from a log file at a time: reading never holds more than one envelope plus this."""

NOT_AN_ENTRY = "bytes that are no log entry (not a msgpack [payload, signature] pair)"
"""What :func:`read_log` says of bytes where an entry should begin."""

_BIN_HEADERS = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_ARRAY2_HEADERS = (b"\x92", b"\xdc\x00\x02", b"\xdd\x00\x00\x00\x02")


def _envelope_size(buf: bytes | bytearray | memoryview, start: int) -> int | None:
    """Length of the envelope at ``buf[start:]`` from its headers alone, ``None`` if more bytes are
    needed to tell; raises ``ValueError`` (with the reason) for bytes that are no envelope.

    An envelope is a msgpack array of two bin objects, whatever header widths the writer chose;
    its size is known from three headers, so nothing is buffered or decoded beyond one envelope.
    """
    end = len(buf)
    pos = start
    for header in _ARRAY2_HEADERS:
        have = bytes(buf[pos : pos + len(header)])
        if have == header:
            pos += len(header)
            break
        if len(have) < len(header) and header.startswith(have) and pos + len(have) == end:
            return None
    else:
        raise ValueError(NOT_AN_ENTRY)
    for _ in range(2):
        if pos >= end:
            return None
        width = _BIN_HEADERS.get(buf[pos])
        if width is None:
            raise ValueError(NOT_AN_ENTRY)
        if pos + 1 + width > end:
            return None
        size = int.from_bytes(buf[pos + 1 : pos + 1 + width], "big")
        pos += 1 + width + size
        if pos - start > MAX_ENVELOPE:
            raise ValueError(f"envelope of more than {MAX_ENVELOPE} bytes (the limit)")
    return pos - start if pos <= end else None


def _split(buf: bytes | bytearray, base: int, index: int) -> tuple[list[bytes], int, str | None]:
    """Complete envelopes at the front of ``buf`` (which starts at file offset ``base``, entry
    ``index``): ``(envelopes, bytes consumed, error)``, the error naming the entry and offset of
    bytes that are no envelope."""
    found: list[bytes] = []
    pos = 0
    while pos < len(buf):
        try:
            size = _envelope_size(buf, pos)
        except ValueError as exc:
            return found, pos, f"entry {index + len(found)} at byte {base + pos}: {exc}"
        if size is None:
            break
        found.append(bytes(buf[pos : pos + size]))
        pos += size
    return found, pos, None


def iter_envelopes(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield ``(offset, envelope_bytes)`` for each complete envelope in ``data``.

    Raises :class:`LogError` for bytes that are not an envelope; a torn tail simply ends the
    iteration (the caller compares offsets to see it).
    """
    pos = 0
    index = 0
    view = memoryview(data)
    while pos < len(data):
        try:
            size = _envelope_size(view, pos)
        except ValueError as exc:
            raise LogError(f"entry {index} at byte {pos}: {exc}") from None
        if size is None:
            return
        yield pos, bytes(view[pos : pos + size])
        pos += size
        index += 1


def read_log(path: Path | str) -> LoadedLog:
    """Read a log file of any size, a chunk at a time.

    Never raises anything but :class:`LogError`: bad content is reported in the result (see
    :class:`LoadedLog`), and a file that cannot be read at all (missing, a directory, an I/O
    error) raises :class:`LogError` naming the file.
    """
    result = LoadedLog([])
    buf = bytearray()
    base = 0
    try:
        with Path(path).open("rb") as handle:
            while True:
                chunk = handle.read(_READ_CHUNK)
                buf += chunk
                found, used, result.error = _split(buf, base, len(result.envelopes))
                result.envelopes.extend(found)
                if result.error is not None:
                    return result
                del buf[:used]
                base += used
                if not chunk:
                    break
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror or exc}") from None
    result.torn_bytes = len(buf)
    return result


_SIZED = {  # bin, str, ext: (width of the length, bytes between length and data)
    0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0), 0xD9: (1, 0), 0xDA: (2, 0), 0xDB: (4, 0),
    0xC7: (1, 1), 0xC8: (2, 1), 0xC9: (4, 1),
}  # fmt: skip
_FIXED = {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}


def check_shape(data: bytes, max_objects: int, max_depth: int) -> None:
    """Check that ``data`` is one msgpack object of at most ``max_objects`` objects nested at most
    ``max_depth`` deep, *without* decoding it; raises :class:`LogError` otherwise.

    Decoding first would let a few megabytes of nested empty arrays cost hundreds of megabytes and
    seconds; this walks the headers only, and stops at the first object past the budget, so its cost
    is bounded by ``max_objects`` whatever the input.
    """
    n = len(data)
    pos = 0
    objects = 0
    stack: list[int] = []  # children still to read, per open container
    while True:
        if pos >= n:
            raise LogError("truncated msgpack")
        objects += 1
        if objects > max_objects:
            raise LogError(f"more than {max_objects} msgpack objects")
        b = data[pos]
        children = 0
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            pos += 1
        elif 0x80 <= b <= 0x8F:
            children, pos = 2 * (b & 0x0F), pos + 1
        elif 0x90 <= b <= 0x9F:
            children, pos = b & 0x0F, pos + 1
        elif 0xA0 <= b <= 0xBF:
            pos += 1 + (b & 0x1F)
        elif b in _SIZED:
            width, extra = _SIZED[b]
            size = int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
            pos += 1 + width + extra + size
        elif b in _FIXED:
            pos += 1 + _FIXED[b]
        elif 0xD4 <= b <= 0xD8:
            pos += 2 + (1 << (b - 0xD4))
        elif b in (0xDC, 0xDD, 0xDE, 0xDF):
            width = 2 if b in (0xDC, 0xDE) else 4
            children = int.from_bytes(data[pos + 1 : pos + 1 + width], "big") * (2 if b >= 0xDE else 1)
            pos += 1 + width
        else:
            raise LogError("not msgpack (reserved byte 0xc1)")
        if pos > n or children > n - pos:
            raise LogError("truncated msgpack")
        if stack:
            stack[-1] -= 1
        if children:
            if len(stack) >= max_depth:
                raise LogError(f"msgpack nested more than {max_depth} deep")
            stack.append(children)
        while stack and stack[-1] == 0:
            stack.pop()
        if not stack:
            if pos != n:
                raise LogError("extra bytes after the msgpack object")
            return


def safe_unpack(data: bytes, max_objects: int, max_depth: int) -> Any:
    """:func:`check_shape`, then decode; raises :class:`LogError` for anything else than a small,
    well-formed msgpack object (e.g. a message from a peer)."""
    check_shape(data, max_objects, max_depth)
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as exc:  # shape-checked, but e.g. invalid UTF-8 in a str is still possible
        raise LogError(f"not valid msgpack ({type(exc).__name__})") from None


def check_envelope_shape(data: bytes, max_objects: int, max_depth: int) -> None:
    """Check, without decoding it, that ``data`` is an envelope whose payload holds at most
    ``max_objects`` msgpack objects nested at most ``max_depth`` deep; raises :class:`LogError`.

    A coarse guard for envelopes from the network, before :func:`parse_envelope` decodes them.
    """
    try:
        size = _envelope_size(data, 0)
    except ValueError as exc:
        raise LogError(str(exc)) from None
    if size is None or size != len(data):
        raise LogError("not exactly one envelope")
    check_shape(data, 3, 1)
    payload = msgpack.unpackb(data, raw=False)[0]
    check_shape(payload, max_objects, max_depth)


class LogWriteError(OSError):
    """The log could not be written (disk full, I/O error, ...): the message names the file."""


FAULT_DISK_FULL_AT = "FAIRDECK_FAULT_DISK_FULL_AT"
"""Fault injection for tests only: when this environment variable holds a byte count, a log writer
behaves as if the disk filled up at that file size (it writes what fits, then fails with ENOSPC)."""


class LogWriter:
    """Appends envelopes to a log file, each flushed and fsynced before :meth:`append` returns.

    Any failure raises :class:`LogWriteError`, and the writer then refuses every later append: an
    entry that could not be made durable must never be followed by another one.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.failed: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise LogWriteError(exc.errno, f"cannot open {self.path} for writing: {exc.strerror}") from None
        limit = os.environ.get(FAULT_DISK_FULL_AT, "")
        self._fault_at = int(limit) if limit.isdigit() else None
        self._unsynced = False  # an append with ``sync=False`` is not durable yet

    def truncate_to(self, size: int) -> None:
        """Cut a torn tail off (called after loading, before appending again)."""
        try:
            os.ftruncate(self._fd, size)
        except OSError as exc:
            raise self._failure(exc.errno, exc.strerror) from None

    def append(self, envelope: bytes, *, sync: bool = True) -> None:
        """Write one envelope, durably unless ``sync`` is false (an entry another party holds too,
        which can be fetched again; the next synced append makes it durable anyway), or raise
        :class:`LogWriteError`."""
        if self.failed is not None:
            raise LogWriteError(errno.EIO, self.failed)
        view = memoryview(envelope)
        try:
            if self._fault_at is not None:
                room = max(0, self._fault_at - os.fstat(self._fd).st_size)
                if room < len(view):
                    os.write(self._fd, view[:room])  # what a full disk lets through: a torn entry
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            if sync:
                os.fsync(self._fd)
            self._unsynced = not sync
        except OSError as exc:
            raise self._failure(exc.errno, exc.strerror or str(exc)) from None

    def sync(self) -> None:
        """Make every append so far durable (those written with ``sync=False`` included); free when
        nothing is pending, so it can be called whenever durability is about to be claimed."""
        if self.failed is not None:
            raise LogWriteError(errno.EIO, self.failed)
        if not self._unsynced:
            return
        try:
            os.fsync(self._fd)
            self._unsynced = False
        except OSError as exc:
            raise self._failure(exc.errno, exc.strerror or str(exc)) from None

    def _failure(self, code: int | None, reason: str | None) -> LogWriteError:
        self.failed = f"cannot write {self.path}: {reason}"
        return LogWriteError(code or errno.EIO, self.failed)

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
