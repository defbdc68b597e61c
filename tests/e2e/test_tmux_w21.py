"""A newcomer's trial (w21) in a real 80x24 terminal (a private tmux server, real peer processes):
``--help`` read whole at 80 columns, a game's name begun and suggested, a Princess explained as she
is chosen (and her long move cut with a mark), and the game-over screen saying what ``a`` does."""

from __future__ import annotations

from fairdeck.console.app import AGAIN_WORDS
from tests.e2e.tmux_support import FAIRDECK, Terminal, _decision, play_to_game_over, run_processes

PATIENCE = 900.0
EXIT = "FAIRDECK-EXIT="


def test_play_help_reads_whole_in_an_80_column_terminal(terminal: Terminal) -> None:
    session = "help"
    terminal.run(session, [*FAIRDECK, "play", "--help"], height=60)
    text = terminal.wait(session, lambda s: EXIT in s, PATIENCE)
    assert "FAIRDECK-EXIT=0" in text, text
    lines = text[: text.index(EXIT)].splitlines()
    # the terminal wrapped nothing: every option of every game is whole on its line
    for option in ("final_tie_policy=none,", "first_player=none", "blind_mans_bluff=pass_remaining,"):
        assert any(option in line for line in lines), (option, text)
    assert any(line.startswith("  rebelprincess: rounds=5, ") for line in lines), text
    assert "a table for you alone is --solo." in text


def test_the_start_of_a_games_name_is_suggested(terminal: Terminal) -> None:
    session = "love"
    terminal.run(session, [*FAIRDECK, "play", "love"])
    text = terminal.wait(session, lambda s: EXIT in s, PATIENCE)
    assert "FAIRDECK-EXIT=2" in text and "did you mean loveletter?" in text.replace("\n", ""), text
    assert not run_processes(str(terminal.home))


def test_a_princess_is_explained_as_she_is_chosen(terminal: Terminal) -> None:
    session = "princess"
    terminal.run(session, [*FAIRDECK, "play", "rebelprincess", "--bots", "3"])
    text = terminal.wait(session, lambda s: _decision(s) and "keep " in s, PATIENCE)
    log = text.split("── log", 1)[1]
    assert log.count("\nabout ") == 2, text  # what each of the two Princesses does
    menu = [line for line in text.splitlines() if "keep " in line and line.lstrip("▶ ")[:1].isdigit()]
    assert len(menu) == 2 and all(len(line) < 80 for line in menu), menu
    assert all(line.endswith(")") or line.endswith("…") for line in menu), menu
    terminal.keys(session, "C-c")
    terminal.wait(session, lambda s: "Leave the table?" in s, PATIENCE)
    terminal.keys(session, "y")
    after = terminal.wait(session, lambda s: EXIT in s, PATIENCE)
    assert "your bots stopped with you" in after.replace("\n", ""), after
    assert not run_processes(str(terminal.home)), "a process of the game is still running"


def test_the_game_over_screen_says_what_a_does(terminal: Terminal) -> None:
    session = "over"
    terminal.run(session, [*FAIRDECK, "play", "regicide", "--bots", "1"])
    text = play_to_game_over(terminal, session)
    assert "Press a to play again with the same players, Enter to leave" in text, text
    assert f"({AGAIN_WORDS})" in text, text
    terminal.keys(session, "Enter")
    after = terminal.wait(session, lambda s: EXIT in s, PATIENCE)
    assert "FAIRDECK-EXIT=0" in after and "audit: clean" in after, after
    assert not run_processes(str(terminal.home)), "a process of the game is still running"
