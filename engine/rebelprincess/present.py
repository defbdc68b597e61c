"""How Rebel Princess is presented: suit cards by their short names (``Fairy 5``); everything else
is the generic table (seats, the game's own picture, the hand by name)."""

from __future__ import annotations

from engine.core import Face
from engine.present import Presentation

from .cards import card_name, is_suit_face
from .text import RULES


class RebelPrincessPresentation(Presentation):
    """Rebel Princess's presentation hooks; see the module docstring."""

    rules = RULES

    def face_label(self, face: Face) -> str:
        """``Fairy 5`` for a suit card; a Princess or Round card by the name in its text."""
        if is_suit_face(face):
            return card_name(face)
        return super().face_label(face)
