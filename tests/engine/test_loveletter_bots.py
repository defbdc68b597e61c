"""Love Letter bots: the heuristic bot's judgement, its honesty, and its strength against random bots."""

from __future__ import annotations

from typing import Any

import pytest

from engine import games
from engine.core import Decide, RandomBot
from engine.dealer import play_trusted
from engine.loveletter import LoveLetter
from engine.loveletter.bots import HeuristicBot, make_bot, win_rate
from tests.engine.loveletter_support import Table


def choose(table: Table, seed: int = 0) -> dict[str, Any]:
    """What a heuristic bot in the deciding seat does, knowing only what that seat knows."""
    request = table.game.pending(table.state)
    assert isinstance(request, Decide)
    own = table.dealer.known_to(request.seat)
    return HeuristicBot(seed).choose(table.game, table.state, request.seat, own, request.prompt)


def tell(table: Table, seat: int, about: int) -> None:
    """Let ``seat`` know ``about``'s card, as a Priest would."""
    ref = table.state.hands[about][0]
    table.dealer.knowledge[seat][ref] = table.face(ref)


def test_make_bot_levels() -> None:
    assert isinstance(make_bot("random", 1), RandomBot)
    assert isinstance(make_bot("heuristic", 1), HeuristicBot)
    assert isinstance(games.make_bot("loveletter", "heuristic", 2), HeuristicBot)
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("genius", 1)
    with pytest.raises(ValueError, match="positive"):
        win_rate(0, 1)


@pytest.mark.parametrize("other", ["guard", "priest", "baron", "handmaid", "prince", "king", "countess"])
def test_never_discards_the_princess_by_choice(other: str) -> None:
    table = Table.build(3, [["princess", other], ["guard"], ["priest"]], pile=["guard", "baron"])
    for seed in range(5):
        move = choose(table, seed)
        assert move["face"] != "princess"
        assert not (move["face"] == "prince" and move["target"] == 0)


@pytest.mark.parametrize("forcer", ["king", "prince"])
def test_obeys_the_countess_rule(forcer: str) -> None:
    table = Table.build(3, [["countess", forcer], ["guard"], ["priest"]], pile=["guard"])
    assert choose(table)["face"] == "countess"


def test_guesses_a_card_it_knows() -> None:
    table = Table.build(3, [["guard", "priest"], ["handmaid"], ["baron"]], pile=["guard", "prince"])
    tell(table, 0, 2)
    move = choose(table)
    assert (move["face"], move["target"], move["guess"]) == ("guard", 2, "baron")


def test_guesses_the_most_likely_unseen_card() -> None:
    # Priests, Barons and Handmaids are all face up: the Prince (2 unseen) is the best guess
    table = Table.build(3, [["guard", "guard"], ["king"], ["guard"]],
                        pile=["guard", "guard", "prince", "prince", "countess"],
                        set_aside="princess", faceup=[],
                        discards=[["priest", "baron"], ["priest", "handmaid"], ["baron", "handmaid"]])
    for seed in range(5):
        move = choose(table, seed)
        assert move["face"] == "guard" and move["guess"] == "prince"


def test_targets_the_leader_when_otherwise_indifferent() -> None:
    table = Table.build(3, [["guard", "guard"], ["king"], ["priest"]], pile=["guard"], tokens=(0, 0, 2))
    assert all(choose(table, seed)["target"] == 2 for seed in range(5))


def test_baron_only_when_it_wins() -> None:
    table = Table.build(3, [["baron", "prince"], ["guard"], ["handmaid"]], pile=["guard"])
    tell(table, 0, 1)
    assert choose(table) == {"card": table.ref(0, "baron"), "face": "baron", "target": 1, "guess": None}
    table = Table.build(3, [["baron", "guard"], ["king"], ["handmaid"]], pile=["guard"])
    tell(table, 0, 1)
    for seed in range(5):
        move = choose(table, seed)
        assert not (move["face"] == "baron" and move["target"] == 1)


def test_goes_after_a_known_princess() -> None:
    table = Table.build(3, [["prince", "guard"], ["priest"], ["princess"]], pile=["guard"])
    tell(table, 0, 2)
    move = choose(table)
    assert move["target"] == 2 and (move["face"] == "prince" or move["guess"] == "princess")


def test_answers_honestly() -> None:
    table = Table.build(3, [["guard", "priest"], ["handmaid"], ["baron"]], pile=["guard", "prince"])
    table.play(0, "guard", 2, "baron")
    assert choose(table) == {"hit": True}
    table = Table.build(3, [["baron", "prince"], ["guard"], ["handmaid"]], pile=["guard"])
    table.play(0, "baron", 2)
    assert choose(table) == {"loser": 2}


def test_chancellor_keeps_the_best_card() -> None:
    table = Table.build(3, [["chancellor", "guard"], ["baron"], ["priest"]], pile=["spy", "king"],
                        options={"edition": "2019"})
    table.play(0, "chancellor")
    move = choose(table)
    assert table.face(move["keep"]) == "king" and sorted(map(table.face, move["bottom"])) == ["guard", "spy"]


def test_bots_are_deterministic_per_seed() -> None:
    game = LoveLetter(4)

    def history(seed: int) -> list[Any]:
        agents = [make_bot("heuristic" if s % 2 else "random", f"{seed}/{s}") for s in range(4)]
        return play_trusted(game, agents, seed).history

    assert history(5) == history(5)
    assert history(5) != history(6)


def test_no_legal_move_is_an_error_not_a_guess() -> None:
    table = Table.build(3, [["guard", "priest"], ["handmaid"], ["baron"]], pile=["guard"])
    with pytest.raises(RuntimeError, match="no legal move"):
        HeuristicBot(0).choose(table.game, table.state, 1, table.dealer.known_to(1), "play")


def test_heuristic_beats_three_random_bots() -> None:
    rate = win_rate(300, seed=2024)
    assert rate > 0.5  # a random seat wins about 25%


@pytest.mark.parametrize("low", ["guard", "priest", "baron", "spy"])
@pytest.mark.parametrize("edition", ["classic", "2019"])
def test_never_plays_the_handmaid_on_the_last_turn_to_keep_a_lower_card(low: str, edition: str) -> None:
    if low == "spy" and edition == "classic":
        return
    # the pile's last card was just drawn: the round ends in a showdown after this play
    for protected in ([], [1, 2]):  # with targets, and with nobody to target
        table = Table.build(3, [["handmaid", low], ["countess"], ["prince"]], pile=[],
                            options={"edition": edition}, protected=protected)
        for seed in range(5):
            move = choose(table, seed)
            assert move["face"] != "handmaid", (low, protected, move)


def test_plays_the_handmaid_on_the_last_turn_only_to_keep_a_higher_card() -> None:
    table = Table.build(3, [["handmaid", "king"], ["guard"], ["priest"]], pile=[], protected=[1, 2])
    assert choose(table)["face"] == "handmaid"  # the King has nobody to swap with: keep it
