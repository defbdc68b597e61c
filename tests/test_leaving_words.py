"""Who a program ran for a table's other seats, in the words said when it stops: bots, a witness
(a solo game has only that), or both."""

from __future__ import annotations

import pytest

from fairdeck.commands import helpers_words
from p2p.memtable import build_table


@pytest.mark.parametrize(
    ("game", "seats", "witnesses", "words"),
    [
        ("regicide", 1, 1, "your witness"),
        ("loveletter", 3, 0, "your bots"),
        ("loveletter", 2, 1, "your bots and witness"),
    ],
)
def test_the_helpers_are_named_for_what_they_are(game: str, seats: int, witnesses: int, words: str) -> None:
    table = build_table(game, seats, witnesses=witnesses).parties[0].table
    assert helpers_words(table) == words
    assert helpers_words(table, "its") == words.replace("your", "its")


def test_without_a_table_the_helpers_are_bots() -> None:
    assert helpers_words(None) == "your bots"
