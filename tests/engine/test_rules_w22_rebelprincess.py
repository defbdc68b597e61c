"""Independent rules scenarios for Rebel Princess (w22): ``shared/rules/rebel-princess.md``.

Focus: independent readings of §5 (follow suit, Princes sneaking in), §5.2/§8/§9 (trick winners
under every Round card that changes them, Cinderella and Snow White), §6 (round scoring under every
Round card, Rebel of the Ball) and §3.1/§6.2 (round leaders, the game's winners), compared with the
engine over random tricks (hypothesis) and over whole random games with Princess powers; plus
scenarios on player counts (deck, hands, Princes in use) and on what a seat may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Commit, Decide, Event, GameOver, IllegalMove, evolve
from engine.dealer import TrustedDealer
from engine.rebelprincess import RebelPrincess, State
from engine.rebelprincess.bots import make_bot
from engine.rebelprincess.cards import FROG, HAND_SIZE, is_prince, number_of, suit_of
from engine.rebelprincess.rounds import LETTERS
from engine.rebelprincess.tricks import Play, PlayContext, play_options, trick_winner

from .test_rebelprincess_support import Table, cards

SUITS4 = ("fairy", "pet", "prince", "queen")

# -- independent readings ----------------------------------------------------------------------------


def indep_winner(letter: str, plays: Sequence[Play], cinderella: bool = False, later: bool = False) -> int:
    """The seat winning a one-card-per-player trick, read from §5.2, §8.1 and §9 independently."""
    sixes = sum(1 for p in plays if number_of(p.face) == 6)
    reverse = cinderella != (letter == "x" and sixes % 2 == 1)

    def value(p: Play) -> int:
        return 0 if p.zero else number_of(p.face)

    def strength(p: Play) -> float:
        v = value(p)
        if not reverse:
            return v
        return -100 if v == 0 else -v  # a Snow White zero stays the weakest

    def best(indices: list[int], tie_later: bool = False) -> int:
        top = max(strength(plays[i]) for i in indices)
        tied = [i for i in indices if strength(plays[i]) == top]
        return tied[-1] if tie_later else tied[0]

    led = suit_of(plays[0].face)
    led_idx = [i for i, p in enumerate(plays) if suit_of(p.face) == led]
    if letter == "f":
        queens = [i for i, p in enumerate(plays) if suit_of(p.face) == "queen"]
        if queens:
            return plays[best(queens)].seat
    if letter == "r":
        voids = [i for i, p in enumerate(plays) if p.void]
        if voids:
            return plays[best(voids, later)].seat
    if letter == "g":
        if len(led_idx) == 1:
            return plays[0].seat
        ranked = sorted(led_idx, key=lambda i: -strength(plays[i]))
        return plays[ranked[1]].seat
    if letter == "l":
        lead = value(plays[0])
        pool = [i for i in led_idx if i > 0] or list(range(1, len(plays)))
        far = max(abs(value(plays[i]) - lead) for i in pool)
        pool = [i for i in pool if abs(value(plays[i]) - lead) == far]
        return plays[best(pool)].seat
    if letter == "v":
        return plays[best([i for i, p in enumerate(plays) if suit_of(p.face) in (led, "fairy")], True)].seat
    if letter == "w":
        suit, seen = led, {led}
        for p in plays[1:]:
            if p.void and suit_of(p.face) not in seen:
                suit = suit_of(p.face)
            seen.add(suit_of(p.face))
        return plays[best([i for i, p in enumerate(plays) if suit_of(p.face) == suit])].seat
    return plays[best(led_idx)].seat


@st.composite
def tricks(draw: st.DrawFn) -> tuple[str, list[Play], bool, bool]:
    """A random one-card-per-player trick (void flag = played off the led suit)."""
    letter = draw(st.sampled_from("afglrvwxc"))
    seats = draw(st.integers(3, 6))
    deck = [f"{s}-{n}" for s in SUITS4 for n in range(1, 13)]
    faces = draw(st.lists(st.sampled_from(deck), min_size=seats, max_size=seats, unique=True))
    led = suit_of(faces[0])
    plays = []
    for i, face in enumerate(faces):
        off = i > 0 and suit_of(face) != led and not (letter == "v" and suit_of(face) == "fairy")
        zero = draw(st.booleans()) and number_of(face) <= 7 and i == draw(st.integers(0, seats))
        plays.append(Play(i, 100 + i, face, void=off, zero=zero))
    return letter, plays, draw(st.booleans()), draw(st.booleans())


@settings(max_examples=400, deadline=None)
@given(trick=tricks())
def test_property_s5_2_s8_1_trick_winner_matches_an_independent_reading(
        trick: tuple[str, list[Play], bool, bool]) -> None:
    """§5 (highest of the led suit, off-suit never wins), §5.2 ties, §8.1 f/g/l/r/v/w/x and
    Cinderella's reversal with Snow White's zero always the weakest."""
    letter, plays, cinderella, later = trick
    assert trick_winner(letter, plays, cinderella, later) == indep_winner(letter, plays, cinderella, later)


def indep_follow(hand: list[str], follow: str, lead: bool, princes_in: bool, pea: bool) -> set[str]:
    """§5 / §5.1 / §7.2 Pea Princess, read independently (no Round card)."""
    if lead:
        only_princes = all(is_prince(f) for f in hand)
        legal = [f for f in hand if princes_in or only_princes or not is_prince(f)]
    else:
        same = [f for f in hand if suit_of(f) == follow]
        legal = same or list(hand)
    if pea:
        high = [f for f in legal if number_of(f) > 5]
        legal = high or legal
    return set(legal)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_property_s5_legal_cards_match_an_independent_reading(data: st.DataObject) -> None:
    """§5 follow suit, §5.1 the Prince lead restriction and its all-Prince exception, the Pea Princess
    narrowing whatever else is legal (§7.2)."""
    deck = [f"{s}-{n}" for s in SUITS4 for n in range(1, 11)]
    hand = data.draw(st.lists(st.sampled_from(deck), min_size=1, max_size=10, unique=True))
    lead = data.draw(st.booleans())
    follow = "" if lead else data.draw(st.sampled_from(SUITS4))
    princes_in = data.draw(st.booleans())
    pea = data.draw(st.booleans())
    ctx = PlayContext(letter="a", lead=lead, follow=follow, princes_in=princes_in, pea=pea)
    got = {f for _, f, power, _ in play_options(ctx, list(enumerate(hand))) if not power}
    assert got == indep_follow(hand, follow, lead, princes_in, pea)


def indep_round_scores(game: RebelPrincess, before: State) -> list[int]:
    """§6 / §6.1 / §8.1 scoring of every captured pile, read independently."""
    totals = game.totals(before)
    top = max(totals)
    scores = []
    princes_in_deck = {f for f in game.suit_cards if is_prince(f)}
    for seat in range(game.seats):
        faces = [game.public_face(before, r) or "" for r in before.won[seat]]
        letter = before.letter
        if princes_in_deck | {FROG} <= set(faces) and game.options["rebel_of_the_ball"]:
            scores.append(-10)
            continue
        if letter == "z":
            princes = sorted(number_of(f) for f in faces if is_prince(f))
            queens = sorted(number_of(f) for f in faces if suit_of(f) == "queen")
            same = [n for n in princes if n in queens]
            p_rest = len(princes) - len(same)
            q_rest = len(queens) - len(same)
            mixed = min(p_rest, q_rest)
            score = 3 * len(same) + 2 * mixed + (p_rest - mixed) + 5 * faces.count(FROG)
        else:
            score = 0
            for f in faces:
                if is_prince(f):
                    score += 2 if (letter == "y" and totals[seat] != top) else 1
                if f == FROG:
                    score += 5
                if letter == "d" and number_of(f) == 3:
                    score -= 3
                if letter == "j" and suit_of(f) == "pet":
                    score += 1
                if letter == "t" and suit_of(f) == "fairy":
                    score -= 1
        if letter == "e" and before.tricks_won[seat] == 0:
            score += 5
        scores.append(score)
    return scores


def play_random_game(game: RebelPrincess, seed: int) -> tuple[list[State], TrustedDealer]:
    """A whole game with random bots and a trusted dealer; every state along the way."""
    dealer = TrustedDealer(game, seed)
    bots = [make_bot("random", seed * 7 + s) for s in range(game.seats)]
    state = game.initial_state()
    states = [state]
    for _ in range(100_000):
        request = game.pending(state)
        if isinstance(request, GameOver):
            return states, dealer
        if isinstance(request, Decide):
            seat = request.seat
            move = bots[seat].choose(game, state, seat, dealer.known_to(seat), request.prompt)
            event = Event.move(seat, move)
        elif isinstance(request, Commit):
            choices = {s: bots[s].choose(game, state, s, dealer.known_to(s), request.prompt)
                       for s in request.seats}
            event = Event("committed", None, {"choices": choices})
        else:
            event = dealer.resolve(request, lambda s, p: {})
        state = game.apply(state, event)
        states.append(state)
    raise AssertionError("the game did not end")


GAMES = [(seats, LETTERS[i:i + 5]) for i, seats in zip(range(0, 25, 5), (3, 4, 5, 6, 3), strict=True)] + [
    (4, "zyxwv"), (5, "ejotd"), (6, "nqbmu")]


@pytest.mark.parametrize(("seats", "letters"), GAMES)
def test_property_s6_s3_1_s6_2_scores_leaders_and_winners_of_whole_random_games(
        seats: int, letters: str) -> None:
    """Whole random games with Princess powers, every Round card at least once over the set:
    §6/§6.1/§8.1 every round's scores equal an independent scoring of the captured piles; §3.1 the
    first leader of rounds 2+ is the lowest total (ties: first tied seat clockwise after the previous
    first leader, the recorded decision); §6.2 the winners have the lowest total, then the most
    zero-or-less rounds (the recorded seed decision); every suit card is captured exactly once."""
    game = RebelPrincess(seats, {"round_cards": letters, "tiebreak_round": False})
    states, _ = play_random_game(game, seats * 100 + len(letters))
    final = states[-1]
    assert len(final.scores) == 5
    scored = 0
    for before, after in zip(states, states[1:], strict=False):
        if len(after.scores) == len(before.scores) + 1 and before.step == "disclose":
            assert list(after.scores[-1]) == indep_round_scores(game, evolve(before, faces=after.faces))
            assert sorted(r for pile in before.won for r in pile) == sorted(after.deck_refs)
            assert len(after.deck_refs) == len(game.suit_cards)
            scored += 1
    assert scored == 5
    firsts: list[tuple[int, int]] = []
    for s in states:
        if s.step in ("round_reveal", "deck_shuffle") and (not firsts or firsts[-1][0] != s.round_no):
            firsts.append((s.round_no, s.first_leader))
    assert [n for n, _ in firsts] == [0, 1, 2, 3, 4]
    totals = [0] * seats
    previous = firsts[0][1]
    for (number, leader), scores in zip(firsts, final.scores, strict=True):
        if number > 0:
            low = min(totals)
            expected = next((previous + k) % seats for k in range(1, seats + 1)
                            if totals[(previous + k) % seats] == low)
            assert leader == expected
        previous = leader
        totals = [a + b for a, b in zip(totals, scores, strict=True)]
    low = min(totals)
    zeros = [sum(1 for r in final.scores if r[s] <= 0) for s in range(seats)]
    pool = [s for s in range(seats) if totals[s] == low]
    most = max(zeros[s] for s in pool)
    assert game.result(final)["winners"] == [s for s in pool if zeros[s] == most]


# -- §1.1 player counts ------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "ranks", "hand"), [(3, range(2, 11), 12), (4, range(1, 11), 10),
                                                     (5, range(1, 11), 8), (6, range(1, 13), 8)])
def test_s1_1_deck_hand_size_and_princes_in_use_by_player_count(seats: int, ranks: range, hand: int) -> None:
    """§1.1: ranks used, hand size; every Prince of the deck in use counts for Rebel of the Ball."""
    game = RebelPrincess(seats)
    assert sorted(game.suit_cards) == sorted(f"{s}-{n}" for s in SUITS4 for n in ranks)
    assert HAND_SIZE[seats] == hand == game.hand_size
    assert game.princes == {f"prince-{n}" for n in ranks}
    assert FROG in game.suit_cards


def test_s1_1_five_players_deal_eight_cards_each_and_play_eight_tricks() -> None:
    """§1.1 / §3: 5 players, 40 cards, 8 each; a plain round has 8 tricks and captures every card."""
    table = Table(5, "a", options={"rounds": 3, "tiebreak_round": False})
    assert all(len(h) == 8 for h in table.state.hands)
    table.autoplay(stop=lambda s: len(s.scores) == 1)
    state = next(s for s in table.states if s.step == "disclose")
    assert state.tricks_played == 8
    assert sum(len(p) for p in state.won) == 40


# -- §5 / §5.1 scenarios -----------------------------------------------------------------------------


def test_s5_1_a_void_prince_lets_the_winner_lead_a_prince_next() -> None:
    """§5.1: a void Prince play makes Princes sneak in at once; the next leader may lead one."""
    hands = [cards("F2 F3 K5 P2"), cards("F4 F5 K6 P3"), cards("Q2 Q3 K7 P4")]
    table = Table(3, "a", hands=[hands])
    assert "prince-5" not in table.legal_faces(0)
    table.play("fairy-3", "fairy-5", "prince-7")
    assert table.state.princes_in
    assert table.request == Decide(1, "play")
    assert "prince-6" in table.legal_faces(1)


def test_s5_a_follower_holding_the_led_suit_cannot_play_off_suit_and_nothing_changes() -> None:
    """§5 step 2: a follow-suit breach that public information proves is refused, state unchanged."""
    hands = [cards("F2 F3"), cards("F4 P5"), cards("Q2 Q3")]
    table = Table(3, "a", hands=[hands])
    table.play("fairy-2")
    before = table.state.to_dict()
    # seat 1 says its off-suit card is not void, which contradicts follow-suit
    with pytest.raises(IllegalMove):
        table.apply(Event.move(1, {"card": table.ref("pet-5"), "face": "pet-5", "void": False}))
    assert table.state.to_dict() == before
    table.decide(table.play_move("fairy-4"))
    assert table.state.step in ("play", "power")


def test_s5_1_the_frog_is_a_pet_and_a_void_frog_does_not_let_princes_in() -> None:
    """§1 / §5.1: the Frog is the Pet 8; played void it does not make Princes sneak in."""
    hands = [cards("F2 F3 K5"), cards("P8 K6 P2"), cards("F4 Q3 K7")]
    table = Table(3, "a", hands=[hands])
    table.play("fairy-2", "pet-8", "fairy-4")
    assert not table.state.princes_in
    assert table.state.won[2] and FROG in [table.face(r) for r in table.state.won[2]]


# -- §6.1 / §6.2 scenarios -----------------------------------------------------------------------------


def test_s6_1_rebel_of_the_ball_in_five_players_needs_princes_one_to_ten() -> None:
    """§6.1: "every Prince in the deck in use" - 10 Princes with 5 players, plus the Frog."""
    game = RebelPrincess(5, {"round_cards": "abcde", "first_leader": 0})
    state = game.initial_state()
    all_princes = [f"prince-{n}" for n in range(1, 11)]
    fake = State.from_dict({**state.to_dict(), "letter": "a", "tricks_won": [1, 0, 0, 0, 0]})
    base = 2000
    won = [list(range(base, base + 11)), [], [], [], []]
    faces = dict(zip(won[0], [*all_princes, FROG], strict=True))
    fake = State.from_dict({**fake.to_dict(), "won": won, "faces": faces})
    assert game.round_scores(fake) == (-10, 0, 0, 0, 0)
    faces.pop(won[0][0])
    fake = State.from_dict({**fake.to_dict(), "won": [won[0][1:], [], [], [], []], "faces": faces})
    assert game.round_scores(fake) == (9 + 5, 0, 0, 0, 0)


def test_s6_2_a_three_round_game_ends_after_three_rounds_with_the_lowest_total() -> None:
    """§2 short game / §6.2: three rounds, lowest total wins."""
    game = RebelPrincess(4, {"rounds": 3, "round_cards": "afg", "tiebreak_round": False, "first_leader": 2})
    states, _ = play_random_game(game, 11)
    final = states[-1]
    assert len(final.scores) == 3
    totals = game.totals(final)
    assert all(totals[w] == min(totals) for w in game.result(final)["winners"])


# -- what a seat sees ------------------------------------------------------------------------------------


def test_observation_a_seat_is_told_only_its_own_hand_and_cards_passed_to_it() -> None:
    """§4 / §7.1: after the deal and an opening pass, a seat knows its own hand and the cards it
    passed away; never the rest of another hand. The public picture names no hand."""
    game = RebelPrincess(4, {"round_cards": "abcde", "princess_powers": False, "first_leader": 0})
    dealer = TrustedDealer(game, 5)
    state = game.initial_state()
    bots = [make_bot("random", s) for s in range(4)]
    while not (isinstance(game.pending(state), Decide) and state.step == "play"):
        request = game.pending(state)
        if isinstance(request, Commit):
            choices = {s: bots[s].choose(game, state, s, dealer.known_to(s), request.prompt)
                       for s in request.seats}
            state = game.apply(state, Event("committed", None, {"choices": choices}))
        else:
            state = game.apply(state, dealer.resolve(request, lambda s, p: {}))
    for seat in range(4):
        known = set(dealer.known_to(seat))
        assert set(state.hands[seat]) <= known
        for other in range(4):
            if other == seat:
                continue
            seen = known & set(state.hands[other])
            assert len(seen) <= 3  # at most the three cards it passed to that seat (3R)
            assert all(state.knowledge.knows(seat, r) for r in seen)
    public = game.render(state, None, {})
    assert all(dealer.slots[r] not in public.split() for h in state.hands for r in h)


def test_s7_1_before_trick_powers_are_offered_only_to_unspent_princesses_and_refused_twice() -> None:
    """§7.1: a power is used at most once per round; a second use is refused and changes nothing."""
    table = Table(3, "a", princesses=["cinderella", "snow-white", "thumbelina"])
    assert table.request == Decide(0, "power")
    table.decide({"use": True})
    assert table.state.reverse and table.state.spent[0]
    assert table.request == Decide(0, "play")
    card = table.legal()[0]
    table.decide(card)
    while table.state.step == "play" and table.state.trick:
        table.decide(table.legal()[0])
    table.no_power()
    assert table.state.spent[0] and not table.state.reverse
    assert table.request != Decide(0, "power")
    before = table.state.to_dict()
    request = table.request
    if isinstance(request, Decide) and request.prompt == "power":
        with pytest.raises(IllegalMove):
            table.apply(Event.move(request.seat, {"use": True}))
        assert table.state.to_dict() == before


def test_helpers_are_consistent() -> None:
    """Guard for the independent readings above: a plain trick is won by the highest led card."""
    plays = [Play(0, 1, "fairy-3"), Play(1, 2, "fairy-9"), Play(2, 3, "pet-12", void=True)]
    assert indep_winner("a", plays) == trick_winner("a", plays) == 1
    assert indep_follow(["prince-3", "prince-4"], "", True, False, False) == {"prince-3", "prince-4"}



@pytest.mark.parametrize("junk", [None, "play", {"kind": "move", "seat": 0, "data": {}}, 42])
def test_illegal_something_that_is_not_an_event_is_refused_with_a_message(junk: Any) -> None:
    """Illegal input is refused with ``IllegalMove`` (a clear message, not an ``AttributeError``
    trace) and changes nothing, at every kind of request (here: a Decide and a table operation)."""
    table = Table(3, "a", princesses=["cinderella", "snow-white", "thumbelina"])
    table.apply(Event.move(0, {"use": False}))
    assert table.state.step == "play"
    table.apply(Event.move(0, table.legal()[0]))
    assert table.state.step == "play_reveal"  # a table operation is pending now
    for state in (table.states[-2], table.states[-1]):
        before = state.to_dict()
        with pytest.raises(IllegalMove, match="not an event"):
            table.game.apply(state, junk)
        with pytest.raises(IllegalMove, match="not an event"):
            table.game.apply(state, Event("move", 0, "not a map"))  # type: ignore[arg-type]
        assert state.to_dict() == before


@pytest.mark.parametrize("seats", [3, 6])
def test_s2_returned_princesses_and_future_round_cards_stay_hidden(seats: int) -> None:
    """§2 steps 1-2 and 5: each player keeps one of two Princesses face down and returns the other to
    the box unseen by the others; the kept ones are revealed together; Round cards are face down and
    revealed one per round, so a later round's card is unknown while an earlier round is played."""
    game = RebelPrincess(seats, {"rounds": 3, "tiebreak_round": False})
    dealer = TrustedDealer(game, 4)
    bots = [make_bot("random", s) for s in range(seats)]
    state = game.initial_state()
    checked_round = False
    while not isinstance(game.pending(state), GameOver):
        request = game.pending(state)
        if state.step == "play" and state.round_no == 0 and not checked_round:
            assert game.public_face(state, state.round_refs[0]) is not None
            assert all(game.public_face(state, r) is None for r in state.round_refs[1:])
            assert not any(r in dealer.knowledge[s] for r in state.round_refs[1:] for s in range(seats))
            checked_round = True
        if isinstance(request, Decide):
            move = bots[request.seat].choose(game, state, request.seat, dealer.known_to(request.seat),
                                             request.prompt)
            event = Event.move(request.seat, move)
        elif isinstance(request, Commit):
            choices = {s: bots[s].choose(game, state, s, dealer.known_to(s), request.prompt)
                       for s in request.seats}
            event = Event("committed", None, {"choices": choices})
        else:
            event = dealer.resolve(request, lambda s, p: {})
        state = game.apply(state, event)
    assert checked_round
    kept = set(state.princess_refs)
    for seat, pair in enumerate(state.offers):
        returned = [r for r in pair if r not in kept]
        assert len(returned) == 1
        assert game.public_face(state, returned[0]) is None
        assert all(returned[0] not in dealer.knowledge[s] for s in range(seats) if s != seat)
    assert all(game.public_face(state, r) is not None for r in kept)


# -- §7.1 precedence and §7.2 powers against Round cards ------------------------------------------------


def test_s7_1_rapunzel_under_magic_beans_leads_the_highest_or_lowest_prince() -> None:
    """§7.1 (Princess > Round card, both kept when they agree), §7.2 Rapunzel, §8.1 c Magic Beans."""
    ctx = PlayContext(letter="c", lead=True, rapunzel=True)
    hand = list(enumerate(["prince-2", "prince-5", "prince-9", "fairy-1", "fairy-7"]))
    got = {f for _, f, power, _ in play_options(ctx, hand) if not power}
    assert got == {"prince-2", "prince-9"}


def test_s7_2_thumbelina_ignores_odds_and_evens_but_never_plays_a_prince_or_the_frog() -> None:
    """§7.2 Thumbelina, §8.1 s: her power lifts the suit and parity duty, except Princes and Frog."""
    ctx = PlayContext(letter="s", lead=False, follow="pet", lead_number=3, princess="thumbelina",
                      power_ready=True)
    hand = list(enumerate(["pet-5", "pet-8", "pet-2", "fairy-4", "prince-6", "queen-9"]))
    plain = {f for _, f, power, _ in play_options(ctx, hand) if not power}
    powered = {f for _, f, power, _ in play_options(ctx, hand) if power}
    assert plain == {"pet-5"}  # the odd Pet (parity 3) is the only plain option
    assert powered == {"fairy-4", "queen-9", "pet-2"}


def test_s7_2_snow_whites_zero_queen_is_the_weakest_queen_under_royal_decree() -> None:
    """§7.2 Snow White (7 or less counts 0 for deciding the trick), §8.1 f Royal Decree."""
    plays = [Play(0, 1, "fairy-10"), Play(1, 2, "queen-7", void=True, zero=True),
             Play(2, 3, "queen-2", void=True)]
    assert trick_winner("f", plays) == 2
    assert indep_winner("f", plays) == 2


def test_s3_1_a_tie_for_the_lowest_total_goes_clockwise_after_the_previous_first_leader() -> None:
    """§3.1 Deluxe (recorded decision: first tied seat *after* the previous round's first leader,
    S13's wording); a sole lowest total leads even when it is the previous first leader."""
    table = Table(4, "abcde", options={"first_leader": 2})
    game, state = table.game, table.state
    tied = evolve(state, scores=((0, 3, 0, 1),), first_leader=0)
    assert game._start_round(tied, 1).leader == 2  # seats 0 and 2 tie: after seat 0 comes seat 2
    tied = evolve(state, scores=((0, 3, 0, 1),), first_leader=2)
    assert game._start_round(tied, 1).leader == 0  # after seat 2: seat 3, then seat 0
    sole = evolve(state, scores=((5, 3, 0, 1),), first_leader=2)
    assert game._start_round(sole, 1).leader == 2


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_property_replaying_a_history_gives_the_same_states_and_a_clean_audit(seats: int) -> None:
    """Determinism: the same events give the same states; an honest game passes ``check``."""
    from engine.dealer import play_trusted

    game = RebelPrincess(seats, {"rounds": 3, "round_cards": "kio"})
    run = play_trusted(game, [make_bot("random", 50 + s) for s in range(seats)], 50 + seats)
    state = game.initial_state()
    for event, expected in zip(run.history, run.states[1:], strict=True):
        state = game.apply(state, event)
        assert state == expected
    assert game.check(run.history, dict(enumerate(run.dealer.slots))) == []


@pytest.mark.parametrize("junk", [None, "play", {"step": "play"}, 3])
def test_illegal_a_junk_state_is_refused_with_a_message(junk: Any) -> None:
    """A state that is not a Rebel Princess state is refused with ``IllegalMove``, not a trace."""
    game = RebelPrincess(3)
    with pytest.raises(IllegalMove, match="not a Rebel Princess state"):
        game.apply(junk, Event.move(0, {"use": False}))
