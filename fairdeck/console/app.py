"""The full-screen console: a prompt-toolkit ``Application`` in the same asyncio loop as the Node.

Theory of operation
-------------------
:class:`ConsoleUI` has the contract of :class:`fairdeck.plainui.PlainUI`: it is built with the
:class:`~p2p.node.Node` (and sets ``node.on_decide``), and ``await ui.show_notices()`` runs until the
game has ended and the person has dismissed the game-over screen.

Two loops share the event loop: the prompt-toolkit application (keys, drawing, a redraw every half
second so connection marks stay fresh) and a *pump* that takes each :class:`~p2p.node.Notice` from
``node.notices`` and folds it into the console's own state (:meth:`ConsoleUI.handle`): the lobby's
seats, the event log in words, chat, disconnections, the end of the game. Decisions are not queued:
whenever something changes the console asks the party whether its player must decide
(``Party.waiting_for_me``) and words the legal moves (:mod:`fairdeck.console.moves`).

What is drawn comes from the replica's *public* state and ``party.known_faces()`` only (see
:mod:`fairdeck.console.table`): no other seat's card can reach the screen. Text that comes from other
peers or from the log (names, chat, notices, reasons) passes :func:`clean` once, where it enters the
console's state: every control character, escape sequence, newline and bidirectional override is
shown as an inert escape (``\\x1b``, ``\\x0a`` for a newline, ``\\u202e``), so nothing another party
wrote can fake a line or act on the terminal.

A move is sent with ``await node.decide(move)``; a typed command that fits no legal move is refused
with the reason before anything is sent, and an ``IllegalMove`` from the node is shown the same way.
While the application runs, log records go to the console's log instead of the terminal (they would
scribble over the screen).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import functools
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_completions
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.layout.screen import Char, Screen, WritePosition
from prompt_toolkit.styles import Style

from engine.core import GameOver, IllegalMove
from engine.present import player_words, presentation, quiet_parts
from p2p.node import Node, Notice
from p2p.safetext import safe_text

from . import moves as mv
from .addresses import join_words
from .help import help_entries, wrap_entries
from .layout import Plan, make_plan
from .table import (
    Fragments,
    TableView,
    board,
    closing_words,
    compact_hand,
    gone_words,
    hand,
    hand_refs,
    result_lines,
    seat_rows,
    split_lines,
    waiting_words,
    wrap,
)

STYLE = Style.from_dict(
    {
        "title": "reverse",
        "heading": "bold",
        "me": "bold",
        "turn": "ansiyellow bold",
        "up": "ansigreen",
        "down": "ansired bold",
        "you": "ansicyan",
        "tokens": "ansired",
        "out": "ansired",
        "protected": "ansicyan",
        "dim": "ansibrightblack",
        "info": "ansibrightblack",
        "card": "bold ansiyellow",
        "summary": "bold ansimagenta",
        "now": "bold",
        "secret": "ansicyan",
        "chat": "ansigreen",
        "warn": "ansiyellow",
        "error": "ansired bold",
        "ok": "ansigreen",
        "selected": "reverse",
        "key": "bold",
        "win": "bold ansigreen",
        "rule": "ansibrightblack",
    }
)
"""Colours by role; prompt-toolkit drops them where the terminal has none (or ``NO_COLOR`` is set)."""

MAX_LOG = 2000

MAX_OFFERED_TEXTS = 4
"""At most this many cards offered from outside the hand are explained in the log as a choice opens."""

PROTOCOL_WORDS = {
    "countersign": "signing the table's terms",
    "keyshare": "setting up the deal",
    "shuffle": "shuffling",
    "tokens": "letting cards be seen",
    "sealed": "sending a card in private",
    "commit": "making a secret choice",
    "open": "showing the secret choices",
    "final": "confirming the result",
    "move": "choosing a move",
}
"""What the party the table waits for is doing, by the kind of entry it must write: in a player's
words (what the cryptography does is in docs/crypto.md, not on the table's screen)."""


AGAIN_WORDS = "a: the next game starts once everyone says yes; this log is audited first"
"""Under the game-over screen's keys when "play again" is offered: what ``a`` does (the bots' yes
comes at once) and what ``a`` and Enter both do first."""

AGAIN_QUESTION = "Play again with the same players? Enter: yes · any other key: no"
"""Asked after ``a`` on the game-over screen: a word typed at a game that just ended (``clear``,
``say gg``) holds an ``a`` and must not start the next game; its next letter answers no."""

GENERIC_TITLES = {"play": "your turn: play a card"}
"""The title over the legal moves when neither the game nor the moves' words give one."""


def prompt_title(game: Any, prompt: str) -> str:
    """``your turn: discard to absorb the attack``: a decision in the words the board's ``now:``
    line uses for it (the game's ``prompt_words``), never the protocol's name for the prompt."""
    words = presentation(game).prompt_words if game is not None else {}
    return f"your turn: {words.get(prompt) or prompt.replace('_', ' ')}"


def clean(text: object, limit: int = 500) -> str:
    """Text from a peer or a log, safe to draw: one inert line (:func:`p2p.safetext.safe_text`),
    at most ``limit`` characters."""
    return safe_text(text, limit)


@dataclass
class Decision:
    """A decision the local player must make now."""

    prompt: str
    heading: str
    options: list[mv.MoveOption]
    step: int
    """``table.step.start_seq`` when it was asked: a newer step makes it stale."""


class _MoveCompleter(Completer):
    """Tab completion: the words that can come next in a legal move."""

    def __init__(self, ui: ConsoleUI) -> None:
        self.ui = ui

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        """The next words of the legal moves that fit what is typed so far."""
        decision = self.ui.decision
        if decision is None:
            return
        text = document.text_before_cursor
        partial = "" if text.endswith(" ") or not text else (mv.tokenize(text) or [""])[-1]
        for word in mv.next_words(text, decision.options):
            yield Completion(word + " ", start_position=-len(partial), display=word)


class _LogToConsole(logging.Handler):
    """Log records go to the console's log while the full-screen application runs."""

    def __init__(self, ui: ConsoleUI) -> None:
        super().__init__(logging.WARNING)
        self.ui = ui

    def emit(self, record: logging.LogRecord) -> None:
        """Show the record as a line of the console's log."""
        with contextlib.suppress(Exception):  # logging must never break the console
            self.ui.add_log("class:warn", f"! {clean(record.getMessage())}")


LEFT_WORDS = "you left the table"
"""What :attr:`ConsoleUI.left` says when the person chose to leave (Ctrl-C, then ``y``)."""


class _Unattached:
    """What the console draws from before :meth:`ConsoleUI.attach` gives it its node."""

    party = None
    name = ""
    log_path = None
    ended = False


HELP_FOOT = "↑↓ PgUp PgDn Space Home End: scroll · Esc, q, ? or Enter: back to the game"
"""The help screen's last line."""
REASON_STYLE = "class:error class:reason"
"""The style of a refused move's explanation: its reason must be read whole, so a long one is given
two lines at the table instead of being cut."""
TURN_HINT = "your turn: choose a move (↑↓ Enter, a number, or type words; Tab completes)"
"""The message line when a decision comes (unless the card help line needs the room)."""
TOO_SMALL_HINT = "window too small: your move waits"
"""The message line while the table cannot be drawn: nothing typed is played blind."""
SUMMARY_HINT = "the round is over: Enter (or Space) closes its summary"
"""The message line while a round's summary is up."""

ROUND_END = re.compile(r" wins round \d|\bRound \d+ ends\b|game over")
"""A log line that ends a round (or the game): highlighted, and where a round's summary stops."""
YOU_OUT = re.compile(r"\(you\)[^;—]* out of the round|\byou are out of the round")
"""A log line that puts the person out of the round (the seat's words, named: ``seat 0 (you) …``)."""


class ConsoleUI:
    """The full-screen console for one node; see the module docstring."""

    def __init__(
        self,
        node: Node | None,
        *,
        input: Any = None,
        output: Any = None,
        on_quit: Callable[[], None] | None = None,
        add_bot: Callable[[], None] | None = None,
        answer_forced: bool = True,
        round_summaries: bool = True,
    ) -> None:
        self.answer_forced = answer_forced
        """Send a forced single answer (the game's ``automatic`` prompts) without asking."""
        self.round_summaries = round_summaries
        """Keep each round's summary up until the person dismisses it."""
        self.node: Any = node or _Unattached()  # set by attach(); drawing needs one from the start
        self.add_bot = add_bot
        """Opener only: seats one more bot peer (F2 in the lobby)."""
        self.on_quit = on_quit
        """Called when the person leaves before the end (tests); the commands read :attr:`left`."""
        self.left: str | None = None
        """Why the person left before the game ended (``"you left the table"``), else ``None``."""
        self.leaving_ends_game: Callable[[], bool] = lambda: False
        """Whether leaving ends the game for good (the other seats are bots this program runs,
        which stop with it) rather than leaving it to be resumed; the command sets it."""
        self.offer_again = False
        """Offer "play again" on the game-over screen (``a``); the command sets it."""
        self.wants_again = False
        """The person chose ``a`` (play again) on the game-over screen, and confirmed it."""
        self.asking_again = False
        """``a`` was pressed on the game-over screen: :data:`AGAIN_QUESTION` waits for Enter."""
        self.series: Any = None
        """The series this game belongs to (:class:`fairdeck.series.Series`): its score is shown on
        the game-over screen from the series' second game on."""
        self.log: list[tuple[str, str]] = []
        self.lobby_seats: list[str] = []
        self.lobby_free: int | None = None
        self.lobby_game = ""
        self.lobby_port: int | None = None
        self.started = False
        self.decision: Decision | None = None
        self.cursor = 0
        self.cursor_moved = False
        self.message: tuple[str, str] = ("", "")
        self.overlay: str | None = None  # "help", "quit" or "confirm"
        self.help_scroll = 0
        self.log_total = 0
        """How many lines the log has ever had (``self.log`` keeps the newest :data:`MAX_LOG`)."""
        self.log_anchor: tuple[int, int] | None = None
        """Where the log is scrolled back to: the (entry number counted since the start, display
        line of that entry) drawn on its last row; ``None`` while it follows the newest line.
        Anchored to a line rather than counted from the end, the view stays put while lines come
        in, and nothing slides past unseen."""
        self.over = False
        self.sending = False
        self.quitting = False
        self.confirming: mv.MoveOption | None = None
        """The move the "are you sure?" box asks about (``overlay == "confirm"``)."""
        self.summary: Fragments | None = None
        """The last round's summary, shown until the person dismisses it (Enter)."""
        self._answered_words: str | None = None  # a forced answer sent for the person, to be marked
        self._summary_head: Fragments = []
        self._summary_older: Fragments = []
        """Summaries of earlier rounds still not dismissed (bots can finish a round without the
        person, e.g. one knocked out at once): kept, under the newest, until Enter."""
        self._summary_until: int | None = None
        """While set: the summary's "how the round ended" lines follow the log until the notices
        before this seq are shown (the replica the summary was read from runs ahead of them)."""
        self._answered_for: int | None = None  # the step whose forced answer was sent for the person
        self._explaining: Decision | None = None  # a decision whose offered cards are to be explained
        self._rounds_seen: int | None = None
        self._last_state: Any = None
        self._plan: Plan | None = None
        self._plan_key: Any = None
        self.buffer = Buffer(
            multiline=False,
            completer=_MoveCompleter(self),
            complete_while_typing=False,
            on_text_changed=self._on_text_changed,
        )
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=self._key_bindings(),
            style=STYLE,
            full_screen=True,
            refresh_interval=0.5,
            input=input,
            output=output,
        )
        self.app.ttimeoutlen = 0.05  # Esc acts at once
        if node is not None:
            self.attach(node, add_bot=add_bot)

    def attach(self, node: Node, add_bot: Callable[[], None] | None = None) -> None:
        """Serve ``node`` (its decisions and notices come here); ``add_bot``: see :attr:`add_bot`."""
        self.node = node
        self.add_bot = add_bot or self.add_bot
        node.on_decide = self.on_decide

    # -- facts ----------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Party names (seats first, then witnesses), safe to draw."""
        party = self.node.party
        if party is None:
            return [clean(n, 40) for n in self.lobby_seats]
        return [clean(p.name, 40) for p in party.table.parties]

    def view(self) -> TableView | None:
        """The table as the local seat may see it: public state plus ``party.known_faces()`` only."""
        party = self.node.party
        if party is None:
            return None
        table = party.table
        try:
            links = self.node.connection_status()
        except Exception:  # a closed mesh: draw without links
            links = None
        names = self.names
        faces = party.known_faces()
        view = TableView(table.game, table.state, party.seat, faces, names, links, table.ended)
        view.inert = safe_text
        view.closing = closing_words(table, names, party.seat)
        view.extra["hand_panel"] = True  # the hand has its own panel: seat rows need not repeat it
        return view

    def progress_words(self) -> str:
        """What the table waits for at the protocol level, e.g. ``shuffling 2/4: bob (seat 2)``."""
        party = self.node.party
        if party is None:
            return ""
        table = party.table
        expected = table.expected()
        if expected is None:
            return ""
        who_index, kind = expected
        who = "you" if who_index == party.me else f"{self.names[who_index]} (seat {who_index})"
        words = PROTOCOL_WORDS.get(kind, kind)
        if kind == "shuffle":
            total = len(table.parties)
            done = total - len(table.step.writers)
            return f"shuffling {done}/{total}: {who} {'are' if who == 'you' else 'is'} mixing the cards"
        if kind == "move":
            return ""
        return f"{words}: waiting for {who}"

    # -- notices ----------------------------------------------------------------------------------
    def add_log(self, style: str, text: str) -> None:
        """Append a line to the event log (bounded)."""
        self.log.append((style, text))
        self.log_total += 1
        if len(self.log) > MAX_LOG:
            del self.log[: len(self.log) - MAX_LOG]
        self._invalidate()

    def handle(self, notice: Notice) -> None:
        """Fold one notice from the node into what the console shows."""
        kind, text, data = notice.kind, clean(notice.text, 2000), notice.data
        if kind == "lobby":
            seats = data.get("seats")
            if isinstance(seats, list):
                self.lobby_seats = [clean(s, 40) for s in seats]
            if isinstance(data.get("free"), int):
                self.lobby_free = data["free"]
            if isinstance(data.get("game"), str):
                self.lobby_game = clean(data["game"], 40)
            if isinstance(data.get("port"), int):
                self.lobby_port = data["port"]
            if text:
                self.add_log("class:info", f"* {text}")
        elif kind == "started":
            if not self.started:  # a node says it once; a console that saw it already keeps quiet
                words = "back in the game" if data.get("resumed") else "the game starts"
                self.add_log("class:heading", f"* {words} — {text}")
            self.started = True
        elif kind == "accepted":
            if text:
                style = "class:summary" if ROUND_END.search(text) else ""
                for line in self._said_lines(text):
                    self.add_log(style, self._mark_answered(line))
            self._follow_state(data.get("state"))
            self._follow_summary(data.get("seq"))
        elif kind == "history":  # a resumed game: what happened before, as it was said then
            lines = [line for line in data.get("lines", ()) if isinstance(line, str)]
            left_out = data.get("left_out") if isinstance(data.get("left_out"), int) else 0
            more = f" ({left_out} earlier entries not shown)" if left_out else ""
            self.add_log("class:dim", f"── the game so far{more} ──")
            for said in lines:
                for line in self._said_lines(clean(said, 2000)):
                    self.add_log("class:dim", line)
            self.add_log("class:dim", "── resumed here ──")
        elif kind == "chat":
            seat = data.get("seat")
            if isinstance(seat, int) and 0 <= seat < len(self.names):
                who = self.names[seat]
            else:  # in the lobby there are no seats yet: the name the opener passed on
                who = clean(str(data.get("name") or "?"), 40)
            self.add_log("class:chat", f"<{who}> {text}")
        elif kind == "status":
            self.add_log("class:down" if "disconnected" in text else "class:ok", f"* {text}")
        elif kind in ("rejected", "evidence"):
            self.add_log("class:error", f"! {text}")
        elif kind == "ended":
            self.over = True
            if self.decision is not None:  # (closed while we were asked: nothing is asked any more)
                self._tell_turn(False)
            self.decision = None
            self.overlay = None
            self.add_log("class:summary", f"* the game is {text or 'over'} — press Enter to leave")
        elif text:
            self.add_log("class:info", f"* {text}")
        self.sync_decision()

    def _mark_answered(self, line: str) -> str:
        """The table's line for an answer the console gave by itself, marked so: the person reads
        the answer once, and that it was given for them."""
        words = self._answered_words
        if words and "(you)" in line and line.endswith(words):
            self._answered_words = None
            return f"{line} ({mv.ANSWERED_WORDS})"
        return line

    def _said_lines(self, text: str) -> list[str]:
        """An entry's words as log lines: split at "; ", names added, the game's noise left out."""
        return [self._named(line) for line in quiet_parts(text, self._present_noise())]

    def _named(self, line: str) -> str:
        party = self.node.party
        return named_numbers(mv.name_seats(line, self.names, party.seat if party else None), self.names)

    def _present_noise(self) -> tuple[str, ...]:
        party = self.node.party
        return presentation(party.table.game).noise if party is not None else ()

    def _follow_state(self, state: Any = None) -> None:
        """Say in the log what the events since the last look caused (the game's
        ``consequences``); when a round has ended, keep its summary up until dismissed.

        ``state`` is the state right after the entry just shown: the table may already be further
        on (entries accepted while the screen was busy), and what that later state caused must
        come after those entries' own lines, not before them."""
        view = self.view()
        if view is None:
            return
        if state is not None:
            view = dataclasses.replace(view, state=state)
        state = view.state
        present = view.present
        try:
            changed = state is not self._last_state
            lines = present.consequences(self._last_state, state, view) if changed else []
        except Exception:  # words must never break the console
            lines = []
        self._last_state = state
        recent = {text for _, text in self.log[-40:]}
        for line in lines:
            named = self._named(line)
            if named not in recent:  # the game's own line may have said it already
                self.add_log("class:summary", "→ " + named)
        try:
            done = present.rounds_done(state)
        except Exception:
            done = 0
        if self._rounds_seen is None:
            self._rounds_seen = done
        elif done > self._rounds_seen:
            self._rounds_seen = done
            over = view.ended is not None or isinstance(_pending(view), GameOver)
            summary = None if over or not self.round_summaries else present.round_summary(view)
            if summary:
                party = self.node.party
                self.show_summary(summary, party.table.next_seq if party is not None else None)

    def show_summary(self, summary: Fragments, until: int | None = None) -> None:
        """Put up a round's summary (its "how the round ended" lines follow the log until the
        notices before seq ``until`` are shown). One still up stays, as it is now, under it: a round
        the bots finished without the person is never skipped unseen."""
        self._summary_older = [*self.summary, *self._summary_older] if self.summary else []
        self._summary_head = [("", "\n"), *summary, ("", "\n")]
        self._summary_until = until
        self.summary = self._summary_head + self._round_end_lines() + self._summary_older
        self._invalidate()

    def _round_end_lines(self) -> Fragments:
        """The summary's last lines: the log up to the line that ended the round (or the newest);
        before them, how the person went out of the round, when that was earlier."""
        recent = range(max(0, len(self.log) - 200), len(self.log))
        ends = [i for i in recent if ROUND_END.search(self.log[i][1])]
        stop = (ends[-1] + 1) if ends else len(self.log)
        begin = (ends[-2] + 1) if len(ends) > 1 else recent.start
        out: Fragments = []
        gone = [i for i in range(begin, max(begin, stop - 4)) if YOU_OUT.search(self.log[i][1])]
        if gone:
            style, text = self.log[gone[0]]
            out.extend([("class:dim", "How you went out:\n"), (style, f"  {text}"), ("", "\n")])
        out.append(("class:dim", "How the round ended:\n"))
        for style, text in self.log[max(begin, stop - 4) : stop]:  # (this round's lines only)
            out.extend([(style, f"  {text}"), ("", "\n")])
        return out

    def _follow_summary(self, seq: object) -> None:
        """Bring the summary's last lines up to date until the log has caught up with the state
        the round's end was read from; then they stay as they are."""
        if self._summary_until is None:
            return
        if self.summary is not None:
            self.summary = self._summary_head + self._round_end_lines() + self._summary_older
        if self.summary is None or (isinstance(seq, int) and seq >= self._summary_until - 1):
            self._summary_until = None

    def on_decide(self, prompt: str, moves: list[dict[str, Any]]) -> None:
        """``Node.on_decide``: a decision is due; the console words it and waits for the person."""
        self.sync_decision()

    def sync_decision(self) -> None:
        """Match the shown decision with what the party is asked now (new, unchanged, or gone)."""
        party = self.node.party
        if party is None or self.over:
            return
        prompt = party.waiting_for_me()
        if prompt is None:
            if self.decision is not None and not self.sending:
                self.decision = None
                self._tell_turn(False)
                self._close_confirm()
            self._invalidate()
            return
        step = party.table.step.start_seq
        table = party.table
        fresh = self.decision is None or self.decision.step != step
        if fresh:
            assert party.seat is not None  # witnesses are never asked
            heading, options = mv.word_moves(
                table.game, table.state, party.seat, party.known_faces(), party.legal_moves(), self.names
            )
            self.decision = Decision(prompt, heading, options, step)
            self._close_confirm()  # (a box asking about the last decision's move asks no more)
            self.cursor = 0
            self.cursor_moved = False
            self.buffer.reset()
        decision = self.decision
        assert decision is not None
        forced = mv.forced_option(table.game, prompt, decision.options) if self.answer_forced else None
        if forced is not None:
            # nothing to choose: the honest answer goes at once (once a move being sent has gone;
            # tried once: if it fails, the person sees it and can send it)
            if not self.sending and self._answered_for != step:
                self._answered_for = step
                self.sending = True
                self._spawn(self._send(forced, automatic=True))
            return
        if fresh:
            self._tell_turn(True)
            self._explaining = decision  # (said once the lines that led here are in the log)
            self._explain_when_caught_up()
            self.log_anchor = None  # what led to this turn is the newest lines: show them
            self.message = ("class:ok", TURN_HINT)
            self._invalidate()

    def _explain_when_caught_up(self) -> None:
        """Explain the cards of the decision waiting for it (:meth:`_explain_offered`) once no
        notice is left to show: after the lines that led to the choice, never above them."""
        decision = self._explaining
        if decision is None:
            return
        notices = getattr(self.node, "notices", None)
        if notices is not None and not notices.empty():
            return
        self._explaining = None
        if decision is self.decision and not self.over:
            self._explain_offered(decision)

    def _explain_offered(self, decision: Decision) -> None:
        """Cards the person is offered to choose from that are not in the hand (two Princesses to
        keep one of) are shown nowhere else: what each does goes in the log as the choice opens,
        so the person need not look it up in F1's help before choosing."""
        view = self.view()
        if view is None or view.seat is None:
            return
        held = {view.faces.get(ref) for ref in hand_refs(view, view.seat)}
        offered = dict.fromkeys(f for option in decision.options for f in option.faces if f not in held)
        texts: dict[str, None] = {}
        for face in offered:
            try:
                texts[clean(view.game.card_text(face), 600)] = None
            except Exception:  # words must never break the console
                continue
        if not texts or len(texts) > MAX_OFFERED_TEXTS:  # (a long list is F1's job)
            return
        for text in texts:
            self.add_log("class:info", f"about {text}")

    def _close_confirm(self) -> None:
        if self.overlay == "confirm":
            self.overlay = None
        self.confirming = None

    def _tell_turn(self, mine: bool) -> None:
        """A player looking at another window learns it is their turn: the terminal's bell and its
        title (``fairdeck — your turn``); the title goes back once the move is made."""
        with contextlib.suppress(Exception):  # a terminal without a bell or a title is fine
            output = self.app.output
            if mine:
                output.bell()
            output.set_title("fairdeck — your turn" if mine else "fairdeck")
            output.flush()

    # -- acting ------------------------------------------------------------------------------------
    def visible_options(self) -> list[mv.MoveOption]:
        """The decision's options that fit what is typed (all of them for an empty line or chat)."""
        if self.decision is None:
            return []
        text = self.buffer.text
        if text.strip().lower().startswith("say") or text.strip().isdigit():
            return self.decision.options
        return mv.match(text, self.decision.options)

    def _on_text_changed(self, _: Buffer) -> None:
        self.cursor = 0
        self.cursor_moved = False
        self.message = ("", "")

    def move_cursor(self, delta: int) -> None:
        """Move the highlight in the (filtered) menu."""
        shown = self.visible_options()
        if shown:
            self.cursor = (self.cursor + delta) % len(shown)
            self.cursor_moved = True

    def enter(self) -> None:
        """Enter on the input line: chat, help, or choose a move (refusing what fits no legal move)."""
        text = self.buffer.text.strip()
        if text.lower() == "say" or text.lower().startswith("say "):
            said = text[4:].strip()
            if said:
                self._spawn(self._chat(said))
            self.buffer.reset()
            return
        if text in ("?", "help"):
            self.buffer.reset()
            self.open_help()
            return
        decision = self.decision
        if decision is None and self.node.party is None:  # the lobby: no game yet, so no move
            if text:
                free = self.lobby_free
                when = f"it starts when every seat is taken ({free} free)" if free else "it is starting"
                self.message = ("class:warn", f"no game yet: {when}; 'say TEXT' chats")
            return
        if decision is None:
            view = self.view()
            waiting = self.progress_words() or (view and waiting_words(view)) or "the table"
            if text:
                self.message = ("class:warn", f"nothing to choose now ({waiting}); 'say TEXT' chats")
            return
        if self.sending:
            self.message = ("class:warn", "sending your move…")
            return
        if self.plan().too_small:  # the table is not on the screen: no move is made blind
            self.message = ("class:warn", TOO_SMALL_HINT)
            return
        shown = self.visible_options()
        if not text:
            chosen = shown[self.cursor] if shown else None
        else:
            fits = mv.match(text, decision.options)
            picked = mv.pick(text, decision.options)
            if len(fits) > 1 and self.cursor_moved:
                chosen = shown[self.cursor]
            elif picked is not None:
                chosen = picked
            elif not fits:
                party = self.node.party
                assert party is not None and party.seat is not None
                table = party.table
                self.message = (
                    REASON_STYLE,
                    mv.explain_refusal(
                        text,
                        table.game,
                        table.state,
                        party.seat,
                        party.known_faces(),
                        decision.options,
                        self.names,
                        decision.prompt,
                    ),
                )
                return
            else:
                self.message = (
                    "class:warn",
                    f"{len(fits)} moves fit {text!r}: add a word (Tab shows the next ones) or pick with ↑↓",
                )
                return
        if chosen is not None:
            self.choose(chosen)

    def choose(self, option: mv.MoveOption, confirmed: bool = False) -> None:
        """Send ``option``; a move that costs its player dear (its ``caution``: the Princess) is
        asked about first (``y`` sends it, ``n`` or Esc goes back to the moves)."""
        if option.caution and not confirmed:
            self.confirming = option
            self.overlay = "confirm"
            self._invalidate()
            return
        self.confirming = None
        self.sending = True  # at once: a second Enter before the send starts must not send twice
        self._spawn(self._send(option))

    def _spawn(self, coro: Any) -> None:
        if self.app.is_running:
            self.app.create_background_task(coro)
        else:
            asyncio.ensure_future(coro)

    async def _send(self, option: mv.MoveOption, automatic: bool = False) -> None:
        sent = self.decision  # (the next decision may come while this one is sent: it stays)
        self.sending = True
        self.message = ("class:info", f"sending: {option.words}")
        if automatic:  # said once, on the table's own line for this answer (see :meth:`_mark_answered`)
            self._answered_words = option.words
        self._invalidate()
        try:
            await self.node.decide(option.move)
        except IllegalMove as exc:
            self._answered_words = None  # not sent: no line of the table's will answer it
            self.message = (REASON_STYLE, f"not allowed: {clean(player_words(str(exc)))}")
        except Exception as exc:  # a network or disk problem: tell the person, keep the console
            self._answered_words = None
            logging.getLogger("fairdeck.console").warning("could not send the move: %s", exc)
            self.message = ("class:error", f"could not send the move ({type(exc).__name__}); try again")
        else:
            if self.decision is sent:
                self.buffer.reset()  # (this clears the message line, so it is written after)
                # an answer sent for the person is not their choice: the log marks it, and so does this
                said = f"{mv.ANSWERED_WORDS}: " if automatic else "you chose: "
                self.message = ("class:dim" if automatic else "class:ok", f"{said}{option.words}")
                self.decision = None
                self._tell_turn(False)
        finally:
            self.sending = False
            self.sync_decision()
            self._invalidate()

    async def _chat(self, text: str) -> None:
        try:
            await self.node.chat(text)
        except Exception as exc:
            self.message = ("class:error", f"chat not sent ({type(exc).__name__})")
            return
        name = clean(self.node.name, 40)
        who = name if name.lower() == "you" else f"{name} (you)"  # (not "you (you)")
        self.add_log("class:chat", f"<{who}> {clean(text)}")

    def open_help(self) -> None:
        """Show the rules help."""
        self.overlay = "help"
        self.help_scroll = 0
        self._invalidate()

    def _invalidate(self) -> None:
        if self.app.is_running:
            self.app.invalidate()

    # -- running ---------------------------------------------------------------------------------
    async def _pump(self) -> None:
        while True:
            notice = await self.node.notices.get()
            try:
                self.handle(notice)
                self._explain_when_caught_up()
            except Exception as exc:  # one odd notice must not stop the console
                logging.getLogger("fairdeck.console").warning("notice not shown: %s", exc)

    async def show_notices(self) -> str | None:
        """Run the console until the game has ended and the person dismissed the game-over screen,
        or the person left (then returns why: :data:`LEFT_WORDS`)."""
        handler = _LogToConsole(self)
        root = logging.getLogger()
        root.addHandler(handler)
        last_resort, logging.lastResort = logging.lastResort, None  # nothing may print over the screen
        pump = asyncio.create_task(self._pump())
        try:
            self.sync_decision()
            await self.app.run_async()
        finally:
            pump.cancel()
            root.removeHandler(handler)
            logging.lastResort = last_resort
        while not self.node.notices.empty():  # keep the log complete for anyone reading it later
            self.handle(self.node.notices.get_nowait())
        if self.quitting and not self.node.ended:
            self.left = LEFT_WORDS
            if self.on_quit is not None:
                self.on_quit()
        return self.left

    # -- drawing ---------------------------------------------------------------------------------
    def _size(self) -> tuple[int, int]:
        """(columns, rows) of the terminal (:func:`screen_text` sets the size it draws at)."""
        fixed = getattr(self.app, "fixed_size", None)
        if fixed is not None:
            return fixed
        try:
            size = self.app.output.get_size()
            return size.columns, size.rows
        except Exception:
            return 80, 24

    def _width(self) -> int:
        return self._size()[0]

    def _title(self) -> Fragments:
        party = self.node.party
        if party is None:
            left = f" fairdeck · lobby · {self.lobby_game or 'waiting for the table'}"
        else:
            table = party.table
            rnd = getattr(table.state, "round", None)
            rnd_text = f" · round {rnd}" if isinstance(rnd, int) and rnd else ""
            view = self.view()
            try:
                extra = presentation(table.game).title_words(view) if view is not None else ""
            except Exception:
                extra = ""
            if extra:
                rnd_text = f" · {extra}"
            if self.summary is not None and self._rounds_seen:  # the round summarised, not the next
                rnd_text = f" · round {self._rounds_seen} over"
            who = f"seat {party.seat}" if party.seat is not None else "witness"
            left = f" fairdeck · {table.game.name}{rnd_text} · you: {who}"
            named = f"{left} ({clean(self.node.name, 20)})"
            # (80 columns: the keys stay whole; your name, which your seat's row shows, gives way)
            left = named if len(named) + 1 + len("F1 help · Ctrl-C leave") <= self._width() else left
        right = "F1 help · Ctrl-C leave "
        width = self._width()
        if len(left) + 1 + len(right) > width:
            right = "F1 help "
        if len(left) + 1 + len(right) > width:
            left = left[: max(1, width - len(right) - 2)] + "…"
        return [("class:title", left + " " * max(1, width - len(left) - len(right)) + right)]

    def _lobby(self) -> Fragments:
        out: Fragments = []
        seats = self.names
        total = len(seats) + (self.lobby_free or 0)
        out.append(
            (
                "class:heading",
                f"\n  Waiting for players{f' for {self.lobby_game}' if self.lobby_game else ''}\n\n",
            )
        )
        if self.lobby_port is not None:
            out.append(("", "  Others join with:  "))
            bind = getattr(self.node, "bind_host", "0.0.0.0")  # (a stand-in node may have none)
            out.append(("class:key", f"{join_words(bind, self.lobby_port)}\n"))
            out.append(("class:dim", f"  (your fingerprint: {self.node.identity.fingerprint})\n\n"))
        for i in range(max(total, len(seats))):
            name = seats[i] if i < len(seats) else None
            if name is None:
                out.append(("class:dim", f"  seat {i}  (free)\n"))
            else:
                you = " (you)" if name == clean(self.node.name, 40) else ""
                out.append(("", f"  seat {i}  "))
                out.append(("class:me" if you else "", f"{name}{you}\n"))
        if not seats:
            out.append(("class:dim", "  contacting the table…\n"))
        if self.lobby_free and self.add_bot is not None:
            out.append(("", "\n  Press "))
            out.append(("class:key", "F2"))
            out.append(("", " to seat a bot in a free seat.\n"))
        if self.lobby_free:
            more = self.lobby_free
            out.append(
                (
                    "",
                    f"\n  {more} seat{'s' if more > 1 else ''} free: the game starts when all are taken\n",
                )
            )
        elif seats:
            out.append(("", "\n  Every seat is taken: starting…\n"))
        return out

    def _seats(self) -> Fragments:
        view = self.view()
        return wrap(seat_rows(view), self._width() - 1, " " * 40) if view else []

    def _board(self) -> Fragments:
        view = self.view()
        if view is None:
            return []
        out = board(view)
        gone = gone_words(view)
        if gone:
            out.append(("class:down", f"⚠ {gone}: the game waits for them\n"))
        return wrap(out, self._width() - 1)

    def _hand(self, compact: bool = False) -> Fragments:
        view = self.view()
        if view is None:
            return []
        return wrap(compact_hand(view) if compact else hand(view), self._width() - 1)

    def plan(self) -> Plan:
        """How the table's rows are shared at this size (see :class:`Plan`); once per drawing."""
        key = (self.app.render_counter, self._size(), len(self.log), self.cursor, self.buffer.text)
        key += (self.message,)  # (a long refusal takes a second line: see _make_plan)
        if self._plan is not None and self._plan_key == key:
            return self._plan
        self._plan = self._make_plan()
        self._plan_key = key
        return self._plan

    def _make_plan(self) -> Plan:
        """:meth:`plan` at the size :meth:`_size` gives now, not cached."""
        columns, rows = self._size()
        options = len(self.visible_options()) if self.decision is not None else 1
        sections = (
            split_lines(self._seats()),
            split_lines(self._board()),
            split_lines(self._hand()),
            split_lines(self._hand(compact=True)),
        )
        # a refusal too long for its line takes a second one (from the log) rather than being cut:
        # its reason is the point of it (where the table has the row to spare)
        style, text = self.message
        long = style == REASON_STYLE and len(text) > max(2, columns - 1)
        # (the title, the input line and the message line)
        plan = make_plan(columns, rows - 3 - long, *sections, max(options, 1))
        if not long:
            return plan
        if plan.too_small:  # (no row to spare: the reason is cut with …, as any long message)
            return make_plan(columns, rows - 3, *sections, max(options, 1))
        return dataclasses.replace(plan, message_rows=2)

    def _message_rows(self) -> int:
        """The message line's rows: two for a long refusal at the table (see :meth:`_make_plan`)."""
        if self.node.party is None or self.overlay is not None or self.over:
            return 1
        return self.plan().message_rows

    def _section(self, name: str) -> Window:
        """The window of a planned section (seats, board, hand): exactly as tall as its plan says."""
        return Window(
            FormattedTextControl(lambda: self._shown(name)), height=lambda: len(getattr(self.plan(), name))
        )

    def _shown(self, section: str) -> Fragments:
        out: Fragments = []
        for line in getattr(self.plan(), section):
            out.extend(line)
            out.append(("", "\n"))
        return _trim(out)

    def _log_display(self) -> list[Fragments]:
        """The log as display lines (wrapped to the width), oldest first."""
        return self._log_numbered()[0]

    def _log_numbered(self) -> tuple[list[Fragments], list[tuple[int, int]]]:
        """The log's display lines, and for each its place: (entry number, line of that entry)."""
        width = self._width() - 1
        first = self.log_total - len(self.log)
        lines: list[Fragments] = []
        places: list[tuple[int, int]] = []
        for number, (style, text) in enumerate(self.log, first):
            wrapped = _wrapped_entry(style, text, width)
            lines.extend(wrapped)
            places.extend((number, k) for k in range(len(wrapped)))
        return lines, places

    def _log_end(self, places: list[tuple[int, int]], rows: int) -> int:
        """Where the view of the log ends (the index after its last line) for :attr:`log_anchor`."""
        if self.log_anchor is None:
            return len(places)
        end = bisect.bisect_right(places, self.log_anchor)  # (an entry wrapped shorter: its last line)
        return min(len(places), max(end, min(rows, len(places))))

    def _log_window(self) -> tuple[list[Fragments], int, int]:
        """The log lines shown now, and how many earlier and newer lines are out of sight."""
        lines, places = self._log_numbered()
        rows = max(1, self.plan().log_rows)
        end = self._log_end(places, rows)
        start = max(0, end - rows)
        return lines[start:end], start, len(lines) - end

    @property
    def log_back(self) -> int:
        """How many of the log's lines are below its view (0 while it follows the newest)."""
        return self._log_window()[2]

    def scroll_log(self, pages: float) -> None:
        """Scroll the log ``pages`` pages towards the newest (negative: back); a page keeps one line
        of the last in sight. Reaching the newest line follows new lines again; ``±inf`` goes to the
        newest (End) or the oldest (Home)."""
        _, places = self._log_numbered()
        rows = max(1, self.plan().log_rows)
        end = self._log_end(places, rows)
        if pages == float("inf"):
            end = len(places)
        elif pages == float("-inf"):
            end = min(rows, len(places))
        else:
            end += int(pages * max(1, rows - 1))
        end = max(min(rows, len(places)), end)
        self.log_anchor = None if end >= len(places) else places[end - 1]
        self._invalidate()

    def _log_lines(self) -> Fragments:
        out: Fragments = []
        for line in self._log_window()[0]:
            out.extend(line)
            out.append(("", "\n"))
        return _trim(out)

    def _lobby_log(self) -> Fragments:
        out: Fragments = []
        for line in self._log_display():
            out.extend(line)
            out.append(("", "\n"))
        self._lobby_shown = sum(t.count("\n") for _, t in out)
        return _trim(out)

    def _lobby_cursor(self) -> Point:
        return Point(0, max(0, getattr(self, "_lobby_shown", 1) - 1))

    def _summary_page(self) -> Fragments:
        """The round's summary, its key first; what does not fit is cut from the oldest events."""
        columns, rows = self._size()
        lines = split_lines(wrap(self.summary or [], columns - 3))
        room = max(1, rows - 3 - 2)  # title, input, message; the key line and a blank one
        if len(lines) > room:  # never a line cut off unmarked: the log (after Enter) has the rest
            lines = [*lines[: room - 1], [("class:dim", "… (more in the log once this is closed)")]]
        out: Fragments = [("class:key", "  Press Enter to go on.\n")]
        for line in lines:
            out.extend([("", "  "), *line, ("", "\n")])
        return _trim(out)

    def _needs_at(self, columns: int) -> tuple[int, int]:
        """The least (columns, rows) this table needs when drawn ``columns`` wide (the rows its
        lines take depend on the width they wrap at)."""
        kept = getattr(self.app, "fixed_size", None)
        self.app.fixed_size = (columns, self._size()[1])  # type: ignore[attr-defined]
        try:
            return self._make_plan().needs
        finally:
            self.app.fixed_size = kept  # type: ignore[attr-defined]

    def _too_small(self) -> Fragments:
        columns, rows = self._size()
        need_columns, need_rows = self.plan().needs
        needs = f"at least {need_columns}×{need_rows}"
        if columns < need_columns:  # rows counted at a width too narrow to play mean nothing
            wide = max(need_columns, 80)
            needs = f"at least {need_columns} columns ({wide}×{self._needs_at(wide)[1]} shows it whole)"
        elif columns < 80 and (wide_rows := self._needs_at(80)[1]) < need_rows:
            # the rows counted at this width are not the only way: lines wrap less in a wider window
            needs += f" (or 80×{wide_rows}: wider, it needs fewer rows)"
        width = max(12, columns - 1)  # word-wrapped here: the window's own wrap cuts words
        out: Fragments = [("", "\n  ")]
        for style, text in (
            ("class:warn", "The terminal is too small for this table."),
            ("", f"It is {columns}×{rows}; this game needs {needs}."),
            ("", "Make the window larger (the game goes on meanwhile; your move waits), "
                 "or play with --plain."),
        ):
            out.extend(wrap([(style, text)], width - 2, "  "))
            out.append(("", "\n\n  " if style else "\n  "))
        out.pop()
        return out

    def _rule(self, title: str, suffix: str = "") -> Fragments:
        """``── title suffix ───``; a title too long for the width is cut (with …) before ``suffix``
        is, so that a move's countdown stays in sight."""
        width = self._width()
        room = width - len(suffix) - 4
        if len(title) > room:
            title = title[: max(1, room - 1)].rstrip() + "…"
        text = f"── {title}{suffix} "
        return [("class:rule", text + "─" * max(0, width - len(text)))]

    def _menu_heading(self) -> Fragments:
        decision = self.decision
        if self.over:
            return self._rule("game over")
        if decision is None:
            progress = self.progress_words()
            view = self.view()
            waiting = progress or (waiting_words(view) if view else "")
            return self._rule(f"waiting: {waiting}" if waiting else "waiting")
        return self._rule(self._decision_title(decision), self._deadline_words())

    def _decision_title(self, decision: Decision) -> str:
        """The words over the legal moves: what this decision asks (the game's menu title, the
        moves' heading, or the prompt in the board's words)."""
        titles = presentation(self.node.party.table.game).menu_titles if self.node.party else {}
        title = titles.get(decision.prompt)
        title = title or decision.heading or GENERIC_TITLES.get(decision.prompt)
        game = self.node.party.table.game if self.node.party else None
        return title or prompt_title(game, decision.prompt)

    def _title_cut(self) -> str:
        """The decision's title when the rule over the moves had to cut it (``Yours go to seat 3
        (bot-3, run…``), else empty: the line under the input then says it whole."""
        decision = self.decision
        if decision is None or self.over:
            return ""
        title = self._decision_title(decision)
        return title if len(title) > self._width() - len(self._deadline_words()) - 4 else ""

    def _deadline_words(self) -> str:
        """`` · 4:12 left`` on the decision due now: the table's deadline for it (then a safe move is
        played for us, or the others may close the game, as the table's policy says)."""
        left = getattr(self.node, "own_deadline", lambda: None)()
        if left is None:
            return ""
        minutes, seconds = divmod(int(left), 60)
        return f" · {minutes}:{seconds:02d} left"

    def _menu(self) -> Fragments:
        shown = self.visible_options()
        out: Fragments = []
        if self.decision is None:
            return [("class:dim", "  (nothing to choose right now; 'say TEXT' chats, F1 shows the rules)")]
        if not shown:
            return [("class:error", "  no legal move fits what you typed")]
        self.cursor = min(self.cursor, len(shown) - 1)
        rows = max(1, self.plan().menu_rows)
        first, last = 0, len(shown)
        if len(shown) > rows:
            room = max(1, rows - 1)  # one row says what is above and below
            first = min(max(0, self.cursor - room + 1), len(shown) - room)
            last = first + room
        for i in range(first, last):
            option = shown[i]
            style = "class:selected" if i == self.cursor else ""
            # a move too long for the line is cut with … (what its card does is in the log or F1)
            line = self._fit(f"{'▶' if i == self.cursor else ' '}{option.number:>3}  {option.words}")
            out.append((style, line))
            out.append(("", "\n"))
        if len(shown) > rows:
            marks = []
            if last < len(shown):
                marks.append(f"↓ {len(shown) - last} more below")
            if first:
                marks.append(f"↑ {first} above")
            out.append(("class:dim", f"     {', '.join(marks)} (↑↓ moves; typed words narrow the list)"))
            out.append(("", "\n"))
        out.pop()
        return out

    def _message(self) -> Fragments:
        if self.summary is not None and self.node.party is not None:
            # a round's summary covers the moves: the line under it says what it waits for, not
            # "choose a move" (a number typed now would not choose one)
            after = "; then your move" if self.decision is not None else ""
            return [("class:dim", self._fit(f"{SUMMARY_HINT}{after}"))]
        if self.decision is not None and self.node.party is not None and self.plan().too_small:
            return [("class:warn", self._fit(TOO_SMALL_HINT))]
        style, text = self.message
        if text and self._message_rows() == 2:
            return [(style, self._two_lines(text))]
        if text == TURN_HINT and (cut := self._title_cut()):
            # what is asked did not fit over the moves: said whole here (the keys are in F1's help)
            return [("class:ok", self._fit(cut))]
        # The turn hint gives way to what the highlighted move's card does when the hand is drawn
        # without its cards' effects (the heading above the menu says whose turn it is already).
        soft = text == TURN_HINT and self.plan().compact_hand
        if (not text or soft) and self.decision is not None and self.decision.options and self.node.party:
            about = self._about_highlighted()
            if about:
                return [("class:dim", self._fit(about))]
        return [(style, self._fit(text))]

    def _completions_line(self) -> Fragments:
        """Tab's choices for the next word on one line, the chosen one highlighted; when they do not
        all fit, those around the chosen one, with ``‹``/``›`` saying there are more."""
        state = self.buffer.complete_state
        if state is None or not state.completions:
            return []
        words = [clean(c.display_text, 60) for c in state.completions]
        current = state.complete_index
        head, hint = "Tab: ", "  (Tab or ↑↓ choose, Enter takes it, Esc clears)"
        room = max(10, self._width() - 1 - len(head))

        def span(first: int, last: int) -> int:
            return sum(len(w) + 2 for w in words[first:last])

        first, last = 0, len(words)
        if span(first, last) + len(hint) > room:
            hint = ""
        if span(first, last) > room:  # a window around the chosen word, a mark each side
            first = last = current or 0
            while last < len(words) and span(first, last + 1) <= room - 4:
                last += 1
            while first > 0 and span(first - 1, last) <= room - 4:
                first -= 1
            last = max(last, first + 1)
        out: Fragments = [("class:dim", head), ("class:dim", "‹ " if first else "")]
        for i in range(first, last):
            out.append(("class:selected" if i == current else "class:key", words[i]))
            out.append(("", "  "))
        out.append(("class:dim", ("› " if last < len(words) else "") + hint.lstrip()))
        return out

    def _two_lines(self, text: str) -> str:
        """``text`` on two lines, broken at a space where it can be (the second cut with … if need
        be)."""
        width = max(2, self._width() - 1)
        first = text[:width]
        if len(text) > width and " " in first[width // 2 :]:
            first = first[: first.rindex(" ")]
        rest = text[len(first) :].lstrip()
        second = rest if len(rest) <= width else rest[: width - 1].rstrip() + "…"
        return f"{first.rstrip()}\n{second}"

    def _fit(self, text: str) -> str:
        """``text`` on the one line it has: cut with … rather than silently at the edge."""
        width = max(2, self._width() - 1)
        return text if len(text) <= width else text[: width - 1].rstrip() + "…"

    def _about_highlighted(self) -> str:
        """``about: <card text>`` for the highlighted move's cards, where the hand lacks it."""
        assert self.node.party is not None
        shown = self.visible_options()
        option = shown[min(self.cursor, len(shown) - 1)] if shown else None
        game = self.node.party.table.game
        if option is None or not option.faces:
            return ""
        if not (presentation(game).card_help_line or self.plan().compact_hand):
            return ""
        try:
            return "about: " + " | ".join(dict.fromkeys(game.card_text(f) for f in option.faces))
        except Exception:  # words must never break the console
            return ""

    def _help(self) -> Fragments:
        party = self.node.party
        game = party.table.game if party else None
        lines = wrap_entries(help_entries(game), max(20, self._width() - 1))
        self.help_lines = len(lines)
        out: Fragments = []
        for line in lines[self.help_scroll :]:
            out.extend(line)
            out.append(("", "\n"))
        return out

    def _help_foot(self) -> Fragments:
        """What scrolls and closes the help screen (its last line, always in sight)."""
        return [("class:dim", HELP_FOOT[: max(1, self._width() - 1)])]

    def _game_over(self) -> Fragments:
        # what to press comes first: below it the seats and the board may not all fit at 80x24
        view = self.view()
        width = self._width() - 1
        party = self.node.party
        failure = getattr(self.node, "failure", None)
        if failure and (party is None or party.table.ended is None):
            # stopped on our own, the game unfinished: no "game over", no winners (nobody won)
            out: Fragments = [("class:heading", "\n  ══ Stopped: the game is not over ══\n")]
            words = wrap([("class:down", clean(str(failure), 600))], width - 2, "  ")
            out.extend([("", "  "), *words, ("", "\n")])
            out.append(("class:key", "  Press Enter to leave.\n"))
            log = self.node.log_path
            if log is not None:
                out.append(("class:dim", f"\n  log: {log}"))
            return out
        out = [("class:heading", "\n  ══ Game over ══\n")]
        if self._can_play_again() and self.asking_again:
            out.append(("class:key", f"  {AGAIN_QUESTION}\n"))
            out.append(("class:dim", f"  ({AGAIN_WORDS})\n\n"))
        elif self._can_play_again():
            out.append(("class:key", "  Press a to play again with the same players, Enter to leave\n"))
            out.append(("class:dim", f"  ({AGAIN_WORDS})\n\n"))
        else:
            out.append(("class:key", "  Press Enter to leave — the log is audited next.\n\n"))
        if view is not None:
            for line in split_lines(wrap(result_lines(view), width - 2)):
                out.extend([("", "  "), *line, ("", "\n")])
        series = self._series_words()
        if series:
            out.extend([("", "  "), *wrap([("class:win", series)], width - 2, "  "), ("", "\n")])
        if view is not None:
            out.append(("", "\n"))
            out.extend(wrap(seat_rows(view), width, " " * 40))
            out.append(("", "\n"))
            if view.present.board_at_game_over:
                out.extend(wrap(board(view), width))
                out.append(("", "\n"))
        log = self.node.log_path
        if log is not None:
            out.append(("class:dim", f"\n  log: {log}"))
        return out

    def _can_play_again(self) -> bool:
        party = self.node.party
        return self.offer_again and party is not None and party.table.ended == "over"

    def _series_words(self) -> str:
        """The running score with this game, from the series' second game on (else empty)."""
        party = self.node.party
        if self.series is None or party is None or not self.series.games:
            return ""
        try:
            return clean(self.series.words(party.table), 300)
        except Exception:
            return ""

    async def again(self) -> str:
        """The person's answer to "play again?", chosen on the game-over screen: ``yes`` (``a``) or
        ``no`` (Enter, or leaving)."""
        return "yes" if self.wants_again and self._can_play_again() else "no"

    def _quit_box(self) -> Fragments:
        if self.node.party is None and getattr(self.node, "opened", False):  # our lobby: no game yet
            words = [
                ("", "  Leaving closes this table: its game has not started, so there is nothing\n"),
                ("", "  to resume. Whoever joined is told at once.\n\n"),
            ]
        elif self.node.party is None:  # another's lobby
            words = [
                ("", "  Leaving gives up your seat at this table: its game has not started, so\n"),
                ("", "  there is nothing to resume. The seat is freed for someone else.\n\n"),
            ]
        elif self.leaving_ends_game():
            from fairdeck.commands import helpers_stop  # (the commands import this module)

            stop = helpers_stop(self.node.party.table)  # (bots, or a solo game's witness)
            words = [
                ("", f"  Leaving ends this game for good: {stop},\n"),
                ("", "  so it cannot be resumed. Its log stays on disk, to replay or audit.\n\n"),
            ]
        else:
            words = [
                ("", "  The game cannot go on without you. `fairdeck resume` brings you back to it;\n"),
                ("", "  if you stay away past the table's deadline, the others close it as\n"),
                ("", "  abandoned, naming you. Your log stays on disk and can be audited.\n\n"),
            ]
        return [
            ("class:heading", "\n  Leave the table?\n\n"),
            *words,
            ("class:key", "  y"),
            ("", " leave    "),
            ("class:key", "n / Esc"),
            ("", " stay\n"),
        ]

    def _confirm_box(self) -> Fragments:
        """Are you sure? for a move whose ``caution`` says what it costs (the Princess)."""
        option = self.confirming
        if option is None:
            return []
        width = max(20, self._width() - 4)
        words = wrap([("class:card", option.words)], width - 4, "    ")
        return [
            ("class:heading", "\n  Are you sure?\n\n"),
            ("", "    "),
            *words,
            ("", "\n\n"),
            *wrap([("", f"  This move is allowed, but {option.caution}.")], width, "  "),
            ("", "\n\n"),
            ("class:key", "  y"),
            ("", " play it    "),
            ("class:key", "n / Esc"),
            ("", " choose another move\n"),
        ]

    def _body(self) -> Any:
        if self.overlay == "help":
            return self._help_container
        if self.overlay == "quit":
            return self._quit_container
        if self.overlay == "confirm":
            return self._confirm_container
        # the last round's summary stays up until dismissed even when the game ends meanwhile:
        # the Enter meant for it must not leave the game-over screen the moment that comes up
        if self.summary is not None and self.node.party is not None:
            return self._summary_container
        if self.over:
            return self._over_container
        if self.node.party is None:
            return self._lobby_container
        if "app" in self.__dict__ and self.plan().too_small:  # (no app yet while the layout is built)
            return self._small_container
        return self._table_container

    def _layout(self) -> Layout:
        input_window = Window(
            BufferControl(self.buffer, input_processors=[BeforeInput("> ", style="class:key")]), height=1
        )
        self._input_window = input_window
        planned = self.plan
        self._table_container = HSplit(
            [
                self._section("seats"),
                self._section("board"),
                self._section("hand"),
                Window(FormattedTextControl(self._rule_log), height=1),
                Window(FormattedTextControl(self._log_lines), height=lambda: planned().log_rows),
                Window(FormattedTextControl(self._menu_heading), height=1),
                Window(FormattedTextControl(self._menu), height=lambda: planned().menu_rows),
            ]
        )
        self._small_container = Window(FormattedTextControl(self._too_small), wrap_lines=True)
        self._summary_container = Window(FormattedTextControl(self._summary_page), wrap_lines=True)
        self._lobby_container = HSplit(
            [
                Window(FormattedTextControl(self._lobby), dont_extend_height=True),
                Window(FormattedTextControl(self._rule_log), height=1),
                Window(
                    FormattedTextControl(
                        self._lobby_log, get_cursor_position=self._lobby_cursor, show_cursor=False
                    ),
                ),
            ]
        )
        self._help_container = HSplit(
            [
                Window(FormattedTextControl(self._help), wrap_lines=True),
                Window(FormattedTextControl(self._help_foot), height=1),
            ]
        )
        self._over_container = Window(FormattedTextControl(self._game_over), wrap_lines=True)
        self._quit_container = Window(FormattedTextControl(self._quit_box), wrap_lines=True)
        self._confirm_container = Window(FormattedTextControl(self._confirm_box), wrap_lines=True)
        show_input = Condition(lambda: not self.over and self.overlay is None)
        root = HSplit(
            [
                Window(FormattedTextControl(self._title), height=1),
                DynamicContainer(self._body),
                ConditionalContainer(input_window, filter=show_input),
                # Tab's choices take the message line's place: a menu floating by the cursor
                # would cover the legal moves above it, the very text they complete
                ConditionalContainer(
                    Window(FormattedTextControl(self._message), height=lambda: self._message_rows()),
                    filter=show_input & ~has_completions,
                ),
                ConditionalContainer(
                    Window(FormattedTextControl(self._completions_line), height=1),
                    filter=show_input & has_completions,
                ),
            ]
        )
        return Layout(root, focused_element=input_window)

    def _rule_log(self) -> Fragments:
        if self.node.party is None:
            return self._rule("log")
        _, earlier, newer = self._log_window()
        marks = []
        if earlier:
            marks.append(f"↑ {earlier} earlier line{'s' if earlier > 1 else ''}: PgUp")
        if newer:
            marks.append(f"↓ {newer} newer: PgDn")
        return self._rule("log" + (f" ({'; '.join(marks)})" if marks else ""))

    # -- keys ------------------------------------------------------------------------------------
    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        playing = Condition(lambda: self.overlay is None and not self.over)
        in_help = Condition(lambda: self.overlay == "help")
        in_quit = Condition(lambda: self.overlay == "quit")
        in_confirm = Condition(lambda: self.overlay == "confirm")
        over = Condition(lambda: self.over and self.overlay is None and self.summary is None)
        empty = Condition(lambda: not self.buffer.text)

        summary = Condition(lambda: self.summary is not None and self.overlay is None)

        @kb.add("enter", filter=summary, eager=True)
        @kb.add("escape", filter=summary, eager=True)
        @kb.add("space", filter=summary, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.summary, self._summary_older = None, []

        @kb.add("up", filter=playing)
        def _(event: KeyPressEvent) -> None:
            if self.buffer.complete_state:
                self.buffer.complete_previous()
            else:
                self.move_cursor(-1)

        @kb.add("down", filter=playing)
        def _(event: KeyPressEvent) -> None:
            if self.buffer.complete_state:
                self.buffer.complete_next()
            else:
                self.move_cursor(1)

        @kb.add("enter", filter=playing)
        def _(event: KeyPressEvent) -> None:
            if self.buffer.complete_state and self.buffer.complete_state.current_completion:
                self.buffer.apply_completion(self.buffer.complete_state.current_completion)
                return
            self.buffer.cancel_completion()
            self.enter()

        @kb.add("tab", filter=playing)
        def _(event: KeyPressEvent) -> None:
            decision = self.decision
            if decision is None:
                return
            extended = mv.common_completion(self.buffer.text, decision.options)
            if extended is not None:
                self.buffer.document = Document(extended, len(extended))
            elif self.buffer.complete_state:
                self.buffer.complete_next()
            else:
                self.buffer.start_completion(select_first=False)

        @kb.add("?", filter=playing & empty)
        @kb.add("f1", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.open_help()

        # eager: Esc clears at once; not waiting for a key that could make it an Alt sequence, a
        # digit typed right after it is a digit, never a repeat count (Meta-5 in emacs keys)
        @kb.add("escape", filter=playing, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.buffer.cancel_completion()
            self.buffer.reset()
            self.message = ("", "")

        @kb.add("pageup", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.scroll_log(-1)

        @kb.add("pagedown", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.scroll_log(1)

        # Home/End (and Ctrl-Home/End) go to the log's oldest and newest lines; they still move the
        # input line's cursor too, as a line editor's Home/End do
        @kb.add("home", filter=playing)
        @kb.add("c-home", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.scroll_log(float("-inf"))
            self.buffer.cursor_position = 0

        @kb.add("end", filter=playing)
        @kb.add("c-end", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.scroll_log(float("inf"))
            self.buffer.cursor_position = len(self.buffer.text)

        @kb.add("f2", filter=Condition(lambda: not self.started and self.add_bot is not None))
        def _(event: KeyPressEvent) -> None:
            if self.add_bot is not None and self.lobby_free:
                self.add_bot()

        @kb.add("c-c", filter=playing)
        @kb.add("c-q", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.overlay = "quit"

        @kb.add("y", filter=in_quit)
        def _(event: KeyPressEvent) -> None:
            self.quitting = True
            event.app.exit()

        @kb.add("n", filter=in_quit)
        @kb.add("escape", filter=in_quit, eager=True)
        @kb.add("c-c", filter=in_quit)
        def _(event: KeyPressEvent) -> None:
            self.overlay = None

        @kb.add("y", filter=in_confirm)
        def _(event: KeyPressEvent) -> None:
            option = self.confirming
            self._close_confirm()
            if option is not None and self.decision is not None and not self.sending:
                self.choose(option, confirmed=True)

        @kb.add("n", filter=in_confirm)
        @kb.add("escape", filter=in_confirm, eager=True)
        @kb.add("c-c", filter=in_confirm)
        def _(event: KeyPressEvent) -> None:
            self._close_confirm()
            self.buffer.reset()  # (what chose it is gone: the next choice starts afresh)
            self.message = ("class:info", "not played: choose a move")

        for key in ("escape", "q", "f1", "?", "enter"):
            # eager: Esc would otherwise wait a second for an Alt sequence it could begin
            kb.add(key, filter=in_help, eager=True)(self._close_overlay)

        @kb.add("up", filter=in_help)
        def _(event: KeyPressEvent) -> None:
            self.help_scroll = max(0, self.help_scroll - 1)

        @kb.add("down", filter=in_help)
        def _(event: KeyPressEvent) -> None:
            self.help_scroll = min(max(0, getattr(self, "help_lines", 0) - 3), self.help_scroll + 1)

        @kb.add("pageup", filter=in_help)
        def _(event: KeyPressEvent) -> None:
            self.help_scroll = max(0, self.help_scroll - 15)

        @kb.add("home", filter=in_help)
        def _(event: KeyPressEvent) -> None:
            self.help_scroll = 0

        @kb.add("end", filter=in_help)
        def _(event: KeyPressEvent) -> None:
            self.help_scroll = max(0, getattr(self, "help_lines", 0) - 3)

        @kb.add("pagedown", filter=in_help)
        @kb.add("space", filter=in_help)
        def _(event: KeyPressEvent) -> None:
            self.help_scroll = min(max(0, getattr(self, "help_lines", 0) - 3), self.help_scroll + 15)

        can_again = Condition(self._can_play_again)
        asking_again = Condition(lambda: self.asking_again)

        @kb.add("a", filter=over & can_again)
        def _(event: KeyPressEvent) -> None:
            self.asking_again = True  # (asked once more: see AGAIN_QUESTION)

        @kb.add("enter", filter=over)
        @kb.add("q", filter=over)
        @kb.add("escape", filter=over)
        @kb.add("c-c", filter=Condition(lambda: self.over and self.overlay is None))  # summary up or not
        def _(event: KeyPressEvent) -> None:
            if event.app.future is not None and not event.app.future.done():  # a second key is no error
                event.app.exit()

        @kb.add("<any>", filter=over | in_help | in_quit | in_confirm)
        def _(event: KeyPressEvent) -> None:
            """Swallow other keys on full-screen pages."""

        # (after the bindings above: of two bindings for one key, the one added last is used)
        @kb.add("enter", filter=over & can_again & asking_again)
        def _(event: KeyPressEvent) -> None:
            self.wants_again = True
            if event.app.future is not None and not event.app.future.done():
                event.app.exit()

        @kb.add("<any>", filter=over & asking_again)
        def _(event: KeyPressEvent) -> None:
            """Any other key answers no to "play again?": the screen offers it again."""
            self.asking_again = False

        return kb

    def _close_overlay(self, event: KeyPressEvent) -> None:
        self.overlay = None


@functools.lru_cache(maxsize=4 * MAX_LOG)
def _wrapped_entry(style: str, text: str, width: int) -> tuple[Fragments, ...]:
    """One log entry as display lines ``width`` wide (cached: the whole log is drawn each time)."""
    return tuple(split_lines(wrap([(style, text.replace("\n", " "))], width, "  ")))


def _trim(fragments: Fragments) -> Fragments:
    """Drop the final newline, which would draw an empty line under a panel."""
    if fragments and fragments[-1][1].endswith("\n"):
        fragments[-1] = (fragments[-1][0], fragments[-1][1][:-1])
    return fragments


def screen_text(app: Application[Any], width: int = 80, height: int = 24) -> str:
    """Draw ``app``'s layout into a ``width`` x ``height`` grid and return it as text (for tests, docs)."""
    screen = Screen(default_char=Char(" ", ""), initial_width=width, initial_height=height)
    app.render_counter += 1  # controls cache their text per render: this is a new one
    before = getattr(app, "fixed_size", None)
    app.fixed_size = (width, height)  # type: ignore[attr-defined]  # what the console plans for
    with set_app(app):
        app.layout.container.write_to_screen(
            screen,
            MouseHandlers(),
            WritePosition(0, 0, width, height),
            parent_style="",
            erase_bg=False,
            z_index=None,
        )
        screen.draw_all_floats()
    app.fixed_size = before  # type: ignore[attr-defined]
    rows = []
    for y in range(height):
        row = screen.data_buffer[y]
        rows.append("".join(row[x].char for x in range(width)).rstrip())
    return "\n".join(rows)


def _pending(view: TableView) -> Any:
    try:
        return view.game.pending(view.state)
    except Exception:
        return None


_NUMBERS = re.compile(r"\[(-?\d+(?:, -?\d+)+)\]")


def named_numbers(text: str, names: list[str]) -> str:
    """``tokens [0, 2, 1]`` -> ``tokens: alice 0, bob 2, carol 1``: a list with one number per seat,
    in a game's line, read with the players' names (never a Python list on screen)."""

    def one(match: re.Match[str]) -> str:
        values = match.group(1).split(", ")
        if len(values) > len(names):
            return match.group(0).replace("[", "").replace("]", "")
        return ", ".join(f"{names[i]} {v}" for i, v in enumerate(values))

    return re.sub(r" \[", " [", _NUMBERS.sub(one, text))
