"""How a game is presented: the hooks a game gives the console, the plain interface and the viewer.

Theory of operation
-------------------
The user-facing programs (``fairdeck/console``, ``fairdeck/plainui.py``, ``fairdeck/viewer.py``)
never ask which game they draw. They build a :class:`TableView` (the game, a *public* state, the faces
this view may know, the players' names) and ask the game's :class:`Presentation` — obtained from the
registry with :func:`engine.games.presentation` — for what differs between games: how a card is
labelled, the rules in short, how a decision is titled, the table's sections (seat rows, board,
hand) where the generic ones do not fit, how a move reads when ``describe`` cannot tell moves apart,
and why a typed command is not allowed. Every hook has a default that works for any game, so a new
game needs none of them to be playable.

This module is pure (no I/O, no terminal library): formatted text is a list of ``(style, text)``
pairs (:data:`Fragments`, prompt-toolkit's shape), and the helpers below are shared by the console
and by the games' own presentations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.core import Deal, Decide, Face, Game, GameOver, Ref, Reveal, Seat, Show

Fragments = list[tuple[str, str]]
"""prompt-toolkit formatted text: (style, text) pairs; ``\\n`` ends a line."""

_SEAT_WORD = re.compile(r"\bseat (\d+)\b('s\b)?")


def _inert(value: object, limit: int | None = None) -> str:
    """A stand-in for ``p2p.safetext.safe_text`` (which the programs pass in): unprintable characters
    become visible escapes, so text another party wrote cannot act on a terminal."""
    text = value if isinstance(value, str) else str(value)
    out = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
                  for c in text)
    if limit is not None and len(out) > limit:
        out = out[: max(limit - 1, 0)] + "…"
    return out


# ---------------------------------------------------------------------------------------------
# Names of seats
# ---------------------------------------------------------------------------------------------


def seat_label(seat: int, names: Sequence[str], me: Seat | None = None) -> str:
    """``seat 2 (bob)``; the viewer's own seat is ``seat 0 (you)``."""
    if seat == me:
        return f"seat {seat} (you)"
    if 0 <= seat < len(names):
        return f"seat {seat} ({names[seat]})"
    return f"seat {seat}"


def name_seats(text: str, names: Sequence[str], me: Seat | None = None) -> str:
    """Add the player's name after every ``seat N`` in ``text``; the viewer's own ``seat N's``
    becomes ``your`` (not ``seat 0 (you)'s``), and so does ``their`` in a clause it is the subject
    of (``seat 0 (you) is protected until your next turn``), and ``themselves`` ``yourself``."""

    def label(found: re.Match[str]) -> str:
        seat, possessive = int(found.group(1)), found.group(2) or ""
        if possessive and seat == me:
            return "your"
        return seat_label(seat, names, me) + possessive

    named = _SEAT_WORD.sub(label, text)
    if me is None:
        return named
    # "seat 0 (you) is protected until their next turn": the viewer's own "their" is "your"
    named = re.sub(rf"(\bseat {me} \(you\) is [^;.]*?)\btheir\b", r"\1your", named)
    # "seat 0 (you) plays the Prince on themselves": the viewer played it on "yourself"
    named = re.sub(rf"(\bseat {me} \(you\) [^;.]*?)\bthemselves\b", r"\1yourself", named)
    # "reports that seat 0 (you) has the lower card": the viewer is told "you have", not of themselves
    return re.sub(rf"\bthat seat {me} \(you\) has\b", "that you have", named)


# ---------------------------------------------------------------------------------------------
# The view
# ---------------------------------------------------------------------------------------------


NAME_COLUMNS = (12, 24)
"""Least and most columns a name takes in a seat row (longer names are cut there): 24 holds a
witness's or bot's whole name with its owner (``witness-1, run by you``, ``bot-12, run by alice``)."""


@dataclass
class TableView:
    """One picture of the table: everything a screen may draw.

    The console builds it from the local party (``faces = party.known_faces()``: public faces plus
    the cards dealt or shown to this seat, never anything else), the replay viewer from a frame
    (public, one seat's, or the full disclosed view). Whatever draws from it draws only from the
    view, so what is secret stays off the screen by construction: a card is drawn by name only if
    its ref is in ``faces``.
    """

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
    """How a game that did not end by its rules was closed, already safe."""
    public: Mapping[Ref, Face] | None = None
    """In the replay's full view: the faces the whole table knew at that moment (a card drawn from
    :attr:`faces` but not in here is marked ``*``: hidden then, known from a later disclosure)."""
    extra: dict[str, Any] = field(default_factory=dict)
    inert: Callable[..., str] = _inert
    """``inert(text, limit)``: text from the log made safe to draw (the programs pass ``safe_text``)."""

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
        """Columns for the names in the seat rows: the longest name, between 12 and 24 (NAME_COLUMNS)."""
        longest = max((len(n) for n in self.names), default=0)
        return max(NAME_COLUMNS[0], min(NAME_COLUMNS[1], longest))

    def name_cell(self, seat: int) -> str:
        """The name at ``seat`` in exactly :meth:`name_width` columns; a longer one is cut with a
        mark (``…``), never silently."""
        width, name = self.name_width(), self.name(seat)
        if len(name) > width:
            name = name[: width - 1] + "…"
        return f"{name:<{width}}"

    @property
    def present(self) -> Presentation:
        """The game's presentation hooks."""
        return presentation(self.game)


# ---------------------------------------------------------------------------------------------
# Shared pieces of a table's picture
# ---------------------------------------------------------------------------------------------


def line(out: Fragments, *parts: tuple[str, str]) -> None:
    """Append ``parts`` and a newline to ``out``."""
    out.extend(parts)
    out.append(("", "\n"))


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


def hand_refs(view: TableView, seat: int) -> tuple[Ref, ...]:
    """The refs in ``seat``'s hand, when the game's state has ``hands``: the cards this view knows
    in the game's :meth:`Presentation.card_order`, then the others (a ref's number says nothing
    a player can use, and changes when a hand is re-masked)."""
    hands = getattr(view.state, "hands", None)
    if not hands or not 0 <= seat < len(hands):
        return ()
    refs = tuple(r for r in hands[seat] if isinstance(r, int))
    return tuple(sorted(refs, key=lambda r: card_sort_key(view.game, view.faces.get(r))))


def card_sort_key(game: Game, face: Face | None) -> tuple[int, tuple[Any, ...]]:
    """Where a card goes when cards are listed in order: known faces by the game's
    :meth:`Presentation.card_order`, unknown ones after them."""
    if face is None:
        return (1, ())
    try:
        return (0, tuple(presentation(game).card_order(face)))
    except Exception:  # an order must never fail
        return (0, ())


def card_lines(view: TableView, faces: Sequence[Face], heading: str = "") -> Fragments:
    """Each face's name and effect (``card_text``), one paragraph each; two copies of a card are
    one paragraph, counted (``Guard (1) ×2: …``)."""
    out: Fragments = []
    if heading:
        line(out, ("class:heading", heading))
    for face in dict.fromkeys(faces):
        try:
            text = view.game.card_text(face)
        except Exception:
            text = face
        name, sep, effect = text.partition(":")
        name = re.sub(r", x\d+\)", ")", name)  # the copy count matters in the help, not in a hand
        copies = list(faces).count(face)
        line(out, ("class:card", name + (f" ×{copies}" if copies > 1 else "")), ("", f"{sep}{effect}"))
    return out


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


def waiting_words(view: TableView) -> str:
    """Who the game waits for, in words (``seat 2 (bob) to play``), from the public state only."""
    game, state = view.game, view.state
    if view.ended is not None:  # (closed before its rules ended it: nobody is waited for any more)
        return "the game is over" if view.ended == "over" else f"the game is over ({view.ended})"
    try:
        request = game.pending(state)
    except Exception:
        return ""
    if isinstance(request, GameOver):
        return "the game is over"
    if isinstance(request, Decide):
        who = "you" if request.seat == view.seat else view.label(request.seat)
        return f"{who} to {view.present.prompt_words.get(request.prompt, request.prompt.replace('_', ' '))}"
    if isinstance(request, Deal | Show):
        pairs = request.deals if isinstance(request, Deal) else request.shows
        return _private_words(view, "dealing" if isinstance(request, Deal) else "showing", pairs)
    if isinstance(request, Reveal) and request.refs:
        return f"revealing {_cards(len(request.refs))}"
    kind = type(request).__name__.lower()
    return TABLE_WORDS.get(kind, kind)


def _cards(count: int) -> str:
    return "a card" if count == 1 else f"{count} cards"


def _private_words(view: TableView, verb: str, pairs: Sequence[tuple[Ref, Seat]]) -> str:
    """``dealing a card to seat 2 (bob)``, ``showing you a card in private``, ``dealing 8 cards to
    each of 2 seats``: a private deal or show and whom it is for (public: the step says so)."""
    seats = [seat for _, seat in pairs]
    if not seats:
        return TABLE_WORDS["deal" if verb == "dealing" else "show"]
    counts = {seat: seats.count(seat) for seat in seats}
    aside = "" if verb == "dealing" else " in private"
    if len(counts) == 1:
        ((seat, count),) = counts.items()
        who = "you" if seat == view.seat else view.label(seat)
        if verb == "showing":
            return f"showing {who} {_cards(count)}{aside}"
        return f"dealing {_cards(count)} to {who}"
    if len(set(counts.values())) == 1:
        return f"{verb} {_cards(seats.count(seats[0]))} to each of {len(counts)} seats{aside}"
    return f"{verb} {_cards(len(seats))} to {len(counts)} seats{aside}"


def face_label(game: Game, face: Face | None) -> str:
    """A short display name for a face (``Guard(1)``, ``4D``, ``Fairy 5``); ``?`` if unknown."""
    if face is None:
        return "?"
    try:
        return presentation(game).face_label(face)
    except Exception:  # a label must never fail
        return face


# ---------------------------------------------------------------------------------------------
# Typed words (the console's typed commands; games use them to explain a refusal)
# ---------------------------------------------------------------------------------------------

FILLER = frozenset({"the", "a", "an", "on", "to", "at", "with", "and", "seat", "card", "of", "my"})
"""Words a person may add or leave out of a typed command."""


def tokenize(text: str) -> list[str]:
    """Lower-case words and numbers of ``text`` (punctuation dropped)."""
    return re.findall(r"[a-z0-9]+", text.lower())


def _word_matches(typed: str, word: str) -> bool:
    if typed.isdigit():
        # "4" is the 4 of "4d" but not the start of "10c" or "40"
        return word == typed or (word.startswith(typed) and not word[len(typed)].isdigit())
    return word.startswith(typed)


def match_position(typed: Sequence[str], words: Sequence[str]) -> int | None:
    """Index after the last word matched by ``typed`` (in order, by prefix), or ``None``."""
    found = match_words(typed, words)
    return None if found is None else found[0]


def match_words(typed: Sequence[str], words: Sequence[str]) -> tuple[int, int, int] | None:
    """``(end, skipped, partial)``: where the match ends, how many real words it stepped over,
    and how many typed words were only the start of a word; ``None`` if ``typed`` does not fit."""
    i = 0
    first: int | None = None
    skipped = partial = 0
    for token in typed:
        j = i
        while j < len(words) and not _word_matches(token, words[j]):
            j += 1
        if j == len(words):
            if token in FILLER:
                continue
            return None
        if first is not None:
            skipped += sum(1 for w in words[i:j] if w not in FILLER)
        else:
            first = j
        partial += words[j] != token
        i = j + 1
    return i, skipped, partial


# ---------------------------------------------------------------------------------------------
# The hooks
# ---------------------------------------------------------------------------------------------


class Presentation:
    """What the programs need to present one game; subclass it in ``engine/<game>/present.py``.

    Every hook has a default that suits any game: a hook returning ``None`` means "draw it the
    generic way". Hooks draw only from the :class:`TableView` they are given.
    """

    rules: ClassVar[Sequence[str]] = ()
    """The rules in short, a few paragraphs in our own words, for the help screen."""
    prompt_words: ClassVar[Mapping[str, str]] = {}
    """How a ``Decide`` prompt reads after "seat N to …" (default: the prompt, ``_`` as spaces)."""
    menu_titles: ClassVar[Mapping[str, str]] = {}
    """The console's title over the legal moves for a prompt; it takes priority over the heading
    the console derives from the moves' words."""
    result_labels: ClassVar[Mapping[str, str]] = {}
    """How a key of ``game.result`` reads in words, where its name alone would not tell a player
    (default: the key, ``_`` as spaces)."""
    card_help_line: ClassVar[bool] = True
    """Show the highlighted move's card texts under the menu (off when the hand panel shows them)."""
    board_at_game_over: ClassVar[bool] = False
    """Keep the board on the game-over screen (when it holds the last round's summary)."""
    hands_in_seat_rows: ClassVar[bool] = False
    """The game's own seat rows show every hand as the view knows it (so the full view of a replay
    needs no separate list of hands)."""
    typed_in_any_order: ClassVar[bool] = False
    """A typed move's words may come in any order (a move of several cards: ``play 3c 3s``)."""
    noise: ClassVar[tuple[str, ...]] = ()
    """Patterns (regular expressions, matching a whole line) of event lines that say nothing
    happened (``Mulan keeps her card.``): the console leaves them out of its log (the replay and
    the audit keep every line)."""
    automatic: ClassVar[frozenset[str]] = frozenset()
    """Prompts whose only legal move the console sends by itself (an honest answer only the rules
    can give: there is nothing for the player to choose)."""

    def __init__(self, game: Game) -> None:
        self.game = game

    # -- cards -------------------------------------------------------------------------------
    def face_label(self, face: Face) -> str:
        """A short display name for a face; default: the name part of ``card_text``."""
        text = self.game.card_text(face)
        return text.split(":", 1)[0].split(" (", 1)[0] or face

    def menu_heading(self, heading: str, state: Any, seat: Seat, names: Sequence[str]) -> str:
        """The line over a decision's moves when they share one description (a secret choice),
        given that description; a game may add what the moves' own words leave out. Default: as
        it is."""
        return heading

    def card_order(self, face: Face) -> Sequence[Any]:
        """Where ``face`` goes when a hand or a menu lists cards in order (compared as a tuple;
        default: no order, so cards stay as they lie)."""
        return ()

    def help_card(self, face: Face, text: str) -> tuple[str, str]:
        """A card's line on the help screen, ``(name, rest)``, from its ``card_text``."""
        name, sep, effect = text.partition(":")
        return name, f"{sep}{effect}"

    # -- the table's sections (None: the generic section) ----------------------------------
    def seat_rows(self, view: TableView) -> Fragments | None:
        """One row per seat (the witnesses' rows are added after)."""
        return None

    def board(self, view: TableView) -> Fragments | None:
        """The public picture of the table (plus what this view knows)."""
        return None

    def hand(self, view: TableView) -> Fragments | None:
        """The viewer's own hand."""
        return None

    def compact_hand(self, view: TableView) -> Fragments | None:
        """The viewer's own hand on one line, for a short terminal (None: the cards by name)."""
        return None

    # -- what happened, in words -------------------------------------------------------------
    def consequences(self, before: Any, after: Any, view: TableView) -> list[str]:
        """Lines saying what the events between two public states caused that their own lines do
        not say (damage and its doubling, a defeat, a card received, a new round's card), worded
        with ``seat N`` (the programs add the names). ``before`` may be ``None`` (the first state)."""
        return []

    def rounds_done(self, state: Any) -> int:
        """How many rounds are over in ``state`` (a round's end shows its summary until dismissed)."""
        return 0

    def round_summary(self, view: TableView) -> Fragments | None:
        """The summary of the round that just ended (its winner, the scores, what it takes to win)."""
        return None

    def title_words(self, view: TableView) -> str:
        """A few words for the title bar (e.g. the round and what wins the game)."""
        return ""

    def end_words(self, view: TableView) -> str:
        """Why the game ended, in words, for the game-over screen (``""``: the result says it)."""
        return ""

    def result_parts(self, result: Mapping[str, Any], who: Callable[[int], str]) -> dict[str, str]:
        """Words for the parts of ``game.result`` that a generic wording would print as a Python list
        or misread (a list per round, card codes): by key, the whole part with its label (``""``:
        leave the part out); ``who(seat)`` names a seat. The audit words every other part itself."""
        return {}

    # -- moves in words ----------------------------------------------------------------------
    def move_detail(
        self,
        move: Mapping[str, Any],
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        me: Seat | None,
        state: Any = None,
    ) -> str | None:
        """A move's fields in words, when ``describe`` cannot tell it from others (None: generic);
        ``state`` is the public state the move is chosen in, when known."""
        return None

    def move_caution(self, move: Mapping[str, Any], faces: Mapping[Ref, Face]) -> str:
        """What a legal move costs its own player, in a few words (``you are out of the round``),
        when it is a move nobody makes by accident; ``""`` for an ordinary move. The programs add
        the words to the move's own, list it after the others and ask before sending it."""
        return ""

    def refusal_reason(
        self,
        typed: Sequence[str],
        state: Any,
        seat: Seat,
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        prompt: str,
    ) -> str:
        """Why the typed words (already tokenized) fit no legal move, when the game can tell: the
        rule that forbids the closest illegal move; ``""`` when it cannot."""
        return ""


_RULE_CODE = re.compile(r" ?\((?:EC|OQ)-\d+\)")


def quiet_parts(text: str, noise: Sequence[str], keep: Seat | None = None) -> list[str]:
    """An entry's words (its lines joined by ``"; "``) as its lines, without the game's noise
    (:attr:`Presentation.noise`): what the console's log and the plain mode say of it. A line
    whose subject is seat ``keep`` stays whole: it says what that player chose."""
    out = []
    for part in text.split("; "):
        part = part.strip()
        if keep is not None and part.startswith(f"seat {keep} "):
            out.append(part)
            continue
        for pattern in noise:  # a line that only starts with a sentence of nothing
            if pattern.endswith(r"\."):  # (a whole sentence, up to its full stop)
                part = re.sub(rf"^(?:{pattern})\s+(?=\S)", "", part)
        if part and not any(re.fullmatch(pattern, part) for pattern in noise):
            out.append(part)
    return out


def player_words(reason: str) -> str:
    """An engine's refusal as a player reads it: without the rule files' edge-case codes
    (``(EC-1)``), which the log and the audit keep so a sceptic can look the rule up."""
    return _RULE_CODE.sub("", reason)


def presentation(game: Game) -> Presentation:
    """The presentation hooks of ``game`` (from the registry; the default ones for unknown games)."""
    from engine.games import presentation_of  # the registry imports game packages, which import us

    return presentation_of(game)
