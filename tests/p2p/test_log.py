"""The signed log: envelopes, signatures over stored bytes, torn tails, damage reports."""

from __future__ import annotations

import contextlib
import errno
import os
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.identity import Identity, fingerprint
from p2p.log import (
    FAULT_DISK_FULL_AT,
    ZERO_HASH,
    LogError,
    LogWriteError,
    LogWriter,
    check_envelope_shape,
    make_entry,
    pack,
    parse_envelope,
    read_log,
    safe_unpack,
)


def _chain(identity: Identity, n: int) -> list[bytes]:
    game = bytes(range(16))
    out, prev = [], ZERO_HASH
    for seq in range(n):
        entry = make_entry(identity, game, seq, prev, 0, "move", {"move": {"card": seq}})
        out.append(entry.envelope)
        prev = entry.hash
    return out


def test_entry_round_trip_and_signature_over_stored_bytes() -> None:
    me = Identity.generate()
    entry = parse_envelope(_chain(me, 1)[0])
    assert entry.seq == 0 and entry.kind == "move" and entry.body == {"move": {"card": 0}}
    assert entry.signed_by(me.public_key)
    assert not entry.signed_by(Identity.generate().public_key)


def test_tampered_payload_fails_signature() -> None:
    me = Identity.generate()
    entry = parse_envelope(_chain(me, 1)[0])
    payload = entry.payload.replace(b"card", b"cArd")
    forged = parse_envelope(pack([payload, entry.signature]))
    assert not forged.signed_by(me.public_key)


@pytest.mark.parametrize(
    "blob, message",
    [
        (b"\xc1", "not valid msgpack"),
        (pack([b"x"]), "array"),
        (pack([b"\xc1", b"y" * 64]), "payload is not valid msgpack"),
        (pack([b"x", b"y" * 64]), "must be an array of 7"),
        (pack([pack({"v": 1}), b"y" * 64]), "must be an array of 7"),
        (pack([b"x", b"short"]), "64 bytes"),
    ],
)
def test_malformed_envelopes_are_refused_with_reason(blob: bytes, message: str) -> None:
    with pytest.raises(LogError, match=message):
        parse_envelope(blob)


def test_writer_appends_and_reader_drops_torn_tail(tmp_path) -> None:
    me = Identity.generate()
    envelopes = _chain(me, 5)
    path = tmp_path / "g.fdlog"
    with LogWriter(path) as writer:
        for env in envelopes:
            writer.append(env)
    whole = read_log(path)
    assert whole.envelopes == envelopes and whole.ends[-1] == path.stat().st_size
    data = path.read_bytes()
    path.write_bytes(data[:-7])
    loaded = read_log(path)
    assert loaded.envelopes == envelopes[:4]
    assert loaded.torn_bytes == whole.ends[4] - whole.ends[3] - 7
    assert loaded.error is None and loaded.valid_bytes == whole.ends[3]


def test_garbage_in_the_middle_is_reported_with_entry_and_offset(tmp_path) -> None:
    me = Identity.generate()
    envelopes = _chain(me, 3)
    path = tmp_path / "g.fdlog"
    path.write_bytes(envelopes[0] + b"\x93\x01\x02\x03" + envelopes[1])
    loaded = read_log(path)
    assert loaded.envelopes == envelopes[:1]
    assert (
        loaded.error is not None and "entry 1" in loaded.error and f"byte {len(envelopes[0])}" in loaded.error
    )


def test_identity_file_is_private_and_reloads(tmp_path) -> None:
    first = Identity.load_or_create(tmp_path)
    mode = stat.S_IMODE(os.stat(tmp_path / "identity.key").st_mode)
    assert mode == 0o600
    again = Identity.load_or_create(tmp_path)
    assert again.public_key == first.public_key
    assert again.fingerprint == fingerprint(first.public_key)
    assert "PRIVATE" not in repr(again) and again.fingerprint in repr(again)


def test_derivations_are_deterministic_and_separated() -> None:
    me = Identity.generate()
    assert me.derive("share", b"game1") == me.derive("share", b"game1")
    assert me.derive("share", b"game1") != me.derive("share", b"game2")
    assert me.derive("share", b"game1") != me.derive("nonce", b"game1")


def test_bad_key_file_is_a_clear_error(tmp_path) -> None:
    (tmp_path / "identity.key").write_bytes(b"not a key")
    with pytest.raises(ValueError, match="not a fairdeck identity key"):
        Identity.load_or_create(tmp_path)


# -- logs of any size, damage, and the write path ---------------------------------------------------


def _padded_chain(identity: Identity, n: int, pad: int) -> list[bytes]:
    game = bytes(range(16))
    out, prev = [], ZERO_HASH
    for seq in range(n):
        entry = make_entry(identity, game, seq, prev, 0, "move", {"pad": b"\0" * pad})
        out.append(entry.envelope)
        prev = entry.hash
    return out


def test_a_log_far_larger_than_one_envelope_limit_reads_whole(tmp_path) -> None:
    # Before: the whole file went to an unpacker capped at one envelope's size -> BufferFull.
    envelopes = _padded_chain(Identity.generate(), 40, 300_000)  # ~12 MB, entries straddle chunks
    path = tmp_path / "big.fdlog"
    path.write_bytes(b"".join(envelopes) + envelopes[0][:1000])
    loaded = read_log(path)
    assert loaded.envelopes == envelopes
    assert loaded.torn_bytes == 1000 and loaded.error is None
    assert loaded.valid_bytes == sum(map(len, envelopes))


def test_an_envelope_announcing_more_than_the_limit_is_an_error_not_a_buffer(tmp_path) -> None:
    good = _chain(Identity.generate(), 1)[0]
    path = tmp_path / "g.fdlog"
    path.write_bytes(good + b"\x92\xc6" + (1 << 30).to_bytes(4, "big") + b"x" * 100)
    loaded = read_log(path)
    assert loaded.envelopes == [good]
    assert loaded.error is not None and "entry 1" in loaded.error and "limit" in loaded.error


@pytest.mark.parametrize("make", ["missing", "directory"])
def test_a_log_that_cannot_be_read_is_a_log_error_naming_it(tmp_path, make: str) -> None:
    path = tmp_path / "g.fdlog"
    if make == "directory":
        path.mkdir()
    with pytest.raises(LogError, match="cannot read .*g.fdlog"):
        read_log(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=600), st.integers(min_value=0, max_value=3))
def test_any_bytes_load_without_raising(tmp_path, junk: bytes, keep: int) -> None:
    envelopes = _chain(FIXED, 3)
    path = tmp_path / "fuzz.fdlog"
    path.write_bytes(b"".join(envelopes[:keep]) + junk)
    loaded = read_log(path)  # never raises for content
    assert loaded.envelopes[: min(keep, 3)] == envelopes[: min(keep, len(loaded.envelopes))]
    assert loaded.valid_bytes + loaded.torn_bytes <= len(path.read_bytes())


FIXED = Identity.generate()


def test_a_full_disk_fails_loudly_and_the_writer_then_refuses_everything(tmp_path, monkeypatch) -> None:
    envelopes = _chain(Identity.generate(), 3)
    with LogWriter(tmp_path / "probe.fdlog") as probe:
        probe.append(envelopes[0])
    first = (tmp_path / "probe.fdlog").stat().st_size
    limit = first + 40  # the second entry's record is cut short
    monkeypatch.setenv(FAULT_DISK_FULL_AT, str(limit))
    path = tmp_path / "g.fdlog"
    writer = LogWriter(path)
    writer.append(envelopes[0])
    with pytest.raises(LogWriteError, match=r"cannot write .*g\.fdlog: No space left") as caught:
        writer.append(envelopes[1])
    assert caught.value.errno == errno.ENOSPC
    with pytest.raises(LogWriteError, match="No space left"):
        writer.append(envelopes[2])  # never an entry after one that is not durable
    with pytest.raises(LogWriteError, match="No space left"):
        writer.sync()  # nor a claim that what is there is durable (a node says "held" after it)
    writer.close()
    loaded = read_log(path)  # what the disk let through is a torn tail, dropped on load
    assert loaded.envelopes == envelopes[:1] and loaded.torn_bytes == limit - first


@pytest.mark.parametrize("change", ["cut", "grown"])
def test_a_file_changed_under_the_writer_fails_loudly_instead_of_leaving_a_gap(tmp_path, change: str) -> None:
    """Another program cuts (or appends to) the log while its writer is stopped: going on would
    append after a gap and leave a log that does not verify. The writer refuses, and then refuses
    everything, as after any write error (a restart heals the log)."""
    envelopes = _chain(Identity.generate(), 4)
    path = tmp_path / "g.fdlog"
    writer = LogWriter(path)
    for env in envelopes[:2]:
        writer.append(env)
    data = path.read_bytes()
    path.write_bytes(data[:-5] if change == "cut" else data + b"\x00")
    with pytest.raises(LogWriteError, match="changed by another program") as caught:
        writer.append(envelopes[2])
    assert caught.value.errno == errno.EIO
    with pytest.raises(LogWriteError):
        writer.append(envelopes[3])
    writer.close()
    assert read_log(path).envelopes == envelopes[: 1 if change == "cut" else 2]


def test_shape_check_bounds_the_cost_of_a_msgpack_bomb() -> None:
    bomb = b"\xdd" + (1 << 22).to_bytes(4, "big") + b"\x90" * (1 << 22)  # 4 MiB of empty arrays
    with pytest.raises(LogError, match="more than 4096 msgpack objects"):
        safe_unpack(bomb, 4096, 8)
    with pytest.raises(LogError, match="truncated"):
        safe_unpack(b"\xdd\xff\xff\xff\xff", 4096, 8)  # four billion items announced, none there
    with pytest.raises(LogError, match="nested more than 8"):
        safe_unpack(b"\x91" * 9 + b"\x00", 4096, 8)
    with pytest.raises(LogError, match="extra bytes"):
        safe_unpack(pack({"t": "x"}) + b"\x00", 4096, 8)
    message = {"t": "start", "genesis": b"\x01" * 5000, "endpoints": ["tcp://127.0.0.1:1"] * 6}
    assert safe_unpack(pack(message), 4096, 8) == message


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=64))
def test_shape_check_never_raises_anything_but_log_error(data: bytes) -> None:
    with contextlib.suppress(LogError):  # anything else fails the test
        safe_unpack(data, 64, 4)


def test_envelope_shape_check_refuses_a_bomb_inside_a_signed_payload() -> None:
    me = Identity.generate()
    honest = _chain(me, 1)[0]
    check_envelope_shape(honest, 4096, 16)
    bomb = b"\xdd" + (1 << 20).to_bytes(4, "big") + b"\x90" * (1 << 20)
    with pytest.raises(LogError, match="more than 4096"):
        check_envelope_shape(pack([bomb, me.sign(bomb)]), 4096, 16)
    with pytest.raises(LogError):
        check_envelope_shape(honest + b"\x00", 4096, 16)
    with pytest.raises(LogError):
        check_envelope_shape(pack([b"x", b"y", b"z"]), 4096, 16)


def test_a_bomb_signed_into_a_log_file_is_refused_before_it_is_decoded(tmp_path) -> None:
    """A log file reaches the audit (or a resumed node) without the wire's shape check: a signed
    payload of a million empty arrays must be refused by its shape, never decoded (that cost about a
    second and hundreds of megabytes per entry, found by the audit red team), and nobody is blamed
    for an entry that cannot be read. The honest entries before it still are the log."""
    from p2p.memtable import build_table
    from replay.audit import audit_envelopes

    me = Identity.generate()
    bomb = b"\xdd" + (1 << 20).to_bytes(4, "big") + b"\x90" * (1 << 20)
    with pytest.raises(LogError, match="payload too large: more than 4096 msgpack objects"):
        parse_envelope(pack([bomb, me.sign(bomb)]))
    # a bomb where an honest entry's body would be, signed by the seat due to write
    table = build_table("loveletter", 2, seed=5)
    table.run(max_deliveries=3)
    honest = table.logs[0]
    writer = table.parties[1]
    head = parse_envelope(honest[-1])
    payload = pack([2, head.game, head.seq + 1, head.hash, 1, "countersign", {"genesis": b""}])
    payload = payload[:-2] + b"\xdd" + (1 << 20).to_bytes(4, "big") + b"\x90" * (1 << 20)
    forged = pack([payload, writer.identity.sign(payload)])
    writer_log = LogWriter(tmp_path / "bomb.fdlog")
    for envelope in honest:
        writer_log.append(envelope)
    with open(tmp_path / "bomb.fdlog", "ab") as handle:  # (a writer would refuse to append it)
        handle.write(b"\x91" + pack(forged))  # a whole-envelope record
    writer_log.close()
    loaded = read_log(tmp_path / "bomb.fdlog")
    report = audit_envelopes(loaded.envelopes, torn_bytes=loaded.torn_bytes, read_error=loaded.error)
    assert not any(f.seat is not None for f in report.faults), report.faults
    assert report.exit_code != 0 and "more than 4096 msgpack objects" in str(report.as_dict())


def test_the_writer_says_which_places_an_envelope_would_skip(tmp_path) -> None:
    """The writer tells its caller which entries the file lacks before an envelope, so a caller
    that lost some on the way can fill them in instead of leaving a gap; written in order, the
    file verifies."""
    envelopes = _chain(Identity.generate(), 6)
    path = tmp_path / "g.fdlog"
    writer = LogWriter(path)
    assert writer.missing_before(envelopes[0]) == range(0)  # an empty file: nothing to tell
    writer.append(envelopes[0])
    writer.append(envelopes[1])
    assert writer.missing_before(envelopes[2]) == range(0)
    assert writer.missing_before(envelopes[5]) == range(2, 5)
    assert writer.missing_before(b"not an envelope") == range(0)
    other = make_entry(Identity.generate(), bytes(16), 9, ZERO_HASH, 0, "move", {"move": {}})
    assert writer.missing_before(other.envelope) == range(0)  # another game's: not this file's gap
    for env in envelopes[2:]:
        writer.append(env)
    writer.close()
    assert read_log(path).envelopes == envelopes
    reopened = LogWriter(path)  # read from the file at the first question
    assert reopened.missing_before(_chain_next(envelopes)) == range(0)
    reopened.close()


def _chain_next(envelopes: list[bytes]) -> bytes:
    last = parse_envelope(envelopes[-1])
    identity = Identity.generate()
    return make_entry(identity, last.game, last.seq + 1, last.hash, 0, "move", {"move": {}}).envelope
