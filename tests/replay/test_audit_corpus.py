"""A corpus of dishonest logs, each with the verdict the audit must give.

Two kinds of dishonesty:

- **An outsider edits a file** (deletes, duplicates, swaps or splices entries, appends, flips a
  byte, drops a countersignature, cuts the tail). Nobody at the table signed the result, so no seat
  may be blamed: the audit must say where the log breaks and that no seat can be blamed.
- **A cheater signs with its own key** (a bad shuffle, a wrong token, an illegal or padded entry, an
  out-of-turn entry, a lie about its cards, a poisoned committed choice, two versions of one entry,
  a rewritten genesis, a withheld disclosure). Its own signatures prove it, and the audit must name
  exactly that seat (and entry) and never an honest one.

Each case runs across the three games where it applies; honest-but-odd games must audit clean.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.core import Disclose
from p2p.log import FILE_MAGIC, LogWriter, pack, parse_envelope, read_log
from p2p.memtable import MemoryTable, build_table
from p2p.protocol import Rejected, Table, make_genesis
from replay.audit import audit_envelopes, audit_path, compare_logs
from tests.p2p.protocol_support import LyingBot, identity_of, resign, run_with_liar

GAMES = {
    "loveletter": {"seats": 3, "options": None},
    "regicide": {"seats": 2, "options": None},
    "rebelprincess": {"seats": 3, "options": {"rounds": 3}},
}
SEED = 21
NOBODY = None


@functools.cache
def honest(game: str, seed: int = SEED) -> tuple[bytes, ...]:
    """An honest fair game's log (seat 0's copy)."""
    spec = GAMES[game]
    table = build_table(game, spec["seats"], seed=seed, options=spec["options"])
    table.run()
    assert table.parties[0].table.ended == "over"
    return tuple(table.logs[0])


def _writer(envelope: bytes) -> int:
    return parse_envelope(envelope).seat


def _mid(log: tuple[bytes, ...]) -> int:
    return len(log) // 2


def _blamed(log: list[bytes]) -> list[int | None]:
    report = audit_envelopes(log)
    assert report.exit_code == 1, report.text()
    return [f.seat for f in report.faults]


# -- an outsider edits the file: nobody can be blamed -------------------------------------------


def _delete(log: tuple[bytes, ...]) -> list[bytes]:
    k = _mid(log)
    return [*log[:k], *log[k + 1 :]]


def _duplicate(log: tuple[bytes, ...]) -> list[bytes]:
    k = _mid(log)
    return [*log[: k + 1], log[k], *log[k + 1 :]]


def _swap(log: tuple[bytes, ...]) -> list[bytes]:
    k = _mid(log)
    return [*log[:k], log[k + 1], log[k], *log[k + 2 :]]


def _append_after_end(log: tuple[bytes, ...]) -> list[bytes]:
    return [*log, log[-1]]


def _drop_countersignature(log: tuple[bytes, ...]) -> list[bytes]:
    return [log[0], *log[2:]]


def _flip_signature(log: tuple[bytes, ...]) -> list[bytes]:
    k = _mid(log)
    damaged = bytearray(log[k])
    damaged[-1] ^= 0x01
    return [*log[:k], bytes(damaged), *log[k + 1 :]]


def _flip_body(log: tuple[bytes, ...]) -> list[bytes]:
    k = _mid(log)
    damaged = bytearray(log[k])
    damaged[len(damaged) // 2] ^= 0x40
    return [*log[:k], bytes(damaged), *log[k + 1 :]]


OUTSIDER_EDITS: dict[str, Callable[[tuple[bytes, ...]], list[bytes]]] = {
    "delete an entry": _delete,
    "duplicate an entry": _duplicate,
    "swap two entries": _swap,
    "append after the end": _append_after_end,
    "drop a countersignature": _drop_countersignature,
    "flip a signature bit": _flip_signature,
    "flip a body bit": _flip_body,
}


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("edit", sorted(OUTSIDER_EDITS))
def test_an_outsiders_edit_blames_no_seat(game: str, edit: str) -> None:
    log = OUTSIDER_EDITS[edit](honest(game))
    report = audit_envelopes(log)
    assert report.exit_code in (1, 2), report.text()
    assert all(f.seat is None for f in report.faults), report.text()
    if report.exit_code == 1:
        assert "no seat can be blamed" in report.text()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_entry_spliced_in_from_another_game_blames_no_seat(game: str) -> None:
    log, other = honest(game), honest(game, SEED + 1)
    k = min(_mid(log), len(other) - 1)
    spliced = [*log[:k], other[k], *log[k + 1 :]]
    assert [f.seat for f in audit_envelopes(spliced).faults] == [NOBODY]
    assert "another game" in audit_envelopes(spliced).faults[0].reason


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_entry_of_a_rematch_spliced_into_a_copy_frames_nobody_beside_the_real_log(
    tmp_path: Path, game: str
) -> None:
    """A rematch seats the same keys under another game id. An outsider who puts the rematch's entry
    for some place into a copy of the first game's log holds two entries signed by one seat for
    one seq — of two games, so no second version of this place: comparing the copy with the real
    log must blame nobody (it named the seat for equivocation)."""
    spec = GAMES[game]
    rematch = build_table(game, spec["seats"], seed=SEED, options=spec["options"], game_id=bytes(range(16)))
    rematch.run()
    log, other = honest(game), rematch.logs[0]
    real, copy = tmp_path / "real.fdlog", tmp_path / "copy.fdlog"
    real.write_bytes(b"".join(log))
    same_writer = [k for k in range(1, min(len(log), len(other))) if _writer(log[k]) == _writer(other[k])]
    for k in (same_writer[0], same_writer[len(same_writer) // 2], same_writer[-1]):
        copy.write_bytes(b"".join([*log[:k], other[k], *log[k + 1 :]]))
        assert compare_logs([real, copy], [audit_path(real), audit_path(copy)]) == [], k
        assert [f.seat for f in audit_path(copy).faults] == [NOBODY]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_cut_tail_blames_no_seat(tmp_path: Path, game: str) -> None:
    path = tmp_path / "cut.fdlog"
    data = b"".join(honest(game))
    path.write_bytes(data[: len(data) - 7])
    report = audit_path(path)
    assert report.exit_code == 1 and all(f.seat is None for f in report.faults), report.text()


# -- a cheater signs with its own key ---------------------------------------------------------------


def _resigned_entry_log(game: str) -> tuple[list[bytes], int, int]:
    """A seat re-signs one of its own entries (a different body) and keeps the rest of the log."""
    log = list(honest(game))
    k = next(
        i for i in range(_mid(log), len(log)) if parse_envelope(log[i]).kind in ("tokens", "move", "open")
    )
    entry = parse_envelope(log[k])
    changed = dict(entry.body)
    if entry.kind == "move":
        changed = {"move": {**entry.body["move"], "note": 1}}
    elif entry.kind == "open":
        changed = {**entry.body, "nonce": bytes(32)}
    else:
        changed = {"tokens": list(reversed(entry.body["tokens"])) + [[0, b"x"]]}
    log[k] = resign(identity_of(SEED, entry.seat), log[k], body=changed)
    return log, entry.seat, k


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_seat_that_re_signs_its_own_entry_cannot_frame_the_next_writer(tmp_path: Path, game: str) -> None:
    doctored, cheat, k = _resigned_entry_log(game)
    report = audit_envelopes(doctored)
    # the doctored entry itself breaks a rule (it is the cheat's own signed word) or, if it were
    # valid, the next writer's entry no longer extends it: either way no honest seat is named
    assert all(seat in (cheat, NOBODY) for seat in (f.seat for f in report.faults)), report.text()
    assert report.exit_code == 1
    # with the real log alongside, the two signed versions name the cheat
    real, fake = tmp_path / "real.fdlog", tmp_path / "fake.fdlog"
    real.write_bytes(b"".join(honest(game)))
    fake.write_bytes(b"".join(doctored))
    faults = compare_logs([real, fake], [audit_path(real), audit_path(fake)])
    assert [(f.seat, f.seq) for f in faults] == [(cheat, k)] and "equivocation" in faults[0].reason


def _rewritten_genesis(game: str, **changes: Any) -> list[bytes]:
    log = list(honest(game))
    entry = parse_envelope(log[0])
    body = {**entry.body, **changes}
    log[0] = make_genesis(identity_of(SEED, 0), entry.game, body)
    return log


@pytest.mark.parametrize(
    ("what", "changes"),
    [
        ("a trusted log relabelled fair", {"mode": "trusted"}),
        ("a seat's key swapped", {"parties": "swap"}),
        ("another deadline", {"stall_after": 9}),
    ],
)
def test_an_opener_that_rewrites_the_genesis_frames_nobody_and_is_named_beside_the_real_log(
    tmp_path: Path, what: str, changes: dict[str, Any]
) -> None:
    game = "loveletter"
    if changes.get("parties") == "swap":
        parties = list(parse_envelope(honest(game)[0]).body["parties"])
        parties[1] = {**parties[1], "key": identity_of(999, 1).public_key}
        changes = {"parties": parties}
    doctored = _rewritten_genesis(game, **changes)
    report = audit_envelopes(doctored)
    assert report.exit_code == 1
    assert 1 not in [f.seat for f in report.faults] and 2 not in [f.seat for f in report.faults], (
        report.text()
    )
    real, fake = tmp_path / "real.fdlog", tmp_path / "fake.fdlog"
    real.write_bytes(b"".join(honest(game)))
    fake.write_bytes(b"".join(doctored))
    faults = compare_logs([real, fake], [audit_path(real), audit_path(fake)])
    assert [(f.seat, f.seq) for f in faults] == [(0, 0)] and "reused game id" in faults[0].reason


def test_a_genesis_whose_party_carries_an_unknown_field_is_no_genesis() -> None:
    """docs/protocol.md §3: a party in the genesis is {name, key, curve, fresh}, no other keys
    (one the parties did not all agree on could carry anything)."""
    parties = list(parse_envelope(honest("loveletter")[0]).body["parties"])
    parties[2] = {**parties[2], "role": "dealer"}
    report = audit_envelopes(_rewritten_genesis("loveletter", parties=parties))
    assert report.unreadable is not None and "unknown fields ['role']" in report.unreadable
    assert report.faults == []


def test_every_pair_of_logs_is_compared(tmp_path: Path) -> None:
    """The equivocation sits between the 2nd and 3rd logs; the 1st is short and says nothing."""
    game = "loveletter"
    doctored, cheat, k = _resigned_entry_log(game)
    short, real, fake = tmp_path / "short.fdlog", tmp_path / "real.fdlog", tmp_path / "fake.fdlog"
    short.write_bytes(b"".join(honest(game)[: k - 1]))
    real.write_bytes(b"".join(honest(game)))
    fake.write_bytes(b"".join(doctored))
    paths = [short, real, fake]
    faults = compare_logs(paths, [audit_path(p) for p in paths])
    assert [(f.seat, f.seq) for f in faults] == [(cheat, k)]


def _tampered(
    game: str, kind: str, change: Callable[[Any, int], dict[str, Any]], seed: int = SEED
) -> tuple[MemoryTable, int, int]:
    """A game where the first ``kind`` entry of some seat is replaced by one it signs itself."""
    spec = GAMES[game]
    caught: list[tuple[int, int]] = []

    def tamper(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if entry.kind == kind and not caught:
            caught.append((sender, entry.seq))
            return resign(identity_of(seed, sender), envelope, body=change(entry, sender))
        return envelope

    table = build_table(game, spec["seats"], seed=seed, options=spec["options"], tamper=tamper)
    table.run()
    assert caught
    return table, caught[0][0], caught[0][1]


CHEATS: dict[str, tuple[str, Callable[[Any, int], dict[str, Any]]]] = {
    "a shuffle with a duplicated card": (
        "shuffle",
        lambda e, _s: {**e.body, "pile": [e.body["pile"][1], *e.body["pile"][1:]]},
    ),
    "a shuffle with a forged proof": (
        "shuffle",
        lambda e, _s: {**e.body, "proof": e.body["proof"][:-1] + b"\0"},
    ),
    "tokens for the wrong refs": (
        "tokens",
        lambda e, _s: {"tokens": [[999, t] for _r, t in e.body["tokens"]]},
    ),
    "a padded body": ("tokens", lambda e, _s: {**e.body, "pad": b"x" * 50}),
    "a commitment that is not 32 bytes": ("commit", lambda e, _s: {"digest": b"short"}),
    "an opening that does not match": ("open", lambda e, _s: {**e.body, "nonce": bytes(32)}),
    "a final entry with another result": ("final", lambda e, _s: {"result": {"winners": [42]}}),
}


NO_COMMITMENTS = {"regicide"}  # a game with no joint random draw and no simultaneous choice


@pytest.mark.parametrize(
    ("game", "cheat"),
    [
        (game, cheat)
        for game in sorted(GAMES)
        for cheat in sorted(CHEATS)
        if not (game in NO_COMMITMENTS and CHEATS[cheat][0] in ("commit", "open"))
    ],
)
def test_a_cheat_signed_with_its_own_key_names_exactly_that_seat(game: str, cheat: str) -> None:
    kind, change = CHEATS[cheat]
    table, seat, seq = _tampered(game, kind, change)
    for honest_seat in range(len(table.parties)):
        if honest_seat == seat:
            continue
        report = audit_envelopes(table.logs[honest_seat])
        assert [(f.seat, f.seq) for f in report.faults] == [(seat, seq)], report.text()


def test_an_out_of_turn_entry_names_its_signer() -> None:
    log = list(honest("loveletter"))
    k = _mid(log)
    entry = parse_envelope(log[k])
    intruder = (entry.seat + 1) % 3
    forged = resign(identity_of(SEED, intruder), log[k], seat=intruder)
    assert [(f.seat, f.seq) for f in audit_envelopes([*log[:k], forged]).faults] == [(intruder, k)]


def test_an_oversized_entry_names_its_signer() -> None:
    log = list(honest("loveletter"))
    k = next(i for i, e in enumerate(map(parse_envelope, log)) if e.kind == "move")
    entry = parse_envelope(log[k])
    padded = resign(
        identity_of(SEED, entry.seat), log[k], body={"move": {**entry.body["move"], "p": "x" * 9000}}
    )
    report = audit_envelopes([*log[:k], padded])
    assert [(f.seat, f.seq) for f in report.faults] == [(entry.seat, k)] and "budget" in report.faults[
        0
    ].reason


def _lie_then_withhold(seed: int, liar: int) -> tuple[MemoryTable, list[int]]:
    """A game in which ``liar`` flips its first Guard answer, then withholds its disclosure tokens."""
    withheld: list[int] = []
    table = build_table("loveletter", 3, seed=seed)
    bot = LyingBot(table.bots[liar], "guard_answer", lambda g, st, se, f, h: {"hit": not h["hit"]})
    table.bots[liar] = bot

    def tamper(sender: int, envelope: bytes) -> bytes | None:
        entry = parse_envelope(envelope)
        request = table.parties[(liar + 1) % 3].table.step.request
        if sender == liar and bot.lies and entry.kind == "tokens" and isinstance(request, Disclose):
            withheld.append(entry.seq)
            return None
        return envelope

    table.tamper = tamper
    table.run()
    return table, withheld


def test_a_lie_followed_by_a_withheld_disclosure_names_the_withholder() -> None:
    """The liar answers a Guard falsely, then refuses to write its disclosure tokens: an honest
    party closes the game after the deadline, and the audit names the liar as the one who stopped,
    with the round's claims unchecked (never CLEAN)."""
    liar = 1
    table, withheld = next((t, w) for t, w in (_lie_then_withhold(seed, liar) for seed in range(60)) if w)
    assert withheld
    closer = 0 if table.parties[0].table.expected() != (0, "tokens") else 2
    assert table.parties[closer].table.expected()[0] == liar
    table.close_stalled(closer, "seat 1 wrote nothing")
    report = audit_envelopes(table.logs[2 if closer == 0 else 0])
    # the liar, and only the liar, is named: for stopping (and for the lie itself, if the cards
    # that were public by then already disproved it)
    assert {f.seat for f in report.faults} == {liar}, report.text()
    assert any("claims could not be checked" in f.reason for f in report.faults)
    assert "CLEAN" not in report.text()


def test_a_claim_lie_is_cited_at_the_liars_own_entry() -> None:
    from tests.p2p.test_protocol_games import _false_void

    table, _bot = run_with_liar(3, 1, "play", _false_void, game="rebelprincess")
    report = audit_envelopes(table.logs[0])
    faults = [f for f in report.faults if f.seat is not None]
    assert faults and all(f.seat == 1 for f in faults), report.text()
    for fault in faults:
        assert parse_envelope(table.logs[0][fault.seq]).seat == 1
    # the game was played to its end, but its result is not called confirmed beside a proven cheat
    assert report.status.startswith("finished, but seat 1 (bot1) broke the rules"), report.status


@pytest.mark.parametrize(
    ("game", "seats", "witnesses"),
    [
        ("loveletter", 2, 0),
        ("loveletter", 4, 0),
        ("regicide", 1, 0),
        ("regicide", 1, 1),
        ("regicide", 4, 0),
        ("rebelprincess", 4, 0),
    ],
)
def test_honest_but_odd_games_audit_clean(game: str, seats: int, witnesses: int) -> None:
    options = {"rounds": 3} if game == "rebelprincess" else None
    table = build_table(game, seats, seed=5, witnesses=witnesses, options=options, levels=["random"] * seats)
    table.run()
    assert table.parties[0].table.ended == "over"
    report = audit_envelopes(table.logs[-1])
    assert report.exit_code == 0, report.text()
    assert pack(report.as_dict()["faults"]) == pack([])


def test_a_close_the_table_did_not_take_is_disputed_beside_the_log_that_went_on(tmp_path: Path) -> None:
    """A seat closes the game naming the awaited seat, which did write (the others refused the close
    and went on: ``docs/protocol.md`` §6). Alone, the closer's log names the awaited seat — one log
    cannot tell a lie about a stall from a real one; beside the log that went on, the audit says the
    table did not take the close, and blames nobody for it."""
    log = list(honest("loveletter"))
    k = next(i for i in range(_mid(log), len(log)) if parse_envelope(log[i]).kind == "move")
    awaited = parse_envelope(log[k]).seat
    closer = (awaited + 1) % 3
    lie = resign(
        identity_of(SEED, closer), log[k], seat=closer, kind="abandon", body={"reason": "it stalled"}
    )
    closed, went_on, ends = tmp_path / "closed.fdlog", tmp_path / "went-on.fdlog", tmp_path / "ends.fdlog"
    closed.write_bytes(b"".join([*log[:k], lie]))
    went_on.write_bytes(b"".join(log))
    ends.write_bytes(b"".join(log[: k + 1]))  # the awaited entry, and nothing after it
    alone = audit_path(closed)
    assert [(f.seat, f.seq) for f in alone.faults] == [(awaited, k)] and "stopped" in alone.faults[0].reason
    faults = compare_logs([closed, went_on], [alone, audit_path(went_on)])
    assert [(f.seat, f.seq) for f in faults] == [(NOBODY, k)], faults
    assert "the table did not take the close" in faults[0].reason
    # a log that merely ends with the awaited entry (sent as the game was closed) disputes nothing
    assert compare_logs([closed, ends], [alone, audit_path(ends)]) == []


def test_a_fellow_member_written_ahead_after_the_late_entry_did_not_go_on_from_it(tmp_path: Path) -> None:
    """The awaited seat's late entry in a concurrent step, then a fellow member of that step that
    was written ahead on the same base (docs/protocol.md §3.1), is all the stopped seat's log holds
    past the close: nobody went on from the late entry, so the close is not disputed (it said "seat
    N went on from it", of the fellow member)."""
    log = list(honest("loveletter"))
    entries = [parse_envelope(e) for e in log]
    k = next(
        i
        for i in range(_mid(log), len(log) - 1)
        if entries[i].kind == "tokens" and entries[i].prev == entries[i + 1].prev
    )
    awaited, fellow = entries[k].seat, entries[k + 1].seat
    closer = next(s for s in range(3) if s not in (awaited, fellow))
    reason = {"reason": "it stalled"}
    close = resign(identity_of(SEED, closer), log[k], seat=closer, kind="abandon", body=reason)
    closed, late = tmp_path / "closed.fdlog", tmp_path / "late.fdlog"
    closed.write_bytes(b"".join([*log[:k], close]))
    late.write_bytes(b"".join(log[: k + 2]))
    assert compare_logs([closed, late], [audit_path(closed), audit_path(late)]) == []
    # a replica holding the close says what the written-ahead member is: an entry after the end
    replica = Table(log[0])
    for envelope in [*log[1:k], close]:
        replica.accept(envelope)
    with pytest.raises(Rejected, match=f"comes after the game ended at entry {k}"):
        replica.accept(log[k + 1])
    # the steps after it did go on from it
    went_on = tmp_path / "went-on.fdlog"
    went_on.write_bytes(b"".join(log))
    faults = compare_logs([closed, went_on], [audit_path(closed), audit_path(went_on)])
    assert [(f.seat, f.seq) for f in faults] == [(NOBODY, k)] and "did not take the close" in faults[0].reason


# -- an outsider's edit cannot hide a proven cheat ------------------------------------------------


@pytest.mark.parametrize("tail", [b"\x93", b"\xc1\xc1"], ids=["a torn byte", "garbage"])
def test_damage_after_a_proven_cheat_leaves_the_cheater_in_the_headline(tmp_path: Path, tail: bytes) -> None:
    kind, change = CHEATS["tokens for the wrong refs"]
    table, seat, seq = _tampered("loveletter", kind, change)
    honest_seat = (seat + 1) % len(table.parties)
    path = tmp_path / "cheat.fdlog"
    writer = LogWriter(path)  # the file as a node writes it (format 3, with its header)
    for envelope in table.logs[honest_seat]:
        writer.append(envelope, sync=False)
    writer.close()
    with path.open("ab") as handle:
        handle.write(tail)
    report = audit_path(path)
    # the cheat is listed first, at its own entry, and the damage after it names nobody
    assert [(f.seat, f.seq) for f in report.faults][0] == (seat, seq), report.text()
    assert [f.seat for f in report.faults[1:]] == [NOBODY], report.text()
    assert report.headline().startswith(f"faults: seat {seat} "), report.headline()
    assert "but gave them for [999, " in report.faults[0].reason  # what it gave, beside what it owed
    assert "1 trailing byte is" in report.text() or tail != b"\x93", report.text()


def test_a_fellow_writer_after_the_entry_that_ended_the_game_is_said_to_come_after_the_end() -> None:
    """A bad ``tokens`` entry of a concurrent step ends the game; a fellow writer of that step,
    signed before it knew, is added after it: it extends the same head, so no chain is broken."""
    kind, change = CHEATS["tokens for the wrong refs"]
    table, seat, seq = _tampered("loveletter", kind, change)
    cheat_log = list(table.logs[(seat + 1) % len(table.parties)])
    honest_log = list(honest("loveletter"))
    assert len(cheat_log) == seq + 1  # an honest node keeps nothing after the entry that ended it
    fellow = parse_envelope(honest_log[seq + 1])
    assert fellow.prev == parse_envelope(honest_log[seq]).prev, "a fellow writer of the same step"
    report = audit_envelopes([*cheat_log, honest_log[seq + 1]])
    assert [(f.seat, f.seq) for f in report.faults] == [(seat, seq), (NOBODY, seq + 1)], report.text()
    assert "comes after the game ended" in report.faults[1].reason
    assert "different entry" not in report.text()


def test_a_file_of_only_a_header_is_not_called_empty(tmp_path: Path) -> None:
    path = tmp_path / "header.fdlog"
    path.write_bytes(FILE_MAGIC)
    report = audit_path(path)
    assert report.unreadable is not None and "only a log's header" in report.unreadable, report.text()
    empty = tmp_path / "empty.fdlog"
    empty.write_bytes(b"")
    assert "the file is empty" in (audit_path(empty).unreadable or "")


def test_a_log_without_its_genesis_or_of_another_format_is_said_to_be_one(tmp_path: Path) -> None:
    whole = tmp_path / "whole.fdlog"
    writer = LogWriter(whole)
    for envelope in honest("loveletter"):
        writer.append(envelope, sync=False)
    writer.close()
    data = whole.read_bytes()
    # the first record (the genesis) removed: the records after it follow from it, so none reads
    headless = tmp_path / "no-genesis.fdlog"
    headless.write_bytes(FILE_MAGIC + data[read_log(whole).ends[0] :])
    words = audit_path(headless).unreadable or ""
    assert words.startswith("a fairdeck log whose first entry cannot be read"), words
    newer = tmp_path / "newer.fdlog"
    newer.write_bytes(b"fairdeck log 9\n" + data[len(FILE_MAGIC) :])
    words = audit_path(newer).unreadable or ""
    assert words == "a fairdeck log of format 9, which this version of fairdeck cannot read", words


def test_a_party_that_never_makes_its_secret_choice_is_named_in_a_players_words() -> None:
    """A Rebel Princess seat that withholds its commitment (its secret choice) at the first commit
    step: the others close the game, and the audit names it for what it owed in words a player
    reads ("its secret choice"), the entry kind in brackets for whoever checks the log."""
    table = build_table("rebelprincess", 3, seed=4, options={"rounds": 3})
    dropped: list[int] = []

    def tamper(sender: int, envelope: bytes) -> bytes | None:
        entry = parse_envelope(envelope)
        if sender == 1 and entry.kind == "commit":
            dropped.append(entry.seq)
            return None
        return envelope

    table.tamper = tamper
    table.run()
    assert dropped and table.parties[0].table.expected()[0] == 1
    table.close_stalled(0, "seat 1 wrote nothing")
    report = audit_envelopes(table.logs[0])
    assert [f.seat for f in report.faults] == [1], report.text()
    owed = "stopped: it owed its secret choice (sealed, to be opened later) (a 'commit' entry)"
    assert owed in report.text()
