"""Text other parties wrote cannot fake a line or act on the terminal: console and plain interface.

The person sits at an in-memory table whose other players are called :data:`HOSTILE_NAME` (a
newline, a fake ``VERDICT`` line and an escape sequence that hides what follows) and
:data:`BIDI_NAME` (a right-to-left override); they chat :data:`HOSTILE_CHAT` and close the game
with :data:`HOSTILE_REASON`. Every screen must show all of it as inert escapes (``\\x0a``,
``\\x1b``, ``\\u202e``), start no line with a fake verdict, and still show the real lines.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from fairdeck.console import ConsoleUI, screen_text
from fairdeck.plainui import PlainUI, SafeLogFormatter
from p2p.node import Notice
from tests.p2p.test_console import decision, run_console, screen, until
from tests.p2p.test_console_support import (
    BIDI_NAME,
    HOSTILE_CHAT,
    HOSTILE_NAME,
    HOSTILE_REASON,
    RAW,
    MemNode,
    assert_inert,
)

NAMES = ["tester", HOSTILE_NAME, BIDI_NAME, "dora"]


def unwrap(screen: str) -> str:
    """The screen with wrapped lines joined again (continuations are indented)."""
    return re.sub(r"\n +", " ", screen)


def _node() -> MemNode:
    return MemNode("loveletter", 4, seed=3, names=NAMES)


def test_the_table_log_and_chat_show_hostile_names_and_text_as_inert_escapes() -> None:
    shots: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        node.notices.put_nowait(Notice("chat", HOSTILE_CHAT, {"seat": 1}))
        node.notices.put_nowait(Notice("status", f"{HOSTILE_NAME} (seat 1) disconnected", {"party": 1}))
        node.notices.put_nowait(Notice("info", f"only you see: seat 2 ({BIDI_NAME}) holds Guard"))
        await until(lambda: any("only you see" in text for _, text in ui.log))
        shots["table"] = screen(ui)

    run_console(_node(), script)
    table = shots["table"]
    assert_inert(table)
    rows = [line for line in table.splitlines() if line[1:3] in ("0 ", "1 ", "2 ", "3 ")]
    assert len(rows) == 4, table  # one row per seat: no name broke its row in two
    assert "m\\x0aVERDICT: CLEAN" in rows[1]  # the name, escaped, in its own row
    assert "\\u202eevil\\u202c bob" in rows[2]
    flat = table.replace("\n  ", " ")  # (long log lines wrap, indented)
    assert (
        "<m\\x0aVERDICT: CLEAN\\x1b[8m> gg\\x0aseat 0 (tester) cheated: VERDICT: 1 FAULT\\x1b]0;pwned\\x07"
        in flat
    )
    assert "* m\\x0aVERDICT: CLEAN\\x1b[8m (seat 1) disconnected" in table
    assert "only you see: seat 2 (\\u202eevil\\u202c bob) holds Guard" in table
    assert "── log" in table and "your turn" in table  # the real lines are still there


def test_the_game_over_screen_shows_a_hostile_abandon_reason_harmlessly() -> None:
    shots: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        node.abandon(2, HOSTILE_REASON)  # the person is awaited: anyone else may close the game
        await until(lambda: ui.over)
        shots["over"] = screen(ui)

    ui = run_console(_node(), script)
    over = shots["over"]
    assert_inert(over)
    assert "The game was abandoned." in over and "══ Game over ══" in over
    said = "seat 2 (\\u202eevil\\u202c bob) closed the game: gone\\x0aVERDICT: CLEAN — no faults\\x1b[2J"
    assert said in unwrap(over)
    assert "Press Enter to leave" in over
    assert all(char not in text for _, text in ui.log for char in RAW)


def test_the_title_lobby_and_own_chat_are_inert_too() -> None:
    shots: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text("say hi there\r")
        await until(lambda: bool(node.chats))
        shots["table"] = screen(ui)
        shots["wide"] = screen_text(ui.app, 120, 40)  # (at 80 columns the title leaves the name out)

    node = MemNode("loveletter", 4, seed=3, names=[HOSTILE_NAME, "bob", BIDI_NAME, "dora"])
    run_console(node, script)
    assert_inert(shots["table"])
    assert_inert(shots["wide"])
    assert shots["table"].splitlines()[0].startswith(" fairdeck · loveletter")
    assert shots["wide"].splitlines()[0].startswith(" fairdeck · loveletter")
    assert "(m\\x0aVERDICT: CLEAN" in shots["wide"].splitlines()[0]
    assert "<m\\x0aVERDICT: CLEAN\\x1b[8m (you)> hi there" in shots["table"]  # our own chat line


def test_the_lobby_shows_hostile_seat_names_harmlessly() -> None:
    node = MemNode("loveletter", 4, seed=3)
    node.party = None  # type: ignore[assignment]  # before the game: the lobby's picture
    seats = ["bot0", HOSTILE_NAME, BIDI_NAME]

    async def draw() -> str:
        ui = ConsoleUI(node)  # type: ignore[arg-type]
        ui.handle(Notice("lobby", f"{HOSTILE_NAME} joined", {"seats": seats, "free": 1}))
        return screen(ui)

    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        text = asyncio.run(draw())
    assert_inert(text)
    assert "seat 1  m\\x0aVERDICT: CLEAN\\x1b[8m" in text and "seat 2  \\u202eevil\\u202c bob" in text
    assert "* m\\x0aVERDICT: CLEAN\\x1b[8m joined" in text and "seat 3  (free)" in text


def test_the_plain_interface_prints_every_peer_string_as_one_inert_line() -> None:
    node = _node()
    out = io.StringIO()
    answers = iter(["say hi", "1"])
    ui = PlainUI(node, out, read_line=lambda: next(answers))  # type: ignore[arg-type]
    node.on_decide = None  # the stand-in node would call it without awaiting: asked below instead

    async def main() -> None:
        node.start()
        assert node.party.waiting_for_me() is not None
        await ui.on_decide("play", node.party.legal_moves())  # the table, the moves, a choice
        for notice in (
            Notice("chat", HOSTILE_CHAT, {"seat": 1}),
            Notice("status", f"{HOSTILE_NAME} (seat 1) disconnected"),
            Notice("rejected", f"entry 9 from seat 2: {HOSTILE_REASON}"),
        ):
            ui.show(notice)
        await until(lambda: node.party.waiting_for_me() is not None)
        node.abandon(2, HOSTILE_REASON)
        while not node.notices.empty():
            if ui.show(node.notices.get_nowait()):
                break

    asyncio.run(main())
    printed = out.getvalue()
    assert_inert(printed)
    lines = printed.splitlines()
    assert (
        "<m\\x0aVERDICT: CLEAN\\x1b[8m (seat 1)> gg\\x0aseat 0 (tester) cheated: VERDICT: 1 FAULT" in printed
    )
    assert "* m\\x0aVERDICT: CLEAN\\x1b[8m (seat 1) disconnected" in lines
    assert "* game abandoned" in lines
    closing = "* seat 2 (\\u202eevil\\u202c bob) closed the game: gone\\x0aVERDICT: CLEAN — no faults"
    assert any(line.startswith(closing) for line in lines), printed
    assert node.sent and node.chats == ["hi"]


def test_warnings_logged_while_the_plain_interface_runs_are_inert(capsys: pytest.CaptureFixture[str]) -> None:
    node = _node()
    ui = PlainUI(node, io.StringIO())  # type: ignore[arg-type]

    async def main() -> None:
        task = asyncio.create_task(ui.show_notices())
        await asyncio.sleep(0)  # the interface is running: its log handler is in place
        logging.getLogger("p2p.node").warning("rejected: %s", f"entry 5 from seat 1: {HOSTILE_REASON}")
        node.notices.put_nowait(Notice("ended", "over"))
        await asyncio.wait_for(task, 30)

    asyncio.run(main())
    err = capsys.readouterr().err
    assert_inert(err)
    assert "p2p.node: rejected: entry 5 from seat 1: gone\\x0aVERDICT: CLEAN" in err
    assert SafeLogFormatter("%(message)s").format(
        logging.makeLogRecord({"msg": "%s said", "args": (HOSTILE_NAME,)})
    ) == ("m\\x0aVERDICT: CLEAN\\x1b[8m said")


@pytest.mark.parametrize(("name", "shown"), [("you", "<you> hi there"), ("ann", "<ann (you)> hi there")])
def test_own_chat_is_marked_as_yours_once(name: str, shown: str) -> None:
    """A player whose name is "you" (the default without $USER) reads ``<you> …``, not ``<you (you)> …``."""
    lines: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text("say hi there\r")
        await until(lambda: bool(node.chats))
        lines.extend(text for _, text in ui.log)

    run_console(MemNode("loveletter", 4, seed=3, names=[name, "bob", "cy", "dora"]), script)
    assert shown in lines, lines
    assert not any("(you) (you)" in line or "<you (you)>" in line for line in lines)
