"""``safe_text``: what another party wrote, printed inert and bounded, however long it is."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p import safetext
from p2p.safetext import _UNSAFE_CATEGORIES, _escape, safe_text


def escape_all_then_cut(text: str, limit: int | None) -> str:
    """The plain reading of the rule: escape every unsafe character, then cut to ``limit``."""
    out = "".join(_escape(c) if unicodedata.category(c) in _UNSAFE_CATEGORIES else c for c in text)
    if limit is not None and len(out) > limit:
        out = out[: max(limit - 1, 0)] + "…"
    return out


@given(st.text(), st.none() | st.integers(min_value=-3, max_value=60))
def test_cutting_first_shows_exactly_what_escaping_everything_would(text: str, limit: int | None) -> None:
    assert safe_text(text, limit) == escape_all_then_cut(text, limit)


def test_no_control_character_reaches_the_terminal() -> None:
    shown = safe_text("ann\x1b[2J\u202eevil\nverdict: CLEAN", 200)
    assert "\x1b" not in shown and "\u202e" not in shown and "\n" not in shown
    assert "\\x1b" in shown and "\\u202e" in shown and "\\x0a" in shown


def test_a_bounded_text_weighs_only_the_characters_it_can_show(monkeypatch: pytest.MonkeyPatch) -> None:
    # a name or a reason of megabytes is cut before it is escaped: the work is bounded by the
    # limit, not by what a writer chose to send (counted: each character weighed is one lookup)
    weighed: list[str] = []
    real = unicodedata.category

    def category(char: str) -> str:
        weighed.append(char)
        return real(char)

    monkeypatch.setattr(safetext.unicodedata, "category", category, raising=True)
    shown = safe_text("\x07" * 5_000_000, 40)
    assert shown == ("\\x07" * 10)[:39] + "…"
    assert len(weighed) <= 41
