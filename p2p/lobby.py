"""The opener's side of the lobby: the plaintext bootstrap a joiner first asks, the seats as they
fill, spectators' catch-up, and the genesis the table starts from (``Node.open_table`` makes one)."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import zmq

from p2p import policy, rematch
from p2p.identity import verify_signature
from p2p.log import Entry, LogError, pack, safe_unpack
from p2p.party import Party
from p2p.protocol import PartyInfo, Table, genesis_body, make_genesis
from p2p.safetext import MAX_NAME_LENGTH, is_printable_name, safe_text
from p2p.wire import (
    MAX_CHAT,
    WIRE_DEPTH,
    WIRE_OBJECTS,
    endpoint_host,
    local_address_towards,
    signed_join_fields,
)

if TYPE_CHECKING:
    from p2p.node import Node

log = logging.getLogger("fairdeck.node")

WATCH_BATCH = 256
"""Entries a spectator gets per answer at most (it asks again at once for more)."""
WATCH_BYTES = 2 * 1024 * 1024
"""Bytes a spectator gets per answer at most (one entry is always sent)."""


class Lobby:
    """The opener's side of the lobby: bootstrap answers, joins, and the genesis."""

    def __init__(
        self,
        node: Node,
        game: str,
        seats: int,
        witnesses: int,
        options: dict[str, Any],
        shuffle_rounds: int,
        table_name: str,
    ) -> None:
        self.node = node
        self.game, self.seats, self.witnesses = game, seats, witnesses
        self.options, self.shuffle_rounds, self.table_name = options, shuffle_rounds, table_name
        assert node.mesh is not None
        own_host = node.bind_host if node.bind_host != "0.0.0.0" else "127.0.0.1"  # fixed at the start
        self.players: list[dict[str, Any]] = [
            {
                "name": node.name,
                "key": node.identity.public_key,
                "curve": node.curve_public,
                "endpoint": f"tcp://{own_host}:{node.mesh.port}",
            }
        ]
        self.watchers: list[dict[str, Any]] = []
        self.advertiser: Any = None
        self.bootstrap_port = 0
        self.mode = "fair"
        self.terms: policy.Terms | None = None  # what the bootstrap reply states, and the genesis holds to
        self.only: Table | None = None  # a rematch: only this ended game's parties, at their places
        node._lobby_handler = self.on_message

    @property
    def free(self) -> int:
        """Seats not taken yet."""
        return self.seats - len(self.players)

    boot: Bootstrap | None = None

    def refresh_bootstrap(self) -> None:
        """Set what the bootstrap thread answers from now on (called on the event loop)."""
        node = self.node
        assert node.mesh is not None
        if self.boot is not None:
            reply = {
                "key": node.mesh.public_key,
                "port": node.mesh.port,
                "game": self.game,
                "name": self.table_name,
                "opener": node.name,  # (the table's name may be its own: ``host --name Friday``)
                "fp": node.identity.fingerprint,
                "full": node.party is not None,
                "free": self.free,
                "watch": self.boot.spectators is not None,
            }
            if self.terms is not None:
                reply.update(self.terms.to_wire())
            if self.only is not None:
                reply["after"] = self.only.game_id  # the game this one is the rematch of
            self.boot.reply = pack(reply)

    async def run(self, advertise: Any) -> None:
        """Advertise the table on the LAN (through ``advertise``, when given), then start the game if
        every seat is taken already."""
        if advertise is not None:
            node = self.node
            assert node.mesh is not None
            try:
                self.advertiser = await advertise(self.bootstrap_port, node.mesh.public_key, self.free)
            except Exception as exc:  # discovery is a convenience; HOST:PORT still works
                log.warning("could not advertise the table: %s", exc)
        await self._maybe_start()

    async def on_message(self, sender: bytes, message: dict[str, Any]) -> None:
        """Handle one lobby message from ``sender`` (a join, a decline, a leave, a chat line); anything
        else is dropped."""
        kind = message.get("t")
        if kind == "declined":
            await self._on_leave(sender)
        elif kind == "chat" and isinstance(message.get("text"), str):
            speaker = next((p for p in self.players[1:] + self.watchers if p["curve"] == sender), None)
            if speaker is not None:  # only from whoever is in our lobby
                await self.pass_chat(sender, speaker["name"], message["text"][:MAX_CHAT])
        if kind != "join":
            return
        node = self.node
        fields = {k: message.get(k) for k in ("name", "key", "curve", "endpoint", "role", "sig", "fresh")}
        ok = (
            isinstance(fields["name"], str)
            and isinstance(fields["key"], bytes)
            and len(fields["key"]) == 32
            and fields["curve"] == sender
            and isinstance(fields["endpoint"], str)
            and fields["endpoint"].startswith("tcp://")
            and fields["role"] in ("player", "witness")
            and (fields["fresh"] is None or isinstance(fields["fresh"], bytes) and len(fields["fresh"]) == 16)
            and isinstance(fields["sig"], bytes)
            and verify_signature(fields["key"], fields["sig"], signed_join_fields(fields))
        )
        if not ok:
            node._warn("ignored a malformed or unsigned join")
            return
        assert node.mesh is not None
        node.mesh.connect(sender, fields["endpoint"])
        if self.only is not None:
            try:
                rematch.expected_party(self.only, fields["key"], sender, fields["name"], fields["role"])
            except rematch.RematchError as exc:
                node._warn("refused a join: %s", exc)
                await node._send(sender, {"t": "refused", "reason": str(exc)})
                return
        if not is_printable_name(fields["name"]):
            log.warning("refused a join whose name is not printable")
            reason = f"names must be 1-{MAX_NAME_LENGTH} printable characters"
            await node._send(sender, {"t": "refused", "reason": reason})
            return
        everyone = self.players + self.watchers
        for p in everyone:
            if p["key"] == fields["key"]:
                # a repeated join: a joiner that restarted listens on a new port now, and the genesis
                # must carry where it is, not where it was; it is told the lobby again (it would
                # otherwise wait in silence for news the others already had)
                p["endpoint"] = fields["endpoint"]
                p["curve"] = sender
                p["fresh"] = fields["fresh"]  # (what it drew this time is what it will look for)
                lobby = {"t": "lobby", "seats": [q["name"] for q in self.players], "free": self.free}
                await node._send(sender, lobby)
                return
        group, limit = (
            (self.players, self.seats) if fields["role"] == "player" else (self.watchers, self.witnesses)
        )
        if len(group) >= limit:
            await node._send(sender, {"t": "refused", "reason": "no free place"})
            return
        group.append({k: fields[k] for k in ("name", "key", "curve", "endpoint", "fresh")})
        await self._changed(f"{fields['name']} joined")
        await self._maybe_start()

    async def _on_leave(self, sender: bytes) -> None:
        """A joiner left the lobby (``declined``): its place is free again, and everyone is told."""
        for group in (self.players, self.watchers):
            for p in group[1:] if group is self.players else group:
                if p["curve"] == sender:
                    group.remove(p)
                    await self._changed(f"{safe_text(p['name'], 40)} left")
                    return

    async def pass_chat(self, sender: bytes | None, name: str, text: str) -> None:
        """A chat line said in the lobby by ``name`` (``sender``: a joiner's transport key, ``None``
        for our own player): shown to our player (unless it is theirs) and passed on to every other
        joiner, with the speaker's name (a joiner knows only us until the game starts)."""
        node = self.node
        if sender is not None:
            node._notify("chat", text, name=safe_text(name, 40))
        for p in self.players[1:] + self.watchers:
            if p["curve"] != sender:
                await node._send(p["curve"], {"t": "chat", "text": text, "name": name})

    async def _changed(self, news: str) -> None:
        """Who is seated changed: tell our player, every joiner, the bootstrap and the LAN."""
        node = self.node
        self.refresh_bootstrap()
        seats = [p["name"] for p in self.players]
        node._notify("lobby", news, seats=seats, free=self.free)
        for p in self.players[1:] + self.watchers:
            await node._send(p["curve"], {"t": "lobby", "seats": seats, "free": self.free})
        if self.advertiser is not None:
            with contextlib.suppress(Exception):
                await self.advertiser.update({"free": self.free})

    async def _maybe_start(self) -> None:
        if self.free > 0 or len(self.watchers) < self.witnesses or self.node.party is not None:
            return
        node = self.node
        if self.only is not None:  # a rematch: every party at its place in the last game
            order = {p.key: i for i, p in enumerate(self.only.parties)}
            self.players.sort(key=lambda p: order[p["key"]])
            self.watchers.sort(key=lambda p: order[p["key"]])
        everyone = self.players + self.watchers
        if node.bind_host == "0.0.0.0" and len(everyone) > 1:
            # Listening everywhere: tell the others the address that reaches us. Ask towards a
            # joiner on another machine (a local bot joined over loopback), and give the local
            # joiners (they listen everywhere too, see commands._spawn_bots) that same address, or
            # the remote peers would be told to dial 127.0.0.1.
            hosts = [endpoint_host(p["endpoint"]) for p in everyone[1:]]
            remote = next((h for h in hosts if not h.startswith("127.")), hosts[0])
            lan = local_address_towards(remote)
            assert node.mesh is not None
            everyone[0]["endpoint"] = f"tcp://{lan}:{node.mesh.port}"
            if not lan.startswith("127."):
                for p in everyone[1:]:
                    if endpoint_host(p["endpoint"]).startswith("127."):
                        p["endpoint"] = f"tcp://{lan}:{p['endpoint'].rsplit(':', 1)[1]}"
        infos = [PartyInfo(p["name"], p["key"], p["curve"], p.get("fresh") or b"") for p in everyone]
        body = self._genesis_body(infos)
        game_id = os.urandom(16)
        genesis = make_genesis(node.identity, game_id, body)
        endpoints = [p["endpoint"] for p in everyone]
        node._lobby_handler = None
        if self.advertiser is not None:
            with contextlib.suppress(Exception):
                await self.advertiser.close()
        # our own genesis passes the policy every joiner applies to it (we asked for its mode)
        assert self.terms is not None
        me = policy.Joiner(
            key=node.identity.public_key,
            curve=node.curve_public,
            name=node.name,
            role="player",
            shown=self.terms,
            opener_curve=node.curve_public,
            games_dir=node.home / "games",
            allow_trusted=True,
            floor=node._proof_floor(),
        )
        if reason := policy.judge_start(policy.Start(body, game_id, node.curve_public, len(endpoints)), me):
            node.refusal = reason
            node._notify("info", f"the table cannot start: {reason}")
            for p in everyone[1:]:  # they would wait for a start that never comes
                await node._send(p["curve"], {"t": "refused", "reason": f"the table cannot start: {reason}"})
            node._ended.set()
            node._notify("ended", "not started")
            return
        # attach first (so our allowlist and links are ready), then tell everyone
        party = Party(node.identity, genesis)
        path = node.home / "games" / f"{party.table.game_id.hex()}.fdlog"
        node._told = set()
        node._attach(party, endpoints, path, fresh=True)
        self.refresh_bootstrap()
        for p in everyone[1:]:
            await node._send(p["curve"], {"t": "start", "genesis": genesis, "endpoints": endpoints})
        await node._begin_playing()

    def _genesis_body(self, infos: list[PartyInfo]) -> dict[str, Any]:
        """The genesis body with the table's mode, proof and stall deadline (the terms shown)."""
        assert self.terms is not None
        proof, stall = self.terms.proof, self.terms.stall_after
        rounds = proof.rounds if proof.kind == policy.CC else self.shuffle_rounds
        on_stall = self.terms.on_stall or "close"
        return genesis_body(
            self.game, self.seats, infos, self.options, rounds, self.mode,
            proof=proof.kind, stall_after=stall, on_stall=on_stall,
        )  # fmt: skip

class Bootstrap(threading.Thread):
    """The opener's plaintext bootstrap (``fairdeck join HOST:PORT`` asks it for the mesh key), served
    by a thread with its own socket: a flood on the mesh, or a long step of the game on the event
    loop, never keeps a joiner waiting. It answers every request with :attr:`reply`, which the lobby
    sets on the event loop (one reference assignment, so no lock is needed)."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(name="fairdeck-bootstrap", daemon=True)
        self._ctx = zmq.Context()
        self._sock = self._ctx.socket(zmq.REP)
        self._sock.linger = 0
        self._sock.setsockopt(zmq.MAXMSGSIZE, 4096)
        try:
            if port:
                self._sock.bind(f"tcp://{host}:{port}")
                self.port = port
            else:
                self.port = self._sock.bind_to_random_port(f"tcp://{host}")
        except zmq.ZMQError:
            self._ctx.destroy(linger=0)
            raise
        self.reply = pack({})
        self.spectators: Callable[[], tuple[list[Entry], bool]] | None = None
        """Set when spectators are welcome: the log so far, and whether the game has ended."""
        self._halt = threading.Event()

    def run(self) -> None:
        """Answer bootstrap requests with :attr:`reply` until stopped (the thread's body)."""
        try:
            while not self._halt.is_set():
                if not self._sock.poll(200):
                    continue
                request = self._sock.recv()
                self._sock.send(self._answer(request))
        except zmq.ZMQError:
            pass
        finally:
            self._sock.close(linger=0)

    def _answer(self, request: bytes) -> bytes:
        """The table's info, or for ``{"t": "watch", "next": N}`` the log's entries from ``N`` on
        (at most :data:`WATCH_BATCH` entries or :data:`WATCH_BYTES` bytes per answer)."""
        try:
            message = safe_unpack(request, WIRE_OBJECTS, WIRE_DEPTH)
        except LogError:
            return self.reply
        if not isinstance(message, dict) or message.get("t") != "watch":
            return self.reply
        start = message.get("next")
        if self.spectators is None:
            return pack({"t": "refused", "reason": "this table does not take spectators"})
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            return pack({"t": "refused", "reason": "a watch request names the next entry it wants"})
        entries, ended = self.spectators()
        batch, size = [], 0
        for entry in entries[start : start + WATCH_BATCH]:
            if batch and size + len(entry.envelope) > WATCH_BYTES:
                break
            batch.append(entry.envelope)
            size += len(entry.envelope)
        return pack({"t": "entries", "env": batch, "held": len(entries), "ended": ended})

    def stop(self) -> None:
        """Stop answering and close the socket (waits for the thread)."""
        self._halt.set()
        if self.is_alive():
            self.join(timeout=5)
        else:
            self._sock.close(linger=0)
        self._ctx.term()
