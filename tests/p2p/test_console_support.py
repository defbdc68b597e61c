"""Test support for the console: a stand-in Node over an in-memory table (no sockets, deterministic).

:class:`MemNode` offers exactly what :class:`p2p.console.ConsoleUI` uses of a
:class:`p2p.node.Node` — ``party``, ``notices``, ``on_decide``, ``decide``, ``chat``,
``connection_status``, ``name``, ``identity``, ``log_path``, ``ended`` — on top of
:func:`p2p.memtable.build_table`: the person sits at ``person``, bots at every other seat, and
every effect of the person's party becomes a :class:`p2p.node.Notice` as the real node makes them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from p2p.memtable import MemoryTable, build_table
from p2p.node import Notice
from p2p.protocol import Effect


class MemNode:
    """A Node look-alike for console tests; see the module docstring."""

    def __init__(
        self,
        game: str,
        seats: int,
        *,
        seed: int = 0,
        options: Mapping[str, Any] | None = None,
        person: int = 0,
        shuffle_rounds: int = 1,
        witnesses: int = 0,
    ) -> None:
        self.table: MemoryTable = build_table(
            game, seats, seed=seed, options=options, shuffle_rounds=shuffle_rounds, witnesses=witnesses
        )
        self.table.bots[person] = None
        self.person = person
        self.party = self.table.parties[person]
        self.name = self.party.table.parties[person].name
        self.identity = self.party.identity
        self.log_path: Path | None = None
        self.notices: asyncio.Queue[Notice] = asyncio.Queue()
        self.on_decide: Any = None
        self.sent: list[dict[str, Any]] = []
        self.chats: list[str] = []
        self.down: set[int] = set()
        handle = self.table._handle

        def spy(index: int, effects: list[Effect]) -> None:
            if index == person:
                self._notice(effects)
            handle(index, effects)

        self.table._handle = spy  # type: ignore[method-assign]

    def _notice(self, effects: list[Effect]) -> None:
        for effect in effects:
            if effect.kind == "accepted":
                seq = effect.entry.seq if effect.entry else -1
                self.notices.put_nowait(Notice("accepted", effect.text, {"seq": seq}))
            elif effect.kind in ("rejected", "evidence"):
                self.notices.put_nowait(Notice(effect.kind, effect.text))
            elif effect.kind == "decide" and self.on_decide is not None:
                self.on_decide(effect.prompt, effect.moves)
            elif effect.kind == "ended":
                self.notices.put_nowait(Notice("ended", effect.text))

    def start(self) -> None:
        """Play until the person must decide (or the game is over)."""
        self.notices.put_nowait(Notice("started", "test table"))
        self.table.run()

    @property
    def ended(self) -> bool:
        """True once the game has ended."""
        return self.party.table.ended is not None

    async def decide(self, move: dict[str, Any]) -> None:
        """The person's move: validated by the party (``IllegalMove``), then the table plays on."""
        effects = self.party.decide(move)
        self.sent.append(dict(move))
        self.table._handle(self.person, effects)
        self.table.run()

    async def chat(self, text: str) -> None:
        """Record a chat line."""
        self.chats.append(text)

    def connection_status(self) -> list[dict[str, Any]]:
        """Everyone connected except the parties in ``down``."""
        rows = []
        for index, info in enumerate(self.party.table.parties):
            me = index == self.person
            rows.append(
                {
                    "party": index,
                    "name": info.name,
                    "me": me,
                    "silent": 0.0 if index not in self.down else 12.0,
                    "connected": me or index not in self.down,
                }
            )
        return rows
