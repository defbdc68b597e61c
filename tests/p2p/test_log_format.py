"""Log files of format 3: compact records that rebuild every envelope byte for byte.

A record leaves out what the file already says (version, game id, seq, and a prev hash the chain
rules allow); anything else is stored whole. Whatever the writer is given, the reader gives it
back exactly, a cut file reads as a prefix and a torn tail, and no flipped byte goes unseen.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.identity import Identity
from p2p.log import (
    FILE_MAGIC,
    ZERO_HASH,
    LogWriter,
    group_hash,
    make_entry,
    pack,
    read_log,
    read_log_bytes,
    unpack,
)

KEY = Identity.generate()
GAME = bytes(range(16))

# How each next entry is chained (what a test asks the builder for):
ONE = "one"  # a one-writer step: prev is the last entry's hash (or the last group's hash)
GROUP = "group"  # another member of the concurrent step just begun: the same prev as the last entry
ODD_PREV = "odd-prev"  # a prev no chain rule gives (stored whole)
ODD_SEQ = "odd-seq"  # a seq out of line (stored whole)
WIDE = "wide"  # a non-canonical encoding of a canonical entry (stored whole, byte for byte)


def _build(shape: list[str]) -> list[bytes]:
    """A genesis, then one entry per item of ``shape``, chained as it says."""
    envelopes = [make_entry(KEY, GAME, 0, ZERO_HASH, 0, "genesis", {"n": 0}).envelope]
    hashes = [make_entry(KEY, GAME, 0, ZERO_HASH, 0, "genesis", {"n": 0}).hash]
    prevs = [ZERO_HASH]
    seq = 0
    for index, how in enumerate(shape, 1):
        run = [hashes[-1]]
        for h, p in zip(reversed(hashes[:-1]), reversed(prevs[:-1]), strict=True):
            if p != prevs[-1]:
                break
            run.insert(0, h)
        prev = {GROUP: prevs[-1], ODD_PREV: bytes([index % 256]) * 32}.get(how, group_hash(run))
        seq = seq + (7 if how == ODD_SEQ else 1)
        entry = make_entry(KEY, GAME, seq, prev, index % 4, "tokens", {"tokens": [[index, b"t" * 97]]})
        envelope = entry.envelope
        if how == WIDE:  # the same payload in a 32-bit array header: a valid envelope, not canonical
            payload, signature = unpack(envelope)
            envelope = b"\xdd\x00\x00\x00\x02" + pack(payload) + pack(signature)
        envelopes.append(envelope)
        hashes.append(entry.hash if how != WIDE else hashlib.sha256(envelope).digest())
        prevs.append(prev)
    return envelopes


def _write(path: Path, envelopes: list[bytes]) -> None:
    with LogWriter(path) as writer:
        for envelope in envelopes:
            writer.append(envelope, sync=False)


def test_a_chain_with_concurrent_steps_is_stored_compactly_and_rebuilt_exactly(tmp_path: Path) -> None:
    shape = [ONE, ONE, GROUP, GROUP, ONE, GROUP, ONE, ONE, GROUP, GROUP, GROUP, ONE]
    envelopes = _build(shape)
    path = tmp_path / "g.fdlog"
    _write(path, envelopes)
    data = path.read_bytes()
    assert data.startswith(FILE_MAGIC)
    loaded = read_log(path)
    assert loaded.envelopes == envelopes and loaded.error is None and loaded.torn_bytes == 0
    assert loaded.format == 3 and loaded.ends[-1] == len(data)
    # every entry after the genesis drops version, game id, seq and prev: over 50 bytes each
    assert len(data) < len(FILE_MAGIC) + sum(map(len, envelopes)) - 50 * len(shape)


def test_entries_no_rule_rebuilds_are_stored_whole_and_still_come_back(tmp_path: Path) -> None:
    shape = [ONE, ODD_PREV, ONE, ODD_SEQ, ONE, WIDE, ONE, GROUP]
    envelopes = _build(shape)
    path = tmp_path / "g.fdlog"
    _write(path, envelopes)
    assert read_log(path).envelopes == envelopes
    # an envelope whose payload is no entry at all: kept as given, and read back as given
    with LogWriter(path) as writer:
        writer.append(pack([b"x" * 10, b"y" * 64]))
    assert read_log(path).envelopes == [*envelopes, pack([b"x" * 10, b"y" * 64])]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([ONE, ONE, GROUP, GROUP, ODD_PREV, ODD_SEQ, WIDE]), max_size=14))
def test_any_chain_round_trips_and_any_cut_reads_as_a_prefix(tmp_path: Path, shape: list[str]) -> None:
    envelopes = _build(shape)
    path = tmp_path / "prop.fdlog"
    path.unlink(missing_ok=True)
    _write(path, envelopes)
    data = path.read_bytes()
    whole = read_log_bytes(data)
    assert whole.envelopes == envelopes and whole.ends[-1] == len(data)
    for cut in range(len(data)):
        part = read_log_bytes(data[:cut])
        count = len(part.envelopes)
        assert part.error is None, (cut, part.error)
        assert part.envelopes == envelopes[:count]
        assert part.valid_bytes + part.torn_bytes == cut
        assert part.valid_bytes == (whole.ends[count - 1] if count else (len(FILE_MAGIC) if cut >= 15 else 0))


def test_every_flipped_byte_changes_what_the_file_says(tmp_path: Path) -> None:
    envelopes = _build([ONE, GROUP, GROUP, ONE, ODD_PREV, ONE])
    path = tmp_path / "g.fdlog"
    _write(path, envelopes)
    data = path.read_bytes()
    for position in range(len(data)):
        damaged = bytearray(data)
        damaged[position] ^= 0xFF
        loaded = read_log_bytes(bytes(damaged))
        assert loaded.envelopes != envelopes or loaded.error or loaded.torn_bytes, position
        # what it does give is never a different entry in the place of a good one before the flip
        record = sum(1 for end in read_log_bytes(data).ends if end <= position)
        assert loaded.envelopes[:record] == envelopes[:record], position


def test_a_format_2_file_is_read_and_appended_to_in_its_own_format(tmp_path: Path) -> None:
    envelopes = _build([ONE, GROUP, ONE])
    path = tmp_path / "old.fdlog"
    path.write_bytes(b"".join(envelopes[:3]))
    loaded = read_log(path)
    assert loaded.format == 2 and loaded.envelopes == envelopes[:3] and loaded.header_bytes == 0
    with LogWriter(path) as writer:
        writer.append(envelopes[3])
    assert path.read_bytes() == b"".join(envelopes)  # still a plain concatenation of envelopes


@pytest.mark.parametrize("keep", [0, 5, len(FILE_MAGIC)])
def test_a_header_cut_short_or_alone_is_rewritten_by_the_next_append(tmp_path: Path, keep: int) -> None:
    envelopes = _build([ONE])
    path = tmp_path / "g.fdlog"
    path.write_bytes(FILE_MAGIC[:keep])
    loaded = read_log(path)
    assert loaded.envelopes == [] and loaded.error is None
    assert loaded.valid_bytes == (len(FILE_MAGIC) if keep == len(FILE_MAGIC) else 0)
    _write(path, envelopes)
    assert read_log(path).envelopes == envelopes and path.read_bytes().startswith(FILE_MAGIC)


def test_a_writer_reopened_after_a_cut_goes_on_from_what_the_file_holds(tmp_path: Path) -> None:
    envelopes = _build([ONE, GROUP, GROUP, ONE, ONE])
    path = tmp_path / "g.fdlog"
    _write(path, envelopes)
    ends = read_log(path).ends
    writer = LogWriter(path)
    writer.truncate_to(ends[2])  # a crash lost the last three
    for envelope in envelopes[3:]:
        writer.append(envelope)
    writer.close()
    assert read_log(path).envelopes == envelopes
    again = tmp_path / "again.fdlog"
    _write(again, envelopes)
    assert path.read_bytes() == again.read_bytes()  # the same entries always give the same bytes
