"""The line-oriented interface (``--plain``) words its moves as the console does.

It answers a question with one honest answer by itself, in one line; the example under the first
list of moves is one that picks a move; ``?`` tells the commands and how to quit, then the cards.

A secret choice is described the same to the table whatever it is ("Everyone secretly keeps one of
their two Princesses."), so the plain list must tell the options apart by their cards, and the
number typed must send the move that was printed under it.
"""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import pytest

from engine.present import presentation
from engine.rebelprincess.princesses import BY_KEY
from fairdeck.commands import LEFT_WORDS
from fairdeck.console.moves import ANSWERED_WORDS, MoveOption, forced_option, word_moves
from fairdeck.plainui import PLAIN_HINT, PlainUI
from tests.p2p.test_console_support import MemNode, ask_plain


def _ask(node: MemNode, answers: list[str]) -> list[str]:
    out = io.StringIO()
    replies = iter(answers)
    ui = PlainUI(node, out, read_line=lambda: next(replies))  # type: ignore[arg-type]
    node.on_decide = None  # the stand-in node would call it without awaiting: asked below instead

    async def main() -> None:
        node.start()
        assert node.party.waiting_for_me() is not None
        await ui.on_decide("princess", node.party.legal_moves())

    asyncio.run(main())
    return out.getvalue().splitlines()


def test_a_secret_choice_is_listed_by_its_cards_and_the_number_sends_that_move() -> None:
    node = MemNode("rebelprincess", 4, seed=5)
    lines = _ask(node, ["3", "2"])  # 3 is out of range: refused, asked again
    assert "Everyone secretly keeps one of their two Princesses." in lines
    seats = [line for line in lines if line.startswith("seats: ")]  # who sits where, said once
    assert len(seats) == 1 and f"seat {node.party.seat} (you)" in seats[0], lines
    listed = [line for line in lines if line.startswith(("   1. ", "   2. "))]
    assert len(listed) == 2 and len(set(listed)) == 2 and all("keep " in line for line in listed)
    assert "  type a number from 1 to 2 ('?' for help, 'say TEXT' to chat)" in lines
    (sent,) = node.sent
    face = node.party.known_faces()[sent["keep"]]
    assert listed[1].startswith(f"   2. keep {BY_KEY[face.partition('-')[2]].name}: "), (face, listed)


def test_the_games_lines_name_every_seat_and_ours_is_you() -> None:
    from p2p.node import Notice

    node = MemNode("loveletter", 4, seed=5)
    out = io.StringIO()
    ui = PlainUI(node, out, read_line=lambda: "1")  # type: ignore[arg-type]
    names = [p.name for p in node.party.table.parties]
    me = node.party.seat
    other = (me + 1) % 4
    ui.show(Notice("accepted", f"seat {other} plays the Guard on seat {me}, guessing the Priest"))
    assert out.getvalue().splitlines() == [
        f"seat {other} ({names[other]}) plays the Guard on seat {me} (you), guessing the Priest"
    ]


# ---------------------------------------------------------------------------------------------
# A whole game, the person's seat answered by lines
# ---------------------------------------------------------------------------------------------


def _play_plain(node: MemNode, answer: Any = lambda: "1") -> tuple[list[str], list[str]]:
    """Play ``node``'s game to its end through a plain interface: every decision of the person's
    seat goes to :meth:`PlainUI.on_decide`, every notice to :meth:`PlainUI.show`, in order.
    Returns the lines printed and the prompts a line was read for."""
    out = io.StringIO()
    asked: list[str] = []
    ui = PlainUI(node, out, read_line=lambda: (asked.append(prompt), answer())[1])
    node.on_decide = None  # the stand-in node would call it without awaiting: asked below instead
    prompt = ""

    async def main() -> None:
        nonlocal prompt
        node.start()
        while True:
            while not node.notices.empty():
                ui.show(node.notices.get_nowait())
            waiting = node.party.waiting_for_me()
            if waiting is None or node.ended:
                break
            prompt = waiting
            await ui.on_decide(waiting, node.party.legal_moves())

    asyncio.run(main())
    return out.getvalue().splitlines(), asked


def test_a_question_with_one_honest_answer_is_answered_for_the_person_in_one_line() -> None:
    """The Guard's target answers "miss — does not hold the Baron" with no choice: nothing is
    asked, and one line says what was answered and that it was answered for the person."""
    node = MemNode("loveletter", 4, seed=11)
    game = node.party.table.game
    automatic = presentation(game).automatic
    lines, asked = _play_plain(node)
    assert node.ended
    assert asked and not any(prompt in automatic for prompt in asked), asked  # never asked those
    marked = [line for line in lines if ANSWERED_WORDS in line]
    assert marked, "no forced answer came up: the test would prove nothing"
    me = f"seat {node.party.seat} (you)"
    for line in marked:  # the game's own line for the move, by seat, marked after its words
        assert line.startswith(me), line
        said = line.partition(f" ({ANSWERED_WORDS})")[0]
        assert not any(other.startswith(said) for other in lines if ANSWERED_WORDS not in other), said
    assert not any(line.startswith(f"({ANSWERED_WORDS}") for line in lines)  # never a second line
    # a Baron comparison whose line goes on with the loser's knock-out: marked at its own words
    assert any(f"the lower card ({ANSWERED_WORDS}); " in line for line in marked), marked
    # every move sent was read from a line or answered for the person
    assert len(node.sent) == len(asked) + len(marked)
    assert not any("to answer the Guard" in line or "to report the Baron" in line for line in lines)


def test_the_plain_interface_asks_forced_questions_through_the_consoles_rule() -> None:
    """:func:`forced_option` is the console's test: one option of an ``automatic`` prompt."""
    node = MemNode("loveletter", 4, seed=11)
    game = node.party.table.game
    (prompt, *_) = sorted(presentation(game).automatic)
    one = [MoveOption(1, {"hit": False}, "miss", ("miss",))]
    two = [*one, MoveOption(2, {"hit": True}, "hit", ("hit",))]
    assert forced_option(game, prompt, one) == one[0]
    assert forced_option(game, prompt, two) is None  # a real choice is asked
    assert forced_option(game, "play", one[:1]) is None  # a free choice, even of one move, is asked


# ---------------------------------------------------------------------------------------------
# The hint's example, and the help
# ---------------------------------------------------------------------------------------------


EXAMPLE = re.compile(r"^  for example '([^']+)' picks (\d+)$")


def _first(game: str, seats: int, seed: int) -> MemNode:
    """The table at the person's first free choice (a forced answer before it is sent as is)."""
    node = MemNode(game, seats, seed=seed)
    node.start()
    automatic = presentation(node.party.table.game).automatic
    while (prompt := node.party.waiting_for_me()) in automatic:
        asyncio.run(node.decide(node.party.legal_moves()[0]))
    assert prompt is not None
    return node


def _decide(node: MemNode, answers: list[str]) -> list[str]:
    return ask_plain(node, node.party.waiting_for_me() or "", node.party.legal_moves(), answers)


CASES = [("loveletter", 4, seed) for seed in range(8)] + [("regicide", 2, 3), ("rebelprincess", 4, 5)]


@pytest.mark.parametrize(("game", "seats", "seed"), CASES)
def test_the_hints_example_is_accepted_and_picks_the_move_it_names(game: str, seats: int, seed: int) -> None:
    lines = _decide(_first(game, seats, seed), [])  # the input closes at once: only the listing
    assert PLAIN_HINT in lines
    examples = [m for m in map(EXAMPLE.match, lines) if m]
    assert len(examples) == 1, lines  # the first list of a game is followed by one example
    words, number = examples[0].group(1), int(examples[0].group(2))
    node = _first(game, seats, seed)  # the same table again: the same decision
    moves = node.party.legal_moves()
    answered = _decide(node, [words])
    refused = ("  no move fits", "  not allowed")
    assert not any(line.startswith(refused) or " moves fit " in line for line in answered), answered
    party, table = node.party, node.party.table
    names = [p.name for p in table.parties]
    _, options = word_moves(table.game, table.state, party.seat, party.known_faces(), moves, names)
    assert node.sent[-1] == options[number - 1].move, (words, number)


def test_a_guards_example_names_its_guess() -> None:
    """``play guard 2`` fits seven moves (one a guess): a Guard in the hand is shown with one."""
    for seed in range(40):
        node = _first("loveletter", 4, seed)
        faces = node.party.known_faces()
        if any(faces.get(move.get("card")) == "guard" for move in node.party.legal_moves()):
            break
    else:
        raise AssertionError("no first hand with a Guard: the test would prove nothing")
    lines = _decide(node, [])
    (example,) = [m for m in map(EXAMPLE.match, lines) if m]
    words = example.group(1).split()
    assert words[:2] == ["play", "guard"] and len(words) == 4, words  # the seat, and the guess


def test_help_tells_the_commands_how_to_quit_and_then_the_cards() -> None:
    node = _first("loveletter", 4, 5)
    lines = _decide(node, ["help", "?"])
    game = node.party.table.game
    start = next(i for i, line in enumerate(lines) if line.startswith("  a number, 1 to "))
    block = lines[start:]
    head = "\n".join(block[:7])
    for told in ("words of a move", "say TEXT", "table", "quit", "Ctrl-D", "? or help"):
        assert told in head, (told, head)
    assert block[6] == "  the cards:"
    cards = [f"    {game.card_text(face)}" for face in dict.fromkeys(game.deck())]
    assert block[7 : 7 + len(cards)] == cards
    assert lines.count("  the cards:") == 2  # both words show it


def test_table_shows_the_table_again_and_quit_leaves() -> None:
    node = _first("loveletter", 4, 5)
    out = io.StringIO()
    replies = iter(["table", "quit", "y"])

    def read_line() -> str:
        line = next(replies, None)
        if line is None:  # (were "quit" not taken: the input closes, not a hang)
            raise EOFError
        return line

    ui = PlainUI(node, out, read_line=read_line)
    node.on_decide = None
    asyncio.run(ui.on_decide(node.party.waiting_for_me() or "", node.party.legal_moves()))
    lines = out.getvalue().splitlines()
    now = [line for line in lines if line.startswith("now:")]
    assert len(now) == 2 and now[0] == now[1], lines  # the table, then the table again
    assert sum(line.startswith("   1. ") for line in lines) == 2  # and the moves again
    assert not node.sent
    assert ui.left == LEFT_WORDS  # left on purpose, as the console's leaving says
    notices = []
    while not node.notices.empty():
        notices.append(node.notices.get_nowait().kind)
    assert notices[-1] == "left"


def test_the_plain_table_speaks_the_consoles_words_and_shows_no_card_numbers() -> None:
    """No engine words (``Next: Commit princess``, ``Next: Decide play``) and no card refs in the
    hand (``Fairy 1 [122]``): the "now:" line is the console's, an entry's lines read as
    sentences (not ``plays Queen 4.; Face up: …``), and the console's noise is left out."""
    lines, asked = _play_plain(MemNode("rebelprincess", 3, seed=4, options={"rounds": 3}))
    assert asked, "the person was asked something"
    assert not [line for line in lines if line.startswith("Next:")], lines
    hands = [line for line in lines if line.startswith("Your hand: ")]
    assert hands and not any(re.search(r"\[\d+\]", line) for line in hands), hands
    nows = [line for line in lines if line.startswith("now: ")]
    assert "now: everyone chooses in secret" in nows and "now: you to play" in nows, sorted(set(nows))
    assert not any(".;" in line for line in lines), [line for line in lines if ".;" in line]
    plays = [line for line in lines if re.search(r"\bplays (Fairy|Pet|Prince|Queen) \d+\.", line)]
    assert plays, lines
    # the turn-over that only confirms what a play named is the console's noise, and plain's
    assert not any("as claimed" in line for line in lines), [line for line in lines if "claimed" in line]
    assert not any("'s the Frog" in line for line in lines)
    assert any(re.search(r"\. The trick goes to seat \d \(", line) for line in lines)


def _named_card(line: str) -> str:
    """``Prince`` from ``→ you draw the Prince`` (and the like)."""
    found = re.search(r"\bthe (\w+)", line)
    assert found, line
    return found.group(1)


def test_a_card_the_table_hands_you_is_named_to_you_and_is_the_one_you_then_hold() -> None:
    """The table's lines say only that a card moved ("seat 0 (you) and seat 1 (bot) swap hands",
    "each seat is dealt one card"); the plain interface then says which card it is, to its own
    player only, once the card is known: the round's deal, a King's swap, a Prince's redraw. Each
    named card is the one the next "your hand:" shows, unless the hand changed again first."""
    kinds: set[str] = set()
    for seed in range(8):
        node = MemNode("loveletter", 4, seed=seed)
        lines, _ = _play_plain(node)
        given = [i for i, line in enumerate(lines) if line.startswith("→ you ")]
        for i in given:
            kinds.add(re.sub(r"the \w+", "the X", lines[i], count=1))
            card = _named_card(lines[i])
            for later in lines[i + 1 :]:
                if later.startswith("→ you ") or re.search(r"\(you\)(:| discards)", later):
                    break  # the hand changed again (or was shown) before the person was asked
                if later.startswith("your hand: "):
                    assert f"{card}(" in later, (lines[i], later)
                    break
        mine = [line.split(";")[0] for line in lines if line.startswith(f"seat {node.party.seat} (you) ")]
        assert mine and not any("themselves" in line for line in mine), mine  # "on yourself"
    assert kinds >= {
        "→ you are dealt the X",
        "→ you now hold the X, from the King's swap",
        "→ you draw the X",
    }, kinds
