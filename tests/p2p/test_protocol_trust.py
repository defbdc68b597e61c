"""Nobody, the opener included, can weaken a table (the sans-I/O core's part).

Per-game secrets depend on each party's own fresh salt; published keys are checked when they are
published; a signed entry that breaks a rule is kept as proof and ends the game with its writer
named; a stall is closed out and the staller named; a committed choice is checked the moment it is
opened; oversized or padded entries cannot grow anyone's log; a solo player alone at the table
reads its own cards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from engine.core import Commit, IllegalMove, Random
from p2p import crypto
from p2p.log import Entry, pack, parse_envelope
from p2p.memtable import build_table
from p2p.party import Party
from replay.audit import audit_envelopes
from tests.p2p.protocol_support import identity_of, resign


def _keyshares(table: Any) -> dict[int, dict[str, Any]]:
    return {e.seat: e.body for e in map(parse_envelope, table.logs[0]) if e.kind == "keyshare"}


def test_two_games_under_one_id_meet_unrelated_secrets() -> None:
    """Reusing a game id (what a hostile opener would do to replay a victim's secrets) gets
    nothing: each party's salt is fresh, so key shares, seal keys and shuffles all differ."""
    gid = hashlib.sha256(b"reused").digest()[:16]
    first = build_table("loveletter", 2, seed=1, game_id=gid, fresh_salts=True)
    second = build_table("loveletter", 2, seed=1, game_id=gid, fresh_salts=True)
    first.run()
    second.run()
    a, b = _keyshares(first), _keyshares(second)
    for seat in (0, 1):
        assert a[seat]["salt"] != b[seat]["salt"]
        assert a[seat]["share"] != b[seat]["share"] and a[seat]["seal"] != b[seat]["seal"]
    piles_a = [e.body["pile"] for e in map(parse_envelope, first.logs[0]) if e.kind == "shuffle"]
    piles_b = [e.body["pile"] for e in map(parse_envelope, second.logs[0]) if e.kind == "shuffle"]
    assert piles_a[0] != piles_b[0]
    assert not set(piles_a[0]) & set(piles_b[0])  # not one ciphertext in common


def test_a_resumed_party_reads_its_salt_back_from_its_own_log() -> None:
    table = build_table("loveletter", 2, seed=3)
    table.run()
    log = table.logs[1]
    party = Party(identity_of(3, 1), log[0])
    party.restore(log[1:])
    assert party.table.ended == "over"
    # the resumed party recomputes its own tokens: it still reads exactly what it read before
    assert party.known_faces() == table.parties[1].known_faces()


def _tamper_keyshare(seat: int, change: Any) -> Any:
    done: list[bytes] = []

    def tamper(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if sender == seat and entry.kind == "keyshare" and not done:
            done.append(envelope)
            return resign(identity_of(5, seat), envelope, body=change(dict(entry.body)))
        return envelope

    return tamper


@pytest.mark.parametrize(
    ("what", "change"),
    [
        ("small-order seal key", lambda body: {**body, "seal": bytes(32)}),
        ("short salt", lambda body: {**body, "salt": b"x"}),
        ("extra field", lambda body: {**body, "pad": b"x" * 100}),
    ],
)
def test_a_bad_published_key_gets_its_author_blamed_and_ends_the_game_cleanly(what: str, change: Any) -> None:
    table = build_table("loveletter", 3, seed=5, tamper=_tamper_keyshare(2, change))
    table.run()  # must not raise: no honest party crashes or waits forever
    for honest in (0, 1):
        replica = table.parties[honest].table
        assert replica.ended == "faulted", what
        assert [f.seat for f in replica.findings] == [2]
    report = audit_envelopes(table.logs[0])
    assert report.exit_code == 1 and [f.seat for f in report.faults] == [2], report.text()


def test_an_oversized_entry_is_refused_with_its_author_named() -> None:
    table = build_table("loveletter", 2, seed=6)
    table.run()
    log = table.logs[0]
    seq = next(i for i, e in enumerate(map(parse_envelope, log)) if e.kind == "move")
    entry = parse_envelope(log[seq])
    padded = resign(
        identity_of(6, entry.seat), log[seq], body={"move": {**entry.body["move"], "pad": "x" * 100_000}}
    )
    other = 1 - entry.seat
    party = Party(identity_of(6, other), log[0])
    party.restore(log[1:seq])
    effects = party.receive(padded)
    assert effects and effects[0].kind == "rejected" and "budget" in effects[0].text
    assert party.table.next_seq == seq  # nothing of it was kept
    report = audit_envelopes(log[:seq] + [padded])
    assert [(f.seat, f.seq) for f in report.faults] == [(entry.seat, seq)] and "budget" in report.faults[
        0
    ].reason


def test_a_last_opener_that_refuses_is_closed_out_and_named_after_seeing_the_others() -> None:
    """The first-player draw is a joint random value: the last party to open sees the others'
    values first. If it refuses to open, any other party closes the game after the deadline and
    the audit names it."""
    refusing = 2

    def refuse(sender: int, envelope: bytes) -> bytes | None:
        entry = parse_envelope(envelope)
        return None if sender == refusing and entry.kind == "open" else envelope

    table = build_table("loveletter", 3, seed=7, tamper=refuse)
    table.run()
    replica = table.parties[0].table
    assert isinstance(replica.step.request, Random | Commit) and replica.expected() == (refusing, "open")
    table.close_stalled(0, "seat 2 wrote nothing for 300 s")
    assert table.parties[1].table.ended == "abandoned"
    report = audit_envelopes(table.logs[1])
    assert report.exit_code == 1
    assert [f.seat for f in report.faults] == [refusing], report.text()
    assert "after seeing the openings of seat(s) 0, 1" in report.faults[0].reason


def test_the_party_waited_for_cannot_close_the_game_itself() -> None:
    table = build_table("loveletter", 2, seed=8)
    table.bots[1] = None  # a person who never decides
    table.run()
    waiting = table.parties[0].table.expected()
    assert waiting is not None and waiting[0] == 1
    with pytest.raises(Exception, match="cannot abandon"):
        table.parties[1].abandon("I leave")
    table.close_stalled(0, "seat 1 wrote nothing")
    report = audit_envelopes(table.logs[1])
    assert [f.seat for f in report.faults] == [1]


def test_solo_regicide_without_a_witness_reads_its_own_hand_and_finishes() -> None:
    table = build_table("regicide", 1, seed=4)
    table.run()
    party = table.parties[0]
    assert party.table.ended == "over", party.table.expected()
    assert party.private_faces  # the player read its own cards with its own token alone
    assert audit_envelopes(table.logs[0]).exit_code == 0


def _first_move_resigned(seed: int, body: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[Any, Entry]:
    """A 3-seat Love Letter table whose first move is replaced by ``body(its body)``, validly signed
    by its writer (a cheat with its own key); the table run, and the forged entry."""
    sent: list[bytes] = []

    def forge(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if entry.kind == "move" and not sent:
            sent.append(resign(identity_of(seed, sender), envelope, body=body(dict(entry.body))))
            return sent[0]
        return envelope

    table = build_table("loveletter", 3, seed=seed, tamper=forge)
    table.run()
    return table, parse_envelope(sent[0])


def test_a_move_that_claims_a_card_the_seat_never_held_is_kept_as_proof() -> None:
    """A signed illegal move at its right place: every replica keeps it, ends the game, and names
    its writer; the writer's honest twin never reached anyone."""
    table, bad = _first_move_resigned(9, lambda body: {"move": {"card": 99_999}})
    for other in range(3):
        if other != bad.seat:
            assert table.logs[other][-1] == bad.envelope
            assert table.parties[other].table.ended == "faulted"
    report = audit_envelopes(table.logs[(bad.seat + 1) % 3])
    assert [(f.seat, f.seq) for f in report.faults] == [(bad.seat, bad.seq)]


def test_a_move_marked_late_on_a_table_that_closes_stalls_is_kept_as_proof() -> None:
    """Only a table whose policy plays for late players takes moves marked ``late``: elsewhere the
    mark is a rule broken by its signer (kept as proof, the signer named), and an honest party
    refuses to make one."""
    table, bad = _first_move_resigned(12, lambda body: {**body, "late": True})
    report = audit_envelopes(table.logs[(bad.seat + 1) % 3])
    assert [(f.seat, f.seq) for f in report.faults] == [(bad.seat, bad.seq)]
    assert "late" in report.faults[0].reason
    honest = build_table("loveletter", 2, seed=12).parties[0]
    with pytest.raises(IllegalMove, match="nobody plays for a late player"):
        honest.decide({}, late=True)


def test_rebel_princess_commit_poisoning_names_the_poisoner_at_its_own_opening() -> None:
    """A seat opens an illegal committed choice (keeping another seat's Princess) before the last
    opener: it is caught at its own opening, the honest last opener is never refused, and every
    honest log holds the same entries."""
    seed, poisoner = 11, 0
    poisoned: list[int] = []

    def poison(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if sender == poisoner and entry.kind == "open" and not poisoned:
            table = parties[sender].table
            if isinstance(table.step.request, Commit):
                other_offer = table.state.offers[1][0]
                value = pack({"keep": other_offer})
                nonce = entry.body["nonce"]
                # re-commit is impossible: the digest is fixed, so the poisoner must have committed
                # to the illegal choice from the start; emulate by re-signing commit and open alike
                poisoned.append(entry.seq)
                return resign(identity_of(seed, sender), envelope, body={"value": value, "nonce": nonce})
        return envelope

    table = build_table("rebelprincess", 3, seed=seed, tamper=poison, options={"rounds": 3})
    parties = table.parties
    table.run()
    # the poisoned opening does not match the commitment, so it is a signed bad opening: kept, named
    for honest in (1, 2):
        replica = table.parties[honest].table
        assert replica.ended == "faulted"
        assert [f.seat for f in replica.findings] == [poisoner]
    assert table.logs[1] == table.logs[2]
    assert audit_envelopes(table.logs[1]).faults[0].seat == poisoner


def test_an_illegal_committed_choice_is_refused_at_its_own_opening() -> None:
    """The poisoner commits to the illegal choice from the start (so the opening matches its
    commitment): ``check_choice`` still catches it at its own opening."""
    seed = 12
    table = build_table("rebelprincess", 3, seed=seed, options={"rounds": 3})

    class Poisoner:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def choose(self, game: Any, state: Any, seat: int, faces: Any, prompt: str) -> dict[str, Any]:
            if state.step == "princess":
                return {"keep": state.offers[(seat + 1) % game.seats][0]}
            return self.inner.choose(game, state, seat, faces, prompt)

    # the party's own guard refuses an illegal choice, so the poisoner bypasses it as a cheat would
    table.bots[0] = Poisoner(table.bots[0])
    original = table.parties[0].decide

    def unguarded(move: Any) -> Any:
        cheat = table.parties[0]
        cheat._pending_choice, cheat._pending_for = dict(move), cheat.table.step.start_seq
        return cheat._act()

    table.parties[0].decide = unguarded  # type: ignore[method-assign]
    table.run()
    assert original is not None
    for honest in (1, 2):
        replica = table.parties[honest].table
        assert replica.ended == "faulted", replica.expected()
        assert [f.seat for f in replica.findings] == [0]
        assert "Princess" in replica.findings[0].reason
        assert parse_envelope(table.logs[honest][replica.findings[0].seq]).kind == "open"
    assert table.logs[1] == table.logs[2]
    report = audit_envelopes(table.logs[2])
    assert [f.seat for f in report.faults] == [0], report.text()


def test_validate_seal_public_refuses_keys_nobody_can_seal_to() -> None:
    for bad in (bytes(32), b"\x01" + bytes(31), b"short"):
        with pytest.raises(crypto.CryptoError):
            crypto.validate_seal_public(bad)


def test_a_forged_pile_holding_a_non_card_gets_its_author_blamed_and_nobody_crashes() -> None:
    """A shuffler slips a ciphertext of a point that is no card into its pile: the proof cannot
    cover it, so the signed entry is kept as proof against its author and the game ends for all."""
    seed, cheat = 13, 1
    forged: list[bytes] = []

    def tamper(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if sender == cheat and entry.kind == "shuffle" and not forged:
            key = table.parties[0].table.table_key
            assert key is not None
            stranger = crypto.encrypt(crypto.base_mul(424242), key, 99)  # no card of this deck
            pile = [stranger, *entry.body["pile"][1:]]
            forged.append(resign(identity_of(seed, sender), envelope, body={**entry.body, "pile": pile}))
            return forged[0]
        return envelope

    table = build_table("loveletter", 3, seed=seed, tamper=tamper)
    table.run()  # no party raises
    seq = parse_envelope(forged[0]).seq
    for honest in (0, 2):
        replica = table.parties[honest].table
        assert replica.ended == "faulted"
        assert [(f.seat, f.seq) for f in replica.findings] == [(cheat, seq)]
        assert "shuffle" in replica.findings[0].reason
    assert [(f.seat, f.seq) for f in audit_envelopes(table.logs[0]).faults] == [(cheat, seq)]


def test_two_versions_of_one_entry_arriving_ahead_of_their_place_are_kept_as_evidence() -> None:
    """Both signed versions reach a party before their place comes: one is applied, and the other
    is reported as equivocation evidence instead of being dropped."""
    seed = 14
    table = build_table("loveletter", 3, seed=seed)
    table.run()
    log = table.logs[0]
    k = next(i for i, e in enumerate(map(parse_envelope, log)) if i > 20 and e.kind == "move")
    entry = parse_envelope(log[k])
    twin = resign(identity_of(seed, entry.seat), log[k], body={"move": {**entry.body["move"], "again": 1}})
    observer = next(p for p in range(3) if p != entry.seat)
    party = Party(identity_of(seed, observer), log[0])
    party.restore(log[1 : k - 1])
    effects = party.receive(log[k]) + party.receive(twin)  # both early: entry k-1 is still missing
    assert party.table.next_seq == k - 1 and not [e for e in effects if e.kind == "evidence"]
    effects = party.receive(log[k - 1])
    evidence = [e for e in effects if e.kind == "evidence"]
    assert len(evidence) == 1 and {evidence[0].envelope, evidence[0].other} == {log[k], twin}
    assert f"seat {entry.seat} signed two different entries for seq {k}" in evidence[0].text
