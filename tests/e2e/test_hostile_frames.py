"""Hostile traffic against a live peer process: it must reject everything with a logged reason, give
no game data to a key that is not seated, and keep playing to a clean end.

The game is frozen while the attack runs (every other peer gets SIGSTOP), so the victim's log head
is known exactly and a forged entry for "the next sequence number" really targets the next one.
Then the others continue and the game must finish with identical logs and a clean audit.

Attackers (all from this test process, over 127.0.0.1 only):

- a fresh identity: a CurveZMQ mesh to the victim's endpoint (refused by ZAP, receives nothing), a
  ``Node.join`` at the host's bootstrap (the table is full), plain TCP garbage, and a ZeroMQ socket
  without CURVE;
- a *seated* transport key (the test owns every peer's home, so it can use another seat's key):
  malformed multipart frames, non-msgpack and untyped payloads, an oversized message (logged by the
  mesh) and a far too large one (cut by libzmq), bad ``entry``/``hello`` messages, envelopes forged
  with the wrong signing key, with a malformed payload, from another game, and validly signed
  entries with a bad body or out of turn;
- a mesh holding that stolen seated key but listening elsewhere asks for the whole log with
  ``hello``: the victim answers the seat's real endpoint, never the attacker.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq
import zmq.asyncio
import zmq.utils.monitor

from p2p.identity import Identity
from p2p.log import ZERO_HASH, make_entry, pack, read_log
from p2p.node import Node, NodeError
from p2p.protocol import Table
from p2p.transport import DEFAULT_MAX_MESSAGE, Mesh, curve_keypair_from_secret, z85_key
from tests.e2e.peer_support import FAIRDECK, REPO, Cluster, Peer, read_entries, wait_for

ROUNDS = 8


def _curve_of(identity: Identity) -> tuple[bytes, bytes]:
    """A peer's transport key pair, derived from its identity exactly as ``Node`` does."""
    return curve_keypair_from_secret(identity.derive("transport", b""))


def _curve_dealer(
    ctx: zmq.asyncio.Context, secret: bytes, public: bytes, server: bytes, endpoint: str
) -> tuple[zmq.asyncio.Socket, zmq.asyncio.Socket]:
    """A raw DEALER that completes the CurveZMQ handshake with ``secret`` and sends any frames."""
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    sock.curve_secretkey = z85_key(secret)
    sock.curve_publickey = z85_key(public)
    sock.curve_serverkey = z85_key(server)
    sock.setsockopt(zmq.MAXMSGSIZE, -1)
    monitor = sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED)
    sock.connect(endpoint)
    return sock, monitor


async def _next_event(monitor: zmq.asyncio.Socket, timeout: float) -> int:
    frames = await asyncio.wait_for(monitor.recv_multipart(), timeout)
    return zmq.utils.monitor.parse_monitor_message(frames)["event"]  # type: ignore[no-any-return]


async def _join_as_stranger(address: str, home: Path) -> tuple[str, bool]:
    """A fresh identity tries to take a seat at the running table: refused, and it has no log."""
    node = Node(Identity.generate(), home, name="mallory")
    try:
        await node.join(address, timeout=20)
        outcome = "seated?!"
    except NodeError as exc:
        outcome = str(exc)
    finally:
        await node.close()
    return outcome, any(home.glob("games/*.fdlog"))


async def _attack(cluster: Cluster, victim: Peer, thief: Peer) -> dict[str, Any]:
    """Run every attack against ``victim``; return what the attackers observed."""
    seen: dict[str, Any] = {}
    log_path = victim.log_path()
    assert log_path is not None
    entries = read_entries(log_path)
    genesis, head = entries[0], entries[-1]
    table = Table(genesis.envelope)
    for entry in entries[1:]:
        table.accept(entry.envelope)
    expected = table.expected()
    assert expected is not None
    writer, kind = expected
    me = table.seat_of_key(victim.identity().public_key)
    stolen = thief.identity()
    k = table.seat_of_key(stolen.public_key)
    assert me is not None and k is not None and k != me
    roster = msgpack.unpackb((log_path.with_suffix(".roster")).read_bytes(), raw=False)
    endpoint: str = roster["endpoints"][me]
    victim_curve = table.parties[me].curve
    host, port = endpoint.removeprefix("tcp://").rsplit(":", 1)
    assert host == "127.0.0.1"
    next_seq = head.seq + 1

    # -- a fresh identity: refused at the handshake, receives nothing -------------------------------
    stranger = Identity.generate()
    s_public, s_secret = _curve_of(stranger)
    async with Mesh(s_secret, host="127.0.0.1") as mesh:
        mesh.connect(victim_curve, endpoint)
        await mesh.send(victim_curve, pack({"t": "hello", "next": 0}))
        await mesh.send(victim_curve, pack({"t": "join", "name": "mallory"}))
        wait_until = time.monotonic() + 10
        while not mesh.status(victim_curve).refused and time.monotonic() < wait_until:
            await asyncio.sleep(0.05)
        seen["stranger_refused"] = mesh.status(victim_curve).refused
        try:
            await asyncio.wait_for(mesh.recv(), 1.5)
            seen["stranger_got_data"] = True
        except TimeoutError:
            seen["stranger_got_data"] = False

    # -- not even ZeroMQ / not CURVE ----------------------------------------------------------------
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        raw.sendall(b"GET / HTTP/1.0\r\n\r\n" + os.urandom(4096))
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        raw.sendall(b"\xff" + b"\x00" * 8 + b"\x7f" + os.urandom(64 * 1024))  # a ZMTP-looking start
    ctx = zmq.asyncio.Context()
    try:
        plain = ctx.socket(zmq.DEALER)
        plain.linger = 0
        plain.connect(endpoint)
        await plain.send_multipart([b"m", pack({"t": "hello", "next": 0})])
        seen["plain_got_data"] = bool(await plain.poll(1500))

        # -- a seated transport key: frames and payloads ---------------------------------------------
        t_public, t_secret = _curve_of(stolen)
        dealer, monitor = _curve_dealer(ctx, t_secret, t_public, victim_curve, endpoint)
        seen["seated_handshake"] = await _next_event(monitor, 10) == zmq.EVENT_HANDSHAKE_SUCCEEDED
        wrong = Identity.generate()
        game = table.game_id

        def forged(seq: int, seat: int, kind: str, body: dict[str, Any], signer: Identity = wrong) -> bytes:
            return make_entry(signer, game, seq, table.chain_head, seat, kind, body).envelope

        # (a bad body signed by the very party that must write next is no forgery: it is kept as
        # proof and ends the game — tests/p2p/test_protocol_trust.py and test_commit_poisoning.py)
        # a party that is not the one to write next, validly signing entries out of its turn
        idle = next(p for p in range(len(table.parties)) if p not in (writer, me))
        idle_key = cluster.peer_at(idle).identity()

        bad_payload = pack([pack({"v": 1, "game": game, "seq": next_seq}), stolen.sign(b"x")])
        payloads = [
            b"\xc1\xc1 not msgpack",
            b"\xdd\xff\xff\xff\xff",  # an array announcing four billion items
            pack([1, 2, 3]),
            pack({"t": 5}),
            pack({"t": "entry", "env": "text, not bytes"}),
            pack({"t": "entry", "env": os.urandom(300)}),
            pack({"t": "entry", "env": bad_payload}),
            pack({"t": "entry", "env": forged(next_seq, k, "move", {"move": {"card": 0}})}),
            pack({"t": "entry", "env": forged(next_seq, me, "tokens", {"tokens": []})}),
            pack({"t": "entry", "env": forged(next_seq, 9, "move", {"move": {}})}),
            # from the future: buffered unverified until its seq comes (it must not spoil the log)
            pack({"t": "entry", "env": forged(next_seq + 3, k, "move", {"move": {}})}),
            pack({"t": "entry", "env": forged(next_seq, idle, "shuffle", {"pile": "x"}, idle_key)}),
            pack({"t": "entry", "env": forged(next_seq, idle, "final", {"result": {}}, idle_key)}),
            pack({"t": "entry", "env": forged(1, k, "countersign", {"genesis": b"\0" * 32})}),
            pack(
                {
                    "t": "entry",
                    "env": make_entry(stolen, os.urandom(16), next_seq, ZERO_HASH, k, "move", {}).envelope,
                }
            ),
            pack({"t": "hello", "next": "zero"}),
            pack({"t": "start", "genesis": b"junk", "endpoints": ["tcp://127.0.0.1:1"]}),
            pack({"t": "chat", "text": "x" * 100_000}),
        ]
        frames: list[list[bytes]] = [
            [b"zz", b"x"],
            [b"m"],
            [b"m", b"a", b"b"],
            [b"p", b"extra"],
            *([b"m", p] for p in payloads),
            [b"m", b"x" * (DEFAULT_MAX_MESSAGE + 200)],  # through libzmq's slack: the mesh drops it
        ]
        for message in frames:
            await dealer.send_multipart(message)
        await asyncio.sleep(1.0)
        # far beyond ZMQ_MAXMSGSIZE: libzmq cuts the connection before buffering it
        await dealer.send_multipart([b"m", b"y" * (3 * DEFAULT_MAX_MESSAGE)])
        events = []
        with contextlib.suppress(TimeoutError):
            while True:
                events.append(await _next_event(monitor, 5))
                if zmq.EVENT_DISCONNECTED in events:
                    break
        seen["oversized_cut"] = zmq.EVENT_DISCONNECTED in events
        monitor.close(linger=0)
        dealer.close(linger=0)
    finally:
        ctx.destroy(linger=0)

    # -- a stolen seated key listening elsewhere asks for everything: nothing comes to it --------------
    async with Mesh(t_secret, host="127.0.0.1") as mesh:
        mesh.connect(victim_curve, endpoint)
        await mesh.send(victim_curve, pack({"t": "hello", "next": 0}))
        try:
            await asyncio.wait_for(mesh.recv(), 2.0)
            seen["thief_got_data"] = True
        except TimeoutError:
            seen["thief_got_data"] = False
    seen["victim_alive"] = victim.running
    seen["victim_head_after"] = read_entries(log_path)[-1].seq
    seen["head_before"] = head.seq
    return seen


@pytest.mark.slow
def test_hostile_frames_are_refused_and_the_game_goes_on(tmp_path: Path) -> None:
    with Cluster(tmp_path / "table", rounds=ROUNDS) as cluster:
        cluster.start()
        victim = cluster.peer_at(1)
        thief = cluster.peer_at(2)
        others = [p for p in cluster.peers if p is not victim]
        path = wait_for(victim.log_path, 60, "the victim's log")
        wait_for(lambda: len(read_entries(path)) > 40, 120, "the game to be under way")
        assert cluster.address is not None
        joined, stranger_log = asyncio.run(_join_as_stranger(cluster.address, tmp_path / "stranger"))
        for peer in others:
            peer.signal(signal.SIGSTOP)
        try:
            # the victim writes what it owes, then waits for the frozen others
            size = -1
            while size != path.stat().st_size:
                size = path.stat().st_size
                time.sleep(0.5)
            seen = asyncio.run(_attack(cluster, victim, thief))
        finally:
            for peer in others:
                peer.signal(signal.SIGCONT)
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()
        errors = victim.errors()

    assert seen["stranger_refused"] and not seen["stranger_got_data"]
    assert "is full" in joined and not stranger_log
    assert not seen["plain_got_data"]
    assert seen["seated_handshake"] and seen["oversized_cut"]
    assert not seen["thief_got_data"]
    assert seen["victim_alive"] and seen["victim_head_after"] == seen["head_before"]

    # every rejection has a logged reason on the victim's side
    expected = [
        "zap: key not allowed",
        "malformed: unknown frame kind",
        "malformed: message with 1 frames",
        "malformed: message with 3 frames",
        "malformed: heartbeat with 2 frames",
        "oversized",
        "dropped a message that is not msgpack",
        "dropped a message without a type",
        "dropped a bad 'entry' message",
        "rejected: envelope is not valid msgpack",
        "rejected: payload must be an array of 7",
        "signature does not verify for seat",
        "seat 9 is not at this table",
        "rejected: entry belongs to another game",
        "dropped a bad 'hello' message",
    ]
    expected += [
        "out of turn",
        "rejected: conflicts with entry 1 and is not validly signed",
    ]
    missing = [text for text in expected if text not in errors]
    assert not missing, f"no logged reason for {missing}\n{errors[-4000:]}"
    assert "Traceback" not in errors

    assert len({p.read_bytes() for p in logs}) == 1
    assert read_log(logs[0]).torn_bytes == 0
    audit = subprocess.run(
        [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=180, cwd=REPO
    )
    assert audit.returncode == 0, audit.stdout
    assert "finished; result confirmed by all 4 parties" in audit.stdout
