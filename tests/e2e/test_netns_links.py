"""A cable pulled mid-game: the outbound link notices without ZMTP heartbeats, and comes back.

Two player namespaces on a private bridge (``tests/netns.py``). Alice's mesh connects to Bob's; then
the test takes Bob's port on the bridge down, so Alice's packets vanish without any reset (a peer
whose machine lost the network). Alice must see the link go down within seconds — her unacknowledged
``p`` frames hit ``TCP_USER_TIMEOUT`` — and, once the port is up again, reconnect by herself.
(ZMTP heartbeats used to do this job; they are off because a flooding peer could abort us through
them, see ``p2p/transport.py``.)

The helper processes run this module as a script inside their namespace; they are killed at the
LAN's teardown. Needs root; without it the test fails with a clear message (CI runs as root).
"""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.netns import Lan, require_netns

REPO = Path(__file__).resolve().parents[2]
HEARTBEAT = 0.2  # seconds; the link's user timeout is then its floor, 3 s

pytestmark = pytest.mark.netns


def _seed(name: str) -> bytes:
    return name.encode().ljust(32, b".")


class _Lines:
    """JSON lines from a helper, read by a thread so that waiting for one can time out."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")

    def until(self, wanted: dict[str, Any], timeout: float) -> float:
        """Wait for the line ``wanted``; return the seconds it took. Fails with the helper's stderr."""
        start = time.monotonic()
        seen = []
        while (left := timeout - (time.monotonic() - start)) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if not line:
                break
            if json.loads(line) == wanted:
                return time.monotonic() - start
            seen.append(line.strip())
        self.proc.kill()
        err = self.proc.stderr.read() if self.proc.stderr else ""
        raise AssertionError(f"no {wanted} within {timeout} s; saw {seen}; stderr: {err[-2000:]}")


def _send(proc: subprocess.Popen[str], command: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()


def test_a_silently_dead_link_is_noticed_and_comes_back() -> None:
    require_netns()  # raises a clear NetnsUnavailable (a failure, not a skip) without root/ip
    with Lan(players=2) as lan:

        def helper(index: int, role: str) -> subprocess.Popen[str]:
            argv = [sys.executable, "-m", "tests.e2e.test_netns_links", role, lan.address(index)]
            return lan.run(
                lan.players[index],
                argv,
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )

        bob, alice = helper(1, "bob"), helper(0, "alice")
        bob_lines, alice_lines = _Lines(bob), _Lines(alice)
        port = _wait_port(bob_lines)
        _send(alice, f"connect tcp://{lan.address(1)}:{port}")
        alice_lines.until({"link": True}, 20)
        _send(alice, "send before")
        bob_lines.until({"got": "before"}, 20)

        lan.cable(1, plugged=False)  # silence, no reset
        # What is written into a dead connection is lost with it (the table's catch-up fetches
        # entries again); what matters here is that the link is known to be down, then back.
        _send(alice, "send during")
        noticed = alice_lines.until({"link": False}, 30)
        lan.cable(1, plugged=True)
        alice_lines.until({"link": True}, 30)
        _send(alice, "send after")
        bob_lines.until({"got": "after"}, 30)
        _send(alice, "quit")
        assert alice.wait(timeout=20) == 0
    print(f"\nnetns: a dead link was noticed after {noticed:.1f} s of silence")


def _wait_port(lines: _Lines) -> int:
    line = lines.lines.get(timeout=30)
    if not line:
        raise AssertionError(f"bob ended early: {lines.proc.stderr.read() if lines.proc.stderr else ''}")
    return int(json.loads(line)["port"])


# ---------------------------------------------------------------------------------------------
# helper processes (run inside a player namespace)
# ---------------------------------------------------------------------------------------------


async def _bob(address: str) -> None:
    """Print our port, then every message that arrives."""
    from p2p.transport import Mesh, curve_keypair_from_secret

    _, secret = curve_keypair_from_secret(_seed("bob"))
    alice, _ = curve_keypair_from_secret(_seed("alice"))
    async with Mesh(secret, host=address, heartbeat=HEARTBEAT, allow=[alice]) as mesh:
        print(json.dumps({"port": mesh.port}), flush=True)
        while True:
            _, payload = await mesh.recv()
            print(json.dumps({"got": payload.decode()}), flush=True)


async def _alice(address: str) -> None:
    """Follow commands on stdin (``connect <endpoint>``, ``send <text>``, ``quit``); print link changes."""
    from p2p.transport import Mesh, curve_keypair_from_secret

    _, secret = curve_keypair_from_secret(_seed("alice"))
    bob, _ = curve_keypair_from_secret(_seed("bob"))
    loop = asyncio.get_running_loop()

    def on_link(_key: bytes, up: bool) -> None:
        print(json.dumps({"link": up}), flush=True)

    async with Mesh(secret, host=address, heartbeat=HEARTBEAT, allow=[bob], on_link=on_link) as mesh:
        while (line := (await loop.run_in_executor(None, sys.stdin.readline)).strip()) not in ("", "quit"):
            command, _, argument = line.partition(" ")
            if command == "connect":
                mesh.connect(bob, argument)
            elif command == "send":
                await mesh.send(bob, argument.encode())


if __name__ == "__main__" and len(sys.argv) == 3:
    asyncio.run({"bob": _bob, "alice": _alice}[sys.argv[1]](sys.argv[2]))
