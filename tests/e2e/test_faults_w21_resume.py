"""Coming back to a game in ways a person (or a script) can get wrong, with real peers on loopback.

- **Two resumes of one game at once** (the same home: a second terminal, a service and a person, a
  script that restarts a bot that is not dead). Before, both read and healed the log while one of
  them was writing it, and the loser died on "unexpected error: ZMQError: Address already in use"
  (or, when it won the port in the moment the other rebound it, the other did). Now the first holds
  an exclusive lock on the game's log for as long as it runs; the second says in one line that the
  game is being played already and changes nothing, and the game finishes with identical logs.
- **A damaged ``<game>.left`` note** (torn by a crash, garbled): the note is how a person's program
  says its player left the game on purpose, and a bot does not resume such a game. A note that
  cannot be read says nothing: before, the bot took it for a game left on purpose, tried to join
  the table afresh ("the table is full") and the others closed the game on it.
- **A home with another identity** (its ``identity.key`` replaced): one line saying this identity
  is not seated and the log was left as it is; the others close the game on the seat that stopped.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.e2e.peer_support import (
    Cluster,
    Peer,
    assert_one_log_audited_clean,
    read_entries,
    run_fairdeck,
    wait_for,
)
from tests.e2e.test_faults_w21_roster import down_mid_game

pytestmark = [pytest.mark.xdist_group("peers")]

ROUNDS = 8


def test_two_resumes_of_one_game_at_once_one_plays_the_other_says_so(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=120) as cluster:
        victim, _ = down_mid_game(cluster)
        twin = Peer("twin", victim.home, list(victim.argv), env=dict(victim.env))
        victim.start()
        cluster.peers.append(twin.start())
        codes = dict(zip(map(id, cluster.peers), cluster.wait_finished(), strict=True))
        said = victim.errors()  # (both write there: one home)
        tails = "\n".join(p.tail() for p in cluster.peers)
        assert sorted([codes.pop(id(victim)), codes.pop(id(twin))]) == [0, 2], tails
        assert list(codes.values()) == [0, 0], tails
        assert "Traceback" not in said and "unexpected error" not in said, said
        assert said.count("only one may play a seat; nothing was changed") == 1, said
        assert_one_log_audited_clean([p.log_path() for p in cluster.peers if p is not twin], 3)


def test_a_resume_while_the_first_program_is_only_stopped_changes_nothing(tmp_path: Path) -> None:
    # the first program is not dead, only stopped (SIGSTOP: a suspended terminal job); someone
    # starts the bot again with the same home. It must not touch the log the first one holds open
    with Cluster(tmp_path, seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=120) as cluster:
        cluster.start()
        first = cluster.peer_at(2)
        wait_for(lambda: len(read_entries(first.log_path() or Path("-"))) > 40, 120, "40 entries")
        first.stop()
        path = first.log_path()
        assert path is not None
        before = path.read_bytes()
        second = Peer("second", first.home, list(first.argv), env=dict(first.env))
        cluster.peers.append(second.start())
        assert second.wait(60) == 2, second.tail()
        assert path.read_bytes() == before
        said = first.errors()  # (one home, one file)
        assert "only one may play a seat; nothing was changed" in said, said
        assert "Traceback" not in said and "unexpected error" not in said, said
        first.signal(signal.SIGCONT)
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0, 2], "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs()[:3], 3)


def test_a_garbled_left_note_does_not_keep_a_bot_from_resuming(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=120) as cluster:
        victim, path = down_mid_game(cluster)
        path.with_suffix(".left").write_bytes(b'{"left_at": 17\x00\xff')  # torn, and not text
        victim.start()
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), 3)
        assert "Traceback" not in victim.errors()


def test_a_home_whose_identity_was_replaced_says_so_and_leaves_the_log(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=ROUNDS, quiet_bots=False, stall_after=8) as cluster:
        victim, path = down_mid_game(cluster)
        before = path.read_bytes()
        key = victim.home / "identity.key"
        key.rename(key.with_name("identity.key.old"))
        victim.start()
        assert victim.wait(60) == 2, victim.tail()
        said = victim.errors()
        assert "cannot be resumed here: this identity is not seated at the table" in said, said
        assert "Traceback" not in said, said
        # a person's way back says so too, named or not, and `games` lists it as it is
        env = {**os.environ, **cluster.env, "FAIRDECK_HOME": str(victim.home)}
        for named in ([path.stem[:8]], []):
            code, _, err = run_fairdeck(["resume", "--plain", *named], env, timeout=60)
            assert code != 0 and "this home's identity is not one of its players" in err, err
            assert "Traceback" not in err and "unreadable" not in err, err
        code, out, _ = run_fairdeck(["games"], env, timeout=60)
        assert code == 0 and "unfinished" in out and "unreadable" not in out, out
        assert path.read_bytes() == before
        assert not list(path.parent.glob("*.damaged-*"))
        others = [p for p in cluster.peers if p is not victim]
        for peer in others:
            assert peer.wait(120) == 0, peer.tail()
        logs = [p.log_path() for p in others]
        assert logs[0] is not None and logs[1] is not None
        assert logs[0].read_bytes() == logs[1].read_bytes()
        closing = read_entries(logs[0])[-1]
        assert closing.kind == "abandon" and "seat 2" in closing.body["reason"], closing.body
