"""Every line a game says about its events is words, never a Python repr (a list, a dict, a tuple):
what players read in the console, the plain mode, ``replay --text`` and ``simulate`` comes from here."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Event
from engine.dealer import play_trusted
from engine.games import make_bot, make_game
from engine.present import NAME_COLUMNS, TableView

REPR = re.compile(r"\[\s*-?\d|\[\]|\{'|\(\d+, ")
"""A Python list of numbers, an empty list, a dict, or a tuple of numbers."""


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000))
@pytest.mark.parametrize(
    ("name", "seats"), [("loveletter", 2), ("loveletter", 4), ("regicide", 1), ("regicide", 3),
                        ("rebelprincess", 3), ("rebelprincess", 5)]
)  # fmt: skip
def test_every_event_is_told_in_words(name: str, seats: int, seed: int) -> None:
    game = make_game(name, seats)
    lines: list[str] = []

    def tell(state: Any, event: Event) -> None:
        lines.append(game.describe(state, event))

    bots = [make_bot(name, "random", f"{seed}/{s}") for s in range(seats)]
    run = play_trusted(game, bots, seed, on_event=tell)
    assert lines and run.final is not None
    reprs = [line for line in lines if REPR.search(line)]
    assert not reprs, reprs[:5]


def test_a_name_too_long_for_its_column_is_cut_with_a_mark() -> None:
    game = make_game("loveletter", 2)
    names = ["ann", "witness-1, run by someone with a long name"]
    view = TableView(game, game.initial_state(), 0, {}, names)
    width = view.name_width()
    assert width == NAME_COLUMNS[1]
    assert view.name_cell(0) == "ann".ljust(width)
    assert len(view.name_cell(1)) == width and view.name_cell(1).endswith("…")
    assert view.name_cell(1)[:-1] == names[1][: width - 1]


def test_a_players_own_seat_is_yours_not_seat_n_you_s() -> None:
    from engine.present import name_seats

    line = "seat 2 plays the Handmaid; seat 2's card is revealed: the Handmaid; seat 1's hand; seat 12 wins"
    assert name_seats(line, ["ann", "bob", "cy"], me=2) == (
        "seat 2 (you) plays the Handmaid; your card is revealed: the Handmaid; "
        "seat 1 (bob)'s hand; seat 12 wins"
    )
    # in another seat's view, or the public one, every seat keeps its number and name
    assert name_seats("seat 2's card", ["ann", "bob", "cy"], me=0) == "seat 2 (cy)'s card"
    assert name_seats("seat 2's card", ["ann", "bob", "cy"]) == "seat 2 (cy)'s card"


def test_a_players_own_protection_lasts_until_your_next_turn() -> None:
    from engine.present import name_seats

    line = "seat 1 is protected until their next turn"
    assert name_seats(line, ["ann", "bob"], me=1) == "seat 1 (you) is protected until your next turn"
    # another seat's, or a line with two subjects, keeps "their"
    assert name_seats(line, ["ann", "bob"], me=0) == "seat 1 (bob) is protected until their next turn"
    both = "seat 0 and seat 1 each look at their new card"
    named = name_seats(both, ["ann", "bob"], me=0)
    assert named == "seat 0 (you) and seat 1 (bob) each look at their new card"


def test_a_refusal_reads_without_the_rule_files_codes() -> None:
    from engine.present import player_words

    assert player_words("the Guard cannot name the Guard (EC-1)") == "the Guard cannot name the Guard"
    assert player_words("a tie (OQ-12): nothing happens") == "a tie: nothing happens"
    assert player_words("no code here (seat 2)") == "no code here (seat 2)"


def test_the_table_says_whom_a_private_deal_or_show_is_for() -> None:
    """A frame in the middle of a turn says what the table is doing and for whom, from the public
    request only (which seat gets a card is public; the card is not)."""
    from engine.core import Deal, Reveal, Show
    from engine.games import make_game
    from engine.present import TableView, waiting_words

    game = make_game("loveletter", 4)
    names = ["ann", "bob", "cy", "dee"]
    words = {}
    for request in (
        Deal(((3, 1),)),
        Deal(((3, 0),)),
        Deal(((1, 0), (2, 1), (3, 2), (4, 3))),
        Deal(((1, 0), (2, 0), (3, 1))),
        Show(((5, 2),)),
        Show(((5, 0),)),
        Reveal((1, 2)),
    ):
        game.pending = lambda state, request=request: request  # type: ignore[method-assign]
        words[request] = waiting_words(TableView(game, None, 0, {}, names))
    assert list(words.values()) == [
        "dealing a card to seat 1 (bob)",
        "dealing a card to you",
        "dealing a card to each of 4 seats",
        "dealing 3 cards to 2 seats",
        "showing seat 2 (cy) a card in private",
        "showing you a card in private",
        "revealing 2 cards",
    ]


def test_a_report_about_your_own_card_says_you() -> None:
    """The Baron's result for a reader who lost: not "seat 0 (you) reports that seat 0 (you) has"."""
    from engine.present import name_seats

    line = "seat 0 reports that seat 0 has the lower card"
    assert name_seats(line, ["ann", "bob"], me=0) == "seat 0 (you) reports that you have the lower card"
    seen_by_bob = name_seats(line, ["ann", "bob"], me=1)
    assert seen_by_bob == "seat 0 (ann) reports that seat 0 (ann) has the lower card"
    other = "seat 1 reports that seat 0 has the lower card"
    assert name_seats(other, ["ann", "bob"], me=0) == "seat 1 (bob) reports that you have the lower card"


def test_a_played_love_letter_card_shown_face_up_is_named_with_its_owner() -> None:
    """ "the card is shown face up" after a Guard on bob read as if bob's card were shown: the line
    names the card played and whose it is."""
    game = make_game("loveletter", 4)
    lines: list[str] = []

    def tell(state: Any, event: Event) -> None:
        lines.append(game.describe(state, event))

    play_trusted(game, [make_bot("loveletter", "random", f"up/{s}") for s in range(4)], 3, on_event=tell)
    shown = [line for line in lines if "shown face up" in line]
    assert shown, "no card was played"
    assert not [line for line in lines if "the card is shown face up" in line]
    for line in shown:
        assert re.match(r"seat \d's [A-Z][a-z]+ is shown face up", line), line


def test_the_love_letter_hand_is_headed_and_two_equal_cards_are_one_line() -> None:
    from engine.present import presentation
    from tests.engine.loveletter_support import Table

    table = Table.build(4, [["guard", "guard"], ["baron"], ["king"], ["prince"]], ["handmaid"] * 2)
    view = TableView(table.game, table.state, 0, table.dealer.known_to(0), ["ann", "bob", "cy", "dee"])
    text = "".join(part for _, part in presentation(table.game).hand(view))
    assert text.startswith("your hand: Guard (1) ×2: "), text
    assert text.count("Guard (1)") == 1 and len(text.splitlines()) == 1, text
    table = Table.build(4, [["guard", "priest"], ["baron"], ["king"], ["prince"]], ["handmaid"] * 2)
    view = TableView(table.game, table.state, 0, table.dealer.known_to(0), ["ann", "bob", "cy", "dee"])
    rows = "".join(part for _, part in presentation(table.game).hand(view)).splitlines()
    assert rows[0].startswith("your hand: Guard (1): "), rows
    assert rows[1].startswith(" " * 11 + "Priest (2): "), rows


def test_a_princes_redraw_says_how_many_cards_are_left() -> None:
    """Every other draw says the pile's count; the Prince's redraw said only "draws a new card"."""
    game = make_game("loveletter", 4)
    lines: list[str] = []

    def tell(state: Any, event: Event) -> None:
        lines.append(game.describe(state, event))

    for seed in range(6):
        bots = [make_bot("loveletter", "random", f"pr/{seed}/{s}") for s in range(4)]
        play_trusted(game, bots, seed, on_event=tell)
    redraws = [line for line in lines if " draws a new card" in line]
    assert redraws, "no Prince was played"
    for line in redraws:
        assert re.search(r"draws a new card \(\d+ left in the pile\)$", line), line


def test_playing_the_princess_says_out_of_the_round_once() -> None:
    game = make_game("loveletter", 4)
    entries: list[list[str]] = []

    def tell(state: Any, event: Event) -> None:
        line = game.describe(state, event)
        if " plays the Princess" in line or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)

    for seed in range(10):
        bots = [make_bot("loveletter", "random", f"pp/{seed}/{s}") for s in range(4)]
        play_trusted(game, bots, seed, on_event=tell)
    played = [lines[:3] for lines in entries if " plays the Princess" in lines[0]]
    assert played, "nobody played the Princess"
    for lines in played:
        said = " ; ".join(lines)
        assert said.count("out of the round") == 1, said
        assert re.search(r"seat \d discards the \w+ too", lines[2]), said
