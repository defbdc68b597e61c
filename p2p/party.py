"""One party of a table: its secrets on top of the public replica (:class:`p2p.protocol.Table`).

:class:`Party` writes its party's entries when the replica expects them (feeding them through the
very same :meth:`~p2p.protocol.Table.accept` every other party runs on them), decrypts the cards
that party may see, and holds its player's pending decisions. Like the replica it is sans-I/O: its
methods return :class:`Effect` lists that a driver (``p2p.memtable``'s in-memory table, a network
``p2p.node.Node``) carries out in order — persisting every ``write`` before sending it. The replica
never knows which party is local; everything a party knows beyond it lives here.
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import (
    Commit,
    Deal,
    Decide,
    Disclose,
    Event,
    Face,
    IllegalMove,
    Random,
    Ref,
    Reveal,
    Show,
)
from engine.dealer import TrustedDealer
from p2p import crypto
from p2p.identity import Identity
from p2p.log import Entry, LogError, make_entry, pack, parse_envelope
from p2p.protocol import (
    CARRYING_KINDS,
    ENTRY_BUDGET,
    MAX_CARRIED_PARTS,
    SALT_SIZE,
    Rejected,
    Table,
    carried_label,
    carried_parts,
    context,
    shuffle_statement,
    token_statement,
    verify_shuffle_proof,
)

FORK_LOOKBACK = 64
"""On a signed entry for our next place that extends another chain, we ask for the last this many
entries again: if a writer sent two versions of one of them, we then hold both (and expose it)."""
FORK_ASKS = 4
"""At most this many such asks per game: a cheat's stream of off-chain entries cannot make the
table resend its log over and over."""
FUTURE_WINDOW = 256
"""How far ahead of the log a party keeps entries that arrived early (catch-up fills the rest)."""
FUTURE_BYTES = 16 * 1024 * 1024
"""At most this many bytes of early entries are kept."""

EXPOSE_OVERHEAD = 512
"""Room an ``expose`` envelope needs beyond the envelope it carries (headers, seq, signature)."""

PRECHECK_TOKENS = 8
"""Fewer tokens than this are checked where they are applied: handing ~0.15 ms of work per token
to a thread costs more than it spares the event loop."""


@dataclass
class Effect:
    """Something the driver must do, in order. ``kind`` is one of:

    - ``write``: persist ``envelope`` durably, then send it to every other party;
    - ``send``: send ``envelope`` (our entry of a concurrent step, written ahead of its place);
    - ``accepted``: an entry joined the log (``entry``), with ``text`` describing engine events;
      persist it unless ``persisted``;
    - ``rejected``: an envelope was refused (``text`` says why; ``envelope`` is the bad one);
    - ``evidence``: two signed entries prove equivocation (``envelope`` and ``other``);
    - ``decide``: this party's player must choose (``prompt``, ``moves`` = legal moves);
    - ``work``: run ``job`` (heavy and pure: our shuffle and its proof) anywhere but the driver's
      loop, then call :meth:`Party.start` again, which writes the entry it was for (only for a
      party with ``defer_work``);
    - ``ask``: ask every other party for its entries from ``since`` on (an entry for our next place
      extends another chain: a writer may have sent two versions of an entry before it);
    - ``ended``: the game is over (``text``).

    ``send`` also carries both versions of an equivocation we just caught, once, to every other
    party: each then holds the proof, whichever version it kept.
    """

    kind: str
    envelope: bytes = b""
    other: bytes = b""
    persisted: bool = False
    """``accepted``: the envelope is already durable (our own entry, persisted at its ``write``)."""
    entry: Entry | None = None
    text: str = ""
    prompt: str = ""
    moves: list[dict[str, Any]] = field(default_factory=list)
    state: Any = None
    """``accepted``: the game's (public) state right after this entry: what ``text`` describes,
    though the table may have gone further by the time the driver shows it."""
    learned: frozenset[Ref] = frozenset()
    """``accepted``: the refs whose faces this party learned privately from this entry (for its
    own player only; the faces are in ``Party.private_faces``)."""
    since: int = -1
    """``ask``: the first seq to ask for."""
    job: Callable[[], None] | None = None
    """``work``: the work to run before :meth:`Party.start` is called again."""


class _Prepared:
    """One piece of work begun early (our next shuffle), done at most once: by whichever thread
    calls :meth:`run` first; :meth:`result` waits for it, or does it now if nobody began it."""

    def __init__(self, pile: tuple[bytes, ...], compute: Callable[[], tuple[list[bytes], bytes]]) -> None:
        self.pile = pile
        self._compute = compute
        self._lock = threading.Lock()
        self._done = False
        self.finished = False
        """The work has been done (by whichever thread), so :meth:`result` does not wait."""
        self.handed = False
        """Handed to a driver as ``work`` (whose end asks for the entry again)."""
        self._value: tuple[list[bytes], bytes] | None = None

    def run(self) -> None:
        """Do the work unless it is done (a failure leaves no result: the entry makes it again)."""
        with self._lock:
            if not self._done:
                self._done = True
                # any failure: no result, and the entry makes the shuffle itself (and says why)
                with contextlib.suppress(Exception):
                    self._value = self._compute()
                self.finished = True

    def result(self) -> tuple[list[bytes], bytes] | None:
        """The work's result, once it is done."""
        self.run()
        return self._value


class Party:
    """One party: its identity's secrets, its private knowledge, and the entries it writes."""

    def __init__(
        self,
        identity: Identity,
        genesis_envelope: bytes,
        entropy: Callable[[int], bytes] = os.urandom,
    ) -> None:
        self.identity = identity
        self.table = Table(genesis_envelope)
        me = self.table.seat_of_key(identity.public_key)
        if me is None:
            raise Rejected("this identity is not seated at the table")
        self.me: int = me
        self._entropy = entropy
        self._salt: bytes | None = None
        self._x = 0
        self._seal: Any = None
        self.problems: list[str] = []
        """Things this party could not do because of what another party published (never secrets)."""
        self._own_tokens: dict[Ref, crypto.Point] = {}
        self._sealed_to_me: dict[Ref, dict[int, crypto.Point]] = {}
        self.private_faces: dict[Ref, Face] = {}
        # what ``_decrypt_what_we_can`` has yet to look at: refs whose tokens came since its last
        # call, and where it stopped in the table's logs; the places of refs in ``table.tokens``,
        # ``_sealed_to_me`` and ``table.private_refs`` keep its order that of a pass over them all
        self._fresh: set[Ref] = set()
        self._tokens_read = 0
        self._privates_read = 0
        self._token_place: dict[Ref, int] = {}
        self._sealed_place: dict[Ref, int] = {}
        self._private_place: dict[Ref, int] = {}
        self._pending_choice: dict[str, Any] | None = None
        self._pending_for = -1  # the step (its first seq) the pending choice answers
        self._pending_late = False  # the pending move is played for a player past the deadline
        self._future: dict[int, list[tuple[int, bytes]]] = {}  # seq -> (signer, envelope), as they came
        self._own_ahead: dict[int, bytes] = {}  # our entries of a concurrent step, by their place
        self._signature_checked: bytes | None = None  # the envelope precheck found signed
        self._prepared: dict[int, _Prepared] = {}  # our shuffles begun early (``precheck``), by seq
        self._asked: int = -1  # start_seq of the last step we asked our player about
        self.bad_seals: list[tuple[int, Ref]] = []
        self.equivocations: list[tuple[int, bytes]] = []
        """Entries of our log of which another version, signed by the same writer, reached us: (its
        seq, that other envelope). We expose the first in place of our next entry."""
        self._spread: set[int] = set()  # places whose two versions we have sent everyone
        self._fork_asks: list[int] = []  # the places at which we asked again (``FORK_ASKS``)
        self._dealer: TrustedDealer | None = None
        self._dealt_upto = -1
        self.holding = False
        """While true, entries from others are accepted but this party writes nothing of its own
        and asks its player nothing (a resumed peer catching up from the others first)."""
        self.defer_work = False
        """When true (a network node, whose calls run on its event loop), a shuffle of ours that
        nobody began early is not made inside a call: the call returns a ``work`` effect, and the
        entry is written when the driver calls :meth:`start` after the work is done. In-memory
        tables leave it false and get the entry at once."""
        self._work: list[Callable[[], None]] = []  # work to hand the driver (``defer_work``)

    def _use_salt(self, salt: bytes) -> None:
        """Derive every per-game secret from the identity, the game id and this party's own fresh
        salt: an opener that reuses a game id still meets entirely new secrets."""
        self._salt = salt
        material = self.table.game_id + salt
        self._x = crypto.derive_scalar(self.identity.derive("share", material), "share", material)
        self._seal = crypto.derive_seal_key(self.identity.derive("seal", material), material)
        if self.table.mode == "trusted" and self.me == 0:
            self._dealer = TrustedDealer(self.table.game, self.identity.derive("dealer", material))

    def _derive(self, label: str, seq: int) -> bytes:
        """A per-game, per-entry secret (shuffle seed, commitment nonce, random value)."""
        assert self._salt is not None, "secrets are used only after this party's keyshare"
        return self.identity.derive(label, self.table.game_id + self._salt + struct.pack(">Q", seq))

    # -- what this party knows -------------------------------------------------------------------
    @property
    def seat(self) -> int | None:
        """This party's seat, or ``None`` for a witness."""
        return self.me if self.me < self.table.seats else None

    def known_faces(self) -> dict[Ref, Face]:
        """Every face this party knows: public ones and the ones dealt or shown to it."""
        return {**self.table.public_faces, **self.private_faces}

    def legal_moves(self) -> list[dict[str, Any]]:
        """This party's legal moves now (empty unless it is asked to decide)."""
        if self.seat is None:
            return []
        return self.table.game.legal_moves(self.table.state, self.seat, self.known_faces())

    def waiting_for_me(self) -> str | None:
        """The prompt if this party's player must decide now, else ``None``."""
        table = self.table
        exp = table.expected()
        request = table.step.request
        if exp is None or self._current_choice() is not None:
            return None
        if exp == (self.me, "move") and isinstance(request, Decide):
            return request.prompt
        if isinstance(request, Commit) and table.step.phase == "commit" and self.me in table.step.writers:
            return request.prompt
        return None

    # -- input ----------------------------------------------------------------------------------
    def start(self) -> list[Effect]:
        """Write whatever this party owes right now (call once after construction)."""
        return self._act()

    def decide(self, move: Mapping[str, Any], *, late: bool = False) -> list[Effect]:
        """Our player's choice. Raises ``IllegalMove`` (with the reason) if it is not legal now.
        ``late``: played for our player, who let the table's deadline pass (the move says so; only
        on a table whose ``on_stall`` policy is ``"bot"``)."""
        if late and self.table.on_stall != "bot":
            raise IllegalMove("this table closes a stalled game: nobody plays for a late player")
        prompt = self.waiting_for_me()
        if prompt is None:
            raise IllegalMove("nothing is asked of you right now")
        move = dict(move)
        request = self.table.step.request
        if isinstance(request, Decide):
            self.table.game.apply(self.table.state, Event.move(self.me, move))  # validate first
        elif move not in self.legal_moves():
            raise IllegalMove(f"{move} is not one of your legal choices")
        self._pending_choice, self._pending_for = move, self.table.step.start_seq
        self._pending_late = late and isinstance(request, Decide)  # (a secret choice stays unmarked)
        return self._act()

    def receive(self, envelope: bytes) -> list[Effect]:
        """An envelope from the network (or from our own log on recovery)."""
        effects: list[Effect] = []
        table = self.table
        try:
            entry = parse_envelope(envelope)
        except LogError as exc:
            return [Effect("rejected", envelope, text=str(exc))]
        if entry.game != table.game_id:
            return [Effect("rejected", envelope, text="entry belongs to another game")]
        if entry.seq < table.next_seq:
            return self._compare_with_log(entry, envelope)
        if entry.seq > table.next_seq:
            # Keep a little of the future for when the gap is filled, but only what a seated
            # party really signed, only near the present, and only so much: a peer must not be
            # able to make us hoard its traffic. Each signer has its own share (two entries per
            # place, a fair part of the bytes), so a cheat's junk for a place can never crowd out
            # the entry its real writer sends.
            signer = entry.seat
            signed = signer < len(table.parties) and entry.signed_by(table.parties[signer].key)
            bucket = self._future.setdefault(entry.seq, []) if signed else []
            held = sum(len(e) for b in self._future.values() for s, e in b if s == signer)
            if (
                signed
                and (signer, envelope) not in bucket
                and sum(1 for s, _ in bucket if s == signer) < 2
                and entry.seq - table.next_seq <= FUTURE_WINDOW
                and held + len(envelope) <= FUTURE_BYTES // len(table.parties)
            ):
                bucket.append((signer, envelope))
            if not bucket:
                self._future.pop(entry.seq, None)
            return []
        effects += self._accept(envelope, signed=envelope is self._signature_checked)
        self._signature_checked = None
        return effects + self._drain() + self._act()

    def _drain(self) -> list[Effect]:
        """Apply, in order, the entries that arrived (or that we wrote) ahead of their place."""
        table = self.table
        effects: list[Effect] = []
        while table.next_seq in self._future or table.next_seq in self._own_ahead:
            own = self._own_ahead.pop(table.next_seq, None)
            bucket = ([own] if own is not None else []) + [
                e for _, e in self._future.pop(table.next_seq, []) if e != own
            ]
            for candidate in bucket:
                before = table.next_seq
                # (only signed envelopes are kept for the future, and ours we just signed)
                effects += self._accept(candidate, own=candidate is own, signed=True)
                if table.next_seq != before:
                    # a second signed entry for the same place is evidence, not noise
                    for other in bucket:
                        if other != candidate:
                            effects += self._compare_with_log(parse_envelope(other), other)
                    break
        for seq in [s for s in self._own_ahead if s < table.next_seq]:
            del self._own_ahead[seq]  # the game ended or moved past it
        return effects

    def _compare_with_log(self, entry: Entry, envelope: bytes) -> list[Effect]:
        """An entry for a place our log already holds: the same bytes, equivocation, or a fork."""
        table = self.table
        stored = table.entries[entry.seq]
        if stored.envelope == envelope:
            return []
        if (
            entry.seat == stored.seat
            and entry.prev == stored.prev
            and entry.seat < len(table.parties)
            and entry.signed_by(table.parties[entry.seat].key)
        ):
            # (one too large to carry is only kept beside the log, as before)
            fits = len(envelope) <= ENTRY_BUDGET["expose"] - EXPOSE_OVERHEAD
            # (two versions of our own entry: we signed only one, so our key is not ours alone;
            # that is for our person to hear about, and for the others to expose)
            mine = entry.seat == self.me
            if fits and not mine and all(seq != entry.seq for seq, _ in self.equivocations):
                self.equivocations.append((entry.seq, envelope))
            effects = [
                Effect(
                    "evidence",
                    stored.envelope,
                    envelope,
                    text=f"seat {entry.seat} signed two different entries for seq {entry.seq}"
                    " (equivocation): it is exposed in the log, which ends the game",
                )
            ]
            if entry.seq not in self._spread:
                # whoever kept the other version learns of it too
                self._spread.add(entry.seq)
                effects += [Effect("send", stored.envelope), Effect("send", envelope)]
            return effects
        signed = entry.seat < len(table.parties) and entry.signed_by(table.parties[entry.seat].key)
        why = (
            f"seat {entry.seat}'s entry {entry.seq} comes after seat {stored.seat}'s entry for the same "
            "place in our log: the logs have forked here (e.g. a game closed while this entry was unsent)"
            if signed
            else f"conflicts with entry {entry.seq} and is not validly signed"
        )
        return [Effect("rejected", envelope, text=why)]

    def restore(self, envelopes: Sequence[bytes]) -> None:
        """Fold entries of our own saved log without writing anything (after a restart). Our
        per-game salt comes back with our own keyshare. Raises :class:`Rejected` if one is refused."""
        for envelope in envelopes:
            entry, _ = self.table.accept(envelope)
            self.learn(entry)

    def has_future(self) -> bool:
        """True if entries from beyond the next sequence number are waiting (we missed some)."""
        return bool(self._future)

    def restore_choice(self, move: Mapping[str, Any], for_step: int | None = None) -> bool:
        """After a restart: the secret choice our player had made for the commit step that began at
        ``for_step`` (saved before its commitment was made), so that we commit to it — our
        commitment may have gone out before the crash, and another choice for the same place would
        be a second entry signed for it — and then open it. Taken only while that very step is
        due, and, once our commitment is in the log, only if it is this choice's (an opening that
        does not match would be a fault of ours). ``for_step=None`` (a choice saved without its
        step): taken only for the opening, against the commitment. Returns whether it was taken."""
        step = self.table.step
        if not isinstance(step.request, Commit) or self.me not in step.writers:
            return False
        if for_step is None and step.kind != "open" or for_step not in (None, step.start_seq):
            return False
        committed = step.digests.get(self.me)
        if (committed is not None or step.kind == "open") and committed != self.commitment_of(move):
            return False
        self._pending_choice, self._pending_for = dict(move), step.start_seq
        return True

    def commitment_of(self, move: Mapping[str, Any]) -> bytes:
        """Our commitment to ``move`` in the current commit step (what our ``commit`` entry holds)."""
        nonce = self._derive("nonce", self.table.step.start_seq)
        return crypto.commit(self.table.commit_context(self.me), pack(dict(move)), nonce)

    def entries_since(self, seq: int) -> list[bytes]:
        """Envelopes from ``seq`` on, for a peer that is catching up (with our own entries that
        wait for their place in a concurrent step: they may be what the peer is missing)."""
        ahead = [self._own_ahead[s] for s in sorted(self._own_ahead) if s >= max(seq, 0)]
        return [e.envelope for e in self.table.entries[max(seq, 0) :]] + ahead

    # -- internals -------------------------------------------------------------------------------
    def _accept(self, envelope: bytes, own: bool = False, signed: bool = False) -> list[Effect]:
        try:
            entry, events = self.table.accept(envelope, own=own, signed=signed)
        except Rejected as exc:
            where = f"entry {exc.seq} from seat {exc.seat}" if exc.seq is not None else "envelope"
            return [Effect("rejected", envelope, text=f"{where}: {exc.reason}"), *self._fork_hint(envelope)]
        known = set(self.private_faces)
        self.learn(entry)
        learned = frozenset(self.private_faces.keys() - known)
        text = "; ".join(self.table.describe(before, event) for before, event in events)
        if self.table.ended == "faulted" and self.table.findings:
            finding = self.table.findings[-1]
            if finding.seat is None:
                text = f"the game is stopped at entry {finding.seq}: {finding.reason}"
            else:
                text = (
                    f"seat {finding.seat} broke the rules at entry {finding.seq}: {finding.reason};"
                    " the game is stopped"
                )
        elif self.table.ended == "accused" and self.table.findings:
            finding = self.table.findings[-1]
            text = (
                f"seat {finding.seat} is caught cheating at entry {finding.seq}: {finding.reason};"
                " the game is stopped"
            )
        state = self.table.state
        effects = [Effect("accepted", envelope, entry=entry, text=text, state=state, learned=learned)]
        if self.table.ended == "faulted" and not own and entry.seat != self.me:
            # Another party's entry that breaks a rule stopped our game: pass it on (once: the game
            # is over), before we say we hold the whole log. Its writer may have sent it to us alone
            # and a valid version to the rest, who would then wait for us at their next place, hear
            # that we hold as many entries as they do, and close the game on us (an honest party) at
            # the deadline. With it they hold two versions signed for one place, and expose its writer.
            effects.append(Effect("send", envelope))
        if self.table.ended is not None:
            effects.append(Effect("ended", text=self.table.ended))
        return effects

    def _fork_hint(self, envelope: bytes) -> list[Effect]:
        """What to do about a refused ``envelope`` that a seated writer signed for our next place
        (or later) when our logs may have parted: perhaps a writer sent one version of an entry to
        us and another to the rest, so that nobody holds both.

        - While the game goes on, an entry for our next place that extends another chain: ``ask``
          the others for the last entries again; the other version, if there is one, then reaches
          us, and with it the proof.
        - Once our game was stopped by a fault or an exposure, an entry written after it: the
          others have not seen how it ended, so ``send`` them our last entries (once); the writer
          of the entry that stopped it is then caught by them, too, if it signed two versions."""
        table = self.table
        try:
            entry = parse_envelope(envelope)
        except LogError:
            return []
        if (
            entry.game != table.game_id
            or entry.seq < table.next_seq
            or not 0 <= entry.seat < len(table.parties)
            or len(self._fork_asks) >= FORK_ASKS
            or table.next_seq in self._fork_asks
        ):
            return []
        # (from the genesis on, near the start: an opener that signed one genesis for some joiners
        # and another for the rest splits the table at entry 0, and only the genesis proves it)
        since = max(0, table.next_seq - FORK_LOOKBACK)
        if table.ended is None:
            if entry.seq != table.next_seq or entry.prev == table.chain_head:
                return []
            if not entry.signed_by(table.parties[entry.seat].key):
                return []
            self._fork_asks.append(table.next_seq)
            why = f"entry {entry.seq} from seat {entry.seat} extends another chain"
            return [Effect("ask", since=since, text=why)]
        if table.ended not in ("faulted", "accused") or not entry.signed_by(table.parties[entry.seat].key):
            return []
        self._fork_asks[:] = [table.next_seq] * FORK_ASKS  # once: nothing more is asked after the end
        return [Effect("send", envelope) for envelope in self.entries_since(since)]

    def can_expose(self) -> bool:
        """Whether :meth:`expose_now` would write an ``expose`` at the next place now."""
        if not self.equivocations or self.table.ended is not None or self.holding:
            return False
        return not self._sent_here()

    def equivocators(self) -> set[int]:
        """The writers of the entries we hold two signed versions of."""
        return {self.table.entries[seq].seat for seq, _ in self.equivocations}

    def expose_now(self) -> list[Effect]:
        """Write the ``expose`` of a caught equivocation at the next place, whoever is due there
        (nothing if there is none, the game is over, or we already sent our own entry for that
        place: a second entry of ours there would make us an equivocator too). The driver calls this
        when the party due there has not exposed it itself within a grace period: it may be on the
        other side of a table the equivocator split, and never write in our log again."""
        if not self.can_expose():
            return []
        seq, other = self.equivocations[0]
        envelope = self._sign("expose", None, {"seq": seq, "evidence": other})
        accepted = self._accept(envelope, own=True)
        if accepted and accepted[0].kind == "rejected":  # our own entry refused: a bug, never silent
            raise RuntimeError(f"own entry refused: {accepted[0].text}")
        accepted[0].persisted = True  # by the "write" before it
        return [Effect("write", envelope), *accepted]

    def learn(self, entry: Entry) -> None:
        """Update private knowledge from an accepted entry."""
        table = self.table
        if table.ended == "faulted" and entry.seq == table.next_seq - 1:
            return  # a rule-breaking entry is kept as proof only: nothing in it is used
        if entry.kind == "keyshare" and entry.seat == self.me and self._salt != entry.body["salt"]:
            self._use_salt(entry.body["salt"])  # resumed from our own log
        if entry.kind == "deal":
            self._learn_trusted(entry)
            return
        if entry.kind == "sealed":
            ctx = context(table.game_id, entry.seq, entry.seat, b"seal")
            for ref, to, blob in entry.body["seals"]:
                if to != self.me:
                    continue
                try:
                    token = crypto.unseal(blob, self._seal, table.seal_keys[entry.seat], ctx)
                    point = crypto.verify_token(table.shares[entry.seat], table.cts[ref], token, ctx)
                except crypto.CryptoError:
                    self.bad_seals.append((entry.seq, ref))
                    continue
                if ref not in self._sealed_to_me:
                    self._sealed_place[ref] = len(self._sealed_to_me)
                self._sealed_to_me.setdefault(ref, {})[entry.seat] = point
                self._fresh.add(ref)
        self._decrypt_what_we_can()

    def _learn_trusted(self, entry: Entry) -> None:
        table = self.table
        if self._dealer is not None and entry.seq > self._dealt_upto:
            # after a restart the dealer re-deals the log's steps to rebuild its secret state
            self._dealer.resolve(table.deal_requests[entry.seq], lambda seat, prompt: {})
            self._dealt_upto = entry.seq
        for ref, to, blob in entry.body.get("seals", []):
            if to == self.me:
                ctx = context(table.game_id, entry.seq, 0, b"seal" + struct.pack(">Q", ref))
                face = crypto.unseal(blob, self._seal, table.seal_keys[0], ctx).decode()
                self.private_faces[ref] = face

    def _decrypt_what_we_can(self) -> None:
        """Open every card we now hold all the other parties' tokens for. Only refs that got a
        token (public or sealed to us) since the last call can have become openable, so only they
        are tried, in the order of a pass over every ref: ``table.tokens``, then ``_sealed_to_me``,
        then (alone at the table) ``table.private_refs``."""
        table = self.table
        parties = range(len(table.parties))
        solo = len(parties) == 1  # alone at the table (solo without a witness): our token is all it takes
        fresh = self._fresh
        for ref in table.token_log[self._tokens_read :]:
            self._token_place.setdefault(ref, len(self._token_place))
            fresh.add(ref)
        self._tokens_read = len(table.token_log)
        if solo:
            for ref in table.private_log[self._privates_read :]:
                self._private_place.setdefault(ref, len(self._private_place))
                fresh.add(ref)
            self._privates_read = len(table.private_log)
        if not fresh:
            return

        def place(ref: Ref) -> tuple[int, int]:
            if ref in table.tokens:
                return 0, self._token_place[ref]
            if ref in self._sealed_to_me:
                return 1, self._sealed_place[ref]
            return 2, self._private_place[ref]

        for ref in sorted(fresh, key=place):
            if ref in table.tokens or ref in self._sealed_to_me:
                self._try_decrypt(ref, table.tokens.get(ref, {}), parties)
            elif solo and table.private_refs.get(ref) == self.me:
                self._try_decrypt(ref, {}, parties)
        fresh.clear()

    def _try_decrypt(self, ref: Ref, public: Mapping[int, crypto.Point], parties: range) -> None:
        if ref in self.private_faces or ref in self.table.public_faces:
            return
        have = {**public, **self._sealed_to_me.get(ref, {})}
        if not all(p in have for p in parties if p != self.me):
            return
        have[self.me] = self._own_token_point(ref)
        point = crypto.unmask(self.table.cts[ref], [have[p] for p in parties])
        try:
            self.private_faces[ref] = self.table.codec.decode(point)
        except crypto.CryptoError:
            note = f"ref {ref} opens to no card of this deck (a forged shuffle got through)"
            if note not in self.problems:
                self.problems.append(note)

    def _own_token_point(self, ref: Ref) -> crypto.Point:
        if ref not in self._own_tokens:
            c1 = crypto.Point.from_bytes(self.table.cts[ref][:33])
            self._own_tokens[ref] = c1.mul(self._x)
        return self._own_tokens[ref]

    def _act(self) -> list[Effect]:
        """Write every entry this party owes now, feeding each through the replica."""
        effects: list[Effect] = []
        if self.holding:
            return effects
        while True:
            exp = self.table.expected()
            if exp is None:
                return effects
            if (self.bad_seals or self.equivocations) and exp[0] == self.me and not self._sent_here():
                envelope = self._accusation()
            elif exp[0] != self.me:
                effects += self._write_ahead()
                envelope = None
            else:
                envelope = self._entry_for(exp[1])
            if envelope is None:
                work, self._work = self._work, []
                effects += [Effect("work", job=job) for job in work]
                prompt = self.waiting_for_me()
                if prompt is not None and self._asked != self.table.step.start_seq:
                    self._asked = self.table.step.start_seq
                    effects.append(Effect("decide", prompt=prompt, moves=self.legal_moves()))
                return effects
            accepted = self._accept(envelope, own=True)
            if accepted and accepted[0].kind == "rejected":  # our own entry refused: a bug, never silent
                raise RuntimeError(f"own entry refused: {accepted[0].text}")
            accepted[0].persisted = True  # the "write" before it made it durable
            effects.append(Effect("write", envelope))
            effects += accepted
            effects += self._drain()  # entries the others wrote ahead may now fall into place

    def _write_ahead(self) -> list[Effect]:
        """In a concurrent step, write our entry now at our canonical place, without waiting for
        the writers before us. It joins our log when its place comes (it is deterministic, so a
        crash before then recomputes the same bytes)."""
        place = self.table.ahead_place(self.me)
        if place is None or self.bad_seals or self.equivocations or place[0] in self._own_ahead:
            return []
        envelope = self._entry_for(self.table.step.kind, place)
        if envelope is None:
            return []
        self._own_ahead[place[0]] = envelope
        return [Effect("send", envelope)]

    def _sign(self, kind: str, place: tuple[int, bytes] | None, body: dict[str, Any]) -> bytes:
        table = self.table
        seq, prev = (table.next_seq, table.chain_head) if place is None else place
        return make_entry(self.identity, table.game_id, seq, prev, self.me, kind, body).envelope

    def _entry_for(self, kind: str, place: tuple[int, bytes] | None = None) -> bytes | None:
        """Our ``kind`` entry for the current step, at the next place of the log or, ahead of the
        writers before us in a concurrent step, at ``place`` = ``(seq, prev)``."""
        table = self.table
        gid, me = table.game_id, self.me
        seq = table.next_seq if place is None else place[0]
        step = table.step
        if kind == "countersign":
            return self._sign(kind, place, {"genesis": table.genesis.hash})
        if kind == "keyshare":
            if self._salt is None:
                self._use_salt(self._entropy(SALT_SIZE))
            assert self._salt is not None
            share = crypto.make_key_share(self._x, context(gid, 0, me, b"keyshare"))
            seal_key = crypto.seal_public(self._seal)
            return self._sign(kind, place, {"share": share, "seal": seal_key, "salt": self._salt})
        if kind == "shuffle":
            pile_in = tuple(step.pile)
            ready = self._prepared.get(seq)
            if ready is not None and ready.pile != pile_in:
                ready = None
            if self.defer_work:  # never made on the driver's loop: the entry waits for the work
                if ready is None:
                    ready = self._prepared[seq] = _Prepared(pile_in, lambda: self._shuffle(seq, pile_in))
                if not ready.finished:
                    if not ready.handed:  # once: the work's end calls ``start`` again
                        ready.handed = True
                        self._work.append(ready.run)
                    return None
            self._prepared.pop(seq, None)
            made = ready.result() if ready is not None else None
            pile, proof = made if made is not None else self._shuffle(seq, step.pile)
            return self._sign(kind, place, self._with_carried(kind, seq, {"pile": pile, "proof": proof}))
        if kind == "tokens":
            ctx = context(gid, seq, me, b"token")
            tokens = [[ref, crypto.reveal_token(self._x, table.cts[ref], ctx)] for ref in step.owed[me]]
            return self._sign(kind, place, {"tokens": tokens})
        if kind == "sealed":
            ctx = context(gid, seq, me, b"seal")
            seals = []
            for ref, to in step.owed[me]:
                token = crypto.reveal_token(self._x, table.cts[ref], ctx)
                seals.append([ref, to, crypto.seal(token, self._seal, table.seal_keys[to], ctx)])
            return self._sign(kind, place, {"seals": seals})
        if kind in ("commit", "open"):
            value = self._commit_value()
            if value is None:
                return None
            nonce = self._derive("nonce", step.start_seq)
            if kind == "commit":
                digest = crypto.commit(table.commit_context(me), value, nonce)
                return self._sign(kind, place, {"digest": digest})
            self._pending_choice = None
            return self._sign(kind, place, {"value": value, "nonce": nonce})
        if kind == "move":
            if self._current_choice() is None:
                return None
            move, self._pending_choice = self._pending_choice, None
            late, self._pending_late = self._pending_late, False
            body = {"move": move, "late": True} if late else {"move": move}
            return self._sign(kind, place, self._with_carried(kind, seq, body))
        if kind == "final":
            return self._sign(kind, place, {"result": table.game.result(table.state)})
        if kind == "deal":
            return self._deal_entry()
        raise AssertionError(f"unknown kind {kind}")

    def _shuffle(self, seq: int, pile: Sequence[bytes]) -> tuple[list[bytes], bytes]:
        """Our shuffle of ``pile`` for entry ``seq``, with its proof (a function of the pile, the seq
        and our secrets only)."""
        table = self.table
        assert table.table_key is not None
        seed = self._derive("shuffle", seq)
        ctx = context(table.game_id, seq, self.me, b"shuffle")
        if table.proof == "wt":
            return crypto.shuffle_pile_wt(pile, table.table_key, seed, ctx)
        return crypto.shuffle_pile(pile, table.table_key, seed, table.shuffle_rounds, ctx)

    def precheck(self, envelope: bytes) -> list[Callable[[], None]]:
        """The heavy work ``envelope`` will need, as calls a driver may run in worker threads before
        it hands the envelope to :meth:`receive` (so that the proofs are not checked on its event
        loop): the proofs of the entry's shuffle and tokens, whose verdicts are remembered in
        ``table.verified``, and — when the entry is the shuffle just before ours — our own shuffle
        of its pile. Each call touches nothing but its own inputs and a set; every check is done
        again by :meth:`receive` unless its statement was found true. Only the expected writer's
        validly signed next entry is worth this work; for anything else the list is empty."""
        table, step = self.table, self.table.step
        try:
            entry = parse_envelope(envelope)
        except LogError:
            return []
        expected = table.expected()
        if (
            expected is None
            or table.mode != "fair"
            or entry.seq != table.next_seq
            or entry.prev != table.chain_head
            or entry.seat != expected[0]
            or entry.kind != expected[1]
        ):
            return []
        body = entry.body
        pile = body.get("pile")
        shuffled = entry.kind == "shuffle" and isinstance(pile, list)
        shuffled = shuffled and all(isinstance(c, bytes) for c in pile)
        parts = [(b"token", body.get("tokens"))] if entry.kind == "tokens" else []
        if entry.kind in CARRYING_KINDS:
            parts += [(carried_label(i), part) for i, part in enumerate(carried_parts(body))]
        checks = []
        share = table.shares.get(entry.seat)
        for label, items in parts:
            ctx = context(table.game_id, entry.seq, entry.seat, label)
            for item in items if isinstance(items, list) and share is not None else []:
                well_formed = isinstance(item, list) and len(item) == 2 and isinstance(item[1], bytes)
                # (a deal's cards may not have their refs yet: the shuffle that makes them is this entry)
                if well_formed and type(item[0]) is int and 0 <= item[0] < len(table.cts):
                    checks.append((ctx, share, table.cts[item[0]], item[1]))
        heavy = len(checks) >= PRECHECK_TOKENS
        # the signature last, and only for an entry worth the work (receive checks it anyway)
        if not (shuffled or heavy) or not entry.signed_by(table.parties[entry.seat].key):
            return []
        self._signature_checked = envelope  # receive need not check it again
        jobs: list[Callable[[], None]] = []
        if shuffled:
            ctx = context(table.game_id, entry.seq, entry.seat, b"shuffle")
            jobs.append(self._shuffle_check(ctx, tuple(step.pile), tuple(pile), body.get("proof")))
            mine = entry.seq + 1
            if step.writers[1:2] == [self.me] and len(pile) == len(step.pile) and mine not in self._prepared:
                job = _Prepared(tuple(pile), lambda: self._shuffle(mine, pile))
                self._prepared = {s: p for s, p in self._prepared.items() if s >= table.next_seq}
                self._prepared[mine] = job
                jobs.append(job.run)
        if heavy:
            jobs.append(self._tokens_check(checks))
        return jobs

    def _shuffle_check(
        self, ctx: bytes, pile_in: tuple[bytes, ...], pile_out: tuple[bytes, ...], proof: Any
    ) -> Callable[[], None]:
        table = self.table
        key, proof_system, rounds = table.table_key, table.proof, table.shuffle_rounds
        verified = table.verified

        def check() -> None:
            if key is None or not isinstance(proof, bytes):
                return
            with contextlib.suppress(crypto.CryptoError, ValueError, TypeError):
                verify_shuffle_proof(proof_system, rounds, key, pile_in, pile_out, proof, ctx)
                verified.add(shuffle_statement(ctx, key, pile_in, pile_out, proof))

        return check

    def _tokens_check(self, checks: list[tuple[bytes, crypto.Point, bytes, bytes]]) -> Callable[[], None]:
        verified = self.table.verified

        def check() -> None:
            for ctx, share, ciphertext, token in checks:
                with contextlib.suppress(crypto.CryptoError, ValueError, TypeError):
                    crypto.verify_token(share, ciphertext, token, ctx)
                    verified.add(token_statement(ctx, share, ciphertext, token))

        return check

    def _with_carried(self, kind: str, seq: int, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` with the tokens we owe for the steps it begins (see ``CARRYING_KINDS``): found by
        applying it to a copy of the replica, part after part, while the step it reached is a fresh
        tokens step that owes something from us."""
        table = self.table
        if table.mode != "fair":
            return body
        trial = table.fork()
        trial._own = True
        draft = Entry(table.game_id, seq, table.chain_head, self.me, kind, body, b"", b"", b"")
        trial._apply(draft, kind)
        parts: list[list[Any]] = []
        while len(parts) < MAX_CARRIED_PARTS:
            step = trial.step
            if trial.ended is not None or step.kind != "tokens" or self.me not in step.writers:
                break
            if step.group_start != seq + 1 or step.members:
                break
            ctx = context(table.game_id, seq, self.me, carried_label(len(parts)))
            items = [[ref, crypto.reveal_token(self._x, trial.cts[ref], ctx)] for ref in step.owed[self.me]]
            trial._carried_tokens(draft, len(parts), items)
            parts.append(items)
        return {**body, "then": parts} if parts else body

    def _deal_entry(self) -> bytes:
        """Trusted mode, party 0: resolve the table operation with the seeded dealer."""
        assert self._dealer is not None
        table = self.table
        request = table.step.request
        event = self._dealer.resolve(request, lambda seat, prompt: {})
        self._dealt_upto = table.next_seq
        if isinstance(request, Deal | Show):
            pairs = request.deals if isinstance(request, Deal) else request.shows

            def sealed(ref: Ref, to: int) -> bytes:
                # one context per card: two equal faces sealed to one seat must not give equal blobs
                ctx = context(table.game_id, table.next_seq, 0, b"seal" + struct.pack(">Q", ref))
                return crypto.seal(self._dealer.slots[ref].encode(), self._seal, table.seal_keys[to], ctx)

            seals = [[ref, to, sealed(ref, to)] for ref, to in pairs]
            return self._sign("deal", None, {"seals": seals})
        if isinstance(request, Reveal | Disclose):
            return self._sign("deal", None, {"faces": dict(event.data["faces"])})
        if isinstance(request, Random):
            return self._sign("deal", None, {"value": event.data["value"]})
        return self._sign("deal", None, {})

    def _commit_value(self) -> bytes | None:
        step = self.table.step
        if isinstance(step.request, Random):
            return self._derive("random", step.start_seq)
        # a committed move: the player's choice, kept until it is opened
        choice = self._current_choice()
        return None if choice is None else pack(choice)

    def _current_choice(self) -> dict[str, Any] | None:
        """Our player's pending choice, if it still answers the step now due. One for a step that
        is over is dropped: after a restart our opening may come back from the others before we
        write it, and a stale choice must never be written as the answer to a later question."""
        if self._pending_choice is not None and self._pending_for != self.table.step.start_seq:
            self._pending_choice, self._pending_late = None, False
        return self._pending_choice

    def _sent_here(self) -> bool:
        """True if we already wrote (and may have sent) our entry for the next place: an
        accusation in its place would be a second entry of ours for one place."""
        return self.table.next_seq in self._own_ahead

    def _accusation(self) -> bytes:
        if not self.bad_seals:
            seq, other = self.equivocations[0]
            return self._sign("expose", None, {"seq": seq, "evidence": other})
        seal_seq, ref = self.bad_seals[0]
        table = self.table
        sender = table.entries[seal_seq].seat
        ctx = context(table.game_id, seal_seq, sender, b"seal")
        blob = next(s[4] for s in table.seals if s[0] == seal_seq and s[2] == ref and s[3] == self.me)
        evidence = crypto.bad_seal_evidence(blob, self._seal, table.seal_keys[sender], ctx)
        return self._sign("accuse", None, {"seal_seq": seal_seq, "ref": ref, "evidence": evidence})

    def abandon(self, reason: str) -> list[Effect]:
        """Close the game because the awaited party is gone (not allowed for the awaited party)."""
        envelope = self._sign("abandon", None, {"reason": reason})
        accepted = self._accept(envelope, own=True)
        if accepted and accepted[0].kind == "rejected":
            raise IllegalMove(accepted[0].text)
        accepted[0].persisted = True  # by the "write" before it
        return [Effect("write", envelope)] + accepted


def face_of(table: Table, ref: Ref) -> Face | None:
    """The public face of ``ref``, if it is public."""
    return table.public_faces.get(ref)
