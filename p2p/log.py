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
- A **log file** (format 3) is a header, then one compact *record* per envelope that leaves out what
  the file already says (version, game id, seq, a prev the chain rules give) and rebuilds the
  envelope byte for byte; format 2, the plain concatenation of envelopes, is still read. A torn last
  record (a crash during a write) is dropped on load and reported; anything else that cannot be
  read is an error that names the entry and the byte offset.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from collections.abc import Iterator, Sequence
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
PAYLOAD_OBJECTS = 4096
PAYLOAD_DEPTH = 16
"""An entry's payload holds at most this many msgpack objects, nested at most this deep (honest
entries hold under 150, at depth 5 or less), checked before it is decoded: a few megabytes of empty
arrays in a log file would otherwise cost hundreds of megabytes and seconds to decode."""

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


def _quoted(value: Any, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters (with ``…``)."""
    text = repr(value) if not isinstance(value, str | bytes) or len(value) <= limit else repr(value[:limit])
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    if pack(outer) != data:
        # Only the shortest headers: the same signed payload in a re-encoded wrapper would be other
        # bytes with another hash, and two envelopes of one signed entry would look like two
        # entries signed for one place (anyone could "prove" an honest writer equivocated).
        raise LogError("envelope is not in its one canonical encoding (its headers were re-encoded)")
    try:
        check_shape(payload, PAYLOAD_OBJECTS, PAYLOAD_DEPTH)
    except LogError as exc:
        if "more than" in str(exc):
            raise LogError(f"payload too large: {exc}") from None
        raise LogError(f"payload is not valid msgpack ({exc})") from None
    try:
        values = unpack(payload)
    except Exception as exc:
        raise LogError(f"payload is not valid msgpack ({type(exc).__name__})") from None
    if not isinstance(values, list) or len(values) != len(PAYLOAD_FIELDS):
        raise LogError(f"payload must be an array of {len(PAYLOAD_FIELDS)}: {', '.join(PAYLOAD_FIELDS)}")
    fields = dict(zip(PAYLOAD_FIELDS, values, strict=True))
    checks = [
        # (the version is quoted cut short: anyone can put a string of megabytes there, and the
        # reason reaches every report that says where a log breaks)
        (fields["v"] == FORMAT_VERSION, f"unsupported format version {_quoted(fields['v'])}"),
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


def group_hash(members: Sequence[bytes]) -> bytes:
    """The chain head after a concurrent group: one member's own hash, or the hash of all of them
    in canonical order (so the next entry commits to every member)."""
    if len(members) == 1:
        return members[0]
    return hashlib.sha256(b"fairdeck-group\0" + b"".join(members)).digest()


# -- log files ------------------------------------------------------------------------------------
#
# Format 3 (what every writer writes now) stores each envelope as a *record* that leaves out what
# the file already says: the format version, the game id (the genesis's), the seq (the previous
# entry's plus one) and the prev hash when it is one of the three the chain rules allow (the
# previous entry's hash; the previous entry's prev, for another member of a concurrent step; the
# group hash of the members just before). The envelope is rebuilt byte for byte, so signatures,
# hashes and the chain are exactly those of the envelope that was sent; anything a record cannot
# rebuild exactly (a non-canonical encoding, an entry out of line) is stored whole. Format 2 files
# (plain concatenated envelopes) are still read, and appended to in their own format.

FILE_MAGIC = b"fairdeck log 3\n"
"""How a format-3 log file begins. A format-2 file begins with an envelope (0x92, 0xdc or 0xdd)."""

_RAW, _COMPACT = 0x91, 0x93  # fixarray headers: [envelope] and [how, tail, signature]
PREV_IS_LAST, PREV_IS_LASTS_PREV, PREV_IS_GROUP = 0, 1, 2
"""How a compact record's prev is had: the previous entry's hash; the previous entry's own prev (a
fellow member of a concurrent step); the group hash of the trailing entries that share one prev."""


def _payload_prefix(game: bytes, seq: int, prev: bytes) -> bytes:
    """The canonical bytes a payload begins with: its array header, version, game, seq and prev."""
    return b"\x97" + pack(FORMAT_VERSION) + pack(game) + pack(seq) + pack(prev)


@dataclass(frozen=True)
class _Head:
    """What the file layer reads of an envelope: its payload's first fields and where the rest is."""

    game: bytes
    seq: int
    prev: bytes
    payload: bytes
    signature: bytes
    tail: int
    """Offset in ``payload`` where ``seat`` begins (what a compact record stores)."""


def _read_head(envelope: bytes) -> _Head | None:
    """The head of a well-formed envelope, or ``None`` (nothing here judges it further)."""
    try:
        outer = unpack(envelope)
        payload, signature = outer
        reader = msgpack.Unpacker(raw=False, strict_map_key=False)
        reader.feed(payload)
        if reader.read_array_header() != len(PAYLOAD_FIELDS):
            return None
        version, game, seq, prev = reader.unpack(), reader.unpack(), reader.unpack(), reader.unpack()
        tail = reader.tell()
    except Exception:  # anything malformed is simply stored whole
        return None
    if not (
        version == FORMAT_VERSION and isinstance(payload, bytes) and isinstance(signature, bytes)
        and isinstance(game, bytes) and type(seq) is int and seq >= 0 and isinstance(prev, bytes)
    ):  # fmt: skip
        return None
    return _Head(game, seq, prev, payload, signature, tail)


class _Chain:
    """The file layer's view of the entries so far: enough to rebuild the next compact record."""

    def __init__(self) -> None:
        self.count = 0
        self.game: bytes | None = None
        self.seq: int | None = None  # the last entry's, ``None`` if it could not be read
        self.last_hash = b""
        self.last_prev: bytes | None = None
        self.run: list[bytes] = []  # hashes of the trailing entries that share ``last_prev``

    def prev_for(self, how: int) -> bytes | None:
        """The prev hash a compact record of kind ``how`` stands for here, ``None`` if none."""
        if self.seq is None:
            return None
        if how == PREV_IS_LAST:
            return self.last_hash
        if how == PREV_IS_LASTS_PREV:
            return self.last_prev
        if how == PREV_IS_GROUP and len(self.run) >= 2:
            return group_hash(self.run)
        return None

    def push(self, envelope: bytes, head: _Head | None) -> None:
        """Take the next entry into account."""
        digest = hashlib.sha256(envelope).digest()
        if self.count == 0 and head is not None:
            self.game = head.game
        self.count += 1
        self.last_hash = digest
        if head is None:
            self.seq, self.last_prev, self.run = None, None, []
            return
        if head.prev == self.last_prev and self.run:
            self.run.append(digest)  # (in place: a file of many entries on one prev stays linear)
        else:
            self.run = [digest]
        self.seq, self.last_prev = head.seq, head.prev

    def encode(self, envelope: bytes) -> bytes:
        """The record of ``envelope`` as the next entry (compact where it rebuilds exactly)."""
        head = _read_head(envelope)
        record = None
        if (
            head is not None and self.game == head.game and self.seq is not None
            and head.seq == self.seq + 1
            and head.payload[: head.tail] == _payload_prefix(head.game, head.seq, head.prev)
            and pack([head.payload, head.signature]) == envelope
        ):  # fmt: skip
            for how in (PREV_IS_LAST, PREV_IS_LASTS_PREV, PREV_IS_GROUP):
                if self.prev_for(how) == head.prev:
                    record = pack([how, head.payload[head.tail :], head.signature])
                    break
        self.push(envelope, head)
        return record if record is not None else pack([envelope])

    def decode(self, record: bytes) -> bytes:
        """The envelope a record holds, rebuilt; raises ``ValueError`` (the reason) if it cannot be."""
        fields = unpack(record)
        if len(fields) == 1:
            (envelope,) = fields
            if _envelope_size(envelope, 0) != len(envelope):
                raise ValueError(NOT_AN_ENTRY)
            self.push(envelope, _read_head(envelope))
            return envelope  # type: ignore[no-any-return]
        how, tail, signature = fields
        prev = self.prev_for(how) if type(how) is int else None
        if self.game is None or self.seq is None or prev is None:
            raise ValueError("a compact entry that does not follow from the entries before it")
        if len(signature) != 64:
            raise ValueError("signature must be 64 bytes")
        seq = self.seq + 1
        payload = _payload_prefix(self.game, seq, prev) + tail
        envelope = pack([payload, signature])
        self.push(envelope, _Head(self.game, seq, prev, payload, signature, 0))
        return envelope


@dataclass
class LoadedLog:
    """What :func:`read_log` found: the envelopes it could read, and what it could not."""

    envelopes: list[bytes]
    torn_bytes: int = 0
    """Bytes of a torn (incomplete) last envelope that were dropped."""
    error: str | None = None
    """Why reading stopped before the end, if it did for another reason than a tear."""
    ends: list[int] = field(default_factory=list)
    """File offset just after each envelope's record."""
    format: int = 3
    """The file's format: 3 (compact records after :data:`FILE_MAGIC`) or 2 (plain envelopes)."""
    header_bytes: int = 0
    """Bytes of the file's header (:data:`FILE_MAGIC`, whole), 0 if it has none."""
    head: bytes = b""
    """The file's first bytes (at most :data:`HEAD_BYTES`), as they were read: what a file that is
    no log is (text, a log of another format) is told from them, never by opening it again (a pipe
    holds nothing the second time, and opening a named pipe again waits for a writer for ever)."""

    def end_of(self, count: int) -> int:
        """Bytes of the file that hold its header and first ``count`` entries: where the file
        would be cut to keep just them."""
        return self.ends[count - 1] if count > 0 else self.header_bytes

    @property
    def valid_bytes(self) -> int:
        """Bytes of the file taken by the envelopes read (where a damaged part begins)."""
        return self.end_of(len(self.envelopes))


HEAD_BYTES = 512
"""Bytes of a file's beginning kept in :attr:`LoadedLog.head`."""

_READ_CHUNK = 1 << 20
"""Bytes read from a log file at a time: reading never holds more than one envelope plus this."""

NOT_AN_ENTRY = "bytes that are no log entry (not a msgpack [payload, signature] pair)"
"""What :func:`read_log` says of bytes where an entry should begin."""

_BIN_HEADERS = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_ARRAY2_HEADERS = (b"\x92", b"\xdc\x00\x02", b"\xdd\x00\x00\x00\x02")


def _bins_end(buf: bytes | bytearray | memoryview, pos: int, count: int, start: int) -> int | None:
    """Where ``count`` msgpack bin objects from ``buf[pos:]`` end (``None``: more bytes needed);
    raises ``ValueError`` for bytes that are no bin, or a record that would pass the size limit."""
    end = len(buf)
    for _ in range(count):
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
    return pos if pos <= end else None


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
    stop = _bins_end(buf, pos, 2, start)
    return None if stop is None else stop - start


def _record_size(buf: bytes | bytearray | memoryview, start: int) -> int | None:
    """Length of the format-3 record at ``buf[start:]`` (as :func:`_envelope_size` does for an
    envelope): ``[envelope]`` or ``[how, tail, signature]`` with ``how`` a small integer."""
    if start >= len(buf):
        return None
    if buf[start] == _RAW:
        stop = _bins_end(buf, start + 1, 1, start)
    elif buf[start] == _COMPACT:
        if start + 1 >= len(buf):
            return None
        if buf[start + 1] > 0x7F:  # a positive fixint
            raise ValueError(NOT_AN_ENTRY)
        stop = _bins_end(buf, start + 2, 2, start)
    else:
        raise ValueError(NOT_AN_ENTRY)
    return None if stop is None else stop - start


class _Reader:
    """Splits the bytes of a log file, fed front to back, into envelopes (both formats)."""

    def __init__(self) -> None:
        self.format: int | None = None  # not known before the first bytes
        self.chain = _Chain()
        self.offset = 0  # file offset of the first byte not consumed yet
        self.envelopes: list[bytes] = []
        self.ends: list[int] = []

    def feed(self, buf: bytes | bytearray | memoryview) -> tuple[int, str | None]:
        """Take the complete entries at the front of ``buf`` (the file from :attr:`offset` on):
        ``(bytes consumed, error)``, the error naming the entry and offset of bytes that are no
        entry."""
        pos = 0
        if self.format is None:
            have = bytes(buf[: len(FILE_MAGIC)])
            if have == FILE_MAGIC:
                self.format, pos = 3, len(FILE_MAGIC)
            elif FILE_MAGIC.startswith(have):
                return 0, None  # a header not whole yet (or torn)
            else:
                self.format = 2
        while pos < len(buf):
            where = f"entry {len(self.envelopes)} at byte {self.offset + pos}"
            try:
                if self.format == 2:
                    size = _envelope_size(buf, pos)
                    envelope = None if size is None else bytes(buf[pos : pos + size])
                else:
                    size = _record_size(buf, pos)
                    envelope = None if size is None else self.chain.decode(bytes(buf[pos : pos + size]))
            except ValueError as exc:
                self.offset += pos
                return pos, f"{where}: {exc}"
            if size is None or envelope is None:  # the rest is not whole yet
                break
            pos += size
            self.envelopes.append(envelope)
            self.ends.append(self.offset + pos)
        self.offset += pos
        return pos, None

    def loaded(self, torn: int, error: str | None) -> LoadedLog:
        """What was read, as a :class:`LoadedLog`."""
        header = len(FILE_MAGIC) if self.format == 3 and self.offset >= len(FILE_MAGIC) else 0
        return LoadedLog(self.envelopes, torn, error, self.ends, self.format or 3, header)


def iter_envelopes(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield ``(offset, envelope_bytes)`` for each complete envelope in ``data``, a plain
    concatenation of envelopes (format 2, or a batch of them from the network).

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


def read_log_bytes(data: bytes) -> LoadedLog:
    """:func:`read_log` of a log file's bytes already in memory."""
    reader = _Reader()
    used, error = reader.feed(data)
    loaded = reader.loaded(0 if error else len(data) - used, error)
    loaded.head = bytes(data[:HEAD_BYTES])
    return loaded


def read_log(path: Path | str) -> LoadedLog:
    """Read a log file of either format and any size, a chunk at a time.

    Never raises anything but :class:`LogError`: bad content is reported in the result (see
    :class:`LoadedLog`), and a file that cannot be read at all (missing, a directory, an I/O
    error) raises :class:`LogError` naming the file.
    """
    return _read_file(path)[1]


def _open_for_reading(path: Path | str) -> Any:
    """``open(path, "rb")`` that never waits for a writer: a named pipe given as a log (a FIFO, a
    hostile path) would block the opening until someone writes to it, and the audit would hang.
    Opened without blocking, a pipe nobody writes to reads as empty (a file of no entries); one
    being written to (``cat LOG | fairdeck audit /dev/stdin``) is read to its end as before."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        os.set_blocking(fd, True)  # (reads wait for a writer that is there, as ever)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_file(path: Path | str) -> tuple[_Chain, LoadedLog]:
    """:func:`read_log`, with the chain as the file leaves it (what the next record follows)."""
    reader = _Reader()
    buf = bytearray()
    head = bytearray()
    try:
        with _open_for_reading(path) as handle:
            while True:
                chunk = handle.read(_READ_CHUNK)
                head += chunk[: HEAD_BYTES - len(head)]
                buf += chunk
                used, error = reader.feed(buf)
                if error is not None:
                    loaded = reader.loaded(0, error)
                    break
                del buf[:used]
                if not chunk:
                    loaded = reader.loaded(len(buf), None)
                    break
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror or exc}") from None
    loaded.head = bytes(head)
    return reader.chain, loaded


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

    A new file is written in format 3 (compact records); a format-2 file goes on in format 2. Any
    failure raises :class:`LogWriteError`, and the writer then refuses every later append: an entry
    that could not be made durable must never be followed by another one.
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
        self._chain: _Chain | None = None  # what the file holds (format 3), read at the first append
        self._plain = False  # a format-2 file: envelopes are appended as they are
        self._restart = False  # the file held no entry when read: the next record rewrites it
        self._size: int | None = None  # the file's size after our last append (None: not yet known)

    def truncate_to(self, size: int) -> None:
        """Cut a torn tail off (called after loading, before appending again)."""
        try:
            os.ftruncate(self._fd, size)
        except OSError as exc:
            raise self._failure(exc.errno, exc.strerror) from None
        self._chain = None
        self._size = None

    def _loaded(self) -> _Chain:
        """What the file holds, read at the first use after opening (or after a truncation)."""
        if self._chain is None:
            try:
                self._chain, loaded = _read_file(self.path)
            except LogError as exc:
                raise OSError(errno.EIO, str(exc)) from None
            self._plain = loaded.format == 2
            # empty, or a header alone or cut short: the next record starts the file again
            self._restart = not self._plain and not loaded.envelopes
        return self._chain

    def _record(self, envelope: bytes) -> bytes:
        """The bytes that append ``envelope`` to the file as it is now."""
        chain = self._loaded()
        if self._restart:
            self._restart = False
            os.ftruncate(self._fd, 0)
            return FILE_MAGIC + chain.encode(envelope)
        return envelope if self._plain else chain.encode(envelope)

    def missing_before(self, envelope: bytes) -> range:
        """The places of this game's entries the file lacks before ``envelope`` (empty when it
        follows the file's last entry, or when that cannot be told): a writer whose caller lost
        entries on the way must fill them in first, or the file would skip a place and no longer
        verify."""
        try:
            chain = self._loaded()
        except OSError as exc:
            raise self._failure(exc.errno, exc.strerror or str(exc)) from None
        head = _read_head(envelope)
        if self._plain or head is None or chain.seq is None or head.game != chain.game:
            return range(0)
        return range(chain.seq + 1, head.seq)

    def append(self, envelope: bytes, *, sync: bool = True) -> None:
        """Write one envelope, durably unless ``sync`` is false (an entry another party holds too,
        which can be fetched again; the next synced append makes it durable anyway), or raise
        :class:`LogWriteError`."""
        if self.failed is not None:
            raise LogWriteError(errno.EIO, self.failed)
        try:
            view = memoryview(self._record(envelope))
            held = os.fstat(self._fd)
            size = held.st_size
            try:
                named = os.stat(self.path)
            except FileNotFoundError:
                named = None
            if named is None or (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino):
                # another program removed the file, or put another in its place (a rename: an
                # editor's save, ``sed -i``, a restore with ``mv``): our descriptor still writes to
                # the old file, which nobody can read any more; a restart heals the log instead
                what = "removed" if named is None else "replaced"
                raise OSError(errno.EIO, f"the file was {what} by another program")
            if self._size is not None and size != self._size:
                # another program cut or grew the file under us (we were stopped, say): appending
                # after a gap would leave a log that does not verify; a restart heals it instead
                raise OSError(
                    errno.EIO,
                    f"the file was changed by another program ({self._size} bytes written, {size} found)",
                )
            if self._fault_at is not None:
                room = max(0, self._fault_at - os.fstat(self._fd).st_size)
                if room < len(view):
                    os.write(self._fd, view[:room])  # what a full disk lets through: a torn entry
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            record = len(view)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            self._size = size + record
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
