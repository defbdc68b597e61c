"""``fairdeck watch``: a spectator follows a whole game among real peer processes on loopback.

It receives the log entry by entry from the opener's bootstrap, checks every one itself, ends with
exactly the players' log (so the same final public state and a clean audit), learns no hidden card,
and never writes anything; a table opened without ``--spectators`` refuses it in one line.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import zmq

from engine.core import Disclose, Reveal
from p2p import crypto
from p2p.identity import Identity
from p2p.log import make_entry, pack, parse_envelope, read_log, unpack
from p2p.protocol import Rejected, Table
from replay.replay import replay_log
from tests.e2e.peer_support import FAIRDECK, GAME_TIMEOUT, REPO, Cluster, Peer, read_entries, wait_for


def _watcher(tmp_path: Path, address: str) -> Peer:
    return Peer("watcher", tmp_path / "watcher", [*FAIRDECK, "watch", address, "--plain"])


def test_a_spectator_follows_a_whole_game_and_learns_no_hidden_card(tmp_path: Path) -> None:
    with Cluster(tmp_path, game="loveletter", seats=4, rounds=40, spectators=True) as cluster:
        cluster.start(bots=0)  # the spectator arrives in the lobby, before the game starts
        assert cluster.address is not None
        watcher = _watcher(tmp_path, cluster.address)
        cluster.peers.append(watcher.start())
        wait_for(lambda: "watching loveletter" in watcher.output(), 60, "the spectator to be told the table")
        _the_bootstrap_takes_nothing(cluster.address)
        for _ in range(3):
            cluster.start_bot()
        codes = cluster.wait_finished(timeout=GAME_TIMEOUT)
        assert codes == [0] * 5, "\n".join(p.tail() for p in cluster.peers)
        players = [p.log_path() for p in cluster.peers[:4]]
        out = watcher.output()
    watched = list((watcher.home / "watched").glob("*.fdlog"))
    assert len(watched) == 1
    # the spectator kept exactly the players' log: every entry, in order, byte for byte
    assert watched[0].read_bytes() == players[0].read_bytes()
    assert "Game over: " in out and "audit: clean" in out
    # the game in words, every seat with its player's name, as the replay's text says it
    assert re.search(r"^seat \d \(bot-\d\) (plays|draws) ", out, re.MULTILINE), out[-2000:]
    # what it can name is what every seat could: the public faces, never a card held in private.
    # After every entry it received, each card not yet face up stays closed even with every token
    # the log had published for it by then (the holder's own token is never published)
    envelopes = read_log(watched[0]).envelopes
    table = Table(envelopes[0])
    tried = 0
    for envelope in envelopes[1:]:
        table.accept(envelope)
        request = table.step.request
        opening = set(request.refs) if isinstance(request, Reveal | Disclose) else set()
        for ref, published in table.tokens.items():
            if ref in table.public_faces or ref in opening or not published:
                continue  # (a card being turned face up for everyone is not hidden)
            tried += 1
            points = [published[p] for p in sorted(published)]
            with pytest.raises(crypto.CryptoError):
                table.codec.decode(crypto.unmask(table.cts[ref], points))
    assert tried > 100, "hardly a hidden card was tried: the test would prove nothing"
    assert replay_log(watched[0]).table.state == table.state
    # and it signed nothing: every entry of the players' log is a seated party's
    seated = [p.key for p in table.parties]
    assert all(e.signed_by(seated[e.seat]) for e in read_entries(players[0]))
    _an_unseated_key_cannot_write(envelopes, watcher.home)


def test_a_table_without_spectators_refuses_to_be_watched_in_one_line(tmp_path: Path) -> None:
    with Cluster(tmp_path, game="loveletter", seats=2, rounds=40) as cluster:
        cluster.start(bots=0)
        assert cluster.address is not None
        done = subprocess.run(
            [*FAIRDECK, "watch", cluster.address, "--plain"], capture_output=True, text=True, timeout=120,
            cwd=REPO, env={**os.environ, "FAIRDECK_HOME": str(tmp_path / "w")}, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "fairdeck watch: this table does not take spectators (its opener can allow them: --spectators)"
    ]


def _an_unseated_key_cannot_write(envelopes: list[bytes], home: Path) -> None:
    """A spectator's key (or any key the genesis does not seat) cannot add an entry: forged in a
    seated party's name at the very place where that party wrote next, with the right chain head,
    every replica refuses it for its signature while taking the genuine entry."""
    outsider = Identity.load_or_create(home)  # the watcher's own key
    table = Table(envelopes[0])
    for envelope in envelopes[1:40]:
        table.accept(envelope)
    genuine = parse_envelope(envelopes[40])
    forged = make_entry(
        outsider, genuine.game, genuine.seq, genuine.prev, genuine.seat, genuine.kind, genuine.body
    ).envelope
    with pytest.raises(Rejected, match="signature does not verify"):
        table.accept(forged)
    table.accept(envelopes[40])  # the replica is unharmed: the genuine entry still fits


def _the_bootstrap_takes_nothing(address: str) -> None:
    """The opener's bootstrap, the one thing a spectator talks to, only answers: an entry offered
    to it gets the table's description back, nothing else (the logs compared at the end show that
    nothing was added anywhere)."""
    host, port = address.rsplit(":", 1)
    context = zmq.Context()
    try:
        ask = context.socket(zmq.REQ)
        ask.setsockopt(zmq.LINGER, 0)
        ask.setsockopt(zmq.RCVTIMEO, 30_000)
        ask.connect(f"tcp://{host}:{port}")
        ask.send(pack({"t": "entry", "env": b"\x92" + b"\x00" * 80}))
        reply = unpack(ask.recv())
        assert isinstance(reply, dict) and reply.get("game") == "loveletter" and "env" not in reply, reply
    finally:
        context.destroy(linger=0)
