"""A newcomer's trial (w21): what a first-time player met, each fixed and kept so.

The console is driven by keys through prompt-toolkit's pipe input at an in-memory table (see
``test_console.py``); the plain interface by typed lines; the command line by its own parser.

- ``--help`` printed paragraphs (a command's description, the game options) of 200 columns and
  more, which an 80-column terminal cut mid-word;
- ``fairdeck play love`` suggested nothing, and ``fairdeck play`` did not say which games there are;
- the replay viewer's keys screen broke the ``v`` entry in two (a ragged short line);
- the plain interface's hint ran past 80 columns, and its ``?`` listed Regicide's Jester twice;
- the game-over screen said ``a`` plays again, not that the next game then starts at once (with
  bots: at once) — it now says so under the keys;
- the waiting line spoke the protocol's words (``countersigning the table``, ``re-masking``);
- a Princess to choose was named with her power's title only: what she does is now in the log as
  the choice opens;
- a decision's title cut at 80 columns (``Yours go to seat 3 (bot-3, run…``) is said whole under
  the input.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput

from engine.present import presentation
from fairdeck.cli import GAME_NAMES, build_parser
from fairdeck.console import ConsoleUI
from fairdeck.console.app import AGAIN_WORDS, PROTOCOL_WORDS, TURN_HINT
from fairdeck.plainui import PLAIN_HINT
from fairdeck.viewer import KEYS_HELP, Viewer
from p2p.memtable import build_table
from tests.p2p.test_console import ENTER, answer, decision, play_to_the_end, run_console, screen, until
from tests.p2p.test_console_support import MemNode, ask_plain

WIDTH = 80


# -- the command line ----------------------------------------------------------------------------


def test_every_commands_help_fits_an_80_column_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))  # (what argparse wraps its own columns at)
    parser = build_parser()
    helps = {"fairdeck": parser.format_help()}
    helps.update({name: command.format_help() for name, command in parser.commands.items()})
    for name, text in helps.items():
        long = [line for line in text.splitlines() if len(line) > WIDTH]
        assert not long, (name, long)
    # the game options are all there, each whole (wrapped between options, never inside one)
    words = " ".join(helps["play"].split())
    for option in ("edition=classic,", "first_player=none", "mulan_frog=both,", "edition=deluxe"):
        assert option in words, option
    assert "a table for you alone is --solo." in words


@pytest.mark.parametrize(
    ("typed", "meant"), [("love", "loveletter"), ("rebel", "rebelprincess"), ("regi", "regicide")]
)
def test_the_start_of_a_games_name_is_suggested(
    typed: str, meant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["play", typed])
    assert stop.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and f"did you mean {meant}?" in said[0], said


def test_a_command_without_its_game_names_the_games(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("play", "host", "simulate"):
        with pytest.raises(SystemExit) as stop:
            build_parser().parse_args([command])
        assert stop.value.code == 2
        said = capsys.readouterr().err.strip()
        assert said.startswith(f"fairdeck {command}: which game? name one: "), said
        assert all(game in said for game in GAME_NAMES) and "required" not in said, said


# -- the replay viewer ---------------------------------------------------------------------------


def test_the_viewers_keys_screen_wraps_each_key_as_one_paragraph(tmp_path: Path) -> None:
    from tests.p2p.test_console_newcomer import _run_viewer, _screen

    assert all(key for key, _ in KEYS_HELP), "a key's words split over two entries"
    table = build_table("loveletter", 2, seed=5, shuffle_rounds=1, log_dir=tmp_path)
    table.run()
    table.close()
    seen: dict[str, str] = {}

    async def script(viewer: Viewer, keys: PipeInput) -> None:
        keys.send_text("?")
        await until(lambda: viewer.show_keys)
        await asyncio.sleep(0.05)
        seen["keys"] = _screen(viewer)
        keys.send_text("q")  # the keys screen closes (the viewer's own "q" follows)
        await until(lambda: not viewer.show_keys)

    _run_viewer(tmp_path / "seat0.fdlog", script)
    lines = seen["keys"].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  v "))
    entry = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 21):
            break
        entry.append(line)
    text = " ".join(" ".join(line.split()) for line in entry)
    assert "with --as KEYFILE, or opened from `fairdeck games`" in text, entry
    for line, after in zip(entry, entry[1:], strict=False):  # filled greedily: no short line
        assert len(line) + 1 + len(after.split()[0]) > WIDTH - 1, entry


# -- the plain interface -------------------------------------------------------------------------


def _first_plain_decision(game: str, seats: int, seed: int) -> MemNode:
    node = MemNode(game, seats, seed=seed)
    node.start()
    automatic = presentation(node.party.table.game).automatic
    while (prompt := node.party.waiting_for_me()) in automatic:
        asyncio.run(node.decide(node.party.legal_moves()[0]))
    assert prompt is not None
    return node


def test_the_plain_hint_fits_80_columns_and_says_how_to_leave() -> None:
    assert len(PLAIN_HINT) < WIDTH and "'quit'" in PLAIN_HINT and "'?'" in PLAIN_HINT
    node = _first_plain_decision("loveletter", 4, 1)
    lines = ask_plain(node, node.party.waiting_for_me() or "", node.party.legal_moves(), [])
    assert PLAIN_HINT in lines


def test_the_plain_help_says_each_card_once() -> None:
    node = _first_plain_decision("regicide", 2, 3)
    lines = ask_plain(node, node.party.waiting_for_me() or "", node.party.legal_moves(), ["?"])
    cards = lines[lines.index("  the cards:") + 1 :]
    cards = [line for line in cards if line.startswith("    ")]
    assert len(cards) == len(set(cards)), [c for c in cards if cards.count(c) > 1][:2]
    assert sum(line.startswith("    Jester") for line in cards) == 1, cards
    assert any(line.startswith("    Ace of Hearts") for line in cards)


# -- the console ---------------------------------------------------------------------------------


def test_the_game_over_screen_says_that_a_starts_the_next_game() -> None:
    shots: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        ui.offer_again = True
        await play_to_the_end(ui, keys)
        await asyncio.sleep(0.05)
        shots.append(screen(ui))
        keys.send_text(ENTER)
        await until(lambda: not ui.app.is_running)

    ui = run_console(MemNode("regicide", 2, seed=1), script)
    over = shots[0]
    assert "Press a to play again with the same players, Enter to leave" in over, over
    assert f"({AGAIN_WORDS})" in over, over
    assert all(len(line) <= WIDTH for line in over.splitlines())
    assert not ui.wants_again and asyncio.run(ui.again()) == "no"


def test_the_waiting_line_speaks_a_players_words() -> None:
    jargon = ("countersign", "key share", "reveal token", "commit", "re-mask", "publishing")
    for kind, words in PROTOCOL_WORDS.items():
        assert not any(j in words for j in jargon), (kind, words)

    table = build_table("loveletter", 4, seed=1, shuffle_rounds=1)
    for index, party in enumerate(table.parties):
        table._handle(index, party.start())
    me = table.parties[0]
    while table._queue:  # up to a shuffle half done
        target, envelope = table._queue.popleft()
        table._handle(target, table.parties[target].receive(envelope))
        expected = me.table.expected()
        if expected and expected[1] == "shuffle" and me.table.step.writers != list(range(4)):
            break
    else:
        raise AssertionError("never saw a shuffle half done")

    class Frozen(MemNode):
        def __init__(self) -> None:
            super().__init__("loveletter", 4)
            self.party = me
            self.name = "bot0"

        def start(self) -> None:
            """Nothing moves: the table is frozen mid-shuffle."""

    seen: list[str] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        seen.append(screen(ui))

    run_console(Frozen(), script)
    assert "is mixing the cards" in seen[0] and "re-masking" not in seen[0], seen[0]


def test_a_princess_to_choose_is_explained_as_the_choice_opens() -> None:
    seen: dict[str, Any] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        await asyncio.sleep(0.05)
        game = node.party.table.game
        faces = [f for option in ui.decision.options for f in option.faces]
        seen["texts"] = [game.card_text(f) for f in dict.fromkeys(faces)]
        seen["log"] = [text for _, text in ui.log]
        seen["screen"] = screen(ui)

    run_console(MemNode("rebelprincess", 4, seed=5), script)
    texts = seen["texts"]
    assert len(texts) == 2 and all(" - " in t for t in texts), texts  # two Princesses: name - power
    for text in texts:
        assert f"about {text}" in seen["log"], (text, seen["log"][-6:])
    first = texts[0].split(":")[0]  # ``Thumbelina - Ignorance is Bliss (when she plays a card, ...``
    assert f"about {first[:30]}" in seen["screen"], seen["screen"]


def test_a_hands_cards_are_not_explained_twice() -> None:
    """A Love Letter decision plays cards of the hand, whose texts the hand shows already."""
    seen: list[list[str]] = []

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        seen.append([text for _, text in ui.log])

    run_console(MemNode("loveletter", 4, seed=2), script)
    assert not any(text.startswith("about ") for text in seen[0]), seen[0]


class _Timed(MemNode):
    """A stand-in node whose decisions have a deadline, as a real table's have (the rule over the
    moves then ends in `` · 4:57 left``)."""

    def own_deadline(self) -> float:
        return 297.0


def test_a_title_cut_over_the_moves_is_said_whole_under_the_input() -> None:
    """``fairdeck play rebelprincess --bots 3`` at 80x24: the pass's title names the neighbour the
    cards go to, and did not fit beside the countdown (``Yours go to seat 3 (bot-3, run…``)."""
    names = ["tester", "bot-1, run by tester", "bot-2, run by tester", "bot-3, run by tester"]
    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        while not ui.over and ui.decision.prompt != "pass":  # the Princess first, then the pass
            await answer(ui, keys)
        await asyncio.sleep(0.05)
        seen["title"], seen["screen"] = ui._title_cut(), screen(ui)

    run_console(_Timed("rebelprincess", 4, seed=3, names=names), script)
    title, shown = seen["title"], seen["screen"]
    assert title == "Everyone passes (pass 3 right). Yours go to seat 3 (bot-3, run by tester).", shown
    lines = shown.splitlines()
    rule = next(line for line in lines if line.startswith("── Everyone passes"))
    assert "…" in rule and rule.rstrip("─ ").endswith("4:57 left"), rule  # cut over the moves ...
    assert lines[-1] == title, lines[-1]  # ... and said whole under the input
    assert TURN_HINT not in shown


def test_a_move_too_long_for_the_line_is_cut_with_a_mark() -> None:
    """Mulan's choice (``keep Mulan: Camouflage (after the last card of a trick, before it is
    resolved)``) ran off the 80th column mid-word (``before it is resol``), unmarked."""
    seen: dict[str, Any] = {}

    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        await asyncio.sleep(0.05)
        seen["words"] = [option.words for option in ui.decision.options]
        seen["screen"] = screen(ui)

    run_console(MemNode("rebelprincess", 4, seed=8), script)
    (mulan,) = [words for words in seen["words"] if words.startswith("keep Mulan")]
    assert len(mulan) + 6 > WIDTH  # (the test proves something: the move is too long for a line)
    (line,) = [line for line in seen["screen"].splitlines() if "keep Mulan" in line]
    assert line.endswith("…") and len(line) < WIDTH and line[:-1].strip() in f"▶  1  {mulan}", line
    assert "about Mulan - Camouflage" in seen["screen"]  # what she does, whole, in the log
