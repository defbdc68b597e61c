"""Rebel Princess's options: their names, defaults, edition presets and checks."""

from __future__ import annotations

from typing import Any

from engine.core import one_of, unknown_options

from .rounds import FIRST_GAME, LETTERS

# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------

DEFAULTS: dict[str, Any] = {
    "rounds": 5,
    "round_cards": None,
    "princess_powers": True,
    "first_leader": None,
    "round_leader": "lowest",
    "poisoned_apple_tie": "earlier",
    "blind_mans_bluff": "pass_remaining",
    "rebel_of_the_ball": True,
    "zero_rounds": "zero_or_less",
    "tiebreak_round": True,
    "final_round_cards": "",
    "mulan_frog": "both",
}
"""Every option and its Deluxe default (see the package docstring for what each one means)."""

EDITIONS: dict[str, dict[str, Any]] = {
    "deluxe": {},
    "zp": {
        "round_leader": "last_winner",
        "poisoned_apple_tie": "later",
        "blind_mans_bluff": "set_aside",
        "rebel_of_the_ball": False,
    },
}
"""``edition`` presets for the edition-dependent rule constants (cards stay the Deluxe set)."""

CHOICES: dict[str, tuple[Any, ...]] = {
    "rounds": (5, 3),
    "princess_powers": (True, False),
    "round_leader": ("lowest", "last_winner"),
    "poisoned_apple_tie": ("earlier", "later"),
    "blind_mans_bluff": ("pass_remaining", "set_aside"),
    "rebel_of_the_ball": (True, False),
    "zero_rounds": ("zero_or_less", "exactly_zero"),
    "tiebreak_round": (True, False),
    "mulan_frog": ("both", "out", "in", "none"),
}

# step -> kind of request


def _letters(value: Any, what: str) -> str:
    if isinstance(value, list | tuple):
        if not all(isinstance(v, str) for v in value):
            raise ValueError(f"{what} must be Round card letters a-z")
        value = "".join(value)
    if not isinstance(value, str) or any(ch not in LETTERS for ch in value):
        raise ValueError(f"{what} must be Round card letters a-z, not {value!r}")
    if len(set(value)) != len(value):
        raise ValueError(f"{what} names a Round card twice")
    return value


def resolve_options(options: dict[str, Any], seats: int) -> dict[str, Any]:
    """Validate options, apply the ``edition`` preset, fill in defaults."""
    opts = dict(options)
    edition = opts.pop("edition", "deluxe")
    if edition not in EDITIONS:
        raise ValueError(f"edition must be {one_of(sorted(EDITIONS))}, not {edition!r}")
    unknown = sorted(set(opts) - set(DEFAULTS))
    if unknown:
        raise unknown_options("rebelprincess", unknown, [*DEFAULTS, "edition"])
    out = {**DEFAULTS, **EDITIONS[edition], **opts, "edition": edition}
    for key, allowed in CHOICES.items():
        if out[key] not in allowed or type(out[key]) is not type(allowed[0]):
            raise ValueError(f"option {key} must be {one_of(allowed)}, not {out[key]!r}")
    first = out["first_leader"]
    if first is not None and (type(first) is not int or not 0 <= first < seats):
        raise ValueError(f"first_leader must be a seat 0-{seats - 1} or None")
    out["final_round_cards"] = _letters(out["final_round_cards"], "final_round_cards")
    if out["round_cards"] == "first-game":
        out["round_cards"] = FIRST_GAME[: out["rounds"]]
    if out["round_cards"] is not None:
        cards = _letters(out["round_cards"], "round_cards")
        if len(cards) not in (out["rounds"], out["rounds"] + 1):
            raise ValueError(
                f"round_cards must list {out['rounds']} Round cards (plus optionally one for a tie-break "
                f"round), not {len(cards)}"
            )
        out["round_cards"] = cards
    return out
