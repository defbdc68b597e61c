"""``fairdeck games`` and ``fairdeck resume``: this player's games listed (finished, unfinished with
whom, left), one chosen by number to audit, replay or discard; ``resume`` names the live choices
instead of guessing when there are several, and refuses a game that has ended — each in one line.

A real all-bot game (``fairdeck play loveletter --bots 4``) gives a finished log; two unfinished
games are the first entries of that log under other names (with its roster), as a crash would
leave them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from p2p.log import LogWriter, read_log
from tests.e2e.peer_support import FAIRDECK

REPO = Path(__file__).resolve().parents[2]


def _run(home: Path, *argv: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FAIRDECK_HOME": str(home), "PYTHONPATH": str(REPO), "USER": "tester"}
    return subprocess.run(
        [*FAIRDECK, *argv], capture_output=True, text=True, timeout=300, env=env, cwd=REPO,
        stdin=subprocess.DEVNULL, **kw,
    )  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("games") / "home"
    done = _run(home, "play", "loveletter", "--bots", "4")
    assert done.returncode == 0, done.stderr
    (finished,) = (home / "games").glob("*.fdlog")
    _unfinished_copies(finished, "aaaa", "bbbb")
    return home


def _unfinished_copies(finished: Path, *prefixes: str) -> None:
    """Beside ``finished``, one unfinished game per prefix: its first 30, 40, ... entries under a
    new name, with its roster, as a crash would leave them."""
    envelopes = read_log(finished).envelopes
    for count, prefix in enumerate(prefixes, start=3):
        path = finished.parent / f"{prefix}{'0' * 28}.fdlog"
        writer = LogWriter(path)
        for envelope in envelopes[: 10 * count]:
            writer.append(envelope)
        writer.close()
        shutil.copy(finished.with_suffix(".roster"), path.with_suffix(".roster"))


def test_games_lists_finished_and_unfinished_games_with_whom(home: Path) -> None:
    done = _run(home, "games")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("unfinished") == 2 and out.count("finished") == 3  # "unfinished" holds "finished"
    assert "with bot-1, run by tester; bot-2, run by tester; bot-3, run by tester" in out
    assert "winner: " in out and "tokens: bot-0, run by tester: " in out
    assert "waiting for" in out and "resumable" in out
    assert "[" not in out and "{" not in out  # no Python list or dict


def test_games_shows_the_audit_verdict_until_the_log_changes(home: Path, tmp_path: Path) -> None:
    # the game's end audited it (`play` does): its verdict is listed; a changed log is audited anew
    done = _run(home, "games")
    assert "audit: clean" in done.stdout
    assert done.stdout.count("audit:") == 1  # unfinished games have no verdict yet
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    (finished,) = [p for p in (copy / "games").glob("*.fdlog") if not p.name.startswith(("aaaa", "bbbb"))]
    data = bytearray(finished.read_bytes())
    # someone edits the file (a bit of the middle entry's signature, its last bytes): the old
    # verdict no longer speaks for it (a flip at a random place may break the msgpack instead)
    ends = read_log(finished).ends
    data[ends[len(ends) // 2] - 1] ^= 0x01  # the last byte of the middle entry's record
    finished.write_bytes(bytes(data))
    listed = _run(copy, "games").stdout
    assert "audit: clean" not in listed and "audit: not yet (fairdeck games audit" in listed
    assert " damaged " in listed and "does not verify" in listed  # never listed as a game in progress
    number = next(line.split()[0] for line in listed.splitlines() if " damaged " in line)
    audited = _run(copy, "games", "audit", number)
    assert audited.returncode != 0
    listed = _run(copy, "games").stdout
    assert "audit: faults: " in listed or "audit: unreadable: " in listed


def test_resume_with_several_live_games_asks_which_in_one_line(home: Path) -> None:
    done = _run(home, "resume")
    assert done.returncode == 2
    assert done.stderr.strip() == "fairdeck: 2 unfinished games: name one, e.g. `fairdeck resume 1`"
    assert done.stdout.count("unfinished") == 2  # the choices


def test_resume_refuses_a_finished_game_in_one_line(home: Path) -> None:
    done = _run(home, "resume", "3")
    assert done.returncode == 2
    assert done.stderr.strip() == "fairdeck: game 3 has ended (finished): replay or audit it instead"


def test_games_audit_replay_and_discard_by_number(home: Path) -> None:
    audit = _run(home, "games", "audit", "3")
    assert audit.returncode == 0 and "VERDICT: CLEAN" in audit.stdout
    replay = _run(home, "games", "replay", "3")
    assert replay.returncode == 0 and "as seen by seat 0" in replay.stdout and "you get " in replay.stdout
    discard = _run(home, "games", "discard", "1", "--yes")  # (no terminal to ask on)
    assert discard.returncode == 0 and "discarded" in discard.stdout
    listed = _run(home, "games").stdout
    assert listed.count("unfinished") == 1
    assert (home / "games" / "discarded").is_dir()
    missing = _run(home, "games", "audit", "9")
    assert missing.returncode == 2 and missing.stderr.strip().startswith("fairdeck: no game 9")


def test_resume_offers_a_game_its_player_left_when_it_can_go_on(home: Path, tmp_path: Path) -> None:
    # Ctrl-C at a table of people says "`fairdeck resume` takes you back to it": it must
    # (its own copy of the home, with two unfinished games of its own: other tests discard some)
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    games = copy / "games"
    finished = next(p for p in games.glob("*.fdlog") if not p.name.startswith(("aaaa", "bbbb")))
    _unfinished_copies(finished, "cccc", "dddd")
    (left,) = games.glob("cccc*.fdlog")
    left.with_suffix(".left").write_text(json.dumps({"why": "you left the table", "resumable": True}))
    done = _run(copy, "resume")
    assert done.returncode == 2
    assert "unfinished games: name one" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert " left " in done.stdout and "you left the table" in done.stdout
    assert "you left it (" not in done.stdout  # said once, in words
