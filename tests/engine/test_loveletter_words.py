"""What the console and the plain mode tell a Love Letter player about a card the table hands it
(the game's ``consequences``), checked event by event over real games with a trusted dealer.

The table's own lines say only that a card moved ("each seat is dealt one card", "seat 0 and seat 1
swap hands", "seat 0 discards the Guard"); the player must then be told which card it now holds:
after the round's deal, a King's swap (played by anyone on anyone, the player among them) and a
Prince's redraw, once the card is known, exactly once, and never at its own turn's draw (the
decision that follows shows the hand).
"""

from __future__ import annotations

import itertools
import re

import pytest

from engine.dealer import play_trusted
from engine.games import make_bot, make_game
from engine.loveletter.state import DRAW, NAMES
from engine.present import TableView, name_seats, presentation

ME = 0
GIVEN = re.compile(r"you (?:are dealt|now hold|draw) the (\w+)")


def _told_and_true(seed: int) -> tuple[list[str], list[str]]:
    """Every line seat 0 was told about a card it now holds, and every card that truly came into
    its hand other than by its own turn's draw (``Guard``), in the order they came."""
    game = make_game("loveletter", 4)
    run = play_trusted(game, [make_bot("loveletter", "heuristic", seat) for seat in range(4)], seed)
    assert run.dealer is not None
    known = run.dealer.known_to(ME)  # (by the end: what a step tells is known once it is over)
    told: list[str] = []
    truth: list[str] = []
    for state, after in itertools.pairwise(run.states):
        own_draw = state.phase == DRAW and state.turn == ME
        if state.hands and after.hands and not own_draw:
            truth += [NAMES[run.dealer.slots[r]] for r in after.hands[ME] if r not in state.hands[ME]]
        told += presentation(game).consequences(state, after, TableView(game, after, ME, known))
    return told, truth


@pytest.mark.parametrize("seed", range(6))
def test_every_card_the_table_hands_you_is_named_once_and_truly(seed: int) -> None:
    told, truth = _told_and_true(seed)
    assert len(truth) > 3, "seat 0 was handed too few cards for the test to mean anything"
    named = [found.group(1) for line in told if (found := GIVEN.match(line))]
    assert len(named) == len(told), told  # (nothing else is said)
    assert named == truth


def test_a_king_swap_and_a_prince_redraw_are_each_told_in_some_game() -> None:
    """The games above must cover the King and the Prince, not only the round's deals."""
    seen = {line.split(" the ")[0] for seed in range(6) for line in _told_and_true(seed)[0]}
    assert seen == {"you are dealt", "you now hold", "you draw"}, seen


def test_the_viewer_plays_a_prince_on_yourself() -> None:
    line = "seat 1 plays the Prince on themselves; seat 1 discards the Guard"
    assert name_seats(line, ["ann", "bob"], me=1).startswith("seat 1 (you) plays the Prince on yourself;")
    assert "on themselves" in name_seats(line, ["ann", "bob"], me=0)  # someone else's play
