"""How Regicide is presented: cards by their short names (the Jesters by name), a compact board
(the enemy with its health, attack and shield; the piles; the cards played against it; whose
turn), its decisions in words, what a play caused (the damage, doubled by Clubs; a defeat; the
next enemy), and why a typed ``play``/``discard`` command is not allowed (the engine's own reason)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import Event, Face, GameOver, IllegalMove, Ref, Seat
from engine.present import (
    FILLER,
    Fragments,
    Presentation,
    TableView,
    face_label,
    line,
    player_words,
    waiting_words,
)

from .state import ENEMY_ATTACK, ENEMY_HEALTH, SUIT_NAMES, card_name, hand_order, rank_of, suit_of
from .text import RULES


def _typed_cards(typed: Sequence[str], prompt: str) -> list[str]:
    """The typed words after the verb (``play``, ``discard``, as typed or in part), filler left out."""
    words = [w for w in typed if w not in FILLER]
    if words and f"{prompt}s".startswith(words[0]) and len(words[0]) >= 2:
        words = words[1:]
    return words


def _enemy_words(face: Face) -> str:
    return f"{card_name(face)} ({face})"


DEFEAT_CAUTION = "the game is lost"
"""What declaring a hand worth less than the attack costs (the console asks first)."""


class RegicidePresentation(Presentation):
    """Regicide's presentation hooks; see the module docstring."""

    rules = RULES
    typed_in_any_order = True  # several cards in one move, named in any order
    # the event line's "the Jack of Hearts is defeated" is said again, with how, by consequences()
    noise = (r"the .+ is defeated(?: with exact damage and goes face down on top of the Tavern)?",)
    prompt_words = {
        "discard": "discard to absorb the attack",
        "next": "choose who plays next",
    }

    def face_label(self, face: Face) -> str:
        """``4D``, ``KS``; both Jesters read ``Jester``."""
        return "Jester" if face.startswith("X") else face

    # -- the table ------------------------------------------------------------------------------
    def board(self, view: TableView) -> Fragments:
        """The enemy (the essential line), the piles and what was played against it, whose turn."""
        game: Any = view.game
        s = view.state
        out: Fragments = []
        enemy = game.enemy_face(s)
        if enemy is not None:
            rank, suit = rank_of(enemy), suit_of(enemy)
            health = ENEMY_HEALTH[rank]
            immune = (
                f"{SUIT_NAMES[suit]} immunity cancelled"
                if s.immunity_cancelled
                else f"immune to {SUIT_NAMES[suit]}"
            )
            shield = game.shield(s)
            attack = f"attack {ENEMY_ATTACK[rank]}" + (
                f" - shield {shield} = {game.attack_due(s)}" if shield else ""
            )
            line(
                out,
                ("class:key-line", f"Enemy {s.defeated + 1}/12: {_enemy_words(enemy)} · "),
                ("class:key-line", f"health {health - s.damage}/{health} · {attack} · {immune}"),
            )
        piles = f"Castle {len(s.castle)} · Tavern {len(s.tavern)} · Discard {len(s.discard)}"
        if game.solo:
            piles += f" · Jesters {len(s.jesters)} left"
        if s.plays:
            played = "; ".join(
                f"{view.label(p.seat)} {' + '.join(face_label(game, f) for f in p.faces)}" for p in s.plays
            )
            piles += f" · played: {played}"
        line(out, ("class:info", piles))
        line(out, ("class:info", "now: "), ("class:now", waiting_words(view)))
        return out

    def end_words(self, view: TableView) -> str:
        """How the game ended: the last King defeated, or who could not absorb an attack."""
        reason = view.words(getattr(view.state, "end_reason", ""))
        return reason[:1].upper() + reason[1:] + "." if reason else ""

    # -- what happened, in words ---------------------------------------------------------------
    def card_order(self, face: Face) -> Sequence[Any]:
        """By rank (Ace low, then 2-10, J, Q, K), then suit; Jesters last."""
        return hand_order(face)

    def consequences(self, before: Any, after: Any, view: TableView) -> list[str]:
        """The damage a play dealt (doubled by Clubs), an enemy defeated (exactly or not), and the
        game's end with its cause."""
        if before is None:
            return []
        game: Any = view.game
        out: list[str] = []
        enemy = game.enemy_face(before)
        if enemy is not None and after.defeated > before.defeated:
            health = ENEMY_HEALTH[rank_of(enemy)]
            if after.tavern[:1] == (before.enemy,):
                how = f"exactly {health} damage: it goes on top of the Tavern"
            else:
                # (the damage of every play against it, not of this play alone)
                how = f"its {health} health is used up, with damage to spare: it goes to the discard pile"
            out.append(f"the {_enemy_words(enemy)} is defeated ({how})")
        elif enemy is not None and after.damage > before.damage:
            health = ENEMY_HEALTH[rank_of(enemy)]
            dealt = after.damage - before.damage
            out.append(
                f"the {_enemy_words(enemy)} takes {dealt} damage{self._why(after, dealt)}: "
                f"health {health - after.damage}/{health}"
            )
        if isinstance(game.pending(after), GameOver) and not isinstance(game.pending(before), GameOver):
            outcome, reason = getattr(after, "outcome", ""), getattr(after, "end_reason", "")
            if outcome:
                who = "you have" if game.seats == 1 and view.seat == 0 else "the players have"
                out.append(f"{who} {outcome}" + (f": {reason}" if reason else ""))
        return out

    def _why(self, state: Any, dealt: int) -> str:
        """`` (6, doubled by Clubs)`` when the last play's Clubs doubled it."""
        game: Any = self.game
        if not state.plays:
            return ""
        play = state.plays[-1]
        if "C" in game.active_suits(state, play.faces) and dealt == 2 * play.attack:
            return f" ({play.attack}, doubled by Clubs)"
        return ""

    def move_caution(self, move: Mapping[str, Any], faces: Mapping[Ref, Face]) -> str:
        """Declaring a hand worth less than the attack loses the game: listed after a Jester's
        flip (which may save it) and asked before it is sent."""
        return DEFEAT_CAUTION if move.get("cannot_pay") is True else ""

    def refusal_reason(
        self,
        typed: Sequence[str],
        state: Any,
        seat: Seat,
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        prompt: str,
    ) -> str:
        """For ``play``/``discard``: the engine's reason against the cards the words name; for a
        ``yield`` the rules refuse, why (off in this solo game, or everyone else just yielded)."""
        if prompt not in ("play", "discard"):
            return ""
        if prompt == "play" and typed and "yields".startswith(typed[0]) and len(typed[0]) >= 2:
            return self._yield_reason(state, seat)
        named = sorted(_typed_cards(typed, prompt))
        for move in self._candidates(state, seat, faces, prompt):
            cards = move.get("play") or move.get("discard") or []
            # the very cards typed, in any order ("play 8h 8c" is the 8C and 8H however listed)
            if named and named == sorted(f.lower() for _, f in cards):
                try:
                    self.game.apply(state, Event.move(seat, move))
                    return "the rules do not allow that now"
                except IllegalMove as exc:
                    return player_words(str(exc))
        return ""

    def _yield_reason(self, state: Any, seat: Seat) -> str:
        """Why yielding is refused now ("" if it is allowed: then a yield was offered)."""
        game: Any = self.game
        try:
            game.apply(state, Event.move(seat, {"yield": True}))
        except IllegalMove:
            pass
        else:
            return ""
        if game.solo:
            return "yielding is off in this solo game (the table's option solo_yield_allowed)"
        return "you may not yield: every other player yielded on their last turn"

    @staticmethod
    def _candidates(
        state: Any, seat: Seat, faces: Mapping[Ref, Face], prompt: str
    ) -> Iterable[dict[str, Any]]:
        hand = [(r, faces[r]) for r in state.hands[seat] if r in faces]
        key = "discard" if prompt == "discard" else "play"
        for size in range(1, min(4, len(hand)) + 1):
            for combo in itertools.combinations(hand, size):
                yield {key: [[r, f] for r, f in combo]}
