#!/usr/bin/env python
"""fairdeck benchmarks; each subcommand prints one JSON object on stdout.

    python scripts/bench.py crypto [--runs N] [--rounds 40 80]
    python scripts/bench.py audit           (scripts/bench_protocol.py: bench_audit)
    python scripts/bench.py game            (scripts/bench_protocol.py: bench_game)

Times come from ``time.perf_counter``; every figure is the median of several runs. They are
measurements to compare, never thresholds: nothing in the test suite asserts a wall-clock time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FACES_52 = [f"{rank}{suit}" for suit in "SHDC" for rank in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]


def _median_time(fn: Callable[[], Any], runs: int) -> float:
    """Median wall time of ``runs`` calls of ``fn`` (seconds)."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _per_op_us(fn: Callable[[], Any], calls: int, runs: int = 5) -> float:
    """Median over ``runs`` of the average cost of one call, in microseconds, after a warm-up."""
    for _ in range(min(20, calls)):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return round(statistics.median(samples), 2)


def bench_crypto(runs: int, rounds_list: list[int]) -> dict[str, Any]:
    """Mental-poker costs: a 52-card shuffle among 4 seats, a private deal, per-operation costs."""
    from p2p import crypto as c
    from p2p.crypto import group
    from p2p.crypto import shuffle as shuffle_mod

    seats = 4
    game = b"bench-game"
    identities = [hashlib.sha256(b"bench identity %d" % s).digest() for s in range(seats)]
    xs = [c.derive_scalar(i, "elgamal", game) for i in identities]
    share_ctx = [c.make_context(game, "keyshare", s) for s in range(seats)]
    blobs = [c.make_key_share(x, share_ctx[s]) for s, x in enumerate(xs)]
    shares = [c.verify_key_share(b, share_ctx[s]) for s, b in enumerate(blobs)]
    key = c.table_key(shares)
    deck = [c.open_ciphertext(f, key) for f in FACES_52]
    codec = c.CardCodec(FACES_52)

    # one-time cost of a fixed-base table (built for a base once it has been used enough)
    start = time.perf_counter()
    group.FixedBase(key)
    table_build_ms = (time.perf_counter() - start) * 1e3
    group.table_for(key)

    shuffles: dict[str, Any] = {}
    final_pile = deck
    for rounds in rounds_list:
        prove_times: list[float] = []
        verify_times: list[float] = []
        totals: list[float] = []
        cpu_totals: list[float] = []
        proof_bytes = 0
        for run in range(runs):
            pile = deck
            total = 0.0
            cpu_start = time.process_time()
            for s in range(seats):
                seed = hashlib.sha256(identities[s] + b"shuffle %d %d" % (rounds, run)).digest()
                ctx = c.make_context(game, run, s, "shuffle")
                t0 = time.perf_counter()
                new, proof = c.shuffle_pile(pile, key, seed, rounds, ctx)
                t1 = time.perf_counter()
                c.verify_shuffle(pile, new, proof, key, rounds, ctx)
                t2 = time.perf_counter()
                prove_times.append(t1 - t0)
                verify_times.append(t2 - t1)
                total += t2 - t0
                proof_bytes = len(proof)
                pile = new
            totals.append(total)
            cpu_totals.append(time.process_time() - cpu_start)
            final_pile = pile
        shuffles[str(rounds)] = {
            "soundness": f"2^-{rounds}",
            "four_seats_prove_and_verify_s": round(statistics.median(totals), 4),
            # process CPU time of the same runs: far below the wall time means a contended machine
            "four_seats_cpu_s": round(statistics.median(cpu_totals), 4),
            "one_prove_s": round(statistics.median(prove_times), 4),
            "one_verify_s": round(statistics.median(verify_times), 4),
            "proof_bytes": proof_bytes,
            "cpu_per_peer_s": round(statistics.median(prove_times) + 3 * statistics.median(verify_times), 4),
        }

    # private deal among 4 seats: seats 1..3 publish tokens with proofs, seat 0 verifies and opens
    ct = final_pile[0]
    deal_ctx = [c.make_context(game, 999, s, "deal") for s in range(seats)]

    def private_deal() -> str:
        tokens = [c.reveal_token(xs[s], ct, deal_ctx[s]) for s in range(1, seats)]
        ds = [c.verify_token(shares[s], ct, tokens[s - 1], deal_ctx[s]) for s in range(1, seats)]
        return codec.decode(c.unmask(ct, [*ds, c.token_point(xs[0], ct)]))

    deal_s = _median_time(private_deal, max(runs, 5) * 4)

    # per-operation costs
    p, q = c.base_mul(12345), c.base_mul(67890)
    k = xs[0]
    token = c.reveal_token(xs[1], ct, deal_ctx[1])
    seal_keys = [c.derive_seal_key(i, c.make_context(game, "seal")) for i in identities[:2]]
    pubs = [c.seal_public(sk) for sk in seal_keys]
    sealed = c.seal(token, seal_keys[0], pubs[1], deal_ctx[1])
    p_bytes = p.to_bytes()
    ktab = group.table_for(key)
    single = shuffle_mod._parse_pile([ct], "bench")
    gtab = group.generator_base()

    per_op = {
        "scalar_mult_us": _per_op_us(lambda: p.mul(k), 2000),
        "base_mult_us": _per_op_us(lambda: c.base_mul(k), 2000),
        "point_add_us": _per_op_us(lambda: p + q, 5000),
        "point_parse_us": _per_op_us(lambda: c.Point.from_bytes(p_bytes), 5000),
        "fixed_base_mult_us": _per_op_us(lambda: ktab.mul(k), 2000),
        "rerandomise_card_us": _per_op_us(
            lambda: shuffle_mod._rerandomise(single, [0], [k], None, gtab, ktab), 2000
        ),
        "card_point_us": _per_op_us(lambda: c.card_point("QH"), 2000),
        "open_ciphertext_us": _per_op_us(lambda: c.open_ciphertext("QH", key), 2000),
        "key_share_make_us": _per_op_us(lambda: c.make_key_share(k, share_ctx[0]), 500),
        "key_share_verify_us": _per_op_us(lambda: c.verify_key_share(blobs[0], share_ctx[0]), 500),
        "token_make_us": _per_op_us(lambda: c.reveal_token(xs[1], ct, deal_ctx[1]), 500),
        "token_verify_us": _per_op_us(lambda: c.verify_token(shares[1], ct, token, deal_ctx[1]), 500),
        "unmask_us": _per_op_us(lambda: c.unmask(ct, shares), 2000),
        "seal_us": _per_op_us(lambda: c.seal(token, seal_keys[0], pubs[1], deal_ctx[1]), 1000),
        "unseal_us": _per_op_us(lambda: c.unseal(sealed, seal_keys[1], pubs[0], deal_ctx[1]), 1000),
        "commit_us": _per_op_us(lambda: c.commit(deal_ctx[0], b"KH", b"n" * 16), 5000),
        "joint_random_us": _per_op_us(lambda: c.joint_random([b"a" * 16, b"b" * 16], 52, deal_ctx[0]), 5000),
    }
    comparison = _bench_wt_vs_cut_and_choose(c, key, identities, game, max(runs, 3))
    wt_52 = comparison["wt"]
    return {
        "bench": "crypto",
        # the issue-12 targets: <= 0.25 s, <= 8 KB, <= 3 KB (WT proof, every proof verified by 3 peers)
        "goals": {
            "shuffle_52x4_all_verified_s": wt_52["shuffle_52x4_all_verified_s"],
            "proof_bytes_52": wt_52["52"]["proof_bytes"],
            "proof_bytes_16": wt_52["16"]["proof_bytes"],
        },
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "coincurve": metadata.version("coincurve"),
            "cryptography": metadata.version("cryptography"),
        },
        "runs": runs,
        "cards": len(FACES_52),
        "seats": seats,
        "shuffle_52_cards_4_seats": shuffles,
        "fixed_base_table_build_ms": round(table_build_ms, 2),
        "private_deal_4_seats_s": round(deal_s, 6),
        "per_op": per_op,
        "default_shuffle_rounds": c.DEFAULT_SHUFFLE_ROUNDS,
        "wt_vs_cut_and_choose": comparison,
    }


def _bench_wt_vs_cut_and_choose(
    c: Any, key: Any, identities: list[bytes], game: bytes, runs: int, rounds: int = 80
) -> dict[str, Any]:
    """Old (cut-and-choose, ``rounds``) against new (Terelius-Wikström), interleaved in one process.

    A 4-seat shuffle as a table runs it: each seat proves once and each proof is verified by the
    three other seats (all in this process, so the figure is the table's total CPU work). Then the
    time of one proof and one verification for 16 and 52 cards, the proof sizes, and the WT
    multiplication counts per card.
    """
    from p2p.crypto import wt as wt_mod
    from p2p.crypto.group import DirectBase, FixedBase, GeneratorBase

    seats = len(identities)
    systems: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
        "cut_and_choose": (
            lambda pile, seed, ctx: c.shuffle_pile(pile, key, seed, rounds, ctx),
            lambda pile, new, proof, ctx: c.verify_shuffle(pile, new, proof, key, rounds, ctx),
        ),
        "wt": (
            lambda pile, seed, ctx: c.shuffle_pile_wt(pile, key, seed, ctx),
            lambda pile, new, proof, ctx: c.verify_shuffle_wt(pile, new, proof, key, ctx),
        ),
    }
    out: dict[str, Any] = {name: {} for name in systems}
    out["cut_and_choose"]["rounds"] = rounds
    out["cut_and_choose"]["soundness"] = f"2^-{rounds} per attempt (grindable offline)"
    out["wt"]["soundness"] = "about N/n < 2^-249"
    wt_mod.generators(52)
    table_samples: dict[str, list[float]] = {name: [] for name in systems}
    cpu_samples: dict[str, list[float]] = {name: [] for name in systems}
    for run in range(runs):
        for name, (prove, verify) in systems.items():  # interleaved, so both see the same load
            pile = [c.open_ciphertext(f, key) for f in FACES_52]
            start, cpu = time.perf_counter(), time.process_time()
            for s in range(seats):
                ctx = c.make_context(game, 1000 + run, s, "shuffle")
                seed = hashlib.sha256(identities[s] + b"compare %d" % run).digest()
                new, proof = prove(pile, seed, ctx)
                for _ in range(seats - 1):
                    verify(pile, new, proof, ctx)
                pile = new
            table_samples[name].append(time.perf_counter() - start)
            cpu_samples[name].append(time.process_time() - cpu)
    for name in systems:
        out[name]["shuffle_52x4_all_verified_s"] = round(statistics.median(table_samples[name]), 4)
        out[name]["shuffle_52x4_all_verified_cpu_s"] = round(statistics.median(cpu_samples[name]), 4)

    for cards in (16, 52):
        deck = [c.open_ciphertext(f, key) for f in FACES_52[:cards]]
        prove_t: dict[str, list[float]] = {name: [] for name in systems}
        verify_t: dict[str, list[float]] = {name: [] for name in systems}
        sizes: dict[str, list[int]] = {name: [] for name in systems}
        for run in range(max(runs, 5)):
            for name, (prove, verify) in systems.items():
                ctx = c.make_context(game, 2000 + run, cards, "shuffle")
                seed = hashlib.sha256(b"per-proof %d %d" % (cards, run)).digest()
                t0 = time.perf_counter()
                new, proof = prove(deck, seed, ctx)
                t1 = time.perf_counter()
                verify(deck, new, proof, ctx)
                t2 = time.perf_counter()
                prove_t[name].append(t1 - t0)
                verify_t[name].append(t2 - t1)
                sizes[name].append(len(proof))
        for name in systems:
            out[name][str(cards)] = {
                "prove_s": round(statistics.median(prove_t[name]), 5),
                "verify_s": round(statistics.median(verify_t[name]), 5),
                "proof_bytes": int(statistics.median(sizes[name])),
            }
            if min(sizes[name]) != max(sizes[name]):  # cut-and-choose sizes follow the challenge bits
                out[name][str(cards)]["proof_bytes_range"] = [min(sizes[name]), max(sizes[name])]
    for cards in ("16", "52"):
        old, new = out["cut_and_choose"][cards], out["wt"][cards]
        out["wt"][cards]["speedup_prove_verify"] = round(
            (old["prove_s"] + old["verify_s"]) / (new["prove_s"] + new["verify_s"]), 1
        )
    out["wt"]["speedup_52x4_all_verified"] = round(
        out["cut_and_choose"]["shuffle_52x4_all_verified_s"] / out["wt"]["shuffle_52x4_all_verified_s"], 1
    )

    # multiplications per card, counted on one 52-card proof and its verification
    counts = {"fixed": 0, "variable": 0}
    fixed_kinds = (FixedBase, DirectBase, GeneratorBase)  # every u*B for a fixed base B, however computed
    fixed_terms = [kind.terms for kind in fixed_kinds]
    vmul, smul = wt_mod._vmul, wt_mod._smul

    def counted(kind: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            counts[kind] += 1
            return fn(*args)

        return wrapper

    deck = [c.open_ciphertext(f, key) for f in FACES_52]
    ctx = c.make_context(game, 3000, 0, "shuffle")
    for kind, terms in zip(fixed_kinds, fixed_terms, strict=True):
        kind.terms = counted("fixed", terms)  # type: ignore[method-assign]
    wt_mod._vmul, wt_mod._smul = counted("variable", vmul), counted("variable", smul)
    try:
        new, proof = c.shuffle_pile_wt(deck, key, b"count multiplications", ctx)
        prove_counts = dict(counts)
        counts.update(fixed=0, variable=0)
        c.verify_shuffle_wt(deck, new, proof, key, ctx)
        verify_counts = dict(counts)
    finally:
        for kind, terms in zip(fixed_kinds, fixed_terms, strict=True):
            kind.terms = terms  # type: ignore[method-assign]
        wt_mod._vmul, wt_mod._smul = vmul, smul
    out["wt"]["multiplications_per_card_52"] = {
        "prove_fixed": round(prove_counts["fixed"] / 52, 2),
        "prove_variable": round(prove_counts["variable"] / 52, 2),
        "verify_fixed": round(verify_counts["fixed"] / 52, 2),
        "verify_variable": round(verify_counts["variable"] / 52, 2),
    }
    return out


def _protocol(name: str) -> Callable[[], Any]:
    """Import ``name`` from scripts/bench_protocol.py lazily (another engineer's module)."""
    import importlib

    module = importlib.import_module("bench_protocol")
    return getattr(module, name)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    """Parse the subcommand, run it, print its JSON."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    crypto = sub.add_parser("crypto", help="mental-poker primitives and a 52-card 4-seat shuffle")
    crypto.add_argument("--runs", type=int, default=3, help="runs per figure (median reported)")
    crypto.add_argument("--rounds", type=int, nargs="+", default=[40, 80], help="proof rounds to time")
    sub.add_parser("audit", help="audit of a recorded game (scripts/bench_protocol.py)")
    game = sub.add_parser("game", help="whole games, fair vs trusted (scripts/bench_protocol.py)")
    game.add_argument("--pairs", type=int, default=5, help="interleaved fair/trusted network games")
    game.add_argument("--seeds", type=int, default=12, help="in-memory fair games whose log sizes are taken")
    args = parser.parse_args(argv)

    if args.command == "crypto":
        result: Any = bench_crypto(args.runs, args.rounds)
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        try:
            bench = _protocol("bench_audit" if args.command == "audit" else "bench_game")
        except ModuleNotFoundError as exc:
            if exc.name != "bench_protocol":
                raise
            print("scripts/bench_protocol.py is missing (audit and game benches)", file=sys.stderr)
            return 2
        if args.command == "game":
            if args.pairs < 1 or args.seeds < 1:
                parser.error("--pairs and --seeds must be at least 1")
            result = bench(pairs=args.pairs, seeds=args.seeds)
        else:
            result = bench()
    if result is not None:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
