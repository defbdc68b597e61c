"""A whole game of each game in a real 80×24 terminal, and a terminal too small to play in.

A private tmux server runs ``fairdeck play GAME --bots N`` (real peer processes). At every decision
the captured screen must show what a player needs to decide: whose turn it is (the ``now:`` line),
the player's hand, the game's essential line (Love Letter's pile and set-aside card, Regicide's
enemy, Rebel Princess's Round card and trick), the last events (the log, with lines in it) and the
legal moves — all within 80 columns and 24 rows. Round summaries are dismissed with Enter. The
game must end with the game-over screen and a clean audit.

At 40×12 the console says the terminal is too small (and how large it must be) instead of drawing
a table with pieces missing; once the window is made larger the table appears.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.tmux_support import FAIRDECK, Terminal, _decision, dismiss_summary, moved_on, wait_decision

PATIENCE = 900.0

ESSENTIAL = {
    "loveletter": re.compile(r"pile \d+ cards? · set aside: .* tokens win · now: "),
    "regicide": re.compile(r"^Enemy \d+/12: .* health \d+/\d+", re.MULTILINE),
    # the Round card (before the first one, the choice of a Princess, each with her power)
    "rebelprincess": re.compile(r"^Round \d+/\d+: |keep [A-Z].*: .*\((before|after|when)", re.MULTILINE),
}
HAND = re.compile(r"^(your hand: \S|\w[\w ]* \(\d+\): )", re.MULTILINE)


def _log_lines(screen: str) -> list[str]:
    """The lines under the log's rule, up to the moves' heading."""
    after = screen.split("── log", 1)[1].split("\n", 1)[1]
    return [line for line in after.split("\n── ", 1)[0].splitlines() if line.strip()]


def _check_decision(game: str, screen: str) -> None:
    lines = screen.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines), screen
    assert "now: " in screen, screen  # whose turn
    assert HAND.search(screen), screen  # the hand
    assert ESSENTIAL[game].search(screen), screen  # the trick / enemy / pile
    assert _log_lines(screen), screen  # the last events
    if game == "rebelprincess" and "to play" in screen.split("now: ", 1)[1].split("\n", 1)[0]:
        assert re.search(r"^trick", screen, re.MULTILINE), screen


@pytest.mark.parametrize(
    ("game", "argv"),
    [
        ("loveletter", ["--bots", "3"]),
        ("regicide", ["--bots", "1"]),
        ("rebelprincess", ["--bots", "3", "--option", "rounds=3"]),
    ],
)
def test_a_whole_game_at_80x24_shows_the_essentials_at_every_decision(
    terminal: Terminal, game: str, argv: list[str]
) -> None:
    session = "play"
    terminal.run(session, [*FAIRDECK, "play", game, *argv])
    decisions = summaries = 0
    over = "══ Game over ══"

    def ready(s: str) -> bool:
        return _decision(s) or over in s or "Press Enter to go on." in s

    text = terminal.wait(session, ready, PATIENCE)
    while over not in text:
        if "Press Enter to go on." in text:
            summaries += 1
            assert "is over" in text, text
            text = dismiss_summary(terminal, session, text)
        else:
            _check_decision(game, text)
            decisions += 1
            terminal.keys(session, "Enter")
            text = terminal.wait(session, moved_on(text))
        if not ready(text):
            text = terminal.wait(session, ready, PATIENCE)
    assert decisions >= 3
    if game != "regicide":
        assert summaries >= 1  # every round's end was shown until dismissed
    assert "Python" not in text and "[" not in text.split("log:")[0]  # no Python list on the screen
    terminal.keys(session, "Enter")
    after = terminal.wait(session, lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
    assert "audit: clean" in after and "FAIRDECK-EXIT=0" in after, after


def test_a_terminal_too_small_says_so_then_the_table_appears(terminal: Terminal) -> None:
    session = "small"
    terminal.run(session, [*FAIRDECK, "play", "loveletter", "--bots", "3"], width=40, height=12)
    small = terminal.wait(session, lambda s: "too small" in s, PATIENCE)
    small = " ".join(small.split())  # (40 columns wrap the lines)
    assert "The terminal is too small" in small and "40×12" in small and "needs at least 60 columns" in small
    # too narrow, it names a size that shows the table whole, counted at that width (not at 40
    # columns, where every line wraps): the size it names is enough
    found = re.search(r"\((\d+)×(\d+) shows it whole\)", small)
    assert found is not None, small
    width, height = found.groups()
    assert int(width) == 80 and int(height) <= 24, small
    terminal.tmux("resize-window", "-t", session, "-x", width, "-y", height)
    table = wait_decision(terminal, session, patience=120)  # (a size too small would never show it)
    assert "now: " in table and "── log" in table
    terminal.keys(session, "C-c")
    terminal.wait(session, lambda s: "Leave the table?" in s)
    terminal.keys(session, "y")
    terminal.wait(session, lambda s: "FAIRDECK-EXIT=" in s)


def test_a_bots_only_table_watched_on_a_terminal_shows_each_round_s_summary(terminal: Terminal) -> None:
    session = "bots"
    terminal.run(session, [*FAIRDECK, "play", "loveletter", "--bots", "4"], width=120, height=40)
    summary = terminal.wait(session, lambda s: "Round 1 is over:" in s, PATIENCE)
    assert "The first to" in summary and "tokens wins the game" in summary
    done = terminal.wait(session, lambda s: "FAIRDECK-EXIT=" in s, PATIENCE)
    assert "FAIRDECK-EXIT=0" in done and "audit: clean" in done
