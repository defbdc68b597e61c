"""What a newcomer's trial of the console found (each test fails without its fix): words a card
player reads wrongly or never sees whole, at 80 columns as at 120."""

from __future__ import annotations

from typing import Any

from engine.dealer import play_trusted
from engine.games import make_bot, make_game
from engine.present import TableView, presentation

BOT_NAMES = ["ann", "bot-1, run by ann", "bot-2, run by ann", "bot-3, run by ann"]


def _love_letter_states(seed: int = 3) -> tuple[Any, list[Any]]:
    game = make_game("loveletter", 4)
    run = play_trusted(game, [make_bot("loveletter", "heuristic", seat) for seat in range(4)], seed)
    return game, run.states


def test_a_rounds_tokens_line_keeps_names_with_commas_apart_from_the_numbers() -> None:
    """"Tokens: ann 1, bot-1, run by ann 3, ..." read as one name running into the next."""
    game, states = _love_letter_states()
    lines = {
        presentation(game).round_line(TableView(game, state, 0, {}, BOT_NAMES)) for state in states
    } - {""}
    assert lines
    for line in lines:
        assert "Tokens: ann: " in line and " · bot-1, run by ann: " in line, line
        assert "run by ann 1" not in line and "run by ann 0" not in line, line


def test_a_showdown_is_one_line_of_the_log_not_one_per_hand() -> None:
    """An entry's lines are joined by "; ", so a showdown listing its hands with "; " came apart:
    "…showdown: seat 0 (you) Princess" and, as if another event, "seat 2 (bot-2) King — …"."""
    from engine.loveletter.text import describe
    from engine.present import quiet_parts

    showdowns = []
    for seed in range(4):
        game = make_game("loveletter", 4)
        run = play_trusted(game, [make_bot("loveletter", "heuristic", s) for s in range(4)], seed)
        for before, event in zip(run.states, run.history, strict=False):
            text = describe(game, before, event)
            if "showdown" in text:
                showdowns.append(text)
                parts = quiet_parts(text, presentation(game).noise)
                assert len(parts) == 1 and "wins round" in parts[0], parts
    assert any(" · seat " in text for text in showdowns), showdowns


def test_leaving_a_solo_game_says_its_witness_stops_not_bots() -> None:
    """`play regicide --solo` runs a witness, not bots: the question before leaving said "your
    bots stop with you" (the line printed after leaving said "your witness")."""
    import asyncio

    from fairdeck.console import ConsoleUI
    from tests.p2p.test_console import CTRL_C, decision, run_console, screen, until
    from tests.p2p.test_console_support import MemNode

    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: Any, node: Any) -> None:
        await decision(ui)
        ui.leaving_ends_game = lambda: True  # (as `fairdeck play` says of its own helpers)
        keys.send_text(CTRL_C)
        await until(lambda: ui.overlay == "quit")
        await asyncio.sleep(0.05)
        seen["box"] = screen(ui)
        keys.send_text("n")

    node = MemNode("regicide", 1, witnesses=1)
    run_console(node, script)
    box = " ".join(seen["box"].split())
    assert "your witness stops with you" in box and "bots" not in box, seen["box"]

    import io

    from fairdeck.plainui import PlainUI

    out = io.StringIO()
    replies = iter(["quit", "n"])

    def read_line() -> str:
        line = next(replies, None)
        if line is None:
            raise EOFError
        return line

    plain = PlainUI(MemNode("regicide", 1, witnesses=1), out, read_line=read_line)
    plain.leaving_ends_game = lambda: True
    asyncio.run(plain.on_decide("play", []))
    said = out.getvalue()
    assert "your witness stops with you" in said and "bots" not in said, said


def test_regicide_says_the_card_is_revealed_for_one_card() -> None:
    from engine.regicide.text import describe

    game = make_game("regicide", 2)
    run = play_trusted(game, [make_bot("regicide", "heuristic", s) for s in range(2)], 1)
    said = [describe(game, before, event) for before, event in zip(run.states, run.history, strict=False)]
    reveals = [line for line in said if " revealed: " in line and "enemy" not in line]
    singles = [line for line in reveals if "," not in line.partition(": ")[2]]
    assert singles and all(line.startswith("the card is revealed: ") for line in singles), singles
    assert all(line.startswith("the cards are revealed: ") for line in reveals if line not in singles)


def test_a_guard_guessing_the_guard_is_refused_for_that_in_words() -> None:
    """ "play guard guard" was refused as "the Guard needs a target: one of seats [1, 2, 3]" (a
    Python list, and not what was wrong)."""
    from tests.engine.loveletter_support import Table
    from tests.p2p.test_console_refusals import _refusal

    table = Table.build(4, [["guard", "handmaid"], ["baron"], ["king"], ["prince"]], ["priest"] * 2)
    faces = table.dealer.known_to(0)
    for typed in ("play guard guard", "guard guard"):
        text = _refusal(typed, table.game, table.state, faces, "play")
        assert text == "not allowed: the Guard cannot name the Guard", (typed, text)
    assert _refusal("play handmaid 1", table.game, table.state, faces, "play") == (
        "not allowed: the Handmaid takes no target"
    )


def test_the_title_keeps_its_keys_whole_at_80_columns() -> None:
    """" fairdeck · rebelprincess · round 1 · you: seat 0 (tester)  F1 help · Ctrl-C le": the
    way to leave was cut off at 80 columns."""
    from fairdeck.console import ConsoleUI
    from tests.p2p.test_console import decision, run_console, screen
    from tests.p2p.test_console_support import MemNode

    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: Any, node: Any) -> None:
        await decision(ui)
        seen["screen"] = screen(ui)

    names = ["margaret-the-tester", "bob", "cy", "dee"]
    run_console(MemNode("rebelprincess", 4, names=names), script)
    title = seen["screen"].splitlines()[0]
    assert title.rstrip().endswith("F1 help · Ctrl-C leave") and "you: seat 0" in title, title
    assert len(title) <= 80


def test_a_summary_too_long_for_80x24_says_so_instead_of_stopping_mid_line() -> None:
    """At 80x24 a round's summary ended "... wins round 1 (tokens: seat 0 (you): 0," and
    nothing more: cut mid-sentence without a word."""
    from fairdeck.console import ConsoleUI, screen_text
    from tests.p2p.test_console import decision, run_console
    from tests.p2p.test_console_support import MemNode

    seen: dict[str, str] = {}

    async def script(ui: ConsoleUI, keys: Any, node: Any) -> None:
        await decision(ui)
        for n in range(4):
            ui.add_log("", f"seat 2 (bot-2, run by tester) plays the Prince on seat 3 (bot-3) {n}")
        tokens = ", ".join(f"seat {n} (bot-{n}, run by tester): 0" for n in range(4))
        ui.add_log("", f"seat 3 (bot-3) discards the Princess — seat 1 wins round 1 (tokens: {tokens})")
        ui.show_summary([("", f"Round 1 is over: seat 1 wins it.\n\n{'x' * 10}\n" * 4)])
        seen["screen"] = screen_text(ui.app, 80, 24)

    run_console(MemNode("loveletter", 4, seed=5), script)
    lines = [line for line in seen["screen"].splitlines() if line.strip()]
    assert "Press Enter to go on." in seen["screen"]
    assert any("more in the log once this is closed" in line for line in lines), seen["screen"]


def test_the_game_over_words_say_you_win_once_and_name_the_players_not_the_table() -> None:
    """"You win! (seat 0 (you))" said who won twice; a lost co-op game said "The table has lost"
    where the line printed after it says "the players lost"."""
    from fairdeck.console.table import result_lines

    game, states = _love_letter_states()
    final = states[-1]
    (winner,) = game.result(final)["winners"]
    view = TableView(game, final, winner, {}, BOT_NAMES, ended="over")
    words = "".join(text for _, text in result_lines(view))
    assert words.startswith("You win!\n") and "(you)" not in words.split("\n")[0], words
    coop = make_game("regicide", 2)
    run = play_trusted(coop, [make_bot("regicide", "random", s) for s in range(2)], 2)
    outcome = coop.result(run.final)["outcome"]
    words = "".join(text for _, text in result_lines(TableView(coop, run.final, 0, {}, ended="over")))
    assert f"The players have {outcome}." in words and "The table" not in words, words


def test_the_viewers_panes_fit_80x24_scroll_and_close_back_to_the_replay(tmp_path: Any) -> None:
    """The replay viewer's audit report and keys screen were cut at the screen's foot: at 80x24 a
    Rebel Princess audit never showed its VERDICT line, nor how to close the pane (which said
    "back to the game": there is no game there). The closing line now stays in sight, and the
    arrows scroll the pane."""
    import asyncio

    from fairdeck.viewer import Viewer
    from p2p.memtable import build_table
    from tests.p2p.test_console import until
    from tests.p2p.test_console_newcomer import _run_viewer, _screen

    table = build_table("loveletter", 2, seed=5, shuffle_rounds=1, log_dir=tmp_path)
    table.run()
    table.close()
    seen: dict[str, str] = {}

    class LongReport:
        verdict = "clean"

        def text(self) -> str:
            return "\n".join([f"  result line {n}" for n in range(60)] + ["VERDICT: CLEAN"])

    async def script(viewer: Viewer, keys: Any) -> None:
        viewer.app.fixed_size = (80, 24)  # type: ignore[attr-defined]  # (as the screens are drawn)
        keys.send_text("?")
        await until(lambda: viewer.show_keys)
        await asyncio.sleep(0.05)
        seen["keys"] = _screen(viewer)
        keys.send_text("q")  # (the pane closes; the viewer's own "q" follows)
        await until(lambda: not viewer.show_keys)
        await asyncio.sleep(0.3)  # (the stand-in audit has answered)
        viewer.report = LongReport()
        keys.send_text("a")
        await until(lambda: viewer.show_audit)
        await asyncio.sleep(0.05)
        seen["audit"] = _screen(viewer)
        keys.send_text("\x1b[F")  # End
        await asyncio.sleep(0.1)
        seen["end"] = _screen(viewer)
        keys.send_text("a")
        await until(lambda: not viewer.show_audit)

    _run_viewer(tmp_path / "seat0.fdlog", script)
    for name in ("keys", "audit", "end"):
        last = seen[name].rstrip().splitlines()[-1]
        assert "Esc or q: back to the replay" in last, (name, seen[name])
        assert "back to the game" not in seen[name]
    assert "scroll" in seen["audit"] and "VERDICT" not in seen["audit"], seen["audit"]
    assert "VERDICT: CLEAN" in seen["end"] and "result line 59" in seen["end"], seen["end"]
