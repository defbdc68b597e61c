"""Rebel Princess's steps and public state: the data its rules, words, moves, audit, presentation and
bots share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.core import (
    FrozenDict,
    Knowledge,
    Record,
    Violation,
)

from .tricks import Play

STEPS: dict[str, str] = {
    "princess_shuffle": "shuffle",
    "princess_deal": "deal",
    "princess": "commit",
    "princess_reveal": "reveal",
    "round_shuffle": "shuffle",
    "final_shuffle": "shuffle",
    "first_leader": "random",
    "round_reveal": "reveal",
    "deck_shuffle": "shuffle",
    "deal": "deal",
    "pass": "commit",
    "pass_show": "show",
    "aside": "commit",
    "crystal": "commit",
    "crystal_reveal": "reveal",
    "gift": "commit",
    "power": "decide",
    "spindle": "commit",
    "spindle_reveal": "reveal",
    "spindle_give": "decide",
    "bazaar_pick": "random",
    "bazaar_show": "show",
    "bazaar": "decide",
    "bazaar_return": "show",
    "freeze_pick": "random",
    "freeze_show": "show",
    "freeze": "decide",
    "freeze_reveal": "reveal",
    "play": "decide",
    "mask": "commit",
    "play_reveal": "reveal",
    "mulan": "decide",
    "mulan_reveal": "reveal",
    "alice": "decide",
    "alice_shuffle": "shuffle",
    "alice_deal": "deal",
    "haggle": "decide",
    "haggle_reveal": "reveal",
    "bluff_show": "show",
    "pickup_show": "show",
    "chairs": "commit",
    "chairs_show": "show",
    "hide": "shuffle",
    "hide_show": "show",
    "disclose": "disclose",
    "over": "over",
}
PROMPTS: dict[str, str] = {"mask": "play"}
"""Prompt names differing from the step name (Masquerade's face-down plays are ``play`` commits)."""

SUIT_CLAIM = "suit:"


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State(Record):
    """Public state. Per-seat tuples are indexed by seat; refs are sorted within each pile.

    ``step`` names what happens next (see the module docstring); ``op_*``/``decider``/
    ``commit_seats`` hold the pending request's arguments. ``claims`` are ``(ref, face or
    "suit:<suit>", event index, seat)`` awaiting a Reveal. ``hands`` are the playable hands;
    ``aside`` the set-aside cards (Late to the Ball, After Party, Blind Man's Bluff). ``won`` the
    captured piles; ``scores`` one tuple per finished round. ``laid`` the cards each seat laid out
    face up under Crystal Clear (while still in hand). ``knowledge`` is the knowledge model
    (:class:`engine.core.Knowledge`); ``hide`` the hands (``(owner, *refs)``) still to be re-masked
    before the step ``resume`` (the ``hide`` / ``hide_show`` steps); ``buried`` the refs re-masked this
    round, disclosed with the rest at its end for the audit.
    """

    events: int = 0
    fault: Violation | None = None
    step: str = ""
    next_ref: int = 0
    faces: Mapping[int, str] = field(default_factory=FrozenDict)
    op_refs: tuple[int, ...] = ()
    op_pairs: tuple[tuple[int, int], ...] = ()
    op_n: int = 0
    decider: int = -1
    commit_seats: tuple[int, ...] = ()
    claims: tuple[tuple[int, str, int, int], ...] = ()
    offers: tuple[tuple[int, ...], ...] = ()
    princess_refs: tuple[int, ...] = ()
    princesses: tuple[str, ...] = ()
    spent: tuple[bool, ...] = ()
    waived: tuple[bool, ...] = ()  # said "not this round" to its before-trick power: not asked again
    round_refs: tuple[int, ...] = ()
    round_no: int = -1
    letter: str = ""
    round_letters: tuple[str, ...] = ()
    scores: tuple[tuple[int, ...], ...] = ()
    tied: tuple[int, ...] = ()
    deck_refs: tuple[int, ...] = ()
    dealt: int = 0
    hands: tuple[tuple[int, ...], ...] = ()
    aside: tuple[tuple[int, ...], ...] = ()
    won: tuple[tuple[int, ...], ...] = ()
    tricks_won: tuple[int, ...] = ()
    gift: tuple[int, ...] = ()
    crystal: tuple[str, ...] = ()
    princes_in: bool = False
    bluff_done: bool = False
    tricks_played: int = 0
    first_leader: int = -1
    leader: int = -1
    last_winner: int = -1
    trick: tuple[Play, ...] = ()
    last_trick: tuple[Play, ...] = ()
    last_trick_winner: int = -1
    reverse: bool = False
    pea: bool = False
    mermaid: str = ""
    rapunzel: bool = False
    lead_dictated: bool = False
    frozen: tuple[int, ...] = ()
    active: tuple[bool, ...] = ()
    power_queue: tuple[int, ...] = ()
    used: tuple[str, ...] = ()
    winner: int = -1
    actor: int = -1
    target: int = -1
    picks: tuple[int, ...] = ()
    contributions: tuple[int, ...] = ()
    laid: tuple[tuple[int, ...], ...] = ()
    knowledge: Knowledge = field(default_factory=Knowledge)
    hide: tuple[tuple[int, ...], ...] = ()
    resume: str = ""
    buried: tuple[int, ...] = ()
