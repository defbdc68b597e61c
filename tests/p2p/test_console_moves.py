"""Moves in words, typed commands, completion and refusals (``fairdeck.console.moves``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import present
from engine.core import Decide, Event, Face, Ref
from engine.dealer import play_trusted
from engine.games import make_bot, make_game
from engine.rebelprincess.cards import hand_order
from fairdeck.console import moves as mv
from tests.engine.loveletter_support import Table

NAMES = ["ann", "bob", "cy", "dee"]


def _options(table: Table, seat: int = 0) -> tuple[str, list[mv.MoveOption]]:
    faces = table.dealer.known_to(seat)
    legal = table.game.legal_moves(table.state, seat, faces)
    return mv.word_moves(table.game, table.state, seat, faces, legal, NAMES)


def test_love_letter_moves_are_worded_with_names_and_without_the_actor() -> None:
    table = Table.build(4, [["guard", "priest"], ["baron"], ["king"], ["prince"]], ["handmaid"] * 2)
    heading, options = _options(table)
    words = [o.words for o in options]
    assert heading == ""
    assert "plays the Guard on seat 2 (cy), guessing the Priest" in words
    assert "plays the Priest on seat 3 (dee)" in words
    assert not any(w.startswith("seat 0") for w in words)
    assert [o.number for o in options] == list(range(1, len(options) + 1))


def test_a_typed_command_picks_the_one_move_it_fits() -> None:
    table = Table.build(4, [["guard", "priest"], ["baron"], ["king"], ["prince"]], ["handmaid"] * 2)
    _, options = _options(table)
    (chosen,) = mv.match("play guard 2 priest", options)
    assert chosen.move["target"] == 2 and chosen.move["guess"] == "priest"
    (by_name,) = mv.match("guard cy baron", options)
    assert by_name.move["target"] == 2 and by_name.move["guess"] == "baron"
    # filler words may be added or left out; a prefix of a word is enough
    assert mv.match("play the pri on seat 1", options)[0].move["target"] == 1
    assert len(mv.match("play guard 2", options)) == 7  # every guess but the Guard (EC-1)
    assert mv.match("3", options) == [options[2]]
    # the closest fit wins: a whole word over the start of a longer one
    assert mv.match("guard 2 prince", options)[0].move["guess"] == "prince"
    assert len(mv.match("guard 2 prin", options)) == 2
    assert mv.match("play baron 1", options) == []
    # "play priest" is the Priest, not a Guard guessing the Priest (tight matches win)
    assert {o.move["face"] for o in mv.match("play priest", options)} == {"priest"}


def test_number_words_match_whole_numbers_only() -> None:
    assert present._word_matches("4", "4d")
    assert not present._word_matches("1", "10c")
    assert not present._word_matches("4", "40")
    assert present._word_matches("10", "10c")


def test_completion_offers_the_next_words_that_fit() -> None:
    table = Table.build(4, [["guard", "priest"], ["baron"], ["king"], ["prince"]], ["handmaid"] * 2)
    _, options = _options(table)
    assert set(mv.next_words("pl", options)) == {"plays"}
    assert mv.common_completion("pl", options) == "plays "
    after_guard = mv.next_words("plays the guard on seat 2 cy guessing the ", options)
    assert {"priest", "baron", "handmaid", "prince", "king", "countess", "princess"} <= set(after_guard)
    assert mv.next_words("plays the guard on seat 2 cy guessing the pri", options) == [
        "priest",
        "prince",
        "princess",
    ]


def test_refusals_give_the_rule_before_anything_is_sent() -> None:
    # the Countess rule (EC-8): the King cannot be played while holding the Countess
    table = Table.build(4, [["king", "countess"], ["baron"], ["guard"], ["prince"]], ["handmaid"] * 2)
    _, options = _options(table)
    faces = table.dealer.known_to(0)
    text = mv.explain_refusal("play king 1", table.game, table.state, 0, faces, options, NAMES, "play")
    assert "Countess" in text and text.startswith("not allowed")
    # a protected seat cannot be targeted: the engine's own reason is given
    table = Table.build(
        4, [["guard", "priest"], ["baron"], ["king"], ["prince"]], ["handmaid"] * 2, protected=[2]
    )
    _, options = _options(table)
    text = mv.explain_refusal(
        "guard 2 baron", table.game, table.state, 0, table.dealer.known_to(0), options, NAMES, "play"
    )
    assert "protected" in text
    # a card that is not in the hand: the person is told so
    text = mv.explain_refusal(
        "play baron 1", table.game, table.state, 0, table.dealer.known_to(0), options, NAMES, "play"
    )
    assert text == "you hold no Baron"
    # words that name no card: the person is told what would work
    text = mv.explain_refusal(
        "play zebra 1", table.game, table.state, 0, table.dealer.known_to(0), options, NAMES, "play"
    )
    assert text.startswith("no legal move matches 'play zebra 1'")
    assert mv.explain_refusal("99", table.game, table.state, 0, {}, options, NAMES, "play").startswith(
        "there is no move 99"
    )


def _first_decision(game_name: str, seats: int, prompt: str, seed: int = 0, options=None):  # type: ignore[no-untyped-def]
    """The first state where seat 0 must answer ``prompt``, with seat 0's knowledge."""
    game = make_game(game_name, seats, options)
    found = []

    class Watcher:
        def __init__(self) -> None:
            self.bot = make_bot(game_name, "heuristic", seed)

        def choose(self, g, state, seat, own, p):  # type: ignore[no-untyped-def]
            if p == prompt and not found:
                found.append((state, dict(own)))
            return self.bot.choose(g, state, seat, own, p)

    agents = [Watcher()] + [make_bot(game_name, "heuristic", i) for i in range(1, seats)]
    play_trusted(game, agents, seed)
    assert found, f"no {prompt} decision in this game"
    return game, found[0][0], found[0][1]


def test_secret_choices_are_told_apart_by_their_cards() -> None:
    game, state, faces = _first_decision("rebelprincess", 4, "princess")
    legal = game.legal_moves(state, 0, faces)
    heading, options = mv.word_moves(game, state, 0, faces, legal, NAMES)
    assert heading  # the shared description of the secret choice
    assert len(options) == 2 and len({o.words for o in options}) == 2
    assert all(o.words.startswith("keep ") for o in options)
    assert all(o.faces == (faces[o.move["keep"]],) for o in options)


def test_a_pass_split_between_two_neighbours_says_who_gets_which_card() -> None:
    # Arranged Marriage: pass 1 left (to seat 1) and 1 right (to seat 3); the move lists left first
    game, state, faces = _first_decision("rebelprincess", 4, "pass", options={"round_cards": "eabcd"})
    legal = game.legal_moves(state, 0, faces)
    heading, options = mv.word_moves(game, state, 0, faces, legal, NAMES)
    assert "1 left and 1 right" in heading and "Yours go to" not in heading  # each move says it
    assert len(options) == len(legal) == 10 * 9  # an ordered pair: which card goes which way matters
    for option in options:
        left, right = (present.face_label(game, faces[r]) for r in option.move["pass"])
        assert option.words == f"pass {left} to seat 1 (bob), {right} to seat 3 (dee)"
    # listed in card order (suit, then number), not in the order of the hand's refs
    keys = [[hand_order(faces[r]) for r in option.move["pass"]] for option in options]
    assert keys == sorted(keys)
    # a pass all one way still lists the cards alone
    game, state, faces = _first_decision("rebelprincess", 4, "pass", options={"round_cards": "abcde"})
    heading, options = mv.word_moves(game, state, 0, faces, game.legal_moves(state, 0, faces), NAMES)
    assert "pass 3 right" in heading and all(" to seat" not in o.words for o in options)
    assert heading.endswith("Yours go to seat 3 (dee)."), heading  # the heading says who that is


def test_regicide_refusal_names_the_combo_rule() -> None:
    game = make_game("regicide", 2)
    run = play_trusted(game, [make_bot("regicide", "heuristic", i) for i in range(2)], 5)
    for state in run.states:
        request = game.pending(state)
        if isinstance(request, Decide) and request.seat == 0 and request.prompt == "play":
            break
    faces = run.dealer.known_to(0)
    hand = [faces[r] for r in state.hands[0]]
    numbers = [f for f in hand if f[:-1].isdigit() and int(f[:-1]) >= 6]
    big = [f for f in hand if f[:-1].isdigit()]
    legal = game.legal_moves(state, 0, faces)
    _, options = mv.word_moves(game, state, 0, faces, legal, NAMES)
    pair = next(
        ((a, b) for a in numbers for b in big if a != b and a[:-1] != b[:-1] and "A" not in (a[0], b[0])),
        None,
    )
    assert pair is not None, hand
    text = mv.explain_refusal(f"play {pair[0]} {pair[1]}", game, state, 0, faces, options, NAMES, "play")
    assert text.startswith("not allowed: "), text


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), stop=st.integers(0, 60))
def test_every_move_is_picked_by_its_own_words(seed: int, stop: int) -> None:
    """Typing a move's whole menu line picks exactly that move, whatever the game state."""
    game = make_game("loveletter", 4)
    states = []

    def watch(state, event: Event) -> None:  # type: ignore[no-untyped-def]
        states.append(state)

    run = play_trusted(
        game, [make_bot("loveletter", "random", f"{seed}-{i}") for i in range(4)], seed, on_event=watch
    )
    for state in states[stop:] + states[:stop]:
        request = game.pending(state)
        if isinstance(request, Decide):
            break
    else:  # pragma: no cover - every game has decisions
        raise AssertionError("no decision")
    seat = request.seat
    # the dealer's knowledge at the end includes this seat's cards at that time
    faces = {r: f for r, f in enumerate(run.dealer.slots)}
    legal = game.legal_moves(state, seat, faces)
    _, options = mv.word_moves(game, state, seat, faces, legal, NAMES)
    for option in options:
        assert mv.match(option.words, options) == [option]


def test_me_stands_for_yourself_and_the_countess_rule_is_the_reason() -> None:
    table = Table.build(4, [["prince", "guard"], ["baron"], ["king"], ["priest"]], ["handmaid"] * 2)
    _, options = _options(table)
    (chosen,) = mv.match("prince me", options)  # the README's example
    assert chosen.move["face"] == "prince" and chosen.move["target"] == 0
    table = Table.build(4, [["prince", "countess"], ["baron"], ["guard"], ["king"]], ["handmaid"] * 2)
    _, options = _options(table)
    faces = table.dealer.known_to(0)
    for typed in ("play prince", "prince me", "play prince 2"):
        text = mv.explain_refusal(typed, table.game, table.state, 0, faces, options, NAMES, "play")
        assert (
            text == "not allowed: " + "you hold the Countess: she must be played when your other card "
            "is the King or a Prince"
        ), (typed, text)


def test_several_cards_may_be_typed_in_any_order() -> None:
    game = make_game("regicide", 2)
    words = [
        "discards 3S, 3C (worth 6) against an attack of 6",
        "discards 6C (worth 6) against an attack of 6",
    ]
    options = [
        mv.MoveOption(i + 1, {"n": i}, w, tuple(present.tokenize(w)), (), any_order=True)
        for i, w in enumerate(words)
    ]
    assert [o.number for o in mv.match("discard 3c 3s", options)] == [1]
    assert [o.number for o in mv.match("discard 3s 3c", options)] == [1]
    assert mv.match("3c discard", options) == []  # the verb still comes first
    # the cards alone, in any order, stand for the menu's verb and those cards
    assert [o.number for o in mv.match("3c 3s", options)] == [1]
    assert [o.number for o in mv.match("3s 3c", options)] == [1]
    assert mv.match("3c 4s", options) == []
    assert game.name == "regicide"


def test_a_set_of_cards_typed_exactly_is_that_move_and_a_jester_is_named() -> None:
    from tests.engine.test_regicide_rules import Table as RegicideTable

    table = RegicideTable(3, hands=[["9S", "AC", "X1", "5H", "5D"], ["2D"], ["3D"]], enemy="QS")
    faces = table.own(0)
    legal = table.game.legal_moves(table.state, 0, faces)
    _, options = mv.word_moves(table.game, table.state, 0, faces, legal, NAMES)
    words = {o.words for o in options}
    assert "plays 9S (attack 9)" in words and "plays AC + 9S (attack 10, doubled by Clubs: 20)" in words
    jester_words = "cancels the enemy's immunity, no enemy attack, its player picks who goes next"
    assert f"plays Jester (attack 0, {jester_words})" in words and not any("X1" in w for w in words)
    # "play 9s" lists every play holding the 9S; Enter takes the cards typed and no others
    assert {o.words.split(" (")[0] for o in mv.match("play 9s", options)} == {"plays 9S", "plays AC + 9S"}
    alone = mv.pick("play 9s", options)
    assert alone is not None and [f for _, f in alone.move["play"]] == ["9S"]
    for typed in ("ac 9s", "9s ac", "play ac 9s", "play 9s ac"):  # in any order, with or without the verb
        (pair,) = mv.match(typed, options)
        assert sorted(f for _, f in pair.move["play"]) == ["9S", "AC"], typed
        assert mv.pick(typed, options) is pair
    jester = mv.pick("play jester", options)
    assert jester is not None and [f for _, f in jester.move["play"]] == ["X1"]
    assert len(mv.match("play 5", options)) > 1  # 5H or 5D: still for the player to say
    assert mv.pick("play 5", options) is None
    # single cards come before combinations: the highlighted move spends the fewest cards
    sizes = [len(option.move["play"]) for option in options if "play" in option.move]
    assert sizes == sorted(sizes) and sizes[0] == 1


def test_regicide_combos_read_in_rank_order_and_a_typed_card_lists_every_play_with_it() -> None:
    """The newcomer's hand: labels put the cards in one order (rank, then suit: the Ace first), and
    a typed card lists every play that holds it, not only the card alone (``ac`` finds the Ace's
    eight plays, ``play 5h`` the pair of fives too); Tab after ``ac`` offers every companion."""
    from tests.engine.test_regicide_rules import Table as RegicideTable

    hand = ["9S", "5S", "AC", "8D", "2H", "9H", "4S", "6C"]
    table = RegicideTable(2, hands=[hand, ["2D"]], enemy="JS")
    faces = table.own(0)
    legal = table.game.legal_moves(table.state, 0, faces)
    _, options = mv.word_moves(table.game, table.state, 0, faces, legal, NAMES)
    order = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "1"]
    for option in (o for o in options if "play" in o.move and len(o.move["play"]) > 1):  # rank order
        cards = option.words.split(" (")[0].removeprefix("plays ").split(" + ")
        assert [order.index(c[0]) for c in cards] == sorted(order.index(c[0]) for c in cards), option.words
    with_ace = [o for o in options if "AC" in [f for _, f in o.move.get("play", [])]]
    assert len(with_ace) == 8
    assert mv.match("ac", options) == with_ace
    assert {o.words.split(" (")[0] for o in mv.match("play 9h", options)} == {"plays 9H", "plays AC + 9H"}
    assert set(mv.next_words("ac ", options)) >= {"2h", "4s", "5s", "6c", "8d", "9h", "9s"}
    # a pair of fives, typed by one of them
    table = RegicideTable(2, hands=[["5C", "5H", "KD"], ["2D"]], enemy="JS")
    faces = table.own(0)
    _, options = mv.word_moves(
        table.game, table.state, 0, faces, table.game.legal_moves(table.state, 0, faces), NAMES
    )
    assert {o.words.split(" (")[0] for o in mv.match("play 5h", options)} == {"plays 5H", "plays 5H + 5C"}
    picked = mv.pick("play 5h", options)
    assert picked is not None and [f for _, f in picked.move["play"]] == ["5H"]


def _solo_regicide_choice_between_a_jester_and_defeat() -> tuple[Any, Any, dict[Ref, Face]]:
    """A solo Regicide decision where the hand cannot absorb the attack and a Jester is left."""
    game = make_game("regicide", 1)

    class Watcher:
        def __init__(self, seed: int) -> None:
            self.bot = make_bot("regicide", "heuristic", seed)
            self.found: list[tuple[Any, dict[Ref, Face]]] = []

        def choose(self, g, state, seat, own, p):  # type: ignore[no-untyped-def]
            legal = g.legal_moves(state, seat, own)
            if not self.found and {"cannot_pay": True} in legal and {"jester_power": True} in legal:
                self.found.append((state, dict(own)))
            return self.bot.choose(g, state, seat, own, p)

    for seed in range(200):
        watcher = Watcher(seed)
        play_trusted(game, [watcher], seed)
        if watcher.found:
            return game, *watcher.found[0]
    raise AssertionError("no solo game came to a choice between a Jester and defeat")


def test_declaring_defeat_is_listed_after_a_jester_and_asked_first() -> None:
    # newcomer trial 6: Enter on the first, highlighted move lost the game while a Jester could save it
    game, state, faces = _solo_regicide_choice_between_a_jester_and_defeat()
    _, options = mv.word_moves(game, state, 0, faces, game.legal_moves(state, 0, faces), NAMES)
    last = options[-1]
    assert last.move == {"cannot_pay": True}
    assert last.caution == "the game is lost" and last.words.endswith("(the game is lost)")
    assert options[0].move == {"jester_power": True} and not options[0].caution


def test_defeat_with_nothing_else_to_choose_is_said_but_not_asked_about() -> None:
    # (asked about when it was the only move, Enter went back to the same menu for ever)
    game = make_game("regicide", 2)

    class Watcher:
        def __init__(self, bot: Any) -> None:
            self.bot = bot
            self.only: list[tuple[Any, dict[Ref, Face]]] = []

        def choose(self, g, state, seat, own, p):  # type: ignore[no-untyped-def]
            if not self.only and g.legal_moves(state, seat, own) == [{"cannot_pay": True}]:
                self.only.append((state, dict(own)))
            return self.bot.choose(g, state, seat, own, p)

    for seed in range(100):
        watchers = [Watcher(make_bot("regicide", "heuristic", f"{seed}-{i}")) for i in range(2)]
        play_trusted(game, watchers, seed)
        for seat, watcher in enumerate(watchers):
            if watcher.only:
                state, faces = watcher.only[0]
                legal = game.legal_moves(state, seat, faces)
                _, options = mv.word_moves(game, state, seat, faces, legal, NAMES)
                assert len(options) == 1 and options[0].words.endswith("(the game is lost)")
                assert options[0].caution == ""
                return
    raise AssertionError("no co-op game left a seat with defeat as its only move")
