"""What the e2e tests' deliberately dishonest peers share: a real :class:`Node` that joins a table,
plays as a heuristic bot except where its own ``on_decide`` cheats, and leaves when the game ends.

Each dishonest peer (``tests.e2e.poisoner``, ``tests.e2e.forker``) is a module run as its own
process: ``python -m tests.e2e.<name> --join HOST:PORT --home DIR [--name NAME]``.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fairdeck.commands import network_bot
from p2p.identity import Identity
from p2p.log import Entry, LogError, parse_envelope
from p2p.node import Node
from p2p.party import Party

Decide = Callable[[str, list[dict[str, Any]]], Awaitable[None]]
"""``on_decide(prompt, moves)``: the peer's answer to its player's turn."""


def honest_move(node: Node, identity: Identity, prompt: str, bots: dict[str, Any]) -> dict[str, Any]:
    """The move the heuristic bot would make for the node's seat now (``bots`` keeps the bot)."""
    party = node.party
    assert party is not None
    table = party.table
    if "bot" not in bots:
        bots["bot"] = network_bot(identity, table.game.name, "heuristic", table.game_id)
    return bots["bot"].choose(table.game, table.state, party.seat, party.known_faces(), prompt)  # type: ignore[no-any-return]


def play_honestly(node: Node, identity: Identity) -> Decide:
    """An ``on_decide`` that makes every move the heuristic bot would (for a peer whose dishonesty,
    or crash, lies elsewhere than in its moves)."""
    bots: dict[str, Any] = {}

    async def on_decide(prompt: str, moves: list[dict[str, Any]]) -> None:
        await node.decide(honest_move(node, identity, prompt, bots))

    return on_decide


def send_a_twin(
    node: Node,
    identity: Identity,
    other_body: Callable[[Entry], dict[str, Any] | None],
    twin_to: Callable[[Party], int],
    said: str,
) -> None:
    """Make ``node`` sign its first own entry for which ``other_body`` gives a body twice: the party
    ``twin_to`` names gets the version with that body (every time the entry is sent to it), every
    other party the true one. Prints ``{said}: entry N signed twice`` when it happens."""
    twin: list[bytes] = []  # (the true version, the other)
    send = node._send

    async def twin_send(curve: bytes, message: dict[str, Any]) -> None:
        party = node.party
        if party is not None and message.get("t") == "entry":
            envelope = message["env"]
            if not twin:
                try:
                    entry: Entry | None = parse_envelope(envelope)
                except LogError:
                    entry = None
                body = other_body(entry) if entry is not None and entry.seat == party.me else None
                if entry is not None and body is not None:
                    from tests.p2p.protocol_support import resign

                    twin[:] = [envelope, resign(identity, envelope, body=body)]
                    print(f"{said}: entry {entry.seq} signed twice", flush=True)
            if twin and envelope == twin[0] and curve == party.table.parties[twin_to(party)].curve:
                message = {**message, "env": twin[1]}
        await send(curve, message)

    node._send = twin_send  # type: ignore[method-assign]


async def play(address: str, home: Path, name: str, cheat: Callable[[Node, Identity], Decide]) -> int:
    """Join ``address`` as ``name`` with the identity in ``home``; answer every turn with the
    ``on_decide`` that ``cheat(node, identity)`` returns; return 0 once the game has ended."""
    identity = Identity.load_or_create(home)
    node = Node(identity, home, name=name, bind_host="127.0.0.1")
    on_decide = cheat(node, identity)
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


def main(prog: str, cheat: Callable[[Node, Identity], Decide], argv: list[str] | None = None) -> int:
    """The command line of a dishonest peer called ``prog``."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--join", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--name", default=prog)
    args = parser.parse_args(argv)
    return asyncio.run(play(args.join, Path(args.home), args.name, cheat))
