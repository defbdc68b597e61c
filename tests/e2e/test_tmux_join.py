"""Joining from a terminal asks the person to confirm the table's terms and its host's fingerprint
(the one the host's own screen shows) before anything is sent; "n" leaves without taking a seat."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.peer_support import FAIRDECK, Peer, wait_for
from tests.e2e.tmux_support import Terminal

PATIENCE = 120.0


def test_join_asks_to_confirm_the_host_fingerprint(terminal: Terminal, tmp_path: Path) -> None:
    host = Peer(
        "host",
        tmp_path / "host",
        [*FAIRDECK, "host", "loveletter", "--seats", "2", "--bind", "127.0.0.1", "--no-advertise", "--plain"],
        stdin_text="",
    )
    try:
        host.start()
        opened = wait_for(
            lambda: re.search(
                r"join 127\.0\.0\.1:(\d+)  \(host fingerprint (\S+)\)", host.output()
            ),
            60,
            "the table to open",
        )
        port, fingerprint = opened.group(1), opened.group(2)
        terminal.run("join", [*FAIRDECK, "join", f"127.0.0.1:{port}", "--name", "tester"])
        asked = terminal.wait("join", lambda s: "join this table? [y/N]" in s, PATIENCE)
        assert f"host fingerprint: {fingerprint}" in asked
        assert "loveletter, 2 seats, fair" in asked
        terminal.keys("join", "n", "Enter")
        done = terminal.wait("join", lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
        assert "not joined" in done and "FAIRDECK-EXIT=1" in done
        assert " joined" not in host.output()  # no seat was taken
    finally:
        host.kill()
