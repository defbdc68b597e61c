"""Joining from a terminal asks the person to confirm the table's terms and its host's fingerprint
(the one the host's own screen shows) before anything is sent; "n" leaves without taking a seat."""

from __future__ import annotations

import re
from pathlib import Path

from fairdeck.tableplan import login_name
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
        # named as `fairdeck tables` names it: by its opener, here the login name (no --name given)
        assert f"{login_name() or 'host'}'s table at 127.0.0.1:{port}:" in asked
        terminal.keys("join", "n", "Enter")
        done = terminal.wait("join", lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
        assert "not joined" in done and "FAIRDECK-EXIT=1" in done
        assert " joined" not in host.output()  # no seat was taken
    finally:
        host.kill()


def test_a_joiner_chats_in_the_lobby_then_leaves_it_and_its_seat_is_free_again(
    terminal: Terminal, tmp_path: Path
) -> None:
    host = Peer(
        "host",
        tmp_path / "host",
        [*FAIRDECK, "host", "loveletter", "--seats", "3", "--bind", "127.0.0.1", "--no-advertise", "--plain",
         "--player", "olga"],
        stdin_text="",
    )  # fmt: skip
    try:
        host.start()
        opened = wait_for(
            lambda: re.search(r"join 127\.0\.0\.1:(\d+)", host.output()), 60, "the table to open"
        )
        terminal.run("join", [*FAIRDECK, "join", f"127.0.0.1:{opened.group(1)}", "--name", "tester", "--yes"])
        terminal.wait("join", lambda s: "Waiting for players" in s, PATIENCE)
        wait_for(lambda: "tester joined" in host.output(), 60, "the joiner to be seated")
        # a line said in the lobby reaches the opener (a joiner knows nobody else yet)
        terminal.keys("join", "say hello from the lobby", "Enter")
        wait_for(lambda: "<tester> hello from the lobby" in host.output(), 30, "the lobby chat to arrive")
        # Ctrl-C opens the leave box, then "y": the console ends, says what became of the seat, and
        # the opener frees it (and says who left)
        terminal.keys("join", "C-c")
        terminal.wait("join", lambda s: "Leave the table?" in s, PATIENCE)
        terminal.keys("join", "y")
        done = terminal.wait("join", lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
        assert "you gave up your seat" in done, done
        wait_for(lambda: "tester left" in host.output(), 30, "the opener to free the seat")
    finally:
        host.kill()
