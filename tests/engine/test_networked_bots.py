"""Bots at a real table: their move randomness is secret, and their names say who runs them.

A random bot's choices depend on its hidden card (the card decides which moves are legal), so
whoever can recompute its generator's seed can replay its choices and read its hand from them.
Networked bots seed from their *secret* key and the game (:func:`fairdeck.commands.bot_seed`); these
tests rebuild the seed from the secret (and succeed) and from everything public (and fail).
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.core import Face, Game, Ref, Seat
from engine.dealer import play_trusted
from engine.games import make_bot, make_game
from fairdeck import commands
from fairdeck.commands import BotDriver, bot_name, bot_seed, network_bot
from p2p.identity import fingerprint
from p2p.memtable import build_table, seeded_identity
from p2p.safetext import MAX_NAME_LENGTH, is_printable_name
from replay.replay import replay_log
from tests.p2p.test_console_support import MemNode

REPO = Path(__file__).resolve().parents[2]

Decision = tuple[Game, Any, Seat, dict[Ref, Face], str, dict[str, Any]]


class Recorder:
    """Wraps a bot and keeps every decision it was asked (inputs and the move it chose)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.decisions: list[Decision] = []

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """The wrapped bot's choice, recorded."""
        move = self.bot.choose(game, state, seat, own_faces, prompt)
        self.decisions.append((game, state, seat, dict(own_faces), prompt, move))
        return move


def _replays(bot: Any, decisions: list[Decision]) -> int:
    """How many of ``decisions`` ``bot`` makes exactly the same way, fed the same inputs in order."""
    return sum(bot.choose(g, s, seat, faces, prompt) == move for g, s, seat, faces, prompt, move in decisions)


def test_the_seed_is_rebuilt_from_the_secret_key_and_from_nothing_public() -> None:
    alice, bob = seeded_identity("seed-alice"), seeded_identity("seed-bob")
    game_id = bytes(range(16))
    seed = bot_seed(alice, game_id)
    assert seed == alice.derive("bot-moves", game_id + (0).to_bytes(8, "big"))  # from the secret
    assert seed == bot_seed(alice, game_id)  # the same bot in the same game: the same seed
    assert seed != bot_seed(bob, game_id)  # another key
    assert seed != bot_seed(alice, bytes(16))  # another game
    assert seed != bot_seed(alice, game_id, resumed_at=120)  # a restart draws fresh randomness
    assert seed != bot_seed(alice, game_id, salt="7")  # a salt is mixed in ...
    assert bot_seed(alice, game_id, salt="7") == alice.derive("bot-moves", game_id + bytes(8) + b"7")
    public = [alice.fingerprint, fingerprint(alice.public_key), alice.public_key, game_id, "7"]
    assert seed not in public  # ... and nothing public is the seed


def test_an_observer_with_only_public_data_cannot_replay_a_random_bots_choices() -> None:
    identities = [seeded_identity(f"observed-{i}") for i in range(4)]
    table = build_table(
        "loveletter", 4, seed=11, shuffle_rounds=1, identities=identities, levels=["random"] * 4
    )
    game_id = table.parties[1].table.game_id
    watched = Recorder(network_bot(identities[1], "loveletter", "random", game_id))
    table.bots[1] = watched
    table.run()
    table.close()
    decisions = watched.decisions
    assert table.parties[0].table.ended == "over" and len(decisions) >= 10
    # whoever holds the secret key replays every choice ...
    assert _replays(make_bot("loveletter", "random", bot_seed(identities[1], game_id)), decisions) == len(
        decisions
    )
    # ... an observer seeding from what every seat knows does not (the old seed was the fingerprint)
    for public in (identities[1].fingerprint, identities[1].public_key, game_id, 0):
        assert _replays(make_bot("loveletter", "random", public), decisions) < len(decisions), public


def test_the_bot_driver_seeds_its_bot_from_its_nodes_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds: list[Any] = []
    real = commands.make_bot

    def spy(game: str, level: str, seed: Any) -> Any:
        seeds.append(seed)
        return real(game, level, seed)

    monkeypatch.setattr(commands, "make_bot", spy)
    node = MemNode("loveletter", 4, seed=4)
    driver = BotDriver(node, "loveletter", "random", 5)  # type: ignore[arg-type]
    assert driver.bot is None  # made at the first decision, when the game is known
    assert node.on_decide == driver.on_decide
    node.on_decide = None  # the stand-in node would call it without awaiting: asked below instead
    node.start()

    async def play() -> None:
        while (prompt := node.party.waiting_for_me()) is not None and len(node.sent) < 3:
            await driver.on_decide(prompt, node.party.legal_moves())

    asyncio.run(play())
    assert len(node.sent) >= 1 and len(seeds) == 1
    assert seeds == [bot_seed(node.identity, node.party.table.game_id, salt=5)]
    assert seeds[0] != node.identity.fingerprint


def test_simulations_stay_reproducible_from_their_seed() -> None:
    def run(seed: int) -> tuple[Any, ...]:
        game = make_game("loveletter", 4)
        bots = [make_bot("loveletter", "random", f"{seed}-{i}") for i in range(4)]
        return tuple(play_trusted(game, bots, seed).history)

    assert run(3) == run(3)
    assert run(3) != run(4)


@pytest.mark.parametrize(
    "owner",
    ["alice", "x" * 80, "m\nVERDICT: CLEAN\x1b[8m", "\u202eecila", "  ", "ann (seat 0)"],
    ids=["plain", "long", "newline-escape", "bidi", "blank", "parentheses"],
)
def test_bot_names_say_who_runs_them_in_forty_printable_characters(owner: str) -> None:
    for number, kind in ((2, "bot"), (13, "bot"), (1, "witness"), ("QX4T", "bot")):
        name = bot_name(number, owner, kind)
        assert is_printable_name(name) and len(name) <= MAX_NAME_LENGTH, name
        assert name.startswith(f"{kind}-{number}")
        if owner.strip():
            assert ", run by " in name
    assert bot_name(2, "alice") == "bot-2, run by alice"
    assert bot_name(2, "m\nx") == "bot-2, run by m\\x0ax"


def test_random_seeds_of_any_kind_drive_the_bots() -> None:
    # bytes seeds (the networked ones) work for every game's bots, as ints and strings do
    for game in ("loveletter", "regicide", "rebelprincess"):
        for level in ("random", "heuristic"):
            bot = make_bot(game, level, b"\x00secret")
            assert isinstance(bot.rng, random.Random)


def test_play_seats_bot_n_at_seat_n_named_as_run_by_its_launcher(tmp_path: Path) -> None:
    # a whole game of four real peer processes (`play --bots 4`: the launcher's own node is a bot
    # too), launched by a person whose name is hostile text
    env = {**os.environ, "FAIRDECK_HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path)}
    env["PYTHONPATH"] = str(REPO)
    owner = "m\nVERDICT: CLEAN\x1b[8m"
    done = subprocess.run(
        [sys.executable, "-m", "fairdeck", "play", "loveletter", "--bots", "4"]
        + ["--name", owner],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "\x1b" not in done.stdout and not any(
        line.startswith("VERDICT") for line in done.stdout.splitlines()
    )
    logs = list((tmp_path / "home" / "games").glob("*.fdlog"))
    assert len(logs) == 1
    names = [p.name for p in replay_log(logs[0]).table.parties]
    assert names == [f"bot-{seat}, run by m\\x0aVERDICT: C…" for seat in range(4)], names
    assert all(is_printable_name(name) for name in names)
