"""Issue #17: no card can be followed through a face-down move (reproductions, engine alone).

Each test replays a situation where, on a real table, a seat that once knew a card loses track of it
when the card is mixed, passed or set aside face down, or drawn at random from a hand it cannot see
into. The check uses only what the trusted dealer told each seat (``known_to``: faces dealt or shown
to it, and public ones), never the engine's own knowledge model.
"""

from __future__ import annotations

from typing import Any

from engine.core import Decide, Event, Random
from engine.rebelprincess.text import render

from .test_rebelprincess_support import Table


def _links(t: Table, seat: int, refs: Any) -> set[int]:
    """The refs among ``refs`` whose face ``seat`` can link (told by the dealer)."""
    return set(refs) & set(t.known(seat))


# -- After Party (m) and Late to the Ball (b): a half (or one card) set aside face down ----------


def test_after_party_the_passer_cannot_follow_its_frog_into_the_set_aside_half() -> None:
    # round m passes 1 left: seat 2 hands the Frog to seat 0
    t = Table(3, "m", [[["pet-8"], [], []]])
    assert t.state.step == "aside"
    frog = t.ref("pet-8")
    assert frog in t.state.hands[0]
    half = [frog, *[r for r in t.state.hands[0] if r != frog][:5]]
    t.commit({0: {"aside": half}, 1: t.legal(1)[0], 2: t.legal(2)[0]})
    assert t.ref("pet-8") in t.state.aside[0]
    assert not _links(t, 2, t.state.aside[0] + t.state.hands[0])
    assert not _links(t, 1, t.state.aside[0] + t.state.hands[0])


def test_late_to_the_ball_the_passer_cannot_tell_which_card_was_set_aside() -> None:
    # round b passes 1 right: seat 1 hands the Frog to seat 0
    t = Table(3, "b", [[["pet-8"], [], []]])
    assert t.state.step == "aside"
    t.commit({0: {"aside": [t.ref("pet-8")]}, 1: t.legal(1)[0], 2: t.legal(2)[0]})
    assert not _links(t, 1, t.state.aside[0] + t.state.hands[0])


# -- Wedding Gift (o): one card from every hand into a face-down pile ----------------------------


def test_wedding_gift_the_passer_cannot_follow_its_frog_into_the_gift_pile() -> None:
    # round o passes 1 left and 1 right: seat 1 hands the Frog to seat 0 (its right neighbour)
    t = Table(3, "o", [[["pet-8"], [], []]])
    assert t.state.step == "gift"
    t.commit({0: {"card": t.ref("pet-8")}, 1: t.legal(1)[0], 2: t.legal(2)[0]})
    own_gift = set(t.history[-1].data["choices"][1].values())
    assert t.ref("pet-8") in t.state.gift
    assert not _links(t, 1, t.state.gift) - own_gift
    assert not _links(t, 1, t.state.hands[0])
    t.no_power()
    t.autoplay(stop=lambda s: s.tricks_played == 1)
    winner = t.state.last_trick_winner
    assert t.ref("pet-8") in t.state.won[winner]
    assert t.ref("pet-8") not in t.known(1)


# -- Musical Chairs (k) after Mulan's exchange: a public card back in hand, then a face-down pass -


def _mulan_then_chairs(pass_it: bool) -> tuple[Table, str]:
    hands = [[["fairy-10", "fairy-2", "queen-5"], ["fairy-3", "queen-6"], ["fairy-4", "queen-7"]]]
    t = Table(3, "k", hands, princesses=["mulan", "snow-white", "thumbelina"])
    t.play("fairy-10", "fairy-3", "fairy-4")
    assert t.state.step == "mulan"
    t.decide({"swap": t.ref("fairy-10"), "card": t.ref("fairy-2"), "face": "fairy-2"})
    assert t.state.step == "chairs", t.state.step
    ten = t.ref("fairy-10")
    mine = ten if pass_it else next(r for r in t.state.hands[0] if r != ten)
    t.commit({0: {"pass": [mine]}, 1: t.legal(1)[0], 2: t.legal(2)[0]})
    return t, render(t.game, t.state, 1, t.known(1))


def test_musical_chairs_after_mulan_nobody_knows_where_the_returned_card_went() -> None:
    for pass_it in (True, False):
        t, view = _mulan_then_chairs(pass_it)
        assert "Fairy 10" not in view, view
        ten = t.ref("fairy-10")
        for seat in (1, 2):  # nobody but the seat now holding it can link it
            if ten not in t.state.hands[seat]:
                assert ten not in t.known(seat)


# -- Scheherazade and the Ice Princess: random draws from a hand others partly know --------------


def _resolve_until_pick(t: Table, step: str, wanted: str) -> None:
    """Resolve table operations; at ``step``'s random pick, pick the card whose face is ``wanted``."""
    while True:
        request = t.request
        if isinstance(request, Random) and t.state.step == step:
            pool = [r for r in t.game.available(t.state, t.state.target) if r not in t.state.picks]
            pool = [r for r in pool if t.game.public_face(t.state, r) is None]
            value = next((i for i, r in enumerate(pool) if t.face(r) == wanted), 0)
            t.apply(Event("random", None, {"value": value}))
            continue
        if isinstance(request, Decide) or request.__class__.__name__ in ("Commit", "GameOver"):
            return
        t.apply(t.dealer.resolve(request, lambda s, p: {}))


def test_scheherazade_draw_an_outsider_cannot_follow_the_drawn_card() -> None:
    # round c passes 3 left: seat 2 hands the Frog (and two more) to seat 0
    t = Table(3, "c", [[["pet-8"], [], []]], princesses=["pea-princess", "scheherazade", "cinderella"])
    while not (t.state.step == "power" and t.request.seat == 1):
        t.decide({"use": False})
    t.apply(Event.move(1, {"use": True, "target": 0}))
    _resolve_until_pick(t, "bazaar_pick", "pet-8")
    assert t.state.step == "bazaar"
    assert t.face(t.state.picks[0]) == "pet-8"
    assert not _links(t, 2, t.state.picks)  # nobody else can tell which card she drew
    mine = next(r for r in t.game.available(t.state, 1))
    t.decide({"swap": mine})
    assert t.ref("pet-8") in t.state.hands[1]
    assert t.ref("pet-8") not in t.known(2)


def test_ice_princess_draw_an_outsider_cannot_tell_which_cards_she_saw() -> None:
    t = Table(3, "c", [[["pet-8"], [], []]], princesses=["pea-princess", "ice-princess", "cinderella"])
    while not (t.state.step == "power" and t.request.seat == 1):
        t.decide({"use": False})
    t.apply(Event.move(1, {"use": True, "target": 0}))
    _resolve_until_pick(t, "freeze_pick", "pet-8")
    assert t.state.step == "freeze"
    assert "pet-8" in {t.face(r) for r in t.state.picks}
    assert not _links(t, 2, t.state.picks)


# -- Love Letter: the Chancellor puts two of the three cards of a hand under the pile -----------


def test_love_letter_chancellor_a_priest_cannot_follow_the_card_it_saw_under_the_pile() -> None:
    from .loveletter_support import Table as LoveLetterTable

    order = ["countess", "guard", "baron", "handmaid", "priest", "chancellor", "spy", "king"]
    t = LoveLetterTable.rigged(3, order, {"edition": "2019"})
    t.play(0, "priest", target=1)  # seat 0 sees seat 1's Baron
    baron = t.ref(1, "baron")
    assert baron in t.dealer.known_to(0)
    t.play(1, "chancellor")
    hand = t.state.hands[1]
    assert sorted(t.hand(1)) == ["baron", "king", "spy"]
    t.decide({"keep": t.ref(1, "king"), "bottom": [t.ref(1, "baron"), t.ref(1, "spy")]})
    assert not set(t.dealer.known_to(0)) & {*t.state.pile, *t.state.hands[1], *hand}
    assert t.check() == []
