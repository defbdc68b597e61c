"""Independent rules scenarios for Regicide (w22): ``shared/rules/regicide.md``.

Focus: an independent reading of §4.1 (legal plays), §5 (resolving a play: heal, draw, damage,
exact kill or overkill, shield, who acts next) and OQ-4 (the strict discard rule), compared with the
engine over many random positions (hypothesis), plus scenarios on rule interactions the earlier
suites leave out: Jester timing and yield chains, solo windows, exact damage with doubled clubs over
several turns, hand limits per player count during Diamonds, observation of the Tavern order and
hands, and refusals that change nothing.

Positions are built with the ``Table`` helper of ``tests.engine.test_regicide_rules``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Decide, Disclose, Event, GameOver, IllegalMove
from engine.dealer import TrustedDealer
from engine.regicide import Regicide
from engine.regicide.bots import make_bot
from engine.regicide.state import (
    ENEMY_ATTACK,
    ENEMY_HEALTH,
    HAND_LIMIT,
    RANKS,
    ROYAL_RANKS,
    SUITS,
    rank_of,
    suit_of,
    value_of,
)

from .test_regicide_rules import Table

NUMBER_FACES = [r + s for s in SUITS for r in RANKS[:10]]  # Aces and 2-10


def moves(t: Table) -> list[dict[str, Any]]:
    """The deciding seat's legal moves."""
    request = t.pending
    assert isinstance(request, Decide)
    return t.game.legal_moves(t.state, request.seat, t.own(request.seat))


def refused(t: Table, move: dict[str, Any], match: str, seat: int | None = None) -> None:
    """``move`` raises ``IllegalMove`` matching ``match`` and changes nothing."""
    t.illegal(move, match, seat)


# -- an independent reading of §4.1 -----------------------------------------------------------------


def independent_plays(faces: list[str], seats: int) -> set[frozenset[str]]:
    """§4.1: singles (a Jester only with 3-4 players), an Ace with exactly one other non-Jester card
    (another Ace included), and 2-4 number cards of one rank totalling at most 10."""
    out: set[frozenset[str]] = set()
    for face in faces:
        if not face.startswith("X") or seats >= 3:
            out.add(frozenset([face]))
    for a, b in itertools.combinations(faces, 2):
        if "X" in (a[0], b[0]):
            continue
        if rank_of(a) == "A" or rank_of(b) == "A":
            out.add(frozenset([a, b]))
    for k in (2, 3, 4):
        for combo in itertools.combinations(faces, k):
            ranks = {rank_of(f) for f in combo}
            if len(ranks) == 1 and next(iter(ranks)) in RANKS[1:10] and sum(value_of(f) for f in combo) <= 10:
                out.add(frozenset(combo))
    return out


def independent_discards(values: list[int], attack: int) -> set[tuple[int, ...]]:
    """OQ-4 strict rule: indices S with sum >= A and sum - max < A; nothing at all when A = 0."""
    out = set()
    for k in range(len(values) + 1):
        for subset in itertools.combinations(range(len(values)), k):
            chosen = [values[i] for i in subset]
            total = sum(chosen)
            if attack <= 0:
                if not chosen:
                    out.add(subset)
            elif total >= attack and (not chosen or total - max(chosen) < attack):
                out.add(subset)
    return out


@settings(max_examples=60, deadline=None)
@given(seats=st.integers(1, 4), data=st.data())
def test_property_s4_1_offered_plays_are_exactly_the_legal_shapes(seats: int, data: st.DataObject) -> None:
    """§4.1 / EC-7..EC-11: the plays offered for a random hand are exactly the independent reading."""
    pool = NUMBER_FACES + (["X1", "X2"][: {1: 0, 2: 0, 3: 1, 4: 2}[seats]])
    size = data.draw(st.integers(1, HAND_LIMIT[seats]))
    hand = data.draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))
    hands = [hand] + [[] for _ in range(seats - 1)]
    t = Table(seats, hands=hands, enemy="JS")
    offered = {frozenset(f for _, f in m["play"]) for m in moves(t) if "play" in m}
    assert offered == independent_plays(hand, seats)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_property_oq4_offered_discards_are_exactly_the_strict_sets(data: st.DataObject) -> None:
    """§5.4 / OQ-4: with a positive attack the offered discards are exactly the strict sets; a hand
    worth less than the attack is offered only ``cannot_pay`` (§5.4 step 3)."""
    size = data.draw(st.integers(1, 7))
    hand = data.draw(st.lists(st.sampled_from(NUMBER_FACES), min_size=size, max_size=size, unique=True))
    spades = data.draw(st.sampled_from([[], ["4S"], ["9S"]]))
    hand = [f for f in hand if f not in spades] or ["2H"]
    t = Table(2, hands=[hand, ["2C"]], enemy="JH", plays=[(1, spades)] if spades else ())
    t.do({"yield": True})
    attack = 10 - sum(value_of(f) for f in spades)
    assert t.game.attack_due(t.state) == attack
    got = moves(t)
    values = [value_of(f) for f in t.hand(0)]
    if sum(values) < attack:
        assert got == [{"cannot_pay": True}]
        return
    faces = t.hand(0)
    offered = {tuple(sorted(faces.index(f) for _, f in m["discard"])) for m in got}
    assert offered == independent_discards(values, attack)


# -- an independent reading of §5 ----------------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> dict[str, Any]:
    """A random legal play against a random enemy, with random other hands, Tavern and discard pile."""
    seats = draw(st.integers(1, 4))
    limit = HAND_LIMIT[seats]
    enemy = draw(st.sampled_from([r + s for r in ROYAL_RANKS for s in SUITS]))
    cards = list(NUMBER_FACES)
    order = draw(st.permutations(cards))
    pool = iter(order)
    shapes = ["single", "ace", "combo", "royal"] if rank_of(enemy) != "J" else ["single", "ace", "combo"]
    shape = draw(st.sampled_from(shapes))
    royal = None
    if shape == "single":
        play = [next(pool)]
    elif shape == "ace":
        ace = draw(st.sampled_from([f for f in order if rank_of(f) == "A"]))
        other = draw(st.sampled_from([f for f in order if f != ace]))
        play = [ace, other]
    elif shape == "combo":
        rank = draw(st.sampled_from(["2", "3", "4", "5"]))
        k = draw(st.integers(2, {"2": 4, "3": 3, "4": 2, "5": 2}[rank]))
        play = list(draw(st.permutations([rank + s for s in SUITS])))[:k]
    else:
        lower = ROYAL_RANKS[: ROYAL_RANKS.index(rank_of(enemy))]
        royal = draw(st.sampled_from([r + s for r in lower for s in SUITS]))
        with_ace = draw(st.booleans())
        aces = [f for f in order if rank_of(f) == "A"]
        play = [royal] + ([draw(st.sampled_from(aces))] if with_ace else [])
    rest = [f for f in order if f not in play]
    extra = draw(st.integers(0, limit - len(play)))
    hand0 = play + rest[:extra]
    rest = rest[extra:]
    others = []
    for _ in range(seats - 1):
        k = draw(st.integers(1, limit))
        others.append(rest[:k])
        rest = rest[k:]
    n_tavern = draw(st.integers(0, min(12, len(rest))))
    tavern, rest = rest[:n_tavern], rest[n_tavern:]
    n_discard = draw(st.integers(0, min(12, len(rest))))
    discard, rest = rest[:n_discard], rest[n_discard:]
    earlier = []
    if draw(st.booleans()) and len(rest) >= 1:
        earlier = [(min(1, seats - 1), [rest[0]])]
    health = ENEMY_HEALTH[rank_of(enemy)]
    damage = draw(st.integers(0, health - 1))
    cancelled = draw(st.booleans())
    jesters = draw(st.integers(0, 2)) if seats == 1 else 0
    return {
        "seats": seats, "enemy": enemy, "play": play, "hands": [hand0, *others], "tavern": tavern,
        "discard": discard, "plays": earlier, "damage": damage, "cancelled": cancelled, "royal": royal,
        "jesters": jesters,
    }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions())
def test_property_s5_a_play_resolves_exactly_as_the_rules_say(pos: dict[str, Any]) -> None:
    """§5.1-§5.4, §6.1, §8, EC-2..EC-6, EC-12..EC-17, EC-26, EC-29: heal min(X, discard) under the
    Tavern before drawing; Diamonds round-robin from the current player up to the hand limits; clubs
    double; an exact total puts the enemy on top of the Tavern, more sends it to the discard pile with
    the table; the killer plays again; otherwise the shield of all unblocked spade plays lowers the
    attack and the player must discard (or the turn passes when nothing is due)."""
    seats, enemy, play = pos["seats"], pos["enemy"], pos["play"]
    royal = pos["royal"]
    t = Table(
        seats, hands=pos["hands"], enemy=enemy, tavern=pos["tavern"], discard=pos["discard"],
        plays=pos["plays"], damage=pos["damage"], immunity_cancelled=pos["cancelled"],
        enemies_seen=[royal] if royal else [], public_hand=[royal] if royal else [], jesters=pos["jesters"],
        shuffle_seed=1,
    )
    limit = HAND_LIMIT[seats]
    x = sum(value_of(f) for f in play)
    suits = {suit_of(f) for f in play}
    if not pos["cancelled"]:
        suits.discard(suit_of(enemy))
    tavern = len(pos["tavern"])
    discard = len(pos["discard"])
    sizes = [len(h) for h in pos["hands"]]
    sizes[0] -= len(play)
    if "H" in suits:
        healed = min(x, discard)
        tavern += healed
        discard -= healed
    if "D" in suits:
        left, seat = x, 0
        while left and tavern and any(s < limit for s in sizes):
            if sizes[seat] < limit:
                sizes[seat] += 1
                tavern -= 1
                left -= 1
            seat = (seat + 1) % seats
    total = pos["damage"] + (2 * x if "C" in suits else x)
    health = ENEMY_HEALTH[rank_of(enemy)]

    t.play(*play)

    assert [len(h) for h in t.state.hands] == sizes
    if total >= health:
        table_cards = len(play) + sum(len(fs) for _, fs in pos["plays"])
        if total == health:
            assert len(t.state.tavern) == tavern + 1
            assert t.faces(t.state.tavern[:1]) == [enemy]
            assert len(t.state.discard) == discard + table_cards
        else:
            assert len(t.state.tavern) == tavern
            assert len(t.state.discard) == discard + table_cards + 1
            assert enemy in t.faces(t.state.discard)
        assert t.state.damage == 0 and t.state.plays == () and not t.state.immunity_cancelled
        assert t.state.public[t.state.enemy] != enemy
        request = t.pending
        ended = not t.state.hands[0] and isinstance(request, Disclose | GameOver)
        assert request == Decide(0, "play") or ended
        return
    assert t.state.damage == total
    assert len(t.state.tavern) == tavern and len(t.state.discard) == discard
    shield = sum(
        sum(value_of(f) for f in fs)
        for fs in [*(fs for _, fs in pos["plays"]), play]
        if any(suit_of(f) == "S" for f in fs)
    ) if (suit_of(enemy) != "S" or pos["cancelled"]) else 0
    attack = max(0, ENEMY_ATTACK[rank_of(enemy)] - shield)
    assert t.game.attack_due(t.state) == attack
    request = t.pending
    if attack > 0 and not t.state.hands[0] and not pos["jesters"]:
        assert t.state.outcome == "lost"
    elif attack > 0 or pos["jesters"]:
        assert request == Decide(0, "discard")
    elif seats == 1 and not t.state.hands[0]:
        assert t.state.outcome == "lost"  # §9: an empty solo hand with no Jester cannot play or yield
    else:
        assert request == Decide(1 % seats, "play")


# -- §6 / §7 / §8: Jesters and yields ---------------------------------------------------------------


def test_s6_2_a_jester_chooser_may_pick_a_player_who_then_yields_and_the_chain_counts_the_jester() -> None:
    """§6.2, §7 (a Jester is not a yield), OQ-2: in 3 players seat 0 yields, seat 1 plays the Jester
    and picks seat 2, who may yield (seat 1's last turn was a Jester); then seat 0 must play."""
    t = Table(3, hands=[["9C", "8C"], ["X1", "2D"], ["10C", "7C"]], enemy="JH")
    t.do({"yield": True})
    t.pay("9C", "8C")
    assert t.pending == Decide(1, "play")
    t.play("X1")
    assert t.pending == Decide(1, "next")
    t.do({"next": 2})
    assert t.pending == Decide(2, "play") and {"yield": True} in moves(t)
    t.do({"yield": True})
    t.pay("10C")
    assert t.pending == Decide(0, "play")
    # seat 0 (empty hand): its partners' last turns were a Jester and a yield -> it may yield
    assert moves(t) == [{"yield": True}]


def test_s7_three_players_two_yields_then_the_third_is_refused_and_state_unchanged() -> None:
    """§7: after two yields in a row the third player must play; the refusal changes nothing."""
    t = Table(3, hands=[["10C", "2D"], ["10D", "3D"], ["4C", "5C"]], enemy="JH",
              plays=[(2, ["10S"])])  # shield 10: the Jack's attack is fully absorbed
    t.do({"yield": True})
    t.do({"yield": True})
    assert t.pending == Decide(2, "play")
    refused(t, {"yield": True}, "every other player yielded")
    assert {"yield": True} not in moves(t)


def test_s6_3_jester_against_a_heart_enemy_makes_later_hearts_heal() -> None:
    """§6.2 / §6.3: after the Jester cancels the J♥'s immunity, a later heart play heals."""
    t = Table(3, hands=[["X1", "2C"], ["6H", "2S"], ["3C"]], enemy="JH", discard=["9D", "8D", "7D"],
              tavern=["4D"])
    t.play("X1")
    t.do({"next": 1})
    t.play("6H")
    assert len(t.state.tavern) == 4 and t.state.discard == ()
    assert t.state.damage == 6


def test_s6_2_a_jester_when_a_chosen_player_has_an_empty_hand_and_must_yield() -> None:
    """§6.2 / §9: the chosen player with no card yields if allowed; with zero attack (full shield)
    they survive and play passes clockwise from them."""
    t = Table(3, hands=[["X1", "2C"], [], ["3C"]], enemy="JH", plays=[(2, ["10S"])])
    t.play("X1")
    t.do({"next": 1})
    assert moves(t) == [{"yield": True}]
    t.do({"yield": True})
    assert t.pending == Decide(2, "play")


# -- §5.3 exact damage over several turns -------------------------------------------------------------


def test_s5_3_exact_total_reached_by_a_doubled_clubs_play_after_earlier_damage() -> None:
    """§5.3: "exact" compares the enemy's total damage (clubs doubled) with its health: 24 taken
    earlier + 2 x 3 (3♣) = 30 against the Q♠ is exact, so the Queen tops the Tavern."""
    t = Table(2, hands=[["3C", "9H"], ["2S"]], enemy="QS", damage=24, castle=["QH", "QD", "QC"])
    t.play("3C")
    assert t.faces(t.state.tavern[:1]) == ["QS"]
    assert t.pending == Decide(0, "play")


def test_s5_3_blocked_clubs_against_a_club_enemy_overshoot_becomes_plain() -> None:
    """§6.1 / EC-16: 10♣ against the J♣ with 10 damage taken deals 10 (not 20): an exact kill."""
    t = Table(2, hands=[["10C", "9H"], ["2S"]], enemy="JC", damage=10)
    t.play("10C")
    assert t.faces(t.state.tavern[:1]) == ["JC"]


# -- §2 / §5.2: hand limits during Diamonds by player count ----------------------------------------------


@pytest.mark.parametrize(("seats", "sizes"), [(2, [6, 6]), (3, [5, 4, 4]), (4, [4, 4, 3, 3])])
def test_s5_2_diamonds_ten_go_round_robin_from_the_player(seats: int, sizes: list[int]) -> None:
    """§5.2 / EC-29: 10♦ draws ten cards one at a time from the current player clockwise (hand limits
    7/6/5 are not reached here)."""
    hands = [["10D", "2C"]] + [["3C"] for _ in range(seats - 1)]
    tavern = [f for f in NUMBER_FACES if f not in ("10D", "2C", "3C")][:30]
    t = Table(seats, hands=hands, enemy="JS", tavern=tavern)
    t.play("10D")
    assert [len(h) for h in t.state.hands] == sizes
    assert len(t.state.tavern) == 20


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_s2_diamonds_stop_at_every_hand_limit_by_player_count(seats: int) -> None:
    """§2 hand limits 8/7/6/5 and EC-4: with the others full, the player draws back up to the limit
    only, whatever X is."""
    limit = HAND_LIMIT[seats]
    own = ["AD", "9D"] + [f"{n}C" for n in range(2, limit)]
    others = [[f"{n}H" for n in range(2, 2 + limit)] for _ in range(seats - 1)]
    tavern = [f"{n}S" for n in range(2, 11)]
    t = Table(seats, hands=[own, *others], enemy="JS", tavern=tavern)
    t.play("AD", "9D")
    assert [len(h) for h in t.state.hands] == [limit] * seats
    assert len(t.state.tavern) == 9 - 2


# -- §10 solo ------------------------------------------------------------------------------------------


def test_s10_solo_flip_at_step_1_with_cards_in_hand_discards_them_all_then_refills_to_eight() -> None:
    """§10: the Jester power discards the whole hand (to the discard pile) and draws up to 8."""
    tavern = [f"{n}{s}" for s in "HD" for n in range(2, 11)]
    t = Table(hands=[["2C", "3C", "4C"]], enemy="JS", tavern=tavern)
    t.do({"jester_power": True})
    assert len(t.state.hands[0]) == 8
    assert sorted(t.faces(t.state.discard)) == ["2C", "3C", "4C"]
    assert len(t.state.jesters) == 1 and len(t.state.jesters_used) == 1
    assert t.pending == Decide(0, "play")
    assert not t.state.immunity_cancelled


def test_s10_solo_jester_power_is_not_offered_once_both_are_spent_and_is_refused() -> None:
    """§10: at most two flips per game; a third is refused and changes nothing."""
    t = Table(hands=[["2C", "3C"]], enemy="JS", tavern=["4D", "5D"], jesters=0)
    assert {"jester_power": True} not in moves(t)
    refused(t, {"jester_power": True}, "both Jesters")


def test_s10_solo_flip_is_refused_in_a_multiplayer_game() -> None:
    """§10: the Jester power is a solo rule; with 2 players the move does not exist."""
    t = Table(2, hands=[["2C"], ["3C"]], enemy="JS")
    refused(t, {"jester_power": True}, "exactly one of the keys")


# -- observation ---------------------------------------------------------------------------------------


def test_observation_tavern_order_and_other_hands_are_hidden_from_every_seat() -> None:
    """§8 / §11: no seat is told the Tavern's faces or another hand's faces in a real game; a seat
    knows exactly its own hand after the opening deal."""
    game = Regicide(3)
    dealer = TrustedDealer(game, 3)
    state = game.initial_state()
    while not isinstance(game.pending(state), Decide):
        state = game.apply(state, dealer.resolve(game.pending(state), lambda s, p: {}))
    for seat in range(3):
        known = {r for r in dealer.known_to(seat) if r >= len(game.deck())}
        assert set(state.hands[seat]) <= known
        assert not known & set(state.tavern)
        for other in range(3):
            if other != seat:
                assert not known & set(state.hands[other])
    public = game.render(state, None, {})
    assert all(f" {dealer.slots[r]} " not in public for h in state.hands for r in h)


def test_property_random_games_terminate_and_conserve_cards() -> None:
    """§9: every game ends (won or lost); every live card is in exactly one zone throughout."""
    for seats in (1, 2, 3, 4):
        for seed in range(3):
            game = Regicide(seats)
            dealer = TrustedDealer(game, seed)
            bots = [make_bot("heuristic", seed + s) for s in range(seats)]
            state = game.initial_state()
            for _ in range(20_000):
                request = game.pending(state)
                if isinstance(request, GameOver):
                    break
                if isinstance(request, Decide):
                    seat = request.seat
                    event = Event.move(seat, bots[seat].choose(game, state, seat, dealer.known_to(seat),
                                                               request.prompt))
                else:
                    event = dealer.resolve(request, lambda s, p: {})
                state = game.apply(state, event)
                if state.phase in ("play", "discard"):
                    refs = [r for zone in game.zones(state).values() for r in zone]
                    assert len(refs) == len(set(refs)) == game.live_count
            assert isinstance(game.pending(state), GameOver)
            assert game.result(state)["outcome"] in ("won", "lost")


def test_refusals_never_change_the_state() -> None:
    """Illegal plays (Ace in a combo, royal pair, a 6 pair, a Jester pair, a card not held, a
    negative seat after a Jester) are refused with a reason and the state is untouched."""
    t = Table(3, hands=[["AC", "2C", "2D", "6C", "6D", "X1"], ["3C"], ["4C"]], enemy="JS")
    refused(t, {"play": t.cards("AC", "2C", "2D")}, "never within a combo")
    refused(t, {"play": t.cards("6C", "6D")}, "at most 10")
    refused(t, {"play": t.cards("X1", "2C")}, "alone")
    refused(t, {"play": [[99999, "9C"]]}, "not in your hand")
    refused(t, {"play": []}, "at least one card")
    refused(t, {"play": t.cards("2C"), "yield": True}, "exactly one of the keys")
    t.play("X1")
    refused(t, {"next": -1}, "seat")
    refused(t, {"next": 3}, "seat")
    refused(t, {"next": True}, "seat")
    with pytest.raises(IllegalMove):
        t.game.apply(t.state, Event.move(1, {"next": 1}))


# -- §5.4 / §9 / §10: surviving, losing, grades ------------------------------------------------------


def test_s5_4_a_hand_worth_exactly_the_attack_must_discard_everything_and_survives() -> None:
    """§5.4: the discard must reach A; a hand worth exactly A is discarded whole and the player lives
    (an empty hand is allowed); play passes clockwise."""
    t = Table(2, hands=[["9H", "6C", "4D"], ["2S"]], enemy="JS")  # J♠ attack 10; 9H played -> 6 + 4 left
    t.play("9H")
    assert t.game.attack_due(t.state) == 10
    got = moves(t)
    assert [sorted(f for _, f in m["discard"]) for m in got] == [["4D", "6C"]]
    t.pay("6C", "4D")
    assert t.state.hands[0] == () and t.state.outcome is None
    assert t.pending == Decide(1, "play")


def test_s5_4_one_short_of_the_attack_loses_and_every_card_is_disclosed() -> None:
    """§5.4 step 3 / §9: a hand worth A - 1 cannot survive; the honest move is ``cannot_pay`` and
    the game is lost for everyone."""
    t = Table(2, hands=[["9H", "5C", "4D"], ["2S"]], enemy="JS")
    t.play("9H")
    assert moves(t) == [{"cannot_pay": True}]
    t.do({"cannot_pay": True})
    assert t.state.outcome == "lost"
    assert isinstance(t.pending, GameOver)
    assert t.game.result(t.state)["outcome"] == "lost"


@pytest.mark.parametrize(("left", "grade"), [(2, "gold"), (1, "silver"), (0, "bronze")])
def test_s10_solo_grade_is_set_by_the_jesters_flipped(left: int, grade: str) -> None:
    """§10 grading table: 0 flips gold, 1 silver, 2 bronze."""
    t = Table(hands=[["10C", "9C"]], enemy="KS", damage=20, castle=[], jesters=left, defeated=11)
    t.play("10C")
    assert t.game.result(t.state) == {"outcome": "won", "grade": grade, "enemies_defeated": 12, "fault": None}


def test_s9_ec25_an_empty_tavern_never_ends_the_game_diamonds_draw_nothing() -> None:
    """§9 / EC-25: with the Tavern empty, Diamonds draw nothing and the game goes on."""
    t = Table(2, hands=[["8D", "7S"], ["2S"]], enemy="JC", tavern=[])
    t.play("8D")
    assert t.state.tavern == () and len(t.state.hands[0]) == 1
    assert t.state.outcome is None and t.pending == Decide(0, "discard")


def test_s7_two_players_a_yield_after_a_kill_by_the_partner_is_still_refused() -> None:
    """§7 / §8 / OQ-3: seat 1 yielded, then seat 0 kills the enemy and starts a new turn: it may not
    yield, because its partner's most recent turn was a yield."""
    t = Table(2, hands=[["10C", "3D", "4D"], ["2S"]], enemy="JH", damage=0, last_yield=[False, True])
    t.play("10C")  # 20 damage: exact kill of the J♥
    assert t.pending == Decide(0, "play")
    assert {"yield": True} not in moves(t)
    refused(t, {"yield": True}, "every other player yielded")


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_property_replaying_a_history_gives_the_same_states_and_a_clean_audit(seats: int) -> None:
    """Determinism: the engine is a pure function of its history (same events, same states), and an
    honest game's history passes ``check`` with every face known."""
    from engine.dealer import play_trusted

    game = Regicide(seats)
    run = play_trusted(game, [make_bot("heuristic", 40 + s) for s in range(seats)], 40 + seats)
    state = game.initial_state()
    for event, expected in zip(run.history, run.states[1:], strict=True):
        state = game.apply(state, event)
        assert state == expected
    assert game.check(run.history, dict(enumerate(run.dealer.slots))) == []


@pytest.mark.parametrize("junk", [None, "play", {"phase": "play"}, 3])
def test_illegal_junk_states_and_events_are_refused_with_a_message(junk: Any) -> None:
    """A state or event that is not one of this game's is refused with ``IllegalMove`` (a message,
    not an ``AttributeError`` trace)."""
    t = Table(2, hands=[["2C"], ["3C"]], enemy="JS")
    with pytest.raises(IllegalMove, match="not a Regicide state"):
        t.game.apply(junk, Event.move(0, {"yield": True}))
    with pytest.raises(IllegalMove, match="not an event"):
        t.game.apply(t.state, junk)
