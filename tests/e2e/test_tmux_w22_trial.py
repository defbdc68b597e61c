"""A newcomer's trial (w22) in a real 80x24 terminal (a private tmux server, real peer processes):
a refused move's long reason read whole on two lines (it was cut at the option's name), and text
typed in the opener's lobby answered in a player's words (it said ``nothing to choose now (the
table)``), and, in the plain interface, a line typed before the moves were shown set aside instead of
being played blind at the next decision."""

from __future__ import annotations

import re

from tests.e2e.tmux_support import FAIRDECK, Terminal, _decision, run_processes

PATIENCE = 900.0
EXIT = "FAIRDECK-EXIT="
REASON = "not allowed: yielding is off in this solo game (the table's option solo_yield_allowed)"


def test_a_long_refusal_is_read_whole_at_80_columns(terminal: Terminal) -> None:
    session = "solo"
    terminal.run(session, [*FAIRDECK, "play", "regicide", "--solo"])
    terminal.wait(session, _decision, PATIENCE)
    terminal.keys(session, "yield")
    terminal.keys(session, "Enter")
    text = terminal.wait(session, lambda s: "not allowed:" in s, PATIENCE)
    lines = text.rstrip("\n").splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines), text
    said = " ".join(" ".join(lines[-2:]).split())
    assert said == REASON, text
    assert "── your turn" in text and "> yield" in text, text
    terminal.keys(session, "C-c")
    terminal.wait(session, lambda s: "Leave the table?" in s, PATIENCE)
    terminal.keys(session, "y")
    after = terminal.wait(session, lambda s: EXIT in s, PATIENCE)
    assert "FAIRDECK-EXIT=" in after
    assert not run_processes(str(terminal.home)), "a process of the game is still running"


def test_text_typed_in_the_lobby_is_answered_in_words(terminal: Terminal) -> None:
    session = "lobby"
    argv = [*FAIRDECK, "host", "loveletter", "--seats", "3", "--bind", "127.0.0.1", "--no-advertise"]
    terminal.run(session, argv)
    terminal.wait(session, lambda s: "2 seats free" in s, PATIENCE)
    terminal.keys(session, "guard")
    terminal.keys(session, "Enter")
    # (whatever the console answers: "nothing to choose now (the table)" was the old answer)
    text = terminal.wait(session, lambda s: "no game yet" in s or "nothing to choose" in s, PATIENCE)
    assert "no game yet: it starts when every seat is taken (2 free); 'say TEXT' chats" in text, text
    assert "(the table)" not in text, text
    terminal.keys(session, "C-c")
    terminal.wait(session, lambda s: "Leave" in s, PATIENCE)
    terminal.keys(session, "y")
    terminal.wait(session, lambda s: EXIT in s, PATIENCE)
    assert not run_processes(str(terminal.home)), "a process of the table is still running"


def test_a_plain_line_typed_early_is_not_played_blind(terminal: Terminal) -> None:
    session = "plain"
    terminal.run(session, [*FAIRDECK, "play", "loveletter", "--bots", "1", "--plain"], height=40)
    terminal.keys(session, "1")  # at once: long before the game has shown any move
    terminal.keys(session, "Enter")
    # (the old way: the "1" answered the first prompt at once, "> seat 0 (you) plays the ...")
    blind = re.compile(r"^> seat \d \(you\) plays", re.MULTILINE)
    early = "typed before these moves were shown"
    text = terminal.wait(session, lambda s: early in s or bool(blind.search(s)))
    assert "  not played, typed before these moves were shown: '1'" in text, text
    after = text.split("not played, typed before", 1)[1]
    assert "plays the" not in after.split("\n", 1)[1], text  # nothing went out: the decision waits
    terminal.keys(session, "quit")
    terminal.keys(session, "Enter")
    terminal.wait(session, lambda s: "leave the table? [y/N]" in s, PATIENCE)
    terminal.keys(session, "y")
    terminal.keys(session, "Enter")
    terminal.wait(session, lambda s: EXIT in s, PATIENCE)
    assert not run_processes(str(terminal.home)), "a process of the game is still running"
