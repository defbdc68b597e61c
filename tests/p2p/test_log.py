"""The signed log: envelopes, signatures over stored bytes, torn tails, damage reports."""

from __future__ import annotations

import os
import stat

import pytest

from p2p.identity import Identity, fingerprint
from p2p.log import ZERO_HASH, LogError, LogWriter, make_entry, pack, parse_envelope, read_log


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
    assert read_log(path).envelopes == envelopes
    data = path.read_bytes()
    path.write_bytes(data[:-7])
    loaded = read_log(path)
    assert loaded.envelopes == envelopes[:4]
    assert loaded.torn_bytes == len(envelopes[4]) - 7
    assert loaded.error is None


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
