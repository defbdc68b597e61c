"""A throwaway LAN made of Linux network namespaces, for tests that need real multicast and routing.

Layout for ``Lan(players=3)``::

    hub netns:    br0 (bridge) --- vh0 --- vh1 --- vh2
                                    |       |       |        (veth pairs)
    player netns:                 eth0    eth0    eth0
                              10.213.8.1  .2      .3   /24,  plus lo (127.0.0.1) in each

Nothing is ever attached to the root namespace: every veth pair is created inside the hub and its
far end moved straight into a player namespace, so traffic (including mDNS multicast) cannot reach a
real network. Names carry the creating process id and a random tag, so parallel runs never clash.

Teardown always runs (context-manager exit, and ``atexit`` as a backstop): processes started with
:meth:`Lan.run` are killed by their own process-group id, then the namespaces are deleted, which
also destroys their interfaces. Namespaces left behind by a creator that died are removed on the
next :class:`Lan` creation.

Needs root and the ``ip`` tool (iproute2). Without them :class:`NetnsUnavailable` is raised with a
clear message: callers must let the test fail, not skip.

Usage::

    with Lan(players=3) as lan:
        proc = lan.run(lan.players[0], [sys.executable, "-c", "..."], stdout=subprocess.PIPE)
        lan.address(0)   # "10.213.8.1"
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
from collections.abc import Sequence
from types import TracebackType
from typing import Any

__all__ = ["Lan", "NetnsUnavailable", "require_netns"]

_PREFIX = "fdnet"
_NAME_RE = re.compile(rf"^{_PREFIX}-(\d+)-[0-9a-f]{{6}}-(hub|p\d+)$")


class NetnsUnavailable(RuntimeError):
    """This machine cannot build namespaces here (not root, or no ``ip`` tool)."""


def require_netns() -> str:
    """Return the path of ``ip``, or raise :class:`NetnsUnavailable` saying what is missing."""
    ip = shutil.which("ip") or next(
        (p for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip") if os.access(p, os.X_OK)), None
    )
    if os.geteuid() != 0:
        raise NetnsUnavailable(
            "network-namespace tests need root (they create namespaces, a bridge and veth pairs); "
            "run them as root, as CI does"
        )
    if ip is None:
        raise NetnsUnavailable("network-namespace tests need the 'ip' tool: apt-get install iproute2")
    return ip


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Lan:
    """A hub namespace with a bridge and ``players`` namespaces on ``subnet``.0/24 (see module doc)."""

    def __init__(self, players: int = 3, subnet: str = "10.213.8") -> None:
        if not 1 <= players <= 200:
            raise ValueError("players must be 1..200")
        if not re.fullmatch(r"\d{1,3}\.\d{1,3}\.\d{1,3}", subnet):
            raise ValueError("subnet is the first three octets, e.g. '10.213.8'")
        self._ip = require_netns()
        tag = f"{_PREFIX}-{os.getpid()}-{secrets.token_hex(3)}"
        self.hub = f"{tag}-hub"
        """Name of the hub namespace (holds the bridge)."""
        self.players = [f"{tag}-p{i}" for i in range(players)]
        """Names of the player namespaces, in order."""
        self.subnet = subnet
        self._created: list[str] = []
        self._procs: list[subprocess.Popen[Any]] = []
        self._torn_down = False

    # -- building ---------------------------------------------------------------------------------

    def _cmd(self, *args: str) -> None:
        result = subprocess.run([self._ip, *args], capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise RuntimeError(f"'ip {' '.join(args)}' failed: {result.stderr.strip()}")

    def address(self, index: int) -> str:
        """The IPv4 address of player ``index`` on the LAN."""
        return f"{self.subnet}.{index + 1}"

    def start(self) -> Lan:
        """Create everything; on any failure, delete what was made and re-raise."""
        cleanup_stale(self._ip)
        atexit.register(self.teardown)
        try:
            self._add_ns(self.hub)
            self._cmd("-n", self.hub, "link", "add", "br0", "type", "bridge")
            self._cmd("-n", self.hub, "link", "set", "br0", "up")
            for i, ns in enumerate(self.players):
                self._add_ns(ns)
                self._cmd(
                    "-n",
                    self.hub,
                    "link",
                    "add",
                    f"vh{i}",
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "eth0",
                    "netns",
                    ns,
                )
                self._cmd("-n", self.hub, "link", "set", f"vh{i}", "master", "br0")
                self._cmd("-n", self.hub, "link", "set", f"vh{i}", "up")
                self._cmd("-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
                self._cmd("-n", ns, "link", "set", "eth0", "up")
        except BaseException:
            self.teardown()
            raise
        return self

    def _add_ns(self, ns: str) -> None:
        self._cmd("netns", "add", ns)
        self._created.append(ns)
        self._cmd("-n", ns, "link", "set", "lo", "up")

    def cable(self, index: int, plugged: bool) -> None:
        """Pull (or plug back) player ``index``'s cable: its port on the bridge goes down, so its
        packets vanish without any reset, as when a machine drops off the network."""
        self._cmd("-n", self.hub, "link", "set", f"vh{index}", "up" if plugged else "down")

    # -- running ----------------------------------------------------------------------------------

    def run(self, ns: str, argv: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` inside namespace ``ns`` (``ip netns exec``); killed at teardown."""
        if ns not in self._created:
            raise ValueError(f"{ns!r} is not a namespace of this LAN")
        popen_kwargs.setdefault("start_new_session", True)  # its own process group, killable as one
        proc = subprocess.Popen([self._ip, "netns", "exec", ns, *argv], **popen_kwargs)
        self._procs.append(proc)
        return proc

    # -- teardown ---------------------------------------------------------------------------------

    def teardown(self) -> None:
        """Kill our processes and delete our namespaces. Idempotent; never raises."""
        if self._torn_down:
            return
        self._torn_down = True
        for proc in self._procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        for ns in reversed(self._created):
            _delete_ns(self._ip, ns)
        self._created.clear()
        with contextlib.suppress(Exception):
            atexit.unregister(self.teardown)

    def exists(self) -> list[str]:
        """Which of this LAN's namespaces currently exist (for tests of the teardown)."""
        return [ns for ns in [self.hub, *self.players] if ns in list_namespaces(self._ip)]

    def __enter__(self) -> Lan:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.teardown()


def list_namespaces(ip: str | None = None) -> list[str]:
    """Names of all named network namespaces (``ip netns list``)."""
    ip = ip or require_netns()
    out = subprocess.run([ip, "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _delete_ns(ip: str, ns: str, kill: bool = True) -> None:
    if kill:
        # Processes still inside keep the namespace's interfaces alive. In a namespace of our own
        # they can only be ones we started (or their children), so kill them by pid first.
        pids = subprocess.run([ip, "netns", "pids", ns], capture_output=True, text=True, timeout=30).stdout
        for pid in pids.split():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
    subprocess.run([ip, "netns", "del", ns], capture_output=True, timeout=30)


def cleanup_stale(ip: str | None = None) -> list[str]:
    """Delete namespaces made by this helper whose creating process is gone; returns their names."""
    ip = ip or require_netns()
    removed = []
    for ns in list_namespaces(ip):
        match = _NAME_RE.match(ns)
        if match and not _pid_alive(int(match.group(1))):
            _delete_ns(ip, ns, kill=False)  # not our processes to end; dropping the name is enough
            removed.append(ns)
    return removed
