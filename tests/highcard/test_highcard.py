"""A fourth game that touches nothing outside its own folder: high card, registered by this test.

It is played through every layer the built-in games use: the trusted dealer, the mental-poker
protocol among in-memory parties (then replayed and audited from the signed log), the console by
pipe input, and real peer processes (``fairdeck play``) that import it through the plug-in hook
``FAIRDECK_EXTRA_GAMES``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from prompt_toolkit.input import PipeInput

import tests.highcard  # registers the game in this process
from engine.dealer import play_trusted
from engine.games import EXTRA_GAMES_VARIABLE, GAMES, make_bot, make_game, presentation_of
from fairdeck.console import ConsoleUI
from p2p.memtable import build_table
from replay.audit import audit_path
from replay.replay import replay_log, text_lines
from tests.e2e.peer_support import FAIRDECK, REPO, run_fairdeck
from tests.highcard.present import HighCardPresentation
from tests.p2p.test_console import ENTER, decision, run_console, screen, until
from tests.p2p.test_console_support import MemNode

PLUGIN = tests.highcard.__name__


def test_the_game_is_registered_with_its_bots_and_presentation() -> None:
    assert "highcard" in GAMES
    game = make_game("highcard", 3)
    assert isinstance(presentation_of(game), HighCardPresentation)
    assert make_bot("highcard", "heuristic", 0).level == "heuristic"
    run = play_trusted(game, [make_bot("highcard", "random", i) for i in range(3)], seed=5)
    result = game.result(run.final)
    assert result["winners"] and max(result["values"]) == result["values"][result["winners"][0]]
    assert game.state_from_dict(run.final.to_dict()) == run.final


def test_a_fair_table_of_high_card_is_replayed_and_audited_clean(tmp_path: Path) -> None:
    table = build_table("highcard", 3, seed=2, shuffle_rounds=2, log_dir=tmp_path)
    table.run()
    table.close()
    logs = sorted(tmp_path.glob("seat*.fdlog"))
    assert len({p.read_bytes() for p in logs}) == 1  # every party signed the same history
    replica = table.parties[0].table
    assert replica.ended == "over" and replica.game.result(replica.state)["winners"]
    lines = list(text_lines(replay_log(logs[0], None)))
    assert lines[0].startswith("highcard: seat 0")
    assert any("the chosen cards are revealed" in line for line in lines)
    report = audit_path(logs[0])
    assert report.exit_code == 0, report.verdict


def test_high_card_is_played_through_the_console_by_pipe_input() -> None:
    async def script(ui: ConsoleUI, keys: PipeInput, node: MemNode) -> None:
        await decision(ui)
        text = screen(ui)
        assert "now: everyone chooses in secret" in text and "── chooses a card" in text
        assert "1  card " in text and "2  card " in text  # the two cards of the hand, by value
        keys.send_text("2" + ENTER)  # the second card of the hand
        await until(lambda: ui.over)
        assert "Game over" in screen(ui)

    node = MemNode("highcard", 2, seed=3)
    run_console(node, script)
    assert len(node.sent) == 1 and node.sent[0]["card"] == node.party.table.state.hands[0][1]
    assert node.party.table.ended == "over"


def test_real_peer_processes_play_high_card_through_the_plugin_hook(tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    scratch.mkdir()
    env = {
        **os.environ,
        "FAIRDECK_HOME": str(home),
        "TMPDIR": str(scratch),
        EXTRA_GAMES_VARIABLE: PLUGIN,
        "PYTHONPATH": str(REPO),
    }
    code, out, err = run_fairdeck(["play", "highcard", "--bots", "4"], env)
    assert code == 0, out[-3000:] + err[-3000:]
    assert "you watch 4 bots play (3 bots joining)" in out and "audit: clean" in out
    logs = list((home / "games").glob("*.fdlog"))
    assert len(logs) == 1
    replayed = subprocess.run(
        [*FAIRDECK, "replay", "--text", str(logs[0])], capture_output=True, text=True, timeout=120,
        cwd=REPO, env=env,
    )
    assert replayed.returncode == 0 and "the chosen cards are revealed" in replayed.stdout
    # without the plug-in, a peer does not know the game: the hook is what makes it playable
    bare = {k: v for k, v in env.items() if k != EXTRA_GAMES_VARIABLE}
    refused = subprocess.run(
        [sys.executable, "-m", "fairdeck", "simulate", "highcard"], capture_output=True, text=True,
        timeout=120, cwd=REPO, env=bare,
    )
    assert refused.returncode != 0 and "highcard" in refused.stderr
