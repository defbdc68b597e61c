"""Tests for p2p.discovery: table advertisement and browsing over mDNS, on loopback only.

These run in the root network namespace, so every zeroconf instance is bound to 127.0.0.1; the
autouse guard below fails any test that would open zeroconf on other interfaces (multicast on a
real network). Table names are unique per run, because other tests on this machine may advertise
on loopback at the same time.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

import p2p.discovery as discovery
from p2p.discovery import SERVICE_TYPE, Advertiser, Browser, Change, TableInfo, browse, parse_table
from p2p.transport import curve_keypair_from_secret, z85_key

LO = ["127.0.0.1"]
T = TypeVar("T")


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Refuse any zeroconf instance that is not bound to loopback (network-safety rule)."""
    real = discovery.AsyncZeroconf

    def guarded(*args: Any, **kwargs: Any) -> AsyncZeroconf:
        interfaces = kwargs.get("interfaces", args[0] if args else None)
        assert isinstance(interfaces, list) and interfaces, f"zeroconf on {interfaces!r} in a test"
        assert all(a.startswith("127.") for a in interfaces), f"zeroconf on {interfaces!r} in a test"
        return real(*args, **kwargs)

    monkeypatch.setattr(discovery, "AsyncZeroconf", guarded)
    yield


def run(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run one async test body with an overall safety timeout."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


async def eventually(cond: Callable[[], bool], timeout: float = 15.0) -> bool:
    """Poll ``cond`` until it holds or ``timeout`` passes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def props(**over: object) -> dict[str, object]:
    base: dict[str, object] = {"game": "loveletter", "seats": 4, "free": 3, "proto": 1, "fp": "fp0123456789"}
    base.update(over)
    return base


def txt(**over: object) -> dict[bytes, bytes | None]:
    base = {"name": "Kitchen", **props()}
    base.update(over)
    return {k.encode(): (None if v is None else str(v).encode()) for k, v in base.items()}


# ---------------------------------------------------------------------------------------------
# TXT validation
# ---------------------------------------------------------------------------------------------


def test_parse_table_accepts_a_valid_record() -> None:
    public, _ = curve_keypair_from_secret(b"k" * 32)
    table = parse_table("s", txt(key=z85_key(public).decode()), ["10.0.0.5", "127.0.0.1"], 5555)
    assert table == TableInfo(
        service="s",
        name="Kitchen",
        game="loveletter",
        free=3,
        seats=4,
        proto=1,
        fp="fp0123456789",
        addresses=("10.0.0.5", "127.0.0.1"),
        port=5555,
        key=public,
    )
    assert table.endpoints() == ["tcp://10.0.0.5:5555", "tcp://127.0.0.1:5555"]
    assert parse_table("s", txt(), ["10.0.0.5"], 5555).key is None


@pytest.mark.parametrize(
    ("over", "addresses", "port", "reason"),
    [
        ({"fp": None}, ["10.0.0.1"], 1, "missing TXT field 'fp'"),
        ({"free": 5}, ["10.0.0.1"], 1, "'free'=5 is outside 0..4"),
        ({"free": -1}, ["10.0.0.1"], 1, "'free' is not a small decimal"),
        ({"seats": "four"}, ["10.0.0.1"], 1, "'seats' is not a small decimal"),
        ({"seats": 0}, ["10.0.0.1"], 1, "'seats'=0 is outside 1..16"),
        ({"seats": 99}, ["10.0.0.1"], 1, "'seats'=99 is outside 1..16"),
        ({"proto": "1.0"}, ["10.0.0.1"], 1, "'proto' is not a small decimal"),
        ({"game": "Love Letter"}, ["10.0.0.1"], 1, "'game' must be"),
        ({"name": ""}, ["10.0.0.1"], 1, "'name' must be"),
        ({"name": "x" * 64}, ["10.0.0.1"], 1, "'name' must be"),
        ({"name": "bad\x1bname"}, ["10.0.0.1"], 1, "'name' must be"),
        ({"fp": "has space"}, ["10.0.0.1"], 1, "'fp' must be"),
        ({"key": "short"}, ["10.0.0.1"], 1, "'key' is not a Z85"),
        ({}, [], 1, "no IPv4 address"),
        ({}, ["fe80::1"], 1, "bad IPv4 address"),
        ({}, ["10.0.0.1"], 0, "bad port"),
        ({}, ["10.0.0.1"], None, "bad port"),
    ],
)
def test_parse_table_rejects_malformed_records(
    over: dict[str, object], addresses: list[str], port: int | None, reason: str
) -> None:
    with pytest.raises(ValueError, match=reason.replace("(", r"\(").replace(".", r"\.")):
        parse_table("s", txt(**over), addresses, port)


def test_parse_table_rejects_non_utf8() -> None:
    bad = txt()
    bad[b"name"] = b"\xff\xfe"
    with pytest.raises(ValueError, match="not UTF-8"):
        parse_table("s", bad, ["10.0.0.1"], 1)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([b"name", b"game", b"seats", b"free", b"proto", b"fp", b"key", b"x"]),
        st.one_of(st.none(), st.binary(max_size=50), st.integers(-5, 40).map(lambda i: str(i).encode())),
    ),
    st.lists(st.sampled_from(["10.0.0.1", "::1", "nonsense", "255.255.255.255"]), max_size=3),
    st.one_of(st.none(), st.integers(-1, 70000)),
)
def test_parse_table_only_ever_raises_valueerror(
    record: dict[bytes, bytes | None], addresses: list[str], port: int | None
) -> None:
    try:
        table = parse_table("s", record, addresses, port)
    except ValueError:
        return
    assert 0 <= table.free <= table.seats <= 16 and 1 <= table.port <= 65535 and table.addresses


def test_advertiser_rejects_its_own_bad_properties() -> None:
    with pytest.raises(ValueError, match="'free'=9"):
        Advertiser("t", 5555, props(free=9), LO)
    with pytest.raises(ValueError, match="missing TXT field 'proto'"):
        Advertiser("t", 5555, {"game": "regicide", "seats": 2, "free": 1, "fp": "x"}, LO)
    with pytest.raises(ValueError, match="interfaces"):
        Advertiser("t", 5555, props(), "127.0.0.1")
    with pytest.raises(ValueError):
        Browser(["not-an-address"])


def test_instance_names_are_single_dns_labels() -> None:
    adv = Advertiser("a.b" + "é" * 40, 5555, props(), LO)
    label = adv.table.service
    assert "." not in label and len(label.encode()) <= 63
    assert adv.table.name == "a.b" + "é" * 40  # the TXT name keeps the real name


# ---------------------------------------------------------------------------------------------
# live on loopback
# ---------------------------------------------------------------------------------------------


def test_advertised_table_is_found_updated_and_removed() -> None:
    async def body() -> None:
        name = unique("Kitchen table")
        public, _ = curve_keypair_from_secret(b"h" * 32)
        events: list[tuple[Change, TableInfo]] = []

        def on_change(change: Change, table: TableInfo) -> None:
            if table.name == name:
                events.append((change, table))

        async with Browser(LO, on_change=on_change) as browser:
            ours = lambda: [t for t in browser.tables() if t.name == name]  # noqa: E731
            adv = await Advertiser(name, 41234, props(key=public), LO).start()
            try:
                assert await eventually(lambda: len(ours()) == 1)
                (table,) = ours()
                assert table == TableInfo(
                    service=adv.service,
                    name=name,
                    game="loveletter",
                    free=3,
                    seats=4,
                    proto=1,
                    fp="fp0123456789",
                    addresses=("127.0.0.1",),
                    port=41234,
                    key=public,
                )
                await adv.update({"free": 1})
                assert await eventually(lambda: [t.free for t in ours()] == [1])
            finally:
                await adv.close()
            assert await eventually(lambda: ours() == [])
        kinds = [c for c, _ in events]
        assert kinds == [Change.ADDED, Change.UPDATED, Change.REMOVED]
        assert [t.free for _, t in events] == [3, 1, 1]

    run(body())


def test_browse_finds_tables_advertised_earlier() -> None:
    async def body() -> None:
        names = [unique("Hall"), unique("Attic")]
        advs = [
            Advertiser(n, 40000 + i, props(game="regicide", seats=2, free=1), LO) for i, n in enumerate(names)
        ]
        await asyncio.gather(*(a.start() for a in advs))
        try:
            found = [t for t in await browse(2.0, LO) if t.name in names]
        finally:
            await asyncio.gather(*(a.close() for a in advs))
        assert sorted((t.name, t.port, t.game, t.free, t.seats) for t in found) == sorted(
            [(names[0], 40000, "regicide", 1, 2), (names[1], 40001, "regicide", 1, 2)]
        )

    run(body())


def test_malformed_advertisements_are_ignored_with_a_reason(caplog: pytest.LogCaptureFixture) -> None:
    """Other hosts' broken TXT records never reach the table list, and never break the browser."""

    async def body() -> None:
        good, bad, turned = unique("Good"), unique("Bad"), unique("Turned")
        seen: list[str] = []

        def on_change(change: Change, table: TableInfo) -> None:
            seen.append(table.name)
            if table.name == good:
                raise RuntimeError("a buggy UI callback")  # must not stop discovery

        raw = AsyncZeroconf(interfaces=LO, ip_version=IPVersion.V4Only)
        infos = [
            AsyncServiceInfo(
                SERVICE_TYPE,
                f"{bad}.{SERVICE_TYPE}",
                port=4000,
                properties={"name": bad, "game": "loveletter", "seats": "2", "free": "7", "proto": "1"},
                server=f"{bad}.local.",
                parsed_addresses=["127.0.0.1"],
            ),
        ]
        turned_props = {
            "name": turned,
            "game": "loveletter",
            "seats": "2",
            "free": "1",
            "proto": "1",
            "fp": "f",
        }
        turned_info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"{turned}.{SERVICE_TYPE}",
            port=4001,
            properties=turned_props,
            server=f"{turned}.local.",
            parsed_addresses=["127.0.0.1"],
        )
        try:
            async with Browser(LO, on_change=on_change) as browser:
                names = lambda: {t.name for t in browser.tables()}  # noqa: E731
                await asyncio.gather(
                    *(await asyncio.gather(*(raw.async_register_service(i) for i in [*infos, turned_info])))
                )
                async with Advertiser(good, 4002, props(), LO):
                    assert await eventually(lambda: {good, turned} <= names())
                    # A table whose record turns invalid is dropped from the list.
                    broken = AsyncServiceInfo(
                        SERVICE_TYPE,
                        f"{turned}.{SERVICE_TYPE}",
                        port=4001,
                        properties={**turned_props, "seats": "lots"},
                        server=f"{turned}.local.",
                        parsed_addresses=["127.0.0.1"],
                    )
                    await (await raw.async_update_service(broken))
                    assert await eventually(lambda: turned not in names())
                    assert bad not in names() and good in names()
        finally:
            await raw.async_close()
        assert bad not in seen
        assert seen.count(turned) == 2  # added, then removed when it turned invalid
        messages = [r.getMessage() for r in caplog.records if r.name == "p2p.discovery"]
        assert any(bad in m and "'free'=7 is outside 0..2" in m for m in messages)
        assert any(turned in m and "'seats' is not a small decimal" in m for m in messages)
        assert any("on_change callback failed" in m for m in messages)

    with caplog.at_level(logging.WARNING, logger="p2p.discovery"):
        run(body())
