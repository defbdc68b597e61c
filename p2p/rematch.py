"""Playing again with the same players (issue 19): the ``again`` and ``again-at`` messages, how a
node judges them, and how the parties of a finished game settle whether they play another one.

Theory of operation
-------------------
When a game has ended by its rules, the parties are still linked by the game's mesh (CurveZMQ,
seated keys only). Each party answers "play again?" with an ``again`` message to every other party:
``yes``, ``no``, or ``left`` (sent by a node that closes without having said no: a person who
leaves, a program that does not play again). It is signed with the party's identity key and names
the game it answers about, so it counts only for that game and only from that seat. ``yes`` is
repeated every second while the answers are gathered (a message lost on a link that was down is
sent again); ``no`` and ``left`` are final.

Nothing of this is a log entry: each game's log ends with its result, and the next game is a new
table with a new log. A single ``no`` or ``left``, a party silent on the mesh for
:data:`GONE_AFTER` seconds, or :data:`AGAIN_WAIT` seconds without every answer end the series for
everyone; each party says who in one line (``no rematch: pat (seat 1) declined``).

When every party said yes, the opener of the ended game (party 0: only it can be party 0 of a
genesis, see :mod:`p2p.policy`) opens a new table with the *same terms* — game, seats, witnesses,
options, mode, shuffle proof, deadline and policy — which seats only the ended game's parties, each
at its old place, and sends ``again-at`` (where its bootstrap listens) until they have all joined.
Each other party checks that the new table's terms are the old ones, that its opener is the old
opener and that it says it follows the ended game, and joins without asking its player again; it
countersigns the new genesis only if it seats exactly the old parties in the old order. The new game
has a new id and every party draws fresh per-game secrets for it, as at any new table.

Everything here is a pure function of a table and a message, except :func:`settle` and
:func:`announce`, which a node's program awaits after the end of a game.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from p2p import policy
from p2p.identity import Identity, verify_signature
from p2p.protocol import Table
from p2p.safetext import safe_text

if TYPE_CHECKING:
    from p2p.node import Node

ANSWERS = ("yes", "no", "left")
"""What a party can answer to "play again?"."""
AGAIN_WAIT = 120.0
"""Seconds a party waits, from the end of the game, for every party's answer."""
GONE_AFTER = 15.0
"""Seconds of silence on the ended game's mesh (which pings every second) after which a party that
has not answered counts as gone."""
OPEN_WAIT = 30.0
"""Seconds a party that heard every yes waits for the opener's ``again-at``."""
REJOIN_WAIT = 60.0
"""Seconds the opener's new table waits for every old party to join it."""
RESEND = 1.0
"""Seconds between two sends of a ``yes`` (and of ``again-at``) while the others are waited for."""
MAX_HOST = 255
"""Characters of a host name in ``again-at`` at most."""

AGAIN_KEYS = frozenset({"t", "game", "answer", "sig"})
AT_KEYS = frozenset({"t", "game", "host", "port", "sig"})


class RematchError(ValueError):
    """A rematch message or offer this party does not take; ``str(exc)`` is one readable line."""


# ---------------------------------------------------------------------------------------------
# the messages
# ---------------------------------------------------------------------------------------------


def _again_bytes(game_id: bytes, answer: str) -> bytes:
    return b"fairdeck-again\0" + game_id + answer.encode()


def _at_bytes(game_id: bytes, host: str, port: int) -> bytes:
    return b"fairdeck-again-at\0" + game_id + port.to_bytes(2, "big") + host.encode()


def again_message(identity: Identity, game_id: bytes, answer: str) -> dict[str, Any]:
    """``{t: "again", game, answer, sig}``: this party's answer about the ended game ``game_id``."""
    if answer not in ANSWERS:
        raise ValueError(f"not an answer: {answer!r}")
    sig = identity.sign(_again_bytes(game_id, answer))
    return {"t": "again", "game": game_id, "answer": answer, "sig": sig}


def at_message(identity: Identity, game_id: bytes, host: str, port: int) -> dict[str, Any]:
    """``{t: "again-at", game, host, port, sig}``: the opener's next table after game ``game_id``."""
    return {
        "t": "again-at",
        "game": game_id,
        "host": host,
        "port": port,
        "sig": identity.sign(_at_bytes(game_id, host, port)),
    }


def _common(table: Table, party: int | None, message: Mapping[str, Any], keys: frozenset[str]) -> int:
    """The checks both messages share; the sender's party index."""
    if set(message) != keys:
        raise RematchError(f"a {safe_text(message.get('t'), 10)} message must hold exactly {sorted(keys)}")
    if party is None:
        raise RematchError("it does not come from a party of the game")
    game, sig = message["game"], message["sig"]
    if not isinstance(game, bytes) or game != table.game_id:
        raise RematchError("it is not about the game that ended here")
    if not isinstance(sig, bytes) or len(sig) != 64:
        raise RematchError("its signature is not 64 bytes")
    return party


def read_again(table: Table, party: int | None, message: Mapping[str, Any], *, over: bool = True) -> str:
    """The answer an ``again`` message from party ``party`` (``None``: the sender holds no seat of
    ``table``) gives; :class:`RematchError` if it is malformed, not about this game or not signed by
    that party, or if the game is not ``over`` here yet (see :func:`result_known`)."""
    _common(table, party, message, AGAIN_KEYS)
    assert party is not None
    if not over:
        raise RematchError("the game has not ended here yet")
    answer = message["answer"]
    if answer not in ANSWERS or not isinstance(answer, str):
        raise RematchError(f"'{safe_text(answer, 20)}' is not yes, no or left")
    if not verify_signature(table.parties[party].key, message["sig"], _again_bytes(table.game_id, answer)):
        raise RematchError(f"its signature is not {who(table, party)}'s")
    return answer


def read_at(
    table: Table,
    endpoints: list[str],
    party: int | None,
    message: Mapping[str, Any],
    *,
    ended: bool,
    said_yes: bool,
) -> tuple[str, int]:
    """``(host, port)`` of the next table from an ``again-at`` message; :class:`RematchError` unless
    it is well formed, from the ended game's opener (party 0, signed by it), names the host the
    opener already had in that game (``endpoints[0]``), and comes after the game ``ended`` by its
    rules and after this party ``said_yes``."""
    _common(table, party, message, AT_KEYS)
    if party != 0:
        raise RematchError(f"only the opener may say where the next game is, not {who(table, party)}")
    if not ended:
        raise RematchError("the game has not ended by its rules here")
    if not said_yes:
        raise RematchError("this party has not said it plays again")
    host, port = message["host"], message["port"]
    if not isinstance(host, str) or not 1 <= len(host) <= MAX_HOST:
        raise RematchError("its host is not a name of 1-255 characters")
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise RematchError("its port is not a TCP port")
    if not verify_signature(table.parties[0].key, message["sig"], _at_bytes(table.game_id, host, port)):
        raise RematchError("its signature is not the opener's")
    known = endpoint_host(endpoints[0]) if endpoints else None
    if host != known:
        raise RematchError(f"it names host {safe_text(host, 60)}, not the opener's {safe_text(known, 60)}")
    return host, port


def result_known(table: Table) -> bool:
    """Whether ``table``'s game has ended here, or waits only for the parties' ``final`` entries:
    an answer about playing again is taken from then on. (A party that has ended has seen every
    party's ``final`` entry, so each of them had reached that step: no honest answer comes earlier.)"""
    return table.ended is not None or table.step.kind == "final"


def endpoint_host(endpoint: str) -> str:
    """``tcp://HOST:PORT`` -> ``HOST``."""
    return endpoint.split("//", 1)[-1].rsplit(":", 1)[0]


# ---------------------------------------------------------------------------------------------
# the next table
# ---------------------------------------------------------------------------------------------


def who(table: Table, party: int | None) -> str:
    """``pat (seat 1)`` or ``witness-1 (witness)``, safe to print."""
    if party is None or not 0 <= party < len(table.parties):
        return "someone"
    name = safe_text(table.parties[party].name, 40)
    return f"{name} (seat {party})" if party < table.seats else f"{name} (witness)"


def role_of(table: Table, party: int) -> str:
    """``player`` or ``witness``: the role party ``party`` holds (and rejoins with)."""
    return "player" if party < table.seats else "witness"


def old_terms(table: Table) -> policy.Terms:
    """The terms of the ended game, which the next one must state again."""
    return policy.Terms.from_genesis(table.genesis.body)


def table_args(table: Table) -> dict[str, Any]:
    """:meth:`p2p.node.Node.open_table` arguments that open a table with the ended game's terms."""
    body = table.genesis.body
    return {
        "game": table.game.name,
        "seats": table.seats,
        "options": dict(body["options"]),
        "witnesses": len(table.parties) - table.seats,
        "shuffle_rounds": table.shuffle_rounds,
        "mode": table.mode,
        "proof": table.proof,
        "stall_after": table.stall_after,
        "on_stall": table.on_stall,
    }


def check_offer(table: Table, terms: policy.Terms, after: object) -> str | None:
    """Why the table whose bootstrap states ``terms`` (and ``after``: the game it follows) is not
    the rematch of ``table``; ``None`` if it is."""
    if after != table.game_id:
        return "the table does not say it follows the game that ended"
    if terms.opener != table.parties[0].key:
        return f"the next table is not opened by the last game's opener, {who(table, 0)}"
    if diffs := terms.differences(old_terms(table)):
        return "the next table's terms differ from the last game's: " + "; ".join(diffs)
    return None


def check_parties(table: Table, body: Mapping[str, Any]) -> str | None:
    """Why the genesis ``body`` does not seat ``table``'s parties, in the same order, under the same
    names and keys; ``None`` if it does."""
    parties = body.get("parties")
    shape = (body.get("seats"), len(parties) if isinstance(parties, list) else None)
    if shape != (table.seats, len(table.parties)):
        return "the next game does not seat the last game's players"
    for index, (new, old) in enumerate(zip(parties, table.parties, strict=True)):
        if not isinstance(new, Mapping) or (new.get("key"), new.get("curve"), new.get("name")) != (
            old.key,
            old.curve,
            old.name,
        ):
            return f"the next game does not seat {who(table, index)} where the last game did"
    return None


def expected_party(table: Table, key: object, curve: object, name: object, role: object) -> int:
    """Where the next table seats a joiner (its place in the ended game); :class:`RematchError` if
    it held no place there, or comes back under another name, transport key or role."""
    index = table.seat_of_key(key) if isinstance(key, bytes) else None
    if index is None:
        raise RematchError("this table is a rematch: only the last game's players may join it")
    old = table.parties[index]
    if curve != old.curve or name != old.name:
        raise RematchError("a rematch seats its players under their names and keys of the last game")
    if role != role_of(table, index):
        raise RematchError(f"{who(table, index)} was a {role_of(table, index)} in the last game")
    return index


# ---------------------------------------------------------------------------------------------
# settling
# ---------------------------------------------------------------------------------------------


@dataclass
class Verdict:
    """What the parties settled: ``agreed`` (then ``at`` is the next table for a joiner), or why not
    (``line``, one line for the player: ``no rematch: pat (seat 1) declined``). ``everyone``: the
    series ended on what every party sees alike (a no, a left, a silence), so leaving needs no word;
    otherwise (our own wait ran out) closing tells the others we left."""

    agreed: bool
    line: str = ""
    at: tuple[str, int] | None = None
    everyone: bool = False


def _refusals(node: Node, table: Table, others: list[int], waited: float, gone_after: float) -> list[str]:
    """Who ended the series: a ``no``, a ``left``, or silence on the mesh without an answer."""
    out = []
    for index in others:
        answer = node.again.get(index)
        if answer == "no":
            out.append(f"{who(table, index)} declined")
        elif answer == "left":
            out.append(f"{who(table, index)} left")
        elif answer is None and node.mesh is not None:
            silent = node.mesh.silent_for(table.parties[index].curve)
            quiet = waited if silent is None else silent
            if quiet > gone_after:
                out.append(f"{who(table, index)} is gone (nothing heard for {quiet:.0f} s)")
    return out


async def settle(
    node: Node,
    own: Awaitable[str] | str,
    *,
    wait: float = AGAIN_WAIT,
    gone_after: float = GONE_AFTER,
    say: Callable[[str], None] | None = None,
) -> Verdict:
    """Settle with the other parties of ``node``'s ended game whether everyone plays again.

    ``own`` is this party's answer, or an awaitable of it (a person's question: it is cancelled if
    the series ends before it is answered). The answer is sent to every party (a ``yes`` every
    :data:`RESEND` seconds until settled). Returns once every party said yes (the opener) or the
    opener said where the next table is (the others), or once someone declined, left or is gone, or
    the wait is over; ``say`` is told when this party starts waiting for the others."""
    assert node.party is not None
    table, me = node.party.table, node.party.me
    others = [i for i in range(len(table.parties)) if i != me]
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + wait
    answer = own if isinstance(own, str) else None
    asking = None if isinstance(own, str) else asyncio.ensure_future(own)
    if asking is not None:
        asking.add_done_callback(lambda _: node.again_news.set())
    sent_at: float | None = None
    heard_all: float | None = None
    try:
        while True:
            now = loop.time()
            if answer is None and asking is not None and asking.done():
                try:
                    answer = asking.result()
                except (Exception, asyncio.CancelledError):
                    answer = "left"
                answer = answer if answer in ANSWERS else "no"
                if answer == "yes" and say is not None:
                    say(f"waiting for the others to answer (at most {wait:g} s)")
            if answer is not None and (sent_at is None or now - sent_at >= RESEND):
                await node.say_again(answer)
                sent_at = now
            if answer in ("no", "left"):
                return Verdict(False, f"no rematch: you {'declined' if answer == 'no' else 'left'}")
            if refused := _refusals(node, table, others, now - start, gone_after):
                return Verdict(False, "no rematch: " + "; ".join(refused), everyone=True)
            if answer == "yes":
                if all(node.again.get(i) == "yes" for i in others):
                    if me == 0:
                        return Verdict(True)
                    heard_all = heard_all or now
                    deadline = max(deadline, heard_all + OPEN_WAIT)
                if me != 0 and node.again_at is not None:
                    return Verdict(True, at=node.again_at)
            if now > deadline:
                if answer is None:
                    await node.say_again("left")
                    return Verdict(False, f"no rematch: you did not answer within {wait:g} s")
                missing = [who(table, i) for i in others if node.again.get(i) != "yes"]
                if missing:
                    line = f"no rematch: no answer within {wait:g} s from {', '.join(missing)}"
                    return Verdict(False, line)
                return Verdict(False, f"no rematch: the opener, {who(table, 0)}, did not open the next game")
            node.again_news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(node.again_news.wait(), 0.25)
    finally:
        if asking is not None and not asking.done():
            asking.cancel()


async def announce(old: Node, new: Node, port: int, *, wait: float = REJOIN_WAIT) -> str | None:
    """The opener's part once everyone said yes and ``new`` opened the next table (its bootstrap at
    ``port``): send ``again-at`` over ``old``'s mesh every :data:`RESEND` seconds until every party
    joined and the game started (``None``), or say why not in one line — a party withdrew (``no`` or
    ``left`` after its yes), did not come back within ``wait`` seconds, or the table refused to start
    (then ``new``'s table is cancelled)."""
    assert old.party is not None
    table = old.party.table
    message = at_message(old.identity, table.game_id, endpoint_host(old.endpoints[0]), port)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    started = asyncio.ensure_future(new.wait_started())
    try:
        while new.party is None and not new.ended:
            gone = [who(table, i) for i, a in old.again.items() if i != old.party.me and a in ("no", "left")]
            late = loop.time() > deadline
            if gone or late:
                missing = ", ".join(who(table, i) for i in new.missing_parties(table))
                line = f"{'; '.join(gone)} left" if gone else f"{missing or 'someone'} did not come back"
                await new.cancel_table(f"the rematch did not start: {line}")
                return f"no rematch: {line}"
            await old._broadcast(message)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(started), RESEND)
    finally:
        started.cancel()
    if new.party is None:
        return f"no rematch: the next table did not start: {new.refusal or 'refused'}"
    return None
