"""Trusted mode: a seeded dealer that knows every card and resolves table operations in-process.

Used for bots' simulations, property tests, and as the baseline that the fair (cryptographic) mode
is measured against. It follows exactly the knowledge rules of the fair mode: a seat knows a face
once it was dealt or shown to it, or made public; a shuffle makes the fresh refs unknown to all.
Its randomness is a private ``random.Random`` seeded by the caller, never the global generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.core import (
    COMMITTED,
    DEALT,
    DISCLOSED,
    RANDOM,
    REVEALED,
    SHOWN,
    SHUFFLED,
    Commit,
    Deal,
    Decide,
    Disclose,
    Event,
    Face,
    Game,
    GameOver,
    Random,
    Ref,
    Request,
    Reveal,
    Seat,
    Show,
    Shuffle,
)


class Agent(Protocol):
    """Anything that chooses moves for one seat: a bot, or a person behind a UI."""

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """Return one legal move for ``seat`` (a ``Decide`` or ``Commit`` prompt)."""
        ...


class TrustedDealer:
    """Holds the true face of every ref and each seat's knowledge."""

    def __init__(self, game: Game, seed: int | str | bytes) -> None:
        self.game = game
        self._rng = random.Random(seed if not isinstance(seed, bytes) else seed.hex())
        self.slots: list[Face] = list(game.deck())
        self.public: dict[Ref, Face] = dict(enumerate(self.slots))  # the canonical deck is public
        self.knowledge: list[dict[Ref, Face]] = [{} for _ in range(game.seats)]

    def known_to(self, seat: Seat) -> dict[Ref, Face]:
        """Every face ``seat`` knows: public ones and those dealt or shown to it."""
        return {**self.public, **self.knowledge[seat]}

    def resolve(self, request: Request, choose: Callable[[Seat, str], dict[str, Any]]) -> Event:
        """Answer a table operation; ``choose(seat, prompt)`` is asked for Commit choices."""
        if isinstance(request, Shuffle):
            faces = [self.slots[r] for r in request.refs]
            self._rng.shuffle(faces)
            self.slots.extend(faces)
            return Event(SHUFFLED)
        if isinstance(request, Deal):
            for ref, seat in request.deals:
                self.knowledge[seat][ref] = self.slots[ref]
            return Event(DEALT)
        if isinstance(request, Show):
            for ref, seat in request.shows:
                self.knowledge[seat][ref] = self.slots[ref]
            return Event(SHOWN)
        if isinstance(request, Reveal | Disclose):
            faces = {ref: self.slots[ref] for ref in request.refs}
            self.public.update(faces)
            return Event(REVEALED if isinstance(request, Reveal) else DISCLOSED, None, {"faces": faces})
        if isinstance(request, Random):
            return Event(RANDOM, None, {"value": self._rng.randrange(request.n)})
        if isinstance(request, Commit):
            return Event(COMMITTED, None, {"choices": {s: choose(s, request.prompt) for s in request.seats}})
        raise TypeError(f"not a table operation: {request!r}")


@dataclass
class Playthrough:
    """A finished (or stopped) trusted game: every event in order and every state after each."""

    game: Game
    history: list[Event] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    dealer: TrustedDealer | None = None

    @property
    def final(self) -> Any:
        """The last state."""
        return self.states[-1]


def play_trusted(
    game: Game,
    agents: Sequence[Agent],
    seed: int | str | bytes,
    max_events: int = 200_000,
    on_event: Callable[[Any, Event], None] | None = None,
) -> Playthrough:
    """Play a whole game with a trusted dealer; ``on_event(state_before, event)`` sees each step."""
    dealer = TrustedDealer(game, seed)
    state = game.initial_state()
    run = Playthrough(game, [], [state], dealer)

    def choose(seat: Seat, prompt: str) -> dict[str, Any]:
        return agents[seat].choose(game, state, seat, dealer.known_to(seat), prompt)

    for _ in range(max_events):
        request = game.pending(state)
        if isinstance(request, GameOver):
            return run
        if isinstance(request, Decide):
            event = Event.move(request.seat, choose(request.seat, request.prompt))
        else:
            event = dealer.resolve(request, choose)
        if on_event is not None:
            on_event(state, event)
        state = game.apply(state, event)
        run.history.append(event)
        run.states.append(state)
    raise RuntimeError(f"{game.name} did not end within {max_events} events")
