"""The bot processes and temporary folders a command starts, and how they all go when it ends.

A :class:`Household` belongs to one command (``play``, ``host``, ``simulate --fair``). Everything it
starts runs in a process group of its own, and every temporary folder it makes is removed when the
household closes, however the command ends:

* the game ended: the bots leave by themselves; :meth:`Household.close` gives them a short grace,
  together rather than one after the other, then ends whatever is left;
* the person left (Ctrl-C then ``y``, or the input closed): :meth:`Household.close` with
  ``leaving=True`` ends the bots at once (SIGTERM to their groups, SIGKILL to what is left a moment
  later) and removes the folders;
* a second Ctrl-C, SIGTERM, or a closed terminal (SIGHUP): :meth:`Household.on_signals` ends the
  bots and removes the folders from the signal handler itself, then cancels the command so that the
  terminal is restored; if the command has not ended a moment later, the process exits anyway;
* anything else (an error, ``sys.exit``): the same cleanup runs from ``atexit``.

The bots also watch their launcher (``fairdeck bot --parent PID``): a launcher killed outright
(SIGKILL, where no handler runs) still does not leave them waiting for a game that is gone.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HARD_EXIT_AFTER = 1.5
"""Seconds after SIGTERM/SIGHUP (or a second Ctrl-C) before the process exits whatever it is doing."""


class Household:
    """The processes and temporary folders of one command; see the module docstring."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.dirs: list[Path] = []
        self.closed = False
        self._lock = threading.Lock()
        atexit.register(self.close, leaving=True)

    # -- what it holds --------------------------------------------------------------------------
    def temp_dir(self, prefix: str) -> Path:
        """A new temporary folder, removed when the household closes."""
        path = Path(tempfile.mkdtemp(prefix=prefix))
        self.dirs.append(path)
        return path

    def spawn(self, argv: list[str], **popen: Any) -> subprocess.Popen[bytes]:
        """Start ``argv`` in a process group of its own (its group is ended with it)."""
        proc = subprocess.Popen(argv, start_new_session=True, **popen)
        self.procs.append(proc)
        return proc

    def alive(self) -> list[subprocess.Popen[bytes]]:
        """The processes still running."""
        return [p for p in self.procs if p.poll() is None]

    # -- ending -----------------------------------------------------------------------------------
    def close(self, grace: float = 3.0, leaving: bool = False) -> None:
        """End every process (at once when ``leaving``, else after ``grace`` seconds for all of them
        together) and remove every folder. Safe to call again, and from a signal handler."""
        with self._lock:
            if self.closed and not self.alive():
                return
            if not leaving:
                deadline = time.monotonic() + grace
                while self.alive() and time.monotonic() < deadline:
                    time.sleep(0.05)
            self._signal_all(signal.SIGTERM)
            deadline = time.monotonic() + 1.0
            while self.alive() and time.monotonic() < deadline:
                time.sleep(0.02)
            self._signal_all(signal.SIGKILL)
            for proc in self.procs:
                with contextlib.suppress(Exception):
                    proc.wait(timeout=2.0)
            for path in self.dirs:
                shutil.rmtree(path, ignore_errors=True)
            self.closed = True

    def _signal_all(self, sig: int) -> None:
        for proc in self.procs:
            if proc.poll() is not None:
                continue  # ended and reaped: its group id may belong to someone else now
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, sig)  # its group: a bot and anything it started

    # -- signals ----------------------------------------------------------------------------------
    def on_signals(self, main: asyncio.Task[Any] | None = None, *, interrupt: bool = True) -> None:
        """From now on SIGTERM and SIGHUP (and Ctrl-C, with ``interrupt``) end the bots and remove
        the folders at once, then cancel ``main`` (the command's task, so that the terminal is
        restored); the process exits :data:`HARD_EXIT_AFTER` seconds later if it has not by then.
        A second Ctrl-C exits at once (after the same cleanup)."""
        loop = asyncio.get_running_loop()
        main = main or asyncio.current_task()
        received: list[int] = []

        def handler(sig: int) -> None:
            received.append(sig)
            self.close(leaving=True)
            if len(received) > 1:
                os._exit(128 + sig)
            if main is not None and not main.done():
                main.cancel()
            timer = threading.Timer(HARD_EXIT_AFTER, os._exit, (128 + sig,))
            timer.daemon = True
            timer.start()

        sigs = [signal.SIGTERM, signal.SIGHUP] + ([signal.SIGINT] if interrupt else [])
        for sig in sigs:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, handler, sig)


def watch_parent(pid: int, on_gone: Callable[[], None], every: float = 0.5) -> threading.Thread:
    """Call ``on_gone`` (in a daemon thread) once this process's parent ``pid`` is gone (this process
    was re-parented)."""

    def run() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != pid:
                break  # re-parented: the launcher is gone
        on_gone()

    thread = threading.Thread(target=run, name="watch-parent", daemon=True)
    thread.start()
    return thread
