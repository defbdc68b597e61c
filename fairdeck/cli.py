"""``fairdeck``: one command, with a subcommand for everything a player or a sceptic does."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import faulthandler
import ipaddress
import math
import os
import signal
import socket
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from engine.games import BOT_LEVELS, GAMES
from fairdeck.tableplan import SIMULATE_ROUNDS

GAME_NAMES = tuple(GAMES)


PIPE_CLOSED_EXIT = 141
"""Exit status when whoever reads our output stops early (``fairdeck ... | head``): 128 + SIGPIPE,
what a shell reports for any Unix tool killed by a closed pipe; nothing is printed."""


class Parser(argparse.ArgumentParser):
    """``argparse`` with one-line usage errors (exit 2) naming the command, like every other refusal
    before a command starts; ``commands`` holds the subcommands' parsers."""

    commands: dict[str, Parser]

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line with where to get help, and exit with status 2."""
        if message == "the following arguments are required: game":  # say which games there are
            message = f"which game? name one: {', '.join(GAME_NAMES)} (e.g. `{self.prog} {GAME_NAMES[0]}`)"
        _say(f"{self.prog}: {message} (see `{self.prog} --help`)")
        raise SystemExit(2)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """As ``argparse``'s, but arguments no option takes are refused by the subcommand's own
        parser, so the error points to its help (``fairdeck join --help``), not the top level's."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            owner = getattr(self, "commands", {}).get(command, self) if command else self
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A value outside an argument's choices (a game, a command, a level) is refused naming the
        closest choice when one is close (``did you mean play?``). (``argparse`` calls this
        for every choice, subcommands included, on every Python from 3.11; its own suggestions,
        ``suggest_on_error``, came only in 3.14.)"""
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(choice) for choice in choices]
        close = difflib.get_close_matches(str(value), names, n=1)
        if not close:  # the start of a name (``love``, ``rebel``) is too short for difflib
            typed = str(value).strip().lower().replace(" ", "")
            close = [name for name in names if typed and name.lower().startswith(typed)][:2]
            close = close if len(close) == 1 else []
        hint = f"; did you mean {close[0]}?" if close else ""
        listed = ", ".join(map(repr, names))
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint} (choose from {listed})")


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _positive(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _count(text: str) -> int:
    """A number of bots: 0 or more."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative (a number of bots is 0 or more)")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def _port(text: str, lowest: int = 1) -> int:
    value = _whole(text)
    if not lowest <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port ({lowest}..65535)")
    return value


def _port_or_any(text: str) -> int:
    """A port to listen at; 0 asks for any free one."""
    return _port(text, lowest=0)


def _address(text: str) -> str:
    """``HOST:PORT`` with a port in 1..65535, checked before anything starts (returned as given)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not HOST:PORT with a port in 1..65535 (for example 192.168.1.20:47000)"
        )
    return text


def _table(text: str) -> str:
    """A table's name, or ``HOST:PORT`` (anything with a colon), checked as an address; an address
    without its port (``127.0.0.1``, ``localhost``) is refused saying so, not looked up as a name."""
    if ":" in text:
        return _address(text)
    if _is_address(text):
        raise argparse.ArgumentTypeError(
            f"{text} looks like an address: add the table's port, e.g. {text}:47017 "
            "(the host prints the whole address when it opens the table)"
        )
    return text


def _is_address(text: str) -> bool:
    """An IPv4 address or ``localhost``: never a table's name to look for on the LAN."""
    if text.lower() == "localhost":
        return True
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def _bind(text: str) -> str:
    """An IPv4 address to listen on (others are told it, so a name or an interface would not do)."""
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an IPv4 address (0.0.0.0: every interface; 127.0.0.1: this machine only)"
        ) from None
    return text


def _option_pair(text: str) -> str:
    """``--option KEY=VALUE``: the pair is checked here (a usage error), parsed by :func:`_options`."""
    key, sep, _ = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (for example edition=2019)")
    return text


def _key_file(text: str) -> str:
    """An identity key file that can be read (its contents are checked when it is loaded)."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"cannot read key file {text}: no such file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"cannot read key file {text}: not a file")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read key file {text}: permission denied")
    return text


def _new_file(text: str) -> Path:
    """A file to write at the end: not a folder, in a folder that exists (nothing is created)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder: name a file in it, e.g. {path / 'game.fdlog'}")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: there is no folder {path.parent}")
    return path


def _folder(text: str) -> Path:
    """A folder to keep files in (made when needed): refused if it, or what it would be made in, is a
    file."""
    path = Path(text)
    problem = home_problem(path)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return path


def home_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a fairdeck home (it or its nearest existing parent is not a folder)."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.is_dir():
        return None
    if existing == path:
        return f"{path} is a file, not a folder"
    return f"{path} cannot be made: {existing} is a file, not a folder"


def _seconds(text: str) -> int:
    """A stall deadline: whole seconds within the policy's range."""
    from p2p.policy import MAX_STALL_AFTER, MIN_STALL_AFTER

    value = _positive(text)
    if not MIN_STALL_AFTER <= value <= MAX_STALL_AFTER:
        raise argparse.ArgumentTypeError(f"{value} is not {MIN_STALL_AFTER}..{MAX_STALL_AFTER} seconds")
    return value


ROUNDS_HELP = (
    "shuffle with a cut-and-choose proof of this many rounds (soundness 2^-rounds) instead of "
    "Wikström–Terelius; below the floor, so refused outside tests (see FAIRDECK_TEST_PROOF_FLOOR)"
)
ALLOW_TRUSTED_HELP = "accept a trusted-mode table, where the opener's seat sees every card"
NO_REMATCH_HELP = "at the end, do not offer or accept to play again with the same players"
ON_STALL_HELP = (
    "when a player lets the stall deadline pass: close the game naming it (close), or have its own"
    " node play a safe move for it, marked in the log (bot)"
)
HELP_WIDTH = 79
"""The width ``--help``'s own paragraphs (a command's description, the game options) are wrapped at:
an 80-column terminal shows them whole, never cut mid-word by the terminal's own wrap."""

PLAY_TEXT = textwrap.fill(
    "Play a game against bot peers on this machine, each its own process with its own key. --bots N "
    "seats N bots beside you; when the game cannot seat N + 1 players with its options (an option "
    "such as an edition may change how many it seats), the N bots play alone while you watch, as "
    "--unattended asks at any size. --bots 0 is refused: a table for you alone is --solo.",
    HELP_WIDTH,
    break_on_hyphens=False,
)
STALL_HELP = (
    "seconds the table waits for the seat whose entry is due before anyone present may close the "
    "game as abandoned, naming that seat (default 300)"
)


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    """``--option key=value`` pairs; values are parsed as int/bool/None when they look like one."""
    options: dict[str, Any] = {}
    for pair in pairs:
        try:  # (the parser checked it already; a caller building its own args did not)
            _option_pair(pair)
        except argparse.ArgumentTypeError as exc:
            raise ValueError(f"--option: {exc}") from None
        key, raw = pair.split("=", 1)
        value: Any = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        elif raw.lower() in ("none", "null"):
            value = None
        else:
            try:
                value = int(raw)
            except ValueError:
                value = raw
        options[key] = value
    return options


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("fairdeck")
    except metadata.PackageNotFoundError:
        return "0.1.0 (not installed)"


def option_keys() -> str:
    """Every game's option keys with their defaults, for ``--help``."""
    from engine.games import default_seats, make_game

    lines = []
    for name in GAME_NAMES:
        try:
            options = getattr(make_game(name, default_seats(name), {}), "options", {}) or {}
        except Exception:  # a plug-in game that cannot be built with no options lists none
            options = {}
        shown = ", ".join(f"{k}={'none' if v is None else str(v).lower()}" for k, v in options.items())
        # one game's options may run past 200 columns: wrapped here (the help keeps our lines), with
        # the continuation indented under the game's name
        lines.append(
            textwrap.fill(
                f"{name}: {shown or '(no options)'}",
                HELP_WIDTH,
                initial_indent="  ",
                subsequent_indent="      ",
                break_on_hyphens=False,
                break_long_words=False,
            )
        )
    return "game options (--option KEY=VALUE), with their defaults:\n" + "\n".join(lines)


AUDIT_EXIT_CODES = """exit status:
  0  clean: every entry verified, no rule or claim broken (an unfinished game:
     so far)
  1  faults: a seat is named only when its own signature proves it
  2  unreadable: no game could be read from a log
  3  nothing proved, nobody named: a trusted game (the opener dealt and saw
     every card), shuffle proofs below the floor, or a game that never started
several logs: 2 if any is unreadable, else 1 if any log or their comparison has
a fault, else 3 if any proves nothing, else 0"""


def build_parser() -> Parser:
    """The argument parser (exposed for tests and help texts)."""
    parser = Parser(
        prog="fairdeck",
        description="Fair card games for friends on one LAN: no server, no host, provably fair deals.",
        epilog=option_keys(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"fairdeck {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices  # type: ignore[assignment]  # (each one is a Parser: parser_class)
    option_help = {"epilog": option_keys(), "formatter_class": argparse.RawDescriptionHelpFormatter}
    option = {"action": "append", "default": [], "type": _option_pair, "metavar": "KEY=VALUE"}

    p = sub.add_parser(
        "play", help="play a game against bots on this machine", description=PLAY_TEXT, **option_help
    )
    p.add_argument("game", choices=GAME_NAMES, help="which game")
    p.add_argument(
        "--bots",
        type=_count,
        default=None,
        metavar="N",
        help="seat N bots beside you (default: the game's usual table); when the table cannot take "
        "you as well, the N bots play alone, unattended",
    )
    p.add_argument(
        "--unattended",
        action="store_true",
        help="bots only, while you watch: --bots N of them (default: the game's usual table)",
    )
    p.add_argument(
        "--solo",
        action="store_true",
        help="a one-seat game (with a witness peer unless --no-witness); --bots 1: a bot plays it",
    )
    p.add_argument("--no-witness", action="store_true", help="with --solo: play without a witness peer")
    p.add_argument("--level", choices=BOT_LEVELS, default="heuristic", help="bot strength")
    p.add_argument("--option", help="a game option", **option)
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="unattended tables: a label mixed into seat 0 bot's move seed (which stays secret, from its "
        "key)",
    )
    p.add_argument("--trusted", action="store_true", help="deal with a plain seeded dealer (no cryptography)")
    p.add_argument("--plain", action="store_true", help="line-oriented interface instead of the full screen")
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument("--rounds", type=_positive, default=None, help=ROUNDS_HELP)
    p.add_argument("--stall-after", type=_seconds, default=None, metavar="SECONDS", help=STALL_HELP)
    p.add_argument("--on-stall", choices=("close", "bot"), default="close", help=ON_STALL_HELP)
    p.add_argument("--no-rematch", action="store_true", help=NO_REMATCH_HELP)

    p = sub.add_parser("simulate", help="play a whole game among bots and print it", **option_help)
    p.add_argument("game", choices=GAME_NAMES, help="which game")
    p.add_argument("--players", type=_positive, default=4, help="seats at the table (default 4)")
    p.add_argument("--seed", type=int, default=0, help="the deal and the bots' choices follow it (default 0)")
    p.add_argument(
        "--levels", default="heuristic", help="comma-separated bot levels, one per seat or one for all"
    )
    p.add_argument("--option", help="a game option", **option)
    p.add_argument(
        "--fair", action="store_true", help="deal with mental-poker cryptography among in-memory peers"
    )
    p.add_argument(
        "--log", type=_new_file, default=None, metavar="FILE", help="with --fair: write the signed log here"
    )
    p.add_argument(
        "--rounds",
        type=_positive,
        default=None,
        help=(
            "with --fair: shuffle with a cut-and-choose proof of this many rounds (soundness "
            "2^-rounds) instead of Wikström–Terelius, to compare the two"
        ),
    )
    p.add_argument("--witness", action="store_true", help="with --fair: add a witness party (solo games)")
    p.add_argument(
        "--games",
        type=_positive,
        default=1,
        help="play this many trusted-dealer games and print win rates (not with --fair)",
    )
    p.add_argument("--quiet", action="store_true", help="print only the result")

    p = sub.add_parser(
        "audit",
        help="verify a game log and name whoever cheated",
        epilog=AUDIT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("logs", nargs="+", help="log file(s); several logs of one game are also compared")
    p.add_argument(
        "--json",
        action="store_true",
        help="machine-readable report: one object for one log; for several, "
        '{"logs": [...], "comparison": {...}, "verdict", "exit_code"}',
    )

    p = sub.add_parser(
        "replay",
        help="step through a finished or running game",
        epilog="exit status: 0 the whole log was replayed; 1 it could not be (cut, damaged or\n"
        "refused at an entry: said where, as the audit says it); 2 no game could be read\n"
        "from it",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("log", help="a game's log file (`fairdeck games` lists yours)")
    p.add_argument(
        "--as",
        dest="as_key",
        type=_key_file,
        default=None,
        metavar="KEYFILE",
        help="see the game as the seat holding this identity key",
    )
    p.add_argument("--text", action="store_true", help="print the game as text instead of the viewer")

    p = sub.add_parser("host", help="open a table on the LAN and wait for players", **option_help)
    p.add_argument("game", choices=GAME_NAMES, help="which game")
    p.add_argument(
        "--name",
        default=None,
        help="the table's name (listed by `fairdeck tables`, joined by name); also your name at the "
        "table unless --player gives one",
    )
    p.add_argument(
        "--player", default=None, metavar="NAME", help="your name at the table (default: --name, else $USER)"
    )
    p.add_argument(
        "--seats", type=_positive, default=None, help="number of seats (default: the game's usual)"
    )
    p.add_argument(
        "--port",
        type=_port_or_any,
        default=0,
        help="the port others join at (HOST:PORT; 1..65535, default 0: any free one)",
    )
    p.add_argument(
        "--bind",
        type=_bind,
        default="0.0.0.0",
        help="IPv4 address to listen on (default 0.0.0.0: every interface; 127.0.0.1: this machine only)",
    )
    p.add_argument("--option", help="a game option", **option)
    p.add_argument(
        "--bots",
        type=_count,
        default=0,
        metavar="N",
        help="fill N seats with bots on this machine (at most the seats but yours)",
    )
    p.add_argument("--plain", action="store_true", help="line-oriented interface")
    p.add_argument("--no-advertise", action="store_true", help="do not announce the table with mDNS")
    p.add_argument("--no-rematch", action="store_true", help=NO_REMATCH_HELP)
    p.add_argument("--rounds", type=_positive, default=None, help=ROUNDS_HELP)
    p.add_argument("--stall-after", type=_seconds, default=None, metavar="SECONDS", help=STALL_HELP)
    p.add_argument("--on-stall", choices=("close", "bot"), default="close", help=ON_STALL_HELP)
    p.add_argument(
        "--trusted",
        action="store_true",
        help="deal with a plain seeded dealer: your seat sees every card (joiners must --allow-trusted)",
    )

    p.add_argument(
        "--spectators",
        action="store_true",
        help="let anyone follow the game with `fairdeck watch` (they see only what every seat sees)",
    )

    p = sub.add_parser("watch", help="follow a running game as a spectator (a table name or HOST:PORT)")
    p.add_argument(
        "table", nargs="?", type=_table, default=None, help="omit it to pick a table live from the LAN"
    )
    p.add_argument("--plain", action="store_true", help="print the game as lines instead of the full screen")

    p = sub.add_parser("join", help="take a seat at a table (a name from `fairdeck tables`, or HOST:PORT)")
    p.add_argument(
        "table", nargs="?", type=_table, default=None, help="omit it to pick a table live from the LAN"
    )
    p.add_argument(
        "--name", "--player", dest="name", default=None, help="your name at the table (--player: the same)"
    )
    p.add_argument("--plain", action="store_true", help="line-oriented interface")
    p.add_argument("--allow-trusted", action="store_true", help=ALLOW_TRUSTED_HELP)
    p.add_argument("--no-rematch", action="store_true", help=NO_REMATCH_HELP)
    p.add_argument(
        "--yes", action="store_true", help="do not ask to confirm the table's terms and host fingerprint"
    )

    p = sub.add_parser(
        "resume", help="come back to an unfinished game (asks which when there are several)"
    )
    p.add_argument("game", nargs="?", default=None, help="its number or id in `fairdeck games`")
    p.add_argument("--plain", action="store_true", help="line-oriented interface")
    p.add_argument("--no-rematch", action="store_true", help=NO_REMATCH_HELP)

    p = sub.add_parser("games", help="your games: list them; resume, replay, audit or discard one")
    p.add_argument(
        "action",
        nargs="?",
        choices=("list", "resume", "replay", "audit", "discard"),
        default=None,
        help="what to do with a game (default: the list to pick from, or printed without a terminal)",
    )
    p.add_argument("game", nargs="?", default=None, help="its number or id (as listed)")
    p.add_argument("--plain", action="store_true", help="line-oriented interface (for resume)")
    p.add_argument(
        "--yes",
        action="store_true",
        help="discard without asking (needed when there is no terminal to ask on)",
    )

    p = sub.add_parser("tables", help="list the tables open on the LAN")
    p.add_argument(
        "--wait", type=_positive_seconds, default=2.0, metavar="SECONDS", help="seconds to listen (default 2)"
    )
    p.add_argument("--loopback", action="store_true", help="look only on this machine (127.0.0.1)")

    p = sub.add_parser("bot", help="run a bot that joins a table as its own peer")
    p.add_argument("--join", type=_address, required=True, metavar="HOST:PORT", help="the table to join")
    p.add_argument("--level", choices=BOT_LEVELS, default="heuristic", help="bot strength")
    p.add_argument(
        "--name", default=None, help="the bot's name at the table (default: bot-FINGERPRINT, run by $USER)"
    )
    p.add_argument("--home", type=_folder, default=None, help="directory for the bot's identity and logs")
    p.add_argument(
        "--witness", action="store_true", help="take a witness place: shuffle and sign, never play"
    )
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.add_argument("--bind", type=_bind, default=None, help="IPv4 address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--abandon-after",
        type=_positive_seconds,
        default=None,
        metavar="SECONDS",
        help="close the game as abandoned if the awaited seat is gone this long "
        "(a local deadline, shorter than the table's stall deadline)",
    )
    p.add_argument("--allow-trusted", action="store_true", help=ALLOW_TRUSTED_HELP)
    p.add_argument(
        "--no-rematch", action="store_true", help="never play again after a game (a bot says yes by default)"
    )
    p.add_argument("--parent", type=int, default=None, help=argparse.SUPPRESS)  # end when it is gone
    p.add_argument("--temp-home", action="store_true", help=argparse.SUPPRESS)  # ... and remove --home

    sub.add_parser("whoami", help="show your identity's fingerprint and where it is stored")
    for action in sub._choices_actions:  # each command's --help opens with what it does
        command = sub.choices[action.dest]
        if command.description is None and action.help:
            command.description = action.help[0].upper() + action.help[1:] + "."
    return parser


def dump_stacks_on_signal() -> None:
    """``kill -USR1`` a running fairdeck to see, on its stderr, where each of its threads is (for a
    peer that seems stuck: the stacks hold code locations only, no cards or keys)."""
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fairdeck`` console script."""
    try:
        return _main(argv)
    except BrokenPipeError:
        if not _stdout_closed():
            _say("fairdeck: broken pipe")
            return 2
        return _output_gone()


HOME_COMMANDS = ("play", "host", "join", "resume", "games", "whoami", "watch")
"""The commands that keep an identity or logs in the fairdeck home (``FAIRDECK_HOME``)."""


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    dump_stacks_on_signal()
    if args.command is None:
        parser.print_help()
        return 2
    try:
        check_args(args)
    except ValueError as exc:
        parser.commands[args.command].error(_one_line(exc))
    if problem := _home_problem(args):
        _say(f"fairdeck: {problem}")
        return 2
    handler = globals()[f"cmd_{args.command}"]
    try:
        return int(handler(args) or 0)
    except (KeyboardInterrupt, asyncio.CancelledError):
        _say("fairdeck: interrupted")
        return 130
    except BrokenPipeError:
        raise  # (main: a reader that went away is no error)
    except (ValueError, OSError, RuntimeError) as exc:  # RuntimeError: a NodeError (unreachable, full…)
        _say(f"fairdeck: {_os_words(exc) if isinstance(exc, OSError) else _one_line(exc)}")
        return 2
    except Exception as exc:  # never a traceback: one line (FAIRDECK_DEBUG=1 shows it)
        if os.environ.get("FAIRDECK_DEBUG"):
            raise
        _say(f"fairdeck: unexpected error: {type(exc).__name__}: {_one_line(exc)}")
        return 2


def check_args(args: argparse.Namespace) -> None:
    """What flags say together, checked before anything starts or is printed (a ``ValueError``
    naming the flag: a usage error). A game's options are checked against the real table."""
    from fairdeck import tableplan

    if args.command == "play":
        tableplan.plan_play(args)
    elif args.command == "host":
        tableplan.plan_host(args)
    elif args.command == "simulate":
        tableplan.check_simulate(args)
    elif args.command in ("join", "watch", "bot"):
        address = args.join if args.command == "bot" else args.table
        if address is not None and ":" in address and (problem := host_problem(address)):
            raise ValueError(problem)
    if args.command == "games":
        if args.yes and args.action != "discard":
            raise ValueError("--yes is for `fairdeck games discard`")
        terminal = sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty()
        if args.action == "discard" and args.game is not None and not args.yes and not terminal:
            raise ValueError("discard asks first, and there is no terminal to ask on: add --yes")


def host_problem(address: str) -> str | None:
    """Why the host of ``HOST:PORT`` cannot be reached at all (a name that does not resolve), said
    at once rather than after the wait for a table that cannot answer; ``None`` if it resolves."""
    host = address.rpartition(":")[0]
    if _is_address(host):
        return None
    try:
        socket.getaddrinfo(host, None, socket.AF_INET)
    except (OSError, UnicodeError):
        return (
            f"no host called {host!r}: the name does not resolve "
            "(check it, or give the address the host printed, e.g. 192.168.1.20:47017)"
        )
    return None


def _home_problem(args: argparse.Namespace) -> str | None:
    """Why the fairdeck home cannot hold this command's identity and logs (it is a file...)."""
    simulating = args.command == "simulate" and args.fair and args.log is None
    if args.command not in HOME_COMMANDS and not simulating:
        return None
    from p2p.identity import data_dir

    problem = home_problem(data_dir())
    if problem is None:
        return None
    where = "FAIRDECK_HOME" if os.environ.get("FAIRDECK_HOME") else "the fairdeck home"
    return f"{where}: {_one_line(ValueError(problem))} (set FAIRDECK_HOME to a folder)"


def _stdout_closed() -> bool:
    """True when standard output is a pipe nobody reads any more (its reader closed it)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)  # (errors and hang-ups are always reported)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no stdout at all: nobody reads it either
        return True


def _output_gone() -> int:
    """The reader of our output went away (``| head``): end quietly, like any Unix tool, with
    :data:`PIPE_CLOSED_EXIT`. Output still buffered goes to /dev/null, so that the interpreter's
    own last flush does not fail again on its way out."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return PIPE_CLOSED_EXIT


def _os_words(exc: OSError) -> str:
    """An operating system's refusal in words, naming the file (never ``[Errno 2] ...``)."""
    if exc.strerror and exc.filename is not None:
        files = f"{exc.filename} -> {exc.filename2}" if exc.filename2 is not None else f"{exc.filename}"
        return _one_line(ValueError(f"{files}: {exc.strerror.lower()}"))
    return _one_line(exc)


def _one_line(exc: BaseException) -> str:
    from p2p.safetext import safe_text

    return safe_text(str(exc) or type(exc).__name__, 500)


def _say(text: str) -> None:
    """One line on stderr, if there still is one (a closed terminal is no reason for a traceback)."""
    with contextlib.suppress(Exception):
        print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    """``fairdeck simulate``."""
    from engine.games import make_bot, make_game
    from fairdeck.tableplan import check_simulate

    options = _options(args.option)
    levels = check_simulate(args)
    game = make_game(args.game, args.players, options)
    if args.games > 1:
        return _simulate_many(args, game, levels, options)
    if args.fair:
        return _simulate_fair(args, levels, options)
    from engine.dealer import play_trusted

    def show(state: Any, event: Any) -> None:
        if not args.quiet and event.kind not in ("shuffled", "dealt", "shown"):
            print(game.describe(state, event))

    bots = [make_bot(args.game, level, f"{args.seed}-{i}") for i, level in enumerate(levels)]
    run = play_trusted(game, bots, args.seed, on_event=show)
    print(_result_line(game, run.final))
    return 0


def _result_line(game: Any, state: Any) -> str:
    from replay.replay import result_words

    names = [f"seat {i}" for i in range(game.seats)]
    parts = result_words(game, game.result(state), names)
    if parts and parts[0].startswith("winner: "):
        parts[0] = parts[0].removeprefix("winner: ") + " won"
    return "Game over: " + "; ".join(parts)


def _simulate_many(args: argparse.Namespace, game: Any, levels: list[str], options: dict[str, Any]) -> int:
    import json

    from engine.dealer import play_trusted
    from engine.games import make_bot

    wins = [0] * args.players
    outcomes: dict[str, int] = {}
    started = time.perf_counter()
    for g in range(args.games):
        seed = args.seed + g
        bots = [make_bot(args.game, level, f"{seed}-{i}") for i, level in enumerate(levels)]
        result = game.result(play_trusted(game, bots, seed).final)
        for w in result.get("winners", []):
            wins[w] += 1
        if "outcome" in result:
            outcomes[result["outcome"]] = outcomes.get(result["outcome"], 0) + 1
    elapsed = time.perf_counter() - started
    print(
        json.dumps(
            {
                "game": args.game,
                "games": args.games,
                "levels": levels,
                "win_rate": [w / args.games for w in wins],
                "outcomes": outcomes,
                "seconds": round(elapsed, 2),
            },
            indent=2,
        )
    )
    return 0


def _simulate_fair(args: argparse.Namespace, levels: list[str], options: dict[str, Any]) -> int:
    """A fair game among in-memory peers; the seats' logs are written to a temporary folder (removed
    at the end) and the shared log is kept at ``--log`` or in ``$FAIRDECK_HOME/simulations/``."""
    from fairdeck.procs import Household
    from p2p import policy
    from p2p.identity import data_dir
    from p2p.memtable import build_table
    from p2p.protocol import DEFAULT_PROOF
    from replay.audit import audit_path

    house = Household()
    try:
        log_dir = house.temp_dir("fairdeck-sim-")
        table = build_table(
            args.game,
            args.players,
            seed=args.seed,
            options=options,
            levels=levels,
            witnesses=1 if args.witness else 0,
            shuffle_rounds=args.rounds or SIMULATE_ROUNDS,
            # (rounds are a cut-and-choose proof's: asked for, that proof; else the best one)
            proof=policy.CC if args.rounds else DEFAULT_PROOF,
            log_dir=log_dir,
        )
        if not args.quiet:
            table.on_text = lambda text: print(text) if not text.startswith(("shuffle", "deal")) else None
        try:
            table.run()
        finally:
            table.close()
        replica = table.parties[0].table
        print(_result_line(replica.game, replica.state))
        logs = sorted(log_dir.glob("seat*.fdlog"))
        same = len({p.read_bytes() for p in logs}) == 1
        target = args.log or (data_dir() / "simulations" / f"{replica.game_id.hex()}.fdlog")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(logs[0].read_bytes())
    finally:
        house.close()
    report = audit_path(target)
    print(
        f"log: {target} ({target.stat().st_size} bytes, {report.stats.get('entries')} entries); "
        f"every seat's log identical: {'yes' if same else 'NO'}; audit: {report.headline()}"
    )
    return 0 if report.exit_code == 0 and same else 1


def game_number_hint(command: str, text: str) -> str | None:
    """When ``text``, given to ``fairdeck replay``/``audit`` as a log file, is no file but looks like
    a game's number in ``fairdeck games``: where that number is taken, in one line."""
    if not (text.isascii() and text.isdigit()) or os.path.lexists(text):
        return None
    where = f"for game {text} in `fairdeck games`, run `fairdeck games {command} {text}`"
    return f"there is no file {text}; {where}"


def cmd_audit(args: argparse.Namespace) -> int:
    """``fairdeck audit``."""
    from replay.audit import main_audit

    for log in args.logs:
        if hint := game_number_hint("audit", log):
            _say(f"fairdeck audit: {hint}")
            if not args.json:  # (--json still prints its report: a reader expects one)
                return 2
    return main_audit(args.logs, args.json)


def cmd_replay(args: argparse.Namespace) -> int:
    """``fairdeck replay``."""
    from p2p.identity import Identity
    from p2p.safetext import safe_text
    from replay.replay import UnreadableLog, replay_log, text_lines

    if hint := game_number_hint("replay", args.log):
        print(f"fairdeck: cannot replay {args.log}: {hint}", file=sys.stderr)
        return 2
    identity = Identity.load(Path(args.as_key)) if args.as_key else None
    viewer = not args.text and sys.stdout.isatty()
    if viewer and identity is None:
        # the viewer offers the seat view of your own game with no --as: your key is at home
        identity = _home_identity_seated_at(args.log)
    try:
        result = replay_log(args.log, identity)
    except UnreadableLog as exc:
        print(f"fairdeck: cannot replay {safe_text(args.log)}: {safe_text(exc)}", file=sys.stderr)
        return 2
    if not viewer:
        from fairdeck.viewer import settle

        # a log still being written (a game on, `fairdeck watch` keeping it) may be read while its
        # writer is halfway through an entry: that entry is waited for, not called a cut-off log
        result = settle(result, args.log, identity)
        for line in seat_text_lines(result) if identity is not None else text_lines(result):
            print(line)
        return 0 if result.damage() is None else 1  # 1: the log could not be replayed to its end
    from fairdeck.viewer import run_viewer

    return run_viewer(result, args.log)


def _home_identity_seated_at(log: str) -> Any:
    """This home's identity if it holds a seat in the game of ``log``, else ``None`` (no identity
    is made for a replay; a log whose genesis cannot be read is the replay's to refuse)."""
    from p2p.identity import Identity, data_dir
    from p2p.log import LogError, read_log
    from p2p.protocol import Rejected, Table

    key = data_dir() / "identity.key"
    try:
        identity = Identity.load(key) if key.exists() else None
        envelopes = read_log(log).envelopes if identity is not None else []
        table = Table(envelopes[0]) if envelopes else None
    except (LogError, OSError, ValueError, Rejected):
        return None
    if identity is None or table is None or table.seat_of_key(identity.public_key) is None:
        return None
    return identity


def seat_text_lines(result: Any) -> Any:
    """``replay --as KEY --text``: the game in words as that seat saw it — every public line, and
    after it, in words, each card only that seat saw (its own hand's cards, a card shown to it)."""
    from engine.present import face_label
    from p2p.safetext import safe_text
    from replay.replay import text_lines

    table = result.table
    seat = result.party.seat if result.party is not None else None
    names = [safe_text(p.name, 40) for p in table.parties]
    public = text_lines(result)
    yield next(public)  # who sits where
    if seat is None:
        yield "(this key holds no seat at this table: the public view)"
        yield from public
        return
    yield f"as seen by seat {seat} ({names[seat]})"
    known: set[int] = set()
    rest = list(public)
    lines = iter(rest)
    for frame in result.frames:
        if frame.text:
            yield next(lines, "")
        new = sorted(set(frame.private_faces) - known - set(frame.public_faces))
        known |= set(frame.private_faces)
        hands = getattr(frame.after, "hands", None) or ()
        for ref in new:
            holder = next((s for s, hand in enumerate(hands) if ref in hand), None)
            label = face_label(table.game, frame.private_faces[ref])
            if holder == seat:
                yield f"        you get {label}"
            elif holder is not None:
                yield f"        only you see: seat {holder} ({names[holder]}) holds {label}"
            else:
                yield f"        only you see: {label}"
    yield from lines


def cmd_whoami(args: argparse.Namespace) -> int:
    """``fairdeck whoami``."""
    from p2p.identity import KEY_FILE, Identity, data_dir

    identity = Identity.load_or_create()
    print(f"fingerprint: {identity.fingerprint}\nkey file:    {data_dir() / KEY_FILE}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """``fairdeck play``: a game against bots on this machine."""
    from fairdeck.commands import play_local

    return play_local(args)


def cmd_host(args: argparse.Namespace) -> int:
    """``fairdeck host``."""
    from fairdeck.commands import host_command

    return host_command(args)


def cmd_join(args: argparse.Namespace) -> int:
    """``fairdeck join``."""
    from fairdeck.commands import join_command

    return join_command(args)


def cmd_games(args: argparse.Namespace) -> int:
    """``fairdeck games``."""
    from fairdeck.games import games_command

    return games_command(args)


def cmd_resume(args: argparse.Namespace) -> int:
    """``fairdeck resume``."""
    from fairdeck.commands import resume_command

    return resume_command(args)


def cmd_bot(args: argparse.Namespace) -> int:
    """``fairdeck bot``."""
    from fairdeck.commands import bot_command

    return bot_command(args)


def cmd_watch(args: argparse.Namespace) -> int:
    """``fairdeck watch``."""
    from fairdeck.watch import watch_command

    return watch_command(args)


def cmd_tables(args: argparse.Namespace) -> int:
    """``fairdeck tables``."""
    from fairdeck.commands import tables_command

    return tables_command(args)


if __name__ == "__main__":
    sys.exit(main())
