"""``fairdeck replay LOG``: a full-screen viewer that steps through a replayed game.

It shows the table after each engine event (the frames of :func:`replay.replay.replay_log`) with
the console's own drawing (:mod:`fairdeck.console.table`), the event in words and the log up to it, and
the audit verdict alongside (computed in the background with :func:`replay.audit.audit_path`).

Three perspectives, switched with ``v``:

- **public** — what every seat knew at that moment (``frame.public_faces``);
- **seat** — what the seat whose key was given with ``--as KEYFILE`` knew then (its
  ``frame.private_faces`` too): its hand, the cards shown to it;
- **full** — every card whose face the log discloses by its end (end-of-round disclosure makes
  whole rounds visible), at every step: the hands as they really were.

Works on unfinished logs (the last frame is simply where the game is now; a log that is still being
written, its game unfinished, is followed: what its writer adds comes on screen as it comes, and an
incomplete last entry is said to be still being written, not cut off) and on damaged logs:
folding stopped at a bad entry, damaged bytes or a torn tail are said at the last frame in the
audit's words and numbering, and :func:`run_viewer` then returns 1. Everything the log's writers chose (names,
an abandon reason, a refusal's reason, the file's name) is drawn through
:func:`p2p.safetext.safe_text`: one inert line each, so a log cannot fake a verdict or hide a line.

Keys: ←/→ step, PgUp/PgDn ten steps, ``[``/``]`` previous/next round, Home/End, ``v`` perspective,
``a`` the audit report, ``?`` (or F1) the keys and what the marks mean, ``q`` quit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Point
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import DynamicContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension

from fairdeck.console.app import STYLE
from fairdeck.console.moves import name_seats, seat_label
from fairdeck.console.table import (
    Fragments,
    TableView,
    board,
    closing_words,
    every_hand,
    hand,
    result_lines,
    seat_rows,
    split_lines,
    wrap,
)
from p2p.log import LogError, read_log
from p2p.safetext import safe_text
from replay.replay import Frame, Replay, stop_words

PERSPECTIVES = ("public", "seat", "full")
KEYS_LINE = "←→ step  PgUp/PgDn ±10  [ ] round  Home/End  v view  a audit  ? help  q quit"
KEYS_HELP = [
    ("→ ← (space, n, p)", "the next / previous event"),
    ("PgDn PgUp", "ten events on / back"),
    ("] [", "the next / previous round (or enemy, where enemies are the rounds)"),
    ("Home End", "the first / last event"),
    (
        "v",
        "the view: public (what everyone knew then), seat (what your seat knew then: with --as "
        "KEYFILE, or opened from `fairdeck games`), full (every card the log discloses by its end)",
    ),
    ("a", "the audit report: every signature, proof and rule checked, and who cheated if anyone did"),
    ("?", "these keys"),
    ("q Esc", "quit (or back from the audit report or these keys)"),
]
"""The viewer's keys, for its ``?`` screen."""
VIEWS_HELP = (
    "A card drawn as ▒ was hidden from this view at that moment; in the full view, a card marked * "
    "was hidden from the table then and is known because the log disclosed it later. \"frame N/M\" "
    "counts the events shown; \"entry N\" is where the event is in the log, numbered as the audit "
    "numbers the log's entries."
)
"""What the viewer's marks and numbers mean, for its ``?`` screen."""

WRITING_QUIET = 2.0
"""Seconds a log's incomplete last entry may stay as it is and still count as being written (its
writer completes an entry at once); left longer, the log is cut off."""
FOLLOW_POLL = 0.5
"""Seconds between two looks at the file of a log whose game is unfinished (it may still grow)."""
WRITING_WORDS = "the log is still being written: waiting for its next entry"
"""What the viewer says at the end of a log whose incomplete last entry is still being written."""


def being_written(replay: Replay, path: Path | str, quiet: float = WRITING_QUIET) -> bool:
    """True when all that keeps ``replay`` from the end of its file is an incomplete last entry of an
    unfinished game whose file is still being written (``fairdeck watch``'s copy, a game being
    played): it changed since it was replayed, or less than ``quiet`` seconds ago — a writer completes
    an entry at once, so a tail left incomplete longer is cut off."""
    if not replay.torn_bytes or replay.stopped is not None or replay.read_error is not None:
        return False
    if replay.table.ended is not None:
        return False
    try:
        age = time.time() - os.stat(path).st_mtime
        now = read_log(path)
    except (OSError, LogError):
        return False
    if len(now.envelopes) != replay.entries or now.torn_bytes != replay.torn_bytes:
        return True  # the file moved on since it was read: its writer is at it
    return age < quiet


def fold_new_entries(replay: Replay, path: Path | str) -> bool:
    """Read ``path`` again and fold the entries written after those ``replay`` holds (its torn tail
    and read error as the file is now); ``False`` when the file cannot be read (nothing changed)."""
    try:
        loaded = read_log(path)
    except LogError:
        return False
    if len(loaded.envelopes) < replay.entries:
        return False  # not the file that was replayed (replaced, cut): the replay keeps what it showed
    for envelope in loaded.envelopes[replay.entries :]:
        if not replay.fold(envelope):
            break
    if replay.stopped is None:
        replay.torn_bytes, replay.read_error = loaded.torn_bytes, loaded.error
    return True


def settle(replay: Replay, path: Path | str, identity: Any = None, quiet: float = WRITING_QUIET) -> Replay:
    """``replay``, or the log replayed again once its writer completed the last entry, when that
    entry was still being written (see :func:`being_written`); a tail that stays incomplete for
    ``quiet`` seconds is left as it is (cut off). For ``fairdeck replay --text``."""
    from replay.replay import UnreadableLog, replay_log

    while being_written(replay, path, quiet):
        time.sleep(0.05)
        try:
            loaded = read_log(path)
        except LogError:
            return replay
        if loaded.torn_bytes == 0 and loaded.error is None:
            try:
                return replay_log(path, identity)
            except UnreadableLog:
                return replay
    return replay


PANE_SCROLL = {
    "up": -1,
    "down": 1,
    "pageup": -10,
    "pagedown": 10,
    "space": 10,
    "home": -(10**6),
    "end": 10**6,
}
"""How the keys scroll the audit report and the keys screen while one is up."""


def _round_key(state: Any) -> tuple[Any, ...]:
    """What changes when a new round (or a new stage of a round, such as a new enemy) begins."""
    return (getattr(state, "round", None), getattr(state, "round_no", None), getattr(state, "defeated", None))


def round_starts(frames: list[Frame]) -> list[int]:
    """Indices of the frames that begin a round."""
    starts = []
    for i, frame in enumerate(frames):
        if _round_key(frame.after) != _round_key(frame.before):
            starts.append(i)
    return starts


class Viewer:
    """The replay viewer's state and screen; see the module docstring."""

    def __init__(
        self,
        replay: Replay,
        log_path: Path | str,
        *,
        audit: Callable[[Path | str], Any] | None = None,
        input: Any = None,
        output: Any = None,
        live: bool = False,
    ) -> None:
        self.live = live
        """Following a game as it is played (``fairdeck watch``): the frames grow, and the view
        stays on the newest one unless the person stepped back."""
        self.live_end = ""
        """How following ended (``ended``, ``stopped``, ``silent``), once it has."""
        self.replay = replay
        self.log_path = Path(log_path)
        self.frames = replay.frames
        self._seen = len(self.frames)
        self.index = 0
        self.perspective = "seat" if replay.party is not None and replay.party.seat is not None else "public"
        self.rounds = round_starts(self.frames)
        self.report: Any = None
        self.audit_error = ""
        self.show_audit = False
        self.show_keys = False
        """The ``?`` screen (the keys, and what the marks mean) is up."""
        self.pane_scroll = 0
        """How far the audit report or the keys screen is scrolled (↑↓ PgUp PgDn Home End)."""
        self._audit = audit
        self._audits = 0
        """Audits started so far: only the newest one's report is shown."""
        self._audit_saw_damage = False
        """The log could not be replayed to its end when the newest audit started."""
        self.writing = False
        """The log's incomplete last entry is still being written (:func:`being_written`)."""
        self._file_key: tuple[int, int] | None = None
        table = replay.table
        self.names = [safe_text(p.name, 40) for p in table.parties]
        self.final_faces = dict(table.public_faces)
        self.app: Application[int] = Application(
            layout=Layout(
                HSplit([Window(FormattedTextControl(self._title), height=1), DynamicContainer(self._body)])
            ),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    # -- facts ----------------------------------------------------------------------------------
    @property
    def seat(self) -> int | None:
        """The seat whose view the replay can show (``--as``), if any."""
        party = self.replay.party
        return party.seat if party is not None else None

    def perspectives(self) -> list[str]:
        """The perspectives this replay offers (``seat`` only with ``--as``)."""
        return [p for p in PERSPECTIVES if p != "seat" or self.seat is not None]

    def frame(self) -> Frame | None:
        """The current frame (``None`` for a log without any engine event yet)."""
        return self.frames[self.index] if self.frames else None

    def view(self) -> TableView:
        """The table after the current frame, in the current perspective (at a finished log's last
        frame, ended as the table ended)."""
        view = self._view()
        if self.replay.table.ended and (not self.frames or self.index == len(self.frames) - 1):
            view.ended = self.replay.table.ended
        return view

    def _view(self) -> TableView:
        table = self.replay.table
        frame = self.frame()
        state = frame.after if frame is not None else table.game.initial_state()
        public = frame.public_faces if frame is not None else dict(enumerate(table.deck))
        if self.perspective == "seat" and self.seat is not None:
            faces = {**public, **(frame.private_faces if frame is not None else {})}
            return TableView(table.game, state, self.seat, faces, self.names, inert=safe_text)
        if self.perspective == "full":
            faces = {**public, **self.final_faces}
            return TableView(table.game, state, None, faces, self.names, public=public, inert=safe_text)
        return TableView(table.game, state, None, public, self.names, inert=safe_text)

    def round_of(self, index: int) -> int:
        """The 1-based number of the round the frame ``index`` belongs to (0 before the first)."""
        return sum(1 for start in self.rounds if start <= index)

    # -- moving ---------------------------------------------------------------------------------
    def step(self, delta: int) -> None:
        """Move ``delta`` frames (clamped)."""
        if self.frames:
            self.index = max(0, min(len(self.frames) - 1, self.index + delta))

    def jump_round(self, direction: int) -> None:
        """To the start of the next (``+1``) or this/previous (``-1``) round."""
        if direction > 0:
            later = [i for i in self.rounds if i > self.index]
            if later:
                self.index = later[0]
            else:
                self.step(len(self.frames))
        else:
            earlier = [i for i in self.rounds if i < self.index]
            self.index = earlier[-1] if earlier else 0

    def cycle_perspective(self) -> None:
        """public → seat (with ``--as``) → full → public."""
        offered = self.perspectives()
        self.perspective = offered[(offered.index(self.perspective) + 1) % len(offered)]

    def grew(self) -> None:
        """New frames came (live): follow them if the newest one was shown."""
        at_end = self.index >= self._seen - 1
        self._seen = len(self.frames)
        self.rounds = round_starts(self.frames)
        self.final_faces = dict(self.replay.table.public_faces)
        if at_end and self.frames:
            self.index = len(self.frames) - 1
        if self.app.is_running:
            self.app.invalidate()

    def finished(self, how: str) -> None:
        """Following has ended (live): say so, and audit what came."""
        self.live_end = how
        if self.app.is_running:
            self.start_audit()
            self.app.invalidate()

    def start_audit(self) -> None:
        """Audit the log in a daemon thread (so quitting never waits for it); the verdict appears
        when it is ready."""
        from replay.audit import audit_path

        audit = self._audit or audit_path
        loop = asyncio.get_running_loop()
        self._audit_saw_damage = self.replay.damage() is not None
        self._audits += 1
        number = self._audits

        def work() -> None:
            """Audit, then hand the report to the event loop."""
            try:
                report, error = audit(self.log_path), ""
            except Exception as exc:  # the viewer still works without an audit
                report, error = None, f"audit failed: {type(exc).__name__}"
            with contextlib.suppress(RuntimeError):  # the loop may be gone if the viewer quit
                loop.call_soon_threadsafe(self._audited, report, error, number)

        threading.Thread(target=work, name="audit", daemon=True).start()

    def _audited(self, report: Any, error: str, number: int = 0) -> None:
        if number and number != self._audits:
            return  # an older audit, of less of the log, than one started since
        self.report, self.audit_error = report, error
        if self.app.is_running:
            self.app.invalidate()

    def may_grow(self) -> bool:
        """The log's game is unfinished and it was read to its end (but maybe an incomplete last
        entry): whoever writes it may add more, so the viewer follows the file."""
        replay = self.replay
        unread = replay.stopped is not None or replay.read_error is not None
        return not self.live and replay.table.ended is None and not unread

    def poll_file(self) -> None:
        """One look at the file (while :meth:`may_grow`): new entries are folded and shown; an
        incomplete last entry left as it is for :data:`WRITING_QUIET` seconds is cut off after all."""
        try:
            stat = os.stat(self.log_path)
        except OSError:
            return
        key = (stat.st_size, stat.st_mtime_ns)
        frames, ended = len(self.frames), self.replay.table.ended
        if key != self._file_key:
            self._file_key = key
            fold_new_entries(self.replay, self.log_path)
            self.writing = being_written(self.replay, self.log_path)
        elif self.writing:  # (an unchanged file is not read again: only its incomplete tail ages)
            self.writing = time.time() - stat.st_mtime < WRITING_QUIET
        if len(self.frames) != frames:
            self.grew()
        # audited (again) when there is no audit of the log as it is: none yet (its tail was being
        # written), the log came whole after a torn tail or is cut off for good, or the game ended
        damaged = self.replay.damage() is not None
        over = ended is None and self.replay.table.ended is not None
        stale = not self._audits or damaged != self._audit_saw_damage or over
        if not self.writing and stale:
            self.start_audit()
        if self.app.is_running:
            self.app.invalidate()

    async def _follow_file(self) -> None:
        """:meth:`poll_file` every :data:`FOLLOW_POLL` seconds while the log may grow."""
        while self.may_grow():
            await asyncio.sleep(FOLLOW_POLL)
            self.poll_file()

    # -- drawing --------------------------------------------------------------------------------
    def _width(self) -> int:
        try:
            return self.app.output.get_size().columns
        except Exception:
            return 80

    def verdict(self) -> tuple[str, str]:
        """The audit verdict with its style."""
        if self.live and not self.live_end:
            return ("class:dim", "live · audited at the end")
        if self.report is None:
            if self.writing:
                return ("class:dim", "audit: waiting for the log")
            return ("class:dim", self.audit_error or "audit: running…")
        verdict = str(self.report.verdict)
        style = {"clean": "class:ok", "faults": "class:error"}.get(verdict, "class:warn")
        if verdict == "clean" and not getattr(self.report, "finished", True):
            verdict = "clean so far"  # an unfinished game: the report's own VERDICT line says so too
        return (style, f"audit: {verdict.upper()}")

    def _title(self) -> Fragments:
        game = self.replay.table.game.name
        what = "watch" if self.live else "replay"
        style, verdict = self.verdict()
        # the log's name gives way first, so that the verdict always fits the line
        room = self._width() - len(f" fairdeck {what} ·  · {game} ") - len(verdict) - 2
        left = f" fairdeck {what} · {safe_text(self.log_path.name, max(8, min(24, room)))} · {game} "
        pad = max(1, self._width() - len(left) - len(verdict) - 1)
        return [("class:title", left + " " * pad), (f"class:title {style}", verdict + " ")]

    def _status(self) -> Fragments:
        frame = self.frame()
        total = len(self.frames)
        where = f" frame {self.index + 1}/{total} · entry {frame.seq}" if frame else " no event yet"
        rnd = self.round_of(self.index)
        after = frame.after if frame is not None else None
        if after is not None and hasattr(after, "defeated") and not hasattr(after, "round"):
            stage = f"enemies defeated: {after.defeated}"  # (a game whose rounds are its enemies)
        else:
            stage = f"round {rnd}" if rnd else "before round 1"
        state = "finished" if self.replay.table.ended else "unfinished"
        if self.replay.damage() is not None:
            state = "damaged"
        if self.live and not self.live_end:
            state = "live"
        words = "log still being written" if self.writing else f"{state} log"
        out: Fragments = [("class:heading", where), ("", f" · {stage} · {words} · ")]
        if self.perspective == "seat" and self.seat is not None:  # "view: seat 0 (ann)": that seat's
            out.append(("class:key", f"view: {seat_label(self.seat, self.names)}"))
        else:
            out.append(("class:key", f"view: {self.perspective}"))
        return out

    def _event(self) -> Fragments:
        frame = self.frame()
        out: Fragments = []
        if frame is None:
            out.append(("class:dim", "the log holds no game event yet"))
        else:
            out.append(("class:now", "▶ " + self._words(self.frames[self.index])))
        damage = self.replay.damage()
        if damage is not None and (not self.frames or self.index == len(self.frames) - 1):
            if self.writing:  # not damage: its writer is at it (and the viewer follows the file)
                out.append(("class:dim", "\n" + WRITING_WORDS))
            else:
                out.append(("class:error", "\n" + stop_words(damage, self.names)))
        if frame is not None and self.index == len(self.frames) - 1 and self.replay.table.ended:
            out.append(("", "\n"))
            view = self.view()
            view.ended = self.replay.table.ended
            view.closing = closing_words(self.replay.table, self.names, self.seat)
            out.extend(result_lines(view))
        return wrap(out, self._width() - 1)

    def _history(self) -> Fragments:
        out: Fragments = []
        start = max(0, self.index - 60)
        for i in range(start, self.index + 1 if self.frames else 0):
            text = self._words(self.frames[i])
            style = "class:selected" if i == self.index else ("class:summary" if i in self.rounds else "")
            out.extend(wrap([(style, text)], self._width() - 1, "  "))
            out.append(("", "\n"))
        self._history_lines = sum(t.count("\n") for _, t in out)
        if out:
            out.pop()
        return out

    def _words(self, frame: Frame) -> str:
        """A frame's event in words, with names after the seats (one safe line)."""
        return name_seats(safe_text(frame.text or frame.event.kind, 500), self.names, self.seat)

    def _history_cursor(self) -> Point:
        return Point(0, max(0, getattr(self, "_history_lines", 1) - 1))

    def _table(self) -> Fragments:
        view = self.view()
        width = self._width() - 1
        out = wrap(seat_rows(view), width, " " * 40)
        out.append(("", "\n"))
        out.extend(wrap(board(view), width))
        mine = every_hand(view) if view.public is not None else hand(view)  # (the full view: every hand)
        if mine:
            out.append(("", "\n"))
            out.extend(wrap(mine, width))
        return out

    @staticmethod
    def _fit(panel: Callable[[], Fragments]) -> Dimension:
        lines = 1 + sum(text.count("\n") for _, text in panel())
        return Dimension(min=1, preferred=lines, max=lines)

    def _rule(self, title: str) -> Fragments:
        text = f"── {title} "
        return [("class:rule", text + "─" * max(0, self._width() - len(text)))]

    def _audit_text(self) -> Fragments:
        if self.report is None:
            return [("class:dim", "\n  " + (self.audit_error or "the audit is still running…") + "\n")]
        # the audit words its own report safely; each line is made inert here once more, so that
        # nothing in it can act on the terminal even so
        text = "\n".join(safe_text(line) for line in str(self.report.text()).split("\n"))
        return wrap([("", text + "\n")], self._width() - 1)

    def _keys_text(self) -> Fragments:
        out: Fragments = [("class:heading", "\n  Keys of the replay viewer\n\n")]
        for key, what in KEYS_HELP:
            out += [("class:key", f"  {key:<18} "), ("", what + "\n")]
        out = wrap(out, self._width() - 1, "                     ")
        return out + [("", "\n"), *wrap([("", VIEWS_HELP + "\n")], self._width() - 1, "")]

    def _pane_lines(self) -> list[Fragments]:
        return split_lines(self._keys_text() if self.show_keys else self._audit_text())

    def _pane_rows(self) -> int:
        """The rows the pane's text has: the screen but the title and the closing line."""
        fixed = getattr(self.app, "fixed_size", None)  # (set by ``screen_text``, which draws at it)
        try:
            rows = fixed[1] if fixed is not None else self.app.output.get_size().rows
        except Exception:
            rows = 24
        return max(1, rows - 2)

    def _pane(self) -> Fragments:
        lines = self._pane_lines()
        self.pane_scroll = max(0, min(self.pane_scroll, len(lines) - self._pane_rows()))
        out: Fragments = []
        for line in lines[self.pane_scroll : self.pane_scroll + self._pane_rows()]:
            out.extend([*line, ("", "\n")])
        return out[:-1]

    def _pane_foot(self) -> Fragments:
        """How to close the pane (and scroll it, when it does not fit): always in sight."""
        key = "?" if self.show_keys else "a"
        more = len(self._pane_lines()) > self._pane_rows()
        scroll = "↑↓ PgUp PgDn Home End: scroll · " if more else ""
        return [("class:key", f"{scroll}{key}, Esc or q: back to the replay"[: max(1, self._width() - 1)])]

    def _body(self) -> Any:
        if self.show_keys or self.show_audit:
            return HSplit(
                [
                    Window(FormattedTextControl(self._pane), wrap_lines=True),
                    Window(FormattedTextControl(self._pane_foot), height=1),
                ]
            )
        return HSplit(
            [
                Window(FormattedTextControl(self._status), height=1),
                Window(FormattedTextControl(self._table), height=lambda: self._fit(self._table)),
                Window(FormattedTextControl(lambda: self._rule("this step")), height=1),
                Window(FormattedTextControl(self._event), height=lambda: self._fit(self._event)),
                Window(FormattedTextControl(lambda: self._rule("log")), height=1),
                Window(
                    FormattedTextControl(
                        self._history, get_cursor_position=self._history_cursor, show_cursor=False
                    ),
                    height=Dimension(min=1, preferred=1),
                ),
                Window(FormattedTextControl(lambda: [("class:dim", KEYS_LINE)]), height=1),
            ]
        )

    # -- keys -----------------------------------------------------------------------------------
    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        moves = {
            "right": lambda: self.step(1),
            "space": lambda: self.step(1),
            "n": lambda: self.step(1),
            "left": lambda: self.step(-1),
            "p": lambda: self.step(-1),
            "pagedown": lambda: self.step(10),
            "pageup": lambda: self.step(-10),
            "home": lambda: self.step(-len(self.frames)),
            "end": lambda: self.step(len(self.frames)),
            "]": lambda: self.jump_round(1),
            "[": lambda: self.jump_round(-1),
            "v": self.cycle_perspective,
        }
        for key, action in moves.items():
            kb.add(key)(lambda event, key=key, action=action: self._act(action, key))
        for key in ("up", "down"):
            kb.add(key)(lambda event, key=key: self._act(lambda: None, key))

        @kb.add("a")
        def _(event: KeyPressEvent) -> None:
            self.show_keys = False
            self.show_audit = not self.show_audit
            self.pane_scroll = 0

        @kb.add("?")
        @kb.add("f1")
        def _(event: KeyPressEvent) -> None:
            self.show_keys = not self.show_keys
            self.pane_scroll = 0

        @kb.add("escape")
        @kb.add("q")
        @kb.add("c-c")
        def _(event: KeyPressEvent) -> None:
            if self.show_keys or self.show_audit:
                self.show_keys = self.show_audit = False
            else:
                event.app.exit(result=0)

        return kb

    def _act(self, action: Callable[[], None], key: str = "") -> None:
        if not self.show_audit and not self.show_keys:
            action()
        elif key in PANE_SCROLL:  # a pane is up: the keys scroll it (drawing keeps it in range)
            self.pane_scroll = max(0, self.pane_scroll + PANE_SCROLL[key])

    async def run_async(self) -> int:
        """Run the viewer (with the audit in the background) until ``q``; live, the audit waits
        for the end of the game."""
        follower = None
        if not self.live:
            self.writing = being_written(self.replay, self.log_path)
            if not self.writing:  # (a log still being written is audited once its last entry is whole)
                self.start_audit()
            if self.may_grow():
                follower = asyncio.ensure_future(self._follow_file())
        elif self.frames:
            self.index = len(self.frames) - 1
        try:
            return int(await self.app.run_async() or 0)
        finally:
            if follower is not None:
                follower.cancel()


def run_viewer(replay: Replay, log_path: Path | str) -> int:
    """Open the full-screen viewer on a replayed log; returns the exit code: 0, or 1 when the log
    could not be replayed to its end (as ``fairdeck replay --text``; a last entry still being written
    is no such end)."""
    viewer = Viewer(replay, log_path)
    code = asyncio.run(viewer.run_async())
    # quit while the last entry looked half-written: give its writer the same grace as --text
    # does before calling the log whole or cut off
    final = settle(replay, log_path) if viewer.writing else replay
    return max(code, 1 if final.damage() is not None else 0)
