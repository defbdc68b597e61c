"""The table protocol: the sans-I/O core every peer runs, identical for every party.

Theory of operation
-------------------
A game is one signed, hash-chained log (``p2p.log``). :class:`Table` is a pure replica of
everything *public* about it: it folds envelopes, one at a time and in order, into the engine
state and the public dealing state (ciphertexts, public reveal tokens, sealed shows, commitments).
Every peer, every replay and every audit runs this same fold, so they cannot disagree.

At every moment the replica knows exactly **which party must write the next entry and of what
kind** (:meth:`Table.expected`). That follows from a *step*: the request the engine is waiting for
(``engine.core.pending``), broken down into the entries that resolve it, written in party order:

===============  ==================================================  ======================
engine request   entries (kind, by whom)                              engine event when done
===============  ==================================================  ======================
(setup)          ``countersign`` by parties 1..P-1, ``keyshare`` all  —
Decide(seat)     ``move`` by that seat                                ``move``
Shuffle(refs)    ``shuffle`` by every party in turn, each with proof  ``shuffled``
Deal(deals)      ``tokens`` by each party owing a public token        ``dealt``
Reveal(refs)     ``tokens`` by each party owing a token               ``revealed`` (decrypted)
Show(shows)      ``sealed`` by each party owing a token, sealed       ``shown``
Commit(seats)    ``commit`` by those seats, then ``open`` by them     ``committed``
Random(n)        ``commit`` by every party, then ``open``             ``random``
Disclose(refs)   ``tokens`` by **every** party (each signs the head)  ``disclosed``
(game over)      ``final`` by every party, confirming the result      —
===============  ==================================================  ======================

Besides the expected entry, three kinds may come from anyone: ``abandon`` (the game is closed
because a party is gone: any party *but* the one being waited for may write it), ``accuse``
(written in place of one's own expected entry: evidence that a sealed token sent to the accuser was
bad) and ``expose`` (written in place of one's own expected entry too: another version of an entry
of the log, signed by that entry's writer, which proves it signed two). All three end the game.

:meth:`Table.accept` validates an envelope completely — structure, game id, sequence, chain,
signature, writer, kind, body, every proof and token — and only then changes anything; otherwise
it raises :class:`Rejected` with a reason, and the replica is exactly as before.

The replica never knows which party is "local", and this module holds no secret: one party's
secrets, and the entries it writes with them, are :class:`p2p.party.Party`'s, on top of a replica
of its own (feeding its entries through the very same ``accept``). It imports nothing of that
module, so the fold cannot treat the local party differently.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import inspect
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import (
    COMMITTED,
    DEALT,
    DISCLOSED,
    RANDOM,
    REVEALED,
    SHOWN,
    SHUFFLED,
    Commit,
    Deal,
    Decide,
    Disclose,
    Event,
    Face,
    Game,
    GameOver,
    IllegalMove,
    Random,
    Ref,
    Reveal,
    Show,
    Shuffle,
    Violation,
)
from engine.games import make_game
from p2p import crypto
from p2p.identity import Identity
from p2p.log import ZERO_HASH, Entry, LogError, group_hash, make_entry, pack, parse_envelope, unpack

PROTOCOL_VERSION = 3
"""3: an entry may carry its writer's tokens for the steps it opened (``then``, see ``CARRYING_KINDS``)."""
MAX_PARTIES = 8
PROOF_SYSTEMS = ("wt", "cc")
"""Shuffle proofs a genesis may name: ``wt`` (Wikström–Terelius, soundness ≈ N/q) and ``cc``
(cut-and-choose with ``shuffle_rounds`` rounds, soundness 2^-rounds and grindable; kept only to
measure against and to show, in tests, why the floor is where it is)."""
DEFAULT_PROOF = "wt"
DEFAULT_STALL_AFTER = 300
"""Seconds after which any present party may close a game whose awaited party wrote nothing."""
STALL_AFTER_RANGE = (1, 86_400)
MAX_REASON = 200
"""Longest free-text reason an ``abandon`` may carry."""
IN_PLACE_KINDS = ("accuse", "expose")
"""Kinds a party may write in place of its own expected entry (each ends the game)."""
ANYONE_KINDS = ("abandon", *IN_PLACE_KINDS)


class Rejected(ValueError):
    """An envelope the replica refused; ``str(exc)`` is the reason, ``seat``/``seq`` where known.

    ``provable`` is true only when the writer's own signature proves the fault: the entry is
    validly signed, sits at the right place of the hash chain (so it commits to the whole log
    before it) and still breaks a rule. Anything else — a bad signature, a wrong sequence number,
    a broken chain — could be an outsider's edit or a splice of two logs, and blames nobody."""

    def __init__(
        self, reason: str, seat: int | None = None, seq: int | None = None, *, provable: bool = False
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.seq = seq
        self.provable = provable


class _Broken(Exception):
    """Raised by a handler: the table cannot go on, and no single party can be shown at fault."""


class _Blame(Exception):
    """Raised by a handler: an honest entry shows that another party's earlier entry broke a rule."""

    def __init__(self, seat: int, seq: int, reason: str) -> None:
        super().__init__(reason)
        self.seat, self.seq, self.reason = seat, seq, reason


# Every entry kind's body: exactly these keys with these types (no others: nothing to pad with).
BODY_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "countersign": {"genesis": bytes},
    "keyshare": {"share": bytes, "seal": bytes, "salt": bytes},
    "move": {"move": dict},
    "shuffle": {"pile": list, "proof": bytes},
    "tokens": {"tokens": list},
    "sealed": {"seals": list},
    "commit": {"digest": bytes},
    "open": {"value": bytes, "nonce": bytes},
    "final": {"result": object},
    "abandon": {"reason": str},
    "accuse": {"seal_seq": int, "ref": int, "evidence": bytes},
    "expose": {"seq": int, "evidence": bytes},
}
MOVE_SHAPES = ({"move": dict}, {"move": dict, "late": bool})
"""A move, or (``late``: always true) one its own node played because its player let the table's
deadline pass on a table whose policy says so (``on_stall: "bot"``)."""
LATE_WORDS = " (played for it: its player let the table's deadline pass)"
"""What the words of a move played for a late player end with."""
ON_STALL = ("close", "bot")
"""What a table does when a player lets its deadline pass: close the game naming the seat, or (on the
seat's own node, while it runs) play a safe move for it."""
DEAL_KEYS = ({}, {"seals": list}, {"faces": dict}, {"value": int})
"""Trusted mode: the dealer's entry carries one of these bodies."""
SALT_SIZE = 32
ENTRY_BUDGET = {
    "countersign": 384,
    "keyshare": 640,
    "move": 2048,
    "commit": 384,
    "open": 2048,
    "final": 4096,
    "abandon": 640,
    "accuse": 2048,
    "expose": 65_536,  # the other version of any entry (a shuffle of the largest deck included)
}
"""Largest envelope, in bytes, of each kind of fixed shape; the others scale with their step."""

PER_ITEM_BUDGET = {"tokens": 128, "sealed": 256, "deal": 256}
"""Bytes allowed per token, sealed token or dealt card in entries that scale with their step."""

CONCURRENT_KINDS = frozenset({"countersign", "tokens", "sealed", "commit", "open", "final"})
"""Steps whose writers do not depend on each other's entries: they write at once, each at its
canonical place (``group_start`` + its index among the writers), all extending the same ``prev``
(the head when the step began); the entry after the group extends :func:`group_hash` of them all.
Every one of these entries is a deterministic function of the log and the writer's secrets (a
committed choice is saved before it is sent), so a writer that crashes recomputes the same bytes."""


CARRYING_KINDS = frozenset({"move", "shuffle"})
"""Entries that may carry, under ``then``, the tokens their writer owes for the steps the entry itself
began: a move's own card turned over, the next card dealt to someone else, the disclosure at a
round's end. One entry instead of a move and one to three token entries after it, each with its
header, signature, fsync and network hop. These kinds are written in sequence (never ahead of their
place), so the writer knows exactly which steps its entry begins, and after a crash it recomputes the
same bytes. Each carried part is bound to its own context (label ``then<i>``)."""
MAX_CARRIED_PARTS = 8
"""At most this many steps' tokens ride in one entry (a move opens at most a reveal, a deal, a
disclosure and the deal of a new round in a row)."""


REASON_LIMIT = 300
"""Longest piece of a writer's own data (a refused option's value, a field's name) quoted in a reason."""


def bounded(text: str, limit: int = REASON_LIMIT) -> str:
    """``text`` cut to ``limit`` characters (with ``…``): a reason that quotes what a writer signed
    must not grow with it (a genesis has no budget, an envelope may be 8 MiB)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def field_names(keys: Any, shown: int = 8) -> str:
    """Map keys of any msgpack type (str, int, bytes...), in words, bounded: ``['a', 1, b'x']``."""
    names = sorted(bounded(repr(k), 40) for k in keys)
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return "[" + ", ".join(names[:shown]) + "]" + more


def statement(kind: bytes, *parts: bytes) -> bytes:
    """A digest naming one proof statement exactly (every input, length-prefixed): what
    :attr:`Table.verified` remembers once the statement has been checked."""
    digest = hashlib.sha256(b"fairdeck-statement\0" + kind)
    for part in parts:
        digest.update(len(part).to_bytes(4, "big") + part)
    return digest.digest()


def carried_label(index: int) -> bytes:
    """Context label of the ``index``-th part an entry carries."""
    return b"then%d" % index


def shuffle_statement(
    ctx: bytes, key: crypto.Point, pile_in: Sequence[bytes], pile_out: Sequence[bytes], proof: bytes
) -> bytes:
    """The statement a shuffle proof proves (see :func:`statement`)."""
    return statement(b"shuffle", ctx, key.to_bytes(), *pile_in, b"->", *pile_out, proof)


def verify_shuffle_proof(
    proof_system: str,
    rounds: int,
    key: crypto.Point,
    pile_in: Sequence[bytes],
    pile_out: Sequence[bytes],
    proof: Any,
    ctx: bytes,
) -> None:
    """Check a shuffle proof of the table's proof system (``wt``, or cut-and-choose with ``rounds``);
    raise :class:`p2p.crypto.CryptoError` if it does not hold."""
    if proof_system == "wt":
        crypto.verify_shuffle_wt(pile_in, pile_out, proof, key, ctx)
    else:
        crypto.verify_shuffle(pile_in, pile_out, proof, key, rounds, ctx)


def token_statement(ctx: bytes, share: crypto.Point, ciphertext: bytes, token: bytes) -> bytes:
    """The statement a reveal token's proof proves (see :func:`statement`)."""
    return statement(b"token", ctx, share.to_bytes(), ciphertext, token)


def carried_parts(body: Mapping[str, Any]) -> list[list[Any]]:
    """The token lists a (well-formed) body carries; empty if none."""
    parts = body.get("then")
    return parts if isinstance(parts, list) else []


def _of_type(value: Any, kind: type) -> bool:
    """``isinstance``, except that a boolean is no integer (``seq: true`` is not entry 1)."""
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def check_body_shape(kind: str, body: dict[str, Any]) -> str | None:
    """Why ``body`` is not a well-formed ``kind`` body, or ``None`` if it is."""
    if kind == "deal":
        shapes = DEAL_KEYS
    elif kind == "move":
        shapes = MOVE_SHAPES
    elif kind in BODY_SCHEMA:
        shapes = (BODY_SCHEMA[kind],)
    else:
        return f"unknown entry kind {kind!r}"
    if "then" in body and kind in CARRYING_KINDS:
        parts = body["then"]
        if not (
            isinstance(parts, list)
            and 0 < len(parts) <= MAX_CARRIED_PARTS
            and all(
                isinstance(part, list)
                and all(
                    isinstance(i, list) and len(i) == 2 and type(i[0]) is int and isinstance(i[1], bytes)
                    for i in part
                )
                for part in parts
            )
        ):
            return f"then must be 1 to {MAX_CARRIED_PARTS} lists of [ref, token] pairs"
        body = {k: v for k, v in body.items() if k != "then"}
    for shape in shapes:
        if set(body) == set(shape) and all(_of_type(body[k], t) for k, t in shape.items()):
            return None
    wanted = " or ".join("{" + ", ".join(f"{k}: {t.__name__}" for k, t in sh.items()) + "}" for sh in shapes)
    return f"a {kind!r} body must be exactly {wanted}"


# ---------------------------------------------------------------------------------------------
# Genesis
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartyInfo:
    """A party as the genesis seats it. Parties ``0..seats-1`` are the players' seats in order;
    any further parties are witnesses (they deal and sign but never play)."""

    name: str
    key: bytes
    curve: bytes = b""
    fresh: bytes = b""
    """A value the party drew as it joined this table (absent before wave 2 session 16): a genesis
    carries it back, so an opener cannot seat a party with a genesis it already countersigned once."""


def make_genesis(
    opener: Identity,
    game_id: bytes,
    body: dict[str, Any],
) -> bytes:
    """Sign entry 0 as the opener (party 0); the others countersign it in entries 1..P-1."""
    return make_entry(opener, game_id, 0, ZERO_HASH, 0, "genesis", body).envelope


def genesis_body(
    game: str,
    seats: int,
    parties: Sequence[PartyInfo],
    options: Mapping[str, Any] | None = None,
    shuffle_rounds: int = crypto.DEFAULT_SHUFFLE_ROUNDS,
    mode: str = "fair",
    *,
    proof: str = DEFAULT_PROOF,
    stall_after: int = DEFAULT_STALL_AFTER,
    on_stall: str = "close",
) -> dict[str, Any]:
    """The body of entry 0, as the opener proposes it. ``mode`` is ``"fair"`` (mental poker) or
    ``"trusted"`` (party 0 deals with a seeded generator and sees every card: the baseline that
    the fair mode is measured against, never a way to play with people you do not trust).
    ``proof`` names the shuffle proof system (``shuffle_rounds`` matters only for ``"cc"``);
    ``stall_after`` is the table's deadline in seconds for closing a stalled game; ``on_stall`` is
    ``"close"`` or ``"bot"`` (a player that lets the deadline pass has its move played by its own
    node; the game is closed only if that node is gone too). A joiner's node checks all of it
    against its policy (``p2p.policy``) before countersigning."""
    extra = {"on_stall": on_stall} if on_stall != "close" else {}  # (absent: the older, closing rule)
    return {
        **extra,
        "mode": mode,
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "seats": seats,
        "options": dict(options or {}),
        "parties": [
            {"name": p.name, "key": p.key, "curve": p.curve, **({"fresh": p.fresh} if p.fresh else {})}
            for p in parties
        ],
        "proof": proof,
        "shuffle_rounds": shuffle_rounds,
        "stall_after": stall_after,
    }


def context(game_id: bytes, seq: int, party: int, label: bytes = b"") -> bytes:
    """The binding every proof, token and commitment of one entry carries."""
    return hashlib.sha256(b"fairdeck-ctx\0" + game_id + struct.pack(">QH", seq, party) + label).digest()


# ---------------------------------------------------------------------------------------------
# Steps: how one engine request is resolved by entries
# ---------------------------------------------------------------------------------------------


@dataclass
class Step:
    """The request being resolved, the writers still owed, and what was gathered so far."""

    kind: str
    """Entry kind the next writer must write."""
    writers: list[int]
    """Parties still to write, in order; ``writers[0]`` writes next."""
    request: Any = None
    start_seq: int = 0
    owed: dict[int, list[Any]] = field(default_factory=dict)
    """Per party: refs (tokens) or (ref, to) pairs (seals) it must provide."""
    pile: list[bytes] = field(default_factory=list)
    """Shuffle: the current ciphertexts of the pile."""
    digests: dict[int, bytes] = field(default_factory=dict)
    openings: dict[int, bytes] = field(default_factory=dict)
    open_seqs: dict[int, int] = field(default_factory=dict)
    """Commit steps: the entry in which each party opened."""
    group: list[int] = field(default_factory=list)
    """A concurrent step (phase): every writer, in canonical order; empty for a sequential step."""
    group_start: int = 0
    """The seq of the group's first entry; writer ``group[i]`` writes entry ``group_start + i``."""
    base: bytes = b""
    """The chain head when the group began: every member's ``prev``."""
    members: list[bytes] = field(default_factory=list)
    """Hashes of the group's entries applied so far."""
    phase: str = ""


@dataclass
class Finding:
    """A fault the replica proved: who (``None``: no one party can be blamed), at which entry, why."""

    seat: int | None
    seq: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """Plain form for reports."""
        return {"seat": self.seat, "seq": self.seq, "reason": self.reason}


class Table:
    """The public replica of one game; see the module docstring."""

    def __init__(self, genesis_envelope: bytes) -> None:
        try:
            entry = parse_envelope(genesis_envelope)
        except LogError as exc:
            raise Rejected(f"genesis: {exc}", None, 0) from None
        self.game_id = entry.game
        body = entry.body
        self._check_genesis(entry)
        self.parties = [
            PartyInfo(p["name"], p["key"], p.get("curve", b""), p.get("fresh", b"")) for p in body["parties"]
        ]
        if not entry.signed_by(self.parties[0].key):
            raise Rejected("genesis is not signed by party 0 (the opener)", 0, 0)
        self.seats: int = body["seats"]
        self.shuffle_rounds: int = body["shuffle_rounds"]
        self.proof: str = body["proof"]
        self.stall_after: int = body["stall_after"]
        self.on_stall: str = body.get("on_stall", "close")
        self.late_moves: list[int] = []
        """Entries whose move the writer's own node played when its player let the deadline pass."""
        self.mode: str = body["mode"]
        self.deal_requests: dict[int, Any] = {}  # trusted mode: the request each dealer entry answered
        try:
            self.game: Game = make_game(body["game"], self.seats, body["options"])
        except (ValueError, TypeError) as exc:
            # (a refused option's value is the opener's to choose, as long as the genesis: the words
            # that quote it are cut, or one entry could make every report megabytes long)
            raise Rejected(f"genesis: {bounded(str(exc))}", 0, 0) from None
        self.deck: tuple[Face, ...] = self.game.deck()
        # a plug-in game written before ``check`` took ``states`` is still checked, by replaying
        self._check_takes_states = "states" in inspect.signature(self.game.check).parameters
        self.codec = crypto.CardCodec(self.deck)
        self.genesis = entry
        self.entries: list[Entry] = [entry]
        self._chain: bytes = entry.hash
        self.state = self.game.initial_state()
        self.history: list[Event] = []
        self.states: list[Any] = [self.state]  # states[i] came before history[i]; the last is self.state
        self.event_seq: list[int] = []  # seq of the entry that completed each engine event
        self.event_seats: dict[int, dict[int, int]] = {}  # committed events: seat -> its open entry
        self.private_refs: dict[Ref, int] = {}  # refs dealt or shown privately -> the recipient
        self.salts: dict[int, bytes] = {}
        self._own = False  # the entry being accepted was made by the local party (see ``accept``)
        self.shares: dict[int, crypto.Point] = {}
        self.seal_keys: dict[int, bytes] = {}
        self.table_key: crypto.Point | None = None
        self.cts: list[bytes] = []
        self.tokens: dict[Ref, dict[int, crypto.Point]] = {}
        self.verified: set[bytes] = set()
        """Proof statements (:func:`statement`) already found true — by a worker thread, before the
        entry that makes them came to be applied (``Party.precheck``), or when an entry was applied:
        they are not checked again. A pure cache (the same statement always has the same answer),
        shared by forks; an audit in the same process may start from it (``replay.audit``)."""
        self.token_log: list[Ref] = []
        """The ref of every token added to :attr:`tokens`, in order (a party reads on from where it
        stopped to find the cards it may now open)."""
        self.private_log: list[Ref] = []
        """The ref of every entry set in :attr:`private_refs`, in order (read on the same way)."""
        self.seals: list[tuple[int, int, Ref, int, bytes]] = []  # (seq, from, ref, to, blob)
        self.public_faces: dict[Ref, Face] = dict(enumerate(self.deck))
        self.findings: list[Finding] = []
        self.finals: dict[int, dict[str, Any]] = {}
        self.ended: str | None = None  # "over", "abandoned", "accused"
        self.step = Step("countersign", list(range(1, len(self.parties))), start_seq=1)
        self._open_group()
        if not self.step.writers:
            self._start_keyshares()

    # -- inspection ---------------------------------------------------------------------------
    @property
    def head(self) -> bytes:
        """Hash of the last accepted envelope."""
        return self.entries[-1].hash

    @property
    def chain_head(self) -> bytes:
        """What the next entry's ``prev`` must be: the last entry's hash, or, inside a concurrent
        group, the head when the group began; after a group, the hash of all its entries."""
        return self._chain

    def _open_group(self) -> None:
        """Make the current step concurrent (see ``CONCURRENT_KINDS``) from here on."""
        step = self.step
        if step.kind in CONCURRENT_KINDS and step.writers:
            step.group, step.group_start, step.base, step.members = (
                list(step.writers), self.next_seq, self._chain, []
            )
        else:
            step.group, step.members = [], []

    def ahead_place(self, party: int) -> tuple[int, bytes] | None:
        """``(seq, prev)`` at which ``party`` may write its entry of the current concurrent step
        now, ahead of the writers before it, or ``None``."""
        step = self.step
        if self.ended is not None or not step.group or party not in step.writers:
            return None
        return step.group_start + step.group.index(party), step.base
    @property
    def next_seq(self) -> int:
        """Sequence number of the next entry."""
        return len(self.entries)

    def expected(self) -> tuple[int, str] | None:
        """``(party, kind)`` of the next entry, or ``None`` once the game has ended."""
        if self.ended is not None:
            return None
        return self.step.writers[0], self.step.kind

    def seat_of_key(self, key: bytes) -> int | None:
        """The party index holding signing key ``key``."""
        for index, party in enumerate(self.parties):
            if party.key == key:
                return index
        return None

    # -- validation of the genesis ---------------------------------------------------------------
    @staticmethod
    def _check_genesis(entry: Entry) -> None:
        body = entry.body
        if entry.seq != 0 or entry.prev != ZERO_HASH or entry.kind != "genesis" or entry.seat != 0:
            raise Rejected(
                "entry 0 must be a genesis written by party 0 with a zero prev hash", entry.seat, 0
            )
        required = {
            "mode": str,
            "protocol": int,
            "game": str,
            "seats": int,
            "options": dict,
            "parties": list,
            "proof": str,
            "shuffle_rounds": int,
            "stall_after": int,
        }
        for key, typ in required.items():
            if not _of_type(body.get(key), typ):  # (``seats: true`` is no number of seats)
                raise Rejected(f"genesis: field {key!r} missing or not a {typ.__name__}", 0, 0)
        if set(body) - {"on_stall"} != set(required):
            # (its keys may be of any msgpack type: str, int and bytes do not sort together)
            raise Rejected(f"genesis: unknown fields {field_names(set(body) - set(required))}", 0, 0)
        if body.get("on_stall", "close") not in ON_STALL:
            raise Rejected(f"genesis: on_stall must be one of {', '.join(ON_STALL)}", 0, 0)
        if body["protocol"] != PROTOCOL_VERSION:
            raise Rejected(f"genesis: protocol {body['protocol']} is not {PROTOCOL_VERSION}", 0, 0)
        parties = body["parties"]
        if not 1 <= len(parties) <= MAX_PARTIES or not 1 <= body["seats"] <= len(parties):
            raise Rejected("genesis: bad number of parties or seats", 0, 0)
        keys = set()
        for p in parties:
            if not (
                isinstance(p, dict)
                and isinstance(p.get("name"), str)
                and isinstance(p.get("key"), bytes)
                and len(p["key"]) == 32
                and isinstance(p.get("curve", b""), bytes)
                and isinstance(p.get("fresh", b""), bytes)
                and len(p.get("fresh", b"")) <= 32
            ):
                raise Rejected("genesis: each party needs a name and a 32-byte key", 0, 0)
            if extra := set(p) - {"name", "key", "curve", "fresh"}:  # (nothing the parties did not all see)
                raise Rejected(f"genesis: a party with unknown fields {field_names(extra)}", 0, 0)
            keys.add(p["key"])
        if len(keys) != len(parties):
            raise Rejected("genesis: two parties share a key", 0, 0)
        if body.get("mode", "fair") not in ("fair", "trusted"):
            raise Rejected("genesis: mode must be 'fair' or 'trusted'", 0, 0)
        if not 1 <= body["shuffle_rounds"] <= crypto.MAX_SHUFFLE_ROUNDS:
            raise Rejected(f"genesis: shuffle_rounds must be in 1..{crypto.MAX_SHUFFLE_ROUNDS}", 0, 0)
        if body["proof"] not in PROOF_SYSTEMS:
            raise Rejected(f"genesis: proof must be one of {', '.join(PROOF_SYSTEMS)}", 0, 0)
        low, high = STALL_AFTER_RANGE
        if not low <= body["stall_after"] <= high:
            raise Rejected(f"genesis: stall_after must be {low}..{high} seconds", 0, 0)

    # -- the fold -------------------------------------------------------------------------------
    def accept(
        self, envelope: bytes, *, own: bool = False, signed: bool = False
    ) -> tuple[Entry, list[tuple[Any, Event]]]:
        """Validate and apply one envelope; return it and the engine events it completed
        (each with the state *before* it). Raises :class:`Rejected` and changes nothing otherwise.

        ``own``: the envelope was just made and signed by the local party from this very replica, so
        its signature, shuffle proof and token proofs are not checked again (every other party
        checks them). ``signed``: these very bytes were already found signed by the party at their
        ``seat`` (while they waited for their place, or before they were applied)."""
        self._own = own
        try:
            entry = parse_envelope(envelope)
        except LogError as exc:
            raise Rejected(str(exc)) from None
        seq, seat = entry.seq, entry.seat
        if entry.game != self.game_id:
            raise Rejected("entry belongs to another game", seat, seq)
        if seq != self.next_seq:
            raise Rejected(f"entry has seq {seq}, expected {self.next_seq}", seat, seq)
        if entry.prev != self._chain:
            if self.ended is not None:  # e.g. a fellow member written ahead, before it knew of the end
                raise Rejected(f"entry comes after the game ended at entry {seq - 1}", seat, seq)
            raise Rejected("entry does not extend this log's hash chain", seat, seq)
        if seat >= len(self.parties):
            raise Rejected(f"seat {seat} is not at this table", seat, seq)
        if not (own or signed) and not entry.signed_by(self.parties[seat].key):
            raise Rejected(f"signature does not verify for seat {seat}", seat, seq)
        expected = self.expected()
        if expected is None:
            raise Rejected("the game has ended; no more entries are accepted", seat, seq)
        writer, kind = expected
        # From here on the entry is signed by its writer and extends this very chain, so it commits
        # to everything before it: whatever is wrong with it now is its writer's own doing.
        if entry.kind == "abandon":
            if seat == writer:
                raise Rejected(
                    "the party being waited for cannot abandon; it should play", seat, seq, provable=True
                )
        elif seat != writer and entry.kind != "expose":
            # (an ``expose`` proves itself, so anyone may write one at the next place: a table split
            # by a writer that sent one version to some parties and another to the rest may never
            # reach an honest writer's own turn again)
            raise Rejected(
                f"out of turn: seat {writer} must write the next entry ({kind})", seat, seq, provable=True
            )
        elif entry.kind != kind and entry.kind not in IN_PLACE_KINDS:
            raise Rejected(
                f"seat {seat} must write a {kind!r} entry now, not {entry.kind!r}", seat, seq, provable=True
            )
        budget = self.entry_budget(entry.kind) + self.carried_budget(entry)
        if len(envelope) > budget:
            raise Rejected(
                f"a {entry.kind!r} entry of {len(envelope)} bytes exceeds its {budget}-byte budget",
                seat,
                seq,
                provable=True,
            )
        shape = check_body_shape(entry.kind, entry.body)
        if entry.kind == "abandon":
            if shape is not None:
                raise Rejected(shape, seat, seq, provable=True)
            if len(entry.body["reason"]) > MAX_REASON:
                raise Rejected(
                    f"an abandon reason has at most {MAX_REASON} characters", seat, seq, provable=True
                )
            return entry, self._commit(entry, self._abandon(entry))
        if shape is not None:
            # the expected writer signed a malformed entry: it joins the log as proof, and ends the game
            return entry, self._commit(entry, self._faulted(entry, shape))
        if entry.kind in IN_PLACE_KINDS or not carried_parts(entry.body):
            return entry, self._apply(entry, kind)
        # An entry with carried parts is checked whole on a copy, and the copy is adopted only if
        # every part holds: a part that breaks a rule makes the entry proof against its writer, and
        # nothing in it is used (exactly as for any other entry that breaks a rule).
        trial = self.fork()
        events = trial._apply(entry, kind)
        if trial.ended != "faulted":
            try:
                for index, items in enumerate(carried_parts(entry.body)):
                    events += trial._carried_tokens(entry, index, items)
            except _Broken as exc:
                return entry, self._commit(entry, self._faulted(entry, str(exc), blame=None))
            except Rejected as exc:
                return entry, self._commit(entry, self._faulted(entry, exc.reason))
            except (crypto.CryptoError, IllegalMove, KeyError, TypeError, ValueError, IndexError) as exc:
                return entry, self._commit(entry, self._faulted(entry, f"carried tokens refused: {exc}"))
        self.__dict__.update(trial.__dict__)
        return entry, events

    def _apply(self, entry: Entry, kind: str) -> list[tuple[Any, Event]]:
        """Run the handler of an entry that is the expected writer's, well formed and within its
        budget; append it, as proof against its writer if it breaks a rule."""
        handlers = {"accuse": self._accuse, "expose": self._expose}
        handler: Callable[[Entry], Callable[[], list[tuple[Any, Event]]]] = handlers.get(
            entry.kind, getattr(self, f"_on_{kind}")
        )
        try:
            apply_changes = handler(entry)
        except _Broken as exc:
            return self._commit(entry, self._faulted(entry, str(exc), blame=None))
        except _Blame as exc:
            return self._commit(entry, self._faulted_other(entry, exc))
        except Rejected as exc:
            return self._commit(entry, self._faulted(entry, exc.reason))
        except (crypto.CryptoError, IllegalMove, KeyError, TypeError, ValueError, IndexError) as exc:
            return self._commit(entry, self._faulted(entry, f"{entry.kind} entry refused: {exc}"))
        return self._commit(entry, apply_changes)

    def fork(self) -> Table:
        """A copy of this replica that can take entries without changing this one. Its lists and
        maps are copied one level deep: what they hold (entries, events, engine states, points,
        per-ref token maps) is never changed in place, only replaced."""
        twin = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, list | dict):
                setattr(twin, name, value.copy())
        twin.step = dataclasses.replace(
            self.step,
            **{
                f.name: getattr(self.step, f.name).copy()
                for f in dataclasses.fields(self.step)
                if isinstance(getattr(self.step, f.name), dict | list)
            },
        )
        return twin

    def carried_budget(self, entry: Entry) -> int:
        """Bytes an entry may add for the tokens it carries: as for a tokens entry per token, at
        most two tokens per card of the deck (a reveal and a deal cannot owe more)."""
        parts = carried_parts(entry.body) if entry.kind in CARRYING_KINDS else []
        items = sum(len(p) for p in parts if isinstance(p, list))
        if items > 2 * len(self.deck):
            raise Rejected(f"an entry carries {items} tokens: more than any step can owe",
                           entry.seat, entry.seq, provable=True)  # fmt: skip
        # only as many parts as a body may hold: a "then" of thousands of empty parts is no more
        # room than eight (it is then refused as malformed, kept as proof within the budget)
        return 64 * min(len(parts), MAX_CARRIED_PARTS) + PER_ITEM_BUDGET["tokens"] * items

    def _carried_tokens(self, entry: Entry, index: int, items: list[Any]) -> list[tuple[Any, Event]]:
        """Apply the ``index``-th part an entry carries: its writer's tokens for a step the entry
        itself began (the step must still be at its start: the entry's own seq + 1, nothing written)."""
        step, seat = self.step, entry.seat
        if (
            self.ended is not None
            or step.kind != "tokens"
            or seat not in step.writers
            or step.group_start != entry.seq + 1
            or step.members
        ):
            raise Rejected(f"carried part {index}: seat {seat} owes no tokens to a step this entry began",
                           seat, entry.seq)  # fmt: skip
        record = self._token_change(seat, entry.seq, items, carried_label(index))
        record()
        step.writers.remove(seat)
        step.group.remove(seat)
        return [] if step.writers else self._complete_tokens()

    def entry_budget(self, kind: str) -> int:
        """The largest envelope, in bytes, a ``kind`` entry may have at this step (see
        ``docs/protocol.md``): a party cannot make every other party's log grow by padding."""
        if kind in ENTRY_BUDGET:
            return ENTRY_BUDGET[kind]
        step = self.step
        if kind == "shuffle":
            cards = len(step.pile)
            if self.proof == "cc":
                per_card = 66 + 34 * self.shuffle_rounds
                return 1024 + cards * per_card + 33 * self.shuffle_rounds
            return 2048 + cards * 512
        request = step.request
        items = 0
        if isinstance(request, Deal):
            items = len(request.deals)
        elif isinstance(request, Show):
            items = len(request.shows)
        elif isinstance(request, Reveal | Disclose):
            items = len(request.refs)
        return 512 + PER_ITEM_BUDGET.get(kind, 64) * max(items, 1)

    def _faulted(self, entry: Entry, reason: str, blame: int | None | str = "writer") -> Callable[[], list]:
        """The change for a signed entry that breaks a rule: it is kept as proof and ends the game."""
        seat = entry.seat if blame == "writer" else blame

        def run() -> list:
            self.findings.append(Finding(seat, entry.seq, reason))  # type: ignore[arg-type]
            self.ended = "faulted"
            return []

        return run

    def _faulted_other(self, entry: Entry, exc: _Blame) -> Callable[[], list]:
        """An entry that shows an earlier entry of another party broke a rule."""

        def run() -> list:
            self.findings.append(Finding(exc.seat, exc.seq, exc.reason))
            self.ended = "faulted"
            return []

        return run

    def _commit(self, entry: Entry, apply_changes: Callable[[], list[tuple[Any, Event]]]) -> list:
        """Run a validated handler's mutations and append the entry."""
        self.entries.append(entry)
        step = self.step
        if step.group and entry.kind in CONCURRENT_KINDS and entry.seat == step.writers[0]:
            step.members.append(entry.hash)
            done = len(step.members) == len(step.group)
            # inside a group every member extends the group's base; after it, the group's hash
            self._chain = group_hash(step.members) if done else step.base
        else:
            self._chain = entry.hash
        return apply_changes()

    def _advance(self) -> None:
        """Drop the writer who just wrote."""
        self.step.writers.pop(0)

    # -- setup ----------------------------------------------------------------------------------
    def _on_countersign(self, entry: Entry) -> Callable[[], list]:
        if entry.body.get("genesis") != self.genesis.hash:
            raise Rejected("countersignature is not over this genesis", entry.seat, entry.seq)

        def run() -> list:
            self._advance()
            if not self.step.writers:
                self._start_keyshares()
            return []

        return run

    def _start_keyshares(self) -> None:
        self.step = Step("keyshare", list(range(len(self.parties))), start_seq=self.next_seq)

    def _on_keyshare(self, entry: Entry) -> Callable[[], list]:
        share_blob, seal, salt = entry.body["share"], entry.body["seal"], entry.body["salt"]
        if len(salt) != SALT_SIZE:
            raise Rejected(f"keyshare needs a {SALT_SIZE}-byte salt", entry.seat, entry.seq)
        crypto.validate_seal_public(seal)  # a malformed or small-order key would stall its senders
        point = crypto.verify_key_share(share_blob, context(self.game_id, 0, entry.seat, b"keyshare"))

        def run() -> list:
            self.shares[entry.seat] = point
            self.seal_keys[entry.seat] = seal
            self.salts[entry.seat] = salt
            self._advance()
            if not self.step.writers:
                self.table_key = crypto.table_key([self.shares[p] for p in range(len(self.parties))])
                self.cts = [crypto.open_ciphertext(face, self.table_key) for face in self.deck]
                return self._next_request()
            return []

        return run

    # -- engine-driven steps ---------------------------------------------------------------------
    def _next_request(self) -> list[tuple[Any, Event]]:
        """Set up the step for whatever the engine wants now (after an event or the setup)."""
        request = self.game.pending(self.state)
        everyone = list(range(len(self.parties)))
        start = self.next_seq
        if isinstance(request, GameOver):
            self.step = Step("final", everyone, request, start)
        elif self.mode == "trusted" and isinstance(
            request, Shuffle | Deal | Show | Reveal | Disclose | Random
        ):
            self.step = Step("deal", [0], request, start)  # the trusted dealer resolves it alone
        elif isinstance(request, Decide):
            self.step = Step("move", [request.seat], request, start)
        elif isinstance(request, Shuffle):
            self.step = Step("shuffle", everyone, request, start, pile=[self.cts[r] for r in request.refs])
        elif isinstance(request, Deal | Reveal | Disclose):
            if isinstance(request, Deal):
                wanted = [(ref, seat) for ref, seat in request.deals]
            else:
                wanted = [(ref, None) for ref in request.refs]
            owed = {
                p: [ref for ref, to in wanted if p != to and p not in self.tokens.get(ref, {})]
                for p in everyone
            }
            self._set_private([(ref, to) for ref, to in wanted if to is not None])
            writers = everyone if isinstance(request, Disclose) else [p for p in everyone if owed[p]]
            self.step = Step("tokens", writers, request, start, owed=owed)
            if not writers:
                return self._complete_tokens()
        elif isinstance(request, Show):
            self._set_private([(ref, to) for ref, to in request.shows])
            owed = {
                p: [(ref, to) for ref, to in request.shows if p != to and p not in self.tokens.get(ref, {})]
                for p in everyone
            }
            writers = [p for p in everyone if owed[p]]
            self.step = Step("sealed", writers, request, start, owed=owed)
            if not writers:
                return self._finish(Event(SHOWN))
        elif isinstance(request, Commit):
            self.step = Step("commit", sorted(request.seats), request, start, phase="commit")
        elif isinstance(request, Random):
            self.step = Step("commit", everyone, request, start, phase="commit")
        else:  # pragma: no cover - the engine's vocabulary is closed
            raise TypeError(f"unknown request {request!r}")
        self._open_group()
        return []

    def _set_private(self, pairs: Sequence[tuple[Ref, int]]) -> None:
        """Record refs dealt or shown privately, and to whom."""
        self.private_refs.update(pairs)
        self.private_log.extend(ref for ref, _ in pairs)

    def _finish(self, event: Event) -> list[tuple[Any, Event]]:
        """Apply a completed engine event and set up the next step."""
        before = self.state
        self.state = self.game.apply(self.state, event)
        self.history.append(event)
        self.states.append(self.state)
        self.event_seq.append(self.next_seq - 1)
        done = [(before, event)]
        if event.kind == DISCLOSED:
            self._run_check()
        return done + self._next_request()

    def _run_check(self) -> None:
        """After a disclosure, report every broken claim with the entry that made it."""
        known = {v.seq for v in self.findings}
        if self._check_takes_states:  # the states the table went through spare a whole replay
            found = self.game.check(self.history, self.public_faces, states=self.states)
        else:
            found = self.game.check(self.history, self.public_faces)
        for violation in found:
            seq = self.event_seq[violation.index] if violation.index < len(self.event_seq) else -1
            # a claim made in a committed choice was signed in that seat's own opening
            seq = self.event_seats.get(violation.index, {}).get(violation.seat, seq)
            if seq not in known:
                self.findings.append(Finding(violation.seat, seq, violation.reason))

    def _on_deal(self, entry: Entry) -> Callable[[], list]:
        """Trusted mode: the dealer's answer to a table operation (checked for shape only)."""
        request, body = self.step.request, entry.body
        if isinstance(request, Shuffle):
            event = Event(SHUFFLED)
        elif isinstance(request, Deal | Show):
            wanted = list(request.deals if isinstance(request, Deal) else request.shows)
            seals = body.get("seals")
            if not isinstance(seals, list) or [
                (i[0], i[1]) for i in seals if isinstance(i, list) and len(i) == 3 and isinstance(i[2], bytes)
            ] != [tuple(w) for w in wanted]:
                raise Rejected(f"the dealer must seal exactly {wanted}", entry.seat, entry.seq)
            event = Event(DEALT if isinstance(request, Deal) else SHOWN)
        elif isinstance(request, Reveal | Disclose):
            faces = body.get("faces")
            if (
                not isinstance(faces, dict)
                or set(faces) != set(request.refs)
                or any(f not in self.codec_faces for f in faces.values())
            ):
                raise Rejected(
                    f"the dealer must reveal exactly refs {list(request.refs)}", entry.seat, entry.seq
                )
            event = Event(
                REVEALED if isinstance(request, Reveal) else DISCLOSED, None, {"faces": dict(faces)}
            )
        else:
            event = Event(RANDOM, None, {"value": body.get("value")})
        self.game.apply(self.state, event)  # validates the dealer's answer before anything changes

        def run() -> list:
            self.deal_requests[entry.seq] = request
            if event.kind in (REVEALED, DISCLOSED):
                self.public_faces.update(event.data["faces"])
            if event.kind in (DEALT, SHOWN):
                self.seals.extend((entry.seq, 0, ref, to, blob) for ref, to, blob in body["seals"])
            return self._finish(event)

        return run

    @property
    def codec_faces(self) -> frozenset[str]:
        """Every face of this game's deck."""
        return frozenset(self.deck)

    def _on_move(self, entry: Entry) -> Callable[[], list]:
        late = "late" in entry.body
        if late and (entry.body["late"] is not True or self.on_stall != "bot"):
            raise Rejected("a move marked late needs late: true on a table whose policy plays them",
                           entry.seat, entry.seq)  # fmt: skip
        event = Event.move(entry.seat, entry.body["move"])
        after = self.game.apply(self.state, event)  # raises IllegalMove: nothing changed

        def run() -> list:
            before = self.state
            if late:
                self.late_moves.append(entry.seq)
            self.state = after
            self.history.append(event)
            self.states.append(after)
            self.event_seq.append(entry.seq)
            return [(before, event)] + self._next_request()

        return run

    def _on_shuffle(self, entry: Entry) -> Callable[[], list]:
        pile, proof = entry.body["pile"], entry.body["proof"]
        step = self.step
        if len(pile) != len(step.pile) or not all(isinstance(c, bytes) for c in pile):
            raise Rejected(
                f"shuffle needs a pile of {len(step.pile)} ciphertexts and a proof", entry.seat, entry.seq
            )
        assert self.table_key is not None
        ctx = context(self.game_id, entry.seq, entry.seat, b"shuffle")
        if not self._own:  # our own proof: every other party checks it
            claim = shuffle_statement(ctx, self.table_key, step.pile, pile, proof)
            if claim not in self.verified:  # else checked already (off the event loop, or earlier)
                verify_shuffle_proof(
                    self.proof, self.shuffle_rounds, self.table_key, step.pile, pile, proof, ctx
                )
                self.verified.add(claim)

        def run() -> list:
            step.pile = list(pile)
            self._advance()
            if step.writers:
                return []
            self.cts.extend(step.pile)
            return self._finish(Event(SHUFFLED))

        return run

    def _on_tokens(self, entry: Entry) -> Callable[[], list]:
        record = self._token_change(entry.seat, entry.seq, entry.body["tokens"], b"token")

        def run() -> list:
            record()
            self._advance()
            return [] if self.step.writers else self._complete_tokens()

        return run

    def _token_change(self, seat: int, seq: int, items: list[Any], label: bytes) -> Callable[[], None]:
        """Check ``seat``'s tokens for the current step (written in entry ``seq``, bound to
        ``label``); return the change that records them."""
        owed = self.step.owed[seat]
        # (a ref is an integer, never a boolean: ``[true, token]`` is not a token for ref 1)
        if any(not (isinstance(i, list) and len(i) == 2 and type(i[0]) is int) for i in items):
            raise Rejected("tokens must be a list of [ref, token] pairs", seat, seq)
        if [i[0] for i in items] != owed:
            given = ", ".join(repr(i[0])[:12] for i in items[:8]) + (", …" if len(items) > 8 else "")
            raise Rejected(
                f"seat {seat} owes tokens for refs {owed}, in that order, but gave them for [{given}]",
                seat,
                seq,
            )
        ctx = context(self.game_id, seq, seat, label)
        if self._own:  # our own tokens: every other party checks their proofs
            verified = [(ref, crypto.Point.from_bytes(tok[: crypto.POINT_SIZE])) for ref, tok in items]
        else:
            share = self.shares[seat]
            verified = []
            for ref, tok in items:
                claim = token_statement(ctx, share, self.cts[ref], tok) if isinstance(tok, bytes) else None
                if claim is not None and claim in self.verified:
                    point = crypto.Point.from_bytes(tok[: crypto.POINT_SIZE])
                else:
                    point = crypto.verify_token(share, self.cts[ref], tok, ctx)  # raises unless it holds
                    if claim is not None:
                        self.verified.add(claim)
                verified.append((ref, point))
        request = self.step.request
        if self.step.writers == [seat] and isinstance(request, Reveal | Disclose):
            # the last tokens open the cards: every one must be a card of this deck
            mine = dict(verified)
            for ref in request.refs:
                points = {**self.tokens.get(ref, {}), **({seat: mine[ref]} if ref in mine else {})}
                try:
                    self.codec.decode(crypto.unmask(self.cts[ref], [points[p] for p in sorted(points)]))
                except crypto.CryptoError:
                    raise _Broken(
                        f"ref {ref} opens to no card of this deck: a shuffle of its pile let a forged "
                        "card through (every token was proved correct, so no token writer is at fault)"
                    ) from None

        def record() -> None:
            for ref, point in verified:
                self.tokens[ref] = {**self.tokens.get(ref, {}), seat: point}  # replaced: see fork
                self.token_log.append(ref)

        return record

    def _complete_tokens(self) -> list[tuple[Any, Event]]:
        request = self.step.request
        if isinstance(request, Deal):
            return self._finish(Event(DEALT))
        faces = {ref: self._decrypt_public(ref) for ref in request.refs}
        self.public_faces.update(faces)
        return self._finish(
            Event(REVEALED if isinstance(request, Reveal) else DISCLOSED, None, {"faces": faces})
        )

    def _decrypt_public(self, ref: Ref) -> Face:
        points = self.tokens[ref]
        return self.codec.decode(crypto.unmask(self.cts[ref], [points[p] for p in sorted(points)]))

    def _on_sealed(self, entry: Entry) -> Callable[[], list]:
        owed = self.step.owed[entry.seat]
        items = entry.body["seals"]
        if any(
            not (isinstance(i, list) and len(i) == 3 and type(i[0]) is int and type(i[1]) is int
                 and isinstance(i[2], bytes))
            for i in items
        ):  # (a ref and a party are integers, never booleans: ``to: true`` is not party 1)
            raise Rejected("seals must be a list of [ref, to, sealed token]", entry.seat, entry.seq)
        if [(i[0], i[1]) for i in items] != [tuple(o) for o in owed]:
            raise Rejected(f"seat {entry.seat} owes sealed tokens for {owed}", entry.seat, entry.seq)

        def run() -> list:
            for ref, to, blob in items:
                self.seals.append((entry.seq, entry.seat, ref, to, blob))
            self._advance()
            return [] if self.step.writers else self._finish(Event(SHOWN))

        return run

    def _on_commit(self, entry: Entry) -> Callable[[], list]:
        digest = entry.body["digest"]
        if len(digest) != 32:
            raise Rejected("a commit needs a 32-byte digest", entry.seat, entry.seq)

        def run() -> list:
            step = self.step
            step.digests[entry.seat] = digest
            self._advance()
            if not step.writers:
                step.kind, step.phase = "open", "open"
                step.writers = sorted(step.digests)
                self._open_group()
            return []

        return run

    def commit_context(self, party: int) -> bytes:
        """Context for ``party``'s commitment in the current commit step."""
        return context(self.game_id, self.step.start_seq, party, b"commit")

    def _on_open(self, entry: Entry) -> Callable[[], list]:
        value, nonce = entry.body["value"], entry.body["nonce"]
        step = self.step
        crypto.verify_opening(step.digests[entry.seat], self.commit_context(entry.seat), value, nonce)
        if isinstance(step.request, Commit):
            try:
                move = unpack(value)
            except Exception:
                raise Rejected("the committed choice is not msgpack", entry.seat, entry.seq) from None
            if not isinstance(move, dict):
                raise Rejected("the committed choice must be a move map", entry.seat, entry.seq)
            # each choice is checked the moment it is opened, so an illegal one is pinned on its
            # author and can never make an honest later opening fail
            self.game.check_choice(self.state, entry.seat, move)
        event: Event | None = None
        if step.writers == [entry.seat]:  # the last opening completes the engine event
            openings = {**step.openings, entry.seat: value}
            if isinstance(step.request, Random):
                values = [openings[p] for p in sorted(openings)]
                ctx = context(self.game_id, step.start_seq, 0, b"random")
                event = Event(RANDOM, None, {"value": crypto.joint_random(values, step.request.n, ctx)})
            else:
                event = Event(COMMITTED, None, {"choices": {p: unpack(v) for p, v in openings.items()}})
                # validate before anything changes; the engine's message names what was wrong
                try:
                    self.game.apply(self.state, event)
                except IllegalMove as exc:
                    culprit = getattr(exc, "seat", None)
                    if culprit is not None and culprit != entry.seat and culprit in step.open_seqs:
                        why = f"opened an illegal choice: {exc}"
                        raise _Blame(culprit, step.open_seqs[culprit], why) from None
                    raise

        def run() -> list:
            step.openings[entry.seat] = value
            step.open_seqs[entry.seat] = entry.seq
            self._advance()
            if event is None:
                return []
            if event.kind == COMMITTED:
                self.event_seats[len(self.history)] = dict(step.open_seqs)
            return self._finish(event)

        return run

    def _on_final(self, entry: Entry) -> Callable[[], list]:
        claimed = entry.body["result"]
        actual = self.game.result(self.state)
        if pack(claimed) != pack(actual):  # (bytes, not values: in Python True == 1 == 1.0)
            raise Rejected("the final entry states a result other than the game's", entry.seat, entry.seq)

        def run() -> list:
            self.finals[entry.seat] = claimed
            self._advance()
            if not self.step.writers:
                self.ended = "over"
            return []

        return run

    def _abandon(self, entry: Entry) -> Callable[[], list]:
        """A party closes the game because the awaited party wrote nothing before the table's
        deadline. The replica keeps the step it was waiting on: that says who stopped."""

        def run() -> list:
            self.ended = "abandoned"
            return []

        return run

    def _accuse(self, entry: Entry) -> Callable[[], list]:
        body = entry.body
        seal_seq, evidence = body["seal_seq"], body["evidence"]
        matches = [s for s in self.seals if s[0] == seal_seq and s[3] == entry.seat and s[2] == body["ref"]]
        if not matches:
            raise Rejected("accusation names no sealed token sent to the accuser", entry.seat, entry.seq)
        _, sender, ref, _, blob = matches[0]
        reason = crypto.verify_bad_seal_evidence(
            evidence,
            blob,
            self.seal_keys[sender],
            self.seal_keys[entry.seat],
            self.shares[sender],
            self.cts[ref],
            context(self.game_id, seal_seq, sender, b"seal"),
        )
        if reason is None:
            raise Rejected("the evidence does not show a bad sealed token", entry.seat, entry.seq)

        def run() -> list:
            self.findings.append(
                Finding(sender, seal_seq, f"sent a bad sealed token to seat {entry.seat}: {reason}")
            )
            self.ended = "accused"
            return []

        return run

    def _expose(self, entry: Entry) -> Callable[[], list]:
        """Another version of an entry of this log, signed by that entry's own writer: two
        signatures on one place prove it equivocated. Anything less is a false accusation, held
        against the accuser like any other entry that breaks a rule."""
        seq, evidence = entry.body["seq"], entry.body["evidence"]
        if not 0 <= seq < len(self.entries):
            raise Rejected(f"exposes entry {seq}, which this log does not hold", entry.seat, entry.seq)
        stored = self.entries[seq]
        try:
            other = parse_envelope(evidence)
        except LogError as exc:
            raise Rejected(f"the evidence is no signed entry: {exc}", entry.seat, entry.seq) from None
        if (other.game, other.seq, other.seat, other.prev) != (self.game_id, seq, stored.seat, stored.prev):
            # (the same prev too: a version that extends another history is no version of this
            # place, e.g. an entry of an earlier game an opener reopened under the same id)
            raise Rejected(
                f"the evidence is not another version of entry {seq} (another game, place, writer or"
                " history)",
                entry.seat,
                entry.seq,
            )
        if evidence == stored.envelope:
            raise Rejected(f"the evidence is entry {seq} itself, not another version", entry.seat, entry.seq)
        if not other.signed_by(self.parties[stored.seat].key):
            raise Rejected(f"the evidence is not signed by seat {stored.seat}", entry.seat, entry.seq)

        def run() -> list:
            self.findings.append(
                Finding(
                    stored.seat,
                    seq,
                    f"equivocation: signed two different entries for entry {seq} (the other one is"
                    f" in entry {entry.seq}, written by seat {entry.seat})",
                )
            )
            self.ended = "accused"
            return []

        return run

    # -- helpers for parties and reports ------------------------------------------------------------
    def fault(self) -> Violation | None:
        """A disproved claim the engine recorded, if any."""
        return getattr(self.state, "fault", None)

    def describe(self, before: Any, event: Event) -> str:
        """Plain-English line for an engine event (public information only); a move played for a
        late player says so."""
        try:
            line = self.game.describe(before, event)
        except Exception as exc:  # a report must never fail because of wording
            line = f"{event.kind} ({type(exc).__name__} while describing)"
        if self.late_moves and event.seat is not None:
            # recent events are the ones described: look back a little for this very event
            for index in range(len(self.history) - 1, max(-1, len(self.history) - 64), -1):
                if self.history[index] is event:
                    if self.event_seq[index] in self.late_moves:
                        line += LATE_WORDS
                    break
        return line
