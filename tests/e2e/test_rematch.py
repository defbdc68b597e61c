"""Playing again (issue 19) among real processes on loopback: two people in plain mode — ``fairdeck
host --plain --bots 2`` and ``fairdeck join --plain --yes`` — fed their moves and their answers to
"play again?" as the prompts come, and the two bot peers the host starts. Every game is its own log
(auditing clean, with a new game id and fresh per-game salts, the same players in the same seats),
the series' running score is the sum of the games' results, and a "no", or a person gone, ends the
series for everyone with one line, every process exiting."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from p2p.log import read_log
from p2p.protocol import Table
from replay.audit import audit_path
from tests.e2e.peer_support import FAIRDECK, GAME_TIMEOUT, Peer, processes_mentioning, read_entries, wait_for

PROMPTS = re.compile(r"(?m)^   1\. |^play again with the same players\? \[y/N\]")
"""What a plain person is asked: a decision (its list of legal moves starts with ``   1. ``), or
whether to play again."""
QUESTION = "play again"


class Person:
    """A scripted person at a plain interface: it answers every decision with its first legal move
    and each "play again?" with the next of ``answers`` as the prompts appear on its output (or, with
    ``vanish``, is killed at its first such question)."""

    def __init__(self, peer: Peer, answers: list[str], vanish: bool = False) -> None:
        self.peer, self.answers, self.vanish = peer, list(answers), vanish
        self.questions = 0
        self._thread = threading.Thread(target=self._run, name=f"person-{peer.name}", daemon=True)

    def start(self) -> Person:
        self.peer.start()
        self._thread.start()
        return self

    def _run(self) -> None:
        done = 0
        while self.peer.running:
            prompts = PROMPTS.findall(self.peer.output())
            for prompt in prompts[done:]:
                line = "1"
                if prompt.startswith(QUESTION):
                    self.questions += 1
                    if self.vanish:
                        self.peer.kill()
                        return
                    line = self.answers.pop(0) if self.answers else "n"
                assert self.peer.proc is not None and self.peer.proc.stdin is not None
                with contextlib.suppress(OSError, ValueError):  # it may have just ended
                    self.peer.proc.stdin.write(f"{line}\n".encode())
                    self.peer.proc.stdin.flush()
                done += 1
            time.sleep(0.05)


@contextlib.contextmanager
def _table(
    tmp_path: Path, host: list[str], joiner: list[str], vanish: bool = False
) -> Iterator[list[Person]]:
    """``tester`` opens a four-seat table with two bots of its own, answering ``host`` to "play
    again?"; ``pat`` joins it, answering ``joiner``. Both are killed at the end, whatever happened
    (their bots follow their launcher)."""
    people: list[Person] = []
    try:
        opener = Peer(
            "tester",
            tmp_path / "tester",
            [*FAIRDECK, "host", "loveletter", "--plain", "--seats", "4", "--bots", "2", "--name", "tester"]
            + ["--bind", "127.0.0.1", "--no-advertise"],
            stdin_text="",
        )
        people.append(Person(opener, host).start())
        port = re.compile(r"fairdeck join 127\.0\.0\.1:(\d+)")
        opened = wait_for(lambda: port.search(opener.output()) or _dead(opener), 60, "the table to open")
        address = f"127.0.0.1:{opened.group(1)}"
        argv = [*FAIRDECK, "join", "--plain", "--yes", "--name", "pat", address]
        joining = Peer("pat", tmp_path / "pat", argv, stdin_text="")
        people.append(Person(joining, joiner, vanish=vanish).start())
        yield people
    finally:
        for person in people:
            person.peer.kill()


def _dead(peer: Peer) -> None:
    if not peer.running:
        raise AssertionError(f"{peer.name} ended early\n{peer.tail()}")


def _finish(people: list[Person], timeout: float) -> list[int]:
    """Wait until every person's process has exited, then check that no bot of the host is left."""
    codes = []
    try:
        for person in people:
            if person.peer.proc is not None and person.peer.proc.returncode is not None:
                codes.append(person.peer.proc.returncode)
                continue
            codes.append(person.peer.wait(timeout))
    except AssertionError:
        raise AssertionError("\n".join(p.peer.tail() for p in people)) from None
    host = people[0].peer
    assert host.proc is not None
    # the host's bots went with it (they say whose they are on their command line)
    wait_for(lambda: not processes_mentioning(f"--parent {host.proc.pid} "), 30, "the host's bots to end")
    return codes


def _logs(person: Person) -> list[Path]:
    return sorted((person.peer.home / "games").glob("*.fdlog"))


def test_two_rematches_in_a_row_make_three_clean_games_and_the_score_carries_over(tmp_path: Path) -> None:
    with _table(tmp_path, ["y", "y", "n"], ["y", "y", "y"]) as people:
        codes = _finish(people, 3 * GAME_TIMEOUT)
    tester, pat = people
    assert codes == [0, 0], "\n".join(p.peer.tail() for p in people)
    # (pat may not be asked a third time: tester's no can come first, and then nobody asks it)
    assert tester.questions == 3 and pat.questions >= 2

    # three games, each its own log, the same bytes at both people's
    logs = _logs(tester)
    assert len(logs) == 3 and [p.name for p in _logs(pat)] == [p.name for p in logs]
    for mine, theirs in zip(logs, _logs(pat), strict=True):
        assert mine.read_bytes() == theirs.read_bytes(), f"{mine.name} differs between the two people"

    # the series file says in which order they were played
    series = json.loads(next((tester.peer.home / "games").glob("*.series")).read_text())
    order = [game["id"] for game in series["games"]]
    assert sorted(order) == sorted(p.stem for p in logs) and len(set(order)) == 3
    assert json.loads(next((pat.peer.home / "games").glob("*.series")).read_text()) == series
    tables = [Table(read_log(tester.peer.home / "games" / f"{gid}.fdlog").envelopes[0]) for gid in order]

    # new game ids, the same players in the same seats, and fresh per-game salts for every party
    assert len({t.game_id for t in tables}) == 3
    first = [(p.name, p.key) for p in tables[0].parties]
    assert all([(p.name, p.key) for p in t.parties] == first for t in tables)
    assert {"tester", "pat"} <= {name for name, _ in first} and len(first) == 4
    salts = [
        e.body["salt"] for gid in order for e in read_entries(tester.peer.home / "games" / f"{gid}.fdlog")
        if e.kind == "keyshare"
    ]  # fmt: skip
    assert len(salts) == 12 and len(set(salts)) == 12

    # every game audits clean, and the score is the sum of the three results
    wins = [0] * 4
    for gid in order:
        report = audit_path(tester.peer.home / "games" / f"{gid}.fdlog")
        assert report.exit_code == 0, report.text()
        assert report.replay is not None and report.replay.table.ended == "over"
        assert report.result is not None
        for seat in report.result["winners"]:
            wins[seat] += 1
    assert series["score"] == {"wins": wins} and sum(wins) >= 3
    score = " · ".join(f"{name} {w}" for (name, _), w in zip(first, wins, strict=True))
    words = f"series after 3 games: {score}"
    assert series["words"] == words
    for person in people:  # shown after the third game (and a running score after the second)
        said = person.peer.output()
        assert words in said
        assert "series after 2 games: " in said and said.index("series after 2 games: ") < said.index(words)
        assert said.count("audit: clean") == 3
    assert "no rematch: you declined" in tester.peer.output()
    assert "no rematch: tester (seat 0) declined" in pat.peer.output()


def test_a_no_ends_the_series_for_everyone_and_every_process_exits(tmp_path: Path) -> None:
    with _table(tmp_path, ["y"], ["n"]) as people:
        codes = _finish(people, GAME_TIMEOUT)
    tester, pat = people
    assert codes == [0, 0], "\n".join(p.peer.tail() for p in people)
    seat = Table(read_log(_logs(pat)[0]).envelopes[0]).seat_of_key(pat.peer.identity().public_key)
    lines = [line for line in tester.peer.output().splitlines() if line.startswith("no rematch")]
    assert len(lines) == 1 and f"pat (seat {seat}) declined" in lines[0], lines
    assert "no rematch: you declined" in pat.peer.output()
    for person in people:  # one game, no series
        assert len(_logs(person)) == 1 and not list((person.peer.home / "games").glob("*.series"))
        assert audit_path(_logs(person)[0]).exit_code == 0


def test_a_person_gone_at_the_question_ends_the_series_and_nobody_hangs(tmp_path: Path) -> None:
    with _table(tmp_path, ["y"], [], vanish=True) as people:
        codes = _finish(people, GAME_TIMEOUT)
    tester, pat = people
    assert pat.questions == 1 and codes[0] == 0, tester.peer.tail()
    seat = Table(read_log(_logs(tester)[0]).envelopes[0]).seat_of_key(pat.peer.identity().public_key)
    lines = [line for line in tester.peer.output().splitlines() if line.startswith("no rematch")]
    assert len(lines) == 1 and f"pat (seat {seat}) is gone (nothing heard for " in lines[0], lines
    assert len(_logs(tester)) == 1
