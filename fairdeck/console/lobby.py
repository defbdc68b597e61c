"""The LAN lobby: tables advertised on the network appear and disappear live; Enter joins one.

:func:`pick_table` runs a small full-screen application over a :class:`p2p.discovery.Browser`
and returns the ``HOST:PORT`` to give :meth:`p2p.node.Node.join` (the advertised port is the
table's bootstrap port), or ``None`` if the person leaves. A table can also be typed by hand as
``HOST:PORT`` (discovery is only a convenience: multicast may be blocked on some networks).

Under each table its terms are shown before anyone joins: fair or trusted mode, the strength of
the shuffle proof, the options and the stall deadline. :attr:`TablePicker.chosen` keeps the table
picked, so that the node can hold the bootstrap reply and the genesis to what was shown here.

Everything in an advertisement comes from anyone on the LAN: names are drawn without control
characters, and trust comes later from the signed genesis and the host fingerprint shown here.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.utils import get_cwidth

from p2p.discovery import Browser, Change, Interfaces, TableInfo
from p2p.node import NodeError, parse_address

from .app import STYLE, clean
from .table import Fragments


def fit(text: object, columns: int) -> str:
    """``text`` made inert (:func:`clean`), cut and padded to exactly ``columns`` terminal columns
    (a wide character, as in a Chinese name, takes two)."""
    out, used = [], 0
    for char in clean(text, 200):
        width = max(get_cwidth(char), 0)
        if used + width > columns:
            if out and used + 1 > columns:
                used -= max(get_cwidth(out.pop()), 0)
            out.append("…")
            used += 1
            break
        out.append(char)
        used += width
    return "".join(out) + " " * max(columns - used, 0)


class _LogToEvents(logging.Handler):
    """Warnings (an advertisement ignored, say) become lines of the picker's events, never text
    printed over the full screen."""

    def __init__(self, picker: TablePicker) -> None:
        super().__init__(logging.WARNING)
        self.picker = picker

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):  # logging must never break the picker
            self.picker.events.append(clean(record.getMessage(), 160))
            del self.picker.events[:-50]
            if self.picker.app.is_running:
                self.picker.app.invalidate()


def table_address(table: TableInfo) -> str:
    """``HOST:PORT`` to join an advertised table (its first address)."""
    return f"{table.addresses[0]}:{table.port}"


class TablePicker:
    """The live list of tables on the LAN; see the module docstring."""

    def __init__(self, interfaces: Interfaces = "all", *, input: Any = None, output: Any = None) -> None:
        self.interfaces = interfaces
        self.tables: list[TableInfo] = []
        self.cursor = 0
        self.message: tuple[str, str] = ("class:dim", "looking for tables on the LAN…")
        self.events: list[str] = []
        self.browser: Browser | None = None
        self.chosen: TableInfo | None = None
        """The table picked (``None`` for a typed ``HOST:PORT``)."""
        self.buffer = Buffer(multiline=False)
        self.app: Application[str | None] = Application(
            layout=self._layout(),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            refresh_interval=1.0,
            input=input,
            output=output,
        )

    # -- the browser's news -------------------------------------------------------------------------
    def on_change(self, change: Change, table: TableInfo) -> None:
        """A table appeared, changed or went away."""
        chosen = self.tables[self.cursor].service if self.tables else None
        if self.browser is not None:
            self.tables = self.browser.tables()
        elif change is Change.REMOVED:
            self.tables = [t for t in self.tables if t.service != table.service]
        else:
            self.tables = sorted(
                [t for t in self.tables if t.service != table.service] + [table],
                key=lambda t: (t.name, t.service),
            )
        # keep the highlight on the same table when others come and go
        services = [t.service for t in self.tables]
        self.cursor = (
            services.index(chosen) if chosen in services else min(self.cursor, max(len(services) - 1, 0))
        )
        word = {Change.ADDED: "appeared", Change.UPDATED: "changed", Change.REMOVED: "closed or filled up"}
        self.events.append(f"{clean(table.name, 40)} {word[change]}")
        del self.events[:-50]
        if self.app.is_running:
            self.app.invalidate()

    # -- choosing ---------------------------------------------------------------------------------
    def enter(self) -> None:
        """Join the typed ``HOST:PORT``, else the highlighted table (if it has a free seat)."""
        typed = self.buffer.text.strip()
        if typed:
            try:
                parse_address(typed)
            except NodeError as exc:
                self.message = ("class:error", str(exc))
                return
            self.app.exit(result=typed)
            return
        if not self.tables:
            self.message = ("class:warn", "no table yet: wait for one, or type HOST:PORT")
            return
        table = self.tables[self.cursor]
        if table.free <= 0:
            self.message = ("class:warn", f"{clean(table.name, 40)} is full")
            return
        self.chosen = table
        self.app.exit(result=table_address(table))

    # -- drawing ----------------------------------------------------------------------------------
    def _rows(self) -> Fragments:
        if not self.tables:
            return [("class:dim", "  (no table advertised yet — `fairdeck host GAME` opens one)")]
        out: Fragments = []
        for i, t in enumerate(self.tables):
            mark = "▶" if i == self.cursor else " "
            seats = f"{t.free}/{t.seats} free" if t.free else "full"
            address = table_address(t)
            line = f"{mark} {fit(t.name, 22)} {fit(t.game, 13)} {seats:<9} {address:<21} {clean(t.fp, 14)}"
            style = "class:selected" if i == self.cursor else ("class:dim" if not t.free else "")
            out.append((style, line))
            out.append(("", "\n"))
            warn = t.mode == "trusted" or (t.proof is not None and t.proof.kind != "wt")
            out.append(("class:warn" if warn else "class:dim", f"    {clean(t.terms_text(), 100)}"))
            out.append(("", "\n"))
        out.pop()
        return out

    def _layout(self) -> Layout:
        title = [("class:title", " fairdeck · tables on the LAN".ljust(56) + "Enter join · Esc leave ")]
        header = [("class:heading", f"  {'table':<22} {'game':<13} {'seats':<9} {'address':<21} host")]
        entry = Window(
            BufferControl(self.buffer, input_processors=[BeforeInput("or type HOST:PORT > ")]), height=1
        )
        return Layout(
            HSplit(
                [
                    Window(FormattedTextControl(title), height=1),
                    Window(FormattedTextControl(header), height=1),
                    Window(
                        FormattedTextControl(
                            self._rows,
                            get_cursor_position=lambda: Point(0, 2 * self.cursor),
                            show_cursor=False,
                        ),
                        height=Dimension(min=3),
                    ),
                    Window(FormattedTextControl(self._events), height=Dimension(max=4)),
                    entry,
                    Window(FormattedTextControl(lambda: [self.message]), height=1),
                ]
            ),
            focused_element=entry,
        )

    def _events(self) -> Fragments:
        return [("class:info", "\n".join(f"* {e}" for e in self.events[-4:]))]

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        empty = Condition(lambda: not self.buffer.text)

        @kb.add("up")
        def _(event: KeyPressEvent) -> None:
            if self.tables:
                self.cursor = (self.cursor - 1) % len(self.tables)

        @kb.add("down")
        def _(event: KeyPressEvent) -> None:
            if self.tables:
                self.cursor = (self.cursor + 1) % len(self.tables)

        @kb.add("enter")
        def _(event: KeyPressEvent) -> None:
            self.enter()

        @kb.add("escape")
        @kb.add("c-c")
        @kb.add("q", filter=empty)
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=None)

        return kb

    async def run(self) -> str | None:
        """Browse while the list is shown; return the chosen ``HOST:PORT`` or ``None``."""
        handler = _LogToEvents(self)
        root = logging.getLogger()
        root.addHandler(handler)
        last_resort, logging.lastResort = logging.lastResort, None  # nothing may print over the screen
        try:
            async with Browser(self.interfaces, self.on_change) as browser:
                self.browser = browser
                self.message = ("class:dim", "↑↓ choose · Enter join · tables appear here as they open")
                return await self.app.run_async()
        finally:
            root.removeHandler(handler)
            logging.lastResort = last_resort


async def pick_table(interfaces: Interfaces = "all") -> str | None:
    """Show the LAN's tables live and return the ``HOST:PORT`` the person picks (``None``: left)."""
    return await TablePicker(interfaces).run()
