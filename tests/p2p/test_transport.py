"""Tests for p2p.transport: a CurveZMQ mesh on 127.0.0.1, in one process and across processes.

Every socket here binds or connects to 127.0.0.1 only. Subprocess peers run this module as a script
(``python -m tests.p2p.test_transport peer SEED``) and are always killed in a ``finally``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
import zmq
import zmq.asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.transport import (
    KIND_MESSAGE,
    KIND_PING,
    LOBBY_INBOX_BYTES,
    LOBBY_MAX_MESSAGE,
    Mesh,
    TransportError,
    curve_keypair_from_secret,
    key_fingerprint,
    parse_wire,
    raw_key,
    z85_key,
)

REPO = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run one async test body with an overall safety timeout (a hang fails, never blocks CI)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def keys(name: str) -> tuple[bytes, bytes]:
    """A deterministic test key pair (public, secret) for a named peer."""
    return curve_keypair_from_secret(name.encode().ljust(32, b"."))


async def eventually(cond: Callable[[], bool], timeout: float = 10.0, step: float = 0.02) -> bool:
    """Poll ``cond`` until it holds or ``timeout`` passes; returns its last value."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(step)
    return True


async def recv_within(mesh: Mesh, timeout: float = 5.0) -> tuple[bytes, bytes]:
    """Receive one message or fail the test after ``timeout`` seconds."""
    return await asyncio.wait_for(mesh.recv(), timeout)


async def nothing_within(mesh: Mesh, seconds: float) -> bool:
    """True if no message at all arrives on ``mesh`` for ``seconds``."""
    try:
        await asyncio.wait_for(mesh.recv(), seconds)
    except TimeoutError:
        return True
    return False


def raw_dealer(ctx: zmq.asyncio.Context, server: Mesh, public: bytes, secret: bytes) -> zmq.asyncio.Socket:
    """A bare CurveZMQ DEALER (no Mesh logic) that can send anything, like a hostile peer would."""
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    sock.curve_serverkey = z85_key(server.public_key)
    sock.curve_publickey = z85_key(public)
    sock.curve_secretkey = z85_key(secret)
    sock.connect(server.endpoint)
    return sock


# ---------------------------------------------------------------------------------------------
# keys and wire format
# ---------------------------------------------------------------------------------------------


def test_keypair_is_deterministic_and_matches_libzmq() -> None:
    public, secret = curve_keypair_from_secret(b"\x01" * 32)
    assert (public, secret) == curve_keypair_from_secret(b"\x01" * 32)
    assert len(public) == len(secret) == 32
    assert public != secret
    # libzmq derives the same public key from our secret, so CurveZMQ will accept the pair.
    assert zmq.curve_public(z85_key(secret)) == z85_key(public)
    other_public, other_secret = curve_keypair_from_secret(b"\x02" * 32)
    assert other_public != public and other_secret != secret
    # The transport secret is a one-way derivative, never the identity secret itself.
    assert secret != b"\x01" * 32


@pytest.mark.parametrize("bad", [b"", b"x" * 31, b"x" * 33, "not bytes"])
def test_keypair_rejects_bad_secrets(bad: Any) -> None:
    with pytest.raises(ValueError, match="32 secret bytes"):
        curve_keypair_from_secret(bad)


def test_key_forms_round_trip() -> None:
    public, _ = keys("alice")
    z = z85_key(public)
    assert len(z) == 40 and raw_key(z) == public and raw_key(z.decode()) == public
    assert key_fingerprint(public) == z[:8].decode()
    for bad in (b"x" * 10, b"\x00" * 40 + b"!", b"~" * 40):
        with pytest.raises(ValueError):
            raw_key(bad)


def test_parse_wire_accepts_exactly_the_two_shapes() -> None:
    assert parse_wire([KIND_MESSAGE, b"payload"]) == (KIND_MESSAGE, b"payload")
    assert parse_wire([KIND_MESSAGE, b""]) == (KIND_MESSAGE, b"")
    assert parse_wire([KIND_PING]) == (KIND_PING, None)
    for frames, reason in [
        ([], "empty"),
        ([KIND_MESSAGE], "1 frames"),
        ([KIND_MESSAGE, b"a", b"b"], "3 frames"),
        ([KIND_PING, b"x"], "heartbeat with 2"),
        ([b"mm", b"x"], "unknown frame kind"),
        ([b"", b"x"], "unknown frame kind"),
    ]:
        with pytest.raises(ValueError, match=reason):
            parse_wire(frames)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=12), max_size=5))
def test_parse_wire_never_fails_other_than_valueerror(frames: list[bytes]) -> None:
    try:
        kind, payload = parse_wire(frames)
    except ValueError:
        return
    assert (kind == KIND_MESSAGE and payload == frames[1] and len(frames) == 2) or (
        kind == KIND_PING and payload is None and frames == [KIND_PING]
    )


# ---------------------------------------------------------------------------------------------
# two peers, one process
# ---------------------------------------------------------------------------------------------


def test_two_peers_exchange_with_authenticated_sender_keys() -> None:
    async def body() -> None:
        (pa, sa), (pb, sb) = keys("alice"), keys("bob")
        async with Mesh(sa, allow=[pb]) as alice, Mesh(sb, allow=[pa]) as bob:
            assert alice.public_key == pa and bob.public_key == pb
            assert z85_key(sa).decode() not in repr(alice) and "127.0.0.1" in repr(alice)
            alice.connect(pb, bob.endpoint)
            bob.connect(pa, alice.endpoint)
            # Sent before the handshake completes: queued, then delivered.
            await alice.send(pb, b"hello bob")
            assert await recv_within(bob) == (pa, b"hello bob")
            await bob.send(pa, b"hello alice")
            assert await recv_within(alice) == (pb, b"hello alice")
            # Order is kept on a link, and a burst is delivered completely.
            for i in range(200):
                await alice.send(pb, b"%d" % i)
            got = [await recv_within(bob) for _ in range(200)]
            assert got == [(pa, b"%d" % i) for i in range(200)]
            assert await eventually(lambda: alice.is_connected(pb) and bob.is_connected(pa))
            assert alice.peers() == [pb]

    run(body())


def test_sender_key_comes_from_the_handshake_not_from_the_sender() -> None:
    async def body() -> None:
        (_, sa), (pb, sb), (_, sm) = keys("alice"), keys("bob"), keys("mallory")
        ctx = zmq.asyncio.Context()
        try:
            async with Mesh(sa, allow=[pb]) as alice:
                # Mallory claims Bob's public key but cannot complete the handshake without his secret.
                forged = raw_dealer(ctx, alice, pb, sm)
                await forged.send_multipart([KIND_MESSAGE, b"I am bob"])
                # Bob (a raw socket, so the payload can say anything) claims to be Alice in the payload.
                honest = raw_dealer(ctx, alice, pb, sb)
                await honest.send_multipart([KIND_MESSAGE, b"sender=alice"])
                sender, payload = await recv_within(alice)
                assert (sender, payload) == (pb, b"sender=alice")
                assert await nothing_within(alice, 0.5), "the forged handshake delivered something"
        finally:
            ctx.destroy(linger=0)

    run(body())


# ---------------------------------------------------------------------------------------------
# allowlist
# ---------------------------------------------------------------------------------------------


def test_disallowed_peer_cannot_deliver_and_gets_nothing() -> None:
    async def body() -> None:
        (pa, sa), (pb, sb), (pm, sm) = keys("alice"), keys("bob"), keys("mallory")
        async with Mesh(sa, allow=[pb]) as alice, Mesh(sb) as bob, Mesh(sm) as mallory:
            mallory.connect(pa, alice.endpoint)
            await mallory.send(pa, b"let me in")
            # Alice's ZAP handler refuses the handshake, and Mallory's link learns it was refused.
            assert await eventually(lambda: mallory.status(pa).refused)
            assert not mallory.is_connected(pa)
            assert alice.dropped["zap: key not allowed"] >= 1
            # Alice will not open a link to, or send to, a key that is not allowed.
            with pytest.raises(TransportError, match="not allowed"):
                alice.connect(pm, mallory.endpoint)
            with pytest.raises(TransportError, match="not allowed"):
                await alice.send(pm, b"secret")
            bob.connect(pa, alice.endpoint)
            await bob.send(pa, b"from bob")
            # The first (and only) thing Alice receives is Bob's message.
            assert await recv_within(alice) == (pb, b"from bob")
            assert await nothing_within(alice, 0.3)
            assert await nothing_within(mallory, 0.2)
            assert alice.last_seen(pm) is None

    run(body())


def test_shrinking_the_allowlist_cuts_an_established_peer() -> None:
    """Lobby (anyone) -> genesis (seated keys only): an unseated peer is cut off both ways, its
    connection closed (not merely ignored), and a seated peer's link comes back by itself."""

    async def body() -> None:
        (pa, sa), (pb, sb), (pm, sm) = keys("alice"), keys("bob"), keys("mallory")
        async with Mesh(sa) as alice, Mesh(sb) as bob, Mesh(sm) as mallory:
            for a, b in [(alice, bob), (alice, mallory), (bob, alice), (mallory, alice)]:
                a.connect(b.public_key, b.endpoint)
            await mallory.send(pa, b"lobby chat")
            assert await recv_within(alice) == (pm, b"lobby chat")
            await alice.send(pm, b"welcome")
            assert await recv_within(mallory) == (pa, b"welcome")
            assert await eventually(lambda: mallory.is_connected(pa) and bob.is_connected(pa))

            alice.allow([pb])  # the genesis seats only Bob
            assert alice.peers() == [pb]
            with pytest.raises(TransportError, match="not allowed"):
                await alice.send(pm, b"after genesis")
            # Mallory's connection, made in the lobby, is closed; coming back, it is refused.
            assert await eventually(lambda: mallory.status(pa).refused)
            assert alice.dropped["zap: key not allowed"] >= 1
            # Bob's link was cut too, and reconnects by itself (what was in flight at the cut may
            # be lost: the table protocol's catch-up is there for that).
            got = None
            for _ in range(100):
                await bob.send(pa, b"seated")
                with contextlib.suppress(TimeoutError):
                    got = await asyncio.wait_for(alice.recv(), 0.1)
                    break
            assert got == (pb, b"seated")
            while not await nothing_within(alice, 0.3):
                pass  # further probes from Bob only
            assert await nothing_within(mallory, 0.2)

    run(body())


def test_zap_handler_grants_only_allowed_curve_keys() -> None:
    """The ZAP gate itself (RFC 27 frames), including requests libzmq would never send."""
    (pb, _), (pm, _) = keys("bob"), keys("mallory")
    mesh = Mesh(keys("alice")[1], allow=[pb])
    head = [b"1.0", b"req-7", b"fairdeck", b"127.0.0.1", b""]
    assert mesh._zap_reply([*head, b"CURVE", pb]) == [b"1.0", b"req-7", b"200", b"OK", z85_key(pb), b""]
    assert mesh._zap_reply([*head, b"CURVE", pm])[2] == b"400"
    assert mesh._zap_reply([*head, b"PLAIN", b"bob", b"pw"])[2] == b"400"
    assert mesh._zap_reply([*head, b"CURVE", pb[:31]])[2] == b"400"
    assert mesh._zap_reply([b"2.0", *head[1:], b"CURVE", pb])[2] == b"400"
    assert mesh._zap_reply([b"1.0"])[2] == b"500"
    mesh.allow(None)  # lobby: any CURVE key, still never a non-CURVE client
    assert mesh._zap_reply([*head, b"CURVE", pm])[2:5] == [b"200", b"OK", z85_key(pm)]
    assert mesh._zap_reply([*head, b"NULL"])[2] == b"400"


# ---------------------------------------------------------------------------------------------
# hostile input
# ---------------------------------------------------------------------------------------------


def test_oversized_frames_are_dropped_and_the_peer_keeps_working() -> None:
    async def body() -> None:
        limit = 64 * 1024
        (pa, sa), (pb, sb), (pc, sc) = keys("alice"), keys("bob"), keys("carol")
        ctx = zmq.asyncio.Context()
        try:
            async with Mesh(sa, max_message=limit) as alice, Mesh(sc, max_message=limit) as carol:
                carol.connect(pa, alice.endpoint)
                with pytest.raises(ValueError, match="exceeds max_message"):
                    await carol.send(pa, b"x" * (limit + 1))
                await carol.send(pa, b"x" * limit)  # exactly the limit is fine
                assert await recv_within(alice) == (pc, b"x" * limit)

                bob = raw_dealer(ctx, alice, pb, sb)
                # Far over the limit: libzmq refuses the frame and drops Bob's connection.
                await bob.send_multipart([KIND_MESSAGE, b"y" * (16 * limit)])
                await carol.send(pa, b"carol after the big frame")
                assert await recv_within(alice) == (pc, b"carol after the big frame")
                # Bob's DEALER reconnects by itself; keep probing until a small message gets through
                # (messages in flight when libzmq cut the connection are lost, by design).
                received: list[bytes] = []
                for i in range(200):
                    await bob.send_multipart([KIND_MESSAGE, b"probe %d" % i])
                    try:
                        sender, payload = await asyncio.wait_for(alice.recv(), 0.05)
                    except TimeoutError:
                        continue
                    assert sender == pb
                    received.append(payload)
                    break
                assert received and received[0].startswith(b"probe")
                # Just over the limit but within libzmq's framing slack: the mesh drops it itself.
                await bob.send_multipart([KIND_MESSAGE, b"z" * (limit + 1)])
                await bob.send_multipart([KIND_MESSAGE, b"small"])
                while True:
                    sender, payload = await recv_within(alice)
                    if not payload.startswith(b"probe"):
                        break
                assert (sender, payload) == (pb, b"small")
                assert alice.dropped["oversized"] == 1
        finally:
            ctx.destroy(linger=0)

    run(body())


GARBAGE: list[tuple[list[bytes], str]] = [
    ([b"m"], "malformed: message with 1 frames, expected 2"),
    ([b"m", b"a", b"b"], "malformed: message with 3 frames, expected 2"),
    ([b"p", b"extra"], "malformed: heartbeat with 2 frames, expected 1"),
    ([b"\x00\xff garbage", b"x"], "malformed: unknown frame kind b'\\x00\\xff garba'"),
    ([b""], "malformed: unknown frame kind b''"),
    ([b"M", b"upper-case kind"], "malformed: unknown frame kind b'M'"),
]


def test_garbage_multipart_frames_are_dropped_with_reasons() -> None:
    async def body() -> None:
        (_, sa), (pb, sb) = keys("alice"), keys("bob")
        ctx = zmq.asyncio.Context()
        try:
            async with Mesh(sa) as alice:
                bob = raw_dealer(ctx, alice, pb, sb)
                for frames, _ in GARBAGE:
                    await bob.send_multipart(frames)
                await bob.send_multipart([KIND_PING])  # valid, never delivered to the app
                await bob.send_multipart([KIND_MESSAGE, b"valid"])
                assert await recv_within(alice) == (pb, b"valid")
                expected: dict[str, int] = {}
                for _, reason in GARBAGE:
                    expected[reason] = expected.get(reason, 0) + 1
                assert dict(alice.dropped) == expected
                assert alice.last_seen(pb) is not None
        finally:
            ctx.destroy(linger=0)

    run(body())


def test_the_lobby_takes_only_small_messages_and_the_game_takes_large_ones() -> None:
    async def body() -> None:
        (pa, sa), (pb, sb), (pm, sm) = keys("alice"), keys("bob"), keys("mallory")
        ctx = zmq.asyncio.Context()
        try:
            async with Mesh(sa) as alice:  # allowlist open: the lobby
                assert alice.lobby_max_message == LOBBY_MAX_MESSAGE < alice.max_message
                mallory = raw_dealer(ctx, alice, pm, sm)
                mallory.setsockopt(zmq.MAXMSGSIZE, -1)
                await mallory.send_multipart([KIND_MESSAGE, b"x" * (LOBBY_MAX_MESSAGE + 1)])  # dropped
                await mallory.send_multipart([KIND_MESSAGE, b"m" * (4 * LOBBY_MAX_MESSAGE)])  # cut by libzmq
                received = []
                for i in range(200):  # the DEALER reconnects by itself after the cut
                    await mallory.send_multipart([KIND_MESSAGE, b"probe %d" % i])
                    with contextlib.suppress(TimeoutError):
                        received.append(await asyncio.wait_for(alice.recv(), 0.05))
                        break
                assert received and received[0][1].startswith(b"probe")
                assert alice.dropped["oversized"] >= 1

                bob = Mesh(sb, allow=[pa])
                async with bob:
                    bob.connect(pa, alice.endpoint)
                    alice.allow([pb])  # the genesis: the game's limit, for seated keys only
                    big = os.urandom(2 * 1024 * 1024)
                    await bob.send(pa, big)
                    while (got := await recv_within(alice))[0] != pb:
                        pass  # a probe of Mallory's still in the inbox
                    assert got == (pb, big)
        finally:
            ctx.destroy(linger=0)

    run(body())


def test_a_lobby_flood_is_dropped_past_a_byte_bound_and_costs_nothing_later() -> None:
    async def body() -> None:
        (_, sa), (pm, sm) = keys("alice"), keys("mallory")
        ctx = zmq.asyncio.Context()
        try:
            async with Mesh(sa) as alice:
                mallory = raw_dealer(ctx, alice, pm, sm)
                chunk = b"f" * (60 * 1024)
                for _ in range(300):  # 18 MB, never read by the application meanwhile
                    await mallory.send_multipart([KIND_MESSAGE, chunk])
                await mallory.send_multipart([KIND_MESSAGE, b"last"])
                assert await eventually(lambda: alice.dropped["inbox full (lobby)"] >= 250)
                # what waits unread is bounded by bytes, however much was sent
                assert sum(alice._queued.values()) <= LOBBY_INBOX_BYTES
        finally:
            ctx.destroy(linger=0)

    run(body())


def test_a_seated_peer_meets_backpressure_past_its_byte_bound_and_nothing_is_lost() -> None:
    async def body() -> None:
        (pa, sa), (pb, sb) = keys("alice"), keys("bob")
        bound = 4 * 1024 * 1024
        async with Mesh(sa, allow=[pb], inbox_bytes=bound) as alice, Mesh(sb, allow=[pa]) as bob:
            bob.connect(pa, alice.endpoint)
            sent = [os.urandom(1024 * 1024) for _ in range(12)]
            for payload in sent:
                await bob.send(pa, payload)
            await asyncio.sleep(1.0)  # alice reads nothing meanwhile
            assert sum(alice._queued.values()) <= bound
            got = [await recv_within(alice) for _ in sent]
            assert got == [(pb, payload) for payload in sent]

    run(body())


def test_sending_never_waits_for_a_peer_that_reads_nothing_and_nothing_is_lost() -> None:
    # More messages than every queue on the way holds (our libzmq pipe, TCP, the peer's receive
    # limit and inbox): a send that waited would block its caller for good while the peer reads
    # nothing, and two peers each waiting to send to the other would stall a table.
    async def body() -> None:
        (pa, sa), (pb, sb) = keys("alice"), keys("bob")
        count = 8000  # of 2 KiB: 16 MiB, more than libzmq and TCP hold on loopback
        async with Mesh(sa, allow=[pb], queue_size=64) as alice, Mesh(sb, allow=[pa]) as bob:
            bob.connect(pa, alice.endpoint)
            sent = [i.to_bytes(4, "big") * 512 for i in range(count)]
            for payload in sent:
                await asyncio.wait_for(bob.send(pa, payload), 0.5)
            await asyncio.sleep(0.5)  # alice reads nothing meanwhile; bob's own queue holds the rest
            assert bob._links[raw_key(pa)].outbox, "everything fitted into libzmq: the test proves nothing"
            got = [await recv_within(alice) for _ in sent]
            assert got == [(pb, payload) for payload in sent]  # all of it, in order
            assert not bob._links[raw_key(pa)].outbox

    run(body())


def test_drop_warnings_are_rate_limited(caplog: pytest.LogCaptureFixture) -> None:
    async def body() -> None:
        (_, sa), (pb, sb) = keys("alice"), keys("bob")
        ctx = zmq.asyncio.Context()
        try:
            async with Mesh(sa) as alice:
                bob = raw_dealer(ctx, alice, pb, sb)
                for i in range(500):
                    await bob.send_multipart([b"k%d" % i, b"x"])  # 500 different reasons, even
                await bob.send_multipart([KIND_MESSAGE, b"valid"])
                assert await recv_within(alice) == (pb, b"valid")
                assert sum(alice.dropped.values()) == 500
                assert len(alice.dropped) <= 65  # distinct reasons counted are bounded too
        finally:
            ctx.destroy(linger=0)

    with caplog.at_level("WARNING", logger="p2p.transport"):
        run(body())
    lines = [r for r in caplog.records if "dropped message" in r.getMessage()]
    assert 1 <= len(lines) <= 31


def test_non_curve_clients_and_raw_tcp_junk_do_not_hurt() -> None:
    async def body() -> None:
        (pa, sa), (pb, sb) = keys("alice"), keys("bob")
        ctx = zmq.asyncio.Context()
        try:
            async with Mesh(sa) as alice, Mesh(sb) as bob:
                # A plain (unencrypted) ZeroMQ client: the CURVE server refuses to talk to it.
                plain = ctx.socket(zmq.DEALER)
                plain.linger = 0
                plain.connect(alice.endpoint)
                await plain.send_multipart([KIND_MESSAGE, b"plaintext"])
                # Random bytes and an HTTP request straight on the TCP port.
                for junk in (os.urandom(4096), b"GET / HTTP/1.0\r\n\r\n", b"\xff" * 64 + b"\x7f" * 8):
                    with socket.create_connection(("127.0.0.1", alice.port), timeout=2) as raw:
                        raw.sendall(junk)
                bob.connect(pa, alice.endpoint)
                await bob.send(pa, b"still alive?")
                assert await recv_within(alice) == (pb, b"still alive?")
                assert await nothing_within(alice, 0.3)
        finally:
            ctx.destroy(linger=0)

    run(body())


# ---------------------------------------------------------------------------------------------
# liveness, reconnection, shutdown
# ---------------------------------------------------------------------------------------------


def test_last_seen_follows_heartbeats_and_a_restarted_peer_is_reached_again() -> None:
    async def body() -> None:
        hb = 0.05
        (pa, sa), (pb, sb) = keys("alice"), keys("bob")
        links: list[tuple[bytes, bool]] = []
        async with Mesh(sa, heartbeat=hb, on_link=lambda key, up: links.append((key, up))) as alice:
            bob = await Mesh(sb, heartbeat=hb).start()
            try:
                alice.connect(pb, bob.endpoint)
                bob.connect(pa, alice.endpoint)
                assert await eventually(lambda: alice.last_seen(pb) is not None)
                first = alice.last_seen(pb)
                assert first is not None
                # No application data is sent; heartbeats alone move last_seen forward.
                assert await eventually(lambda: (alice.last_seen(pb) or 0.0) > first)
                assert alice.status(pb).connected and not alice.status(pb).refused
                assert (alice.silent_for(pb) or 0.0) >= 0.0
            finally:
                await bob.close()
            # Bob is gone: the link goes down and the silence grows past many heartbeat periods.
            assert await eventually(lambda: not alice.is_connected(pb))
            assert await eventually(lambda: (alice.silent_for(pb) or 0.0) > 10 * hb)
            # Bob restarts (same key, new port); Alice re-points the link and traffic resumes.
            async with Mesh(sb, heartbeat=hb) as bob2:
                alice.connect(pb, bob2.endpoint)
                bob2.connect(pa, alice.endpoint)
                await alice.send(pb, b"welcome back")
                assert await recv_within(bob2) == (pa, b"welcome back")
                await bob2.send(pa, b"thanks")
                assert await recv_within(alice) == (pb, b"thanks")
                assert await eventually(lambda: alice.is_connected(pb))
                assert (alice.silent_for(pb) or 99.0) < 10 * hb
                # The protocol was told each time the link to Bob came up or went down.
                assert links == [(pb, True), (pb, False), (pb, True)]

    run(body())


def test_close_wakes_receivers_and_is_idempotent() -> None:
    async def body() -> None:
        _, sa = keys("alice")
        mesh = Mesh(sa)
        with pytest.raises(TransportError, match="not started"):
            await mesh.recv()
        await mesh.start()
        waiter = asyncio.ensure_future(mesh.recv())
        await asyncio.sleep(0.05)
        await mesh.close()
        with pytest.raises(TransportError, match="closed"):
            await asyncio.wait_for(waiter, 5)
        await mesh.close()  # second close is a no-op
        assert mesh.closed
        with pytest.raises(TransportError, match="closed"):
            await mesh.send(keys("bob")[0], b"x")
        with pytest.raises(TransportError, match="closed"):
            await mesh.start()

    run(body())


def test_close_with_linger_flushes_queued_messages() -> None:
    async def body() -> None:
        (_, sa), (pb, sb) = keys("alice"), keys("bob")
        async with Mesh(sb) as bob:
            alice = await Mesh(sa).start()
            alice.connect(pb, bob.endpoint)
            for i in range(50):
                await alice.send(pb, b"%d" % i)
            await alice.close(linger=5.0)
            got = [await recv_within(bob) for _ in range(50)]
            assert [p for _, p in got] == [b"%d" % i for i in range(50)]

    run(body())


def test_api_misuse_raises_clear_errors() -> None:
    async def body() -> None:
        (pa, sa), (pb, _) = keys("alice"), keys("bob")
        with pytest.raises(ValueError):
            Mesh(b"short")
        with pytest.raises(ValueError, match="max_message"):
            Mesh(sa, max_message=0)
        async with Mesh(sa) as alice:
            with pytest.raises(ValueError, match="itself"):
                alice.connect(pa, alice.endpoint)
            with pytest.raises(ValueError, match="bad endpoint"):
                alice.connect(pb, "127.0.0.1:5555")
            with pytest.raises(TransportError, match="connect"):
                await alice.send(pb, b"nobody there")
            alice.connect(pb, "tcp://127.0.0.1:9")
            with pytest.raises(TypeError):
                await alice.send(pb, "text")  # type: ignore[arg-type]
            alice.connect(pb, "tcp://127.0.0.1:9")  # same endpoint again: no-op
            assert alice.peers() == [pb]
            alice.disconnect(pb)
            assert alice.peers() == [] and not alice.is_connected(pb)

    run(body())


# ---------------------------------------------------------------------------------------------
# four peers, four processes
# ---------------------------------------------------------------------------------------------

PEER_NAMES = ["p0", "p1", "p2", "p3"]


def _spawn_peer(name: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.p2p.test_transport", "peer", name],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def _readline(proc: subprocess.Popen[str], timeout: float = 20.0) -> dict[str, Any]:
    assert proc.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), timeout)
    if not line:
        err = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"peer process ended early: {err[-2000:]}")
    return json.loads(line)  # type: ignore[no-any-return]


def test_four_peers_in_four_processes_form_a_full_mesh() -> None:
    """Peer p0 runs here; p1..p3 are separate processes. Everyone greets everyone once."""

    async def body(procs: list[subprocess.Popen[str]]) -> None:
        public = {n: keys(n)[0] for n in PEER_NAMES}
        async with Mesh(keys("p0")[1], allow=public.values()) as me:
            endpoints = {"p0": me.endpoint}
            for name, proc in zip(PEER_NAMES[1:], procs, strict=True):
                hello = await _readline(proc)
                assert bytes.fromhex(hello["key"]) == public[name]
                endpoints[name] = hello["endpoint"]
            table = [[public[n].hex(), endpoints[n]] for n in PEER_NAMES]
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps({"table": table}) + "\n")
                proc.stdin.flush()
            # closing an allowlist cuts the connections made while it was open, and what was in
            # flight on them; so everyone closes theirs before anyone greets
            for proc in procs:
                assert await _readline(proc) == {"ready": True}
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            for name in PEER_NAMES[1:]:
                me.connect(public[name], endpoints[name])
                await me.send(public[name], b"hello from p0")
            mine = [await recv_within(me, 20) for _ in range(3)]
            reports = [await _readline(proc) for proc in procs]
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("quit\n")
                proc.stdin.flush()
        by_key = {public[n]: n for n in PEER_NAMES}
        assert sorted((by_key[k], p) for k, p in mine) == [
            (n, f"hello from {n}".encode()) for n in ["p1", "p2", "p3"]
        ]
        for name, report in zip(PEER_NAMES[1:], reports, strict=True):
            got = sorted((by_key[bytes.fromhex(k)], bytes.fromhex(p)) for k, p in report["got"])
            others = [n for n in PEER_NAMES if n != name]
            # Each process received exactly one greeting from each other peer, under the sender's
            # authenticated key, and the payload's claim matches it.
            assert got == [(n, f"hello from {n}".encode()) for n in others]

    procs = [_spawn_peer(n) for n in PEER_NAMES[1:]]
    try:
        run(body(procs))
        for proc in procs:
            assert proc.wait(timeout=20) == 0
    finally:
        for proc in procs:
            _reap(proc)


def _reap(proc: subprocess.Popen[str]) -> None:
    """Kill a helper process if it still runs, wait for it and close its pipes."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


async def _peer_main(name: str) -> None:
    """Subprocess side: print our endpoint, read the table, greet everyone, report what came in."""
    loop = asyncio.get_running_loop()
    readline: Callable[[], Awaitable[str]] = lambda: loop.run_in_executor(None, sys.stdin.readline)  # noqa: E731
    public, secret = keys(name)
    async with Mesh(secret) as mesh:
        print(json.dumps({"key": public.hex(), "endpoint": mesh.endpoint}), flush=True)
        table = [(bytes.fromhex(k), e) for k, e in json.loads(await readline())["table"]]
        mesh.allow(k for k, _ in table)
        print(json.dumps({"ready": True}), flush=True)
        await readline()  # "go": every peer has closed its allowlist
        others = [(k, e) for k, e in table if k != public]
        for key, endpoint in others:
            mesh.connect(key, endpoint)
            await mesh.send(key, f"hello from {name}".encode())
        got = [await mesh.recv() for _ in others]
        print(json.dumps({"got": [[k.hex(), p.hex()] for k, p in got]}), flush=True)
        await readline()  # stay up until the parent has everything it needs


# ---------------------------------------------------------------------------------------------
# a seated peer that floods what we connected to it, then hangs up
# ---------------------------------------------------------------------------------------------


def test_a_peer_that_floods_our_outbound_link_and_hangs_up_cannot_crash_us() -> None:
    """The hostile peer's ROUTER (here, in the test) sends our DEALER — which never reads — more
    than it will take, then closes. With ZMTP heartbeats on that DEALER, libzmq 4.3.5 aborted the
    victim process on the first such round (``Assertion failed: !_io_error``). The victim runs in
    its own process so that an abort is an exit status here, not the end of pytest."""
    public, secret = keys("hostile")
    victim = subprocess.Popen(
        [sys.executable, "-m", "tests.p2p.test_transport", "victim", public.hex()],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ctx = zmq.Context()
    flood = b"x" * 3000  # under the DEALER's frame limit, so each one is taken in until it stops reading
    rounds = 6
    try:
        assert victim.stdin is not None and victim.stdout is not None
        for index in range(rounds):
            router = ctx.socket(zmq.ROUTER)
            router.linger = 0
            router.curve_server = True
            router.curve_secretkey = z85_key(secret)
            router.curve_publickey = z85_key(public)
            router.rcvtimeo = 20_000
            port = router.bind_to_random_port("tcp://127.0.0.1")
            victim.stdin.write(f"tcp://127.0.0.1:{port}\n")
            victim.stdin.flush()
            identity, *_ = router.recv_multipart()  # the victim's greeting: its link is up
            sent = 0
            for _ in range(5000):
                try:
                    router.send_multipart([identity, KIND_MESSAGE, flood], zmq.NOBLOCK)
                    sent += 1
                except zmq.Again:
                    break
            assert sent > 1  # more than the DEALER takes in: its input stops
            router.close(linger=0)  # hang up
            line = victim.stdout.readline()
            died = "" if line else (victim.poll(), victim.stderr.read() if victim.stderr else "")
            assert line == f"alive {index}\n", died
        victim.stdin.write("quit\n")
        victim.stdin.flush()
        assert victim.wait(timeout=20) == 0
    finally:
        ctx.destroy(linger=0)
        _reap(victim)


async def _victim_main(hostile: bytes) -> None:
    """Subprocess side: connect to each endpoint given on stdin, greet, outlive several heartbeats."""
    loop = asyncio.get_running_loop()
    readline: Callable[[], Awaitable[str]] = lambda: loop.run_in_executor(None, sys.stdin.readline)  # noqa: E731
    async with Mesh(keys("victim")[1], heartbeat=0.05, allow=[hostile]) as mesh:
        index = 0
        while (endpoint := (await readline()).strip()) not in ("", "quit"):
            mesh.connect(hostile, endpoint)
            await mesh.send(hostile, b"hello")
            await asyncio.sleep(0.5)  # ten heartbeat periods on a connection that was flooded and cut
            print(f"alive {index}", flush=True)
            index += 1


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "peer":
    asyncio.run(_peer_main(sys.argv[2]))
if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "victim":
    asyncio.run(_victim_main(bytes.fromhex(sys.argv[2])))
