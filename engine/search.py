"""Determinized Monte Carlo search: the machinery of every game's "hard" bots.

A hard bot plays from its seat's knowledge only (the public state and ``own_faces``), as every bot
does. For a decision worth searching it

1. asks the game's heuristic bot to rank the legal moves and keeps the best few (*candidates*);
2. samples *worlds*: a face for every live card it cannot see, drawn from the cards it has not
   seen, consistent with what it knows (:meth:`SearchBot.sample`);
3. in every world, plays each candidate and then the rest of the game up to a *horizon* (the end of
   the round, of the trick, of the enemy...) with the heuristic bots in every seat, the table
   operations answered by a :class:`WorldDealer` that deals the sampled faces;
4. scores the end of each rollout from its seat's point of view (:meth:`SearchBot.value`) and
   plays the candidate with the best mean, but leaves the heuristic's first choice only for a
   candidate that beats it clearly (:meth:`SearchBot.pick`; common random numbers: every candidate
   meets the same worlds and the same rollout seeds, so the paired comparison is fair with few
   samples).

This is perfect-information Monte Carlo over determinizations (Ginsberg's GIB, Long et al. 2010):
cheap, and strong where hidden cards matter mostly through chance. Its budget is a fixed number of
worlds and candidates, never a clock, so a hard bot is deterministic from its seed like every bot.
The budgets of the three games keep a decision well under a second on a laptop core.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.core import Decide, Event, Face, Game, GameOver, Ref, Seat, legal_moves_or_fail
from engine.dealer import TrustedDealer


class WorldDealer(TrustedDealer):
    """A trusted dealer for one sampled world: ``faces`` gives every live ref a face; ``known`` is
    what each seat knows at the start (its own cards and the public ones)."""

    def __init__(
        self,
        game: Game,
        next_ref: int,
        faces: Mapping[Ref, Face],
        known: Sequence[Mapping[Ref, Face]],
        seed: Any,
    ) -> None:
        super().__init__(game, seed)
        deck = list(game.deck())
        self.slots = [deck[r] if r < len(deck) else "" for r in range(next_ref)]
        for ref, face in faces.items():
            if ref < next_ref:
                self.slots[ref] = face
        self.knowledge = [dict(k) for k in known]


def rollout(
    game: Game,
    state: Any,
    dealer: TrustedDealer,
    agents: Sequence[Any],
    stop: Callable[[Any], bool],
    max_events: int,
) -> Any:
    """Play on from ``state`` until ``stop(state)``, the end of the game or ``max_events``."""

    def choose(seat: Seat, prompt: str) -> dict[str, Any]:
        return agents[seat].choose(game, state, seat, dealer.known_to(seat), prompt)

    for _ in range(max_events):
        if stop(state):
            return state
        request = game.pending(state)
        if isinstance(request, GameOver):
            return state
        if isinstance(request, Decide):
            event = Event.move(request.seat, choose(request.seat, request.prompt))
        else:
            event = dealer.resolve(request, choose)
        state = game.apply(state, event)
    return state


class SearchBot:
    """A determinized Monte Carlo bot (see the module docstring); each game subclasses it.

    ``worlds``: worlds sampled per decision; ``candidates``: moves searched (the heuristic's best
    ones); ``max_events``: a rollout's length cap; ``confidence``: how many standard errors a
    candidate must beat the heuristic's choice by. Subclasses implement :meth:`heuristic`,
    :meth:`ranked`, :meth:`sample`, :meth:`stop` and :meth:`value`, and may narrow :meth:`worth`.
    """

    level = "hard"

    def __init__(
        self,
        seed: int | str | bytes = 0,
        worlds: int = 8,
        candidates: int = 4,
        max_events: int = 400,
        confidence: float = 1.0,
    ) -> None:
        self.rng = random.Random(seed if not isinstance(seed, bytes) else seed.hex())
        self.worlds = worlds
        self.confidence = confidence
        self.candidates = candidates
        self.max_events = max_events
        self.fallback = self.heuristic(self.rng.random())
        self.searched = 0
        """How many decisions were searched (for measurements)."""

    # -- what each game provides -----------------------------------------------------------------
    def heuristic(self, seed: Any) -> Any:
        """A heuristic bot: the rollout policy, the ranking and the fallback."""
        raise NotImplementedError

    def ranked(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str,
               moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``moves`` best first, by the heuristic's judgement (one per distinct idea is enough)."""
        raise NotImplementedError

    def sample(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face],
               rng: random.Random) -> tuple[dict[Ref, Face], list[dict[Ref, Face]]]:
        """One world: a face for every live ref, and what each seat knows in it."""
        raise NotImplementedError

    def stop(self, game: Game, start: Any, state: Any) -> bool:
        """True once a rollout from ``start`` has gone far enough."""
        raise NotImplementedError

    def value(self, game: Game, start: Any, end: Any, seat: Seat, faces: Sequence[Face]) -> float:
        """How good ``end`` is for ``seat`` (``faces[ref]``: the world's faces, for scoring)."""
        raise NotImplementedError

    def worth(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str) -> bool:
        """Whether this decision is searched at all (the default: every one with a choice)."""
        return True

    # -- the search ------------------------------------------------------------------------------
    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """The candidate with the best mean value over the sampled worlds."""
        moves = legal_moves_or_fail(game, state, seat, own_faces, prompt)
        if len(moves) == 1 or not self.worth(game, state, seat, own_faces, prompt):
            return self.fallback.choose(game, state, seat, own_faces, prompt)
        ranked = self.ranked(game, state, seat, own_faces, prompt, moves)[: self.candidates]
        if len(ranked) <= 1:
            return ranked[0] if ranked else self.fallback.choose(game, state, seat, own_faces, prompt)
        self.searched += 1
        game = self._simulator(game)
        values: list[list[float]] = [[] for _ in ranked]
        for _ in range(self.worlds):
            faces, known = self.sample(game, state, seat, own_faces, self.rng)
            seed = self.rng.random()
            for i, move in enumerate(ranked):
                values[i].append(self._play_out(game, state, seat, prompt, move, faces, known, seed))
        return ranked[self.pick(values)]

    def pick(self, values: list[list[float]]) -> int:
        """The candidate to play: the heuristic's first choice (index 0) unless another one beats it
        over the same worlds by more than ``confidence`` standard errors of the paired difference
        (so that few samples do not turn the heuristic's judgement into noise)."""
        best, best_margin = 0, 0.0
        n = len(values[0])
        for i in range(1, len(values)):
            diffs = [a - b for a, b in zip(values[i], values[0], strict=True)]
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
            margin = mean - self.confidence * (var / n) ** 0.5
            if mean > 0 and margin > best_margin:
                best, best_margin = i, margin
        return best

    def _simulator(self, game: Game) -> Game:
        """A private copy of ``game`` for rollouts (``Game.simulating``: no knowledge model)."""
        cached = getattr(self, "_sim", None)
        if cached is None or cached[0] is not game:
            sim = copy.copy(game)
            sim.simulating = True
            self._sim = (game, sim)
        return self._sim[1]

    def _play_out(self, game: Game, state: Any, seat: Seat, prompt: str, move: dict[str, Any],
                  faces: dict[Ref, Face], known: list[dict[Ref, Face]], seed: float) -> float:
        dealer = WorldDealer(game, _next_ref(state, faces), faces, known, seed)
        agents = [self.heuristic(f"{seed}/{s}") for s in range(game.seats)]
        request = game.pending(state)
        if isinstance(request, Decide):
            after = game.apply(state, Event.move(seat, move))
        else:  # our part of a Commit: the others choose in the world, as they would
            choices = {s: move if s == seat else agents[s].choose(game, state, s, dealer.known_to(s), prompt)
                       for s in request.seats}
            after = game.apply(state, Event("committed", None, {"choices": choices}))
        end = rollout(game, after, dealer, agents, lambda st: self.stop(game, state, st), self.max_events)
        return self.value(game, state, end, seat, dealer.slots)


def _next_ref(state: Any, faces: Mapping[Ref, Face]) -> int:
    return max(getattr(state, "next_ref", 0), max(faces, default=-1) + 1)


def deal_unseen(refs: Sequence[Ref], unseen: Sequence[Face], rng: random.Random) -> dict[Ref, Face]:
    """Give ``refs`` the faces ``unseen`` in a random order (as many refs as faces)."""
    faces = list(unseen)
    rng.shuffle(faces)
    return dict(zip(refs, faces, strict=True))
