"""Love Letter properties over whole trusted games: invariants, replay, check, and caught lies."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Decide, Event, Face, IllegalMove, Ref, Seat
from engine.dealer import Agent, Playthrough, play_trusted
from engine.loveletter import NAMES, LoveLetter, State
from engine.loveletter.bots import make_bot

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw: st.DrawFn) -> tuple[LoveLetter, list[str], int]:
    """A game (edition, seats, options), a bot level per seat, and a seed."""
    edition = draw(st.sampled_from(["classic", "2019"]))
    seats = draw(st.integers(2, 4 if edition == "classic" else 6))
    first = draw(st.none() | st.integers(0, seats - 1))
    options: dict[str, Any] = {"edition": edition, "first_player": first}
    if seats == 2:
        options["two_player_faceup_removal"] = draw(st.booleans())
    if edition == "classic":
        options["final_tie_policy"] = draw(st.sampled_from(["none", "all_tied_win"]))
    levels = draw(st.lists(st.sampled_from(["random", "heuristic"]), min_size=seats, max_size=seats))
    return LoveLetter(seats, options), levels, draw(st.integers(0, 2**32))


def play(game: LoveLetter, levels: list[str], seed: int, agents: list[Agent] | None = None) -> Playthrough:
    agents = agents or [make_bot(level, f"{seed}/{seat}") for seat, level in enumerate(levels)]
    return play_trusted(game, agents, seed)


def locations(state: State) -> list[Ref]:
    """Every ref the state places somewhere this round."""
    refs = [] if state.set_aside is None else [state.set_aside]
    refs += [*state.faceup, *state.pile]
    for hand, row in zip(state.hands, state.discards, strict=True):
        refs += [*hand, *row]
    return refs


def mentioned(line: str) -> set[str]:
    return {face for face, name in NAMES.items() if re.search(rf"\b{name}\b", line)}


def public_names(before: State, after: State, event: Event) -> set[str]:
    """Faces a description may name: public in either state, or carried by the event itself."""
    names = set(before.faces.values()) | set(after.faces.values())
    names |= {v for k, v in event.data.items() if k in ("face", "guess") and isinstance(v, str)}
    names |= set(event.data.get("faces", {}).values())
    if before.play is not None:
        names |= {before.play.face, before.play.guess or ""}
    return names


# ---------------------------------------------------------------------------------------------
# Honest games
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(tables())
def test_honest_games_keep_every_invariant(setup: tuple[LoveLetter, list[str], int]) -> None:
    game, levels, seed = setup
    run = play(game, levels, seed)
    dealer = run.dealer
    assert dealer is not None
    final = run.final
    # termination, with a proper winner
    assert game.is_over(final) and final.fault is None
    result = game.result(final)
    assert result["winners"] and all(final.tokens[w] == max(final.tokens) >= game.threshold
                                     for w in result["winners"])
    deck = Counter(game.deck())
    for index, state in enumerate(run.states):
        # msgpack round trip of every state
        packed = msgpack.unpackb(msgpack.packb(state.to_dict()), strict_map_key=False)
        assert game.state_from_dict(packed) == state
        if state.round == 0:
            continue
        # conservation: every live ref in exactly one place; their faces are the deck
        live = list(game.live_refs(state))
        assert sorted(locations(state)) == live, index
        assert Counter(dealer.slots[r] for r in live) == deck
        # the public faces are the true ones
        assert all(dealer.slots[r] == f for r, f in state.faces.items())
        # ... of live refs, or of refs re-masked this round (disclosed at its end for the audit)
        assert set(state.faces) <= set(live) | set(state.buried)
        assert not set(state.buried) & set(live)
    # honest games have no violations
    assert game.check(run.history, dict(enumerate(dealer.slots))) == []


@SETTINGS
@given(tables())
def test_replaying_the_history_reproduces_every_state(setup: tuple[LoveLetter, list[str], int]) -> None:
    game, levels, seed = setup
    run = play(game, levels, seed)
    state = game.initial_state()
    for event, expected in zip(run.history, run.states[1:], strict=True):
        # events survive the wire, too (int keys of revealed faces included)
        wire = Event.from_dict(msgpack.unpackb(msgpack.packb(event.to_dict()), strict_map_key=False))
        before = state
        state = game.apply(state, wire)
        assert state == expected
        line = game.describe(before, wire)
        assert line and "rejected" not in line
        assert mentioned(line) <= public_names(before, state, wire), line
    assert state == run.final


@settings(max_examples=15, deadline=None)
@given(tables())
def test_every_legal_move_is_accepted(setup: tuple[LoveLetter, list[str], int]) -> None:
    game, levels, seed = setup
    run = play(game, levels, seed)
    assert run.dealer is not None
    deciding = 0
    for state, event in zip(run.states, run.history, strict=False):
        request = game.pending(state)
        if not isinstance(request, Decide):
            continue
        deciding += 1
        # the dealer's knowledge at the end is a superset of the seat's at the time; only
        # the seat's hand matters for its legal moves, and that was known then
        moves = game.legal_moves(state, request.seat, run.dealer.known_to(request.seat))
        assert moves and dict(event.data) in moves
        for move in moves:
            game.apply(state, Event.move(request.seat, move))
        other = (request.seat + 1) % game.seats
        assert game.legal_moves(state, other, run.dealer.known_to(other)) == []
    assert deciding > 0


# ---------------------------------------------------------------------------------------------
# Dishonest seats
# ---------------------------------------------------------------------------------------------

Lie = Callable[[LoveLetter, State, Seat, Mapping[Ref, Face], str], dict[str, Any] | None]


def _honest(game: LoveLetter, state: State, seat: Seat, own: Mapping[Ref, Face]) -> dict[str, Any]:
    return game.legal_moves(state, seat, own)[0]


def lie_guard_miss(game: LoveLetter, state: State, seat: Seat, own: Mapping[Ref, Face],
                   prompt: str) -> dict[str, Any] | None:
    """Deny a Guard hit."""
    if prompt == "guard_answer" and _honest(game, state, seat, own) == {"hit": True}:
        return {"hit": False}
    return None


def lie_guard_hit(game: LoveLetter, state: State, seat: Seat, own: Mapping[Ref, Face],
                  prompt: str) -> dict[str, Any] | None:
    """Claim a Guard hit that is not one (the reveal disproves it at once)."""
    if prompt == "guard_answer" and _honest(game, state, seat, own) == {"hit": False}:
        return {"hit": True}
    return None


def lie_baron(game: LoveLetter, state: State, seat: Seat, own: Mapping[Ref, Face],
              prompt: str) -> dict[str, Any] | None:
    """Report a wrong Baron result."""
    if prompt != "baron_result" or state.play is None:
        return None
    truth = _honest(game, state, seat, own)["loser"]
    return {"loser": state.play.target if truth is None else None}


def lie_countess(game: LoveLetter, state: State, seat: Seat, own: Mapping[Ref, Face],
                 prompt: str) -> dict[str, Any] | None:
    """Play the King or a Prince while holding the Countess."""
    if prompt != "play":
        return None
    faces = {r: own[r] for r in state.hands[seat]}
    countess = [r for r, f in faces.items() if f == "countess"]
    forcer = [r for r, f in faces.items() if f in ("king", "prince")]
    if not countess or not forcer:
        return None
    blind = {**own, countess[0]: "guard"}  # legal_moves without the Countess constraint
    moves = [m for m in game.legal_moves(state, seat, blind) if m["card"] == forcer[0]]
    return moves[0] if moves else None


def lie_face(game: LoveLetter, state: State, seat: Seat, own: Mapping[Ref, Face],
             prompt: str) -> dict[str, Any] | None:
    """Claim a different face for the card played."""
    if prompt != "play":
        return None
    for move in game.legal_moves(state, seat, own):
        if move["target"] is None and move["face"] not in ("king", "prince"):
            for claim in ("handmaid", "countess"):
                if claim != move["face"]:
                    return {**move, "face": claim}
    return None


LIES: dict[str, Lie] = {
    "guard_miss": lie_guard_miss,
    "guard_hit": lie_guard_hit,
    "baron": lie_baron,
    "countess": lie_countess,
    "face": lie_face,
}


class Liar:
    """Plays like ``inner`` but tells one lie of the given kind at the first chance."""

    def __init__(self, inner: Agent, lie: Lie) -> None:
        self.inner = inner
        self.lie = lie
        self.lied_at: int | None = None

    def choose(self, game: Any, state: Any, seat: Seat, own_faces: Mapping[Ref, Face],
               prompt: str) -> dict[str, Any]:
        if self.lied_at is None:
            move = self.lie(game, state, seat, own_faces, prompt)
            if move is not None:
                try:
                    game.apply(state, Event.move(seat, move))  # public checks must pass
                except IllegalMove:
                    move = None
            if move is not None:
                self.lied_at = state.events
                return move
        return self.inner.choose(game, state, seat, own_faces, prompt)


def play_with_liar(game: LoveLetter, levels: list[str], seed: int, liar_seat: int,
                   kind: str) -> tuple[Playthrough, Liar]:
    agents: list[Agent] = [make_bot(level, f"{seed}/{seat}") for seat, level in enumerate(levels)]
    liar = Liar(agents[liar_seat], LIES[kind])
    agents[liar_seat] = liar
    return play(game, levels, seed, agents), liar


def assert_caught(game: LoveLetter, run: Playthrough, liar: Liar, seat: int) -> None:
    assert run.dealer is not None
    violations = game.check(run.history, dict(enumerate(run.dealer.slots)))
    if liar.lied_at is None:
        assert violations == []
    else:
        assert [(v.index, v.seat) for v in violations] == [(liar.lied_at, seat)], violations


@pytest.mark.parametrize("kind", sorted(LIES))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=tables(), liar_seat=st.integers(0, 5))
def test_exactly_the_falsified_claim_is_reported(kind: str, setup: tuple[LoveLetter, list[str], int],
                                                 liar_seat: int) -> None:
    game, levels, seed = setup
    seat = liar_seat % game.seats
    run, liar = play_with_liar(game, levels, seed, seat, kind)
    assert_caught(game, run, liar, seat)


@pytest.mark.parametrize("kind", sorted(LIES))
def test_each_kind_of_lie_occurs_and_is_caught(kind: str) -> None:
    """Guards the property above against being vacuous: lies do happen, and each is caught."""
    game = LoveLetter(4)
    caught = 0
    for seed in range(300):
        run, liar = play_with_liar(game, ["random"] * 4, seed, seed % 4, kind)
        if liar.lied_at is not None:
            assert_caught(game, run, liar, seed % 4)
            caught += 1
            if kind in ("guard_hit", "face"):  # disproved at once: the game stops on a fault
                assert run.final.fault is not None and run.final.fault.index == liar.lied_at
            if caught == 3:
                break
    assert caught == 3
