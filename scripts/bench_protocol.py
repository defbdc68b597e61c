#!/usr/bin/env python
"""Protocol-level benchmarks: auditing a whole game, and whole games fair vs trusted.

    python scripts/bench.py audit     ->  bench_audit()
    python scripts/bench.py game      ->  bench_game()
    python scripts/bench_protocol.py audit|game   (the same, standalone)

``bench_audit`` records a whole 4-player Love Letter game with in-memory fair peers (``p2p.memtable``,
seeded identities and bots) at 80 (the default) and at 40 shuffle-proof rounds, and times
``replay.audit.audit_path`` on each log (median of several runs): entries per second, seconds per
game, log bytes. (The proof rounds change the shuffles' randomness, so the two games deal
differently and differ a little in length.)

``bench_game`` plays, once each:

- **fair**: four real peer processes on 127.0.0.1 (a host bot and three ``fairdeck bot`` peers, see
  ``tests/e2e/peer_support.py``) at the default 80 rounds; wall time, game time from the genesis
  to the last entry (writers' ``ts``), log size, and *move latency*: from a bot's decision (the ``ts``
  its move entry was signed with) to the moment the last of the four peers printed that move as
  accepted (each peer's stdout line is time-stamped on arrival by this process). That includes a
  little pipe and event-loop delay: it is an upper bound on the acceptance latency;
- **trusted, network**: the same four processes with the protocol's trusted mode (seat 0 deals with
  a seeded generator: no shuffles, proofs or tokens) — the same network and processes without the
  cryptography;
- **trusted, in process**: ``engine.dealer.play_trusted`` with four heuristic bots in one process (no
  network, no log, no signatures) — the baseline the brief names.

Different runs deal different cards, so games differ in length: per-move figures are given next to
whole-game ones, and the ratios are computed both ways. Figures are measurements on a shared machine,
never thresholds.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

GAME = "loveletter"
SEATS = 4
SEED = 7


def _machine() -> dict[str, Any]:
    return {"python": platform.python_version(), "cpus": os.cpu_count(), "load_1min": os.getloadavg()[0]}


# ---------------------------------------------------------------------------------------------
# audit
# ---------------------------------------------------------------------------------------------


def record_game(directory: Path, seed: int = SEED, proof: str = "wt", rounds: int = 80) -> Path:
    """Play a whole 4-seat Love Letter game among in-memory fair peers; return seat 0's log."""
    from p2p.memtable import build_table

    table = build_table(GAME, SEATS, seed=seed, proof=proof, shuffle_rounds=rounds, log_dir=directory)
    try:
        table.run()
    finally:
        table.close()
    return directory / "seat0.fdlog"


def _log_breakdown(log: Path) -> dict[str, int]:
    """Bytes of a log by entry kind."""
    from p2p.log import parse_envelope, read_log

    by_kind: dict[str, int] = {}
    for envelope in read_log(log).envelopes:
        kind = parse_envelope(envelope).kind
        by_kind[kind] = by_kind.get(kind, 0) + len(envelope)
    return dict(sorted(by_kind.items(), key=lambda kv: -kv[1]))


def bench_audit(seeds: tuple[int, ...] = (SEED, SEED + 1, SEED + 2), runs: int = 3) -> dict[str, Any]:
    """Time to audit a whole 4-player Love Letter game, Wikström–Terelius (the default) side by side
    with cut-and-choose at 80 rounds, on the same seeds (the deals differ with the proof's randomness,
    so games differ a little in length: per-entry figures are given too)."""
    from replay.audit import audit_path

    systems = {"wt": ("wt", 80), "cc80": ("cc", 80)}
    results: dict[str, Any] = {name: [] for name in systems}
    work = Path(tempfile.mkdtemp(prefix="fairdeck-bench-audit-"))
    try:
        for seed in seeds:
            for name, (proof, rounds) in systems.items():
                directory = work / f"{name}-{seed}"
                directory.mkdir()
                log = record_game(directory, seed, proof, rounds)
                times = []
                report = None
                for _ in range(runs):
                    start = time.perf_counter()
                    report = audit_path(log)
                    times.append(time.perf_counter() - start)
                assert report is not None and report.replay is not None
                seconds = statistics.median(times)
                entries = report.stats["entries"]
                results[name].append(
                    {
                        "seed": seed,
                        "entries": entries,
                        "shuffle_proofs": report.stats["shuffles"],
                        "game_rounds": (report.result or {}).get("rounds"),
                        "log_bytes": log.stat().st_size,
                        "log_bytes_by_kind": _log_breakdown(log),
                        "audit_s": round(seconds, 3),
                        "audit_ms_per_entry": round(1000 * seconds / entries, 3),
                        "verdict": report.verdict,
                    }
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    return {
        "bench": "audit",
        "machine": _machine(),
        "game": f"{GAME}, {SEATS} seats, heuristic bots, seeds {list(seeds)}",
        "runs": runs,
        "by_proof": results,
        "median": {
            name: {k: median(name, k) for k in ("audit_s", "log_bytes", "entries", "audit_ms_per_entry")}
            for name in systems
        },
        "goals": {
            "audit_game_s": median("wt", "audit_s"),
            "log_bytes": int(median("wt", "log_bytes")),
        },
        "note": "audit_s is the median of `runs` calls of replay.audit.audit_path (read, fold, check); "
        "a cut-and-choose log audits with a fault (below the floor), which is expected",
    }


# ---------------------------------------------------------------------------------------------
# whole games
# ---------------------------------------------------------------------------------------------


def _percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _printed_entries(log: Path) -> list[tuple[int, str]]:
    """(seq, text) of every entry a peer prints as accepted: those that complete engine events."""
    from p2p.log import read_log
    from p2p.protocol import Table

    envelopes = read_log(log).envelopes
    table = Table(envelopes[0])
    out = []
    for envelope in envelopes[1:]:
        entry, events = table.accept(envelope)
        text = "; ".join(table.describe(before, event) for before, event in events)
        if text:
            out.append((entry.seq, text))
    return out


def _acceptance_times(peer: Any, printed: list[tuple[int, str]]) -> dict[int, float]:
    """seq -> when this peer printed the entry as accepted (lines aligned with the log's texts)."""
    lines = [
        (t, text) for t, text in peer.lines() if t is not None and text and not text.startswith(("* ", "{"))
    ]
    times: dict[int, float] = {}
    i = 0
    for stamp, text in lines:
        # a peer prints exactly the log's texts in order; skip anything else defensively
        while i < len(printed) and printed[i][1] != text:
            i += 1
        if i == len(printed):
            break
        times[printed[i][0]] = stamp  # type: ignore[assignment]
        i += 1
    return times


def _network_game(mode: str, rounds: int, base: Path) -> dict[str, Any]:
    """One all-bot game among four peer processes; wall time, game time, log, move latencies."""
    from p2p.log import read_log
    from tests.e2e.peer_support import Cluster, read_entries

    start = time.perf_counter()
    with Cluster(base, game=GAME, seats=SEATS, rounds=rounds, quiet_bots=False, stamp=True, mode=mode) as c:
        c.start()
        codes = c.wait_finished()
        wall = time.perf_counter() - start
        logs = c.logs()
        peers = list(c.peers)
    if codes != [0] * SEATS or len({p.read_bytes() for p in logs}) != 1:
        raise RuntimeError(f"the {mode} game did not end cleanly: exit codes {codes}")
    log = logs[0]
    entries = read_entries(log)
    moves = [e for e in entries if e.kind == "move"]
    printed = _printed_entries(log)
    accepted = [_acceptance_times(peer, printed) for peer in peers]
    latencies = [
        max(times[e.seq] for times in accepted) - e.ts
        for e in moves
        if all(e.seq in times for times in accepted)
    ]
    game_s = entries[-1].ts - entries[0].ts
    result = {
        "processes": SEATS,
        "shuffle_rounds": rounds if mode == "fair" else None,
        "wall_s": round(wall, 2),
        "game_s": round(game_s, 2),
        "entries": len(entries),
        "moves": len(moves),
        "rounds_played": entries[-1].body.get("result", {}).get("rounds")
        if entries[-1].kind == "final"
        else None,
        "game_s_per_move": round(game_s / max(1, len(moves)), 4),
        "log_bytes": log.stat().st_size,
        "torn_bytes": read_log(log).torn_bytes,
    }
    if latencies:
        result["move_latency_ms"] = {
            "median": round(1000 * statistics.median(latencies), 2),
            "p99": round(1000 * _percentile(latencies, 0.99), 2),
            "max": round(1000 * max(latencies), 2),
            "moves_measured": len(latencies),
        }
    return result


def _trusted_in_process(seed: int = SEED) -> dict[str, Any]:
    """One game with the engine's trusted dealer and four heuristic bots, in this process."""
    from engine.dealer import play_trusted
    from engine.games import make_bot, make_game

    game = make_game(GAME, SEATS)
    bots = [make_bot(GAME, "heuristic", f"{seed}-{i}") for i in range(SEATS)]
    start = time.perf_counter()
    run = play_trusted(game, bots, seed)
    seconds = time.perf_counter() - start
    moves = sum(1 for e in run.history if e.kind == "move")
    return {
        "how": "engine.dealer.play_trusted, 4 heuristic bots in one process: no network, log, signature",
        "game_s": round(seconds, 4),
        "events": len(run.history),
        "moves": moves,
        "game_s_per_move": round(seconds / max(1, moves), 6),
        "rounds_played": game.result(run.final).get("rounds"),
    }


def bench_game(rounds: int | None = None) -> dict[str, Any]:
    """Fair vs trusted whole 4-seat Love Letter games (one run each); see the module docstring."""
    from p2p.crypto import DEFAULT_SHUFFLE_ROUNDS

    rounds = rounds or DEFAULT_SHUFFLE_ROUNDS
    work = Path(tempfile.mkdtemp(prefix="fairdeck-bench-game-"))
    try:
        fair = _network_game("fair", rounds, work / "fair")
        trusted_net = _network_game("trusted", rounds, work / "trusted")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    trusted = _trusted_in_process()
    return {
        "bench": "game",
        "machine": _machine(),
        "game": f"{GAME}, {SEATS} seats, heuristic bots (each run deals differently)",
        "fair": fair,
        "trusted_network": trusted_net,
        "trusted_in_process": trusted,
        "ratio_fair_to_trusted_in_process": {
            "whole_game": round(fair["game_s"] / max(1e-9, trusted["game_s"]), 1),
            "per_move": round(fair["game_s_per_move"] / max(1e-9, trusted["game_s_per_move"]), 1),
        },
        "ratio_fair_to_trusted_network": {
            "whole_game": round(fair["game_s"] / max(1e-9, trusted_net["game_s"]), 2),
            "per_move": round(fair["game_s_per_move"] / max(1e-9, trusted_net["game_s_per_move"]), 2),
        },
        "note": (
            "game_s runs from the genesis to the last entry (writers' ts); wall_s adds process start-up,"
            " the lobby and shutdown. move_latency: decide (move ts) -> printed as accepted by all 4 peers."
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """``bench_protocol.py audit|game``: print the JSON."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] not in (["audit"], ["game"]):
        print("usage: bench_protocol.py audit|game", file=sys.stderr)
        return 2
    result = bench_audit() if args[0] == "audit" else bench_game()
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
