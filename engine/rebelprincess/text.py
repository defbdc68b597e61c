"""Words: ``describe`` (one public line per event), ``card_text`` and ``render``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Event, Face, Game, IllegalMove, Ref, Seat, per_seat, seat_name

from .cards import card_name, hand_order, is_suit_face, suit_card_text
from .princesses import BY_FACE as PRINCESS_BY_FACE
from .princesses import BY_KEY, princess_text
from .rounds import BY_FACE as ROUND_BY_FACE
from .rounds import BY_LETTER, round_text
from .state import State
from .tricks import Play, follow_suit

RULES = (
    "Rebel Princess (trick taking): avoid the Princes! Each round a Round card changes the rules; "
    "pass cards as it says, then play tricks: follow the led suit if you can, the highest card of "
    "the led suit wins the trick.",
    "Captured Princes score 1 proposal each and the Frog (Pet 8) 5; after the last round the lowest "
    "total wins. Each player keeps one Princess whose power can be used once per round.",
    'Beside each seat: its Princess ("(spent)" once its power is used this round), then "tricks N" '
    '(tricks it won this round), "M taken" (cards in those tricks, the ones that can score) and '
    '"total T" (its score from the rounds already played).',
)
"""The rules in short, in our own words, for the help screen (the full rules are in the rules files)."""


def card_text(face: Face) -> str:
    """Name and effect of any Rebel Princess card."""
    if is_suit_face(face):
        return suit_card_text(face)
    if face in PRINCESS_BY_FACE:
        return princess_text(face)
    if face in ROUND_BY_FACE:
        return round_text(face)
    return f"unknown card {face!r}"


def _princess(state: State, seat: Seat) -> str:
    key = state.princesses[seat] if state.princesses else ""
    return BY_KEY[key].name if key in BY_KEY else "no Princess"


def _play_words(play: Play | None, seat: Seat, face: Face, power: bool, void: bool, state: State) -> str:
    words = f"{seat_name(seat)} plays {card_name(face)}"
    extras = []
    if void:
        extras.append("void")
    if power:
        extras.append(f"using {_princess(state, seat)}'s power")
    if play is not None and play.frozen:
        extras.append("frozen")
    return words + (f" ({', '.join(extras)})" if extras else "")


def _faces_list(faces: Mapping[Any, Any]) -> str:
    return ", ".join(card_name(f) if is_suit_face(f) else str(f) for _, f in sorted(faces.items()))


def _power_words(game: Game, state: State, seat: Seat, move: Mapping[str, Any]) -> str:
    name = _princess(state, seat)
    if not move.get("use"):
        if move.get("round") is True:
            return f"{seat_name(seat)} will not use {name}'s power again this round"
        return f"{seat_name(seat)} does not use {name}'s power for this trick"
    detail = ""
    if "leader" in move:
        detail = f": {seat_name(move['leader'])} leads this trick"
    elif "suit" in move:
        detail = f": the leader must lead {move['suit']} if possible"
    elif "target" in move:
        detail = f" on {seat_name(move['target'])}"
    return f"{seat_name(seat)} uses {name}'s power {BY_KEY[state.princesses[seat]].power}{detail}"


TRICK_ENDERS = frozenset(
    {
        "play",
        "play_reveal",
        "mask",
        "mulan",
        "mulan_reveal",
        "alice",
        "alice_shuffle",
        "haggle",
        "haggle_reveal",
    }
)


def describe(game: Game, state: State, event: Event) -> str:
    """One line of plain English for ``event`` applied to ``state`` (public facts only)."""
    line = _describe(game, state, event)
    if state.step in TRICK_ENDERS:
        try:
            after = game.apply(state, event)
        except IllegalMove:
            return line
        if after.fault is not None:
            return f"{line} The claim was false: the game stops."
        if after.tricks_played > state.tricks_played and state.step != "alice_shuffle":
            # a sentence of its own that does not start with "seat N" (which stays lower-case)
            return f"{line} The trick goes to {seat_name(after.last_trick_winner)}."
    return line


def _describe(game: Game, state: State, event: Event) -> str:
    step, data = state.step, event.data
    choices = data.get("choices", {}) if isinstance(data.get("choices"), Mapping) else {}
    try:
        if step == "princess_shuffle":
            return "The Princess cards are shuffled."
        if step == "princess_deal":
            return "Each player is dealt two Princess cards."
        if step == "princess":
            return "Everyone secretly keeps one of their two Princesses."
        if step == "princess_reveal":
            names = [
                f"{seat_name(s)} {PRINCESS_BY_FACE[data['faces'][r]].name}"
                for s, r in enumerate(state.princess_refs)
            ]
            return "Princesses revealed: " + ", ".join(names) + "."
        if step in ("round_shuffle", "final_shuffle"):
            return "The Round cards are shuffled face down."
        if step == "first_leader":
            return f"{seat_name(data['value'])} will lead the first trick."
        if step == "round_reveal":
            info = ROUND_BY_FACE[data["faces"][state.op_refs[0]]]
            return f"Round {state.round_no + 1}: {info.name} ({info.pass_text}). {info.text}"
        if step == "deck_shuffle":
            return "The suit cards are shuffled."
        if step == "deal":
            return f"{game.hand_size} cards are dealt to each player."
        if step == "pass":
            return f"Everyone passes ({BY_LETTER[state.letter].pass_text})."
        if step in ("pass_show", "chairs_show", "bluff_show", "pickup_show", "bazaar_return"):
            return "The passed cards reach their new owners."
        if step == "aside":
            count = game.aside_count(state)
            return f"Everyone sets {count} card{'s' if count != 1 else ''} aside face down."
        if step == "crystal":
            shown = [
                f"{seat_name(s)} {c.get('suit')}"
                for s, c in sorted(choices.items())
                if isinstance(c, Mapping)
            ]
            return "Crystal Clear, suits laid out: " + ", ".join(shown) + "."
        if step == "crystal_reveal":
            return "Laid out face up: " + _faces_list(data["faces"]) + "."
        if step == "gift":
            return "Everyone adds a face-down card to the gift pile."
        if step == "power":
            return _power_words(game, state, state.decider, data) + "."
        if step == "spindle":
            return "Everyone hands Sleeping Beauty a card."
        if step == "spindle_reveal":
            return "The cards for Sleeping Beauty: " + _faces_list(data["faces"]) + "."
        if step == "spindle_give":
            gifts = ", ".join(
                f"{seat_name(t)} gets {card_name(game.public_face(state, r) or '?')}"
                for t, r in data.get("give", [])
            )
            keep = game.public_face(state, data.get("keep")) if isinstance(data.get("keep"), int) else None
            return f"Sleeping Beauty keeps {card_name(keep) if keep else 'a card'}; {gifts}."
        if step == "bazaar_pick":
            return f"Scheherazade draws a random card from {seat_name(state.target)}'s hand."
        if step == "bazaar_show":
            return "Scheherazade looks at the card."
        if step == "bazaar":
            if data.get("swap") is None:
                return "Scheherazade gives the card back."
            return f"Scheherazade keeps the card and gives {seat_name(state.target)} one of hers."
        if step == "freeze_pick":
            return f"The Ice Princess draws a random card from {seat_name(state.target)}'s hand."
        if step == "freeze_show":
            return "The Ice Princess looks at the two cards."
        if step == "freeze":
            return "The Ice Princess chooses the card to freeze."
        if step == "freeze_reveal":
            frozen = _faces_list(data["faces"])
            return f"Frozen in front of {seat_name(state.target)}: {frozen}; it must be played next."
        if step == "play":
            return (
                _play_words(
                    None,
                    state.decider,
                    data.get("face", "?"),
                    bool(data.get("power")),
                    bool(data.get("void", False)),
                    state,
                )
                + "."
            )
        if step == "mask":
            # Snow White (and Thumbelina) announce their power aloud even when playing face down
            told = [
                f"{seat_name(seat)} announces {_princess(state, seat)}'s power"
                for seat, choice in sorted(choices.items())
                if isinstance(choice, Mapping) and choice.get("power") is True
            ]
            return "The other players play face down" + ("; " + ", ".join(told) if told else "") + "."
        if step == "play_reveal":
            plays = {p.ref: p for p in state.trick}
            faces = sorted(data["faces"].items())
            if len(faces) == 1 and faces[0][0] in plays and plays[faces[0][0]].face == faces[0][1]:
                # a card played face up, as its play named it: the turn-over only confirms the claim
                ((ref, face),) = faces
                card = card_name(face).removeprefix("the ")
                return f"{seat_name(plays[ref].seat)}'s {card} is shown face up, as claimed."
            words = [
                f"{seat_name(plays[r].seat)}'s {card_name(f).removeprefix('the ')}"  # "'s Frog", not "'s the"
                for r, f in faces
                if r in plays
            ]
            return "Face up: " + "; ".join(words) + "."
        if step == "mulan":
            if data.get("swap") is None:
                return "Mulan keeps her card."
            return f"Mulan exchanges her card for {card_name(data.get('face', '?'))}."
        if step == "mulan_reveal":
            return "Mulan's new card: " + _faces_list(data["faces"]) + "."
        if step == "alice":
            if data.get("use"):
                return f"{seat_name(state.winner)} wins the trick and, as Alice, deals its cards back out."
            return "Alice keeps the trick."
        if step == "alice_shuffle":
            return "Alice shuffles the trick."
        if step == "alice_deal":
            return "Alice deals the trick's cards back, one to every player."
        if step == "haggle":
            if data.get("give") is None:
                return f"{seat_name(state.winner)} does not haggle."
            take = next((p for p in state.trick if p.ref == data.get("take")), None)
            taken = card_name(take.face) if take else "a card"
            shown = card_name(data.get("face", "?"))
            return f"{seat_name(state.winner)} haggles: shows {shown} and takes {taken}."
        if step == "haggle_reveal":
            return "The haggled card: " + _faces_list(data["faces"]) + "."
        if step == "chairs":
            return "Musical Chairs: everyone passes one card face down to the right."
        if step == "hide":
            owner = state.hide[0][0]
            return (
                f"{seat_name(owner)}'s face-down cards are re-masked (shuffled in secret), so nobody can "
                "follow them through what comes next."
            )
        if step == "hide_show":
            return "Each re-masked hand goes back to its owner."
        if step == "disclose":
            after = game.apply(state, event)
            scores = after.scores[-1] if after.scores else ()
            totals = per_seat(game.totals(after))
            return f"Round {state.round_no + 1} ends; round scores: {per_seat(scores)}; totals: {totals}."
    except (KeyError, TypeError, ValueError, IllegalMove):
        pass
    return f"{event.kind} ({step})."


def _hand_words(cards: list[tuple[Ref, Face | None]]) -> str:
    return ", ".join(card_name(f) if f else "?" for _, f in cards) or "-"  # (a ref's number means nothing)


def render(game: Game, state: State, seat: Seat | None, own: Mapping[Ref, Face]) -> str:
    """The table as ``seat`` sees it: Round card, Princesses, scores, trick, hands (``None``: public)."""
    n = game.seats
    lines = []
    rounds = game.options["rounds"] + (1 if state.tied else 0)
    info = BY_LETTER.get(state.letter)
    if info is not None:
        lines.append(f"Round {state.round_no + 1}/{rounds}: {info.name} ({info.pass_text}) - {info.text}")
    else:
        lines.append("Rebel Princess: setting up.")
    if state.fault is not None:
        lines.append(f"GAME STOPPED: {seat_name(state.fault.seat)} - {state.fault.reason}")
    if state.princesses and any(state.princesses):
        lines.append(
            "Princesses: "
            + "; ".join(
                f"{seat_name(s)} {_princess(state, s)} ({'spent' if state.spent[s] else 'ready'})"
                for s in range(n)
            )
        )
    totals = game.totals(state)
    for i, scores in enumerate(state.scores):
        lines.append(f"  round {i + 1}: " + "  ".join(f"{seat_name(s)}: {scores[s]:+d}" for s in range(n)))
    lines.append("Totals: " + "  ".join(f"{seat_name(s)}: {totals[s]}" for s in range(n)))
    if info is not None and state.hands:
        lines.append(
            f"Princes snuck in: {'yes' if state.princes_in else 'no'}.  Leader: {seat_name(state.leader)}."
        )
        flags = []
        if state.reverse:
            flags.append("Cinderella: order reversed")
        if state.pea:
            flags.append("Pea Princess: play above 5")
        if state.mermaid:
            flags.append(f"Little Mermaid: lead {state.mermaid}")
        if state.rapunzel:
            flags.append("Rapunzel: lead a Prince")
        for s in range(n):
            if state.frozen[s] >= 0:
                face = game.public_face(state, state.frozen[s])
                flags.append(f"{seat_name(s)} frozen: {card_name(face) if face else '?'}")
        if flags:
            lines.append("This trick: " + "; ".join(flags))
        if state.trick:
            led = state.trick[0].face.partition("-")[0]
            follow = follow_suit(state.letter, state.trick)
            follow = f"led {led}" + (f", now follow {follow}" if follow != led else "")
            lines.append(
                f"Trick ({follow}): "
                + "; ".join(_play_words(p, p.seat, p.face, p.power, p.void, state) for p in state.trick)
            )
        if state.last_trick:
            lines.append(
                f"Last trick, won by {seat_name(state.last_trick_winner)}: "
                + ", ".join(card_name(p.face) for p in state.last_trick)
            )
        for s in range(n):
            shown = [card_name(f) for r in state.hands[s] if (f := game.public_face(state, r))]
            extra = f", {len(state.aside[s])} aside" if state.aside[s] else ""
            extra += f", face up: {', '.join(shown)}" if shown else ""
            lines.append(
                f"{seat_name(s)}: {len(state.hands[s])} cards{extra}; "
                f"{state.tricks_won[s]} tricks, {len(state.won[s])} cards captured"
            )
        if state.gift:
            lines.append(f"Gift pile: {len(state.gift)} face-down cards.")
        if seat is not None:
            mine = [(r, own.get(r) or game.public_face(state, r)) for r in state.hands[seat]]
            mine.sort(key=lambda card: (0, hand_order(card[1])) if card[1] else (1, (0, 0, 0)))
            lines.append("Your hand: " + _hand_words(mine))
            if state.aside[seat]:
                lines.append("Set aside: " + _hand_words([(r, own.get(r)) for r in state.aside[seat]]))
    request = game.pending(state)
    lines.append(f"Next: {type(request).__name__} {getattr(request, 'prompt', '')}".rstrip())
    return "\n".join(lines)
