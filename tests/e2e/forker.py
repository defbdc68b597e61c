"""A deliberately dishonest peer for the e2e tests: ``python -m tests.e2e.forker --join HOST:PORT``.

It plays Love Letter like a heuristic bot, except that its first Guard guess is signed twice: the
last seat of the table gets one version (another guess) and everyone else the other, and it keeps
each side on its own version whenever it resends the entry. No honest party receives both from it,
so the table splits in two; the honest parties must find each other's version, name it, and blame
nobody else.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from fairdeck.commands import network_bot
from p2p.identity import Identity
from p2p.log import LogError, parse_envelope
from p2p.node import Node
from tests.p2p.protocol_support import resign


def _other_guess(body: dict[str, Any]) -> dict[str, Any]:
    move = dict(body["move"])
    move["guess"] = "priest" if move["guess"] != "priest" else "baron"
    return {**body, "move": move}


async def _run(address: str, home: Path, name: str) -> int:
    identity = Identity.load_or_create(home)
    node = Node(identity, home, name=name, bind_host="127.0.0.1")
    twin: list[bytes] = []  # (the version most get, the one the last seat gets)
    bot: Any = None
    send = node._send

    async def forked_send(curve: bytes, message: dict[str, Any]) -> None:
        party = node.party
        if party is not None and message.get("t") == "entry":
            envelope = message["env"]
            if not twin:
                try:
                    entry = parse_envelope(envelope)
                except LogError:
                    entry = None
                ours = entry is not None and entry.kind == "move" and entry.seat == party.me
                move = entry.body.get("move") if ours and entry is not None else None
                if entry is not None and isinstance(move, dict) and move.get("guess"):
                    twin[:] = [envelope, resign(identity, envelope, body=_other_guess(entry.body))]
                    print(f"forked: entry {entry.seq} signed twice", flush=True)
            last = len(party.table.parties) - 1 if party.me != len(party.table.parties) - 1 else 0
            if twin and envelope == twin[0] and curve == party.table.parties[last].curve:
                message = {**message, "env": twin[1]}
        await send(curve, message)

    node._send = forked_send  # type: ignore[method-assign]

    async def on_decide(prompt: str, moves: list[dict[str, Any]]) -> None:
        nonlocal bot
        party = node.party
        assert party is not None
        table = party.table
        if bot is None:
            bot = network_bot(identity, table.game.name, "heuristic", table.game_id)
        await node.decide(bot.choose(table.game, table.state, party.seat, party.known_faces(), prompt))

    try:
        await node.join(address)
        node.on_decide = on_decide
        assert node.party is not None
        if (prompt := node.party.waiting_for_me()) is not None:
            await on_decide(prompt, node.party.legal_moves())
        await node.wait_ended()
        await asyncio.sleep(0.5)
        return 0
    finally:
        await node.close()


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(prog="forker")
    parser.add_argument("--join", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--name", default="forker")
    args = parser.parse_args(argv)
    return asyncio.run(_run(args.join, Path(args.home), args.name))


if __name__ == "__main__":
    sys.exit(main())
