"""``fairdeck watch TABLE|HOST:PORT``: follow a running game as a spectator.

A spectator is nobody at the table: it has no seat, its key signs nothing, and it takes no part in
the mesh. It asks the opener's bootstrap (a table opened with ``--spectators``) for the log's
entries as they are accepted — exactly the public record that every party could show the world and
that ``fairdeck audit`` reads — and folds each one through its own replica (:class:`replay.replay.Replay`),
so it checks every signature, proof and rule itself and stops at the first entry that does not
verify. No sealed card, key share or private token reaches it beyond what the log holds, and what
the log holds opens no hidden card. The entries are kept in ``watched/<game>.fdlog`` of the home, to
replay or audit later; the game is shown live in the replay viewer (all hands face down), or as
lines with ``--plain``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from p2p import transport
from p2p.identity import data_dir
from p2p.log import LogError, LogWriter, pack, safe_unpack
from p2p.node import NodeError, parse_address
from p2p.safetext import safe_text

POLL = 0.3
"""Seconds between two questions to the bootstrap while nothing new has come."""
ANSWER_TIMEOUT = 5.0
"""Seconds an answer may take before the bootstrap counts as silent once."""
SILENT_GIVE_UP = 60.0
"""Seconds of a silent bootstrap (the opener gone) after which the spectator stops."""
ANSWER_BYTES = 8 * 1024 * 1024
"""The largest answer taken (the opener sends at most 2 MiB of entries at once)."""


class WatchError(Exception):
    """The table cannot be watched (one line for the user)."""


class Feed:
    """Asks a bootstrap for the entries from :attr:`next` on; each REQ socket serves one question
    (a question without an answer would leave a REQ socket stuck)."""

    def __init__(self, host: str, port: int) -> None:
        self.endpoint = f"tcp://{host}:{port}"
        self.ctx = zmq.asyncio.Context()
        self.next = 0
        self.ended = False

    async def ask(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """One question; the answer, or ``None`` if none came in time (or it was not a map)."""
        sock = self.ctx.socket(zmq.REQ)
        sock.linger = 0
        sock.setsockopt(zmq.MAXMSGSIZE, ANSWER_BYTES)
        try:
            sock.connect(self.endpoint)
            await sock.send(pack(message))
            if not await sock.poll(int(ANSWER_TIMEOUT * 1000)):
                return None
            answer = safe_unpack(await sock.recv(), 4096, 4)
        except (zmq.ZMQError, LogError):
            return None
        finally:
            sock.close(linger=0)
        return answer if isinstance(answer, dict) else None

    async def fetch(self) -> list[bytes]:
        """The next entries (maybe none yet); :class:`WatchError` if the table refuses spectators."""
        answer = await self.ask({"t": "watch", "next": self.next})
        if answer is None:
            raise TimeoutError("the table's bootstrap did not answer")
        if answer.get("t") == "refused":
            raise WatchError(safe_text(answer.get("reason"), 200) or "the table refused")
        envelopes = answer.get("env")
        if answer.get("t") != "entries" or not isinstance(envelopes, list):
            raise WatchError("the table's bootstrap answered something that is not entries")
        got = [e for e in envelopes if isinstance(e, bytes)]
        self.next += len(got)
        held = answer.get("held")
        self.ended = answer.get("ended") is True and isinstance(held, int) and self.next >= held
        return got

    def close(self) -> None:
        """Close the sockets' context."""
        self.ctx.destroy(linger=0)


async def follow(feed: Feed, take: Callable[[list[bytes]], bool]) -> str:
    """Feed ``take`` every new entry until the game ends (``"ended"``), ``take`` refuses one
    (``"stopped"``), or the bootstrap stays silent (``"silent"``)."""
    silent = 0.0
    while True:
        try:
            envelopes = await feed.fetch()
        except TimeoutError:
            silent += ANSWER_TIMEOUT
            if silent >= SILENT_GIVE_UP:
                return "silent"
            continue
        silent = 0.0
        if envelopes and not take(envelopes):
            return "stopped"
        if feed.ended:
            return "ended"
        if not envelopes:
            await asyncio.sleep(POLL)


def watch_command(args: argparse.Namespace) -> int:
    """``fairdeck watch``."""
    try:
        return asyncio.run(_watch(args))
    except KeyboardInterrupt:
        return 130


async def _address(table: str) -> tuple[str, int]:
    if ":" in table:
        return parse_address(table)
    from fairdeck.lan import TableNotFound, find_table

    try:
        found = await find_table(table)
    except TableNotFound as exc:
        raise WatchError(str(exc)) from None
    return found.host, found.table.port


async def _watch(args: argparse.Namespace) -> int:
    from replay.replay import UnreadableLog, replay_envelopes

    table = args.table
    if table is None:  # no table named: pick one live from the LAN, as `fairdeck join` does
        if args.plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
            print("fairdeck watch: name a table or HOST:PORT (see `fairdeck tables`)", file=sys.stderr)
            return 2
        from fairdeck.console.lobby import TablePicker

        table = await TablePicker().run()
        if table is None:
            return 1
    try:
        host, port = await _address(table)
    except (NodeError, WatchError) as exc:
        print(f"fairdeck watch: {exc}", file=sys.stderr)
        return 2
    feed = Feed(host, port)
    plain = args.plain or not (sys.stdin.isatty() and sys.stdout.isatty())
    try:
        if await transport.nothing_listens(host, port):
            raise WatchError(f"no table at {host}:{port}: {transport.NOTHING_LISTENS}")
        info = await feed.ask({"t": "info"})
        if info is None:
            raise WatchError(f"nothing answers at {host}:{port}")
        if info.get("watch") is not True:
            raise WatchError("this table does not take spectators (its opener can allow them: --spectators)")
        opener = info.get("opener") if isinstance(info.get("opener"), str) else info.get("name")
        terms = f"{safe_text(info.get('game'), 20)}, opened by {safe_text(opener, 40)}"
        print(f"watching {terms} at {host}:{port} — you see what every seat may see, never a hidden card")
        genesis = await _first_entries(feed)
        try:
            replay = replay_envelopes(genesis[:1])
        except UnreadableLog as exc:
            raise WatchError(f"the table's first entry is not a genesis: {exc}") from None
        path = data_dir() / "watched" / f"{replay.table.game_id.hex()}.fdlog"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # a game watched again is received again from its genesis
        writer = LogWriter(path)
        writer.append(genesis[0], sync=False)
        keeper = _Keeper(replay, writer)
        # what was played before we came is shown too (a spectator may come mid-game)
        if not (keeper.take_and_print if plain else keeper.take)(genesis[1:]):
            how = "stopped"
        elif plain:
            how = await follow(feed, keeper.take_and_print)
        else:
            how = await _follow_on_screen(feed, keeper, path)
        writer.close()
        return _report(replay, path, how)
    except WatchError as exc:
        print(f"fairdeck watch: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"fairdeck watch: cannot keep the log: {exc.strerror or exc}", file=sys.stderr)
        return 3
    finally:
        feed.close()


async def _first_entries(feed: Feed) -> list[bytes]:
    """Wait through the lobby (no log before every seat is taken) for the genesis and what follows."""
    silent = 0.0
    while True:
        try:
            got = await feed.fetch()
        except TimeoutError:
            silent += ANSWER_TIMEOUT
            if silent >= SILENT_GIVE_UP:
                raise WatchError("the table's bootstrap went silent before the game started") from None
            continue
        if got:
            return got
        await asyncio.sleep(POLL)


class _Keeper:
    """Folds received entries into the replay and keeps the ones that verify."""

    def __init__(self, replay: Any, writer: LogWriter) -> None:
        self.replay, self.writer = replay, writer
        self.printed = len(replay.frames)

    def take(self, envelopes: list[bytes]) -> bool:
        """Fold and keep ``envelopes``; ``False`` at the first one that does not verify."""
        for envelope in envelopes:
            if not self.replay.fold(envelope):
                return False
            self.writer.append(envelope, sync=False)
        return True

    def take_and_print(self, envelopes: list[bytes]) -> bool:
        """:meth:`take`, then print the new events in words."""
        from engine.present import name_seats

        ok = self.take(envelopes)
        names = [safe_text(p.name, 40) for p in self.replay.table.parties]
        for frame in self.replay.frames[self.printed :]:
            if frame.text:  # "seat 2 (dee) plays ...", as the replay's text says it
                print(name_seats(safe_text(frame.text, 2000), names), flush=True)
        self.printed = len(self.replay.frames)
        return ok


async def _follow_on_screen(feed: Feed, keeper: _Keeper, path: Path) -> str:
    from fairdeck.viewer import Viewer

    viewer = Viewer(keeper.replay, path, live=True)
    done: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def take(envelopes: list[bytes]) -> bool:
        ok = keeper.take(envelopes)
        viewer.grew()
        return ok

    async def run_feed() -> None:
        how = await follow(feed, take)
        viewer.finished(how)
        if not done.done():
            done.set_result(how)

    task = asyncio.create_task(run_feed())
    try:
        await viewer.run_async()
    finally:
        task.cancel()
    return done.result() if done.done() else "left"


def _report(replay: Any, path: Path, how: str) -> int:
    from replay.audit import audit_path
    from replay.replay import closing_words, result_words

    table = replay.table
    names = [safe_text(p.name, 40) for p in table.parties]
    if how == "stopped":
        print(f"fairdeck watch: entry {replay.stopped_seq} does not verify: {safe_text(replay.stopped, 200)}")
    elif how == "silent":
        print("fairdeck watch: the table went silent (its opener is gone); what came is kept")
    elif how == "left":
        print("you stopped watching; what came is kept")
    if table.ended == "over":
        players = names[: table.game.seats]
        print("Game over: " + "; ".join(result_words(table.game, table.game.result(table.state), players)))
    elif table.ended is not None:
        print(f"The game was {table.ended}: {closing_words(table, names)}")
    report = audit_path(path, table.verified)  # the proofs checked while watching are not checked again
    print(f"log: {path}\naudit: {report.headline()}  (replay it: fairdeck replay {path})")
    return 1 if how == "stopped" else 0
