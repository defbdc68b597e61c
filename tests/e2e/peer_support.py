"""Process helpers for the real-peer tests (and ``scripts/bench_protocol.py``).

Every peer is a separate OS process with its own home directory (identity key, ``games/`` logs),
started in its own process group so that a test can ``kill -9`` it — and whatever it spawned — at
once, and so that :class:`Cluster` can always kill every group it started on exit, pass or fail.

- The **host** is a bot peer that opens the table: ``python -m tests.e2e.peer_support host ...``
  runs the production :class:`p2p.node.Node` with :class:`fairdeck.commands.BotDriver` (what
  ``fairdeck play --bots N`` runs for an all-bot table), prints the bootstrap port as one JSON line
  and waits for the end of the game. Its restart path is the production one: ``fairdeck bot
  --home <host home>`` finds the unfinished game there and resumes it as a bot.
- The other seats are ``fairdeck bot --join 127.0.0.1:PORT --home <home>`` processes; restarting one
  with the same command resumes its unfinished game from its log and roster.

:class:`LogFollower` folds a peer's log as it grows (the same :class:`p2p.protocol.Table` every peer
runs), so a test can stop a process at an exact protocol point (:meth:`Cluster.kill_when`).

Nothing here listens anywhere but 127.0.0.1 unless a test passes a namespace address explicitly.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from engine.core import Commit
from p2p.identity import KEY_FILE, Identity
from p2p.log import Entry, parse_envelope, read_log, read_log_bytes
from p2p.protocol import Rejected, Table

REPO = Path(__file__).resolve().parents[2]
FAIRDECK = [sys.executable, "-m", "fairdeck"]
CI = bool(os.environ.get("CI"))
GAME_TIMEOUT = 180.0
"""Seconds a whole small game may take before a test gives up (a hang, not a speed check: the
machine is shared, so this is generous)."""


class PeerFailure(AssertionError):
    """A peer process did not do what the test needed; the message carries its output."""


def proof_floor_env(rounds: int) -> dict[str, str]:
    """The test-only environment that lets a peer accept cut-and-choose shuffle proofs of at least
    ``rounds`` rounds (below the project's floor, Wikström–Terelius): tests shuffle with a few fast
    rounds where soundness is not what they test."""
    from p2p.policy import FLOOR_ENV

    return {FLOOR_ENV: f"cc:{rounds}"}


def run_fairdeck(
    args: Sequence[str], env: dict[str, str], timeout: float = GAME_TIMEOUT
) -> tuple[int, str, str]:
    """Run ``fairdeck ARGS`` to its end in its own process group (killed whatever happens);
    return (exit code, stdout, stderr)."""
    proc = subprocess.Popen(
        [*FAIRDECK, *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, out, err


def wait_for(condition: Callable[[], Any], timeout: float, what: str, every: float = 0.05) -> Any:
    """Poll ``condition`` until it returns something truthy (returned); fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise PeerFailure(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


def memory_peak_mib(pid: int) -> float | None:
    """The peak resident memory (``VmHWM``) of a live process in MiB, from ``/proc`` (None once gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def processes_mentioning(text: str) -> list[int]:
    """Live (not zombie) processes whose command line contains ``text``, from the process table."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if text in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def assert_one_log_audited_clean(logs: Sequence[Path], parties: int) -> None:
    """Every peer's log is byte-identical and whole (no torn tail, nothing unreadable), and ``fairdeck
    audit`` of them all is clean, with the result confirmed by all ``parties``."""
    assert len({path.read_bytes() for path in logs}) == 1, "the peers' logs differ"
    loaded = read_log(logs[0])
    assert loaded.torn_bytes == 0 and loaded.error is None, (loaded.torn_bytes, loaded.error)
    audit = subprocess.run(
        [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert audit.returncode == 0, audit.stdout[-3000:] + audit.stderr[-1000:]
    everyone = "both parties" if parties == 2 else f"all {parties} parties"
    assert f"finished; result confirmed by {everyone}" in audit.stdout, audit.stdout[-3000:]


def read_entries(path: Path) -> list[Entry]:
    """The complete entries of a log file (a torn tail is ignored, as a peer would)."""
    if not path.exists():
        return []
    out = []
    with contextlib.suppress(ValueError):
        for envelope in read_log(path).envelopes:
            out.append(parse_envelope(envelope))
    return out


def fold_log(path: Path) -> Table:
    """The replica every peer runs, fed a whole log file: every entry must be accepted (a refused
    one raises), so what the log ends with is what its writer's table said."""
    envelopes = read_log(path).envelopes
    table = Table(envelopes[0])
    for envelope in envelopes[1:]:
        table.accept(envelope)
    return table


def entry_starts(path: Path) -> list[int]:
    """The file offset where each complete entry of a log file begins."""
    loaded = read_log(path)
    return [loaded.end_of(index) for index in range(len(loaded.envelopes))]


# ---------------------------------------------------------------------------------------------
# one peer process
# ---------------------------------------------------------------------------------------------


@dataclass
class Peer:
    """One peer: its home, the command that (re)starts it, and its current process."""

    name: str
    home: Path
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stdin_text: str | None = None
    """Written to the process's stdin (kept open afterwards), e.g. a person's typed answers."""
    stamp: bool = False
    """Prefix every stdout line with its arrival time (``time.time()`` and a tab), for latencies."""
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    exits: list[int] = field(default_factory=list)

    @property
    def out_path(self) -> Path:
        """Where stdout of every run of this peer goes (appended)."""
        return self.home.parent / f"{self.home.name}.out"

    @property
    def err_path(self) -> Path:
        """Where stderr of every run of this peer goes (appended)."""
        return self.home.parent / f"{self.home.name}.err"

    def start(self) -> Peer:
        """Start (or restart) the process with the same command and home."""
        if self.running:
            raise PeerFailure(f"{self.name} is already running")
        self.home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "FAIRDECK_HOME": str(self.home), "PYTHONUNBUFFERED": "1", **self.env}
        with self.out_path.open("ab") as out, self.err_path.open("ab") as err:
            marker = f"--- run {self.starts + 1}: {' '.join(self.argv[2:])}\n".encode()
            out.write(marker)
            err.write(marker)
            out.flush()
            err.flush()
            self.proc = subprocess.Popen(
                self.argv,
                cwd=REPO,
                env=env,
                stdin=subprocess.PIPE if self.stdin_text is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE if self.stamp else out,
                stderr=err,
                start_new_session=True,  # its own process group: killpg reaches all it spawned
            )
        if self.stamp:
            threading.Thread(target=self._stamp_lines, args=(self.proc,), daemon=True).start()
        if self.stdin_text is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.write(self.stdin_text.encode())
            self.proc.stdin.flush()  # and leave it open: EOF would end a person's input
        self.starts += 1
        return self

    def _stamp_lines(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        with self.out_path.open("ab") as out:
            for line in iter(proc.stdout.readline, b""):
                out.write(b"%.6f\t" % time.time() + line)
                out.flush()

    def lines(self) -> list[tuple[float | None, str]]:
        """Stdout lines of every run, each with its arrival time when :attr:`stamp` is set."""
        out: list[tuple[float | None, str]] = []
        for line in self.output().splitlines():
            stamp, tab, text = line.partition("\t")
            if tab and stamp.replace(".", "", 1).isdigit():
                out.append((float(stamp), text))
            else:
                out.append((None, line))
        return out

    @property
    def running(self) -> bool:
        """True while the current process is alive."""
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the peer's whole process group (no-op once it is gone)."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)

    def stop(self, timeout: float = 2.0) -> None:
        """SIGSTOP the peer and return once every thread of it has stopped.

        ``kill(2)`` returns before the signal takes effect: a peer that is not waited for can go on
        appending to its log while it is being read, so the entry a kill point was checked at would
        not be the last one the peer wrote (a burst of received entries is written with no fsync in
        between). A thread inside a system call stops when the call returns."""
        self.signal(signal.SIGSTOP)
        if self.proc is None:
            return
        tasks = Path(f"/proc/{self.proc.pid}/task")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.running:
            try:
                states = [(t / "stat").read_text().rsplit(")", 1)[1].split()[0] for t in tasks.iterdir()]
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue  # a thread came or went while we looked
            if all(state in "tTZX" for state in states):
                return
            time.sleep(0.0001)

    def kill(self) -> None:
        """``kill -9`` the process group and reap the process."""
        if self.proc is None:
            return
        self.signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        self._closed()

    def wait(self, timeout: float) -> int:
        """Wait for the process to exit; return its exit code (fails with its output on timeout)."""
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise PeerFailure(f"{self.name} did not finish within {timeout:g} s\n{self.tail()}") from None
        self._closed()
        return code

    def _closed(self) -> None:
        if self.proc is not None and self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        if self.proc is not None and self.proc.returncode is not None and len(self.exits) < self.starts:
            self.exits.append(self.proc.returncode)

    def output(self) -> str:
        """Everything the peer printed on stdout, over all its runs."""
        return self.out_path.read_text(errors="replace") if self.out_path.exists() else ""

    def errors(self) -> str:
        """Everything the peer printed on stderr, over all its runs."""
        return self.err_path.read_text(errors="replace") if self.err_path.exists() else ""

    def tail(self, chars: int = 3000) -> str:
        """The end of the peer's stdout and stderr, for failure messages."""
        return (
            f"[{self.name} stdout]\n{self.output()[-chars:]}\n[{self.name} stderr]\n{self.errors()[-chars:]}"
        )

    def identity(self) -> Identity:
        """The peer's long-term identity, from its home (the test owns every home)."""
        return Identity.load(self.home / KEY_FILE)

    def log_path(self) -> Path | None:
        """The peer's game log (its home holds one game in these tests)."""
        logs = sorted((self.home / "games").glob("*.fdlog"))
        return logs[0] if logs else None


# ---------------------------------------------------------------------------------------------
# following a log as it grows
# ---------------------------------------------------------------------------------------------


class LogFollower:
    """Folds a growing log file through a :class:`Table`, entry by entry (torn tails wait)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.table: Table | None = None
        self.entries: list[Entry] = []
        self._offset = 0

    def poll(self) -> bool:
        """Read and fold whatever complete entries were appended; True if anything was new."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return False
        if len(data) <= self._offset:
            return False
        new = False
        loaded = read_log_bytes(data)
        try:
            if loaded.error is not None:
                raise ValueError(loaded.error)
            for index in range(len(self.entries), len(loaded.envelopes)):
                envelope = loaded.envelopes[index]
                entry = parse_envelope(envelope)
                if self.table is None:
                    self.table = Table(envelope)
                else:
                    self.table.accept(envelope)
                self.entries.append(entry)
                self._offset = loaded.ends[index]
                new = True
        except (ValueError, Rejected) as exc:
            raise PeerFailure(f"{self.path} holds an entry its own peer should never write: {exc}") from exc
        return new

    @property
    def last(self) -> Entry | None:
        """The last complete entry."""
        return self.entries[-1] if self.entries else None


KillPoint = Callable[[Table, Entry, int], bool]
"""A predicate on a victim's folded log — its table, its last entry, the victim's own party index —
that says: kill the victim now."""


def own_commit_written(table: Table, last: Entry, me: int) -> bool:
    """A secret choice: the victim's commitment is in its own log, its opening is not.

    The commitments of a step are concurrent, so whether the others have committed by then is a
    race this point does not fix (:func:`own_opening_owed` fixes the case where they all have)."""
    step = table.step
    if not isinstance(step.request, Commit):
        return False
    mine = {e.kind for e in table.entries[step.start_seq :] if e.seat == me}
    return "commit" in mine and "open" not in mine


def own_opening_owed(table: Table, last: Entry, me: int) -> bool:
    """A secret choice: every commitment is in the victim's log, its own opening is still owed."""
    step = table.step
    return isinstance(step.request, Commit) and step.kind == "open" and me in step.writers


# ---------------------------------------------------------------------------------------------
# a whole table of peer processes
# ---------------------------------------------------------------------------------------------


class Cluster:
    """A host bot and ``seats - 1`` bot peers on loopback, each with its own home under ``base``.

    Use as a context manager: on exit every process group it started is killed, whatever happened.
    """

    def __init__(
        self,
        base: Path,
        *,
        game: str = "loveletter",
        seats: int = 4,
        rounds: int = 8,
        abandon_after: float | None = None,
        bind: str = "127.0.0.1",
        quiet_bots: bool = True,
        stamp: bool = False,
        mode: str = "fair",
        host_abandons: bool = True,
        stall_after: int | None = None,
        spectators: bool = False,
        on_stall: str | None = None,
        no_rematch: bool = False,
    ) -> None:
        self.base = Path(base)
        self.no_rematch = no_rematch
        """Bots say no to playing again, and so leave as soon as their game is over."""
        self.spectators = spectators
        self.on_stall = on_stall
        self.game, self.seats, self.rounds = game, seats, rounds
        self.abandon_after = abandon_after
        self.bind = bind
        self.quiet_bots = quiet_bots
        self.stamp = stamp
        self.mode = mode
        self.host_abandons = host_abandons
        """Give the host ``--abandon-after`` too (a person's ``fairdeck host`` has no such option)."""
        self.host_exits_before_start = False
        """The host dies (``os._exit``) right after writing the genesis, before sending the start."""
        self.host_frames_at: int | None = None
        """A dishonest host: its first own entry from this seq on that makes another party the
        awaited one is followed at once by an ``abandon`` naming that party — sent *before* the
        entry itself, so every other party holds the close before the framed one could write."""
        self.host_killed_after_own_final = False
        """The host ``kill -9``s itself right after its own ``final`` went out to every other party,
        before it writes anyone else's."""
        self.host_lingers = False
        """The host stays, as ``fairdeck bot`` does, until every other party says it holds the whole
        log (:meth:`p2p.node.Node.linger_after_end`), instead of leaving half a second after its end."""
        self.stall_after = stall_after
        """The table's stall deadline (seconds; default: the node's)."""
        self.env = proof_floor_env(rounds)
        """Every peer's extra environment: the test-only proof floor that accepts ``rounds``."""
        self.peers: list[Peer] = []
        self.address: str | None = None
        self.started_at = 0.0

    # -- lifecycle --------------------------------------------------------------------------------
    def __enter__(self) -> Cluster:
        self.base.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Kill every process group this cluster started (idempotent)."""
        for peer in self.peers:
            peer.kill()

    def host_argv(self) -> list[str]:
        """The host bot's command."""
        argv = [
            sys.executable, "-m", "tests.e2e.peer_support", "host",
            "--game", self.game, "--seats", str(self.seats), "--rounds", str(self.rounds),
            "--bind", self.bind, "--name", "host-bot", "--mode", self.mode,
        ]  # fmt: skip
        if self.abandon_after is not None and self.host_abandons:
            argv += ["--abandon-after", str(self.abandon_after)]
        if self.stall_after is not None:
            argv += ["--stall-after", str(self.stall_after)]
        if self.host_exits_before_start:
            argv.append("--exit-before-start")
        if self.host_killed_after_own_final:
            argv.append("--killed-after-own-final")
        if self.host_lingers:
            argv.append("--linger")
        if self.host_frames_at is not None:
            argv += ["--frame-at", str(self.host_frames_at)]
        if self.spectators:
            argv.append("--spectators")
        if self.on_stall:
            argv += ["--on-stall", self.on_stall]
        return argv

    def bot_argv(self, index: int, address: str) -> list[str]:
        """Bot ``index``'s ``fairdeck bot`` command (also its restart command)."""
        argv = [*FAIRDECK, "bot", "--join", address, "--home", str(self.base / f"bot{index}")]
        argv += ["--name", f"bot-{index}", "--bind", self.bind]
        if self.quiet_bots:
            argv.append("--quiet")
        if self.abandon_after is not None:
            argv += ["--abandon-after", str(self.abandon_after)]
        if self.mode == "trusted":
            argv.append("--allow-trusted")  # the test asked for a trusted table
        if self.no_rematch:
            argv.append("--no-rematch")
        return argv

    def start(self, bots: int | None = None) -> Cluster:
        """Start the host, wait for its bootstrap port, then start ``bots`` bots (default: all)."""
        self.started_at = time.monotonic()
        host = Peer("host", self.base / "host", self.host_argv(), env=dict(self.env), stamp=self.stamp)
        self.peers.append(host.start())
        ready = wait_for(lambda: self._ready_line(host), 60, "the host to open its table")
        self.address = f"{self.bind}:{ready['bootstrap']}"
        for _ in range(self.seats - 1 if bots is None else bots):
            self.start_bot()
        return self

    def start_bot(self) -> Peer:
        """Start one more bot peer (``bot1``, ``bot2``... in order)."""
        assert self.address is not None, "start the host first"
        index = len(self.peers)
        bot = Peer(
            f"bot{index}",
            self.base / f"bot{index}",
            self.bot_argv(index, self.address),
            env=dict(self.env),
            stamp=self.stamp,
        )
        self.peers.append(bot.start())
        return bot

    def start_dishonest(self, module: str) -> Peer:
        """Start a deliberately dishonest peer, ``python -m tests.e2e.<module>`` (see
        ``tests/e2e/dishonest_peer.py``), joining this table from its own home."""
        assert self.address is not None, "start the host first"
        home = self.base / module
        argv = [sys.executable, "-m", f"tests.e2e.{module}", "--join", self.address, "--home", str(home)]
        cheat = Peer(module, home, argv, env=dict(self.env))
        self.peers.append(cheat.start())
        return cheat

    def lobby(self) -> dict[str, Any]:
        """What the host's bootstrap socket says about the table now (``free`` seats, ``full``...)."""
        import msgpack
        import zmq

        assert self.address is not None
        ctx = zmq.Context.instance()
        req = ctx.socket(zmq.REQ)
        req.linger = 0
        try:
            req.connect(f"tcp://{self.address}")
            req.send(msgpack.packb({"t": "info"}))
            if not req.poll(10_000):
                raise PeerFailure("the host's bootstrap did not answer")
            return msgpack.unpackb(req.recv(), raw=False)  # type: ignore[no-any-return]
        finally:
            req.close(linger=0)

    @staticmethod
    def _ready_line(host: Peer) -> dict[str, Any] | None:
        if host.proc is not None and host.proc.poll() is not None:
            raise PeerFailure(f"the host exited early\n{host.tail()}")
        for _, line in host.lines():
            if line.startswith("{"):
                return json.loads(line)  # type: ignore[no-any-return]
        return None

    def restart_as_bot(self, peer: Peer) -> Peer:
        """Restart ``peer`` with ``fairdeck bot --home <its home>`` (how a crashed host comes back)."""
        assert self.address is not None
        peer.argv = [*FAIRDECK, "bot", "--join", self.address, "--home", str(peer.home)]
        if self.quiet_bots:
            peer.argv.append("--quiet")
        if self.abandon_after is not None:
            peer.argv += ["--abandon-after", str(self.abandon_after)]
        if self.mode == "trusted":
            peer.argv.append("--allow-trusted")
        return peer.start()

    # -- observing --------------------------------------------------------------------------------
    def logs(self) -> list[Path]:
        """Every peer's log path, in seat-process order (fails if one has none)."""
        paths = []
        for peer in self.peers:
            path = peer.log_path()
            if path is None:
                raise PeerFailure(f"{peer.name} has no log\n{peer.tail()}")
            paths.append(path)
        return paths

    def wait_finished(self, timeout: float = GAME_TIMEOUT) -> list[int]:
        """Wait until every peer process has exited; return their last exit codes."""
        deadline = time.monotonic() + timeout
        codes = []
        for peer in self.peers:
            left = max(1.0, deadline - time.monotonic())
            try:
                codes.append(peer.wait(left))
            except PeerFailure as exc:
                others = "\n".join(p.tail(1500) for p in self.peers if p is not peer)
                raise PeerFailure(f"{exc}\n{others}") from None
        return codes

    def peer_at(self, party: int, timeout: float = 60.0) -> Peer:
        """The peer seated as ``party`` (join order decides seats, so ask the genesis)."""
        host = self.peers[0]
        entries = wait_for(
            lambda: read_entries(host.log_path()) if host.log_path() else None, timeout, "the genesis"
        )
        keys = [p["key"] for p in entries[0].body["parties"]]
        for peer in self.peers:
            if peer.identity().public_key == keys[party]:
                return peer
        raise PeerFailure(f"nobody of this cluster sits at party {party}")

    def kill_when(
        self,
        victim: Peer,
        point: KillPoint,
        what: str,
        *,
        after_seq: int = -1,
        hold: tuple[Peer, KillPoint] | None = None,
        timeout: float = GAME_TIMEOUT,
        stop_only: bool = False,
    ) -> tuple[Table, Entry]:
        """``kill -9`` ``victim`` once its own log satisfies ``point`` (at an entry beyond
        ``after_seq``); return the folded table and last entry at the kill. ``stop_only``: leave
        it stopped there (SIGSTOP) instead: a peer frozen at that point, to be continued later.

        Every time the victim's log grows, the victim is stopped (SIGSTOP) while its log is folded
        and ``point`` is checked, so a state that lasts as long as the victim's own next step (a
        shuffle proof, a fsync) cannot slip by, and the kill lands exactly where ``point`` holds;
        otherwise the victim continues (SIGCONT). A point that lasts only as long as *another* peer
        takes to write can be held open: with ``hold=(peer, approach)``, ``peer`` is stopped as soon as
        the victim's log satisfies ``approach``, and continued after the kill.
        """
        held: Peer | None = None
        deadline = time.monotonic() + timeout
        follower: LogFollower | None = None
        size = -1
        frozen = False
        try:
            while time.monotonic() < deadline:
                if not victim.running:
                    raise PeerFailure(f"{victim.name} exited before {what}\n{victim.tail()}")
                path = follower.path if follower is not None else victim.log_path()
                now = path.stat().st_size if path is not None and path.exists() else -1
                if path is None or now == size:
                    time.sleep(0.001)
                    continue
                victim.stop()
                try:
                    # the size the file has while the victim stands still, torn tail included: a
                    # torn tail that stays (the victim's previous run left it) must not wake us
                    # again and again — that would keep the victim stopped nearly all the time
                    size = path.stat().st_size
                    follower = follower or LogFollower(path)
                    follower.poll()
                    last = follower.last
                    if last is None or last.seq <= after_seq:
                        continue
                    if hold is not None and held is None and self._holds(hold[1], follower, victim):
                        held = hold[0]
                        held.stop()
                    if self._holds(point, follower, victim):
                        frozen = stop_only
                        if not stop_only:
                            victim.kill()
                        assert follower.table is not None
                        return follower.table, last
                finally:
                    if not frozen:
                        victim.signal(signal.SIGCONT)
                time.sleep(0.0005)  # let it run: a torn tail must be completed before it is read
            stuck = [victim, *([held] if held is not None else [])]
            for peer in stuck:  # where is each of them? (fairdeck prints its stacks on SIGUSR1)
                peer.signal(signal.SIGUSR1)
                peer.signal(signal.SIGCONT)
            time.sleep(1.0)
            raise PeerFailure(
                f"{victim.name} never reached {what} within {timeout:g} s\n"
                + "\n".join(peer.tail(6000) for peer in stuck)
            )
        finally:
            if held is not None:
                held.signal(signal.SIGCONT)

    @staticmethod
    def _holds(point: KillPoint, follower: LogFollower, victim: Peer) -> bool:
        table, last = follower.table, follower.last
        if table is None or last is None or table.ended is not None:
            return False
        me = table.seat_of_key(victim.identity().public_key)
        assert me is not None, f"{victim.name} is not seated at its own table"
        return point(table, last, me)


# ---------------------------------------------------------------------------------------------
# the host bot process: ``python -m tests.e2e.peer_support host ...``
# ---------------------------------------------------------------------------------------------


async def _host_main(args: argparse.Namespace) -> int:
    from fairdeck.commands import BotDriver, _print_progress
    from p2p.identity import Identity, data_dir
    from p2p.node import Node

    home = data_dir()
    identity = Identity.load_or_create(home)
    node = Node(identity, home, name=args.name, bind_host=args.bind, abandon_after=args.abandon_after)
    if args.exit_before_start:
        # a crash at the worst moment of the lobby: the genesis is durable, nobody has heard of it
        send = node._send

        async def send_or_die(curve: bytes, message: dict[str, Any]) -> None:
            if message.get("t") == "start":
                os._exit(9)
            await send(curve, message)

        node._send = send_or_die  # type: ignore[method-assign]
    if args.killed_after_own_final:
        # the last second of a game, exactly: our final (the first of the step, so persisted before
        # it is sent) has gone out; the others' finals, written ahead, reach our log right after it
        # unless we die first — which no outside observer of the log can time reliably
        broadcast = node._broadcast

        async def broadcast_then_die(message: dict[str, Any]) -> None:
            await broadcast(message)
            if message.get("t") == "entry" and node.party is not None:
                entry = parse_envelope(message["env"])
                if entry.kind == "final" and entry.seat == node.party.me:
                    time.sleep(0.3)  # the loop stays blocked: the sockets' own thread sends it
                    os.kill(os.getpid(), signal.SIGKILL)

        node._broadcast = broadcast_then_die  # type: ignore[method-assign]
    try:
        extra: dict[str, Any] = {"stall_after": args.stall_after} if args.stall_after is not None else {}
        if args.spectators:
            extra["spectators"] = True
        if args.on_stall:
            extra["on_stall"] = args.on_stall
        port = await node.open_table(
            args.game, args.seats, shuffle_rounds=args.rounds, mode=args.mode, **extra
        )
        assert node.mesh is not None
        print(json.dumps({"bootstrap": port, "mesh": node.mesh.port}), flush=True)
        BotDriver(node, args.game, args.level, args.seed)
        if args.frame_at is not None:
            _frame(node, args.frame_at)
        await asyncio.gather(node.wait_ended(), _print_progress(node, args.quiet))
        if node.failure is not None:
            print(f"fairdeck: {node.failure}", file=sys.stderr, flush=True)
            return 3
        if args.linger:  # as `fairdeck bot` does: until everyone holds the whole log, or a while
            await node.linger_after_end()
        await asyncio.sleep(0.5)  # let our last entries reach the others, as `fairdeck bot` does
        return 0
    finally:
        await node.close()


def _frame(node: Any, at: int, only: int | None = None) -> None:
    """Frame another party (``only`` that one, if given): the moment our own entry (from seq ``at``
    on) makes it the awaited one, close the game naming it, and send the close ahead of the entry —
    a lie in our own signed ``abandon``, which no single log can tell from a real stall."""
    broadcast = node._broadcast
    framed: list[int] = []

    async def broadcast_framing(message: dict[str, Any]) -> None:
        party = node.party
        if not framed and message.get("t") == "entry" and party is not None:
            entry, table = parse_envelope(message["env"]), party.table
            expected = table.expected()
            ours_in_place = entry.seat == party.me and entry.seq >= at and entry.seq + 1 == table.next_seq
            victim = expected[0] if expected is not None else party.me
            if ours_in_place and victim != party.me and only in (None, victim):
                framed.append(victim)
                print(f"framing party {victim} at entry {table.next_seq}", flush=True)
                name = table.parties[victim].name
                # (inside the carrying out of our entry's effects: the party lock is ours already)
                await node._carry_out_effects(party.abandon(f"seat {victim} ({name}) stalled"))
        await broadcast(message)

    node._broadcast = broadcast_framing


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the helper processes."""
    import logging

    parser = argparse.ArgumentParser(prog="peer_support")
    sub = parser.add_subparsers(dest="command", required=True)
    host = sub.add_parser("host", help="open a table as a bot peer and play it to the end")
    host.add_argument("--game", default="loveletter")
    host.add_argument("--seats", type=int, default=4)
    host.add_argument("--rounds", type=int, default=8)
    host.add_argument("--bind", default="127.0.0.1")
    host.add_argument("--name", default="host-bot")
    host.add_argument("--level", default="heuristic")
    host.add_argument("--seed", default="host")
    host.add_argument("--abandon-after", type=float, default=None)
    host.add_argument("--quiet", action="store_true")
    host.add_argument("--mode", choices=("fair", "trusted"), default="fair")
    host.add_argument("--stall-after", type=int, default=None)
    host.add_argument("--exit-before-start", action="store_true", help="die once the genesis is written")
    host.add_argument("--frame-at", type=int, default=None, help="frame a party from this entry on")
    host.add_argument(
        "--killed-after-own-final", action="store_true", help="kill -9 ourselves once our final went out"
    )
    host.add_argument("--linger", action="store_true", help="stay until every party holds the end")
    host.add_argument("--spectators", action="store_true", help="let `fairdeck watch` follow the game")
    host.add_argument("--on-stall", choices=("close", "bot"), default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    from fairdeck.cli import dump_stacks_on_signal

    dump_stacks_on_signal()
    return asyncio.run(_host_main(args))


if __name__ == "__main__":
    sys.exit(main())
