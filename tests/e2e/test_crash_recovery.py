"""``kill -9`` real peer processes at chosen protocol points, restart them with the same command and
home, and check that the game still completes with identical logs and a clean audit.

A bot that finds an unfinished game in its home resumes it (``Node.unfinished_games`` /
``Node.resume``): it reloads its log (dropping a torn tail), rebinds its old endpoint and catches
up with ``hello``. The host's restart path is the same: ``fairdeck bot --home <host home>``.

Kill points are predicates on the victim's *own* log, folded as it grows; the victim is stopped
(SIGSTOP) at every change of its log while the predicate is checked, so each kill lands exactly
where the test says (see ``Cluster.kill_when``). Covered: a bot killed at five points of one game
(while computing its own shuffle, mid-turn with a torn half-entry left behind, between rounds, in a
deal, on its own decision), the host killed and brought back as a bot, two peers down at once, a bot
killed in the lobby, a Rebel Princess bot killed between its secret commitment and its opening, and
a peer killed for good (the others close the game with a signed ``abandon``). Loopback only.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.core import Deal, Disclose
from p2p.log import Entry, read_log
from p2p.protocol import Table
from replay.replay import replay_log
from tests.e2e.peer_support import (
    CI,
    FAIRDECK,
    GAME_TIMEOUT,
    REPO,
    Cluster,
    KillPoint,
    Peer,
    assert_one_log_audited_clean,
    own_commit_written,
    own_opening_owed,
    read_entries,
    wait_for,
)

ROUNDS = 8


def own_shuffle(table: Table, last: Entry, me: int) -> bool:
    """Others have shuffled this pile already and the victim is computing its own shuffle, or has
    just written it (a Wikström–Terelius shuffle takes milliseconds: the window before it is often
    too short to catch, the one right after it is the same crash for recovery)."""
    computing = table.step.kind == "shuffle" and table.step.writers[0] == me
    return last.kind == "shuffle" and (computing or last.seat == me)


def own_move(table: Table, last: Entry, me: int) -> bool:
    """Mid-turn: the victim has just played; the token revealing its card is still owed."""
    return last.kind == "move" and last.seat == me and table.step.kind == "tokens"


def after_disclosure(table: Table, last: Entry, me: int) -> bool:
    """Between rounds: a round's cards were just disclosed and the next round has not begun."""
    return bool(table.history) and table.history[-1].kind == "disclosed" and last.kind == "tokens"


def seat0_disclosed(table: Table, last: Entry, me: int) -> bool:
    """A disclosure is under way and seat 0, who opens the next round's shuffle, has done its part."""
    return isinstance(table.step.request, Disclose) and 0 not in table.step.writers


def owes_deal_token(table: Table, last: Entry, me: int) -> bool:
    """During a deal: someone else's tokens are in, the victim still owes one."""
    step = table.step
    return isinstance(step.request, Deal) and last.seat != me and me in step.writers and last.kind == "tokens"


def own_decision(table: Table, last: Entry, me: int) -> bool:
    """The victim's player has just been asked to move (a bot answers within milliseconds)."""
    return table.step.kind == "move" and table.step.writers[0] == me


@dataclass
class Kill:
    """One planned kill: where, how long the peer stays dead, whether to leave a torn write."""

    name: str
    point: KillPoint
    down_for: float = 1.0
    torn_tail: bool = False
    hold_seat0_from: KillPoint | None = None
    """Keep the point open: stop seat 0 (the next writer) once this holds, continue it after the kill."""


def _finish_and_check(cluster: Cluster, victims: list[Peer]) -> list[Path]:
    codes = cluster.wait_finished()
    assert codes == [0] * len(cluster.peers), "\n".join(p.tail() for p in cluster.peers)
    for victim in victims:
        assert -9 in victim.exits  # it really was killed (and a later run finished the game)
    logs = cluster.logs()
    assert_one_log_audited_clean(logs, len(cluster.peers))
    # every party held the whole log at the end and said so: no bot left without knowing it
    assert not any("leaving before" in line for p in cluster.peers for _, line in p.lines())
    return logs


def _kill_and_restart(cluster: Cluster, victim: Peer, kill: Kill, after_seq: int, as_bot: bool) -> int:
    """Kill ``victim`` at ``kill.point``, keep it down, restart it; return the killed entry's seq."""
    hold = (cluster.peer_at(0), kill.hold_seat0_from) if kill.hold_seat0_from is not None else None
    table, last = cluster.kill_when(victim, kill.point, kill.name, after_seq=after_seq, hold=hold)
    assert table.ended is None
    assert not victim.running
    path = victim.log_path()
    assert path is not None
    on_disk = read_log(path)
    assert len(on_disk.envelopes) == last.seq + 1  # durable up to the kill, nothing after it
    if kill.torn_tail:
        # a crash in the middle of an append: half an entry's record at the end of the file
        record = path.read_bytes()[on_disk.end_of(len(on_disk.envelopes) - 1) :]
        with path.open("ab") as handle:
            handle.write(record[: len(record) // 2])
    time.sleep(kill.down_for)
    if as_bot:
        cluster.restart_as_bot(victim)
    else:
        victim.start()
    return last.seq


BOT_KILLS = [
    Kill("its own shuffle", own_shuffle, down_for=1.0),
    Kill("its own move (mid-turn)", own_move, down_for=0.0, torn_tail=True),
    Kill(
        "after a disclosure (between rounds)", after_disclosure, down_for=3.0, hold_seat0_from=seat0_disclosed
    ),
    Kill("a deal it owes a token for", owes_deal_token, down_for=0.5),
    Kill("its own decision", own_decision, down_for=1.0),
]


@pytest.mark.slow
def test_a_bot_killed_at_several_points_resumes_each_time(tmp_path: Path) -> None:
    kills = BOT_KILLS[:3] if CI else BOT_KILLS
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        victim = cluster.peer_at(2)
        killed_at: list[int] = []
        for kill in kills:
            seq = _kill_and_restart(cluster, victim, kill, killed_at[-1] if killed_at else -1, False)
            killed_at.append(seq)
        logs = _finish_and_check(cluster, [victim])

    assert victim.exits == [-9] * len(kills) + [0]
    # each run after a kill resumed exactly where the log left off (a torn half-entry is dropped)
    resumed = [line for _, line in victim.lines() if "resumed" in line]
    expected = [f"resumed {logs[0].name} at entry {seq + 1}" for seq in killed_at]
    assert [line.lstrip("* ") for line in resumed] == expected


def test_the_host_killed_mid_turn_resumes_as_a_bot(tmp_path: Path) -> None:
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        host = cluster.peers[0]
        seq = _kill_and_restart(cluster, host, Kill("the host's move", own_move, down_for=1.0), 30, True)
        logs = _finish_and_check(cluster, [host])
    # it came back through `fairdeck bot --home <host home>`
    assert host.argv[1:4] == ["-m", "fairdeck", "bot"] and str(host.home) in host.argv
    assert f"resumed {logs[0].name} at entry {seq + 1}" in host.output()
    # the host's entries after the restart were written by the same seat 0 key
    table = Table(read_log(logs[0]).envelopes[0])
    assert table.parties[0].key == host.identity().public_key


@pytest.mark.slow
def test_two_peers_down_at_once_come_back_in_either_order(tmp_path: Path) -> None:
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        first, second = cluster.peer_at(1), cluster.peer_at(3)
        cluster.kill_when(first, owes_deal_token, "a deal it owes a token for", after_seq=20)
        cluster.kill_when(second, lambda table, last, me: True, "wherever it is")
        time.sleep(2.0)  # both down at once; the other two wait
        second.start()
        time.sleep(1.0)
        first.start()
        _finish_and_check(cluster, [first, second])


def test_a_bot_killed_in_the_lobby_and_restarted_is_seated_where_it_listens_now(tmp_path: Path) -> None:
    # Before the fix the genesis carried the dead process's endpoint: nobody could reach the
    # restarted bot and the game never got past the countersignatures.
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start(bots=2)
        wait_for(lambda: cluster.lobby()["free"] == 1, 60, "two bots in the lobby")
        early = cluster.peers[1]
        early.kill()
        early.start()  # same command, same home: no game in its home yet, so it joins again
        wait_for(lambda: "joining" in early.output().split("--- run 2")[-1], 60, "the bot to join again")
        time.sleep(1.0)  # its join message reaches the host
        assert cluster.lobby()["free"] == 1  # a repeated join takes no second seat
        cluster.start_bot()
        _finish_and_check(cluster, [early])
    assert early.exits == [-9, 0]


def test_the_host_killed_right_after_its_final_entry_comes_back_and_the_game_ends(tmp_path: Path) -> None:
    """The very end: seat 0 makes its ``final`` durable — the first of the four, in its place, so it
    is persisted before it is sent — sends it to everyone and is killed before its log holds
    anyone else's (the host process kills itself there: the others' finals, written ahead, follow
    its own in its log within a millisecond, too fast to time a kill from outside). The others end
    and wait; seat 0 comes back 3 s later, sends the same bytes again and fetches the finals it
    lacks. Every party then holds the whole log and says so, so no bot leaves without knowing it."""
    with Cluster(tmp_path, rounds=ROUNDS, quiet_bots=False, no_rematch=True) as cluster:
        cluster.host_killed_after_own_final = True
        cluster.start()
        victim = cluster.peer_at(0)
        assert victim.wait(GAME_TIMEOUT) == -9, victim.tail()
        path = victim.log_path()
        assert path is not None
        last = read_entries(path)[-1]
        assert (last.kind, last.seat) == ("final", 0)
        time.sleep(3.0)
        cluster.restart_as_bot(victim)
        logs = _finish_and_check(cluster, [victim])
    assert victim.exits == [-9, 0]
    assert len(read_entries(logs[0])) > last.seq + 1


@pytest.mark.parametrize("host_abandons", [True, False], ids=["host-abandons", "host-never-abandons"])
def test_a_peer_killed_for_good_gets_the_game_closed_and_the_audit_names_it(
    tmp_path: Path, host_abandons: bool
) -> None:
    # Without --abandon-after on the host (seat 0, the first in line), seat 1 steps in a period later.
    closer = 0 if host_abandons else 1
    with Cluster(
        tmp_path, rounds=ROUNDS, abandon_after=2.0, quiet_bots=False, host_abandons=host_abandons
    ) as cluster:
        cluster.start()
        gone = cluster.peer_at(2)
        _, last = cluster.kill_when(gone, own_move, "its own move (mid-turn)", after_seq=30)
        survivors = [p for p in cluster.peers if p is not gone]
        for peer in survivors:
            assert peer.wait(120) == 0, peer.tail()
        logs = [p.log_path() for p in survivors]
        gone_log = gone.log_path()
    assert gone_log is not None and all(logs)
    data = {p.read_bytes() for p in logs if p}
    assert len(data) == 1, "the survivors' logs differ"
    survivors_log = logs[0]
    assert survivors_log is not None
    entries = read_entries(survivors_log)
    closing = entries[-1]
    # the lowest-numbered party still present and willing closed it with a signed entry once the
    # game could not go on without seat 2, which wrote nothing after its kill
    assert closing.kind == "abandon" and closing.seat == closer
    assert all(e.seat != 2 for e in entries[last.seq + 1 :])
    assert "seat 2" in closing.body["reason"]
    # nothing the gone peer had was rewritten: its log is the survivors' up to the abandon entry,
    # plus at most the one entry it had made durable but was killed before sending (then the
    # survivors' abandon and that entry both hold seq N: see the report's open points)
    mine = read_entries(gone_log)
    assert [e.envelope for e in mine[: closing.seq]] == [
        e.envelope for e in entries[: len(mine[: closing.seq])]
    ]
    assert len(mine) <= closing.seq + 1
    assert all(e.seat == 2 for e in mine[closing.seq :])

    audit = subprocess.run(
        [*FAIRDECK, "audit", str(survivors_log), str(gone_log)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    # the gone seat stopped: it is named (as stopped, not as a cheat), and nobody else is
    assert audit.returncode == 1, audit.stdout
    assert "VERDICT: 1 FAULT" in audit.stdout
    assert f"closed by seat {closer} (" in audit.stdout and "seat 2 (" in audit.stdout
    assert "stopped: it owed" in audit.stdout
    # the round's claims are uncheckable only if the kill left a round unfinished (moves made, cards
    # never disclosed); a kill on the move that ended a round leaves nothing unchecked
    table = replay_log(survivors_log).table
    since = max((i for i, e in enumerate(table.history) if e.kind == "disclosed"), default=-1)
    mid_round = isinstance(table.step.request, Disclose) or any(
        e.kind in ("move", "committed") for e in table.history[since + 1 :]
    )
    assert ("could not be checked" in audit.stdout) == mid_round, audit.stdout
    as_json = subprocess.run(
        [*FAIRDECK, "audit", "--json", str(survivors_log)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and report["verdict"] == "faults"
    assert [f["seat"] for f in report["faults"]] == [2]
    assert report["status"].startswith(f"closed by seat {closer}") and report["result"] is None


@pytest.mark.parametrize(
    "point",
    [own_commit_written, own_opening_owed],
    ids=["own-commit-written", "all-committed"],
)
def test_a_bot_killed_between_its_commitment_and_its_opening_opens_the_same_choice(
    tmp_path: Path, point: KillPoint
) -> None:
    # Rebel Princess has simultaneous secret choices (commit, then open). The choice lives in a
    # `.choice` file next to the log from the moment it is made, so a restarted peer can open it.
    with Cluster(tmp_path, game="rebelprincess", rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start()
        victim = cluster.peer_at(2)
        table, last = cluster.kill_when(victim, point, point.__name__)
        path = victim.log_path()
        assert path is not None and path.with_suffix(".choice").exists()
        time.sleep(0.5)
        victim.start()
        logs = _finish_and_check(cluster, [victim])
    entries = read_entries(logs[0])
    step_start = table.step.start_seq
    opened = [e for e in entries[step_start:] if e.kind == "open" and e.seat == 2]
    assert opened, "the victim never opened its commitment"


def test_a_peer_dead_after_its_commitment_went_out_ahead_opens_that_choice_when_back(tmp_path: Path) -> None:
    # A commitment of a concurrent step goes out as soon as it is made, before its place in the
    # writer's own log has come (docs/protocol.md §3.1). A peer that dies then comes back with a log
    # that lacks it, and must commit to and open the choice its `.choice` file kept. Before, it kept
    # that choice only if its own log held the commitment: it either asked its bot again (another
    # choice, so a second commitment signed for one place: exposed as an equivocator) or, when the
    # others' entries came first, never opened and the table waited until its deadline (found by
    # scripts/chaos.py).
    with Cluster(tmp_path, game="rebelprincess", rounds=ROUNDS, quiet_bots=False) as cluster:
        cluster.start(bots=2)
        crasher = cluster.start_dishonest("crasher")
        assert crasher.wait(GAME_TIMEOUT) == 9, crasher.tail()
        said = [line for _, line in crasher.lines() if line.startswith("crashing:")]
        assert said, crasher.tail()
        seq = int(said[0].split("entry ")[1].split()[0])
        path = crasher.log_path()
        assert path is not None and path.with_suffix(".choice").exists()
        assert len(read_entries(path)) <= seq, "the commitment was in the crasher's own log already"
        cluster.restart_as_bot(crasher)
        codes = cluster.wait_finished()
        assert codes == [0] * len(cluster.peers), "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()
        assert_one_log_audited_clean(logs, len(cluster.peers))
    entries = read_entries(logs[0])
    commitment = entries[seq]
    assert commitment.kind == "commit"
    opened = [e for e in entries[seq:] if e.kind == "open" and e.seat == commitment.seat]
    assert opened, "the crasher never opened its commitment"
