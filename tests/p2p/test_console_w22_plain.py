"""A newcomer's trial (w22), the plain interface (``--plain``) at a terminal: a line typed while the
others played (``1``, pressed once too often) stayed in the input and was read as the answer to the
person's next decision, before its moves were even printed — a move played blind (a King swapped
away for the Princess). Lines typed before the moves are shown are now set aside and said so; a
script piped in (no terminal) is still read line by line, as written ahead on purpose.

The terminal is a real pseudo-terminal (``os.openpty``): what the person types is written to its
master side, as a terminal emulator would."""

from __future__ import annotations

import asyncio
import io
import os
import sys
from collections.abc import Iterator

import pytest

from engine.present import presentation
from fairdeck.plainui import PlainUI
from tests.p2p.test_console_support import MemNode


def _first_decision() -> MemNode:
    node = MemNode("loveletter", 4, seed=1)
    node.start()
    automatic = presentation(node.party.table.game).automatic
    while (prompt := node.party.waiting_for_me()) in automatic:
        asyncio.run(node.decide(node.party.legal_moves()[0]))
    assert prompt is not None
    return node


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A pseudo-terminal as standard input (in its usual line mode); yields its master side."""
    master, slave = os.openpty()
    stdin = os.fdopen(slave, "r", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        yield master
    finally:
        stdin.close()
        os.close(master)


def test_a_line_typed_before_the_moves_are_shown_is_not_played(terminal: int) -> None:
    node = _first_decision()
    out = io.StringIO()
    ui = PlainUI(node, out)  # reads the terminal's lines itself
    node.on_decide = None  # (the stand-in node would call it without awaiting: asked here instead)
    before = len(node.sent)  # (answers given on the way to this decision)
    os.write(terminal, b"1\n")  # typed while the others played: nobody has seen these moves yet

    async def decide() -> None:
        task = asyncio.create_task(ui.on_decide(node.party.waiting_for_me() or "", node.party.legal_moves()))
        while "not played" not in out.getvalue():
            assert not task.done(), out.getvalue()
            await asyncio.sleep(0.01)
        assert len(node.sent) == before  # the early "1" chose nothing
        os.write(terminal, b"2\n")  # the person, having read the moves, chooses
        await asyncio.wait_for(task, 30)

    asyncio.run(decide())
    printed = out.getvalue()
    assert "  not played, typed before these moves were shown: '1'" in printed, printed
    moves = printed.index("   2. ")
    assert printed.index("not played") > moves  # said under the moves, where it is read
    assert len(node.sent) == before + 1  # the "2" typed after the moves were shown


def test_a_script_piped_in_is_still_read_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """No terminal: lines written ahead are the moves, as ever."""
    read, write = os.pipe()
    os.write(write, b"1\n")
    os.close(write)
    stdin = os.fdopen(read, "r", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    node = _first_decision()
    out = io.StringIO()
    ui = PlainUI(node, out)
    node.on_decide = None
    before = len(node.sent)
    try:
        asyncio.run(ui.on_decide(node.party.waiting_for_me() or "", node.party.legal_moves()))
    finally:
        stdin.close()
    assert len(node.sent) == before + 1 and "not played" not in out.getvalue()
