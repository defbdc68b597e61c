"""The peer-to-peer transport: a full mesh of ZeroMQ links, encrypted and authenticated by CurveZMQ.

Theory of operation
-------------------
Every peer runs one :class:`Mesh`. It binds one ROUTER socket (a CurveZMQ *server*) and, for each
other peer it is told about with :meth:`Mesh.connect`, one DEALER socket (a CurveZMQ *client*
with this peer's own long-term key) connected to that peer's ROUTER. So a message from A to B
always travels A.DEALER[B] -> B.ROUTER, and a six-peer table holds 30 one-way links.

*Who sent it.* CurveZMQ proves to the server which client key is on the other end, and the ROUTER
asks our ZAP handler (an in-process REP socket in the mesh's own zmq context) whether that key may
connect. The handler answers with the key as the connection's ``User-Id``, and every received
message carries that property: :meth:`Mesh.recv` returns it as the sender key. Nothing the sender
writes into a frame can change it. On the client side, CurveZMQ checks that the server holds the
secret of the key we passed to :meth:`Mesh.connect`, so a link can only reach the peer we meant.

*Who may talk.* :meth:`Mesh.allow` sets the allowlist: ``None`` lets any key in (the lobby), a set
of keys lets only those in (after the genesis, the seated keys). It is enforced three times: by
ZAP at the handshake (a refused client gets nothing and delivers nothing), on every received
message (a connection made before the allowlist shrank is ignored from then on), and on
:meth:`Mesh.send` / :meth:`Mesh.connect` (we never talk to a key that is not allowed).

*Wire format.* A message on a link is a multipart ZeroMQ message ``[b"m", payload]``; a heartbeat
is ``[b"p"]``. Anything else is dropped with a logged reason and counted in :attr:`Mesh.dropped`,
so garbage from a peer never reaches the protocol and never crashes the reader. Frames larger than
``max_message`` (plus a little framing slack) are refused by libzmq itself (``ZMQ_MAXMSGSIZE``),
which drops the offending connection; the sender's DEALER reconnects on its own.

*Bounds.* While the allowlist is open (the lobby, where any key may connect) the ROUTER takes
frames of at most ``lobby_max_message`` (64 KiB) and at most ``LOBBY_INBOX_BYTES`` unread bytes per
sender (``LOBBY_INBOX_TOTAL`` in all); more is dropped. Closing the allowlist (the genesis) binds a
new ROUTER on the same port with the game's ``max_message``: every connection made in the lobby is
closed, seated peers' DEALERs reconnect by themselves, anyone else is refused by ZAP. (What was in
flight on a cut connection may be lost; the table protocol's catch-up fetches it again.) libzmq holds
at most ``RECEIVE_HWM`` messages per inbound connection before it stops reading it, and a seated
sender's unread bytes are bounded by ``inbox_bytes`` (the reader then waits: nothing is lost).
Oversized frames are dropped before they are copied; drop warnings are rate-limited.

*Liveness.* Every ``heartbeat`` seconds each connected DEALER sends a ``p`` frame, so the receiver
knows when it last heard from each peer (:meth:`Mesh.last_seen`, :meth:`Mesh.silent_for`), which a
UI can show as "seat 2 silent for 12 s". A dead outbound connection (the peer's machine gone, no
FIN ever coming) is noticed by the kernel: our ``p`` frames stay unacknowledged, and
``TCP_USER_TIMEOUT`` (libzmq's ``ZMQ_TCP_MAXRT``) ends the connection after ``3 * heartbeat``
(at least 3 s); the DEALER then reconnects by itself. No socket runs ZMTP heartbeats
(``ZMQ_HEARTBEAT_IVL``): libzmq 4.3.5 aborts the whole process (``Assertion failed: !_io_error``)
when a heartbeat timer fires on a connection whose input was stopped by the high-water mark and
then failed, which a peer can cause at will by flooding a connection and hanging up
(``test_a_peer_that_floods_our_outbound_link_and_hangs_up_cannot_crash_us``). Nothing legitimate
ever arrives on a DEALER, so it takes at most one small message in (``_DEALER_MAX_IN``): a peer
cannot make it buffer anything. A socket monitor on every DEALER tracks whether the outbound
link is up (:meth:`Mesh.is_connected`), and heartbeats are only queued on links that are up, so a
long outage never fills the send queue with pings.

*Sending never waits.* :meth:`Mesh.send` queues the payload on the link (at most ``OUTBOX_BYTES``;
past it the message is dropped and counted) and returns; a task per link hands the queue to the
DEALER with non-blocking sends, sleeping briefly while libzmq's own queue is full. So a caller —
the node's receive loop — never waits on a peer that reads nothing, and two peers can never each
wait to send to the other. Messages sent while a link is down stay queued and are delivered when
the peer comes back; catching up on anything lost in a crash is the table protocol's job (peers
exchange their last ``seq`` on reconnection).

Keys are raw 32-byte Curve25519 keys everywhere in this API; the Z85 text form (40 characters)
that pyzmq also uses is accepted on input. :func:`curve_keypair_from_secret` derives a peer's key
pair from a 32-byte secret, so the transport key follows from the player's identity.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import zmq
import zmq.asyncio
import zmq.utils.monitor
import zmq.utils.z85
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

__all__ = [
    "DEFAULT_MAX_MESSAGE",
    "Mesh",
    "RateLimit",
    "PeerStatus",
    "TransportError",
    "curve_keypair_from_secret",
    "key_fingerprint",
    "parse_wire",
    "raw_key",
    "z85_key",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_MESSAGE = 4 * 1024 * 1024
"""Default largest payload (bytes) a peer accepts in one message."""
LOBBY_MAX_MESSAGE = 64 * 1024
"""Largest payload accepted while the allowlist is open (the lobby): nobody is seated yet, and no
lobby message comes near it. libzmq refuses larger frames and cuts the connection."""
DEFAULT_INBOX_BYTES = 32 * 1024 * 1024
"""Received bytes that may wait for :meth:`Mesh.recv` per allowed (seated) sender; past it the reader
waits for the application (backpressure, nothing lost)."""
LOBBY_INBOX_BYTES = 256 * 1024
"""Received bytes that may wait per sender while the allowlist is open; past it messages are dropped."""
LOBBY_INBOX_TOTAL = 4 * 1024 * 1024
"""Received bytes that may wait from all senders together while the allowlist is open."""
OUTBOX_BYTES = 32 * 1024 * 1024
"""Bytes that may wait in our own send queue for one peer. :meth:`Mesh.send` never waits: a peer that
reads nothing for so long gets what no longer fits dropped (the table's catch-up fetches it again)."""
RECEIVE_HWM = 16
"""Messages libzmq may hold per inbound connection before it stops reading that connection (TCP
backpressure): what a peer can make us buffer is at most this many of its largest messages."""

KIND_MESSAGE = b"m"
"""First frame of an application message; the second frame is the payload."""
KIND_PING = b"p"
"""The only frame of a heartbeat."""

# libzmq's ZMQ_MAXMSGSIZE counts a whole frame; leave room so that a payload of exactly
# max_message bytes still passes, while anything clearly larger is refused before it is buffered.
_FRAME_SLACK = 1024
# Largest frame a DEALER takes in. Nothing legitimate is ever sent to it; the handshake's own
# commands (CurveZMQ WELCOME, READY with metadata) are a few hundred bytes.
_DEALER_MAX_IN = 4096
_ZAP_ENDPOINT = "inproc://zeromq.zap.01"
_ZAP_DOMAIN = b"fairdeck"
_HKDF_INFO = b"fairdeck/transport/curve25519/v1"
_MONITOR_EVENTS = (
    zmq.EVENT_HANDSHAKE_SUCCEEDED
    | zmq.EVENT_DISCONNECTED
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
    | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
)
_MAX_REASONS = 64  # distinct drop reasons counted one by one; any more are counted as "other"


class RateLimit:
    """Decides which warnings are written, so that a peer flooding us cannot flood the log too.

    A key (a reason) is let through the first time and then at most once per ``every`` seconds;
    on top of that, at most ``burst`` lines at once and ``per_second`` on average are let through
    whatever the keys (an attacker can vary the reason).
    """

    def __init__(self, every: float = 10.0, burst: float = 30.0, per_second: float = 1.0) -> None:
        self.every, self.burst, self.per_second = every, burst, per_second
        self._last: dict[str, float] = {}
        self._tokens = burst
        self._at = time.monotonic()
        self.suppressed = 0
        """Lines not written since the last one that was (tell it in the next line)."""

    def allow(self, key: str) -> bool:
        """True if a line for ``key`` may be written now."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.per_second)
        self._at = now
        last = self._last.get(key)
        if (last is not None and now - last < self.every) or self._tokens < 1:
            self.suppressed += 1
            return False
        if len(self._last) > 1024:
            self._last.clear()
        self._last[key] = now
        self._tokens -= 1
        return True

    def note(self) -> str:
        """`` (N similar lines not shown)`` once lines were suppressed, else empty; resets the count."""
        n, self.suppressed = self.suppressed, 0
        return f" ({n} similar lines not shown)" if n else ""


class TransportError(Exception):
    """A transport operation that cannot be done: mesh closed, unknown or disallowed peer."""


async def nothing_listens(host: str, port: int, timeout: float = 1.0) -> bool:
    """True if ``host:port`` refuses a TCP connection outright (nothing listens there), so that a
    mistyped address is said at once, not after a request's whole timeout. Anything else (it
    accepts, or a slow or filtered link) is False: the request itself then answers or times out."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except ConnectionRefusedError:
        return True
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return False


NOTHING_LISTENS = "nothing is listening there (check the address and the port; is the table still open?)"
"""What a player is told when :func:`nothing_listens`."""


def raw_key(key: bytes | str) -> bytes:
    """Return a Curve25519 key as 32 raw bytes, accepting raw bytes or the 40-character Z85 form.

    Raises ``ValueError`` for anything else.
    """
    if isinstance(key, str):
        key = key.encode("ascii", "replace")
    if not isinstance(key, bytes | bytearray):
        raise ValueError("a curve key must be bytes")
    if len(key) == 32:
        return bytes(key)
    if len(key) == 40:
        try:
            return zmq.utils.z85.decode(bytes(key))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError("invalid Z85 curve key") from exc
    raise ValueError(f"a curve key is 32 raw bytes or 40 Z85 characters, not {len(key)} bytes")


def z85_key(key: bytes | str) -> bytes:
    """Return a Curve25519 key in the 40-character Z85 form that pyzmq socket options take."""
    return zmq.utils.z85.encode(raw_key(key))


def key_fingerprint(key: bytes | str) -> str:
    """A short printable name for a *public* key, for logs and UIs (never use it on a secret)."""
    return z85_key(key)[:8].decode("ascii")


def curve_keypair_from_secret(secret: bytes) -> tuple[bytes, bytes]:
    """Derive a CurveZMQ key pair ``(public, secret)``, raw 32 bytes each, from a 32-byte secret.

    HKDF-SHA256 with a fixed, versioned label turns the secret (e.g. a player's identity seed)
    into an X25519 private key, so the same identity always gets the same transport key and the
    transport key reveals nothing about the identity secret.
    """
    if not isinstance(secret, bytes | bytearray) or len(secret) != 32:
        raise ValueError("curve_keypair_from_secret needs exactly 32 secret bytes")
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_HKDF_INFO).derive(bytes(secret))
    private = X25519PrivateKey.from_private_bytes(derived)
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return public, derived


def parse_wire(frames: list[bytes]) -> tuple[bytes, bytes | None]:
    """Parse the frames of one link message (without the ROUTER's routing id).

    Returns ``(kind, payload)``: ``(b"m", payload)`` for a message, ``(b"p", None)`` for a
    heartbeat. Raises ``ValueError`` naming the problem for anything else.
    """
    if not frames:
        raise ValueError("empty message")
    kind = frames[0]
    if kind == KIND_MESSAGE:
        if len(frames) != 2:
            raise ValueError(f"message with {len(frames)} frames, expected 2")
        return KIND_MESSAGE, frames[1]
    if kind == KIND_PING:
        if len(frames) != 1:
            raise ValueError(f"heartbeat with {len(frames)} frames, expected 1")
        return KIND_PING, None
    raise ValueError(f"unknown frame kind {kind[:8]!r}")


@dataclass(frozen=True)
class PeerStatus:
    """What the mesh knows about one peer, for a UI ("seat 2 silent for 12 s")."""

    key: bytes
    """The peer's raw public key."""
    endpoint: str | None
    """Where our DEALER connects to it, or ``None`` if we only heard from it."""
    connected: bool
    """Our outbound link to it has completed the CurveZMQ handshake and is up."""
    refused: bool
    """The peer's ROUTER refused our last handshake (we are not on its allowlist)."""
    last_seen: float | None
    """``time.monotonic()`` when we last received anything from it, or ``None``."""
    silent_for: float | None
    """Seconds since ``last_seen``, or ``None`` if never heard from."""


@dataclass
class _Link:
    """One outbound DEALER link to a peer's ROUTER."""

    key: bytes
    endpoint: str
    socket: zmq.asyncio.Socket
    monitor: zmq.asyncio.Socket
    task: asyncio.Task[None] | None = None
    connected: bool = False
    refused: bool = False
    outbox: collections.deque[bytes] = field(default_factory=collections.deque)
    """Payloads waiting to be handed to libzmq, oldest first (see :meth:`Mesh._send_loop`)."""
    outbox_bytes: int = 0
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    sender: asyncio.Task[None] | None = None


_CLOSED = object()


def _ping(link: _Link) -> None:
    """Queue a heartbeat if the link takes it now; a full queue or a closed socket skips it."""
    with contextlib.suppress(zmq.ZMQError):
        sent = link.socket.send(KIND_PING, flags=zmq.NOBLOCK)
        if sent.done():  # a non-blocking send's future is done at once; read its failure, if any
            sent.exception()  # type: ignore[attr-defined]


class Mesh:
    """One peer's end of the mesh: a CurveZMQ ROUTER to receive, one DEALER per peer to send.

    Use as ``async with Mesh(secret) as mesh:`` (or ``await start()`` / ``await close()``)::

        mesh.allow({bob_key, carol_key})          # None = anyone (lobby)
        mesh.connect(bob_key, "tcp://10.0.0.2:5555")
        await mesh.send(bob_key, b"hello")
        sender_key, payload = await mesh.recv()   # sender_key is CURVE-authenticated

    ``secret_key`` is this peer's Curve25519 secret (raw 32 bytes or Z85); the public key is
    derived from it. ``host``/``port`` say where the ROUTER binds (port 0 = any free port).
    ``max_message`` is the largest payload accepted or sent; ``heartbeat`` the seconds between
    liveness pings. ``allow`` is the initial allowlist (see :meth:`allow`). ``queue_size`` bounds
    the received messages waiting for :meth:`recv`, ``inbox_bytes`` their bytes per allowed sender
    (when either is reached, reading pauses: backpressure). While the allowlist is open (the lobby),
    payloads are limited to ``lobby_max_message`` and unread ones to ``LOBBY_INBOX_BYTES`` per sender
    and ``LOBBY_INBOX_TOTAL`` in all, beyond which they are dropped; closing the allowlist replaces
    the receiving socket, so every connection made in the lobby is cut (seated peers reconnect, the
    others are refused).
    ``on_link(peer_key, up)`` is called in the event loop whenever an outbound link comes up or
    goes down, e.g. to resend what a reconnected peer may have missed.
    """

    def __init__(
        self,
        secret_key: bytes,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        max_message: int = DEFAULT_MAX_MESSAGE,
        heartbeat: float = 1.0,
        allow: Iterable[bytes] | None = None,
        queue_size: int = 1024,
        on_link: Callable[[bytes, bool], None] | None = None,
        inbox_bytes: int = DEFAULT_INBOX_BYTES,
        lobby_max_message: int = LOBBY_MAX_MESSAGE,
    ) -> None:
        secret = raw_key(secret_key)
        if max_message <= 0:
            raise ValueError("max_message must be positive")
        if heartbeat <= 0:
            raise ValueError("heartbeat must be positive")
        self._secret = secret
        self.public_key: bytes = (
            X25519PrivateKey.from_private_bytes(secret)
            .public_key()
            .public_bytes(Encoding.Raw, PublicFormat.Raw)
        )
        """This peer's raw 32-byte public key (what other peers pass to :meth:`connect`)."""
        self.host = host
        self.max_message = max_message
        self.lobby_max_message = min(lobby_max_message, max_message)
        self.inbox_bytes = max(inbox_bytes, max_message)
        self.heartbeat = heartbeat
        self.dropped: Counter[str] = Counter()
        """How many incoming messages or handshakes were dropped, by reason (diagnostics)."""
        self._port = port
        self._allowed: frozenset[bytes] | None = None
        self.allow(allow)
        self._queue_size = queue_size
        self._on_link = on_link
        self._ctx: zmq.asyncio.Context | None = None
        self._router: zmq.asyncio.Socket | None = None
        self._zap: zmq.asyncio.Socket | None = None
        self._links: dict[bytes, _Link] = {}
        self._last_seen: dict[bytes, float] = {}
        self._inbox: asyncio.Queue[Any] | None = None
        self._queued: Counter[bytes] = Counter()  # unread bytes per sender
        self._dequeued = asyncio.Event()
        self._router_open: bool | None = None  # the allowlist state the ROUTER was bound for
        self._drop_log = RateLimit()
        self._tasks: list[asyncio.Task[None]] = []
        self._endpoint: str | None = None
        self._closed = False
        self._started = False

    def __repr__(self) -> str:
        # Never show the secret key; the public fingerprint is enough to tell meshes apart.
        return f"<Mesh {key_fingerprint(self.public_key)} {self._endpoint or 'not started'}>"

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> Mesh:
        """Bind the ROUTER and start the ZAP, reader and heartbeat tasks; returns ``self``."""
        if self._closed:
            raise TransportError("mesh is closed")
        if self._started:
            return self
        self._inbox = asyncio.Queue(self._queue_size)
        # A private context: the ZAP endpoint is per context, so several meshes can share a process.
        self._ctx = zmq.asyncio.Context()
        try:
            self._zap = self._ctx.socket(zmq.REP)
            self._zap.linger = 0
            self._zap.bind(_ZAP_ENDPOINT)  # before the ROUTER exists, so no handshake skips ZAP
            port = "*" if self._port == 0 else str(self._port)
            self._router = self._new_router(f"tcp://{self.host}:{port}")
            self._endpoint = self._router.getsockopt_string(zmq.LAST_ENDPOINT)
        except Exception:
            self._ctx.destroy(linger=0)
            self._ctx = None
            raise
        self._started = True
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._zap_loop(), name="mesh-zap"),
            loop.create_task(self._read_loop(), name="mesh-reader"),
            loop.create_task(self._heartbeat_loop(), name="mesh-heartbeat"),
        ]
        self._reader = self._tasks[1]
        log.debug("mesh %s listening on %s", key_fingerprint(self.public_key), self._endpoint)
        return self

    async def close(self, linger: float = 0.0) -> None:
        """Stop every task and close every socket. Safe to call twice.

        ``linger`` is how many seconds queued outgoing messages may still take to leave
        (0 = drop them at once); the wait runs off the event loop.
        """
        if self._closed:
            return
        self._closed = True
        linger_ms = max(0, int(linger * 1000))
        if linger_ms:
            self._flush_outboxes()
        tasks = list(self._tasks)
        tasks += [t for link in self._links.values() for t in (link.task, link.sender) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for key in list(self._links):
            self._drop_link(key, linger_ms)
        for sock in (self._router, self._zap):
            if sock is not None:
                sock.close(linger=0)
        if self._ctx is not None:
            # term() blocks until lingering messages are sent (at most linger_ms); keep the loop free.
            ctx, self._ctx = self._ctx, None
            if linger_ms:
                await asyncio.to_thread(ctx.term)
            else:
                ctx.destroy(linger=0)
        if self._inbox is not None:
            # Wake any recv() that is waiting; the sentinel tells it the mesh is gone.
            with contextlib.suppress(asyncio.QueueFull):
                self._inbox.put_nowait(_CLOSED)

    async def __aenter__(self) -> Mesh:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def endpoint(self) -> str:
        """The ROUTER's bound endpoint, e.g. ``"tcp://127.0.0.1:40123"`` (after :meth:`start`)."""
        if self._endpoint is None:
            raise TransportError("mesh not started")
        return self._endpoint

    @property
    def port(self) -> int:
        """The ROUTER's bound TCP port (after :meth:`start`), e.g. to advertise it."""
        return int(self.endpoint.rsplit(":", 1)[1])

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    # -- peers ----------------------------------------------------------------------------------

    def allow(self, keys: Iterable[bytes] | None) -> None:
        """Set the allowlist: ``None`` lets any key connect (lobby), else only these keys.

        Takes effect at once: new handshakes are checked by ZAP, messages from keys no longer
        allowed are dropped, and our outbound links to them are closed.
        """
        self._allowed = None if keys is None else frozenset(raw_key(k) for k in keys)
        if self._allowed is not None:
            for key in [k for k in getattr(self, "_links", {}) if k not in self._allowed]:
                log.info("closing link to %s: no longer allowed", key_fingerprint(key))
                self._drop_link(key)
        if getattr(self, "_router_open", None) is not None and self._router_open != (self._allowed is None):
            self._replace_router()

    def is_allowed(self, key: bytes) -> bool:
        """True if ``key`` may connect to us and be sent to under the current allowlist."""
        return self._allowed is None or raw_key(key) in self._allowed

    def connect(self, peer_key: bytes, endpoint: str) -> None:
        """Open (or re-point) our DEALER link to the peer with ``peer_key`` at ``endpoint``.

        The handshake only succeeds if the server at ``endpoint`` holds the secret of
        ``peer_key``. Connecting again with a new endpoint (a restarted peer) replaces the link;
        with the same endpoint it does nothing.
        """
        self._require_running()
        key = raw_key(peer_key)
        if key == self.public_key:
            raise ValueError("a mesh does not connect to itself")
        if not self.is_allowed(key):
            raise TransportError(f"peer {key_fingerprint(key)} is not allowed")
        if not isinstance(endpoint, str) or "://" not in endpoint:
            raise ValueError(f"bad endpoint {endpoint!r}; expected e.g. 'tcp://192.168.1.5:5555'")
        old = self._links.get(key)
        if old is not None:
            if old.endpoint == endpoint:
                return
            self._drop_link(key)
        assert self._ctx is not None
        sock = self._ctx.socket(zmq.DEALER)
        try:
            sock.linger = 0
            sock.curve_serverkey = z85_key(key)
            sock.curve_publickey = z85_key(self.public_key)
            sock.curve_secretkey = z85_key(self._secret)
            # We only ever send on a DEALER: whatever comes back is refused small and not queued.
            sock.setsockopt(zmq.MAXMSGSIZE, _DEALER_MAX_IN)
            sock.setsockopt(zmq.RCVHWM, 1)
            sock.setsockopt(zmq.RECONNECT_IVL, 100)
            sock.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
            sock.setsockopt(zmq.TCP_MAXRT, max(3000, int(3000 * self.heartbeat)))
            monitor = sock.get_monitor_socket(_MONITOR_EVENTS)
            sock.connect(endpoint)
        except zmq.ZMQError as exc:
            sock.close(linger=0)
            raise ValueError(f"cannot connect to {endpoint!r}: {exc}") from exc
        link = _Link(key=key, endpoint=endpoint, socket=sock, monitor=monitor)
        loop = asyncio.get_running_loop()
        link.task = loop.create_task(self._monitor_loop(link), name="mesh-monitor")
        link.sender = loop.create_task(self._send_loop(link), name="mesh-sender")
        self._links[key] = link

    def disconnect(self, peer_key: bytes) -> None:
        """Close our outbound link to a peer (no-op if there is none)."""
        self._drop_link(raw_key(peer_key))

    def peers(self) -> list[bytes]:
        """Keys we have an outbound link to, in connection order."""
        return list(self._links)

    def last_seen(self, peer_key: bytes) -> float | None:
        """``time.monotonic()`` of the last message or heartbeat received from this peer, or None."""
        return self._last_seen.get(raw_key(peer_key))

    def silent_for(self, peer_key: bytes) -> float | None:
        """Seconds since we last heard from this peer, or ``None`` if we never did."""
        seen = self.last_seen(peer_key)
        return None if seen is None else max(0.0, time.monotonic() - seen)

    def is_connected(self, peer_key: bytes) -> bool:
        """True if our outbound link to this peer has completed its handshake and is up."""
        link = self._links.get(raw_key(peer_key))
        return link is not None and link.connected

    def status(self, peer_key: bytes) -> PeerStatus:
        """A snapshot of what we know about one peer."""
        key = raw_key(peer_key)
        link = self._links.get(key)
        return PeerStatus(
            key=key,
            endpoint=None if link is None else link.endpoint,
            connected=link is not None and link.connected,
            refused=link is not None and link.refused,
            last_seen=self.last_seen(key),
            silent_for=self.silent_for(key),
        )

    # -- messages -------------------------------------------------------------------------------

    async def send(self, peer_key: bytes, payload: bytes) -> None:
        """Queue ``payload`` for the peer and return at once (it leaves from a queue of its own).

        Raises ``TransportError`` if the mesh is closed or there is no link to an allowed peer,
        and ``ValueError`` if the payload is larger than ``max_message``.
        """
        self._require_running()
        key = raw_key(peer_key)
        if not self.is_allowed(key):
            raise TransportError(f"peer {key_fingerprint(key)} is not allowed")
        link = self._links.get(key)
        if link is None:
            raise TransportError(f"no link to peer {key_fingerprint(key)}; call connect() first")
        if not isinstance(payload, bytes | bytearray | memoryview):
            raise TypeError("payload must be bytes")
        if len(payload) > self.max_message:
            raise ValueError(f"payload of {len(payload)} bytes exceeds max_message={self.max_message}")
        if link.outbox_bytes + len(payload) > OUTBOX_BYTES:
            self._drop("our send queue to this peer is full", key)
            return
        link.outbox.append(bytes(payload))
        link.outbox_bytes += len(payload)
        link.wake.set()

    def _flush_outboxes(self) -> None:
        """Hand libzmq whatever of our send queues it takes now (closing with a linger)."""
        for link in self._links.values():
            while link.outbox:
                try:  # a non-blocking send's future is already done: failed (queue full) or sent
                    sent = link.socket.send_multipart([KIND_MESSAGE, link.outbox[0]], flags=zmq.NOBLOCK)
                    if not sent.done() or sent.exception() is not None:  # type: ignore[attr-defined]
                        break
                except zmq.ZMQError:
                    break
                link.outbox_bytes -= len(link.outbox.popleft())

    async def _send_loop(self, link: _Link) -> None:
        """Hand one link's queued payloads to libzmq, in order, without ever blocking a caller.

        Sends are non-blocking and retried after a short sleep while the link's libzmq queue is
        full (or the peer is away): a waiting sender never holds up a receive loop — two peers
        that each wait to send to the other while neither reads would otherwise stall for good —
        and progress does not depend on an edge-triggered wake-up of the socket."""
        while True:
            await link.wake.wait()
            link.wake.clear()
            pause = 0.002
            while link.outbox:
                payload = link.outbox[0]
                try:
                    await link.socket.send_multipart([KIND_MESSAGE, payload], flags=zmq.NOBLOCK)
                except zmq.Again:
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, 0.1)
                    continue
                except zmq.ZMQError as exc:  # the socket is gone (link replaced or mesh closing)
                    log.info("could not send to %s: %s", key_fingerprint(link.key), exc)
                    return
                link.outbox.popleft()
                link.outbox_bytes -= len(payload)
                pause = 0.002

    async def recv(self) -> tuple[bytes, bytes]:
        """Wait for the next message: ``(sender_key, payload)``, sender_key CURVE-authenticated.

        Raises ``TransportError`` once the mesh is closed.
        """
        self._require_running()
        assert self._inbox is not None
        item = await self._inbox.get()
        if item is _CLOSED:
            self._inbox.put_nowait(_CLOSED)  # let other waiters see it too
            raise TransportError("mesh is closed")
        sender, payload = item
        self._queued[sender] -= len(payload)
        if self._queued[sender] <= 0:
            del self._queued[sender]
        self._dequeued.set()
        return item  # type: ignore[no-any-return]

    # -- internals ------------------------------------------------------------------------------

    def _require_running(self) -> None:
        if self._closed:
            raise TransportError("mesh is closed")
        if not self._started:
            raise TransportError("mesh not started; use 'async with Mesh(...)' or 'await start()'")

    def _drop_link(self, key: bytes, linger_ms: int = 0) -> None:
        link = self._links.pop(key, None)
        if link is None:
            return
        for task in (link.task, link.sender):
            if task is not None:
                task.cancel()
        with contextlib.suppress(zmq.ZMQError):
            link.socket.disable_monitor()
        link.monitor.close(linger=0)
        link.socket.close(linger=linger_ms)

    def _drop(self, reason: str, key: bytes | None = None) -> None:
        """Count and (rate-limited) log a dropped message; never includes payload bytes."""
        if reason not in self.dropped and len(self.dropped) >= _MAX_REASONS:
            reason = "other"
        self.dropped[reason] += 1
        if self._drop_log.allow(reason):
            who = key_fingerprint(key) if key is not None else "unknown peer"
            n = self.dropped[reason]
            log.warning("dropped message from %s: %s (%d so far)%s", who, reason, n, self._drop_log.note())

    def _new_router(self, endpoint: str) -> zmq.asyncio.Socket:
        """A bound ROUTER whose frame limit fits the allowlist: small while it is open (lobby)."""
        assert self._ctx is not None
        lobby = self._allowed is None
        router = self._ctx.socket(zmq.ROUTER)
        try:
            router.linger = 0
            router.curve_server = True
            router.curve_secretkey = z85_key(self._secret)
            router.curve_publickey = z85_key(self.public_key)
            router.zap_domain = _ZAP_DOMAIN
            limit = self.lobby_max_message if lobby else self.max_message
            router.setsockopt(zmq.MAXMSGSIZE, limit + _FRAME_SLACK)
            router.setsockopt(zmq.RCVHWM, RECEIVE_HWM)
            # No ZMTP heartbeats (see "Liveness" above): a flood and a hang-up would abort us.
            router.setsockopt(zmq.HANDSHAKE_IVL, 10_000)
            # The previous ROUTER on this port closes in libzmq's I/O thread: retry briefly.
            for attempt in range(500):
                try:
                    router.bind(endpoint)
                    break
                except zmq.ZMQError as exc:
                    if exc.errno != zmq.EADDRINUSE or attempt == 499 or endpoint.endswith(":*"):
                        raise
                    time.sleep(0.002)
        except Exception:
            router.close(linger=0)
            raise
        self._router_open = lobby
        return router

    def _replace_router(self) -> None:
        """Bind a new ROUTER on the same endpoint with the limits of the new allowlist state; the
        old one and every connection it accepted are closed (seated peers' DEALERs reconnect by
        themselves and queue meanwhile; anyone else is refused by ZAP on the way back in)."""
        if self._closed or self._router is None or self._endpoint is None:
            return
        self._reader.cancel()
        self._router.close(linger=0)
        self._router = None
        self._router = self._new_router(self._endpoint)
        log.info(
            "%s: receiving socket rebound for the %s",
            key_fingerprint(self.public_key),
            "lobby" if self._router_open else "seated peers only",
        )
        self._reader = asyncio.get_running_loop().create_task(self._read_loop(), name="mesh-reader")
        self._tasks = [t for t in self._tasks if not t.done() and t.get_name() != "mesh-reader"]
        self._tasks.append(self._reader)

    async def _zap_loop(self) -> None:
        """Answer libzmq's ZAP requests: CURVE clients on the allowlist get their key as User-Id."""
        assert self._zap is not None
        while True:
            frames = await self._zap.recv_multipart()
            # REP must answer every request, whatever it holds, or it stops accepting new ones.
            await self._zap.send_multipart(self._zap_reply(frames))

    def _zap_reply(self, frames: list[bytes]) -> list[bytes]:
        """The ZAP reply (RFC 27) for one request; anything unexpected is denied."""
        if len(frames) < 6:
            self._drop("zap: malformed request")
            return [b"1.0", b"", b"500", b"bad request", b"", b""]
        version, request_id, _domain, _address, _identity, mechanism = frames[:6]
        credentials = frames[6:]
        if version != b"1.0" or mechanism != b"CURVE" or len(credentials) != 1 or len(credentials[0]) != 32:
            self._drop("zap: not a CURVE client")
            return [b"1.0", request_id, b"400", b"denied", b"", b""]
        client = credentials[0]
        if not self.is_allowed(client):
            self._drop("zap: key not allowed", client)
            return [b"1.0", request_id, b"400", b"denied", b"", b""]
        return [b"1.0", request_id, b"200", b"OK", z85_key(client), b""]

    async def _read_loop(self) -> None:
        """Read the ROUTER forever: authenticate, parse, note liveness, queue messages."""
        router, inbox = self._router, self._inbox
        assert router is not None and inbox is not None
        while True:
            frames = await router.recv_multipart(copy=False)
            try:
                item = self._accept(frames)
            except Exception as exc:
                # Belt and braces: no input may stop the reader, whatever slipped past the checks.
                self._drop(f"internal error: {type(exc).__name__}")
                continue
            if item is not None:
                await self._enqueue(inbox, *item)

    async def _enqueue(self, inbox: asyncio.Queue[Any], sender: bytes, payload: bytes) -> None:
        """Queue a message within the inbox's bounds: drop in the lobby, wait (backpressure) else."""
        size = len(payload)
        if self._allowed is None:
            if (
                self._queued[sender] + size > LOBBY_INBOX_BYTES
                or sum(self._queued.values()) + size > LOBBY_INBOX_TOTAL
                or inbox.full()
            ):
                self._drop("inbox full (lobby)", sender)
                return
        else:
            while self._queued[sender] and self._queued[sender] + size > self.inbox_bytes:
                self._dequeued.clear()
                await self._dequeued.wait()
        self._queued[sender] += size
        await inbox.put((sender, payload))

    def _accept(self, frames: list[zmq.Frame]) -> tuple[bytes, bytes] | None:
        """Check one ROUTER message; returns ``(sender, payload)`` to deliver, or None (dropped)."""
        if len(frames) < 2:
            self._drop("no frames after routing id")
            return None
        try:
            sender = raw_key(frames[1].get("User-Id"))
        except (zmq.ZMQError, ValueError):
            self._drop("no authenticated User-Id")
            return None
        if not self.is_allowed(sender):
            self._drop("sender not allowed", sender)
            return None
        limit = self.lobby_max_message if self._allowed is None else self.max_message
        if any(len(f) > limit + _FRAME_SLACK for f in frames[1:]):
            self._drop("oversized", sender)  # never copied
            return None
        try:
            kind, payload = parse_wire([f.bytes for f in frames[1:]])
        except ValueError as exc:
            self._drop(f"malformed: {exc}", sender)
            return None
        self._last_seen[sender] = time.monotonic()
        if kind == KIND_PING or payload is None:
            return None
        limit = self.lobby_max_message if self._allowed is None else self.max_message
        if len(payload) > limit:
            self._drop("oversized", sender)
            return None
        return sender, payload

    async def _heartbeat_loop(self) -> None:
        """Ping every peer whose link is up, so it can tell how long it has not heard from us."""
        while True:
            for link in list(self._links.values()):
                if link.connected:
                    _ping(link)
            await asyncio.sleep(self.heartbeat)

    async def _monitor_loop(self, link: _Link) -> None:
        """Follow one DEALER's monitor events to know whether its link is up."""
        while True:
            msg = await link.monitor.recv_multipart()
            try:
                event = zmq.utils.monitor.parse_monitor_message(msg)["event"]
            except RuntimeError:
                continue
            was_up = link.connected
            if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                link.connected, link.refused = True, False
                # Tell the peer at once that we are here, rather than after a heartbeat period.
                _ping(link)
            elif event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                if not link.refused:
                    log.warning(
                        "peer %s refused our handshake (not allowed there?)", key_fingerprint(link.key)
                    )
                link.connected, link.refused = False, True
            else:  # disconnected, or a handshake that failed for another reason
                link.connected = False
            if link.connected != was_up:
                log.info("link to %s %s", key_fingerprint(link.key), "up" if link.connected else "down")
                if self._on_link is not None:
                    try:
                        self._on_link(link.key, link.connected)
                    except Exception:
                        # The callback belongs to the protocol/UI; its bugs must not stop the monitor.
                        log.exception("on_link callback failed")
