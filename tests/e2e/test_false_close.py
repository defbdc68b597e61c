"""A party that closes the game with a lie — an ``abandon`` naming a party that did not stall — among
real peer processes.

A stall is the one fault a log cannot prove by signatures (the closer's ``abandon`` is its own word
that the awaited party wrote nothing before the deadline). So no node takes that word alone: a
received ``abandon`` is held until the node's own view agrees (it has itself waited nearly the
table's deadline at that place, or the named party is gone from its own mesh). Here the host is
dishonest: the moment one of its own entries makes another party the awaited one, it signs an
``abandon`` naming that party and sends it *ahead* of the entry, so every other party holds the
close before the framed party could possibly have written. Before the rule, every honest party
folded the close right after the entry and the audit named the framed party "stopped".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replay.audit import audit_path, compare_logs
from tests.e2e.peer_support import Cluster, read_entries

ROUNDS = 8


@pytest.mark.parametrize(("game", "seats"), [("loveletter", 4), ("regicide", 3), ("rebelprincess", 4)])
def test_a_close_naming_a_party_that_did_not_stall_is_refused_and_its_writer_is_named(
    tmp_path: Path, game: str, seats: int
) -> None:
    options = {"rounds": ROUNDS, "abandon_after": 2.0, "quiet_bots": False, "host_abandons": False}
    with Cluster(tmp_path, game=game, seats=seats, **options) as cluster:
        cluster.host_frames_at = 30
        cluster.start()
        codes = cluster.wait_finished()
        host, honest = cluster.peers[0], cluster.peers[1:]
        assert codes == [0] * len(cluster.peers), "\n".join(p.tail() for p in cluster.peers)
        host_log = host.log_path()
        logs = cluster.logs()[1:]
        said = [p.output() for p in honest]
    assert host_log is not None
    lie = read_entries(host_log)[-1]
    assert lie.kind == "abandon" and lie.seat == 0 and lie.seq >= 30
    found = re.match(r"seat (\d+) ", lie.body["reason"])
    assert found is not None
    framed = int(found.group(1))
    assert framed != 0

    # the honest parties went on without the liar: their logs agree, the framed party's own entry
    # holds the place the lie wanted, and the game was closed later naming the liar, who had left
    assert len({path.read_bytes() for path in logs}) == 1, "the honest parties' logs differ"
    entries = read_entries(logs[0])
    assert [e.envelope for e in entries[: lie.seq]] == [e.envelope for e in read_entries(host_log)[: lie.seq]]
    assert entries[lie.seq].kind != "abandon"
    assert any(e.seat == framed for e in entries[lie.seq :] if e.kind != "abandon")
    closing = entries[-1]
    assert closing.kind == "abandon" and closing.seat != 0 and "seat 0" in closing.body["reason"]
    report = audit_path(logs[0])
    assert {f.seat for f in report.faults} == {0}, report.text()
    assert all(f"seat {framed}" not in f.reason for f in report.faults), report.text()
    # each honest party said why it did not take the close (the framed one, or another that
    # received the lie before the framed party's entry)
    assert any("refused seat 0's close of the game" in text for text in said), "\n".join(said)
    # the liar's own log names the framed party (one log cannot tell a lie about a stall from a
    # real one); beside an honest log, the audit says the table did not take that close
    both = compare_logs([host_log, logs[0]], [audit_path(host_log), report])
    assert [(f.seat, f.seq) for f in both] == [(None, lie.seq)]
    assert "the table did not take the close" in both[0].reason
