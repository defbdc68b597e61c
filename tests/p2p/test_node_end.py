"""The end of a game on real nodes: every party says it holds the whole log, and a node about to
leave waits for that (``Node.linger_after_end``) — a party that crashed at the very end and comes
back must find someone to fetch the last entries from.

Three :class:`p2p.node.Node` peers in one event loop on 127.0.0.1 (ZeroMQ, CurveZMQ, logs on disk),
each played by :class:`fairdeck.commands.BotDriver`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from fairdeck.commands import BotDriver
from p2p.log import read_log
from p2p.memtable import seeded_identity
from p2p.node import Node


async def _play(tmp_path: Path, names: list[str]) -> list[Node]:
    nodes = [
        Node(seeded_identity(f"end-{name}"), tmp_path / name, name=name, bind_host="127.0.0.1")
        for name in names
    ]
    port = await nodes[0].open_table("loveletter", len(nodes), shuffle_rounds=2)
    for i, node in enumerate(nodes):
        BotDriver(node, "loveletter", "heuristic", i)
    await asyncio.gather(*(node.join(f"127.0.0.1:{port}") for node in nodes[1:]))
    await asyncio.wait_for(asyncio.gather(*(node.wait_ended() for node in nodes)), 120)
    return nodes


def test_every_party_says_it_holds_the_end_and_nobody_waits_for_it(tmp_path: Path) -> None:
    async def main() -> None:
        nodes = await _play(tmp_path, ["ann", "bob", "cy"])
        try:
            # each node told the others it held the whole log when its game ended
            missing = await asyncio.gather(*(node.linger_after_end(timeout=60) for node in nodes))
            assert missing == [[], [], []]
            assert all(node.party is not None and node.party.table.ended == "over" for node in nodes)
        finally:
            for node in nodes:
                await node.close()

    asyncio.run(main())


def test_a_party_that_lost_the_end_comes_back_to_a_node_that_waited_for_it(tmp_path: Path) -> None:
    """Cy's node is gone with the last entry of its log lost (a crash in its last second). Ann's
    node, about to leave, does not know Cy holds the end: it waits; Cy's node comes back from its
    shortened log, fetches the entry from Ann and says it holds the whole log; Ann leaves."""

    async def main() -> None:
        nodes = await _play(tmp_path, ["ann", "bob", "cy"])
        ann, bob, cy = nodes
        try:
            assert cy.log_path is not None and ann.party is not None
            whole = ann.party.table.next_seq
            await cy.close()
            await bob.close()
            # Cy's crash: the last entry never made it to disk, and Ann never heard that Cy held it
            loaded = read_log(cy.log_path)
            cut = loaded.end_of(len(loaded.envelopes) - 1)
            with cy.log_path.open("r+b") as handle:
                handle.truncate(cut)
            cy_seat = cy.party.me if cy.party is not None else -1
            ann._holding.pop(cy_seat, None)  # what Ann would know had Cy's news been lost with it

            waiting = asyncio.create_task(ann.linger_after_end(timeout=60))
            await asyncio.sleep(0.5)
            assert not waiting.done(), "Ann left without knowing that Cy holds the end"
            back = Node(seeded_identity("end-cy"), tmp_path / "cy", name="cy", bind_host="127.0.0.1")
            nodes.append(back)
            BotDriver(back, "loveletter", "heuristic", 2)
            await back.resume(cy.log_path)
            await asyncio.wait_for(back.wait_ended(), 60)
            assert back.party is not None and back.party.table.next_seq == whole
            # Bob had said it held the end before it left: nobody waited for it
            assert await asyncio.wait_for(waiting, 60) == []
            assert ann.log_path is not None
            assert read_log(cy.log_path).envelopes == read_log(ann.log_path).envelopes
        finally:
            for node in nodes:
                await node.close()

    asyncio.run(main())


def test_a_second_join_under_one_identity_is_told_the_lobby_not_left_in_silence(tmp_path: Path) -> None:
    """The same player joins again (a restarted process, or a second terminal) before the table
    starts: the opener keeps one seat for that identity, dials the newest process, and tells it
    who is at the table, as it told the first."""

    async def main() -> None:
        host = Node(seeded_identity("lobby-host"), tmp_path / "host", name="host", bind_host="127.0.0.1")
        first = Node(seeded_identity("lobby-pat"), tmp_path / "pat1", name="pat", bind_host="127.0.0.1")
        again = Node(seeded_identity("lobby-pat"), tmp_path / "pat2", name="pat", bind_host="127.0.0.1")
        nodes = [host, first, again]
        tasks: list[asyncio.Task[None]] = []
        try:
            port = await host.open_table("loveletter", 3, shuffle_rounds=2)
            for node in (first, again):
                tasks.append(asyncio.create_task(node.join(f"127.0.0.1:{port}")))
                deadline = asyncio.get_running_loop().time() + 30
                seen: list[list[str]] = []
                while not seen:
                    assert asyncio.get_running_loop().time() < deadline, "no lobby news"
                    notice = await asyncio.wait_for(node.notices.get(), 30)
                    if notice.kind == "lobby":
                        seen.append(notice.data["seats"])
                assert seen[0] == ["host", "pat"]  # one seat for the one identity
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for node in nodes:
                await node.close()

    asyncio.run(main())
