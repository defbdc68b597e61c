"""The shared vocabulary of every fairdeck game engine.

Theory of operation
-------------------
A game is a pure state machine (OpenSpiel's Game/State split, h11's sans-I/O style). The engine
never waits, never draws a random number, never reads a clock and never does I/O.

*Cards are references.* Every physical card of a game is one slot of the table's **deck**: the list
of (in fair mode: encrypted) cards. A :data:`Ref` is an index into that list. The initial deck is
public and in a canonical order (``Game.deck()``); slot ``i`` holds ``Game.deck()[i]``. A
:class:`Shuffle` of some refs never rearranges slots in place: it *appends* fresh slots holding the
same cards in a secret order, and the old refs are dead from then on. So a ref names one ciphertext
for the whole game, and every ref has exactly one face forever — which makes ``check`` simple and
lets the fair-dealing layer bind every token to one ciphertext.

*Public state only.* ``State`` objects hold what every seat may know: which refs are where, and the
faces that were made public (``Revealed``/``Disclosed``). A seat's private knowledge (faces dealt or
shown to it) lives outside the state and is passed in as ``own_faces`` where needed.

*Hidden information as at a real table.* Because a ref lives as long as its card is not shuffled,
whoever once learned a ref's face can follow that ref wherever it goes face down. At a real table
nobody can follow a card that its owner picks face down out of a hand (a pass, a gift, a card set
aside) or that is drawn at random from a hand they cannot see. The :class:`Knowledge` model in
every state says what each seat *may* link between live refs and faces, following the physical
game; before such a move, an engine re-masks the hand concerned whenever another seat may know one
of its cards: a :class:`Shuffle` of exactly those refs (proved like any other shuffle, so old and
new refs cannot be linked) and a :class:`Show` of the fresh refs to the owner.

*Who acts next* is answered by ``Game.pending(state)``, which returns one :data:`Request`:

- :class:`Decide` — a seat must choose a move (a msgpack-friendly dict).
- Table operations resolved by the dealing layer (the trusted dealer, or the mental-poker
  protocol): :class:`Shuffle`, :class:`Deal`, :class:`Reveal`, :class:`Show`, :class:`Commit`,
  :class:`Random`, :class:`Disclose`.
- :class:`GameOver` — nothing more will happen.

Every request is answered by exactly one :class:`Event` applied with ``Game.apply``:

============  =============================================  ==========================
request       event kind                                     event data
============  =============================================  ==========================
Decide        ``move``     (``seat`` = deciding seat)        the move dict
Shuffle       ``shuffled``                                   ``{}`` (new refs are allocated
                                                              by the engine: ``next_ref``…)
Deal          ``dealt``                                      ``{}``
Reveal        ``revealed``                                   ``{"faces": {ref: face}}``
Show          ``shown``                                      ``{}``
Commit        ``committed``                                  ``{"choices": {seat: move}}``
Random        ``random``                                     ``{"value": int in [0, n)}``
Disclose      ``disclosed``                                  ``{"faces": {ref: face}}``
============  =============================================  ==========================

*Claims.* Some moves assert something only their author can know (a Guard "miss", a Baron result,
"I obey the Countess rule", "the card I play is a Guard"). ``apply`` accepts them if public
information allows; once faces are known, ``Game.check(history, faces)`` names every event that broke
a rule, as :class:`Violation`.

*Disproved claims end the game.* A move that plays cards names their faces (``{"card": ref,
"face": "guard", ...}``) so that ``apply`` can validate it at once; the engine then requests a
``Reveal`` of those refs. If a revealed face contradicts the claim, that is public proof of
cheating: the engine records it as the state's ``fault`` (a :class:`Violation` naming the claiming
event's index and seat), and ``pending`` returns :class:`GameOver`. Every state therefore carries
``events`` (how many events were applied, i.e. the index of the next one) and ``fault``.
"""

from __future__ import annotations

import dataclasses
import random
import types
import typing
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

Seat = int
"""A seat number, 0-based, in clockwise order."""
Ref = int
"""An index into the table's deck of (encrypted) cards; see the module docstring."""
Face = str
"""A card's identity, e.g. ``"guard"`` or ``"KH"``; games define their own face names."""


class IllegalMove(ValueError):
    """An event that the rules do not allow now; the message says what was wrong.

    ``apply`` raises it before changing anything, so the state stays as it was. ``seat``, where
    set, is the seat whose part of a joint event (a committed choice) was illegal.
    """

    def __init__(self, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.seat = seat


class SeatCountError(ValueError):
    """A game cannot be played by this many seats (with these options): distinct from a bad option,
    so that ``fairdeck play --bots N`` can tell "no seat left for you" from a mistyped option."""


# ---------------------------------------------------------------------------------------------
# msgpack-friendly records
# ---------------------------------------------------------------------------------------------


class Record:
    """Base for frozen dataclasses that round-trip through msgpack-friendly dicts.

    Supported field types: ``int``, ``str``, ``bool``, ``None``, ``bytes``, other ``Record``
    subclasses, ``tuple[X, ...]``, fixed tuples ``tuple[X, Y]``, ``X | None`` and
    ``Mapping[K, V]`` / ``dict[K, V]`` (stored as dicts; keep them read-only by convention, or use
    :class:`FrozenDict`).
    """

    def to_dict(self) -> dict[str, Any]:
        """Return a dict of plain values (lists, dicts, ints, strs, bools, None, bytes)."""
        return {f.name: _dump(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        """Rebuild an instance from :meth:`to_dict` output (lists become tuples again)."""
        hints = typing.get_type_hints(cls)
        kwargs = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in data:
                kwargs[f.name] = _load(hints[f.name], data[f.name])
        return cls(**kwargs)


def evolve(record: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for the frozen records of this module, without calling the constructor
    (several times faster on a state with dozens of fields; the records have no ``__post_init__``).
    An unknown field name raises ``TypeError``, as ``replace`` does."""
    new = object.__new__(type(record))
    fields = new.__dict__
    fields.update(record.__dict__)
    for name, value in changes.items():
        if name not in fields:
            raise TypeError(f"{type(record).__name__} has no field {name!r}")
        fields[name] = value
    return new


class FrozenDict(dict):  # type: ignore[type-arg]
    """A dict that refuses mutation, so states holding mappings stay immutable and hashable."""

    def _refuse(self, *args: object, **kwargs: object) -> typing.NoReturn:
        raise TypeError("FrozenDict is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=repr)))

    def set(self, key: Any, value: Any) -> FrozenDict:
        """Return a copy with ``key`` set to ``value``."""
        new = dict(self)
        new[key] = value
        return FrozenDict(new)


def _dump(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, tuple | list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {_dump(k): _dump(v) for k, v in value.items()}
    return value


def _load(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        return _load(non_none[0], value) if len(non_none) == 1 else value
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], v) for v in value)
        return tuple(_load(a, v) for a, v in zip(args, value, strict=True))
    if origin in (dict, Mapping, FrozenDict) or hint is FrozenDict:
        kt, vt = args if args else (Any, Any)
        return FrozenDict({_load(kt, k): _load(vt, v) for k, v in value.items()})
    if isinstance(hint, type) and issubclass(hint, Record):
        return hint.from_dict(value)
    return value


# ---------------------------------------------------------------------------------------------
# Requests: what must happen next
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decide(Record):
    """``seat`` must choose a move; ``prompt`` names the kind of decision (game-specific)."""

    seat: Seat
    prompt: str


@dataclass(frozen=True)
class Shuffle(Record):
    """Shuffle these refs together; the engine then allocates the same number of fresh refs."""

    refs: tuple[Ref, ...]


@dataclass(frozen=True)
class Deal(Record):
    """Privately tell each listed seat the face of its ref: ``deals`` = ((ref, seat), ...)."""

    deals: tuple[tuple[Ref, Seat], ...]


@dataclass(frozen=True)
class Reveal(Record):
    """Make the faces of these refs public."""

    refs: tuple[Ref, ...]


@dataclass(frozen=True)
class Show(Record):
    """Privately tell a seat the face of a ref it may now see: ``shows`` = ((ref, to_seat), ...)."""

    shows: tuple[tuple[Ref, Seat], ...]


@dataclass(frozen=True)
class Commit(Record):
    """Each listed seat makes a secret choice; all choices become public together."""

    seats: tuple[Seat, ...]
    prompt: str


@dataclass(frozen=True)
class Random(Record):
    """A joint random number in ``range(n)`` that no seat can bias."""

    n: int
    purpose: str = ""


@dataclass(frozen=True)
class Disclose(Record):
    """End-of-round disclosure: make every listed (still hidden) ref public, for ``check``."""

    refs: tuple[Ref, ...]


@dataclass(frozen=True)
class GameOver(Record):
    """The game has ended; nothing more is requested."""


Request = Decide | Shuffle | Deal | Reveal | Show | Commit | Random | Disclose | GameOver
TABLE_OPERATIONS = (Shuffle, Deal, Reveal, Show, Commit, Random, Disclose)
"""The requests resolved by the dealing layer rather than by one seat's decision."""


# ---------------------------------------------------------------------------------------------
# Events: what did happen
# ---------------------------------------------------------------------------------------------

MOVE = "move"
SHUFFLED = "shuffled"
DEALT = "dealt"
REVEALED = "revealed"
SHOWN = "shown"
COMMITTED = "committed"
RANDOM = "random"
DISCLOSED = "disclosed"
EVENT_KINDS = (MOVE, SHUFFLED, DEALT, REVEALED, SHOWN, COMMITTED, RANDOM, DISCLOSED)

RESULT_KIND: dict[type, str] = {
    Decide: MOVE,
    Shuffle: SHUFFLED,
    Deal: DEALT,
    Reveal: REVEALED,
    Show: SHOWN,
    Commit: COMMITTED,
    Random: RANDOM,
    Disclose: DISCLOSED,
}
"""The event kind that answers each request type."""


@dataclass(frozen=True)
class Event(Record):
    """One thing that happened. ``seat`` is the deciding seat for moves, else ``None``.

    ``data`` is msgpack-friendly: for moves the move dict; see the module docstring for the rest.
    """

    kind: str
    seat: Seat | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    @staticmethod
    def move(seat: Seat, move: Mapping[str, Any]) -> Event:
        """A seat's decision."""
        return Event(MOVE, seat, dict(move))

    def to_dict(self) -> dict[str, Any]:
        """The event as msgpack-friendly data (see :meth:`from_dict`)."""
        return {"kind": self.kind, "seat": self.seat, "data": _dump(dict(self.data))}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """The event ``data`` describes; raises ``IllegalMove`` for anything that is not one."""
        if not isinstance(data, Mapping) or not isinstance(data.get("kind"), str):
            raise IllegalMove("an event must be a map with a string 'kind'")
        seat = data.get("seat")
        if seat is not None and not isinstance(seat, int):
            raise IllegalMove("an event's seat must be an integer or nil")
        body = data.get("data", {})
        if not isinstance(body, Mapping):
            raise IllegalMove("an event's data must be a map")
        return cls(data["kind"], seat, dict(body))


def expect_event(request: Request, event: Event) -> None:
    """Raise :class:`IllegalMove` unless ``event`` is the kind of answer ``request`` wants."""
    if isinstance(request, GameOver):
        raise IllegalMove("the game is over")
    kind = RESULT_KIND[type(request)]
    if event.kind != kind:
        raise IllegalMove(f"expected a '{kind}' event now, not '{event.kind}'")
    if isinstance(request, Decide) and event.seat != request.seat:
        raise IllegalMove(f"it is seat {request.seat}'s turn to decide, not seat {event.seat}'s")
    if isinstance(request, Commit):
        choices = event.data.get("choices")
        if not isinstance(choices, Mapping) or set(choices) != set(request.seats):
            raise IllegalMove(f"a commit needs exactly one choice from each of seats {request.seats}")
    if isinstance(request, Random):
        value = event.data.get("value")
        if not isinstance(value, int) or not 0 <= value < request.n:
            raise IllegalMove(f"a random result must be an integer in [0, {request.n})")
    if isinstance(request, Reveal | Disclose):
        faces = event.data.get("faces")
        if not isinstance(faces, Mapping) or set(faces) != set(request.refs):
            raise IllegalMove("the revealed faces must be exactly the requested refs")


# ---------------------------------------------------------------------------------------------
# Claims checked after disclosure
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation(Record):
    """A rule broken by the event at ``index`` in the history, by ``seat``; ``reason`` says how."""

    index: int
    seat: Seat
    reason: str


# ---------------------------------------------------------------------------------------------
# Knowledge: which seat may link which live card to its face
# ---------------------------------------------------------------------------------------------

Group = tuple[Seat, tuple[Ref, ...]]
"""A face-down group of cards held by one seat (``owner``, refs): a hand, a half set aside. Its owner
may look at it and rearrange it at will, so nobody else can follow a card *inside* it."""


@dataclass(frozen=True)
class Knowledge(Record):
    """What each seat may know about each live card, as at a physical table.

    A ref names one ciphertext, and one ciphertext has one face forever: a seat that once learned a
    ref's face can link that ref to its face for as long as the ref lives. So the model is a set of
    refs per seat (``seats[s]``: live refs ``s`` may link, its own knowledge) plus ``public`` (live
    refs everyone may link). It changes in two ways:

    - **Table operations** (:meth:`learn`): a ``Deal`` or a ``Show`` teaches the receiving seat, a
      ``Reveal`` or a ``Disclose`` teaches everyone, a ``Shuffle`` kills the shuffled refs (their
      fresh twins are known to nobody until dealt or shown again). The canonical deck is public.
    - **Face-down moves** (:meth:`moved`), judged on the *groups* (:data:`Group`) a game declares,
      as at a real table: a card that leaves its group face up teaches nothing new; a whole group that
      moves face down to one place can be followed by everyone who knew its cards; but cards that
      leave a group face down *without the rest of it* (a pass, a gift, a set-aside half, a card put
      under the pile) were chosen by the owner in private, or drawn at random, from a group nobody
      else can see into: every other seat (and the public) forgets every card of that group, except
      a seat that now holds the card in one of its own groups.

    The model says what a seat **may** know. What it **can** link is what the dealing layer told it
    (every ``Deal``/``Show`` to it, every ``Reveal``, the canonical deck): the engines keep the second
    inside the first by re-masking a group (``Shuffle`` of exactly its refs, then a ``Show`` of the
    fresh refs to its owner) before such a move whenever another seat may know one of its cards (see
    :meth:`others_know`), so old and new refs cannot be linked. ``tests/engine/test_knowledge.py``
    checks it over whole games of every game.
    """

    public: tuple[Ref, ...] = ()
    seats: tuple[tuple[Ref, ...], ...] = ()

    @staticmethod
    def start(deck_size: int, seats: int) -> Knowledge:
        """Before anything happened: the canonical deck is public, nobody knows anything else."""
        return Knowledge(tuple(range(deck_size)), ((),) * seats)

    # -- questions -------------------------------------------------------------------------
    def of(self, seat: Seat) -> frozenset[Ref]:
        """Every live ref ``seat`` may link to its face (public ones included)."""
        own = self.seats[seat] if seat < len(self.seats) else ()
        return frozenset(self.public) | frozenset(own)

    def knows(self, seat: Seat, ref: Ref) -> bool:
        """True if ``seat`` may link ``ref`` to its face."""
        return ref in self.public or (seat < len(self.seats) and ref in self.seats[seat])

    def others_know(self, refs: Sequence[Ref], owner: Seat) -> bool:
        """True if anyone but ``owner`` (or everyone) may link one of ``refs``: moving one of them
        face down on its own would then leak, so the group must be re-masked first."""
        wanted = set(refs)
        if wanted & set(self.public):
            return True
        return any(wanted & set(known) for seat, known in enumerate(self.seats) if seat != owner)

    # -- changes ---------------------------------------------------------------------------
    def learn(self, request: Request, event: Event) -> Knowledge:
        """The knowledge after a table operation ``request`` answered by ``event``."""
        if isinstance(request, Shuffle):
            return self.forget(request.refs)
        if isinstance(request, Deal | Show):
            pairs = request.deals if isinstance(request, Deal) else request.shows
            seats = [set(known) for known in self.seats]
            for ref, seat in pairs:
                while len(seats) <= seat:
                    seats.append(set())
                seats[seat].add(ref)
            return Knowledge(self.public, tuple(tuple(sorted(known)) for known in seats))
        if isinstance(request, Reveal | Disclose):
            return Knowledge(tuple(sorted(set(self.public) | set(request.refs))), self.seats)
        return self

    def forget(self, refs: Sequence[Ref], keep: Mapping[Ref, Sequence[Seat]] | None = None) -> Knowledge:
        """Nobody may link ``refs`` any more, except the seats ``keep[ref]`` names."""
        gone = set(refs)
        if not gone:
            return self
        kept = keep or {}
        was_public = gone & set(self.public)
        public = tuple(r for r in self.public if r not in gone)
        seats = []
        for seat, known in enumerate(self.seats):
            mine = {r for r in known if r not in gone or seat in kept.get(r, ())}
            mine.update(r for r in was_public if seat in kept.get(r, ()))  # they saw it too
            seats.append(tuple(sorted(mine)))
        return Knowledge(public, tuple(seats))

    def moved(
        self,
        before: Sequence[Group],
        after: Sequence[Group],
        face_up: Sequence[Ref] | frozenset[Ref] | set[Ref],
        killed: Sequence[Ref] = (),
    ) -> Knowledge:
        """The knowledge after cards moved between the face-down groups ``before`` -> ``after``
        (the same groups, in the same order, in both states; see the class docstring).

        ``face_up``: refs that went where everyone sees their faces (a trick, a discard pile, a card
        laid out, or a ``Reveal`` that follows at once); ``killed``: refs a ``Shuffle`` just replaced.
        """
        up = set(face_up)
        dead = set(killed)
        where: dict[Ref, int] = {}
        holder: dict[Ref, Seat] = {}
        for index, (owner, refs) in enumerate(after):
            for ref in refs:
                where[ref] = index
                holder[ref] = owner
        knowledge = self
        for index, (owner, group) in enumerate(before):
            refs = [r for r in group if r not in dead]
            down = [r for r in refs if r not in up]  # cards that did not go face up
            gone = [r for r in down if where.get(r) != index]
            if not gone:
                continue
            if len(gone) == len(down) and len({where.get(r, -1) for r in gone}) == 1:
                continue  # what was left of the group moved together, face down: anyone can follow it
            keep = {r: (owner, holder[r]) if r in holder else (owner,) for r in refs}
            knowledge = knowledge.forget(refs, keep)
        return knowledge


def track(
    game: Game, before: Any, request: Request, event: Event, after: Any, knowledge: Knowledge
) -> Knowledge:
    """The knowledge model after ``event`` answered ``request`` at ``before`` and gave ``after``:
    :meth:`Knowledge.learn` for table operations, then :meth:`Knowledge.moved` over the game's
    :meth:`Game.groups` and :meth:`Game.face_up`. Engines call it from ``apply``."""
    knowledge = knowledge.learn(request, event)
    follow = game.pending(after)
    face_up = set(game.face_up(after))
    if isinstance(follow, Reveal | Disclose):
        face_up.update(follow.refs)
    killed = request.refs if isinstance(request, Shuffle) else ()
    return knowledge.moved(game.groups(before), game.groups(after), face_up, killed)


# ---------------------------------------------------------------------------------------------
# The game interface
# ---------------------------------------------------------------------------------------------


class Game:
    """One game with fixed options and seat count (OpenSpiel's *Game*); states are separate.

    Subclasses set ``name`` (the registry's name), ``title`` (how people write it), the seat
    range, ``state_class``, and implement every method below. All methods are pure.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 6
    default_seats: ClassVar[int] = 4
    """Seats at a table opened without saying how many."""
    state_class: ClassVar[type[Record] | None] = None
    """The game's state record, rebuilt by :meth:`state_from_dict`."""
    simulating: bool = False
    """True only on a bot's private copy of the game for its rollouts (``engine.search``): nobody
    watches a simulated world, so ``apply`` skips the knowledge model and the re-masking it asks
    for. Real tables, replays and audits never set it."""

    def __init__(self, seats: int, options: Mapping[str, Any] | None = None) -> None:
        if not self.min_seats <= seats <= self.max_seats:
            raise SeatCountError(
                f"{self.name} is for {self.min_seats}-{self.max_seats} players, not {seats}"
            )
        self.seats = seats
        self.options: dict[str, Any] = self.resolve_options(dict(options or {}))

    # -- configuration --------------------------------------------------------------------
    def resolve_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Validate ``options`` and fill in defaults; raise ``ValueError`` on unknown ones."""
        if options:
            raise unknown_options(self.name, sorted(options, key=str), [])
        return options

    def deck(self) -> tuple[Face, ...]:
        """Every physical card of the game, in canonical order: ref ``i`` starts as ``deck()[i]``."""
        raise NotImplementedError

    # -- the state machine ------------------------------------------------------------------
    def initial_state(self) -> Any:
        """The state before anything happened."""
        raise NotImplementedError

    def pending(self, state: Any) -> Request:
        """What must happen next."""
        raise NotImplementedError

    def apply(self, state: Any, event: Event) -> Any:
        """Return the state after ``event``; raise :class:`IllegalMove` (state unchanged) if not allowed."""
        raise NotImplementedError

    def legal_moves(self, state: Any, seat: Seat, own_faces: Mapping[Ref, Face]) -> list[dict[str, Any]]:
        """Every move ``seat`` may make now, given the faces it knows (empty if not its decision)."""
        raise NotImplementedError

    def check_choice(self, state: Any, seat: Seat, move: Mapping[str, Any]) -> None:
        """Raise :class:`IllegalMove` if ``seat``'s committed ``move`` cannot be legal at the pending
        :class:`Commit`, judged from public information alone, whatever the other seats chose.

        The protocol calls it as each choice is opened, so an illegal choice is pinned on its author
        at once. The default checks nothing: ``apply`` still checks every choice when the last one
        is opened (raising with ``seat`` set to the culprit's)."""
        return None

    def check(
        self, history: Sequence[Event], faces: Mapping[Ref, Face], *, states: Sequence[Any] | None = None
    ) -> list[Violation]:
        """Replay ``history`` with full knowledge of ``faces`` and report every broken claim.

        ``states``, when given, are the states the history went through (``states[i]`` before
        ``history[i]``, maybe one more after the last event), as a caller that applied the same
        events already holds them: the check uses them instead of applying the events again and
        returns exactly the same violations. A shorter list is completed by replaying."""
        raise NotImplementedError

    def is_over(self, state: Any) -> bool:
        """True once the game has ended."""
        return isinstance(self.pending(state), GameOver)

    def result(self, state: Any) -> dict[str, Any]:
        """A msgpack-friendly summary of the outcome (winners, scores); valid once over."""
        raise NotImplementedError

    def state_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Rebuild a state from ``state.to_dict()`` (after a msgpack round trip, too).

        Every game fails the same way: :class:`IllegalMove` (a ``ValueError``) when ``data`` is not
        a state of this game or is one for another number of seats (:meth:`state_seats`)."""
        if self.state_class is None:
            raise NotImplementedError(f"{self.name} has no state_class")
        try:
            state = self.state_class.from_dict(data)
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            raise IllegalMove(f"not a {self.title or self.name} state: {exc}") from exc
        seats = self.state_seats(state)
        if seats is not None and seats != self.seats:
            raise IllegalMove(f"a state for {seats} seats, not {self.seats}")
        return state

    def state_seats(self, state: Any) -> int | None:
        """How many seats ``state`` is for, checked by :meth:`state_from_dict` (``None``: unchecked)."""
        return None

    def groups(self, state: Any) -> tuple[Group, ...]:
        """The face-down groups of cards that one seat holds and may rearrange (its hand, a half set
        aside...), always in the same order, for the knowledge model (:class:`Knowledge`). The
        default: ``state.hands``, one per seat."""
        hands = getattr(state, "hands", ())
        return tuple((seat, tuple(hand)) for seat, hand in enumerate(hands))

    def face_up(self, state: Any) -> frozenset[Ref]:
        """Live refs lying face up on the table (a trick, a discard pile...): a card that moves there
        from a group is seen by everyone, so it teaches nothing private (:meth:`Knowledge.moved`)."""
        return frozenset()

    # -- words -------------------------------------------------------------------------------
    def describe(self, state: Any, event: Event) -> str:
        """One line of plain English for ``event`` applied to ``state`` (the state *before* it).

        Must use public information only: it is shown to every seat and written to reports.
        """
        raise NotImplementedError

    def card_text(self, face: Face) -> str:
        """A card's name, value and effect, for help screens."""
        raise NotImplementedError

    def render(self, state: Any, seat: Seat | None, own_faces: Mapping[Ref, Face]) -> str:
        """A plain-text picture of the table as ``seat`` sees it (``None``: the public view)."""
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# Bots
# ---------------------------------------------------------------------------------------------


def legal_moves_or_fail(
    game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
) -> list[dict[str, Any]]:
    """The seat's legal moves; a bot asked to decide with none is a bug, said loudly."""
    moves = game.legal_moves(state, seat, own_faces)
    if not moves:
        raise RuntimeError(f"{game.name}: seat {seat} has no legal move for {prompt!r}")
    return moves


class RandomBot:
    """The bot every game gets for free: chooses uniformly among the legal moves, with its own
    seeded generator.

    Its choices depend on its hidden cards (they decide which moves are legal), so whoever knows the
    seed can replay them and read its hand: a bot at a real table must get a secret seed
    (``fairdeck.commands.bot_seed``); fixed seeds are for simulations and tests."""

    level = "random"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self.rng = random.Random(seed)

    def choose(
        self, game: Game, state: Any, seat: Seat, own_faces: Mapping[Ref, Face], prompt: str
    ) -> dict[str, Any]:
        """A uniformly random legal move."""
        return self.rng.choice(legal_moves_or_fail(game, state, seat, own_faces, prompt))


def seat_name(seat: Seat) -> str:
    """How seats are named in text: ``"seat 2"``."""
    return f"seat {seat}"


def one_of(values: Iterable[Any]) -> str:
    """Choices in words for a message: ``"classic or 2019"``, ``"a, b or c"`` (never a Python list)."""
    words = [str(v) for v in values]
    return " or ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " or " + words[-1]


def unknown_options(game: str, unknown: Iterable[Any], known: Collection[str]) -> ValueError:
    """The error for options a game does not have, naming the ones it has."""
    names = [str(k) for k in unknown]
    what = f"option {names[0]}" if len(names) == 1 else f"options {', '.join(names)}"
    has = f"its options: {', '.join(sorted(known))}" if known else "it has none"
    return ValueError(f"{game} has no {what}; {has}")


def per_seat(values: Sequence[Any]) -> str:
    """One value per seat in words: ``"seat 0: 1, seat 1: 0"`` (never a Python list)."""
    return ", ".join(f"{seat_name(seat)}: {value}" for seat, value in enumerate(values))
