"""Strangers flood a table's opener, in the lobby and during the game: the table starts and
finishes, a joiner is answered, and the opener's memory stays bounded.

Before: while a table was in its lobby the opener took any key's messages up to 4 MiB, queued 1,024 of
them and decoded each on the event loop before looking at it; a 4 MiB msgpack array of empty lists
cost about 300 MB and over a second, so a 30 s flood took the opener from 43 MB to 8.8 GB, joiners
timed out on the bootstrap, and 4 MiB frames from a connection left over from the lobby drove it to
about 1 GB during the game.

Now (docs/protocol.md, "Bounds and recovery"): lobby frames are at most 64 KiB (libzmq cuts a
connection that sends more), unread lobby bytes are bounded per sender and in all, every message's
msgpack shape is checked before it is decoded, the bootstrap has a thread of its own, and when the
game starts every lobby connection is closed and only seated keys get back in.

The attackers (this test process, fresh CurveZMQ keys, 127.0.0.1 only) send msgpack bombs just under
the lobby limit and 4 MiB frames, from several connections at once, for a few seconds in the lobby
(while the last bot joins) and a few seconds into the game. The opener's peak resident memory
(``VmHWM`` from ``/proc``) must stay under ``MEMORY_BOUND_MIB``; no time is asserted.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import threading
import time
from pathlib import Path

import zmq
import zmq.asyncio

from p2p.identity import Identity
from p2p.log import pack
from p2p.transport import LOBBY_MAX_MESSAGE, curve_keypair_from_secret, z85_key
from tests.e2e.peer_support import CI, FAIRDECK, REPO, Cluster, memory_peak_mib, read_entries, wait_for

MEMORY_BOUND_MIB = 200
"""The opener's peak RSS under the flood (an idle peer holds about 60 MiB here)."""
FLOOD_SECONDS = 2.0 if CI else 4.0
CONNECTIONS = 4


def _bomb(size: int) -> bytes:
    """A msgpack array of empty arrays: ``size`` bytes that decode to ``size`` Python lists."""
    n = size - 5
    return b"\xdd" + n.to_bytes(4, "big") + b"\x90" * n


async def _flood(endpoint: str, server_key: bytes, seconds: float, sent: dict[str, int]) -> None:
    """Several strangers' connections sending bombs, junk joins and oversized frames."""
    ctx = zmq.asyncio.Context()
    socks = []
    try:
        for _ in range(CONNECTIONS):
            public, secret = curve_keypair_from_secret(Identity.generate().derive("transport", b""))
            sock = ctx.socket(zmq.DEALER)
            sock.linger = 0
            sock.sndhwm = 50
            sock.curve_secretkey = z85_key(secret)
            sock.curve_publickey = z85_key(public)
            sock.curve_serverkey = z85_key(server_key)
            sock.setsockopt(zmq.RECONNECT_IVL, 50)
            sock.connect(endpoint)
            socks.append(sock)
        small_bomb = _bomb(LOBBY_MAX_MESSAGE - 64)
        big_bomb = _bomb(4 * 1024 * 1024)
        junk_join = pack(
            {"t": "join", "name": "x" * 30, "key": b"k" * 32, "sig": b"s" * 64, "pad": [[]] * 1000}
        )
        deadline = time.monotonic() + seconds
        i = 0
        while time.monotonic() < deadline:
            for sock in socks:
                frames = [b"m", big_bomb] if i % 20 == 0 else [b"m", small_bomb if i % 2 else junk_join]
                with contextlib.suppress(zmq.Again):
                    await sock.send_multipart(frames, flags=zmq.NOBLOCK)
                    sent["messages"] += 1
                    sent["bytes"] += len(frames[1])
            i += 1
            await asyncio.sleep(0.001)
    finally:
        ctx.destroy(linger=0)


class _Sampler(threading.Thread):
    """Reads a process's peak RSS every 50 ms until it exits (the last reading is the peak)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak = pid, 0.0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            value = memory_peak_mib(self.pid)
            if value is None:
                return
            self.peak = max(self.peak, value)
            time.sleep(0.05)


def test_a_flood_from_strangers_neither_stops_the_table_nor_grows_the_opener(tmp_path: Path) -> None:
    with Cluster(tmp_path, rounds=8, quiet_bots=False) as cluster:
        cluster.start(bots=2)
        host = cluster.peers[0]
        assert host.proc is not None
        sampler = _Sampler(host.proc.pid)
        sampler.start()
        info = wait_for(lambda: cluster.lobby() if cluster.lobby()["free"] == 1 else None, 60, "the lobby")
        endpoint = f"tcp://127.0.0.1:{info['port']}"
        sent = {"messages": 0, "bytes": 0}
        # in the lobby: the flood runs while the last bot asks the bootstrap and joins
        lobby_flood = threading.Thread(
            target=lambda: asyncio.run(_flood(endpoint, info["key"], FLOOD_SECONDS, sent)), daemon=True
        )
        lobby_flood.start()
        time.sleep(FLOOD_SECONDS / 2)
        assert cluster.lobby()["free"] == 1  # the bootstrap answers in the middle of the flood
        cluster.start_bot()
        lobby_flood.join()
        path = wait_for(host.log_path, 60, "the game to start")
        wait_for(lambda: len(read_entries(path)) > 10, 60, "the game to be under way")
        # during the game: the lobby's connections were closed; strangers come back and are refused
        asyncio.run(_flood(endpoint, info["key"], FLOOD_SECONDS, sent))
        codes = cluster.wait_finished()
        sampler.done.set()
        sampler.join()
        assert codes == [0, 0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()
        errors = host.errors()

    assert sent["bytes"] > 50 * 1024 * 1024, sent  # the flood was real
    assert 0 < sampler.peak < MEMORY_BOUND_MIB, f"the opener peaked at {sampler.peak:.0f} MiB"
    print(
        f"opener peak RSS {sampler.peak:.0f} MiB under {sent['messages']} messages, {sent['bytes'] >> 20} MiB"
    )
    assert len({p.read_bytes() for p in logs}) == 1
    audit = subprocess.run(
        [*FAIRDECK, "audit", *map(str, logs)], capture_output=True, text=True, timeout=180, cwd=REPO
    )
    assert audit.returncode == 0, audit.stdout
    assert "Traceback" not in errors
    warnings = [line for line in errors.splitlines() if "dropped" in line or "ignored" in line]
    assert len(warnings) < 100, f"{len(warnings)} warning lines: not rate-limited"
