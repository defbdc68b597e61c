"""Helpers for protocol tests: dishonest bots and re-signed (tampered) entries."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from engine.core import Face, Game, Ref, Seat
from p2p import crypto
from p2p.identity import Identity
from p2p.log import make_entry, parse_envelope
from p2p.memtable import MemoryTable, build_table, seeded_identity
from replay.audit import Report, audit_envelopes

SHUFFLE_ROUNDS = 4  # soundness is not under test here; speed is welcome


class LyingBot:
    """Wraps an honest bot; at ``prompt`` it replaces the honest move with ``lie(...)`` if that
    returns a move (a deliberately dishonest player)."""

    def __init__(
        self,
        inner: Any,
        prompt: str,
        lie: Callable[[Game, Any, Seat, Mapping[Ref, Face], dict[str, Any]], dict[str, Any] | None],
    ):
        self.inner, self.prompt, self.lie = inner, prompt, lie
        self.lies: list[dict[str, Any]] = []

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        honest = self.inner.choose(game, state, seat, own_faces, prompt)
        if prompt == self.prompt and not self.lies:
            false = self.lie(game, state, seat, own_faces, honest)
            if false is not None:
                self.lies.append(false)
                return false
        return honest


def identity_of(seed: int, party: int) -> Identity:
    """The identity :func:`p2p.memtable.build_table` gives ``party`` for ``seed``."""
    return seeded_identity(f"{seed}-{party}")


def resign(identity: Identity, envelope: bytes, **changes: Any) -> bytes:
    """A copy of ``envelope`` with payload fields (``body``, ``seq``, ``game``...) changed, validly
    signed by ``identity`` — what a dishonest party can produce."""
    entry = parse_envelope(envelope)
    fields = {
        "game": entry.game,
        "seq": entry.seq,
        "prev": entry.prev,
        "seat": entry.seat,
        "kind": entry.kind,
        "body": entry.body,
    }
    fields.update(changes)
    return make_entry(
        identity,
        fields["game"],
        fields["seq"],
        fields["prev"],
        fields["seat"],
        fields["kind"],
        fields["body"],
    ).envelope


def run_with_liar(
    seats: int,
    liar: int,
    prompt: str,
    lie: Callable[..., dict[str, Any] | None],
    seeds: range = range(40),
    game: str = "loveletter",
) -> tuple[MemoryTable, LyingBot]:
    """Play games until the liar actually lied (and the game went on to its end)."""
    for seed in seeds:
        table = build_table(game, seats, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS)
        bot = LyingBot(table.bots[liar], prompt, lie)
        table.bots[liar] = bot
        table.run()
        if bot.lies:
            return table, bot
    raise AssertionError(f"no game in {seeds} gave the liar a chance to lie at {prompt!r}")


def audit_of(table: MemoryTable, party: int = 0) -> Report:
    """Audit what ``party`` logged."""
    return audit_envelopes(table.logs[party])


def count_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of ``p2p.crypto.<name>`` (the protocol calls it through the module): the
    real function still runs; the returned list grows by one item per call."""
    calls: list[int] = []
    real = getattr(crypto, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(crypto, name, counted)
    return calls
