"""Who the person is, when they do not say: the login name, even where ``$USER`` is unset."""

from __future__ import annotations

import os
import pwd

import pytest

from fairdeck.commands import bot_name
from fairdeck.tableplan import login_name


def test_without_user_or_logname_the_account_name_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # newcomer trial 6: with $USER unset the screen read "you: seat 0 (you)"
    for variable in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(variable, raising=False)
    assert login_name() == pwd.getpwuid(os.getuid()).pw_name
    assert bot_name(1, login_name()) == f"bot-1, run by {pwd.getpwuid(os.getuid()).pw_name}"


def test_a_login_name_no_table_would_accept_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGNAME", "evil\x1b[2Jname")
    assert login_name() == ""
    monkeypatch.setenv("LOGNAME", "ann")
    assert login_name() == "ann"
