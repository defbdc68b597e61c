"""A line-oriented interface for a person at a table (``--plain``, or when there is no terminal).

It prints what happens in words, shows the table as the player's seat sees it when a decision is
due, and reads the choice as a number from the list of legal moves (``?`` shows the rules of every
card, ``say TEXT`` chats).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, TextIO

from engine.core import Event, IllegalMove
from p2p.node import Node, Notice


def move_words(node: Node, move: dict[str, Any]) -> str:
    """A move in words, as the event would be described to the table."""
    party = node.party
    assert party is not None
    table = party.table
    seat = party.seat if party.seat is not None else 0
    try:
        text = table.game.describe(table.state, Event.move(seat, move))
    except Exception:
        text = ""
    return text or ", ".join(f"{k}={v}" for k, v in move.items())


class PlainUI:
    """Prints notices and asks for moves on a text stream."""

    def __init__(self, node: Node, out: TextIO = sys.stdout, read_line: Any = None) -> None:
        self.node = node
        self.out = out
        self.read_line = read_line or (lambda: input("> "))
        node.on_decide = self.on_decide

    def say(self, text: str) -> None:
        """Print one line."""
        print(text, file=self.out, flush=True)

    async def show_notices(self) -> None:
        """Print notices until the game ends."""
        while True:
            notice: Notice = await self.node.notices.get()
            if notice.kind in ("accepted",) and notice.text:
                self.say(notice.text)
            elif notice.kind in ("info", "status", "rejected", "evidence", "lobby") and notice.text:
                self.say(f"* {notice.text}")
            elif notice.kind == "chat":
                self.say(f"<seat {notice.data.get('seat')}> {notice.text}")
            elif notice.kind == "ended":
                self.say(f"* game {notice.text}")
                return

    async def on_decide(self, prompt: str, moves: list[dict[str, Any]]) -> None:
        """Show the table and the legal moves, read a choice, send it."""
        node = self.node
        party = node.party
        assert party is not None
        table = party.table
        self.say("")
        self.say(table.game.render(table.state, party.seat, party.known_faces()))
        for number, move in enumerate(moves, 1):
            self.say(f"  {number:2d}. {move_words(node, move)}")
        while True:
            try:
                line = (await asyncio.to_thread(self.read_line)).strip()
            except EOFError:
                self.say("* input closed: no more moves will be made from here")
                return
            if line in ("?", "help"):
                for face in dict.fromkeys(table.game.deck()):
                    self.say(f"  {table.game.card_text(face)}")
                continue
            if line.startswith("say "):
                await node.chat(line[4:])
                continue
            if not line.isdigit() or not 1 <= int(line) <= len(moves):
                self.say(f"  type a number from 1 to {len(moves)} ('?' for card help, 'say TEXT' to chat)")
                continue
            try:
                await node.decide(moves[int(line) - 1])
            except IllegalMove as exc:
                self.say(f"  not allowed: {exc}")
                continue
            return
