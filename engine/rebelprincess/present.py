"""How Rebel Princess is presented: suit cards by their short names (``Fairy 5``); one row per seat
(its Princess and whether her power is spent, tricks won, cards captured, total score); a compact
board whose essential lines are the Round card and the current trick; what the table's events gave
this seat in words (the cards received in a pass or a swap, the new Round card); a summary when a
round ends (the round's scores and the totals by name, a Rebel of the Ball named); a Princess's
power shown beside a choice that names her."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from engine.core import Face, Ref, Seat
from engine.present import (
    Fragments,
    Presentation,
    TableView,
    line,
    link_cell,
    match_position,
    seat_label,
    tokenize,
    waiting_words,
)

from .cards import FROG, SUIT_PLURALS, card_name, hand_order, is_suit_face
from .princesses import BY_KEY
from .rounds import BY_LETTER
from .state import STEPS
from .text import RULES
from .tricks import follows


def _princess(state: Any, seat: int) -> str:
    key = state.princesses[seat] if state.princesses and seat < len(state.princesses) else ""
    return BY_KEY[key].name if key in BY_KEY else ""


def _handed_to(state: Any, seat: int) -> set[int]:
    """The refs that ``state``'s step shows or deals to ``seat`` (a pass, Musical Chairs, a swap
    and Alice's deal move cards between hands first and show them to their new holders in the
    step after): a seat knows what it received only once that step is over."""
    if STEPS.get(state.step) not in ("show", "deal"):
        return set()
    return {ref for ref, to in state.op_pairs if to == seat}


def _label(face: Face | None) -> str:
    return card_name(face) if face else "?"


class RebelPrincessPresentation(Presentation):
    """Rebel Princess's presentation hooks; see the module docstring."""

    rules = RULES
    typed_in_any_order = True  # several cards in one move, named in any order
    result_labels = {"zero_rounds": "rounds with no proposal (the tie-break)"}
    prompt_words = {
        "power": "decide on a Princess's power",
        "mulan": "decide on Mulan's exchange",
        "haggle": "decide whether to haggle",
        "alice": "decide whether Alice deals the trick back",
    }
    menu_titles = {
        "power": "use your Princess's power before this trick? (her text is above)",
        "mulan": "Mulan: exchange your card?",
        "haggle": "you won the trick: haggle (swap a card of your hand for one of the trick)?",
    }
    noise: ClassVar[tuple[str, ...]] = (
        r"Mulan keeps her card\.",
        r"Alice keeps the trick\.",
        r"seat \d+ does not use .*'s power for this trick\.",
        r"seat \d+'s [^;.]+ is shown face up, as claimed\.",  # (its play named it a moment before)
        # the protocol's bookkeeping (kept in the replay, where a sceptic reads it)
        r"seat \d+'s face-down cards are re-masked \(shuffled in secret\), so nobody can follow them "
        r"through what comes next\.",
        r"Each re-masked hand goes back to its owner\.",
    )

    def card_order(self, face: Face) -> Sequence[Any]:
        """Suit cards by suit (Fairy, Pet, Prince, Queen), then number; other cards after them."""
        return hand_order(face)

    def face_label(self, face: Face) -> str:
        """``Fairy 5`` for a suit card; a Princess or Round card by the name in its text."""
        if is_suit_face(face):
            return card_name(face)
        return super().face_label(face)

    # -- the table ----------------------------------------------------------------------------
    def seat_rows(self, view: TableView) -> Fragments:
        """Turn mark, name, link, Princess (or ``spent``), tricks won, cards taken, total proposals
        of the rounds scored so far (the hands' sizes are the same for everyone but at a trick's
        end)."""
        game: Any = view.game
        s = view.state
        out: Fragments = []
        totals = game.totals(s) if s.scores else (0,) * game.seats
        try:
            pending = game.pending(s)
            turn = getattr(pending, "seat", None)
        except Exception:
            turn = None
        for p in range(game.seats):
            style = "class:me" if p == view.seat else ""
            mark = ("class:turn", "▶") if turn == p else ("", " ")
            princess = _princess(s, p)
            spent = " (spent)" if princess and s.spent and s.spent[p] else ""
            if len(princess + spent) > 22:  # the name gives way, never the mark: "The Pea Pri… (spent)"
                princess = princess[: 22 - len(spent) - 1] + "…"
            tricks = s.tricks_won[p] if s.tricks_won else 0
            won = len(s.won[p]) if s.won else 0
            line(
                out,
                mark,
                (style, f"{p} {view.name_cell(p)} "),
                link_cell(view, p),
                ("class:dim" if spent else "", f" {(princess + spent)[:22]:<22} "),
                ("class:info", f"tricks {tricks} · {won} taken · total {totals[p]}"),
            )
        return out

    def board(self, view: TableView) -> Fragments:
        """The Round card, the trick being played (essential), the last trick, whose turn."""
        game: Any = view.game
        s = view.state
        out: Fragments = []
        info = BY_LETTER.get(s.letter)
        rounds = game.options["rounds"] + (1 if s.tied else 0)
        if info is not None:
            line(
                out,
                ("class:key-line", f"Round {s.round_no + 1}/{rounds}: {info.name}"),
                ("class:dim", f" ({info.pass_text})"),
            )
        if s.trick:
            plays = "; ".join(
                f"{view.label(p.seat)} {_label(p.face) if not p.face.startswith('?') else 'face down'}"
                for p in s.trick
            )
            led = s.trick[0].face.partition("-")[0]
            line(out, ("class:key-line", f"trick (led {led}): {plays}"))
        elif s.hands and info is not None:
            line(out, ("class:key-line", "trick: (none yet) "), ("", f"· {view.label(s.leader)} leads"))
        if s.last_trick:
            cards = ", ".join(_label(p.face) for p in s.last_trick)
            line(out, ("class:dim", f"last trick, won by {view.label(s.last_trick_winner)}: {cards}"))
        line(out, ("class:info", "now: "), ("class:now", waiting_words(view)))
        try:
            pending = game.pending(s)
        except Exception:
            pending = None
        if getattr(pending, "prompt", "") == "power" and getattr(pending, "seat", None) == view.seat:
            key = s.princesses[view.seat] if s.princesses else ""
            if key in BY_KEY:
                info = BY_KEY[key]
                line(out, ("class:dim", f"{info.name} — {info.power} ({info.timing}): {info.text}"))
        return out

    # -- what happened, in words ---------------------------------------------------------------
    def consequences(self, before: Any, after: Any, view: TableView) -> list[str]:
        """The cards this seat received (a pass, a swap), a new Round card, the round's end."""
        out: list[str] = []
        if before is None:
            return out
        if after.letter and after.letter != before.letter:
            info = BY_LETTER.get(after.letter)
            if info is not None:
                out.append(f"Round {after.round_no + 1}: {info.name} ({info.pass_text}). {info.text}")
        seat = view.seat
        if seat is not None and before.hands and after.hands and before.hands[seat]:
            old = set(before.hands[seat]) | set(before.aside[seat] if before.aside else ())
            new = [r for r in after.hands[seat] if r not in old]
            if set(new) & _handed_to(after, seat):
                new = []  # the next step shows them to this seat: said once it is over
            elif after.step != before.step and (shown := _handed_to(before, seat)):
                new = [r for r in before.hands[seat] if r in shown and r in after.hands[seat]]
            # what left our hand for another's (a pass, a swap): said too, or the pass goes unseen
            given: dict[int, list[Ref]] = {}
            for ref in before.hands[seat]:
                if ref in after.hands[seat]:
                    continue
                holder = next((p for p, hand in enumerate(after.hands) if p != seat and ref in hand), None)
                if holder is not None:
                    given.setdefault(holder, []).append(ref)
            for holder, refs in sorted(given.items()):
                names = ", ".join(_label(view.faces.get(r)) for r in refs)
                out.append(f"you pass {names} to seat {holder}")  # (named once, by the programs)
            if new and len(new) < len(after.hands[seat]):
                names = ", ".join(_label(view.faces.get(r)) for r in new)
                out.append(f"you receive {names}")
        if len(after.scores) > len(before.scores):
            out.extend(self._round_lines(view, after))
        return out

    def _round_lines(self, view: TableView, state: Any) -> list[str]:
        game: Any = view.game
        scores = state.scores[-1]
        lines: list[str] = []  # (the round's scores and totals: the table's own line says them)
        if game.options.get("rebel_of_the_ball"):
            for p in range(game.seats):
                faces = {view.faces.get(r) or "" for r in state.won[p]} if state.won else set()
                if scores[p] == -10 and game.princes | {FROG} <= faces:
                    lines.append(f"seat {p} is the Rebel of the Ball (every Prince and the Frog): -10")
        return lines

    def rounds_done(self, state: Any) -> int:
        """Rounds scored so far."""
        return len(state.scores)

    def round_summary(self, view: TableView) -> Fragments:
        """The last round's scores and the totals, by name, and how many rounds are left."""
        game: Any = view.game
        s = view.state
        if not s.scores:
            return []
        out: Fragments = []
        n = len(s.scores)
        rounds = game.options["rounds"] + (1 if s.tied else 0)
        line(out, ("class:heading", f"Round {n} is over."))
        totals = game.totals(s)
        width = max(len(view.label(p)) for p in range(game.seats))
        for p in range(game.seats):
            score = s.scores[-1][p]
            line(out, ("", f"  {view.label(p):<{width}}  this round {score:+d}   total {totals[p]}"))
        line(out, ("class:dim", f"The lowest total after {rounds} rounds wins; {max(rounds - n, 0)} left."))
        return out

    def result_parts(self, result: Mapping[str, Any], who: Callable[[int], str]) -> dict[str, str]:
        """Each round's scores by name, the Round cards and the Princesses by their names (the result
        holds them as a list per round, letters and keys)."""
        parts: dict[str, str] = {}
        rounds = result.get("rounds")
        if isinstance(rounds, list):
            parts["rounds"] = "; ".join(
                f"round {n} scores: " + ", ".join(f"{who(seat)} {score:+d}" for seat, score in enumerate(row))
                for n, row in enumerate(rounds, 1)
                if isinstance(row, list) and all(isinstance(v, int) for v in row)
            )
        letters = result.get("round_cards")
        if isinstance(letters, list):
            named = (BY_LETTER[c].name if c in BY_LETTER else str(c) for c in letters)
            parts["round_cards"] = "round cards: " + (
                ", ".join(f"round {n} {name}" for n, name in enumerate(named, 1)) or "none"
            )
        keys = result.get("princesses")
        if isinstance(keys, list):
            parts["princesses"] = "princesses: " + ", ".join(
                f"{who(seat)} {BY_KEY[k].name if k in BY_KEY else k}" for seat, k in enumerate(keys)
            )
        return parts

    def refusal_reason(
        self,
        typed: Sequence[str],
        state: Any,
        seat: Seat,
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        prompt: str,
    ) -> str:
        """For a trick's ``play``: why the rules refuse the card the words name (not following the
        led suit while holding it, a Round card's rule, a Prince led too early)."""
        if prompt != "play" or not state.hands:
            return ""
        game: Any = self.game
        hand = [(r, faces[r]) for r in state.hands[seat] if r in faces and is_suit_face(faces[r])]
        for ref, face in hand:
            words = tokenize(f"plays {card_name(face)}")
            if match_position(typed, words) is None or not (face == FROG or any(t.isdigit() for t in typed)):
                continue  # (the card's number must be typed: "play pet" names no one card)
            try:
                ctx = game.play_context(state, seat)
                void = not ctx.lead and not follows(face, ctx)
                problem = game.play_problem(state, seat, (ref, face, False, void), hand, True)
            except Exception:  # an explanation must never fail
                return ""
            if not problem:
                return ""
            follow = getattr(ctx, "follow", "")
            if problem.startswith("must follow suit") and follow in SUIT_PLURALS:
                return f"you must follow the led suit ({SUIT_PLURALS[follow]}) while you hold one"
            return problem
        return ""

    def title_words(self, view: TableView) -> str:
        """The round being played, for the console's title (``round 3``)."""
        s = view.state
        return f"round {s.round_no + 1}" if s.round_no >= 0 else ""

    # -- choices ---------------------------------------------------------------------------------
    def menu_heading(self, heading: str, state: Any, seat: Seat, names: Sequence[str]) -> str:
        """An opening pass all one way says to whom ("pass 3 right" leaves the reader to work out
        who sits on their right); a pass split between two neighbours names them in each move."""
        if getattr(state, "step", None) != "pass" or not getattr(state, "letter", None):
            return heading
        targets = set(self.game.pass_targets(state, seat))
        if len(targets) != 1:
            return heading
        return f"{heading} Yours go to {seat_label(targets.pop(), names, seat)}."

    def move_detail(
        self,
        move: Mapping[str, Any],
        faces: Mapping[Ref, Face],
        names: Sequence[str],
        me: Seat | None,
        state: Any = None,
    ) -> str | None:
        """A Princess choice names her power; a pass split between two neighbours says who gets
        which card (the move lists the left card first)."""
        refs = move.get("pass")
        if isinstance(refs, list) and state is not None and me is not None and getattr(state, "letter", None):
            targets = self.game.pass_targets(state, me)
            if len(set(targets)) > 1 and len(targets) == len(refs):
                return "pass " + ", ".join(
                    f"{_label(faces.get(ref))} to {seat_label(to, names, me)}"
                    for ref, to in zip(refs, targets, strict=True)
                )
        for value in move.values():
            face = faces.get(value) if isinstance(value, int) and not isinstance(value, bool) else None
            if face and face.startswith("princess-"):
                key = face.partition("-")[2]
                if key in BY_KEY:
                    info = BY_KEY[key]
                    return f"keep {info.name}: {info.power} ({info.timing})"
        return None
