"""Rules help, one key away: how each game is played, every card's text, and the console's keys."""

from __future__ import annotations

import textwrap

from engine.core import Game

from .moves import face_label
from .table import Fragments

GAME_RULES: dict[str, list[str]] = {
    "loveletter": [
        "Love Letter: each round, every player holds one card. On your turn you draw a second card and "
        "play one of the two face up; its effect happens at once.",
        "You are out of the round if a Guard names your card, you lose a Baron comparison, or you "
        "discard the Princess. The round ends when one player is left (they win it) or the pile is "
        "empty (the highest card wins; a tie goes to the highest total of discards).",
        "The round's winner gets a token of affection; the first to the token goal wins the game.",
        "Cards are dealt fairly by mental poker: nobody, not even the opener, sees a card they are not "
        "entitled to. Answers only your cards can give (a Guard's 'miss', a Baron result) are offered "
        "as the single honest choice; every claim is checked when the round's cards are disclosed.",
    ],
    "regicide": [
        "Regicide (co-operative): defeat the twelve royals of the Castle. On your turn play a card (or a "
        "combo of equal cards totalling at most 10, or an Ace with one card), or yield.",
        "Suit powers: Hearts heal (discards back under the Tavern), Diamonds draw cards, Clubs deal "
        "double damage, Spades shield against the enemy's attack. An enemy is immune to its own suit.",
        "If the enemy survives it attacks: discard cards worth at least its attack (after shields) or "
        "the game is lost. Exact damage puts the enemy on top of the Tavern.",
    ],
    "rebelprincess": [
        "Rebel Princess (trick taking): avoid the Princes! Each round a Round card changes the rules; "
        "pass cards as it says, then play tricks: follow the led suit if you can, the highest card of "
        "the led suit wins the trick.",
        "Captured Princes score 1 proposal each and the Frog (Pet 8) 5; after the last round the lowest "
        "total wins. Each player keeps one Princess whose power can be used once per round.",
    ],
}
"""A few sentences per game, in our own words (the full rules are in the shared rules files)."""

KEYS: list[tuple[str, str]] = [
    ("↑ ↓", "move through your legal moves"),
    ("Enter", "play the highlighted move (or the one your typed words fit)"),
    ("1 2 3… Enter", "play move number N"),
    ("words…", "type words of a move: 'play guard 2 priest'; the list narrows as you type"),
    ("Tab", "complete the next word of a move"),
    ("say TEXT", "chat with the other players"),
    ("PgUp PgDn", "scroll the game log"),
    ("? or F1", "this help (when the input line is empty)"),
    ("Esc", "clear the input / close this help"),
    ("Ctrl-C", "leave the table (asks first)"),
]
"""The console's keys, for the help screen and docs/console.md."""


def help_entries(game: Game | None) -> list[tuple[str, str, str]]:
    """The help screen as ``(style, head, text)`` lines: the rules in short, every card, the keys."""
    out: list[tuple[str, str, str]] = []
    if game is not None:
        out.append(("class:heading", f"How to play {game.name}", ""))
        for paragraph in GAME_RULES.get(game.name, ["(no summary for this game)"]):
            out.append(("", "", paragraph))
            out.append(("", "", ""))
        out.append(("class:heading", "The cards", ""))
        seen: set[str] = set()
        for face in dict.fromkeys(game.deck()):
            try:
                text = game.card_text(face)
            except Exception:
                continue
            if text in seen:  # Regicide's two Jesters read the same
                continue
            seen.add(text)
            name, sep, effect = text.partition(":")
            if game.name == "regicide":
                name = f"{face_label(game, face)} {name}"
            out.append(("class:card", name, f"{sep}{effect}"))
        out.append(("", "", ""))
    out.append(("class:heading", "Keys", ""))
    for key, what in KEYS:
        out.append(("class:key", f"  {key:<14}", what))
    out.append(("", "", ""))
    out.append(("class:dim", "", "Esc, q or F1 closes this help; ↑ ↓ PgUp PgDn scroll it."))
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
