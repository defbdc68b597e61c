"""Fixes from the third newcomer trial in the command line: joining your own table is refused in
plain words before anything is asked; ``join --player`` is ``--name``; an unrecognized argument is
refused pointing at the subcommand's own help."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from fairdeck import commands
from fairdeck.cli import build_parser
from p2p import policy
from p2p.identity import Identity
from tests.test_cli_args import _run

REPO = Path(__file__).resolve().parents[1]


def test_joining_a_table_opened_with_your_own_identity_says_so_before_asking(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    identity = Identity.load_or_create(tmp_path)
    terms = policy.Terms(game="loveletter", seats=3, opener=identity.public_key, fp=identity.fingerprint)
    reply = {**terms.to_wire(), "name": "Friday"}

    async def listens(host: str, port: int) -> bool:
        return False

    async def ask(host: str, port: int, timeout: float = 2.0) -> dict[str, Any]:
        return reply

    asked: list[str] = []
    monkeypatch.setattr(commands.transport, "nothing_listens", listens)
    monkeypatch.setattr(commands, "ask_table", ask)
    monkeypatch.setattr("builtins.input", lambda prompt="": asked.append(prompt) or "y")
    with pytest.raises(ValueError) as refused:
        asyncio.run(commands._confirm_table("127.0.0.1", 47117, None, identity, tmp_path))
    words = str(refused.value)
    assert "your own identity" in words and identity.fingerprint in words and "FAIRDECK_HOME" in words
    assert "mesh" not in words
    assert not asked, "asked to join a table that cannot be joined"
    # another identity's table is asked about as before
    other = Identity.load_or_create(tmp_path / "other")
    theirs = policy.Terms(game="loveletter", seats=3, opener=other.public_key, fp=other.fingerprint)
    reply = {**theirs.to_wire(), "name": "Friday"}
    assert asyncio.run(commands._confirm_table("127.0.0.1", 47117, None, identity, tmp_path)) is not None
    assert asked == ["join this table? [y/N] "]


def test_the_transports_refusal_to_join_itself_is_worded_for_a_person() -> None:
    assert commands._joined_itself(ValueError("a mesh does not connect to itself"))
    assert not commands._joined_itself(ValueError("the table is full"))


def test_join_takes_player_as_a_synonym_of_name() -> None:
    parser = build_parser()
    assert parser.parse_args(["join", "127.0.0.1:47117", "--player", "ann"]).name == "ann"
    assert parser.parse_args(["join", "127.0.0.1:47117", "--name", "bob"]).name == "bob"


@pytest.mark.parametrize(
    ("argv", "command"),
    [(["games", "--bogus"], "games"), (["join", "127.0.0.1:1", "--colour", "red"], "join")],
)
def test_an_unrecognized_argument_points_to_the_subcommands_help(
    tmp_path: Path, argv: list[str], command: str
) -> None:
    done = _run(tmp_path, *argv)
    assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
    (line,) = [line for line in done.stderr.splitlines() if line.strip()]
    assert line.startswith(f"fairdeck {command}: unrecognized arguments: "), line
    assert line.endswith(f"(see `fairdeck {command} --help`)"), line


def test_the_unattended_stream_names_every_seat(capsys: pytest.CaptureFixture[str]) -> None:
    """``fairdeck play loveletter --bots 4 | cat`` printed bare ``seat 0 plays …`` lines although
    its last line names the winner: each seat is named, as everywhere else (none is "you")."""
    from p2p.node import Notice
    from tests.p2p.test_console_support import MemNode

    node = MemNode("loveletter", 2, names=["bot-0, run by ann", "bot-1, run by ann"])
    node.notices.put_nowait(Notice("accepted", "seat 0 plays the Guard on seat 1, guessing the Priest"))
    node.notices.put_nowait(Notice("ended", "over"))
    asyncio.run(commands._print_progress(node, False))  # type: ignore[arg-type]
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "seat 0 (bot-0, run by ann) plays the Guard on seat 1 (bot-1, run by ann), guessing the Priest"
    ], printed
