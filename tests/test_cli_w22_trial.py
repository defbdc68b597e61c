"""A newcomer's trial (w22) at the command line: ``fairdeck join``, ``watch`` and ``bot --join`` given
``HOST:PORT`` whose host name does not resolve waited for a table that could never answer, then said
``no table answered at nosuch:1 within 10 s``; they now say at once that the name does not resolve
(a usage error: exit 2, nothing on stdout). Each command is a real ``fairdeck`` process with a private
home; the names used are refused by name resolution itself, before any query leaves the machine (a
label longer than 63 characters)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_cli_args import _run

UNRESOLVABLE = "x" * 64 + ".invalid"
"""A host name no resolver can hold (a label of 64 characters): refused without asking the network."""



@pytest.mark.parametrize(
    "argv",
    [
        ("join", f"{UNRESOLVABLE}:47017", "--yes"),
        ("watch", f"{UNRESOLVABLE}:47017"),
        ("bot", "--join", f"{UNRESOLVABLE}:47017"),
    ],
)
def test_a_host_name_that_does_not_resolve_is_said_at_once(tmp_path: Path, argv: tuple[str, ...]) -> None:
    done = _run(tmp_path / "home", *argv)
    assert done.returncode == 2, done
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    said = f"fairdeck {argv[0]}: no host called '{UNRESOLVABLE}': the name does not resolve"
    assert lines[0].startswith(said)
    assert "no table answered" not in done.stderr and "Traceback" not in done.stderr


def test_an_address_or_a_name_that_resolves_is_not_held_up() -> None:
    from fairdeck.cli import host_problem

    assert host_problem("127.0.0.1:47017") is None
    assert host_problem("localhost:47017") is None
    assert host_problem(f"{UNRESOLVABLE}:1") is not None
