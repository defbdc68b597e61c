"""Honest legal moves for every Rebel Princess prompt (the body of ``legal_moves``).

Move shapes, by prompt:

==============  ===============================================================================
princess        ``{"keep": ref}``
pass            ``{"pass": [ref, ...]}`` (split passes list the left card(s) first, then the right)
aside           ``{"aside": [ref, ...]}``
crystal         ``{"suit": suit, "cards": [every ref of that suit in hand]}``
gift            ``{"card": ref}``
power           ``{"use": false}`` (not now), ``{"use": false, "round": true}`` (not this round: not asked
                again until the next), or ``{"use": true}`` plus ``leader``/``suit``/``target``
spindle         ``{"card": ref}`` (a card for Sleeping Beauty)
spindle_give    ``{"keep": ref, "give": [[seat, ref], ...]}``
bazaar          ``{"swap": ref}`` or ``{"swap": null}`` (Scheherazade)
freeze          ``{"freeze": ref}`` (the Ice Princess)
play            ``{"card": ref, "face": face, "power": bool, "void": bool}``
mulan           ``{"swap": played_ref, "card": ref, "face": face}`` or ``{"swap": null}``
alice           ``{"use": bool}``
haggle          ``{"give": ref, "face": face, "take": trick_ref}`` or ``{"give": null}``
chairs          ``{"pass": [ref]}``
==============  ===============================================================================
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.core import Face, Game, Ref, Seat

from .cards import SUITS, suit_of
from .rounds import BY_LETTER
from .state import State
from .tricks import play_options


def _splits(refs: Sequence[int], counts: Sequence[int]) -> Iterator[tuple[int, ...]]:
    if not counts:
        yield ()
        return
    for first in itertools.combinations(refs, counts[0]):
        rest = [r for r in refs if r not in first]
        for tail in _splits(rest, counts[1:]):
            yield first + tail


def play_moves(
    game: Game, state: State, seat: Seat, own: Mapping[Ref, Face]
) -> list[dict[str, Any]]:
    """Every honest card play for ``seat`` now."""
    hand = game.known_hand(state, seat, own)
    ctx = game.play_context(state, seat)
    return [
        {"card": ref, "face": face, "power": power, "void": void}
        for ref, face, power, void in play_options(ctx, hand)
    ]


def moves_for(game: Game, state: State, seat: Seat, own: Mapping[Ref, Face]) -> list[dict[str, Any]]:
    """Every honest move for ``seat`` at ``state``'s prompt (the caller checked it is asked)."""
    step = state.step
    hand = state.hands[seat] if state.hands else ()
    if step == "princess":
        return [{"keep": ref} for ref in state.offers[seat]]
    if step == "pass":
        counts = [count for _, count in BY_LETTER[state.letter].passes]
        return [{"pass": list(refs)} for refs in _splits(hand, counts)]
    if step == "aside":
        return [{"aside": list(c)} for c in itertools.combinations(hand, game.aside_count(state))]
    if step == "crystal":
        known = game.known_hand(state, seat, own)
        out = []
        for suit in SUITS:
            cards = [ref for ref, face in known if suit_of(face) == suit]
            if cards:
                out.append({"suit": suit, "cards": cards})
        return out
    if step == "gift":
        return [{"card": ref} for ref in hand]
    if step == "power":
        return [{"use": False}, {"use": False, "round": True}, *game.power_uses(state, seat)]
    if step == "spindle":
        return [{"card": ref} for ref in game.available(state, seat)]
    if step == "spindle_give":
        others = [t for t in range(game.seats) if t != seat]
        out = []
        for keep in state.contributions:
            rest = [r for r in state.contributions if r != keep]
            for perm in itertools.permutations(rest):
                out.append({"keep": keep, "give": [[t, r] for t, r in zip(others, perm, strict=True)]})
        return out
    if step == "bazaar":
        return [{"swap": None}, *({"swap": ref} for ref in game.available(state, seat))]
    if step == "freeze":
        return [{"freeze": ref} for ref in state.picks]
    if step in ("play", "mask"):
        return play_moves(game, state, seat, own)
    if step == "mulan":
        return [{"swap": None}, *game.mulan_swaps(state, seat, own)]
    if step == "alice":
        return [{"use": False}, {"use": True}]
    if step == "haggle":
        return [{"give": None}, *game.haggle_swaps(state, own)]
    if step == "chairs":
        return [{"pass": [ref]} for ref in hand]
    return []
