"""LAN discovery of fairdeck tables with mDNS / DNS-SD (python-zeroconf).

Theory of operation
-------------------
A peer that opens a table runs an :class:`Advertiser`: one DNS-SD service of type
``_fairdeck._tcp.local.`` whose SRV record carries the port of its :class:`~p2p.transport.Mesh`
ROUTER, whose A records carry its IPv4 addresses, and whose TXT record says what the table is:

========  ==================================================================
``name``  the table's human name (also the start of the instance name)
``game``  engine name, as in ``engine.games``
``seats`` number of seats (1..16)
``free``  seats still free (0..seats); :meth:`Advertiser.update` changes it
``proto`` table-protocol version (an integer)
``fp``    the host's identity fingerprint, to show and to check after joining
``key``   optional: the host mesh's CurveZMQ public key (Z85), which a joiner
          needs to connect; trust comes from the signed genesis, not from this
``mode``  optional: ``fair`` or ``trusted`` (party 0 sees every card)
``proof`` optional: the shuffle proof, ``wt`` (Wikström–Terelius) or ``cc:ROUNDS``
``opts``  optional: the game options as compact JSON (at most 200 bytes)
``stall`` optional: the table's stall deadline in seconds
``late``  optional: what happens when a player lets it pass: ``close`` or ``bot``
========  ==================================================================

The optional terms (``mode``, ``proof``, ``opts``, ``stall``) are shown before anyone joins; a joiner
that picked the table here holds the table's bootstrap reply and genesis to them
(:mod:`p2p.policy`). An advertisement without them (an older fairdeck) is listed with its terms
unknown.

A :class:`Browser` listens for those services and keeps a live map of :class:`TableInfo`, calling
``on_change(change, table)`` on every add, visible update and removal. A TXT record that does not
follow the table above (a missing field, a non-number, ``free > seats``...) is ignored with a
logged reason: discovery data comes from anyone on the LAN and is only a hint.

``interfaces`` is ``"all"`` for real use (every interface, as zeroconf's ``InterfaceChoice.All``)
or a list of local IPv4 addresses. Tests in the root network namespace must pass
``["127.0.0.1"]`` so nothing is multicast on a real network.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ipaddress
import logging
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2p import policy
from p2p.safetext import safe_text
from p2p.transport import raw_key, z85_key

__all__ = [
    "SERVICE_TYPE",
    "Advertiser",
    "Browser",
    "Change",
    "Interfaces",
    "TableInfo",
    "browse",
    "parse_table",
]

log = logging.getLogger(__name__)

SERVICE_TYPE = "_fairdeck._tcp.local."
"""The DNS-SD service type of a fairdeck table."""

Interfaces = Literal["all"] | Sequence[str]
"""``"all"`` (every interface) or a list of local IPv4 addresses to use for mDNS."""

_REQUIRED = ("name", "game", "seats", "free", "proto", "fp")
_GAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_INT_RE = re.compile(r"[0-9]{1,5}")
_FP_RE = re.compile(r"[\x21-\x7e]{1,128}")  # printable ASCII, no spaces
_MAX_SEATS = 16
_RESOLVE_MS = 3000
_MAX_LABEL = 63  # bytes in one DNS label, the instance name's limit


class Change(enum.Enum):
    """What happened to a table, as passed to a :class:`Browser`'s ``on_change``."""

    ADDED = "added"
    UPDATED = "updated"
    REMOVED = "removed"


@dataclass(frozen=True)
class TableInfo:
    """One advertised table, as seen on the LAN."""

    service: str
    """The full DNS-SD instance name (unique on the LAN; identifies the table for updates)."""
    name: str
    """The table's human name."""
    game: str
    """Engine name, as registered in ``engine.games``."""
    free: int
    """Seats still free."""
    seats: int
    """Number of seats."""
    proto: int
    """Table-protocol version."""
    fp: str
    """The host's identity fingerprint."""
    addresses: tuple[str, ...]
    """The host's IPv4 addresses."""
    port: int
    """The host mesh's ROUTER port."""
    key: bytes | None = None
    """The host mesh's raw CurveZMQ public key, if advertised."""
    mode: str | None = None
    """``fair`` or ``trusted``, if advertised."""
    proof: policy.Proof | None = None
    """The shuffle proof, if advertised."""
    options: dict[str, object] | None = None
    """The game options, if advertised."""
    stall: int | None = None
    """The stall deadline in seconds, if advertised."""
    on_stall: str | None = None
    """``close`` or ``bot`` (a safe move is played for a late player), if advertised."""

    def endpoints(self) -> list[str]:
        """ZeroMQ endpoints to try, one per address: ``["tcp://10.0.0.5:41234", ...]``."""
        return [f"tcp://{addr}:{self.port}" for addr in self.addresses]

    def terms(self) -> policy.Terms | None:
        """The advertised terms (``None`` if the advertisement does not state them all)."""
        if self.mode is None or self.proof is None or self.options is None or self.stall is None:
            return None
        return policy.Terms(
            game=self.game,
            seats=self.seats,
            options=dict(self.options),
            mode=self.mode,
            proof=self.proof,
            stall_after=self.stall,
            fp=self.fp,
            on_stall=self.on_stall,
        )

    def terms_text(self) -> str:
        """The terms in words, for lists of tables: ``fair · proof: Wikström–Terelius · ...``."""
        if self.mode is None and self.proof is None and self.options is None and self.stall is None:
            return "terms not advertised (an older fairdeck): they are shown when you join"
        mode = {None: "mode ?", "fair": "fair", "trusted": "TRUSTED (seat 0 sees every card)"}[self.mode]
        proof = f"proof: {self.proof.describe()}" if self.proof is not None else "proof: ?"
        if self.options is None:
            opts = "options: ?"
        else:
            opts = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items())) or "no options"
        stall = f"stall deadline {self.stall} s" if self.stall is not None else "stall deadline ?"
        if self.on_stall == "bot":
            stall += " (then a safe move is played for a late player)"
        return safe_text(" · ".join([mode, proof, opts, stall]))  # the options came from anyone


def _text(props: Mapping[bytes, bytes | None], field: str) -> str:
    value = props.get(field.encode())
    if value is None:
        raise ValueError(f"missing TXT field {field!r}")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"TXT field {field!r} is not UTF-8") from None


def _int(props: Mapping[bytes, bytes | None], field: str, low: int, high: int) -> int:
    text = _text(props, field)
    if not _INT_RE.fullmatch(text):
        raise ValueError(f"TXT field {field!r} is not a small decimal number")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"TXT field {field!r}={value} is outside {low}..{high}")
    return value


def parse_table(
    service: str, properties: Mapping[bytes, bytes | None], addresses: Sequence[str], port: int | None
) -> TableInfo:
    """Validate one advertisement and build its :class:`TableInfo`; ``ValueError`` says what is wrong."""
    name = _text(properties, "name")
    if not name or len(name) > _MAX_LABEL or not name.isprintable():
        raise ValueError("TXT field 'name' must be 1..63 printable characters")
    game = _text(properties, "game")
    if not _GAME_RE.fullmatch(game):
        raise ValueError("TXT field 'game' must be a short lower-case engine name")
    seats = _int(properties, "seats", 1, _MAX_SEATS)
    free = _int(properties, "free", 0, seats)
    proto = _int(properties, "proto", 0, 65535)
    fp = _text(properties, "fp")
    if not _FP_RE.fullmatch(fp):
        raise ValueError("TXT field 'fp' must be 1..128 printable ASCII characters")
    key = None
    if properties.get(b"key") is not None:
        try:
            key = raw_key(_text(properties, "key"))
        except ValueError:
            raise ValueError("TXT field 'key' is not a Z85 curve key") from None
    mode = proof = options = stall = None
    if properties.get(b"mode") is not None:
        mode = _text(properties, "mode")
        if mode not in policy.MODES:
            raise ValueError("TXT field 'mode' must be 'fair' or 'trusted'")
    if properties.get(b"proof") is not None:
        try:
            proof = policy.Proof.parse(_text(properties, "proof"))
        except policy.PolicyError:
            raise ValueError("TXT field 'proof' must be 'wt' or 'cc:ROUNDS'") from None
    if properties.get(b"opts") is not None:
        try:
            options = policy.parse_options(_text(properties, "opts"))
        except policy.PolicyError as exc:
            raise ValueError(f"TXT field 'opts': {exc}") from None
    if properties.get(b"stall") is not None:
        stall = _int(properties, "stall", policy.MIN_STALL_AFTER, policy.MAX_STALL_AFTER)
    on_stall = None
    if properties.get(b"late") is not None:
        on_stall = _text(properties, "late")
        if on_stall not in ("close", "bot"):
            raise ValueError("TXT field 'late' must be 'close' or 'bot'")
    if port is None or not 1 <= port <= 65535:
        raise ValueError(f"bad port {port!r}")
    addrs = []
    for addr in addresses:
        try:
            addrs.append(str(ipaddress.IPv4Address(addr)))
        except ValueError:
            raise ValueError(f"bad IPv4 address {addr!r}") from None
    if not addrs:
        raise ValueError("no IPv4 address")
    return TableInfo(
        service=service,
        name=name,
        game=game,
        free=free,
        seats=seats,
        proto=proto,
        fp=fp,
        addresses=tuple(addrs),
        port=port,
        key=key,
        mode=mode,
        proof=proof,
        options=options,
        stall=stall,
        on_stall=on_stall,
    )


def _zeroconf_interfaces(interfaces: Interfaces) -> InterfaceChoice | list[str]:
    if interfaces == "all":
        return InterfaceChoice.All
    if isinstance(interfaces, str) or not interfaces:
        raise ValueError('interfaces must be "all" or a non-empty list of local IPv4 addresses')
    return [str(ipaddress.IPv4Address(a)) for a in interfaces]


def _local_ipv4(interfaces: Interfaces) -> list[str]:
    """Addresses to advertise: the given ones, or every non-loopback IPv4 address for "all"."""
    if interfaces != "all":
        return [a for a in _zeroconf_interfaces(interfaces) if a != "0.0.0.0"]  # type: ignore[union-attr]
    found = sorted(
        {
            str(ip.ip)
            for adapter in ifaddr.get_adapters()
            for ip in adapter.ips
            if ip.is_IPv4 and not ipaddress.IPv4Address(ip.ip).is_loopback
        }
    )
    return found or ["127.0.0.1"]


def _instance_label(name: str, fp: str) -> str:
    """A DNS-SD instance label from the table name: no dots or control characters, <= 63 bytes."""
    clean = "".join(c if c.isprintable() and c != "." else "_" for c in name).strip() or "table"
    suffix = f" [{fp[:8]}]"
    room = _MAX_LABEL - len(suffix.encode())
    encoded = clean.encode()[:room].decode("utf-8", "ignore")
    return encoded + suffix


def _txt(name: str, properties: Mapping[str, object]) -> dict[str, str]:
    txt: dict[str, str] = {}
    for field, value in properties.items():
        if field == "key" and isinstance(value, bytes):
            value = z85_key(value).decode()  # raw or Z85 in, Z85 on the wire
        txt[field] = value if isinstance(value, str) else str(value)
    txt["name"] = name
    return txt


class Advertiser:
    """Advertise one table on the LAN until :meth:`close`.

    ``properties`` holds ``game``, ``seats``, ``free``, ``proto``, ``fp`` and optionally ``key``
    (values may be ints, strs, or for ``key`` raw/Z85 bytes) and the terms ``mode``, ``proof``,
    ``opts``, ``stall`` (see :meth:`p2p.policy.Terms.to_txt`); ``name`` is the table's name.
    ``addresses`` defaults to the addresses of ``interfaces`` (every non-loopback IPv4 address
    for ``"all"``). Invalid own properties raise ``ValueError`` at once.
    """

    def __init__(
        self,
        name: str,
        port: int,
        properties: Mapping[str, object],
        interfaces: Interfaces = "all",
        *,
        addresses: Sequence[str] | None = None,
    ) -> None:
        self._interfaces = interfaces
        self._zc_interfaces = _zeroconf_interfaces(interfaces)
        self._addresses = list(addresses) if addresses is not None else _local_ipv4(interfaces)
        self._name = name
        self._port = port
        self._txt = _txt(name, properties)
        self._label = _instance_label(name, self._txt.get("fp", ""))
        self._check()
        self._azc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._closed = False

    def _check(self) -> None:
        parse_table(
            "self",
            {k.encode(): v.encode() for k, v in self._txt.items()},
            self._addresses,
            self._port,
        )

    def _build_info(self, label: str) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            SERVICE_TYPE,
            f"{label}.{SERVICE_TYPE}",
            port=self._port,
            properties=self._txt,
            # A unique host name per advertiser: peers in several network namespaces of one
            # machine share a hostname, and one host name with different addresses would clash.
            server=f"fairdeck-{secrets.token_hex(6)}.local.",
            parsed_addresses=self._addresses,
        )

    @property
    def service(self) -> str:
        """The full instance name actually registered (zeroconf may rename on a clash)."""
        if self._info is None:
            raise RuntimeError("advertiser not started")
        return self._info.name

    @property
    def table(self) -> TableInfo:
        """What browsers will see for this table."""
        return parse_table(
            self._info.name if self._info else self._label,
            {k.encode(): v.encode() for k, v in self._txt.items()},
            self._addresses,
            self._port,
        )

    async def start(self) -> Advertiser:
        """Register the service (mDNS probing takes about 1.5 s); returns ``self``."""
        if self._closed:
            raise RuntimeError("advertiser is closed")
        if self._azc is not None:
            return self
        self._azc = AsyncZeroconf(interfaces=self._zc_interfaces, ip_version=IPVersion.V4Only)
        self._info = self._build_info(self._label)
        try:
            await (await self._azc.async_register_service(self._info, allow_name_change=True))
        except BaseException:
            await self._azc.async_close()
            self._azc = None
            raise
        log.info("advertising table %r on port %d at %s", self._name, self._port, self._addresses)
        return self

    async def update(self, properties: Mapping[str, object]) -> None:
        """Change some TXT fields (e.g. ``{"free": 1}``) and re-announce them."""
        if self._azc is None or self._info is None:
            raise RuntimeError("advertiser not started")
        old = self._txt
        self._txt = {**old, **_txt(self._name, properties)}
        try:
            self._check()
        except ValueError:
            self._txt = old
            raise
        self._info = AsyncServiceInfo(
            SERVICE_TYPE,
            self._info.name,
            port=self._port,
            properties=self._txt,
            server=self._info.server,
            parsed_addresses=self._addresses,
        )
        await (await self._azc.async_update_service(self._info))

    async def close(self) -> None:
        """Send the goodbye (browsers drop the table at once) and stop. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._azc is not None:
            azc, self._azc = self._azc, None
            try:
                if self._info is not None:
                    await (await azc.async_unregister_service(self._info))
            finally:
                await azc.async_close()

    async def __aenter__(self) -> Advertiser:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


class Browser:
    """Watch the LAN for tables; ``on_change(change, table)`` is called in the event loop.

    :meth:`tables` is a snapshot of the valid tables currently advertised.
    """

    def __init__(
        self,
        interfaces: Interfaces = "all",
        on_change: Callable[[Change, TableInfo], None] | None = None,
    ) -> None:
        self._zc_interfaces = _zeroconf_interfaces(interfaces)
        self._on_change = on_change
        self._tables: dict[str, TableInfo] = {}
        self._azc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._generation: dict[str, int] = {}
        self._closed = False

    def tables(self) -> list[TableInfo]:
        """The valid tables known right now, sorted by name."""
        return sorted(self._tables.values(), key=lambda t: (t.name, t.service))

    async def start(self) -> Browser:
        """Start listening; returns ``self``."""
        if self._closed:
            raise RuntimeError("browser is closed")
        if self._azc is None:
            self._azc = AsyncZeroconf(interfaces=self._zc_interfaces, ip_version=IPVersion.V4Only)
            self._browser = AsyncServiceBrowser(self._azc.zeroconf, [SERVICE_TYPE], handlers=[self._on_state])
        return self

    async def close(self) -> None:
        """Stop listening. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._pending):
            task.cancel()
        for task in list(self._pending):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._browser is not None:
            await self._browser.async_cancel()
        if self._azc is not None:
            await self._azc.async_close()

    async def __aenter__(self) -> Browser:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def _on_state(
        self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        # Called by zeroconf in the event loop; keep it short and never let it raise.
        if self._closed:
            return
        self._generation[name] = self._generation.get(name, 0) + 1
        if state_change is ServiceStateChange.Removed:
            self._forget(name, "removed by its host (or expired)")
            return
        task = asyncio.get_running_loop().create_task(self._resolve(zeroconf, name, self._generation[name]))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _resolve(self, zc: Zeroconf, name: str, generation: int) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        resolved = await info.async_request(zc, _RESOLVE_MS)
        if self._closed or self._generation.get(name) != generation:
            return  # a newer event (or a removal) for this name superseded us
        if not resolved:
            log.debug("could not resolve %r", name)
            return
        try:
            table = parse_table(
                name, info.properties or {}, info.parsed_addresses(IPVersion.V4Only), info.port
            )
        except ValueError as exc:
            log.warning("ignoring advertised table %r: %s", name, exc)
            self._forget(name, "its advertisement became invalid")
            return
        old = self._tables.get(name)
        if old == table:
            return
        self._tables[name] = table
        self._notify(Change.ADDED if old is None else Change.UPDATED, table)

    def _forget(self, name: str, why: str) -> None:
        table = self._tables.pop(name, None)
        if table is not None:
            log.debug("table %r gone: %s", name, why)
            self._notify(Change.REMOVED, table)

    def _notify(self, change: Change, table: TableInfo) -> None:
        if self._on_change is None:
            return
        try:
            self._on_change(change, table)
        except Exception:
            # A broken UI callback must not stop discovery.
            log.exception("on_change callback failed for %s %r", change.value, table.name)


async def browse(seconds: float = 2.0, interfaces: Interfaces = "all") -> list[TableInfo]:
    """Listen for ``seconds`` and return the tables seen, sorted by name (for ``fairdeck tables``)."""
    async with Browser(interfaces) as browser:
        await asyncio.sleep(seconds)
        return browser.tables()
