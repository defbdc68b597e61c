#!/usr/bin/env python
"""Protocol-level benchmarks: auditing a whole game, and whole games fair vs trusted.

    python scripts/bench.py audit     ->  bench_audit()
    python scripts/bench.py game      ->  bench_game()
    python scripts/bench_protocol.py audit|game   (the same, standalone)

``bench_audit`` records whole 4-player Love Letter games with in-memory fair peers (``p2p.memtable``,
seeded identities, salts and bots) with the Wikström–Terelius proof (the default) and with
cut-and-choose at 80 rounds, on the same seeds, and times ``replay.audit.audit_path`` on each log:
seconds per game, per entry, log bytes by entry kind. Goals: ``audit_game_s``, ``log_bytes``.

``bench_game`` plays interleaved pairs of whole games among four real peer processes on 127.0.0.1
(a host bot and three ``fairdeck bot`` peers, see ``tests/e2e/peer_support.py``): one **fair**, one
**trusted** (the protocol's trusted mode: seat 0 deals with a seeded generator; the same network,
processes, signatures and logs without the cryptography). Every peer's stdout line is time-stamped on
arrival by this process, so the figures include a little pipe delay: upper bounds. Also: the engine's
trusted dealer in one process (no network at all), and the log sizes of 12 fair games (in-memory
peers write the very bytes network peers write). Goals: ``fair_over_trusted``, ``move_latency_p99_ms``,
``loop_block_max_ms``, ``log_bytes_median``, ``deal_latency_median_ms``.

Bots and deals differ from game to game, so games differ in length: per-move ratios are given next to
whole-game ones. Figures are measurements on a shared machine, never thresholds.
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


def _records(log: Path) -> list[tuple[bytes, int]]:
    """Each envelope of a log file with the bytes its record takes in the file."""
    from p2p.log import read_log

    loaded = read_log(log)
    starts = [loaded.end_of(i) for i in range(len(loaded.envelopes))]
    return [(e, end - start) for e, start, end in zip(loaded.envelopes, starts, loaded.ends, strict=True)]


def _log_breakdown(log: Path) -> dict[str, int]:
    """Bytes of a log file by entry kind (the file's header under ``file_header``)."""
    from p2p.log import parse_envelope, read_log

    by_kind: dict[str, int] = {"file_header": read_log(log).header_bytes}
    for envelope, size in _records(log):
        kind = parse_envelope(envelope).kind
        by_kind[kind] = by_kind.get(kind, 0) + size
    return dict(sorted(by_kind.items(), key=lambda kv: -kv[1]))


def _log_components(log: Path) -> dict[str, int]:
    """Bytes of a log by what they carry: each entry's framing, header and signature, shuffled
    piles, shuffle proofs, reveal tokens (in ``tokens`` entries and carried), sealed tokens, moves,
    the rest (the file's header too). The parts add up to the file's size."""
    from p2p.log import pack, parse_envelope, read_log

    parts = dict.fromkeys(
        ("headers_and_signatures", "shuffle_piles", "shuffle_proofs", "tokens", "sealed", "moves", "other"), 0
    )
    parts["other"] = read_log(log).header_bytes
    for envelope, size in _records(log):
        entry = parse_envelope(envelope)
        body = entry.body
        body_bytes = len(pack(body))
        parts["headers_and_signatures"] += size - body_bytes
        carried = len(pack(body["then"])) if "then" in body else 0
        parts["tokens"] += carried
        rest = body_bytes - carried
        if entry.kind == "shuffle":
            parts["shuffle_piles"] += len(pack(body["pile"]))
            parts["shuffle_proofs"] += rest - len(pack(body["pile"]))
        elif entry.kind in ("tokens", "sealed"):
            parts[entry.kind] += rest
        elif entry.kind == "move":
            parts["moves"] += rest
        else:
            parts["other"] += rest
    return parts


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
    from engine.present import name_seats
    from p2p.log import read_log
    from p2p.protocol import Table
    from p2p.safetext import safe_text

    envelopes = read_log(log).envelopes
    table = Table(envelopes[0])
    names = [safe_text(p.name, 40) for p in table.parties]  # (every seat by name, as peers print)
    out = []
    for envelope in envelopes[1:]:
        entry, events = table.accept(envelope)
        text = "; ".join(table.describe(before, event) for before, event in events)
        if text:
            out.append((entry.seq, name_seats(safe_text(text, 2000), names, None)))
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


def _time_by_step(
    entries: list[Any], printed: list[tuple[int, str]], accepted: dict[int, dict[int, float]], game_s: float
) -> dict[str, dict[str, float]]:
    """Where a game's time goes: the gap between consecutive engine events (each taken when the last
    peer printed it), summed by the kind of entry that completed the event and what it did; what is
    left of ``game_s`` (the first event reaching every peer, a late print) is ``spread across peers``."""
    kinds = {e.seq: e.kind for e in entries}
    last = {
        seq: max(times[seq] for times in accepted.values() if seq in times)
        for seq, _ in printed
        if any(seq in times for times in accepted.values())
    }
    sums: dict[str, list[float]] = {}
    previous: int | None = None
    for seq, text in printed:
        if seq not in last:
            continue
        if previous is not None:
            what = next((w for w in ("shuffled", "draws", "plays") if w in text), "other")
            sums.setdefault(f"{kinds[seq]}: {what}", []).append(last[seq] - last[previous])
        previous = seq
    sums["spread across peers"] = [max(0.0, game_s - sum(sum(g) for g in sums.values()))]
    ordered = sorted(sums.items(), key=lambda item: -sum(item[1]))
    return {
        step: {"total": round(1000 * sum(g), 1), "count": len(g), "each": round(1000 * sum(g) / len(g), 2)}
        for step, g in ordered
    }


def _seat_of(peer: Any, log: Path) -> int:
    from p2p.log import read_log
    from p2p.protocol import Table

    table = Table(read_log(log).envelopes[0])
    seat = table.seat_of_key(peer.identity().public_key)
    assert seat is not None
    return seat


_PROBE_LINE = r"loop-lag max ([0-9.]+) ms \(loop thread ran ([0-9.]+) ms, process ([0-9.]+) ms"


class _CoreSampler:
    """Samples the machine's busy and idle CPU time (``/proc/stat``) every 20 ms, so that the share
    of the cores a game kept busy between two wall-clock moments can be told afterwards."""

    def __init__(self) -> None:
        import threading

        self.samples: list[tuple[float, int, int]] = []  # (time.time(), busy ticks, idle ticks)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _read() -> tuple[int, int] | None:
        try:
            fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields) - idle, idle

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            if (read := self._read()) is not None:
                self.samples.append((time.time(), *read))

    def __enter__(self) -> _CoreSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def busy_share(self, start: float, end: float) -> float | None:
        """The share of all cores busy between ``start`` and ``end`` (``None``: no samples)."""
        inside = [s for s in self.samples if start <= s[0] <= end]
        if len(inside) < 2:
            return None
        busy = inside[-1][1] - inside[0][1]
        idle = inside[-1][2] - inside[0][2]
        return round(busy / (busy + idle), 3) if busy + idle else None


def _network_game(mode: str, base: Path) -> dict[str, Any]:
    """One all-bot game among four peer processes: game time, log, move and deal latencies, and
    each peer's largest event-loop block (the node's loop-lag probe)."""
    import re
    import resource

    from p2p.log import read_log
    from tests.e2e.peer_support import Cluster, read_entries

    env = {"FAIRDECK_LOOP_PROBE": "1"}
    start = time.perf_counter()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cluster = Cluster(base, game=GAME, seats=SEATS, quiet_bots=False, stamp=True, mode=mode)
    with _CoreSampler() as cores, cluster as c:
        c.env.update(env)
        c.start()
        codes = c.wait_finished()
        wall = time.perf_counter() - start
        logs = c.logs()
        peers = list(c.peers)
    # the four peer processes, reaped: their whole CPU time, start-up included
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = done.ru_utime - used.ru_utime + done.ru_stime - used.ru_stime
    if codes != [0] * SEATS or len({p.read_bytes() for p in logs}) != 1:
        raise RuntimeError(f"the {mode} game did not end cleanly: exit codes {codes}")
    log = logs[0]
    entries = read_entries(log)
    printed = _printed_entries(log)
    seats = {_seat_of(peer, log): peer for peer in peers}
    accepted = {seat: _acceptance_times(peer, printed) for seat, peer in seats.items()}
    stamps = [t for times in accepted.values() for t in times.values()]
    game_s = max(stamps) - min(stamps)
    moves = [e for e in entries if e.kind == "move"]
    # a move: from its writer printing it (the moment it was decided and written) to the last peer
    move_latencies = [
        max(times[e.seq] for times in accepted.values()) - accepted[e.seat][e.seq]
        for e in moves
        if all(e.seq in times for times in accepted.values())
    ]
    # a private card: from the move that causes the draw to the recipient printing the draw
    deal_latencies = []
    texts = dict(printed)
    move_seqs = [e.seq for e in moves]
    for i, move in enumerate(moves):
        nxt = move_seqs[i + 1] if i + 1 < len(move_seqs) else len(entries)
        for seq in range(move.seq + 1, nxt):
            found = re.match(r"seat (\d+)(?: \([^)]*\))? draws", texts.get(seq, ""))
            if found and move.seq in accepted[move.seat]:
                recipient = int(found.group(1))
                if seq in accepted.get(recipient, {}):
                    deal_latencies.append(accepted[recipient][seq] - accepted[move.seat][move.seq])
                break
    # each peer's worst lag and what ran meanwhile: (lag, its loop thread's CPU, its process's CPU)
    probe = [
        (float(m.group(1)), float(m.group(2)), float(m.group(3)))
        for peer in peers
        for _, line in peer.lines()
        if (m := re.search(_PROBE_LINE, line))
    ]
    worst = max(probe) if probe else None
    result: dict[str, Any] = {
        "processes": SEATS,
        "entries_per_move": round(len(entries) / max(1, len(moves)), 2),
        "time_by_step_ms": _time_by_step(entries, printed, accepted, game_s),
        "wall_s": round(wall, 2),
        "game_s": round(game_s, 3),
        "entries": len(entries),
        "moves": len(moves),
        "game_s_per_move": round(game_s / max(1, len(moves)), 4),
        "cpu_s": round(cpu_s, 2),
        "cpu_ms_per_move": round(1000 * cpu_s / max(1, len(moves)), 1),
        # of the machine's cores, the share busy from the game's first entry to its last
        "cores_busy_in_game": cores.busy_share(min(stamps), max(stamps)),
        "log_bytes": log.stat().st_size,
        "torn_bytes": read_log(log).torn_bytes,
        "loop_block_max_ms": worst[0] if worst else None,
        # of that block, the CPU the loop's own thread used (the rest it waited for a core or the GIL)
        "loop_block_max_loop_cpu_ms": worst[1] if worst else None,
        "loop_block_max_process_cpu_ms": worst[2] if worst else None,
    }
    if move_latencies:
        result["move_latency_ms"] = {
            "median": round(1000 * statistics.median(move_latencies), 2),
            "p99": round(1000 * _percentile(move_latencies, 0.99), 2),
            "max": round(1000 * max(move_latencies), 2),
            "measured": len(move_latencies),
        }
    if deal_latencies:
        result["deal_latency_ms"] = {
            "median": round(1000 * statistics.median(deal_latencies), 2),
            "p99": round(1000 * _percentile(deal_latencies, 0.99), 2),
            "measured": len(deal_latencies),
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
    }


def _log_sizes(seeds: range) -> dict[str, Any]:
    """Log bytes of whole fair games (in-memory peers, same format as the network's), by kind."""
    work = Path(tempfile.mkdtemp(prefix="fairdeck-bench-logs-"))
    sizes, kinds, components = [], [], []
    try:
        for seed in seeds:
            directory = work / str(seed)
            directory.mkdir()
            log = record_game(directory, seed)
            sizes.append(log.stat().st_size)
            kinds.append(_log_breakdown(log))
            components.append(_log_components(log))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    median_index = sorted(range(len(sizes)), key=lambda i: sizes[i])[len(sizes) // 2]
    return {"seeds": list(seeds), "bytes": sizes, "median": int(statistics.median(sizes)),
            "median_game_by_kind": kinds[median_index],
            "median_game_by_component": components[median_index]}  # fmt: skip


def _worst_block(games: list[dict[str, Any]]) -> dict[str, float] | None:
    """The largest loop block of these games, with what its peer's loop thread and process ran."""
    blocks = [g for g in games if g["loop_block_max_ms"] is not None]
    if not blocks:
        return None
    worst = max(blocks, key=lambda g: g["loop_block_max_ms"])
    return {
        "lag_ms": worst["loop_block_max_ms"],
        "loop_thread_cpu_ms": worst["loop_block_max_loop_cpu_ms"],
        "process_cpu_ms": worst["loop_block_max_process_cpu_ms"],
    }


def bench_game(pairs: int = 5, seeds: int = 12) -> dict[str, Any]:
    """Fair vs trusted whole 4-seat Love Letter games among real peer processes, interleaved in
    pairs (bots and deals differ from game to game: per-move figures stand beside whole-game ones)."""
    work = Path(tempfile.mkdtemp(prefix="fairdeck-bench-game-"))
    fair, trusted = [], []
    try:
        for i in range(pairs):
            fair.append(_network_game("fair", work / f"fair{i}"))
            trusted.append(_network_game("trusted", work / f"trusted{i}"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    in_process = _trusted_in_process()
    sizes = _log_sizes(range(SEED, SEED + seeds))

    def med(runs: list[dict[str, Any]], *path: str) -> float:
        values = []
        for run in runs:
            value: Any = run
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None:
                values.append(value)
        return round(statistics.median(values), 3) if values else float("nan")

    def busy(games: list[dict[str, Any]]) -> float | None:
        shares = [g["cores_busy_in_game"] for g in games if g["cores_busy_in_game"] is not None]
        return round(statistics.median(shares), 3) if shares else None

    ratios = [f["game_s"] / t["game_s"] for f, t in zip(fair, trusted, strict=True)]
    per_move = [f["game_s_per_move"] / t["game_s_per_move"] for f, t in zip(fair, trusted, strict=True)]
    cpu_per_move = [f["cpu_ms_per_move"] / t["cpu_ms_per_move"] for f, t in zip(fair, trusted, strict=True)]
    return {
        "bench": "game",
        "machine": _machine(),
        "game": f"{GAME}, {SEATS} seats, heuristic bots, {pairs} interleaved fair/trusted pairs",
        "fair": fair,
        "trusted_network": trusted,
        "trusted_in_process": in_process,
        "fair_over_trusted_whole_game": [round(r, 2) for r in ratios],
        "fair_over_trusted_per_move": [round(r, 2) for r in per_move],
        "fair_over_trusted_cpu_per_move": [round(r, 2) for r in cpu_per_move],
        # how much of the machine each mode kept busy while its games ran (near 1: CPU-bound)
        "cores_busy_in_game_median": {"fair": busy(fair), "trusted": busy(trusted)},
        "log_sizes": sizes,
        "loop_block_worst": _worst_block(fair),
        "goals": {
            "fair_over_trusted": round(statistics.median(ratios), 2),
            "move_latency_p99_ms": med(fair, "move_latency_ms", "p99"),
            "loop_block_max_ms": max((f["loop_block_max_ms"] or 0.0) for f in fair),
            "log_bytes_median": sizes["median"],
            "deal_latency_median_ms": med(fair, "deal_latency_ms", "median"),
        },
        "note": (
            "game_s: first to last entry printed as accepted by any peer (arrival time stamps);"
            " move latency: the writer printing its move -> the last peer printing it; deal latency:"
            " the move that causes a draw -> the recipient printing the draw (it can read its card);"
            " loop_block_max_ms: the largest lag of a 10 ms asyncio sleep in any peer (FAIRDECK_LOOP_PROBE);"
            " loop_block_worst: that lag beside the CPU time the peer's loop thread and its whole"
            " process used meanwhile (a lag far above both is time the system ran other processes);"
            " cpu_s: the CPU time of the game's four peer processes, start-up included (on a machine"
            " with fewer cores than peers the wall time follows it)."
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
