"""Regicide bots: ``make_bot("random" | "heuristic" | "hard", seed)``; :class:`HardBot` is the
heuristic with determinized Monte Carlo search on its close calls (survival first).

:class:`HeuristicBot` is a co-operative one-ply evaluator. It sees only what its seat may see: the
public state and its own hand (it never reads another hand, which respects Regicide's no-sharing
rule; other hands are known only by their public sizes). For every legal option it estimates a
score in "card value" units:

- cards leaving the hand cost their *utility* (value, plus a bonus for the suit power they carry,
  plus flexibility for Aces and Jesters);
- damage is worth its points up to the enemy's remaining health (overkill is wasted), a kill is
  worth the enemy's attack (it will not hit again), and an exact kill also the royal it puts on top
  of the Tavern;
- Spades are worth the attack they remove this turn (a smaller discard) and, in part, on later
  turns; Diamonds are worth the expected utility of the cards drawn (the known face-up royal on top
  of the Tavern, then the average of the unseen cards); Hearts are worth more as the Tavern runs low;
- when the hand left after a play cannot pay the attack and only the cards a Diamonds play draws
  might cover it, the death is weighed by the chance that they do not (a slim chance of surviving
  always beats a certain loss);
- the cheapest legal discard for the attack still due is subtracted, and a hand that could not pay
  is fatal — except in solo with a Jester left, where the bot prices a Step 4 refill instead;
- a hand left too weak for the next attack is penalised.

Yields, Jesters (3-4 players: skip the attack, cancel immunity, pick the seat with most cards or
oneself with a kill in hand) and the solo Jester power (Step 1 only with a hopeless hand; Step 4
when paying would cost more than a refill) compete in the same units.

The weights were tuned by coordinate search on fixed seeds (solo, then four players). Measured on
1,000 fresh trusted games each (default options): solo 28.7% won (0.3% gold, 5.8% silver, 22.6%
bronze), 2 players 30.2%, 3 players 47.9%, 4 players 24.1%; random bots win none.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Face, Game, RandomBot, Ref, Seat, legal_moves_or_fail
from engine.search import SearchBot, deal_unseen

from .game import (
    ENEMY_ATTACK,
    ENEMY_HEALTH,
    JESTERS,
    ROYAL_RANKS,
    SUITS,
    Regicide,
    State,
    is_jester,
    rank_of,
    suit_of,
    tavern_faces,
    value_of,
)

SOLO_WEIGHTS: dict[str, float] = {
    "dmg": 0.6,  # per point of useful damage
    "kill": 0.64,  # x the enemy's attack, for defeating it
    "exact": 0.6,  # x the utility of the royal put on top of the Tavern by an exact kill
    "shield_future": 1.5,  # x attack removed, for later turns against the same enemy
    "draw_me": 0.72,  # x expected utility of a card I draw
    "draw_other": 0.7,  # x expected utility of a card a partner draws
    "heal": 0.9,  # x expected utility of a healed card when the Tavern is empty
    "safety": 1.0,  # per point of attack my hand could not cover afterwards
    "yield": 2.0,  # flat penalty for making no progress
    "jester_power": 65.6,  # cost of spending one solo Jester
    "jester_card": 12.0,  # utility of a Jester card in hand (3-4 players)
    "ace": 2.5,  # flexibility of an Ace
    "death": 1000.0,
    "doom": 9.6,  # flat penalty for a hand that cannot cover the next attack
    "setup": 5.0,  # bonus for keeping an exact kill in hand for next turn
    "setup_kill": 0.0,  # x setup, for keeping any (inexact) kill (0: measured no help)
    "bonus_C": 0.192,  # suit-power bonus, x the card's value (low: Clubs are for playing)
    "bonus_D": 0.9,
    "bonus_S": 0.24,
    "bonus_H": 0.15,
    "heal_need": 0.6,  # extra Hearts bonus (x value) when the Tavern is empty
    "low_tavern": 18.0,  # Tavern size below which Hearts start to matter
}
"""Solo weights of :class:`HeuristicBot`, in card-value units (coordinate search, 300 solo games)."""

TEAM_WEIGHTS: dict[str, float] = {
    **SOLO_WEIGHTS,
    "dmg": 0.9,
    "kill": 0.307,
    "shield_future": 0.9,
    "draw_me": 0.432,
    "heal": 1.35,
    "doom": 14.4,
    "bonus_C": 0.115,
    "heal_need": 0.36,
}
"""2-4 player weights (the same search from the solo weights, 400 four-player games)."""

DEFAULT_WEIGHTS = SOLO_WEIGHTS
"""The names of every weight (the solo set); override some with ``HeuristicBot(weights=...)``."""

Card = tuple[Ref, Face]


def cheapest_discard(
    values: Sequence[int], costs: Sequence[float], attack: int, overdiscard: bool
) -> float | None:
    """The smallest total cost of a legal discard (OQ-4) covering ``attack``; ``None`` if impossible."""
    if attack <= 0:
        return 0.0
    n = len(values)
    if sum(values) < attack:
        return None
    size = 1 << n
    sums = [0] * size
    tops = [0] * size
    cost = [0.0] * size
    best: float | None = None
    for mask in range(1, size):
        low = mask & -mask
        i = low.bit_length() - 1
        prev = mask ^ low
        sums[mask] = sums[prev] + values[i]
        tops[mask] = max(tops[prev], values[i])
        cost[mask] = cost[prev] + costs[i]
        valid = sums[mask] >= attack and (overdiscard or sums[mask] - tops[mask] < attack)
        if valid and (best is None or cost[mask] < best):
            best = cost[mask]
    return best


class _View:
    """What the bot's seat knows, pre-digested for one decision."""

    def __init__(
        self, game: Regicide, state: State, seat: Seat, own_faces: Mapping[Ref, Face], w: dict[str, float]
    ):
        self.game = game
        self.state = state
        self.seat = seat
        self.w = w
        self.hand: list[Card] = game.known_hand(state, seat, own_faces)
        enemy = game.enemy_face(state)
        self.enemy: Face = enemy or "JH"
        self.enemy_rank = rank_of(self.enemy)
        self.enemy_suit = suit_of(self.enemy)
        self.health_left = game.health_left(state)
        self.attack_due = game.attack_due(state)
        self.overdiscard = bool(game.options["allow_overdiscard"])
        self.limit = game.hand_limit
        self.tavern_n = len(state.tavern)
        self.discard_n = len(state.discard)
        # suit powers are worth more or less with the piles: Hearts when the Tavern runs low,
        # Diamonds only while there is something to draw; a blocked suit is half as useful now
        scarcity = max(0.0, 1.0 - self.tavern_n / w["low_tavern"]) if self.discard_n else 0.0
        self.bonus = {s: w[f"bonus_{s}"] for s in "HDCS"}
        self.bonus["H"] += w["heal_need"] * scarcity
        self.bonus["D"] *= min(1.0, self.tavern_n / 8.0)
        if self.enemy_suit is not None and not state.immunity_cancelled:
            self.bonus[self.enemy_suit] *= 0.5
        # cards that may be in the Tavern or in partners' hands: everything not face up and not mine
        mine = {f for _, f in self.hand}
        public = set(state.public.values())
        pool = [
            f
            for f in game.hand_faces
            if f not in mine
            and f not in public
            and (rank_of(f) not in ROYAL_RANKS or (f in state.enemies_seen and f != enemy))
        ]
        self.pool = pool
        self.avg_value = sum(value_of(f) for f in pool) / len(pool) if pool else 5.0
        self.avg_util = sum(self.utility(f) for f in pool) / len(pool) if pool else 7.0
        # face-up cards on top of the Tavern (a royal from an exact kill) are known draws
        self.known_top: list[Face] = []
        for ref in state.tavern:
            face = state.public.get(ref)
            if face is None:
                break
            self.known_top.append(face)

    def utility(self, face: Face) -> float:
        """What keeping ``face`` is worth."""
        if is_jester(face):
            return self.w["jester_card"]
        value = value_of(face)
        suit = suit_of(face)
        util = value * (1.0 + self.bonus[suit])
        if rank_of(face) == "A":
            util += self.w["ace"]
        return util

    def draw_value(self, count: int, skip: int = 0) -> float:
        """Expected utility of ``count`` cards drawn after ``skip`` others from the Tavern top."""
        total = 0.0
        for i in range(skip, skip + count):
            total += self.utility(self.known_top[i]) if i < len(self.known_top) else self.avg_util
        return total

    def draw_split(self, count: int, my_size: int, tavern_n: int) -> tuple[int, int]:
        """How many of ``count`` Diamond draws go to me and to partners (public hand sizes)."""
        sizes = [len(h) for h in self.state.hands]
        sizes[self.seat] = my_size
        mine = others = 0
        seat = self.seat
        n = len(sizes)
        while mine + others < min(count, tavern_n) and any(s < self.limit for s in sizes):
            if sizes[seat] < self.limit:
                sizes[seat] += 1
                if seat == self.seat:
                    mine += 1
                else:
                    others += 1
            seat = (seat + 1) % n
        return mine, others

    def cover_chance(self, known: int, drawn: int, attack: int, samples: int = 400) -> float:
        """Chance that ``drawn`` Tavern cards (the known top ones first, then unseen cards at random)
        bring a hand worth ``known`` to at least ``attack``. Deterministic for a given position."""
        if known >= attack:
            return 1.0
        top = [value_of(f) for f in self.known_top[:drawn]]
        need = attack - known - sum(top)
        rest = drawn - len(top)
        if need <= 0:
            return 1.0
        values = sorted((value_of(f) for f in self.pool), reverse=True)
        if rest <= 0 or sum(values[:rest]) < need:
            return 0.0
        rng = random.Random(f"{self.state.events}/{known}/{drawn}/{attack}")
        hits = sum(1 for _ in range(samples) if sum(rng.sample(values, min(rest, len(values)))) >= need)
        return hits / samples

    def pay_cost(self, cards: Sequence[Card], attack: int) -> float | None:
        """Cheapest legal discard from ``cards`` covering ``attack``, in utility; ``None`` if impossible."""
        return cheapest_discard(
            [value_of(f) for _, f in cards], [self.utility(f) for _, f in cards], attack, self.overdiscard
        )

    def refill_gain(self, tavern_n: int) -> float:
        """Expected utility of a solo Jester refill from an empty hand."""
        return self.draw_value(min(self.limit, tavern_n))

    def flip_then_pay(self, rest: Sequence[Card], attack: int, tavern_n: int) -> float:
        """Cost of a Step 4 Jester refill (lose ``rest``, draw up to 8), then paying ``attack``."""
        drawn = min(self.limit, tavern_n)
        after = drawn * self.avg_value - attack
        shortfall = max(0.0, -after)
        return (
            self.w["jester_power"]
            + sum(self.utility(f) for _, f in rest)
            - self.refill_gain(tavern_n)
            + attack * self.avg_util / max(self.avg_value, 1.0)
            + self.w["death"] * (1.0 if shortfall > 0 else 0.0)
        )


class HeuristicBot:
    """A co-operative rule-of-thumb player for Regicide (see the module docstring)."""

    level = "heuristic"

    def __init__(self, seed: int | str | bytes = 0, weights: Mapping[str, float] | None = None) -> None:
        self.rng = random.Random(seed)
        unknown = set(weights or {}) - set(DEFAULT_WEIGHTS)
        if unknown:
            raise ValueError(f"unknown weights {sorted(unknown)}")
        self.overrides = dict(weights or {})

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """Pick the best-scoring legal move (ties broken by the bot's own generator)."""
        moves = legal_moves_or_fail(game, state, seat, own_faces, prompt)
        if len(moves) == 1 or not isinstance(game, Regicide):
            return moves[0]
        base = SOLO_WEIGHTS if game.seats == 1 else TEAM_WEIGHTS
        view = _View(game, state, seat, own_faces, {**base, **self.overrides})
        scored = [(self._score(view, move, prompt), i) for i, move in enumerate(moves)]
        best = max(score for score, _ in scored)
        ties = [i for score, i in scored if score >= best - 1e-9]
        return moves[self.rng.choice(ties)]

    # -- scoring -----------------------------------------------------------------------------------
    def _score(self, view: _View, move: Mapping[str, Any], prompt: str) -> float:
        if "next" in move:
            return self._score_next(view, move["next"])
        if "play" in move:
            return self._score_play(view, [(r, f) for r, f in move["play"]])
        if "yield" in move:
            return self._score_yield(view)
        if "discard" in move:
            return self._score_discard(view, [(r, f) for r, f in move["discard"]])
        if "cannot_pay" in move:
            return -view.w["death"]
        if "jester_power" in move:
            return self._score_flip(view, prompt)
        return -view.w["death"]

    def _safety(self, view: _View, hand_value: float, next_attack: int) -> float:
        """Penalty for a hand that could not cover ``next_attack`` (a Jester softens the doom)."""
        shortfall = max(0.0, next_attack - hand_value)
        if shortfall <= 0:
            return 0.0
        rescue = bool(view.state.jesters) or any(is_jester(f) for _, f in view.hand)
        return view.w["safety"] * shortfall + view.w["doom"] * (0.3 if rescue else 1.0)

    def _score_play(self, view: _View, cards: list[Card]) -> float:
        w = view.w
        game = view.game
        faces = [f for _, f in cards]
        played = {r for r, _ in cards}
        rest = [c for c in view.hand if c[0] not in played]
        if len(faces) == 1 and is_jester(faces[0]):
            return self._score_jester(view, rest)
        x = sum(value_of(f) for f in faces)
        active = game.active_suits(view.state, faces)
        score = -sum(view.utility(f) for f in faces)
        heal = min(x, view.discard_n) if "H" in active else 0
        if heal:
            scarcity = max(0.0, 1.0 - view.tavern_n / w["low_tavern"])
            score += w["heal"] * heal * view.avg_util * max(0.1, scarcity)
        tavern_n = view.tavern_n + heal
        mine = others = 0
        if "D" in active:
            mine, others = view.draw_split(x, len(rest), tavern_n)
            score += w["draw_me"] * view.draw_value(mine) + w["draw_other"] * view.avg_util * others
        tavern_n -= mine + others
        dmg = 2 * x if "C" in active else x
        hand_value = sum(value_of(f) for _, f in rest) + mine * view.avg_value
        if dmg >= view.health_left:
            if not view.state.castle:
                return w["death"] * 10  # the last King: victory
            score += w["dmg"] * view.health_left + w["kill"] * ENEMY_ATTACK[view.enemy_rank]
            if dmg == view.health_left:
                score += w["exact"] * view.utility(view.enemy)
            next_rank = ROYAL_RANKS[min((view.state.defeated + 1) // 4, 2)]
            return score - self._safety(view, hand_value, ENEMY_ATTACK[next_rank])
        score += w["dmg"] * dmg
        shield_gain = x if "S" in active else 0
        attack = max(0, view.attack_due - shield_gain)
        reduced = view.attack_due - attack
        score += w["shield_future"] * reduced * min(1.0, (view.health_left - dmg) / 15.0)
        score += self._setup(view, rest, view.health_left - dmg)
        return score - self._pay(view, rest, attack, mine, tavern_n, hand_value)

    def _pay(
        self, view: _View, rest: list[Card], attack: int, drawn: int, tavern_n: int, hand_value: float
    ) -> float:
        """Expected cost of Step 4 with ``rest`` in hand plus ``drawn`` unknown cards."""
        w = view.w
        if attack == 0:
            return self._safety(view, hand_value, 0)
        known = sum(value_of(f) for _, f in rest)
        jester_left = bool(view.state.jesters)
        cost = view.pay_cost(rest, attack)
        if cost is not None:
            if jester_left:
                cost = min(cost, view.flip_then_pay(rest, attack, tavern_n))
            return cost + self._safety(view, hand_value - attack, attack)
        expected = known + drawn * view.avg_value * 0.75
        # the unknown draws may cover it: pay everything plus the expected share of the draws
        survive = sum(view.utility(f) for _, f in rest) + (attack - known) * view.avg_util / view.avg_value
        survive += 3.0 + self._safety(view, hand_value - attack, attack)
        if drawn and expected >= attack:
            return survive
        hope = w["death"]
        if drawn:
            # a slim chance is still better than a certain loss: weigh death by its probability
            chance = view.cover_chance(known, drawn, attack)
            hope = chance * survive + (1.0 - chance) * w["death"]
        if jester_left:
            return min(hope, view.flip_then_pay(rest, attack, tavern_n))
        return hope

    def _score_yield(self, view: _View) -> float:
        if view.game.seats == 1 and view.attack_due == 0:
            # a solo yield under a full shield changes nothing: repeating it would never end the game
            return -view.w["death"]
        hand_value = sum(value_of(f) for _, f in view.hand)
        return -view.w["yield"] - self._pay(view, view.hand, view.attack_due, 0, view.tavern_n, hand_value)

    def _score_jester(self, view: _View, rest: list[Card]) -> float:
        """A Jester (3-4 players): no attack this turn, immunity cancelled, we pick who goes next."""
        w = view.w
        score = -w["jester_card"]
        state = view.state
        if not state.immunity_cancelled and view.enemy_suit is not None:
            if view.enemy_suit == "S":
                spades = sum(p.attack for p in state.plays if any(suit_of(f) == "S" for f in p.faces))
                score += w["shield_future"] * min(spades, view.attack_due) + min(spades, view.attack_due)
            blocked = sum(1 for _, f in rest if suit_of(f) == view.enemy_suit)
            score += 2.0 * blocked
        # skipping the attack is valued against the other options, which all pay Step 4
        best_size = max(len(h) for h in state.hands)
        score += 0.5 * best_size
        return score

    def _score_next(self, view: _View, seat: Seat) -> float:
        state = view.state
        if seat == view.seat:
            # with the immunity gone, a kill in hand is the best reason to keep the turn
            kill = any(
                self._damage(view, [f for _, f in p]) >= view.health_left
                for p in view.game.candidate_plays(view.hand)
            )
            return 100.0 if kill else len(view.hand) + 0.5
        # partners by public hand size, nearer ones first on ties
        distance = (seat - view.seat) % len(state.hands)
        return len(state.hands[seat]) - 0.01 * distance

    def _setup(self, view: _View, cards: list[Card], left: int) -> float:
        """Bonus for keeping a kill of the current enemy (an exact one is worth more) in ``cards``."""
        if not view.w["setup"] or not cards:
            return 0.0
        damages = [self._damage(view, [f for _, f in p]) for p in view.game.candidate_plays(cards)]
        if left in damages:
            return view.w["setup"]
        return view.w["setup"] * view.w["setup_kill"] if any(d > left for d in damages) else 0.0

    def _damage(self, view: _View, faces: list[Face]) -> int:
        x = sum(value_of(f) for f in faces)
        return 2 * x if "C" in view.game.active_suits(view.state, faces) else x

    def _score_discard(self, view: _View, cards: list[Card]) -> float:
        gone = {r for r, _ in cards}
        rest = [c for c in view.hand if c[0] not in gone]
        hand_value = sum(value_of(f) for _, f in rest)
        score = -sum(view.utility(f) for _, f in cards) - self._safety(view, hand_value, view.attack_due)
        return score + self._setup(view, rest, view.health_left)

    def _score_flip(self, view: _View, prompt: str) -> float:
        """The solo Jester power at Step 1 or Step 4."""
        if prompt == "discard":
            return -view.flip_then_pay(view.hand, view.attack_due, view.tavern_n)
        # Step 1: worth it only when the hand is hopeless; a Step 4 refill is usually better
        hand_util = sum(view.utility(f) for _, f in view.hand)
        return -view.w["jester_power"] - hand_util + view.refill_gain(view.tavern_n) - 10.0


class HardBot(SearchBot):
    """Determinized Monte Carlo search (:mod:`engine.search`) over the heuristic bot.

    It sees what its seat sees (its own hand and the public cards, never a partner's hand). For a
    close call between the heuristic's best plays or discards it samples ``worlds`` worlds (the
    Tavern's order and the partners' hands drawn from the cards it has not seen, the Castle's
    unseen royals in a random order within each rank), plays each candidate and the game on with
    heuristic bots in every seat until the current enemy falls (or the game ends), and leaves the
    heuristic's choice only for a candidate that clearly survives more often (the heuristic's own
    judgement of resources is better than a crude count). Decisions the heuristic finds clear (its
    best move leads the second by ``margin`` or more) are the heuristic's.
    """

    def __init__(
        self, seed: int | str | bytes = 0, worlds: int = 8, candidates: int = 3, margin: float = 4.0
    ) -> None:
        super().__init__(seed, worlds=worlds, candidates=candidates, max_events=60)
        self.margin = margin
        self._scores: list[tuple[float, int, dict[str, Any]]] = []

    def heuristic(self, seed: Any) -> HeuristicBot:
        """The rollout policy and fallback."""
        return HeuristicBot(seed)

    def _ranking(self, game: Regicide, state: Any, seat: Seat, own: Mapping[Ref, Face],
                 prompt: str) -> list[tuple[float, int, dict[str, Any]]]:
        moves = legal_moves_or_fail(game, state, seat, own, prompt)
        base = SOLO_WEIGHTS if game.seats == 1 else TEAM_WEIGHTS
        view = _View(game, state, seat, own, {**base, **self.fallback.overrides})
        scored = [(self.fallback._score(view, m, prompt), i, m) for i, m in enumerate(moves)]
        return sorted(scored, key=lambda x: (-x[0], x[1]))

    def worth(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str) -> bool:
        """Plays and discards where the heuristic's two best are within ``margin`` of each other."""
        if prompt not in ("play", "discard") or not isinstance(game, Regicide):
            return False
        self._scores = self._ranking(game, state, seat, own, prompt)
        return len(self._scores) > 1 and self._scores[0][0] - self._scores[1][0] < self.margin

    def ranked(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str,
               moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The heuristic's best moves, best first (computed by :meth:`worth`)."""
        return [m for _, _, m in self._scores]

    def sample(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face],
               rng: random.Random) -> tuple[dict[Ref, Face], list[dict[Ref, Face]]]:
        """The unseen royals into the Castle by rank; every other unseen card anywhere hidden."""
        assert isinstance(game, Regicide)
        zones = game.zones(state)
        live = [r for refs in zones.values() for r in refs]
        known = {r: f for r in live if (f := state.public.get(r) or own.get(r)) is not None}
        faces = dict(known)
        seen = set(state.enemies_seen)
        unseen_royals = {rank: [rank + s for s in SUITS if rank + s not in seen] for rank in ROYAL_RANKS}
        castle = [r for r in state.castle if r not in known]
        start = 0
        for rank in ROYAL_RANKS:
            group = unseen_royals[rank]
            faces.update(deal_unseen(castle[start : start + len(group)], group, rng))
            start += len(group)
        pool = Counter(tavern_faces(game.seats))
        pool.update(seen)  # defeated royals: discarded, healed back, drawn or on top of the Tavern
        if game.solo:
            pool.update(JESTERS)
        pool.subtract(Counter(known.values()))
        hidden = [r for r in live if r not in faces]
        unseen = list(pool.elements())
        faces.update(deal_unseen(hidden, unseen[: len(hidden)], rng))
        knows = [{r: faces[r] for r in hand} for hand in state.hands]
        knows[seat] = dict(known)
        return faces, knows

    def stop(self, game: Game, start: Any, state: Any) -> bool:
        """The current enemy is defeated, or the game is over."""
        return state.outcome is not None or state.defeated != start.defeated

    def value(self, game: Game, start: Any, end: Any, seat: Seat, faces: Sequence[Face]) -> float:
        """Survival first: a lost game is -1, a won one +1; otherwise a small bonus for damage dealt
        to the enemy still standing (a rollout cut short by its length cap)."""
        if end.outcome == "lost":
            return -1.0
        if end.outcome == "won" or end.defeated != start.defeated:
            return 1.0 if end.outcome == "won" else 0.0
        enemy = faces[end.enemy] if end.enemy is not None and end.enemy < len(faces) else ""
        health = ENEMY_HEALTH.get(rank_of(enemy), 40) if enemy else 40
        return 0.001 * end.damage / health


def make_bot(level: str, seed: int | str | bytes) -> RandomBot | HeuristicBot | HardBot:
    """A Regicide bot: ``"random"`` (uniform legal moves), ``"heuristic"`` or ``"hard"``."""
    if level == "random":
        return RandomBot(seed)
    if level == "heuristic":
        return HeuristicBot(seed)
    if level == "hard":
        return HardBot(seed)
    raise ValueError(f"unknown bot level {level!r}; choose 'random', 'heuristic' or 'hard'")


__all__ = [
    "DEFAULT_WEIGHTS",
    "SOLO_WEIGHTS",
    "TEAM_WEIGHTS",
    "HardBot",
    "HeuristicBot",
    "cheapest_discard",
    "make_bot",
]
