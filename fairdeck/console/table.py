"""What a table looks like on screen, as prompt-toolkit formatted text: pure functions of a view.

A :class:`TableView` is everything a screen may draw: the game, a *public* state, the faces this
view is allowed to know, and the players' names. The console builds it from the local party
(``faces = party.known_faces()``: public faces plus the cards dealt or shown to this seat, never
anything else), the replay viewer from a frame (public, one seat's, or the full disclosed view).
Every function here draws only from the view, so what is secret stays off the screen by
construction: a card is drawn by name only if its ref is in ``view.faces``.

Each section asks the game's presentation hooks first (:class:`engine.present.Presentation`: a game
may draw its own seat rows, board and hand, e.g. tokens, protection and discard rows); otherwise a
game gets its seats, its own ``render`` picture and, when the state has ``hands``, the seat's hand.
The view and its shared pieces live in :mod:`engine.present`, where the games' hooks use them too.
"""

from __future__ import annotations

import re

from engine.core import GameOver
from engine.present import (
    NAME_COLUMNS,
    TABLE_WORDS,
    Fragments,
    TableView,
    card_lines,
    face_label,
    hand_refs,
    link_cell,
    waiting_words,
)
from engine.present import line as _line
from p2p.safetext import safe_text
from replay.replay import closing_words, per_seat

__all__ = [
    "NAME_COLUMNS",
    "TABLE_WORDS",
    "Fragments",
    "TableView",
    "board",
    "card_lines",
    "closing_words",
    "compact_hand",
    "every_hand",
    "gone_words",
    "hand",
    "hand_refs",
    "link_cell",
    "plain",
    "result_lines",
    "seat_rows",
    "split_lines",
    "waiting_words",
    "wrap",
]


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


# ---------------------------------------------------------------------------------------------
# Every game
# ---------------------------------------------------------------------------------------------


def seat_rows(view: TableView) -> Fragments:
    """The seats (and witnesses) with their links; the game's own rows where it draws them."""
    out = view.present.seat_rows(view)
    if out is None:
        out = []
        for p in range(view.game.seats):
            style = "class:me" if p == view.seat else ""
            refs = hand_refs(view, p)
            cards = f"{len(refs)} card{'' if len(refs) == 1 else 's'}" if hasattr(view.state, "hands") else ""
            _line(
                out,
                ("", " "),
                (style, f"{p} {view.name_cell(p)} "),
                link_cell(view, p),
                ("", f" {cards}"),
            )
    for w in range(view.game.seats, len(view.names)):
        _line(
            out,
            ("", " "),
            ("class:dim", f"w {view.name_cell(w)} "),
            link_cell(view, w),
            ("class:dim", " witness"),
        )
    return out


def board(view: TableView) -> Fragments:
    """The public picture of the table (plus what this view knows)."""
    special = view.present.board(view)
    if special is not None:
        return special
    out: Fragments = []
    try:
        text = view.game.render(view.state, view.seat, view.faces)
    except Exception as exc:  # a picture must never crash the screen
        text = f"(cannot draw the table: {type(exc).__name__})"
    for line in text.splitlines():
        if line.lower().startswith(_DROPPED):
            continue  # shown by the console's own hand panel and "now:" line
        _line(out, ("", view.words(line)))
    if view.seat is None and view.public is None:
        # a seatless view after disclosure: every hand whose faces this view knows (the full view
        # lists every hand itself: every_hand)
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
    """The viewer's hand: the game's own hand panel where it draws one, else the cards by name."""
    special = view.present.hand(view)
    if special is not None:
        return special
    if view.seat is None or not hasattr(view.state, "hands"):
        return []
    cards = [face_label(view.game, view.faces.get(r)) for r in hand_refs(view, view.seat)]
    out: Fragments = []
    _line(out, ("class:heading", "your hand: "), ("class:card", "  ".join(cards) if cards else "(empty)"))
    return out


def every_hand(view: TableView) -> Fragments:
    """Every seat's hand as a seatless view knows it (the replay's full view), one line a seat: a
    card hidden from the table at that moment is marked ``*`` (when ``view.public`` says what the
    table knew), one this view does not know is ``▒``. Nothing when the state has no hands, or the
    game's seat rows already show them (:attr:`Presentation.hands_in_seat_rows`)."""
    if not hasattr(view.state, "hands") or view.present.hands_in_seat_rows:
        return []
    out: Fragments = []
    marked = False
    for p in range(view.game.seats):
        refs = hand_refs(view, p)
        cards = []
        for ref in refs:
            face = view.faces.get(ref)
            if face is None:
                cards.append("▒")
                continue
            hidden = view.public is not None and ref not in view.public
            marked = marked or hidden
            cards.append(face_label(view.game, face) + ("*" if hidden else ""))
        _line(out, ("class:heading", f"{view.label(p)}: "), ("class:card", "  ".join(cards) or "(no cards)"))
    if marked:
        _line(out, ("class:dim", "* hidden from the table then: known from the log's later disclosure"))
    return out


def _pending(view: TableView) -> object:
    try:
        return view.game.pending(view.state)
    except Exception:  # a state the game cannot read: nothing is known to be pending
        return None


def result_lines(view: TableView) -> Fragments:
    """The end of the game in words: winners by name, scores per player, faults."""
    game, state = view.game, view.state
    out: Fragments = []
    if view.ended is None and not isinstance(_pending(view), GameOver):
        # this node stopped (a failed write, a close it took on itself, a resume nobody answered):
        # the game is not over, and nobody has won it
        _line(out, ("class:heading", "The game is not over: it stopped here, unfinished."))
        if view.closing:
            _line(out, ("", view.closing))
        return out
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
            others = ", ".join(view.label(w) for w in winners if w != view.seat)
            if others:
                _line(out, ("class:win", "You share the win"), ("", f" with {others}"), ("class:win", "!"))
            else:  # ("You win! (seat 0 (you))" said it twice)
                _line(out, ("class:win", "You win!"))
        else:
            _line(out, ("class:heading", f"{names} {verb}."))
    if "outcome" in result and ended == "over":
        grade = f" ({result['grade']})" if result.get("grade") else ""
        who = "You have" if game.seats == 1 and view.seat == 0 else "The players have"  # (solo: you alone)
        _line(out, ("class:heading", f"{who} {result['outcome']}{grade}."))
    try:
        cause = view.present.end_words(view) if ended == "over" else ""
    except Exception:
        cause = ""
    if cause:
        _line(out, ("", cause))
    labels = view.present.result_labels  # (as the replay, the audit and the plain lines say it)
    for key, value in result.items():
        if key in ("winners", "fault", "outcome", "grade"):
            continue
        label = labels.get(key) or key.replace("_", " ")
        if isinstance(value, list) and len(value) == game.seats and all(isinstance(v, int) for v in value):
            cells = per_seat([view.name(p) for p in range(game.seats)], value)
            _line(out, ("class:info", f"{label}: "), ("", cells))
        elif isinstance(value, int | str) and not isinstance(value, bool):
            _line(out, ("class:info", f"{label}: "), ("", str(value)))
    return out


def compact_hand(view: TableView) -> Fragments:
    """The viewer's hand on as few lines as it takes: the game's own compact hand where it draws
    one, else the cards by name (the console shows a card's effect beside the highlighted move)."""
    special = view.present.compact_hand(view)
    if special is not None:
        return special
    if view.seat is None or not hasattr(view.state, "hands"):
        return hand(view)
    cards = [face_label(view.game, view.faces.get(r)) for r in hand_refs(view, view.seat)]
    out: Fragments = []
    _line(out, ("class:heading", "your hand: "), ("class:card", "  ".join(cards) if cards else "(empty)"))
    return out
