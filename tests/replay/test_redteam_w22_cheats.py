"""Red team, wave 2 session 22: cheats signed with a party's own key, in all three games (each table
seats a witness too), that the earlier corpora do not hold, and geneses an opener (or anyone) can
sign that the audit must read without falling over.

- **Signed cheats** at their right place in the chain: a shuffle whose pile holds no point, a
  point-less or too-short ciphertext, a card dropped or doubled, a proof cut to nothing; a token that
  is no point, cut short, for a boolean or negative ref, copied from another entry (another
  context); a key share copied from another party, a seal key that is no point, a short salt; a move
  with a ``late`` mark on a closing table, with keys that are no strings, carrying nine parts or an
  empty one; a result re-ordered; a close with a field too many or a reason that is no text; an
  exposure of the genesis by itself, of no entry, of a negative or boolean entry; an accusation of
  nothing; a countersignature by the opener or by the witness out of its turn; an entry of a kind
  that does not exist. Each names exactly its signer, at its entry, and nobody else.
- **Geneses.** The body's keys are whatever msgpack holds: a genesis with fields of two types (a
  string and an integer, a string and bytes) made the fold raise ``TypeError`` while sorting their
  names for the message, and ``fairdeck audit`` printed a traceback (before the signature was even
  looked at, so anyone could make such a file). A refused option's value, an unknown field's name
  or an entry's format version can be megabytes long: the audit quoted each whole, and a file of a
  few megabytes made a report of as many.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p.log import LogError, pack, parse_envelope
from p2p.memtable import seeded_identity
from p2p.protocol import PartyInfo, Rejected, Table, genesis_body, make_genesis
from replay.audit import Fault, audit_envelopes
from tests.replay.redteam_w21_support import (
    GAMES,
    entries,
    forge,
    honest,
    identity,
    parties,
    run_audit,
    witness,
    write_log,
)
from tests.replay.redteam_w22_support import REPORT_LIMIT, audit, blamed, first_index

Cheat = Callable[[str], tuple[list[bytes], int, int]]
"""A cheat: given a game, the dishonest log, the party whose signature proves it and the entry."""


def _flip(blob: bytes) -> bytes:
    return blob[:-1] + bytes([blob[-1] ^ 1])


def _signed(
    game: str, k: int, body: dict[str, Any] | None = None, **changes: Any
) -> tuple[list[bytes], int, int]:
    """The honest log up to entry ``k``, then entry ``k`` changed and signed by the party it names."""
    if body is not None:
        changes["body"] = body
    forged = forge(honest(game)[k], **changes)
    return [*honest(game)[:k], forged], changes.get("seat", entries(game)[k].seat), k


def _shuffle(game: str) -> tuple[int, dict[str, Any]]:
    k = first_index(game, "shuffle")
    return k, entries(game)[k].body


def _tokens(game: str) -> tuple[int, list[Any]]:
    k = next(i for i, e in enumerate(entries(game)) if i > 8 and e.kind == "tokens" and e.body["tokens"])
    return k, entries(game)[k].body["tokens"]


def _move(game: str) -> tuple[int, dict[str, Any]]:
    k = first_index(game, "move", 12)
    return k, entries(game)[k].body


def _keyshare(game: str) -> tuple[int, dict[str, Any]]:
    k = first_index(game, "keyshare")
    return k, entries(game)[k].body


def _pile(game: str, change: Callable[[list[Any]], list[Any]]) -> tuple[list[bytes], int, int]:
    k, body = _shuffle(game)
    return _signed(game, k, {**body, "pile": change(list(body["pile"]))})


def _token(game: str, change: Callable[[list[Any]], list[Any]]) -> tuple[list[bytes], int, int]:
    k, tokens = _tokens(game)
    return _signed(game, k, {"tokens": [change(list(tokens[0])), *tokens[1:]]})


def _token_of_another_entry(game: str) -> tuple[list[bytes], int, int]:
    """A token proved for another entry of the same writer (its context names that entry)."""
    k, tokens = _tokens(game)
    es, seat = entries(game), entries(game)[k].seat
    other = next(
        i
        for i in range(k + 1, len(es))
        if es[i].kind == "tokens" and es[i].seat == seat and es[i].body["tokens"]
    )
    return _signed(game, k, {"tokens": [[tokens[0][0], es[other].body["tokens"][0][1]], *tokens[1:]]})


def _keyshare_of(
    game: str, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> tuple[list[bytes], int, int]:
    k, body = _keyshare(game)
    return _signed(game, k, change(dict(body)))


def _moved(game: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[list[bytes], int, int]:
    k, body = _move(game)
    return _signed(game, k, change(dict(body)))


def _final(game: str, change: Callable[[Any], Any]) -> tuple[list[bytes], int, int]:
    k = first_index(game, "final")
    return _signed(game, k, {"result": change(entries(game)[k].body["result"])})


def _close(game: str, body: dict[str, Any]) -> tuple[list[bytes], int, int]:
    """A party other than the one awaited closes the game with ``body``."""
    k, _ = _move(game)
    return _signed(game, k, body, seat=(entries(game)[k].seat + 1) % parties(game), kind="abandon")


def _in_place(game: str, kind: str, body: dict[str, Any]) -> tuple[list[bytes], int, int]:
    k, _ = _move(game)
    return _signed(game, k, body, kind=kind)


CHEATS: dict[str, Cheat] = {
    "a shuffled card that is no point": lambda g: _pile(g, lambda p: [b"\x02" + b"\xff" * 65, *p[1:]]),
    "a shuffled card of ten bytes": lambda g: _pile(g, lambda p: [b"\x02" * 10, *p[1:]]),
    "a shuffled card that is a number": lambda g: _pile(g, lambda p: [5, *p[1:]]),
    "a shuffle that doubles a card": lambda g: _pile(g, lambda p: [p[0], *p[:-1]]),
    "a shuffle that drops a card": lambda g: _pile(g, lambda p: p[:-1]),
    "a shuffle that reverses its output": lambda g: _pile(g, lambda p: p[::-1]),
    "a shuffle proof cut to nothing": lambda g: _signed(g, _shuffle(g)[0], {**_shuffle(g)[1], "proof": b""}),
    "a shuffle proof of zeros": lambda g: _signed(
        g, _shuffle(g)[0], {**_shuffle(g)[1], "proof": bytes(len(_shuffle(g)[1]["proof"]))}
    ),
    "a shuffle carrying a token no step owes": lambda g: _signed(
        g, _shuffle(g)[0], {**_shuffle(g)[1], "then": [[[0, b"x" * 97]]]}
    ),
    "a token with a flipped bit": lambda g: _token(g, lambda t: [t[0], _flip(t[1])]),
    "a token cut short": lambda g: _token(g, lambda t: [t[0], t[1][:33]]),
    "a token that is no point": lambda g: _token(g, lambda t: [t[0], b"\x02" + b"\xff" * (len(t[1]) - 1)]),
    "a token for ref true": lambda g: _token(g, lambda t: [True, t[1]]),
    "a token for ref -1": lambda g: _token(g, lambda t: [-1, t[1]]),
    "a token with a third field": lambda g: _token(g, lambda t: [*t, b""]),
    "tokens that are a map": lambda g: _signed(g, _tokens(g)[0], {"tokens": {"a": 1}}),
    "a token proved for another entry": _token_of_another_entry,
    "a key share with a 31-byte salt": lambda g: _keyshare_of(g, lambda b: {**b, "salt": b["salt"][:31]}),
    "a seal key that is no point": lambda g: _keyshare_of(g, lambda b: {**b, "seal": bytes(33)}),
    "a seal key of one byte": lambda g: _keyshare_of(g, lambda b: {**b, "seal": b"\x01"}),
    "a key share with a flipped bit": lambda g: _keyshare_of(g, lambda b: {**b, "share": _flip(b["share"])}),
    "the next party's key share": lambda g: _keyshare_of(
        g, lambda b: {**b, "share": entries(g)[_keyshare(g)[0] + 1].body["share"]}
    ),
    "a move marked late on a closing table": lambda g: _moved(g, lambda b: {**b, "late": True}),
    "a move marked late with 1": lambda g: _moved(g, lambda b: {**b, "late": 1}),
    "a move whose keys are no strings": lambda g: _moved(g, lambda b: {**b, "move": {1: 2, b"x": 3}}),
    "a move carrying one empty part": lambda g: _moved(g, lambda b: {**b, "then": [[]]}),
    "a move carrying nine parts": lambda g: _moved(g, lambda b: {**b, "then": [[]] * 9}),
    "a result with its keys re-ordered": lambda g: _final(g, lambda r: dict(reversed(list(r.items())))),
    "a result that is a list": lambda g: _final(g, lambda r: [1]),
    "a result with a key more": lambda g: _final(g, lambda r: {**r, "x": 1}),
    "a close with a field more": lambda g: _close(g, {"reason": "gone", "y": 1}),
    "a close whose reason is bytes": lambda g: _close(g, {"reason": b"gone"}),
    "an exposure of the genesis by itself": lambda g: _in_place(
        g, "expose", {"seq": 0, "evidence": honest(g)[0]}
    ),
    "an exposure of entry -1": lambda g: _in_place(g, "expose", {"seq": -1, "evidence": honest(g)[1]}),
    "an exposure of an entry far ahead": lambda g: _in_place(
        g, "expose", {"seq": 10**9, "evidence": honest(g)[1]}
    ),
    "an exposure whose evidence is a torn byte": lambda g: _in_place(
        g, "expose", {"seq": 3, "evidence": b"\x92"}
    ),
    "an exposure of entry true": lambda g: _in_place(g, "expose", {"seq": True, "evidence": honest(g)[1]}),
    "an accusation of a negative place": lambda g: _in_place(
        g, "accuse", {"seal_seq": -5, "ref": -1, "evidence": b""}
    ),
    "the opener countersigns": lambda g: _signed(g, 1, {"genesis": entries(g)[0].hash}, seat=0),
    "the witness countersigns first": lambda g: _signed(
        g, 1, {"genesis": entries(g)[0].hash}, seat=witness(g)
    ),
    "a trusted dealer's entry in a fair game": lambda g: _in_place(g, "deal", {}),
    "an entry of a kind that does not exist": lambda g: _in_place(g, "zzz", {"x": 1}),
}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_cheat_signed_with_its_own_key_names_exactly_its_signer(game: str, cheat: str) -> None:
    log, cheater, k = CHEATS[cheat](game)
    report = audit(log, game)
    assert report.exit_code == 1, report.text()
    assert blamed(report) == [(cheater, k)], report.text()
    assert report.headline().startswith(f"faults: {report.who(cheater)}"), report.headline()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_fairdeck_audit_names_a_witness_that_doubles_a_card_in_its_shuffle(game: str, tmp_path: Path) -> None:
    """The command on a real file: the witness's own shuffle, a card doubled and the proof kept."""
    es, w = entries(game), witness(game)
    k = first_index(game, "shuffle", seat=w)
    pile = es[k].body["pile"]
    forged = forge(honest(game)[k], body={**es[k].body, "pile": [pile[1], *pile[1:]]})
    path = write_log(tmp_path / "doubled.fdlog", [*honest(game)[:k], forged])
    done = run_audit("--json", str(path))
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert [(f["seat"], f["entry"]) for f in report["faults"]] == [(w, k)], report
    assert report["headline"].startswith(f"faults: party {w} (witness0, a witness)")


# -- geneses ----------------------------------------------------------------------------------------


def _genesis(game: str, change: Callable[[dict[str, Any]], None], signer: Any = None) -> bytes:
    seats = GAMES[game][0]
    keys = [identity(i) for i in range(seats)]
    body = genesis_body(
        game, seats, [PartyInfo(f"p{i}", k.public_key) for i, k in enumerate(keys)], GAMES[game][1]
    )
    change(body)
    return make_genesis(signer or keys[0], b"G" * 16, body)


MIXED_FIELDS: dict[str, Callable[[dict[str, Any]], None]] = {
    "a string and an integer": lambda b: b.update({1: 1, "x": 2}),
    "a string and bytes": lambda b: b.update({b"k": 1, "x": 2}),
    "an integer and bytes, with on_stall": lambda b: b.update({7: 1, b"k": 2, "on_stall": "bot"}),
}


@pytest.mark.parametrize("fields", sorted(MIXED_FIELDS))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_with_unknown_fields_of_two_types_is_unreadable_not_a_crash(game: str, fields: str) -> None:
    for signer in (None, seeded_identity("an outsider")):  # (the fields are read before the signature)
        genesis = _genesis(game, MIXED_FIELDS[fields], signer)
        report = audit_envelopes([genesis, *honest(game)[1:5]])
        assert report.exit_code == 2 and not report.faults, report.text()
        assert "not a valid genesis" in (report.unreadable or "") and "unknown fields" in (
            report.unreadable or ""
        )


def test_fairdeck_audit_of_a_genesis_with_unknown_fields_of_two_types_prints_no_traceback(
    tmp_path: Path,
) -> None:
    path = write_log(
        tmp_path / "mixed.fdlog", [_genesis("loveletter", MIXED_FIELDS["a string and an integer"])]
    )
    done = run_audit(str(path))  # (asserts no traceback and nothing on stderr)
    assert done.returncode == 2
    assert "VERDICT: UNREADABLE" in done.stdout and "unknown fields ['x', 1]" in done.stdout


HUGE = "A" * 5_000_000


def _huge_version(game: str) -> list[bytes]:
    """An honest log, then an entry whose format version is a string of megabytes (no signature: any
    outsider can append it)."""
    log = honest(game)
    payload = pack([HUGE, entries(game)[0].game, len(log), bytes(32), 0, "move", {}])
    return [*log, pack([payload, bytes(64)])]


def _huge_option(game: str) -> list[bytes]:
    """A genesis whose option the game refuses, quoting it: a value, or (Regicide quotes no value) a
    name."""
    option = {
        "loveletter": {"first_player": HUGE},
        "regicide": {HUGE: 1},
        "rebelprincess": {"round_cards": HUGE},
    }
    return [_genesis(game, lambda b: b["options"].update(option[game]))]


def _huge_field(game: str) -> list[bytes]:
    return [_genesis(game, lambda b: b.update({HUGE: 1}))]


def _huge_party_field(game: str) -> list[bytes]:
    return [_genesis(game, lambda b: b["parties"][1].update({HUGE: 1}))]


HUGE_WORDS: dict[str, Callable[[str], list[bytes]]] = {
    "an entry's format version": _huge_version,
    "a refused option's value": _huge_option,
    "an unknown field of the genesis": _huge_field,
    "an unknown field of a party": _huge_party_field,
}


@pytest.mark.parametrize("where", sorted(HUGE_WORDS))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_megabytes_in_a_quoted_field_make_a_report_of_a_few_lines(game: str, where: str) -> None:
    report = audit_envelopes(HUGE_WORDS[where](game))
    assert report.exit_code in (1, 2) and all(f.seat is None for f in report.faults), report.headline()
    assert len(report.text()) < REPORT_LIMIT and len(json.dumps(report.as_dict(), default=str)) < REPORT_LIMIT
    assert "AAAA" in report.text()  # (still quoted, cut short: the reader sees what was there)


@pytest.mark.parametrize("where", sorted(HUGE_WORDS))
def test_fairdeck_audit_of_megabytes_in_a_quoted_field_prints_a_few_lines(where: str, tmp_path: Path) -> None:
    path = write_log(tmp_path / "huge.fdlog", HUGE_WORDS[where]("regicide"))
    for args in ([str(path)], ["--json", str(path)]):
        done = run_audit(*args)
        assert done.returncode in (1, 2) and len(done.stdout) < REPORT_LIMIT, (where, len(done.stdout))


GENESIS_ODDITIES: dict[str, Callable[[dict[str, Any]], None]] = {
    "the proof named in capitals": lambda b: b.update(proof="WT"),
    "protocol 2": lambda b: b.update(protocol=2),
    "on_stall as a list": lambda b: b.update(on_stall=["bot"]),
    "a mode of bytes": lambda b: b.update(mode=b"fair"),
    "no seat": lambda b: b.update(seats=0),
    "seats past the parties": lambda b: b.update(seats=9),
    "a fresh value of 33 bytes": lambda b: b["parties"][1].update(fresh=b"f" * 33),
    "a name of bytes": lambda b: b["parties"][1].update(name=b"p1"),
    "a party that is a number": lambda b: b["parties"].__setitem__(1, 7),
    "a stall deadline past a day": lambda b: b.update(stall_after=86_401),
    "options with keys of two types": lambda b: b.update(options={1: 1, "x": 2}),
}


@pytest.mark.parametrize("oddity", sorted(GENESIS_ODDITIES))
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_with_bad_parameters_is_unreadable_and_names_nobody(game: str, oddity: str) -> None:
    report = audit_envelopes([_genesis(game, GENESIS_ODDITIES[oddity]), *honest(game)[1:3]])
    assert report.exit_code == 2 and not report.faults, report.text()
    assert "not a valid genesis" in (report.unreadable or "")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genesis_seating_a_key_no_one_can_sign_with_starts_no_game(game: str) -> None:
    """The opener seats a key that is no curve point: nobody can countersign, the game never starts
    and nobody is named (the others refused the table, as their policy does)."""
    genesis = _genesis(game, lambda b: b["parties"][1].update(key=b"\xff" * 32))
    report = audit_envelopes([genesis])
    assert report.exit_code == 3 and report.verdict == "not started" and not report.faults, report.text()


def test_the_log_reader_quotes_a_format_version_of_megabytes_cut_short() -> None:
    """Every peer and replay reads an envelope's version before anything else: the reason it gives
    for one of megabytes is a line, not megabytes (whoever prints it: audit, replay, a node's log)."""
    envelope = _huge_version("regicide")[-1]
    with pytest.raises(LogError) as refused:
        parse_envelope(envelope)
    assert str(refused.value).startswith("unsupported format version 'AAAA") and len(str(refused.value)) < 100


@pytest.mark.parametrize(
    "where", ["a refused option's value", "an unknown field of the genesis", "an unknown field of a party"]
)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_fold_refuses_a_genesis_of_megabytes_in_a_line(game: str, where: str) -> None:
    with pytest.raises(Rejected) as refused:
        Table(HUGE_WORDS[where](game)[0])
    assert "AAAA" in refused.value.reason and len(refused.value.reason) < 1000


def test_the_fold_names_unknown_genesis_fields_of_any_type() -> None:
    with pytest.raises(Rejected) as refused:
        Table(_genesis("regicide", lambda b: b.update({1: 1, "x": 2, b"y": 3, None: 4})))
    assert refused.value.reason == "genesis: unknown fields ['x', 1, None, b'y']"


def test_a_fault_holds_a_reason_of_a_few_lines_however_it_was_worded() -> None:
    """The last guard: whatever a rule's words quote (a game's own message, a plug-in's), a fault's
    reason and evidence stay bounded, so no file makes a report of megabytes."""
    fault = Fault(None, 3, "the reason " + HUGE, "the evidence " + HUGE)
    assert (
        fault.reason.startswith("the reason AAA")
        and len(fault.reason) <= 2000
        and len(fault.evidence) <= 2000
    )
    report = audit_envelopes(list(honest("regicide")))
    report.faults.append(fault)
    assert len(report.text()) < REPORT_LIMIT and len(json.dumps(report.as_dict(), default=str)) < REPORT_LIMIT
