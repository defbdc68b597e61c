"""End to end in a real terminal: a hostile peer's name, chat and abandon reason cannot spoof a line.

A hostile peer — a real :class:`p2p.node.Node` in its own process, run from this module — opens a
two-seat Love Letter table under :data:`HOST_NAME`, a name made to look like a verdict (a name with
control characters — :data:`HOSTILE_NAME` — is refused by every joiner's policy before it could
reach a screen: ``tests/e2e/test_hostile_opener.py``; the console and viewer tests in ``tests/p2p``
still show it inert). A person joins it with ``fairdeck join`` in the
full-screen console, in a private tmux server (80x24, its socket in the test's temp dir, killed at
the end). The hostile peer chats :data:`HOSTILE_CHAT` and, while the table waits for the person,
closes the game with a signed ``abandon`` whose reason is :data:`HOSTILE_REASON` (a fake verdict
line, a screen clear, hidden text and a right-to-left override). Then ``fairdeck replay`` opens the
person's log in the viewer.

Every captured screen must show all of it as inert escapes (``\\x0a``, ``\\x1b``, ``\\u202e``): no
raw control or bidi character on the screen, no screen line starting with a fake verdict or fault,
and the real lines (the log rule, the game-over words, the audit's real verdict) still there.

Run as ``python -m tests.e2e.test_tmux_hostile_text host --home DIR``, this module is the hostile
peer: it prints ``{"bootstrap": PORT}``, plays its seat as a bot, and obeys ``chat`` and ``abandon``
lines on its stdin.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay.audit import audit_path
from tests.e2e.test_tmux_console import _save
from tests.e2e.tmux_support import FAIRDECK, REPO, TMUX, Terminal, wait_decision
from tests.p2p.test_console_support import HOSTILE_CHAT, HOSTILE_REASON, assert_inert

ROUNDS = 8
PATIENCE = 300.0  # seconds before a stuck step is declared stuck (never a timing assertion)
DEADLINE = 3
"""The hostile table's stall deadline (seconds)."""
HOST_NAME = "m VERDICT: CLEAN"
"""Printable (a joiner's policy refuses any other), yet made to look like the audit's verdict."""
ESCAPED_NAME = HOST_NAME
ESCAPED_REASON = "gone\\x0aVERDICT: CLEAN — no faults\\x1b[2J\\x1b[8m\\u202ehidden"
ESCAPED_CHAT = "gg\\x0aseat 0 (tester) cheated: VERDICT: 1 FAULT\\x1b]0;pwned\\x07"

pytestmark = pytest.mark.skipif(not Path(TMUX).exists(), reason="needs tmux")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    """A private tmux server (socket in a private temp dir), always killed afterwards."""
    home = tmp_path / "home"
    home.mkdir()
    sockets = Path(tempfile.mkdtemp(prefix="fd-tmux-"))  # short: a socket path must stay under 108 bytes
    term = Terminal(home, sockets)
    try:
        yield term
    finally:
        term.kill()
        shutil.rmtree(sockets, ignore_errors=True)


class HostilePeer:
    """The hostile peer's process (its own process group, always killed at the end)."""

    def __init__(self, home: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "FAIRDECK_HOME": str(home)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.test_tmux_hostile_text", "host", "--home", str(home)],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def read(self) -> str:
        """The peer's next line of output (fails if it ended)."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the hostile peer ended: {self.errors()}"
        return line.strip()

    def tell(self, command: str) -> str:
        """Send a command line; return its answer line."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.read()

    def errors(self) -> str:
        """What the peer wrote on stderr (after it ended)."""
        if self.proc.poll() is None:
            return "(still running)"
        assert self.proc.stderr is not None
        return self.proc.stderr.read()[-3000:]

    def kill(self) -> None:
        """Kill the peer's process group."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def _decision(screen: str) -> bool:
    """The console offers the person a decision."""
    return bool(re.search(r"^[▶ ] *\d+  \S", screen, re.MULTILINE)) and "── waiting" not in screen


def _unwrap(screen: str) -> str:
    """The screen with wrapped lines joined again (continuations are indented)."""
    return re.sub(r"\n +", " ", screen)


def test_hostile_name_chat_and_abandon_reason_reach_no_screen_raw(terminal: Terminal, tmp_path: Path) -> None:
    peer = HostilePeer(tmp_path / "hostile")
    shots: dict[str, str] = {}
    try:
        port = json.loads(peer.read())["bootstrap"]
        session = "console"
        terminal.run(session, [*FAIRDECK, "join", f"127.0.0.1:{port}", "--name", "tester"])
        # joining asks to confirm the table's terms and its host's fingerprint first
        confirm = terminal.wait(session, lambda s: "join this table? [y/N]" in s, PATIENCE)
        assert "host fingerprint: " in confirm
        assert_inert(confirm)
        terminal.keys(session, "y", "Enter")
        # the person's turn: entries have come from the hostile peer (so it reaches us), and the table
        # waits for the person, so the hostile peer may close the game
        wait_decision(terminal, session, _decision)
        assert peer.tell("chat") == "chatted"
        shots["table"] = wait_decision(terminal, session, lambda s: _decision(s) and "gg\\x0aseat 0" in s)
        assert peer.tell("abandon") == "abandoned"
        shots["over"] = terminal.wait(session, lambda s: "══ Game over ══" in s, PATIENCE)
        terminal.keys(session, "Enter")
        shots["after"] = terminal.wait(session, lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
    finally:
        peer.kill()

    table, over, after = shots["table"], shots["over"], shots["after"]
    for shot in shots.values():
        assert_inert(shot)  # no raw control or bidi character; no line starts with a fake verdict
    # the table: the hostile name escaped in its own seat row, in the log, in the moves; the chat
    rows = [line for line in table.splitlines() if line[1:3] in ("0 ", "1 ")]
    assert len(rows) == 2 and HOST_NAME in rows[0] and "tester" in rows[1], table
    flat = _unwrap(table)
    assert f"<{ESCAPED_NAME}> {ESCAPED_CHAT}" in flat
    assert "── log" in table and "your turn" in table
    # the game-over screen: the hostile closing reason, escaped, after the real words
    assert "The game was abandoned." in over
    assert f"seat 0 ({ESCAPED_NAME}) closed the game: {ESCAPED_REASON}" in _unwrap(over)
    assert "Press Enter to leave" in over
    logs = sorted((terminal.home / "games").glob("*.fdlog"))
    assert len(logs) == 1
    report = audit_path(logs[0])  # the real verdict, whatever the audit's policy on closed games
    real = [line for line in report.text().splitlines() if line.startswith("VERDICT")]
    # what `fairdeck join` printed after the console: the real verdict
    assert "Game abandoned." in after and f"audit: {report.verdict}" in after
    assert f"FAIRDECK-EXIT={report.exit_code}" in after
    viewer = "replay"
    terminal.run(viewer, [*FAIRDECK, "replay", str(logs[0])])
    title = f"audit: {report.verdict.upper()}"
    first = terminal.wait(viewer, lambda s: "frame 1/" in s and title in s, PATIENCE)
    terminal.keys(viewer, "End")
    last = terminal.wait(viewer, lambda s: "The game was abandoned." in s, PATIENCE)
    terminal.keys(viewer, "v")
    full = terminal.wait(viewer, lambda s: "view: full" in s, PATIENCE)
    terminal.keys(viewer, "a")
    audit = terminal.wait(viewer, lambda s: real[0] in s, PATIENCE)
    terminal.keys(viewer, "q")
    terminal.wait(viewer, lambda s: "frame " in s, PATIENCE)
    terminal.keys(viewer, "q")
    done = terminal.wait(viewer, lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)

    _save({f"hostile-{k}": v for k, v in {**shots, "replay": last, "replay-audit": audit}.items()})
    for shot in (first, last, full, done):
        assert_inert(shot)
    # the audit's report: nothing raw, and its one real verdict line is the only line that starts so
    assert_inert(audit, fakes=())
    assert [line for line in audit.splitlines() if line.strip().startswith("VERDICT")] == real, audit
    assert first.splitlines()[0].rstrip().endswith(title)  # the real verdict, in the title
    rows = [line for line in last.splitlines() if line[1:3] in ("0 ", "1 ")]
    assert len(rows) == 2 and HOST_NAME in rows[0], last
    assert f"seat 0 ({ESCAPED_NAME}) closed the game: {ESCAPED_REASON}" in _unwrap(last)
    assert "── this step" in last and "── log" in last
    assert "FAIRDECK-EXIT=0" in done


# ---------------------------------------------------------------------------------------------
# The hostile peer
# ---------------------------------------------------------------------------------------------


async def _hostile_host(home: Path) -> int:
    """Open a two-seat table as :data:`HOST_NAME`, play as a bot, obey ``chat``/``abandon``."""
    from fairdeck.commands import BotDriver
    from p2p.identity import Identity
    from p2p.node import Node

    identity = Identity.load_or_create(home)
    node = Node(identity, home, name=HOST_NAME, bind_host="127.0.0.1")
    loop = asyncio.get_running_loop()
    try:
        # A short deadline: the person's node takes a close naming the person only once its own
        # clock says the person let the deadline pass (a close is never taken on another's word
        # alone), and the test's person does not move. The hostile node closes only when told.
        node._stall_reason = lambda *_: None  # type: ignore[method-assign]
        port = await node.open_table("loveletter", 2, shuffle_rounds=ROUNDS, stall_after=DEADLINE)
        print(json.dumps({"bootstrap": port}), flush=True)
        BotDriver(node, "loveletter", "heuristic", "hostile")
        await node.wait_started()
        while not node.ended:
            command = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
            party = node.party
            assert party is not None
            if command == "chat":
                await node.chat(HOSTILE_CHAT)
                print("chatted", flush=True)
            elif command == "abandon":
                # a hostile peer's own entry: written, logged and sent as the node does for any other
                expected = party.table.expected()
                assert expected is not None and expected[0] != party.me, expected
                await node._carry_out(party.abandon(HOSTILE_REASON))
                print("abandoned", flush=True)
            elif not command:
                return 1  # stdin closed: the test is gone
        await asyncio.sleep(0.5)  # let the abandon entry reach the person
        return 0
    finally:
        await node.close()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the hostile peer process."""
    parser = argparse.ArgumentParser(prog="test_tmux_hostile_text")
    sub = parser.add_subparsers(dest="command", required=True)
    host = sub.add_parser("host", help="open a table under a hostile name")
    host.add_argument("--home", type=Path, required=True)
    args = parser.parse_args(argv)
    return asyncio.run(_hostile_host(args.home))


if __name__ == "__main__":
    sys.exit(main())
