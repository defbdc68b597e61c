"""A rigged Rebel Princess table for rules tests (no tests here; imported by the other modules).

``Table`` drives a real :class:`RebelPrincess` with a trusted dealer whose shuffles are planned:
the test names the hands each seat holds *after* the opening pass (the helper works out the deal
and the pass that lead there), the Princess each seat keeps, and the Round cards. Table operations
are resolved automatically; the test makes the decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.core import SHUFFLED, TABLE_OPERATIONS, Commit, Decide, Event, GameOver, Shuffle
from engine.dealer import TrustedDealer
from engine.rebelprincess import RebelPrincess, State
from engine.rebelprincess.cards import is_suit_face
from engine.rebelprincess.rounds import BY_LETTER

LEFT_OF = {"L": 1, "R": -1}
SUIT_CODES = {"F": "fairy", "P": "pet", "K": "prince", "Q": "queen"}


def cards(spec: str) -> list[str]:
    """``"F2 F5 P2-10 K2"`` -> faces (F fairy, P pet, K prince, Q queen; ranges allowed)."""
    out = []
    for token in spec.split():
        suit = SUIT_CODES[token[0]]
        low, _, high = token[1:].partition("-")
        out += [f"{suit}-{n}" for n in range(int(low), int(high or low) + 1)]
    return out


STANDARD = [cards("F2 F5 P2-10 K2"), cards("F7 F9 Q2-10 K3"), cards("F3 F4 F6 F8 F10 K4-10")]
"""A full 3-seat layout: seat 0 holds the Pets, seat 1 the Queens, seat 2 most Princes."""


def pre_pass_hands(seats: int, letter: str, after: Sequence[Sequence[str]]) -> list[list[str]]:
    """The deal that, with a pass of the *last* cards listed for each recipient, gives ``after``."""
    passes = BY_LETTER[letter].passes
    taken = [0] * seats  # how many cards of after[t] (from the end) were already assigned
    sent: list[list[str]] = [[] for _ in range(seats)]
    received: list[set[str]] = [set() for _ in range(seats)]
    for seat in range(seats):
        for direction, count in passes:
            to = (seat + LEFT_OF[direction]) % seats
            for _ in range(count):
                taken[to] += 1
                card = after[to][-taken[to]]
                sent[seat].append(card)
                received[to].add(card)
    return [[c for c in after[s] if c not in received[s]] + sent[s] for s in range(seats)]


class Rigged(TrustedDealer):
    """A trusted dealer whose shuffles follow a plan (unplanned shuffles keep the given order)."""

    def __init__(
        self, game: RebelPrincess, deals: list[list[list[str]]], offers: list[list[str]] | None, seed: int = 0
    ) -> None:
        super().__init__(game, seed)
        self.deals = deals
        self.offers = offers
        self.rounds_dealt = 0
        self.next_shuffle: list[str] | None = None

    def resolve(self, request: Any, choose: Callable[[int, str], dict[str, Any]]) -> Event:
        """Resolve like the trusted dealer, but lay shuffled cards out as planned."""
        if not isinstance(request, Shuffle):
            return super().resolve(request, choose)
        faces = [self.slots[r] for r in request.refs]
        order = self.plan(faces)
        assert sorted(order) == sorted(faces), "a planned shuffle must keep the same cards"
        self.slots.extend(order)
        return Event(SHUFFLED)

    def plan(self, faces: list[str]) -> list[str]:
        """The order the shuffled ``faces`` come out in: Princess offers, planned deals, or as given."""
        if self.next_shuffle is not None:
            order, self.next_shuffle = self.next_shuffle, None
            return order
        if faces[0].startswith("princess-") and self.offers:
            wanted = [f"princess-{k}" for pair in self.offers for k in pair]
            return wanted + [f for f in faces if f not in wanted]
        if is_suit_face(faces[0]) and len(faces) == len(self.game.suit_cards):
            r, self.rounds_dealt = self.rounds_dealt, self.rounds_dealt + 1
            if r < len(self.deals):
                hands = self.deals[r]
                rest = iter(sorted(f for f in faces if all(f not in h for h in hands)))
                size = len(faces) // self.game.seats
                out = []
                for hand in hands:
                    out += list(hand) + [next(rest) for _ in range(size - len(hand))]
                return out
        return faces


class Table:
    """A Rebel Princess game on a rigged table.

    ``hands``: per round, per seat, the faces held after the opening pass (missing cards are filled
    in from the rest of the deck in sorted order). ``princesses``: the Princess key each seat keeps.
    """

    def __init__(
        self,
        seats: int,
        letters: str,
        hands: Sequence[Sequence[Sequence[str]]] = (),
        princesses: Sequence[str] | None = None,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> None:
        rest = "".join(c for c in "abcdefghijklmnopqrstuvwxyz" if c not in letters)
        opts: dict[str, Any] = {
            "round_cards": (letters + rest)[: (options or {}).get("rounds", 5)],
            "first_leader": 0,
            "princess_powers": princesses is not None,
            **(options or {}),
        }
        self.game = RebelPrincess(seats, opts)
        letters_used = self.game.options["round_cards"]
        deals = [pre_pass_hands(seats, letters_used[i], self._full(h)) for i, h in enumerate(hands)]
        offers = None
        if princesses is not None:
            spare = [k for k in _ALL_KEYS if k not in princesses]
            offers = [[princesses[s], spare[s]] for s in range(seats)]
        self.dealer = Rigged(self.game, deals, offers, seed)
        self.state: State = self.game.initial_state()
        self.history: list[Event] = []
        self.states: list[State] = [self.state]
        self.advance()

    # -- hand planning ------------------------------------------------------------------------
    def _full(self, after: Sequence[Sequence[str]]) -> list[list[str]]:
        """Complete partial after-pass hands with unused cards, in sorted order."""
        size = len(self.game.suit_cards) // self.game.seats
        named = {c for h in after for c in h}
        rest = iter(sorted(c for c in self.game.suit_cards if c not in named))
        out = []
        for seat in range(self.game.seats):
            hand = list(after[seat]) if seat < len(after) else []
            out.append([next(rest) for _ in range(size - len(hand))] + hand)
        return out

    # -- driving ------------------------------------------------------------------------------
    def apply(self, event: Event) -> State:
        """Apply one event (raises IllegalMove, leaving the table as it was)."""
        self.state = self.game.apply(self.state, event)
        self.history.append(event)
        self.states.append(self.state)
        return self.state

    def advance(self) -> None:
        """Resolve table operations and planned commits until a decision is needed."""
        while True:
            request = self.game.pending(self.state)
            if isinstance(request, GameOver | Decide):
                return
            if isinstance(request, Commit):
                if self.state.step == "princess":
                    self.commit({s: {"keep": self.state.offers[s][0]} for s in request.seats}, advance=False)
                    continue
                if self.state.step == "pass":
                    self.commit({s: self._planned_pass(s) for s in request.seats}, advance=False)
                    continue
                return
            assert isinstance(request, TABLE_OPERATIONS)
            self.apply(self.dealer.resolve(request, lambda s, p: {}))

    def _planned_pass(self, seat: int) -> dict[str, Any]:
        # the planned deal puts the cards to pass at the end of each seat's block, in pass order
        count = BY_LETTER[self.state.letter].pass_count
        h = self.game.hand_size
        base = self.state.deck_refs[0]
        return {"pass": list(range(base + (seat + 1) * h - count, base + (seat + 1) * h))}

    def commit(self, choices: Mapping[int, Any], advance: bool = True) -> State:
        """Answer the pending Commit."""
        self.apply(Event("committed", None, {"choices": dict(choices)}))
        if advance:
            self.advance()
        return self.state

    def decide(self, move: Mapping[str, Any]) -> State:
        """Answer the pending Decide."""
        request = self.game.pending(self.state)
        assert isinstance(request, Decide), request
        self.apply(Event.move(request.seat, dict(move)))
        self.advance()
        return self.state

    def last(self, step: str) -> State:
        """The most recent state whose pending step was ``step``."""
        return next(s for s in reversed(self.states) if s.step == step)

    def before(self, step: str) -> State:
        """The state just before the most recent one whose step was ``step``."""
        index = max(i for i, s in enumerate(self.states) if s.step == step)
        return self.states[index - 1]

    @property
    def request(self) -> Any:
        """The pending request."""
        return self.game.pending(self.state)

    # -- cards --------------------------------------------------------------------------------
    def ref(self, face: str) -> int:
        """The live ref holding ``face`` this round."""
        for ref in self.game.live_refs(self.state):
            if self.dealer.slots[ref] == face:
                return ref
        raise KeyError(face)

    def face(self, ref: int) -> str:
        """The true face of a ref."""
        return self.dealer.slots[ref]

    def hand(self, seat: int) -> list[str]:
        """True faces of ``seat``'s playable hand, sorted."""
        return sorted(self.face(r) for r in self.state.hands[seat])

    def known(self, seat: int) -> dict[int, str]:
        """Every face ``seat`` knows."""
        return self.dealer.known_to(seat)

    def legal(self, seat: int | None = None) -> list[dict[str, Any]]:
        """Legal moves of ``seat`` (default: the deciding seat)."""
        if seat is None:
            seat = self.request.seat
        return self.game.legal_moves(self.state, seat, self.known(seat))

    def legal_faces(self, seat: int | None = None) -> set[str]:
        """Faces of the plain (no power) legal plays."""
        return {m["face"] for m in self.legal(seat) if not m.get("power")}

    def play_move(self, face: str, **extra: Any) -> dict[str, Any]:
        """A play move for ``face`` (void and power as given)."""
        return {"card": self.ref(face), "face": face, **extra}

    def play(self, *faces: str, **extra: Any) -> State:
        """Play each face in turn (each by the seat whose turn it is), declining before-trick powers."""
        for face in faces:
            while self.state.step == "power":
                self.decide({"use": False})
            self.decide(self.play_move(face, **extra))
        return self.state

    def no_power(self) -> State:
        """Decline every pending before-trick power / Mulan / Alice / Haggle offer."""
        while self.state.step in ("power", "mulan", "alice", "haggle"):
            self.decide(
                {
                    "power": {"use": False},
                    "alice": {"use": False},
                    "mulan": {"swap": None},
                    "haggle": {"give": None},
                }[self.state.step]
            )
        return self.state

    def autoplay(self, stop: Callable[[State], bool] = lambda s: False, limit: int = 5000) -> State:
        """Play the first legal move everywhere until ``stop(state)`` or the game ends."""
        for _ in range(limit):
            request = self.request
            if isinstance(request, GameOver) or stop(self.state):
                return self.state
            if isinstance(request, Decide):
                self.decide(self.legal(request.seat)[0])
            elif isinstance(request, Commit):
                self.commit({s: self.legal(s)[0] for s in request.seats})
            else:
                self.advance()
        raise AssertionError("autoplay did not stop")

    def check(self) -> list[Any]:
        """``check`` of the history with every true face."""
        return self.game.check(self.history, dict(enumerate(self.dealer.slots)))


_ALL_KEYS = [
    "snow-white",
    "cinderella",
    "pocahontas",
    "mulan",
    "pea-princess",
    "little-mermaid",
    "sleeping-beauty",
    "alice",
    "scheherazade",
    "ice-princess",
    "rapunzel",
    "thumbelina",
]
