"""A line-oriented interface for a person at a table (``--plain``, or when there is no terminal).

It prints what happens in words, shows the table as the player's seat sees it when a decision is
due, and reads the choice as a number from the list of legal moves, or words of one as the console
takes them (``play guard 2 priest``); ``?`` (or ``help``) tells these commands and the rules of every
card, ``say TEXT`` chats, ``table`` shows the table again and ``quit`` leaves. A question with only
one honest answer (the game's ``automatic`` prompts, as the console has them) is answered for the
person, in one line. After a game that ended by its rules it asks ``play again with the same
players? [y/N]`` (:meth:`PlainUI.again`); the same interface, and the same input, serve every game
of a series.

Whatever another party or the log chose — names, chat, notices, an abandon reason — is printed
through :func:`p2p.safetext.safe_text`, one inert line each: a peer cannot fake a line or send
escape sequences to this terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import select
import sys
import threading
from typing import Any, TextIO

from engine.core import Event, Game, IllegalMove
from engine.present import (
    FILLER,
    TableView,
    name_seats,
    player_words,
    presentation,
    quiet_parts,
    seat_label,
    waiting_words,
)
from fairdeck.console.moves import (
    ANSWERED_WORDS,
    MoveOption,
    explain_refusal,
    forced_option,
    match,
    pick,
    word_moves,
)
from p2p.node import Node, Notice
from p2p.safetext import safe_text
from replay.replay import closing_words

PLAIN_HINT = "  (type a move's number or its words, then Enter; '?' for help, 'quit' leaves)"
"""Said under the first list of moves of a game: what the ``> `` prompt wants (an example that
fits one of the moves listed follows it: :func:`example_words`)."""

QUIT_WORDS = ("quit", "exit")
"""Typed alone at the ``> `` prompt: leave the table."""

TABLE_WORDS = ("table",)
"""Typed alone at the ``> `` prompt: show the table and the moves again."""


def example_words(options: list[MoveOption]) -> tuple[str, MoveOption] | None:
    """Words to show as an example of a typed move, and the move they pick: words that
    :func:`fairdeck.console.moves.match` takes for exactly that move among ``options`` (so the
    example always works), or ``None`` if no move can be picked by words.

    Of every move's words (filler left out) the trailing ones that are not needed to tell it apart
    are dropped, never its first two (``play guard``); the move whose example keeps the most words
    is shown, as it teaches the most (a Guard's guess: ``play guard 2 priest``)."""
    best: tuple[list[str], MoveOption] | None = None
    for option in options:
        words = [word for word in option.tokens if word not in FILLER]
        if not words:
            continue
        verb = words[0]
        if len(verb) > 4 and verb.endswith("s") and verb[-2] not in "se":
            words[0] = verb[:-1]  # "play", as one types it ("plays" is what is shown); still a prefix
        if match(" ".join(words), options) != [option]:
            continue  # (cannot be told apart by its words: only its number picks it)
        for index in range(len(words) - 1, 1, -1):  # the last words first: the first two stay
            trial = words[:index] + words[index + 1 :]
            if match(" ".join(trial), options) == [option]:
                words = trial
        if best is None or len(words) > len(best[0]):
            best = (words, option)
    return (" ".join(best[0]), best[1]) if best is not None else None


def help_lines(options: list[MoveOption], game: Game) -> list[str]:
    """What ``?`` (or ``help``) prints: how to choose a move, the other commands, how to quit, and
    then the rules of every card of the game."""
    example = example_words(options)
    words = f", e.g. {example[0]!r} picks {example[1].number}" if example is not None else ""
    told = [
        (f"a number, 1 to {len(options)}", "play that move of the list"),
        ("words of a move", f"play the move they fit, in order{words}"),
        ("say TEXT", "chat to everyone at the table"),
        (TABLE_WORDS[0], "show the table and your moves again"),
        (QUIT_WORDS[0], "leave the table (asked first; closing the input, Ctrl-D, leaves at once)"),
        ("? or help", "this help"),
    ]
    width = max(len(what) for what, _ in told)
    lines = [f"  {what:<{width}}  {does}" for what, does in told] + ["  the cards:"]
    texts = []
    for face in dict.fromkeys(game.deck()):
        try:
            texts.append(safe_text(game.card_text(face)))
        except Exception:  # (words must never stop the game: a card with no text is left out)
            continue
    # two copies of one card (a game's two Jokers, say) read the same: said once
    lines += [f"    {text}" for text in dict.fromkeys(texts)]
    return lines


class SafeLogFormatter(logging.Formatter):
    """Log records whose message is one inert line: a record may quote what a peer sent."""

    def format(self, record: logging.LogRecord) -> str:
        """The record, its message made safe with :func:`safe_text`."""
        record = logging.makeLogRecord(record.__dict__)
        record.msg, record.args = safe_text(record.getMessage()), None
        return super().format(record)


class _RawLines:
    """Lines of the standard input read from its file descriptor, below Python's buffered reader.

    The reading thread is a daemon that may still wait for a line when the game ends; were it
    blocked inside ``input()``, it would hold the buffered reader's lock and the interpreter would
    abort at exit (``Fatal Python error: _enter_buffered_busy``) instead of ending cleanly."""

    def __init__(self, stream: Any, out: TextIO) -> None:
        self.stream, self.out = stream, out
        self.rest = b""
        self.prompting = False
        """The ``> `` prompt is on the screen and no line has answered it yet."""

    def read(self) -> str:
        """The next line without its end; ``EOFError`` once the input is closed."""
        self.out.write("> ")
        self.out.flush()
        self.prompting = True
        try:
            return self._line()
        finally:
            self.prompting = False

    def typed_ahead(self) -> list[str]:
        """The whole lines typed at a terminal before a prompt asked for them (while others played,
        or in the lobby), taken out of the input so that none is read as an answer to a question
        the person has not seen yet. Input that is no terminal (a pipe, a file) is a script written
        ahead on purpose: nothing is taken from it."""
        try:
            fd = self.stream.fileno()
            if not os.isatty(fd):
                return []
            while select.select([fd], [], [], 0)[0]:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                self.rest += chunk
        except (AttributeError, OSError, ValueError):
            return []
        *lines, self.rest = self.rest.split(b"\n")
        return [text for line in lines if (text := line.decode("utf-8", "replace").rstrip("\r").strip())]

    def _line(self) -> str:
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):  # not a real file (tests): the plain way
            line = self.stream.readline()
            if not line:
                raise EOFError from None
            return str(line).rstrip("\r\n")
        while b"\n" not in self.rest:
            chunk = os.read(fd, 4096)
            if not chunk:
                if self.rest:
                    line, self.rest = self.rest, b""
                    return line.decode("utf-8", "replace").rstrip("\r")
                raise EOFError
            self.rest += chunk
        line, _, self.rest = self.rest.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")


class PlainUI:
    """Prints notices and asks for moves on a text stream."""

    def __init__(self, node: Node | None, out: TextIO = sys.stdout, read_line: Any = None) -> None:
        self.out = out
        self._reader: _RawLines | None = None  # the standard input's, unless told another reader
        if read_line is None:
            self._reader = _RawLines(sys.stdin, out)
            read_line = self._reader.read
        self.read_line = read_line
        self.left: str | None = None
        """Why the person left before the game ended (the input closed), else ``None``."""
        self.offer_again = False
        """Whether "play again?" is asked at the end (the command says so)."""
        self.series: Any = None
        """The series this game belongs to (:class:`fairdeck.series.Series`), if any."""
        self.leaving_ends_game: Any = lambda: False
        """Whether leaving ends the game for good (the command sets it, as for the console)."""
        self._last_state: Any = None
        """The state after the last entry printed: what the next one caused is said from it."""
        self._told_seats = b""  # the game (its id) whose seats we have named
        self._answered: str | None = None
        """The line the table will read for a move answered for the person, until it is printed:
        that line then says so (one line, not the notice and the narration of the same move)."""
        if node is not None:
            self.attach(node)

    def attach(self, node: Node, add_bot: Any = None) -> None:
        """Serve ``node`` (its decisions come here); the next game of a series attaches its new node."""
        self.node = node
        self.left = None
        self._answered = None  # (a line of the last game's can never come now)
        self._last_state = None
        node.on_decide = self.on_decide

    def say(self, text: str) -> None:
        """Print one line (on a line of its own: a ``> `` prompt still waiting is ended first, so
        that what comes meanwhile, such as "no rematch: …", is not read as typed after it)."""
        if self._reader is not None and self._reader.prompting:
            self._reader.prompting = False
            self.out.write("\n")
        print(text, file=self.out, flush=True)

    def names(self) -> list[str]:
        """The parties' names, safe to print (none before the game starts)."""
        party = self.node.party
        return [safe_text(p.name, 40) for p in party.table.parties] if party is not None else []

    def show(self, notice: Notice) -> bool:
        """Print one notice (its text made safe once, here); ``True`` once the game has ended."""
        raw = notice.text
        said = self._answered
        if notice.kind == "accepted" and said is not None and raw.startswith(said):
            # the forced move's own line says it was answered for the person, right after its
            # words (an entry's line may go on with what followed: "; seat 0 … is out")
            self._answered = None
            raw = f"{said} ({ANSWERED_WORDS}){raw[len(said) :]}"
        text = safe_text(raw, 2000)
        if notice.kind in ("accepted",) and text:
            party = self.node.party  # every seat by name, ours as "you", as the console says it
            if party is not None:  # (and without the game's noise, as the console says it)
                parts = quiet_parts(text, presentation(party.table.game).noise, keep=party.seat)
                text = name_seats("; ".join(parts), self.names(), party.seat)
            # the node joins an entry's lines with "; ": a line that ends its own sentence needs none
            if text:
                self.say(re.sub(r"(?<=[.!?]); (?=\S)", " ", text))
            self._say_consequences(notice.data.get("state"), text)
        elif notice.kind == "history":  # a resumed game: the last of what happened before
            party = self.node.party
            lines = [line for line in notice.data.get("lines", ()) if isinstance(line, str)][-20:]
            self.say("* the game so far (its last lines):")
            for line in lines:
                said = safe_text(line, 2000)
                self.say(name_seats(said, self.names(), party.seat) if party is not None else said)
        elif notice.kind in ("info", "status", "rejected", "evidence", "lobby") and text:
            self.say(f"* {text}")
        elif notice.kind == "chat":
            seat, names = notice.data.get("seat"), self.names()
            if isinstance(seat, int) and 0 <= seat < len(names):
                who = f"{names[seat]} (seat {seat})"
            else:  # in the lobby there are no seats yet: the name the opener passed on
                who = safe_text(str(notice.data.get("name") or "?"), 40)
            self.say(f"<{who}> {text}")
        elif notice.kind == "ended":
            self.say(f"* game {text}")
            party = self.node.party
            closing = closing_words(party.table, self.names(), party.seat) if party is not None else ""
            if closing:
                self.say(f"* {closing}")
            return True
        return False

    def _say_consequences(self, state: Any, said: str) -> None:
        """What the entry caused that its own line does not say (the game's ``consequences``: the
        damage a play dealt, a card received), as the console says it: ``→ …``."""
        party = self.node.party
        if party is None or state is None:
            return
        table = party.table
        names = self.names()
        view = TableView(table.game, state, party.seat, party.known_faces(), names, inert=safe_text)
        try:
            before = self._last_state
            lines = view.present.consequences(before, state, view) if before is not None else []
        except Exception:  # words must never stop the game
            lines = []
        self._last_state = state
        for line in lines:
            named = name_seats(safe_text(line, 500), names, party.seat)
            if named not in said:  # (the entry's own line may say it already)
                self.say(f"→ {named}")

    async def show_notices(self) -> str | None:
        """Print notices until the game ends (warnings logged meanwhile go to stderr, made safe);
        returns why the person left before the end (the input closed), else ``None``."""
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.WARNING)
        handler.setFormatter(SafeLogFormatter("%(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        try:
            while True:
                notice: Notice = await self.node.notices.get()
                if notice.kind == "left":
                    return self.left
                if self.show(notice):
                    return None
        finally:
            root.removeHandler(handler)

    async def _read(self) -> str:
        """One line from ``read_line``, read in a daemon thread of its own: a line never typed must
        not keep the program from ending (Ctrl-C acts at once, not at the next Enter)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def settle(value: Any, error: BaseException | None) -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)

        def run() -> None:
            try:
                value, error = self.read_line(), None
            except BaseException as exc:  # EOFError, mostly: handed to the waiting task
                value, error = None, exc
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for this line
                loop.call_soon_threadsafe(settle, value, error)

        threading.Thread(target=run, name="read-move", daemon=True).start()
        return await future

    async def again(self) -> str:
        """Ask the person whether to play again with the same players: ``yes`` (``y``), ``no``
        (anything else), or ``left`` (the input closed)."""
        self.say("play again with the same players? [y/N]")
        try:
            line = await self._read()
        except EOFError:
            return "left"
        return "yes" if line.strip().lower() in ("y", "yes") else "no"

    def _chosen(
        self, line: str, options: list[MoveOption], seat: int, faces: Any, prompt: str = ""
    ) -> MoveOption | None:
        """The move ``line`` picks: its number, or words of it as the console takes them (``play
        guard 2 priest``); else ``None``, having said why and what to type."""
        if line.isdigit() and 1 <= int(line) <= len(options):
            return options[int(line) - 1]
        fits = match(line, options) if line and not line.isdigit() else []
        picked = pick(line, options) if fits else None
        if picked is not None:
            return picked
        numbers = f"a number from 1 to {len(options)}"
        typed = safe_text(line, 60)
        if fits:
            listed = ", ".join(str(o.number) for o in fits[:8]) + (", …" if len(fits) > 8 else "")
            self.say(f"  {len(fits)} moves fit {typed!r} ({listed}): type {numbers}, or more words of one")
        elif line and not line.isdigit():
            party = self.node.party
            assert party is not None
            game, state = party.table.game, party.table.state
            why = explain_refusal(line, game, state, seat, faces, options, self.names(), prompt)
            if not why.startswith("no legal move matches"):  # the rule against it, or a card not held
                self.say(f"  {safe_text(why, 300)}: type {numbers}, or words of a move ('?' for help)")
            else:
                self.say(f"  no move fits {typed!r}: type {numbers}, or words of a move ('?' for help)")
        else:
            self.say(f"  type {numbers} ('?' for help, 'say TEXT' to chat)")
        return None

    async def _answer_forced(self, prompt: str, moves: list[dict[str, Any]]) -> bool:
        """Send the only honest answer of a forced question without asking (as the console does);
        ``True`` once sent. Its line of the game then says it was answered for the person."""
        party = self.node.party
        assert party is not None
        table = party.table
        seat = party.seat if party.seat is not None else 0
        faces = party.known_faces()
        _, options = word_moves(table.game, table.state, seat, faces, moves, self.names())
        option = forced_option(table.game, prompt, options)
        if option is None:
            return False
        try:  # the very line the table will read for this move (see show)
            said = table.game.describe(table.state, Event.move(seat, dict(option.move)))
        except Exception:  # wording must never stop the answer
            said = ""
        self._answered = said or None
        if not said:  # no line of the game to mark: say it in one of our own
            self.say(f"({ANSWERED_WORDS}: {safe_text(option.words)})")
        try:
            await self.node.decide(option.move)
        except IllegalMove as exc:  # tried once: the person sees the question and answers it
            self._answered = None
            self.say(f"  could not answer for you: {safe_text(exc)}")
            return False
        return True

    def _show_decision(self, moves: list[dict[str, Any]]) -> list[MoveOption]:
        """Print the table as our seat sees it and the legal moves, numbered; returns the moves."""
        party = self.node.party
        assert party is not None
        table = party.table
        self.say("")
        faces = party.known_faces()
        names = self.names()
        for line in table.game.render(table.state, party.seat, faces).splitlines():
            if line.lower().startswith(("now:", "next:", "your turn to ", "waiting for ")):
                continue  # whose turn: said below in the console's words (once), not the engine's
            self.say(safe_text(line))  # (seat rows keep their columns: no names added)
        view = TableView(table.game, table.state, party.seat, faces, names, inert=safe_text)
        self.say(f"now: {waiting_words(view)}")  # "now: you to play", "now: everyone chooses in secret"
        first = self._told_seats != table.game_id
        if first:  # who sits where, once a game: the rows show numbers
            self._told_seats = table.game_id
            self.say("seats: " + "; ".join(seat_label(i, names, party.seat) for i in range(len(names))))
        # worded as the console words them: a secret choice reads the same whatever it is, so its
        # options are told apart by their cards; two copies of one card are one option
        seat = party.seat if party.seat is not None else 0
        heading, options = word_moves(table.game, table.state, seat, faces, moves, names)
        if heading:
            self.say(safe_text(heading))
        for option in options:
            self.say(f"  {option.number:2d}. {safe_text(option.words)}")
        if first:  # what the "> " below wants, once a game, with words that fit one of these moves
            self.say(PLAIN_HINT)
            example = example_words(options)
            if example is not None:
                self.say(f"  for example {example[0]!r} picks {example[1].number}")
        return options

    async def _sure_to_leave(self) -> bool:
        """Ask before leaving, saying what it means, as the console's box does."""
        if self.leaving_ends_game():
            from fairdeck.commands import helpers_stop  # (the commands import this module)

            party = self.node.party
            stop = helpers_stop(party.table if party is not None else None)  # (bots, or a witness)
            self.say(f"  leaving ends this game for good: {stop}, so it cannot be resumed")
        else:
            self.say("  the game cannot go on without you; `fairdeck resume` brings you back to it")
        self.say("  leave the table? [y/N]")
        return (await self._read()).strip().lower() in ("y", "yes")

    def _leave(self, why: str) -> None:
        """The person leaves the table (the commands end or keep the game, as for the console)."""
        self.left = why
        self.node.notices.put_nowait(Notice("left", why))

    async def on_decide(self, prompt: str, moves: list[dict[str, Any]]) -> None:
        """Show the table and the legal moves, read a choice, send it (a forced answer goes
        without asking: :func:`forced_option`)."""
        if await self._answer_forced(prompt, moves):
            return
        node = self.node
        party = node.party
        assert party is not None
        table = party.table
        seat = party.seat if party.seat is not None else 0
        faces = party.known_faces()
        early = self._reader.typed_ahead() if self._reader is not None else []
        options = self._show_decision(moves)
        if early:  # nothing typed is played blind (as in the console)
            said = ", ".join(repr(safe_text(line, 40)) for line in early[-3:])
            self.say(f"  not played, typed before these moves were shown: {said}")
        while True:
            try:
                line = (await self._read()).strip()
            except EOFError:
                self._leave("input closed")
                return
            if line in ("?", "help"):
                for text in help_lines(options, table.game):
                    self.say(text)
                continue
            if line.lower() in QUIT_WORDS:
                from fairdeck.commands import LEFT_WORDS  # (here: the commands import this module)

                try:
                    sure = await self._sure_to_leave()
                except EOFError:
                    sure = True
                if not sure:
                    self.say("  staying: choose a move ('table' shows them again)")
                    continue
                self._leave(LEFT_WORDS)  # as the console's leaving: not a closed input
                return
            if line.lower() in TABLE_WORDS:
                options = self._show_decision(moves)
                continue
            if line.startswith("say "):
                await node.chat(line[4:])
                continue
            chosen = self._chosen(line, options, seat, faces, prompt)
            if chosen is None:
                continue
            if chosen.caution:  # legal, but it costs the player dear (the Princess): asked first
                self.say(f"  {safe_text(chosen.words)}: this move is allowed, but {chosen.caution}.")
                self.say("  play it? [y/N]")
                try:
                    sure = (await self._read()).strip().lower()
                except EOFError:
                    self._leave("input closed")
                    return
                if sure not in ("y", "yes"):
                    self.say("  not played: choose a move (type 'table' to see them again)")
                    continue
            try:
                await node.decide(chosen.move)
            except IllegalMove as exc:
                self.say(f"  not allowed: {safe_text(player_words(str(exc)))}")
                continue
            return
