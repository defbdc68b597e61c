"""How the suite shares the machine: two lanes, so a 2-core machine runs it in about half the time.

pytest-xdist runs the suite on two workers (``-n 2 --dist loadgroup``, in pyproject; more would
not help: the peers lane below is the long one, and it runs on one worker).
Tests whose outcome depends on timely processes — real peer processes, ZeroMQ sockets with
heartbeats and stall deadlines, mDNS, tmux, network namespaces — form one group, ``peers``, which
xdist runs on a single worker, one test after another, exactly as a serial run would: two games
never compete for the cores, and fixed subnets or namespaces never meet. Every other test (engines,
cryptography, in-process tables, logs, audits, short CLI calls) is CPU-only work with no deadline;
those are spread over the workers, and a worker running them lowers its own scheduling priority so
that the peers' processes come first whenever both want a core.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

PEERS_GROUP = "peers"
"""The xdist group of the tests that need timely processes (run one after another)."""

PEER_MODULES = {
    "test_bench.py",
    "test_series.py",
    "engine/test_networked_bots.py",
    "highcard/test_highcard.py",
    "p2p/test_discovery.py",
    "p2p/test_link_news.py",
    "p2p/test_lobby_chat.py",
    "p2p/test_node_end.py",
    "p2p/test_plain_interface.py",
    "p2p/test_policy.py",
    "p2p/test_rematch.py",
    "p2p/test_resume_deadline.py",
    "p2p/test_transport.py",
}
"""Modules outside ``e2e/`` that start real nodes, sockets or peer processes."""

PEER_PREFIXES = ("e2e/", "p2p/test_console")
"""Folders and file-name prefixes wholly in the peers group (every console test runs real nodes)."""

_LOWERED = False


def is_peer_test(path: Path) -> bool:
    """Whether the test file at ``path`` belongs to the peers group."""
    relative = path.resolve().relative_to(TESTS).as_posix()
    return relative in PEER_MODULES or relative.startswith(PEER_PREFIXES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every peers test in one xdist group (a no-op without xdist)."""
    for item in items:
        if is_peer_test(item.path):
            item.add_marker(pytest.mark.xdist_group(PEERS_GROUP))


@pytest.fixture(autouse=True)
def _yield_to_peers(request: pytest.FixtureRequest) -> None:
    """On an xdist worker, a CPU-only test lowers its worker's priority (once; it stays low): the
    peers group runs on another worker at the same time and must not be starved. xdist hands the
    peers group out first (the largest scope goes first: `--loadscope-reorder`, on by default), so a
    worker never runs a peers test after this."""
    global _LOWERED
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return
    if is_peer_test(request.path):
        if _LOWERED:  # not expected (see above); undo it where allowed (root may raise priority)
            with contextlib.suppress(PermissionError):
                os.setpriority(os.PRIO_PROCESS, 0, 0)
                _LOWERED = False
        return
    if not _LOWERED:
        os.nice(10)
        _LOWERED = True
