"""Tables by name on a real LAN of network namespaces (``tests/netns.py``), as a newcomer meets them.

- ns0 opens ``Sat`` with ``--spectators`` (two seats, one bot): its game starts at once, and the
  opener (a plain interface nobody answers) leaves it waiting for its move. The table stays on the
  LAN while it is played: ``fairdeck tables`` shows it ``full, playing``, ``fairdeck join Sat`` says
  it is full and can be watched (before, the advertisement was dropped at the start: "no table called
  Sat"), and ``fairdeck watch Sat`` finds it by name mid-game.
- ns2 opens a second table called ``Sat`` (its lobby waits): ``fairdeck join Sat`` then refuses to
  guess, naming both tables' ``HOST:PORT`` and host fingerprints (before, it took whichever came first).
- ns1 is the newcomer. Every process is killed and the namespaces removed at the end.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import pytest

from tests.netns import Lan, require_netns

pytestmark = [pytest.mark.netns, pytest.mark.xdist_group("peers")]

REPO = Path(__file__).resolve().parents[2]
FAIRDECK = [sys.executable, "-m", "fairdeck"]


def _start(
    lan: Lan, index: int, argv: list[str], home: Path, files: list[IO[Any]]
) -> subprocess.Popen[bytes]:
    home.mkdir(parents=True, exist_ok=True)
    out = (home.parent / f"{home.name}.out").open("ab")
    files.append(out)
    return lan.run(
        lan.players[index],
        [*FAIRDECK, *argv],
        cwd=REPO,
        env={**os.environ, "FAIRDECK_HOME": str(home), "PYTHONUNBUFFERED": "1", "USER": home.name},
        stdin=subprocess.PIPE,
        stdout=out,
        stderr=subprocess.STDOUT,
    )


def _run(lan: Lan, index: int, argv: list[str], home: Path) -> tuple[int, str]:
    home.mkdir(parents=True, exist_ok=True)
    proc = lan.run(
        lan.players[index],
        [*FAIRDECK, *argv],
        cwd=REPO,
        env={**os.environ, "FAIRDECK_HOME": str(home), "USER": home.name},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out, _ = proc.communicate(timeout=90)
    return proc.returncode, out.decode(errors="replace")


def _until_listed(lan: Lan, home: Path, words: list[str]) -> str:
    """``fairdeck tables`` in ns1 until one table's lines (its line and the indented ones under
    it) hold every one of ``words``; its whole output."""
    seen = ""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        _, seen = _run(lan, 1, ["tables", "--wait", "3"], home)
        if any(all(w in block for w in words) for block in re.split(r"\n(?! )", seen)):
            return seen
    raise AssertionError(f"`fairdeck tables` never listed {words}; last saw:\n{seen}")


def _lines_until(proc: subprocess.Popen[bytes], wanted: str, timeout: float = 90) -> str:
    """What ``proc`` printed until a line holding ``wanted`` (or the timeout, a hang)."""
    assert proc.stdout is not None
    got: list[str] = []
    done = threading.Event()

    def read() -> None:
        for raw in proc.stdout:  # type: ignore[union-attr]
            got.append(raw.decode(errors="replace"))
            if wanted in got[-1]:
                break
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(timeout)
    return "".join(got)


def test_a_watched_table_stays_listed_while_played_and_a_twin_name_is_not_guessed(tmp_path: Path) -> None:
    require_netns()
    files: list[IO[Any]] = []
    newcomer = tmp_path / "newcomer"
    with Lan(players=3, subnet="10.213.21") as lan:
        try:
            _start(
                lan,
                0,
                ["host", "loveletter", "--name", "Sat", "--player", "ann", "--seats", "2", "--bots", "1",
                 "--spectators", "--no-rematch", "--plain"],
                tmp_path / "ann",
                files,
            )
            shown = _until_listed(lan, newcomer, ["Sat", "full, playing", "spectators welcome"])
            assert "10.213.21.1:" in shown

            code, said = _run(lan, 1, ["join", "Sat", "--yes"], newcomer)
            assert code == 2, said
            assert "the table Sat at 10.213.21.1:" in said and "is full" in said and "fairdeck watch" in said
            assert "Traceback" not in said

            watcher = lan.run(
                lan.players[1],
                [*FAIRDECK, "watch", "Sat", "--plain"],
                cwd=REPO,
                env={**os.environ, "FAIRDECK_HOME": str(tmp_path / "watcher"), "PYTHONUNBUFFERED": "1"},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            seen = _lines_until(watcher, "is dealt")  # (played before it came: shown too)
            watcher.kill()
            assert "watching loveletter" in seen and "10.213.21.1:" in seen, seen
            assert "is dealt" in seen and "Traceback" not in seen

            # a second table called Sat, in another namespace, still in its lobby
            twin = ["host", "loveletter", "--name", "Sat", "--seats", "2", "--plain"]
            _start(lan, 2, twin, tmp_path / "bea", files)
            _until_listed(lan, newcomer, ["Sat", "1/2 seats free", "10.213.21.3:"])
            code, said = _run(lan, 1, ["join", "Sat", "--yes"], newcomer)
            assert code == 2, said
            assert "2 tables are called Sat on the LAN: " in said
            assert "10.213.21.1:" in said and "10.213.21.3:" in said and "HOST:PORT" in said
            assert not (newcomer / "games").exists() or not list((newcomer / "games").iterdir())
        finally:
            lan.teardown()
            for f in files:
                f.close()
