"""How the table screen shares its rows, so that what a player needs is never cut.

The table screen is, top to bottom: the seats, the board, the hand, the log (under its rule), the
legal moves (under their heading); the title, the input line and the message line take three more
rows. At 80×24 not everything fits, so :func:`make_plan` gives rows in this order:

1. the seats, the board's essential lines (whose turn; the current trick, the enemy: any line the
   game's presentation draws with the ``class:now`` or ``class:key-line`` style, plus its first
   line), the hand on one line, at least 3 moves and 3 log lines — if even that does not fit, the
   plan says the terminal is too small (and how large it must be) instead of cutting anything;
2. the rest of the board;
3. the log, up to 6 lines;
4. the hand in full (each card with its effect), when the game draws it so;
5. the moves, up to 8;
6. the log takes every row left.

Whatever is cut is still reachable and says so: the moves show ``↓ N more below`` (the arrows
scroll them), the log's rule shows ``↑ N earlier lines: PgUp`` (PgUp/PgDn page through every line,
Home/End go to the first and the newest).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .table import Fragments

MIN_COLUMNS = 60
"""Narrower than this, seat rows and moves cannot be read: the terminal is too small."""
MIN_MOVES, MIN_LOG, LOG_BEFORE_HAND, MAX_MOVES = 3, 3, 6, 8
ESSENTIAL_STYLES = ("class:now", "class:key-line")
"""Board lines drawn with one of these styles are never cut."""


@dataclass
class Plan:
    """The rows of each section for one drawing, and the lines of the sections drawn as they are."""

    seats: list[Fragments] = field(default_factory=list)
    board: list[Fragments] = field(default_factory=list)
    hand: list[Fragments] = field(default_factory=list)
    compact_hand: bool = False
    log_rows: int = 1
    menu_rows: int = 1
    too_small: bool = False
    needs: tuple[int, int] = (MIN_COLUMNS, 24)
    """The least (columns, rows) that show this table without cutting an essential line."""
    message_rows: int = 1
    """The message line's rows under the input: two for a refusal's reason too long for one."""


def _essential(line: Fragments) -> bool:
    return any(style.startswith(ESSENTIAL_STYLES) for style, _ in line)


def _cut_board(board: list[Fragments], rows: int) -> list[Fragments]:
    """The board in at most ``rows`` lines: the essential ones always, then others in order."""
    if len(board) <= rows:
        return board
    keep = {i for i, line in enumerate(board) if _essential(line)} or {len(board) - 1}
    keep.add(0)
    for i in range(len(board)):
        if len(keep) >= rows:
            break
        keep.add(i)
    return [line for i, line in enumerate(board) if i in keep]


def make_plan(
    columns: int,
    rows: int,
    seats: list[Fragments],
    board: list[Fragments],
    hand: list[Fragments],
    compact: list[Fragments],
    options: int,
) -> Plan:
    """Share ``rows`` (the table screen's rows, without title, input and message lines) among the
    sections; ``options`` is how many moves there are to show. See the module docstring."""
    board = [line for line in board if line] or board
    available = rows - 2  # the log's rule and the moves' heading
    board_min = len(_cut_board(board, 0)) if board else 0
    if len(hand) <= len(compact):
        compact = hand
    base = len(seats) + board_min + len(compact)
    menu = min(options, MIN_MOVES)
    # rows for the fewest moves any decision shows, whether one is up or not: the size it names must
    # still do when the next decision comes
    needs = (MIN_COLUMNS, base + MIN_MOVES + MIN_LOG + 2 + 3)
    if columns < MIN_COLUMNS or base + menu + MIN_LOG > available:
        return Plan(too_small=True, needs=needs)
    left = available - base - menu - MIN_LOG
    board_rows = min(len(board), board_min + left)
    left -= board_rows - board_min
    log = MIN_LOG + min(left, LOG_BEFORE_HAND - MIN_LOG)
    left -= log - MIN_LOG
    shown_hand = compact
    if len(hand) > len(compact) and len(hand) - len(compact) <= left:
        left -= len(hand) - len(compact)
        shown_hand = hand
    more = min(left, min(options, MAX_MOVES) - menu)
    menu += max(0, more)
    left -= max(0, more)
    log += left
    return Plan(
        seats=seats,
        board=_cut_board(board, board_rows),
        hand=shown_hand,
        compact_hand=shown_hand is not hand,
        log_rows=log,
        menu_rows=menu,
        needs=needs,
    )
