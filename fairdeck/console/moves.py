"""Legal moves in words, typed move commands, completion, and why a typed command is refused.

A decision is shown as a numbered list of the seat's legal moves, each worded with the game's own
``describe`` (the line every seat will read once the move is made), with the seat names added.
A person picks one with the arrows and Enter, by its number, or by typing a few of its words in
order: ``play guard 2 priest`` picks "plays the Guard on seat 2 (bob), guessing the Priest". Every
typed word must be the start of one of the move's words, in the same order; small filler words
(``the``, ``on``...) may be left out or added. A command that matches no legal move is refused
*before anything is sent*, with the rule that forbids it when the game can tell (for Love Letter
and Regicide the engine's own ``IllegalMove`` reason for the closest illegal move), else with the
words that would work.

Nothing here reads anything but the public state and the faces the deciding seat knows.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Event, Face, Game, IllegalMove, Ref, Seat

FILLER = frozenset({"the", "a", "an", "on", "to", "at", "with", "and", "seat", "card", "of", "my"})
"""Words a person may add or leave out of a typed command."""

REF_KEYS = frozenset({"card", "keep", "bottom", "swap", "freeze", "give", "take", "aside", "pass", "cards"})
"""Move fields that hold refs (cards) in the games' move shapes."""
SEAT_KEYS = frozenset({"target", "leader", "loser", "next", "seat"})
"""Move fields that hold seats."""

_SEAT_WORD = re.compile(r"\bseat (\d+)\b")


# ---------------------------------------------------------------------------------------------
# Names of cards and seats
# ---------------------------------------------------------------------------------------------


def face_label(game: Game, face: Face | None) -> str:
    """A short display name for a face: ``Guard(1)``, ``4D``, ``Fairy 5``; ``?`` if unknown."""
    if face is None:
        return "?"
    if game.name == "loveletter":
        from engine.loveletter import NAMES

        values = getattr(game, "values", {})
        return f"{NAMES.get(face, face)}({values.get(face, '?')})"
    if game.name == "regicide":
        return "Jester" if face.startswith("X") else face
    if game.name == "rebelprincess":
        from engine.rebelprincess.cards import card_name, is_suit_face

        if is_suit_face(face):
            return card_name(face)
    try:
        text = game.card_text(face)
    except Exception:  # a label must never fail
        return face
    return text.split(":", 1)[0].split(" (", 1)[0] or face


def seat_label(seat: int, names: Sequence[str], me: Seat | None = None) -> str:
    """``seat 2 (bob)``; the viewer's own seat is ``seat 0 (you)``."""
    if seat == me:
        return f"seat {seat} (you)"
    if 0 <= seat < len(names):
        return f"seat {seat} ({names[seat]})"
    return f"seat {seat}"


def name_seats(text: str, names: Sequence[str], me: Seat | None = None) -> str:
    """Add the player's name after every ``seat N`` in ``text``."""
    return _SEAT_WORD.sub(lambda m: seat_label(int(m.group(1)), names, me), text)


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


def tokenize(text: str) -> list[str]:
    """Lower-case words and numbers of ``text`` (punctuation dropped)."""
    return re.findall(r"[a-z0-9]+", text.lower())


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


def move_detail(
    game: Game, move: Mapping[str, Any], faces: Mapping[Ref, Face], names: Sequence[str], me: Seat | None
) -> str:
    """The move's fields in words, cards by name (used when ``describe`` cannot tell moves apart)."""
    if game.name == "loveletter" and "keep" in move and "bottom" in move:
        keep = face_label(game, faces.get(move["keep"]))
        bottom = [face_label(game, faces.get(r)) for r in move.get("bottom") or []]
        if not bottom:
            return f"keep {keep}"
        return f"keep {keep}, put {' then '.join(bottom)} under the pile"
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
    details = [move_detail(game, m, faces, names, seat) for m in moves]
    # the same move with another copy of the same card (two Guards) reads exactly alike: one is enough
    unique: dict[tuple[str, str], Mapping[str, Any]] = {}
    for move, text, detail in zip(moves, described, details, strict=True):
        unique.setdefault((text, detail), move)
    pairs = list(unique)
    heading = ""
    if len(pairs) > 1 and len({text for text, _ in pairs}) == 1:
        heading = pairs[0][0]
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
    for number, (key, text) in enumerate(zip(pairs, texts, strict=True), 1):
        move = dict(unique[key])
        options.append(MoveOption(number, move, text, tuple(tokenize(text)), tuple(_move_faces(move, faces))))
    return heading, options


# ---------------------------------------------------------------------------------------------
# Typed commands
# ---------------------------------------------------------------------------------------------


def _word_matches(typed: str, word: str) -> bool:
    if typed.isdigit():
        # "4" is the 4 of "4d" but not the start of "10c" or "40"
        return word == typed or (word.startswith(typed) and not word[len(typed)].isdigit())
    return word.startswith(typed)


def match_position(typed: Sequence[str], words: Sequence[str]) -> int | None:
    """Index after the last word matched by ``typed`` (in order, by prefix), or ``None``."""
    found = _match(typed, words)
    return None if found is None else found[0]


def _match(typed: Sequence[str], words: Sequence[str]) -> tuple[int, int, int] | None:
    """``(end, skipped, partial)``: where the match ends, how many real words it stepped over,
    and how many typed words were only the start of a word."""
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


def match(text: str, options: Sequence[MoveOption]) -> list[MoveOption]:
    """The options a typed command fits. A bare number picks that option; empty text fits all.

    Words must come in order, each the start of a word of the move. When several options fit,
    the closest fits win: fewest words of the move stepped over, then fewest words typed only in
    part. So ``play countess`` is the Countess, not a Guard guessing the Countess, and
    ``guard 2 prince`` guesses the Prince, not the Princess.
    """
    stripped = text.strip()
    if stripped.isdigit():
        number = int(stripped)
        return [o for o in options if o.number == number]
    typed = tokenize(stripped)
    if not typed:
        return list(options)
    fits = []
    for option in options:
        found = _match(typed, option.tokens)
        if found is not None:
            fits.append(((found[1], found[2]), option))
    if not fits:
        return []
    best = min(score for score, _ in fits)
    return [option for score, option in fits if score == best]


def next_words(text: str, options: Sequence[MoveOption]) -> list[str]:
    """Words that may come next after ``text`` (for completion): the last word is a partial one."""
    ends_with_space = text.endswith(" ") or not text
    typed = tokenize(text)
    partial = "" if ends_with_space or not typed else typed[-1]
    done = typed if ends_with_space else typed[:-1]
    out: dict[str, None] = {}
    for option in options:
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


def _ll_candidates(game: Any, state: Any, seat: Seat, faces: Mapping[Ref, Face]) -> Iterable[dict[str, Any]]:
    """Every card in the hand on every seat with every guess: legal or not (for explanations)."""
    for ref in state.hands[seat]:
        face = faces.get(ref)
        if face is None:
            continue
        guesses: list[Face | None] = [None, *game.faces_by_value] if face == "guard" else [None]
        for target in [None, *range(game.seats)]:
            for guess in guesses:
                yield {"card": ref, "face": face, "target": target, "guess": guess}


def _ll_words(game: Any, move: Mapping[str, Any], names: Sequence[str], me: Seat) -> str:
    from engine.loveletter import NAMES

    text = f"plays the {NAMES.get(move['face'], move['face'])}"
    if move["target"] is not None:
        text += f" on {seat_label(move['target'], names, me)}"
        if move["target"] == me:
            text += " yourself"  # so "prince me" / "prince yourself" find it
    if move["guess"] is not None:
        text += f", guessing the {NAMES.get(move['guess'], move['guess'])}"
    return text


def _ll_reason(game: Any, state: Any, seat: Seat, faces: Mapping[Ref, Face], move: Mapping[str, Any]) -> str:
    try:
        game.apply(state, Event.move(seat, dict(move)))
    except IllegalMove as exc:
        return str(exc)
    others = [faces.get(r) for r in state.hands[seat] if r != move["card"]]
    if move["face"] in ("king", "prince") and "countess" in others:
        return "you hold the Countess: she must be played when your other card is the King or a Prince"
    if move["face"] == "guard" and move["guess"] is None:
        return "the Guard needs a guess: name a card other than the Guard"
    return "the rules do not allow that move now"


def _regicide_candidates(
    state: Any, seat: Seat, faces: Mapping[Ref, Face], prompt: str
) -> Iterable[dict[str, Any]]:
    hand = [(r, faces[r]) for r in state.hands[seat] if r in faces]
    key = "discard" if prompt == "discard" else "play"
    for size in range(1, min(4, len(hand)) + 1):
        for combo in itertools.combinations(hand, size):
            yield {key: [[r, f] for r, f in combo]}


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
    reason = ""
    try:
        if game.name == "loveletter" and prompt == "play":
            for move in _ll_candidates(game, state, seat, faces):
                words = tokenize(_ll_words(game, move, names, seat))
                if match_position(typed, words) is not None:
                    reason = _ll_reason(game, state, seat, faces, move)
                    break
        elif game.name == "regicide" and prompt in ("play", "discard"):
            for move in _regicide_candidates(state, seat, faces, prompt):
                cards = move.get("play") or move.get("discard") or []
                words = tokenize(f"{prompt}s {' '.join(f for _, f in cards)}")
                if match_position(typed, words) is not None and words[1:] == [f.lower() for _, f in cards]:
                    try:
                        game.apply(state, Event.move(seat, move))
                        reason = "the rules do not allow that now"
                    except IllegalMove as exc:
                        reason = str(exc)
                    break
    except Exception:  # an explanation must never break the console
        reason = ""
    hint = options[0].words if options else ""
    if reason:
        return f"not allowed: {reason}"
    return (
        f"no legal move matches {stripped!r}: type words of a move (e.g. {hint!r}), "
        "its number, or pick one with the arrows"
    )
