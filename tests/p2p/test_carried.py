"""Carried tokens (protocol 3, docs/protocol.md §3.2): a move or shuffle carries its writer's tokens
for the steps it began. Honest games use them everywhere they can; every way of carrying something
not owed is kept as proof against the writer, and nothing in such an entry is used."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p import crypto
from p2p.log import Entry, parse_envelope
from p2p.memtable import build_table
from p2p.party import PRECHECK_TOKENS, Party, _Prepared
from p2p.protocol import CARRYING_KINDS, Rejected, Table, carried_label, carried_parts, context
from replay.audit import audit_envelopes
from tests.p2p.protocol_support import SHUFFLE_ROUNDS, count_calls, identity_of, resign

SEED = 21


def _game(seed: int = SEED, seats: int = 4, **options: Any) -> Any:
    table = build_table("loveletter", seats, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS, **options)
    table.run()
    return table


def _first_carrying(log: list[bytes], parts: int = 1) -> int:
    """Index of the first move that carries at least ``parts`` parts."""
    for index, envelope in enumerate(log):
        entry = parse_envelope(envelope)
        if entry.kind == "move" and len(carried_parts(entry.body)) >= parts:
            return index
    raise AssertionError("no move carries tokens in this game")


def test_an_honest_game_carries_every_token_a_writer_owes_right_after_its_own_entry() -> None:
    table = _game()
    log = table.logs[0]
    assert len({b"".join(log) for log in table.logs}) == 1
    assert audit_envelopes(log).exit_code == 0
    entries = [parse_envelope(e) for e in log]
    carrying = [e for e in entries if carried_parts(e.body)]
    assert carrying and {e.kind for e in carrying} <= CARRYING_KINDS
    # never a move followed by its own writer's tokens entry: that part would have been carried
    for entry, after in zip(entries, entries[1:], strict=False):
        if entry.kind in CARRYING_KINDS and entry.seat == after.seat:
            assert after.kind != "tokens", f"seat {entry.seat} wrote its tokens apart at {after.seq}"
    # the played card opens in the move that plays it: no move waits for its own card's token
    moves = [e for e in entries if e.kind == "move" and "card" in e.body["move"]]
    assert sum(1 for e in moves if carried_parts(e.body)) == len(moves)


def _tampered_first_carry(seed: int, change: Any) -> tuple[Any, int, bytes]:
    """A 3-seat game in which the first move that carries tokens is replaced by ``change``'s
    version, re-signed by its writer: what a cheat sends."""
    honest = _game(seed, seats=3)
    index = _first_carrying(honest.logs[0])
    target = parse_envelope(honest.logs[0][index])
    sent: list[bytes] = []

    def tamper(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if sender == target.seat and entry.seq == target.seq and entry.kind == "move" and not sent:
            sent.append(change(entry))
            return sent[0]
        return envelope

    table = build_table("loveletter", 3, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS, tamper=tamper)
    table.run()
    assert sent, "the game took another course"
    return table, target.seat, sent[0]


def _assert_proof_against(table: Any, cheat: int, bad: bytes, words: str) -> None:
    seq = parse_envelope(bad).seq
    for other in range(len(table.parties)):
        if other == cheat:
            continue
        replica = table.parties[other].table
        assert table.logs[other][seq] == bad and len(table.logs[other]) == seq + 1
        assert replica.ended == "faulted"
        assert [(f.seat, f.seq) for f in replica.findings] == [(cheat, seq)]
        assert words in replica.findings[0].reason, replica.findings[0].reason
        # nothing in the entry is used: not even the move itself
        assert all(s < seq for s in replica.event_seq)
    report = audit_envelopes(table.logs[(cheat + 1) % len(table.parties)])
    assert report.exit_code == 1
    assert [(f.seat, f.seq) for f in report.faults] == [(cheat, seq)], report.text()


def test_a_part_no_step_owes_is_proof_against_its_writer() -> None:
    def extra(entry: Any) -> bytes:
        parts = carried_parts(entry.body)
        body = {**entry.body, "then": [*parts, parts[0]]}  # the same tokens once more
        return resign(identity_of(SEED, entry.seat), entry.envelope, body=body)

    table, cheat, bad = _tampered_first_carry(SEED, extra)
    _assert_proof_against(table, cheat, bad, "owes")


def test_a_carried_token_with_a_wrong_proof_is_proof_against_its_writer() -> None:
    def wrong(entry: Any) -> bytes:
        parts = [[list(item) for item in part] for part in carried_parts(entry.body)]
        parts[0][0][1] = crypto.reveal_token(12345, crypto.open_ciphertext("guard", crypto.base_mul(7)), b"x")
        return resign(identity_of(SEED, entry.seat), entry.envelope, body={**entry.body, "then": parts})

    table, cheat, bad = _tampered_first_carry(SEED, wrong)
    _assert_proof_against(table, cheat, bad, "carried tokens refused")


def test_a_token_bound_to_another_part_is_proof_against_its_writer() -> None:
    """Each part has its own context (``then<i>``): the writer's right token for the right card,
    made for another part's label, does not verify."""
    log = _game(SEED, seats=3).logs[0]
    index = _first_carrying(log)

    def relabelled(entry: Any) -> bytes:
        writer = Party(identity_of(SEED, entry.seat), log[0])
        writer.restore(log[1:index])
        ctx = context(writer.table.game_id, entry.seq, entry.seat, carried_label(1))
        parts = [[list(item) for item in part] for part in carried_parts(entry.body)]
        for item in parts[0]:
            item[1] = crypto.reveal_token(writer._x, writer.table.cts[item[0]], ctx)
        return resign(identity_of(SEED, entry.seat), entry.envelope, body={**entry.body, "then": parts})

    table, cheat, bad = _tampered_first_carry(SEED, relabelled)
    _assert_proof_against(table, cheat, bad, "carried tokens refused")


def test_an_entry_that_carries_nothing_is_taken_and_its_writer_owes_the_tokens_apart() -> None:
    """Carrying is a saving, not a duty: a writer that carries less writes the rest as usual."""
    log = _game(SEED, seats=3).logs[0]
    index = _first_carrying(log)
    entry = parse_envelope(log[index])
    writer = entry.seat
    plain = {k: v for k, v in entry.body.items() if k != "then"}
    lazy = resign(identity_of(SEED, writer), log[index], body=plain)
    watcher = Table(log[0])
    for envelope in log[1:index]:
        watcher.accept(envelope)
    watcher.accept(lazy)
    assert watcher.ended is None and watcher.expected() == (writer, "tokens")
    party = Party(identity_of(SEED, writer), log[0])
    party.restore([*log[1:index], lazy])
    written = [e.envelope for e in party.start() if e.kind == "write"]
    assert written and parse_envelope(written[0]).kind == "tokens"
    _, events = watcher.accept(written[0])
    assert watcher.ended is None and events, "the owed tokens must complete the step"


def _at_first_carry() -> tuple[list[bytes], int, Entry, Table]:
    """A 3-seat game's log, its first entry that carries tokens (place and entry), and a replica
    that has taken everything before it."""
    log = _game(SEED, seats=3).logs[0]
    index = _first_carrying(log)
    watcher = Table(log[0])
    for envelope in log[1:index]:
        watcher.accept(envelope)
    return log, index, parse_envelope(log[index]), watcher


def test_more_carried_tokens_than_any_step_can_owe_are_refused_before_anything_is_read() -> None:
    log = _game(SEED, seats=3).logs[0]
    index = _first_carrying(log)
    entry = parse_envelope(log[index])
    token = carried_parts(entry.body)[0][0]
    watcher = Table(log[0])
    for envelope in log[1:index]:
        watcher.accept(envelope)
    flood = [[token] * (2 * len(watcher.deck) + 1)]
    bad = resign(identity_of(SEED, entry.seat), log[index], body={**entry.body, "then": flood})
    with pytest.raises(Rejected) as caught:
        watcher.accept(bad)
    assert caught.value.provable and caught.value.seat == entry.seat
    assert watcher.next_seq == index, "a refused entry changes nothing"


def test_thousands_of_junk_parts_get_no_more_room_than_eight() -> None:
    """The budget counts at most as many parts as a body may hold: a ``then`` of 4,000 byte strings
    (250 KB) is refused as over budget, provably its writer's, and no honest log keeps it."""
    log, index, entry, watcher = _at_first_carry()
    bad = resign(identity_of(SEED, entry.seat), log[index], body={**entry.body, "then": [b"x" * 61] * 4000})
    assert len(bad) > 200_000
    with pytest.raises(Rejected) as caught:
        watcher.accept(bad)
    assert caught.value.provable and caught.value.seat == entry.seat
    assert "budget" in str(caught.value)
    assert watcher.next_seq == index, "a refused entry changes nothing"


@pytest.mark.parametrize("then", [[], "tokens", [[[1, "not bytes"]]], [[]] * 9])
def test_a_malformed_then_is_proof_against_its_writer(then: Any) -> None:
    log, index, entry, watcher = _at_first_carry()
    bad = resign(identity_of(SEED, entry.seat), log[index], body={**entry.body, "then": then})
    watcher.accept(bad)
    assert watcher.ended == "faulted"
    assert [(f.seat, f.seq) for f in watcher.findings] == [(entry.seat, index)]
    assert "then must be" in watcher.findings[0].reason


def _snapshot(table: Table) -> dict[str, Any]:
    """Everything a replica holds, copied deep enough to compare before and after (but the shared
    cache of statements found true, ``verified``, which forks add to by design)."""
    import copy as _copy
    import dataclasses as _dc

    skip = ("game", "codec", "step", "verified")
    data = {k: _copy.deepcopy(v) for k, v in vars(table).items() if k not in skip}
    data["step"] = _copy.deepcopy(_dc.asdict(table.step))
    return data


def test_a_fork_takes_entries_without_changing_the_replica_it_came_from() -> None:
    """The fork that checks an entry carrying tokens must be a true copy: whatever the fork takes
    (here a whole game's worth of entries), the replica it came from is exactly as it was."""
    log = _game(SEED, seats=3).logs[0]
    index = _first_carrying(log)
    table = Table(log[0])
    for envelope in log[1:index]:
        table.accept(envelope)
    before = _snapshot(table)
    twin = table.fork()
    for envelope in log[index:]:
        twin.accept(envelope)
    assert twin.ended == "over"
    assert _snapshot(table) == before
    # what the fork checked is known to the replica too: a true statement is true for both
    assert twin.verified is table.verified


# -- proofs checked ahead, off the event loop (Party.precheck) ----------------------------------------


def _before_my_shuffle(log: list[bytes]) -> tuple[int, int]:
    """(index of a shuffle entry, the party that writes the shuffle after it) in an honest log."""
    for index in range(1, len(log) - 1):
        entry, after = parse_envelope(log[index]), parse_envelope(log[index + 1])
        if entry.kind == "shuffle" and after.kind == "shuffle" and after.seat != entry.seat:
            return index, after.seat
    raise AssertionError("no two shuffles in a row")


def test_a_prechecked_shuffle_is_not_checked_again_and_ours_is_made_early_and_identical(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = _game(SEED, seats=3).logs[0]
    index, me = _before_my_shuffle(log)
    party = Party(identity_of(SEED, me), log[0])
    party.restore(log[1:index])
    assert party.precheck(log[index - 1]) == [], "an entry the log holds needs no work"
    verifies = count_calls(monkeypatch, "verify_shuffle_wt")
    made: list[int] = []
    shuffle = party._shuffle
    party._shuffle = lambda seq, pile: made.append(seq) or shuffle(seq, pile)  # type: ignore[method-assign]
    jobs = party.precheck(log[index])
    assert len(jobs) == 2, "the proof's check and our own shuffle of the pile"
    workers = [threading.Thread(target=job) for job in jobs]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(verifies) == 1 and made == [index + 1]
    assert party.precheck(log[index])[1:] == [], "our shuffle is prepared once"
    signatures: list[int] = []
    signed_by = Entry.signed_by
    monkeypatch.setattr(Entry, "signed_by", lambda e, key: signatures.append(e.seq) or signed_by(e, key))
    effects = party.receive(log[index])
    written = [e.envelope for e in effects if e.kind == "write"]
    assert written[:1] == [log[index + 1]], "the shuffle made early is byte for byte the honest one"
    assert len(verifies) == 1 and made == [index + 1], "nothing was checked or made twice"
    assert index not in signatures, "precheck found the signature good: receive does not check it again"


def test_a_precheck_of_a_forged_pile_spares_nothing_and_an_outsider_gets_no_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = _game(SEED, seats=3).logs[0]
    index, me = _before_my_shuffle(log)
    honest = parse_envelope(log[index])
    party = Party(identity_of(SEED, me), log[0])
    party.restore(log[1:index])
    pile = list(honest.body["pile"])
    pile[0], pile[1] = pile[1], pile[0]  # not what the proof is about
    outsider = resign(identity_of(SEED + 1, honest.seat), log[index], body={**honest.body, "pile": pile})
    assert party.precheck(outsider) == [], "only the expected writer's signed entry is worth work"
    forged = resign(identity_of(SEED, honest.seat), log[index], body={**honest.body, "pile": pile})
    for job in party.precheck(forged):
        job()
    assert not party.table.verified, "a false statement is never remembered"
    # the honest entry's statement, found true, does not vouch for the forged one
    for job in party.precheck(log[index]):
        job()
    assert len(party.table.verified) == 1
    verifies = count_calls(monkeypatch, "verify_shuffle_wt")
    effects = party.receive(forged)
    assert len(verifies) == 1, "the forged pile is checked where it is applied"
    assert not [e for e in effects if e.kind == "write"], "nothing is written on a refused pile"
    assert party.table.ended == "faulted" and party.table.findings[0].seat == honest.seat


def test_a_disclosure_s_tokens_are_checked_ahead_and_not_again(monkeypatch: pytest.MonkeyPatch) -> None:
    log = _game(SEED, seats=3).logs[0]
    entries = [parse_envelope(e) for e in log]
    index = next(e.seq for e in entries if e.kind == "tokens" and len(e.body["tokens"]) >= PRECHECK_TOKENS)
    watcher = Party(identity_of(SEED, (entries[index].seat + 1) % 3), log[0])
    watcher.restore(log[1:index])
    jobs = watcher.precheck(log[index])
    assert len(jobs) == 1
    jobs[0]()
    verifies = count_calls(monkeypatch, "verify_token")
    watcher.receive(log[index])
    assert verifies == [] and watcher.table.next_seq > index
    # (the watcher then wrote its own entries: they are the honest log's, being deterministic)
    assert watcher.table.tokens == _replica_at(log, watcher.table.next_seq).tokens
    # without the precheck every token is checked where it is applied
    fresh = Party(identity_of(SEED, (entries[index].seat + 1) % 3), log[0])
    fresh.restore(log[1:index])
    verifies.clear()
    fresh.receive(log[index])
    assert len(verifies) == len(entries[index].body["tokens"])


def _replica_at(log: list[bytes], end: int) -> Table:
    table = Table(log[0])
    for envelope in log[1:end]:
        table.accept(envelope)
    return table


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_seats=st.sampled_from([("loveletter", 2), ("loveletter", 3), ("regicide", 2), ("rebelprincess", 3)]),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_every_game_carries_what_it_can_and_its_logs_agree(game_seats: tuple[str, int], seed: int) -> None:
    """Any game, any deal: the logs are byte-identical and audit clean, and no writer of a move or a
    shuffle ever writes, right after it, a tokens entry it could have carried."""
    game, seats = game_seats
    table = build_table(game, seats, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS)
    table.run()
    log = table.logs[0]
    assert len({b"".join(log) for log in table.logs}) == 1
    report = audit_envelopes(log)
    assert report.exit_code == 0, report.text()
    replica = Table(log[0])
    for envelope in log[1:]:
        entry, _ = replica.accept(envelope)
        step = replica.step
        if entry.kind in CARRYING_KINDS and not replica.ended:
            fresh = step.kind == "tokens" and step.group_start == entry.seq + 1 and not step.members
            assert not (fresh and entry.seat in step.writers), f"seat {entry.seat} left a part at {entry.seq}"


def test_an_entry_with_little_to_check_gets_no_work_and_its_signature_is_checked_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Handing a token or two to a thread costs more than it spares: no work, and no signature check
    ahead of the one the entry gets where it is applied."""
    log = _game(SEED, seats=3).logs[0]
    entries = [parse_envelope(e) for e in log]
    index = next(e.seq for e in entries if e.kind == "tokens" and 0 < len(e.body["tokens"]) < PRECHECK_TOKENS)
    watcher = Party(identity_of(SEED, (entries[index].seat + 1) % 3), log[0])
    watcher.restore(log[1:index])
    checked: list[int] = []
    signed_by = Entry.signed_by

    def counted(self: Entry, key: bytes) -> bool:
        checked.append(self.seq)
        return signed_by(self, key)

    monkeypatch.setattr(Entry, "signed_by", counted)
    assert watcher.precheck(log[index]) == [] and checked == []
    watcher.receive(log[index])
    assert checked.count(index) == 1


def test_a_writer_does_not_check_its_own_signature_and_every_other_party_checks_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No double work: the party that signed an entry applies it without verifying the signature it
    just made; each of the others verifies it exactly once."""
    checked: list[tuple[int, int]] = []
    signed_by = Entry.signed_by

    def counted(self: Entry, key: bytes) -> bool:
        checked.append((self.seq, self.seat))
        return signed_by(self, key)

    monkeypatch.setattr(Entry, "signed_by", counted)
    table = _game(SEED, seats=3)
    entries = [parse_envelope(e) for e in table.logs[0]]
    assert len(entries) > 50 and len({b"".join(log) for log in table.logs}) == 1
    counts: dict[int, int] = {}
    for seq, _seat in checked:
        counts[seq] = counts.get(seq, 0) + 1
    others = len(table.parties) - 1
    assert {e.seq: counts.get(e.seq, 0) for e in entries[1:]} == {e.seq: others for e in entries[1:]}


def test_a_party_that_defers_its_work_makes_its_shuffle_off_the_call_and_writes_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A network node's calls run on its event loop: the first shuffle of a round (nobody could
    begin it early: the entry before it is not a shuffle) comes back as ``work``, and the entry is
    written only when the driver calls ``start`` after doing it — byte for byte the honest one."""
    log = _game(SEED, seats=3).logs[0]
    index = next(
        i
        for i in range(2, len(log))
        if parse_envelope(log[i]).kind == "shuffle"
        and parse_envelope(log[i - 1]).kind != "shuffle"
        and parse_envelope(log[i - 1]).seat != parse_envelope(log[i]).seat
    )
    me = parse_envelope(log[index]).seat
    party = Party(identity_of(SEED, me), log[0])
    party.restore(log[1 : index - 1])
    party.defer_work = True
    made: list[int] = []
    shuffle = party._shuffle
    party._shuffle = lambda seq, pile: made.append(seq) or shuffle(seq, pile)  # type: ignore[method-assign]
    effects = party.receive(log[index - 1])
    assert not [e for e in effects if e.kind == "write"], "nothing is written before the work is done"
    work = [e for e in effects if e.kind == "work"]
    assert len(work) == 1 and made == [], "one piece of work, not done inside the call"
    assert party.start() == [], "asked again while the work is not done: nothing, and no second job"
    worker = threading.Thread(target=work[0].job)
    worker.start()
    worker.join()
    assert made == [index]
    written = [e.envelope for e in party.start() if e.kind == "write"]
    assert written[:1] == [log[index]], "the shuffle made off the call is byte for byte the honest one"
    assert made == [index], "made once"


def test_a_deferring_party_hands_over_a_shuffle_begun_early_that_is_not_done_yet() -> None:
    """Our shuffle begun early (``precheck``) but not finished when its place comes must not be
    waited for on the driver's loop, nor forgotten: it is handed over as ``work`` like any other."""
    log = _game(SEED, seats=3).logs[0]
    index, me = _before_my_shuffle(log)
    party = Party(identity_of(SEED, me), log[0])
    party.restore(log[1:index])
    party.defer_work = True
    pile = parse_envelope(log[index]).body["pile"]
    begun = _Prepared(tuple(pile), lambda: party._shuffle(index + 1, pile))
    party._prepared[index + 1] = begun  # as precheck leaves it while its thread has not run yet
    effects = party.receive(log[index])
    assert not [e for e in effects if e.kind == "write"]
    work = [e for e in effects if e.kind == "work"]
    assert len(work) == 1 and work[0].job == begun.run and begun.handed
    work[0].job()
    assert [e.envelope for e in party.start() if e.kind == "write"][:1] == [log[index + 1]]
