"""What the console tells a Rebel Princess player about cards it receives (the game's
``consequences``), checked event by event over real games with a trusted dealer.

Cards that change hands in a pass (and at Musical Chairs, Blind Man's Bluff) are shown to their new
holder only by the step after the hand change; "you receive" must wait for that step and then name
every card, never ``?``, exactly once per hand-over.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine.core import Decide, Event, GameOver
from engine.dealer import TrustedDealer
from engine.games import make_bot, make_game
from engine.present import TableView, face_label, presentation

ME = 0


def _steps(round_cards: str, seed: int) -> Iterator[tuple[Any, Event, Any, Any, TrustedDealer]]:
    """Every (state before, event, state after, game, dealer) of a whole 4-seat game with heuristic
    bots and a trusted dealer, in order."""
    game = make_game("rebelprincess", 4, {"round_cards": round_cards, "rounds": 3})
    dealer = TrustedDealer(game, seed)
    bots = [make_bot("rebelprincess", "heuristic", seat) for seat in range(4)]
    state = game.initial_state()
    for _ in range(100_000):
        request = game.pending(state)
        if isinstance(request, GameOver):
            return

        def choose(seat: int, prompt: str, state: Any = state) -> dict[str, Any]:
            return bots[seat].choose(game, state, seat, dealer.known_to(seat), prompt)

        if isinstance(request, Decide):
            event = Event.move(request.seat, choose(request.seat, request.prompt))
        else:
            event = dealer.resolve(request, choose)
        after = game.apply(state, event)
        yield state, event, after, game, dealer
        state = after
    raise AssertionError("the game did not end")


def _played(round_cards: str, seed: int) -> Iterator[tuple[Any, Any, Any, TrustedDealer]]:
    """Every (state before, state after, game, dealer) of a whole game (:func:`_steps`)."""
    for before, _, after, game, dealer in _steps(round_cards, seed):
        yield before, after, game, dealer


def _told(game: Any, before: Any, after: Any, view: TableView) -> list[str]:
    return list(presentation(game).consequences(before, after, view))


def _receive_lines(round_cards: str, seed: int) -> tuple[list[str], list[str]]:
    """Every ``you receive`` line seat 0's console would print (one look per event), and what seat
    0 truly received at each hand-over, in words."""
    said: list[str] = []
    truth: list[str] = []
    for state, after, game, dealer in _played(round_cards, seed):
        if state.hands and after.hands and state.hands[ME]:
            held = set(state.hands[ME]) | set(state.aside[ME] if state.aside else ())
            got = [ref for ref in after.hands[ME] if ref not in held]
            if got and len(got) < len(after.hands[ME]):
                truth.append(", ".join(face_label(game, dealer.slots[ref]) for ref in got))
        view = TableView(game, after, ME, dealer.known_to(ME))
        said += [line for line in _told(game, state, after, view) if line.startswith("you receive")]
    return said, truth


@pytest.mark.parametrize(
    ("round_cards", "seed"),
    [("abe", 1), ("eja", 2), ("kqt", 3), ("tke", 4)],  # 3 right; 1 left + 1 right; Musical Chairs...
)
def test_you_receive_names_every_card_once_it_is_shown_to_you(round_cards: str, seed: int) -> None:
    said, truth = _receive_lines(round_cards, seed)
    assert truth, "no hand-over reached seat 0 in this game"
    assert said == [f"you receive {words}" for words in truth]
    assert not any("?" in line for line in said)


def _pass_lines(round_cards: str, seed: int) -> tuple[list[str], list[str]]:
    """Every ``you pass`` line seat 0's console would print (names added, as the programs add them:
    once), and what seat 0 truly handed to whom."""
    said: list[str] = []
    truth: list[str] = []
    for state, after, game, dealer in _played(round_cards, seed):
        view = TableView(game, after, ME, dealer.known_to(ME), ["ann", "bob", "cy", "dee"])
        if state.hands and after.hands and state.hands[ME]:
            for other in range(1, 4):
                gone = [r for r in state.hands[ME] if r not in after.hands[ME] and r in after.hands[other]]
                if gone:
                    cards = ", ".join(face_label(game, dealer.slots[r]) for r in gone)
                    truth.append(f"you pass {cards} to {view.label(other)}")
        said += [view.words(line) for line in _told(game, state, after, view) if line.startswith("you pass")]
    return said, truth


@pytest.mark.parametrize(("round_cards", "seed"), [("abe", 1), ("eja", 2), ("kqt", 3)])
def test_you_pass_names_every_card_you_hand_over_and_to_whom(round_cards: str, seed: int) -> None:
    said, truth = _pass_lines(round_cards, seed)
    assert truth, "seat 0 handed nothing over in this game"
    assert said == truth
    assert not any("?" in line for line in said)


def test_a_spent_princess_is_marked_apart_from_the_trick_count() -> None:
    """The seat row ran "The Pea Princess spent tricks 0 · 0 taken" together."""
    from engine.present import presentation as present_of

    def spent_in(state: Any) -> list[int]:
        return [p for p in range(4) if state.spent and state.spent[p] and state.princesses[p]]

    found = next(((a, g, d) for _, a, g, d in _played("abe", 1) if spent_in(a)), None)
    assert found is not None, "no Princess power was used"
    after, game, dealer = found
    spent = spent_in(after)
    view = TableView(game, after, ME, dealer.known_to(ME), ["ann", "bob", "cy", "dee"])
    rows = "".join(text for _, text in present_of(game).seat_rows(view)).splitlines()
    for p in spent:
        assert "(spent) " in rows[p] and re.search(r"\(spent\)\s+tricks \d", rows[p]), rows[p]
    assert not any(re.search(r"\bspent tricks\b", row) for row in rows), rows


def test_a_round_end_says_its_scores_once_and_alice_is_named_after_her_seat() -> None:
    """The round's end said the scores in the table's line, again in a "→ round 1 scores" line
    and a third time in the summary; Alice's deal read "Alice (seat 1 (bob)) wins ..."; a card
    played face up was turned over in a "Face up: seat 2's Fairy 7." of its own, now the line
    the console and the plain mode leave out (the replay keeps it)."""
    from engine.dealer import play_trusted
    from engine.present import quiet_parts

    game = make_game("rebelprincess", 4, {"round_cards": "abe", "rounds": 3})
    for seed in range(40):  # the first game in which Alice deals a trick back
        lines: list[str] = []
        run = play_trusted(
            game,
            [make_bot("rebelprincess", "heuristic", seat) for seat in range(4)],
            seed,
            on_event=lambda state, event, lines=lines: lines.append(game.describe(state, event)),
        )
        if any("as Alice" in line for line in lines):
            break
    assert run.dealer is not None
    told = [
        line
        for before, after in itertools.pairwise(run.states)
        for line in _told(game, before, after, TableView(game, after, ME, run.dealer.known_to(ME)))
    ]
    assert any(line.startswith("Round 1 ends; round scores: ") for line in lines)
    assert not [line for line in told if "scores:" in line or "total" in line], told
    dealt_back = [line for line in lines if "as Alice" in line]
    assert dealt_back and all(re.match(r"seat \d wins the trick and, as Alice, deals", x) for x in dealt_back)
    confirmed = [line for line in lines if line.endswith("is shown face up, as claimed.")]
    assert confirmed, "no card was played face up"
    noise = presentation(game).noise
    assert all(quiet_parts(line, noise) == [] for line in confirmed)
    # a player's own choice stays in the plain mode's words; another's is noise there too
    skipped = "seat 1 does not use Alice's power for this trick."
    assert quiet_parts(f"{skipped}; {confirmed[0]}", noise) == []
    assert quiet_parts(f"{skipped}; {confirmed[0]}", noise, keep=1) == [skipped]


def test_late_to_the_ball_sets_one_card_aside_in_the_singular() -> None:
    # (newcomer trial 6 read "sets 1 card(s) aside")
    said = [
        game.describe(before, event)
        for before, event, _, game, _ in _steps("bac", 3)
        if before.step == "aside" and before.round_no == 0
    ]
    assert "Everyone sets 1 card aside face down." in said, said
