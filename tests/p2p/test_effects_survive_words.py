"""A failure in what a node tells its own player must not cost its log an entry.

Once, a broken wording function (a name not imported) raised inside the node's loop over one
call's effects, right after it appended an entry and before it wrote its own next one: the rest of
the list was dropped, the replica went on one entry ahead of the file, and the log had a gap. Two
real nodes on 127.0.0.1 play a whole game while the wording of private looks always fails."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import p2p.node
from fairdeck.commands import BotDriver
from p2p.log import read_log
from p2p.memtable import seeded_identity
from p2p.node import Node
from replay.audit import audit_path


def test_a_failing_private_look_leaves_every_log_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[str] = []

    def broken(game: object, face: str) -> str:
        told.append(face)
        raise NameError("name 'presentation' is not defined")

    monkeypatch.setattr(p2p.node, "card_words", broken)

    async def main() -> list[Path]:
        nodes = [
            Node(seeded_identity(f"words-{i}"), tmp_path / f"n{i}", name=f"bot-{i}", bind_host="127.0.0.1")
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

    logs = asyncio.run(main())
    assert told, "no private look was told: the test did not reach the failing words"
    assert len(logs) == 2 and read_log(logs[0]).envelopes == read_log(logs[1]).envelopes
    for log in logs:
        report = audit_path(log)
        assert report.faults == [] and report.finished, report.text()
