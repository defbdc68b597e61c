"""End to end across network namespaces: zeroconf discovery with InterfaceChoice.All, then a mesh.

Three player namespaces on a private bridge (``tests/netns.py``). Players 0 and 1 each open a
mesh and advertise a table; player 2 browses on all of *its* interfaces, must find both tables
with their bridge addresses, then connects a mesh to each over the bridge and does round trips.
The helper processes run this module as a script (``python -m tests.e2e.test_netns_discovery``)
and refuse to start in the root namespace, where "all interfaces" would include a real network.

Needs root; without it the test fails with a clear message (CI runs as root).
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.netns import Lan, NetnsUnavailable, list_namespaces, require_netns

REPO = Path(__file__).resolve().parents[2]
ROUND_TRIPS = 50
_PARENT_NETNS = "FAIRDECK_TEST_PARENT_NETNS"

pytestmark = pytest.mark.netns


def _seed(name: str) -> bytes:
    return name.encode().ljust(32, b".")


def _readline(proc: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    """One JSON line from a helper process, or a failure that shows its stderr."""
    assert proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
    try:
        line = lines.get(timeout=timeout)
    except queue.Empty:
        line = ""
    if line:
        return json.loads(line)  # type: ignore[no-any-return]
    proc.kill()  # also ends the reader thread
    err = proc.stderr.read() if proc.stderr else ""
    raise AssertionError(f"helper gave no result (exit {proc.poll()}): {err[-3000:]}")


def test_netns_requirement_fails_loudly_without_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(NetnsUnavailable, match="need root"):
        Lan(players=2)


def test_lan_is_torn_down_even_when_the_test_body_fails() -> None:
    made: list[str] = []
    procs: list[subprocess.Popen[bytes]] = []
    with pytest.raises(RuntimeError, match="boom"), Lan(players=2) as lan:
        made = [lan.hub, *lan.players]
        assert set(made) <= set(list_namespaces())
        procs.append(lan.run(lan.players[1], [sys.executable, "-c", "import time; time.sleep(600)"]))
        raise RuntimeError("boom")
    assert made and not set(made) & set(list_namespaces())
    assert procs[0].poll() is not None  # the sleeper was killed, not left behind


def test_discovery_and_mesh_across_three_namespaces() -> None:
    require_netns()  # raises a clear NetnsUnavailable (a failure, not a skip) without root/ip
    lan = Lan(players=3)
    env = {**os.environ, _PARENT_NETNS: str(os.stat("/proc/self/ns/net").st_ino)}
    names = [f"table-{i}-{lan.hub.split('-')[2]}" for i in range(2)]
    with lan:
        hosts = [
            lan.run(
                lan.players[i],
                [sys.executable, "-m", "tests.e2e.test_netns_discovery", "host", names[i], str(i)],
                cwd=REPO,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(2)
        ]
        ready = [_readline(h, 30) for h in hosts]
        guest = lan.run(
            lan.players[2],
            [sys.executable, "-m", "tests.e2e.test_netns_discovery", "guest", lan.address(2), *names],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        result = _readline(guest, 60)
        assert guest.wait(timeout=30) == 0
        made = [lan.hub, *lan.players]
        assert set(made) <= set(list_namespaces())
    # Everything is gone afterwards: namespaces (and with them the bridge and veths) and processes.
    assert not set(made) & set(list_namespaces())
    assert all(p.poll() is not None for p in [*hosts, guest])

    for i in range(2):
        table = result["tables"][names[i]]
        # Found from another namespace, with that host's bridge address and its mesh port and key.
        assert table["addresses"] == [lan.address(i)]
        assert table["port"] == ready[i]["port"]
        assert table["key"] == ready[i]["key"]
        assert (table["game"], table["seats"], table["free"], table["proto"]) == ("loveletter", 4, 3 - i, 1)
        # Every round trip came back from the authenticated host key with the right payload.
        assert result["echo_ok"][names[i]] == ROUND_TRIPS
    print(
        f"\nnetns: both tables discovered after {result['discovery_s']:.3f} s; mesh RTT over the bridge "
        f"median {result['rtt_ms_median']:.3f} ms ({2 * ROUND_TRIPS} round trips)"
    )


# ---------------------------------------------------------------------------------------------
# helper processes (run inside a player namespace)
# ---------------------------------------------------------------------------------------------


def _refuse_root_namespace() -> None:
    """Never run zeroconf on "all" interfaces in the test runner's namespace (the real network).

    The runner passes its own network-namespace inode; the helper must be somewhere else.
    """
    parent = os.environ.get(_PARENT_NETNS)
    if not parent or int(parent) == os.stat("/proc/self/ns/net").st_ino:
        sys.exit("refusing to run: this helper must run inside a test network namespace")


async def _host(name: str, index: int) -> None:
    """Open a lobby mesh, advertise it, and echo every message back to its authenticated sender."""
    from p2p.discovery import Advertiser
    from p2p.transport import Mesh, curve_keypair_from_secret

    public, secret = curve_keypair_from_secret(_seed(f"host{index}"))
    async with Mesh(secret, host="0.0.0.0", allow=None) as mesh:
        props = {"game": "loveletter", "seats": 4, "free": 3 - index, "proto": 1, "fp": f"hostfp{index}"}
        async with Advertiser(name, mesh.port, {**props, "key": public}, "all"):
            print(json.dumps({"port": mesh.port, "key": public.hex()}), flush=True)
            while True:
                sender, payload = await mesh.recv()
                reply_to, _, body = payload.partition(b" ")
                mesh.connect(sender, reply_to.decode())  # no-op after the first message
                await mesh.send(sender, b"echo " + body)


async def _guest(own_address: str, names: list[str]) -> None:
    """Browse on all interfaces, then round-trip messages to each discovered host's mesh."""
    from p2p.discovery import Browser
    from p2p.transport import Mesh, curve_keypair_from_secret

    started = time.perf_counter()
    async with Browser("all") as browser:
        while {t.name for t in browser.tables()} < set(names):
            if time.perf_counter() - started > 30:
                sys.exit(f"tables not found; saw {browser.tables()}")
            await asyncio.sleep(0.01)
        discovery_s = time.perf_counter() - started
        tables = {t.name: t for t in browser.tables() if t.name in names}
    _, secret = curve_keypair_from_secret(_seed("guest"))
    rtts: list[float] = []
    echo_ok: dict[str, int] = {}
    async with Mesh(secret, host=own_address) as mesh:
        for name, table in tables.items():
            assert table.key is not None
            mesh.connect(table.key, table.endpoints()[0])
            echo_ok[name] = 0
            for i in range(ROUND_TRIPS):
                t0 = time.perf_counter()
                await mesh.send(table.key, f"{mesh.endpoint} {name}:{i}".encode())
                sender, payload = await asyncio.wait_for(mesh.recv(), 15)
                rtts.append(time.perf_counter() - t0)
                if sender == table.key and payload == f"echo {name}:{i}".encode():
                    echo_ok[name] += 1
    rtts.sort()
    out = {
        "discovery_s": discovery_s,
        "rtt_ms_median": 1000 * rtts[len(rtts) // 2],
        "echo_ok": echo_ok,
        "tables": {
            n: {
                "addresses": list(t.addresses),
                "port": t.port,
                "key": t.key.hex() if t.key else None,
                "game": t.game,
                "seats": t.seats,
                "free": t.free,
                "proto": t.proto,
            }
            for n, t in tables.items()
        },
    }
    print(json.dumps(out), flush=True)


if __name__ == "__main__" and len(sys.argv) >= 2:
    _refuse_root_namespace()
    if sys.argv[1] == "host":
        asyncio.run(_host(sys.argv[2], int(sys.argv[3])))
    elif sys.argv[1] == "guest":
        asyncio.run(_guest(sys.argv[2], sys.argv[3:]))
