"""The LAN lobby (``fairdeck.console.lobby``): tables appear and disappear live; Enter joins one.

Discovery runs on loopback only (``["127.0.0.1"]``), with unique table names per run, as in
``test_discovery.py``.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import p2p.discovery as discovery
from fairdeck.console import screen_text
from fairdeck.console.lobby import TablePicker
from p2p.discovery import Advertiser, Change, TableInfo

LO = ["127.0.0.1"]
DOWN, ENTER = "\x1b[B", "\r"


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Refuse any zeroconf instance that is not bound to loopback (no multicast on a real network)."""
    real = discovery.AsyncZeroconf

    def guarded(*args: Any, **kwargs: Any) -> Any:
        interfaces = kwargs.get("interfaces", args[0] if args else None)
        assert isinstance(interfaces, list) and all(a.startswith("127.") for a in interfaces)
        return real(*args, **kwargs)

    monkeypatch.setattr(discovery, "AsyncZeroconf", guarded)
    yield


def _props(free: int = 3) -> dict[str, object]:
    return {"game": "loveletter", "seats": 4, "free": free, "proto": 1, "fp": "fp0123456789abcdef"}


async def _until(condition: Any, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "the lobby never got there"
        await asyncio.sleep(0.02)


def test_tables_appear_and_disappear_live_and_enter_joins_one() -> None:
    names = [f"Attic-{secrets.token_hex(3)}", f"Barn-{secrets.token_hex(3)}"]
    shown: dict[str, str] = {}

    async def main() -> str | None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            picker = TablePicker(LO)
            task = asyncio.create_task(picker.run())
            ours = lambda: [t.name for t in picker.tables if t.name in names]  # noqa: E731
            first = await Advertiser(names[0], 41001, _props(), LO).start()
            second = await Advertiser(names[1], 41002, _props(free=1), LO).start()
            try:
                await _until(lambda: ours() == names)
                shown["both"] = screen_text(picker.app, 100, 24)
                await first.close()
                await _until(lambda: ours() == [names[1]])
                shown["one"] = screen_text(picker.app, 100, 24)
                picker.cursor = [t.name for t in picker.tables].index(names[1])
                keys.send_text(ENTER)
                return await asyncio.wait_for(task, 20)
            finally:
                await second.close()
                if not task.done():
                    picker.app.exit(result=None)

    chosen = asyncio.run(main())
    assert chosen == "127.0.0.1:41002"
    assert names[0] in shown["both"] and names[1] in shown["both"] and "1/4 free" in shown["both"]
    assert names[0] not in shown["one"].split("* ")[0]  # gone from the list (the news line remains)
    assert "closed or filled up" in shown["one"]


def _offline_picker() -> TablePicker:
    picker = TablePicker(LO)
    for i, (name, free) in enumerate([("Den", 2), ("Full house", 0)]):
        table = TableInfo(f"svc{i}", name, "regicide", free, 2, 1, "fp", ("10.0.0.7",), 47000 + i)
        picker.on_change(Change.ADDED, table)
    return picker


def test_a_full_table_is_refused_and_an_address_can_be_typed() -> None:
    async def main() -> str | None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            picker = _offline_picker()
            task = asyncio.create_task(picker.app.run_async())
            await _until(lambda: picker.app.is_running)
            keys.send_text(DOWN + ENTER)  # the full table
            await _until(lambda: "is full" in picker.message[1])
            keys.send_text("nowhere" + ENTER)
            await _until(lambda: "is not HOST:PORT" in picker.message[1])
            picker.buffer.reset()
            keys.send_text("192.168.1.20:47000" + ENTER)
            return await asyncio.wait_for(task, 20)

    assert asyncio.run(main()) == "192.168.1.20:47000"


def test_leaving_the_lobby_returns_nothing() -> None:
    async def main() -> str | None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            picker = _offline_picker()
            task = asyncio.create_task(picker.app.run_async())
            await _until(lambda: picker.app.is_running)
            text = screen_text(picker.app, 100, 24)
            assert "Den" in text and "1/2" not in text and "2/2 free" in text and "full" in text
            keys.send_text("q")
            return await asyncio.wait_for(task, 20)

    assert asyncio.run(main()) is None
