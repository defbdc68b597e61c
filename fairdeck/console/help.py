"""Rules help, one key away: how each game is played (its presentation's ``rules``), every card's
text, and the console's keys."""

from __future__ import annotations

import textwrap

from engine.core import Game
from engine.present import presentation

from .table import Fragments

KEYS: list[tuple[str, str]] = [
    ("↑ ↓", "move through your legal moves"),
    ("Enter", "play the highlighted move (or the one your typed words fit)"),
    ("1 2 3… Enter", "play move number N"),
    ("words…", "type words of a move: 'play guard 2 priest'; the list narrows as you type"),
    ("Tab", "complete the next word of a move (its choices show under the input line)"),
    ("say TEXT", "chat with the other players"),
    ("PgUp PgDn", "scroll the game log (back at its end, it follows the game again)"),
    ("Home End", "the game log's first and newest lines"),
    ("? or F1", "this help (when the input line is empty)"),
    ("Esc", "clear the input / close this help"),
    ("Ctrl-C", "leave the table (asks first)"),
]
"""The console's keys, for the help screen and docs/console.md."""


def help_entries(game: Game | None) -> list[tuple[str, str, str]]:
    """The help screen as ``(style, head, text)`` lines: the rules in short, every card, the keys."""
    out: list[tuple[str, str, str]] = []
    if game is not None:
        present = presentation(game)
        out.append(("class:heading", f"How to play {game.title or game.name}", ""))
        for paragraph in present.rules or ["(no summary for this game)"]:
            out.append(("", "", paragraph))
            out.append(("", "", ""))
        out.append(("class:heading", "The cards", ""))
        seen: set[str] = set()
        for face in dict.fromkeys(game.deck()):
            try:
                text = game.card_text(face)
            except Exception:
                continue
            if text in seen:  # two faces may read the same (two copies of a card under two names)
                continue
            seen.add(text)
            name, rest = present.help_card(face, text)
            last = out[-1]
            if last[0] == "class:card" and rest and last[2] == rest:
                # cards that do the same are one line (``Fairy 1, Fairy 2, …: worth no proposals``)
                out[-1] = (last[0], f"{last[1]}, {name}", rest)
            else:
                out.append(("class:card", name, rest))
        out.append(("", "", ""))
    out.append(("class:heading", "Keys", ""))
    for key, what in KEYS:
        out.append(("class:key", f"  {key:<14}", what))
    out.append(("", "", ""))
    out.append(("class:dim", "", "Esc, q or F1 closes this help; ↑ ↓ PgUp PgDn Home End scroll it."))
    return out


def wrap_entries(entries: list[tuple[str, str, str]], width: int) -> list[Fragments]:
    """Wrap ``(style, head, text)`` lines to ``width``; continuation lines are indented."""
    lines: list[Fragments] = []
    for style, head, text in entries:
        full = head + text
        if len(full) <= width:
            lines.append([(style, head), ("" if head else style, text)])
            continue
        chunks = textwrap.wrap(full, width, subsequent_indent="    ") or [""]
        first = chunks[0]
        if head and first.startswith(head):
            lines.append([(style, head), ("", first[len(head) :])])
        else:
            lines.append([(style if not head else "", first)])
        lines.extend([("" if head else style, chunk)] for chunk in chunks[1:])
    return lines
