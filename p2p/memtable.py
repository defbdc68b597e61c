"""An in-memory table: N protocol parties wired together in one process.

It carries envelopes between :class:`p2p.party.Party` objects exactly as a network would (each
``write`` goes to every other party), answers ``decide`` effects with bots, and lets tests put a
deliberately dishonest party at the table (see ``tests/p2p``). Used by ``fairdeck simulate --fair``.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.games import make_bot
from p2p.identity import Identity
from p2p.log import LogWriter
from p2p.party import Effect, Party
from p2p.protocol import DEFAULT_PROOF, PartyInfo, genesis_body, make_genesis

Sent = bytes | list[bytes] | None
Tamper = Callable[[int, bytes], Sent | dict[int, Sent]]
"""``tamper(sender, envelope)`` may replace what a party sends (a dishonest party), drop it
(``None``), send several envelopes, or send each other party its own (``{recipient: ...}``, with
nothing for a recipient left out)."""


@dataclass
class MemoryTable:
    """Parties, their outboxes, and everything each party saw."""

    parties: list[Party]
    bots: list[Any]
    logs: list[list[bytes]] = field(default_factory=list)
    rejections: list[list[str]] = field(default_factory=list)
    evidence: list[list[tuple[bytes, bytes]]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    tamper: Tamper | None = None
    writers: list[LogWriter | None] = field(default_factory=list)
    on_text: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        n = len(self.parties)
        self.logs = [[p.table.genesis.envelope] for p in self.parties]
        self.rejections = [[] for _ in range(n)]
        self.evidence = [[] for _ in range(n)]
        self.writers = self.writers or [None] * n
        for index, writer in enumerate(self.writers):
            if writer is not None:
                writer.append(self.parties[index].table.genesis.envelope)
        self._queue: deque[tuple[int, bytes]] = deque()

    def _handle(self, index: int, effects: list[Effect]) -> None:
        for effect in effects:
            if effect.kind in ("write", "send"):
                if effect.kind == "write" and (writer := self.writers[index]) is not None:
                    writer.append(effect.envelope)
                sent = self.tamper(index, effect.envelope) if self.tamper else effect.envelope
                for other in range(len(self.parties)):
                    mine = sent.get(other) if isinstance(sent, dict) else sent
                    for envelope in [mine] if isinstance(mine, bytes) else (mine or []):
                        if other != index:
                            self._queue.append((other, envelope))
            elif effect.kind == "ask":  # every other party answers with what it holds from there
                for other, party in enumerate(self.parties):
                    if other != index:
                        answer = party.entries_since(effect.since)
                        self._queue.extend((index, envelope) for envelope in answer)
            elif effect.kind == "accepted":
                self.logs[index].append(effect.envelope)
                # our own sequential entries were persisted at "write", before they were sent
                if (writer := self.writers[index]) is not None and not effect.persisted:
                    writer.append(effect.envelope)
                if index == 0 and effect.text:
                    self.lines.append(effect.text)
                    if self.on_text:
                        self.on_text(effect.text)
            elif effect.kind == "rejected":
                self.rejections[index].append(effect.text)
            elif effect.kind == "evidence":
                self.evidence[index].append((effect.envelope, effect.other))
            elif effect.kind == "decide":
                self._decide(index)

    def _decide(self, index: int) -> None:
        party = self.parties[index]
        prompt = party.waiting_for_me()
        if prompt is None or self.bots[index] is None:
            return
        table = party.table
        move = self.bots[index].choose(table.game, table.state, party.seat, party.known_faces(), prompt)
        self._handle(index, party.decide(move))

    def run(self, max_deliveries: int = 5_000_000) -> None:
        """Start every party and deliver until nothing moves."""
        for index, party in enumerate(self.parties):
            self._handle(index, party.start())
        delivered = 0
        while self._queue and delivered < max_deliveries:
            target, envelope = self._queue.popleft()
            self._handle(target, self.parties[target].receive(envelope))
            delivered += 1
            if not self._queue:
                # a party may have a decision that arrived while it was not its turn to write
                for index, party in enumerate(self.parties):
                    if party.waiting_for_me() is not None:
                        self._decide(index)
            if not self._queue:
                # nothing moves, and a party holds an equivocation nobody due has exposed: the first
                # such party exposes it out of turn (what a node does after its grace period)
                for index, party in enumerate(self.parties):
                    if effects := party.expose_now():
                        self._handle(index, effects)
                        break

    def close_stalled(self, index: int, reason: str) -> None:
        """Party ``index`` closes a stalled game (what a node does after the table's deadline),
        and the ``abandon`` entry reaches everyone."""
        self._handle(index, self.parties[index].abandon(reason))
        while self._queue:
            target, envelope = self._queue.popleft()
            self._handle(target, self.parties[target].receive(envelope))

    def close(self) -> None:
        """Close any log files."""
        for writer in self.writers:
            if writer is not None:
                writer.close()


def _fixed(salt: bytes) -> Callable[[int], bytes]:
    """An entropy source that returns ``salt`` (reproducible simulations only)."""
    return lambda size: salt[:size]


def seeded_identity(seed: str | bytes) -> Identity:
    """A deterministic identity for tests and reproducible simulations (never for real play)."""
    raw = seed.encode() if isinstance(seed, str) else seed
    return Identity.from_secret(hashlib.sha256(b"fairdeck-test-identity" + raw).digest())


def build_table(
    game: str,
    seats: int,
    *,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    levels: Sequence[str] | None = None,
    witnesses: int = 0,
    shuffle_rounds: int = 16,
    identities: Sequence[Identity] | None = None,
    log_dir: Path | None = None,
    tamper: Tamper | None = None,
    game_id: bytes | None = None,
    mode: str = "fair",
    proof: str = DEFAULT_PROOF,
    salts: Sequence[bytes] | None = None,
    fresh_salts: bool = False,
) -> MemoryTable:
    """A whole in-memory table with bots, ready to :meth:`MemoryTable.run`."""
    count = seats + witnesses
    identities = list(identities or [seeded_identity(f"{seed}-{i}") for i in range(count)])
    infos = [
        PartyInfo(f"bot{i}" if i < seats else f"witness{i - seats}", ident.public_key)
        for i, ident in enumerate(identities)
    ]
    body = genesis_body(game, seats, infos, options, shuffle_rounds, mode, proof=proof)
    gid = game_id if game_id is not None else hashlib.sha256(f"fairdeck-game-{seed}".encode()).digest()[:16]
    genesis = make_genesis(identities[0], gid, body)
    # Simulations and tests are reproducible byte for byte: each party's salt comes from the seed
    # (or ``salts``); real play, and ``fresh_salts``, draw them from the OS.
    if salts is None:
        salts = [hashlib.sha256(f"fairdeck-salt-{seed}-{i}".encode()).digest() for i in range(count)]
    parties = [
        Party(ident, genesis) if fresh_salts else Party(ident, genesis, entropy=_fixed(salts[i]))
        for i, ident in enumerate(identities)
    ]
    levels = list(levels or ["heuristic"] * seats)
    bots: list[Any] = [make_bot(game, levels[i], f"{seed}-{i}") for i in range(seats)] + [None] * witnesses
    writers: list[LogWriter | None] = [None] * count
    if log_dir is not None:
        writers = [LogWriter(Path(log_dir) / f"seat{i}.fdlog") for i in range(count)]
    return MemoryTable(parties, bots, tamper=tamper, writers=writers)
