"""The knowledge model (``engine.core.Knowledge``) and issue #17's property over whole games.

The property: at every point of every game (all three games, every seat count), whatever a seat can
link between a live ref and its face — what the dealing layer told it: faces dealt or shown to it,
revealed faces, the canonical deck — is no more than the knowledge model allows. The model follows
the physical table (a look, a show or a reveal teaches; a card leaving a hand face down without the
rest of it was chosen in private, so nobody else can follow it or the cards left behind), so the
property holds only if every engine re-masks what it mixes face down.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import (
    Deal,
    Decide,
    Event,
    Game,
    GameOver,
    Knowledge,
    RandomBot,
    Reveal,
    Show,
    Shuffle,
)
from engine.dealer import TrustedDealer
from engine.loveletter import LoveLetter
from engine.loveletter.bots import make_bot as love_letter_bot
from engine.rebelprincess import RebelPrincess
from engine.rebelprincess.rounds import LETTERS
from engine.regicide import Regicide
from engine.regicide.bots import make_bot as regicide_bot

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------------------------
# The model on its own
# ---------------------------------------------------------------------------------------------


def test_table_operations_teach_and_shuffles_forget() -> None:
    k = Knowledge.start(4, 3)
    assert k.of(0) == {0, 1, 2, 3}  # the canonical deck is public
    k = k.learn(Shuffle((0, 1, 2, 3)), Event("shuffled"))
    assert k.of(0) == set() and k.of(2) == set()
    k = k.learn(Deal(((4, 0), (5, 1))), Event("dealt"))
    k = k.learn(Show(((5, 2),)), Event("shown"))
    assert k.of(0) == {4} and k.of(1) == {5} and k.of(2) == {5}
    assert k.others_know((5,), 1) and not k.others_know((4,), 0)
    k = k.learn(Reveal((6,)), Event("revealed", None, {"faces": {6: "x"}}))
    assert 6 in k.of(0) and k.others_know((6,), 0)


def _known(seen: dict[int, tuple[int, ...]]) -> Knowledge:
    return Knowledge((), tuple(seen.get(s, ()) for s in range(3)))


def test_a_card_leaving_a_hand_face_down_unlinks_the_whole_hand_for_everyone_else() -> None:
    k = _known({0: (1, 2, 3), 1: (2,), 2: (3,)})  # seat 1 and seat 2 each know one card of seat 0's hand
    before = ((0, (1, 2, 3)), (1, ()), (2, ()))
    after = ((0, (1, 3)), (1, (2,)), (2, ()))  # seat 0 passes card 2 to seat 1 face down
    moved = k.moved(before, after, face_up=())
    assert moved.of(0) == {1, 2, 3}  # the owner knows what it passed and what it kept
    assert moved.of(1) == {2}  # the receiver holds the card it knew
    assert moved.of(2) == set()  # card 3 may have been the one passed: seat 2 lost track of it


def test_a_card_played_face_up_or_a_whole_hand_moved_teaches_nothing_new() -> None:
    k = _known({0: (1, 2), 2: (2,)})
    before = ((0, (1, 2)), (1, ()), (2, ()))
    played = k.moved(before, ((0, (2,)), (1, ()), (2, ())), face_up={1})
    assert played.of(2) == {2}  # a card played face up: the one left is still followed
    handed = k.moved(before, ((0, ()), (1, (1, 2)), (2, ())), face_up=())
    assert handed.of(2) == {2}  # the whole hand handed over: followed
    split = k.moved(before, ((0, ()), (1, (1,)), (2, (2,))), face_up=())
    assert split.of(2) == {2}  # two destinations, but seat 2 now holds the card it knew
    assert split.of(1) == set()


def test_public_cards_in_a_hand_are_forgotten_by_everyone_after_a_private_split() -> None:
    k = Knowledge((2,), ((1, 2, 3), (), ()))  # card 2 came back to seat 0's hand face up (Mulan)
    moved = k.moved(((0, (1, 2, 3)), (1, ())), ((0, (1, 3)), (1, (2,))), face_up=())
    assert 2 not in moved.public and moved.of(0) == {1, 2, 3} and moved.of(1) == {2}
    moved = k.moved(((0, (1, 2, 3)), (1, ())), ((0, (2, 3)), (1, (1,))), face_up=())
    assert moved.of(1) == set() and moved.of(2) == set()


# ---------------------------------------------------------------------------------------------
# The property over whole games
# ---------------------------------------------------------------------------------------------


def play_checking(
    game: Game,
    agents: Sequence[Any],
    seed: int,
    live: Callable[[Any], Sequence[int]],
    max_events: int = 100_000,
) -> tuple[Any, int]:
    """Play a whole trusted game; after every event, check every seat's links against the model."""
    dealer = TrustedDealer(game, seed)
    state = game.initial_state()
    checked = 0

    def choose(seat: int, prompt: str) -> dict[str, Any]:
        return agents[seat].choose(game, state, seat, dealer.known_to(seat), prompt)

    for _ in range(max_events):
        request = game.pending(state)
        if isinstance(request, GameOver):
            return state, checked
        if isinstance(request, Decide):
            event = Event.move(request.seat, choose(request.seat, request.prompt))
        else:
            event = dealer.resolve(request, choose)
        state = game.apply(state, event)
        refs = set(live(state))
        for seat in range(game.seats):
            linked = refs & set(dealer.known_to(seat))
            extra = sorted(linked - state.knowledge.of(seat))
            assert not extra, (
                f"after event {state.events - 1} ({event.kind}, step {getattr(state, 'step', '')}): seat "
                f"{seat} can link {extra} ({[dealer.slots[r] for r in extra]}), which the knowledge "
                "model says it cannot know"
            )
            checked += 1
    raise AssertionError("the game did not end")


@SETTINGS
@given(
    seats=st.integers(3, 6),
    seed=st.integers(0, 2**32),
    letters=st.permutations(LETTERS).map(lambda p: "".join(p[:3])),
    powers=st.booleans(),
    edition=st.sampled_from(["deluxe", "zp"]),
)
def test_rebel_princess_no_seat_links_more_than_the_model_allows(
    seats: int, seed: int, letters: str, powers: bool, edition: str
) -> None:
    options = {"rounds": 3, "round_cards": letters, "princess_powers": powers, "edition": edition}
    game = RebelPrincess(seats, options)
    agents = [RandomBot(seed + s) for s in range(seats)]
    final, checked = play_checking(game, agents, seed, game.live_refs)
    assert final.fault is None and checked > 0


@SETTINGS
@given(
    edition=st.sampled_from(["classic", "2019"]),
    seats=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    levels=st.lists(st.sampled_from(["random", "heuristic"]), min_size=6, max_size=6),
)
def test_love_letter_no_seat_links_more_than_the_model_allows(
    edition: str, seats: int, seed: int, levels: list[str]
) -> None:
    if edition == "classic":
        seats = min(seats, 4)
    game = LoveLetter(seats, {"edition": edition})
    agents = [love_letter_bot(levels[s], f"{seed}/{s}") for s in range(seats)]
    final, checked = play_checking(game, agents, seed, game.live_refs)
    assert final.fault is None and checked > 0


@SETTINGS
@given(
    seats=st.integers(1, 4),
    seed=st.integers(0, 2**32),
    levels=st.lists(st.sampled_from(["random", "heuristic"]), min_size=4, max_size=4),
    overdiscard=st.booleans(),
)
def test_regicide_no_seat_links_more_than_the_model_allows(
    seats: int, seed: int, levels: list[str], overdiscard: bool
) -> None:
    game = Regicide(seats, {"allow_overdiscard": overdiscard})
    agents = [regicide_bot(levels[s], seed + s) for s in range(seats)]

    def live(state: Any) -> list[int]:
        return [r for refs in game.zones(state).values() for r in refs]

    final, checked = play_checking(game, agents, seed, live)
    assert final.fault is None and checked > 0
