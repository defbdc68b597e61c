"""Love Letter's options: their names, defaults and checks."""

from __future__ import annotations

from typing import Any

from engine.core import SeatCountError, one_of, unknown_options

from .state import (
    _TOKENS_TO_WIN,
    CLASSIC,
    EDITION_2019,
    EDITIONS,
    _is_int,
)


def resolve_options(options: dict[str, Any], seats: int) -> dict[str, Any]:
    """Validate the options and fill in the defaults; ``ValueError`` on anything unknown."""
    known = {"edition", "two_player_faceup_removal", "final_tie_policy", "first_player"}
    unknown = sorted(set(options) - known, key=str)
    if unknown:
        raise unknown_options("loveletter", unknown, known)
    edition = options.get("edition", CLASSIC)
    if edition == 2019:  # "--option edition=2019" arrives as a number
        edition = EDITION_2019
    if edition not in EDITIONS:
        raise ValueError(f"edition must be {one_of(EDITIONS)}, not {edition!r}")
    if seats not in _TOKENS_TO_WIN[edition]:  # before the seat-dependent options: the count is the fault
        sizes = sorted(_TOKENS_TO_WIN[edition])
        other = next((e for e in EDITIONS if e != edition and seats in _TOKENS_TO_WIN[e]), None)
        hint = ""
        if other is not None:
            wider = sorted(_TOKENS_TO_WIN[other])
            hint = f" (the {other} edition seats {wider[0]}-{wider[-1]}: --option edition={other})"
        raise SeatCountError(
            f"the {edition} edition of Love Letter is for {sizes[0]}-{sizes[-1]} players, not {seats}{hint}"
        )
    removal = options.get("two_player_faceup_removal", True)
    if not isinstance(removal, bool):
        raise ValueError(f"two_player_faceup_removal must be true or false, not {removal!r}")
    default_policy = "none" if edition == CLASSIC else "all_tied_win"
    policy = options.get("final_tie_policy", default_policy)
    if policy not in ("none", "all_tied_win"):
        raise ValueError(f"final_tie_policy must be 'none' or 'all_tied_win', not {policy!r}")
    if edition == EDITION_2019 and policy != "all_tied_win":
        raise ValueError("the 2019 edition always lets every tied player win: final_tie_policy "
                         "must be 'all_tied_win'")
    first = options.get("first_player")
    if first is not None and not (_is_int(first) and 0 <= first < seats):
        raise ValueError(f"first_player must be a seat in 0..{seats - 1} or None, not {first!r}")
    return {
        "edition": edition,
        "two_player_faceup_removal": removal,
        "final_tie_policy": policy,
        "first_player": first,
    }
