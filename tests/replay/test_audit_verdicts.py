"""One verdict for every way a log can be, told the same everywhere, on real logs of real games:

- a trusted game cannot be audited: nobody is named, exit 3 — at the end of play, in ``fairdeck
  games``, in ``fairdeck audit`` and its ``--json``;
- several logs: whether they agree (identical, or one holds the other), are of different games, or
  part, in a comparison section and a stable ``--json`` shape;
- a log of only its genesis did not start, an unfinished one is clean *so far*, and the counts are
  worded true ("1 entry");
- ``fairdeck replay`` of a cut or damaged log says where, as the audit says it, and exits 1 (text and
  viewer alike);
- a flipped game id is not called a splice, a text file is "not a fairdeck log", and Rebel
  Princess's result is words, not Python lists.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from fairdeck.commands import _audit_line
from fairdeck.games import recorded_verdict
from fairdeck.viewer import Viewer, run_viewer
from p2p.log import parse_envelope
from p2p.memtable import build_table
from replay.audit import NOTHING_PROVED, audit_path
from replay.replay import replay_log
from tests.p2p.protocol_support import identity_of, resign

SEED = 31


def _cli(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = None
    if home is not None:
        import os

        env = {**os.environ, "FAIRDECK_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "fairdeck", *args], capture_output=True, text=True, timeout=300, env=env
    )


@pytest.fixture(scope="module")
def fair_log() -> list[bytes]:
    table = build_table("loveletter", 3, seed=SEED)
    table.run()
    assert table.parties[0].table.ended == "over"
    return table.logs[0]


@pytest.fixture(scope="module")
def trusted_log() -> list[bytes]:
    table = build_table("loveletter", 3, seed=SEED, mode="trusted")
    table.run()
    assert table.parties[0].table.ended == "over"
    return table.logs[0]


def _write(path: Path, envelopes: list[bytes]) -> Path:
    path.write_bytes(b"".join(envelopes))
    return path


# -- 1. a trusted game cannot be audited, and names nobody ------------------------------------------


def test_a_trusted_game_is_not_auditable_and_names_nobody_everywhere(
    trusted_log: list[bytes], tmp_path: Path
) -> None:
    path = _write(tmp_path / "trusted.fdlog", trusted_log)
    report = audit_path(path)
    assert report.faults == [] and report.exit_code == NOTHING_PROVED == 3
    assert report.verdict == "not auditable"
    verdict = [line for line in report.text().splitlines() if line.startswith("VERDICT")]
    assert len(verdict) == 1 and verdict[0].startswith("VERDICT: NOT AUDITABLE — a trusted game")
    assert "nothing about the deal was proved" in verdict[0] and "nobody is named" in verdict[0]
    assert "seat 0 (" not in verdict[0] and "FAULT" not in report.text()
    # the end of play prints the headline it records for `fairdeck games`
    text, code = _audit_line(path)
    assert code == 3 and text.splitlines()[-1] == f"audit: {report.headline()}"
    assert recorded_verdict(path) == report.headline()
    assert report.headline().startswith("not auditable: a trusted game")
    # `fairdeck audit` and its --json say the same, with exit 3
    done = _cli("audit", str(path))
    assert done.returncode == 3 and "VERDICT: NOT AUDITABLE" in done.stdout, done.stdout
    as_json = json.loads(_cli("audit", "--json", str(path)).stdout)
    assert as_json["verdict"] == "not auditable" and as_json["faults"] == []
    assert as_json["headline"] == report.headline() and as_json["exit_code"] == 3


def test_the_games_list_shows_the_same_verdict_for_a_trusted_game(
    trusted_log: list[bytes], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / "games").mkdir(parents=True)
    path = _write(home / "games" / "trusted.fdlog", trusted_log)
    done = _cli("games", "audit", "1", home=home)
    assert done.returncode == 3 and "VERDICT: NOT AUDITABLE" in done.stdout, done.stdout + done.stderr
    listed = _cli("games", "list", home=home).stdout
    assert f"audit: {audit_path(path).headline()}" in listed, listed


def test_a_rule_broken_in_a_trusted_game_is_held_against_nobody(
    trusted_log: list[bytes], tmp_path: Path
) -> None:
    """The dealer announced every card, so even a signed entry that breaks a rule proves nothing
    against its writer: reported where it is, with nobody named."""
    log = list(trusted_log)
    k = next(i for i, e in enumerate(map(parse_envelope, log)) if e.kind == "move" and e.seat != 0)
    entry = parse_envelope(log[k])
    intruder = (entry.seat + 1) % 3
    forged = resign(identity_of(SEED, intruder), log[k], seat=intruder)
    from replay.audit import audit_envelopes

    report = audit_envelopes([*log[:k], forged])
    assert report.exit_code == 1 and report.faults, report.text()
    assert all(f.seat is None for f in report.faults), report.text()
    assert "the audit holds nothing in it against a seat" in report.faults[0].reason
    assert "a trusted game" in report.text()
    # the replay stops there in the very same words, naming nobody either
    path = _write(tmp_path / "forged.fdlog", [*log[:k], forged])
    done = _cli("replay", "--text", str(path))
    fault = report.faults[0]
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == f"replay stopped at entry {fault.seq}: {fault.reason}"


# -- 2. several logs: agree, different games, part ---------------------------------------------------


def test_logs_that_agree_are_said_to_agree(fair_log: list[bytes], tmp_path: Path) -> None:
    whole = _write(tmp_path / "whole.fdlog", fair_log)
    copy = _write(tmp_path / "copy.fdlog", fair_log)
    part = _write(tmp_path / "part.fdlog", fair_log[:120])
    done = _cli("audit", str(part), str(whole), str(copy))
    assert done.returncode == 0, done.stdout
    more = len(fair_log) - 120
    assert f"{part} and {whole} agree: {whole} holds {part}'s 120 entries and {more} more" in done.stdout
    assert f"{whole} and {copy} agree: they are identical ({len(fair_log)} entries each)" in done.stdout
    assert "COMPARISON: THE LOGS AGREE" in done.stdout
    out = json.loads(_cli("audit", "--json", str(part), str(whole)).stdout)
    assert set(out) == {"logs", "comparison", "verdict", "exit_code"}
    assert [r["log"] for r in out["logs"]] == [str(part), str(whole)]
    assert out["comparison"]["agree"] is True and out["comparison"]["faults"] == []
    (pair,) = out["comparison"]["pairs"]
    assert pair["relation"] == "prefix" and pair["common"] == 120 and pair["entries"] == [120, len(fair_log)]
    assert out["verdict"] == "clean" and out["exit_code"] == 0
    # one log keeps its one-object shape
    single = json.loads(_cli("audit", "--json", str(whole)).stdout)
    assert single["log"] == str(whole) and single["verdict"] == "clean"


def test_logs_of_different_games_are_flagged_and_not_compared(
    fair_log: list[bytes], trusted_log: list[bytes], tmp_path: Path
) -> None:
    other = build_table("loveletter", 3, seed=SEED + 1)
    other.run()
    a = _write(tmp_path / "a.fdlog", fair_log)
    b = _write(tmp_path / "b.fdlog", other.logs[0])
    done = _cli("audit", str(a), str(b))
    assert f"{a} and {b} are logs of different games: not compared" in done.stdout
    assert "COMPARISON: NOTHING COMPARED" in done.stdout and done.returncode == 0
    out = json.loads(_cli("audit", "--json", str(a), str(b)).stdout)
    assert out["comparison"]["pairs"][0]["relation"] == "different games"
    assert out["comparison"]["agree"] is False
    # a trusted log beside a clean one: the worst that is no fault is "nothing proved"
    t = _write(tmp_path / "t.fdlog", trusted_log)
    assert _cli("audit", str(b), str(t)).returncode == 3  # (a and t share a game id: a reused id)


def test_an_equivocation_between_two_logs_is_in_the_comparison(fair_log: list[bytes], tmp_path: Path) -> None:
    log = list(fair_log)
    k = next(i for i in range(len(log) // 2, len(log)) if parse_envelope(log[i]).kind == "move")
    entry = parse_envelope(log[k])
    doctored = [*log[:k], resign(identity_of(SEED, entry.seat), log[k], body={"move": {"x": 1}})]
    real = _write(tmp_path / "real.fdlog", log)
    fake = _write(tmp_path / "fake.fdlog", doctored)
    done = _cli("audit", str(real), str(fake))
    assert done.returncode == 1
    section = done.stdout.split("comparison of the 2 logs:")[1]
    assert f"{real} and {fake} hold the same first {k} entries and part at entry {k}" in section
    assert "COMPARISON: 1 FAULT" in section
    assert f"seat {entry.seat} (bot{entry.seat}), entry {k}: equivocation" in section
    out = json.loads(_cli("audit", "--json", str(real), str(fake)).stdout)
    assert [(f["seat"], f["entry"]) for f in out["comparison"]["faults"]] == [(entry.seat, k)]
    assert out["exit_code"] == 1 and out["verdict"] == "faults"


# -- 3. a game that never started; an unfinished one ----------------------------------------------


def test_a_log_of_only_its_genesis_did_not_start(fair_log: list[bytes], tmp_path: Path) -> None:
    path = _write(tmp_path / "genesis.fdlog", fair_log[:1])
    report = audit_path(path)
    text = report.text()
    assert "1 entry verified" in text and "1 entries" not in text
    assert "genesis signed by the opener (not countersigned)" in text and "genesis countersigned" not in text
    assert "VERDICT: NOT STARTED — the game never started" in text and "CLEAN" not in text
    assert report.exit_code == 3 and report.verdict == "not started" and report.faults == []
    # one countersignature of two: still not started
    half = audit_path(_write(tmp_path / "half.fdlog", fair_log[:2]))
    assert "countersigned by 1 of the 2 other parties" in half.text() and half.verdict == "not started"


def test_an_unfinished_log_is_clean_so_far_not_clean(fair_log: list[bytes], tmp_path: Path) -> None:
    path = _write(tmp_path / "unfinished.fdlog", fair_log[:100])
    report = audit_path(path)
    assert report.exit_code == 0 and report.verdict == "clean"
    assert "VERDICT: CLEAN SO FAR — the game is unfinished" in report.text()
    assert report.headline().startswith("clean so far: the game is unfinished (100 entries verified)")
    assert report.as_dict()["finished"] is False
    finished = audit_path(_write(tmp_path / "whole.fdlog", fair_log))
    assert finished.headline() == "clean" and finished.as_dict()["finished"] is True


# -- 4. replay of a damaged log says where, as the audit does, and exits 1 ------------------------


def _damaged(log: list[bytes]) -> dict[str, bytes]:
    data = b"".join(log)
    flipped = bytearray(log[60])
    flipped[-1] ^= 0x01  # the signature
    spliced_from = build_table("loveletter", 3, seed=SEED + 1)
    spliced_from.run()
    return {
        "cut": data[: len(b"".join(log[:50])) + 7],
        "duplicated": b"".join([*log[:50], log[49], *log[50:]]),
        "flipped": b"".join([*log[:60], bytes(flipped), *log[61:]]),
        "spliced": b"".join([*log[:40], spliced_from.logs[0][40], *log[41:]]),
        "appended": b"".join([*log, log[-1]]),
    }


def test_replay_of_a_damaged_log_says_where_as_the_audit_does_and_exits_one(
    fair_log: list[bytes], tmp_path: Path
) -> None:
    for what, data in _damaged(fair_log).items():
        path = tmp_path / f"{what}.fdlog"
        path.write_bytes(data)
        fault = audit_path(path).faults[0]
        done = _cli("replay", "--text", str(path))
        assert done.returncode == 1, (what, done.stdout[-500:], done.stderr)
        last = done.stdout.rstrip("\n").splitlines()[-1]
        assert last == f"replay stopped at entry {fault.seq}: {fault.reason}", (what, last, fault)
    clean = _write(tmp_path / "clean.fdlog", fair_log)
    assert _cli("replay", "--text", str(clean)).returncode == 0
    # the duplicated entry is numbered by its place, as the audit numbers it (not by the seq it carries)
    assert replay_log(tmp_path / "duplicated.fdlog").stopped_seq == 50


def test_the_viewer_shows_a_cut_log_and_exits_one(fair_log: list[bytes], tmp_path: Path) -> None:
    path = tmp_path / "cut.fdlog"
    path.write_bytes(_damaged(fair_log)["cut"])
    replay = replay_log(path)
    reason = audit_path(path).faults[0].reason
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = Viewer(replay, path, audit=lambda p: None)
        viewer.step(10_000)
        from fairdeck.console import screen_text

        text = " ".join(screen_text(viewer.app).split())
    assert "damaged log" in text and f"replay stopped at entry 50: {reason}" in text
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        keys.send_text("q")
        assert run_viewer(replay, path) == 1
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        keys.send_text("q")
        assert (
            run_viewer(replay_log(_write(tmp_path / "whole.fdlog", fair_log)), tmp_path / "whole.fdlog") == 0
        )


# -- 5. words: a flipped game id, a text file, Rebel Princess's result ------------------------------


def test_a_flipped_game_id_is_not_called_a_splice(fair_log: list[bytes]) -> None:
    from replay.audit import audit_envelopes

    log = list(fair_log)
    k = 30
    entry = parse_envelope(log[k])
    damaged = bytearray(log[k])
    at = bytes(damaged).index(entry.game)
    damaged[at] ^= 0x01
    report = audit_envelopes([*log[:k], bytes(damaged), *log[k + 1 :]])
    (fault,) = report.faults
    assert fault.seat is None and fault.seq == k
    assert "does not belong to this game: altered, or spliced in from another game" in fault.reason


def test_a_text_file_is_not_a_fairdeck_log(tmp_path: Path) -> None:
    path = tmp_path / "notes.fdlog"
    path.write_text("my notes\nabout the game\n")
    done = _cli("audit", str(path))
    assert done.returncode == 2 and "not a fairdeck log (it is a text file" in done.stdout
    assert "msgpack" not in done.stdout
    replayed = _cli("replay", "--text", str(path))
    assert replayed.returncode == 2 and "not a fairdeck log" in replayed.stderr


@pytest.mark.parametrize("seats", [3, 4])
def test_rebel_princess_results_are_words(seats: int) -> None:
    from replay.audit import audit_envelopes

    table = build_table("rebelprincess", seats, seed=SEED, options={"rounds": 3}, levels=["random"] * seats)
    table.run()
    report = audit_envelopes(table.logs[0])
    lines = report.text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  result: "))
    # a long result is printed a part a line, each under the first
    block = [lines[start], *(line for line in lines[start + 1 :] if line.startswith(" " * 10))]
    assert len(block) > 3 and all(len(line) < 200 for line in block), block
    result = "; ".join(block)
    assert "[" not in result and "'" not in result, result
    state = table.parties[0].table.state
    first = state.scores[0]
    assert "round 1 scores: " + ", ".join(f"seat {s} (bot{s}) {v:+d}" for s, v in enumerate(first)) in result
    from engine.rebelprincess.rounds import BY_LETTER

    assert f"round cards: round 1 {BY_LETTER[state.round_letters[0]].name}, round 2 " in result
    assert "princesses: seat 0 (bot0) " in result


def test_a_witness_is_named_as_a_party_not_a_seat() -> None:
    """A witness deals and signs but holds no seat: the audit says ``party 1 (w, a witness)``."""
    from replay.audit import Report

    report = Report("x.fdlog", names=["ann", "w (witness)"])
    assert report.who(0) == "seat 0 (ann)"
    assert report.who(1) == "party 1 (w, a witness)"
    assert report.who(None) == "no seat can be blamed"


def test_a_verdict_line_cut_short_says_where_to_read_it_whole() -> None:
    # newcomer trial 6: the line printed at a game's end ended "...the unfinished round's cards we…"
    from replay.audit import CUT_WORDS, Fault, Report

    long = "the table closed before the unfinished round's cards were shown, " * 4
    report = Report("game.fdlog", faults=[Fault(2, 40, long)], names=["ann", "bob", "cy"])
    line = report.headline()
    assert line.startswith("faults: seat 2 (cy): the table closed") and line.endswith(CUT_WORDS)
    short = Report("game.fdlog", faults=[Fault(2, 40, "a short reason")], names=["ann", "bob", "cy"])
    assert short.headline() == "faults: seat 2 (cy): a short reason"
    unreadable = Report("x.fdlog", unreadable="not a fairdeck log " * 20)
    assert unreadable.headline().endswith(CUT_WORDS)
