"""Regicide in words: card texts, one line per event, the table as text, and the rules in short (for
the help screen)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import (
    DISCLOSED,
    MOVE,
    REVEALED,
    Decide,
    Event,
    Face,
    Game,
    GameOver,
    IllegalMove,
    Ref,
    Seat,
    seat_name,
)

from .state import (
    _INDEX,
    DEAL_OPENING,
    DRAW,
    ENEMY_ATTACK,
    ENEMY_HEALTH,
    FLIP_REVEAL,
    HEAL_REVEAL,
    HEAL_SHUFFLE,
    PLAY,
    REFILL,
    REVEAL_DISCARD,
    REVEAL_ENEMY,
    REVEAL_PLAY,
    ROYAL_RANKS,
    SETUP_REVEAL,
    SHUFFLE_JACKS,
    SHUFFLE_KINGS,
    SHUFFLE_QUEENS,
    SHUFFLE_TAVERN,
    SUIT_NAMES,
    State,
    card_name,
    hand_order,
    is_jester,
    rank_of,
    suit_of,
    value_of,
)

RULES = (
    "Regicide (co-operative): defeat the twelve royals of the Castle. On your turn play a card (or a "
    "combo of equal cards totalling at most 10, or an Ace with one card), or yield (solo: no yield "
    "unless the solo_yield_allowed option is on; instead flip a Jester to refill your hand).",
    "Suit powers: Hearts heal (discards back under the Tavern), Diamonds draw cards, Clubs deal "
    "double damage, Spades shield against the enemy's attack. An enemy is immune to its own suit.",
    "If the enemy survives it attacks: discard cards worth at least its attack (after shields) or "
    "the game is lost. Exact damage puts the enemy face down on top of the Tavern (everyone saw it).",
    "Table talk: do not reveal or hint at the cards in your hand (you may say how many you hold, or "
    "anything public). Only after a Jester, until the chosen player starts, may players say in "
    "general terms whether they want to go next, still without revealing cards.",
)
"""The rules in short, in our own words, for the help screen (the full rules are in the rules files)."""


def card_text(game: Game, face: Face) -> str:
    """A card's name, values and powers (in hand and as an enemy)."""
    if face not in _INDEX:
        return f"{face!r} is not a Regicide card"
    if is_jester(face):
        return (
            "Jester: worth 0. With 3-4 players it is played alone: it cancels the enemy's "
            "immunity until that enemy is defeated, the enemy neither takes damage nor attacks "
            "this turn, and its player chooses who goes next. In solo the two Jesters lie face "
            "up beside the table: flip one at the start of Step 1 or Step 4 to discard your hand "
            "and draw back up to 8 (Gold/Silver/Bronze victory with 0/1/2 flipped)."
        )
    suit = suit_of(face)
    assert suit is not None
    power = {
        "H": "Hearts heal: shuffle the discard pile and put X of its cards under the Tavern",
        "D": "Diamonds draw: X cards are drawn one at a time, from you clockwise, up to the hand limit",
        "C": "Clubs double the damage of the whole play",
        "S": "Spades shield: the enemy's attack drops by X until it is defeated",
    }[suit]
    rank = rank_of(face)
    text = f"{card_name(face)}: attack and discard value {value_of(face)}. {power} (X: the play's total)."
    if rank == "A":
        text += " Animal Companion: may pair with any one other card (not a Jester), adding 1."
    elif rank in ("2", "3", "4", "5"):
        text += f" May be played in a combo of {rank}s totalling at most 10."
    if rank in ROYAL_RANKS:
        text += (
            f" As an enemy: health {ENEMY_HEALTH[rank]}, attack {ENEMY_ATTACK[rank]}, immune to "
            f"{SUIT_NAMES[suit]}. Defeated with exact damage it goes face down on top of the Tavern "
            f"(everyone saw which card it is), so someone can draw it."
        )
    return text


def _short(face: Any) -> str:
    """A card as the log and the menus write it: ``5H``, ``KS``; a Jester by name (its face code,
    ``X1``, is the deck's, not the player's)."""
    return "Jester" if is_jester(face) else str(face)


def _cards_text(game: Game, cards: Iterable[Sequence[Any]]) -> str:
    return " + ".join(_short(face) for _, face in cards) or "nothing"


def describe(game: Game, state: State, event: Event) -> str:
    """One public line for ``event`` applied to ``state`` (the state before it)."""
    try:
        line = _describe(game, state, event)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return f"{event.kind} (not valid here)"
    if state.phase in (PLAY, REVEAL_PLAY, DRAW, HEAL_SHUFFLE, HEAL_REVEAL) and state.enemy is not None:
        try:
            after = game.apply(state, event)
        except (IllegalMove, KeyError, TypeError, ValueError, IndexError, AttributeError):
            return line
        enemy = state.public.get(state.enemy)
        if after.defeated > state.defeated and enemy is not None:
            line += f"; the {card_name(enemy)} is defeated"
            if after.tavern[:1] == (state.enemy,):
                line += " with exact damage and goes face down on top of the Tavern"
    return line


_POWER_WORDS = {"H": "Hearts heal", "D": "Diamonds draw", "S": "Spades shield"}
"""A suit power in a play's words, before its amount (the play's attack)."""


def _describe(game: Game, st: State, event: Event) -> str:
    phase = st.phase
    who = seat_name(event.seat) if event.seat is not None else ""
    if event.kind == MOVE:
        data = event.data
        if "play" in data:  # the cards in the hand's order (rank, then suit): one order in every line
            faces = sorted((f for _, f in data["play"]), key=hand_order)
            attack = sum(value_of(f) for f in faces if f in _INDEX)
            named = " + ".join(map(_short, faces))
            suits = getattr(game, "active_suits", None)  # (the game module imports this one)
            active = suits(st, faces) if suits is not None else frozenset()
            # Clubs double the damage: the words say what the enemy takes; the other powers say
            # what the play will do besides (the enemy's own suit does nothing: it is immune)
            words = [f"attack {attack}" + (f", doubled by Clubs: {2 * attack}" if "C" in active else "")]
            words += [f"{_POWER_WORDS[suit]} {attack}" for suit in "HDS" if suit in active and attack]
            if len(faces) == 1 and is_jester(faces[0]):  # (multiplayer only: played alone)
                words += ["cancels the enemy's immunity", "no enemy attack", "its player picks who goes next"]
            return f"{who} plays {named} ({', '.join(words)})"
        if "yield" in data:
            return f"{who} yields and faces the attack of {game.attack_due(st)}"
        if "jester_power" in data:
            return f"{who} flips a Jester: discards the hand and refills it"
        if "discard" in data:
            faces = sorted((f for _, f in data["discard"]), key=hand_order)
            worth = sum(value_of(f) for f in faces if f in _INDEX)
            shown = ", ".join(map(_short, faces)) or "nothing"
            return f"{who} discards {shown} (worth {worth}) against an attack of {game.attack_due(st)}"
        if "cannot_pay" in data:
            return f"{who} declares a hand worth less than the attack of {game.attack_due(st)}: defeat"
        if "next" in data:
            return f"{who} chooses {seat_name(data['next'])} to go next"
        return f"{who} makes an unknown move"
    if phase == SHUFFLE_JACKS:
        return "the four Jacks are shuffled (top of the Castle)"
    if phase == SHUFFLE_QUEENS:
        return "the four Queens are shuffled (under the Jacks)"
    if phase == SHUFFLE_KINGS:
        return "the four Kings are shuffled (bottom of the Castle)"
    if phase == SHUFFLE_TAVERN:
        return f"the Tavern deck is shuffled ({len(game.tavern_refs)} cards)"
    if phase == HEAL_SHUFFLE:
        k = min(st.plays[-1].attack, len(st.discard))
        return f"Hearts: the discard pile ({len(st.discard)} cards) is shuffled; {k} go under the Tavern"
    if phase == DEAL_OPENING:
        return f"each player is dealt {game.hand_limit} cards"
    if phase in (DRAW, REFILL):
        counts = Counter(seat for _, seat in st.deals)
        drawn = ", ".join(f"{seat_name(s)} draws {n}" for s, n in sorted(counts.items()))
        return ("Diamonds: " if phase == DRAW else "refill: ") + drawn
    if event.kind == REVEALED:
        faces = event.data.get("faces", {})
        shown = ", ".join(_short(faces[r]) for r in sorted(faces))
        if phase in (SETUP_REVEAL, REVEAL_ENEMY):
            face = faces[st.enemy]
            rank = rank_of(face)
            return (
                f"the new enemy is the {card_name(face)} "
                f"(health {ENEMY_HEALTH[rank]}, attack {ENEMY_ATTACK[rank]})"
            )
        if phase in (REVEAL_PLAY, REVEAL_DISCARD):
            lies = [c for r, c in st.claim if faces.get(r) != c]
            cards = "the card is" if len(faces) == 1 else "the cards are"
            if lies:
                return f"{cards} revealed as {shown}: the claim was FALSE (the game ends)"
            return f"{cards} revealed: {shown}"
        if phase == HEAL_REVEAL:
            return f"the cards left in the discard pile are turned face up: {shown}"
        if phase == FLIP_REVEAL:
            return f"the discarded hand is turned face up: {shown}"
    if event.kind == DISCLOSED:
        return f"every hidden card is disclosed for the audit ({len(st.reveal)} cards)"
    return event.kind


def render(game: Game, state: State, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
    """The table as ``seat`` sees it: enemy, piles, hand sizes, and that seat's hand."""
    lines = [f"Regicide, {game.seats} player{'s' if game.seats > 1 else ''}"]
    enemy = game.enemy_face(state)
    if enemy is not None:
        rank = rank_of(enemy)
        suit = suit_of(enemy)
        assert suit is not None
        immunity = (
            f"immunity to {SUIT_NAMES[suit]} cancelled by a Jester"
            if state.immunity_cancelled
            else f"immune to {SUIT_NAMES[suit]}"
        )
        lines.append(
            f"Enemy {state.defeated + 1} of 12: {card_name(enemy)} ({enemy}): health "
            f"{ENEMY_HEALTH[rank] - state.damage}/{ENEMY_HEALTH[rank]}, attack {ENEMY_ATTACK[rank]}, "
            f"shield {game.shield(state)} (attack now {game.attack_due(state)}), {immunity}"
        )
    top = game.public_face(state, state.discard[-1]) if state.discard else None
    known_top = game.public_face(state, state.tavern[0]) if state.tavern else None
    lines.append(
        f"Castle: {len(state.castle)} left   Tavern: {len(state.tavern)}"
        + (f" (top {known_top}, face down)" if known_top else "")
        + f"   Discard: {len(state.discard)}"
        + (f" (top {top})" if top else "")
    )
    if state.plays:
        played = "; ".join(f"{seat_name(p.seat)}: {' + '.join(map(_short, p.faces))}" for p in state.plays)
        lines.append(f"Played against this enemy: {played}")
    if game.solo:
        lines.append(f"Jesters: {len(state.jesters)} left, {len(state.jesters_used)} used")
    sizes = ", ".join(
        f"{seat_name(s)}: {len(h)}" + (" (you)" if s == seat else "") for s, h in enumerate(state.hands)
    )
    lines.append(f"Hands (limit {game.hand_limit}): {sizes}")
    if seat is not None and 0 <= seat < game.seats:
        known = [state.public.get(r) or own_faces.get(r) for r in state.hands[seat]]
        known.sort(key=lambda face: (0, hand_order(face)) if face else (1, (0, 0)))
        own = [_short(face or "?") for face in known]
        lines.append(f"Your hand: {' '.join(own) if own else '(empty)'}")
    request = game.pending(state)
    if isinstance(request, Decide):
        whose = "Your turn" if request.seat == seat else f"Waiting for {seat_name(request.seat)}"
        lines.append(f"{whose} to {request.prompt}")
    elif isinstance(request, GameOver):
        result = game.result(state)
        grade = f" ({result['grade']})" if result["grade"] else ""
        lines.append(f"Game over: {result['outcome']}{grade}; {state.end_reason}")
    return "\n".join(lines)
