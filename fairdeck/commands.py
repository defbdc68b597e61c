"""The network subcommands: ``play``, ``host``, ``join``, ``bot``, ``tables``.

Each runs one :class:`p2p.node.Node` in an asyncio loop. ``play`` opens a table on this machine,
starts bot peers as separate processes (each with its own identity), seats the person, and at the
end prints where the log is and the audit verdict.

Bots and trust: a bot launched here keeps its key and log in the launcher's temporary directory, so
whoever launches a bot can read its hand. Its name says so (``bot-2, run by alice``:
:func:`bot_name`), and bots join one at a time so that ``bot-N`` sits at seat N when only bots join.
A networked bot draws its move randomness from a seed derived from its *secret* key and the game
(:func:`bot_seed`): a seed anyone could compute (such as its fingerprint) would let them replay its
choices and read its hidden cards from them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from engine.games import make_bot
from fairdeck.console.addresses import join_words
from fairdeck.plainui import PlainUI, SafeLogFormatter
from fairdeck.procs import Household, watch_parent
from fairdeck.series import Series, can_play_again, next_game
from fairdeck.tableplan import login_name
from p2p import policy, transport
from p2p.crypto import DEFAULT_SHUFFLE_ROUNDS
from p2p.identity import Identity, data_dir
from p2p.node import Node, NodeError, Notice, parse_address
from p2p.safetext import MAX_NAME_LENGTH, safe_text
from replay.replay import result_words

BOT_ABANDON_AFTER = 300.0
"""Seconds a local bot waits for a vanished seat before it closes the game as abandoned."""
DEFAULT_ROUNDS = DEFAULT_SHUFFLE_ROUNDS  # soundness 2^-80 (docs/crypto.md)


def _options(pairs: list[str]) -> dict[str, Any]:
    from fairdeck.cli import _options as parse

    return parse(pairs)


def bot_seed(identity: Identity, game_id: bytes, resumed_at: int = 0, salt: object = "") -> bytes:
    """The seed of a networked bot's move randomness in game ``game_id``: secret, derived from its
    identity key (never from anything public such as its fingerprint, which would let anyone replay
    its choices and read its hidden cards from them). ``resumed_at`` is the entry a restarted bot
    resumes at (0 for a fresh start), so a restart draws fresh randomness instead of repeating its
    first choices; ``salt`` (e.g. a ``--seed``) is mixed in, never used alone."""
    context = game_id + resumed_at.to_bytes(8, "big") + str(salt).encode()
    return identity.derive("bot-moves", context)


def network_bot(
    identity: Identity, game: str, level: str, game_id: bytes, resumed_at: int = 0, salt: object = ""
) -> Any:
    """A bot for a networked seat, seeded with :func:`bot_seed`."""
    return make_bot(game, level, bot_seed(identity, game_id, resumed_at, salt))


LEFT_SUFFIX = ".left"
"""Beside a log: a note that this player left that game on purpose (when, why, and whether it can be
resumed at all: a game whose bots this machine ran and ended cannot). A game whose every other seat
is a bot of the program playing it carries the note from its start, with that program's ``pid``:
while the program runs the game is being played; once it is gone (killed, crashed), so are its bots,
and the game cannot go on."""


def log_ended(path: Path) -> str | None:
    """How the game in the log at ``path`` ended (``None``: not yet), by the replay's fold;
    ``"left"`` for a game this player left on purpose (see :func:`mark_left`)."""
    from replay.replay import replay_log

    ended = replay_log(path).table.ended
    if ended is None and path.with_suffix(LEFT_SUFFIX).exists():
        return "left"
    return ended


def mark_left(path: Path | None, why: str, resumable: bool, pid: int | None = None) -> None:
    """Note beside the log at ``path`` that this player left its game (see :data:`LEFT_SUFFIX`);
    with ``pid``, ahead of time: the game ends with that process (whose log may not exist yet)."""
    if path is None or not (path.exists() or (pid is not None and path.parent.is_dir())):
        return
    note: dict[str, Any] = {"left_at": time.time(), "why": why, "resumable": resumable}
    if pid is not None:
        note["pid"] = pid
    with contextlib.suppress(OSError):
        path.with_suffix(LEFT_SUFFIX).write_text(json.dumps(note))


def playing_now(note: dict[str, Any]) -> bool:
    """True if the note is one written ahead of time (:func:`mark_left` with ``pid``) by a fairdeck
    that is still running: its game is being played, not left."""
    pid = note.get("pid")
    if type(pid) is not int or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    try:  # a pid the system gave to another program since is not our game
        return b"fairdeck" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc to ask: alive is the best we know


async def _ends_with_us(node: Node) -> None:
    """Once ``node``'s game starts, note that it ends with this program: its other seats are this
    program's bots, which stop with it however it stops (even killed, when no ``finally`` runs)."""
    await node.wait_started()
    mark_left(node.log_path, "the program stopped", resumable=False, pid=os.getpid())


def left_note(path: Path) -> dict[str, Any] | None:
    """The note :func:`mark_left` wrote beside ``path``, if any."""
    try:
        note = json.loads(path.with_suffix(LEFT_SUFFIX).read_text())
    except (OSError, ValueError):
        return None
    return note if isinstance(note, dict) else None


def check_home(home: Path) -> None:
    """Refuse at once (one line, ``OSError``) a home whose games folder cannot be written: a game
    whose log cannot be written must not start (it would stall at its first entry). Nothing is
    created here (a table refused before it starts leaves no trace)."""
    games = home / "games"
    target = games
    while not target.exists() and target != target.parent:
        target = target.parent
    if not os.access(target, os.W_OK | os.X_OK):
        reason = "read-only file system" if _read_only(target) else "permission denied"
        raise OSError(f"cannot write game logs in {games}: {reason} (set FAIRDECK_HOME to another folder)")


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


BOT_OWNER_LENGTH = 16
"""Characters of the owner's name a bot's name keeps (so that moves naming it fit a line)."""


def bot_name(number: int | str, owner: str, kind: str = "bot") -> str:
    """``bot-2, run by alice``: a bot's name says whose machine holds its key (and so can see its
    hand); at most 40 printable characters, the owner's name made safe and cut to fit."""
    head = f"{kind}-{number}"
    owner = safe_text(owner.strip(), min(BOT_OWNER_LENGTH, MAX_NAME_LENGTH - len(head) - len(", run by ")))
    return f"{head}, run by {owner}" if owner else head


log = logging.getLogger("fairdeck.bot")

LOST_DECISION_AFTER = 5.0
"""Seconds a bot's own decision may stay unanswered before it asks itself again."""


async def nudge_lost_decisions(node: Node, on_decide: Callable[[str, list[dict[str, Any]]], Any]) -> None:
    """A bot asks itself again when the table has waited for its decision a while: a decision that
    was lost (a failed decision task) must not stall the table. Asking twice is harmless: a second
    answer to a decision already made is refused by the party, and logged."""
    waiting: tuple[int, float] | None = None
    while not node.ended:
        await asyncio.sleep(1.0)
        party = node.party
        prompt = party.waiting_for_me() if party is not None else None
        if party is None or prompt is None:
            waiting = None
            continue
        now = time.monotonic()
        if waiting is None or waiting[0] != party.table.next_seq:
            waiting = (party.table.next_seq, now)
        elif now - waiting[1] > LOST_DECISION_AFTER:
            waiting = (party.table.next_seq, now)
            log.warning("a decision of ours waited %.0f s: asking the bot again", LOST_DECISION_AFTER)
            with contextlib.suppress(Exception):
                await on_decide(prompt, party.legal_moves())


class BotDriver:
    """Answers a node's decisions with a bot that sees only its seat's knowledge. The bot is made at
    the first decision, when the game is known: its randomness comes from :func:`bot_seed` (the
    node's secret key and the game), with ``seed`` mixed in."""

    def __init__(self, node: Node, game: str, level: str, seed: Any = "") -> None:
        self.node = node
        self.game, self.level, self.seed = game, level, seed
        self.bot: Any = None
        node.on_decide = self.on_decide
        self.nudging: asyncio.Task[None] | None = None
        with contextlib.suppress(RuntimeError):  # no loop yet: started at the first decision
            self._start_nudging()

    def _start_nudging(self) -> None:
        if self.nudging is None:
            self.nudging = asyncio.get_running_loop().create_task(
                nudge_lost_decisions(self.node, self.on_decide)
            )

    async def on_decide(self, prompt: str, moves: list[dict[str, Any]]) -> None:
        """Choose and send the bot's move for ``prompt`` from ``moves`` (nudging the table if it stalls)."""
        self._start_nudging()
        party = self.node.party
        assert party is not None
        table = party.table
        if self.bot is None:
            self.bot = network_bot(self.node.identity, self.game, self.level, table.game_id, salt=self.seed)
        move = self.bot.choose(table.game, table.state, party.seat, party.known_faces(), prompt)
        await self.node.decide(move)


ROUND_PAUSE = 3.0
"""Seconds an all-bot table's printout stays on a round's summary when a person watches it."""


async def _print_progress(node: Node, quiet: bool, pause: float = 0.0) -> None:
    """Print what happens (names and reasons made safe); with ``pause``, each round's summary is
    printed and stays a moment before the next round's lines (a person is watching bots play)."""
    rounds_seen: int | None = None
    while True:
        notice = await node.notices.get()
        if notice.kind == "ended":
            return
        if (
            not quiet
            and notice.text
            and notice.kind in ("accepted", "info", "status", "rejected", "evidence")
        ):
            text = safe_text(notice.text, 2000)  # names and reasons come from other parties
            if notice.kind == "accepted" and node.party is not None:  # every seat by name, as elsewhere
                from engine.present import name_seats

                names = [safe_text(p.name, 40) for p in node.party.table.parties]
                text = name_seats(text, names, None)  # (no "(you)": the person watches bots play)
            print(text if notice.kind == "accepted" else f"* {text}", flush=True)
        if pause and not quiet and notice.kind == "accepted" and node.party is not None:
            rounds_seen = await _round_pause(node, rounds_seen, pause)


async def _round_pause(node: Node, seen: int | None, pause: float) -> int | None:
    """Print the summary of a round that just ended and wait ``pause`` seconds; the rounds seen."""
    from engine.present import TableView, presentation

    assert node.party is not None
    table = node.party.table
    present = presentation(table.game)
    try:
        done = present.rounds_done(table.state)
    except Exception:
        return seen
    if seen is None or done <= seen or table.ended is not None:
        return done if seen is None else max(seen, done)
    names = [safe_text(p.name, 40) for p in table.parties]
    view = TableView(table.game, table.state, None, dict(table.public_faces), names)
    view.inert = safe_text
    try:
        summary = present.round_summary(view) or []
    except Exception:
        summary = []
    text = "".join(t for _, t in summary).strip("\n")
    if text:
        print("\n" + "\n".join(f"  {line}" for line in text.splitlines()) + "\n", flush=True)
        await asyncio.sleep(pause)
    return done


def _audit_line(log_path: Path | None, proven: frozenset[bytes] = frozenset()) -> tuple[str, int]:
    """``log: PATH`` and ``audit: VERDICT`` (the headline ``fairdeck games`` shows too), with the
    audit's exit code. ``proven``: the proofs this node checked during the game, not checked again
    (the audit still reads the file and checks every signature, rule and proof not among them)."""
    from fairdeck.games import record_verdict
    from replay.audit import audit_path

    if log_path is None:
        return "no log", 1
    report = audit_path(log_path, proven)
    record_verdict(log_path, report.headline())
    return f"log: {log_path}\naudit: {report.headline()}", report.exit_code


async def _report_end(node: Node) -> int:
    """Print the result, the log's path and the audit verdict; return the audit's exit code. The
    audit runs in a worker thread: the mesh keeps answering meanwhile (the others may be waiting
    for our answer to "play again?"). A trusted game is audited like any other and gets the audit's
    own verdict (``not auditable``: the opener's seat saw every card); every party asked for that
    mode (``--trusted``, ``--allow-trusted``), so it is no failure of the command (0, not the
    audit's 3)."""
    from replay.audit import NOTHING_PROVED

    if node.failure is not None:
        return _report_failure(node)
    print(_result_text(node), flush=True)
    proven = frozenset(node.party.table.verified) if node.party is not None else frozenset()
    text, code = await asyncio.to_thread(_audit_line, node.log_path, proven)
    print(text, flush=True)
    trusted = node.party is not None and node.party.table.mode == "trusted"
    return 0 if trusted and code == NOTHING_PROVED else code


def _next_ui(ui: Any, args: argparse.Namespace) -> Any:
    """The interface for the next game of a series: the same plain one (its input may hold lines
    already read), or a fresh console."""
    if isinstance(ui, PlainUI):
        return ui
    return _make_ui(None, args)


def _offer_again(ui: Any, args: argparse.Namespace, series: Any = None) -> None:
    """Tell the person's interface whether "play again" is offered at the end, and the series."""
    ui.offer_again = not getattr(args, "no_rematch", False)
    ui.series = series


async def _person_again(
    node: Node,
    ui: Any,
    series: Any,
    args: argparse.Namespace,
    make_node: Callable[[], Node],
    spectators: bool = False,
) -> tuple[Node, Any, Awaitable[str | None]] | None:
    """After a person's game: add it to the series (and show the series' score from its second
    game on), ask "play again?" (the console asked on its game-over screen), and settle it with the
    others. Returns the next game's node, started, the interface attached to it and what to await
    for its ``show_notices`` (a plain interface already prints the new game's lines); or ``None``
    (the series is over, and the person was told why in one line)."""
    if node.party is None:
        return None
    if series.games or can_play_again(node):  # (a series' last game counts however it ended)
        with contextlib.suppress(ValueError):
            series.add(node.party.table, node.log_path)
        if len(series.games) > 1:
            with contextlib.suppress(OSError):
                series.save()
            print(series.words(), flush=True)
    if not can_play_again(node):
        return None
    if getattr(args, "no_rematch", False):
        await node.say_again("no")  # the others need not wait for us
        return None
    following: list[Any] = []
    early: list[asyncio.Task[str | None]] = []

    def prepare(new: Node) -> None:
        following.append(_next_ui(ui, args))
        following[0].attach(new)
        _offer_again(following[0], args, series)
        # the same table: leaving the next game means for it what it meant for this one (our bots
        # stop with us), and its box must say so
        if hasattr(ui, "leaving_ends_game"):  # (the plain interface asks no such question)
            following[0].leaving_ends_game = ui.leaving_ends_game
        if isinstance(following[0], PlainUI):  # lines in order: the lobby's before the first decision
            early.append(asyncio.create_task(following[0].show_notices()))

    def say(text: str) -> None:
        if isinstance(ui, PlainUI):  # (on a line of its own, should "play again?" still wait)
            ui.say(safe_text(text, 400))
        else:
            print(safe_text(text, 400), flush=True)

    new = await next_game(
        node, ui.again(), make_node=make_node, prepare=prepare, say=say, spectators=spectators
    )
    if new is None:
        for task in early:
            task.cancel()
        return None
    with contextlib.suppress(OSError):
        series.save()
    shown = early[0] if early else asyncio.ensure_future(following[0].show_notices())
    return new, following[0], shown


FAILURE_EXIT = 3
"""Exit code of a peer that stopped on its own: it could not write its log (disk full...), or it
resumed a game and nobody else at the table answered within the table's deadline."""


def _report_failure(node: Node) -> int:
    """One line on stderr for a node that stopped on its own (see ``Node.failure``)."""
    print(f"fairdeck: {node.failure}", file=sys.stderr, flush=True)
    return FAILURE_EXIT


def _result_text(node: Node) -> str:
    assert node.party is not None
    table = node.party.table
    names = [safe_text(p.name, 40) for p in table.parties[: table.game.seats]]
    if table.ended != "over":
        from replay.replay import closing_words

        closing = closing_words(table, names, node.party.seat)
        return f"Game {table.ended}." + (f" {closing}" if closing else "")
    words = result_words(table.game, table.game.result(table.state), names)
    if table.game.seats == 1 and node.party.seat == 0:  # a solo game: its one player is "you"
        words = [w.replace("the players ", "you ", 1) if w.startswith("the players ") else w for w in words]
    return "Game over — " + "; ".join(words)


# ---------------------------------------------------------------------------------------------


def bot_command(args: argparse.Namespace) -> int:
    """``fairdeck bot --join HOST:PORT``: a bot peer in its own process. Without ``--home`` its key
    and log live in a temporary folder, removed when it ends. With ``--parent PID`` it ends (and,
    with ``--temp-home``, removes its home) as soon as that launcher is gone."""
    house = Household()
    home = args.home or house.temp_dir("fairdeck-bot-")
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    for handler in logging.getLogger().handlers:  # records may quote what a peer sent
        handler.setFormatter(SafeLogFormatter("%(name)s: %(message)s"))
    if getattr(args, "parent", None):

        def launcher_gone() -> None:
            if getattr(args, "temp_home", False):
                import shutil

                shutil.rmtree(home, ignore_errors=True)
                with contextlib.suppress(OSError):
                    Path(home).parent.rmdir()  # the launcher's folder, once its last bot is gone
            os._exit(0)

        watch_parent(args.parent, launcher_gone)
    try:
        return asyncio.run(_bot(args, Path(home)))
    finally:
        house.close()


async def _bot(args: argparse.Namespace, home: Path) -> int:
    identity = Identity.load_or_create(home)

    def make_node() -> Node:
        return Node(
            identity,
            home,
            name=args.name or bot_name(identity.fingerprint[:4], login_name()),
            bind_host=getattr(args, "bind", None) or "127.0.0.1",
            abandon_after=getattr(args, "abandon_after", None),
            allow_trusted=getattr(args, "allow_trusted", False),
        )

    node = make_node()
    role = "witness" if getattr(args, "witness", False) else "player"
    driver_game: list[str] = []

    async def on_decide(prompt: str, moves: list[dict[str, Any]]) -> None:
        if not driver_game:
            return
        party = node.party
        assert party is not None
        move = bot.choose(party.table.game, party.table.state, party.seat, party.known_faces(), prompt)
        await node.decide(move)

    bot: Any = None
    tasks: list[asyncio.Task[Any]] = []
    quiet = getattr(args, "quiet", False)
    try:
        unfinished = node.unfinished_games(log_ended)
        progress = asyncio.create_task(_print_progress(node, quiet))
        tasks.append(progress)
        tasks.append(asyncio.create_task(nudge_lost_decisions(node, on_decide)))
        if unfinished:
            from p2p.log import LogError, read_log  # noqa: PLC0415
            from p2p.protocol import Table  # noqa: PLC0415
            from p2p.recovery import saved_genesis  # noqa: PLC0415

            game_name = node.saved_game_name(unfinished[0])
            genesis = saved_genesis(unfinished[0])
            assert genesis is not None
            try:  # the bot's secret move seed moves on with the game (the log may be gone: healed later)
                resumed_at = len(read_log(unfinished[0]).envelopes)
            except LogError:
                resumed_at = 0
            bot = network_bot(identity, game_name, args.level, Table(genesis).game_id, resumed_at=resumed_at)
            driver_game.append(game_name)
            node.on_decide = on_decide
            await node.resume(unfinished[0])
        else:
            await node.join(args.join, role=role)
            assert node.party is not None
            game_name = node.party.table.game.name
            bot = network_bot(identity, game_name, args.level, node.party.table.game_id)
            driver_game.append(game_name)
            node.on_decide = on_decide
            # a decision may have been asked before the driver was ready
            if (prompt := node.party.waiting_for_me()) is not None:
                await on_decide(prompt, node.party.legal_moves())
        await node.wait_ended()
        # a bot someone runs by hand says where its log is and what the audit found, as `play` does
        # (its exit status stays its own: 0 when it played its part, whatever another party did);
        # one a person's `play` seated has a home that goes with the game, and nobody reads it
        report = not quiet and not getattr(args, "temp_home", False)
        while True:
            if node.failure is not None:
                progress.cancel()
                return _report_failure(node)
            if report:
                await _report_end(node)
            following = await _bot_again(node, args, make_node)
            if following is None:
                break
            for task in tasks:
                task.cancel()
            node = following
            assert node.party is not None
            # a new game: a new secret move seed, drawn from the new game's id
            bot = network_bot(identity, node.party.table.game.name, args.level, node.party.table.game_id)
            node.on_decide = on_decide
            progress = asyncio.create_task(_print_progress(node, quiet))
            tasks[:] = [progress, asyncio.create_task(nudge_lost_decisions(node, on_decide))]
            if (prompt := node.party.waiting_for_me()) is not None:
                await on_decide(prompt, node.party.legal_moves())
            await node.wait_ended()
        # leave once everyone holds the whole log (a party that crashed at the very end and came back
        # fetches what it missed from us), or after a while
        missing = await node.linger_after_end()
        if missing and not quiet:
            names = ", ".join(f"seat {p}" for p in missing)
            print(f"leaving before {names} said it had the end of the game", flush=True)
        progress.cancel()
        return 0
    except NodeError as exc:
        print(f"fairdeck bot: {exc}", file=sys.stderr)
        return 2
    finally:
        for task in tasks:
            task.cancel()
        await node.close()


async def _bot_again(node: Node, args: argparse.Namespace, make_node: Callable[[], Node]) -> Node | None:
    """After a bot's game: play again if every party does. A bot says yes (unless ``--no-rematch``),
    but never opens the next table: a bot that opened the last one (a host resumed as a bot) says
    no, or a table of bots would play forever."""
    if not can_play_again(node):
        return None
    assert node.party is not None
    answer = "no" if getattr(args, "no_rematch", False) or node.party.me == 0 else "yes"
    quiet = getattr(args, "quiet", False)

    def say(text: str) -> None:
        if not quiet:
            print(safe_text(text, 400), flush=True)

    return await next_game(node, answer, make_node=make_node, say=say)


def table_words(reply: dict[str, Any]) -> str:
    """Whose table a bootstrap ``reply`` is, in words: ``ann's table`` when it bears its opener's
    name, ``table Friday, opened by ann,`` when the opener named it (``host --name Friday``)."""
    name = safe_text(reply.get("name"), 40)
    opener = safe_text(reply.get("opener"), 40) if isinstance(reply.get("opener"), str) else name
    return f"{opener}'s table" if opener == name else f"table {name}, opened by {opener},"


async def ask_table(host: str, port: int, timeout: float = 2.0) -> dict[str, Any] | None:
    """The bootstrap reply of the table at ``host:port`` (its live ``free`` seats, whether it is
    ``full``, its terms), or ``None`` if nothing answers like a table within ``timeout`` seconds."""
    import msgpack

    from p2p.log import pack

    ctx = zmq.asyncio.Context.instance()
    req = ctx.socket(zmq.REQ)
    req.linger = 0
    req.setsockopt(zmq.MAXMSGSIZE, 4096)
    try:
        req.connect(f"tcp://{host}:{port}")
        await req.send(pack({"t": "info"}))
        if not await req.poll(int(timeout * 1000)):
            return None
        reply = msgpack.unpackb(await req.recv(), raw=False)
    except (zmq.ZMQError, ValueError):
        return None
    finally:
        req.close(linger=0)
    return reply if isinstance(reply, dict) else None


def tables_command(args: argparse.Namespace) -> int:
    """``fairdeck tables``: the tables advertised on the LAN, each with its free seats as its own
    bootstrap tells them now (an advertisement may lag behind a join), "playing" once it is full."""
    return asyncio.run(_tables(args))


async def _tables(args: argparse.Namespace) -> int:
    from fairdeck.lan import survey

    interfaces: Any = ["127.0.0.1"] if args.loopback else "all"
    found = await survey(args.wait, interfaces)  # every table asked at once, not one after another
    if not found.live:
        print("no tables found (a table can also be joined with HOST:PORT)")
    for live in found.live:
        t = live.table
        free = live.free
        seats = "full, playing" if live.full else f"{free}/{t.seats} seats free"
        name, game = safe_text(t.name, 24), safe_text(t.game, 14)
        spectators = " · spectators welcome (fairdeck watch)" if live.watchable else ""
        # (the host's fingerprint on a line of its own: the whole fits 80 columns)
        print(f"{name:24s} {game:14s} {seats:18s} {live.address}")
        print(f"    host {safe_text(t.fp, 20)}{spectators}")
        print(f"    {safe_text(t.terms_text(), 200)}")
    for note in found.notes():
        print(note)
    return 0


def _spawn_bots(
    house: Household,
    address: str,
    count: int,
    level: str,
    base: Path,
    witness: bool = False,
    quiet: bool = True,
    bind: str | None = None,
    first: int = 0,
    owner: str = "",
    allow_trusted: bool = False,
) -> list[subprocess.Popen[bytes]]:
    """Start ``count`` bot peers joining ``address`` (in ``house``: their process groups end with
    it); ``bind`` is where their meshes listen; they are numbered from ``first`` + 1 and named as run
    by ``owner`` (:func:`bot_name`); each has its own home under ``base``, which ``owner`` can read.
    ``allow_trusted``: the person asked for a trusted-mode table, so its own bots accept one."""
    procs = []
    for i in range(first, first + count):
        home = base / (f"witness{i}" if witness else f"bot{i}")
        argv = [
            sys.executable,
            "-m",
            "fairdeck",
            "bot",
            "--join",
            address,
            "--level",
            level,
            "--home",
            str(home),
            "--name",
            bot_name(i + 1, owner, "witness" if witness else "bot"),
            "--parent",
            str(os.getpid()),
            "--temp-home",
        ]
        # if the person's process dies, the bots close the game and leave instead of waiting forever
        argv += ["--abandon-after", str(BOT_ABANDON_AFTER)]
        if witness:
            argv.append("--witness")
        if allow_trusted:
            argv.append("--allow-trusted")
        if quiet:
            argv.append("--quiet")
        if bind is not None:
            argv += ["--bind", bind]
        procs.append(
            house.spawn(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=None if os.environ.get("FAIRDECK_DEBUG") else subprocess.DEVNULL,
            )
        )
    return procs


async def _seat_bots(
    house: Household,
    node: Node,
    address: str,
    count: int,
    level: str,
    base: Path,
    **spawn: Any,
) -> None:
    """:func:`_spawn_bots` one at a time, each once the one before holds its seat (or has died):
    seats go in the order joins arrive, so ``bot-N`` sits at seat N when nobody else joins
    meanwhile. ``node`` is the table's opener (it asks its own bootstrap how many seats are free)."""
    host, port = parse_address(address)
    for _ in range(count):
        free = await _free_seats(node, host, port)
        first = sum(1 for p in house.procs if "--witness" not in p.args)
        proc = _spawn_bots(house, address, 1, level, base, first=first, **spawn)[-1]
        while proc.poll() is None and free > 0 and await _free_seats(node, host, port) == free:
            await asyncio.sleep(0.05)


async def _free_seats(node: Node, host: str, port: int) -> int:
    """How many seats the table at ``host:port`` has free, as a joiner is told (0 once full)."""
    reply = await ask_table(host, port, 10.0)
    if reply is None or reply.get("full"):
        return 0
    free = reply.get("free")
    return free if isinstance(free, int) else 0


def play_local(args: argparse.Namespace) -> int:
    """``fairdeck play GAME --bots N``: a real peer-to-peer game against bot processes."""
    return asyncio.run(_play(args))


LEFT_WORDS = "you left the table"


async def _play(args: argparse.Namespace) -> int:
    from fairdeck.tableplan import plan_play

    game = args.game
    plan = plan_play(args)  # (checked already by the parser's caller; a test's args may not be)
    options, seats, bots, witnesses = plan.options, plan.seats, plan.bots, plan.witnesses
    all_bots = not plan.person  # an unattended table: the launcher's own node is a bot too
    home = data_dir()
    identity = Identity.load_or_create(home)
    check_home(home)
    name = args.name or login_name() or "you"
    ui = None if all_bots else _make_ui(None, args)  # refuses a closed input before anything starts
    house = Household()
    house.on_signals()
    node = Node(identity, home, name=bot_name(0, name) if all_bots else name, bind_host="127.0.0.1")
    try:
        port = await node.open_table(
            game,
            seats,
            options=options,
            witnesses=witnesses,
            mode="trusted" if args.trusted else "fair",
            **_proof_and_deadline(args),
        )
    except NodeError as exc:
        await node.close()
        house.close()
        print(f"fairdeck play: {exc}", file=sys.stderr)
        return 2
    address = f"127.0.0.1:{port}"
    base = house.temp_dir("fairdeck-bots-")
    joining = " and ".join(
        ([f"{bots} bot{'s' if bots != 1 else ''}"] if bots or not witnesses else [])
        + (["a witness"] if witnesses else [])
    )
    if all_bots:  # the launcher's own seat is a bot too: say so, and that the person only watches
        playing = "a bot play" if bots == 0 else f"{bots + 1} bots play"  # (you watch a bot play)
        print(f"table open at {address}; you watch {playing} ({joining} joining) ...", flush=True)
    else:
        print(f"table open at {address}; {joining} joining ...", flush=True)
    code = 0
    series = Series(home)

    def make_node() -> Node:  # the next game's, if the person plays again
        return Node(identity, home, name=name, bind_host="127.0.0.1")

    watchers = [asyncio.create_task(_ends_with_us(node))]
    try:
        if all_bots:  # ready before the table fills: its first decision may come at once
            BotDriver(node, game, args.level, args.seed or 0)
        spawn = {"owner": name, "allow_trusted": args.trusted}
        seating = asyncio.create_task(_seat_bots(house, node, address, bots, args.level, base, **spawn))
        if all_bots:
            await seating
            _spawn_bots(house, address, witnesses, "random", base, witness=True, **spawn)
            pause = ROUND_PAUSE if sys.stdout.isatty() else 0.0  # a person watches: rounds pause
            await asyncio.gather(node.wait_ended(), _print_progress(node, False, pause))
        else:
            assert ui is not None
            ui.attach(node)
            ui.leaving_ends_game = lambda: True  # every other seat is a bot of ours
            _offer_again(ui, args, series)

            async def seat_all() -> None:
                await seating
                _spawn_bots(house, address, witnesses, "random", base, witness=True, **spawn)

            filling = asyncio.create_task(seat_all())
            left = await ui.show_notices()
            filling.cancel()
            if left:
                return _leave(node, house, left, resumable=False)
        while True:
            if node.failure is not None:
                return _report_failure(node)
            if node.party is None:  # our own genesis failed our policy: nothing was sent
                print(f"fairdeck play: the table did not start: {node.refusal}", file=sys.stderr)
                return 2
            await asyncio.sleep(0.3)
            code = max(code, await _report_end(node))
            if all_bots:  # an unattended table of bots plays one game
                break
            following = await _person_again(node, ui, series, args, make_node)
            if following is None:
                break
            node, ui, shown = following
            watchers.append(asyncio.create_task(_ends_with_us(node)))
            left = await shown
            if left:
                return _leave(node, house, left, resumable=False)
    except asyncio.CancelledError:  # SIGTERM, SIGHUP or Ctrl-C: the household is already gone
        _leave(node, house, "interrupted", resumable=False, quiet=True)
        raise
    finally:
        for watcher in watchers:
            watcher.cancel()
        _note_stopped(node)
        await node.close()
        house.close()
    return code


def _leave(node: Node, house: Household, why: str, resumable: bool, quiet: bool = False) -> int:
    """The person left before the game ended: end the bots and remove their folder at once, note in
    the log's folder that this game was left (so ``resume`` does not offer it unless it can go on),
    and say in one line what became of the game. ``quiet``: interrupted (the caller says so), and
    the terminal may be gone."""
    house.close(leaving=True)
    if node.ended:
        return 0
    if node.party is None:  # still in the lobby: closing the node tells the others (Node.close)
        fate = "the table was closed before its game started" if node.opened else "you gave up your seat"
        with contextlib.suppress(OSError, ValueError):
            print(f"fairdeck: {fate if quiet else f'{why}: {fate}'}", file=sys.stderr, flush=True)
        return 1 if why != LEFT_WORDS else 130
    mark_left(node.log_path, why, resumable)
    where = f"; its log: {node.log_path}" if node.log_path else ""
    if resumable:
        fate = "the game stays unfinished: `fairdeck resume` takes you back to it"
    else:
        helpers = helpers_words(node.party.table)
        fate = f"the game ends unfinished: {helpers} stopped with you, so it cannot go on"
    with contextlib.suppress(OSError, ValueError):  # (a closed terminal: nobody to tell)
        print(f"fairdeck: {fate if quiet else f'{why}: {fate}'}{where}", file=sys.stderr, flush=True)
    return 1 if why != LEFT_WORDS else 130


def helpers_words(table: Any, whose: str = "your") -> str:
    """``your bots``, ``your witness`` or ``your bots and witness``: who this program ran for the
    other seats of ``table`` (a :class:`p2p.protocol.Table`, or ``None``: bots). A witness sits
    beside the seats; a solo game has only that."""
    if table is None:
        return f"{whose} bots"
    parts = (["bots"] if table.seats > 1 else []) + (["witness"] if len(table.parties) > table.seats else [])
    return f"{whose} " + " and ".join(parts or ["bots"])


def helpers_stop(table: Any) -> str:
    """``your bots stop with you``, ``your witness stops with you``: what leaving does to the
    helpers this program ran (the question before leaving says it)."""
    helpers = helpers_words(table)
    return f"{helpers} {'stops' if helpers == 'your witness' else 'stop'} with you"


def _note_stopped(node: Node) -> None:
    """A game whose bots stop with this program, left any other way than by leaving (an error, an
    output closed under it): noted as left for good, so ``games`` and ``resume`` do not offer a
    game that can never go on."""
    if node.ended or node.log_path is None:
        return
    note = left_note(node.log_path)
    if note is None or "pid" in note:  # (the note written ahead, for a kill: now said for certain)
        mark_left(node.log_path, "the program stopped", resumable=False)


def _proof_and_deadline(args: argparse.Namespace) -> dict[str, Any]:
    """``open_table`` arguments from ``--rounds`` (asks for cut-and-choose with that many rounds;
    without it, the best proof this build writes), ``--stall-after`` and ``--on-stall``."""
    rounds = getattr(args, "rounds", None)
    return {
        "proof": policy.CC if rounds else None,
        "shuffle_rounds": rounds or DEFAULT_ROUNDS,
        "stall_after": getattr(args, "stall_after", None) or policy.DEFAULT_STALL_AFTER,
        "on_stall": getattr(args, "on_stall", None) or "close",
    }


def _make_ui(node: Node | None, args: argparse.Namespace, add_bot: Any = None) -> Any:
    """The console on a terminal (unless ``--plain``), else the plain interface. Built before the
    node when ``node`` is ``None`` (then :meth:`attach` it). A closed input is refused at once
    (``OSError``, one line); an input that ends before the game does makes the person leave then."""
    if sys.stdin is None or sys.stdin.closed:
        raise OSError("no input to read moves from (stdin is closed)")
    if not getattr(args, "plain", False) and sys.stdin.isatty() and sys.stdout.isatty():
        try:
            from fairdeck.console import ConsoleUI  # the full-screen console, where available
        except ImportError:
            pass
        else:
            return ConsoleUI(node, add_bot=add_bot)
    return PlainUI(node)  # (moves read from a pipe or file; at its end the person leaves, in one line)


def host_command(args: argparse.Namespace) -> int:
    """``fairdeck host GAME``: open a table on the LAN and play at it."""
    return asyncio.run(_host(args))


async def _host(args: argparse.Namespace) -> int:
    from fairdeck.tableplan import host_player, plan_host

    game = args.game
    seats, options = plan_host(args)
    home = data_dir()
    identity = Identity.load_or_create(home)
    check_home(home)
    name = host_player(args)
    house = Household()
    house.on_signals()

    def make_node() -> Node:  # (again for each next game, if everyone plays again)
        return Node(identity, home, name=name, bind_host=args.bind)

    node = make_node()
    advertise = None
    adverts: list[_Advert] = []
    if not args.no_advertise:
        from p2p.discovery import Advertiser

        async def advertise(port: int, key: bytes, free: int) -> Any:
            interfaces: Any = ["127.0.0.1"] if args.bind.startswith("127.") else "all"
            assert node.terms is not None
            await _stop_adverts(adverts)
            inner = await Advertiser(
                args.name or f"{name}'s table",
                port,
                {
                    "game": game,
                    "seats": seats,
                    "free": free,
                    "proto": 1,
                    "fp": identity.fingerprint,
                    "key": key,
                    **node.terms.to_txt(),  # mode, proof, options, stall deadline: seen before joining
                },
                interfaces,
            ).start()
            adverts.append(_Advert(inner, keep_playing=getattr(args, "spectators", False)))
            return adverts[-1]

    trusted = getattr(args, "trusted", False)
    try:
        boot = await node.open_table(
            game,
            seats,
            options=options,
            table_name=args.name,
            advertise=advertise,
            bootstrap_port=args.port or 0,
            mode="trusted" if trusted else "fair",
            spectators=getattr(args, "spectators", False),
            **_proof_and_deadline(args),
        )
    except (NodeError, zmq.ZMQError) as exc:
        await node.close()
        house.close()
        if isinstance(exc, zmq.ZMQError):
            where = f"{args.bind}:{args.port}" if args.port else args.bind
            print(f"fairdeck host: cannot listen on {where}: {exc.strerror}", file=sys.stderr)
        else:
            print(f"fairdeck host: {exc}", file=sys.stderr)
        return 2
    try:
        ui = _make_ui(None, args)  # after the table's own checks: they say why first
    except OSError:
        await node.close()
        house.close()
        raise
    print(
        f"table open: others join with  {join_words(args.bind, boot)}  "
        f"(host fingerprint {identity.fingerprint})",
        flush=True,
    )
    base = house.temp_dir("fairdeck-bots-")
    # Local bots reach the bootstrap where it listens, and listen as the host does: a table bound
    # everywhere has players on other machines, who must be able to dial the bots too.
    local = "127.0.0.1" if args.bind == "0.0.0.0" else args.bind
    bots = {"bind": args.bind, "owner": name, "allow_trusted": trusted}

    def add_bot() -> None:  # F2 in the console's lobby
        _spawn_bots(house, f"{local}:{boot}", 1, "heuristic", base, first=len(house.procs), **bots)

    series = Series(home)
    spectators = getattr(args, "spectators", False)
    try:
        await _seat_bots(house, node, f"{local}:{boot}", args.bots or 0, "heuristic", base, **bots)
        ui.attach(node, add_bot=add_bot)
        ui.leaving_ends_game = lambda: bool(house.procs)  # our bots stop with us (F2 may add some)
        _offer_again(ui, args, series)
        worst = 0
        shown: Awaitable[str | None] = ui.show_notices()
        while True:
            left = await shown
            if left:
                return _leave(node, house, left, resumable=not house.procs)
            await _stop_adverts(adverts)  # (a next game is not advertised)
            if node.party is None:  # our own genesis failed our policy: nothing was sent
                print(f"fairdeck host: the table did not start: {node.refusal}", file=sys.stderr)
                return 2
            worst = max(worst, await _report_end(node))
            following = await _person_again(node, ui, series, args, make_node, spectators)
            if following is None:
                return worst
            node, ui, shown = following
    except asyncio.CancelledError:
        _leave(node, house, "interrupted", resumable=not house.procs, quiet=True)
        raise
    finally:
        with contextlib.suppress(Exception):
            await _stop_adverts(adverts)  # the LAN hears the table is gone at once
        if house.procs:
            _note_stopped(node)
        await node.close()
        house.close()


class _Advert:
    """The opener's LAN advertisement, as the lobby sees it. When the game starts the lobby stops
    advertising; a table open to spectators stays listed instead, as full (``free=0``), so that
    ``fairdeck tables`` shows it playing and ``fairdeck watch NAME`` finds it, until the game ends
    (:func:`_stop_adverts`)."""

    def __init__(self, inner: Any, keep_playing: bool) -> None:
        self.inner, self.keep_playing = inner, keep_playing

    async def update(self, properties: dict[str, Any]) -> None:
        """Change the advertised fields (the free seats)."""
        await self.inner.update(properties)

    async def close(self) -> None:
        """The game starts: stop advertising, or (spectators welcome) advertise the table as full."""
        if not self.keep_playing:
            await self.inner.close()
            return
        try:
            await self.inner.update({"free": 0})
        except Exception:
            await self.inner.close()

    async def stop(self) -> None:
        """Stop advertising for good (the LAN hears a goodbye). Safe to call twice."""
        await self.inner.close()


async def _stop_adverts(adverts: list[_Advert]) -> None:
    while adverts:
        await adverts.pop().stop()


def resume_command(args: argparse.Namespace) -> int:
    """``fairdeck resume [GAME]``: come back to an unfinished game (after a crash, or a game left)."""
    from fairdeck.games import choose_resumable

    path = choose_resumable(getattr(args, "game", None))
    if path is None:
        return 2
    return asyncio.run(_resume(args, path))


async def _resume(args: argparse.Namespace, path: Path) -> int:
    from p2p.party import Party
    from p2p.protocol import Rejected
    from p2p.recovery import RecoveryError, read_roster, saved_genesis

    home = data_dir()
    identity = Identity.load_or_create(home)
    check_home(home)
    genesis = saved_genesis(path)  # the log may be gone: the roster keeps the genesis (it heals)
    try:
        endpoints = read_roster(path)["endpoints"]
        if genesis is None:
            raise RecoveryError(f"{path}: no genesis in the log or its roster")
    except RecoveryError as exc:
        print(f"fairdeck: {exc}", file=sys.stderr)
        return 2
    try:
        party = Party(identity, genesis)
    except Rejected as exc:  # (another identity's home: the log is left as it is)
        print(
            f"fairdeck: {path.name} cannot be resumed here: {safe_text(exc.reason, 200)} (resume it "
            "with the identity that played it, the identity.key of its home)",
            file=sys.stderr,
        )
        return 2
    mine = endpoints[party.me].split("//", 1)[1].rsplit(":", 1)[0]
    ui = _make_ui(None, args)
    house = Household()
    house.on_signals()

    def make_node() -> Node:  # (again for each next game, if everyone plays again)
        return Node(
            identity,
            home,
            name=party.table.parties[party.me].name,
            bind_host=mine if mine.startswith("127.") else "0.0.0.0",
        )

    node = make_node()
    series = Series(home)
    with contextlib.suppress(OSError):
        path.with_suffix(LEFT_SUFFIX).unlink()  # coming back: no longer a game left
    try:
        ui.attach(node)
        # a resumed game is played again like any other: the others are offered it too
        _offer_again(ui, args, series)
        size = path.stat().st_size if path.exists() else 0
        # checking the log and reconnecting take a while: the screen says so first, never blank
        saying = f"resuming {path.stem[:12]}…: checking its log ({size:,} bytes), then reconnecting"
        node.notices.put_nowait(Notice("info", saying))
        shown = asyncio.create_task(ui.show_notices())
        await asyncio.sleep(0.2)  # let the screen draw before the log is checked
        try:
            await node.resume(path)
        except NodeError as exc:
            shown.cancel()
            print(f"fairdeck resume: {exc}", file=sys.stderr)
            return 2
        left = await shown
        if left:
            return _leave(node, house, left, resumable=True)
        if node.failure is not None:
            return _report_failure(node)
        worst = await _report_end(node)
        while True:
            following = await _person_again(node, ui, series, args, make_node)
            if following is None:
                return worst
            node, ui, shown = following
            left = await shown
            if left:
                return _leave(node, house, left, resumable=True)
            worst = max(worst, await _report_end(node))
    except asyncio.CancelledError:
        _leave(node, house, "interrupted", resumable=True, quiet=True)
        raise
    finally:
        await node.close()
        house.close()


def join_command(args: argparse.Namespace) -> int:
    """``fairdeck join TABLE|HOST:PORT``."""
    return asyncio.run(_join(args))


async def _join(args: argparse.Namespace) -> int:
    home = data_dir()
    identity = Identity.load_or_create(home)
    check_home(home)
    name = args.name or login_name() or "player"
    address = args.table
    shown: policy.Terms | None = None  # what the LAN advertisement showed, when the table was found there
    if address is None:  # no table named: pick one live from the LAN in the console's lobby
        if args.plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
            print("fairdeck: name a table or HOST:PORT (see `fairdeck tables`)", file=sys.stderr)
            return 2
        from fairdeck.console.lobby import TablePicker

        picker = TablePicker()
        address = await picker.run()
        if address is None:
            return 1
        shown = picker.chosen.terms() if picker.chosen is not None else None
    if ":" not in address:
        from fairdeck.lan import TableNotFound, find_table

        try:
            found = await find_table(address)
        except TableNotFound as exc:
            print(f"fairdeck: {exc}", file=sys.stderr)
            return 2
        if found.full:
            print(
                f"fairdeck: the table {safe_text(address, 40)} at {found.address} is full"
                + (" (its game can be watched: fairdeck watch)" if found.watchable else ""),
                file=sys.stderr,
            )
            return 2
        address = found.address
        shown = found.table.terms()
    host, port = parse_address(address)
    if shown is not None and shown.fp == identity.fingerprint:  # (the LAN advertisement says whose)
        raise ValueError(own_table_words(identity.fingerprint, home))
    if not getattr(args, "yes", False) and sys.stdin.isatty() and sys.stdout.isatty():
        confirmed = await _confirm_table(host, port, shown, identity, home)
        if confirmed is None:
            return 1
        shown = confirmed
    ui = _make_ui(None, args)
    house = Household()
    house.on_signals()

    def make_node() -> Node:  # (again for each next game, if everyone plays again)
        return Node(
            identity,
            home,
            name=name,
            bind_host="0.0.0.0" if not address.startswith("127.") else "127.0.0.1",
            allow_trusted=getattr(args, "allow_trusted", False),
        )

    node = make_node()
    series = Series(home)
    try:
        ui.attach(node)
        _offer_again(ui, args, series)
        notices = asyncio.create_task(ui.show_notices())
        joining = asyncio.create_task(node.join(address, expect=shown))
        # the person may leave while waiting in the lobby: then we stop joining (and closing the
        # node tells the opener our place is free again)
        while not joining.done():
            await asyncio.wait({joining, notices}, return_when=asyncio.FIRST_COMPLETED)
            if notices.done() and not joining.done():
                if left := notices.result():
                    joining.cancel()
                    with contextlib.suppress(asyncio.CancelledError, NodeError):
                        await joining
                    return _leave(node, house, left, resumable=False)
                await joining
        try:
            joining.result()
        except (NodeError, ValueError) as exc:  # close the interface first, so the reason is seen
            notices.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await notices
            if isinstance(exc, ValueError):
                if not _joined_itself(exc):
                    raise
                exc = ValueError(own_table_words(identity.fingerprint, home))  # (not the mesh's jargon)
            print(f"fairdeck join: {exc}", file=sys.stderr)
            return 2
        worst = 0
        while True:
            left = await notices
            if left:
                return _leave(node, house, left, resumable=True)
            worst = max(worst, await _report_end(node))
            following = await _person_again(node, ui, series, args, make_node)
            if following is None:
                return worst
            node, ui, notices = following
    except asyncio.CancelledError:
        _leave(node, house, "interrupted", resumable=True, quiet=True)
        raise
    finally:
        await node.close()
        house.close()


def own_table_words(fingerprint: str, home: Path) -> str:
    """Why a table opened with this very identity cannot be joined, and what to do instead."""
    return (
        f"this table was opened with your own identity ({fingerprint}, kept in {safe_text(str(home), 200)}), "
        "so you are already at it; to seat a second player on this machine, run that player's "
        "`fairdeck join` with another FAIRDECK_HOME (e.g. FAIRDECK_HOME=~/.fairdeck-2)"
    )


def _joined_itself(exc: BaseException) -> bool:
    """The transport's refusal to connect an identity to itself (the table is our own)."""
    return "does not connect to itself" in str(exc)


async def _confirm_table(
    host: str,
    port: int,
    shown: policy.Terms | None,
    identity: Identity | None = None,
    home: Path | None = None,
) -> policy.Terms | None:
    """Show the table's terms and its host's fingerprint and ask the person to confirm them (compare
    the fingerprint with the one the host's screen shows); the terms confirmed, or ``None``. A table
    opened with ``identity`` itself is refused first (``ValueError``): there is nothing to ask."""
    if await transport.nothing_listens(host, port):
        raise OSError(f"no table at {host}:{port}: {transport.NOTHING_LISTENS}")
    reply = await ask_table(host, port, 10.0)
    if reply is None:
        raise OSError(f"no table answered at {host}:{port}")
    if reply.get("full"):
        raise OSError(f"the table at {host}:{port} is full")
    try:
        terms = policy.Terms.from_wire(reply)
    except policy.PolicyError as exc:
        raise OSError(f"the table at {host}:{port} states unreadable terms: {exc}") from None
    if identity is not None and terms.fp == identity.fingerprint:
        raise ValueError(own_table_words(identity.fingerprint, home or data_dir()))
    print(f"{table_words(reply)} at {host}:{port}: {safe_text(terms.describe(), 300)}")
    print(f"host fingerprint: {safe_text(terms.fp, 40)}  (check it against the host's screen)")
    try:
        answer = await PlainUI(None, read_line=lambda: input("join this table? [y/N] "))._read()
    except EOFError:
        return None
    if answer.strip().lower() not in ("y", "yes"):
        print("not joined")
        return None
    return shown or terms
