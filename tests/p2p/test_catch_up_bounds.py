"""A seated peer cannot make a node resend its log over and over: catch-up answers to one peer are
bounded per second, whatever starts it asks for (alternating two starts used to defeat the
repeat check and made a victim resend its whole log thousands of times a second)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from p2p.identity import Identity
from p2p.memtable import build_table
from p2p.node import ANSWERS_PER_ASK_AGAIN, ASK_AGAIN, Node


def test_answers_to_one_peer_are_bounded_whatever_it_asks(tmp_path: Path) -> None:
    table = build_table("loveletter", 2, seed=5)
    table.run()

    async def run() -> tuple[int, int, float]:
        node = Node(Identity.generate(), tmp_path, name="victim")
        try:
            node.party = table.parties[0]
            began = time.monotonic()
            flooder = sum(node._first_answer(b"f" * 32, start % 2) for start in range(500))
            elapsed = time.monotonic() - began
            other = node._first_answer(b"o" * 32, 0)  # another peer is not held back by the flood
            return flooder, int(other), elapsed
        finally:
            await node.close()

    flooder, other, elapsed = asyncio.run(run())
    windows = 1 + int(elapsed / ASK_AGAIN)  # (however slow the machine was meanwhile)
    assert 1 <= flooder <= ANSWERS_PER_ASK_AGAIN * windows, (flooder, windows)
    assert other == 1


def test_a_failed_write_says_what_would_mend_it(tmp_path: Path) -> None:
    """A full disk asks for space; a refusal to write asks for the right to write, not for space."""
    import errno

    from p2p.log import LogWriteError

    async def failure(code: int) -> str:
        node = Node(Identity.generate(), tmp_path, name="n")
        try:
            node._fail(LogWriteError(code, f"cannot write {tmp_path}/g.fdlog: {errno.errorcode[code]}"))
            assert node.failure is not None
            return node.failure
        finally:
            await node.close()

    assert "free some space and start it again" in asyncio.run(failure(errno.ENOSPC))
    refused = asyncio.run(failure(errno.EPERM))
    assert "free some space" not in refused and "make the file writable again" in refused
    assert "stopped (nothing more is written or sent)" in refused
