"""Rebel Princess bots: :class:`RandomBot`, a Hearts-style :class:`HeuristicBot`, and
:class:`HardBot` (determinized Monte Carlo search over the heuristic for card play, ``--level hard``).

The heuristic bot sees only its seat's knowledge (public state plus ``own_faces``). It scores every
legal card by the chance of winning the trick times the proposals it would collect, minus the
relief of getting rid of a dangerous card when it loses; passes, gifts and set-asides shed danger;
Princess powers are used when they clearly help (shed the Frog or Princes, duck a trick, swap a
losing card in). It never leads the Frog unless nothing else may be led (but under Sisterhood,
where the leader never wins). Round-card twists come for free from the engine's own winner and scoring rules.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Face, Game, RandomBot, Ref, Seat, legal_moves_or_fail
from engine.search import SearchBot, deal_unseen

from . import princesses as P
from .cards import FROG, PRINCE, QUEEN, SUITS, is_prince, number_of, suit_of
from .game import RebelPrincess, State
from .rounds import card_value, pile_score
from .tricks import Play, effective, strength

PRINCESS_PREFERENCE = (
    P.SNOW_WHITE,
    P.THUMBELINA,
    P.MULAN,
    P.ALICE,
    P.PEA,
    P.CINDERELLA,
    P.SCHEHERAZADE,
    P.SLEEPING_BEAUTY,
    P.POCAHONTAS,
    P.ICE,
    P.MERMAID,
    P.RAPUNZEL,
)
"""Princesses the heuristic bot prefers to keep, best first (those that duck tricks rank high)."""


def points(face: Face, letter: str) -> float:
    """Proposals a captured card is worth this round (a rough figure for scoring twists)."""
    if letter == "z":
        return 5.0 if face == FROG else 1.5 if is_prince(face) else 0.5 if suit_of(face) == QUEEN else 0.0
    return float(card_value(face, letter, doubled_princes=True))


def danger(face: Face, letter: str) -> float:
    """How much holding ``face`` hurts: its proposals, plus the risk a high card wins tricks."""
    value = points(face, letter)
    risk = number_of(face) / 2
    if letter == "f" and suit_of(face) == QUEEN:
        risk += 3  # trumps win tricks
    if letter in ("d", "t") and value < 0:
        risk -= 2  # cards worth capturing are no burden
    return 4 * value + risk


SHED_STEPS = {"chairs": "pass", "gift": "card", "spindle": "card"}
"""Steps where the bot simply sheds its most dangerous cards, and the move key that names them."""


class HeuristicBot:
    """Avoids Princes and the Frog, sheds dangerous cards, uses its Princess power sensibly."""

    level = "heuristic"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self.rng = random.Random(seed)

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """Pick a move for ``prompt`` (always one of ``game.legal_moves``)."""
        assert isinstance(game, RebelPrincess)
        moves = legal_moves_or_fail(game, state, seat, own_faces, prompt)
        if len(moves) == 1:
            return moves[0]
        if state.step in SHED_STEPS:  # give away the most dangerous cards
            choice = self._shed(game, state, own_faces, moves, SHED_STEPS[state.step])
            return choice if choice in moves else self.rng.choice(moves)
        method = getattr(self, f"_{state.step}", None)
        if method is None:
            return self.rng.choice(moves)
        choice = method(game, state, seat, own_faces, moves)
        return choice if choice in moves else self.rng.choice(moves)

    # -- helpers ------------------------------------------------------------------------------
    @staticmethod
    def _face(game: RebelPrincess, state: State, own: Mapping[Ref, Face], ref: Ref) -> Face:
        return own.get(ref) or game.public_face(state, ref) or "fairy-6"

    def _by_danger(
        self, game: RebelPrincess, state: State, own: Mapping[Ref, Face], refs: Sequence[Ref]
    ) -> list[Ref]:
        """Refs sorted most dangerous first."""
        return sorted(refs, key=lambda r: -danger(self._face(game, state, own, r), state.letter))

    def _hand_faces(
        self, game: RebelPrincess, state: State, seat: Seat, own: Mapping[Ref, Face]
    ) -> list[Face]:
        return [f for _, f in game.known_hand(state, seat, own)]

    # -- set-up and passing -------------------------------------------------------------------
    def _princess(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        def rank(move: dict[str, Any]) -> int:
            key = own.get(move["keep"], "")[len("princess-") :]
            return PRINCESS_PREFERENCE.index(key) if key in PRINCESS_PREFERENCE else 99

        return min(moves, key=rank)

    def _shed(
        self,
        game: RebelPrincess,
        state: State,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
        key: str,
    ) -> dict[str, Any]:
        """The move that gets rid of the most danger (moves listing refs under ``key``)."""

        def shed(move: dict[str, Any]) -> float:
            refs = move[key] if isinstance(move[key], list) else [move[key]]
            return sum(danger(self._face(game, state, own, r), state.letter) for r in refs)

        return max(moves, key=shed)

    def _pass(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        worst = self._by_danger(game, state, own, state.hands[seat])
        count = len(moves[0]["pass"])
        wanted = set(worst[:count])
        return next(
            (m for m in moves if set(m["pass"]) == wanted), self._shed(game, state, own, moves, "pass")
        )

    def _aside(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        order = self._by_danger(game, state, own, state.hands[seat])
        count = len(moves[0]["aside"])
        if state.letter == "q":
            wanted = set(order[:count])  # Blind Man's Bluff: the set-aside half goes to a neighbour
        elif count == 1:
            wanted = set(order[-1:])  # Late to the Ball: keep the safest card for the last trick
        else:
            wanted = set(order[::2][:count])  # After Party: two halves of similar danger
        return next((m for m in moves if set(m["aside"]) == wanted), moves[0])

    def _crystal(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        return min(moves, key=lambda m: (m["suit"] == PRINCE, len(m["cards"])))

    # -- Princess powers ----------------------------------------------------------------------
    def _power(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        no = {"use": False}
        key = state.princesses[seat]
        faces = self._hand_faces(game, state, seat, own)
        if not faces:
            return no
        totals = game.totals(state)
        others = sorted((t for t in range(game.seats) if t != seat), key=lambda t: (totals[t], t))
        holds_trouble = FROG in faces or sum(1 for f in faces if is_prince(f) and number_of(f) >= 6) >= 2
        leader = state.leader == seat
        uses = [m for m in moves if m.get("use")]
        if key == P.CINDERELLA:
            mean = sum(number_of(f) for f in faces) / len(faces)
            return uses[0] if mean >= 7.5 and state.tricks_played >= 1 else no
        if key == P.PEA:
            low = sum(1 for f in faces if number_of(f) <= 5)
            return uses[0] if low >= len(faces) - low + 2 else no
        if key == P.POCAHONTAS:
            lowest = min(number_of(f) for f in faces)
            if leader and lowest >= 6:
                return next((m for m in uses if m["leader"] == others[0]), no)
            return no
        if key == P.MERMAID and not leader and holds_trouble:
            held = {suit_of(f) for f in faces}
            for suit in SUITS:
                if suit not in held and suit != PRINCE:
                    return {"use": True, "suit": suit}
            return no
        if key == P.RAPUNZEL:
            return uses[0] if not leader and not state.princes_in and not any(map(is_prince, faces)) else no
        if key == P.SLEEPING_BEAUTY:
            return uses[0] if holds_trouble else no
        if key == P.SCHEHERAZADE and holds_trouble:
            return next((m for m in uses if m["target"] == others[0]), uses[0])
        if key == P.ICE and state.princes_in:
            target = next((t for t in others if {"use": True, "target": t} in uses), None)
            return {"use": True, "target": target} if target is not None else no
        return no

    def _spindle_give(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        order = self._by_danger(game, state, own, list(state.contributions))
        keep = order[-1]
        totals = game.totals(state)
        # the worst cards go to whoever leads the scores (lowest total)
        others = sorted((t for t in range(game.seats) if t != seat), key=lambda t: (totals[t], t))
        give = sorted(([t, r] for t, r in zip(others, order, strict=False)), key=lambda p: p[0])
        return {"keep": keep, "give": give}

    def _bazaar(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        taken = danger(self._face(game, state, own, state.picks[0]), state.letter)
        mine = [m for m in moves if m["swap"] is not None]
        if not mine:
            return {"swap": None}
        worst = max(mine, key=lambda m: danger(self._face(game, state, own, m["swap"]), state.letter))
        return (
            worst
            if danger(self._face(game, state, own, worst["swap"]), state.letter) > taken + 1
            else {"swap": None}
        )

    def _freeze(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        # freeze the card most likely to win a trick for its owner
        return max(moves, key=lambda m: number_of(self._face(game, state, own, m["freeze"])))

    def _alice(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        pts = sum(points(p.face, state.letter) for p in state.trick)
        return {"use": pts > 0}

    def _haggle(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        best, gain = {"give": None}, 2.0
        taken = {p.ref: p.face for p in state.trick}
        for move in moves:
            if move["give"] is None or points(move["face"], state.letter) > 0:
                continue
            take = taken[move["take"]]
            if points(take, state.letter) > 0 or take == FROG:
                continue
            delta = danger(move["face"], state.letter) - danger(take, state.letter)
            if delta > gain:
                best, gain = move, delta
        return best

    def _mulan(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        def cost(move: dict[str, Any]) -> float:
            trick = list(state.trick)
            old = None
            if move["swap"] is not None:
                i = next(i for i, p in enumerate(trick) if p.ref == move["swap"])
                old = trick[i]
                trick[i] = Play(old.seat, move["card"], move["face"], void=old.void)
            won = game.winner_now(state, trick) == seat
            pts = sum(points(p.face, state.letter) for p in trick)
            value = pts if won else 0.0
            if old is not None:
                # the swapped-in card leaves the hand, the old one comes back; the power is spent
                value += 0.3 + 0.1 * (danger(old.face, state.letter) - danger(move["face"], state.letter))
            return value

        return min(moves, key=cost)

    # -- card play ----------------------------------------------------------------------------
    def _play(
        self,
        game: RebelPrincess,
        state: State,
        seat: Seat,
        own: Mapping[Ref, Face],
        moves: list[dict[str, Any]],
    ) -> dict[str, Any]:
        if not state.trick and state.letter != "l":
            # leading the Frog hands it to whoever wins a trick its leader usually wins: never do it
            # unforced (under Sisterhood the leader never wins, so there it is a fine lead)
            moves = [m for m in moves if m["face"] != FROG] or moves
        scored = [(self._play_cost(game, state, seat, m), i) for i, m in enumerate(moves)]
        best = min(c for c, _ in scored)
        choices = [moves[i] for c, i in scored if c <= best + 1e-9]
        return self.rng.choice(choices)

    _mask = _play

    def _play_cost(self, game: RebelPrincess, state: State, seat: Seat, move: dict[str, Any]) -> float:
        letter = state.letter
        ctx = game.play_context(state, seat)
        face = move["face"]
        zero = ctx.princess == P.SNOW_WHITE and (move["power"] or ctx.power_active) and number_of(face) <= 7
        play = Play(seat, move["card"], face, move["power"], move["void"], zero=zero)
        trick = [*state.trick, play]
        remaining = game.trick_size(state) - len(trick)
        winning = game.winner_now(state, trick) == seat
        if not winning:
            p_win = 0.0
        elif remaining == 0:
            p_win = 1.0
        else:
            reverse = state.reverse
            power = strength(effective(play), reverse) / 12
            p_win = max(0.05, min(1.0, power)) ** (0.6 * remaining)
        pts = sum(points(p.face, letter) for p in trick) + 0.35 * remaining
        if letter == "e" and state.tricks_won[seat] == 0:
            pts -= 5 * min(1.0, state.tricks_played / max(1, state.dealt - 2))
        relief = danger(face, letter)
        if letter == "q" and game.options["blind_mans_bluff"] == "pass_remaining" and not state.bluff_done:
            relief = -0.5 * relief  # Blind Man's Bluff: what is still held at half-way goes to a neighbour
        elif letter == "n":
            relief *= 2  # Late for a Very Important Date: the last three cards are scored by their holder
        cost = p_win * pts - (1 - p_win) * 0.3 * relief
        if move["power"]:
            cost += 0.4
        return cost


class HardBot(SearchBot):
    """Determinized Monte Carlo search (:mod:`engine.search`) over the heuristic bot, for card play.

    When the heuristic finds two plays close (their costs within ``margin``), it keeps the
    heuristic's best few, samples ``worlds`` deals of the suit cards it has not seen (other hands,
    set-aside halves, gifts: every unseen card, in a random order), plays each candidate and the
    rest of the round with heuristic bots in every seat, and plays the card whose rounds score best:
    the others' mean proposals minus its own (the Round card's scoring included). Passes, gifts,
    set-asides and Princess powers are the heuristic's.
    """

    def __init__(
        self, seed: int | str | bytes = 0, worlds: int = 6, candidates: int = 3, margin: float = 1.0
    ) -> None:
        super().__init__(seed, worlds=worlds, candidates=candidates, max_events=600)
        self.margin = margin

    def heuristic(self, seed: Any) -> HeuristicBot:
        """The rollout policy and fallback."""
        return HeuristicBot(seed)

    def _options(self, game: RebelPrincess, state: Any, seat: Seat, own: Mapping[Ref, Face]) -> list[Any]:
        moves = game.legal_moves(state, seat, own)
        if not state.trick and state.letter != "l":
            moves = [m for m in moves if m["face"] != FROG] or moves
        costed = sorted(
            ((self.fallback._play_cost(game, state, seat, m), i, m) for i, m in enumerate(moves)),
            key=lambda x: (x[0], x[1]),
        )
        out, seen = [], set()
        for cost, i, move in costed:
            if move["card"] not in seen:
                seen.add(move["card"])
                out.append((cost, i, move))
        return out

    def worth(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str) -> bool:
        """Card plays where the heuristic's two best cards cost about the same."""
        if prompt != "play" or not isinstance(game, RebelPrincess):
            return False
        self._costed = self._options(game, state, seat, own)
        return len(self._costed) > 1 and self._costed[1][0] - self._costed[0][0] < self.margin

    def ranked(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face], prompt: str,
               moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The heuristic's cheapest plays first (the Frog never led unforced), one per card."""
        return [m for _, _, m in self._costed]

    def sample(self, game: Game, state: Any, seat: Seat, own: Mapping[Ref, Face],
               rng: random.Random) -> tuple[dict[Ref, Face], list[dict[Ref, Face]]]:
        """Every unseen suit card, dealt at random to the live refs this seat cannot see."""
        assert isinstance(game, RebelPrincess)
        live = game.live_refs(state)
        known = {r: f for r in live if (f := own.get(r) or game.public_face(state, r)) is not None}
        seen = set(known.values())
        unseen = [f for f in game.suit_cards if f not in seen]
        hidden = [r for r in live if r not in known]
        faces = {**known, **deal_unseen(hidden, unseen[: len(hidden)], rng)}
        knows = [{r: faces[r] for r in (*state.hands[t], *state.aside[t])} for t in range(game.seats)]
        knows[seat] = dict(known)
        return faces, knows

    def stop(self, game: Game, start: Any, state: Any) -> bool:
        """The round's last trick is taken (or the game is over)."""
        return len(state.scores) != len(start.scores) or state.step in ("disclose", "over")

    def value(self, game: Game, start: Any, end: Any, seat: Seat, faces: Sequence[Face]) -> float:
        """The others' mean round score minus this seat's, from the world's captured piles."""
        n = game.seats
        scores = [
            pile_score([faces[r] for r in end.won[t]], start.letter, end.tricks_won[t], doubled_princes=True)
            for t in range(n)
        ]
        return sum(scores[t] for t in range(n) if t != seat) / (n - 1) - scores[seat]


def make_bot(level: str, seed: int | str | bytes) -> RandomBot | HeuristicBot | HardBot:
    """A bot for ``level`` "random", "heuristic" or "hard"."""
    if level == "random":
        return RandomBot(seed)
    if level == "heuristic":
        return HeuristicBot(seed)
    if level == "hard":
        return HardBot(seed)
    raise ValueError(f"unknown bot level {level!r}; choose random, heuristic or hard")
