"""Red team, wave 2 session 21: dishonest logs of classes the other corpora do not hold, in all three
games (each table seats a witness too), audited by ``fairdeck audit`` on real files.

- **Two signed versions of one entry in one file.** A cheat signs two different entries for one
  place; whoever copies both into one log file (its own log with the other version appended, two
  logs pasted together) breaks the file's chain, but the file itself now proves the equivocation:
  the audit must name the signer at that entry (before, it said only that the log breaks and that no
  seat could be blamed). Nothing an outsider can do imitates it: a second version that is not
  signed by the place's writer, extends another ``prev``, or belongs to another game blames nobody.
- **A named pipe given as a log** must not hang the audit.
- **Cheats signed with a party's own key** not held elsewhere: a witness's bad shuffle proof and
  move out of turn, the awaited party's own close, an over-long close reason, a false accusation, a
  countersignature over another genesis, a genesis entry in the middle of a game.
- **Genesis entries the game refuses** (seat counts outside the game's range, a key shared by two
  parties, options the game refuses): unreadable, nobody named.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from p2p.log import make_entry, pack, parse_envelope
from p2p.memtable import seeded_identity
from p2p.protocol import PartyInfo, genesis_body, make_genesis
from replay.audit import audit_envelopes
from tests.replay.redteam_w21_support import (
    GAMES,
    cli_json,
    entries,
    forge,
    honest,
    named,
    parties,
    run_audit,
    witness,
    write_log,
)

# -- places in an honest log -------------------------------------------------------------------


def _move(game: str) -> int:
    """A sequential entry: a move well into the game."""
    return next(i for i, e in enumerate(entries(game)) if e.kind == "move" and i > 12)


def _member(game: str) -> int:
    """A member of a concurrent tokens step that carries tokens."""
    es = entries(game)
    return next(i for i in range(12, len(es)) if es[i].kind == "tokens" and es[i].body["tokens"])


def _other_version(game: str, k: int) -> bytes:
    """Another version of entry ``k``, signed by its own writer: the same place (seq, prev), another
    body (a move with one more key; tokens with another last byte)."""
    entry = entries(game)[k]
    if entry.kind == "move":
        body: dict[str, Any] = {**entry.body, "move": {**entry.body["move"], "again": 1}}
    else:
        body = {"tokens": [[r, t[:-1] + bytes([t[-1] ^ 1])] for r, t in entry.body["tokens"]]}
    return forge(honest(game)[k], body=body)


def _adjacent(game: str, k: int) -> list[bytes]:
    log = honest(game)
    return [*log[: k + 1], _other_version(game, k), *log[k + 1 :]]


def _appended(game: str, k: int) -> list[bytes]:
    return [*honest(game), _other_version(game, k)]


def _pasted(game: str, k: int) -> list[bytes]:
    """The other version's log pasted after the first log's part up to the place: the other
    version, then the honest entries that followed (which now follow nothing)."""
    log = honest(game)
    return [*log[: k + 1], _other_version(game, k), *log[k + 1 : k + 6]]


PLACEMENTS = {"right after it": _adjacent, "appended to the finished log": _appended, "pasted": _pasted}


# -- two signed versions of one entry in one file --------------------------------------------------


@pytest.mark.parametrize("where", sorted(PLACEMENTS))
@pytest.mark.parametrize("place", ["move", "concurrent member"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_two_signed_versions_of_one_entry_in_one_file_name_their_signer(
    game: str, place: str, where: str
) -> None:
    k = _move(game) if place == "move" else _member(game)
    signer = entries(game)[k].seat
    report = audit_envelopes(PLACEMENTS[where](game, k))
    assert report.exit_code == 1, report.text()
    assert [(f.seat, f.seq) for f in report.faults if f.seat is not None] == [(signer, k)], report.text()
    fault = next(f for f in report.faults if f.seat is not None)
    assert fault.reason == f"equivocation: signed two different entries for entry {k}"
    assert "both signed entries" in fault.evidence
    # the one line people read names the signer; the break of the chain is still said, on nobody
    assert report.headline().startswith(f"faults: {report.who(signer)}: equivocation"), report.headline()
    assert any(f.seat is None and "the log breaks" in f.reason for f in report.faults)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_fairdeck_audit_names_the_equivocator_of_one_file_in_text_and_json(game: str, tmp_path: Path) -> None:
    k = _move(game)
    signer = entries(game)[k].seat
    path = write_log(tmp_path / "both.fdlog", _appended(game, k))
    code, report = cli_json(path)
    assert code == 1 and report["verdict"] == "faults"
    assert named(report) == [(signer, k)], report
    text = run_audit(str(path))
    assert text.returncode == 1
    assert (
        f"seat {signer} (bot{signer}), entry {k}: equivocation: signed two different entries" in text.stdout
    )
    assert "this log holds both signed entries" in text.stdout


def test_a_rule_breaking_version_folded_first_names_its_signer_for_both() -> None:
    """The cheat's rule-breaking version sits at the place (kept as proof), its other version after
    it: both faults are the signer's, and nobody else is named."""
    game = "loveletter"
    k = _move(game)
    log = honest(game)
    report = audit_envelopes([*log[:k], _other_version(game, k), log[k], *log[k + 1 :]])
    signer = entries(game)[k].seat
    assert report.exit_code == 1
    assert {(f.seat, f.seq) for f in report.faults if f.seat is not None} == {(signer, k)}, report.text()
    assert any(f.reason.startswith("equivocation") for f in report.faults)


def _unsigned_version(game: str, k: int) -> bytes:
    """Another version of entry ``k`` signed by another party's key (an outsider's forgery)."""
    entry = entries(game)[k]
    other = (entry.seat + 1) % parties(game)
    return forge(honest(game)[k], signer=other, body={**entry.body, "x": 1})


def _another_prev(game: str, k: int) -> bytes:
    """Another entry for place ``k`` signed by its writer, extending another history (a fork: the
    writer may have followed another version of an entry before it)."""
    return forge(honest(game)[k], prev=hashlib.sha256(b"another history").digest())


def _another_game(game: str, k: int) -> bytes:
    """The writer's entry of another game (a rematch of the same players) for the same place."""
    return forge(honest(game)[k], game=b"R" * 16, body={**entries(game)[k].body, "x": 1})


NOT_A_SECOND_VERSION = {
    "signed by another key": _unsigned_version,
    "extending another prev": _another_prev,
    "of another game": _another_game,
}


@pytest.mark.parametrize("what", sorted(NOT_A_SECOND_VERSION))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_what_is_no_second_signed_version_in_one_file_blames_nobody(game: str, what: str) -> None:
    k = _move(game)
    report = audit_envelopes([*honest(game), NOT_A_SECOND_VERSION[what](game, k)])
    assert report.exit_code == 1, report.text()
    assert [f.seat for f in report.faults] == [None], report.text()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_log_pasted_after_itself_or_a_copied_tail_blames_nobody(game: str) -> None:
    log = honest(game)
    for edited in ([*log, *log], [*log, *log[5:40]], [*log[:30], *log[20:]]):
        report = audit_envelopes(edited)
        assert report.exit_code == 1
        assert [f.seat for f in report.faults] == [None], report.text()


# -- a named pipe given as a log -------------------------------------------------------------------


def test_a_named_pipe_given_as_a_log_is_unreadable_not_a_hang(tmp_path: Path) -> None:
    pipe = tmp_path / "game.fdlog"
    os.mkfifo(pipe)
    done = run_audit(str(pipe))  # (nobody ever writes to it: opening it used to wait for ever)
    assert done.returncode == 2, done.stdout
    assert "VERDICT: UNREADABLE" in done.stdout and "empty" in done.stdout


# -- cheats signed with a party's own key -----------------------------------------------------------


def _witness_bad_proof(game: str) -> tuple[list[bytes], int, int]:
    es, log, w = entries(game), honest(game), witness(game)
    k = next(i for i, e in enumerate(es) if e.kind == "shuffle" and e.seat == w)
    proof = es[k].body["proof"]
    return [*log[:k], forge(log[k], body={**es[k].body, "proof": proof[:-1] + bytes([proof[-1] ^ 1])})], w, k


def _witness_moves(game: str) -> tuple[list[bytes], int, int]:
    k, w = _move(game), witness(game)
    return [*honest(game)[:k], forge(honest(game)[k], seat=w)], w, k


def _awaited_closes(game: str) -> tuple[list[bytes], int, int]:
    k = _move(game)
    forged = forge(honest(game)[k], kind="abandon", body={"reason": "I am leaving"})
    return [*honest(game)[:k], forged], entries(game)[k].seat, k


def _long_close(game: str) -> tuple[list[bytes], int, int]:
    k = _move(game)
    closer = (entries(game)[k].seat + 1) % parties(game)
    forged = forge(honest(game)[k], seat=closer, kind="abandon", body={"reason": "x" * 201})
    return [*honest(game)[:k], forged], closer, k


def _false_accusation(game: str) -> tuple[list[bytes], int, int]:
    k = _move(game)
    body = {"seal_seq": 3, "ref": 0, "evidence": b"\x00" * 64}
    forged = forge(honest(game)[k], kind="accuse", body=body)
    return [*honest(game)[:k], forged], entries(game)[k].seat, k


def _countersign_other_genesis(game: str) -> tuple[list[bytes], int, int]:
    log = honest(game)
    return [log[0], forge(log[1], body={"genesis": hashlib.sha256(b"another genesis").digest()})], 1, 1


def _genesis_mid_game(game: str) -> tuple[list[bytes], int, int]:
    k = _move(game)
    forged = forge(honest(game)[k], kind="genesis", body=entries(game)[0].body)
    return [*honest(game)[:k], forged], entries(game)[k].seat, k


def _padded_move(game: str) -> tuple[list[bytes], int, int]:
    """A seat's own move with a field no rule reads (padding, a covert channel): not a move of the
    game, in every game alike."""
    es = entries(game)
    # not an answer to a power question (Rebel Princess always refused other fields in those)
    moves = (i for i in range(_move(game), len(es)) if es[i].kind == "move")
    k = next(i for i in moves if "use" not in es[i].body["move"])
    body = es[k].body
    forged = forge(honest(game)[k], body={**body, "move": {**body["move"], "zz": b"x" * 100}})
    return [*honest(game)[:k], forged], entries(game)[k].seat, k


CHEATS = {
    "a move padded with a field no rule reads": _padded_move,
    "a witness's shuffle whose proof does not hold": _witness_bad_proof,
    "a witness's move": _witness_moves,
    "the awaited party closes the game": _awaited_closes,
    "a close with an over-long reason": _long_close,
    "an accusation naming no sealed token": _false_accusation,
    "a countersignature over another genesis": _countersign_other_genesis,
    "a genesis entry in mid-game": _genesis_mid_game,
}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_cheat_signed_with_its_own_key_names_exactly_that_party(game: str, cheat: str) -> None:
    log, cheater, k = CHEATS[cheat](game)
    report = audit_envelopes(log)
    assert report.exit_code == 1, report.text()
    assert [(f.seat, f.seq) for f in report.faults] == [(cheater, k)], report.text()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_fairdeck_audit_names_a_cheating_witness_as_a_party(game: str, tmp_path: Path) -> None:
    log, cheater, k = _witness_bad_proof(game)
    path = write_log(tmp_path / "w.fdlog", log)
    code, report = cli_json(path)
    assert code == 1 and named(report) == [(cheater, k)]
    text = run_audit(str(path)).stdout
    assert f"party {cheater} (witness0, a witness), entry {k}: shuffle entry refused" in text


# -- genesis entries the game refuses ------------------------------------------------------------


def _genesis(game: str, seats: int, count: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    keys = [seeded_identity(f"g-{i}") for i in range(count)]
    infos = [PartyInfo(f"p{i}", k.public_key) for i, k in enumerate(keys)]
    return genesis_body(game, seats, infos, options)


REFUSED_GENESIS = {
    "loveletter": [(1, 1, None), (9, 9, None), (3, 3, {"first_player": 3}), (3, 3, {"edition": None})],
    "regicide": [(5, 5, None), (2, 2, {"first_player": True}), (2, 2, {"rounds": 3})],
    "rebelprincess": [(2, 2, None), (7, 7, None), (3, 3, {"rounds": 4}), (3, 3, {"edition": [1]})],
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_the_game_refuses_is_unreadable_and_names_nobody(game: str, tmp_path: Path) -> None:
    opener = seeded_identity("g-0")
    for index, (seats, count, options) in enumerate(REFUSED_GENESIS[game]):
        body = _genesis(game, seats, count, options)
        path = write_log(tmp_path / f"g{index}.fdlog", [make_genesis(opener, b"G" * 16, body)])
        code, report = cli_json(path)
        assert code == 2 and report["verdict"] == "unreadable", (seats, count, options, report)
        assert report["faults"] == [] and "not a valid genesis" in report["unreadable"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_seating_one_key_twice_is_unreadable(game: str) -> None:
    body = _genesis(game, GAMES[game][0], GAMES[game][0])
    body["parties"][1]["key"] = body["parties"][0]["key"]
    genesis = make_genesis(seeded_identity("g-0"), b"G" * 16, body)
    countersign = make_entry(seeded_identity("g-0"), b"G" * 16, 1, parse_envelope(genesis).hash, 1,
                             "countersign", {"genesis": parse_envelope(genesis).hash}).envelope  # fmt: skip
    report = audit_envelopes([genesis, countersign])
    assert report.exit_code == 2 and not report.faults
    assert "two parties share a key" in (report.unreadable or "")
    assert pack(report.as_dict()["faults"]) == pack([])


# -- two games under one id in one file -----------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_second_genesis_of_the_opener_under_the_same_id_in_one_file_names_the_opener(
    game: str, tmp_path: Path
) -> None:
    """The opener signed another game under this game's id (another deadline): the file holding
    both genesis entries proves the reused id, as two files do."""
    log = honest(game)
    other = forge(log[0], body={**entries(game)[0].body, "stall_after": 301})
    path = write_log(tmp_path / "two.fdlog", [*log, other, *log[1:4]])
    code, report = cli_json(path)
    assert code == 1 and named(report) == [(0, 0)], report
    assert report["faults"][0]["reason"].startswith("reused game id")
    assert report["headline"].startswith("faults: seat 0 (bot0): reused game id")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_under_the_same_id_signed_by_another_key_blames_nobody(game: str) -> None:
    log = honest(game)
    stranger = seeded_identity("stranger")
    body = {**entries(game)[0].body}
    body["parties"] = [{**body["parties"][0], "key": stranger.public_key}, *body["parties"][1:]]
    other = make_genesis(stranger, entries(game)[0].game, body)
    report = audit_envelopes([*log, other])
    assert report.exit_code == 1
    assert [f.seat for f in report.faults] == [None], report.text()
