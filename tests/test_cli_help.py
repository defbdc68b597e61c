"""``fairdeck --version`` and the game options listed in ``--help`` (one line each, no traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fairdeck", *argv], capture_output=True, text=True, timeout=120, cwd=REPO
    )


def test_version_and_option_keys_in_help() -> None:
    version = _run("--version")
    assert version.returncode == 0 and version.stdout.startswith("fairdeck ")
    for argv in (["--help"], ["play", "--help"], ["host", "--help"], ["simulate", "--help"]):
        text = _run(*argv).stdout
        assert "game options (--option KEY=VALUE), with their defaults:" in text
        assert "edition=classic" in text and "rounds=5" in text and "first_player=0" in text


def test_an_unexpected_error_is_one_line() -> None:
    done = _run("replay", str(REPO / "no-such.fdlog"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_every_command_and_argument_explains_itself_in_its_help() -> None:
    from fairdeck.cli import build_parser

    parser = build_parser()
    for name, command in parser.commands.items():
        assert command.description, f"`fairdeck {name} --help` does not say what the command does"
        for action in command._actions:
            if action.help is None and action.dest != "help":
                raise AssertionError(f"`fairdeck {name}`: {action.option_strings or action.dest} has no help")


def test_the_readme_puts_fairdeck_on_the_path_before_its_bare_commands() -> None:
    # The quick start runs .venv/bin/fairdeck; every later command says just `fairdeck`, which a
    # newcomer's shell does not find until the venv is activated: the README says how, first.
    text = (REPO / "README.md").read_text()
    quick = text.index(".venv/bin/fairdeck play loveletter --bots 3")
    bare = text.index("\nfairdeck play ")
    activate = text.find(". .venv/bin/activate")
    assert quick < activate < bare
