"""An opener that signs one genesis for some joiners and another for the rest (same game id, each
joiner's own seat, name and fresh value in both): the protocol core's part; over real peers,
``tests/e2e/test_hostile_w21_two_geneses.py``.

Each side's countersignatures extend a genesis the other does not hold, so they are refused and the
table split at entry 0. The catch-up a party asks for when a signed entry for its next place extends
another chain began at entry 1, so the other genesis never came: the table waited for its deadline,
and each side closed the game on an honest joiner of the other. Now it begins at the genesis near
the start of the log: every party holds both geneses, signed by the opener for one place, and
exposes it; every log names the opener alone.
"""

from __future__ import annotations

import hashlib

import pytest

from engine.games import make_bot
from p2p.memtable import MemoryTable, seeded_identity
from p2p.party import Party
from p2p.protocol import PartyInfo, genesis_body, make_genesis
from replay.audit import audit_envelopes


@pytest.mark.parametrize("split", [(0, 0, 1), (0, 1, 0), (0, 1, 0, 1), (0, 0, 1, 1)], ids=str)
def test_an_opener_that_signs_two_geneses_is_named_in_every_log(split: tuple[int, ...]) -> None:
    """``split[i]``: which genesis party ``i`` holds (the opener holds the first). (When every joiner
    holds the other one, they agree with each other and wait for the opener: it is named for a stall
    at the deadline, rightly.)"""
    count = len(split)
    identities = [seeded_identity(f"w21-two-geneses-{i}") for i in range(count)]
    game_id = bytes(range(16))
    geneses = []
    for opener_name in ("ann", "anne"):
        names = [opener_name, *(f"p{i}" for i in range(1, count))]
        infos = [PartyInfo(name, ident.public_key) for name, ident in zip(names, identities, strict=True)]
        body = genesis_body("loveletter", count, infos, None, 4, "fair")
        geneses.append(make_genesis(identities[0], game_id, body))
    salts = [hashlib.sha256(b"salt%d" % i).digest() for i in range(count)]
    parties = [
        Party(ident, geneses[split[i]], entropy=lambda size, salt=salts[i]: salt[:size])
        for i, ident in enumerate(identities)
    ]
    table = MemoryTable(parties, [make_bot("loveletter", "heuristic", f"w21-{i}") for i in range(count)])
    table.run()
    for index, party in enumerate(table.parties):
        replica = party.table
        # nobody is left waiting for a joiner of the other side, to close the game on it
        assert replica.ended == "accused", (index, replica.expected(), table.rejections[index])
        assert [(f.seat, f.seq) for f in replica.findings] == [(0, 0)], replica.findings
        report = audit_envelopes(table.logs[index])
        assert {f.seat for f in report.faults} == {0}, report.text()
