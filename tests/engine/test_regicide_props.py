"""Regicide property tests over whole trusted games: conservation, termination, round-trips, replay,
clean audits of honest games, and exact reports of falsified claims."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import msgpack
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.core import DEALT, SHUFFLED, Event, Face, Game, GameOver, Ref, Seat
from engine.dealer import Playthrough, play_trusted
from engine.regicide import JESTERS, ROYAL_RANKS, SUITS, Regicide, State, tavern_faces, value_of
from engine.regicide.bots import make_bot
from engine.regicide.state import hand_order, is_jester

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, int, list[str], dict[str, Any]]:
    """Seat count, dealer seed, a bot level per seat, and options."""
    seats = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    levels = draw(st.lists(st.sampled_from(["random", "heuristic"]), min_size=seats, max_size=seats))
    options: dict[str, Any] = {
        "allow_overdiscard": draw(st.booleans()),
        "first_player": draw(st.integers(0, seats - 1)),
    }
    if seats == 1:
        options["solo_yield_allowed"] = draw(st.booleans())
    return seats, seed, levels, options


def _play(seats: int, seed: int, levels: list[str], options: dict[str, Any], agents: list[Any] | None = None):
    game = Regicide(seats, options)
    agents = agents or [make_bot(level, seed + i) for i, level in enumerate(levels)]
    return game, play_trusted(game, agents, seed)


def _truth(run: Playthrough) -> dict[Ref, Face]:
    assert run.dealer is not None
    return dict(enumerate(run.dealer.slots))


def _roundtrip(obj: dict[str, Any]) -> Any:
    return msgpack.unpackb(msgpack.packb(obj), strict_map_key=False)


def _expected_cards(seats: int) -> Counter[str]:
    royals = [r + s for s in SUITS for r in ROYAL_RANKS]
    solo_tokens = list(JESTERS) if seats == 1 else []
    return Counter([*tavern_faces(seats), *royals, *solo_tokens])


@SETTINGS
@given(tables())
def test_honest_games_conserve_terminate_roundtrip_replay_and_audit_clean(
    table: tuple[int, int, list[str], dict[str, Any]],
) -> None:
    seats, seed, levels, options = table
    game, run = _play(seats, seed, levels, options)
    truth = _truth(run)
    final: State = run.final
    # termination with a result
    assert isinstance(game.pending(final), GameOver)
    result = game.result(final)
    assert result["outcome"] in ("won", "lost") and result["fault"] is None
    assert 0 <= result["enemies_defeated"] <= 12
    assert (result["grade"] is not None) == (seats == 1 and result["outcome"] == "won")
    # conservation: after the opening deal every live ref is in exactly one zone
    expected = _expected_cards(seats)
    for state in run.states[6:]:
        refs = [r for zone in game.zones(state).values() for r in zone]
        assert len(refs) == len(set(refs)) == game.live_count
        assert Counter(truth[r] for r in refs) == expected
        assert all(truth[r] == face for r, face in state.public.items())  # public faces are true
        assert all(len(hand) <= game.hand_limit for hand in state.hands)
    # every hidden card is disclosed at the end (unless a fault stopped the game)
    assert game.hidden_refs(final) == ()
    # msgpack round-trips: states and events
    for state in run.states[:: max(1, len(run.states) // 15)] + [final]:
        assert game.state_from_dict(_roundtrip(state.to_dict())) == state
    events = [Event.from_dict(_roundtrip(e.to_dict())) for e in run.history]
    assert events == run.history
    # replay from the decoded log reproduces the final state
    state = game.initial_state()
    for event in events:
        state = game.apply(state, event)
    assert state == final
    # an honest game passes the audit
    assert game.check(events, truth) == []
    # descriptions of hidden operations never name a card
    face_word = re.compile(r"\b(?:10|[2-9AJQK])[HDCS]\b|\bX[12]\b")
    for before, event in zip(run.states, run.history, strict=False):
        line = game.describe(before, event)
        assert line and "not valid" not in line
        if event.kind in (DEALT, SHUFFLED):
            assert not face_word.search(line)


class Cheater:
    """Wraps a bot; at its first chance it makes one false claim of the given kind."""

    def __init__(self, kind: str, seed: int) -> None:
        self.kind = kind
        self.bot = make_bot("heuristic", seed)
        self.index: int | None = None
        self.claim: tuple[Ref, Face] | None = None

    def choose(
        self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """The bot's move, or the lie when the moment comes."""
        move = self.bot.choose(game, state, seat, own, prompt)
        if self.index is not None:
            return move
        assert isinstance(game, Regicide)
        hand = game.known_hand(state, seat, own)
        if self.kind == "cannot_pay" and prompt == "discard":
            attack = game.attack_due(state)
            public = sum(value_of(state.public[r]) for r in state.hands[seat] if r in state.public)
            if attack > 0 and public < attack <= sum(value_of(f) for _, f in hand):
                self.index = state.events
                return {"cannot_pay": True}
        if self.kind in ("play", "discard") and prompt == self.kind and self.kind in move and move[self.kind]:
            cards = [list(c) for c in move[self.kind]]
            for card in cards:
                ref, face = card
                if ref in state.public or face in JESTERS:
                    continue
                fake = self._unseen_twin(game, state, hand, face)
                if fake is not None:
                    card[1] = fake
                    self.index = state.events
                    self.claim = (ref, fake)
                    return {self.kind: cards}
        return move

    @staticmethod
    def _unseen_twin(game: Regicide, state: State, hand: list[tuple[Ref, Face]], face: Face) -> Face | None:
        """Another suit of the same rank that public information cannot rule out."""
        taken = set(state.public.values()) | {f for _, f in hand}
        for suit in SUITS:
            twin = face[:-1] + suit
            possible = twin[:-1] not in ROYAL_RANKS or twin in state.enemies_seen
            if twin != face and twin not in taken and twin in game.hand_faces and possible:
                return twin
        return None


def _cheat_game(kind: str, seats: int, seed: int) -> tuple[Regicide, Playthrough, Cheater]:
    cheater = Cheater(kind, seed)
    agents = [cheater] + [make_bot("heuristic", seed + i) for i in range(1, seats)]
    game, run = _play(seats, seed, [], {}, agents)
    return game, run, cheater


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_a_false_cannot_pay_is_reported_as_exactly_that_event(seats: int, seed: int) -> None:
    game, run, cheater = _cheat_game("cannot_pay", seats, seed)
    assume(cheater.index is not None)
    final = run.final
    assert final.outcome == "lost" and final.cannot_pay_index == cheater.index
    assert game.result(final)["fault"] is None  # only the audit can tell
    violations = game.check(run.history, _truth(run))
    assert len(violations) == 1
    assert violations[0].index == cheater.index and violations[0].seat == 0
    assert "could not pay" in violations[0].reason
    assert run.history[cheater.index].data == {"cannot_pay": True}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["play", "discard"]), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_a_false_claimed_face_is_reported_as_exactly_that_event(kind: str, seats: int, seed: int) -> None:
    game, run, cheater = _cheat_game(kind, seats, seed)
    assume(cheater.index is not None)
    assert cheater.claim is not None
    final = run.final
    assert isinstance(game.pending(final), GameOver)
    assert final.fault is not None and final.fault.index == cheater.index and final.fault.seat == 0
    assert len(run.history) == cheater.index + 2  # the lie, then the reveal that disproved it
    ref, fake = cheater.claim
    real = _truth(run)[ref]
    violations = game.check(run.history, _truth(run))
    assert len(violations) == 1
    assert violations[0].index == cheater.index and violations[0].seat == 0
    assert f"claimed card #{ref} was {fake} but it is {real}" in violations[0].reason
    assert game.result(final)["fault"] == final.fault.to_dict()


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_an_illegal_move_in_a_history_is_reported_and_stops_the_audit(seats: int, seed: int) -> None:
    game, run = _play(seats, seed, ["random"] * seats, {})
    history = list(run.history)
    first_move = next(i for i, e in enumerate(history) if e.kind == "move")
    seat = history[first_move].seat
    assert seat is not None
    history[first_move] = Event.move(seat, {"play": [[9999, "5H"]]})
    violations = game.check(history, _truth(run))
    assert len(violations) == 1 and violations[0].index == first_move
    assert "illegal move" in violations[0].reason and "not in your hand" in violations[0].reason


def test_public_view_hides_hands() -> None:
    game, run = _play(2, 7, ["heuristic", "heuristic"], {})
    truth = _truth(run)
    state = run.states[10]
    public = game.render(state, None, {})
    assert "Your hand" not in public
    seat0 = game.render(state, 0, run.dealer.known_to(0) if run.dealer else {})
    shown = seat0.split("Your hand: ")[1].split("\n")[0].split()
    # the hand in order (rank, then suit), a Jester by name
    held = sorted((truth[r] for r in state.hands[0]), key=hand_order)
    assert shown == ["Jester" if is_jester(face) else face for face in held]
