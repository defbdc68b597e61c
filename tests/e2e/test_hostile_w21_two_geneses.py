"""An opener that signs one genesis for one joiner and another for the other, over real peers.

Both geneses hold this joiner's seat, name and fresh value, the terms it was shown and the same game
id, so each joiner countersigns its own. Each joiner's countersignature then extends a chain the
other does not hold (another genesis hash), and is refused; the table split at its entry 0, and the
catch-up each asked for started at entry 1, so neither ever saw the other genesis. Before, both
waited out the table's deadline and each closed the game on the other joiner, an honest party,
naming it. Now a node whose next place gets a signed entry extending another chain asks again from
the genesis on near the start of the log: each joiner then holds two geneses signed by the opener
for one place, exposes it, and every log names the opener and nobody else.

The opener is a production :class:`p2p.node.Node` in this test's event loop whose lobby sends its
own starts (it never plays: its seat is the one the joiners must name); the joiners are real
``fairdeck bot`` processes on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from p2p.memtable import seeded_identity
from p2p.node import Node
from p2p.policy import CC, FLOOR_ENV, Proof
from p2p.protocol import PartyInfo, genesis_body, make_genesis
from tests.e2e.peer_support import FAIRDECK, Peer, PeerFailure, fold_log, run_fairdeck

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8
STALL_AFTER = 40  # the table's deadline: the joiners would close on each other at it


async def _until(condition: Any, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise PeerFailure(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.05)


async def _two_geneses(tmp_path: Path) -> list[Peer]:
    identity = seeded_identity("w21-two-geneses")
    node = Node(identity, tmp_path / "opener", name="ann", proof_floor=Proof(CC, ROUNDS))
    port = await node.open_table("loveletter", 3, shuffle_rounds=ROUNDS, stall_after=STALL_AFTER)
    lobby = node._lobby_handler.__self__  # type: ignore[union-attr]
    sent: list[bool] = []

    async def ignore(sender: bytes, message: dict[str, Any]) -> None:
        return None

    async def two_starts() -> None:  # in place of the lobby's honest start
        if len(lobby.players) < 3 or sent:
            return
        sent.append(True)
        node._lobby_handler = ignore
        terms, players = lobby.terms, lobby.players
        infos = [PartyInfo(p["name"], p["key"], p["curve"], p.get("fresh") or b"") for p in players]
        game_id = os.urandom(16)
        endpoints = [p["endpoint"] for p in players]
        for index, opener_name in ((1, "ann"), (2, "anne")):  # one genesis for each joiner
            infos[0] = PartyInfo(opener_name, infos[0].key, infos[0].curve, infos[0].fresh)
            rounds = terms.proof.rounds or ROUNDS
            body = genesis_body(terms.game, terms.seats, infos, terms.options, rounds, terms.mode)
            body.update({"proof": terms.proof.kind, "stall_after": terms.stall_after})
            genesis = make_genesis(node.identity, game_id, body)
            start = {"t": "start", "genesis": genesis, "endpoints": endpoints}
            await node._send(players[index]["curve"], start)

    lobby._maybe_start = two_starts
    env = {FLOOR_ENV: f"cc:{ROUNDS}"}
    joiners = []
    try:
        for name in ("bob", "cy"):
            home = tmp_path / name
            argv = [*FAIRDECK, "bot", "--join", f"127.0.0.1:{port}", "--home", str(home), "--name", name]
            joiners.append(Peer(name, home, argv, env=env).start())
            await _until(lambda n=name: any(p["name"] == n for p in lobby.players), 60, f"{name} to join")
        await _until(lambda: sent, 30, "the starts")
        await _until(lambda: not any(j.running for j in joiners), 3 * STALL_AFTER, "the joiners to end")
        return joiners
    finally:
        for joiner in joiners:
            joiner.kill()
        await node.close()


def test_an_opener_that_signs_two_geneses_is_named_by_every_joiner(tmp_path: Path) -> None:
    joiners = asyncio.run(_two_geneses(tmp_path))
    logs = []
    for joiner in joiners:
        log = joiner.log_path()
        assert log is not None, joiner.tail()
        assert "Traceback" not in joiner.output() + joiner.errors(), joiner.tail()
        table = fold_log(log)
        # exposed, not closed on the other joiner at the deadline
        assert table.ended == "accused", joiner.tail()
        assert [(f.seat, f.seq) for f in table.findings] == [(0, 0)], table.findings
        logs.append(log)
    code, out, err = run_fairdeck(["audit", *map(str, logs)], dict(os.environ), timeout=60)
    assert code == 1, out + err
    assert "seat 0" in out and "seat 1 (" not in out and "seat 2 (" not in out, out
