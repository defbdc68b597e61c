"""Regicide and Rebel Princess through the fair protocol: honest games audit clean, liars are named.

The protocol is game-agnostic: these games run through exactly the code Love Letter uses.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import Event, IllegalMove
from engine.rebelprincess.tricks import follows
from engine.regicide import value_of
from p2p.log import parse_envelope
from p2p.memtable import build_table
from tests.p2p.protocol_support import SHUFFLE_ROUNDS, audit_of, run_with_liar


@pytest.mark.parametrize(
    ("game", "seats", "witnesses"),
    [
        ("regicide", 1, 1),
        ("regicide", 3, 0),
        ("rebelprincess", 3, 0),
        ("rebelprincess", 5, 0),
    ],
)
def test_honest_fair_games_end_identically_and_audit_clean(game: str, seats: int, witnesses: int) -> None:
    table = build_table(
        game,
        seats,
        seed=2,
        witnesses=witnesses,
        shuffle_rounds=SHUFFLE_ROUNDS,
        options={"rounds": 3} if game == "rebelprincess" else None,
    )
    table.run()
    replica = table.parties[0].table
    assert replica.ended == "over", replica.expected()
    assert len({b"".join(log) for log in table.logs}) == 1
    report = audit_of(table)
    assert report.exit_code == 0, report.text()
    if witnesses:
        assert replica.parties[-1].name.startswith("witness") and len(replica.parties) == seats + 1


def _false_cannot_pay(game: Any, state: Any, seat: int, faces: Any, honest: dict[str, Any]) -> dict | None:
    if honest.get("cannot_pay"):
        return None
    hand = [faces[r] for r in state.hands[seat] if r in faces]
    attack = game.attack_due(state)
    if attack > 0 and sum(value_of(f) for f in hand) >= attack:
        try:  # a lie the public cards already refute is refused at once: only a hidden lie will do
            game.apply(state, Event.move(seat, {"cannot_pay": True}))
        except IllegalMove:
            return None
        return {"cannot_pay": True}
    return None


def test_regicide_lie_about_being_unable_to_pay_is_caught_by_the_audit() -> None:
    table, bot = run_with_liar(2, 1, "discard", _false_cannot_pay, game="regicide")
    replica = table.parties[0].table
    assert replica.ended == "over" and replica.game.result(replica.state)["outcome"] == "lost"
    report = audit_of(table)
    assert report.exit_code == 1
    fault = next(f for f in report.faults if f.seat == 1)
    entry = parse_envelope(table.logs[0][fault.seq])
    assert entry.kind == "move" and entry.body["move"] == {"cannot_pay": True}


def _false_void(game: Any, state: Any, seat: int, faces: Any, honest: dict[str, Any]) -> dict | None:
    hand = game.known_hand(state, seat, faces)
    ctx = game.play_context(state, seat)
    if ctx.lead or ctx.frozen >= 0 or not any(follows(f, ctx) for _, f in hand):
        return None
    for ref, face in hand:
        if not follows(face, ctx):
            cheat = {"card": ref, "face": face, "void": True}
            try:
                game.apply(state, Event.move(seat, cheat))
            except IllegalMove:
                continue
            return cheat
    return None


def test_rebel_princess_follow_suit_violation_is_caught_by_the_audit() -> None:
    table, bot = run_with_liar(4, 2, "play", _false_void, game="rebelprincess")
    report = audit_of(table)
    assert report.exit_code == 1
    fault = next(f for f in report.faults if f.seat == 2)
    entry = parse_envelope(table.logs[0][fault.seq])
    assert entry.seat == 2 and entry.body["move"]["void"] is True
