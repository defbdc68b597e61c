"""A typed move that names a card the player does not hold is refused saying so (``you hold no
Guard``), in each game's own card names; a card the moves name otherwise (a Guard's guess) is not
taken for one the player meant to play."""

from __future__ import annotations

from typing import Any

from prompt_toolkit.input import PipeInput

from engine.core import Decide
from engine.dealer import play_trusted
from engine.games import make_bot, make_game
from fairdeck.console import ConsoleUI
from fairdeck.console import moves as mv
from tests.engine.loveletter_support import Table
from tests.engine.test_regicide_rules import Table as RegicideTable
from tests.p2p.test_console import ENTER, decision, run_console, screen, until
from tests.p2p.test_console_support import MemNode

NAMES = ["ann", "bob", "cy", "dee"]


def _refusal(typed: str, game: Any, state: Any, faces: dict[int, str], prompt: str) -> str:
    options = mv.word_moves(game, state, 0, faces, game.legal_moves(state, 0, faces), NAMES)[1]
    assert mv.match(typed, options) == [], typed  # (a refusal is only asked for when nothing fits)
    return mv.explain_refusal(typed, game, state, 0, faces, options, NAMES, prompt)


def test_love_letter_a_card_not_in_the_hand_is_named() -> None:
    table = Table.build(4, [["priest", "handmaid"], ["baron"], ["king"], ["prince"]], ["guard"] * 2)
    faces = table.dealer.known_to(0)
    for typed in ("play guard", "guard 2 priest", "play the guard on bob", "play baron 1"):
        expected = "you hold no Baron" if "baron" in typed else "you hold no Guard"
        assert _refusal(typed, table.game, table.state, faces, "play") == expected, typed
    # a word that names no card still gets the words that would work
    assert _refusal("play zebra", table.game, table.state, faces, "play").startswith("no legal move matches")


def test_love_letter_a_guess_is_not_a_card_to_hold() -> None:
    # seat 2 is protected: the Guard's guess of a Priest the hand lacks is not what is wrong
    table = Table.build(
        4, [["guard", "handmaid"], ["baron"], ["king"], ["prince"]], ["priest"] * 2, protected=[2]
    )
    faces = table.dealer.known_to(0)
    text = _refusal("guard 2 priest", table.game, table.state, faces, "play")
    assert text.startswith("not allowed: ") and "protected" in text, text
    assert _refusal("play guard 1 guard", table.game, table.state, faces, "play").startswith("not allowed: ")


def test_regicide_a_card_not_in_the_hand_is_named_alone_or_in_a_combo() -> None:
    table = RegicideTable(3, hands=[["9S", "AC", "5H", "5D"], ["2D"], ["3D"]], enemy="QS")
    faces = table.own(0)
    assert _refusal("play 4d", table.game, table.state, faces, "play") == "you hold no 4D"
    assert _refusal("play 9s 4d", table.game, table.state, faces, "play") == "you hold no 4D"
    assert _refusal("play jester", table.game, table.state, faces, "play") == "you hold no Jester"


def _rebel_princess_play(seed: int) -> tuple[Any, Any, dict[int, str]]:
    """Seat 0's first ``play`` decision in a 4-seat Rebel Princess game, with its knowledge."""
    game = make_game("rebelprincess", 4)
    found: list[tuple[Any, dict[int, str]]] = []

    class Watcher:
        bot = make_bot("rebelprincess", "heuristic", seed)

        def choose(self, g, state, seat, own, prompt):  # type: ignore[no-untyped-def]
            if prompt == "play" and not found:
                found.append((state, dict(own)))
            return self.bot.choose(g, state, seat, own, prompt)

    bots = [make_bot("rebelprincess", "heuristic", f"{seed}-{i}") for i in range(1, 4)]
    play_trusted(game, [Watcher(), *bots], seed)
    state, faces = found[0]
    assert isinstance(game.pending(state), Decide)
    return game, state, faces


def test_rebel_princess_cards_are_named_as_the_game_names_them() -> None:
    # the first deal (in seed order) whose hand at seat 0's first play lacks the Frog (Pet 8)
    game, state, faces = next(
        (g, s, f)
        for g, s, f in map(_rebel_princess_play, range(50))
        if "pet-8" not in {f[r] for r in s.hands[0]}
    )
    held = {faces[r] for r in state.hands[0]}
    number = next(n for n in range(1, 11) if f"fairy-{n}" not in held)
    assert _refusal(f"play fairy {number}", game, state, faces, "play") == f"you hold no Fairy {number}"
    # its name and its number both name the Frog; it is said as the game names it
    assert _refusal("play frog", game, state, faces, "play") == "you hold no Frog"
    assert _refusal("play pet 8", game, state, faces, "play") == "you hold no Frog"


def test_the_console_says_which_card_you_do_not_hold() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        party = node.party
        faces = party.known_faces()
        held = {faces.get(r) for r in party.table.state.hands[party.seat]}
        used = {face for option in ui.decision.options for face in option.faces}
        missing = next(f for f in ("guard", "priest", "baron", "handmaid", "king") if f not in held | used)
        keys.send_text(f"play {missing}" + ENTER)
        words = f"you hold no {missing.capitalize()}"
        await until(lambda: ui.message[1] == words)
        assert node.sent == [] and ui.decision is not None
        assert words in screen(ui)

    run_console(MemNode("loveletter", 4, seed=3), script)


def test_regicide_a_solo_yield_is_refused_saying_yielding_is_off() -> None:
    table = RegicideTable(1, hands=[["9S", "AC", "5H"]], enemy="JC", options={"solo_yield_allowed": False})
    faces = table.own(0)
    for typed in ("yield", "yie"):
        said = _refusal(typed, table.game, table.state, faces, "play")
        off = "yielding is off in this solo game (the table's option solo_yield_allowed)"
        assert said == f"not allowed: {off}", said
    # (a move that names a real card still gets the card's words)
    assert _refusal("play 4d", table.game, table.state, faces, "play") == "you hold no 4D"


def _rebel_princess_follow(seed: int) -> tuple[Any, Any, dict[int, str], str, str] | None:
    """Seat 0 asked to play into a trick whose led suit it holds, with a card of another suit too:
    (game, state, faces, the led suit's name, the other card's words); ``None`` if no such play."""
    from engine.rebelprincess.cards import SUIT_NAMES, card_name, is_suit_face, suit_of
    from engine.rebelprincess.tricks import follow_suit

    game = make_game("rebelprincess", 4)
    found: list[tuple[Any, dict[int, str], str, str]] = []

    class Watcher:
        bot = make_bot("rebelprincess", "heuristic", seed)

        def choose(self, g, state, seat, own, prompt):  # type: ignore[no-untyped-def]
            if prompt == "play" and not found and state.trick and state.letter not in ("c", "s"):
                led = follow_suit(state.letter, state.trick)
                held = [own[r] for r in state.hands[0] if is_suit_face(own.get(r))]
                other = [f for f in held if suit_of(f) != led]
                if led in SUIT_NAMES and any(suit_of(f) == led for f in held) and other:
                    found.append((state, dict(own), SUIT_NAMES[led], card_name(other[0])))
            return self.bot.choose(g, state, seat, own, prompt)

    bots = [make_bot("rebelprincess", "heuristic", f"{seed}-{i}") for i in range(1, 4)]
    play_trusted(game, [Watcher(), *bots], seed)
    return (game, *found[0]) if found else None


def test_rebel_princess_not_following_the_led_suit_is_refused_saying_so() -> None:
    game, state, faces, suit, other = next(f for f in map(_rebel_princess_follow, range(50)) if f is not None)
    said = _refusal(f"play {other.removeprefix('the ')}", game, state, faces, "play")
    plural = {"Fairy": "Fairies", "Pet": "Pets", "Prince": "Princes", "Queen": "Queens"}[suit]
    assert said == f"not allowed: you must follow the led suit ({plural}) while you hold one", said
