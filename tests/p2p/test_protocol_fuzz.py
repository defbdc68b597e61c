"""A party never crashes on what another party sends: validly signed entries with arbitrary bodies,
in the right place and of the expected kind, are refused with a reason and change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p.log import parse_envelope
from p2p.memtable import build_table
from p2p.party import Party
from tests.p2p.protocol_support import identity_of, resign

SEED = 31

leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.binary(max_size=80),
)
values = st.recursive(
    leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.one_of(st.text(max_size=8), st.integers(0, 40)), inner, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def honest_log() -> list[bytes]:
    table = build_table("loveletter", 3, seed=SEED, shuffle_rounds=2)
    table.run()
    return table.logs[0]


def _party_at(log: list[bytes], seq: int) -> Party:
    """A party that is *not* the writer of entry ``seq``, fed everything before it."""
    writer = parse_envelope(log[seq]).seat
    party = Party(identity_of(SEED, (writer + 1) % 3), log[0])
    party.restore(log[1:seq])
    assert party.table.next_seq == seq
    return party


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_signed_garbage_bodies_never_crash_and_blame_only_their_signer(
    honest_log: list[bytes], data: Any
) -> None:
    seq = data.draw(st.integers(1, min(len(honest_log) - 1, 120)), label="seq")
    real = parse_envelope(honest_log[seq])
    body = data.draw(
        st.one_of(
            st.dictionaries(st.text(max_size=8), values, max_size=5),
            st.fixed_dictionaries({key: values for key in real.body}),  # the right keys, wrong values
        ),
        label="body",
    )
    forged = resign(identity_of(SEED, real.seat), honest_log[seq], body=body)
    party = _party_at(honest_log, seq)
    before = (party.table.next_seq, party.table.state, dict(party.known_faces()))
    effects = party.receive(forged)  # must not raise
    table = party.table
    if table.next_seq == seq:
        assert [e.kind for e in effects if e.kind != "send"] == ["rejected"] and effects[0].text
        assert (table.next_seq, table.state, dict(party.known_faces())) == before
        party.receive(honest_log[seq])  # the real entry is still welcome
        assert table.next_seq > seq
    elif table.ended == "faulted":
        # signed by its writer at its right place yet against the rules: kept as proof, writer named
        assert (table.findings[-1].seat, table.findings[-1].seq) == (real.seat, seq)
        assert table.state == before[1] and table.expected() is None
    else:  # a body that happens to mean the same thing as the honest one is fine
        assert effects[0].kind == "accepted"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_byte_damage_to_an_incoming_envelope_is_refused(honest_log: list[bytes], data: Any) -> None:
    seq = data.draw(st.integers(1, min(len(honest_log) - 1, 120)), label="seq")
    envelope = bytearray(honest_log[seq])
    for _ in range(data.draw(st.integers(1, 4), label="flips")):
        position = data.draw(st.integers(0, len(envelope) - 1))
        envelope[position] ^= data.draw(st.integers(1, 255))
    party = _party_at(honest_log, seq)
    effects = party.receive(bytes(envelope))
    assert party.table.next_seq == seq or bytes(envelope) == honest_log[seq]
    # ("send": the party's own entry of a concurrent step, written ahead of its place)
    assert all(e.kind in ("rejected", "send") for e in effects) or party.table.next_seq > seq
