"""Whose table a joiner is asked to confirm: the bootstrap reply of a real opener (ZeroMQ on
127.0.0.1) names the table and its opener apart, so a table named with ``host --name Friday`` is
not shown as "Friday's table"."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fairdeck.commands import ask_table, table_words
from p2p.memtable import seeded_identity
from p2p.node import Node


@pytest.mark.parametrize(
    ("table_name", "words"), [(None, "ann's table"), ("Friday", "table Friday, opened by ann,")]
)
def test_the_bootstrap_names_the_table_and_its_opener_apart(
    tmp_path: Path, table_name: str | None, words: str
) -> None:
    async def main() -> dict[str, object] | None:
        ann = Node(seeded_identity("table-words-ann"), tmp_path / "ann", name="ann", bind_host="127.0.0.1")
        try:
            port = await ann.open_table("loveletter", 2, shuffle_rounds=2, table_name=table_name)
            return await ask_table("127.0.0.1", port, 10.0)
        finally:
            await ann.close()

    reply = asyncio.run(main())
    assert reply is not None and reply["opener"] == "ann" and reply["name"] == (table_name or "ann")
    assert table_words(reply) == words


def test_a_reply_of_an_older_opener_without_the_field_reads_as_before() -> None:
    assert table_words({"name": "host"}) == "host's table"
    assert table_words({"name": "Friday", "opener": 7}) == "Friday's table"  # (junk: not believed)
