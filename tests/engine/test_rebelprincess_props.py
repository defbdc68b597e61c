"""Property tests with the trusted dealer at 3-6 seats: conservation, termination, msgpack
round-trips, replay, ``check == []`` for honest games and exact detection of falsified claims."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Event, Face, GameOver, IllegalMove, RandomBot, Ref, Seat
from engine.dealer import Playthrough, play_trusted
from engine.rebelprincess import RebelPrincess, State
from engine.rebelprincess.cards import suit_of
from engine.rebelprincess.tricks import follows

SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.fixed_dictionaries(
    {
        "seats": st.integers(3, 6),
        "seed": st.integers(0, 2**32),
        "powers": st.booleans(),
        "edition": st.sampled_from(["deluxe", "zp"]),
        "rounds": st.sampled_from([5, 3]),
    }
)


def pack(value: Any) -> Any:
    """A msgpack round trip (int map keys allowed, as in the event format)."""
    return msgpack.unpackb(msgpack.packb(value), strict_map_key=False)


def build(params: Mapping[str, Any]) -> RebelPrincess:
    """The game for one example."""
    options = {"princess_powers": params["powers"], "edition": params["edition"], "rounds": params["rounds"]}
    return RebelPrincess(params["seats"], options)


def public_faces(game: RebelPrincess, history: list[Event]) -> dict[Ref, Face]:
    """Every face known to all after the game: the canonical deck, reveals and disclosures."""
    faces = dict(enumerate(game.deck()))
    for event in history:
        if event.kind in ("revealed", "disclosed"):
            faces.update(event.data["faces"])
    return faces


def assert_conserved(game: RebelPrincess, run: Playthrough, state: State) -> None:
    """Every suit card is in exactly one place while a round is on; hands are even at each lead."""
    assert run.dealer is not None
    refs = game.live_refs(state)
    assert len(refs) == len(set(refs))
    if refs:
        assert len(refs) == len(game.suit_cards)
        assert sorted(run.dealer.slots[r] for r in refs) == sorted(game.suit_cards)
    if state.step == "play" and not state.trick:
        assert len({len(h) for h in state.hands}) == 1


@SETTINGS
@given(games)
def test_honest_games_end_conserve_cards_round_trip_replay_and_check_clean(params: dict[str, Any]) -> None:
    game = build(params)
    n = params["seats"]
    run = play_trusted(game, [RandomBot(params["seed"] + i) for i in range(n)], params["seed"])
    final = run.final
    assert isinstance(game.pending(final), GameOver) and final.fault is None
    assert len(final.scores) in (params["rounds"], params["rounds"] + 1)
    result = game.result(final)
    assert result["winners"] and set(result["winners"]) <= set(range(n))
    assert result["scores"] == [sum(r[s] for r in final.scores) for s in range(n)]
    for state in run.states:
        assert_conserved(game, run, state)
    for state in run.states[:: max(1, len(run.states) // 40)] + [final]:
        assert game.state_from_dict(pack(state.to_dict())) == state
    history = [Event.from_dict(pack(e.to_dict())) for e in run.history]
    assert history == run.history
    replayed = game.initial_state()
    for event in history:
        replayed = game.apply(replayed, event)
    assert replayed == final
    assert run.dealer is not None
    assert game.check(run.history, dict(enumerate(run.dealer.slots))) == []
    assert game.check(run.history, public_faces(game, run.history)) == []


class Cheat:
    """An honest random bot that, once, plays off-suit while holding the suit to follow (claiming
    void), or lies about the face of its card (``lie``) - only where public facts cannot tell."""

    def __init__(self, seed: int, after: int, lie: bool) -> None:
        self.honest = RandomBot(seed)
        self.after = after
        self.lie = lie
        self.index: int | None = None

    def choose(
        self, game: Any, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """The honest move, or the one cheat once the moment comes."""
        honest = self.honest.choose(game, state, seat, own, prompt)
        if self.index is not None or state.step != "play" or state.events < self.after:
            return honest
        cheat = self._cheat(game, state, seat, own)
        if cheat is None:
            return honest
        try:
            game.apply(state, Event.move(seat, cheat))
        except IllegalMove:
            return honest
        self.index = state.events
        return cheat

    def _cheat(self, game: RebelPrincess, state: State, seat: Seat, own: Mapping[Ref, Face]) -> dict | None:
        hand = game.known_hand(state, seat, own)
        ctx = game.play_context(state, seat)
        if ctx.frozen >= 0:
            return None
        if self.lie:
            ref, face = hand[0]
            unseen = [f for f in game.suit_cards if suit_of(f) == suit_of(face) and f != face]
            unseen = [f for f in unseen if all(f != g for _, g in hand)]
            return {"card": ref, "face": unseen[0], "void": False} if unseen and not ctx.lead else None
        if ctx.lead or not any(follows(f, ctx) for _, f in hand):
            return None
        off = [(r, f) for r, f in hand if not follows(f, ctx)]
        return {"card": off[0][0], "face": off[0][1], "void": True} if off else None


@SETTINGS
@given(games, st.integers(0, 5), st.integers(30, 300))
def test_check_names_exactly_the_false_void_claim(params: dict[str, Any], cheater: int, after: int) -> None:
    game = build(params)
    n = params["seats"]
    cheat = Cheat(params["seed"], after, lie=False)
    agents = [cheat if s == cheater % n else RandomBot(params["seed"] + s) for s in range(n)]
    run = play_trusted(game, agents, params["seed"])
    assert run.dealer is not None
    found = game.check(run.history, dict(enumerate(run.dealer.slots)))
    if cheat.index is None:
        assert found == []
    else:
        assert [(v.index, v.seat) for v in found] == [(cheat.index, cheater % n)]
        assert game.check(run.history, public_faces(game, run.history)) == found


@SETTINGS
@given(games, st.integers(0, 5), st.integers(30, 300))
def test_a_false_face_claim_ends_the_game_at_that_event(
    params: dict[str, Any], cheater: int, after: int
) -> None:
    game = build(params)
    n = params["seats"]
    cheat = Cheat(params["seed"], after, lie=True)
    agents = [cheat if s == cheater % n else RandomBot(params["seed"] + s) for s in range(n)]
    run = play_trusted(game, agents, params["seed"])
    assert run.dealer is not None
    found = game.check(run.history, dict(enumerate(run.dealer.slots)))
    if cheat.index is None:
        assert found == [] and run.final.fault is None
    else:
        fault = run.final.fault
        assert fault is not None and (fault.index, fault.seat) == (cheat.index, cheater % n)
        assert game.is_over(run.final) and game.result(run.final)["winners"] == []
        assert [(v.index, v.seat) for v in found] == [(cheat.index, cheater % n)]


def test_the_cheats_above_really_cheat() -> None:
    for lie in (False, True):
        game = build({"seats": 4, "seed": 7, "powers": True, "edition": "deluxe", "rounds": 5})
        cheat = Cheat(7, 60, lie)
        run = play_trusted(game, [RandomBot(1), cheat, RandomBot(2), RandomBot(3)], 7)
        assert run.dealer is not None and cheat.index is not None
        found = game.check(run.history, dict(enumerate(run.dealer.slots)))
        assert [(v.index, v.seat) for v in found] == [(cheat.index, 1)]
        assert (run.final.fault is not None) == lie


junk = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 400) | st.sampled_from(["fairy-3", "pet-8", "x", "round-a"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "card",
                    "face",
                    "power",
                    "void",
                    "use",
                    "leader",
                    "suit",
                    "target",
                    "swap",
                    "keep",
                    "give",
                    "take",
                    "pass",
                    "aside",
                    "cards",
                    "freeze",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), junk)
def test_garbage_answers_raise_illegal_move_and_nothing_else(seed: int, pick: int, data: Any) -> None:
    game = RebelPrincess(3 + seed % 4)
    run = play_trusted(game, [RandomBot(seed + i) for i in range(game.seats)], seed % 50)
    state = run.states[pick % len(run.states)]
    request = game.pending(state)
    seat = getattr(request, "seat", 0)
    choices = {s: data for s in getattr(request, "seats", ())}
    before = state.to_dict()
    for event in (
        Event("move", seat, data if isinstance(data, dict) else {"card": data}),
        Event("committed", None, {"choices": choices}),
        Event("revealed", None, {"faces": {r: data for r in getattr(request, "refs", ())}}),
        Event("random", None, {"value": data}),
    ):
        try:
            game.apply(state, event)
        except IllegalMove as exc:
            assert str(exc)  # a clear message; any other exception fails the test
    assert state.to_dict() == before


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10**6))
def test_every_decision_padded_with_a_field_no_rule_reads_is_refused(seed: int) -> None:
    """Like the other games, a move or secret choice carries only its step's fields: a padded one
    (a covert channel in a signed move) is refused, at a decision and at a commit alike."""
    game = RebelPrincess(3 + seed % 4)
    run = play_trusted(game, [RandomBot(seed + i) for i in range(game.seats)], seed % 50)
    checked = set()
    for state, event in zip(run.states, run.history, strict=False):  # each event with the state it met
        if event.kind == "move":
            padded = Event("move", event.seat, {**event.data, "zz": 1})
            with pytest.raises(IllegalMove, match="unexpected fields"):
                game.apply(state, padded)
            game.apply(state, event)  # the move itself stays legal
        elif event.kind == "committed":
            seat, choice = next(iter(event.data["choices"].items()))
            with pytest.raises(IllegalMove, match="unexpected fields"):
                game.check_choice(state, seat, {**choice, "zz": 1})
        else:
            continue
        checked.add(state.step)
    assert {"play", "pass"} & checked
