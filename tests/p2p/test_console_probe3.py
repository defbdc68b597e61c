"""Fixes from the third newcomer trial, driven by keys through prompt-toolkit's pipe input (and,
for the plain interface, lines): the Princess asked about before she is played, a terminal too small
to show the table holding the moves, Esc clearing at once, an answer sent for the person never
shown as their choice, the too-small message wrapped at word boundaries."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from prompt_toolkit.input import PipeInput

from fairdeck.console import ConsoleUI, screen_text
from fairdeck.console.app import TOO_SMALL_HINT
from fairdeck.console.moves import ANSWERED_WORDS
from tests.p2p.test_console import ENTER, ESC, decision, offered, run_console, screen, until
from tests.p2p.test_console_support import MemNode, ask_plain

PRINCESS = "plays the Princess (you are out of the round)"


def _is_princess(option: Any) -> bool:
    return option.move.get("face") == "princess"


# ---------------------------------------------------------------------------------------------
# The Princess (#10)
# ---------------------------------------------------------------------------------------------


def test_the_princess_is_listed_last_says_you_go_out_and_is_asked_about_first() -> None:
    seen: dict[str, Any] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        princess = await offered(ui, keys, _is_princess)
        assert ui.decision is not None
        seen["options"] = [o.words for o in ui.decision.options]
        sent = len(node.sent)
        keys.send_text(f"{princess.number}{ENTER}")
        await until(lambda: ui.overlay == "confirm")
        seen["box"] = screen(ui)
        keys.send_text("n")
        await until(lambda: ui.overlay is None)
        await asyncio.sleep(0.05)
        seen["unsent"] = len(node.sent) == sent
        keys.send_text(f"play princess{ENTER}")  # typed words are asked about too
        await until(lambda: ui.overlay == "confirm")
        keys.send_text("y")
        await until(lambda: len(node.sent) > sent)
        seen["played"] = node.sent[sent]

    run_console(MemNode("loveletter", 2, seed=2), script)
    options = seen["options"]
    assert options[-1] == PRINCESS, options  # last, and saying what it costs
    assert "Are you sure?" in seen["box"] and PRINCESS in seen["box"], seen["box"]
    assert "y play it" in seen["box"], seen["box"]
    assert seen["unsent"], "n must not send the Princess"
    assert seen["played"]["face"] == "princess"


def _princess_node() -> MemNode:
    """A table whose person (seat 0) is to play holding the Princess (first moves otherwise)."""
    for seed in range(30):
        node = MemNode("loveletter", 2, seed=seed)
        node.start()
        for _ in range(200):
            if node.ended or node.party.waiting_for_me() is None:
                break
            moves = node.party.legal_moves()
            if any(m.get("face") == "princess" for m in moves):
                return node
            move = next(m for m in moves if m.get("face") != "princess")
            asyncio.run(node.decide(move))
    raise AssertionError("no Princess came up")


def test_plain_mode_asks_before_playing_the_princess() -> None:
    node = _princess_node()
    moves = node.party.legal_moves()
    number = None
    lines = ask_plain(node, "play", moves, ["table"])
    listed = [line for line in lines if re.match(r"\s+\d+\. ", line)]
    assert listed[-1].endswith(PRINCESS), listed
    number = listed[-1].split(".")[0].strip()
    # "n" (or anything but y) keeps the move unsent; then the input closes
    lines = ask_plain(node, "play", moves, [number, "n"])
    assert any("this move is allowed, but you are out of the round" in line for line in lines), lines
    assert any("play it? [y/N]" in line for line in lines), lines
    assert any("not played" in line for line in lines), lines
    assert not node.sent or node.sent[-1].get("face") != "princess"
    ask_plain(node, "play", moves, [number, "y"])
    assert node.sent[-1]["face"] == "princess"


# ---------------------------------------------------------------------------------------------
# A terminal too small for the table (#30, #16)
# ---------------------------------------------------------------------------------------------


def test_a_terminal_too_small_holds_the_moves_and_its_message_wraps_at_words() -> None:
    seen: dict[str, Any] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        sent = len(node.sent)
        ui.app.fixed_size = (40, 12)  # type: ignore[attr-defined]
        seen["small"] = screen_text(ui.app, 40, 12)
        keys.send_text(f"1{ENTER}")
        await until(lambda: ui.message[1] == TOO_SMALL_HINT)
        await asyncio.sleep(0.05)
        seen["held"] = len(node.sent) == sent
        seen["after"] = screen_text(ui.app, 40, 12)
        ui.app.fixed_size = (80, 24)  # type: ignore[attr-defined]
        keys.send_text(ENTER)  # the "1" typed is still there: at a size that shows the table it plays
        await until(lambda: len(node.sent) > sent)

    run_console(MemNode("loveletter", 4, seed=4), script)
    assert seen["held"], "a move was played while the table could not be shown"
    small = seen["small"]
    assert "your turn: choose a move" not in small, small
    assert TOO_SMALL_HINT in small, small
    words = " ".join(small.split())  # every line's words, joined: a word cut in two shows here
    assert "The terminal is too small for this table." in words, small
    assert "It is 40×12; this game needs at least" in words, small
    for line in small.splitlines():
        assert len(line) <= 40, line


# ---------------------------------------------------------------------------------------------
# Esc (#13)
# ---------------------------------------------------------------------------------------------


def test_escape_clears_at_once_and_a_digit_after_it_is_typed() -> None:
    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text("x" + ESC + "5h")  # as fast as tmux send-keys types them
        await until(lambda: "h" in ui.buffer.text)
        await asyncio.sleep(0.1)
        seen["text"] = ui.buffer.text

    run_console(MemNode("regicide", 1), script)
    assert seen["text"] == "5h", seen  # not "xhhhhh": Esc cleared, and 5 was no repeat count


# ---------------------------------------------------------------------------------------------
# An answer given for the person (#27)
# ---------------------------------------------------------------------------------------------


def test_an_answer_sent_for_the_person_is_not_shown_as_their_choice() -> None:
    """A real node's decision stays the one answered while the move goes out: the message line
    then said "you chose: hit — …" for an answer the console gave by itself."""
    seen: dict[str, Any] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        assert ui.decision is not None
        option = ui.decision.options[0]

        async def sent(move: dict[str, Any]) -> None:  # accepted; the others answer later
            node.sent.append(move)
            node.party.decide(move)

        node.decide = sent  # type: ignore[method-assign]
        await ui._send(option, automatic=True)
        seen["message"], seen["words"] = ui.message[1], option.words

    run_console(MemNode("loveletter", 4, seed=11), script)
    assert seen["message"] == f"{ANSWERED_WORDS}: {seen['words']}", seen


# ---------------------------------------------------------------------------------------------
# The replay viewer's verdict (#7)
# ---------------------------------------------------------------------------------------------


def test_the_viewer_says_clean_so_far_for_an_unfinished_game(tmp_path: Any) -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from fairdeck.viewer import Viewer
    from p2p.memtable import build_table
    from replay.audit import audit_path
    from replay.replay import replay_log

    table = build_table("loveletter", 2, seed=5, shuffle_rounds=1, log_dir=tmp_path)
    table.run(max_deliveries=50)  # stopped mid-game, as when a player leaves
    table.close()
    path = tmp_path / "seat0.fdlog"
    report = audit_path(path)
    assert report.verdict == "clean" and not report.finished
    assert "VERDICT: CLEAN SO FAR" in report.text()
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = Viewer(replay_log(path), path, audit=lambda p: report)
        viewer.report = report
        title = "".join(text for _, text in viewer._title())
    assert title.rstrip().endswith("audit: CLEAN SO FAR"), title


# ---------------------------------------------------------------------------------------------
# Regicide's defeats and a solo game's end (#17)
# ---------------------------------------------------------------------------------------------


def test_a_regicide_defeat_is_not_said_as_one_plays_damage_and_a_solo_game_is_yours() -> None:
    from engine.core import Decide
    from engine.dealer import play_trusted
    from engine.games import make_bot, make_game
    from engine.present import TableView, presentation
    from fairdeck.commands import _result_text
    from fairdeck.console.table import result_lines

    game = make_game("regicide", 2)
    states: list[Any] = []
    play_trusted(
        game,
        [make_bot("regicide", "heuristic", i) for i in range(2)],
        7,
        on_event=lambda state, event: states.append(state),
    )
    said: list[str] = []
    for before, after in zip(states, states[1:], strict=False):
        view = TableView(game, after, 0, {})
        said += presentation(game).consequences(before, after, view)
    defeats = [line for line in said if " is defeated (" in line]
    assert defeats, "no enemy was defeated"
    assert not [line for line in defeats if "more than its" in line], defeats
    assert any("health is used up, with damage to spare" in line for line in defeats), defeats

    node = MemNode("regicide", 1, seed=1)
    node.start()
    bot = make_bot("regicide", "heuristic", "solo")
    for _ in range(2000):
        prompt = node.party.waiting_for_me()
        if node.ended or prompt is None:
            break
        table = node.party.table
        move = bot.choose(table.game, table.state, 0, node.party.known_faces(), prompt)
        asyncio.run(node.decide(move))
    assert node.ended
    table = node.party.table
    assert isinstance(table.game.pending(table.state), Decide) is False
    outcome = table.game.result(table.state)["outcome"]
    assert _result_text(node).startswith(f"Game over — you {outcome}"), _result_text(node)
    view = TableView(table.game, table.state, 0, node.party.known_faces(), ["solo"], ended="over")
    words = "".join(text for _, text in result_lines(view))
    assert f"You have {outcome}" in words and "The table has" not in words, words
    # the log's line at the end of a solo game says "you have lost", not "the players have"
    solo = make_game("regicide", 1)
    states = []
    run = play_trusted(
        solo, [make_bot("regicide", "heuristic", 0)], 3, on_event=lambda state, event: states.append(state)
    )
    view = TableView(solo, run.final, 0, {})
    (ending,) = [
        line for line in presentation(solo).consequences(states[-1], run.final, view) if " have " in line
    ]
    assert ending.startswith(f"you have {solo.result(run.final)['outcome']}"), ending


# ---------------------------------------------------------------------------------------------
# Refusals explained (#15, #12)
# ---------------------------------------------------------------------------------------------


def test_a_regicide_combo_over_ten_is_refused_with_the_rule_in_either_order() -> None:
    from fairdeck.console import moves as mv
    from tests.engine.test_regicide_rules import Table as RegicideTable

    table = RegicideTable(2, hands=[["8H", "8C", "3S"], ["2D"]], enemy="JS")
    faces = table.own(0)
    legal = table.game.legal_moves(table.state, 0, faces)
    _, options = mv.word_moves(table.game, table.state, 0, faces, legal, ["ann", "bob"])
    for typed in ("play 8h 8c", "play 8c 8h", "8c 8h"):
        said = mv.explain_refusal(typed, table.game, table.state, 0, faces, options, ["ann", "bob"], "play")
        assert said.startswith("not allowed: ") and "10" in said, (typed, said)


def test_plain_mode_says_which_card_you_do_not_hold() -> None:
    node = MemNode("loveletter", 4, seed=3)
    node.start()
    faces = node.party.known_faces()
    held = {faces.get(r) for r in node.party.table.state.hands[0]}
    moves = node.party.legal_moves()
    missing = next(f for f in ("guard", "priest", "baron", "handmaid", "king") if f not in held)
    lines = ask_plain(node, "play", moves, [f"play {missing} 1"])
    assert any(line.startswith(f"  you hold no {missing.capitalize()}") for line in lines), lines
    assert node.sent == []


# ---------------------------------------------------------------------------------------------
# The plain interface: what a play caused, and leaving asked first (#24)
# ---------------------------------------------------------------------------------------------


def test_plain_mode_says_the_damage_a_regicide_play_dealt() -> None:
    import io

    from fairdeck.plainui import PlainUI

    node = MemNode("regicide", 2, seed=3)
    out = io.StringIO()
    ui = PlainUI(node, out, read_line=lambda: "")
    node.on_decide = None
    node.start()
    for _ in range(6):  # the person plays their first card each turn; the bot plays on
        while not node.notices.empty():
            ui.show(node.notices.get_nowait())
        if node.ended or node.party.waiting_for_me() is None:
            break
        asyncio.run(node.decide(node.party.legal_moves()[0]))
    while not node.notices.empty():
        ui.show(node.notices.get_nowait())
    lines = out.getvalue().splitlines()
    damage = [line for line in lines if line.startswith("→ the ") and " damage" in line]
    assert damage, lines
    assert all(re.search(r"health \d+/\d+$", line) or "defeated" in line for line in damage), damage


def test_plain_mode_asks_before_leaving() -> None:
    node = MemNode("loveletter", 4, seed=5)
    node.start()
    moves = node.party.legal_moves()
    lines = ask_plain(node, "play", moves, ["quit", "n", "table"])
    assert "  leave the table? [y/N]" in lines, lines
    assert any("`fairdeck resume` brings you back" in line for line in lines), lines
    assert any(line.startswith("  staying") for line in lines), lines
    assert sum(line.startswith("now:") for line in lines) == 2  # still asked: the table again


# ---------------------------------------------------------------------------------------------
# The help screen (#23)
# ---------------------------------------------------------------------------------------------


def test_cards_that_do_the_same_are_one_help_line_and_end_reaches_the_helps_end() -> None:
    from engine.games import make_game
    from fairdeck.console.help import help_entries
    from tests.p2p.test_console import F1

    cards = [head for style, head, _ in help_entries(make_game("rebelprincess", 4)) if style == "class:card"]
    assert sum("Fairy" in head for head in cards) == 1, cards  # not one line per suit card (40 of them)
    assert any(head.startswith("Prince 1, Prince 2, ") for head in cards), cards
    seen: dict[str, Any] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        keys.send_text(F1)
        await until(lambda: ui.overlay == "help")
        screen(ui)  # (drawn once: the help knows its length)
        keys.send_text("\x1b[F")  # End
        await until(lambda: ui.help_scroll > 0)
        seen["end"] = screen(ui)
        keys.send_text("\x1b[H")  # Home
        await until(lambda: ui.help_scroll == 0)

    run_console(MemNode("rebelprincess", 4, seed=3), script)
    assert "closes this help" in seen["end"], seen["end"]


def test_plain_mode_says_whose_turn_it_is_once() -> None:
    """A Regicide table in ``--plain`` said both "Your turn to play" and "now: you to play"."""
    node = MemNode("regicide", 2, seed=3)
    node.start()
    lines = ask_plain(node, "play", node.party.legal_moves(), [])
    assert "now: you to play" in lines, lines
    assert not [line for line in lines if line.lower().startswith("your turn to")], lines
