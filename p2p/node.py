"""A peer on the network: the table protocol driven over the ZeroMQ mesh, with a durable log.

Theory of operation
-------------------
A :class:`Node` is one player's (or bot's, or witness's) process-level peer. It owns an identity, a
:class:`p2p.transport.Mesh`, and — once the table has started — a :class:`p2p.party.Party`
whose effects it carries out: every entry the party writes is appended and fsynced to the log
file *before* it is sent to the other parties; every entry accepted from others is appended too.

*Lobby.* The opener binds its mesh with an open allowlist plus a small plaintext bootstrap socket
(so ``fairdeck join HOST:PORT`` can learn the mesh key; the opener's fingerprint is shown so a
person can compare it). A joiner sends a ``join`` message signed with its identity key, naming its
transport key and where its own mesh listens. When every seat is taken the opener signs the
genesis and sends it with every party's endpoint (``start``). From then on the opener is an
ordinary party: the allowlist shrinks to the seated transport keys on every node. The opener's
side of it (bootstrap, seats, spectators' catch-up, the genesis) is :class:`p2p.lobby.Lobby`; what
a join request signs and the bounds of every wire message are in :mod:`p2p.wire`.

*Catching up.* On (re)connection each node sends ``hello`` with its next sequence number; a node
receiving ``hello`` sends back every entry from there, then ``held`` (what it holds). A node that
sees an entry from the future asks the sender for what it missed. A restarted node checks its log
and heals it (:mod:`p2p.recovery`: what does not verify is moved aside, a lost log is rebuilt from
the roster's genesis), binds its old endpoint again, and writes nothing of its own until the others
said what they hold (or ``CATCH_UP_WAIT`` passed), so it never signs an entry twice. If nobody at all
answers, it writes nothing until someone does, and stops after the table's deadline: the others may
have closed the game while it was away, and it must not go on alone and close it on an innocent.

*Off the loop.* Before an entry is applied, its proofs are checked in worker threads
(``Party.precheck``; the C library releases the GIL) and their verdicts remembered, so the replica's
own pass does not check them again on the event loop; when the entry is the shuffle just before
ours, our own shuffle of its pile is made meanwhile in another thread, and is used only if that
pile is the one we must shuffle. Applying the entry stays on the loop, where the console reads.

*Failing loudly.* A log that cannot be written (disk full) stops the node: ``Node.failure`` says why
in one line, nothing more is written or sent, and the command exits non-zero.

*Policy.* Nobody, the opener included, can weaken a table (:mod:`p2p.policy`). The bootstrap reply
states the table's terms (game, seats, options, mode, shuffle proof, stall deadline, the opener's
key); a joiner checks them before it joins, and checks the genesis against them (and against its
own floor, its name and seat, and the game ids it already used) before it countersigns. A ``start``
is taken only from the mesh key it bootstrapped from. A joiner that refuses tells the opener
(``declined``) and leaves without writing anything. The opener checks its own table the same way
before it opens.

*Leaving.* If the party being waited for has not written its entry for the table's stall deadline
(``stall_after`` in the genesis), connected or not, the lowest-numbered party that is still here
writes a signed ``abandon`` entry naming it, and the game closes; the log stays auditable. A bot's
``abandon_after`` is a shorter local deadline for a party that is gone from the mesh. Nobody takes
another party's word for a stall: a received ``abandon`` is held until this node's own view agrees
(it has waited nearly the deadline itself at that place, or the named party is gone from its mesh
too); if the named party's entry comes first, the close is refused and the game goes on without
its writer (see ``docs/protocol.md`` §6).

*Playing again.* After a game that ended by its rules the mesh stays up: each party answers "play
again?" (``again``), and the opener of the ended game says where the next table is (``again-at``);
see :mod:`p2p.rematch`. A table opened with ``rematch_of`` seats only the ended game's parties, each at
its old place; a joiner given ``rematch_of`` checks the next table's terms and genesis against the
ended game. Closing a node whose game ended, without having said no, tells the others it ``left``.

Wire messages are msgpack maps with a ``t`` field: ``join``, ``lobby``, ``start``, ``refused``,
``declined``, ``entry``, ``hello``, ``held``, ``chat``, ``again``, ``again-at``. Their shape is checked
before they are decoded (see docs/protocol.md, "Bounds and recovery"); anything malformed is logged
(rate-limited) and ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import fcntl
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import zmq
import zmq.asyncio

from engine.core import Commit, Disclose, IllegalMove, Reveal
from engine.present import presentation
from p2p import policy, rematch, transport
from p2p.identity import Identity
from p2p.lobby import Bootstrap, Lobby
from p2p.log import (
    PAYLOAD_DEPTH,
    PAYLOAD_OBJECTS,
    Entry,
    LogError,
    LogWriter,
    check_envelope_shape,
    pack,
    parse_envelope,
    safe_unpack,
)
from p2p.party import Effect, Party
from p2p.protocol import ON_STALL, Rejected, Table
from p2p.recovery import (
    RecoveryError,
    endpoint_ok,
    own_place,
    read_roster,
    restore,
    roster_path,
    roster_remedy,
    saved_genesis,
    write_roster,
)
from p2p.safetext import MAX_NAME_LENGTH, is_printable_name, safe_text
from p2p.transport import Mesh, RateLimit, TransportError, curve_keypair_from_secret
from p2p.wire import MAX_CHAT, WIRE_DEPTH, WIRE_OBJECTS, local_address_towards, signed_join_fields

log = logging.getLogger("fairdeck.node")

STALL_HELLO = 3.0
"""Seconds without progress after which a node asks the others for entries it may have missed."""
CATCH_UP_WAIT = 5.0
"""Seconds a resumed peer waits for every other party's answer (``held``) before it writes again."""
LINGER_AFTER_END = 10.0
"""Seconds a node that is about to leave a finished game waits for every other party to say it holds
the whole log (:meth:`Node.linger_after_end`): one that crashed at the very end and came back must
find someone to fetch the last entries from."""
AWAY_GAP = 3.0
"""A watch loop that wakes this long after its last look (it looks every half second) was not
running: the process was stopped (SIGSTOP, a suspended laptop) or starved. What arrived meanwhile
is read before any deadline is judged again, and the clocks of the waits restart."""
UNSURE_PATIENCE = 2
"""Deadlines a node that may not judge a stall (it hears nobody, or has not heard the awaited party
since it came back) waits on before it stops: long enough for a table whose other parties were all
stopped for a while to come back and go on (see :meth:`Node._no_judge`)."""
HEARD_AGAIN = 2.0
"""Seconds after this node came back before a message from a party shows it is there: what it sent
while we were away is read first (it heartbeats every second while it is up)."""
CLOSE_TOLERANCE = 1.0
"""Seconds (or a tenth of the deadline, if more) by which another party's ``abandon`` may precede
the table's deadline by our own clock and still be taken: we started waiting a little later."""
LOOP_PROBE_ENV = "FAIRDECK_LOOP_PROBE"
"""Set (to anything) to measure the event loop's largest block (benchmarks only)."""
LEFT_LOBBY = "left before the game started"
"""A joiner's ``declined`` reason when it leaves the lobby (its place is then free again)."""
LOBBY_SILENCE = 30.0
"""Seconds a joiner waits in the lobby without hearing from the table's opener before it gives up."""
PROOFS = (policy.WT, policy.CC)
"""Shuffle proofs the protocol writes, the default first."""
HISTORY_LINES = 300
"""A resumed game's notice of the game so far carries at most this many of its latest lines."""
EXPOSE_GRACE = 1.5
"""Seconds a node holding proof of an equivocation leaves the party due at the next place to expose
it there, times one plus the node's rank among the parties not caught (so the first of them goes
first and the rest see its ``expose`` arrive); then it writes the ``expose`` itself, out of turn.
The party due may be on the other side of a table the equivocator split, and never come."""


def _why(exc: BaseException) -> str:
    """An exception in one safe line for the log (its text may quote what a peer sent)."""
    return f"{type(exc).__name__}: {safe_text(str(exc), 300)}"


def _report_failure(task: asyncio.Task[Any]) -> None:
    """A task that failed must say so: a silent failure would stall the table."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("%s failed: %s", task.get_name(), _why(exc))


def card_words(game: Any, face: str) -> str:
    """A card in a sentence: a named card reads "the King"; any other by the game's own label
    ("7H", "Prince 1"), never by its face id ("prince-1")."""
    if face.isalpha() and face.islower():
        return f"the {face.capitalize()}"
    return presentation(game).face_label(face)


def _watched(coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
    """A task whose failure is reported (see :func:`_report_failure`)."""
    task = asyncio.create_task(coro, name=name)
    task.add_done_callback(_report_failure)
    return task


@dataclass
class _Watch:
    """What the watch loop remembers between looks."""

    reported: dict[int, bool] = field(default_factory=dict)  # party -> last reported "down"
    went_down: dict[int, float] = field(default_factory=dict)  # party -> when it went down
    stall: tuple[int, float] = (-1, 0.0)  # (next seq, since when) for the catch-up hello
    absent_told: tuple[int, int, float] = (-1, -1, 0.0)  # (place, party, when) of the last "waiting for"
    exposing: tuple[int, float] = (-1, 0.0)  # (next seq, since when) we hold an equivocation to expose
    looked: float = 0.0  # when the last look began (monotonic)
    unsure: tuple[str, float] | None = None  # (why, since when) we are no judge of a stall

    def link_news(self, party: int, down: bool, now: float) -> str | None:
        """What to tell about ``party``'s link at this look, if anything: ``"disconnected"``,
        ``"back after N s"`` or None. Until a party has been seen, being there is no news (it
        joined) and not being there is news only once it has stayed away ``FIRST_LOOK_GRACE``
        seconds: links take a moment to come up, most of all for a node that has just come back,
        which would otherwise call everyone "disconnected", then "back after 1 s"."""
        before = self.reported.get(party)
        if before is None:
            if not down:
                self.reported[party] = False
                self.went_down.pop(party, None)
                return None
            if now - self.went_down.setdefault(party, now) < FIRST_LOOK_GRACE:
                return None
            self.reported[party] = True
            return "disconnected"
        if before == down:
            return None
        self.reported[party] = down
        if down:
            self.went_down[party] = now
            return "disconnected"
        return f"back after {now - self.went_down.pop(party, now):.0f} s"


FIRST_LOOK_GRACE = 3.0
"""Seconds a party not yet seen on our links may take to come up before we call it disconnected."""


ABSENT_NEWS_EVERY = 30.0
"""Seconds between two "waiting for X, who is disconnected" notices at one place: the player sees
why nothing happens and how long until the table's deadline passes."""


ASK_AGAIN = 1.0
"""Seconds before the same catch-up request (or the same answer to one peer) is sent again."""
ANSWERS_PER_ASK_AGAIN = 3
"""At most this many catch-up answers to one peer per ``ASK_AGAIN`` seconds (a resumed peer, a gap in
a concurrent step and a parted chain may each ask at about the same time; a flood gets no more)."""


class NodeError(RuntimeError):
    """Something the user must be told (cannot reach a table, table full, ...)."""


@dataclass
class Notice:
    """What a node tells its user interface. ``kind``: ``lobby``, ``started``, ``accepted``,
    ``rejected``, ``evidence``, ``chat``, ``status``, ``ended``, ``info``."""

    kind: str
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


def parse_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port), with a clear error."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise NodeError(f"{address!r} is not HOST:PORT (for example 192.168.1.20:47000)")
    return host, int(port)


def join_address(bind_host: str, port: int) -> str:
    """What others type after ``fairdeck join`` for a table listening at ``bind_host``: the address
    itself when it is one, a placeholder for this machine's address when it listens on every one."""
    where = "<this machine's address>" if bind_host in ("0.0.0.0", "") else bind_host
    return f"{where}:{port}"


class Node:
    """One peer process. See the module docstring."""

    def __init__(
        self,
        identity: Identity,
        home: Path,
        *,
        name: str,
        bind_host: str = "127.0.0.1",
        port: int = 0,
        abandon_after: float | None = None,
        clock: Callable[[], float] = time.time,
        allow_trusted: bool = False,
        proof_floor: policy.Proof | None = None,
    ) -> None:
        self.identity = identity
        self.home = Path(home)
        self.name = name
        self.bind_host = bind_host
        self.port = port
        self.abandon_after = abandon_after
        self.clock = clock
        self.allow_trusted = allow_trusted
        """As a joiner: accept a trusted-mode table (``--allow-trusted``; party 0 sees every card)."""
        self._floor = proof_floor  # None: the project's floor (or the test-only override), read when judging
        self.terms: policy.Terms | None = None
        """The table's terms: as opened (the opener) or as shown before joining (a joiner)."""
        self.refusal: str | None = None
        """Why this node refused the table it was joining (it then wrote nothing)."""
        self._opener_curve: bytes | None = None  # the mesh key we bootstrapped from
        self._role = "player"
        self._stray_start = False
        self._turned_away: str | None = None  # the opener's reason, when it refused our join
        self._declined: dict[int, str] = {}  # party -> reason it gave for refusing the genesis
        curve_public, curve_secret = curve_keypair_from_secret(identity.derive("transport", b""))
        self.curve_public = curve_public
        self._fresh = os.urandom(16)  # sent as we join a table; its genesis must carry it back
        self._curve_secret = curve_secret
        self.mesh: Mesh | None = None
        self.party: Party | None = None
        self.writer: LogWriter | None = None
        self.log_path: Path | None = None
        self.endpoints: list[str] = []
        self.notices: asyncio.Queue[Notice] = asyncio.Queue()
        self.on_decide: Callable[[str, list[dict[str, Any]]], Awaitable[None] | None] | None = None
        self._started = asyncio.Event()
        self._ended = asyncio.Event()
        self._bootstrap: Bootstrap | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._party_lock = asyncio.Lock()
        self._ctx: zmq.asyncio.Context | None = None
        self._waiting_since: tuple[int, float] | None = None
        self._arrived: tuple[int, float] = (-1, 0.0)  # (next seq, when our log reached it)
        self._late_own: dict[int, tuple[float, bytes]] = {}  # seq -> (how late we wrote it, its prev)
        self._own_written: dict[int, tuple[float, bytes, str]] = {}  # seq -> (when, prev, kind), recent
        self._last_look = 0.0  # when the watch loop last looked (monotonic)
        self._playing_since = 0.0  # when this node began (or resumed) playing: the watch's first "look"
        self._woke: tuple[float, float] = (0.0, 0.0)  # (when, after how long away) we last woke
        self._back_at = 0.0  # when this node last came back: its game resumed, or it woke
        self._fork_since: tuple[int, int] | None = None  # (our place, from where) we asked again
        self._closes: dict[bytes, bytes] = {}  # sender -> an ``abandon`` we do not agree with yet
        self._parted: dict[int, int] = {}  # party -> where it took a close that we refused
        self._told: set[int] | None = None  # private faces already told to our player
        self._resumed = False  # this node resumed its game from its log (``resume``)
        self._guessed_for = -1  # the commit step whose lost choice we looked for (``_find_lost_choice``)
        self._unopened: tuple[int, dict[str, Any], bool] | None = None
        """After a resume: (the commit step, our saved choice for it, whether the file named that
        step), until the choice is taken back (``_open_restored_choice``)."""
        self.failure: str | None = None
        """Why this node stopped on its own (its log could not be written, or nobody answered it after
        a resume), in one line."""
        self._warnings = RateLimit()
        self._holding: dict[int, int] = {}  # party -> the most entries it said it holds (``held``)
        self._asked: dict[bytes, tuple[int, float]] = {}  # peer -> (our next seq, when) we asked
        self._decision_since: dict[int, float] = {}  # step -> when our player was first asked
        self._waited_there: dict[int, tuple[int, float]] = {}  # party -> (place, since when) it said
        self._answered: dict[bytes, tuple[int, int, float]] = {}  # peer -> (its start, ours, when)
        self._answers: dict[bytes, list[float]] = {}  # peer -> when we last answered it
        self._held_event = asyncio.Event()
        self.again: dict[int, str] = {}
        """Party -> its answer to "play again?" after this game (ours too): see :mod:`p2p.rematch`."""
        self.again_at: tuple[str, int] | None = None
        """Where the opener of this (ended) game opened the next one, once it said so."""
        self.again_news = asyncio.Event()
        """Set whenever :attr:`again` or :attr:`again_at` changes."""
        self.said_all = False
        """Set once nothing more needs saying about playing again: this party went on to the next
        game, or the series ended for everyone alike (closing then does not say it left)."""
        self._rematch_of: Table | None = None  # as a joiner: the ended game the table follows
        self._lobby: Lobby | None = None
        self._game_lock: int | None = None  # our lock on a resumed game's log (``_lock_game``)

    # -- plumbing --------------------------------------------------------------------------------
    def _notify(self, kind: str, text: str = "", **data: Any) -> None:
        self.notices.put_nowait(Notice(kind, text, data))

    def _warn(self, text: str, *args: Any) -> None:
        """A rate-limited warning: a peer flooding us cannot flood our output too."""
        line = text % args if args else text
        if self._warnings.allow(line):
            log.warning("%s%s", line, self._warnings.note())

    def _fail(self, exc: OSError) -> None:
        """A write failed (disk full, I/O error): say so in one line, stop writing and sending,
        and end, so the process exits non-zero and the restart path recovers."""
        reason = exc.strerror or str(exc)
        if not reason.startswith("cannot "):
            reason = f"cannot write {getattr(exc, 'filename', None) or 'a file of the game'}: {reason}"
        # the remedy the reason calls for: room for a full disk, the right to write for a refusal
        remedy = {
            errno.ENOSPC: "free some space",
            errno.EDQUOT: "free some space",
            errno.EACCES: "make the file writable again",
            errno.EPERM: "make the file writable again (is it immutable? chattr -i)",
            errno.EROFS: "make the file system writable again",
        }.get(exc.errno or 0, "fix what stops the write")
        self._stop(
            f"{reason}; stopped (nothing more is written or sent); "
            f"{remedy} and start it again to resume the game"
        )

    def _stop(self, failure: str) -> None:
        """Stop on our own for ``failure`` (one line): nothing more is written or sent, and the
        process exits non-zero (see ``Node.failure``)."""
        if self.failure is not None:
            return
        self.failure = failure
        if self.writer is not None:
            self.writer.close()
        for task in self._tasks:
            if task is not asyncio.current_task() and task.get_name() in ("receive", "watch"):
                task.cancel()
        if self.mesh is not None:
            self.mesh.allow(())  # deaf and mute from now on
        self._ended.set()
        self._notify("ended", f"stopped: {self.failure}", failure=self.failure)

    async def _open_mesh(self, port: int) -> Mesh:
        self.mesh = await Mesh(self._curve_secret, host=self.bind_host, port=port).start()
        return self.mesh

    async def _send(self, curve: bytes, message: dict[str, Any]) -> None:
        assert self.mesh is not None
        try:
            await self.mesh.send(curve, pack(message))
        except (TransportError, ValueError) as exc:
            log.info("could not send to a peer: %s", exc)

    async def _broadcast(self, message: dict[str, Any]) -> None:
        assert self.party is not None
        for index, info in enumerate(self.party.table.parties):
            if index != self.party.me:
                await self._send(info.curve, message)

    async def _say_held(self, to: bytes | None = None) -> None:
        """Tell one party (by curve key) or everyone how much of the log we hold. What we claim
        to hold is made durable first: others may leave on the strength of it, and entries
        received from them were written without a sync."""
        assert self.party is not None and self.writer is not None
        if self.failure is not None:
            return  # our log could not be written: we claim nothing
        try:
            self.writer.sync()
        except OSError as exc:
            self._fail(exc)
            return
        message: dict[str, Any] = {"t": "held", "next": self.party.table.next_seq}
        if self.party.table.expected() is not None:  # and how long we have waited there
            message["waited"] = round(self._waited_here(time.monotonic()), 1)
        await (self._broadcast(message) if to is None else self._send(to, message))

    @property
    def ended(self) -> bool:
        """True once the game has ended (or was abandoned)."""
        return self._ended.is_set()

    @property
    def opened(self) -> bool:
        """True if this node opened its table (``open_table``), rather than joining it."""
        return self._lobby is not None

    async def wait_started(self) -> None:
        """Until the table has started (genesis known)."""
        await self._started.wait()

    async def wait_ended(self) -> None:
        """Until the game has ended."""
        await self._ended.wait()

    # -- opening a table -------------------------------------------------------------------------
    async def open_table(
        self,
        game: str,
        seats: int,
        *,
        options: dict[str, Any] | None = None,
        witnesses: int = 0,
        shuffle_rounds: int = 40,
        table_name: str | None = None,
        bootstrap_port: int = 0,
        advertise: Any = None,
        mode: str = "fair",
        proof: str | None = None,
        stall_after: int = policy.DEFAULT_STALL_AFTER,
        spectators: bool = False,
        on_stall: str = "close",
        rematch_of: Table | None = None,
    ) -> int:
        """Open a table; return the bootstrap port (``HOST:PORT`` that ``join`` takes).

        The lobby runs in the background; the game starts by itself when every seat is taken.
        ``advertise`` is an async factory ``(bootstrap_port, mesh_key, free) -> Advertiser``: the advertised
        port is the bootstrap port, so a table found on the LAN is joined exactly like ``HOST:PORT``
        (:attr:`terms` holds what to advertise). ``proof`` is ``"wt"`` or ``"cc"`` (with
        ``shuffle_rounds``), the best this build writes by default; ``stall_after`` is the table's
        deadline (seconds) after which anyone present closes a game stalled by one party.
        A table below this player's own policy is refused with :class:`NodeError` before it opens.
        With ``spectators``, anyone may follow the game from the bootstrap (``fairdeck watch``): it
        hands out the log's entries as they are accepted — what every party could show the world,
        nothing more — and never takes anything from a spectator.
        With ``rematch_of`` (an ended game we opened), the table seats only that game's parties, each
        at its old place, and its bootstrap says which game it follows (see :mod:`p2p.rematch`).
        """
        from engine.games import make_game

        make_game(game, seats, options)  # refuse bad options before anyone joins
        self.terms = self._own_terms(
            game, seats, options or {}, witnesses, mode, proof, shuffle_rounds, stall_after
        )
        if on_stall not in ON_STALL:
            raise NodeError(f"a table can {' or '.join(ON_STALL)} on a stall, not {safe_text(on_stall, 20)}")
        self.terms = dataclasses.replace(self.terms, on_stall=on_stall)
        if rematch_of is not None and rematch_of.parties[0].key != self.identity.public_key:
            raise NodeError("only the opener of the last game opens its rematch")
        if rematch_of is not None and rematch_of.parties[0].name != self.name:
            raise NodeError("a rematch seats its opener under the last game's name")
        mesh = await self._open_mesh(self.port)
        # answered by a thread of its own: nothing the event loop does (a flood, a shuffle) starves it
        boot = Bootstrap(self.bind_host, bootstrap_port)
        bootstrap_port = boot.port
        self._bootstrap = boot
        if spectators:
            boot.spectators = self._public_log
        lobby = Lobby(self, game, seats, witnesses, options or {}, shuffle_rounds, table_name or self.name)
        lobby.bootstrap_port = bootstrap_port
        lobby.mode = mode
        lobby.terms = self.terms
        lobby.boot = boot
        lobby.only = rematch_of
        self._lobby = lobby
        lobby.refresh_bootstrap()
        boot.start()
        self._tasks.append(asyncio.create_task(lobby.run(advertise), name="lobby"))
        self._tasks.append(_watched(self._receive_loop(), "receive"))
        log.info("table open: mesh %s, bootstrap port %d", mesh.endpoint, bootstrap_port)
        # the lobby view's first picture: our seat, the free ones, and the port others join
        self._notify("lobby", "", seats=[self.name], free=seats - 1, game=game, port=bootstrap_port)
        self._notify("info", f"table terms: {self.terms.describe()}", terms=self.terms.describe())
        return bootstrap_port

    def _public_log(self) -> tuple[list[Entry], bool]:
        """The log so far and whether the game has ended (read by the bootstrap thread: a list that
        only grows, and a flag)."""
        party = self.party
        return (party.table.entries if party is not None else []), self._ended.is_set()

    def _own_terms(
        self,
        game: str,
        seats: int,
        options: dict[str, Any],
        witnesses: int,
        mode: str,
        proof: str | None,
        shuffle_rounds: int,
        stall_after: int,
    ) -> policy.Terms:
        """The terms of the table we open, judged by our own policy (``NodeError`` if refused)."""
        kind = proof or PROOFS[0]
        if kind not in PROOFS:
            what = policy.PROOF_NAMES.get(kind, safe_text(kind, 20))
            raise NodeError(f"this build cannot write {what} shuffle proofs yet")
        if not is_printable_name(self.name):
            raise NodeError(f"your name must be 1-{MAX_NAME_LENGTH} printable characters")
        try:
            terms = policy.Terms(
                game=game,
                seats=seats,
                options=dict(options),
                mode=mode,
                proof=policy.Proof(kind, shuffle_rounds if kind == policy.CC else 0),
                stall_after=stall_after,
                opener=self.identity.public_key,
                fp=self.identity.fingerprint,
                witnesses=witnesses,
            )
            # we asked for trusted mode ourselves, if the mode is trusted
            reason = policy.judge_terms(terms, allow_trusted=True, floor=self._proof_floor())
        except policy.PolicyError as exc:
            reason = str(exc)
        if reason:
            raise NodeError(f"this table is refused: {reason}")
        return terms

    def _proof_floor(self) -> policy.Proof:
        try:
            return self._floor or policy.proof_floor()
        except policy.PolicyError as exc:
            raise NodeError(str(exc)) from None

    # -- joining -----------------------------------------------------------------------------------
    async def join(
        self,
        address: str,
        *,
        role: str = "player",
        timeout: float = 10.0,
        expect: policy.Terms | None = None,
        lobby_timeout: float = LOBBY_SILENCE,
        rematch_of: Table | None = None,
    ) -> None:
        """Take a seat (or a witness place) at the table whose bootstrap is ``address``.

        The table's terms (from its bootstrap reply, and ``expect``: what its LAN advertisement showed)
        are judged first; the genesis is judged against them before we countersign. A refusal raises
        :class:`NodeError` with the reason (also in :attr:`refusal`), and nothing was written. Gives up
        (``NodeError``) if the bootstrap does not answer within ``timeout`` seconds, or if the opener
        is not heard from for ``lobby_timeout`` seconds while we wait in the lobby. With
        ``rematch_of`` (an ended game of ours), the table must be its rematch: the same terms, the
        same opener, and a genesis seating the same parties in the same places (:mod:`p2p.rematch`).
        """
        host, port = parse_address(address)
        if not is_printable_name(self.name):
            raise NodeError(f"your name must be 1-{MAX_NAME_LENGTH} printable characters")
        info = await self._ask_bootstrap(host, port, timeout)
        self.terms = self._judge_offer(info, expect)
        if rematch_of is not None:
            if reason := rematch.check_offer(rematch_of, self.terms, info.get("after")):
                self.refusal = reason
                raise NodeError(f"refused the table: {reason}")
            self._rematch_of = rematch_of
        self._opener_curve, self._role = info["key"], role
        mesh = await self._open_mesh(self.port)
        my_ip = host if host.startswith("127.") else local_address_towards(host)
        endpoint = f"tcp://{my_ip}:{mesh.port}"
        mesh.connect(info["key"], f"tcp://{host}:{info['port']}")
        fields = {
            "t": "join",
            "name": self.name,
            "key": self.identity.public_key,
            "curve": self.curve_public,
            "endpoint": endpoint,
            "role": role,
            "fresh": self._fresh,
        }
        fields["sig"] = self.identity.sign(signed_join_fields(fields))
        self._notify(
            "info",
            f"joining '{safe_text(info.get('name'), 40)}' ({self.terms.describe()}), "
            f"host fingerprint {self.terms.fp}",
            terms=self.terms.describe(),
        )
        await self._send(info["key"], fields)
        self._tasks.append(_watched(self._receive_loop(), "receive"))
        started = asyncio.create_task(self._started.wait())
        refused = asyncio.create_task(self._ended.wait())
        joined_at = time.monotonic()
        try:
            while not (started.done() or refused.done()):
                await asyncio.wait({started, refused}, timeout=0.5, return_when=asyncio.FIRST_COMPLETED)
                silent = self.mesh.silent_for(info["key"]) if self.mesh is not None else None
                silent = time.monotonic() - joined_at if silent is None else silent
                if not (started.done() or refused.done()) and silent > lobby_timeout:
                    raise NodeError(
                        f"the table at {address} went silent: nothing from its opener for "
                        f"{lobby_timeout:g} s while waiting in the lobby; giving up"
                    )
        finally:
            started.cancel()
            refused.cancel()
        if self.refusal is not None:
            raise NodeError(f"refused the table: {self.refusal}")
        if self._turned_away is not None:
            raise NodeError(f"the table refused us: {self._turned_away}")
        if not self._started.is_set():
            raise NodeError(self.failure or "the table did not seat us (full, or already playing)")

    def _judge_offer(self, info: dict[str, Any], expect: policy.Terms | None) -> policy.Terms:
        """The terms a bootstrap reply states, if this player accepts them (else ``NodeError``)."""
        try:
            terms = policy.Terms.from_wire(info)
            reason = policy.judge_terms(terms, allow_trusted=self.allow_trusted, floor=self._proof_floor())
        except policy.PolicyError as exc:
            reason = str(exc)
        if not reason and expect is not None and (diffs := terms.differences(expect)):
            reason = "the table's bootstrap differs from its LAN advertisement: " + "; ".join(diffs)
        if reason:
            self.refusal = reason
            raise NodeError(f"refused the table: {reason}")
        return terms

    async def _ask_bootstrap(self, host: str, port: int, timeout: float) -> dict[str, Any]:
        if await transport.nothing_listens(host, port):
            raise NodeError(f"no table at {host}:{port}: {transport.NOTHING_LISTENS}")
        ctx = zmq.asyncio.Context.instance()
        req = ctx.socket(zmq.REQ)
        req.linger = 0
        req.setsockopt(zmq.MAXMSGSIZE, 4096)
        try:
            req.connect(f"tcp://{host}:{port}")
            await req.send(pack({"t": "info"}))
            if not await req.poll(int(timeout * 1000)):
                raise NodeError(f"no table answered at {host}:{port} within {timeout:g} s")
            reply = msgpack.unpackb(await req.recv(), raw=False)
        finally:
            req.close(linger=0)
        if not (
            isinstance(reply, dict)
            and isinstance(reply.get("key"), bytes)
            and isinstance(reply.get("port"), int)
        ):
            raise NodeError(f"{host}:{port} did not answer like a fairdeck table")
        if reply.get("full"):
            raise NodeError(f"the table at {host}:{port} is full")
        return reply

    # -- resuming ---------------------------------------------------------------------------------
    def unfinished_games(self, ended: Callable[[Path], str | None]) -> list[Path]:
        """Logs in this node's home whose game has not ended (newest first). ``ended(path)`` folds a
        log and says how its game ended (``None``: not yet); it is passed in (the programs pass the
        replay's fold) so that the peer layer imports nothing above it."""
        found = []

        def newest(roster: Path) -> float:
            log_path = roster.with_suffix(".fdlog")
            return (log_path if log_path.exists() else roster).stat().st_mtime

        for roster in sorted((self.home / "games").glob("*.roster"), key=newest, reverse=True):
            path = roster.with_suffix(".fdlog")
            try:
                how = ended(path)
            except Exception:  # unreadable: resumable only if the roster keeps the genesis
                with contextlib.suppress(RecoveryError):
                    kept = read_roster(path)
                    if kept.get("genesis") and not kept.get("ended"):
                        found.append(path)
                continue
            if how is None or (how == "left" and not self._left_on_purpose(path)):
                found.append(path)
        return found

    @staticmethod
    def _left_on_purpose(log_path: Path) -> bool:
        """True if the note beside the log that says its player left it (``<game>.left``, written
        by the programs as a JSON object) can be read: damaged (torn by a crash, garbled), it says
        nothing, and the game is as unfinished as its log says — not a game its player chose to
        leave, which a bot would never resume and whose table would then close on it."""
        try:
            note = json.loads(log_path.with_suffix(".left").read_text())
        except (OSError, ValueError):  # (or gone since it was looked at: nothing says it was left)
            return False
        return isinstance(note, dict)

    @staticmethod
    def saved_game_name(log_path: Path) -> str:
        """The game of a saved table (its registry name), from its log or roster."""
        from p2p.protocol import Table  # noqa: PLC0415

        genesis = saved_genesis(log_path)
        if genesis is None:
            raise NodeError(f"{log_path}: no genesis in the log or its roster")
        try:
            return Table(genesis).game.name
        except Rejected as exc:
            raise NodeError(f"{log_path}: {exc}") from None

    async def resume(self, log_path: Path) -> None:
        """Restart a game from its log and roster: check and heal the log (see :mod:`p2p.recovery`),
        rebind the old endpoint, catch up from the others before writing anything of our own."""
        try:
            roster = read_roster(log_path)
        except RecoveryError as exc:
            raise NodeError(str(exc)) from None
        # one program at a time: a second `resume` (or bot) of this game from the same home stops
        # here, before it reads, heals or cuts the log that the first one is writing
        self._lock_game(log_path)
        # and listen on our old endpoint before the log is checked: a port another program holds
        # is said at once, with nothing changed
        me = own_place(log_path, roster, self.identity.public_key)
        if me is not None:
            await self._listen_again(log_path, roster["endpoints"][me])
        try:
            restored = restore(
                log_path, roster, lambda genesis: Party(self.identity, genesis)
            )
        except (RecoveryError, LogError) as exc:
            raise NodeError(str(exc)) from None
        except OSError as exc:
            raise NodeError(f"cannot repair {log_path}: {exc.strerror or exc}") from None
        endpoints: list[str] = roster["endpoints"]
        party = restored.party
        if roster.get("repaired"):  # its genesis was unreadable: keep the log's there again
            try:
                write_roster(log_path, {**roster, "genesis": party.table.genesis.envelope})
            except OSError as exc:
                raise NodeError(f"cannot write {roster_path(log_path)}: {exc.strerror or exc}") from None
            restored.lines.insert(0, f"{roster['repaired']}; rewrote it with the log's genesis")
        for line in restored.lines:
            log.warning("%s", line)
            self._notify("info", line)
        if len(endpoints) != len(party.table.parties):
            raise NodeError(
                f"{roster_path(log_path)} does not match the game's parties: {roster_remedy(log_path)}"
            )
        if self.mesh is None:
            await self._listen_again(log_path, endpoints[party.me])
        try:
            self._attach(party, endpoints, log_path, fresh=False)
            assert self.writer is not None
            if restored.write_genesis:
                self.writer.append(party.table.genesis.envelope)
            else:
                self.writer.truncate_to(restored.valid_bytes)
        except OSError as exc:
            raise NodeError(f"cannot write {log_path}: {exc.strerror or exc}") from None
        if party.me == 0 and party.table.step.kind == "countersign":
            # we opened this table and may have died before the joiners heard of the genesis: they
            # still wait in the lobby, and take the start only from us
            genesis = party.table.genesis.envelope
            for info in party.table.parties[1:]:
                await self._send(info.curve, {"t": "start", "genesis": genesis, "endpoints": endpoints})
        self._resumed = True
        saved = self._saved_choice(log_path.with_suffix(".choice"))
        step = party.table.step
        if saved is not None and not party.restore_choice(saved[1], saved[0]):
            for_step, move = saved
            if for_step is not None and for_step >= step.start_seq:
                # the step it answers is due, or not reached yet by our log: our commitment may have
                # gone out ahead of its place and come back only from the others as we catch up.
                # Commit to it (the same bytes) and open it when its turn comes, never ask again
                self._unopened = (for_step, move, True)
            elif for_step is None and isinstance(step.request, Commit) and step.phase == "commit":
                self._unopened = (step.start_seq, move, False)  # (a file of an older version)
        if restored.story:  # the game so far, for a console that starts with an empty log
            shown = restored.story[-HISTORY_LINES:]
            self._notify("history", "", lines=shown, left_out=len(restored.story) - len(shown))
        self._notify("info", f"resumed {log_path.name} at entry {party.table.next_seq}")
        await self._begin_playing(catch_up=True)

    def _lock_game(self, log_path: Path) -> None:
        """Hold an exclusive lock on the game's log (its roster while the log is gone) for as long as
        this node lives; the kernel drops it when the process ends, however it ends. Taken when a
        game starts and when it is resumed, so that a resume of a game that is being played (by a
        first program still running, resumed or not) stops at once with one line."""
        if self._game_lock is not None:
            return
        held = log_path if log_path.exists() else roster_path(log_path)
        try:
            fd = os.open(held, os.O_RDONLY)
        except OSError as exc:
            raise NodeError(f"cannot open {held}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise NodeError(
                    f"{log_path.name} is being played already by another program of this home "
                    "(a `fairdeck resume` or `fairdeck bot` still running): only one may play a seat; "
                    "nothing was changed"
                ) from None
            return  # a file system without locks: go on as before
        self._game_lock = fd

    async def _listen_again(self, log_path: Path, endpoint: str) -> None:
        """Bind our endpoint of a resumed game again (its port, on our bind host)."""
        port = int(endpoint.rsplit(":", 1)[1])
        try:
            await self._open_mesh(port)
        except zmq.ZMQError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise NodeError(
                    f"{log_path.name}: its port {port} is in use: is this game being played already, by "
                    "another `fairdeck resume` or `fairdeck bot` of this home? Only one program may "
                    "play a seat; nothing was changed"
                ) from None
            raise NodeError(f"{log_path.name}: cannot listen on {endpoint} again ({exc})") from None

    # -- the game -----------------------------------------------------------------------------------
    def _attach(self, party: Party, endpoints: list[str], log_path: Path, fresh: bool) -> None:
        assert self.mesh is not None
        party.defer_work = True  # our shuffles are made in worker threads, never on this loop
        self.party = party
        self.endpoints = endpoints
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:  # the genesis too: a log that is lost can be rebuilt from the others' copies
            write_roster(log_path, {"endpoints": endpoints, "genesis": party.table.genesis.envelope})
        self.writer = LogWriter(log_path)
        if fresh:
            self.writer.append(party.table.genesis.envelope)
            with contextlib.suppress(NodeError):  # (a new game's log: nobody else plays it)
                self._lock_game(log_path)
        curves = [p.curve for p in party.table.parties]
        self.mesh.allow(curves)
        for index, (curve, endpoint) in enumerate(zip(curves, endpoints, strict=True)):
            if index != party.me:
                self.mesh.connect(curve, endpoint)

    async def _start_from_genesis(self, genesis: bytes, endpoints: list[str], sender: bytes) -> None:
        """A ``start`` from the opener: countersign (by starting to play) only if our policy agrees."""
        try:
            party = Party(self.identity, genesis)
        except Rejected as exc:
            await self._decline(f"the genesis is malformed: {exc}")
            return
        me = policy.Joiner(
            key=self.identity.public_key,
            curve=self.curve_public,
            name=self.name,
            role=self._role,
            shown=self.terms,
            opener_curve=self._opener_curve,
            games_dir=self.home / "games",
            allow_trusted=self.allow_trusted,
            floor=self._proof_floor(),
            fresh=self._fresh,
        )
        start = policy.Start(party.table.genesis.body, party.table.game_id, sender, len(endpoints))
        reason = policy.judge_start(start, me)
        if reason is None and (bad := next((e for e in endpoints if not endpoint_ok(e)), None)) is not None:
            # checked before anything is written: a party we could not connect to would leave us
            # seated in a game we never play (a log and a roster, and no way on or out)
            reason = f"the start lists an endpoint that is not tcp://HOST:PORT: {safe_text(str(bad), 60)!r}"
        if reason is None and self._rematch_of is not None:
            reason = rematch.check_parties(self._rematch_of, party.table.genesis.body)
        if reason:
            await self._decline(reason)
            return
        self._told = set()
        path = self.home / "games" / f"{party.table.game_id.hex()}.fdlog"
        self._attach(party, endpoints, path, fresh=True)
        await self._begin_playing()

    async def _decline(self, reason: str) -> None:
        """Refuse the table we were joining: tell the opener and leave, having written nothing."""
        self.refusal = reason
        log.info("refused the table: %s", reason)
        self._notify("info", f"refused the table: {reason}", refused=reason)
        if self._opener_curve is not None:
            await self._send(self._opener_curve, {"t": "declined", "reason": reason})
        self._ended.set()

    async def _begin_playing(self, catch_up: bool = False) -> None:
        assert self.party is not None
        table = self.party.table
        # the watch loop's clock starts here, not when its task first runs: a node stopped before
        # that (right after writing its countersignature) must see the gap when it wakes, or it
        # judges the others by a wait clock that ran while it could read nothing they sent
        self._playing_since = time.monotonic()
        self._started.set()
        self._notify(
            "started",
            f"{table.game.name}: {', '.join(p.name for p in table.parties)}",
            log=str(self.log_path),
            resumed=catch_up,
        )
        if not any(t.get_name() == "receive" for t in self._tasks):
            self._tasks.append(_watched(self._receive_loop(), "receive"))
        self._tasks.append(_watched(self._watch_loop(), "watch"))
        if os.environ.get(LOOP_PROBE_ENV):
            self._tasks.append(asyncio.create_task(self._loop_probe(), name="loop-probe"))
        holding = catch_up
        if holding:
            self.party.holding = True
            self._back_at = time.monotonic()  # (a new game's start is no coming back: all were heard)
        await self._broadcast(self._hello(table.next_seq))
        if holding:
            await self._catch_up()
            self.party.holding = False
        if self.failure is not None:
            return
        await self._run(self.party.start)
        if table.ended is not None:
            self._finish()

    async def _loop_probe(self) -> None:
        """Measure how long the event loop is held up (for ``scripts/bench.py game``): a 10 ms sleep
        that wakes late was blocked; each new worst case is told as an ``info`` notice, with the
        CPU time this thread and this process used meanwhile. A lag the loop's own thread did not
        spend running is time the operating system gave the process no core (or a worker thread
        held the interpreter), not work done on the loop."""
        loop = asyncio.get_running_loop()
        worst = 0.0
        while True:
            started, on_loop, in_process = loop.time(), time.thread_time(), time.process_time()
            await asyncio.sleep(0.01)
            lag = loop.time() - started - 0.01
            if lag > worst:
                worst = lag
                on_loop = time.thread_time() - on_loop
                in_process = time.process_time() - in_process
                self._notify(
                    "info",
                    f"loop-lag max {1000 * worst:.1f} ms"
                    f" (loop thread ran {1000 * on_loop:.1f} ms, process {1000 * in_process:.1f} ms)",
                )

    async def linger_after_end(self, timeout: float = LINGER_AFTER_END) -> list[int]:
        """After a game that ended by its rules, before leaving: wait (at most ``timeout`` s, serving
        catch-up meanwhile) until every other party has said it holds the whole log. Returns the
        parties that did not (a party that crashed at the very end may come back within it and fetch
        the entries it missed from us; once everyone has left, nobody could give them to it)."""
        party = self.party
        if party is None or party.table.ended != "over" or self.failure is not None:
            return []
        return await self._wait_for_holding(party.table.next_seq, timeout)

    async def _catch_up(self) -> None:
        """Wait (at most ``CATCH_UP_WAIT`` s) until every other party has told us what it holds, so
        that an entry of ours that we sent but lost is received back rather than signed again.

        If nobody answers at all, wait on, up to the table's deadline: by our log the game is on,
        but the others may have closed it while we were away and left, and going on alone would
        end with us closing it on whoever is awaited next, naming an innocent party for what was
        our own stall. Nobody by then: stop, having written nothing (``fairdeck resume`` tries
        again)."""
        assert self.party is not None
        missing = await self._wait_for_holding(0, CATCH_UP_WAIT)
        if not missing or self.failure is not None:
            return
        if len(missing) < len(self.party.table.parties) - 1:
            log.info("catching up: no answer from parties %s; going on with what we have", missing)
            return
        deadline = self.stall_after()
        table = self.party.table
        if table.step.kind == "final" and self.party.me not in table.step.writers:
            # our own final is in our log: the game is over, only the others' finals (the same
            # result, signed by them) are missing. Nobody waits for anything of ours, and nothing
            # we could write after a deadline would be right: the others ended it and left (each
            # lingers a while for a party that crashed at the very end; we came back after that)
            patience = max(0.0, min(deadline, LINGER_AFTER_END) - CATCH_UP_WAIT)
            if not await self._wait_for_anyone(patience) and self.failure is None:
                owed = ", ".join(f"seat {p} ({table.parties[p].name})" for p in table.step.writers)
                self._stop(
                    "the game is over by this log, but the final entries of "
                    f"{owed} are not in it and nobody at the table answered since this game was "
                    "resumed (they have most likely ended it and left); stopped without writing "
                    "anything: the log audits clean as far as it goes, and `fairdeck resume` fetches "
                    "the missing entries while another party of the game is still running"
                )
            return
        self._notify(
            "status",
            "nobody else at the table has answered since you came back: they may have closed the "
            f"game without you. Nothing is written until one of them answers (at most {deadline} s)",
        )
        if not await self._wait_for_anyone(max(0.0, deadline - CATCH_UP_WAIT)) and self.failure is None:
            self._stop(
                f"nobody at the table answered in {deadline} s since this game was resumed (they may "
                "have closed it and left); stopped without writing anything: `fairdeck resume` tries "
                "again once they are back"
            )

    async def _wait_for_anyone(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) until some other party has said what it holds."""
        deadline = time.monotonic() + timeout
        while not self._holding:
            left = deadline - time.monotonic()
            if left <= 0 or self.failure is not None or self.mesh is None or self.mesh.closed:
                return False
            self._held_event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._held_event.wait(), left)
        return True

    async def _wait_for_holding(self, entries: int, timeout: float) -> list[int]:
        """Wait (at most ``timeout`` s) until every other party has said (``held``) that it holds at
        least ``entries`` entries; return the parties that have not."""
        assert self.party is not None
        others = set(range(len(self.party.table.parties))) - {self.party.me}
        deadline = time.monotonic() + timeout
        while missing := sorted(p for p in others if self._holding.get(p, -1) < entries):
            left = deadline - time.monotonic()
            if left <= 0 or self.failure is not None or self.mesh is None or self.mesh.closed:
                return missing
            self._held_event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._held_event.wait(), left)
        return []

    async def decide(self, move: dict[str, Any], *, late: bool = False) -> None:
        """Our player's move; raises ``IllegalMove`` with the reason if it is not legal now.
        ``late``: played for our player past the table's deadline (see :meth:`_play_late`)."""
        if self.party is None:
            raise IllegalMove("the game has not started")
        secret = isinstance(self.party.table.step.request, Commit)
        if self.log_path is not None and secret and self.party.waiting_for_me() is not None:
            # a committed choice must survive a crash between its commit and its opening: durable
            # before the commitment is, and whole or absent (written aside, then renamed)
            path = self.log_path.with_suffix(".choice")
            aside = path.with_suffix(".choice-new")
            try:
                fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    # with the step it answers: after a crash it is committed to again, not asked for
                    handle.write(pack({"step": self.party.table.step.start_seq, "choice": dict(move)}))
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(aside, path)
            except OSError as exc:
                self._fail(exc)
                return
        party = self.party
        await self._run(lambda chosen: party.decide(chosen, late=late), move)

    async def chat(self, text: str) -> None:
        """Send a chat line to every other party; in the lobby, to everyone there (a joiner knows
        only the opener, who passes the line on with the speaker's name)."""
        text = text[:MAX_CHAT]
        if self.party is not None:
            await self._broadcast({"t": "chat", "text": text})
        elif self._lobby is not None:
            await self._lobby.pass_chat(None, self.name, text)
        elif self._opener_curve is not None:
            await self._send(self._opener_curve, {"t": "chat", "text": text})

    async def _call(self, call: Callable[..., list[Effect]], *args: Any) -> list[Effect]:
        """Run a party call. It runs on the event loop: the console and the viewer read the party's
        replica while they draw, so it must not change under them from another thread (the proof
        work is done before, in worker threads: see ``Party.precheck``)."""
        return call(*args)

    async def _take_entry(self, sender: bytes | None, envelope: bytes) -> None:
        """Check and fold a received entry; ask ``sender`` for what we miss if it is ahead of us."""
        assert self.party is not None
        before = self.party.table.next_seq
        await self._precheck(envelope)
        async with self._party_lock:
            if self._closed_on_us_late(envelope):  # (our own entry may have taken its place meanwhile)
                return
            await self._carry_out(await self._call(self.party.receive, envelope))
        if sender is not None and self.party.has_future() and self.party.table.next_seq == before:
            await self._ask(sender)

    # -- another party closing the game -------------------------------------------------------------
    def _closed_on_us_late(self, envelope: bytes) -> bool:
        """Stop if ``envelope`` is another party's ``abandon`` for a place we filled with our own
        entry only after the table's deadline for it had passed by our own clock (this process was
        stopped or starved meanwhile): the close named us, rightly, and the others went by it. Going
        on alone we would wait for them and then close the game on one of them, an honest party."""
        party = self.party
        assert party is not None
        if b"abandon" not in envelope:  # (every entry comes this way: most need no decoding here)
            return False
        try:
            entry = parse_envelope(envelope)
        except LogError:
            return False
        table = party.table
        own = self._own_written.get(entry.seq)
        if own is None or entry.kind != "abandon" or entry.game != table.game_id or table.ended is not None:
            return False
        if entry.prev != own[1] or not 0 <= entry.seat < len(table.parties) or entry.seat == party.me:
            return False
        # late by our own clock: written past the deadline, or sent only as we woke from being away
        # that long (a write just before the process was stopped reaches the others when it wakes)
        now = time.monotonic()
        away = max(self._woke[1] if self._woke[0] >= own[0] else 0.0, now - self._last_look)
        late = max(self._late_own.get(entry.seq, (0.0, b""))[0], away if self._last_look else 0.0)
        if late < self._deadline_for(own[2]) - CLOSE_TOLERANCE:
            return False
        if not entry.signed_by(table.parties[entry.seat].key):
            return False
        self._stop(
            f"seat {entry.seat} closed the game at entry {entry.seq}, naming us: our own entry for that"
            f" place reached the table {late:.0f} s late, past its deadline (this machine was away or"
            " too busy); the game is over for us, and nothing more is written or sent"
        )
        return True

    def _close_to_hold(self, envelope: bytes) -> bool:
        """Whether ``envelope`` is an ``abandon`` that must wait for our own view of the stall (it
        is at or ahead of our place, and not by the awaited party itself, which the rules refuse
        anyway); anything else takes the ordinary path."""
        assert self.party is not None
        try:
            entry = parse_envelope(envelope)
        except LogError:
            return False
        table = self.party.table
        if entry.kind != "abandon" or entry.game != table.game_id or entry.seq < table.next_seq:
            return False
        if not 0 <= entry.seat < len(table.parties) or entry.seat == self.party.me:
            return False
        expected = table.expected()
        return not (entry.seq == table.next_seq and (expected is None or expected[0] == entry.seat))

    async def _settle_closes(self) -> None:
        """Take each held ``abandon`` once we agree with it at its place; refuse one whose place
        another entry took (the party it named wrote after all)."""
        assert self.party is not None
        for sender in list(self._closes):
            envelope = self._closes.get(sender)
            if envelope is None:
                continue  # settled meanwhile (the watch loop and the receive loop both settle)
            table = self.party.table
            entry = parse_envelope(envelope)
            closer = entry.seat
            if table.ended is not None or entry.seq < table.next_seq:
                self._closes.pop(sender, None)
                if self._closed_on_us_late(envelope):  # held, and our own late entry came first
                    return
                if table.ended is None and entry.signed_by(table.parties[closer].key):
                    relayer = self._party_of_curve(sender)
                    if relayer is not None and relayer != closer:
                        # it sent that close from its log: it took it, and its game is over there
                        self._parted[relayer] = entry.seq
                    text = (
                        f"refused seat {closer}'s close of the game at entry {entry.seq}: by our clock "
                        "the party it named had not stalled, and its entry came; the game goes on "
                        f"without seat {closer}"
                    )
                    self._warn("%s", text)
                    self._notify("rejected", text)
            elif entry.seq == table.next_seq and self._agree_to_close():
                self._closes.pop(sender, None)
                await self._take_entry(None, envelope)

    def _agree_to_close(self) -> bool:
        """Whether we too see the awaited party stalled: gone from our mesh, refusing the table, or
        silent for (nearly) the table's deadline by our own clock at this place."""
        assert self.party is not None
        expected = self.party.table.expected()
        if expected is None:
            return True  # the rules refuse it
        awaited, kind = expected
        if awaited != self.party.me:
            if not self.connection_status()[awaited]["connected"]:
                return True
            if kind == "countersign" and awaited in self._declined:
                return True
        deadline = self._deadline_for(kind)
        return self._waited_here(time.monotonic()) >= deadline - max(CLOSE_TOLERANCE, deadline / 10)

    def _waited_here(self, now: float) -> float:
        """Seconds we have waited at our current place in the log (the clock starts at the first
        look at a new place)."""
        assert self.party is not None
        place = self.party.table.next_seq
        if self._waiting_since is None or self._waiting_since[0] != place:
            self._waiting_since = (place, now)
        return now - self._waiting_since[1]

    def _deadline_for(self, kind: str) -> float:
        """Seconds the table gives the awaited party for an entry of ``kind``."""
        assert self.party is not None
        stall = self.stall_after()
        if self.party.table.on_stall == "bot" and kind == "move":
            return 2 * stall  # its own node plays for a late player at the deadline
        return stall

    async def _precheck(self, envelope: bytes) -> None:
        """The envelope's proofs (and our shuffle of its pile) in worker threads, not on this loop.
        Only a head start: whatever goes wrong here, the entry is still received and checked."""
        assert self.party is not None
        try:
            jobs = self.party.precheck(envelope)
        except Exception as exc:  # our own bug: say so, and let the ordinary path do the work
            log.error("could not prepare an entry's checks: %s", _why(exc))
            return
        if jobs:
            results = await asyncio.gather(*(asyncio.to_thread(job) for job in jobs), return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException):
                    log.error("a check made ahead failed: %s", _why(result))

    async def _run(self, call: Callable[..., list[Effect]], *args: Any) -> None:
        """One party call and its effects, one at a time: carrying out effects awaits the network,
        and effects of two calls must never interleave, or our log would be written out of order."""
        async with self._party_lock:
            await self._carry_out(await self._call(call, *args))

    async def _carry_out(self, effects: list[Effect]) -> None:
        assert self.party is not None and self.writer is not None
        if self.failure is not None:
            return
        try:
            await self._carry_out_effects(effects)
        except OSError as exc:  # the log (or a file beside it) could not be written
            self._fail(exc)
        finally:
            self._tell_private_looks()

    def _tell_private_looks(self, refs: frozenset[int] | None = None, state: Any = None) -> None:
        """Tell our own player (and nobody else) about a card of another seat it was just shown:
        ``refs`` learned from one entry, with the state right after it (default: whatever is new
        since the last telling, in the table's current state)."""
        party = self.party
        assert party is not None
        known = set(party.private_faces)
        if self._told is None:  # a resumed game: what we knew before is old news
            self._told = known
        if refs is None:
            new, self._told = known - self._told, known
        else:
            new = set(refs) - self._told
            self._told |= new
        state = party.table.state if state is None else state
        hands = getattr(state, "hands", None)
        if not isinstance(hands, tuple):
            return
        revealing = party.table.step.request
        for ref in new:
            if ref in party.table.public_faces or (
                isinstance(revealing, Reveal | Disclose) and ref in revealing.refs
            ):
                continue  # everyone is seeing it being turned over anyway
            holder = next((s for s, hand in enumerate(hands) if ref in hand), None)
            if holder is not None and holder != party.seat:
                name = party.table.parties[holder].name
                face = card_words(party.table.game, party.private_faces[ref])
                self._notify("info", f"only you see: seat {holder} ({name}) holds {face}", private=True)

    async def _carry_out_effects(self, effects: list[Effect]) -> None:
        assert self.party is not None and self.writer is not None
        for effect in effects:
            try:
                await self._carry_out_effect(effect)
            except OSError:
                raise  # the log (or a file beside it) could not be written: this node stops
            except Exception as exc:
                # Our own bug: the rest of the list must still happen, or our log would lack an
                # entry our table holds, or we would never write our own and stall the table.
                log.error("internal error carrying out a %r effect: %s", effect.kind, _why(exc))
        if self._unopened is not None:
            await self._open_restored_choice()
        if self._resumed:
            await self._find_lost_choice()

    def _file(self, envelope: bytes, *, sync: bool) -> None:
        """Append ``envelope`` to our log file, after any entry our table took that the file lacks
        (an effect list our own bug cut short): the file must never skip a place."""
        assert self.party is not None and self.writer is not None
        entries = self.party.table.entries
        missing = self.writer.missing_before(envelope)
        if missing and missing.stop <= len(entries):
            log.error("our log file lacked entries %d to %d: written first", missing.start, missing.stop - 1)
            for entry in entries[missing.start : missing.stop]:
                self.writer.append(entry.envelope, sync=False)
        self.writer.append(envelope, sync=sync)

    async def _carry_out_effect(self, effect: Effect) -> None:
        """One effect of a party call (see :class:`p2p.party.Effect`)."""
        assert self.party is not None and self.writer is not None
        if effect.kind == "write":
            self._file(effect.envelope, sync=True)  # durable before anyone sees it
            self._note_own_timing(effect.envelope)
            await self._broadcast({"t": "entry", "env": effect.envelope})
        elif effect.kind == "send":  # deterministic: it joins our log when its place comes
            self._note_own_timing(effect.envelope)
            await self._broadcast({"t": "entry", "env": effect.envelope})
        elif effect.kind == "accepted":
            if self.party.table.next_seq != self._arrived[0]:
                self._arrived = (self.party.table.next_seq, time.monotonic())
            if not effect.persisted:
                # held by the others too (or recomputed by us): the next own entry syncs it
                self._file(effect.envelope, sync=False)
            seq = effect.entry.seq if effect.entry else -1
            self._notify("accepted", effect.text, seq=seq, state=effect.state)
            if effect.learned:  # right after the line of the entry that showed it
                try:
                    self._tell_private_looks(effect.learned, effect.state)
                except Exception as exc:  # words for our player must never cost the log an entry
                    log.error("telling our player what it saw failed: %s", _why(exc))
        elif effect.kind == "rejected":
            self._warn("rejected: %s", effect.text)
            self._notify("rejected", effect.text)
        elif effect.kind == "ask":  # our logs may have parted: everyone resends the last entries
            log.info("asking for entries from %d again: %s", effect.since, effect.text)
            self._fork_since = (self.party.table.next_seq, effect.since)  # (asked again if stuck)
            await self._broadcast(self._hello(effect.since))
        elif effect.kind == "evidence":
            self._save_evidence(effect)
            self._notify("evidence", effect.text)
        elif effect.kind == "decide":
            if self.on_decide is not None:
                try:
                    result = self.on_decide(effect.prompt, effect.moves)
                except Exception as exc:  # the player's side failed: the log must go on
                    log.error("asking our player failed: %s", _why(exc))
                    return
                if asyncio.iscoroutine(result):
                    task = asyncio.create_task(result, name="deciding")
                    task.add_done_callback(_report_failure)
                    self._tasks.append(task)
        elif effect.kind == "work" and effect.job is not None:
            task = _watched(self._work_then_write(effect.job), "our shuffle")
            self._tasks.append(task)
            task.add_done_callback(self._forget_task)
        elif effect.kind == "ended":
            self._finish()
            # tell everyone we hold the whole log: they may leave (``linger_after_end``)
            await self._say_held()

    def _note_own_timing(self, envelope: bytes) -> None:
        """Remember when we wrote each of our recent entries, and how late it was when that was
        past the table's deadline for it: a close naming us for its place may then be right."""
        assert self.party is not None
        try:
            entry = parse_envelope(envelope)
        except LogError:
            return
        if entry.seat != self.party.me or not self._last_look:
            return
        now = time.monotonic()
        # how long the table may have waited for it: since our log reached its place, or since the
        # watch loop last ran, if that is longer (this process was stopped, and the entries before
        # it sat unread meanwhile)
        waited = max(now - self._arrived[1] if self._arrived[0] <= entry.seq else 0.0, now - self._last_look)
        if now - self._woke[0] < AWAY_GAP:  # (the watch loop saw us wake just before)
            waited = max(waited, self._woke[1])
        if waited >= self._deadline_for(entry.kind) - CLOSE_TOLERANCE:
            self._late_own[entry.seq] = (waited, entry.prev)
        self._own_written[entry.seq] = (now, entry.prev, entry.kind)
        for seq in [q for q in self._own_written if q < entry.seq - 64]:
            del self._own_written[seq]  # (only recent places can be closed on us)

    async def _work_then_write(self, job: Callable[[], None]) -> None:
        """Run a party's heavy work in a worker thread, then let it write the entry it was for."""
        assert self.party is not None
        await asyncio.to_thread(job)
        await self._run(self.party.start)

    def _forget_task(self, task: asyncio.Task[Any]) -> None:
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)

    async def _open_restored_choice(self) -> None:
        """After a resume: take our saved secret choice once the step it answers is due (to commit
        to it again, or to open it); drop it once that step is over."""
        assert self.party is not None and self._unopened is not None
        table = self.party.table
        start, move, exact = self._unopened
        if table.ended or table.step.start_seq > start:
            self._unopened = None  # that step is over (the game ended, or was closed)
        elif table.step.start_seq == start and self.party.restore_choice(move, start if exact else None):
            self._unopened = None
            # called while carrying out effects, i.e. already inside ``_run``
            await self._carry_out(await self._call(self.party.start))

    async def _find_lost_choice(self) -> None:
        """After a resume: our commitment is in the log but the choice it binds is known nowhere
        (the ``.choice`` file is gone or older: a home restored from a backup, say). The commitment
        binds exactly one of our legal choices (its nonce is derived, not random), so try each:
        the one that matches is ours, and we open it. Before, the node never opened and the
        others closed the game on it at the deadline, naming it."""
        party = self.party
        assert party is not None
        step = party.table.step
        if not isinstance(step.request, Commit) or step.kind != "open" or party.me not in step.writers:
            return  # (only once every commitment is in: ours is then in the log, to try choices against)
        if self._guessed_for == step.start_seq or self._unopened is not None:
            return
        self._guessed_for = step.start_seq  # (once a step: trying every choice is not free)
        for move in party.legal_moves():
            if party.restore_choice(move, step.start_seq):
                log.info("found our secret choice for entry %d again from its commitment", step.start_seq)
                # called while carrying out effects, i.e. already inside ``_run``
                await self._carry_out(await self._call(party.start))
                return

    @staticmethod
    def _saved_choice(path: Path) -> tuple[int | None, dict[str, Any]] | None:
        """The secret choice saved beside the log: ``(the step it answers, the choice)``; the step
        is ``None`` in a file of an older version (the bare choice)."""
        if not path.exists():
            return None
        try:
            saved = safe_unpack(path.read_bytes(), WIRE_OBJECTS, WIRE_DEPTH)
        except (OSError, LogError) as exc:
            log.warning("%s: cannot read our committed choice (%s)", path.name, exc)
            return None
        if isinstance(saved, dict) and set(saved) == {"step", "choice"}:
            step, choice = saved["step"], saved["choice"]
            if type(step) is int and isinstance(choice, dict):
                return step, choice
        return (None, saved) if isinstance(saved, dict) else None

    def _save_evidence(self, effect: Effect) -> None:
        if self.log_path is None:
            return
        path = self.log_path.with_suffix(".evidence")
        with path.open("ab") as handle:
            handle.write(effect.envelope + effect.other)

    def _finish(self) -> None:
        if not self._ended.is_set():
            assert self.party is not None
            self._ended.set()
            self._notify("ended", self.party.table.ended or "", log=str(self.log_path))
            if self.log_path is not None:  # a log lost after the end is not a game to resume
                with contextlib.suppress(OSError, RecoveryError):
                    roster = read_roster(self.log_path)
                    write_roster(self.log_path, {**roster, "ended": self.party.table.ended})

    async def _receive_loop(self) -> None:
        assert self.mesh is not None
        while self.failure is None:
            try:
                sender, payload = await self.mesh.recv()
            except TransportError:
                return
            try:
                # shape first, bounded work: a msgpack bomb costs nothing
                message = safe_unpack(payload, WIRE_OBJECTS, WIRE_DEPTH)
            except LogError as exc:
                self._warn("dropped a message that is not msgpack or too deep or large (%s)", exc)
                continue
            if not isinstance(message, dict) or not isinstance(message.get("t"), str):
                self._warn("dropped a message without a type")
                continue
            try:
                await self._dispatch(sender, message)
            except (KeyError, TypeError, ValueError, Rejected) as exc:
                self._warn("dropped a bad %r message: %s", str(message.get("t"))[:16], exc)
            except OSError as exc:  # e.g. the roster or the log could not be written
                self._fail(exc)
            except Exception as exc:
                # Our own bug met by someone's message: say so loudly, but keep receiving, or
                # this peer would go deaf and stall the table without a word.
                log.error("internal error on a %r message: %s", str(message.get("t"))[:16], _why(exc))

    async def _dispatch(self, sender: bytes, message: dict[str, Any]) -> None:
        kind = message["t"]
        from_opener = self._opener_curve is not None and sender == self._opener_curve
        if kind == "start" and self.party is None and self.refusal is None:
            if not from_opener:
                # anyone may reach a joiner's mesh in the lobby: a stray start must not seat us, nor
                # make us leave the table we are joining
                log.warning("ignored a start message from a peer that is not the opener")
                if not self._stray_start and self._opener_curve is not None:
                    self._stray_start = True
                    self._notify("info", "ignored a start message from a peer that is not the opener")
                return
            genesis, endpoints = message["genesis"], message["endpoints"]
            if not isinstance(genesis, bytes) or not isinstance(endpoints, list):
                raise ValueError("bad start message")
            await self._start_from_genesis(genesis, [str(e) for e in endpoints], sender)
        elif kind == "lobby" and self.party is None:
            if from_opener:
                self._notify("lobby", "", seats=message.get("seats", []), free=message.get("free"))
        elif kind == "refused" and self.party is None:
            if from_opener:
                self._turned_away = safe_text(message.get("reason"), 200)
                self._notify("info", f"the table refused us: {self._turned_away}")
                self._ended.set()
        elif kind == "chat" and self.party is None and self._lobby is None:
            name, text = message.get("name"), message.get("text")
            if from_opener and isinstance(name, str) and isinstance(text, str):
                self._notify("chat", text[:MAX_CHAT], name=safe_text(name, 40))
        elif kind == "declined" and self.party is not None:
            seat = self._party_of_curve(sender)
            countersigning = self.party.table.next_seq < len(self.party.table.parties)
            if seat is not None and seat != self.party.me and countersigning:
                reason = safe_text(message.get("reason"), 200)
                self._declined[seat] = reason
                self._notify("status", f"seat {seat} refused the table: {reason}")
        elif self.party is None:
            if self._lobby_handler is not None:
                await self._lobby_handler(sender, message)
        elif kind == "entry":
            envelope = message["env"]
            if not isinstance(envelope, bytes):
                raise ValueError("entry without envelope bytes")
            try:
                # the payload's limits are ``parse_envelope``'s; the wrapper's are checked here too,
                # before anything is decoded, once for every use of the entry below
                check_envelope_shape(envelope, PAYLOAD_OBJECTS, PAYLOAD_DEPTH)
            except LogError as exc:  # refused before anything is decoded
                self._warn("rejected: envelope is not valid msgpack within the limits (%s)", exc)
                return
            if self._closed_on_us_late(envelope):
                return
            if self._close_to_hold(envelope):
                self._closes[sender] = envelope  # one per sender: a flood cannot grow it
                await self._settle_closes()
                return
            await self._take_entry(sender, envelope)
        elif kind == "hello":
            start = message["next"]
            if not isinstance(start, int):
                raise ValueError("hello without a sequence number")
            if "at" in message:
                self._repoint(sender, message["at"])
            if self._first_answer(sender, start):
                for envelope in self.party.entries_since(start):
                    await self._send(sender, {"t": "entry", "env": envelope})
            # and that is all we hold (a resumed peer waits for this before it writes again)
            await self._say_held(sender)
            if start > self.party.table.next_seq:  # they are ahead of us
                await self._ask(sender)
        elif kind == "held":
            seat = self._party_of_curve(sender)
            if seat is not None and isinstance(message.get("next"), int):
                self._holding[seat] = max(self._holding.get(seat, -1), message["next"])
                waited = message.get("waited")
                if isinstance(waited, int | float) and 0 <= waited < 1e9:
                    self._waited_there[seat] = (message["next"], time.monotonic() - waited)
                self._held_event.set()
        elif kind == "chat":
            seat = self._party_of_curve(sender)
            text = message.get("text")
            if seat is not None and isinstance(text, str):
                self._notify("chat", text[:MAX_CHAT], seat=seat, name=self.party.table.parties[seat].name)
        elif kind in ("again", "again-at"):
            self._on_again(sender, message)
        elif kind in ("join",):
            await self._send(sender, {"t": "refused", "reason": "the game has already started"})

    _lobby_handler: Callable[[bytes, dict[str, Any]], Awaitable[None]] | None = None

    # -- playing again (p2p/rematch.py) ----------------------------------------------------------
    def _on_again(self, sender: bytes, message: dict[str, Any]) -> None:
        """Take an ``again`` (a party's answer, once the result is known here; kept once per party: a
        no is final) or an ``again-at`` (the opener's next table, only once the game ended by its
        rules and we said yes). Anything else raises :class:`p2p.rematch.RematchError`: the message
        is dropped with a warning."""
        assert self.party is not None
        table = self.party.table
        party = self._party_of_curve(sender)
        if party == self.party.me:
            party = None
        if message["t"] == "again":
            answer = rematch.read_again(table, party, message, over=rematch.result_known(table))
            assert party is not None
            if self.again.get(party) not in ("no", "left"):
                self.again[party] = answer
        else:
            said_yes = self.again.get(self.party.me) == "yes"
            ended = table.ended == "over"
            self.again_at = rematch.read_at(
                table, self.endpoints, party, message, ended=ended, said_yes=said_yes
            )
        self.again_news.set()

    async def say_again(self, answer: str) -> None:
        """Tell every other party our answer to "play again?" (``yes``, ``no`` or ``left``)."""
        assert self.party is not None
        if self.again.get(self.party.me) in ("no", "left"):
            answer = self.again[self.party.me]  # a refusal is final
        self.again[self.party.me] = answer
        await self._broadcast(rematch.again_message(self.identity, self.party.table.game_id, answer))
        self.again_news.set()

    def missing_parties(self, table: Table) -> list[int]:
        """As the opener of ``table``'s rematch: the parties of ``table`` not in our lobby yet."""
        lobby = self._lobby
        here = {p["key"] for p in lobby.players + lobby.watchers} if lobby is not None else set()
        return [i for i, p in enumerate(table.parties) if p.key not in here]

    async def cancel_table(self, reason: str) -> None:
        """As an opener whose table has not started: close it, telling whoever joined why."""
        if self.party is not None or self._ended.is_set():
            return
        self._lobby_handler = None
        self.refusal = reason
        lobby = self._lobby
        for p in (lobby.players[1:] + lobby.watchers) if lobby is not None else []:
            await self._send(p["curve"], {"t": "refused", "reason": reason})
        self._ended.set()
        self._notify("ended", "not started")

    # Catch-up requests are repeated only so often. In a concurrent step entries arrive out of
    # order all the time, and each early one used to ask its sender for everything from our next
    # entry on: under load those answers crowded out the entries themselves, the peers fell
    # further behind, asked more, and the table choked (seen with six seats on two cores).
    def _hello(self, start: int) -> dict[str, Any]:
        """A ``hello`` asking for the entries from ``start`` on, saying where we listen (``at``): a
        party whose own link to us is down because it was given another endpoint for us (by an
        opener that lied in its ``start``) re-points it there."""
        message: dict[str, Any] = {"t": "hello", "next": start}
        if self.party is not None and 0 <= self.party.me < len(self.endpoints):
            message["at"] = self.endpoints[self.party.me]
        return message

    def _repoint(self, sender: bytes, at: object) -> None:
        """A seated party (the mesh authenticated its key) says it listens at ``at``: if our own link
        to it is down and points elsewhere, point it there. Only that party can say so, and a party
        that names a wrong endpoint for itself only cuts itself off."""
        assert self.party is not None
        seat = self._party_of_curve(sender)
        mesh = self.mesh
        if seat is None or seat == self.party.me or mesh is None or mesh.closed or not endpoint_ok(at):
            return
        if mesh.is_connected(sender) or mesh.status(sender).endpoint in (None, at):
            return
        log.warning("seat %d says it listens at %s, not where we were told: connecting there", seat, at)
        with contextlib.suppress(ValueError, TransportError):
            mesh.connect(sender, str(at))

    async def _ask(self, peer: bytes) -> None:
        """Ask ``peer`` for what we miss: at most once per :data:`ASK_AGAIN` s for the same gap."""
        assert self.party is not None
        now, gap = time.monotonic(), self.party.table.next_seq
        last = self._asked.get(peer)
        if last is not None and last[0] == gap and now - last[1] < ASK_AGAIN:
            return
        self._asked[peer] = (gap, now)
        await self._send(peer, self._hello(gap))

    def _first_answer(self, peer: bytes, start: int) -> bool:
        """Whether to send ``peer`` the entries from ``start`` on (not if we just did, for it)."""
        assert self.party is not None
        now, held = time.monotonic(), self.party.table.next_seq
        last = self._answered.get(peer)
        if last is not None and last[:2] == (start, held) and now - last[2] < ASK_AGAIN:
            return False
        # and only so many answers a second whatever it asks: a seated peer alternating two starts
        # made us resend the whole log to it thousands of times a second
        recent = [t for t in self._answers.get(peer, []) if now - t < ASK_AGAIN]
        if len(recent) >= ANSWERS_PER_ASK_AGAIN:
            self._answers[peer] = recent
            return False
        self._answers[peer] = [*recent, now]
        self._answered[peer] = (start, held, now)
        return True

    def _party_of_curve(self, curve: bytes) -> int | None:
        assert self.party is not None
        for index, info in enumerate(self.party.table.parties):
            if info.curve == curve:
                return index
        return None

    def connection_status(self) -> list[dict[str, Any]]:
        """For each party: name, whether connected, seconds silent (``None`` for ourselves)."""
        if self.party is None or self.mesh is None:
            return []
        out = []
        for index, info in enumerate(self.party.table.parties):
            if index == self.party.me:
                out.append({"party": index, "name": info.name, "me": True, "silent": 0.0, "connected": True})
                continue
            silent = self.mesh.silent_for(info.curve)
            out.append(
                {
                    "party": index,
                    "name": info.name,
                    "me": False,
                    "silent": silent,
                    "connected": self.mesh.is_connected(info.curve) and silent is not None and silent < 3.0,
                }
            )
        return out

    def stall_after(self) -> int:
        """The table's deadline (seconds) for the awaited party's entry, from the genesis."""
        assert self.party is not None
        value = self.party.table.genesis.body.get("stall_after", policy.DEFAULT_STALL_AFTER)
        return value if policy.check_stall(value) is None else policy.DEFAULT_STALL_AFTER

    async def _watch_loop(self) -> None:
        """Report disconnections; close the game as abandoned when the awaited party stalls it."""
        watch = _Watch()
        # (a stop before the first look is a gap too, counted from when we began playing)
        watch.looked = self._last_look = self._playing_since or time.monotonic()
        while not self.ended:
            await asyncio.sleep(0.5)
            try:
                await self._watch_once(watch)
            except Exception as exc:  # a bug here must not leave this peer deaf to a stall
                log.error("watching the table failed: %s", _why(exc))

    async def _watch_once(self, watch: _Watch) -> None:
        """One look at the links and at what the table is waiting for."""
        assert self.party is not None
        now = time.monotonic()
        last, watch.looked = watch.looked, now
        self._last_look = now
        gap = now - last
        if last and gap > AWAY_GAP:
            # we were not running: what the others sent meanwhile is still unread, and nobody can
            # be judged stalled by a clock that ran while we did not look
            log.info("this node was not running for %.0f s: reading what came before judging waits", gap)
            self._woke = (now, gap)
            self._back_at = now
            self._waiting_since = (self.party.table.next_seq, now)
            watch.stall = (self.party.table.next_seq, now)
            watch.exposing = (self.party.table.next_seq, now)
            await self._broadcast(self._hello(self.party.table.next_seq))
            return
        status = self.connection_status()
        for row in status:
            if row["me"]:
                continue
            word = watch.link_news(row["party"], not row["connected"], time.monotonic())
            if word is not None:
                self._notify("status", f"{row['name']} (seat {row['party']}) {word}", **row)
        expected = self.party.table.expected()
        now = time.monotonic()
        # Nothing has moved for a while: ask everyone for what we may have missed (a message
        # lost while a link was down would otherwise stall the table for good).
        if self.party.table.next_seq != watch.stall[0]:
            watch.stall = (self.party.table.next_seq, now)
        elif expected is not None and now - watch.stall[1] > STALL_HELLO:
            watch.stall = (self.party.table.next_seq, now)
            start = self.party.table.next_seq
            if self._fork_since is not None and self._fork_since[0] == start and not self.party.equivocations:
                start = self._fork_since[1]  # stuck where our logs parted: the last entries again
            await self._broadcast(self._hello(start))
        if self._closes:
            await self._settle_closes()
            expected = self.party.table.expected()
        if expected is None or self.party.holding:
            return
        if await self._expose_out_of_turn(watch, now):
            return
        await self._play_late()
        waited = self._waited_here(now)
        if not waited:
            return  # the first look at this place
        why = self._no_judge(status, expected[0], now)
        if why is None and watch.unsure is not None:
            # back in touch: read what the others wrote meanwhile before anyone is judged (the
            # awaited party's entry may be on its way), and give the wait its whole deadline again
            watch.unsure = None
            self._waiting_since = (self.party.table.next_seq, now)
            await self._broadcast(self._hello(self.party.table.next_seq))
            return
        if why is not None and (watch.unsure is None or watch.unsure[0] != why):
            watch.unsure = (why, now)
        self._tell_absence(watch, status, expected, waited, now)
        if watch.unsure is not None and expected[0] != self.party.me:
            self._stop_unsure(watch.unsure, expected, waited, now)
            return
        if (reason := self._stall_reason(status, expected[0], expected[1], waited)) is not None:
            if time.monotonic() - watch.looked > AWAY_GAP:
                return  # we were stopped during this very look: the next one reads what came first
            with contextlib.suppress(IllegalMove):
                await self._run(self.party.abandon, reason)

    def _no_judge(self, status: list[dict[str, Any]], awaited: int, now: float) -> str | None:
        """Why we may not close the game on the awaited party now, or ``None`` if we may.

        * We hear none of the other parties, at a table of three or more: our own link failing is
          far likelier than all of theirs at once, and the party awaited may be playing on with the
          rest (or they are all stopped, and will be back).
        * We have not heard the awaited party since we came back (a resume, or a wake after being
          stopped): it may have closed the game while we were away, and left when its game ended.
        * The awaited party sent us, from its log, a close of the game that we refused (the party it
          named wrote first by our view, when we had been away ourselves): its game is over on the
          other side of that fork, and it writes nothing here. (Its closer is not spared: it is
          named in turn, as ever, when the table needs it.)
        """
        assert self.party is not None
        others = [row for row in status if not row["me"]]
        if len(others) >= 2 and not any(row["connected"] for row in others):
            return "no other party at the table is heard"
        if awaited in self._parted:
            return f"seat {awaited} took a close of the game (entry {self._parted[awaited]}) that we refused"
        if awaited != self.party.me and 0 <= awaited < len(status):
            silent = status[awaited]["silent"]
            # (what it sent while we were away is read just after we come back: that is no sign)
            if silent is None or silent > now - self._back_at - HEARD_AGAIN:
                return f"seat {awaited} has not been heard since this node came back"
        return None

    def _stop_unsure(
        self, unsure: tuple[str, float], expected: tuple[int, str], waited: float, now: float
    ) -> None:
        """No judge of a stall (:meth:`_no_judge`): close the game on nobody; once the deadline has
        passed at this place and we have been unsure for :data:`UNSURE_PATIENCE` deadlines, stop
        without writing anything. If the others are there, they close it on us when it is ours to
        write, or go on; ``fairdeck resume`` catches up from them."""
        why, since = unsure
        deadline = self._deadline_for(expected[1])
        if waited <= deadline or now - since <= UNSURE_PATIENCE * deadline:
            return
        self._stop(
            f"{why} ({now - since:.0f} s; the table's deadline is {self.stall_after()} s): this node "
            "may be the one cut off or left behind, so it closed the game on nobody; stopped without "
            "writing anything: `fairdeck resume` catches up once the others are back"
        )

    async def _expose_out_of_turn(self, watch: _Watch, now: float) -> bool:
        """Expose an equivocation we hold once the party due at the next place has had its grace
        (:data:`EXPOSE_GRACE`) to do it in its own place. True while one waits to be exposed: the
        table is not closed on anyone meanwhile, since the stall may be the equivocator's doing."""
        party = self.party
        assert party is not None
        if not party.can_expose():
            return False
        place = party.table.next_seq
        if watch.exposing[0] != place:
            watch.exposing = (place, now)
        caught = party.equivocators()
        honest = [p for p in range(len(party.table.parties)) if p not in caught]
        rank = honest.index(party.me) if party.me in honest else len(honest)
        if now - watch.exposing[1] >= EXPOSE_GRACE * (1 + rank):
            await self._run(party.expose_now)
        return True

    def _tell_absence(
        self,
        watch: _Watch,
        status: list[dict[str, Any]],
        expected: tuple[int, str],
        waited: float,
        now: float,
    ) -> None:
        """While the table waits for a party that is gone from our mesh, say so now and then, with
        the time left before the table's deadline passes for it (nothing else would happen on the
        screen until then)."""
        assert self.party is not None
        who = expected[0]
        if who == self.party.me or not 0 <= who < len(status) or status[who]["connected"]:
            return
        place = self.party.table.next_seq
        told_place, told_party, told_at = watch.absent_told
        if (told_place, told_party) == (place, who) and now - told_at < ABSENT_NEWS_EVERY:
            return
        watch.absent_told = (place, who, now)
        left = max(0.0, self._deadline_for(expected[1]) - waited)
        name = status[who]["name"]  # (made safe where it is shown, like every notice)
        if watch.unsure is not None:
            why, since = watch.unsure
            deadline = self._deadline_for(expected[1])
            stop_in = max(left, UNSURE_PATIENCE * deadline - (now - since))
            text = (
                f"waiting for {name} (seat {who}), who is disconnected; {why}, so this node may be the "
                f"one cut off or left behind: it closes the game on nobody, and stops in {stop_in:.0f} s "
                "unless they come back"
            )
        else:
            text = (
                f"waiting for {name} (seat {who}), who is disconnected: unless they come back, the "
                f"table's deadline passes in {left:.0f} s and the game is closed, naming them"
            )
        self._notify("status", text, party=who, left=left)

    async def _play_late(self) -> None:
        """On a table whose policy is ``on_stall: "bot"``: once our own player has let the table's
        deadline pass, play a safe move for it (the heuristic bot, from our seat's knowledge, with a
        seed only we can make), marked ``late`` in the log. The others close the game only if we do
        not (our node is gone too), a deadline later."""
        from engine.games import make_bot

        party = self.party
        assert party is not None
        table, prompt, left = party.table, party.waiting_for_me(), self.own_deadline()
        if table.on_stall != "bot" or prompt is None or party.seat is None or left is None or left > 0:
            return
        step = table.step.start_seq.to_bytes(8, "big")
        seed = self.identity.sign(b"fairdeck-late\0" + table.game_id + step)  # only we can make it
        move = make_bot(table.game.name, "heuristic", seed).choose(
            table.game, table.state, party.seat, party.known_faces(), prompt
        )
        deadline = self.stall_after()
        self._notify("info", f"the table's {deadline} s deadline passed: a safe move is played for you")
        with contextlib.suppress(IllegalMove):
            await self.decide(move, late=True)

    def own_deadline(self) -> float | None:
        """Seconds left before the table's deadline passes on our own player's decision (then the
        move is played for it, or the others may close the game), or ``None`` if none is due."""
        party = self.party
        if party is None or party.waiting_for_me() is None:
            return None
        step = party.table.step.start_seq
        if step not in self._decision_since:
            self._decision_since = {step: time.monotonic()}  # (only the decision due now matters)
        return max(0.0, self.stall_after() - (time.monotonic() - self._due_since(step)))

    def _due_since(self, step: int) -> float:
        """When our player's decision in ``step`` became due: when we first asked it, or earlier
        if the others said (``held``) that they have waited for us at this place since before —
        after a resume, their clocks ran while ours did not, and they close the game by theirs.
        The latest of their starts counts, and only once every other party has said where it
        waits: one party alone (a liar's unasked ``held``) cannot rush us."""
        party = self.party
        if party is None:
            return self._decision_since[step]
        place = party.table.next_seq
        others = {p for p in range(len(party.table.parties)) if p != party.me}
        said = {p: since for p, (at, since) in self._waited_there.items() if at == place and p in others}
        if not others or set(said) != others:
            return self._decision_since[step]
        return min(self._decision_since[step], max(said.values()))

    def _stall_reason(
        self, status: list[dict[str, Any]], waiting_for: int, kind: str, waited: float
    ) -> str | None:
        """Why we close the game now, having waited ``waited`` s at this place (naming the awaited
        party), or ``None`` if it is not our turn to."""
        assert self.party is not None
        if waiting_for == self.party.me:
            return None  # our own player is awaited: the others may close, never us
        present = [r["party"] for r in status if r["connected"] and r["party"] != waiting_for]
        # The lowest-numbered party still here closes the game. If it does not (it is stuck, or
        # its deadline is longer), the next one in line steps in one more period later, and so
        # on: staggered by whole periods, so they do not race.
        rank = present.index(self.party.me) if self.party.me in present else -1
        if rank < 0:
            return None
        who = f"seat {waiting_for} ({safe_text(self.party.table.parties[waiting_for].name, 40)})"
        if waiting_for in self._declined and kind == "countersign" and rank == 0:
            return f"{who} refused the table: {self._declined[waiting_for]}"
        stall = self._deadline_for(kind)
        if waited > stall * (1 + rank):
            # connected or not: a party that writes nothing for the table's deadline stalls everyone
            return f"{who} wrote nothing for {waited:.0f} s (the table's deadline is {stall} s)"
        # a bot's own, shorter deadline applies to a party that is gone from the mesh
        local = self.abandon_after
        silent = status[waiting_for]["silent"]
        if local is not None and waited > local * (1 + rank) and (silent is None or silent > local):
            return f"{who} was gone for more than {local:g} s"
        return None

    async def _leave_lobby(self) -> None:
        """Closing before the game started: as the opener, close the table and tell whoever joined
        (they would otherwise wait in silence until ``LOBBY_SILENCE``); as a joiner, tell the opener
        we gave up our place (else the table could fill and start with a seat nobody plays)."""
        if self.party is not None or self._ended.is_set() or self.mesh is None or self.mesh.closed:
            return
        with contextlib.suppress(Exception):  # leaving must not fail on a peer that is gone
            if self._lobby is not None:
                await self.cancel_table("its opener closed it before the game started")
            elif self._opener_curve is not None:
                await self._send(self._opener_curve, {"t": "declined", "reason": LEFT_LOBBY})

    async def close(self) -> None:
        """Stop everything and close sockets and files. A party whose game ended by its rules and
        that did not say no (nor went on to the next game, nor saw the series end for everyone)
        first tells the others it left, so that nobody waits for its answer to "play again?"."""
        await self._leave_lobby()
        party = self.party
        if (
            party is not None
            and party.table.ended == "over"
            and self.failure is None
            and not self.said_all
            and self.again.get(party.me) not in ("no", "left")
            and self.mesh is not None
            and not self.mesh.closed
        ):
            with contextlib.suppress(Exception):
                await self.say_again("left")
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        if self.mesh is not None:
            await self.mesh.close(linger=0.5)
        if self._bootstrap is not None:
            await asyncio.to_thread(self._bootstrap.stop)
        if self._ctx is not None:
            self._ctx.destroy(linger=0)
        if self.writer is not None:
            self.writer.close()
        if self._game_lock is not None:
            with contextlib.suppress(OSError):
                os.close(self._game_lock)
            self._game_lock = None
