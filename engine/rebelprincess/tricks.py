"""Which cards may be played, and who wins a trick, under every Round card and Princess power.

Pure functions on faces. The same :func:`play_options` serves three callers:

- ``legal_moves`` (a seat's honest options, from its full hand),
- ``apply`` (public validation: the hand holds only the publicly known cards plus the played card
  with its claimed face, so a claim is accepted unless public facts contradict it),
- ``check`` (every hand fully known after disclosure: the move must be an honest option).

Precedence is Princess > Round card > basic rules (rules §7.1, §9): forcing Princess powers
(Rapunzel, Little Mermaid, a frozen card, Thumbelina) override the basic and Round-card limits; the
Pea Princess narrows whatever else is legal last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.core import Face, Record, Ref, Seat

from .cards import FAIRY, FROG, PRINCE, QUEEN, is_prince, number_of, suit_of
from .princesses import SNOW_WHITE, THUMBELINA

Option = tuple[Ref, Face, bool, bool]
"""An honest play: ``(ref, face, power, void)``; ``power`` = Snow White's or Thumbelina's power."""


@dataclass(frozen=True)
class Play(Record):
    """A card in the current trick. ``face`` is the claimed face until its Reveal confirms it.

    ``void``: the player held no card of the suit to follow (claimed; judged from the hand, not the
    card). ``zero``: Snow White's power makes it count 0. ``frozen``: forced by the Ice Princess.
    """

    seat: Seat
    ref: Ref
    face: Face
    power: bool = False
    void: bool = False
    zero: bool = False
    frozen: bool = False


@dataclass(frozen=True)
class PlayContext:
    """Everything public that limits one play.

    ``lead``: this is the first card of the trick. ``follow``: the suit to follow ("" when leading).
    ``power_ready``: the seat's Princess power is unspent this round; ``power_active``: it was already
    used earlier in this trick (two-card tricks: it lasts the whole trick). ``frozen``: the seat's
    frozen ref, or -1.
    """

    letter: str
    lead: bool
    follow: str = ""
    lead_number: int = 0
    princes_in: bool = False
    rapunzel: bool = False
    mermaid: str = ""
    pea: bool = False
    princess: str = ""
    power_ready: bool = False
    power_active: bool = False
    frozen: Ref = -1
    led: bool = False
    """The seat led this trick: in a two-card trick its second card is still the leader's."""


def follows(face: Face, ctx: PlayContext) -> bool:
    """True if ``face`` satisfies the duty to follow (Midnight Makeover: Fairies always do)."""
    suit = suit_of(face)
    return suit == ctx.follow or (ctx.letter == "v" and suit == FAIRY)


def _extremes(cards: Sequence[tuple[Ref, Face]]) -> list[tuple[Ref, Face]]:
    """Magic Beans: the highest and lowest card of each suit present in ``cards``."""
    keep: set[Ref] = set()
    for suit in {suit_of(f) for _, f in cards}:
        same = [c for c in cards if suit_of(c[1]) == suit]
        keep.add(min(same, key=lambda c: number_of(c[1]))[0])
        keep.add(max(same, key=lambda c: number_of(c[1]))[0])
    return [c for c in cards if c[0] in keep]


def _lead_cards(ctx: PlayContext, hand: Sequence[tuple[Ref, Face]]) -> list[tuple[Ref, Face]]:
    princes = [c for c in hand if is_prince(c[1])]
    only_princes = len(princes) == len(hand)
    if ctx.rapunzel and princes:
        cards = princes  # Princess beats the basic lead restriction
    else:
        named = [c for c in hand if suit_of(c[1]) == ctx.mermaid] if ctx.mermaid else []
        forcible = ctx.mermaid != PRINCE or ctx.princes_in or only_princes
        if named and forcible:
            cards = named
        else:
            cards = list(hand) if ctx.princes_in or only_princes else [c for c in hand if not is_prince(c[1])]
    if ctx.letter == "c":
        cards = [c for c in cards if c in _extremes([h for h in hand if suit_of(h[1]) == suit_of(c[1])])]
    return cards


def _follow_cards(ctx: PlayContext, hand: Sequence[tuple[Ref, Face]]) -> tuple[list[tuple[Ref, Face]], bool]:
    following = [c for c in hand if follows(c[1], ctx)]
    void = not following
    if ctx.letter == "s":
        parity = ctx.lead_number % 2
        tiers = (
            [c for c in following if number_of(c[1]) % 2 == parity],
            following,
            [c for c in hand if number_of(c[1]) % 2 == parity],
            list(hand),
        )
        cards = next(t for t in tiers if t)
    else:
        cards = following or list(hand)
    if ctx.letter == "c":
        cards = _extremes(cards)
    return cards, void


def play_options(ctx: PlayContext, hand: Sequence[tuple[Ref, Face]]) -> list[Option]:
    """Every honest ``(ref, face, power, void)`` for a hand of known ``(ref, face)`` pairs.

    ``hand`` is the playable hand (set-aside cards excluded), frozen card included.
    """
    snow = ctx.princess == SNOW_WHITE and ctx.power_ready and not ctx.power_active
    if ctx.frozen >= 0:
        faces = dict(hand)
        if ctx.frozen not in faces:
            return []
        face = faces[ctx.frozen]
        # void is judged from the rest of the hand, not from the frozen card (rules §7.2) — but a
        # frozen card that follows suit is never a void card (rules §0: a void card is off-suit)
        void = (
            not ctx.lead
            and not follows(face, ctx)
            and not any(follows(f, ctx) for r, f in hand if r != ctx.frozen)
        )
        out: list[Option] = [(ctx.frozen, face, False, void)]
        if snow and number_of(face) <= 7:
            out.append((ctx.frozen, face, True, void))
        return out
    if ctx.lead:
        cards, void = _lead_cards(ctx, hand), False
    else:
        cards, void = _follow_cards(ctx, hand)
    if ctx.pea:
        high = [c for c in cards if number_of(c[1]) > 5]
        cards = high or cards
    out = [(r, f, False, void) for r, f in cards]
    if snow:
        out += [(r, f, True, void) for r, f in cards if number_of(f) <= 7]
    thumb = ctx.princess == THUMBELINA and (ctx.power_ready or ctx.power_active) and not (ctx.lead or ctx.led)
    if thumb:
        plain = {r for r, _ in cards}
        out += [(r, f, True, void) for r, f in hand if r not in plain and not is_prince(f) and f != FROG]
    return out


# ---------------------------------------------------------------------------------------------
# Winning
# ---------------------------------------------------------------------------------------------


def effective(play: Play) -> int:
    """The number a played card counts for in the trick (Snow White's zero included)."""
    return 0 if play.zero else number_of(play.face)


def strength(value: int, reverse: bool) -> int:
    """Bigger is stronger. Reversed, low wins, but Snow White's 0 counts as 13: still the weakest."""
    if not reverse:
        return value
    return 0 if value == 0 else 13 - value


def is_reversed(letter: str, plays: Sequence[Play], cinderella: bool) -> bool:
    """Cinderella and each printed 6 under Upside Down toggle the order (rules §9)."""
    reverse = cinderella
    if letter == "x" and sum(1 for p in plays if number_of(p.face) == 6) % 2:
        reverse = not reverse
    return reverse


def follow_suit(letter: str, plays: Sequence[Play]) -> str:
    """The suit still to be followed after ``plays``. Pass the Bouquet: a void card of a suit *new to
    the trick* (not played in it yet) moves it there; a void card of a suit already played does not
    (the card speaks of a new suit)."""
    if not plays:
        return ""
    suit = suit_of(plays[0].face)
    if letter == "w":
        seen = {suit}
        for play in plays[1:]:
            played = suit_of(play.face)
            if play.void and played not in seen:
                suit = played
            seen.add(played)
    return suit


def _best(plays: Sequence[Play], indices: Sequence[int], key: object, later: bool = False) -> int:
    best = -1
    best_key = None
    for i in indices:
        k = key(plays[i])  # type: ignore[operator]
        if best < 0 or k > best_key or (later and k == best_key):
            best, best_key = i, k
    return best


def winning_index(
    letter: str, plays: Sequence[Play], cinderella: bool = False, apple_later: bool = False
) -> int:
    """Index in ``plays`` of the card that wins (for two-card tricks: the winner's best card)."""
    reverse = is_reversed(letter, plays, cinderella)

    def power(p: Play) -> int:
        return strength(effective(p), reverse)

    led = suit_of(plays[0].face)
    everything = range(len(plays))
    led_cards = [i for i in everything if suit_of(plays[i].face) == led]
    if letter == "u":
        return _rings_twice(plays, led_cards, reverse)
    if letter == "f":
        queens = [i for i in everything if suit_of(plays[i].face) == QUEEN]
        if queens:
            return _best(plays, queens, power)
    if letter == "r":
        voids = [i for i in everything if plays[i].void]
        if voids:
            return _best(plays, voids, power, later=apple_later)
    if letter == "g":
        if len(led_cards) == 1:
            return 0
        ranked = sorted(led_cards, key=lambda i: (-power(plays[i]), i))
        return ranked[1]
    if letter == "l":
        lead_value = effective(plays[0])
        others = [i for i in led_cards if i > 0] or list(everything)[1:] or [0]
        return _best(plays, others, lambda p: (abs(effective(p) - lead_value), power(p)))
    if letter == "v":
        wild = [i for i in everything if suit_of(plays[i].face) in (led, FAIRY)]
        return _best(plays, wild, power, later=True)
    if letter == "w":
        final = follow_suit(letter, plays)
        return _best(plays, [i for i in everything if suit_of(plays[i].face) == final], power)
    return _best(plays, led_cards, power)


def _rings_twice(plays: Sequence[Play], led_cards: Sequence[int], reverse: bool) -> int:
    """Highest sum of a player's led-suit cards (reversed: lowest, a zero counting 13); tie: best card."""
    by_seat: dict[Seat, list[int]] = {}
    for i in led_cards:
        by_seat.setdefault(plays[i].seat, []).append(i)
    best_i, best_key = -1, None
    for i in led_cards:
        seat = plays[i].seat
        if by_seat[seat][0] != i:
            continue
        values = [effective(plays[j]) for j in by_seat[seat]]
        total = -sum(13 if v == 0 else v for v in values) if reverse else sum(values)
        top = max(by_seat[seat], key=lambda j: strength(effective(plays[j]), reverse))
        key = (total, strength(effective(plays[top]), reverse))
        if best_key is None or key > best_key:
            best_i, best_key = top, key
    return best_i


def trick_winner(
    letter: str, plays: Sequence[Play], cinderella: bool = False, apple_later: bool = False
) -> Seat:
    """The seat that wins the trick made of ``plays`` (in play order)."""
    return plays[winning_index(letter, plays, cinderella, apple_later)].seat
