"""``fairdeck audit`` on a terminal: every line fits the terminal's width, wrapped at spaces under its
own indentation, no word cut; piped, each finding stays on one line (for ``grep``)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
from pathlib import Path

from replay.audit import audit_envelopes, fit_to_terminal
from tests.replay.redteam_w21_support import FAIRDECK, ROOT, write_log
from tests.replay.test_redteam_w21 import _padded_move


def _long_report_log(tmp_path: Path) -> tuple[Path, str]:
    log, _, _ = _padded_move("rebelprincess")
    text = audit_envelopes(log).text()
    assert max(len(line) for line in text.split("\n")) > 100  # (else this test proves nothing)
    return write_log(tmp_path / "padded.fdlog", log), text


def _words(text: str) -> list[str]:
    """The report's words from ``game:`` on (its first line names the log as it was given)."""
    words = text.split()
    return words[words.index("game:") :] if "game:" in words else words


def test_fit_to_terminal_wraps_long_lines_under_their_indentation_and_keeps_every_word() -> None:
    text = "VERDICT: 1 FAULT\n  - seat 2 (bot2), entry 56: " + "a reason of many words " * 8 + "\n\n  short"
    fitted = fit_to_terminal(text, 60)
    lines = fitted.split("\n")
    assert max(len(line) for line in lines) <= 60
    assert _words(fitted) == _words(text)  # nothing lost, nothing cut
    assert lines[1].startswith("  - seat 2")
    assert lines[2].startswith("    ") and not lines[2].startswith("     ")  # under the finding's words
    assert lines[-2:] == ["", "  short"]


def test_fairdeck_audit_on_an_80_column_terminal_fits_it(tmp_path: Path) -> None:
    path, text = _long_report_log(tmp_path)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    with subprocess.Popen(
        [str(FAIRDECK), "audit", str(path)], stdout=follower, stderr=follower, cwd=ROOT, env=env
    ) as proc:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end closed: the command is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=120) == 1
    os.close(leader)
    shown = b"".join(chunks).decode().replace("\r\n", "\n")
    assert "Traceback" not in shown
    assert max(len(line) for line in shown.split("\n")) <= 79, shown
    assert _words(shown) == _words(text)


def test_fairdeck_audit_piped_keeps_each_finding_on_one_line(tmp_path: Path) -> None:
    path, text = _long_report_log(tmp_path)
    done = subprocess.run([str(FAIRDECK), "audit", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1
    assert done.stdout.rstrip("\n").split("\n")[1:] == text.split("\n")[1:]
