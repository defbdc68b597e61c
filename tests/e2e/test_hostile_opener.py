"""A dishonest opener against real joiners, and a silent person at an all-human table (issue #11).

The opener is the production :class:`p2p.node.Node` in this test's event loop, opening a table on
127.0.0.1 whose bootstrap reply states honest-looking terms; once a joiner has taken a seat, the
test replaces the lobby's start with its own: a genesis weakened one way at a time (low rounds,
cut-and-choose under a Wikström–Terelius floor, trusted mode, other options, seats or deadline,
another opener key, an unprintable name, a reused game id), or the honest genesis sent from another
mesh key. The joiner is a real ``fairdeck join --plain`` or ``fairdeck bot`` process. It must
refuse with the reason on its output, exit non-zero and leave nothing written: no log in its home,
and nothing but a ``declined`` message at the opener (no countersignature).

The honest default table plays to a clean end; ``fairdeck host --rounds`` below the floor is refused
before the table opens; and at a table of three ``fairdeck host/join --plain`` people, one who never
answers is closed out after the table's stall deadline by the first party in line, naming that seat.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest

from p2p.discovery import Advertiser, browse
from p2p.identity import Identity
from p2p.log import LogWriter, pack, parse_envelope
from p2p.memtable import seeded_identity
from p2p.node import Node, NodeError
from p2p.policy import CC, FLOOR_ENV, WT, Proof
from p2p.protocol import PartyInfo, Table, genesis_body, make_genesis
from p2p.transport import Mesh, curve_keypair_from_secret
from tests.e2e.peer_support import (
    FAIRDECK,
    GAME_TIMEOUT,
    REPO,
    Cluster,
    Peer,
    PeerFailure,
    proof_floor_env,
    read_entries,
    run_fairdeck,
    wait_for,
)

ROUNDS = 8  # the advertised cut-and-choose rounds (the joiners' test floor), fast to shuffle
GAME = "loveletter"


async def until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``condition`` in the event loop until it is truthy; fail after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := condition()):
        if loop.time() > deadline:
            raise PeerFailure(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.05)
    return value


# ---------------------------------------------------------------------------------------------
# the dishonest opener
# ---------------------------------------------------------------------------------------------


@dataclass
class HostileOpener:
    """A real node that advertises ``advertise`` (changes to its honest terms) and, once a joiner is
    seated, sends a genesis changed by ``tamper`` instead of the one it would have sent."""

    home: Path
    seats: int = 2
    advertise: dict[str, Any] = field(default_factory=dict)
    tamper: Callable[[dict[str, Any]], None] = lambda body: None
    signer: Identity | None = None
    """Signs the genesis and sits at party 0 instead of the opener (another opener key)."""
    game_id: bytes | None = None
    hold: bool = False
    """Do not send the start by itself (the test sends it with :meth:`send_start`)."""
    received: list[dict[str, Any]] = field(default_factory=list)
    """Every message a joiner sent the opener after the start."""

    async def open(self) -> int:
        self.node = Node(
            seeded_identity("hostile-opener"), self.home, name="ann", proof_floor=Proof(CC, ROUNDS)
        )
        port = await self.node.open_table(GAME, self.seats, shuffle_rounds=ROUNDS)
        self.lobby = self.node._lobby_handler.__self__  # type: ignore[union-attr]
        assert self.lobby.terms is not None
        self.lobby.terms = dataclasses.replace(self.lobby.terms, **self.advertise)  # what the reply states
        self.lobby.refresh_bootstrap()  # the bootstrap thread answers with the changed terms from now on
        self.lobby._maybe_start = self._hostile_start  # its own start, in place of the honest one
        return port

    @property
    def joined(self) -> int:
        """Parties seated so far, the opener included."""
        return len(self.lobby.players)

    def start_message(self) -> dict[str, Any]:
        terms = self.lobby.terms
        players = self.lobby.players
        signer = self.signer or self.node.identity
        infos = [PartyInfo(p["name"], p["key"], p["curve"], p.get("fresh") or b"") for p in players]
        infos[0] = PartyInfo(infos[0].name, signer.public_key, infos[0].curve, infos[0].fresh)
        body = genesis_body(
            terms.game, terms.seats, infos, terms.options, terms.proof.rounds or 80, terms.mode
        )
        body.update({"proof": terms.proof.kind, "stall_after": terms.stall_after})
        self.tamper(body)
        genesis = make_genesis(signer, self.game_id or os.urandom(16), body)
        return {"t": "start", "genesis": genesis, "endpoints": [p["endpoint"] for p in players]}

    async def send_start(self, message: dict[str, Any]) -> None:
        for p in self.lobby.players[1:]:
            await self.node._send(p["curve"], message)

    async def _hostile_start(self) -> None:
        if self.joined < 2 or self.node._lobby_handler == self._record:
            return
        self.node._lobby_handler = self._record
        if not self.hold:
            await self.send_start(self.start_message())

    async def _record(self, sender: bytes, message: dict[str, Any]) -> None:
        self.received.append(message)

    def countersigned(self) -> bool:
        """True if any entry (a countersignature) reached the opener."""
        return any(m.get("t") == "entry" for m in self.received)

    def declined(self) -> str | None:
        return next((m.get("reason") for m in self.received if m.get("t") == "declined"), None)


def joiner_peer(tmp_path: Path, address: str, client: str, floor: str | None) -> Peer:
    """A real joining process: a person (``fairdeck join --plain``) or a bot (``fairdeck bot``).
    ``floor`` is its test-only proof floor (``None``: the project's, Wikström–Terelius)."""
    home = tmp_path / "joiner"
    if client == "join":
        argv = [*FAIRDECK, "join", address, "--plain", "--name", "bob"]
    else:
        argv = [*FAIRDECK, "bot", "--join", address, "--home", str(home), "--name", "bob"]
    return Peer("joiner", home, argv, env={FLOOR_ENV: floor or ""})


@dataclass(frozen=True)
class Attack:
    """One way of weakening the table, and a piece of the refusal the joiner must give."""

    reason: str
    tamper: Callable[[dict[str, Any]], None] = lambda body: None
    advertise: dict[str, Any] = field(default_factory=lambda: {"proof": Proof(CC, ROUNDS)})
    floor: str | None = f"cc:{ROUNDS}"
    seats: int = 2
    client: str = "join"
    other_signer: bool = False
    reuse_id: bool = False


def _set(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda body: body.update(fields)


def _rename_opener(body: dict[str, Any]) -> None:
    body["parties"][0]["name"] = "ann\x1b[2J"


def _stale_fresh(body: dict[str, Any]) -> None:
    """The genesis of an earlier join, replayed: every joiner's fresh value is another one."""
    for party in body["parties"][1:]:
        party["fresh"] = bytes(16)


ATTACKS = {
    "low-rounds": Attack(
        "the shuffle proof would be cut-and-choose 2^-2, below this player's floor (cut-and-choose 2^-8)",
        _set(proof=CC, shuffle_rounds=2),
    ),
    "cut-and-choose-under-WT": Attack(
        "the shuffle proof would be cut-and-choose 2^-80, below this player's floor (Wikström–Terelius)",
        _set(proof=CC, shuffle_rounds=80),
        advertise={"proof": Proof(WT)},
        floor=None,
        client="bot",
    ),
    "trusted": Attack("the table is in trusted mode: seat 0 would see every card", _set(mode="trusted")),
    "options": Attack('options {"edition":2019} instead of {}', _set(options={"edition": 2019})),
    "seats": Attack("seats 2 instead of 3", _set(seats=2), seats=3, client="bot"),
    "deadline": Attack("stall deadline 1 instead of 300", _set(stall_after=1)),
    "opener-key": Attack("differs from the table you joined: opener ", other_signer=True, client="bot"),
    "unprintable-name": Attack(
        "party 0's name is not 1-40 printable characters: 'ann\\x1b[2J'", _rename_opener
    ),
    "reused-game-id": Attack("was already used on this machine", reuse_id=True),
    "replayed-genesis": Attack("does not carry the value this player drew as it joined", _stale_fresh),
}


def _earlier_log(home: Path, opener: Identity, game_id: bytes) -> Path:
    """A log this joiner kept of an earlier game with this opener (its genesis only)."""
    me = Identity.load_or_create(home)
    curve = curve_keypair_from_secret(me.derive("transport", b""))[0]
    infos = [PartyInfo("ann", opener.public_key, b"O" * 32), PartyInfo("bob", me.public_key, curve)]
    path = home / "games" / f"{game_id.hex()}.fdlog"
    path.parent.mkdir(parents=True)
    writer = LogWriter(path)
    writer.append(make_genesis(opener, game_id, genesis_body(GAME, 2, infos, {}, ROUNDS)))
    writer.close()
    return path


@pytest.mark.parametrize("attack", list(ATTACKS.values()), ids=list(ATTACKS))
def test_a_weakened_genesis_is_refused_and_nothing_is_countersigned(tmp_path: Path, attack: Attack) -> None:
    reused = bytes(range(16)) if attack.reuse_id else None
    opener = HostileOpener(
        tmp_path / "opener",
        seats=attack.seats,
        advertise=attack.advertise,
        tamper=attack.tamper,
        signer=Identity.generate() if attack.other_signer else None,
        game_id=reused,
    )
    earlier = _earlier_log(tmp_path / "joiner", seeded_identity("hostile-opener"), reused) if reused else None
    before = earlier.read_bytes() if earlier else b""

    async def main() -> int:
        port = await opener.open()
        joiner = joiner_peer(tmp_path, f"127.0.0.1:{port}", attack.client, attack.floor)
        try:
            joiner.start()
            code = await asyncio.to_thread(joiner.wait, 60)
            # the joiner said why, to the opener too, before it left
            await until(opener.declined, 10, "the joiner's declined message")
            return code
        finally:
            joiner.kill()
            await opener.node.close()

    code = asyncio.run(main())
    joiner_home = tmp_path / "joiner"
    err = (joiner_home.parent / "joiner.err").read_text()
    lines = [line for line in err.splitlines() if line and not line.startswith("--- run")]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith(f"fairdeck {attack.client}: refused the table: "), err
    assert attack.reason in lines[0], err
    assert "\x1b" not in err  # the opener's words are shown inert
    assert attack.reason in str(opener.declined())
    # nothing countersigned: no entry reached the opener, and the joiner wrote no log of this game
    assert not opener.countersigned(), opener.received
    logs = sorted((joiner_home / "games").glob("*")) if (joiner_home / "games").exists() else []
    assert logs == ([earlier] if earlier else []), logs
    if earlier:
        assert earlier.read_bytes() == before


def test_a_start_from_another_key_is_ignored_and_only_the_opener_start_is_countersigned(
    tmp_path: Path,
) -> None:
    opener = HostileOpener(tmp_path / "opener", advertise={"proof": Proof(CC, ROUNDS)}, hold=True)
    seen: dict[str, Any] = {}

    async def main() -> None:
        port = await opener.open()
        joiner = joiner_peer(tmp_path, f"127.0.0.1:{port}", "join", f"cc:{ROUNDS}")
        try:
            joiner.start()
            await until(lambda: opener.joined == 2, 60, "the joiner to take its seat")
            honest = opener.start_message()
            # the honest genesis, relayed by a stranger's mesh key
            stranger = curve_keypair_from_secret(os.urandom(32))[1]
            seat = opener.lobby.players[1]
            async with Mesh(stranger, host="127.0.0.1") as mesh:
                mesh.connect(seat["curve"], seat["endpoint"])
                await mesh.send(seat["curve"], pack(honest))
                await until(lambda: "ignored a start message" in joiner.output(), 30, "the joiner's notice")
            seen["log_after_stray"] = list((tmp_path / "joiner" / "games").glob("*.fdlog"))
            seen["entries_after_stray"] = opener.countersigned()
            seen["running"] = joiner.running
            # the same start from the opener's own key is taken, and countersigned
            await opener.send_start(honest)
            await until(opener.countersigned, 60, "the joiner's countersignature")
        finally:
            joiner.kill()
            await opener.node.close()

    asyncio.run(main())
    assert seen == {"log_after_stray": [], "entries_after_stray": False, "running": True}
    envelope = next(m["env"] for m in opener.received if m.get("t") == "entry")
    assert parse_envelope(envelope).kind == "countersign"


def test_terms_below_the_joiners_policy_are_refused_before_it_takes_a_seat(tmp_path: Path) -> None:
    async def main() -> tuple[int, int, int]:
        node = Node(
            seeded_identity("trusted-opener"), tmp_path / "opener", name="ann", proof_floor=Proof(CC, ROUNDS)
        )
        try:
            port = await node.open_table(GAME, 2, shuffle_rounds=ROUNDS, mode="trusted")
            lobby = node._lobby_handler.__self__  # type: ignore[union-attr]
            refusing = joiner_peer(tmp_path, f"127.0.0.1:{port}", "join", f"cc:{ROUNDS}")
            try:
                code = await asyncio.to_thread(refusing.start().wait, 60)
                seated_after_refusal = len(lobby.players)
            finally:
                refusing.kill()
            # the same person asking for a trusted table with --allow-trusted is seated
            willing = joiner_peer(tmp_path / "second", f"127.0.0.1:{port}", "join", f"cc:{ROUNDS}")
            willing.argv.append("--allow-trusted")
            try:
                willing.start()
                await until(lambda: node.party is not None, 60, "the willing joiner to be seated")
                return code, seated_after_refusal, len(node.party.table.parties)  # type: ignore[union-attr]
            finally:
                willing.kill()
        finally:
            await node.close()

    code, seated, parties = asyncio.run(main())
    err = (tmp_path / "joiner.err").read_text()
    assert code == 2 and "refused the table: the table is in trusted mode" in err, err
    assert seated == 1  # no seat was taken
    assert not (tmp_path / "joiner" / "games").exists()
    assert parties == 2


def test_the_lobby_refuses_a_join_whose_name_is_not_printable(tmp_path: Path) -> None:
    async def main() -> tuple[dict[str, Any], int]:
        node = Node(
            seeded_identity("name-opener"), tmp_path / "opener", name="ann", proof_floor=Proof(CC, ROUNDS)
        )
        try:
            port = await node.open_table(GAME, 2, shuffle_rounds=ROUNDS)
            lobby = node._lobby_handler.__self__  # type: ignore[union-attr]
            assert node.mesh is not None
            # a node refuses to join under such a name itself ...
            with pytest.raises(NodeError, match="printable"):
                await Node(Identity.generate(), tmp_path / "x", name="evil\x1b[2J").join(f"127.0.0.1:{port}")
            # ... and the lobby refuses a correctly signed join that carries one
            who = Identity.generate()
            public, secret = curve_keypair_from_secret(who.derive("transport", b""))
            async with Mesh(secret, host="127.0.0.1") as mesh:
                mesh.connect(node.mesh.public_key, node.mesh.endpoint)
                fields = {
                    "t": "join",
                    "name": "evil\u202ename",
                    "key": who.public_key,
                    "curve": public,
                    "endpoint": mesh.endpoint,
                    "role": "player",
                }
                fields["sig"] = who.sign(
                    pack({k: fields[k] for k in ("name", "key", "curve", "endpoint", "role")})
                )
                await mesh.send(node.mesh.public_key, pack(fields))
                _, reply = await asyncio.wait_for(mesh.recv(), 30)
            return msgpack.unpackb(reply, raw=False), len(lobby.players)
        finally:
            await node.close()

    reply, seated = asyncio.run(main())
    assert reply == {"t": "refused", "reason": "names must be 1-40 printable characters"}
    assert seated == 1


def test_fairdeck_host_below_the_floor_is_refused_before_the_table_opens(tmp_path: Path) -> None:
    env = {**os.environ, "FAIRDECK_HOME": str(tmp_path), FLOOR_ENV: ""}
    argv = ["host", GAME, "--rounds", "40", "--bind", "127.0.0.1", "--no-advertise", "--plain"]
    code, out, err = run_fairdeck(argv, env, timeout=60)
    assert code == 2, out + err
    assert err.strip().splitlines() == [
        "fairdeck host: this table is refused: the shuffle proof would be cut-and-choose 2^-40, "
        "below this player's floor (Wikström–Terelius)"
    ]
    assert "table open" not in out
    # the test-only floor lets the same table open, showing its terms (then it is stopped)
    host = Peer("host", tmp_path / "host", [*FAIRDECK, *argv], env=proof_floor_env(40))
    try:
        host.start()
        wait_for(lambda: "table terms:" in host.output(), 60, "the open table's terms")
    finally:
        host.kill()
    assert "table open: others join with" in host.output()
    terms = "loveletter, 4 seats, fair, proof: cut-and-choose 2^-40, no options, stall deadline 300 s"
    assert f"* table terms: {terms}" in host.output().splitlines()


# ---------------------------------------------------------------------------------------------
# the honest table, and the stall deadline
# ---------------------------------------------------------------------------------------------


def test_the_honest_default_table_plays_to_a_clean_end(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=2, rounds=ROUNDS) as cluster:
        cluster.start()
        codes = cluster.wait_finished()
        assert codes == [0, 0], "\n".join(p.tail() for p in cluster.peers)
        logs = cluster.logs()
    assert len({p.read_bytes() for p in logs}) == 1
    entries = read_entries(logs[0])
    genesis = entries[0].body
    assert genesis["stall_after"] == 300 and genesis["proof"] in (WT, CC)
    assert [e.seat for e in entries if e.kind == "countersign"] == [1]
    audit = subprocess.run(
        [*FAIRDECK, "audit", str(logs[0])], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert audit.returncode == 0 and "VERDICT: CLEAN" in audit.stdout, audit.stdout


ANSWERS = "1\n" * 3000  # a person who always takes the first legal move
STALL = 8  # the table's deadline in this test: seconds a person may sit silent


def test_a_silent_person_at_an_all_human_table_is_closed_out_after_the_deadline(tmp_path: Path) -> None:
    env = proof_floor_env(4)
    host = Peer(
        "ann",
        tmp_path / "ann",
        [*FAIRDECK, "host", GAME, "--seats", "3", "--bind", "127.0.0.1", "--no-advertise", "--plain"]
        + ["--rounds", "4", "--stall-after", str(STALL), "--name", "ann"],
        env=env,
        stdin_text=ANSWERS,
    )
    peers = [host]
    try:
        host.start()
        opened = wait_for(lambda: re.search(r"join 127\.0\.0\.1:(\d+)", host.output()), 60, "the table")
        port = opened.group(1)
        talker = Peer(
            "bob", tmp_path / "bob", [*FAIRDECK, "join", f"127.0.0.1:{port}", "--plain", "--name", "bob"],
            env=env, stdin_text=ANSWERS,
        )  # fmt: skip
        silent = Peer(
            "cy", tmp_path / "cy", [*FAIRDECK, "join", f"127.0.0.1:{port}", "--plain", "--name", "cy"],
            env=env, stdin_text="",  # at the table, and never answers
        )  # fmt: skip
        peers += [talker.start(), silent.start()]
        for peer in (host, talker):
            peer.wait(GAME_TIMEOUT)  # the game ended without cy
        logs = [peer.log_path() for peer in peers]
        assert all(logs), "\n".join(p.tail() for p in peers)
        # cy walks back to a closed game: its input ends, and its process with it
        wait_for(lambda: read_entries(logs[2])[-1].kind == "abandon", 60, "cy to see the abandon")
        assert silent.proc is not None and silent.proc.stdin is not None
        silent.proc.stdin.close()
        silent.wait(60)
    finally:
        for peer in peers:
            peer.kill()

    entries = read_entries(logs[0])
    assert len({p.read_bytes() for p in logs if p}) == 1, "the three logs differ"
    table = Table(entries[0].envelope)
    for entry in entries[1:-1]:
        table.accept(entry.envelope)
    cy = table.seat_of_key(silent.identity().public_key)
    assert cy is not None and table.parties[cy].name == "cy"
    closing = entries[-1]
    # the table was waiting for cy's move, and the first party in line closed it, naming cy
    assert table.expected() == (cy, "move")
    assert closing.kind == "abandon" and closing.seat == 0, closing
    assert closing.body["reason"].startswith(f"seat {cy} (cy) wrote nothing for "), closing.body
    assert f"the table's deadline is {STALL} s" in closing.body["reason"]
    # cy's node wrote every protocol entry it owed: only its person was silent
    assert any(e.seat == cy and e.kind == "shuffle" for e in entries)
    audit = subprocess.run(
        [*FAIRDECK, "audit", str(logs[0])], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert audit.returncode in (0, 1) and f"seat {cy}" in audit.stdout, audit.stdout
    for peer, line in ((host, "Game abandoned."), (silent, "Game abandoned.")):
        assert line in peer.output(), peer.tail()


def test_fairdeck_tables_shows_the_terms_and_a_bootstrap_unlike_its_advertisement_is_refused(
    tmp_path: Path,
) -> None:
    name = f"Attic-{os.urandom(3).hex()}"  # other tests may advertise on loopback at the same time

    async def main() -> tuple[str, str]:
        node = Node(
            seeded_identity("lan-opener"), tmp_path / "opener", name="ann", proof_floor=Proof(CC, ROUNDS)
        )
        try:
            port = await node.open_table(GAME, 3, shuffle_rounds=ROUNDS, stall_after=120)
            assert node.terms is not None and node.mesh is not None
            txt = {"game": GAME, "seats": 3, "free": 2, "proto": 1, "fp": node.identity.fingerprint}
            # the advertisement says one thing, the bootstrap reply another (options)
            lying = dataclasses.replace(node.terms, options={"edition": 2019})
            async with Advertiser(name, port, {**txt, **lying.to_txt()}, ["127.0.0.1"]):
                code, out, err = await asyncio.to_thread(
                    run_fairdeck, ["tables", "--loopback", "--wait", "4"], {**os.environ}, 60
                )
                assert code == 0, out + err
                browsed = [t for t in await browse(4.0, ["127.0.0.1"]) if t.name == name]
            assert browsed, f"{name} was not seen on loopback"
            joiner = Node(Identity.generate(), tmp_path / "joiner", name="bob", proof_floor=Proof(CC, ROUNDS))
            try:
                await joiner.join(f"127.0.0.1:{port}", expect=browsed[0].terms())
                refusal = "joined?!"
            except NodeError as exc:
                refusal = str(exc)
            finally:
                await joiner.close()
            assert len(node._lobby_handler.__self__.players) == 1  # type: ignore[union-attr]
            return out, refusal
        finally:
            await node.close()

    out, refusal = asyncio.run(main())
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith(name))
    assert "loveletter" in lines[row] and "2/3 seats free" in lines[row]
    assert lines[row + 1].strip().startswith("host ")  # (the host's fingerprint: a line of its own)
    assert lines[row + 2].strip() == (
        "fair · proof: cut-and-choose 2^-8 · edition=2019 · stall deadline 120 s"
        if node_writes_cut_and_choose()
        else "fair · proof: Wikström–Terelius · edition=2019 · stall deadline 120 s"
    )
    assert refusal == (
        "refused the table: the table's bootstrap differs from its LAN advertisement: "
        'options {} instead of {"edition":2019}'
    )


def node_writes_cut_and_choose() -> bool:
    """True until the protocol writes Wikström–Terelius proofs (the node's default is the best it has)."""
    from p2p.node import PROOFS

    return PROOFS[0] == CC


class FickleJoiner(Node):
    """A joiner whose floor rises between its join and the start (so it refuses an honest genesis)."""

    def _judge_offer(self, info: dict[str, Any], expect: Any) -> Any:
        terms = super()._judge_offer(info, expect)
        self._floor = Proof(CC, 256)
        return terms


def test_an_honest_opener_closes_the_table_at_once_when_a_joiner_declines_it(tmp_path: Path) -> None:
    async def main() -> tuple[list[Any], str | None]:
        opener = Node(seeded_identity("honest"), tmp_path / "ann", name="ann", proof_floor=Proof(CC, ROUNDS))
        bob = Node(seeded_identity("bob"), tmp_path / "bob", name="bob", proof_floor=Proof(CC, ROUNDS))
        cy = FickleJoiner(seeded_identity("cy"), tmp_path / "cy", name="cy", proof_floor=Proof(CC, ROUNDS))
        try:
            port = await opener.open_table(GAME, 3, shuffle_rounds=ROUNDS, proof="cc")  # stall: 300 s
            bob_joins = asyncio.create_task(bob.join(f"127.0.0.1:{port}"))
            with pytest.raises(NodeError, match="below this player's floor"):
                await asyncio.wait_for(cy.join(f"127.0.0.1:{port}"), 60)
            await asyncio.wait_for(asyncio.gather(bob_joins, opener.wait_ended(), bob.wait_ended()), 60)
            assert opener.log_path is not None
            return read_entries(opener.log_path), cy.refusal
        finally:
            for node in (opener, bob, cy):
                await node.close()

    entries, refusal = asyncio.run(main())
    assert refusal is not None and "cut-and-choose 2^-256" in refusal
    cy_party = next(i for i, p in enumerate(entries[0].body["parties"]) if p["name"] == "cy")
    assert [e.kind for e in entries] == ["genesis"] + ["countersign"] * (cy_party - 1) + ["abandon"]
    closing = entries[-1]
    assert closing.seat == 0
    assert closing.body["reason"].startswith(f"seat {cy_party} (cy) refused the table: the shuffle proof")
    assert not (tmp_path / "cy" / "games").exists()


def test_an_opener_whose_own_policy_refuses_its_genesis_sends_no_start(tmp_path: Path) -> None:
    async def main() -> tuple[str | None, str, list[Path]]:
        opener = Node(seeded_identity("strict"), tmp_path / "ann", name="ann", proof_floor=Proof(CC, ROUNDS))
        bob = Node(seeded_identity("bob"), tmp_path / "bob", name="bob", proof_floor=Proof(CC, ROUNDS))
        try:
            port = await opener.open_table(GAME, 2, shuffle_rounds=ROUNDS, proof="cc")
            opener._floor = Proof(CC, 256)  # its player's floor rose while the lobby was open
            with pytest.raises(NodeError) as refused:
                await asyncio.wait_for(bob.join(f"127.0.0.1:{port}"), 60)
            await asyncio.wait_for(opener.wait_ended(), 60)
            return opener.refusal, str(refused.value), list(tmp_path.glob("*/games/*"))
        finally:
            await opener.close()
            await bob.close()

    refusal, joiner_error, logs = asyncio.run(main())
    assert refusal is not None and "cut-and-choose 2^-8, below this player's floor" in refusal
    assert joiner_error.startswith("the table refused us: the table cannot start: the shuffle proof would be")
    assert logs == []  # nothing was signed or written by anyone
