"""Naming a game on the command line (``fairdeck games audit KEY``, ``fairdeck resume KEY``): a short
number is a place in the list, a longer key the start of a game id."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdeck.games import GameEntry, find


def _entries(*ids: str) -> list[GameEntry]:
    return [
        GameEntry(i + 1, Path(f"/x/{gid}.fdlog"), "loveletter", ["a", "b"], 0, 0.0, "finished", "", False)
        for i, gid in enumerate(ids)
    ]


def test_a_number_past_the_list_names_no_game_even_when_an_id_starts_with_it() -> None:
    entries = _entries("9f" + "0" * 30, "ab" + "1" * 30, "9a" + "2" * 30)
    with pytest.raises(ValueError, match=r"^no game 9: the list has 3"):
        find(entries, "9")
    with pytest.raises(ValueError, match=r"^no game 0"):
        find(entries, "0")
    assert find(entries, "2").id.startswith("ab")


def test_four_or_more_characters_name_a_game_by_the_start_of_its_id() -> None:
    entries = _entries("9f00" + "0" * 28, "9f01" + "1" * 28, "1234" + "2" * 28)
    assert find(entries, "9F01").number == 2
    assert find(entries, "1234").number == 3  # all digits, but as long as an id's start: an id
    assert find(entries, "9f00").number == 1
    with pytest.raises(ValueError, match="4\\+ characters"):
        find(entries, "9f0")


def test_an_id_start_shared_by_two_games_asks_for_more() -> None:
    entries = _entries("beef" + "0" * 28, "beef" + "1" * 28)
    with pytest.raises(ValueError, match="names 2 games: give more of the id"):
        find(entries, "beef")
