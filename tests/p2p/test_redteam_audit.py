"""Red-team cases for ``fairdeck audit`` and the live fold, in all three games.

Each dishonest log is audited by the real command (``fairdeck audit --json`` on a real log file,
with a timeout), which must exit with the right code and name exactly the seat whose own signature
proves the fault, at that entry (or nobody, for what an outsider could have done). The same bytes
are then handed to an honest party's live fold (``Party.receive``), which must refuse them, or keep
them as proof against the same seat, the same way.

The cases are the classes around the ones the corpus (``tests/replay/test_audit_corpus.py``) and the
fuzz (``tests/replay/test_dishonest_fuzz.py``) already hold: an entry signed with a wrong ``prev``
(sequential, and a member of a concurrent step chained as if it were sequential), an entry at
another member's place of a concurrent step, carried parts for the wrong step, a token that is not
owed, an entry after the end, a genesis re-signed by another opener, a boolean where a body's or
the genesis's integer is due, and a claim in a committed choice disproved in play.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p.log import FORMAT_VERSION, Entry, LogWriter, group_hash, pack, parse_envelope
from p2p.memtable import build_table, seeded_identity
from p2p.party import Party
from p2p.protocol import carried_parts, make_genesis
from replay.audit import audit_envelopes
from tests.p2p.protocol_support import identity_of

ROOT = Path(__file__).resolve().parents[2]
GAMES: dict[str, tuple[int, dict[str, Any] | None]] = {
    "loveletter": (3, None),
    "regicide": (2, None),
    "rebelprincess": (3, {"rounds": 3}),
}
SEED = 21
NOBODY = None


@functools.cache
def honest(game: str) -> tuple[bytes, ...]:
    """An honest fair game's log (seat 0's copy)."""
    seats, options = GAMES[game]
    table = build_table(game, seats, seed=SEED, options=options, shuffle_rounds=4)
    table.run()
    assert table.parties[0].table.ended == "over"
    return tuple(table.logs[0])


@functools.cache
def entries(game: str) -> tuple[Entry, ...]:
    return tuple(parse_envelope(e) for e in honest(game))


def forge(envelope: bytes, **changes: Any) -> bytes:
    """``envelope`` with payload fields changed, signed by the key of the seat it then names (no
    structure checks: a cheat can sign any payload)."""
    entry = parse_envelope(envelope)
    fields = {"game": entry.game, "seq": entry.seq, "prev": entry.prev, "seat": entry.seat,
              "kind": entry.kind, "body": entry.body, **changes}  # fmt: skip
    payload = pack([FORMAT_VERSION, fields["game"], fields["seq"], fields["prev"], fields["seat"],
                    fields["kind"], fields["body"]])  # fmt: skip
    return pack([payload, identity_of(SEED, fields["seat"]).sign(payload)])


def cli_audit(tmp_path: Path, *logs: list[bytes]) -> tuple[int, dict[str, Any]]:
    """``fairdeck audit --json`` of ``logs``, each written as a node writes it (format 3)."""
    paths = []
    for index, log in enumerate(logs):
        path = tmp_path / f"log{index}.fdlog"
        path.unlink(missing_ok=True)
        with LogWriter(path) as writer:
            for envelope in log:
                writer.append(envelope, sync=False)
        paths.append(str(path))
    done = subprocess.run(
        [sys.executable, "-m", "fairdeck.cli", "audit", "--json", *paths],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert "Traceback" not in done.stdout + done.stderr and not done.stderr.strip(), done.stderr
    return done.returncode, json.loads(done.stdout)


def blamed(report: dict[str, Any]) -> list[tuple[int | None, int | None]]:
    return [(f["seat"], f["entry"]) for f in report["faults"]]


def live(game: str, held: int, envelope: bytes, party: int) -> tuple[bool, Any]:
    """An honest ``party`` that holds the honest log's first ``held`` entries receives ``envelope``:
    whether it was taken as the entry at ``held``, and the party's replica."""
    receiver = Party(identity_of(SEED, party), honest(game)[0])
    receiver.restore(honest(game)[1:held])
    effects = receiver.receive(envelope)
    taken = any(e.kind == "accepted" and e.envelope == envelope for e in effects)
    return taken, receiver.table


def another(game: str, seat: int) -> int:
    return (seat + 1) % GAMES[game][0]


# -- cases: (the dishonest log, the one blamed as (seat, entry) or nobody, the refused entry) ----------


def _sequential_move(game: str) -> int:
    return next(i for i, e in enumerate(entries(game)) if e.kind == "move" and i > 10)


def _second_member(game: str) -> int:
    """A member of a concurrent tokens step after the first one (same ``prev`` as the entry before)."""
    es = entries(game)
    return next(
        i
        for i in range(10, len(es))
        if es[i].kind == es[i - 1].kind == "tokens" and es[i].prev == es[i - 1].prev
    )


def _wrong_prev_sequential(game: str) -> tuple[list[bytes], int, Any]:
    k = _sequential_move(game)
    forged = forge(honest(game)[k], prev=hashlib.sha256(b"another history").digest())
    return [*honest(game)[:k], forged], k, NOBODY


def _member_chained_as_sequential(game: str) -> tuple[list[bytes], int, Any]:
    """A member of a concurrent step must extend the step's base, not the member before it."""
    k = _second_member(game)
    forged = forge(honest(game)[k], prev=entries(game)[k - 1].hash)
    return [*honest(game)[:k], forged], k, NOBODY


def _member_at_anothers_place(game: str) -> tuple[list[bytes], int, Any]:
    """A member signs its entry for the place of the member before it (same base, its own tokens)."""
    k = _second_member(game)
    forged = forge(honest(game)[k], seq=k - 1)
    return [*honest(game)[: k - 1], forged], k - 1, entries(game)[k].seat


def _first_carrying(game: str, parts: int = 1) -> int:
    return next(i for i, e in enumerate(entries(game)) if len(carried_parts(e.body)) >= parts)


def _then_leading_empty_part(game: str) -> tuple[list[bytes], int, Any]:
    """An empty part first: the step the entry began owes tokens that part does not give (and its
    real tokens then ride as a part for the step after)."""
    k = _first_carrying(game)
    entry = entries(game)[k]
    forged = forge(honest(game)[k], body={**entry.body, "then": [[], *carried_parts(entry.body)]})
    return [*honest(game)[:k], forged], k, entry.seat


def _then_on_a_move_that_begins_nothing(game: str) -> tuple[list[bytes], int, Any]:
    es = entries(game)
    k = next(i for i, e in enumerate(es) if e.kind == "move" and "then" not in e.body)
    parts = carried_parts(es[_first_carrying(game)].body)
    forged = forge(honest(game)[k], body={**es[k].body, "then": parts})
    return [*honest(game)[:k], forged], k, es[k].seat


def _then_parts_swapped(game: str) -> tuple[list[bytes], int, Any]:
    es = entries(game)
    two = [i for i, e in enumerate(es) if len(carried_parts(e.body)) >= 2]
    k = two[0] if two else _first_carrying(game)
    parts = carried_parts(es[k].body)
    swapped = [parts[1], parts[0], *parts[2:]] if len(parts) >= 2 else [parts[0], parts[0]]
    forged = forge(honest(game)[k], body={**es[k].body, "then": swapped})
    return [*honest(game)[:k], forged], k, es[k].seat


def _token_not_owed(game: str) -> tuple[list[bytes], int, Any]:
    es = entries(game)
    k = next(i for i in range(10, len(es)) if es[i].kind == "tokens" and es[i].body["tokens"])
    tokens = es[k].body["tokens"]
    forged = forge(honest(game)[k], body={"tokens": [*tokens, [tokens[0][0] + 1, tokens[0][1]]]})
    return [*honest(game)[:k], forged], k, es[k].seat


def _entry_after_the_end(game: str) -> tuple[list[bytes], int, Any]:
    """A party signs one more ``final`` extending the finished game's head: an honest node keeps
    nothing after the end, so whoever added it to the file is not known from the file."""
    es, k = entries(game), len(honest(game))
    head = group_hash([e.hash for e in es if e.kind == "final"])
    forged = forge(honest(game)[-1], seq=k, prev=head, seat=0)
    return [*honest(game), forged], k, NOBODY


CASES: dict[str, Callable[[str], tuple[list[bytes], int, Any]]] = {
    "a sequential entry with a wrong prev": _wrong_prev_sequential,
    "a concurrent member chained as if sequential": _member_chained_as_sequential,
    "a concurrent member at another member's place": _member_at_anothers_place,
    "a leading empty carried part": _then_leading_empty_part,
    "carried parts on a move that begins no tokens step": _then_on_a_move_that_begins_nothing,
    "carried parts for the wrong steps": _then_parts_swapped,
    "a token that is not owed": _token_not_owed,
    "an entry after the end": _entry_after_the_end,
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_audit_command_and_the_live_fold_agree_on_who_signed_it(
    tmp_path: Path, game: str, case: str
) -> None:
    log, k, guilty = CASES[case](game)
    code, report = cli_audit(tmp_path, log)
    assert code == 1, report
    if guilty is NOBODY:
        assert blamed(report) == [(NOBODY, k)], report
        assert "no seat can be blamed" in report["faults"][0]["reason"], report
    else:
        assert blamed(report) == [(guilty, k)], report
    honest_seats = set(range(GAMES[game][0])) - {guilty}
    assert not {f["seat"] for f in report["faults"]} & honest_seats, report
    if k >= len(honest(game)):
        return  # after the end: no live party is still at that place
    writer = parse_envelope(log[k]).seat
    taken, replica = live(game, k, log[k], another(game, writer))
    if guilty is NOBODY:
        assert not taken and replica.ended is None and replica.findings == [], replica.findings
    elif replica.ended == "faulted":  # steps 9-11: kept as proof against its writer
        assert taken and [(f.seat, f.seq) for f in replica.findings] == [(guilty, k)]
    else:  # steps 1-8 (out of turn): refused, the replica unchanged; only the audit of a file holds it
        assert not taken and replica.findings == []
        assert "out of turn" in report["faults"][0]["reason"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_re_signed_by_another_opener_blames_nobody_alone_or_beside_the_real_log(
    tmp_path: Path, game: str
) -> None:
    log = honest(game)
    genesis = parse_envelope(log[0])
    mallory = seeded_identity("mallory")
    parties = [{**genesis.body["parties"][0], "key": mallory.public_key}, *genesis.body["parties"][1:]]
    doctored = [make_genesis(mallory, genesis.game, {**genesis.body, "parties": parties}), *log[1:]]
    code, report = cli_audit(tmp_path, doctored)
    assert code == 1 and blamed(report) == [(NOBODY, 1)], report
    code, both = cli_audit(tmp_path, doctored, list(log))
    assert code == 1, both
    assert blamed(both["logs"][0]) == [(NOBODY, 1)] and blamed(both["logs"][1]) == []
    assert [(f["seat"], f["entry"]) for f in both["comparison"]["faults"]] == [(NOBODY, 0)], both


# -- regressions ---------------------------------------------------------------------------------


def _first_sealed_to_0_or_1(game: str) -> int:
    return next(
        i
        for i, e in enumerate(entries(game))
        if e.kind == "sealed" and any(to in (0, 1) for _, to, _ in e.body["seals"])
    )


@pytest.mark.parametrize("game", ["loveletter", "rebelprincess"])  # (Regicide shows nothing privately)
def test_a_boolean_for_the_party_a_token_is_sealed_to_is_proof_against_its_writer(
    tmp_path: Path, game: str
) -> None:
    """docs/protocol.md §3: no boolean where an integer is due. ``[ref, true, blob]`` passed for a
    seal to party 1 (``True == 1``): the audit said CLEAN SO FAR and every replica took it."""
    k = _first_sealed_to_0_or_1(game)
    entry = entries(game)[k]
    seals = [[ref, bool(to) if to in (0, 1) else to, blob] for ref, to, blob in entry.body["seals"]]
    log = [*honest(game)[:k], forge(honest(game)[k], body={"seals": seals})]
    code, report = cli_audit(tmp_path, log)
    assert code == 1 and blamed(report) == [(entry.seat, k)], report
    taken, replica = live(game, k, log[k], another(game, entry.seat))
    assert taken and replica.ended == "faulted"
    assert [(f.seat, f.seq) for f in replica.findings] == [(entry.seat, k)]


@pytest.mark.parametrize("field", ["seats", "stall_after", "shuffle_rounds"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_with_a_boolean_for_a_number_is_no_genesis(tmp_path: Path, game: str, field: str) -> None:
    """``seats: true`` is no number of seats (it was taken as 1), nor ``stall_after: true`` a
    deadline: such a genesis is refused like one with an unknown field."""
    genesis = parse_envelope(honest(game)[0])
    doctored = make_genesis(identity_of(SEED, 0), genesis.game, {**genesis.body, field: True})
    code, report = cli_audit(tmp_path, [doctored])
    assert code == 2 and report["faults"] == [], report
    assert f"field '{field}' missing or not a int" in report["unreadable"], report
    with pytest.raises(Exception, match=field):
        Party(identity_of(SEED, 1), doctored)


def test_a_claim_in_a_committed_choice_disproved_in_play_is_cited_at_its_authors_open(tmp_path: Path) -> None:
    """Rebel Princess's Crystal Ball round: every seat commits to a suit and the cards of it it
    lays out, and they are turned over at once. A seat that lays out a card of another suit is
    caught in play (the game's ``fault``); the audit named the right seat, but at the opening that
    completed the step — the last opener's, an honest seat's entry — not the liar's own ``open``
    (docs/protocol.md §6: "its own open for a committed choice")."""
    from engine.rebelprincess.cards import suit_of

    liar = 1
    options = {"rounds": 3, "round_cards": "hwf"}  # the Crystal Ball round first
    table = build_table("rebelprincess", 3, seed=0, options=options, shuffle_rounds=4)
    party = table.parties[liar]
    decide, lied = party.decide, []

    def lay_out_a_card_of_another_suit(move: dict[str, Any], *, late: bool = False) -> Any:
        faces, hand = party.known_faces(), party.table.state.hands[liar]
        other = [r for r in hand if r not in move.get("cards", ()) and suit_of(faces[r]) != move.get("suit")]
        if lied or "suit" not in move or not other:
            return decide(move, late=late)
        lied.append({**move, "cards": sorted([*move["cards"], other[0]])})
        party._pending_choice, party._pending_for = lied[-1], party.table.step.start_seq
        return party._act()

    party.decide = lay_out_a_card_of_another_suit  # type: ignore[method-assign]
    table.run()
    assert lied, "the liar never laid out its cards"
    log = table.logs[0]
    opens = [i for i, e in enumerate(map(parse_envelope, log)) if e.kind == "open" and e.seat == liar]
    own = opens[-1]
    assert parse_envelope(log[own]).body["value"] == pack(lied[0])
    code, report = cli_audit(tmp_path, log)
    assert code == 1 and blamed(report) == [(liar, own)], report
    assert "claim disproved in play" in report["faults"][0]["reason"]
    assert [(f.seat, f.seq) for f in audit_envelopes(log).faults] == [(liar, own)]
