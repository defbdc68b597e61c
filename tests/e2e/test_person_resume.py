"""A person's own crash: `fairdeck join` is killed mid-game and `fairdeck resume` brings the person
back to the same seat; the game completes with identical logs and a clean audit."""

from __future__ import annotations

from pathlib import Path

from p2p.log import read_log
from replay.audit import audit_path
from tests.e2e.peer_support import FAIRDECK, Cluster, Peer, wait_for

ANSWERS = "1\n" * 2000  # a person who always takes the first legal move


def test_a_person_killed_mid_game_resumes_with_fairdeck_resume(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=4) as cluster:
        cluster.start(bots=1)
        assert cluster.address is not None
        person = Peer(
            "person",
            tmp_path / "person",
            [*FAIRDECK, "join", cluster.address, "--plain", "--name", "pat"],
            stdin_text=ANSWERS,
        )
        cluster.peers.append(person.start())
        wait_for(
            lambda: person.log_path() is not None and len(read_log(person.log_path()).envelopes) > 60,
            120,
            "the person's game to be well under way",
        )
        person.kill()
        person.argv = [*FAIRDECK, "resume", "--plain"]
        person.start()
        codes = cluster.wait_finished()
        assert codes[-1] == 0 and all(code == 0 for code in codes), "\n".join(p.tail() for p in cluster.peers)
        assert "resumed" in person.output()
        assert "checking its log" in person.output(), "resume said nothing before checking the log"
        # a resumed game is offered again like any other (the person's "1" answers no)
        assert "play again with the same players?" in person.output(), person.tail()
        logs = cluster.logs()
    assert len({path.read_bytes() for path in logs}) == 1, "the logs differ"
    report = audit_path(logs[0])
    assert report.exit_code == 0, report.text()
    assert report.replay is not None and report.replay.table.ended == "over"
    assert "pat" in [p.name for p in report.replay.table.parties]
