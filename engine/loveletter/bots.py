"""Love Letter bots: the shared random bot, a heuristic bot that reasons about unseen cards, and a
hard bot (:class:`HardBot`: determinized Monte Carlo search over the heuristic, ``--level hard``).

The heuristic bot sees exactly what its seat may see: the public ``State`` and ``own_faces`` (every
ref the seat knows: public ones, its own cards, and what a Priest, King or Baron showed it, which
stays attached to the ref as long as the card can be followed; the engine re-masks a hand whose
cards go under the pile). It scores every legal move:

- the card kept matters (the higher, the better; much more so near the end of the pile);
- a Guard names the most likely unseen face of the most promising target, or a card it knows;
- a Baron is played when the odds of winning the comparison beat the odds of losing it;
- a Prince goes after a known (or likely) Princess, or the leader; a King swaps a low card for a
  better one; the Princess is never discarded by choice;
- harmful effects prefer the seat with the most tokens;
- on the last turn (the pile is empty after its draw, so the round ends in a showdown after this
  play) only the kept card and effects that change the showdown count: the Handmaid's protection,
  a Priest's look and a Chancellor are worth nothing then, and a Baron risks nothing the showdown
  would not, so it never keeps a lower card to play the Handmaid.

It always answers Guard and Baron claims honestly (the only answer ``legal_moves`` offers).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Face, Game, RandomBot, Ref, Seat, legal_moves_or_fail
from engine.dealer import play_trusted
from engine.search import SearchBot, deal_unseen

from .game import LoveLetter, State
from .state import DISCLOSE, OVER, SHUFFLE

__all__ = ["HardBot", "HeuristicBot", "RandomBot", "make_bot", "win_rate"]


class _View:
    """What one seat knows right now: the faces of live refs and the multiset of unseen cards."""

    def __init__(self, game: LoveLetter, state: State, seat: Seat, own_faces: Mapping[Ref, Face]) -> None:
        self.game = game
        self.state = state
        self.seat = seat
        self.known: dict[Ref, Face] = {}
        for ref in game.live_refs(state):
            face = state.faces.get(ref, own_faces.get(ref))
            if face is not None:
                self.known[ref] = face
        seen = Counter(self.known.values())
        self.unseen: Counter[Face] = Counter(
            {f: game.counts[f] - seen[f] for f in game.counts if game.counts[f] > seen[f]}
        )
        self.total = sum(self.unseen.values())
        self.max_value = max(game.values.values())

    def card_of(self, seat: Seat) -> Face | None:
        """The face of ``seat``'s single card, if this seat knows it."""
        hand = self.state.hands[seat]
        return self.known.get(hand[0]) if len(hand) == 1 else None

    def chance(self, seat: Seat, face: Face) -> float:
        """Probability that ``seat`` holds ``face``."""
        known = self.card_of(seat)
        if known is not None:
            return 1.0 if known == face else 0.0
        return self.unseen[face] / self.total if self.total else 0.0

    def distribution(self, seat: Seat) -> dict[Face, float]:
        """Probability of each face for ``seat``'s card."""
        known = self.card_of(seat)
        if known is not None:
            return {known: 1.0}
        if not self.total:
            return {}
        return {f: n / self.total for f, n in self.unseen.items()}

    def expected_unseen_value(self) -> float:
        """Mean value of a card this seat has not seen."""
        if not self.total:
            return 0.0
        return sum(self.game.values[f] * n for f, n in self.unseen.items()) / self.total

    def best_guess(self, seat: Seat) -> tuple[Face, float]:
        """The non-Guard face most likely in ``seat``'s hand, and its probability."""
        known = self.card_of(seat)
        if known is not None and known != "guard":
            return known, 1.0
        candidates = [f for f in self.game.faces_by_value if f != "guard"]
        # Ties go to the higher value: high cards are the ones that win showdowns.
        face = max(candidates, key=lambda f: (self.unseen[f], self.game.values[f]))
        return face, 0.0 if known == "guard" else self.chance(seat, face)


class HeuristicBot:
    """Scores each legal move from the seat's own knowledge; ties are broken by its own ``Random``."""

    level = "heuristic"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self.rng = random.Random(seed)

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """Pick a move for ``prompt`` (``play``, ``guard_answer``, ``baron_result``, ``chancellor``)."""
        moves = legal_moves_or_fail(game, state, seat, own_faces, prompt)
        if not isinstance(game, LoveLetter) or prompt in ("guard_answer", "baron_result"):
            return moves[0]  # the honest answer is the only one offered
        view = _View(game, state, seat, own_faces)
        if prompt == "chancellor":
            return self._chancellor(view, moves)
        scored = [(self._score(view, move), self.rng.random(), i) for i, move in enumerate(moves)]
        return moves[max(scored)[2]]

    # -- scoring ------------------------------------------------------------------------------
    def _chancellor(self, view: _View, moves: list[dict[str, Any]]) -> dict[str, Any]:
        values = view.game.values
        best = max(values[view.known[m["keep"]]] for m in moves)
        return self.rng.choice([m for m in moves if values[view.known[m["keep"]]] == best])

    def _score(self, view: _View, move: dict[str, Any]) -> float:
        game, state, seat = view.game, view.state, view.seat
        face: Face = move["face"]
        target: Seat | None = move["target"]
        kept_refs = [r for r in state.hands[seat] if r != move["card"]]
        kept = view.known.get(kept_refs[0]) if kept_refs else None
        kept_value = game.values[kept] if kept is not None else 0
        top = view.max_value
        alive = len(game.in_round(state))
        last_turn = not state.pile  # the showdown follows this play: only the kept card matters
        # Near the end the kept card decides the showdown.
        keep_weight = 2.0 if last_turn else 0.8 if len(state.pile) <= alive else 0.25
        score = keep_weight * kept_value / top
        if target is not None and target != seat:
            score += 0.05 * state.tokens[target]
        if face == "princess":
            return score - 100.0
        if face == "guard":
            if target is not None:
                score += view.chance(target, move["guess"])
        elif face == "priest":
            if target is not None and not last_turn:
                score += 0.02 if view.card_of(target) is not None else 0.25
        elif face == "baron":
            # on the last turn the comparison is the showdown's own, so it risks nothing extra
            if target is not None and not last_turn:
                win = lose = 0.0
                for f, p in view.distribution(target).items():
                    if game.values[f] < kept_value:
                        win += p
                    elif game.values[f] > kept_value:
                        lose += p
                score += win - 1.5 * lose
        elif face == "handmaid":
            if not last_turn:  # protection until a next turn that will never come is worthless
                score += 0.35 + (0.2 if kept == "princess" else 0.0)
        elif face == "prince":
            if target == seat:
                if kept == "princess":
                    return score - 100.0
                # Trade the kept card for an unseen one; the keep bonus no longer applies.
                gain = 0.3 * (view.expected_unseen_value() - kept_value) / top
                score += gain - keep_weight * kept_value / top
            elif target is not None:
                known = view.card_of(target)
                score += view.chance(target, "princess") + 0.1
                if known is not None:
                    score += 0.3 * game.values[known] / top
        elif face == "king":
            if target is not None:
                known = view.card_of(target)
                theirs = game.values[known] if known is not None else view.expected_unseen_value()
                score += 0.6 * (theirs - kept_value) / top - 0.1
                if kept == "princess":
                    score -= 2.0
        elif face == "countess":
            score += 0.1
        elif face == "spy":
            score += 0.25
        elif face == "chancellor":
            score += 0.3 if not last_turn else 0.0
        return score


class HardBot(SearchBot):
    """Determinized Monte Carlo search (:mod:`engine.search`) over the heuristic bot.

    For a card to play it keeps the heuristic's best move for each (card, target) pair, samples
    ``worlds`` deals of the cards it has not seen (the other hands, the pile, the set-aside card:
    every unseen card of the edition, in a random order; in each world the other seats know what the
    knowledge model says they have seen, such as this seat's card after a Priest), plays each
    candidate in each world and the round out with heuristic bots in every seat, and plays the
    candidate that wins the round most often (a token, the Spy bonus, and the game, count), unless
    the heuristic's own first choice is as good within the sampling noise. Guard answers and Baron
    results have one honest answer; a Chancellor's choice is the heuristic's.
    """

    def __init__(self, seed: int | str | bytes = 0, worlds: int = 16, candidates: int = 6) -> None:
        super().__init__(seed, worlds=worlds, candidates=candidates, max_events=400)

    def heuristic(self, seed: Any) -> HeuristicBot:
        """The rollout policy and fallback."""
        return HeuristicBot(seed)

    def worth(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str) -> bool:
        """Only the card to play is searched."""
        return prompt == "play" and isinstance(game, LoveLetter)

    def ranked(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str,
               moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The heuristic's best move per (card, target), best first."""
        assert isinstance(game, LoveLetter)
        view = _View(game, state, seat, own)
        best: dict[tuple[Any, Any], tuple[float, int, dict[str, Any]]] = {}
        for i, move in enumerate(moves):
            key = (move["face"], move["target"])
            score = self.fallback._score(view, move)
            if key not in best or score > best[key][0]:
                best[key] = (score, i, move)
        return [m for _, _, m in sorted(best.values(), key=lambda x: (-x[0], x[1]))]

    def sample(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face],
               rng: random.Random) -> tuple[dict[Ref, Face], list[dict[Ref, Face]]]:
        """Every unseen card of the edition, dealt at random to the refs this seat cannot see."""
        assert isinstance(game, LoveLetter)
        live = game.live_refs(state)
        known = {r: f for r in live if (f := state.faces.get(r) or own.get(r)) is not None}
        unseen = Counter(game.deck())
        unseen.subtract(Counter(known.values()))
        faces = {**known, **deal_unseen([r for r in live if r not in known], list(unseen.elements()), rng)}
        # who has seen which card is public (the knowledge model): a Priest's look, a Baron's
        # comparison, a King's swap; in the world, those seats know those faces
        seen_by = state.knowledge
        knows = [
            {r: faces[r] for r in live if r in state.hands[s] or seen_by.knows(s, r)}
            for s in range(game.seats)
        ]
        knows[seat] = dict(known)
        return faces, knows

    def stop(self, game: Game, start: Any, state: Any) -> bool:
        """The round is over."""
        return state.round != start.round or state.phase in (DISCLOSE, SHUFFLE, OVER)

    def value(self, game: Game, start: Any, end: Any, seat: Seat, faces: Sequence[Face]) -> float:
        """Tokens won this round, and the game."""
        value = float(end.tokens[seat] - start.tokens[seat])
        if end.winners:
            value += 2.0 if seat in end.winners else -1.0
        return value


def make_bot(level: str, seed: int | str | bytes) -> RandomBot | HeuristicBot | HardBot:
    """A Love Letter bot: ``"random"`` (uniform legal moves), ``"heuristic"`` or ``"hard"``."""
    if level == "random":
        return RandomBot(seed)
    if level == "heuristic":
        return HeuristicBot(seed)
    if level == "hard":
        return HardBot(seed)
    raise ValueError(f"unknown bot level {level!r}; choose 'random', 'heuristic' or 'hard'")


def win_rate(
    games: int, seed: int | str, seats: int = 4, options: Mapping[str, Any] | None = None
) -> float:
    """Fraction of ``games`` trusted games won by one heuristic bot against ``seats - 1`` random bots.

    The heuristic bot changes seat every game (game ``g`` puts it at seat ``g % seats``) so no
    seat is favoured; every game has its own seed derived from ``seed``.
    """
    if games <= 0:
        raise ValueError("games must be positive")
    game = LoveLetter(seats, options)
    wins = 0
    for g in range(games):
        hero = g % seats
        agents = [
            HeuristicBot(f"{seed}/{g}/{s}") if s == hero else RandomBot(f"{seed}/{g}/{s}")
            for s in range(seats)
        ]
        run = play_trusted(game, agents, f"{seed}/{g}")
        if hero in game.result(run.final)["winners"]:
            wins += 1
    return wins / games
