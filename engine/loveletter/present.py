"""How Love Letter is presented: a rich table (tokens, protection, discard rows, pile, whose turn,
the round's summary, your hand with each card's effect), its decisions' titles, why a typed
``play`` command is not allowed (the engine's own reason for the closest illegal move), and the card
a deal, a King's swap or a Prince's redraw just gave you (the table's lines say only that it moved)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import Deal, Event, Face, IllegalMove, Ref, Seat, Show
from engine.present import (
    Fragments,
    Presentation,
    TableView,
    card_lines,
    face_label,
    hand_refs,
    line,
    link_cell,
    match_position,
    player_words,
    seat_label,
    tokenize,
    waiting_words,
)

from .state import KING_SHOW, NAMES, OPENING_DEAL, PRINCE_DEAL
from .text import RULES

PRINCESS_CAUTION = "you are out of the round"
"""Added to the Princess's move: playing her is legal, and ends your round."""
COUNTESS_RULE = "you hold the Countess: she must be played when your other card is the King or a Prince"


_GIVEN_WORDS = {
    OPENING_DEAL: "you are dealt {card}",
    KING_SHOW: "you now hold {card}, from the King's swap",
    PRINCE_DEAL: "you draw {card}",
}
"""What a step that hands this seat a card it did not choose says, once the card is known (a draw
at your own turn needs no words: the decision that follows shows your hand)."""


def _between_rounds(state: Any) -> bool:
    return state.phase in ("first_player", "shuffle", "disclose", "over")


class LoveLetterPresentation(Presentation):
    """Love Letter's presentation hooks; see the module docstring."""

    rules = RULES
    prompt_words = {
        "guard_answer": "answer the Guard",
        "baron_result": "report the Baron comparison",
        "chancellor": "choose a card to keep",
    }
    menu_titles = {
        "play": "your turn: play a card",
        "guard_answer": "answer the Guard (the honest answer is the only choice)",
        "baron_result": "report the Baron comparison (the honest result is the only choice)",
        "chancellor": "Chancellor: keep one card; the last one named goes to the very bottom",
    }
    card_help_line = False  # the hand panel shows every card's effect
    board_at_game_over = True  # the board holds the last round's summary
    automatic = frozenset({"guard_answer", "baron_result"})  # the honest answer is the only one

    hands_in_seat_rows = True  # (each row: the hand as the view knows it, * for a card seen privately)

    def face_label(self, face: Face) -> str:
        """``Guard(1)``: the name and this edition's value."""
        values = getattr(self.game, "values", {})
        return f"{NAMES.get(face, face)}({values.get(face, '?')})"

    # -- the table -----------------------------------------------------------------------------
    def seat_rows(self, view: TableView) -> Fragments:
        """One row per seat: turn mark, name, link, tokens, state, hand (as this view knows it),
        discards."""
        game, s = view.game, view.state
        threshold = getattr(game, "threshold", 0)
        out: Fragments = []
        between = _between_rounds(s)
        for p in range(game.seats):
            turn = s.turn == p and not between
            mark = ("class:turn", "▶") if turn else ("", " ")
            style = "class:me" if p == view.seat else ""
            tokens = s.tokens[p] if s.tokens else 0
            hearts = "♥" * tokens + "·" * max(threshold - tokens, 0)
            marks = []
            if s.out and s.out[p]:
                marks.append(("class:out", "OUT"))
            if s.protected and s.protected[p]:
                marks.append(("class:protected", "protected"))
            hand = []
            for ref in hand_refs(view, p):
                face = view.faces.get(ref)
                if p == view.seat or face is None:
                    continue  # your own hand has its own panel; unknown cards are drawn as a count
                seen = "" if ref in s.faces else "*"
                hand.append(face_label(game, face) + seen)
            hidden = sum(1 for r in hand_refs(view, p) if r not in view.faces)
            # a played card is public once revealed; its player (or the full view) knows it before
            played = [s.faces.get(r) or view.faces.get(r) for r in s.discards[p]] if s.discards else []
            discards = " ".join(face_label(game, f) for f in played)
            parts: Fragments = [mark, (style, f"{p} {view.name_cell(p)} "), link_cell(view, p)]
            parts.append(("class:tokens", f" {hearts:<{max(threshold, 1)}} "))
            status = " ".join(t for _, t in marks)
            parts.append((marks[0][0] if marks else "", f"{status:<10}"))
            cards = " ".join(hand) + ("" if not hidden else (" " if hand else "") + "▒" * hidden)
            if p == view.seat and view.extra.get("hand_panel"):
                count = len(hand_refs(view, p))  # the hand panel below shows them
                cards = f"{count} card{'' if count == 1 else 's'}"
            elif p == view.seat:
                cards = " ".join(face_label(game, view.faces.get(r)) for r in hand_refs(view, p))
            parts.append(("class:hand", f" {cards:<11}"))
            if discards:
                parts.append(("class:discard", f" ▸ {discards}"))
            line(out, *parts)
        return out

    def board(self, view: TableView) -> Fragments:
        """Pile, set-aside card, face-up cards, whose turn, and the last round's summary."""
        game, s = view.game, view.state
        out: Fragments = []
        if s.faceup:
            line(
                out,
                ("", "face up this round: " + " ".join(face_label(game, s.faces.get(r)) for r in s.faceup)),
            )
        aside = "none"
        if s.set_aside is not None:
            aside = face_label(game, view.faces[s.set_aside]) if s.set_aside in view.faces else "1 face down"
        pile = f"pile {len(s.pile)} card{'' if len(s.pile) == 1 else 's'}"
        goal = getattr(game, "threshold", 0)
        line(
            out,
            ("class:info", f"{pile} · set aside: {aside} · {goal} tokens win · now: "),
            ("class:now", waiting_words(view)),
        )
        summary = self.round_line(view)
        if summary:
            line(out, ("class:summary", summary))
        known = [
            f"{view.label(p)} holds {face_label(game, view.faces[r])}"
            for p in range(game.seats)
            if p != view.seat
            for r in hand_refs(view, p)
            if r in view.faces and r not in s.faces
        ]
        if known and view.seat is not None:
            line(out, ("class:secret", "you know: " + "; ".join(known) + " (marked * above)"))
        return out

    def round_line(self, view: TableView) -> str:
        """``Round 2 over: seat 1 (bob) wins — tokens ...`` between rounds, else ``""``."""
        s = view.state
        if not _between_rounds(s) or s.round == 0:
            return ""
        if s.fault is not None:
            reason = view.inert(s.fault.reason, 200)
            return f"The game stopped: {view.label(s.fault.seat)} cheated ({reason})."
        if s.last_winners:
            who = ", ".join(view.label(w) for w in s.last_winners)
            verb = "wins" if len(s.last_winners) == 1 else "share"
            text = f"Round {s.round} over: {who} {verb} it"
        else:
            text = f"Round {s.round} over: a complete tie, no token"
        if s.last_spy is not None:
            text += f"; {view.label(s.last_spy)} gets the Spy bonus"
        names = [view.name(p) for p in range(len(s.tokens))]
        if any("," in n for n in names):  # ("bot-1, run by ann 3" would read as part of the name)
            tokens = " · ".join(f"{n}: {t}" for n, t in zip(names, s.tokens, strict=True))
        else:
            tokens = ", ".join(f"{n} {t}" for n, t in zip(names, s.tokens, strict=True))
        return f"{text}. Tokens: {tokens}."

    # -- what happened, in words ------------------------------------------------------------------
    def consequences(self, before: Any, after: Any, view: TableView) -> list[str]:
        """The card a round's deal, a King's swap or a Prince's redraw has just given this seat."""
        seat = view.seat
        words = _GIVEN_WORDS.get(before.phase) if before is not None else None
        if seat is None or words is None:
            return []
        request, now = view.game.pending(before), view.game.pending(after)
        if now == request or not isinstance(request, Deal | Show):
            return []  # (its tokens are still coming in: the card is not known yet)
        pairs = request.deals if isinstance(request, Deal) else request.shows
        given = [r for r, to in pairs if to == seat and r in after.hands[seat] and r in view.faces]
        return [words.format(card=f"the {NAMES.get(view.faces[r], view.faces[r])}") for r in given]

    def rounds_done(self, state: Any) -> int:
        """Rounds over: the current one too once it is between rounds."""
        if state.round == 0:
            return 0
        return state.round if _between_rounds(state) else state.round - 1

    def round_summary(self, view: TableView) -> Fragments:
        """Who won the round that just ended, the tokens by name, and what wins the game."""
        s = view.state
        threshold = getattr(view.game, "threshold", 0)
        out: Fragments = []
        done = self.rounds_done(s)
        if s.last_winners:
            who = ", ".join(view.label(w) for w in s.last_winners)
            line(
                out,
                (
                    "class:heading",
                    f"Round {done} is over: {who} {'wins' if len(s.last_winners) == 1 else 'share'} it.",
                ),
            )
        else:
            line(out, ("class:heading", f"Round {done} is over: a complete tie, no token."))
        if s.last_spy is not None:
            line(out, ("", f"{view.label(s.last_spy)} gets a token for the Spy."))
        line(out, ("", ""))
        width = max(len(view.label(p)) for p in range(len(s.tokens)))
        for p, t in enumerate(s.tokens):
            hearts = "♥" * t + "·" * max(threshold - t, 0)
            line(
                out,
                ("", f"  {view.label(p):<{width}} "),
                ("class:tokens", hearts),
                ("", f"  {t} token{'s' if t != 1 else ''}"),
            )
        line(out, ("", ""))
        line(out, ("class:dim", f"The first to {threshold} tokens wins the game."))
        return out

    def compact_hand(self, view: TableView) -> Fragments:
        """``your hand: Baron(3) Guard(1)`` (each card's effect shows beside the highlighted move)."""
        if view.seat is None:
            return []
        faces = [view.faces.get(r) for r in hand_refs(view, view.seat)]
        out: Fragments = []
        if not faces:
            return self.hand(view)
        labels = "  ".join(face_label(self.game, f) for f in faces)
        line(out, ("class:heading", "your hand: "), ("class:card", labels))
        return out

    def hand(self, view: TableView) -> Fragments:
        """The viewer's own hand, each card with its value and effect."""
        if view.seat is None:
            return []
        faces = [view.faces.get(r) for r in hand_refs(view, view.seat)]
        out: Fragments = []
        if not faces:
            out_of_round = view.state.out and view.state.out[view.seat]
            text = "your hand: (out of the round)" if out_of_round else "your hand: (empty)"
            line(out, ("class:dim", text))
            return out
        # "your hand:" before the first card's line (the lines are the hand, not a rules list),
        # its width of blanks before the others: no row more than the cards' own
        head = "your hand: "
        for style, text in card_lines(view, [f for f in faces if f is not None]):
            if style == "class:card":
                out.append(("class:heading", head))
                head = " " * len(head)
            out.append((style, text))
        return out

    # -- moves in words ----------------------------------------------------------------------------
    def move_detail(
        self,
        move: Mapping[str, Any],
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        me: Seat | None,
        state: Any = None,
    ) -> str | None:
        """The Chancellor's choice: ``keep Guard(1), put Priest(2) then King(6) under the pile``."""
        if "keep" in move and "bottom" in move:
            keep = face_label(self.game, faces.get(move["keep"]))
            bottom = [face_label(self.game, faces.get(r)) for r in move.get("bottom") or []]
            if not bottom:
                return f"keep {keep}"
            return f"keep {keep}, put {' then '.join(bottom)} under the pile"
        return None

    def move_caution(self, move: Mapping[str, Any], faces: Mapping[Ref, Face]) -> str:
        """Playing the Princess puts you out of the round (rules §5: a UI may ask first)."""
        return PRINCESS_CAUTION if move.get("face") == "princess" and "card" in move else ""

    def refusal_reason(
        self,
        typed: Sequence[str],
        state: Any,
        seat: Seat,
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        prompt: str,
    ) -> str:
        """For ``play``: the engine's reason against the first card/target/guess the words fit."""
        if prompt != "play":
            return ""
        held = [faces.get(r) for r in state.hands[seat]]
        if "countess" in held:  # the Countess rule comes first: no target or guess changes it
            for forcer in ("king", "prince"):
                if forcer in held and forcer in typed:
                    return COUNTESS_RULE
        for move in self._candidates(state, seat, faces):
            words = tokenize(self._words(move, names, seat))
            if match_position(typed, words) is not None:
                return self._reason(state, seat, faces, move)
        return ""

    def _candidates(self, state: Any, seat: Seat, faces: Mapping[Ref, Face]) -> Iterable[dict[str, Any]]:
        """Every card in the hand on every seat with every guess: legal or not (for explanations)."""
        game: Any = self.game
        for ref in state.hands[seat]:
            face = faces.get(ref)
            if face is None:
                continue
            guesses: list[Face | None] = [None, *game.faces_by_value] if face == "guard" else [None]
            # another seat first: "play guard guard" is refused for naming the Guard, not for a
            # missing target the words never left out
            targets = [*(t for t in range(game.seats) if t != seat), None, seat]
            for target in targets:
                for guess in guesses:
                    yield {"card": ref, "face": face, "target": target, "guess": guess}

    @staticmethod
    def _words(move: Mapping[str, Any], names: Sequence[str], me: Seat) -> str:
        text = f"plays the {NAMES.get(move['face'], move['face'])}"
        if move["target"] is not None:
            text += f" on {seat_label(move['target'], names, me)}"
            if move["target"] == me:
                text += " yourself"  # so "prince me" / "prince yourself" find it
        if move["guess"] is not None:
            text += f", guessing the {NAMES.get(move['guess'], move['guess'])}"
        return text

    def _reason(self, state: Any, seat: Seat, faces: Mapping[Ref, Face], move: Mapping[str, Any]) -> str:
        try:
            self.game.apply(state, Event.move(seat, dict(move)))
        except IllegalMove as exc:
            return player_words(str(exc))
        others = [faces.get(r) for r in state.hands[seat] if r != move["card"]]
        if move["face"] in ("king", "prince") and "countess" in others:
            return COUNTESS_RULE
        if move["face"] == "guard" and move["guess"] is None:
            return "the Guard needs a guess: name a card other than the Guard"
        return "the rules do not allow that move now"
