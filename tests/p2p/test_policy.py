"""Unit tests for ``p2p.policy``: every rule a joiner applies before it countersigns a genesis.

The rules are pure functions; these tests feed them genesis bodies built by the protocol's own
``genesis_body`` (so the fields are exactly what a node receives) and change one thing at a time.
"""

from __future__ import annotations

from dataclasses import replace as dataclasses_replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p import policy
from p2p.identity import Identity, fingerprint
from p2p.policy import CC, FLOOR, WT, Joiner, PolicyError, Proof, Start, Terms
from p2p.protocol import PartyInfo, genesis_body

OPENER = Identity.from_secret(b"o" * 32)
JOINER = Identity.from_secret(b"j" * 32)
OPENER_CURVE, JOINER_CURVE = b"O" * 32, b"J" * 32
GAME_ID = bytes(range(16))


def body(**over: Any) -> dict[str, Any]:
    """A two-seat Love Letter genesis body as an honest opener writes it (WT proof, 300 s)."""
    parties = over.pop("parties", None) or [
        PartyInfo("ann", OPENER.public_key, OPENER_CURVE),
        PartyInfo("bob", JOINER.public_key, JOINER_CURVE),
    ]
    out = genesis_body("loveletter", over.pop("seats", 2), parties, over.pop("options", {}), 80, "fair")
    out.update({"proof": WT, "stall_after": 300})
    out.update(over)
    return out


def shown(**over: Any) -> Terms:
    """What the bootstrap reply showed the joiner for :func:`body`."""
    fields: dict[str, Any] = {
        "game": "loveletter",
        "seats": 2,
        "options": {},
        "mode": "fair",
        "proof": Proof(WT),
        "stall_after": 300,
        "opener": OPENER.public_key,
        "fp": OPENER.fingerprint,
        "witnesses": 0,
        "on_stall": "close",
    }
    fields.update(over)
    return Terms(**fields)


def joiner(tmp_path: Path, **over: Any) -> Joiner:
    fields: dict[str, Any] = {
        "key": JOINER.public_key,
        "curve": JOINER_CURVE,
        "name": "bob",
        "role": "player",
        "shown": shown(),
        "opener_curve": OPENER_CURVE,
        "games_dir": tmp_path / "games",
    }
    fields.update(over)
    return Joiner(**fields)


def judge(tmp_path: Path, genesis: dict[str, Any], sender: bytes = OPENER_CURVE, **me: Any) -> str | None:
    endpoints = len(genesis["parties"])
    return policy.judge_start(Start(genesis, GAME_ID, sender, endpoints), joiner(tmp_path, **me))


# ---------------------------------------------------------------------------------------------
# the honest table passes
# ---------------------------------------------------------------------------------------------


def test_the_honest_genesis_is_accepted(tmp_path: Path) -> None:
    assert judge(tmp_path, body()) is None
    assert Terms.from_genesis(body()) == shown()


# ---------------------------------------------------------------------------------------------
# proofs and the floor
# ---------------------------------------------------------------------------------------------


def test_proofs_parse_print_and_compare() -> None:
    assert Proof.parse("wt") == Proof(WT) == FLOOR and str(Proof(WT)) == "wt"
    assert Proof.parse("cc:80") == Proof(CC, 80) and str(Proof(CC, 80)) == "cc:80"
    assert Proof(WT).describe() == "Wikström–Terelius"
    assert Proof(CC, 80).describe() == "cut-and-choose 2^-80"
    assert Proof(WT).at_least(FLOOR) and Proof(WT).at_least(Proof(CC, 256))
    assert not Proof(CC, 256).at_least(FLOOR)
    assert Proof(CC, 80).at_least(Proof(CC, 80)) and not Proof(CC, 79).at_least(Proof(CC, 80))
    for bad in ("", "cc", "cc:", "cc:0", "cc:257", "cc:-1", "wt:80", "CC:80", "cc:1e2", None, 80):
        with pytest.raises(PolicyError):
            Proof.parse(bad)
    for kind, rounds in ((WT, 5), (CC, 0), (CC, True), ("bg", 0)):
        with pytest.raises(PolicyError):
            Proof(kind, rounds)


def test_the_floor_is_wikstrom_terelius_unless_the_test_override_lowers_it() -> None:
    assert policy.proof_floor({}) == FLOOR
    assert policy.proof_floor({policy.FLOOR_ENV: ""}) == FLOOR
    assert policy.proof_floor({policy.FLOOR_ENV: "cc:80"}) == Proof(CC, 80)
    with pytest.raises(PolicyError, match="FAIRDECK_TEST_PROOF_FLOOR"):
        policy.proof_floor({policy.FLOOR_ENV: "none"})


def test_a_genesis_without_a_proof_field_is_cut_and_choose_with_its_rounds() -> None:
    old = body()
    del old["proof"]
    assert policy.proof_of_genesis(old) == Proof(CC, 80)
    assert policy.proof_of_genesis(body(proof=CC, shuffle_rounds=12)) == Proof(CC, 12)
    assert policy.proof_of_genesis(body()) == Proof(WT)
    with pytest.raises(PolicyError, match="no shuffle proof"):
        policy.proof_of_genesis(body(proof="bg"))


def test_cut_and_choose_is_below_the_floor(tmp_path: Path) -> None:
    genesis = body(proof=CC, shuffle_rounds=80)
    reason = judge(tmp_path, genesis, shown=shown(proof=Proof(CC, 80)))
    assert reason == (
        "the shuffle proof would be cut-and-choose 2^-80, below this player's floor (Wikström–Terelius)"
    )
    # the test-only floor lets 80 rounds in, and not 79
    floor = Proof(CC, 80)
    assert judge(tmp_path, genesis, shown=shown(proof=Proof(CC, 80)), floor=floor) is None
    low = body(proof=CC, shuffle_rounds=79)
    assert "2^-79, below" in str(judge(tmp_path, low, shown=shown(proof=Proof(CC, 79)), floor=floor))
    # a genesis of the protocol before WT (no "proof" field) is judged as cut-and-choose
    old = body(shuffle_rounds=40)
    del old["proof"]
    assert "cut-and-choose 2^-40, below" in str(judge(tmp_path, old))


def test_fewer_rounds_than_shown_are_refused_even_above_the_floor(tmp_path: Path) -> None:
    reason = judge(
        tmp_path, body(proof=CC, shuffle_rounds=20), shown=shown(proof=Proof(CC, 80)), floor=Proof(CC, 8)
    )
    assert reason is not None and "proof cut-and-choose 2^-20 instead of cut-and-choose 2^-80" in reason


# ---------------------------------------------------------------------------------------------
# mode
# ---------------------------------------------------------------------------------------------


def test_trusted_mode_only_for_a_player_who_asked_for_it(tmp_path: Path) -> None:
    assert policy.check_mode("fair", False) is None
    assert policy.check_mode("trusted", True) is None
    assert "seat 0 would see every card" in str(policy.check_mode("trusted", False))
    assert "unknown mode" in str(policy.check_mode("open-hands", True))
    genesis = body(mode="trusted")
    assert "trusted mode" in str(judge(tmp_path, genesis))
    # --allow-trusted does not let a table advertised as fair switch to trusted
    assert "trusted mode" in str(judge(tmp_path, genesis, allow_trusted=True))
    assert judge(tmp_path, genesis, allow_trusted=True, shown=shown(mode="trusted")) is None


# ---------------------------------------------------------------------------------------------
# terms: what the player was shown
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"options": {"edition": 2019}}, 'options {"edition":2019} instead of {}'),
        ({"stall_after": 5}, "stall deadline 5 instead of 300"),
        ({"game": "regicide"}, "game regicide instead of loveletter"),
    ],
)
def test_a_genesis_other_than_shown_is_refused(tmp_path: Path, change: dict[str, Any], words: str) -> None:
    reason = judge(tmp_path, body(**change))
    assert reason is not None and reason.startswith("the genesis differs from the table you joined: ")
    assert words in reason


def test_seats_and_witnesses_other_than_shown_are_refused(tmp_path: Path) -> None:
    three = [
        PartyInfo("ann", OPENER.public_key, OPENER_CURVE),
        PartyInfo("bob", JOINER.public_key, JOINER_CURVE),
        PartyInfo("cy", Identity.from_secret(b"c" * 32).public_key, b"C" * 32),
    ]
    assert "seats 3 instead of 2" in str(judge(tmp_path, body(parties=three, seats=3)))
    assert "witnesses 1 instead of 0" in str(judge(tmp_path, body(parties=three, seats=2)))


def test_another_opener_key_is_refused(tmp_path: Path) -> None:
    other = Identity.from_secret(b"x" * 32)
    parties = [
        PartyInfo("ann", other.public_key, OPENER_CURVE),
        PartyInfo("bob", JOINER.public_key, JOINER_CURVE),
    ]
    reason = judge(tmp_path, body(parties=parties))
    assert reason is not None and f"opener {other.fingerprint} instead of {OPENER.fingerprint}" in reason


def test_terms_never_shown_are_refused(tmp_path: Path) -> None:
    assert judge(tmp_path, body(), shown=None) == "this player was shown no terms for this table"


def test_terms_round_trip_through_the_bootstrap_reply_and_the_advertisement() -> None:
    terms = shown(options={"edition": 2019, "x": None, "y": True}, proof=Proof(CC, 12), stall_after=7)
    assert Terms.from_wire(terms.to_wire()) == terms
    txt = terms.to_txt()
    assert txt == {
        "mode": "fair",
        "proof": "cc:12",
        "opts": '{"edition":2019,"x":null,"y":true}',
        "stall": "7",
        "late": "close",
    }
    assert policy.parse_options(txt["opts"]) == terms.options
    late = shown(on_stall="bot")
    assert Terms.from_wire(late.to_wire()) == late and late.to_txt()["late"] == "bot"
    assert late.describe().endswith("stall deadline 300 s (then a safe move is played for a late player)")
    assert late.differences(shown()) == ["on a stall bot instead of close"]
    assert terms.describe() == (
        "loveletter, 2 seats, fair, proof: cut-and-choose 2^-12, options: edition=2019, x=None, y=true, "
        "stall deadline 7 s"
    )
    assert "TRUSTED (seat 0 sees every card)" in shown(mode="trusted").describe()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"game": None}, "which game"),
        ({"seats": 0}, "how many seats"),
        ({"witnesses": "1"}, "how many seats"),
        ({"mode": "open"}, "deals fairly"),
        ({"id": b"short"}, "who opened it"),
        ({"fp": fingerprint(b"z" * 32)}, "fingerprint does not belong"),
        ({"stall": 0}, "stall deadline must be"),
        ({"stall": True}, "stall deadline must be"),
        ({"options": {"a": [1]}}, "plain values"),
        ({"options": "x"}, "plain values"),
        ({"proof": "cc:0"}, "not a shuffle proof"),
    ],
)
def test_a_bootstrap_reply_without_proper_terms_is_refused(change: dict[str, Any], reason: str) -> None:
    with pytest.raises(PolicyError, match=reason):
        Terms.from_wire({**shown().to_wire(), **change})


def test_advertised_options_are_bounded_plain_json() -> None:
    assert policy.parse_options('{"a":1,"b":"x","c":false,"d":null}') == {
        "a": 1,
        "b": "x",
        "c": False,
        "d": None,
    }
    for bad in ("[1]", '{"a":{"b":1}}', '{"a":1.5}', "nope", "[" * 150 + "]" * 150):
        with pytest.raises(PolicyError):
            policy.parse_options(bad)
    with pytest.raises(PolicyError, match="too long"):
        policy.parse_options('{"a":"' + "x" * 300 + '"}')


def test_judge_terms_is_what_a_player_checks_before_joining_and_the_opener_before_opening() -> None:
    assert policy.judge_terms(shown(), allow_trusted=False, floor=FLOOR) is None
    assert "trusted mode" in str(policy.judge_terms(shown(mode="trusted"), allow_trusted=False, floor=FLOOR))
    assert policy.judge_terms(shown(mode="trusted"), allow_trusted=True, floor=FLOOR) is None
    low = shown(proof=Proof(CC, 40))
    assert "below this player's floor" in str(policy.judge_terms(low, allow_trusted=False, floor=FLOOR))
    assert policy.judge_terms(low, allow_trusted=False, floor=Proof(CC, 40)) is None
    assert "stall deadline" in str(policy.judge_terms(shown(stall_after=0), allow_trusted=False, floor=FLOOR))
    big = shown(options={"k": "x" * 250})
    assert "more than 200 bytes" in str(policy.judge_terms(big, allow_trusted=False, floor=FLOOR))


# ---------------------------------------------------------------------------------------------
# stall deadline
# ---------------------------------------------------------------------------------------------


def test_the_stall_deadline_is_whole_seconds_in_range(tmp_path: Path) -> None:
    assert policy.check_stall(1) is None and policy.check_stall(86_400) is None
    for bad in (0, -5, 86_401, 2.5, "300", None, True):
        assert policy.check_stall(bad) is not None
    assert "stall deadline must be" in str(judge(tmp_path, body(stall_after=0), shown=shown(stall_after=0)))
    # a genesis without the field has the default deadline
    old = body()
    del old["stall_after"]
    assert Terms.from_genesis(old).stall_after == policy.DEFAULT_STALL_AFTER
    assert judge(tmp_path, old) is None


# ---------------------------------------------------------------------------------------------
# fresh game id
# ---------------------------------------------------------------------------------------------


def test_a_game_id_with_a_log_on_this_machine_is_refused(tmp_path: Path) -> None:
    games = tmp_path / "games"
    assert policy.check_fresh(GAME_ID, games) is None
    games.mkdir()
    (games / f"{bytes(16).hex()}.fdlog").write_bytes(b"another game")
    assert policy.check_fresh(GAME_ID, games) is None
    (games / f"{GAME_ID.hex()}.fdlog").write_bytes(b"")
    reason = judge(tmp_path, body())
    assert reason is not None and "already used on this machine" in reason and GAME_ID.hex()[:12] in reason


# ---------------------------------------------------------------------------------------------
# who sent the start
# ---------------------------------------------------------------------------------------------


def test_a_start_only_from_the_opener_mesh_key_seated_at_party_0(tmp_path: Path) -> None:
    assert (
        judge(tmp_path, body(), sender=b"S" * 32) == "a start message came from a peer that is not the opener"
    )
    assert judge(tmp_path, body(), opener_curve=None) is not None
    # party 0 of the genesis holds another mesh key than the one we bootstrapped from
    parties = [
        PartyInfo("ann", OPENER.public_key, b"S" * 32),
        PartyInfo("bob", JOINER.public_key, JOINER_CURVE),
    ]
    assert (
        judge(tmp_path, body(parties=parties)) == "the genesis seats someone else than the opener at party 0"
    )


def test_the_start_lists_one_endpoint_per_party(tmp_path: Path) -> None:
    me = joiner(tmp_path)
    assert "1 endpoints for 2 parties" in str(policy.judge_start(Start(body(), GAME_ID, OPENER_CURVE, 1), me))


# ---------------------------------------------------------------------------------------------
# names and our own seat
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", " ", "evil\x1b[2J", "rtl\u202eevil", "x" * 41, "two\nlines"])
def test_every_party_name_is_printable(tmp_path: Path, name: str) -> None:
    parties = [
        PartyInfo(name, OPENER.public_key, OPENER_CURVE),
        PartyInfo("bob", JOINER.public_key, JOINER_CURVE),
    ]
    reason = judge(tmp_path, body(parties=parties))
    assert reason is not None and reason.startswith("party 0's name is not 1-40 printable characters")
    assert "\x1b" not in reason and "\n" not in reason and "\u202e" not in reason
    assert policy.check_names(["ann", "Zoë", "李"]) is None


def test_our_own_seat_is_the_one_we_asked_for(tmp_path: Path) -> None:
    other = Identity.from_secret(b"z" * 32)
    stranger = [
        PartyInfo("ann", OPENER.public_key, OPENER_CURVE),
        PartyInfo("bob", other.public_key, JOINER_CURVE),
    ]
    assert judge(tmp_path, body(parties=stranger)) == "the genesis does not seat this player"
    renamed = [
        PartyInfo("ann", OPENER.public_key, OPENER_CURVE),
        PartyInfo("bobby", JOINER.public_key, JOINER_CURVE),
    ]
    assert "another name or transport key" in str(judge(tmp_path, body(parties=renamed)))
    moved = [
        PartyInfo("ann", OPENER.public_key, OPENER_CURVE),
        PartyInfo("bob", JOINER.public_key, b"M" * 32),
    ]
    assert "another name or transport key" in str(judge(tmp_path, body(parties=moved)))
    # we asked for a witness place and were seated as a player
    reason = judge(tmp_path, body(), role="witness")
    assert reason == "the genesis seats this player as a player, not a witness"


def test_rules_are_applied_in_order_and_the_first_refusal_is_given(tmp_path: Path) -> None:
    # everything wrong at once: the sender comes first (nothing else from a stranger is worth judging)
    bad = body(mode="trusted", proof=CC, shuffle_rounds=2, stall_after=0, options={"a": 1})
    assert judge(tmp_path, bad, sender=b"S" * 32) == "a start message came from a peer that is not the opener"
    assert "trusted mode" in str(judge(tmp_path, bad))


# ---------------------------------------------------------------------------------------------
# the terms on the LAN: TXT record, `fairdeck tables` and the lobby's list
# ---------------------------------------------------------------------------------------------


def _txt(**over: str | None) -> dict[bytes, bytes | None]:
    fields: dict[str, str | None] = {
        "name": "Kitchen",
        "game": "loveletter",
        "seats": "2",
        "free": "1",
        "proto": "1",
        "fp": OPENER.fingerprint,
        **shown().to_txt(),
    }
    fields.update(over)
    return {k.encode(): None if v is None else v.encode() for k, v in fields.items()}


def test_the_advertisement_carries_the_terms_and_they_read_back() -> None:
    from p2p.discovery import parse_table

    table = parse_table("s", _txt(), ["127.0.0.1"], 5555)
    assert table.terms() == dataclasses_replace(shown(), opener=None, witnesses=None)
    assert table.terms_text() == "fair · proof: Wikström–Terelius · no options · stall deadline 300 s"
    cc = parse_table(
        "s", _txt(proof="cc:40", mode="trusted", opts='{"edition":2019}', stall="9"), ["127.0.0.1"], 1
    )
    assert cc.terms_text() == (
        "TRUSTED (seat 0 sees every card) · proof: cut-and-choose 2^-40 · edition=2019 · stall deadline 9 s"
    )
    # whatever the options hold is shown inert
    escape = parse_table("s", _txt(opts='{"k":"\\u001b[2J"}'), ["127.0.0.1"], 1)
    assert escape.terms_text() == "fair · proof: Wikström–Terelius · k=\\x1b[2J · stall deadline 300 s"
    # an older advertiser states no terms: listed as such, and nothing to hold the table to
    old = parse_table("s", _txt(mode=None, proof=None, opts=None, stall=None), ["127.0.0.1"], 1)
    assert old.terms() is None and "terms not advertised" in old.terms_text()


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("mode", "open", "'mode' must be"),
        ("proof", "cc:0", "'proof' must be"),
        ("opts", "[1]", "'opts'"),
        ("opts", '{"a":{"b":1}}', "'opts'"),
        ("stall", "0", "'stall'=0 is outside"),
        ("stall", "5 s", "'stall' is not a small decimal"),
    ],
)
def test_malformed_advertised_terms_are_refused(field: str, value: str, reason: str) -> None:
    from p2p.discovery import parse_table

    with pytest.raises(ValueError, match=reason):
        parse_table("s", _txt(**{field: value}), ["127.0.0.1"], 1)


def test_the_lan_lobby_shows_each_tables_terms_under_it() -> None:
    import asyncio

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from fairdeck.console.lobby import TablePicker
    from p2p.discovery import Change, parse_table

    async def main() -> tuple[list[str], TablePicker, str | None]:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            picker = TablePicker(["127.0.0.1"])
            attic = parse_table("a", _txt(name="Attic", proof="cc:40"), ["127.0.0.1"], 1)
            picker.on_change(Change.ADDED, attic)
            picker.on_change(Change.ADDED, parse_table("b", _txt(name="Barn"), ["127.0.0.1"], 2))
            rows = "".join(text for _, text in picker._rows()).splitlines()
            running = asyncio.create_task(picker.app.run_async())
            while not picker.app.is_running:
                await asyncio.sleep(0.01)
            picker.cursor = 1
            keys.send_text("\r")
            return rows, picker, await asyncio.wait_for(running, 30)

    rows, picker, address = asyncio.run(main())
    assert rows[0].startswith("▶ Attic") and rows[2].startswith("  Barn")
    assert rows[1] == "    fair · proof: cut-and-choose 2^-40 · no options · stall deadline 300 s"
    assert rows[3] == "    fair · proof: Wikström–Terelius · no options · stall deadline 300 s"
    assert address == "127.0.0.1:2" and picker.chosen is not None and picker.chosen.name == "Barn"


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([b"mode", b"proof", b"opts", b"stall"]),
        st.one_of(
            st.none(),
            st.binary(max_size=300),
            st.sampled_from([b"fair", b"trusted", b"wt", b"cc:80", b"{}", b'{"a":1}', b"300", b"[" * 300]),
        ),
    )
)
def test_advertised_terms_never_raise_anything_but_valueerror(fields: dict[bytes, bytes | None]) -> None:
    from p2p.discovery import parse_table

    record = {**_txt(), **fields}
    try:
        table = parse_table("s", record, ["127.0.0.1"], 1)
    except ValueError:
        return
    terms = table.terms()
    assert terms is None or policy.judge_terms(terms, allow_trusted=True, floor=Proof(CC, 1)) is None
    assert "\x1b" not in table.terms_text()
