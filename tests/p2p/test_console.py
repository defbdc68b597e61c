"""The full-screen console, driven by keys through prompt-toolkit's pipe input.

Most tests sit the person at an in-memory table (:class:`MemNode`, real protocol parties and bots,
no sockets); ``test_console_real_nodes.py`` uses real network nodes. Screens are read as text at
80x24 with :func:`fairdeck.console.screen_text`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from engine.core import IllegalMove
from engine.games import make_bot
from engine.present import presentation
from fairdeck.console import ConsoleUI, screen_text
from fairdeck.console.moves import ANSWERED_WORDS, face_label
from fairdeck.console.table import seat_rows
from p2p.memtable import build_table
from p2p.node import Notice
from tests.p2p.test_console_support import MemNode

UP, DOWN, ENTER, TAB, ESC = "\x1b[A", "\x1b[B", "\r", "\t", "\x1b"
F1, PGUP, CTRL_C = "\x1bOP", "\x1b[5~", "\x03"

Script = Callable[[ConsoleUI, PipeInput, Any], Awaitable[None]]


async def until(condition: Callable[[], Any], timeout: float = 30.0) -> None:
    """Wait (without asserting any duration) until ``condition()`` holds; fail after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("the console did not get there")
        await asyncio.sleep(0.005)


def run_console(node: Any, script: Script, output: Any = None, **kwargs: Any) -> ConsoleUI:
    """Start ``node`` and its console, run ``script(ui, keys, node)``, then close the console."""
    holder: list[ConsoleUI] = []
    kwargs.setdefault("answer_forced", False)  # these tests answer every decision themselves
    kwargs.setdefault("round_summaries", False)

    async def main() -> None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=output or DummyOutput()):
            ui = ConsoleUI(node, **kwargs)
            ui.app.fixed_size = (80, 24)  # type: ignore[attr-defined]  # the size screen() draws at
            holder.append(ui)
            if hasattr(node, "start"):
                node.start()
            task = asyncio.create_task(ui.show_notices())
            await until(lambda: ui.app.is_running)
            try:
                await script(ui, keys, node)
            finally:
                if ui.app.is_running and not ui.app.future.done():  # type: ignore[union-attr]
                    ui.app.exit()
                await asyncio.wait_for(task, 30)

    asyncio.run(main())
    return holder[0]


def screen(ui: ConsoleUI) -> str:
    """The console as an 80x24 terminal would show it."""
    return screen_text(ui.app, 80, 24)


async def decision(ui: ConsoleUI) -> None:
    """Until the console offers a decision (or the game is over)."""
    await until(lambda: ui.decision is not None or ui.over)


async def offered(ui: ConsoleUI, keys: PipeInput, wanted: Callable[[Any], bool]) -> Any:
    """Play on (the first move each time) until the console offers a move ``wanted`` takes; that
    move's option (fails if the game ends first)."""
    await decision(ui)
    while not any(wanted(o) for o in ui.decision.options):
        await answer(ui, keys)
        assert not ui.over, "the move never came up in this game"
    return next(o for o in ui.decision.options if wanted(o))


async def answer(ui: ConsoleUI, keys: PipeInput, text: str = ENTER) -> None:
    """Press ``text`` on a decision, then wait for the next decision (or the end of the game)."""
    step = ui.decision.step if ui.decision else -1
    keys.send_text(text)
    await until(lambda: ui.over or (ui.decision is not None and ui.decision.step != step))


async def play_to_the_end(ui: ConsoleUI, keys: PipeInput) -> None:
    """Take the first move at every decision until the game is over."""
    while not ui.over:
        await decision(ui)
        if ui.over:
            break
        await answer(ui, keys)


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------


def test_table_screen_shows_seats_hand_with_effects_log_and_moves() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        text = screen(ui)
        party = node.party
        game = party.table.game
        hand = [party.known_faces()[r] for r in party.table.state.hands[0]]
        effects = [game.card_text(face).split(": ", 1)[1] for face in hand]
        for face in hand:
            assert face_label(game, face).split("(")[0] in text  # the hand by name
        # each card's effect is printed next to it, or (a short screen) the highlighted move's card's
        assert all(e.split()[0] in text for e in effects) or "about: " in text
        for name in ("bot1", "bot2", "bot3"):
            assert name in text
        assert "── log" in text and "draws a card" in text
        assert "your turn: play a card" in text
        assert "▶  1  plays the" in text
        assert "now: you to play" in text
        assert len(text.splitlines()) <= 24 and max(len(line) for line in text.splitlines()) <= 80

    run_console(MemNode("loveletter", 4, seed=4), script)


class _Terminal(DummyOutput):
    """A terminal that remembers its bells and titles."""

    def __init__(self) -> None:
        super().__init__()
        self.bells = 0
        self.titles: list[str] = []

    def bell(self) -> None:
        self.bells += 1

    def set_title(self, title: str) -> None:
        self.titles.append(title)


def test_your_turn_rings_sets_the_title_and_counts_down_the_deadline() -> None:
    terminal = _Terminal()

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        node.own_deadline = lambda: 83.4  # what the table's deadline leaves for this decision
        await decision(ui)
        await until(lambda: "1:23 left" in screen(ui))
        # a heading too long for the line is cut before its countdown is
        rule = "".join(text for _, text in ui._rule("Everyone passes (pass 2 right). " * 3, " · 1:23 left"))
        assert "… · 1:23 left " in rule and len(rule) == 80
        assert terminal.bells == 1 and terminal.titles[-1] == "fairdeck — your turn"
        node.own_deadline = lambda: None
        await answer(ui, keys)
        assert ui.over or terminal.bells == 2  # the next decision rang again
        while not ui.over:
            await answer(ui, keys)

    run_console(MemNode("loveletter", 2, seed=6), script, output=terminal)
    assert terminal.bells >= 2 and "fairdeck — your turn" in terminal.titles
    assert terminal.titles[-1] == "fairdeck"  # the game over: the title says nothing is asked


def _hand_cells(ui: ConsoleUI) -> list[str]:
    view = ui.view()
    assert view is not None
    return [text for style, text in seat_rows(view) if style == "class:hand"]


def test_nothing_secret_is_ever_drawn() -> None:
    """A whole game: at every decision, other seats' hidden cards show as ▒, never by name."""
    checked = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        others = node.table.parties[1:]
        while not ui.over:
            await decision(ui)
            if ui.over:
                break
            party = node.party
            state = party.table.state
            known = party.known_faces()
            cells = _hand_cells(ui)
            text = screen(ui)
            for seat in range(1, 4):
                true = others[seat - 1].private_faces
                for ref in state.hands[seat]:
                    label = face_label(party.table.game, true.get(ref) or known.get(ref))
                    if ref in known:  # public, or shown to us (a Priest, a King swap)
                        assert label in cells[seat]
                    else:
                        assert "▒" in cells[seat] and label not in cells[seat]
                        assert f"holds {label}" not in text
            if state.set_aside is not None and state.set_aside not in known:
                assert "set aside: 1 face down" in text
            checked.append(len(ui.decision.options) if ui.decision else 0)
            await answer(ui, keys)
        assert "Game over" in screen(ui)

    run_console(MemNode("loveletter", 4, seed=11), script)
    assert len(checked) > 5


def test_arrows_and_enter_send_the_highlighted_move() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        while ui.decision and len(ui.decision.options) < 2:  # answer forced choices until a real one
            await answer(ui, keys)
        options = ui.decision.options
        keys.send_text(DOWN)
        await until(lambda: ui.cursor == 1)
        assert "▶  2" in screen(ui)
        keys.send_text(UP + DOWN + ENTER)
        await until(lambda: node.sent and node.sent[-1] == options[1].move)

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_a_typed_command_sends_the_move_it_fits_and_tab_completes() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        target = ui.decision.options[-1]
        keys.send_text("pl")
        keys.send_text(TAB)
        await until(lambda: ui.buffer.text == "plays ")
        ui.buffer.reset()
        keys.send_text(target.words + ENTER)
        await until(lambda: bool(node.sent))
        assert node.sent[-1] == target.move

    run_console(MemNode("loveletter", 4, seed=4), script)


def test_a_command_that_fits_no_legal_move_is_refused_before_sending() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text("play zebra" + ENTER)
        await until(lambda: ui.message[1].startswith("no legal move matches 'play zebra'"))
        assert node.sent == [] and ui.decision is not None
        assert ui.message[1] in screen(ui)  # the whole explanation fits its line at 80 columns
        ui.message = ("class:error", "a message longer than the line " * 4)
        assert screen(ui).splitlines()[-1].rstrip().endswith("…")  # cut visibly, never silently
        assert "no legal move fits what you typed" in screen(ui)
        ui.buffer.reset()
        keys.send_text("99" + ENTER)
        await until(lambda: "there is no move 99" in ui.message[1])
        assert node.sent == []

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_several_fitting_moves_ask_for_more_words() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await offered(ui, keys, lambda o: o.move.get("face") == "guard")
        keys.send_text("guard" + ENTER)
        await until(lambda: "moves fit 'guard'" in ui.message[1])
        sent = len(node.sent)
        keys.send_text(DOWN + ENTER)  # picking one with the arrows settles it
        await until(lambda: len(node.sent) == sent + 1)
        assert node.sent[-1]["face"] == "guard"

    run_console(MemNode("loveletter", 4, seed=3), script)


class RefusingNode(MemNode):
    """A node whose first ``decide`` is refused, as when the table moved on meanwhile."""

    refused = False

    async def decide(self, move: dict[str, Any]) -> None:
        if not self.refused:
            self.refused = True
            raise IllegalMove("nothing is asked of you right now")
        await super().decide(move)


def test_an_illegal_move_reported_by_the_node_is_explained() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text(ENTER)
        await until(lambda: ui.message[1] == "not allowed: nothing is asked of you right now")
        assert node.sent == [] and ui.decision is not None
        keys.send_text(ENTER)
        await until(lambda: len(node.sent) == 1)

    run_console(RefusingNode("loveletter", 4, seed=3), script)


# ---------------------------------------------------------------------------------------------
# Help, chat, connections, progress, lobby, log
# ---------------------------------------------------------------------------------------------


def test_help_is_one_key_away() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text(F1)
        await until(lambda: ui.overlay == "help")
        text = screen(ui)
        assert "How to play Love Letter" in text and "Guard (1, x5)" in text
        assert "Esc, q, ? or Enter: back to the game" in text.splitlines()[-1]  # how to close it
        keys.send_text(ESC)
        await until(lambda: ui.overlay is None)
        keys.send_text("?")
        await until(lambda: ui.overlay == "help")
        keys.send_text(DOWN * 200)  # scrolls to the keys at the end
        await until(lambda: ui.help_scroll > 0)
        assert "Keys" in screen(ui) or "Ctrl-C" in screen(ui)
        keys.send_text("q")
        await until(lambda: ui.overlay is None)
        keys.send_text("say what?")  # with text on the line, '?' is just typed
        await until(lambda: ui.buffer.text == "say what?")
        assert ui.overlay is None

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_chat_goes_out_and_comes_in_without_control_characters() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text("say hi there" + ENTER)
        await until(lambda: node.chats == ["hi there"])
        await until(lambda: any("hi there" in text for _, text in ui.log))
        node.notices.put_nowait(Notice("chat", "gg\x1b[2J", {"seat": 2}))
        await until(lambda: any(text.startswith("<bot2> gg") for _, text in ui.log))
        assert all("\x1b" not in text for _, text in ui.log)
        assert "<bot2> gg\\x1b[2J" in screen(ui)  # shown as an inert escape, not acted on
        assert node.sent == []  # chatting is not a move

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_a_disconnected_peer_is_visible() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        node.down.add(2)
        node.notices.put_nowait(Notice("status", "bot2 (seat 2) disconnected", {"party": 2}))
        await until(lambda: any("disconnected" in text for _, text in ui.log))
        text = screen(ui)
        row = next(line for line in text.splitlines() if " 2 bot2" in line)
        assert "○" in row
        assert "⚠ bot2 (seat 2) is disconnected" in text
        node.down.clear()
        assert "⚠" not in screen(ui)

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_a_resumed_game_says_back_in_the_game_once() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        # the node of a game resumed from its log says so; a repeated notice adds no second line
        node.notices.put_nowait(Notice("started", "loveletter: a, b", {"resumed": True}))
        node.notices.put_nowait(Notice("started", "loveletter: a, b", {"resumed": True}))
        node.notices.put_nowait(Notice("info", "marker"))
        await until(lambda: any(text == "* marker" for _, text in ui.log))
        starts = [text for _, text in ui.log if "the game starts" in text or "back in the game" in text]
        assert starts == ["* the game starts — test table"], starts  # MemNode's own start came first

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_a_console_that_starts_on_a_resumed_game_says_so() -> None:
    ui = ConsoleUI(MemNode("loveletter", 4, seed=3))
    ui.handle(Notice("started", "loveletter: a, b", {"resumed": True}))
    assert [text for _, text in ui.log] == ["* back in the game — loveletter: a, b"]


def test_a_shuffle_in_progress_is_shown() -> None:
    table = build_table("loveletter", 4, seed=1, shuffle_rounds=1)
    for index, party in enumerate(table.parties):
        table._handle(index, party.start())
    me = table.parties[0]
    seen = []
    while table._queue:
        target, envelope = table._queue.popleft()
        table._handle(target, table.parties[target].receive(envelope))
        exp = me.table.expected()
        if exp and exp[1] == "shuffle" and me.table.step.writers != list(range(4)):
            seen.append(len(me.table.step.writers))
            break
    assert seen, "never saw a shuffle half done"

    class Frozen(MemNode):
        def __init__(self) -> None:
            super().__init__("loveletter", 4)
            self.party = me
            self.name = "bot0"

        def start(self) -> None:
            """Nothing moves: the table is frozen mid-shuffle."""

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        done = 4 - seen[0]
        assert ui.progress_words().startswith(f"shuffling {done}/4: ")
        assert f"waiting: shuffling {done}/4" in screen(ui)

    run_console(Frozen(), script)


class LobbyNode:
    """A node still in the lobby (no party yet)."""

    def __init__(self, bind_host: str = "0.0.0.0") -> None:
        from p2p.memtable import seeded_identity

        self.party = None
        self.bind_host = bind_host
        self.name = "ann"
        self.identity = seeded_identity("lobby")
        self.log_path = None
        self.notices: asyncio.Queue[Notice] = asyncio.Queue()
        self.on_decide: Any = None
        self.ended = False

    def connection_status(self) -> list[dict[str, Any]]:
        return []


def test_the_lobby_shows_seats_free_places_and_how_to_join() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: LobbyNode) -> None:
        node.notices.put_nowait(
            Notice("lobby", "", {"seats": ["ann"], "free": 3, "game": "loveletter", "port": 4242})
        )
        await until(lambda: ui.lobby_port == 4242)
        text = screen(ui)
        # this machine's LAN address (read off its interfaces), or a placeholder where it has none
        from fairdeck.console.addresses import join_addresses

        assert f"fairdeck join {join_addresses('0.0.0.0', 4242)[0]}" in text
        assert "seat 0  ann (you)" in text and "seat 3  (free)" in text
        assert "3 seats free" in text
        node.notices.put_nowait(Notice("lobby", "bob joined", {"seats": ["ann", "bob"], "free": 2}))
        await until(lambda: ui.lobby_free == 2)
        text = screen(ui)
        assert "seat 1  bob" in text and "* bob joined" in text and "seat 1  (free)" not in text
        keys.send_text("say hello" + ENTER)  # no party yet: nothing to send, nothing breaks
        await until(lambda: ui.buffer.text == "")

    ui = run_console(LobbyNode(), script)
    assert ui.names == ["ann", "bob"]


def test_a_lobby_bound_to_one_address_shows_that_address() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: LobbyNode) -> None:
        node.notices.put_nowait(Notice("lobby", "", {"seats": ["ann"], "free": 1, "port": 4242}))
        await until(lambda: ui.lobby_port == 4242)
        text = screen(ui)
        assert "fairdeck join 10.0.0.5:4242" in text and "this machine's address" not in text

    run_console(LobbyNode(bind_host="10.0.0.5"), script)


def test_the_opener_seats_a_bot_with_f2_in_the_lobby() -> None:
    added: list[int] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: LobbyNode) -> None:
        node.notices.put_nowait(
            Notice("lobby", "", {"seats": ["ann"], "free": 1, "game": "loveletter", "port": 4242})
        )
        await until(lambda: ui.lobby_free == 1)
        assert "F2 to seat a bot" in screen(ui)
        keys.send_text("\x1bOQ")  # F2
        await until(lambda: added == [1])
        node.notices.put_nowait(Notice("lobby", "bot joined", {"seats": ["ann", "bot-1"], "free": 0}))
        await until(lambda: ui.lobby_free == 0)
        assert "F2 to seat a bot" not in screen(ui)
        keys.send_text("\x1bOQ")  # no free seat: nothing more is started
        await asyncio.sleep(0.2)

    run_console(LobbyNode(), script, add_bot=lambda: added.append(len(added) + 1))
    assert added == [1]


def test_the_log_scrolls_back_with_page_up() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        while len(ui.log) < 60:  # far more than the screen holds
            await answer(ui, keys)
        last = ui.log[-1][1]
        rows = ui.plan().log_rows
        keys.send_text(PGUP)
        await until(lambda: ui.log_back > 0)
        text = screen(ui)
        shown = text.split("── log")[1].split("\n", 1)[1].split("──")[0]
        assert f"↓ {ui.log_back} newer: PgDn" in text and last not in shown
        assert ui.log_back == rows - 1  # a page: the first line of the last page is still in sight
        keys.send_text("\x1b[6~")  # PgDn
        await until(lambda: ui.log_back == 0)
        # every line can be reached: PgUp as often as it takes shows the very first one
        for _ in range(60):
            keys.send_text(PGUP)
        await until(lambda: ui.log[0][1][:20] in screen(ui))
        assert "earlier line" not in screen(ui).split("── log")[1].split("\n")[0]

    run_console(MemNode("loveletter", 4, seed=3), script)


# ---------------------------------------------------------------------------------------------
# Whole games, game over, leaving
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "seats", "options", "marker"),
    [
        ("loveletter", 4, None, "your turn: play a card"),
        ("regicide", 2, None, "your hand: "),
        ("rebelprincess", 4, {"rounds": 3}, "your hand: "),
    ],
)
def test_a_whole_game_is_played_by_keys_to_the_game_over_screen(
    game: str, seats: int, options: dict[str, Any] | None, marker: str
) -> None:
    screens: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        while not ui.over:
            await decision(ui)
            if ui.over:
                break
            screens.append(screen(ui))
            await answer(ui, keys)
        final = screen(ui)
        assert "══ Game over ══" in final and "Press Enter to leave" in final
        keys.send_text(ENTER)  # dismissing the game-over screen ends show_notices
        await until(lambda: not ui.app.is_running)

    ui = run_console(MemNode(game, seats, seed=2, options=options), script)
    assert ui.node.ended and ui.over
    assert any(marker in s for s in screens)
    assert all(len(s.splitlines()) <= 24 for s in screens)


def test_leaving_asks_first() -> None:
    quits = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text(CTRL_C)
        await until(lambda: ui.overlay == "quit")
        assert "Leave the table?" in screen(ui)
        keys.send_text("n")
        await until(lambda: ui.overlay is None)
        keys.send_text(CTRL_C + "y")
        await until(lambda: not ui.app.is_running)

    ui = run_console(MemNode("loveletter", 4, seed=3), script, on_quit=lambda: quits.append(1))
    assert quits == [1] and ui.quitting and ui.node.sent == []


def test_a_witness_sees_the_table_and_is_never_asked() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await until(lambda: ui.over)
        assert ui.decision is None
        text = screen(ui)
        assert "you: witness" in text and "══ Game over ══" in text
        assert "w witness0" in text  # the witness's own row
        keys.send_text(ENTER)
        await until(lambda: not ui.app.is_running)

    node = MemNode("regicide", 1, seed=1, person=1, witnesses=1)
    node.table.bots[0] = make_bot("regicide", "heuristic", 1)  # seat 0 plays; the witness watches
    run_console(node, script)


def test_refusals_evidence_and_news_from_the_node_reach_the_log() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        node.notices.put_nowait(Notice("rejected", "entry 40 from seat 2: bad signature"))
        node.notices.put_nowait(Notice("evidence", "seat 3 signed two different entries for seq 41"))
        node.notices.put_nowait(Notice("info", "resumed game.fdlog at entry 12"))
        await until(lambda: len([t for _, t in ui.log if t.startswith(("! ", "* resumed"))]) == 3)
        text = screen(ui)
        assert "! seat 3 signed two different entries for seq 41" in text
        styles = {text: style for style, text in ui.log}
        assert styles["! entry 40 from seat 2: bad signature"] == "class:error"
        assert styles["! seat 3 signed two different entries for seq 41"] == "class:error"
        assert "* resumed game.fdlog at entry 12" in styles

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_a_round_summary_stays_up_and_ends_with_the_line_that_ended_the_round() -> None:
    """The summary is read from the replica, which runs ahead of the log lines the console has
    shown: its "how the round ended" lines must still end with the round's last line, not with
    whatever line the log had reached when the round's end was first seen."""
    summaries: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        while not ui.over and len(summaries) < 3:
            await until(lambda: ui.over or ui.summary is not None or ui.decision is not None)
            await until(node.notices.empty)  # the console has shown every notice so far
            if ui.summary is not None:
                shot = screen(ui)
                summaries.append(shot)
                assert ui.decision is None or "Press Enter to go on." in shot  # it covers the menu
                keys.send_text(ENTER)
                await until(lambda s=shot: ui.summary is None or screen(ui) != s)
            elif ui.decision is not None:
                await answer(ui, keys)

    run_console(MemNode("loveletter", 4, seed=5), script, round_summaries=True)
    assert len(summaries) >= 2
    for shot in summaries:
        assert "Press Enter to go on." in shot
        heading = re.search(r"Round (\d+) is over", shot)
        assert heading is not None, shot
        tail = shot.split("How the round ended:")[1].split("\n>")[0]
        ended = f"wins round {heading.group(1)}"
        assert ended in tail, shot
        # the title names the round summarised (the table may be in the next one already)
        assert f" · round {heading.group(1)} over · " in shot.splitlines()[0], shot.splitlines()[0]
        assert not re.search(r"^ {4}\S", tail.split(ended)[1], re.MULTILINE), shot  # no line after it


def test_a_summary_up_when_the_game_ends_stays_until_dismissed_then_the_end_shows() -> None:
    """The game ends while a round's summary is up (a real node's console can show a round's end
    before the entries that end the game arrive): the summary stays until dismissed, and the Enter
    meant for it shows the game-over screen instead of leaving it (which it used to do)."""
    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        while ui.summary is None:
            await until(lambda: ui.summary is not None or ui.decision is not None)
            await until(node.notices.empty)
            if ui.summary is None:
                await answer(ui, keys)
        node.notices.put_nowait(Notice("ended", "abandoned"))  # the game ends meanwhile
        await until(lambda: ui.over)
        seen["summary"] = screen(ui)
        keys.send_text(ENTER)
        await until(lambda: "══ Game over ══" in screen(ui))
        seen["over"] = screen(ui)
        assert ui.app.is_running  # still there: only the next Enter leaves

    run_console(MemNode("loveletter", 4, seed=5), script, round_summaries=True)
    assert "Press Enter to go on." in seen["summary"] and "══ Game over ══" not in seen["summary"]
    assert "Press Enter to leave" in seen["over"]


def test_every_decision_shows_what_its_cards_do_even_when_the_hand_is_drawn_short() -> None:
    """At 80x24 a long log leaves the hand one short line without its cards' effects: the line
    under the input then says what the highlighted move's card does, from the first moment the
    decision is shown (it used to keep the turn hint there until the person moved the cursor)."""
    short = full = 0

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        nonlocal short, full
        while not ui.over:
            await decision(ui)
            if ui.over:
                break
            text = screen(ui)
            hand = [node.party.known_faces()[r] for r in node.party.table.state.hands[0]]
            effects = [node.party.table.game.card_text(f).split(": ", 1)[1] for f in hand]
            if ui.plan().compact_hand:
                short += 1
                assert "about: " in text and "choose a move" not in text, text
            else:
                full += 1
                assert all(e.split()[0] in text for e in effects), text
            await answer(ui, keys)

    run_console(MemNode("loveletter", 4, seed=4), script)
    assert short >= 1  # the case this test is about came up


def test_each_decision_rings_once_even_when_it_comes_while_the_last_move_is_sent() -> None:
    """At an in-memory table the person's next decision arrives while the last move is still being
    sent: it must be shown once (one bell, one "your turn" title), not dropped and built again."""
    terminal = _Terminal()
    shown: list[int] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        for _ in range(4):
            await decision(ui)
            if ui.over:
                break
            shown.append(ui.decision.step)
            await answer(ui, keys)
        if ui.decision is not None:
            shown.append(ui.decision.step)

    run_console(MemNode("loveletter", 2, seed=6), script, output=terminal)
    assert len(shown) >= 3
    assert terminal.bells == len(shown)
    assert terminal.titles.count("fairdeck — your turn") == len(shown)


def test_forced_answers_go_without_a_key_even_when_they_come_while_a_move_is_sent() -> None:
    """"Answer the Guard" and the like have one honest answer: the console sends it by itself. At
    an in-memory table such a question comes while the person's last move is still being sent
    (the table plays on inside it); it must still go without a key, once."""
    automatic = presentation(build_table("loveletter", 4, seed=0).parties[0].table.game).automatic
    pressed = 0

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        nonlocal pressed
        while not ui.over:
            # a forced question never waits for a key: only free choices come here
            await until(lambda: ui.over or (ui.decision is not None and not ui.sending))
            if ui.over:
                break
            assert ui.decision is not None and ui.decision.prompt not in automatic, ui.decision
            pressed += 1
            await answer(ui, keys)

    ui = run_console(MemNode("loveletter", 4, seed=11), script, answer_forced=True)
    answered = [text for _, text in ui.log if text.endswith(f"({ANSWERED_WORDS})")]
    # said once: on the table's own line for the answer, never on a line of its own as well
    assert not [text for _, text in ui.log if text.startswith("(answered for you")]
    assert all("(you)" in text for text in answered), answered
    assert ui.node.ended and pressed >= 3
    assert answered, "no forced answer came up: the test would prove nothing"
    # every move the person's node sent was either chosen by a key or a forced answer, sent once
    assert len(ui.node.sent) == pressed + len(answered)


def test_a_round_finished_while_its_summary_waits_is_kept_and_says_how_you_went_out() -> None:
    """Bots can finish a round without the person (knocked out before their turn): a new round's
    summary goes on top of the one still up, which stays until Enter; and the summary says how the
    person went out when that was earlier than its last lines."""
    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        ui.add_log("", "seat 1 (bot) plays the Baron on seat 0 (you); the card is shown face up")
        ui.add_log("", "seat 0 (you) discards the Guard and is out of the round")
        for n in range(6):
            ui.add_log("", f"seat 2 (bot) draws a card ({n} left in the pile)")
        ui.add_log("", "seat 2 (bot) discards the Princess and is out of the round — seat 1 (bot) wins round 3")  # noqa: E501
        ui.show_summary([("", "Round 3 is over.")])
        seen["first"] = screen_text(ui.app, 120, 40)
        ui.add_log("", "seat 3 (bot) plays the Guard on seat 1 (bot), guessing the Priest")
        ui.add_log("", "seat 1 (bot) discards the Priest and is out of the round — seat 3 (bot) wins round 4")
        ui.show_summary([("", "Round 4 is over.")])
        seen["both"] = screen_text(ui.app, 120, 40)
        keys.send_text(ENTER)
        await until(lambda: ui.summary is None)

    run_console(MemNode("loveletter", 4, seed=5), script)
    first = seen["first"]
    assert "How you went out:" in first and "seat 0 (you) discards the Guard" in first, first
    assert first.index("How you went out:") < first.index("How the round ended:"), first
    both = seen["both"]
    assert "Round 4 is over." in both and "Round 3 is over." in both, both
    assert both.index("Round 4 is over.") < both.index("Round 3 is over."), both  # the newest first
    assert "seat 3 (bot) wins round 4" in both and "seat 1 (bot) wins round 3" in both, both
    newest = both.split("Round 3 is over.")[0]
    assert "draws a card" not in newest, both  # round 4's lines are its own, none of round 3's


def test_a_node_that_stops_mid_game_shows_why_and_names_no_winner() -> None:
    """A node that stopped on its own (a failed write, a close it took on itself, a resume nobody
    answered) ends its console with its reason, never a game-over screen: "nobody win." was shown."""
    seen: dict[str, str] = {}
    why = "nobody at the table answered in 20 s; stopped without writing anything"

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await until(lambda: ui.decision is not None)
        node.failure = why
        node.notices.put_nowait(Notice("ended", f"stopped: {why}", {"failure": why}))
        await until(lambda: "Stopped" in screen(ui))
        seen["over"] = screen(ui)
        keys.send_text(ENTER)

    run_console(MemNode("loveletter", 4, seed=5), script)
    shot = seen["over"]
    assert "Stopped: the game is not over" in shot and "nobody at the table answered" in shot
    assert "nobody win" not in shot and "You win" not in shot, shot
    assert "Game over" not in shot
