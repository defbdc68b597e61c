"""Leaving a table before its game starts, with real processes on loopback.

The opener who leaves closes the table, and whoever joined hears so at once (not after the lobby's
silence timeout). A joiner who leaves gives its seat back: the table does not fill up and start with
a seat nobody plays, which would stall the game until its deadline and then name the leaver."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

from tests.e2e.peer_support import FAIRDECK, Cluster, Peer, assert_one_log_audited_clean, wait_for


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_opener_leaving_its_lobby_tells_whoever_joined_at_once(tmp_path: Path) -> None:
    port = _free_port()
    host = Peer(
        "host",
        tmp_path / "host",
        [*FAIRDECK, "host", "loveletter", "--seats", "3", "--bind", "127.0.0.1", "--port", str(port),
         "--no-advertise", "--plain", "--player", "olga"],
        stdin_text="",
    )  # fmt: skip
    joiner = Peer(
        "joiner",
        tmp_path / "joiner",
        [*FAIRDECK, "bot", "--join", f"127.0.0.1:{port}", "--name", "jo", "--bind", "127.0.0.1"],
    )
    try:
        host.start()
        wait_for(lambda: "fairdeck join" in host.output(), 60, "the table to open")
        joiner.start()
        wait_for(lambda: "jo joined" in host.output(), 60, "the joiner to be seated in the lobby")
        host.signal(signal.SIGINT)  # the opener presses Ctrl-C in its lobby
        host.wait(30)
        assert "the table was closed before its game started" in host.errors(), host.tail()
        # told at once: well before the 30 s a joiner waits for a silent opener
        code = joiner.wait(20)
        said = joiner.output() + joiner.errors()
        assert code != 0, said
        assert "its opener closed it before the game started" in said, said
        assert "went silent" not in said, said
    finally:
        host.kill()
        joiner.kill()


def test_a_joiner_leaving_the_lobby_gives_its_seat_back(tmp_path: Path) -> None:
    with Cluster(tmp_path, seats=3, rounds=8) as cluster:
        cluster.start(bots=0)
        assert cluster.address is not None
        person = Peer(
            "person",
            tmp_path / "person",
            [*FAIRDECK, "join", cluster.address, "--plain", "--name", "pat"],
            stdin_text="",
        )
        cluster.peers.append(person.start())
        wait_for(lambda: cluster.lobby().get("free") == 1, 60, "the person to be seated in the lobby")
        person.signal(signal.SIGINT)  # Ctrl-C while waiting for the others
        person.wait(30)
        assert "you gave up your seat" in person.errors(), person.tail()
        cluster.peers.remove(person)
        person.kill()
        wait_for(lambda: cluster.lobby().get("free") == 2, 20, "the person's seat to be free again")
        # two bots take the seats; the game starts without the one who left and ends by its rules
        cluster.start_bot()
        cluster.start_bot()
        codes = cluster.wait_finished()
        assert codes == [0, 0, 0], "\n".join(p.tail() for p in cluster.peers)
        assert_one_log_audited_clean(cluster.logs(), 3)
