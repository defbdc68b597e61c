"""A party that sends one honest party a version of its entry that breaks a rule, and the others a
valid version (the protocol core's part; over real peers: ``tests/e2e/test_hostile_w21_split.py``).

The party that got the broken version keeps it as proof and its game ends; the others go on with
the valid version and, at their next place, wait for a party whose game is over. Both sides hold as
many entries, so nothing anyone receives makes them ask for more: before, the table waited for its
deadline and then closed the game on that honest party. Now a party whose game another party's
rule-breaking entry stopped passes the entry on, so the others hold two versions signed for one
place and expose its writer: every honest log ends with the cheat named, and nobody else.
"""

from __future__ import annotations

from typing import Any

import pytest

from p2p.log import parse_envelope
from p2p.memtable import build_table
from replay.audit import audit_envelopes
from tests.p2p.protocol_support import SHUFFLE_ROUNDS, identity_of, resign

SEED = 33


def _flip(blob: bytes) -> bytes:
    return blob[:-1] + bytes([blob[-1] ^ 1])


def _broken(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    if kind == "shuffle":
        return {**body, "proof": _flip(body["proof"])}
    (ref, token), *rest = body["tokens"]
    return {**body, "tokens": [[ref, _flip(token)], *rest]}


# (kind, cheat, the party that gets the broken version): each leaves the other honest party waiting
# for the one whose game the broken version ended
CASES = [("shuffle", 1, 2), ("shuffle", 2, 0), ("tokens", 1, 0), ("tokens", 2, 1), ("countersign", 2, 0)]


@pytest.mark.parametrize(("kind", "cheat", "bad"), CASES, ids=[f"{k}-{c}-to-{b}" for k, c, b in CASES])
def test_a_broken_version_sent_to_one_party_is_passed_on_and_names_its_writer(
    kind: str, cheat: int, bad: int
) -> None:
    sent: list[int] = []

    def tamper(sender: int, envelope: bytes) -> bytes | dict[int, bytes | None]:
        entry = parse_envelope(envelope)
        if sent or sender != cheat or entry.kind != kind or (kind == "tokens" and not entry.body["tokens"]):
            return envelope
        sent.append(entry.seq)
        body = {"genesis": bytes(32)} if kind == "countersign" else _broken(kind, entry.body)
        broken = resign(identity_of(SEED, cheat), envelope, body=body)
        return {seat: broken if seat == bad else envelope for seat in range(3)}

    table = build_table("loveletter", 3, seed=SEED, shuffle_rounds=SHUFFLE_ROUNDS, tamper=tamper)
    table.run()
    assert sent, f"seat {cheat} never wrote a {kind} entry"
    for seat in (s for s in range(3) if s != cheat):
        replica = table.parties[seat].table
        # nobody waits for a party whose game is over: every honest game ended, on the cheat
        assert replica.ended in ("faulted", "accused"), (seat, replica.ended, replica.expected())
        assert {f.seat for f in replica.findings} == {cheat}, replica.findings
        report = audit_envelopes(table.logs[seat])
        assert {f.seat for f in report.faults} == {cheat}, report.text()
