"""Tables on the LAN for the commands: ``fairdeck tables``, and a table given by name to ``fairdeck
join NAME`` and ``fairdeck watch NAME``.

An advertisement comes from anyone on the LAN, so nothing here trusts it: each advertised table is
asked, at each of its addresses, what it is now (its bootstrap reply), all tables at once (a LAN
full of dead or bogus advertisements costs one short wait, not one per advertisement); a table that
answers nowhere is counted as gone, not listed. An advertisement that is not a valid fairdeck table
is ignored by :mod:`p2p.discovery`, which says so in a log record: :func:`quiet_discovery` collects
those records (instead of letting them print over a screen) so a command can sum them up in words.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from p2p.discovery import Interfaces, TableInfo, browse
from p2p.safetext import safe_text

MAX_ADDRESSES = 4
"""Addresses of one advertisement that are tried (the rest are ignored: anyone can list many)."""
ASK_TIMEOUT = 2.0
"""Seconds a table has to answer before it counts as gone."""


@dataclass
class LiveTable:
    """An advertised table that answered: where, and what its bootstrap says now."""

    table: TableInfo
    host: str
    reply: dict[str, Any]

    @property
    def address(self) -> str:
        """``HOST:PORT`` to join or watch it."""
        return f"{self.host}:{self.table.port}"

    @property
    def full(self) -> bool:
        """No seat is free (the game is being played, or about to start)."""
        return self.reply.get("full") is True or self.free <= 0

    @property
    def free(self) -> int:
        """Seats free now, as the table itself says."""
        free = self.reply.get("free")
        return free if isinstance(free, int) and not isinstance(free, bool) else self.table.free

    @property
    def watchable(self) -> bool:
        """The table takes spectators."""
        return self.reply.get("watch") is True


@dataclass
class Survey:
    """What one look at the LAN found."""

    live: list[LiveTable] = field(default_factory=list)
    silent: list[TableInfo] = field(default_factory=list)
    """Advertised, but nothing answered at any of their addresses (gone, or not reachable from here)."""
    ignored: list[str] = field(default_factory=list)
    """Why each advertisement that is not a valid table was ignored (inert text)."""

    def notes(self) -> list[str]:
        """One line each about what was advertised but not listed."""
        out = []
        if self.silent:
            names = ", ".join(safe_text(t.name, 24) for t in self.silent[:3])
            more = f" and {len(self.silent) - 3} more" if len(self.silent) > 3 else ""
            out.append(
                f"({len(self.silent)} advertised table(s) did not answer and are not listed: {names}{more};"
                " their host is gone or cannot be reached from here)"
            )
        if self.ignored:
            out.append(
                f"({len(self.ignored)} advertisement(s) on the LAN are not valid fairdeck tables and were"
                f" ignored, e.g. {self.ignored[0]})"
            )
        return out


class _Collect(logging.Handler):
    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            if len(self.into) < 100:
                self.into.append(safe_text(record.getMessage(), 160))


@contextlib.contextmanager
def quiet_discovery(into: list[str]) -> Iterator[None]:
    """While inside, the discovery's warnings (ignored advertisements) go to ``into``, as inert
    lines, and nowhere else: not onto the terminal."""
    logger = logging.getLogger("p2p.discovery")
    handler = _Collect(into)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


async def _ask_one(table: TableInfo) -> LiveTable | None:
    from fairdeck.commands import ask_table

    hosts = table.addresses[:MAX_ADDRESSES]
    replies = await asyncio.gather(*(ask_table(host, table.port, ASK_TIMEOUT) for host in hosts))
    return next((LiveTable(table, h, r) for h, r in zip(hosts, replies, strict=True) if r is not None), None)


async def ask_all(tables: list[TableInfo]) -> tuple[list[LiveTable], list[TableInfo]]:
    """Ask every table at once; those that answered (in the order given) and those that did not."""
    answers = await asyncio.gather(*(_ask_one(t) for t in tables))
    live = [a for a in answers if a is not None]
    silent = [t for t, a in zip(tables, answers, strict=True) if a is None]
    return live, silent


async def survey(seconds: float = 2.0, interfaces: Interfaces = "all") -> Survey:
    """Listen for ``seconds``, then ask each advertised table what it is now."""
    found = Survey()
    with quiet_discovery(found.ignored):
        tables = await browse(seconds, interfaces)
    found.live, found.silent = await ask_all(tables)
    return found


class TableNotFound(Exception):
    """No single live table answers to the name (one line for the user)."""


async def find_table(name: str, interfaces: Interfaces = "all", seconds: float = 2.0) -> LiveTable:
    """The one live table called ``name`` on the LAN (exactly, else ignoring case), or
    :class:`TableNotFound` saying why not: none, only gone ones, or several (then each is listed
    with its ``HOST:PORT`` and host fingerprint, to pick one by address)."""
    found = Survey()
    with quiet_discovery(found.ignored):
        tables = await browse(seconds, interfaces)
    named = [t for t in tables if t.name == name]
    named = named or [t for t in tables if t.name.casefold() == name.casefold()]
    shown = safe_text(name, 40)
    if not named:
        raise TableNotFound(f"no table called {shown} on the LAN (try `fairdeck tables`)")
    live, silent = await ask_all(named)
    if not live:
        where = ", ".join(f"{','.join(t.addresses[:MAX_ADDRESSES])}:{t.port}" for t in silent[:3])
        raise TableNotFound(
            f"a table called {shown} is advertised on the LAN, but nothing answers there ({where}):"
            " its host is gone or cannot be reached from here"
        )
    if len(live) > 1:
        each = "; ".join(f"{t.address} (host {safe_text(t.table.fp, 20)})" for t in live[:5])
        raise TableNotFound(
            f"{len(live)} tables are called {shown} on the LAN: {each}; name the one you mean by its"
            " HOST:PORT (check the host fingerprint with its opener)"
        )
    return live[0]
