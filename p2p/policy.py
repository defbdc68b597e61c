"""What a player's node accepts before it countersigns a table: nobody, the opener included, can
weaken a table (issue #11).

Theory of operation
-------------------
The opener alone writes the genesis, so every joiner's node judges it before countersigning, with
the pure functions below (the node gathers the inputs, this module only decides):

- the **mode** is ``fair`` unless this player itself asked for ``trusted`` (``--trusted`` when it
  opens, ``--allow-trusted`` when it joins): in trusted mode party 0 sees every card;
- the **shuffle proof** is no weaker than the floor: Wikström–Terelius (``"wt"``). Cut-and-choose
  (``"cc"`` with ``shuffle_rounds``) is below it; a genesis without a ``proof`` field is
  cut-and-choose. Only the test-only environment variable ``FAIRDECK_TEST_PROOF_FLOOR`` lowers the
  floor (``cc:80``: cut-and-choose with at least 80 rounds is accepted), so that tests can use a few
  fast rounds; it is never meant for a real table;
- the **terms** — game, seats, witnesses, options, mode, proof, stall deadline and the opener's key —
  are the ones the bootstrap reply (and the LAN advertisement, when the table was picked there)
  showed this player before it joined;
- the **game id** is fresh: no log of that id exists in this identity's home (per-game secrets are
  derived from the identity and the game id, so a reused id would replay them);
- the ``start`` came from the opener's authenticated mesh key, and party 0 of the genesis holds
  that key;
- every party's **name** is printable, and our own seat is the one we asked for.

Each rule returns ``None`` (fine) or one line a person can read; :func:`judge_start` runs them all
and returns the first refusal. :func:`judge_terms` is the subset a player can apply to the terms
before joining, and the opener applies to its own table before opening it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2p.identity import fingerprint
from p2p.safetext import MAX_NAME_LENGTH, is_printable_name, safe_text

WT = "wt"
CC = "cc"
PROOF_NAMES = {WT: "Wikström–Terelius", CC: "cut-and-choose"}
DEFAULT_CC_ROUNDS = 80
"""Rounds of a cut-and-choose proof asked for without a number (soundness 2^-80)."""
MAX_CC_ROUNDS = 256
FLOOR_ENV = "FAIRDECK_TEST_PROOF_FLOOR"
"""Test-only: lowers the proof floor (``cc:ROUNDS``), so tests can shuffle with a few fast rounds."""
DEFAULT_STALL_AFTER = 300
"""Seconds a table waits for the party whose entry is due before anyone present may close it."""
MIN_STALL_AFTER = 1
MAX_STALL_AFTER = 86_400
MAX_OPTIONS_TEXT = 200
"""Bytes of the options as compact JSON: they travel in a DNS TXT value (at most 255 bytes)."""
MODES = ("fair", "trusted")


class PolicyError(ValueError):
    """A refusal or a malformed description of a table; ``str(exc)`` is one readable line."""


# ---------------------------------------------------------------------------------------------
# proofs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proof:
    """A shuffle proof: ``Proof("wt")`` or ``Proof("cc", rounds)``."""

    kind: str
    rounds: int = 0

    def __post_init__(self) -> None:
        if self.kind == WT and self.rounds == 0:
            return
        if self.kind == CC and _whole(self.rounds, 1, MAX_CC_ROUNDS):
            return
        kind, rounds = safe_text(self.kind, 20), safe_text(self.rounds, 20)
        raise PolicyError(f"not a shuffle proof: {kind} with {rounds} rounds")

    @classmethod
    def parse(cls, text: object) -> Proof:
        """``"wt"`` or ``"cc:ROUNDS"`` (as in advertisements and ``FAIRDECK_TEST_PROOF_FLOOR``)."""
        if text == WT:
            return cls(WT)
        if isinstance(text, str) and text.startswith(f"{CC}:") and text[3:].isdigit() and len(text) <= 6:
            return cls(CC, int(text[3:]))
        raise PolicyError(f"'{safe_text(text, 40)}' is not a shuffle proof ('wt' or 'cc:ROUNDS')")

    def __str__(self) -> str:
        return WT if self.kind == WT else f"{CC}:{self.rounds}"

    def describe(self) -> str:
        """In words: ``Wikström–Terelius`` or ``cut-and-choose 2^-80``."""
        return PROOF_NAMES[WT] if self.kind == WT else f"{PROOF_NAMES[CC]} 2^-{self.rounds}"

    def at_least(self, floor: Proof) -> bool:
        """True if this proof is no weaker than ``floor`` (WT above any cut-and-choose)."""
        if self.kind == WT:
            return True
        return floor.kind == CC and self.rounds >= floor.rounds


FLOOR = Proof(WT)
"""The project's floor: Wikström–Terelius."""


def proof_floor(environ: Mapping[str, str] | None = None) -> Proof:
    """The floor in force: :data:`FLOOR`, unless the test-only ``FAIRDECK_TEST_PROOF_FLOOR`` says
    otherwise (a malformed value raises :class:`PolicyError` rather than being guessed at)."""
    raw = (os.environ if environ is None else environ).get(FLOOR_ENV, "")
    if not raw:
        return FLOOR
    try:
        return Proof.parse(raw)
    except PolicyError:
        raise PolicyError(f"{FLOOR_ENV}='{safe_text(raw, 40)}' is not 'wt' or 'cc:ROUNDS'") from None


def proof_of_genesis(body: Mapping[str, Any]) -> Proof:
    """The proof a genesis asks for; without a ``proof`` field it is cut-and-choose with
    ``shuffle_rounds`` (the protocol before Wikström–Terelius)."""
    kind = body.get("proof", CC)
    if kind == WT:
        return Proof(WT)
    if kind == CC:
        rounds = body.get("shuffle_rounds")
        if isinstance(rounds, int) and not isinstance(rounds, bool):
            return Proof(CC, rounds)
    raise PolicyError(f"the genesis names no shuffle proof this player knows ('{safe_text(kind, 20)}')")


# ---------------------------------------------------------------------------------------------
# the terms of a table
# ---------------------------------------------------------------------------------------------


def options_text(options: Mapping[str, Any]) -> str:
    """Options as compact, canonical JSON (the advertised form)."""
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_options(text: str) -> dict[str, Any]:
    """Advertised options back into a dict of plain values; :class:`PolicyError` otherwise."""
    if len(text.encode()) > MAX_OPTIONS_TEXT:
        raise PolicyError("the options are too long to advertise")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise PolicyError("the options are not JSON") from None
    _check_options(value)
    return value  # type: ignore[no-any-return]


def _check_options(value: object) -> None:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and (v is None or isinstance(v, str | int | bool)) for k, v in value.items()
    ):
        raise PolicyError("options must map names to plain values (text, numbers, true/false, none)")


def check_stall(value: object) -> str | None:
    """The stall deadline is a whole number of seconds in range."""
    if not _whole(value, MIN_STALL_AFTER, MAX_STALL_AFTER):
        return (
            f"the stall deadline must be {MIN_STALL_AFTER}..{MAX_STALL_AFTER} seconds, "
            f"not {safe_text(value, 20)}"
        )
    return None


@dataclass(frozen=True)
class Terms:
    """What a table is: shown to a player before it joins, and compared with the genesis after."""

    game: str
    seats: int
    options: dict[str, Any] = field(default_factory=dict)
    mode: str = "fair"
    proof: Proof = FLOOR
    stall_after: int = DEFAULT_STALL_AFTER
    opener: bytes | None = None
    """The opener's identity (signing) key, where known."""
    fp: str | None = None
    """The opener's fingerprint, where shown (the LAN advertisement carries only this)."""
    witnesses: int | None = None
    on_stall: str | None = None
    """``"close"`` or ``"bot"`` (see :data:`p2p.protocol.ON_STALL`); ``None`` where not stated."""

    def describe(self) -> str:
        """One line: ``GAME, 4 seats, fair, proof: Wikström–Terelius, no options, stall 300 s``."""
        seats = f"{self.seats} seat{'s' if self.seats != 1 else ''}"
        if self.witnesses:
            seats += f" + {self.witnesses} witness{'es' if self.witnesses != 1 else ''}"
        mode = "fair" if self.mode == "fair" else "TRUSTED (seat 0 sees every card)"
        # as typed on the command line (--option solo_yield_allowed=true), not Python's True
        shown = {k: str(v).lower() if isinstance(v, bool) else v for k, v in self.options.items()}
        opts = (
            "options: " + ", ".join(f"{k}={v}" for k, v in sorted(shown.items()))
            if self.options
            else "no options"
        )
        return safe_text(
            f"{self.game}, {seats}, {mode}, proof: {self.proof.describe()}, {opts}, "
            f"stall deadline {self.stall_after} s"
            + (" (then a safe move is played for a late player)" if self.on_stall == "bot" else ""),
            300,
        )

    # -- wire forms ------------------------------------------------------------------------------
    def to_wire(self) -> dict[str, Any]:
        """Fields of the bootstrap reply."""
        return {
            "game": self.game,
            "seats": self.seats,
            "witnesses": self.witnesses or 0,
            "options": dict(self.options),
            "mode": self.mode,
            "proof": str(self.proof),
            "stall": self.stall_after,
            "on_stall": self.on_stall or "close",
            "id": self.opener,
            "fp": self.fp,
        }

    @classmethod
    def from_wire(cls, reply: Mapping[str, Any]) -> Terms:
        """Terms from a bootstrap reply; :class:`PolicyError` if it does not state them all."""
        game, seats, witnesses = reply.get("game"), reply.get("seats"), reply.get("witnesses")
        opener, fp, mode = reply.get("id"), reply.get("fp"), reply.get("mode")
        if not isinstance(game, str) or not game or len(game) > 32:
            raise PolicyError("the table did not say which game it plays")
        if not _small_int(seats, 1) or not _small_int(witnesses, 0):
            raise PolicyError("the table did not say how many seats it has")
        if mode not in MODES:
            raise PolicyError("the table did not say whether it deals fairly")
        if not isinstance(opener, bytes) or len(opener) != 32 or not isinstance(fp, str):
            raise PolicyError("the table did not say who opened it")
        if fingerprint(opener) != fp:
            raise PolicyError("the table's fingerprint does not belong to its opener's key")
        if reason := check_stall(reply.get("stall")):
            raise PolicyError(f"the table's terms are malformed: {reason}")
        options = reply.get("options")
        _check_options(options)
        on_stall = reply.get("on_stall", "close")
        if on_stall not in ("close", "bot"):
            raise PolicyError("the table's terms are malformed: what happens on a stall is unknown")
        return cls(
            on_stall=on_stall,
            game=game,
            seats=seats,
            options=dict(options),  # type: ignore[arg-type]
            mode=mode,
            proof=Proof.parse(reply.get("proof")),
            stall_after=reply["stall"],
            opener=opener,
            fp=fp,
            witnesses=witnesses,
        )

    def to_txt(self) -> dict[str, str]:
        """Fields of the LAN advertisement's TXT record (besides name, seats, free, proto, fp)."""
        return {
            "mode": self.mode,
            "proof": str(self.proof),
            "opts": options_text(self.options),
            "stall": str(self.stall_after),
            "late": self.on_stall or "close",
        }

    @classmethod
    def from_genesis(cls, body: Mapping[str, Any]) -> Terms:
        """The terms a genesis body states (its structure already checked by the protocol)."""
        parties = body["parties"]
        opener = parties[0]["key"] if parties else None
        return cls(
            game=body["game"],
            seats=body["seats"],
            options=dict(body["options"]),
            mode=body.get("mode", "fair"),
            proof=proof_of_genesis(body),
            stall_after=body.get("stall_after", DEFAULT_STALL_AFTER),
            on_stall=body.get("on_stall", "close"),
            opener=opener,
            fp=fingerprint(opener) if isinstance(opener, bytes) else None,
            witnesses=len(parties) - body["seats"],
        )

    def differences(self, shown: Terms) -> list[str]:
        """How these terms differ from ``shown`` (fields unknown on either side are not compared)."""
        out = []

        def differ(what: str, mine: object, theirs: object) -> None:
            if mine is not None and theirs is not None and mine != theirs:
                out.append(f"{what} {safe_text(mine, 60)} instead of {safe_text(theirs, 60)}")

        differ("game", self.game, shown.game)
        differ("seats", self.seats, shown.seats)
        differ("witnesses", self.witnesses, shown.witnesses)
        differ("options", options_text(self.options), options_text(shown.options))
        differ("mode", self.mode, shown.mode)
        differ("proof", self.proof.describe(), shown.proof.describe())
        differ("stall deadline", self.stall_after, shown.stall_after)
        differ("on a stall", self.on_stall, shown.on_stall)
        differ("opener", self.fp, shown.fp)
        told = any(d.startswith("opener ") for d in out)  # the fingerprints said it already
        if self.opener is not None and shown.opener is not None and self.opener != shown.opener and not told:
            out.append("another opener's key")
        return out


def _small_int(value: object, low: int) -> bool:
    return _whole(value, low, 64)


def _whole(value: object, low: int, high: int) -> bool:
    """An ``int`` (not a ``bool``) in ``low..high``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


# ---------------------------------------------------------------------------------------------
# the rules
# ---------------------------------------------------------------------------------------------


def check_mode(mode: object, allow_trusted: bool) -> str | None:
    """Fair, unless this player asked for trusted itself."""
    if mode == "fair":
        return None
    if mode == "trusted":
        if allow_trusted:
            return None
        return (
            "the table is in trusted mode: seat 0 would see every card "
            "(join with --allow-trusted only if you trust the opener)"
        )
    return f"unknown mode '{safe_text(mode, 20)}'"


def check_proof(proof: Proof, floor: Proof) -> str | None:
    """No weaker than the floor."""
    if proof.at_least(floor):
        return None
    return f"the shuffle proof would be {proof.describe()}, below this player's floor ({floor.describe()})"


def judge_terms(terms: Terms, *, allow_trusted: bool, floor: Proof) -> str | None:
    """The rules a player applies to a table's terms alone: before joining it, and the opener to
    its own table before opening it (the opener passes ``allow_trusted`` when it asked for trusted)."""
    return (
        check_mode(terms.mode, allow_trusted)
        or check_proof(terms.proof, floor)
        or check_stall(terms.stall_after)
        or _check_options_size(terms.options)
    )


def _check_options_size(options: Mapping[str, Any]) -> str | None:
    try:
        _check_options(dict(options))
    except PolicyError as exc:
        return str(exc)
    if len(options_text(options).encode()) > MAX_OPTIONS_TEXT:
        return f"the options take more than {MAX_OPTIONS_TEXT} bytes"
    return None


def check_shown(terms: Terms, shown: Terms | None) -> str | None:
    """The genesis states the terms this player was shown and accepted."""
    if shown is None:
        return "this player was shown no terms for this table"
    diffs = terms.differences(shown)
    if diffs:
        return "the genesis differs from the table you joined: " + "; ".join(diffs)
    return None


def check_sender(sender: bytes, opener_curve: bytes | None, party0_curve: bytes) -> str | None:
    """The ``start`` came from the mesh key we bootstrapped from, and party 0 holds it."""
    if opener_curve is None or sender != opener_curve:
        return "a start message came from a peer that is not the opener"
    if party0_curve != opener_curve:
        return "the genesis seats someone else than the opener at party 0"
    return None


def check_names(names: Iterable[object]) -> str | None:
    """Every party's name is printable (see :func:`p2p.safetext.is_printable_name`)."""
    for index, name in enumerate(names):
        if not is_printable_name(name):
            return (
                f"party {index}'s name is not 1-{MAX_NAME_LENGTH} printable characters: "
                f"'{safe_text(name, 50)}'"
            )
    return None


def check_fresh(game_id: bytes, games_dir: Path) -> str | None:
    """No log of this game id exists in this identity's home (its secrets would repeat)."""
    if (games_dir / f"{game_id.hex()}.fdlog").exists():
        return (
            f"game id {game_id.hex()[:12]}… was already used on this machine "
            "(a reused game id would replay this player's secrets)"
        )
    return None


def check_own_seat(
    parties: list[Mapping[str, Any]],
    seats: int,
    *,
    key: bytes,
    curve: bytes,
    name: str,
    role: str,
    fresh: bytes = b"",
) -> str | None:
    """Our seat is the one we asked for: our key once, our name and transport key, player or
    witness, and the fresh value we drew as we joined (so not a genesis from before, replayed)."""
    mine = [i for i, p in enumerate(parties) if p.get("key") == key]
    if len(mine) != 1:
        return "the genesis does not seat this player"
    index, party = mine[0], parties[mine[0]]
    if party.get("curve") != curve or party.get("name") != name:
        return "the genesis seats this player under another name or transport key"
    if fresh and party.get("fresh") != fresh:
        return (
            "the genesis does not carry the value this player drew as it joined: it was made for"
            " another join (a table replayed from before would seat us in a game we signed once)"
        )
    if (index < seats) != (role == "player"):
        return f"the genesis seats this player as a {'player' if index < seats else 'witness'}, not a {role}"
    return None


@dataclass(frozen=True)
class Start:
    """Everything a joiner judges when a ``start`` arrives."""

    body: Mapping[str, Any]
    game_id: bytes
    sender: bytes
    endpoints: int
    """How many endpoints the start message lists (one per party)."""


@dataclass(frozen=True)
class Joiner:
    """The joiner's side: who it is, what it was shown, what it accepts."""

    key: bytes
    curve: bytes
    name: str
    role: str
    shown: Terms | None
    opener_curve: bytes | None
    games_dir: Path
    allow_trusted: bool = False
    floor: Proof = FLOOR
    fresh: bytes = b""
    """The value this joiner drew and sent as it joined (empty: the opener judging its own genesis)."""


def judge_start(start: Start, me: Joiner) -> str | None:
    """All the rules, in order; the first refusal, or ``None`` if this player may countersign.
    ``start.body`` must already have passed the protocol's own genesis checks."""
    body = start.body
    parties = body["parties"]
    try:
        _check_options(body["options"])
        terms = Terms.from_genesis(body)
    except PolicyError as exc:
        return str(exc)
    if start.endpoints != len(parties):
        return f"the start lists {start.endpoints} endpoints for {len(parties)} parties"
    return (
        check_sender(start.sender, me.opener_curve, parties[0].get("curve", b""))
        or check_names(p.get("name") for p in parties)
        or check_own_seat(
            parties, body["seats"], key=me.key, curve=me.curve, name=me.name, role=me.role, fresh=me.fresh
        )
        or check_mode(terms.mode, me.allow_trusted and (me.shown is None or me.shown.mode == "trusted"))
        or check_proof(terms.proof, me.floor)
        or check_stall(terms.stall_after)
        or check_shown(terms, me.shown)
        or check_fresh(start.game_id, me.games_dir)
    )
