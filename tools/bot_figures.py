"""Measure the bots: one hard seat against heuristic seats (Love Letter, Rebel Princess), or a
table of hard bots against a table of heuristic bots (Regicide, at every player count).

Every game is a trusted game with its own seed; the baseline plays the *same* deals with the
heuristic bot in the hard bot's place, so the two rates differ only by the bot. Ties count as wins
(a shared victory is a victory). Results are appended as JSON lines so that batches (``--start``,
``--games``) can be run one after the other and summed::

    nice -n 10 python tools/bot_figures.py loveletter --seats 4 --start 0 --games 500 --out figures.jsonl
    python tools/bot_figures.py --summary figures.jsonl

The intervals are Wilson score intervals at 95 %.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from engine.dealer import play_trusted
from engine.games import make_bot, make_game


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def one_game(name: str, seats: int, index: int, hero_level: str) -> tuple[bool, int]:
    """Play game ``index``; return (did the measured side win, searched decisions)."""
    game = make_game(name, seats)
    if name == "regicide":  # co-operative: the whole table is the measured side
        bots = [make_bot(name, hero_level, f"bot/{index}/{s}") for s in range(seats)]
        run = play_trusted(game, bots, f"deal/{index}")
        return game.result(run.final)["outcome"] == "won", sum(getattr(b, "searched", 0) for b in bots)
    hero = index % seats
    bots = [
        make_bot(name, hero_level if s == hero else "heuristic", f"bot/{index}/{s}") for s in range(seats)
    ]
    run = play_trusted(game, bots, f"deal/{index}")
    return hero in game.result(run.final)["winners"], getattr(bots[hero], "searched", 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("game", nargs="?")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--summary", type=Path)
    args = parser.parse_args(argv)
    if args.summary:
        return summary(args.summary)
    assert args.game and args.out
    for level in (args.level, "heuristic"):
        wins = searched = 0
        began = time.time()
        for index in range(args.start, args.start + args.games):
            won, n = one_game(args.game, args.seats, index, level)
            wins += won
            searched += n
        seconds = time.time() - began
        line = {
            "game": args.game, "seats": args.seats, "level": level, "start": args.start, "games": args.games,
            "wins": wins, "searched": searched, "seconds": round(seconds, 1),
        }
        with args.out.open("a") as out:
            out.write(json.dumps(line) + "\n")
        print(json.dumps(line), flush=True)
    return 0


def summary(path: Path) -> int:
    """Sum the batches per (game, seats, level) and print rates with their 95 % intervals."""
    totals: dict[tuple[str, int, str], list[Any]] = defaultdict(lambda: [0, 0, 0.0, 0, set()])
    for text in path.read_text().splitlines():
        row = json.loads(text)
        key = (row["game"], row["seats"], row["level"])
        span = (row["start"], row["games"])
        if span in totals[key][4]:
            continue  # a batch counted twice
        totals[key][4].add(span)
        totals[key][0] += row["wins"]
        totals[key][1] += row["games"]
        totals[key][2] += row["seconds"]
        totals[key][3] += row["searched"]
    for (game, seats, level), (wins, n, seconds, searched, _) in sorted(totals.items()):
        low, high = wilson(wins, n)
        per_search = f", about {1000 * seconds / searched:.0f} ms per searched decision" if searched else ""
        print(
            f"{game:14} {seats} seats {level:9} {wins:5}/{n:<5} = {wins / n:6.1%}  "
            f"95% CI [{low:.1%}, {high:.1%}]  ({seconds / n:.2f} s/game{per_search})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
