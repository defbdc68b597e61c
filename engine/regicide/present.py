"""How Regicide is presented: cards by their short names (the Jesters by name), its decisions in
words, and why a typed ``play``/``discard`` command is not allowed (the engine's own reason)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import Event, Face, IllegalMove, Ref, Seat
from engine.present import Presentation, face_label, match_position, tokenize

from .text import RULES


class RegicidePresentation(Presentation):
    """Regicide's presentation hooks; see the module docstring."""

    rules = RULES
    prompt_words = {
        "discard": "discard to absorb the attack",
        "next": "choose who plays next",
    }

    def face_label(self, face: Face) -> str:
        """``4D``, ``KS``; both Jesters read ``Jester``."""
        return "Jester" if face.startswith("X") else face

    def help_card(self, face: Face, text: str) -> tuple[str, str]:
        """``4D Four of Diamonds``: the short name first, as the hand shows it."""
        name, sep, effect = text.partition(":")
        return f"{face_label(self.game, face)} {name}", f"{sep}{effect}"

    def refusal_reason(
        self,
        typed: Sequence[str],
        state: Any,
        seat: Seat,
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        prompt: str,
    ) -> str:
        """For ``play``/``discard``: the engine's reason against the cards the words name."""
        if prompt not in ("play", "discard"):
            return ""
        for move in self._candidates(state, seat, faces, prompt):
            cards = move.get("play") or move.get("discard") or []
            words = tokenize(f"{prompt}s {' '.join(f for _, f in cards)}")
            if match_position(typed, words) is not None and words[1:] == [f.lower() for _, f in cards]:
                try:
                    self.game.apply(state, Event.move(seat, move))
                    return "the rules do not allow that now"
                except IllegalMove as exc:
                    return str(exc)
        return ""

    @staticmethod
    def _candidates(
        state: Any, seat: Seat, faces: Mapping[Ref, Face], prompt: str
    ) -> Iterable[dict[str, Any]]:
        hand = [(r, faces[r]) for r in state.hands[seat] if r in faces]
        key = "discard" if prompt == "discard" else "play"
        for size in range(1, min(4, len(hand)) + 1):
            for combo in itertools.combinations(hand, size):
                yield {key: [[r, f] for r, f in combo]}
