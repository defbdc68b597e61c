"""How a node names a card in a sentence it tells its player ("only you see: seat 2 holds …")."""

from __future__ import annotations

import pytest

from engine.games import make_game
from p2p.node import card_words


@pytest.mark.parametrize(
    ("game", "face", "words"),
    [
        ("loveletter", "king", "the King"),
        ("regicide", "7H", "7H"),
        ("rebelprincess", "prince-1", "Prince 1"),  # (it said "holds prince-1")
    ],
)
def test_a_card_is_named_by_the_games_own_words_never_by_its_face_id(
    game: str, face: str, words: str
) -> None:
    options = {"rounds": 3} if game == "rebelprincess" else None
    assert card_words(make_game(game, 3, options), face) == words
