"""Unit tests for ``p2p.rematch``: what a party takes from the others after a game, and what it
checks before it joins the next one.

The messages are built by the module's own constructors and changed one thing at a time; the last
test sends them over a real mesh to a real node's receive loop, which must drop every malformed one
with a warning and go on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.games import make_bot
from p2p import policy, rematch
from p2p.identity import Identity
from p2p.log import pack
from p2p.memtable import MemoryTable
from p2p.node import Node
from p2p.party import Party
from p2p.protocol import PartyInfo, Table, genesis_body, make_genesis
from p2p.rematch import RematchError, again_message, at_message, read_again, read_at
from p2p.transport import Mesh, curve_keypair_from_secret

IDS = [Identity.from_secret(bytes([65 + i]) * 32) for i in range(4)]
NAMES = ["ann", "bob", "cy", "dee"]
GAME_ID = bytes(range(16))
OTHER_GAME = bytes(range(1, 17))
ENDPOINTS = [f"tcp://10.0.0.{i + 1}:4700{i}" for i in range(4)]
STRANGER = Identity.from_secret(b"s" * 32)


def curve(identity: Identity) -> tuple[bytes, bytes]:
    """(public, secret) transport keys of ``identity``, as a node derives them."""
    return curve_keypair_from_secret(identity.derive("transport", b""))


def genesis(**over: Any) -> bytes:
    """The genesis of a four-seat game opened by ``ann`` (the names and keys of :data:`IDS`)."""
    ids = over.pop("ids", IDS)
    names = over.pop("names", NAMES)
    game_id = over.pop("game_id", GAME_ID)
    game, rounds, proof = over.pop("game", "loveletter"), over.pop("rounds", 80), over.pop("proof", "wt")
    infos = [PartyInfo(n, i.public_key, curve(i)[0]) for n, i in zip(names, ids, strict=True)]
    body = genesis_body(game, len(ids), infos, over.pop("options", {}), rounds, "fair", proof=proof)
    body.update(over)
    return make_genesis(ids[0], game_id, body)


TABLE = Table(genesis())


def finished(game: str = "regicide", seats: int = 2) -> list[Party]:
    """The parties (ann, bob, ...) of a game played to its end by bots (one fast shuffle round)."""
    envelope = genesis(ids=IDS[:seats], names=NAMES[:seats], game=game, rounds=1, proof="cc")
    parties = [Party(identity, envelope) for identity in IDS[:seats]]
    table = MemoryTable(parties, [make_bot(game, "heuristic", i) for i in range(seats)])
    table.run()
    assert all(p.table.ended == "over" for p in parties)
    return parties


# ---------------------------------------------------------------------------------------------
# again
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", rematch.ANSWERS)
def test_a_signed_answer_from_a_seated_party_is_read(answer: str) -> None:
    for party in range(4):
        assert read_again(TABLE, party, again_message(IDS[party], GAME_ID, answer)) == answer


def _mutated(
    change: Callable[[dict[str, Any]], None], signer: int = 2, game_id: bytes = GAME_ID
) -> dict[str, Any]:
    message = again_message(IDS[signer], game_id, "yes")
    change(message)
    return message


BAD_AGAIN = {
    "an unknown key": (lambda m: m.update(pad=b"x" * 100), "must hold exactly"),
    "no signature": (lambda m: m.pop("sig"), "must hold exactly"),
    "another game": (lambda m: m.update(game=OTHER_GAME), "not about the game"),
    "a game id that is text": (lambda m: m.update(game=GAME_ID.hex()), "not about the game"),
    "an answer that is not one": (lambda m: m.update(answer="maybe"), "is not yes, no or left"),
    "an answer as bytes": (lambda m: m.update(answer=b"yes"), "is not yes, no or left"),
    "a short signature": (lambda m: m.update(sig=b"\0" * 63), "not 64 bytes"),
    "a signature that is text": (lambda m: m.update(sig="s" * 64), "not 64 bytes"),
    # a "yes" signature passed off as a "no": signatures bind the answer
    "another answer's signature": (lambda m: m.update(answer="no"), "signature is not cy (seat 2)'s"),
}


@pytest.mark.parametrize("case", sorted(BAD_AGAIN))
def test_a_malformed_answer_is_refused_with_a_reason(case: str) -> None:
    change, reason = BAD_AGAIN[case]
    with pytest.raises(RematchError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        read_again(TABLE, 2, _mutated(change))


def test_an_answer_counts_only_once_the_result_is_known_here() -> None:
    assert not rematch.result_known(TABLE)  # still countersigning
    with pytest.raises(RematchError, match="has not ended here yet"):
        read_again(TABLE, 1, again_message(IDS[1], GAME_ID, "yes"), over=rematch.result_known(TABLE))
    ended = finished()[0].table
    assert rematch.result_known(ended)
    assert read_again(ended, 1, again_message(IDS[1], ended.game_id, "no"), over=True) == "no"


def test_an_answer_signed_by_another_party_or_sent_by_a_stranger_is_refused() -> None:
    # bob signs a "no" and sends it as if it came from cy's link
    with pytest.raises(RematchError, match="signature is not cy"):
        read_again(TABLE, 2, again_message(IDS[1], GAME_ID, "no"))
    # a key with no seat at this table (the mesh lets none in; and were it to, it would count for nobody)
    with pytest.raises(RematchError, match="does not come from a party"):
        read_again(TABLE, None, again_message(STRANGER, GAME_ID, "no"))
    # an answer about another game of the same players does not count for this one
    with pytest.raises(RematchError, match="not about the game"):
        read_again(TABLE, 1, again_message(IDS[1], OTHER_GAME, "no"))


# ---------------------------------------------------------------------------------------------
# again-at
# ---------------------------------------------------------------------------------------------


def _at(**over: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """An ``again-at`` from ann, the opener, at her old host, and :func:`read_at` keyword arguments;
    ``host`` is signed, anything else in ``over`` replaces a field after signing."""
    signer = over.pop("signer", 0)
    message = at_message(IDS[signer], GAME_ID, over.pop("host", "10.0.0.1"), 41000)
    kwargs = {"ended": over.pop("ended", True), "said_yes": over.pop("said_yes", True)}
    message.update(over)
    return message, kwargs


def test_the_openers_next_table_is_read_after_the_end_and_our_yes() -> None:
    message, kwargs = _at()
    assert read_at(TABLE, ENDPOINTS, 0, message, **kwargs) == ("10.0.0.1", 41000)


@pytest.mark.parametrize(
    ("over", "party", "reason"),
    [
        ({"signer": 1}, 1, "only the opener may say"),  # another party, even signing its own
        ({}, 3, "only the opener may say"),  # the opener's message, relayed by another seat
        ({}, None, "does not come from a party"),
        ({"ended": False}, 0, "has not ended by its rules"),
        ({"said_yes": False}, 0, "has not said it plays again"),
        ({"host": "10.0.0.66"}, 0, "not the opener's 10.0.0.1"),  # signed, but elsewhere
        ({"host": ""}, 0, "not a name of 1-255"),
        ({"host": "h" * 256}, 0, "not a name of 1-255"),
        ({"port": 0}, 0, "not a TCP port"),
        ({"port": 65536}, 0, "not a TCP port"),
        ({"port": True}, 0, "not a TCP port"),
        ({"port": "41000"}, 0, "not a TCP port"),
        ({"game": OTHER_GAME}, 0, "not about the game"),
        ({"extra": 1}, 0, "must hold exactly"),
    ],
)
def test_a_bad_next_table_is_refused(over: dict[str, Any], party: int | None, reason: str) -> None:
    message, kwargs = _at(**over)
    with pytest.raises(RematchError, match=reason):
        read_at(TABLE, ENDPOINTS, party, message, **kwargs)


def test_a_next_table_whose_port_was_changed_after_signing_is_refused() -> None:
    message, kwargs = _at()
    message["port"] = 41001
    with pytest.raises(RematchError, match="signature is not the opener's"):
        read_at(TABLE, ENDPOINTS, 0, message, **kwargs)


# ---------------------------------------------------------------------------------------------
# the next table's terms and genesis
# ---------------------------------------------------------------------------------------------


def test_the_next_table_is_opened_with_the_last_games_terms() -> None:
    args = rematch.table_args(TABLE)
    assert args == {
        "game": "loveletter",
        "seats": 4,
        "options": {},
        "witnesses": 0,
        "shuffle_rounds": 80,
        "mode": "fair",
        "proof": "wt",
        "stall_after": policy.DEFAULT_STALL_AFTER,
        "on_stall": "close",
    }
    assert rematch.check_offer(TABLE, rematch.old_terms(TABLE), GAME_ID) is None


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"options": {"edition": "2019"}}, "options"),
        ({"seats": 3}, "seats 3 instead of 4"),
        ({"stall_after": 60}, "stall deadline 60 instead of 300"),
        ({"proof": policy.Proof(policy.CC, 80)}, "proof cut-and-choose"),
        ({"mode": "trusted"}, "mode trusted instead of fair"),
        ({"on_stall": "bot"}, "on a stall bot instead of close"),
    ],
)
def test_a_next_table_with_other_terms_is_refused(change: dict[str, Any], reason: str) -> None:
    terms = dataclasses.replace(rematch.old_terms(TABLE), **change)
    refusal = rematch.check_offer(TABLE, terms, GAME_ID)
    assert refusal is not None and "differ from the last game's" in refusal and reason in refusal


def test_a_next_table_of_another_opener_or_not_following_the_game_is_refused() -> None:
    other = dataclasses.replace(rematch.old_terms(TABLE), opener=IDS[1].public_key, fp=IDS[1].fingerprint)
    refusal = rematch.check_offer(TABLE, other, GAME_ID) or ""
    assert "not opened by the last game's opener, ann (seat 0)" in refusal
    for after in (None, OTHER_GAME, GAME_ID.hex()):
        refusal = rematch.check_offer(TABLE, rematch.old_terms(TABLE), after)
        assert refusal == "the table does not say it follows the game that ended"


def test_the_next_genesis_must_seat_the_same_parties_in_the_same_places() -> None:
    assert rematch.check_parties(TABLE, Table(genesis(game_id=OTHER_GAME)).genesis.body) is None
    swapped = [IDS[0], IDS[2], IDS[1], IDS[3]]
    body = Table(genesis(ids=swapped, names=["ann", "cy", "bob", "dee"])).genesis.body
    moved = "the next game does not seat bob (seat 1) where the last game did"
    assert rematch.check_parties(TABLE, body) == moved
    stranger = [IDS[0], IDS[1], IDS[2], STRANGER]
    assert "dee (seat 3)" in (rematch.check_parties(TABLE, Table(genesis(ids=stranger)).genesis.body) or "")
    renamed = Table(genesis(names=["ann", "bob", "cy", "d"])).genesis.body
    assert "dee (seat 3)" in (rematch.check_parties(TABLE, renamed) or "")
    fewer = genesis_body("loveletter", 3, TABLE.parties[:3], {}, 80, "fair", proof="wt")
    assert rematch.check_parties(TABLE, fewer) == "the next game does not seat the last game's players"


def test_the_next_lobby_takes_only_the_last_games_parties_at_their_places() -> None:
    for index, identity in enumerate(IDS):
        key, name = identity.public_key, NAMES[index]
        assert rematch.expected_party(TABLE, key, curve(identity)[0], name, "player") == index
    with pytest.raises(RematchError, match="only the last game's players"):
        rematch.expected_party(TABLE, STRANGER.public_key, curve(STRANGER)[0], "eve", "player")
    with pytest.raises(RematchError, match="under their names and keys"):
        rematch.expected_party(TABLE, IDS[1].public_key, curve(IDS[1])[0], "robert", "player")
    with pytest.raises(RematchError, match="under their names and keys"):
        rematch.expected_party(TABLE, IDS[1].public_key, curve(STRANGER)[0], "bob", "player")
    with pytest.raises(RematchError, match="was a player in the last game"):
        rematch.expected_party(TABLE, IDS[1].public_key, curve(IDS[1])[0], "bob", "witness")
    with pytest.raises(RematchError, match="only the last game's players"):
        rematch.expected_party(TABLE, "not a key", b"", "bob", "player")


# ---------------------------------------------------------------------------------------------
# a real node's receive loop
# ---------------------------------------------------------------------------------------------


def test_a_node_drops_malformed_rematch_messages_with_a_warning_and_keeps_the_good_ones(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """bob's node sends ann's node, over the game's mesh, every malformed message above and then
    a good ``no``; ann's node warns about the bad ones (the same warning at most once in 10 s) and
    keeps bob's no, which a later yes does not undo. bob cannot say where the next game is: only the
    opener can."""

    async def body() -> None:
        node = Node(IDS[0], tmp_path, name="ann")
        await node._open_mesh(0)
        assert node.mesh is not None
        node.party = finished("loveletter", 4)[0]  # a game that ended by its rules
        game_id = node.party.table.game_id
        node.endpoints = [node.mesh.endpoint, *ENDPOINTS[1:]]
        node.mesh.allow([curve(i)[0] for i in IDS])
        receiving = asyncio.create_task(node._receive_loop())
        bob_public, bob_secret = curve(IDS[1])
        try:
            async with Mesh(bob_secret) as bob:
                bob.connect(node.curve_public, node.mesh.endpoint)
                sent = [_mutated(change, signer=1, game_id=game_id) for change, _ in BAD_AGAIN.values()]
                sent += [{"t": "again"}, {"t": "again", "game": [1] * 16}]  # fields missing, wrong types
                sent.append(at_message(IDS[1], game_id, "10.0.0.2", 41000))  # not the opener
                sent.append(again_message(IDS[1], game_id, "no"))
                sent.append(again_message(IDS[1], game_id, "yes"))  # a no is final
                # and a last bad one, to know when everything before it was read (one link keeps order)
                sent.append({"t": "again", "game": game_id, "answer": "sentinel", "sig": b"\0" * 64})
                for message in sent:
                    await bob.send(node.curve_public, pack(message))
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 30
                while not any("sentinel" in line for line in _dropped(caplog)) and loop.time() < deadline:
                    await asyncio.sleep(0.02)
        finally:
            receiving.cancel()
            await node.close()
        dropped = _dropped(caplog)
        assert any("sentinel" in line for line in dropped), "the receive loop stopped reading"
        # bob's no, kept; and closing ann's node after the game told the others she left
        assert node.again == {1: "no", 0: "left"} and node.again_at is None
        assert any("only the opener may say" in line for line in dropped)
        assert any("is not yes, no or left" in line for line in dropped)

    with caplog.at_level(logging.WARNING, logger="fairdeck.node"):
        asyncio.run(asyncio.wait_for(body(), 60))


def _dropped(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "dropped a bad" in r.getMessage()]
