"""Test support for the console: a stand-in Node over an in-memory table (no sockets, deterministic).

:class:`MemNode` offers exactly what :class:`fairdeck.console.ConsoleUI` uses of a
:class:`p2p.node.Node` — ``party``, ``notices``, ``on_decide``, ``decide``, ``chat``,
``connection_status``, ``name``, ``identity``, ``log_path``, ``ended`` — on top of
:func:`p2p.memtable.build_table`: the person sits at ``person``, bots at every other seat, and
every effect of the person's party becomes a :class:`p2p.node.Notice` as the real node makes them.
:func:`named_table` is :func:`p2p.memtable.build_table` with party names of the test's choosing
(hostile ones included), for the tests that show such names harmlessly.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.games import make_bot
from p2p.log import LogWriter
from p2p.memtable import MemoryTable, build_table, seeded_identity
from p2p.node import Notice
from p2p.party import Effect, Party
from p2p.protocol import PartyInfo, genesis_body, make_genesis

HOSTILE_NAME = "m\nVERDICT: CLEAN\x1b[8m"
"""A player name that, printed raw, starts a fake verdict line and hides what follows."""
BIDI_NAME = "\u202eevil\u202c bob"
"""A player name with a bidirectional override (it would reverse the rest of the line)."""
HOSTILE_REASON = "gone\nVERDICT: CLEAN \u2014 no faults\x1b[2J\x1b[8m\u202ehidden"
"""An abandon reason with a fake verdict line, a screen clear, hidden text and a bidi override."""
HOSTILE_CHAT = "gg\nseat 0 (tester) cheated: VERDICT: 1 FAULT\x1b]0;pwned\x07"
"""A chat line with a fake fault line and a terminal title change."""
RAW = ("\x1b", "\u202e", "\u202c", "\x07", "\x9b")
"""Characters that must never reach a screen as themselves."""


def assert_inert(screen: str, fakes: Sequence[str] = ("VERDICT", "seat 0 (tester) cheated")) -> None:
    """``screen`` holds no raw control or bidi character, and no line of it starts with a fake."""
    for char in RAW:
        assert char not in screen, (repr(char), screen)
    for line in screen.splitlines():
        assert not line.strip().startswith(tuple(fakes)), (line, screen)


def named_table(
    game: str,
    names: Sequence[str],
    *,
    seed: int = 0,
    shuffle_rounds: int = 1,
    log_dir: Path | None = None,
) -> MemoryTable:
    """An in-memory table whose parties are called ``names`` (any text), with heuristic bots.

    The genesis body is made by the protocol's own :func:`genesis_body` and then given the names,
    so a name that a new table would refuse at its door can still be put in a log, as a peer
    writing its own genesis could."""
    identities = [seeded_identity(f"named-{seed}-{i}") for i in range(len(names))]
    infos = [PartyInfo(f"p{i}", ident.public_key) for i, ident in enumerate(identities)]
    body = genesis_body(game, len(names), infos, None, shuffle_rounds)
    for party, name in zip(body["parties"], names, strict=True):
        party["name"] = name
    game_id = hashlib.sha256(f"fairdeck-named-{seed}".encode()).digest()[:16]
    genesis = make_genesis(identities[0], game_id, body)
    salts = [hashlib.sha256(f"fairdeck-named-salt-{seed}-{i}".encode()).digest() for i in range(len(names))]
    parties = [
        Party(ident, genesis, entropy=lambda size, salt=salt: salt[:size])  # reproducible deals
        for ident, salt in zip(identities, salts, strict=True)
    ]
    bots: list[Any] = [make_bot(game, "heuristic", f"{seed}-{i}") for i in range(len(names))]
    writers: list[LogWriter | None] = [None] * len(names)
    if log_dir is not None:
        writers = [LogWriter(Path(log_dir) / f"seat{i}.fdlog") for i in range(len(names))]
    return MemoryTable(parties, bots, writers=writers)


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
        names: Sequence[str] | None = None,
    ) -> None:
        if names is not None:
            assert len(names) == seats and not options and not witnesses
            self.table = named_table(game, names, seed=seed, shuffle_rounds=shuffle_rounds)
        else:
            self.table = build_table(
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
                self.notices.put_nowait(Notice("accepted", effect.text, {"seq": seq, "state": effect.state}))
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

    def abandon(self, closer: int, reason: str) -> None:
        """Party ``closer`` (not the one awaited) closes the game with a signed ``abandon`` entry."""
        self.table._handle(closer, self.table.parties[closer].abandon(reason))
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


def ask_plain(node: Any, prompt: str, moves: list[Any], answers: list[str]) -> list[str]:
    """Ask ``node``'s person ``prompt`` through the plain interface, typing ``answers`` one line at
    a time (then the input closes: the person left); the lines it printed."""
    import io

    from fairdeck.plainui import PlainUI

    out = io.StringIO()
    replies = iter(answers)

    def read_line() -> str:
        line = next(replies, None)
        if line is None:
            raise EOFError
        return line

    ui = PlainUI(node, out, read_line=read_line)
    node.on_decide = None  # the stand-in node would call it without awaiting: asked here instead
    asyncio.run(ui.on_decide(prompt, moves))
    return out.getvalue().splitlines()
