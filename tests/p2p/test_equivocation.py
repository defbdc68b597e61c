"""A party that signs two versions of one entry and sends both is exposed in the log and named.

Every honest party keeps the version it got first; the second, signed by the same writer for the
same place, is proof of equivocation. The first honest party to write next writes an ``expose``
entry in place of its own, carrying that other version: the game stops, and the audit of any log
names the equivocator from the log alone. An ``expose`` that proves nothing is a false accusation,
held against its writer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from p2p.log import parse_envelope
from p2p.memtable import build_table
from replay.audit import audit_envelopes
from tests.p2p.protocol_support import identity_of, resign

SEED = 33


def _second_move(body: dict[str, Any]) -> dict[str, Any]:
    move = dict(body["move"])
    if "guess" in move:
        move["guess"] = "priest" if move["guess"] != "priest" else "baron"
    else:
        move["target"] = None if move.get("target") is not None else 1
    return {**body, "move": move}


SECOND_VERSIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "move": _second_move,
    "shuffle": lambda body: {**body, "proof": body["proof"][:-1] + bytes([body["proof"][-1] ^ 1])},
    "tokens": lambda body: {**body, "tokens": list(reversed(body["tokens"])) + body["tokens"][:1]},
}


@pytest.mark.parametrize("kind", sorted(SECOND_VERSIONS))
def test_two_versions_of_one_entry_are_exposed_and_their_signer_named(kind: str) -> None:
    cheat, sent = 1, []

    def tamper(sender: int, envelope: bytes) -> bytes | list[bytes]:
        entry = parse_envelope(envelope)
        if sent or sender != cheat or entry.kind != kind:
            return envelope
        sent.append(entry.seq)
        other = resign(identity_of(SEED, cheat), envelope, body=SECOND_VERSIONS[kind](entry.body))
        return [envelope, other]  # both, to everyone, one after the other

    table = build_table("loveletter", 4, seed=SEED, tamper=tamper)
    table.run()
    assert sent, f"seat {cheat} never wrote a {kind} entry"
    honest = [i for i in range(4) if i != cheat]
    for seat in honest:
        log = table.logs[seat]
        assert table.parties[seat].table.ended == "accused"
        exposure = parse_envelope(log[-1])
        assert exposure.kind == "expose" and exposure.seat != cheat
        assert exposure.body["seq"] == sent[0]
        report = audit_envelopes(log)
        assert report.exit_code == 1, report.text()
        assert [(f.seat, f.seq) for f in report.faults] == [(cheat, sent[0])], report.text()
        assert "equivocation" in report.headline() and f"seat {cheat} " in report.headline()
    # the honest logs are one and the same: nobody forked, nobody else is blamed
    assert len({tuple(table.logs[i]) for i in honest}) == 1


def _honest_log() -> list[bytes]:
    table = build_table("loveletter", 3, seed=SEED)
    table.run()
    assert table.parties[0].table.ended == "over"
    return list(table.logs[0])


def _other_game_entry(seq: int) -> bytes:
    table = build_table("loveletter", 3, seed=SEED + 1)
    table.run()
    return table.logs[0][seq]


FALSE_EXPOSURES: dict[str, Callable[[list[bytes], int, int], dict[str, Any]]] = {
    "the log's own entry": lambda log, k, j: {"seq": j, "evidence": log[j]},
    "another party's signature": lambda log, k, j: {
        "seq": j,
        "evidence": resign(identity_of(SEED, parse_envelope(log[k]).seat), log[j], body={"x": 1}),
    },
    "an entry of another game": lambda log, k, j: {"seq": j, "evidence": _other_game_entry(j)},
    "a place the log does not hold": lambda log, k, j: {"seq": k + 5, "evidence": log[j]},
    "bytes that are no entry": lambda log, k, j: {"seq": j, "evidence": b"\x92\xc4\x01x\xc4\x01y"},
    "another place of the same writer": lambda log, k, j: {"seq": j, "evidence": log[j - 3]},
}


@pytest.mark.parametrize("lie", sorted(FALSE_EXPOSURES))
def test_an_exposure_that_proves_nothing_names_its_writer(lie: str) -> None:
    log = _honest_log()
    k = len(log) // 2
    writer = parse_envelope(log[k]).seat
    j = next(i for i in range(k - 1, 3, -1) if parse_envelope(log[i]).seat != writer)
    if lie == "another place of the same writer":  # an entry of j's writer, from another place
        j = next(
            i for i in range(k - 1, 6, -1)
            if parse_envelope(log[i]).seat != writer
            and parse_envelope(log[i - 3]).seat == parse_envelope(log[i]).seat
        )
    body = FALSE_EXPOSURES[lie](log, k, j)
    forged = resign(identity_of(SEED, writer), log[k], kind="expose", body=body)
    report = audit_envelopes([*log[:k], forged])
    assert report.exit_code == 1, report.text()
    assert [(f.seat, f.seq) for f in report.faults] == [(writer, k)], report.text()
    assert "equivocation" not in report.headline()
