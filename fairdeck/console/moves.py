"""Legal moves in words, typed move commands, completion, and why a typed command is refused.

A decision is shown as a numbered list of the seat's legal moves, each worded with the game's own
``describe`` (the line every seat will read once the move is made), with the seat names added.
A person picks one with the arrows and Enter, by its number, or by typing a few of its words in
order: ``play guard 2 priest`` picks "plays the Guard on seat 2 (bob), guessing the Priest". Every
typed word must be the start of one of the move's words, in the same order; small filler words
(``the``, ``on``...) may be left out or added. A command that matches no legal move is refused
*before anything is sent*, with the rule that forbids it when the game can tell (its presentation's
``refusal_reason``: e.g. the engine's own ``IllegalMove`` reason for the closest illegal move), else
with the words that would work.

Nothing here reads anything but the public state and the faces the deciding seat knows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Event, Face, Game, Ref, Seat
from engine.present import (
    FILLER,
    card_sort_key,
    face_label,
    match_position,
    match_words,
    name_seats,
    presentation,
    seat_label,
    tokenize,
)

__all__ = [
    "ANSWERED_WORDS",
    "FILLER",
    "MoveOption",
    "common_completion",
    "explain_refusal",
    "face_label",
    "forced_option",
    "match",
    "match_position",
    "move_detail",
    "name_seats",
    "next_words",
    "pick",
    "seat_label",
    "tokenize",
    "word_moves",
]

REF_KEYS = frozenset({"card", "keep", "bottom", "swap", "freeze", "give", "take", "aside", "pass", "cards"})
"""Move fields that hold refs (cards) in the games' move shapes."""
SEAT_KEYS = frozenset({"target", "leader", "loser", "next", "seat"})
"""Move fields that hold seats."""


# ---------------------------------------------------------------------------------------------
# Moves in words
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveOption:
    """One legal move as shown in the menu: its 1-based ``number``, the ``move`` itself, its words."""

    number: int
    move: dict[str, Any]
    words: str
    tokens: tuple[str, ...]
    faces: tuple[Face, ...] = ()
    """The faces of the cards this move uses (for the card help shown next to the menu)."""
    any_order: bool = False
    """Its words may be typed in any order (the game's ``typed_in_any_order``: several cards)."""
    caution: str = ""
    """What the move costs its player (the game's ``move_caution``, e.g. "you are out of the
    round"): already in :attr:`words`; the programs ask before sending such a move. Empty when it
    is the only move (nothing else could be chosen: its cost is said, not asked about)."""
    card_words: tuple[str, ...] = ()
    """Each of its cards as the one word typed for it (``9s``, ``ac``), when every card's name is
    one word (a game whose moves are sets of cards); else empty."""


def _describe(game: Game, state: Any, seat: Seat, move: Mapping[str, Any]) -> str:
    try:
        return game.describe(state, Event.move(seat, dict(move)))
    except Exception:  # wording must never break the menu
        return ""


def _strip_actor(text: str, seat: Seat) -> str:
    """``seat 0 plays X`` -> ``plays X``; ``seat 0: miss`` -> ``miss`` (the actor is the reader)."""
    stripped = re.sub(rf"^seat {seat}:? ", "", text)
    return stripped.replace(" on themselves", " on yourself") if stripped != text else text


def _move_faces(move: Mapping[str, Any], faces: Mapping[Ref, Face]) -> list[Face]:
    found: list[Face] = []
    for key, value in move.items():
        if key in REF_KEYS or key in ("play", "discard"):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, list) and len(item) == 2 and isinstance(item[1], str):
                    found.append(item[1])
                elif isinstance(item, int) and not isinstance(item, bool) and item in faces:
                    found.append(faces[item])
                elif isinstance(item, list):
                    found.extend(faces[r] for r in item if isinstance(r, int) and r in faces)
    return found


def _cards_key(game: Game, cards: Sequence[Face]) -> tuple[int, int, tuple[Any, ...]]:
    # fewest cards first: the highlighted move never spends cards a smaller one would keep
    if not cards:
        return (1, 0, ())
    return (0, len(cards), tuple(card_sort_key(game, face) for face in cards))


def move_detail(
    game: Game,
    move: Mapping[str, Any],
    faces: Mapping[Ref, Face],
    names: Sequence[str],
    me: Seat | None,
    state: Any = None,
) -> str:
    """The move's fields in words, cards by name (used when ``describe`` cannot tell moves apart);
    the game's presentation words its own move shapes first."""
    special = presentation(game).move_detail(move, faces, names, me, state)
    if special is not None:
        return special
    parts: list[str] = []
    for key, value in move.items():
        if key == "face" or value is None or value is False:
            continue
        if value is True:
            parts.append(key.replace("_", " "))
        elif key in SEAT_KEYS and isinstance(value, int):
            parts.append(f"{key} {seat_label(value, names, me)}")
        elif key in REF_KEYS or key in ("play", "discard"):
            labels = [face_label(game, f) for f in _move_faces({key: value}, faces)]
            if (
                isinstance(value, list)
                and value
                and all(isinstance(v, list) for v in value)
                and key == "give"
            ):
                labels = [f"{face_label(game, faces.get(r))} to {seat_label(s, names, me)}" for s, r in value]
            parts.append(f"{key} {', '.join(labels) if labels else value}")
        else:
            parts.append(f"{key} {value}")
    return "; ".join(parts) or "(nothing to choose)"


def word_moves(
    game: Game,
    state: Any,
    seat: Seat,
    faces: Mapping[Ref, Face],
    moves: Sequence[Mapping[str, Any]],
    names: Sequence[str] = (),
) -> tuple[str, list[MoveOption]]:
    """Word every legal move; returns ``(heading, options)``.

    When ``describe`` gives the same line for several moves (a secret choice is described the same
    whatever it is), that line becomes the heading and the moves are told apart by their fields.
    Moves that read exactly alike even then differ only in which copy of a card is used (two
    Guards in hand): only the first is offered.
    """
    described = [name_seats(_strip_actor(_describe(game, state, seat, m), seat), names, seat) for m in moves]
    details = [move_detail(game, m, faces, names, seat, state) for m in moves]
    # the same move with another copy of the same card (two Guards) reads exactly alike: one is enough
    unique: dict[tuple[str, str], Mapping[str, Any]] = {}
    for move, text, detail in zip(moves, described, details, strict=True):
        unique.setdefault((text, detail), move)
    pairs = list(unique)
    present = presentation(game)
    cautions = {key: _caution(present, unique[key], faces) for key in pairs}
    # fewest cards first, then in the game's card order (a hand's refs say nothing to a player);
    # moves without cards last, and a move that costs its player dear (the Princess) after all
    pairs.sort(key=lambda key: (bool(cautions[key]), _cards_key(game, _move_faces(unique[key], faces))))
    heading = ""
    if len(pairs) > 1 and len({text for text, _ in pairs}) == 1:
        heading = presentation(game).menu_heading(pairs[0][0], state, seat, names)
        texts = [detail for _, detail in pairs]
    else:
        count: dict[str, int] = {}
        for text, _ in pairs:
            count[text] = count.get(text, 0) + 1
        texts = [
            (text if text and count[text] == 1 else f"{text} — {detail}" if text else detail)
            for text, detail in pairs
        ]
    options = []
    any_order = present.typed_in_any_order
    # a move with no other to choose instead is said with its cost, but not asked about (a defeat
    # that is the only move left: asking would only hold up what the rules leave)
    choice = not all(cautions[key] for key in pairs)
    for number, (key, text) in enumerate(zip(pairs, texts, strict=True), 1):
        move = dict(unique[key])
        found = tuple(_move_faces(move, faces))
        caution = cautions[key]
        if caution:
            text = f"{text} ({caution})"
        caution = caution if choice else ""
        labels = [tokenize(face_label(game, face)) for face in found]
        cards = tuple(w[0] for w in labels) if any_order and all(len(w) == 1 for w in labels) else ()
        options.append(
            MoveOption(number, move, text, tuple(tokenize(text)), found, any_order, caution, cards)
        )
    return heading, options


def _caution(present: Any, move: Mapping[str, Any], faces: Mapping[Ref, Face]) -> str:
    try:
        return str(present.move_caution(move, faces) or "")
    except Exception:  # a warning must never break the menu
        return ""


# ---------------------------------------------------------------------------------------------
# Typed commands
# ---------------------------------------------------------------------------------------------


ANSWERED_WORDS = "answered for you, the only honest answer"
"""How a move sent without asking is marked, after the table's own words for it (console, plain)."""


def forced_option(game: Game, prompt: str, options: Sequence[MoveOption]) -> MoveOption | None:
    """The move to send without asking, if any: the only option of a prompt the game's
    presentation marks ``automatic`` (an answer only the rules can give, e.g. a Guard's "miss")."""
    if len(options) == 1 and prompt in presentation(game).automatic:
        return options[0]
    return None


def match(text: str, options: Sequence[MoveOption]) -> list[MoveOption]:
    """The options a typed command fits. A bare number picks that option; empty text fits all.

    Words must come in order, each the start of a word of the move. When several options fit,
    the closest fits win: fewest words of the move stepped over, then fewest words typed only in
    part. So ``play countess`` is the Countess, not a Guard guessing the Countess, and
    ``guard 2 prince`` guesses the Prince, not the Princess. In a game whose moves are sets of
    cards, a tie goes to the move with the fewest words: the cards typed and no others.
    """
    stripped = text.strip()
    if stripped.isdigit():
        number = int(stripped)
        return [o for o in options if o.number == number]
    typed = [SYNONYMS.get(word, word) for word in tokenize(stripped)]
    if not typed:
        return list(options)
    holding = [option for option in options if _holds(typed, option)]
    if holding:  # cards named (in any order): every move that plays them all, in the menu's order
        return holding
    fits = []
    for option in options:
        found = match_words(typed, option.tokens)
        if found is not None:
            fits.append(((found[1], found[2]), option))
    if not fits:  # the words of a move in another order ("play 3c 3s" for "plays 3S, 3C")
        # cards alone, with no verb ("ac 9h"), stand for the menu's own verb and those cards
        verbs = {option.tokens[0] for option in options if option.tokens}
        bare = not any(_starts(typed[0], verb) for verb in verbs)
        for option in options:
            if not option.any_order or not option.tokens:
                continue
            if _fits_any_order(typed, option.tokens) or (
                bare and _fits_any_order([option.tokens[0], *typed], option.tokens)
            ):
                fits.append(((len(typed), 0), option))
    if not fits:
        return []
    best = min(score for score, _ in fits)
    closest = [option for score, option in fits if score == best]
    if len(closest) > 1 and all(option.any_order for option in closest):
        # a move of several cards: what the words typed leave out are more cards, so the fewest
        # words win ("play 9s" is the 9S alone, not 9S + AC; "play 5" still fits 5H and 5D)
        fewest = min(len(option.tokens) for option in closest)
        closest = [option for option in closest if len(option.tokens) == fewest]
    return closest


def pick(text: str, options: Sequence[MoveOption]) -> MoveOption | None:
    """The move Enter takes for ``text``: the only one it fits; or, of moves that are sets of cards,
    the one whose cards are exactly those typed (``play 9s`` is the 9S alone, although the 9S + AC
    fits too and is listed); ``None`` when the words leave the choice open."""
    fits = match(text, options)
    if len(fits) == 1:
        return fits[0]
    typed = _typed_cards([SYNONYMS.get(w, w) for w in tokenize(text)], fits)
    exact = [
        option
        for option in fits
        if typed is not None and sorted(typed) == sorted(option.card_words) and option.card_words
    ]
    return exact[0] if len(exact) == 1 else None


def _typed_cards(typed: Sequence[str], options: Sequence[MoveOption]) -> list[str] | None:
    """The typed words that name cards: without a leading verb of the menu's and filler."""
    verbs = {option.tokens[0] for option in options if option.tokens}
    rest = list(typed)
    if rest and any(_starts(rest[0], verb) for verb in verbs) and not any(
        _starts(rest[0], card) for option in options for card in option.card_words
    ):
        rest = rest[1:]
    return [token for token in rest if token not in FILLER] or None


def _holds(typed: Sequence[str], option: MoveOption) -> bool:
    """The typed words are the option's verb (or none) and cards it plays, each the start of a
    distinct card of it, in any order (``ac``, ``play 9h``, ``9h ac`` hold AC + 9H)."""
    if not option.card_words or not option.tokens:
        return False
    rest = list(typed)
    verb = option.tokens[0]
    if rest and _starts(rest[0], verb) and not any(_starts(rest[0], c) for c in option.card_words):
        rest = rest[1:]
    rest = [token for token in rest if token not in FILLER]
    if not rest:
        return False
    free = list(option.card_words)
    for token in sorted(rest, key=lambda t: t not in free):  # whole names first, then starts
        index = next((i for i, card in enumerate(free) if card == token), None)
        if index is None:
            index = next((i for i, card in enumerate(free) if _starts(token, card)), None)
        if index is None:
            return False
        free.pop(index)
    return True


SYNONYMS = {"me": "yourself", "myself": "yourself", "self": "yourself"}
"""Typed words that stand for a word of the moves (``prince me`` is the Prince on yourself)."""


def _fits_any_order(typed: Sequence[str], words: Sequence[str]) -> bool:
    """Every typed word (but filler) is the start of a distinct word of the move, in any order,
    and the first typed word is the start of the move's first word (its verb)."""
    free = list(words)
    for token in typed:
        index = next((i for i, w in enumerate(free) if _starts(token, w)), None)
        if index is None:
            if token in FILLER:
                continue
            return False
        free.pop(index)
    return bool(words) and _starts(typed[0], words[0])


def _starts(token: str, word: str) -> bool:
    if token.isdigit():
        return word == token or (word.startswith(token) and not word[len(token)].isdigit())
    return word.startswith(token)


def next_words(text: str, options: Sequence[MoveOption]) -> list[str]:
    """Words that may come next after ``text`` (for completion): the last word is a partial one."""
    ends_with_space = text.endswith(" ") or not text
    typed = tokenize(text)
    partial = "" if ends_with_space or not typed else typed[-1]
    done = typed if ends_with_space else typed[:-1]
    out: dict[str, None] = {}
    for option in options:
        if done and _holds(done, option):  # cards typed in any order: the move's other cards
            left = list(option.card_words)
            for token in done:
                if token in left:
                    left.remove(token)
            for card in left:
                if card.startswith(partial) and card != partial:
                    out.setdefault(card)
        at = match_position(done, option.tokens)
        if at is None:
            continue
        for word in option.tokens[at:]:
            if word.startswith(partial) and word not in FILLER and word != partial:
                out.setdefault(word)
                break  # only the nearest word that fits: completion goes left to right
    return list(out)


def common_completion(text: str, options: Sequence[MoveOption]) -> str | None:
    """``text`` extended by the next word when only one word can follow (Tab with a single choice)."""
    words = next_words(text, options)
    if len(words) != 1:
        return None
    if text.endswith(" ") or not text:
        return f"{text}{words[0]} "
    head = text.rstrip()
    cut = head.rfind(" ")
    return f"{head[: cut + 1]}{words[0]} "


# ---------------------------------------------------------------------------------------------
# Why a typed command is refused
# ---------------------------------------------------------------------------------------------


def explain_refusal(
    text: str,
    game: Game,
    state: Any,
    seat: Seat,
    faces: Mapping[Ref, Face],
    options: Sequence[MoveOption],
    names: Sequence[str] = (),
    prompt: str = "",
) -> str:
    """Why ``text`` matches no legal move, in one line, before anything is sent."""
    stripped = text.strip()
    if stripped.isdigit():
        return f"there is no move {stripped}: choose a number from 1 to {len(options)}"
    typed = tokenize(stripped)
    try:
        missing = _card_not_held(typed, game, state, seat, faces, options)
    except Exception:  # (as below: never breaks the console)
        missing = ""
    if missing:
        return f"you hold no {missing}"
    try:
        reason = presentation(game).refusal_reason(typed, state, seat, faces, names, prompt)
    except Exception:  # an explanation must never break the console
        reason = ""
    if reason:
        return f"not allowed: {reason}"
    # short enough for the console's one message line at 80 columns
    return f"no legal move matches {stripped!r}: type a move's number, or its words and Tab"


def _card_names(game: Game) -> dict[tuple[str, ...], tuple[str, frozenset[Face]]]:
    """Every card name of ``game``, as typed words (a leading "the" left out), with the name as the game
    spells it and the faces it names. The name is the card's label up to its value or subtitle
    (``Guard(1)``: ``Guard``; ``the Frog (Pet 8)``: ``Frog``, and ``Pet 8`` names it too;
    ``Alice - Cheshire's Challenge``: ``Alice``; ``4D``; ``Jester``)."""
    try:
        deck = set(game.deck())
    except Exception:  # a game that cannot list its cards names none
        return {}
    found: dict[tuple[str, ...], tuple[str, set[Face]]] = {}
    for face in sorted(deck):
        label = face_label(game, face)
        name = re.split(r"\s*(?:\(| - |: )", label, maxsplit=1)[0].strip()
        inner = re.match(r"[^(]*\(([^)]*)\)", label)
        spellings = [name]
        if inner and not inner.group(1).strip().isdigit():
            spellings.append(inner.group(1).strip())
        shown = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
        for spelling in spellings:
            words = tuple(tokenize(re.sub(r"^the\s+", "", spelling, flags=re.IGNORECASE)))
            if words:
                found.setdefault(words, (shown, set()))[1].add(face)
    return {words: (shown, frozenset(named)) for words, (shown, named) in found.items()}


def _card_not_held(
    typed: Sequence[str],
    game: Game,
    state: Any,
    seat: Seat,
    faces: Mapping[Ref, Face],
    options: Sequence[MoveOption],
) -> str:
    """The name of a card the typed words name that the seat does not hold and no legal move uses
    (``""``: none): the first card named (the one to play), or a later one that no move's words
    name either (a later card may be a guess: ``guard 2 priest`` names a Priest the Guard guesses)."""
    hands = getattr(state, "hands", None)
    if not isinstance(hands, Sequence) or not 0 <= seat < len(hands):
        return ""
    held = {faces.get(r) for r in hands[seat] if isinstance(r, int)}
    used = {face for option in options for face in option.faces}
    names = _card_names(game)
    first = True
    i = 0
    while i < len(typed):
        words = max((w for w in names if tuple(typed[i : i + len(w)]) == w), key=len, default=None)
        if words is None:
            i += 1
            continue
        shown, named = names[words]
        absent = not (named & held) and not (named & used)
        if absent and (first or not any(_contains(option.tokens, words) for option in options)):
            return shown
        first = False
        i += len(words)
    return ""


def _contains(tokens: Sequence[str], words: Sequence[str]) -> bool:
    """``words`` appear together, in order, among ``tokens``."""
    return any(tuple(tokens[i : i + len(words)]) == tuple(words) for i in range(len(tokens)))
