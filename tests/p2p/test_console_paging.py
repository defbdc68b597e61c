"""Paging through the console's log, and Tab's choices, driven by keys through prompt-toolkit's pipe
input.

The log's view is anchored to the lines it shows: scrolled back, it stays on them while new lines
come (the rule counts them: ``↓ N newer``); back at the bottom it follows every new line again,
nothing skipped; the person's turn and End bring it to the newest lines, Home to the oldest. Tab's
choices are drawn on the line under the input, never over the legal moves they complete.
"""

from __future__ import annotations

import re

from prompt_toolkit.input import PipeInput

from fairdeck.console import ConsoleUI, screen_text
from p2p.node import Notice
from tests.p2p.test_console import ENTER, PGUP, TAB, answer, decision, offered, run_console, screen, until
from tests.p2p.test_console_support import MemNode

PGDN, HOME, END, CTRL_END = "\x1b[6~", "\x1b[H", "\x1b[F", "\x1b[1;5F"


def log_pane(text: str) -> tuple[str, list[str]]:
    """The log's rule and the lines under it, as a screen shows them."""
    rows = text.splitlines()
    top = next(i for i, row in enumerate(rows) if row.startswith("── log"))
    bottom = next(i for i in range(top + 1, len(rows)) if rows[i].startswith("── "))
    return rows[top], rows[top + 1 : bottom]


def earlier_count(rule: str) -> int:
    """The ``↑ N earlier lines`` the log's rule announces (0 when it says none)."""
    found = re.search(r"↑ (\d+) earlier line", rule)
    return int(found.group(1)) if found else 0


def moves_rows(text: str) -> list[str]:
    """The rows of the legal moves: between their heading and the input line."""
    rows = text.splitlines()
    top = next(i for i, row in enumerate(rows) if row.startswith("── your turn"))
    bottom = next(i for i, row in enumerate(rows) if row.startswith("> "))
    return rows[top + 1 : bottom]


async def note(ui: ConsoleUI, node: MemNode, text: str) -> None:
    """A notice through the node's queue, as the real node sends one; until the console shows it."""
    node.notices.put_nowait(Notice("note", text))
    await until(lambda: ui.log and ui.log[-1][1] == f"* {text}")


async def fill_log(ui: ConsoleUI, node: MemNode, count: int) -> None:
    """``count`` more log lines (short enough never to wrap)."""
    for i in range(count):
        node.notices.put_nowait(Notice("note", f"old line {i}"))
    await until(lambda: ui.log[-1][1] == f"* old line {count - 1}")


def test_back_at_the_bottom_the_log_follows_every_new_line_in_order() -> None:
    """PgUp, then PgDn back to the end: each new line is drawn, in order, none skipped, and the rule
    counts every earlier line (the log holds more lines than a screen once drew from)."""
    seen: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        await fill_log(ui, node, 450)
        keys.send_text(PGUP)
        await until(lambda: ui.log_back > 0)
        keys.send_text(PGDN)
        await until(lambda: ui.log_back == 0)
        rows = ui.plan().log_rows
        for batch in range(12):
            for k in range(rows - 1):  # fewer than a pane each time: every line can be seen
                await note(ui, node, f"new {batch}.{k}")
            rule, lines = log_pane(screen(ui))
            assert "newer" not in rule, rule
            assert lines[-1] == ui.log[-1][1], lines
            # every line of the log is counted (each entry is a line at least), not a recent part
            assert earlier_count(rule) == len(ui._log_display()) - rows >= len(ui.log) - rows, rule
            seen.extend(line for line in lines if line.startswith("* new ") and line not in seen)
        assert seen == [f"* new {b}.{k}" for b in range(12) for k in range(rows - 1)]

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_scrolled_back_the_log_stays_on_its_lines_while_new_ones_come() -> None:
    """The view does not slide under the reader: the same lines stay in sight, the rule counts the
    new ones below, and PgDn as often as it says reaches each of them."""

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        await fill_log(ui, node, 60)
        keys.send_text(PGUP)
        await until(lambda: ui.log_back > 0)
        rule, before = log_pane(screen(ui))
        back = ui.log_back
        for k in range(7):
            await note(ui, node, f"while away {k}")
        rule, after = log_pane(screen(ui))
        assert after == before
        assert f"↓ {back + 7} newer: PgDn" in rule, rule
        shown: list[str] = []
        for _ in range(10):
            keys.send_text(PGDN)
            await until(lambda back=back: ui.log_back < back or "* while away 6" in log_pane(screen(ui))[1])
            back = ui.log_back
            shown.extend(log_pane(screen(ui))[1])
            if back == 0:
                break
        assert [line for line in dict.fromkeys(shown) if "while away" in line] == [
            f"* while away {k}" for k in range(7)
        ]
        assert "newer" not in log_pane(screen(ui))[0]
        await note(ui, node, "and after")  # back at the bottom: it follows again
        assert log_pane(screen(ui))[1][-1] == "* and after"

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_a_page_down_at_another_size_still_reaches_the_bottom_and_follows() -> None:
    """PgUp on a tall terminal, PgDn after it shrank (the rows the log gets change with the decision
    and the window): PgDn until the rule says nothing is newer, then every new line is drawn."""

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        await fill_log(ui, node, 120)
        ui.app.fixed_size = (80, 50)  # type: ignore[attr-defined]
        keys.send_text(PGUP)
        await until(lambda: ui.log_back > 0)
        ui.app.fixed_size = (80, 24)  # type: ignore[attr-defined]
        for _ in range(10):
            if ui.log_back == 0:
                break
            back = ui.log_back
            keys.send_text(PGDN)
            await until(lambda back=back: ui.log_back < back)
        assert "newer" not in log_pane(screen(ui))[0]
        for k in range(3):
            await note(ui, node, f"after resize {k}")
        assert log_pane(screen(ui))[1][-3:] == [f"* after resize {k}" for k in range(3)]

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_the_persons_turn_brings_the_log_to_the_newest_lines() -> None:
    """Scrolled back while the others play, the person would not see the moves that led to their
    turn: when the turn comes the log shows the newest lines again."""

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        while len(ui.log) < 40:
            await answer(ui, keys)
        keys.send_text(PGUP)
        await until(lambda: ui.log_back > 0)
        await answer(ui, keys)  # the bots play; then it is the person's turn again
        assert not ui.over
        rule, lines = log_pane(screen(ui))
        assert "newer" not in rule, rule
        assert lines[-1].startswith(ui.log[-1][1][:40]), (lines, ui.log[-1])

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_home_and_end_go_to_the_oldest_and_the_newest_lines() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        await fill_log(ui, node, 80)
        keys.send_text(HOME)
        await until(lambda: "earlier" not in log_pane(screen(ui))[0])
        rule, lines = log_pane(screen(ui))
        first = "".join(text for _, text in ui._log_display()[0])
        assert lines[0] == first.rstrip(), lines
        await note(ui, node, "while at the top")  # the view stays at the top meanwhile
        assert log_pane(screen(ui))[1] == lines
        keys.send_text(END)
        await until(lambda: ui.log_back == 0)
        assert log_pane(screen(ui))[1][-1] == "* while at the top"
        keys.send_text(PGUP + PGUP)
        await until(lambda: ui.log_back > 0)
        keys.send_text("gua" + CTRL_END)  # with words typed too
        await until(lambda: ui.log_back == 0)
        assert ui.buffer.text == "gua"
        await note(ui, node, "followed")
        assert log_pane(screen(ui))[1][-1] == "* followed"

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_tab_choices_never_cover_the_legal_moves() -> None:
    """``guard 1 prin`` then Tab: two words fit (prince, princess). Their choices used to float over
    the moves list (``▶  7  plays th prince    seat 1 …``); they are on the line under the input,
    and the moves read as they did."""

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        option = await offered(ui, keys, lambda o: "guessing the Prince" in o.words)
        typed = f"guard {option.move['target']} prin"
        keys.send_text(typed)
        await until(lambda: ui.buffer.text == typed)
        moves_before = moves_rows(screen(ui))
        keys.send_text(TAB)
        await until(lambda: ui.buffer.complete_state is not None)
        text = screen(ui)
        rows = text.splitlines()
        moves = moves_rows(text)
        assert moves == moves_before, text
        assert all(re.match(r"^[▶ ] *\d+  plays the Guard on seat \d", m) for m in moves), text
        assert rows[-2] == f"> {typed}", text
        assert rows[-1].startswith("Tab: prince  princess"), text
        keys.send_text(TAB)  # the first choice, taken into the line; the moves narrow to it
        await until(lambda: ui.buffer.text == f"guard {option.move['target']} prince ")
        assert "guessing the Prince" in screen(ui) and "guessing the Princess" not in screen(ui)
        keys.send_text(ENTER)  # Enter takes the choice
        await until(lambda: ui.buffer.complete_state is None)
        sent = len(node.sent)
        keys.send_text(ENTER)
        await until(lambda: len(node.sent) > sent)
        assert node.sent[sent] == option.move

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_tab_choices_too_many_for_the_line_are_marked() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        target = (await offered(ui, keys, lambda o: o.move.get("face") == "guard")).move["target"]
        keys.send_text(f"guard {target} guessing ")
        await until(lambda: ui.buffer.text.endswith("guessing "))
        keys.send_text(TAB)
        await until(lambda: ui.buffer.complete_state is not None)
        last = screen_text(ui.app, 60, 24).splitlines()[-1]
        assert last.startswith("Tab: ") and last.endswith("›") and len(last) <= 60, last

    run_console(MemNode("loveletter", 4, seed=3), script)
