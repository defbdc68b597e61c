"""The list of this player's games on a terminal (``fairdeck games``, ``fairdeck resume``): ↑↓ choose,
Enter or ``r`` resume, ``v`` replay, ``a`` audit, ``d`` discard (asks first), ``q``/Esc quit. Enter
on a game that cannot go on (it has ended, or its bots are gone) replays it; the keys line says which
Enter does for the highlighted game."""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Point
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from fairdeck.games import ended_verdict

from .app import STYLE
from .table import Fragments

ACTIONS = {"r": "resume", "v": "replay", "a": "audit", "d": "discard"}


class GamePicker:
    """The list; :meth:`run` returns ``(action key, entry)`` or ``None``."""

    def __init__(
        self, entries: list[Any], actions: str = "rvad", title: str = "Your games", **io: Any
    ) -> None:
        self.entries = entries
        self.actions = actions
        self.title = title
        self.cursor = 0
        self.confirm: str | None = None
        self.message = ""
        kb = KeyBindings()

        @kb.add("up")
        def _(event: KeyPressEvent) -> None:
            self.confirm = None
            self.cursor = (self.cursor - 1) % len(self.entries)

        @kb.add("down")
        def _(event: KeyPressEvent) -> None:
            self.confirm = None
            self.cursor = (self.cursor + 1) % len(self.entries)

        @kb.add("<any>")
        def _(event: KeyPressEvent) -> None:
            key = event.data.lower()
            if self.confirm is not None:
                if key == "y":
                    event.app.exit(result=(self.confirm, self.entries[self.cursor]))
                self.confirm = None
                return
            if key in ("q", "\x1b", "\x03"):
                event.app.exit(result=None)
                return
            if key in ("\r", "\n"):
                key = self.enter_key()
            if key not in self.actions:
                return
            entry = self.entries[self.cursor]
            if key == "r" and not entry.resumable:
                others = "  ".join(f"{k} {ACTIONS[k]}" for k in self.actions if k != "r")
                if entry.status in ("unfinished", "left", "damaged"):
                    why = f"game {entry.number} cannot be resumed: {entry.detail or entry.status}"
                else:  # (its detail is the result: not a reason it cannot go on)
                    why = f"game {entry.number} has ended ({entry.status}): there is nothing to resume"
                self.message = why + (f" ({others} it instead)" if others else "")
                return
            if key == "d":
                self.confirm = "d"
                return
            event.app.exit(result=(key, entry))

        self.app: Application[Any] = Application(
            layout=Layout(
                HSplit(
                    [
                        Window(FormattedTextControl(self._head), height=2),
                        Window(
                            FormattedTextControl(self._rows, get_cursor_position=self._cursor_at),
                        ),
                        # (the message under the keys may take two lines: it is never cut)
                        Window(FormattedTextControl(self._foot), height=3, wrap_lines=True),
                    ]
                )
            ),
            key_bindings=kb,
            style=STYLE,
            full_screen=True,
            **io,
        )

    def enter_key(self) -> str:
        """What Enter does on the highlighted game: resume one that can go on, else replay it (a
        game that has ended, or cannot go on, is opened in the viewer rather than refused)."""
        entry = self.entries[self.cursor]
        if "r" in self.actions and (entry.resumable or "v" not in self.actions):
            return "r"
        return "v" if "v" in self.actions else self.actions[0]

    def _cursor_at(self) -> Point:
        return Point(0, 2 * self.cursor)

    def _head(self) -> Fragments:
        return [("class:title", f" fairdeck · {self.title}\n")]

    def _width(self) -> int:
        try:
            return max(20, self.app.output.get_size().columns)
        except Exception:
            return 80

    def _rows(self) -> Fragments:
        """Two lines a game, each cut to the window's width with ``…`` (never mid-word unmarked);
        the audit verdict and ``(resumable)`` stay whole: the detail before them gives way."""
        out: Fragments = []
        width = self._width() - 1
        for i, entry in enumerate(self.entries):
            style = "class:selected" if i == self.cursor else ("" if entry.resumable else "class:dim")
            out.append((style, _fit(("▶" if i == self.cursor else " ") + entry.line(), width)))
            out.append(("", "\n"))
            tail = "  (resumable)" if entry.resumable else ""
            verdict = ended_verdict(entry)
            if verdict:  # as the printed list says it, on the same line: a row stays two lines
                tail += f" · audit: {verdict}"
            tail = _fit(tail, max(16, (width - 6) // 2))  # (a long verdict leaves the detail half)
            detail = _fit(f"      {entry.detail}", width - len(tail))
            out.append(("class:dim", detail + tail))
            out.append(("", "\n"))
        return out[:-1]

    def _foot(self) -> Fragments:
        if self.confirm == "d":
            entry = self.entries[self.cursor]
            return [("class:warn", f"Discard game {entry.number}? Its files go to games/discarded/.  y / n")]
        first = self.enter_key()  # the highlighted game's Enter action comes first, with "Enter or"
        keys = "  ".join(f"{k} {ACTIONS[k]}" for k in sorted(self.actions, key=lambda k: k != first))
        out: Fragments = [("class:dim", f"↑↓ choose · Enter or {keys} · q quit")]
        if self.message:
            out += [("", "\n"), ("class:warn", self.message)]
        return out


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in ``…`` when cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def pick_game(entries: list[Any], actions: str = "rvad", title: str = "Your games", **io: Any) -> Any:
    """Show ``entries`` and return ``(action key, entry)``, or ``None`` if the person quits."""
    return GamePicker(entries, actions, title, **io).app.run()
