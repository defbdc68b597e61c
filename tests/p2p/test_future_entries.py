"""Entries that arrive ahead of their place are kept for when the gap fills, each signer within
its own share: a cheat that signs junk for a place another party must write cannot crowd out that
party's real entry (it would then come only by catch-up, a second or more per place)."""

from __future__ import annotations

import functools

from p2p.memtable import build_table
from p2p.party import FUTURE_BYTES, Party
from tests.p2p.protocol_support import identity_of, resign

SEED = 21
ME = 0


@functools.cache
def _log() -> tuple[bytes, ...]:
    table = build_table("loveletter", 3, seed=SEED)
    table.run()
    return tuple(table.logs[0])


def _place() -> tuple[int, int, int]:
    """A place k + 1 written by a seat other than ours, with a third seat to cheat there."""
    from p2p.log import parse_envelope

    log = _log()
    for k in range(len(log) // 2, len(log) - 2):
        writer = parse_envelope(log[k + 1]).seat
        if writer != ME:
            return k, writer, 3 - ME - writer
    raise AssertionError("no place written by another seat")


def test_a_cheats_junk_for_a_place_does_not_crowd_out_its_real_writer() -> None:
    log = _log()
    k, writer, cheat = _place()
    party = Party(identity_of(SEED, ME), log[0])
    party.restore(log[1:k])
    assert party.table.next_seq == k
    # the cheat signs two entries of its own for place k + 1, ahead of everyone
    for n in range(2):
        junk = resign(identity_of(SEED, cheat), log[k + 1], seat=cheat, body={"junk": n})
        assert party.receive(junk) == []
    assert party.receive(log[k + 1]) == []  # the real entry, early too: kept beside the junk
    party.receive(log[k])  # the gap fills
    assert party.table.next_seq >= k + 2, "the real entry was dropped for the cheat's junk"
    assert party.table.entries[k + 1].envelope == log[k + 1]


def test_one_signer_cannot_take_more_than_its_share_of_the_bytes_kept() -> None:
    log = _log()
    k, _writer, cheat = _place()
    party = Party(identity_of(SEED, ME), log[0])
    party.restore(log[1:k])
    share = FUTURE_BYTES // len(party.table.parties)
    padding = b"x" * (1024 * 1024)
    for n in range(2, 2 + 2 * share // len(padding)):  # twice its share, one place at a time
        junk = resign(identity_of(SEED, cheat), log[k + 1], seat=cheat, seq=k + n, body={"pad": padding})
        party.receive(junk)
    kept = sum(len(e) for bucket in party._future.values() for s, e in bucket if s == cheat)
    assert 0 < kept <= share
    # and the honest writer's early entry still finds room
    party.receive(log[k + 1])
    assert any(e == log[k + 1] for bucket in party._future.values() for _, e in bucket)
