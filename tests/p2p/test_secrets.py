"""No secret leaks: identity keys, key-share scalars, seal keys and shuffle seeds never appear in
messages, logs, debug output, reprs or error messages."""

from __future__ import annotations

import logging

import pytest
from cryptography.hazmat.primitives import serialization

from p2p import crypto
from p2p.memtable import build_table
from p2p.party import Party
from p2p.protocol import Rejected


def _secrets_of(party: Party) -> list[bytes]:
    raw = party.identity._key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    share = party._x.to_bytes(32, "big")
    seal = party._seal._y.to_bytes(32, "big")
    return [raw, share, seal]


def _forms(secret: bytes) -> list[bytes]:
    """The ways a secret could slip out: raw, hex, and as a decimal integer."""
    return [secret, secret.hex().encode(), str(int.from_bytes(secret, "big")).encode()]


def test_no_secret_in_any_message_log_or_debug_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    table = build_table("loveletter", 3, seed=21, shuffle_rounds=2)
    table.run()
    assert table.parties[0].table.ended == "over"
    wire = b"".join(b"".join(log) for log in table.logs)
    text = "\n".join(r.getMessage() for r in caplog.records).encode()
    lines = "\n".join(table.lines).encode()
    reprs = " ".join(repr(p) + repr(p.identity) for p in table.parties).encode()
    for party in table.parties:
        for secret in _secrets_of(party):
            for form in _forms(secret):
                assert form not in wire, "a secret reached the log / the wire"
                assert form not in text, "a secret reached the debug output"
                assert form not in lines and form not in reprs


def test_errors_about_bad_input_carry_no_secret() -> None:
    table = build_table("loveletter", 2, seed=22, shuffle_rounds=2)
    table.run()
    party = table.parties[1]
    secrets = [form for s in _secrets_of(party) for form in _forms(s)]
    messages = []
    for bad in (b"", b"\xc1", table.logs[0][5][:-3] + b"abc", table.logs[0][3]):
        for effect in party.receive(bad):
            messages.append(effect.text)
    with pytest.raises(crypto.CryptoError) as caught:
        crypto.verify_token(crypto.base_mul(5), party.table.cts[0], b"\x00" * 97, b"ctx")
    messages.append(str(caught.value))
    with pytest.raises(Rejected) as refused:
        Party(party.identity, b"not a genesis")
    messages.append(str(refused.value))
    joined = "\n".join(messages).encode()
    assert messages and all(form not in joined for form in secrets)
