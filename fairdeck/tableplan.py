"""What a command's flags add up to, checked before anything starts: how many seats ``play`` and
``host`` open and who sits in them, and which ``simulate`` flags go together. Every refusal is a
``ValueError`` naming the flag (``fairdeck`` prints it as a one-line usage error, exit 2), and a
game's options are always checked against the table that will really be opened.

``play --bots N`` seats N bots beside you. When the game cannot seat N + 1 players with these
options (four bots at a game, or an edition, of 2-4 players), the N bots play alone, unattended,
and you watch; ``--unattended`` asks for that at any size. ``--bots 0`` is refused:
a table for you alone is ``--solo``, where the game has one.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
from dataclasses import dataclass
from typing import Any

from engine.core import SeatCountError
from engine.games import BOT_LEVELS, default_seats, game_class, make_game

SIMULATE_ROUNDS = 16
"""Shuffle-proof rounds of ``simulate --fair`` unless ``--rounds`` says otherwise (in memory only)."""


def table_game(game: str, seats: int, options: dict[str, Any], seats_flag: str) -> Any:
    """The game as the table will be opened; a refusal names the flag at fault: ``seats_flag`` for a
    seat count the game (with these options) does not take, ``--option`` for a bad option."""
    try:
        return make_game(game, seats, options)
    except SeatCountError as exc:
        raise ValueError(f"{seats_flag}: {exc}") from None
    except ValueError as exc:
        raise _option_error(exc) from None


def _option_error(exc: ValueError) -> ValueError:
    return ValueError(f"--option: {str(exc).removeprefix('option ')}")


@dataclass(frozen=True)
class PlayPlan:
    """The table ``fairdeck play`` opens: ``seats`` seats, of which the launcher's node holds seat 0
    (played by the person, or by a bot when ``person`` is false) and ``seats - 1`` bot peers the
    others; ``witnesses`` witness peers beside them."""

    seats: int
    person: bool
    witnesses: int
    options: dict[str, Any]

    @property
    def bots(self) -> int:
        """The bot peers to start (the launcher's own node is not one of them)."""
        return self.seats - 1


def _options(args: argparse.Namespace) -> dict[str, Any]:
    from fairdeck.cli import _options as parse

    return parse(args.option)


def plan_play(args: argparse.Namespace) -> PlayPlan:
    """``fairdeck play``'s table from ``--bots``, ``--solo``, ``--unattended``, ``--no-witness``,
    ``--seed`` and ``--option`` (see the module docstring)."""
    game, bots = args.game, args.bots
    options = _options(args)
    solo = getattr(args, "solo", False)
    unattended = getattr(args, "unattended", False)
    if getattr(args, "no_witness", False) and not solo:
        raise ValueError("--no-witness is for --solo games (a table of several players has no witness)")
    if solo:
        if bots is not None and bots > 1:
            raise ValueError(
                f"--solo is a one-seat game: --bots {bots} is too many "
                "(--bots 1: a bot plays it while you watch)"
            )
        table_game(game, 1, options, "--solo")
        person = not (bots == 1 or unattended)
        plan = PlayPlan(1, person, 0 if getattr(args, "no_witness", False) else 1, options)
    elif bots == 0 and unattended:
        raise ValueError("--unattended --bots 0 seats nobody")
    elif bots == 0:
        fewest = game_class(game).min_seats
        alone = f"a one-player {game} is --solo" if fewest <= 1 else f"{game} needs {fewest} players or more"
        raise ValueError(f"--bots 0 leaves you alone at the table ({alone}; --bots N: N bots beside you)")
    elif unattended:
        seats = bots if bots is not None else default_seats(game)
        table_game(game, seats, options, f"--bots {seats}")
        plan = PlayPlan(seats, False, 0, options)
    else:
        bots = bots if bots is not None else default_seats(game) - 1
        try:
            make_game(game, bots + 1, options)
            plan = PlayPlan(bots + 1, True, 0, options)
        except SeatCountError as too_many:  # no seat left for you: the bots play alone
            try:
                make_game(game, bots, options)
            except SeatCountError:
                bots_words = f"{bots} bot{'s' if bots != 1 else ''}"
                raise ValueError(f"--bots {bots}: {too_many} (you and {bots_words})") from None
            except ValueError as exc:  # an option wrong for the table that would be opened
                raise _option_error(exc) from None
            plan = PlayPlan(bots, False, 0, options)
        except ValueError as exc:
            raise _option_error(exc) from None
    if plan.person and getattr(args, "seed", None) is not None:
        raise ValueError("--seed labels an unattended table's bot seed, and you play at this one")
    return plan


def plan_host(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    """``fairdeck host``'s seats and options: its bots leave a seat for the person who opens it."""
    seats = args.seats or default_seats(args.game)
    options = _options(args)
    bots = args.bots or 0
    if bots > seats - 1:
        raise ValueError(
            f"--bots {bots} leaves no seat for you at a table of {seats} seats (at most {seats - 1} bot"
            + ("s)" if seats != 2 else ")")
        )
    table_game(args.game, seats, options, f"--seats {seats}")
    return seats, options


def login_name() -> str:
    """The name of whoever runs this program: ``$LOGNAME``/``$USER``, else the account's own name
    (``$USER`` is unset in some shells and containers); ``""`` if none is a printable name."""
    from p2p.safetext import is_printable_name

    with contextlib.suppress(Exception):  # (no such account, no environment: no name, never a crash)
        name = getpass.getuser()
        if is_printable_name(name):
            return name
    return ""


def host_player(args: argparse.Namespace) -> str:
    """The name the opener of ``fairdeck host`` sits under: ``--player``; else ``--name``, which names
    the table too (as it always has: tables opened with ``--name alice`` keep alice at seat 0); else
    the login name."""
    return getattr(args, "player", None) or getattr(args, "name", None) or login_name() or "host"


def check_simulate(args: argparse.Namespace) -> list[str]:
    """``fairdeck simulate``'s flags; returns one bot level per seat."""
    if not args.fair:
        given = {"--log": args.log, "--rounds": args.rounds, "--witness": args.witness or None}
        for flag in (flag for flag, value in given.items() if value is not None):
            raise ValueError(f"{flag} is for --fair games (add --fair)")
    elif args.games > 1:
        raise ValueError("--games plays trusted-dealer games only: drop --fair or --games")
    table_game(args.game, args.players, _options(args), f"--players {args.players}")
    levels = [level.strip() for level in args.levels.split(",")]
    if len(levels) == 1:
        levels *= args.players
    if len(levels) != args.players:
        raise ValueError(f"--levels names {len(levels)} bots for {args.players} players")
    for level in levels:
        if level not in BOT_LEVELS:
            raise ValueError(f"--levels: {level!r} is not one of {', '.join(BOT_LEVELS)}")
    return levels
