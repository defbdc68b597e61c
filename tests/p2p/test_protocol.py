"""The table protocol in memory: honest games, and each kind of dishonest seat caught and blamed."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import Deal, Disclose, Reveal, Show
from p2p import crypto
from p2p.log import parse_envelope, read_log
from p2p.memtable import build_table
from p2p.party import Party
from p2p.protocol import context
from replay.audit import audit_envelopes, audit_path, compare_logs
from replay.replay import replay_envelopes
from tests.p2p.protocol_support import SHUFFLE_ROUNDS, audit_of, identity_of, resign, run_with_liar


def _honest(seats: int = 4, seed: int = 1) -> Any:
    table = build_table("loveletter", seats, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS)
    table.run()
    return table


def test_honest_four_seat_game_identical_logs_clean_audit_and_replay(tmp_path) -> None:
    table = build_table("loveletter", 4, seed=5, shuffle_rounds=SHUFFLE_ROUNDS, log_dir=tmp_path)
    table.run()
    table.close()
    replica = table.parties[0].table
    assert replica.ended == "over"
    assert replica.game.result(replica.state)["winners"]
    files = [(tmp_path / f"seat{i}.fdlog").read_bytes() for i in range(4)]
    assert len(set(files)) == 1, "every seat must end with a byte-identical log"
    assert read_log(tmp_path / "seat0.fdlog").envelopes == table.logs[0]
    # format 3: no entry but the genesis repeats what the file already says (version, game, seq, prev)
    assert len(files[0]) < sum(map(len, table.logs[0])) - 50 * (len(table.logs[0]) - 1)
    assert all(not r for r in table.rejections)
    report = audit_path(tmp_path / "seat2.fdlog")
    assert report.exit_code == 0, report.text()
    # replay reproduces the engine's final state, and folding the events alone agrees
    replay = replay_envelopes(table.logs[3])
    assert replay.final_state == replica.state
    game = replica.game
    state = game.initial_state()
    for event in replica.history:
        state = game.apply(state, event)
    assert state == replica.state


def test_replay_is_deterministic() -> None:
    table = _honest(seats=3, seed=2)
    first = replay_envelopes(table.logs[0])
    second = replay_envelopes(table.logs[1])
    assert [f.text for f in first.frames] == [f.text for f in second.frames]
    assert first.final_state == second.final_state


# -- claims the engine checks at disclosure ----------------------------------------------------------


def _flip_guard(game, state, seat, faces, honest) -> dict[str, Any]:
    return {"hit": not honest["hit"]}


def test_false_guard_answer_is_blamed_on_the_liar() -> None:
    table, bot = run_with_liar(4, 2, "guard_answer", _flip_guard)
    report = audit_of(table)
    assert report.exit_code == 1
    blamed = [f for f in report.faults if f.seat == 2]
    assert blamed, report.text()
    entry = parse_envelope(table.logs[0][blamed[0].seq])
    assert entry.seat == 2 and entry.kind == "move" and "hit" in entry.body["move"]
    assert all(f.seat == 2 for f in report.faults)


def _flip_baron(game, state, seat, faces, honest) -> dict[str, Any] | None:
    target = state.play.target
    truth = honest["loser"]
    return {"loser": target if truth != target else seat}


def test_false_baron_result_is_blamed_on_the_liar() -> None:
    table, bot = run_with_liar(4, 1, "baron_result", _flip_baron)
    report = audit_of(table)
    assert report.exit_code == 1
    fault = next(f for f in report.faults if f.seat == 1)
    entry = parse_envelope(table.logs[0][fault.seq])
    assert entry.seat == 1 and "loser" in entry.body["move"]
    assert "Baron" in fault.reason


def _break_countess(game, state, seat, faces, honest) -> dict[str, Any] | None:
    hand = state.hands[seat]
    held = {ref: faces.get(ref) for ref in hand}
    if "countess" not in held.values():
        return None
    for ref, face in held.items():
        if face in ("king", "prince"):
            targets = game.targets(state, seat)
            target = seat if face == "prince" else (targets[0] if targets else None)
            return {"card": ref, "face": face, "target": target, "guess": None}
    return None


def test_countess_violation_is_blamed_on_the_player() -> None:
    table, bot = run_with_liar(4, 3, "play", _break_countess, seeds=range(200))
    report = audit_of(table)
    assert report.exit_code == 1
    fault = next(f for f in report.faults if f.seat == 3)
    assert "Countess" in fault.reason
    entry = parse_envelope(table.logs[0][fault.seq])
    assert entry.body["move"]["face"] in ("king", "prince")


# -- what live peers refuse at once ------------------------------------------------------------------


def _tamper_first(kind: str, party: int, seed: int, change) -> tuple[Any, list[bytes]]:
    """Run a game where ``party``'s first entry of ``kind`` is replaced by ``change(envelope)``."""
    sent: list[bytes] = []

    def tamper(sender: int, envelope: bytes) -> bytes | list[bytes] | None:
        entry = parse_envelope(envelope)
        if sender == party and entry.kind == kind and not sent:
            bad = change(entry)
            sent.append(bad)
            return bad
        return envelope

    table = build_table("loveletter", 3, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS, tamper=tamper)
    table.run()
    return table, sent


def _dishonest_log(table, party: int, bad: bytes) -> list[bytes]:
    """The dishonest party's own view: everything up to its bad entry, then the bad entry."""
    seq = parse_envelope(bad).seq
    return table.logs[party][:seq] + [bad]


def _assert_kept_as_proof_and_blamed(table, party: int, bad: bytes, words: str) -> None:
    """A signed, correctly placed entry that breaks a rule joins every log as proof and ends the game:
    every replica names its writer at that entry, and so does the audit of any honest log."""
    seq = parse_envelope(bad).seq
    for other in range(len(table.parties)):
        if other == party:  # the cheat keeps its honest twin and sent the bad one
            continue
        replica = table.parties[other].table
        assert table.logs[other][seq] == bad and len(table.logs[other]) == seq + 1
        assert replica.ended == "faulted"
        assert [(f.seat, f.seq) for f in replica.findings] == [(party, seq)]
        assert words in replica.findings[0].reason
    report = audit_envelopes(table.logs[(party + 1) % len(table.parties)])
    assert report.exit_code == 1
    assert [(f.seat, f.seq) for f in report.faults] == [(party, seq)], report.text()
    assert words in report.faults[0].reason


def test_bad_shuffle_substituting_a_card_is_kept_as_proof_and_blamed() -> None:
    seed, party = 3, 1
    identity = identity_of(seed, party)

    def substitute(entry) -> bytes:
        pile = list(entry.body["pile"])
        pile[0] = pile[1]  # a duplicated card in place of another
        return resign(identity, entry.envelope, body={**entry.body, "pile": pile})

    table, sent = _tamper_first("shuffle", party, seed, substitute)
    _assert_kept_as_proof_and_blamed(table, party, sent[0], "shuffle")


def test_wrong_reveal_token_is_kept_as_proof_and_blamed() -> None:
    seed, party = 4, 2
    identity = identity_of(seed, party)

    def wrong(entry) -> bytes:
        tokens = [list(t) for t in entry.body["tokens"]]
        if len(tokens) >= 2:
            tokens[0][1], tokens[1][1] = tokens[1][1], tokens[0][1]
        else:  # a token for a random other point
            tokens[0][1] = crypto.reveal_token(
                12345, crypto.open_ciphertext("guard", crypto.base_mul(7)), b"x"
            )
        return resign(identity, entry.envelope, body={"tokens": tokens})

    table, sent = _tamper_first("tokens", party, seed, wrong)
    _assert_kept_as_proof_and_blamed(table, party, sent[0], "token")


def test_out_of_turn_entry_is_refused() -> None:
    table = _honest(seats=3, seed=6)
    log = table.logs[0]
    honest = parse_envelope(log[10])
    intruder = (honest.seat + 1) % 3
    forged = resign(identity_of(6, intruder), log[10], seat=intruder)
    party = Party(identity_of(6, 0), log[0])
    party.restore(log[1:10])
    effects = party.receive(forged)
    assert [e.kind for e in effects][:1] == ["rejected"] and "out of turn" in effects[0].text
    assert party.table.next_seq == 10
    report = audit_envelopes(log[:10] + [forged])
    assert report.faults[0].seat == intruder and "out of turn" in report.faults[0].reason


def test_entry_replayed_from_another_game_is_refused() -> None:
    game_a, game_b = _honest(seats=3, seed=7), _honest(seats=3, seed=8)
    log_b = game_b.logs[0]
    party = Party(identity_of(8, 0), log_b[0])
    party.restore(log_b[1:12])
    effects = party.receive(game_a.logs[0][12])
    assert effects[0].kind == "rejected" and "another game" in effects[0].text
    report = audit_envelopes(log_b[:12] + [game_a.logs[0][12]])
    assert report.exit_code == 1 and "another game" in report.faults[0].reason


def test_forged_signature_is_refused_and_nobody_is_blamed() -> None:
    table = _honest(seats=3, seed=9)
    log = table.logs[0]
    entry = parse_envelope(log[15])
    forged_payload = entry.payload.replace(b"\xa4kind", b"\xa4kind", 1)[:-1] + bytes([entry.payload[-1] ^ 1])
    from p2p.log import pack

    forged = pack([forged_payload, entry.signature])
    party = Party(identity_of(9, 1), log[0])
    party.restore(log[1:15])
    effects = party.receive(forged)
    assert effects[0].kind == "rejected"
    report = audit_envelopes(log[:15] + [forged])
    assert report.exit_code == 1 and report.faults[0].seat is None


def test_equivocation_is_detected_live_and_by_audit_of_two_logs(tmp_path) -> None:
    seed, party = 10, 1
    identity = identity_of(seed, party)
    pair: list[bytes] = []

    def equivocate(sender: int, envelope: bytes) -> list[bytes] | bytes:
        entry = parse_envelope(envelope)
        if sender == party and entry.kind == "move" and not pair:
            other = resign(identity, envelope, body={"move": {**entry.body["move"], "again": 1}})
            pair.extend([envelope, other])
            return [envelope, other]
        return envelope

    table = build_table("loveletter", 3, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS, tamper=equivocate)
    table.run()
    assert pair
    for other in (0, 2):
        assert table.evidence[other], "honest peers must keep evidence of the second signed entry"
        a, b = table.evidence[other][0]
        assert {a, b} == set(pair)
    seq = parse_envelope(pair[0]).seq
    log_a, log_b = tmp_path / "a.fdlog", tmp_path / "b.fdlog"
    log_a.write_bytes(b"".join(table.logs[0][:seq] + [pair[0]]))
    log_b.write_bytes(b"".join(table.logs[0][:seq] + [pair[1]]))
    faults = compare_logs([log_a, log_b], [audit_path(log_a), audit_path(log_b)])
    assert faults and faults[0].seat == party and faults[0].seq == seq and "equivocation" in faults[0].reason


# -- privacy -----------------------------------------------------------------------------------------


def _entitle(entitled: set[int], party: Party, state: object) -> None:
    """Add the refs ``party`` may read once the engine's request at ``state`` is met (they may
    become readable token by token while the step runs)."""
    request = party.table.game.pending(state)
    if isinstance(request, Deal):
        entitled.update(ref for ref, seat in request.deals if seat == party.me)
    elif isinstance(request, Show):
        entitled.update(ref for ref, seat in request.shows if seat == party.me)
    elif isinstance(request, Reveal | Disclose):
        entitled.update(request.refs)


@pytest.mark.parametrize(
    ("game", "seats", "seed"), [("loveletter", 4, 11), ("regicide", 3, 5), ("rebelprincess", 4, 3)]
)
def test_no_seat_can_decrypt_a_card_it_is_not_entitled_to(game: str, seats: int, seed: int) -> None:
    """Walk every entry each seat receives; at each point, try to decrypt every ref with all the
    tokens that seat can get (public, sealed to it, its own) and compare with what the rules
    entitle it to see. Every game: their entries carry tokens for different steps (protocol 3)."""
    table = build_table(game, seats, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS)
    table.run()
    log = table.logs[0]
    assert any(parse_envelope(e).body.get("then") for e in log[1:]), "no entry carried tokens"
    for me in range(seats):
        party = Party(identity_of(seed, me), log[0])
        entitled: set[int] = set(range(len(party.table.deck)))  # the canonical deck is public
        for envelope in log[1:]:
            if party.table.table_key is not None:
                _entitle(entitled, party, party.table.state)
            entry, events = party.table.accept(envelope)
            # an entry that carries tokens (protocol 3) resolves several requests in a row
            for before, _event in events:
                _entitle(entitled, party, before)
            if events:  # the step it began and left half done
                _entitle(entitled, party, party.table.state)
            party.learn(entry)
            decryptable = set(party.known_faces())
            assert decryptable <= entitled, f"seat {me} could read refs {decryptable - entitled}"
        assert len(party.private_faces) > 10, "the seat must have read its own cards"
        # sealed tokens addressed to others cannot be opened by this seat
        for seq, sender, _ref, to, blob in party.table.seals[:20]:
            if me not in (to, sender):
                ctx = context(party.table.game_id, seq, sender, b"seal")
                try:
                    crypto.unseal(blob, party._seal, party.table.seal_keys[sender], ctx)
                except crypto.CryptoError:
                    continue
                raise AssertionError(f"seat {me} opened a token sealed to seat {to}")


def test_bad_sealed_token_is_accused_with_evidence_and_the_sender_blamed() -> None:
    """A seat privately shows a card with a wrong token: only the recipient can tell, so it
    publishes evidence (its per-game seal key, never its identity key) and the sender is blamed."""
    seed, cheat = 12, 1
    identity = identity_of(seed, cheat)
    bad: list[bytes] = []

    def wrong_seal(sender: int, envelope: bytes) -> bytes:
        entry = parse_envelope(envelope)
        if sender != cheat or entry.kind != "sealed" or bad:
            return envelope
        party = table.parties[cheat]
        replica = party.table
        seals = []
        for ref, to, _blob in entry.body["seals"]:
            ctx = context(replica.game_id, entry.seq, cheat, b"seal")
            wrong = crypto.reveal_token(party._x + 1, replica.cts[ref], ctx)  # not its key share
            seals.append([ref, to, crypto.seal(wrong, party._seal, replica.seal_keys[to], ctx)])
        forged = resign(identity, envelope, body={"seals": seals})
        bad.append(forged)
        return forged

    table = build_table("loveletter", 3, seed=seed, shuffle_rounds=SHUFFLE_ROUNDS, tamper=wrong_seal)
    table.run()
    assert bad, "the cheat never had to show a card"
    honest = next(i for i in range(3) if i != cheat)
    replica = table.parties[honest].table
    assert replica.ended == "accused"
    accusation = parse_envelope(table.logs[honest][-1])
    assert accusation.kind == "accuse" and accusation.seat != cheat
    report = audit_envelopes(table.logs[honest])
    assert report.exit_code == 1
    fault = report.faults[0]
    assert fault.seat == cheat and fault.seq == parse_envelope(bad[0]).seq
    assert "bad sealed token" in fault.reason
    # the evidence reveals nothing of the accuser's identity key
    from cryptography.hazmat.primitives import serialization

    accuser = table.parties[accusation.seat].identity
    secret = accuser._key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    assert secret not in accusation.envelope


def test_trusted_mode_baseline_plays_whole_games_and_is_never_called_clean() -> None:
    """The benchmark baseline: seat 0 deals with a seeded generator; every seat still sees only
    what it is dealt, and the audit refuses to call such a deal fair (or to blame its dealer)."""
    for game, seats in (("loveletter", 4), ("regicide", 2), ("rebelprincess", 3)):
        table = build_table(game, seats, seed=3, mode="trusted")
        table.run()
        replica = table.parties[1].table
        assert replica.ended == "over", game
        assert len({b"".join(log) for log in table.logs}) == 1
        assert not any(table.rejections)
        kinds = {parse_envelope(e).kind for e in table.logs[0]}
        assert "deal" in kinds and "shuffle" not in kinds and "tokens" not in kinds
        # seat 1 learned its own cards from sealed faces, and nobody else's before they were public
        party = table.parties[1]
        assert party.private_faces
        report = audit_of(table)
        # nothing was proved (the opener dealt), so nobody is named: exit 3, never 0
        assert report.exit_code == 3 and report.faults == [] and report.verdict == "not auditable"
        assert "a trusted game" in (report.unproved or "")
