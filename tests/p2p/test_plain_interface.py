"""The line-oriented interface (``--plain``) words its moves as the console does.

A secret choice is described the same to the table whatever it is ("Everyone secretly keeps one of
their two Princesses."), so the plain list must tell the options apart by their cards, and the
number typed must send the move that was printed under it.
"""

from __future__ import annotations

import asyncio
import io

from engine.rebelprincess.princesses import BY_KEY
from fairdeck.plainui import PlainUI
from tests.p2p.test_console_support import MemNode


def _ask(node: MemNode, answers: list[str]) -> list[str]:
    out = io.StringIO()
    replies = iter(answers)
    ui = PlainUI(node, out, read_line=lambda: next(replies))  # type: ignore[arg-type]
    node.on_decide = None  # the stand-in node would call it without awaiting: asked below instead

    async def main() -> None:
        node.start()
        assert node.party.waiting_for_me() is not None
        await ui.on_decide("princess", node.party.legal_moves())

    asyncio.run(main())
    return out.getvalue().splitlines()


def test_a_secret_choice_is_listed_by_its_cards_and_the_number_sends_that_move() -> None:
    node = MemNode("rebelprincess", 4, seed=5)
    lines = _ask(node, ["3", "2"])  # 3 is out of range: refused, asked again
    assert "Everyone secretly keeps one of their two Princesses." in lines
    seats = [line for line in lines if line.startswith("seats: ")]  # who sits where, said once
    assert len(seats) == 1 and f"seat {node.party.seat} (you)" in seats[0], lines
    listed = [line for line in lines if line.startswith(("   1. ", "   2. "))]
    assert len(listed) == 2 and len(set(listed)) == 2 and all("keep " in line for line in listed)
    assert "  type a number from 1 to 2 ('?' for card help, 'say TEXT' to chat)" in lines
    (sent,) = node.sent
    face = node.party.known_faces()[sent["keep"]]
    assert listed[1].startswith(f"   2. keep {BY_KEY[face.partition('-')[2]].name}: "), (face, listed)


def test_the_games_lines_name_every_seat_and_ours_is_you() -> None:
    from p2p.node import Notice

    node = MemNode("loveletter", 4, seed=5)
    out = io.StringIO()
    ui = PlainUI(node, out, read_line=lambda: "1")  # type: ignore[arg-type]
    names = [p.name for p in node.party.table.parties]
    me = node.party.seat
    other = (me + 1) % 4
    ui.show(Notice("accepted", f"seat {other} plays the Guard on seat {me}, guessing the Priest"))
    assert out.getvalue().splitlines() == [
        f"seat {other} ({names[other]}) plays the Guard on seat {me} (you), guessing the Priest"
    ]
