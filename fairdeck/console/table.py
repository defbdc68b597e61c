"""What a table looks like on screen, as prompt-toolkit formatted text: pure functions of a view.

A :class:`TableView` is everything a screen may draw: the game, a *public* state, the faces this
view is allowed to know, and the players' names. The console builds it from the local party
(``faces = party.known_faces()``: public faces plus the cards dealt or shown to this seat, never
anything else), the replay viewer from a frame (public, one seat's, or the full disclosed view).
Every function here draws only from the view, so what is secret stays off the screen by
construction: a card is drawn by name only if its ref is in ``view.faces``.

Love Letter gets a rich table (tokens, protection, discard rows, pile, whose turn, the round's
summary, your hand with each card's effect); every other game gets its seats, its own ``render``
picture and, when the state has ``hands``, the seat's hand with card texts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import Decide, Face, Game, GameOver, Ref, Seat
from p2p.safetext import safe_text

from .moves import face_label, name_seats, seat_label

Fragments = list[tuple[str, str]]
"""prompt-toolkit formatted text: (style, text) pairs; ``\\n`` ends a line."""


@dataclass
class TableView:
    """One picture of the table: see the module docstring."""

    game: Game
    state: Any
    seat: Seat | None
    """Whose view this is (``None``: the public or full view)."""
    faces: Mapping[Ref, Face]
    """Every face this view may show; nothing else is ever drawn by name."""
    names: Sequence[str] = ()
    """Party names, seats first, then witnesses."""
    links: Sequence[Mapping[str, Any]] | None = None
    """``Node.connection_status()`` rows, when drawing a live table."""
    ended: str | None = None
    """``Table.ended`` ("over", "abandoned", "accused"), when known."""
    closing: str = ""
    """How a game that did not end by its rules was closed (:func:`closing_words`), already safe."""
    extra: dict[str, Any] = field(default_factory=dict)

    def name(self, seat: int) -> str:
        """The name at ``seat`` (or ``seat N``)."""
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def label(self, seat: int) -> str:
        """``seat 2 (bob)``, ``seat 0 (you)``."""
        return seat_label(seat, self.names, self.seat)

    def words(self, text: str) -> str:
        """``text`` with names added after every ``seat N``."""
        return name_seats(text, self.names, self.seat)

    def name_width(self) -> int:
        """Columns for the names in the seat rows: the longest name, between 12 and 20."""
        longest = max((len(n) for n in self.names), default=0)
        return max(NAME_COLUMNS[0], min(NAME_COLUMNS[1], longest))


NAME_COLUMNS = (12, 20)
"""Least and most columns a name takes in a seat row (longer names are cut there)."""


def closing_words(table: Any, names: Sequence[str], me: Seat | None = None) -> str:
    """How ``table`` (a :class:`p2p.protocol.Table`) was closed when not by its rules, in one line:
    who wrote the ``abandon`` entry and the reason they gave, or the faults the table proved (an
    accusation, a signed entry that broke a rule); ``""`` otherwise. Reasons may quote what another
    party signed, so they are made inert here; ``names`` must already be safe."""
    if table.ended == "abandoned":
        closer = next((e for e in reversed(table.entries) if e.kind == "abandon"), None)
        if closer is None:
            return ""
        reason = closer.body.get("reason", "") if isinstance(closer.body, Mapping) else ""
        said = safe_text(reason, 200) if reason else "(no reason given)"
        return f"{seat_label(closer.seat, names, me)} closed the game: {said}"
    if table.ended in ("accused", "faulted"):
        return "; ".join(
            f"{seat_label(f.seat, names, me) if isinstance(f.seat, int) else 'no seat'}: "
            f"{safe_text(f.reason, 200)}"
            for f in table.findings
        )
    return ""


def plain(fragments: Fragments) -> str:
    """The text of formatted fragments, without styles."""
    return "".join(text for _, text in fragments)


def split_lines(fragments: Fragments) -> list[Fragments]:
    """Cut formatted text into lines (without their newlines)."""
    lines: list[Fragments] = [[]]
    for style, text in fragments:
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if k:
                lines.append([])
            if part:
                lines[-1].append((style, part))
    return lines


def wrap(fragments: Fragments, width: int, indent: str = "    ") -> Fragments:
    """Word-wrap formatted text to ``width`` columns, keeping styles; continuation lines are indented."""
    out: Fragments = []
    width = max(width, len(indent) + 10)
    lines = split_lines(fragments)
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # the text ended with a newline: no empty line after it
    for line in lines:
        column = 0
        for style, text in line:
            for word in re.findall(r"\S+\s*|\s+", text):
                bare = word.rstrip()
                if column and column + len(bare) > width:
                    out.append(("", "\n" + indent))
                    column = len(indent)
                    word = word.lstrip() if word.strip() else ""
                while len(word.rstrip()) > width - column:  # a word longer than a line: cut it
                    cut = max(1, width - column)
                    out.append((style, word[:cut]))
                    out.append(("", "\n" + indent))
                    word, column = word[cut:], len(indent)
                out.append((style, word))
                column += len(word)
        out.append(("", "\n"))
    if out:
        out.pop()  # no newline after the last line
    return out


def _line(out: Fragments, *parts: tuple[str, str]) -> None:
    out.extend(parts)
    out.append(("", "\n"))


# ---------------------------------------------------------------------------------------------
# Shared pieces
# ---------------------------------------------------------------------------------------------


def link_cell(view: TableView, party: int) -> tuple[str, str]:
    """The connection mark of a party, 3 wide: ``you``, `` ● `` (connected) or `` ○ `` (gone)."""
    if view.links is None or party >= len(view.links):
        return ("", "   ")
    row = view.links[party]
    if row.get("me"):
        return ("class:you", "you")
    if row.get("connected"):
        return ("class:up", " ● ")
    return ("class:down", " ○ ")


def gone_words(view: TableView) -> str:
    """``bob (seat 2) is disconnected (12 s)`` for every party that is gone, else ``""``."""
    gone = []
    for row in view.links or ():
        if row.get("me") or row.get("connected"):
            continue
        silent = row.get("silent")
        since = f", silent {silent:.0f} s" if isinstance(silent, int | float) else ""
        gone.append(f"{view.name(row.get('party', -1))} (seat {row.get('party')}) is disconnected{since}")
    return "; ".join(gone)


def waiting_words(view: TableView) -> str:
    """Who the game waits for, in words (``seat 2 (bob) to play``), from the public state only."""
    game, state = view.game, view.state
    try:
        request = game.pending(state)
    except Exception:
        return ""
    if isinstance(request, GameOver):
        return "the game is over"
    if isinstance(request, Decide):
        who = "you" if request.seat == view.seat else view.label(request.seat)
        return f"{who} to {PROMPT_WORDS.get(request.prompt, request.prompt.replace('_', ' '))}"
    kind = type(request).__name__.lower()
    return TABLE_WORDS.get(kind, kind)


PROMPT_WORDS = {
    "play": "play",
    "guard_answer": "answer the Guard",
    "baron_result": "report the Baron comparison",
    "chancellor": "choose a card to keep",
    "discard": "discard to absorb the attack",
    "next": "choose who plays next",
}
"""How a ``Decide`` prompt is worded after "seat N to ..."."""

TABLE_WORDS = {
    "shuffle": "shuffling",
    "deal": "dealing",
    "reveal": "revealing cards",
    "show": "showing a card in private",
    "commit": "everyone chooses in secret",
    "random": "drawing lots",
    "disclose": "disclosing the round's hidden cards",
}
"""How a table operation is worded."""


def hand_refs(view: TableView, seat: int) -> tuple[Ref, ...]:
    """The refs in ``seat``'s hand, when the game's state has ``hands``."""
    hands = getattr(view.state, "hands", None)
    if not hands or not 0 <= seat < len(hands):
        return ()
    return tuple(r for r in hands[seat] if isinstance(r, int))


def card_lines(view: TableView, faces: Sequence[Face], heading: str = "") -> Fragments:
    """Each face's name and effect (``card_text``), one paragraph each."""
    out: Fragments = []
    if heading:
        _line(out, ("class:heading", heading))
    for face in faces:
        try:
            text = view.game.card_text(face)
        except Exception:
            text = face
        name, sep, effect = text.partition(":")
        name = re.sub(r", x\d+\)", ")", name)  # the copy count matters in the help, not in a hand
        _line(out, ("class:card", name), ("", f"{sep}{effect}"))
    return out


# ---------------------------------------------------------------------------------------------
# Love Letter
# ---------------------------------------------------------------------------------------------


def _ll_between_rounds(state: Any) -> bool:
    return state.phase in ("first_player", "shuffle", "disclose", "over")


def ll_seat_rows(view: TableView) -> Fragments:
    """One row per seat: turn mark, name, link, tokens, state, hand (as this view knows it), discards."""
    game, s = view.game, view.state
    threshold = getattr(game, "threshold", 0)
    out: Fragments = []
    between = _ll_between_rounds(s)
    width = view.name_width()
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
        parts: Fragments = [mark, (style, f"{p} {view.name(p)[:width]:<{width}} "), link_cell(view, p)]
        parts.append(("class:tokens", f" {hearts:<{max(threshold, 1)}} "))
        status = " ".join(t for _, t in marks)
        parts.append((marks[0][0] if marks else "", f"{status:<10}"))
        cards = " ".join(hand) + ("" if not hidden else (" " if hand else "") + "▒" * hidden)
        if p == view.seat:
            cards = " ".join(face_label(game, view.faces.get(r)) for r in hand_refs(view, p))
        parts.append(("class:hand", f" {cards:<11}"))
        if discards:
            parts.append(("class:discard", f" ▸ {discards}"))
        _line(out, *parts)
    return out


def ll_board(view: TableView) -> Fragments:
    """Pile, set-aside card, face-up cards, whose turn, and the last round's summary."""
    game, s = view.game, view.state
    out: Fragments = []
    if s.faceup:
        _line(
            out, ("", "face up this round: " + " ".join(face_label(game, s.faces.get(r)) for r in s.faceup))
        )
    aside = "none"
    if s.set_aside is not None:
        aside = face_label(game, view.faces[s.set_aside]) if s.set_aside in view.faces else "1 face down"
    pile = f"pile {len(s.pile)} card{'' if len(s.pile) == 1 else 's'}"
    _line(out, ("class:info", f"{pile} · set aside: {aside} · now: "), ("class:now", waiting_words(view)))
    summary = ll_round_summary(view)
    if summary:
        _line(out, ("class:summary", summary))
    known = [
        f"{view.label(p)} holds {face_label(game, view.faces[r])}"
        for p in range(game.seats)
        if p != view.seat
        for r in hand_refs(view, p)
        if r in view.faces and r not in s.faces
    ]
    if known and view.seat is not None:
        _line(out, ("class:secret", "you know: " + "; ".join(known) + " (marked * above)"))
    return out


def ll_round_summary(view: TableView) -> str:
    """``Round 2 over: seat 1 (bob) wins — tokens ...`` between rounds, else ``""``."""
    s = view.state
    if not _ll_between_rounds(s) or s.round == 0:
        return ""
    if s.fault is not None:
        return f"The game stopped: {view.label(s.fault.seat)} cheated ({safe_text(s.fault.reason, 200)})."
    if s.last_winners:
        who = ", ".join(view.label(w) for w in s.last_winners)
        verb = "wins" if len(s.last_winners) == 1 else "share"
        text = f"Round {s.round} over: {who} {verb} it"
    else:
        text = f"Round {s.round} over: a complete tie, no token"
    if s.last_spy is not None:
        text += f"; {view.label(s.last_spy)} gets the Spy bonus"
    tokens = ", ".join(f"{view.name(p)} {t}" for p, t in enumerate(s.tokens))
    return f"{text}. Tokens: {tokens}."


def ll_hand(view: TableView) -> Fragments:
    """The viewer's own hand, each card with its value and effect."""
    if view.seat is None:
        return []
    faces = [view.faces.get(r) for r in hand_refs(view, view.seat)]
    out: Fragments = []
    if not faces:
        out_of_round = view.state.out and view.state.out[view.seat]
        _line(out, ("class:dim", "your hand: (out of the round)" if out_of_round else "your hand: (empty)"))
        return out
    return card_lines(view, [f for f in faces if f is not None])


# ---------------------------------------------------------------------------------------------
# Every game
# ---------------------------------------------------------------------------------------------


def seat_rows(view: TableView) -> Fragments:
    """The seats (and witnesses) with their links; rich for Love Letter."""
    width = view.name_width()
    if view.game.name == "loveletter":
        out = ll_seat_rows(view)
    else:
        out = []
        for p in range(view.game.seats):
            style = "class:me" if p == view.seat else ""
            refs = hand_refs(view, p)
            cards = f"{len(refs)} card{'' if len(refs) == 1 else 's'}" if hasattr(view.state, "hands") else ""
            _line(
                out,
                ("", " "),
                (style, f"{p} {view.name(p)[:width]:<{width}} "),
                link_cell(view, p),
                ("", f" {cards}"),
            )
    for w in range(view.game.seats, len(view.names)):
        _line(
            out,
            ("", " "),
            ("class:dim", f"w {view.name(w)[:width]:<{width}} "),
            link_cell(view, w),
            ("class:dim", " witness"),
        )
    return out


def board(view: TableView) -> Fragments:
    """The public picture of the table (plus what this view knows)."""
    if view.game.name == "loveletter":
        return ll_board(view)
    out: Fragments = []
    try:
        text = view.game.render(view.state, view.seat, view.faces)
    except Exception as exc:  # a picture must never crash the screen
        text = f"(cannot draw the table: {type(exc).__name__})"
    for line in text.splitlines():
        if line.lower().startswith(_DROPPED):
            continue  # shown by the console's own hand panel and "now:" line
        _line(out, ("", view.words(line)))
    if view.seat is None:
        # the full view after disclosure: every hand whose faces this view knows
        for p in range(view.game.seats):
            known = [view.faces[r] for r in hand_refs(view, p) if r in view.faces]
            if known:
                _line(
                    out,
                    (
                        "class:secret",
                        f"{view.label(p)} holds " + " ".join(face_label(view.game, f) for f in known),
                    ),
                )
    _line(out, ("class:info", "now: "), ("class:now", waiting_words(view)))
    return out


_DROPPED = ("your hand", "waiting for", "next:")


def hand(view: TableView) -> Fragments:
    """The viewer's hand: with every card's effect for Love Letter, by name for the other games."""
    if view.game.name == "loveletter":
        return ll_hand(view)
    if view.seat is None or not hasattr(view.state, "hands"):
        return []
    cards = [face_label(view.game, view.faces.get(r)) for r in hand_refs(view, view.seat)]
    out: Fragments = []
    _line(out, ("class:heading", "your hand: "), ("class:card", "  ".join(cards) if cards else "(empty)"))
    return out


def result_lines(view: TableView) -> Fragments:
    """The end of the game in words: winners by name, scores per player, faults."""
    game, state = view.game, view.state
    out: Fragments = []
    ended = view.ended or "over"
    try:
        result = game.result(state)
    except Exception:
        result = {}
    if ended != "over":
        _line(out, ("class:heading", f"The game was {ended}."))
        if view.closing:
            _line(out, ("", view.closing))
    fault = result.get("fault") or (state.fault.to_dict() if getattr(state, "fault", None) else None)
    if fault:
        _line(out, ("class:down", f"{view.label(fault['seat'])} cheated: {safe_text(fault['reason'], 200)}"))
    winners = result.get("winners")
    if isinstance(winners, list) and ended == "over" and not fault:
        names = ", ".join(view.label(w) for w in winners) or "nobody"
        verb = "wins" if len(winners) == 1 else "win"
        if view.seat is not None and view.seat in winners:
            _line(
                out,
                ("class:win", f"You {'win' if len(winners) == 1 else 'share the win'}! "),
                ("", f"({names})"),
            )
        else:
            _line(out, ("class:heading", f"{names} {verb}."))
    if "outcome" in result and ended == "over":
        grade = f" ({result['grade']})" if result.get("grade") else ""
        _line(out, ("class:heading", f"The table has {result['outcome']}{grade}"))
    for key, value in result.items():
        if key in ("winners", "fault", "outcome", "grade"):
            continue
        if isinstance(value, list) and len(value) == game.seats and all(isinstance(v, int) for v in value):
            cells = "  ".join(f"{view.name(p)} {v}" for p, v in enumerate(value))
            _line(out, ("class:info", f"{key.replace('_', ' ')}: "), ("", cells))
        elif isinstance(value, int | str) and not isinstance(value, bool):
            _line(out, ("class:info", f"{key.replace('_', ' ')}: "), ("", str(value)))
    return out
