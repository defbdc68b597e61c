"""A failure in what a node tells its own player must not cost its log an entry.

Once, a broken wording function (a name not imported) raised inside the node's loop over one
call's effects, right after it appended an entry and before it wrote its own next one: the rest of
the list was dropped, the replica went on one entry ahead of the file, and the log had a gap. Two
real nodes on 127.0.0.1 play whole games while the wording of private looks always fails, while
telling the player fails now and then, and while an entry the table took is not filed."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

import p2p.node
from fairdeck.commands import BotDriver
from p2p.log import read_log
from p2p.memtable import seeded_identity
from p2p.node import Node
from p2p.party import Effect
from replay.audit import audit_path


def _play_two(tmp_path: Path, tag: str) -> list[Path]:
    """A whole two-seat Love Letter game between two real nodes on 127.0.0.1; their log files."""

    async def main() -> list[Path]:
        nodes = [
            Node(seeded_identity(f"{tag}-{i}"), tmp_path / f"n{i}", name=f"bot-{i}", bind_host="127.0.0.1")
            for i in range(2)
        ]
        try:
            for i, node in enumerate(nodes):
                BotDriver(node, "loveletter", "heuristic", i)
            port = await nodes[0].open_table("loveletter", 2, shuffle_rounds=2)
            await nodes[1].join(f"127.0.0.1:{port}")
            await asyncio.wait_for(asyncio.gather(*(n.wait_ended() for n in nodes)), 180)
            return [n.log_path for n in nodes if n.log_path is not None]
        finally:
            for node in nodes:
                await node.close()

    return asyncio.run(main())


def _assert_whole_and_alike(logs: list[Path]) -> None:
    assert len(logs) == 2 and read_log(logs[0]).envelopes == read_log(logs[1]).envelopes
    for log in logs:
        report = audit_path(log)
        assert report.faults == [] and report.finished, report.text()


def test_a_failing_private_look_leaves_every_log_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[str] = []

    def broken(game: object, face: str) -> str:
        told.append(face)
        raise NameError("name 'presentation' is not defined")

    monkeypatch.setattr(p2p.node, "card_words", broken)
    logs = _play_two(tmp_path, "words")
    assert told, "no private look was told: the test did not reach the failing words"
    _assert_whole_and_alike(logs)


def test_a_bug_in_one_effect_does_not_drop_the_rest_of_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telling the player about every third accepted entry fails (after the entry was filed):
    without the guard around each effect, the effects after it in the same list (our own next
    entry among them) were dropped, and the game stalled or the log had a gap."""
    failed: list[str] = []
    real = Node._notify

    def flaky(self: Node, kind: str, text: str, **extra: object) -> None:
        if kind == "accepted" and len(failed) < 40 and extra.get("seq", 0) % 3 == 0:
            failed.append(text)
            raise RuntimeError("a bug in the player's side")
        real(self, kind, text, **extra)

    monkeypatch.setattr(Node, "_notify", flaky)
    logs = _play_two(tmp_path, "flaky")
    assert failed, "no telling failed: the test did not reach the bug"
    _assert_whole_and_alike(logs)


def test_an_entry_the_file_missed_is_filed_before_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug skips filing a received entry that the table took: the node's next append finds the
    place missing and files the table's entries first, so the log still has no gap."""
    skipped: list[int] = []
    real = Node._carry_out_effect

    async def lossy(self: Node, effect: Effect) -> None:
        seq = effect.entry.seq if effect.kind == "accepted" and effect.entry and not effect.persisted else -1
        if seq in (9, 20) and seq not in skipped:
            skipped.append(seq)
            return  # dropped whole: neither filed nor told
        await real(self, effect)

    monkeypatch.setattr(Node, "_carry_out_effect", lossy)
    with caplog.at_level(logging.ERROR, logger="fairdeck.node"):
        logs = _play_two(tmp_path, "lossy")
    assert skipped, "no entry was skipped: the test did not reach the bug"
    assert any("lacked entries" in r.getMessage() for r in caplog.records)
    _assert_whole_and_alike(logs)
