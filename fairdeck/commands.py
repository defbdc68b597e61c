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
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from engine.games import default_seats, make_bot, make_game
from fairdeck.plainui import PlainUI, SafeLogFormatter
from p2p import policy
from p2p.crypto import DEFAULT_SHUFFLE_ROUNDS
from p2p.identity import Identity, data_dir
from p2p.node import Node, NodeError, parse_address
from p2p.safetext import MAX_NAME_LENGTH, safe_text

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


def log_ended(path: Path) -> str | None:
    """How the game in the log at ``path`` ended (``None``: not yet), by the replay's fold."""
    from replay.replay import replay_log

    return replay_log(path).table.ended


BOT_OWNER_LENGTH = 16
"""Characters of the owner's name a bot's name keeps (so that moves naming it fit a line)."""


def bot_name(number: int | str, owner: str, kind: str = "bot") -> str:
    """``bot-2, run by alice``: a bot's name says whose machine holds its key (and so can see its
    hand); at most 40 printable characters, the owner's name made safe and cut to fit."""
    head = f"{kind}-{number}"
    owner = safe_text(owner.strip(), min(BOT_OWNER_LENGTH, MAX_NAME_LENGTH - len(head) - len(", run by ")))
    return f"{head}, run by {owner}" if owner else head


class BotDriver:
    """Answers a node's decisions with a bot that sees only its seat's knowledge. The bot is made at
    the first decision, when the game is known: its randomness comes from :func:`bot_seed` (the
    node's secret key and the game), with ``seed`` mixed in."""

    def __init__(self, node: Node, game: str, level: str, seed: Any = "") -> None:
        self.node = node
        self.game, self.level, self.seed = game, level, seed
        self.bot: Any = None
        node.on_decide = self.on_decide

    async def on_decide(self, prompt: str, moves: list[dict[str, Any]]) -> None:
        party = self.node.party
        assert party is not None
        table = party.table
        if self.bot is None:
            self.bot = network_bot(self.node.identity, self.game, self.level, table.game_id, salt=self.seed)
        move = self.bot.choose(table.game, table.state, party.seat, party.known_faces(), prompt)
        await self.node.decide(move)


async def _print_progress(node: Node, quiet: bool) -> None:
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
            print(text if notice.kind == "accepted" else f"* {text}", flush=True)


def _audit_line(log_path: Path | None) -> tuple[str, int]:
    from replay.audit import audit_path

    if log_path is None:
        return "no log", 1
    report = audit_path(log_path)
    return f"log: {log_path}\naudit: {report.verdict}", report.exit_code


def _report_end(node: Node) -> int:
    """Print the result, the log's path and the audit verdict; return the audit's exit code."""
    if node.failure is not None:
        return _report_failure(node)
    print(_result_text(node))
    text, code = _audit_line(node.log_path)
    print(text)
    return code


FAILURE_EXIT = 3
"""Exit code of a peer that stopped because it could not write its log (disk full...)."""


def _report_failure(node: Node) -> int:
    """One line on stderr for a node that stopped on its own (see ``Node.failure``)."""
    print(f"fairdeck: {node.failure}", file=sys.stderr, flush=True)
    return FAILURE_EXIT


def _result_text(node: Node) -> str:
    assert node.party is not None
    table = node.party.table
    if table.ended != "over":
        return f"Game {table.ended}."
    result = table.game.result(table.state)
    parts = []
    if (winners := result.get("winners")) is not None:
        names = ", ".join(f"{safe_text(table.parties[w].name, 40)} (seat {w})" for w in winners) or "nobody"
        parts.append(f"winner: {names}")
    if result.get("outcome"):
        grade = f" ({result['grade']})" if result.get("grade") else ""
        parts.append(f"the players {result['outcome']}{grade}")
    for key in ("tokens", "scores", "enemies_defeated"):
        if key in result:
            parts.append(f"{key.replace('_', ' ')}: {result[key]}")
    if result.get("fault"):
        parts.append(f"stopped by a proven fault: {safe_text(result['fault'], 500)}")
    return "Game over — " + "; ".join(parts)


# ---------------------------------------------------------------------------------------------


def bot_command(args: argparse.Namespace) -> int:
    """``fairdeck bot --join HOST:PORT``: a bot peer in its own process."""
    home = args.home or Path(tempfile.mkdtemp(prefix="fairdeck-bot-"))
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    for handler in logging.getLogger().handlers:  # records may quote what a peer sent
        handler.setFormatter(SafeLogFormatter("%(name)s: %(message)s"))
    return asyncio.run(_bot(args, Path(home)))


async def _bot(args: argparse.Namespace, home: Path) -> int:
    identity = Identity.load_or_create(home)
    node = Node(
        identity,
        home,
        name=args.name or bot_name(identity.fingerprint[:4], os.environ.get("USER", "")),
        bind_host=getattr(args, "bind", None) or "127.0.0.1",
        abandon_after=getattr(args, "abandon_after", None),
        allow_trusted=getattr(args, "allow_trusted", False),
    )
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
    try:
        unfinished = node.unfinished_games(log_ended)
        progress = asyncio.create_task(_print_progress(node, getattr(args, "quiet", False)))
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
        if node.failure is not None:
            progress.cancel()
            return _report_failure(node)
        await asyncio.sleep(0.5)  # let our last entries reach the others
        progress.cancel()
        return 0
    except NodeError as exc:
        print(f"fairdeck bot: {exc}", file=sys.stderr)
        return 2
    finally:
        await node.close()


def tables_command(args: argparse.Namespace) -> int:
    """``fairdeck tables``."""
    from p2p.discovery import browse

    interfaces: Any = ["127.0.0.1"] if args.loopback else "all"
    tables = asyncio.run(browse(args.wait, interfaces))
    if not tables:
        print("no tables found (a table can also be joined with HOST:PORT)")
        return 0
    for t in tables:
        print(
            f"{t.name:24s} {t.game:14s} {t.free}/{t.seats} seats free  "
            f"{','.join(t.addresses)}:{t.port}  host {t.fp}"
        )
        print(f"    {t.terms_text()}")
    return 0


def _spawn_bots(
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
    """Start ``count`` bot peers joining ``address``; ``bind`` is where their meshes listen;
    they are numbered from ``first`` + 1 and named as run by ``owner`` (:func:`bot_name`); each
    has its own home under ``base``, which ``owner`` can read. ``allow_trusted``: the person asked
    for a trusted-mode table, so its own bots accept one."""
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
            subprocess.Popen(
                argv,
                stdout=subprocess.DEVNULL,
                stderr=None if os.environ.get("FAIRDECK_DEBUG") else subprocess.DEVNULL,
                start_new_session=True,
            )
        )
    return procs


async def _seat_bots(
    procs: list[subprocess.Popen[bytes]],
    node: Node,
    address: str,
    count: int,
    level: str,
    base: Path,
    **spawn: Any,
) -> None:
    """:func:`_spawn_bots` one at a time into ``procs``, each once the one before holds its seat (or
    has died): seats go in the order joins arrive, so ``bot-N`` sits at seat N when nobody else joins
    meanwhile. ``node`` is the table's opener (it asks its own bootstrap how many seats are free)."""
    host, port = parse_address(address)
    for _ in range(count):
        free = await _free_seats(node, host, port)
        procs += _spawn_bots(address, 1, level, base, first=len(procs), **spawn)
        while procs[-1].poll() is None and free > 0 and await _free_seats(node, host, port) == free:
            await asyncio.sleep(0.05)


async def _free_seats(node: Node, host: str, port: int) -> int:
    """How many seats the table at ``host:port`` has free, as a joiner is told (0 once full)."""
    try:
        reply = await node._ask_bootstrap(host, port, 10.0)
    except NodeError:  # full (the game has started), or not answering
        return 0
    free = reply.get("free")
    return free if isinstance(free, int) else 0


def _stop(procs: list[subprocess.Popen[bytes]], grace: float = 5.0) -> None:
    for proc in procs:
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def play_local(args: argparse.Namespace) -> int:
    """``fairdeck play GAME --bots N``: a real peer-to-peer game against bot processes."""
    return asyncio.run(_play(args))


async def _play(args: argparse.Namespace) -> int:
    game = args.game
    options = _options(args.option)
    solo = getattr(args, "solo", False)
    seats = 1 if solo else default_seats(game)
    bots = args.bots if args.bots is not None else seats - 1
    all_bots = False
    if solo:
        seats, all_bots = 1, bots >= 1  # "--solo --bots 1": a bot plays the solo seat
    elif bots >= 1:
        try:
            make_game(game, bots + 1, options)  # you and N bots, if the game takes that many
            seats = bots + 1
        except ValueError:
            seats, all_bots = bots, True  # "--bots 4" at a game of at most 4 seats: four bots, unattended
    if bots < 0:
        raise ValueError("--bots cannot be negative")
    bots = seats - 1 if not solo else 0
    make_game(game, seats, options)
    home = data_dir()
    identity = Identity.load_or_create(home)
    name = args.name or os.environ.get("USER") or "you"
    node = Node(identity, home, name=bot_name(0, name) if all_bots else name, bind_host="127.0.0.1")
    witnesses = 1 if solo and not getattr(args, "no_witness", False) else 0
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
        print(f"fairdeck play: {exc}", file=sys.stderr)
        return 2
    address = f"127.0.0.1:{port}"
    base = Path(tempfile.mkdtemp(prefix="fairdeck-bots-"))
    procs: list[subprocess.Popen[bytes]] = []
    print(
        f"table open at {address}; {bots} bot peer(s) joining"
        + (" and a witness" if witnesses else "")
        + " ...",
        flush=True,
    )
    code = 0
    try:
        if all_bots:  # ready before the table fills: its first decision may come at once
            BotDriver(node, game, args.level, args.seed or 0)
        spawn = {"owner": name, "allow_trusted": args.trusted}
        await _seat_bots(procs, node, address, bots, args.level, base, **spawn)
        procs += _spawn_bots(address, witnesses, "random", base, witness=True, **spawn)
        if all_bots:
            await asyncio.gather(node.wait_ended(), _print_progress(node, False))
        else:
            ui = _make_ui(node, args)
            await asyncio.gather(node.wait_ended(), ui.show_notices())
        if node.failure is not None:
            return _report_failure(node)
        if node.party is None:  # our own genesis failed our policy: nothing was sent
            print(f"fairdeck play: the table did not start: {node.refusal}", file=sys.stderr)
            return 2
        print(_result_text(node), flush=True)
        await asyncio.sleep(0.3)
        if args.trusted:
            text = f"log: {node.log_path}\naudit: not applicable (trusted mode: seat 0 saw every card)"
            code = 0
        else:
            text, code = _audit_line(node.log_path)
        print(text, flush=True)
    finally:
        await node.close()
        _stop(procs)
        shutil.rmtree(base, ignore_errors=True)
    return code


def _proof_and_deadline(args: argparse.Namespace) -> dict[str, Any]:
    """``open_table`` arguments from ``--rounds`` (asks for cut-and-choose with that many rounds;
    without it, the best proof this build writes) and ``--stall-after``."""
    rounds = getattr(args, "rounds", None)
    return {
        "proof": policy.CC if rounds else None,
        "shuffle_rounds": rounds or DEFAULT_ROUNDS,
        "stall_after": getattr(args, "stall_after", None) or policy.DEFAULT_STALL_AFTER,
    }


def _make_ui(node: Node, args: argparse.Namespace, add_bot: Any = None) -> Any:
    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        try:
            from fairdeck.console import ConsoleUI  # the full-screen console, where available
        except ImportError:
            return PlainUI(node)
        return ConsoleUI(node, add_bot=add_bot)
    return PlainUI(node)


def host_command(args: argparse.Namespace) -> int:
    """``fairdeck host GAME``: open a table on the LAN and play at it."""
    return asyncio.run(_host(args))


async def _host(args: argparse.Namespace) -> int:
    game = args.game
    options = _options(args.option)
    seats = args.seats or default_seats(game)
    make_game(game, seats, options)
    home = data_dir()
    identity = Identity.load_or_create(home)
    name = getattr(args, "name", None) or os.environ.get("USER") or "host"
    node = Node(identity, home, name=name, bind_host=args.bind, port=args.port)
    advertise = None
    if not args.no_advertise:
        from p2p.discovery import Advertiser

        async def advertise(port: int, key: bytes, free: int) -> Any:
            interfaces: Any = ["127.0.0.1"] if args.bind.startswith("127.") else "all"
            assert node.terms is not None
            return await Advertiser(
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

    trusted = getattr(args, "trusted", False)
    try:
        boot = await node.open_table(
            game,
            seats,
            options=options,
            table_name=args.name,
            advertise=advertise,
            mode="trusted" if trusted else "fair",
            **_proof_and_deadline(args),
        )
    except NodeError as exc:
        await node.close()
        print(f"fairdeck host: {exc}", file=sys.stderr)
        return 2
    print(
        f"table open: others join with  fairdeck join <this machine's address>:{boot}  "
        f"(host fingerprint {identity.fingerprint})",
        flush=True,
    )
    base = Path(tempfile.mkdtemp(prefix="fairdeck-bots-"))
    # Local bots reach the bootstrap where it listens, and listen as the host does: a table bound
    # everywhere has players on other machines, who must be able to dial the bots too.
    local = "127.0.0.1" if args.bind == "0.0.0.0" else args.bind
    procs: list[subprocess.Popen[bytes]] = []
    bots = {"bind": args.bind, "owner": name, "allow_trusted": trusted}

    def add_bot() -> None:  # F2 in the console's lobby
        procs.extend(_spawn_bots(f"{local}:{boot}", 1, "heuristic", base, first=len(procs), **bots))

    try:
        await _seat_bots(procs, node, f"{local}:{boot}", args.bots or 0, "heuristic", base, **bots)
        ui = _make_ui(node, args, add_bot=add_bot)
        await asyncio.gather(node.wait_ended(), ui.show_notices())
        if node.party is None:  # our own genesis failed our policy: nothing was sent
            print(f"fairdeck host: the table did not start: {node.refusal}", file=sys.stderr)
            return 2
        if trusted:  # as `play --trusted`: no audit can vouch for a deal seat 0 saw
            print(f"{_result_text(node)}\nlog: {node.log_path}\naudit: not applicable (trusted mode)")
            return 0
        return _report_end(node)
    finally:
        await node.close()
        _stop(procs)


def resume_command(args: argparse.Namespace) -> int:
    """``fairdeck resume``: come back to your newest unfinished game after a crash."""
    return asyncio.run(_resume(args))


async def _resume(args: argparse.Namespace) -> int:
    from p2p.protocol import Party
    from p2p.recovery import RecoveryError, read_roster, saved_genesis

    home = data_dir()
    identity = Identity.load_or_create(home)
    unfinished = Node(identity, home, name="").unfinished_games(log_ended)
    if not unfinished:
        print(f"fairdeck: no unfinished game in {home / 'games'}", file=sys.stderr)
        return 2
    path = unfinished[0]
    genesis = saved_genesis(path)
    try:
        endpoints = read_roster(path)["endpoints"]
        if genesis is None:
            raise RecoveryError(f"{path}: no genesis in the log or its roster")
    except RecoveryError as exc:
        print(f"fairdeck: {exc}", file=sys.stderr)
        return 2
    party = Party(identity, genesis)
    mine = endpoints[party.me].split("//", 1)[1].rsplit(":", 1)[0]
    node = Node(
        identity,
        home,
        name=party.table.parties[party.me].name,
        bind_host=mine if mine.startswith("127.") else "0.0.0.0",
    )
    try:
        ui = _make_ui(node, args)
        notices = asyncio.create_task(ui.show_notices())
        try:
            await node.resume(path)
        except NodeError as exc:
            notices.cancel()
            print(f"fairdeck resume: {exc}", file=sys.stderr)
            return 2
        await node.wait_ended()
        await notices
        return _report_end(node)
    finally:
        await node.close()


def join_command(args: argparse.Namespace) -> int:
    """``fairdeck join TABLE|HOST:PORT``."""
    return asyncio.run(_join(args))


async def _join(args: argparse.Namespace) -> int:
    home = data_dir()
    identity = Identity.load_or_create(home)
    name = args.name or os.environ.get("USER") or "player"
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
        from p2p.discovery import browse

        tables = [t for t in await browse(2.0) if t.name == address]
        if not tables:
            print(
                f"fairdeck: no table called {address!r} on the LAN (try `fairdeck tables`)", file=sys.stderr
            )
            return 2
        address = f"{tables[0].addresses[0]}:{tables[0].port}"
        shown = tables[0].terms()
    node = Node(
        identity,
        home,
        name=name,
        bind_host="0.0.0.0" if not address.startswith("127.") else "127.0.0.1",
        allow_trusted=getattr(args, "allow_trusted", False),
    )
    try:
        ui = _make_ui(node, args)
        notices = asyncio.create_task(ui.show_notices())
        try:
            await node.join(address, expect=shown)
        except NodeError as exc:  # close the interface first, so the reason is seen on the terminal
            notices.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await notices
            print(f"fairdeck join: {exc}", file=sys.stderr)
            return 2
        await node.wait_ended()
        await notices
        return _report_end(node)
    finally:
        await node.close()
