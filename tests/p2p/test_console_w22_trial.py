"""A newcomer's trial (w22): what a first-time player met at the console, each fixed and kept so.

The console is driven by keys through prompt-toolkit's pipe input at an in-memory table (see
``test_console.py``):

- Rebel Princess's game-over screen said ``zero rounds: you: 1 · ...`` where every other place (the
  line printed after the game, the replay, the audit) says ``rounds with no proposal (the
  tie-break)``: the console ignored the game's own label for its result;
- text typed in the lobby was answered ``nothing to choose now (the table); 'say TEXT' chats``;
- a refused move's reason longer than the line was cut (``... (the table's option solo_yield_…``),
  so the player never read the option that would allow the move; it now takes a second line;
- a 60×14 window was told the game "needs at least 60×23", a 40×12 one that "80×17 shows it whole":
  the narrow-but-wide-enough window now hears of the wider, shorter size too.
"""

from __future__ import annotations

import asyncio
import re

from prompt_toolkit.input import PipeInput

from fairdeck.console import ConsoleUI, screen_text
from p2p.node import Notice
from tests.p2p.test_console import ENTER, LobbyNode, decision, play_to_the_end, run_console, screen, until
from tests.p2p.test_console_support import MemNode

WIDTH = 80


def test_the_game_over_screen_words_the_tie_break_as_the_game_does() -> None:
    shots: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await play_to_the_end(ui, keys)
        await asyncio.sleep(0.05)
        shots.append(screen(ui))

    run_console(MemNode("rebelprincess", 3, seed=2, options={"rounds": 3}), script)
    over = " ".join(shots[0].split())  # (a long line wraps: the words, whatever the breaks)
    assert "Game over" in over, shots[0]
    assert "rounds with no proposal (the tie-break):" in over, shots[0]
    assert "zero rounds:" not in over, shots[0]


def test_typing_in_the_lobby_says_the_game_has_not_started() -> None:
    seen: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: LobbyNode) -> None:
        node.notices.put_nowait(
            Notice("lobby", "", {"seats": ["ann", "bob"], "free": 2, "game": "loveletter", "port": 4242})
        )
        await until(lambda: ui.lobby_free == 2)
        keys.send_text("guard" + ENTER)
        await until(lambda: bool(ui.message[1]))
        seen.append(screen(ui))

    ui = run_console(LobbyNode(), script)
    assert ui.message[1] == "no game yet: it starts when every seat is taken (2 free); 'say TEXT' chats"
    assert "(the table)" not in seen[0] and ui.message[1] in seen[0]


def test_a_long_refusal_is_shown_whole_on_two_lines() -> None:
    shots: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text("yield" + ENTER)
        await until(lambda: ui.message[1].startswith("not allowed"))
        shots.append(screen(ui))
        keys.send_text("\x1b")  # Esc clears the line, and the reason with it
        await until(lambda: ui.buffer.text == "" and not ui.message[1].startswith("not allowed"))
        shots.append(screen(ui))

    ui = run_console(MemNode("regicide", 1, seed=4, witnesses=1), script)
    reason = "not allowed: yielding is off in this solo game (the table's option solo_yield_allowed)"
    refused, after = shots
    assert len(reason) > WIDTH - 1  # (what this test is about: a reason longer than the line)
    lines = refused.splitlines()
    assert all(len(line) <= WIDTH for line in lines)
    assert " ".join(" ".join(lines[-2:]).split()) == reason, refused
    assert "…" not in "".join(lines[-2:])
    assert "── your turn" in refused and "> yield" in refused  # the table and the line still there
    assert len(after.splitlines()) == len(refused.splitlines()) == 24
    assert not ui.message[1].startswith("not allowed")


def test_a_window_too_short_hears_of_the_wider_shorter_size_too() -> None:
    shots: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        for size in ((60, 14), (40, 12), (80, 24)):
            ui.app.fixed_size = size  # type: ignore[attr-defined]  # (what the console plans for)
            shots[f"{size[0]}x{size[1]}"] = " ".join(screen_text(ui.app, *size).split())

    names = ["tester", "bot-1, run by tester", "bot-2, run by tester", "bot-3, run by tester"]
    run_console(MemNode("loveletter", 4, seed=3, names=names), script)
    short = shots["60x14"]
    found = re.search(r"needs at least 60×(\d+) \(or 80×(\d+): wider, it needs fewer rows\)", short)
    assert found, short
    assert 14 < int(found.group(2)) < int(found.group(1)), short
    assert f"80×{found.group(2)} shows it whole" in shots["40x12"], shots["40x12"]  # the same size
    assert "too small" not in shots["80x24"]
