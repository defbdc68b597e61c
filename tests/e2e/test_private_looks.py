"""What a Priest, Baron or King shows is told to that player alone, as a line only it sees."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.e2e.peer_support import FAIRDECK, GAME_TIMEOUT, REPO


def _play_one(tmp_path: Path, index: int) -> int:
    """One game by a person who always takes the first move; returns how many Priest looks it had."""
    env = {**os.environ, "FAIRDECK_HOME": str(tmp_path / f"home{index}"), "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [*FAIRDECK, "play", "loveletter", "--bots", "3", "--plain"],
        input="1\n" * 3000,
        capture_output=True,
        text=True,
        timeout=GAME_TIMEOUT,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = [line.strip().lstrip("> ") for line in done.stdout.splitlines()]
    looks = 0
    for i, line in enumerate(lines):
        # (the line goes on with what the same entry did: "; the card is shown face up")
        if match := re.fullmatch(r"seat 0 \(you\) plays the Priest on seat (\d) \([^)]*\)(; .*)?", line):
            # told at once, unless the card was already known to it or the showdown shows it to all
            after = lines[i + 1 : i + 6]
            looks += any(f"only you see: seat {match.group(1)} " in later for later in after)
        if "only you see" in line:
            # only ever after a card that shows seat 0 something: its Priest, Baron, King, or theirs on it
            at = next(j for j in range(i - 1, -1, -1) if " plays the " in lines[j])
            play = lines[at]
            # said with the play that showed it, before the table moves on to the next draw
            assert not any(" draws a card" in between for between in lines[at + 1 : i]), lines[at : i + 1]
            assert re.search(
                r"seat 0 \(you\) plays the (Priest|Baron|King) on"
                r"|plays the (Baron|King) on seat 0 \(you\)",
                play,
            ), (
                play,
                line,
            )
    return looks


def test_the_person_is_told_what_its_priest_saw_and_nothing_more(tmp_path: Path) -> None:
    # the deal differs every game; a few games make sure at least one Priest look is told
    looks = 0
    for index in range(4):
        looks += _play_one(tmp_path, index)
        if looks:
            break
    assert looks, "no Priest look was ever told to the person in four games"
