"""Fault injection at random: whole games among real peer processes, with peers killed (``kill -9``,
then restarted with the same home) and frozen (``SIGSTOP`` … ``SIGCONT``) at random moments.

    python scripts/chaos.py [--games N] [--faults K] [--seed S] [--game loveletter|rebelprincess|regicide]

Each game must still end, with every process exiting 0, byte-identical logs and a clean audit; a
game that does not is kept (its directory is printed) and the script exits 1. Prints one JSON line
per game and a summary. The crash tests (``tests/e2e/test_crash_recovery.py``) kill at chosen
protocol points; this looks for what nobody thought of choosing. Loopback only.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.e2e.peer_support import (  # noqa: E402
    Cluster,
    Peer,
    PeerFailure,
    assert_one_log_audited_clean,
    read_entries,
)

SEATS = {"loveletter": 4, "rebelprincess": 4, "regicide": 3}


def _started(cluster: Cluster) -> bool:
    """Every peer has a log with the game under way (faults in the lobby are another test's)."""
    try:
        return all(len(read_entries(path)) > 2 * len(cluster.peers) + 2 for path in cluster.logs())
    except (PeerFailure, OSError):
        return False


def _fault(cluster: Cluster, rng: random.Random, peer: Peer) -> dict[str, Any]:
    """Kill or freeze ``peer`` for a random while; return what was done."""
    if rng.random() < 0.5:
        down = round(rng.uniform(0.0, 2.5), 2)
        peer.kill()
        path = peer.log_path()
        finals = sum(e.kind == "final" for e in read_entries(path)) if path is not None else 0
        if finals == len(cluster.peers):  # its game was over: like closing the program at the end
            return {"fault": "kill -9", "peer": peer.name, "after_the_end": True}
        time.sleep(down)
        if peer is cluster.peers[0]:
            cluster.restart_as_bot(peer)  # how a crashed host comes back
        else:
            peer.start()
        return {"fault": "kill -9", "peer": peer.name, "down_s": down}
    frozen = round(rng.uniform(0.2, 4.0), 2)
    peer.signal(signal.SIGSTOP)
    time.sleep(frozen)
    peer.signal(signal.SIGCONT)
    return {"fault": "freeze", "peer": peer.name, "frozen_s": frozen}


def play_one(base: Path, game: str, rng: random.Random, faults: int) -> dict[str, Any]:
    """One game with up to ``faults`` faults; raises AssertionError or PeerFailure if it goes wrong."""
    done: list[dict[str, Any]] = []
    start = time.monotonic()
    with Cluster(base, game=game, seats=SEATS[game], quiet_bots=False) as cluster:
        cluster.start()
        deadline = time.monotonic() + 60
        while not _started(cluster):
            if time.monotonic() > deadline:
                raise PeerFailure("the game did not start\n" + "\n".join(p.tail() for p in cluster.peers))
            time.sleep(0.05)
        for _ in range(faults):
            time.sleep(rng.uniform(0.0, 1.5))
            running = [p for p in cluster.peers if p.running]
            if len(running) < len(cluster.peers):
                break  # a peer has left: the game is over
            done.append(_fault(cluster, rng, rng.choice(running)))
        codes = cluster.wait_finished()
        closed = {f["peer"] for f in done if f.get("after_the_end")}
        expected = [-9 if peer.name in closed else 0 for peer in cluster.peers]
        assert codes == expected, f"exit codes {codes}, expected {expected}"
        logs = cluster.logs()
        assert_one_log_audited_clean(logs, SEATS[game])
        entries = len(read_entries(logs[0]))
    return {"game": game, "faults": done, "entries": entries, "seconds": round(time.monotonic() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games to play (default 5)")
    parser.add_argument("--faults", type=int, default=4, help="faults per game at most (default 4)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a fresh one)")
    parser.add_argument("--game", choices=sorted(SEATS), action="append", help="game(s); default all")
    args = parser.parse_args(argv)
    if args.games < 1 or args.faults < 0:
        parser.error("--games must be at least 1 and --faults at least 0")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    games = args.game or sorted(SEATS)
    failed = 0
    for index in range(args.games):
        game = games[index % len(games)]
        base = Path(tempfile.mkdtemp(prefix=f"fairdeck-chaos-{game}-"))
        try:
            result = play_one(base, game, rng, args.faults)
        except (AssertionError, PeerFailure) as exc:
            failed += 1
            print(json.dumps({"game": game, "failed": str(exc)[-2000:], "kept": str(base)}), flush=True)
            continue
        shutil.rmtree(base, ignore_errors=True)
        print(json.dumps(result), flush=True)
    print(json.dumps({"seed": seed, "games": args.games, "failed": failed}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
