"""Chat in the lobby, before the game starts, on real nodes (ZeroMQ on 127.0.0.1): a joiner knows
only the opener then, so the opener passes each line on to everyone else in its lobby with the
speaker's name."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2p.memtable import seeded_identity
from p2p.node import Node, Notice


async def _chats(node: Node, count: int) -> list[Notice]:
    """The next ``count`` chat notices of ``node`` (other notices are skipped)."""
    found: list[Notice] = []
    while len(found) < count:
        notice = await asyncio.wait_for(node.notices.get(), 20)
        if notice.kind == "chat":
            found.append(notice)
    return found


def test_lines_said_in_the_lobby_reach_everyone_there_with_the_speakers_name(tmp_path: Path) -> None:
    async def main() -> None:
        names = ["ann", "bob", "cy"]
        nodes = [
            Node(seeded_identity(f"lobby-chat-{n}"), tmp_path / n, name=n, bind_host="127.0.0.1")
            for n in names
        ]
        ann, bob, cy = nodes
        try:
            port = await ann.open_table("loveletter", 4, shuffle_rounds=2)  # a seat stays free
            joins = [asyncio.create_task(node.join(f"127.0.0.1:{port}")) for node in (bob, cy)]
            while ann._lobby is None or len(ann._lobby.players) < 3:
                await asyncio.sleep(0.05)
            await bob.chat("hi all")
            assert [(n.text, n.data["name"]) for n in await _chats(ann, 1)] == [("hi all", "bob")]
            assert [(n.text, n.data["name"]) for n in await _chats(cy, 1)] == [("hi all", "bob")]
            await ann.chat("one more seat")
            assert [(n.text, n.data["name"]) for n in await _chats(bob, 1)] == [("one more seat", "ann")]
            assert [(n.text, n.data["name"]) for n in await _chats(cy, 1)] == [("one more seat", "ann")]
            # a joiner's own line does not come back to it
            await cy.chat("ready")
            assert [n.text for n in await _chats(bob, 1)] == ["ready"]
            assert not any(n.kind == "chat" for n in _drain(cy))
            for task in joins:
                task.cancel()
        finally:
            for node in nodes:
                await node.close()

    asyncio.run(main())


def _drain(node: Node) -> list[Notice]:
    out = []
    while not node.notices.empty():
        out.append(node.notices.get_nowait())
    return out
