"""Regicide's options: their names, defaults and checks."""

from __future__ import annotations

from typing import Any

from engine.core import unknown_options


def resolve_options(options: dict[str, Any], seats: int) -> dict[str, Any]:
    """Defaults: ``solo_yield_allowed=False``, ``allow_overdiscard=False``, ``first_player=0``."""
    known = {"solo_yield_allowed": False, "allow_overdiscard": False, "first_player": 0}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise unknown_options("regicide", unknown, known)
    resolved = {**known, **options}
    for flag in ("solo_yield_allowed", "allow_overdiscard"):
        if not isinstance(resolved[flag], bool):
            raise ValueError(f"option {flag} must be true or false")
    first = resolved["first_player"]
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < seats:
        raise ValueError(f"option first_player must be a seat in 0..{seats - 1}")
    return resolved
