"""How high card is presented: the generic table, with its rules in short and cards by value."""

from __future__ import annotations

from engine.present import Presentation

from .text import RULES


class HighCardPresentation(Presentation):
    """High card's presentation hooks."""

    rules = RULES

    def face_label(self, face: str) -> str:
        """A card is its value: ``5``."""
        return face
