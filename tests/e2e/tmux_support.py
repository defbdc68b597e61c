"""Support for the end-to-end console tests: a private tmux server (:class:`Terminal`), the
processes of one run (:func:`run_processes`), and what a screen shows."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TMUX = "/usr/bin/tmux"
REPO = Path(__file__).resolve().parents[2]
PATIENCE = 900.0  # seconds before a stuck run is declared stuck (never a timing assertion)


class Terminal:
    """One private tmux server with an 80x24 session."""

    def __init__(self, home: Path, sockets: Path) -> None:
        self.socket = f"fairdeck-test-{uuid.uuid4().hex[:12]}"
        self.home = home
        self.started = False
        # the server's socket lives in the test's temp dir, not in the shared /tmp/tmux-UID
        self.env = {**os.environ, "TMUX_TMPDIR": str(sockets)}
        self.env.pop("TMUX", None)

    def tmux(self, *args: str) -> str:
        """Run a tmux command on our private server."""
        done = subprocess.run(
            [TMUX, "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
            env=self.env,
        )
        return done.stdout

    def run(
        self,
        name: str,
        argv: list[str],
        *,
        width: int = 80,
        height: int = 24,
        env: dict[str, str] | None = None,
    ) -> None:
        """Start ``argv`` in a new ``width`` x ``height`` session (80x24 unless told); the pane stays
        after it exits (to read its output). ``env`` adds variables (e.g. a private ``TMPDIR``)."""
        variables = {
            "FAIRDECK_HOME": str(self.home),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONPATH": str(REPO),
            "USER": "tester",
            **(env or {}),
        }
        flags = [item for key, value in variables.items() for item in ("-e", f"{key}={value}")]
        command = " ".join(argv) + "; echo FAIRDECK-EXIT=$?; sleep 600"
        self.tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), *flags, command)
        self.started = True

    def screen(self, name: str) -> str:
        """The visible screen of session ``name``."""
        return self.tmux("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        """Press keys (tmux key names such as Enter, Down, F1, or literal text)."""
        self.tmux("send-keys", "-t", name, *keys)

    def wait(self, name: str, condition: Callable[[str], bool], patience: float = PATIENCE) -> str:
        """Read the screen until ``condition(screen)``; fail if it never comes."""
        deadline = time.monotonic() + patience
        while True:
            text = self.screen(name)
            if condition(text):
                return text
            assert time.monotonic() < deadline, f"the screen never got there:\n{text}"
            time.sleep(0.2)

    def kill(self) -> None:
        """Kill the private tmux server (and with it every process it runs); a server that does not
        go when asked is killed by its pid."""
        if self.started:
            asked = subprocess.run(
                [TMUX, "-L", self.socket, "display-message", "-p", "#{pid}"],
                capture_output=True, text=True, timeout=30, env=self.env,
            )  # fmt: skip
            subprocess.run(
                [TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=30, env=self.env
            )
            pid = asked.stdout.strip()
            if pid.isdigit():
                with contextlib.suppress(OSError):  # (gone already: nothing to do)
                    if Path(f"/proc/{pid}/comm").read_text().startswith("tmux"):  # not a reused pid
                        os.kill(int(pid), signal.SIGKILL)


FAIRDECK = [sys.executable, "-m", "fairdeck"]


_MENU_LINE = re.compile(r"^[▶ ] *\d+  \S", re.MULTILINE)


def _decision(text: str) -> bool:
    """The screen offers a decision: a numbered menu and no "waiting" heading."""
    return bool(_MENU_LINE.search(text)) and "── waiting" not in text


SUMMARY = "Press Enter to go on."
"""What a round's summary says until the person dismisses it (it covers the menu meanwhile)."""

_SUMMARY_HEADING = re.compile(r"Round \d+ is over[^\n]*")


def shown_summary(text: str) -> str | None:
    """Which round's summary the screen shows (its heading line), or ``None``."""
    if SUMMARY not in text:
        return None
    found = _SUMMARY_HEADING.search(text)
    return found.group(0) if found else text


def dismiss_summary(
    terminal: Terminal, session: str, text: str, condition: Callable[[str], bool] = lambda s: False
) -> str:
    """Press Enter on the summary ``text`` shows and wait until *that* summary is gone. The next
    screen may already be the next round's summary: a round the person sat out can end before the
    screen is read again (waiting for "no summary" then would wait for ever)."""
    shown = shown_summary(text)
    terminal.keys(session, "Enter")
    return terminal.wait(session, lambda s: shown_summary(s) != shown or condition(s))


def log_section(text: str) -> str:
    """The console's log lines (below the ``── log`` rule), or the whole screen if none is shown."""
    return text.split("── log", 1)[1] if "── log" in text else text


def moved_on(before: str) -> Callable[[str], bool]:
    """A condition: the screen has moved on from the decision ``before`` showed (the move went out
    and the log says so, or a summary or the end covers it). The countdown on a decision ticks, so a
    screen that merely differs does not prove the keys were taken."""
    return lambda s: (
        log_section(s) != log_section(before) or SUMMARY in s or "Game over" in s or not _decision(s)
    )


def wait_decision(
    terminal: Terminal, session: str, condition: Callable[[str], bool] = _decision, patience: float = PATIENCE
) -> str:
    """Wait until the screen satisfies ``condition`` (by default: offers a decision), dismissing
    each round's summary on the way, as a person would: a round can end before the person's first
    decision (a bot knocks it out), and its summary then stays up until Enter."""
    while True:
        text = terminal.wait(session, lambda s: condition(s) or SUMMARY in s, patience)
        if condition(text):
            return text
        dismiss_summary(terminal, session, text, condition)


def run_processes(marker: str) -> dict[int, str]:
    """Live fairdeck processes whose environment has ``FAIRDECK_HOME=marker`` (one run's private
    home; the bots it starts inherit it): pid -> command line. Shells and zombies are left out."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        program = os.path.basename(argv[0].decode(errors="replace"))
        if state == "Z" or not program.startswith("python"):
            continue
        cmdline = b" ".join(argv).decode(errors="replace")
        if f"FAIRDECK_HOME={marker}".encode() in environ.split(b"\0") and "fairdeck" in cmdline:
            found[int(entry.name)] = cmdline
    return found


OVER = "══ Game over ══"
"""The game-over screen's heading."""


def play_to_game_over(terminal: Terminal, session: str) -> str:
    """Answer every decision with Enter (and dismiss summaries) until the game-over screen."""

    def ready(s: str) -> bool:
        return _decision(s) or OVER in s or "Press Enter to go on." in s

    text = terminal.wait(session, ready, PATIENCE)
    while OVER not in text:
        terminal.keys(session, "Enter")
        before = text
        try:  # the same screen may come back (a summary popped up as the key went)
            text = terminal.wait(session, lambda s, b=before: s != b and ready(s), 30)
        except AssertionError:
            text = terminal.wait(session, ready, PATIENCE)
    return text
