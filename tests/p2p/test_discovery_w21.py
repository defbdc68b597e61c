"""Odd and hostile mDNS advertisements, as the commands and the lobby picker meet them (loopback only).

A deliberately hostile advertiser registers ``_fairdeck._tcp`` services with zeroconf on 127.0.0.1
(garbage TXT records, a huge name, a bidi override, port 0, a name taken twice, a table nobody
answers for); small scripted bootstraps (a REP socket answering ``info`` as a table does) stand for
live tables. Names are unique per run: other tests on this machine may advertise on loopback too.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
import zmq
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.utils import get_cwidth
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from fairdeck.console import screen_text
from fairdeck.console.lobby import TablePicker, fit
from fairdeck.lan import TableNotFound, find_table, survey
from p2p.discovery import SERVICE_TYPE

LO = ["127.0.0.1"]


def _txt(name: str, **over: str) -> dict[str, str]:
    base = {"name": name, "game": "loveletter", "seats": "3", "free": "2", "proto": "1", "fp": "EVIL-FP"}
    return {**base, **over}


class _Bootstrap:
    """A scripted table bootstrap on loopback: answers every question with ``info``."""

    def __init__(self, name: str) -> None:
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.REP)
        self.sock.linger = 0
        self.port = self.sock.bind_to_random_port("tcp://127.0.0.1")
        info = {"name": name, "game": "loveletter", "free": 2, "full": False, "watch": False}
        self.reply = msgpack.packb(info)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            if self.sock.poll(50):
                self.sock.recv()
                self.sock.send(self.reply)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close(0)
        self.ctx.term()


async def _advertise(ads: list[tuple[str, dict[Any, Any], int]]) -> AsyncZeroconf:
    """Register raw advertisements (no validation: as a hostile peer would) on loopback."""
    azc = AsyncZeroconf(interfaces=LO, ip_version=IPVersion.V4Only)
    for label, txt, port in ads:
        info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"{label}.{SERVICE_TYPE}",
            port=port,
            properties=txt,
            server=f"w21-{secrets.token_hex(5)}.local.",
            parsed_addresses=["127.0.0.1"],
        )
        await (await azc.async_register_service(info, allow_name_change=True))
    return azc


@pytest.fixture
def tag() -> Iterator[str]:
    yield secrets.token_hex(3)


def _hostile(tag: str) -> list[tuple[str, dict[Any, Any], int]]:
    return [
        (f"garbage-{tag}", {b"name": b"\xff\xfe", b"junk": b"\x00" * 200, b"seats": b"lots"}, 4000),
        (f"huge-{tag}", _txt("H" * 250), 4000),
        (f"rtl-{tag}", _txt(f"abc\u202edcba-{tag}"), 4000),
        (f"port0-{tag}", _txt(f"PortZero-{tag}"), 0),
    ]


def test_names_are_fitted_to_columns_whatever_their_width() -> None:
    for name in ["Friday", "表" * 20, "a\x1b[31mb", "é" * 30, ""]:
        cell = fit(name, 22)
        assert get_cwidth(cell) == 22, (name, cell)
        assert "\x1b" not in cell
    assert fit("表" * 20, 22).rstrip().endswith("…")


def test_a_name_taken_twice_is_refused_with_both_addresses_and_a_gone_table_is_said_so(tag: str) -> None:
    twin, ghost = f"Twin-{tag}", f"Ghost-{tag}"
    first, second = _Bootstrap(twin), _Bootstrap(twin)

    async def main() -> tuple[str, str, Any]:
        azc = await _advertise(
            [
                (f"twin-a-{tag}", _txt(twin, fp="FP-A"), first.port),
                (f"twin-b-{tag}", _txt(twin, fp="FP-B"), second.port),
                (f"ghost-{tag}", _txt(ghost), 9),  # nothing answers at port 9
                *_hostile(tag),
            ]
        )
        try:
            with pytest.raises(TableNotFound) as twice:
                await find_table(twin, LO, seconds=3.0)
            with pytest.raises(TableNotFound) as gone:
                await find_table(ghost.lower(), LO, seconds=3.0)  # (a name matches whatever its case)
            found = await survey(3.0, LO)
        finally:
            await azc.async_close()
        return str(twice.value), str(gone.value), found

    try:
        twice, gone, found = asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        first.close()
        second.close()
    assert f"2 tables are called {twin}" in twice
    assert f"127.0.0.1:{first.port} (host FP-A)" in twice and f"127.0.0.1:{second.port} (host FP-B)" in twice
    assert "HOST:PORT" in twice
    assert f"a table called {ghost.lower()} is advertised on the LAN, but nothing answers there" in gone
    assert "127.0.0.1:9" in gone
    # the survey lists the live tables, counts the silent and the ignored ones, and prints nothing raw
    assert sorted(t.table.name for t in found.live if tag in t.table.name) == [twin, twin]
    assert ghost in [t.name for t in found.silent]
    notes = "\n".join(found.notes())
    assert "did not answer" in notes and "not valid fairdeck tables" in notes
    assert len([r for r in found.ignored if tag in r]) >= 4
    assert all(line.isprintable() for line in found.notes()), notes


def test_the_pickers_screen_gets_the_discovery_warnings_and_no_raw_write(
    tag: str, capfd: pytest.CaptureFixture[str]
) -> None:
    wide = "表" * 20 + tag

    async def main() -> str:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            picker = TablePicker(LO)
            task = asyncio.create_task(picker.run())
            azc = await _advertise([*_hostile(tag), (f"wide-{tag}", _txt(wide), 4002)])
            try:
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 30
                while not (
                    any(t.name == wide for t in picker.tables)
                    and len([e for e in picker.events if tag in e and "ignoring" in e]) >= 4
                ):
                    assert loop.time() < deadline, f"the picker never showed it all: {picker.events}"
                    await asyncio.sleep(0.05)
                logging.getLogger("p2p.discovery").warning("odd \x1b[2J news")  # any warning at all
                await asyncio.sleep(0.1)
                return screen_text(picker.app, 100, 30)
            finally:
                await azc.async_close()
                picker.app.exit(result=None)
                await asyncio.wait_for(task, 20)

    screen = asyncio.run(asyncio.wait_for(main(), 60))
    written = capfd.readouterr()
    assert "ignoring" not in written.err and "odd" not in written.err  # nothing printed over the screen
    assert "\x1b[2J" not in screen and "odd \\x1b[2J news" in screen
    row = next(line for line in screen.splitlines() if "表" in line)
    header = next(line for line in screen.splitlines() if "game" in line and "seats" in line)
    assert get_cwidth(row[: row.index("loveletter")]) == header.index("game")  # the columns still line up
