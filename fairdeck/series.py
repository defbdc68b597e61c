"""A series: games played one after the other by the same players at the same table ("play again").

Each game of a series is an ordinary game with its own log (``games/<game id>.fdlog``); the series
is a small JSON file beside them, ``games/<first game id>.series``, written atomically (aside, then
renamed) by a person's program when the series' second game starts and after every later game: the
game, the players (names and keys, in seat order), every game with its log, how it ended and its
result in words, and the running score. The score counts games won per player where a game names
winners (every winner of a tie scores), and the table's wins and losses where the players win or
lose together.

:func:`next_game` is what a program runs after a game that ended by its rules: it settles with the
other parties whether everyone plays again (:func:`p2p.rematch.settle`) and, if so, opens (as the
last game's opener) or joins the next table with a new node.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import zmq

from p2p import rematch
from p2p.node import Node, NodeError
from p2p.protocol import Table
from p2p.safetext import safe_text

SERIES_SUFFIX = ".series"


def game_score(table: Table) -> dict[str, Any]:
    """What one game adds to a series score: ``{"winners": [seats]}`` where the game names winners,
    ``{"outcome": "won"|"lost"}`` where the players win or lose together, else ``{}`` (a game
    closed before its end, or a proven fault)."""
    if table.ended != "over":
        return {}
    result = table.game.result(table.state)
    if result.get("fault"):
        return {}
    winners = result.get("winners")
    if isinstance(winners, list):
        return {"winners": [w for w in winners if isinstance(w, int) and 0 <= w < table.seats]}
    if result.get("outcome") in ("won", "lost"):
        return {"outcome": result["outcome"]}
    return {}


class Series:
    """The games of one series and its running score (see the module docstring)."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.games: list[dict[str, Any]] = []
        self.names: list[str] = []
        self.keys: list[bytes] = []
        self.game = ""

    @property
    def id(self) -> str:
        """The first game's id (hex), which names the series file."""
        return self.games[0]["id"] if self.games else ""

    @property
    def path(self) -> Path:
        """Where the series file is (once there is a first game)."""
        return self.home / "games" / f"{self.id}{SERIES_SUFFIX}"

    def add(self, table: Table, log_path: Path | None) -> None:
        """Add an ended game (once: a game already in the series is not counted twice)."""
        if any(g["id"] == table.game_id.hex() for g in self.games):
            return
        players = table.parties[: table.seats]
        if not self.games:
            self.game = table.game.name
            self.names = [p.name for p in players]
            self.keys = [p.key for p in players]
        elif [p.key for p in players] != self.keys:
            raise ValueError("a series is played by the same players in the same seats")
        from replay.replay import result_words

        names = [safe_text(n, 40) for n in self.names]
        words = (
            "; ".join(result_words(table.game, table.game.result(table.state), names))
            if table.ended == "over"
            else f"game {table.ended}"
        )
        self.games.append(
            {
                "id": table.game_id.hex(),
                "log": log_path.name if log_path is not None else None,
                "ended": table.ended,
                "result": words,
                "score": game_score(table),
            }
        )

    def score(self, pending: Table | None = None) -> dict[str, Any]:
        """The running score: ``{"wins": [per seat]}`` and/or ``{"won": N, "lost": N}``; with
        ``pending``, as if that ended game (not added yet) were in the series too."""
        scores = [g["score"] for g in self.games]
        if pending is not None and not any(g["id"] == pending.game_id.hex() for g in self.games):
            scores.append(game_score(pending))
        out: dict[str, Any] = {}
        if any("winners" in s for s in scores) or not any("outcome" in s for s in scores):
            wins = [0] * len(self.names)
            for s in scores:
                for seat in s.get("winners", []):
                    wins[seat] += 1
            out["wins"] = wins
        if any("outcome" in s for s in scores):
            out["won"] = sum(1 for s in scores if s.get("outcome") == "won")
            out["lost"] = sum(1 for s in scores if s.get("outcome") == "lost")
        return out

    def words(self, pending: Table | None = None) -> str:
        """``series after 3 games: ann 2 · bob 1 · cy 0`` (games won), or ``series after 3 games:
        the table won 1, lost 2`` where the players play together; names made safe."""
        count = len(self.games) + (
            1 if pending is not None and all(g["id"] != pending.game_id.hex() for g in self.games) else 0
        )
        score = self.score(pending)
        parts = []
        if "wins" in score:
            wins = zip(self.names, score["wins"], strict=True)
            parts.append(" · ".join(f"{safe_text(n, 40)} {w}" for n, w in wins))
        if "won" in score:
            parts.append(f"the table won {score['won']}, lost {score['lost']}")
        return f"series after {count} game{'s' if count != 1 else ''}: " + "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The series file's content."""
        return {
            "series": self.id,
            "game": self.game,
            "players": [{"name": n, "key": k.hex()} for n, k in zip(self.names, self.keys, strict=True)],
            "games": self.games,
            "score": self.score(),
            "words": self.words(),
        }

    def save(self) -> Path:
        """Write the series file atomically (aside, flushed, then renamed); its path."""
        path = self.path
        aside = path.with_suffix(".series-new")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(self.to_json(), handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(aside, path)
        return path


def load_series(path: Path) -> dict[str, Any] | None:
    """A series file's content, or ``None`` if it cannot be read."""
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(Path(path).read_text())
        return data if isinstance(data, dict) else None
    return None


def can_play_again(node: Node) -> bool:
    """Whether ``node``'s game ended by its rules, so that its parties may play another one."""
    return node.party is not None and node.party.table.ended == "over" and node.failure is None


async def next_game(
    node: Node,
    answer: Awaitable[str] | str,
    *,
    make_node: Callable[[], Node],
    prepare: Callable[[Node], None] = lambda new: None,
    say: Callable[[str], None] = print,
    spectators: bool = False,
) -> Node | None:
    """After ``node``'s game ended by its rules: settle with the others whether everyone plays again
    (``answer``: ours, or an awaitable of it), and if so open the next table (we opened the last one)
    or join it, with a node from ``make_node`` (``prepare(new)`` runs before it opens or joins: attach
    the player's interface there). Returns the new node once its game has started, having closed
    ``node``; or ``None``, having said why in one line (``node`` is left open: closing it tells the
    others we left, unless we said no)."""
    assert node.party is not None
    table, me = node.party.table, node.party.me
    verdict = await rematch.settle(node, answer, say=lambda text: say(f"* {text}"))
    if not verdict.agreed:
        node.said_all = verdict.everyone
        say(verdict.line)
        return None
    new = make_node()
    prepare(new)
    failed: str | None = None
    try:
        if me == 0:
            say("* everyone plays again: opening the next game")
            port = await new.open_table(**rematch.table_args(table), rematch_of=table, spectators=spectators)
            failed = await rematch.announce(node, new, port)
        else:
            assert verdict.at is not None
            host, port = verdict.at
            say(f"* everyone plays again: joining the next game at {safe_text(host, 60)}:{port}")
            await new.join(f"{host}:{port}", role=rematch.role_of(table, me), rematch_of=table)
    except (NodeError, zmq.ZMQError, OSError) as exc:
        failed = f"no rematch: {safe_text(exc, 300)}"
    if failed is not None or new.party is None:
        say(failed or f"no rematch: the next game did not start: {safe_text(new.refusal, 200)}")
        await new.close()
        return None
    node.said_all = True
    await node.close()
    return new
