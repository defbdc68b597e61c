"""Fixtures of the end-to-end tests."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.tmux_support import Terminal, run_processes


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    """A private tmux server, always killed afterwards (its socket in a short private folder)."""
    home = tmp_path / "home"
    home.mkdir()
    sockets = Path(tempfile.mkdtemp(prefix="fd-tmux-"))  # short: a socket path must stay under 108 bytes
    term = Terminal(home, sockets)
    try:
        yield term
    finally:
        term.kill()
        # whatever outlived its tmux server (a kill-server that failed, a process that left the
        # session) is found by the run's private home and killed too: nothing of a test lingers
        for pid in run_processes(str(home)):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(sockets, ignore_errors=True)
