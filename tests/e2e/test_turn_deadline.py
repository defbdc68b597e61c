"""Turn deadlines among real peer processes: on a table opened with ``--on-stall bot`` a person who
never answers has each of its moves played by its own node once the table's deadline passes, marked
``late`` in the log; the game ends normally, every log is the same, and the audit and the replay say
which moves were played for whom. (On a ``close`` table the game is closed naming the seat instead:
``test_hostile_opener`` and ``test_crash_recovery`` show that.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from p2p.log import read_log
from p2p.protocol import LATE_WORDS, Table
from replay.audit import audit_path
from replay.replay import replay_log
from tests.e2e.peer_support import FAIRDECK, GAME_TIMEOUT, REPO, Cluster, Peer, read_entries, wait_for

DEADLINE = 2  # seconds; the others close a move's stall only after twice that


@pytest.mark.slow
def test_a_silent_person_has_its_moves_played_at_the_deadline_and_the_log_says_so(tmp_path: Path) -> None:
    with Cluster(
        tmp_path, game="loveletter", seats=2, rounds=40, stall_after=DEADLINE, on_stall="bot"
    ) as cluster:
        cluster.start(bots=0)
        assert cluster.address is not None
        person = Peer(
            "person",
            tmp_path / "person",
            [*FAIRDECK, "join", cluster.address, "--plain", "--name", "pat"],
            stdin_text="",  # a person who is there (the input stays open) and never answers
        )
        cluster.peers.append(person.start())
        codes = cluster.wait_finished(timeout=GAME_TIMEOUT)
        assert codes == [0, 0], "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()
        said = person.output()
    assert len({path.read_bytes() for path in logs}) == 1, "the logs differ"
    entries = read_entries(logs[0])
    late = [e for e in entries if e.kind == "move" and "late" in e.body]
    pat = next(i for i, p in enumerate(_names(logs[0])) if p == "pat")
    assert late and all(e.seat == pat and e.body["late"] is True for e in late)
    # every move of the silent seat was played for it (but the answers with only one honest
    # choice, which its interface sends at once: a Guard's hit or miss, a Baron's result);
    # the bot's never were
    forced = ({"hit"}, {"loser"})
    own = [e for e in entries if e.kind == "move" and e.seat == pat]
    assert all("late" in e.body or set(e.body["move"]) in forced for e in own)
    assert "a safe move is played for you" in said
    report = audit_path(logs[0])
    assert report.exit_code == 0 and report.replay is not None and report.replay.table.ended == "over"
    text = report.text()
    times = f"{len(late)} time{'s' if len(late) > 1 else ''}"
    assert f"seat {pat} (pat) let the table's deadline pass {times}: its own node played for it" in text
    words = [f.text for f in replay_log(logs[0]).frames if f.text.endswith(LATE_WORDS)]
    assert len(words) == len(late)
    shown = subprocess.run(
        [*FAIRDECK, "replay", "--text", str(logs[0])], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert LATE_WORDS.strip() in shown.stdout


def _names(path: Path) -> list[str]:
    """The parties' names, in seat order, from the log's genesis."""
    return [p.name for p in Table(read_log(path).envelopes[0]).parties]


def test_a_person_waiting_for_a_party_gone_from_the_table_is_told_how_long_is_left(tmp_path: Path) -> None:
    # the host (a bot) vanishes for good mid-game: the person's screen must not just go quiet until
    # the deadline; it says whom the table waits for, that they are gone, and how long is left
    with Cluster(tmp_path, game="loveletter", seats=2, rounds=40, stall_after=4) as cluster:
        cluster.start(bots=0)
        assert cluster.address is not None
        person = Peer(
            "person",
            tmp_path / "person",
            [*FAIRDECK, "join", cluster.address, "--plain", "--name", "pat"],
            stdin_text="1\n" * 400,
        )
        cluster.peers.append(person.start())
        wait_for(lambda: "draws a card" in person.output(), 120, "the game to be under way")
        cluster.peers[0].kill()
        person.wait(GAME_TIMEOUT)
        said = person.output()
    told = re.search(
        r"\* waiting for host-bot \(seat (\d)\), who is disconnected: unless they come back, the "
        r"table's deadline passes in (\d+) s and the game is closed, naming them",
        said,
    )
    assert told is not None, said
    assert int(told.group(2)) <= 4
    assert f"seat {told.group(1)} (host-bot) wrote nothing" in said  # and then it was closed so
