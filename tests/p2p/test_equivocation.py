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


def _guess_move_split(keep: set[int], cheat: int = 1) -> tuple[Callable[[int, bytes], Any], list[int]]:
    """A cheat that signs its first Guard guess twice and sends the seats in ``keep`` one version,
    the others the other: no honest party receives both from it."""
    sent: list[int] = []

    def tamper(sender: int, envelope: bytes) -> Any:
        entry = parse_envelope(envelope)
        if sent or sender != cheat or entry.kind != "move" or "guess" not in entry.body["move"]:
            return envelope
        sent.append(entry.seq)
        other = resign(identity_of(SEED, cheat), envelope, body=_second_move(entry.body))
        return {seat: envelope if seat in keep else other for seat in range(4)}

    return tamper, sent


@pytest.mark.parametrize("keep", [{0, 2}, {0}, {2, 3}, {3}], ids=lambda keep: "first to " + str(sorted(keep)))
def test_a_table_split_by_an_equivocator_names_it_in_every_honest_log(keep: set[int]) -> None:
    """Each side extends its own version; an entry from the other side does not extend our chain,
    so we ask for the last entries again, find the other version and pass the pair on; every
    honest log then ends with an ``expose`` (written out of turn where the party due is on the
    other side) and names the cheat, and nobody else."""
    cheat = 1
    tamper, sent = _guess_move_split(keep, cheat)
    table = build_table("loveletter", 4, seed=SEED, tamper=tamper)
    table.run()
    assert sent, "the cheat never guessed with a Guard"
    for seat in (0, 2, 3):
        report = audit_envelopes(table.logs[seat])
        assert {f.seat for f in report.faults} == {cheat}, report.text()
        assert report.faults[0].seq == sent[0] and "equivocation" in report.faults[0].reason
        assert table.parties[seat].table.ended == "accused"
        assert parse_envelope(table.logs[seat][-1]).kind == "expose"


def test_an_exposure_may_be_written_out_of_turn_and_a_false_one_still_names_its_writer() -> None:
    """Anyone may write an ``expose`` at the next place (it proves itself); one that proves nothing
    is held against its writer, in turn or not."""
    from p2p.protocol import Table

    log = _honest_log()
    k = len(log) // 2
    table = Table(log[0])
    for envelope in log[1:k]:
        table.accept(envelope)
    due = table.expected()
    assert due is not None
    outsider = next(p for p in range(3) if p != due[0])
    moved = next(j for j in range(k - 1, 0, -1) if parse_envelope(log[j]).kind == "move")
    writer = parse_envelope(log[moved]).seat
    other = resign(identity_of(SEED, writer), log[moved], body=_second_move(parse_envelope(log[moved]).body))
    head = table.chain_head
    true = resign(
        identity_of(SEED, outsider), log[k], seat=outsider, kind="expose", prev=head,
        body={"seq": moved, "evidence": other},
    )  # fmt: skip
    trial = table.fork()
    trial.accept(true)
    assert trial.ended == "accused" and [(f.seat, f.seq) for f in trial.findings] == [(writer, moved)]
    false = resign(
        identity_of(SEED, outsider), log[k], seat=outsider, kind="expose", prev=head,
        body={"seq": moved, "evidence": log[moved]},
    )  # fmt: skip
    trial = table.fork()
    trial.accept(false)
    assert trial.ended == "faulted" and [f.seat for f in trial.findings] == [outsider]
