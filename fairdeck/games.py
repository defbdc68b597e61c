"""``fairdeck games``: this player's games — finished, unfinished (with whom, since when), left — and
what can be done with one: resume, replay, audit, discard. ``fairdeck resume`` without a game asks
here which one when more than one can be resumed.

Every game is a log in ``$FAIRDECK_HOME/games`` (newest first; numbered from 1 in that order, the
number ``fairdeck games ACTION N`` and ``fairdeck resume N`` take; a game id or the start of one
works too). A game counts as *live* — offered by ``resume`` — when it has not ended, and the player
did not leave it on purpose (``commands.mark_left``) or left one that can still be resumed (a game
whose bots this machine ran and ended cannot: they are gone). Discarding moves a game's files to
``games/discarded/``: out of every list, still there to audit. It asks first (``--yes`` does not, and
is needed when there is no terminal to ask on).

On a terminal ``fairdeck games`` is a small full-screen list (↑↓ choose, Enter or ``r`` resume,
``v`` replay, ``a`` audit, ``d`` discard, ``q`` quit); elsewhere it prints the list. Names come from
the logs, so they are shown through :func:`p2p.safetext.safe_text`.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2p.identity import Identity, data_dir
from p2p.safetext import safe_text

SIBLINGS = (".fdlog", ".roster", ".choice", ".choice-new", ".evidence", ".left", ".verdict", ".about")
"""The files of one game in the games folder."""


@dataclass
class GameEntry:
    """One game of this player, as listed."""

    number: int
    path: Path
    game: str
    names: list[str]
    seat: int | None
    when: float
    status: str
    """``finished``, ``abandoned``, ``accused``/``faulted``, ``left``, ``unfinished`` or ``damaged``."""
    detail: str
    resumable: bool

    @property
    def id(self) -> str:
        """The game id (the log file's name without its suffix)."""
        return self.path.stem

    def others(self) -> str:
        """Who else sat at the table, by name (``;`` between them when a name holds a comma, as
        ``bot-1, run by alice`` does)."""
        others = [n for i, n in enumerate(self.names) if i != self.seat]
        return ("; " if any("," in n for n in others) else ", ").join(others) or "nobody"

    def line(self) -> str:
        """One line: number, date, game, status, with whom."""
        when = datetime.datetime.fromtimestamp(self.when).strftime("%Y-%m-%d %H:%M")
        return f"{self.number:>3}  {when}  {self.game:<13} {self.status:<10} with {self.others()}"


VERDICT_SUFFIX = ".verdict"
"""Beside a log: its last audit's one-line verdict, valid while the log is unchanged."""


def record_verdict(path: Path, headline: str) -> None:
    """Keep the audit's verdict of the log at ``path`` (for the games list); never fails loudly."""
    with contextlib.suppress(OSError):
        stat = path.stat()
        mark = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "verdict": safe_text(headline, 300)}
        path.with_suffix(VERDICT_SUFFIX).write_text(json.dumps(mark))


def recorded_verdict(path: Path) -> str | None:
    """The kept verdict of the log at ``path``, or ``None`` if it was never audited or has changed."""
    try:
        stat = path.stat()
        mark = json.loads(path.with_suffix(VERDICT_SUFFIX).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(mark, dict) or mark.get("size") != stat.st_size:
        return None
    if mark.get("mtime_ns") != stat.st_mtime_ns:
        return None  # the log changed since it was audited
    verdict = mark.get("verdict")
    return safe_text(verdict, 300) if isinstance(verdict, str) else None


ABOUT_SUFFIX = ".about"
"""Beside the log of an ended game: how the games list describes it (game, names, seat, status,
detail) for one identity, valid while the log is unchanged. Describing a log replays it and checks
every proof in it (about 0.4 s of CPU for a four-seat game here); a game that has ended reads the
same every time, so a long list is replayed once, not on every ``fairdeck games``."""

Description = tuple[str, list[str], int | None, str, str, bool]
"""(game, names, my seat, status, detail, resumable) of a log, as the games list shows it."""

_STILL_CHANGING = ("unfinished", "left", "damaged")
"""Statuses whose words depend on more than the log (a ``.left`` note, a roster, a live process)."""


def _file_mark(path: Path, identity: Identity | None) -> dict[str, Any]:
    stat = path.stat()
    key = identity.public_key.hex() if identity is not None else None
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "identity": key}


def _kept_description(path: Path, identity: Identity | None) -> Description | None:
    """The kept description of the ended game at ``path`` for ``identity``, or ``None`` if there is
    none, it is for another identity, the log changed since, or the file is not one we wrote."""
    try:
        kept = json.loads(path.with_suffix(ABOUT_SUFFIX).read_text())
        mark = _file_mark(path, identity)
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or any(kept.get(k) != v for k, v in mark.items()):
        return None
    game, names, seat, status, detail = (kept.get(k) for k in ("game", "names", "seat", "status", "detail"))
    if not (
        isinstance(game, str)
        and isinstance(names, list)
        and all(isinstance(n, str) for n in names)
        and (seat is None or type(seat) is int)
        and isinstance(status, str)
        and status not in _STILL_CHANGING
        and isinstance(detail, str)
    ):
        return None
    # (made safe again: the file is as trustworthy as the folder it sits in, no more)
    safe_names = [safe_text(n, 40) for n in names]
    return safe_text(game, 20), safe_names, seat, safe_text(status, 20), safe_text(detail, 2000), False


def _keep_description(path: Path, identity: Identity | None, described: Description) -> None:
    """Keep how an ended game is described (never fails loudly: the list is only slower without it)."""
    game, names, seat, status, detail, _ = described
    with contextlib.suppress(OSError):
        about = {**_file_mark(path, identity), "game": game, "names": names, "seat": seat}
        about |= {"status": status, "detail": detail}
        path.with_suffix(ABOUT_SUFFIX).write_text(json.dumps(about))


def describe(path: Path, identity: Identity | None) -> Description:
    """How the games list describes the log at ``path`` for ``identity``: kept from an earlier
    listing while an ended game's log is unchanged, else read from the log (and kept, once ended)."""
    kept = _kept_description(path, identity)
    if kept is not None:
        return kept
    described = _describe(path, identity)
    if described[3] not in _STILL_CHANGING:
        _keep_description(path, identity, described)
    return described


def _describe(path: Path, identity: Identity | None) -> Description:
    """(game, names, my seat, status, detail, resumable) of the log at ``path``."""
    from fairdeck.commands import helpers_words, left_note, playing_now
    from replay.replay import closing_words, replay_log, result_words

    foreign = identity is not None and not _seated(path, identity)
    # not one of its players (this home's key was replaced): the game is read as anyone reads it
    result = replay_log(path, None if foreign else identity)
    table = result.table
    names = [safe_text(p.name, 40) for p in table.parties]
    seat = result.party.seat if result.party is not None else None
    game = safe_text(table.game.name, 20)
    damage = result.stopped or result.read_error
    if damage:  # an edited or torn file: never listed as if it were a game in progress
        where = f"entry {result.stopped_seq}" if result.stopped_seq is not None else "its end"
        detail = f"damaged at {where}: {safe_text(damage, 120)}"
        return game, names, seat, "damaged", detail, path.with_suffix(".roster").exists()
    if table.ended == "over":
        words = result_words(table.game, table.game.result(table.state), names[: table.game.seats])
        return game, names, seat, "finished", "; ".join(words), False
    if table.ended is not None:
        return game, names, seat, table.ended, closing_words(table, names, seat), False
    note = left_note(path)
    roster = path.with_suffix(".roster").exists()
    if note is not None and playing_now(note):
        return game, names, seat, "unfinished", f"being played now (fairdeck, process {note['pid']})", False
    if note is not None:
        why = safe_text(note.get("why", ""), 80)
        can = bool(note.get("resumable")) and roster
        helpers = helpers_words(table, "its")
        gone = f"{helpers} {'is' if helpers == 'its witness' else 'are'} gone"
        if note.get("resumable") and not roster:
            detail = f"{_left_words(why)}; {_no_roster(path)}"
        else:
            detail = _left_words(why) + ("" if can else f"; {gone}, so it cannot go on")
        return game, names, seat, "left", detail, can
    expected = table.expected()
    waiting = ""
    if expected is not None:
        who = expected[0]
        waiting = "waiting for you" if who == seat else f"waiting for {names[who]} (seat {who})"
    if foreign:
        why = (
            "cannot be resumed here: this home's identity is not one of its players (resume it with "
            "the identity that played it, the identity.key of its home)"
        )
        return game, names, seat, "unfinished", f"{waiting}; {why}" if waiting else why, False
    if not roster:
        waiting = f"{waiting}; {_no_roster(path)}" if waiting else _no_roster(path)
    return game, names, seat, "unfinished", waiting, roster


def _seated(log_path: Path, identity: Identity) -> bool:
    """Whether ``identity`` is one of the parties of the game at ``log_path`` (by its genesis; a log
    whose genesis cannot be read is left for the replay to say so)."""
    from p2p.log import LogError, parse_envelope
    from p2p.recovery import first_envelope

    envelope = first_envelope(log_path)
    try:
        parties = parse_envelope(envelope).body.get("parties") if envelope is not None else None
    except LogError:
        return True
    if not isinstance(parties, list):
        return True
    return any(isinstance(p, dict) and p.get("key") == identity.public_key for p in parties)


def _no_roster(log_path: Path) -> str:
    """Why an unfinished game with no roster beside its log cannot be resumed, and the remedy."""
    from p2p.recovery import roster_remedy

    return f"cannot be resumed: its roster is missing ({roster_remedy(log_path)})"


def _left_words(why: str) -> str:
    """How a game was left, said once: ``you left the table`` as it is, else ``you left it:
    interrupted`` (the note's ``why`` is what :func:`fairdeck.commands.mark_left` was told)."""
    if why.startswith("you left"):
        return why
    return f"you left it: {why}" if why else "you left it"


def list_games(home: Path | None = None) -> list[GameEntry]:
    """This player's games in ``home`` (default :func:`data_dir`), newest first, numbered from 1."""
    home = home or data_dir()
    games = home / "games"
    try:
        identity: Identity | None = Identity.load(home / "identity.key")
    except (OSError, ValueError):
        identity = None
    found = list(games.glob("*.fdlog")) if games.is_dir() else []
    paths = sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)
    out = []
    for path in paths:
        try:
            game, names, seat, status, detail, resumable = describe(path, identity)
        except Exception as exc:  # an unreadable log is listed as such, never a traceback
            game, names, seat, status = "?", [], None, "unreadable"
            detail, resumable = safe_text(exc, 200), False
        out.append(
            GameEntry(len(out) + 1, path, game, names, seat, path.stat().st_mtime, status, detail, resumable)
        )
    return out


ID_PREFIX_MIN = 4
"""Characters of a game id at least to name a game by it (shorter keys are list numbers: a "9"
must not name whichever game's id happens to start with 9)."""


def find(entries: list[GameEntry], key: str) -> GameEntry:
    """The game a number or an id (or the start of one) names; ``ValueError`` (one line) if none or
    several do."""
    key = key.strip()
    if key.isdigit() and len(key) < ID_PREFIX_MIN:  # a list number, never the start of an id
        if 1 <= int(key) <= len(entries):
            return entries[int(key) - 1]
        raise ValueError(f"no game {key}: the list has {len(entries)} (`fairdeck games` lists yours)")
    if len(key) < ID_PREFIX_MIN:
        raise ValueError(
            f"no game {safe_text(key, 40)}: give a number from `fairdeck games` or 4+ characters of an id"
        )
    hits = [e for e in entries if key and e.id.startswith(key.lower())]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise ValueError(f"no game {safe_text(key, 40)} (`fairdeck games` lists yours)")
    raise ValueError(f"{safe_text(key, 40)} names {len(hits)} games: give more of the id")


def print_games(entries: list[GameEntry], out: Any = None) -> None:
    """The list as text."""
    out = out or sys.stdout
    if not entries:
        print(f"no games yet in {data_dir() / 'games'}", file=out)
        return
    for e in entries:
        print(e.line(), file=out)
        mark = "  resumable" if e.resumable else ""
        print(f"     {e.id}  {e.detail}{mark}", file=out)
        verdict = ended_verdict(e)
        if verdict is not None:
            print(f"     audit: {verdict or f'not yet (fairdeck games audit {e.number})'}", file=out)


def ended_verdict(entry: GameEntry) -> str | None:
    """The kept audit verdict of a game that has ended (``""``: not audited yet); ``None`` for a
    game still going, left, or unreadable, which has no verdict to show."""
    if entry.status in ("unfinished", "left", "unreadable"):
        return None
    return recorded_verdict(entry.path) or ""


def choose_resumable(key: str | None) -> Path | None:
    """The log ``fairdeck resume`` resumes: the game ``key`` names, else the only live one, else the
    one the person picks from the live ones (on a terminal). Says why in one line when there is
    none (and returns ``None``)."""
    entries = list_games()
    if key is not None:
        entry = find(entries, key)
        if entry.status == "unreadable":
            raise ValueError(f"game {entry.number} cannot be read ({entry.detail}): audit it to see why")
        if entry.status not in ("unfinished", "left"):
            raise ValueError(f"game {entry.number} has ended ({entry.status}): replay or audit it instead")
        if not entry.resumable:
            raise ValueError(f"game {entry.number} cannot be resumed: {entry.detail}")
        return entry.path
    # (a game its player left on purpose is offered too, when it can go on: a table of people)
    live = [e for e in entries if e.status in ("unfinished", "left") and e.resumable]
    if not live:
        # an unfinished game that cannot go on as things are (its roster lost) is said, with why
        blocked = [e for e in entries if e.status == "unfinished"]
        why = "".join(f"; game {e.number} {e.detail}" for e in blocked[:3])
        print(
            f"fairdeck: no unfinished game to resume in {data_dir() / 'games'}{why} "
            "(`fairdeck games` lists yours)",
            file=sys.stderr,
        )
        return None
    if len(live) == 1:
        return live[0].path
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print_games(live)
        raise ValueError(f"{len(live)} unfinished games: name one, e.g. `fairdeck resume {live[0].number}`")
    from fairdeck.console.games import pick_game

    picked = pick_game(live, actions="r", title="Which game do you want to resume?")
    return picked[1].path if picked is not None else None


def discard(entry: GameEntry) -> Path:
    """Move the game's files to ``games/discarded/`` (out of every list, still there to audit)."""
    target = entry.path.parent / "discarded"
    target.mkdir(exist_ok=True)
    for suffix in SIBLINGS:
        path = entry.path.with_suffix(suffix)
        if path.exists():
            shutil.move(str(path), str(target / path.name))
    return target / entry.path.name


def _confirm_discard(entry: GameEntry) -> bool:
    """Ask on the terminal before a discard (``fairdeck`` refuses a discard without ``--yes`` when
    there is no terminal to ask on)."""
    if sys.stdin is None or sys.stdin.closed or not sys.stdin.isatty():
        raise ValueError("discard asks first, and there is no terminal to ask on: add --yes")
    try:
        answer = input(f"discard game {entry.number} ({safe_text(entry.game, 20)}, {entry.status})? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def games_command(args: argparse.Namespace) -> int:
    """``fairdeck games [ACTION [GAME]]``; see the module docstring."""
    entries = list_games()
    action, key = args.action, args.game
    if action in (None, "list") and key is None:
        if action is None and sys.stdin.isatty() and sys.stdout.isatty() and entries:
            from fairdeck.console.games import pick_game

            picked = pick_game(entries)
            if picked is None:
                return 0
            action, entry = picked  # (the list asked before a discard)
            chosen = {"r": "resume", "v": "replay", "a": "audit", "d": "discard"}[action]
            return _act(args, chosen, entry, confirmed=True)
        print_games(entries)
        return 0
    if key is None:
        raise ValueError(f"name a game: `fairdeck games {action} N` (N as listed by `fairdeck games`)")
    return _act(args, action or "list", find(entries, key))


def _act(args: argparse.Namespace, action: str, entry: GameEntry, confirmed: bool = False) -> int:
    if action == "list":
        print_games([entry])
        return 0
    if action == "discard":
        if not (confirmed or getattr(args, "yes", False) or _confirm_discard(entry)):
            print("not discarded")
            return 1
        where = discard(entry)
        print(f"game {entry.number} ({entry.game}, {entry.status}) discarded: now in {where.parent}")
        return 0
    if action == "audit":
        from replay.audit import audit_path, fit_to_terminal

        report = audit_path(entry.path)
        print(fit_to_terminal(report.text()))
        record_verdict(entry.path, report.headline())
        return report.exit_code
    if action == "replay":
        from fairdeck.cli import cmd_replay

        identity = data_dir() / "identity.key"
        as_key = str(identity) if identity.exists() else None
        return cmd_replay(argparse.Namespace(log=str(entry.path), as_key=as_key, text=False))
    # resume
    if not entry.resumable:
        raise ValueError(f"game {entry.number} cannot be resumed: {entry.detail or entry.status}")
    import asyncio

    from fairdeck.commands import _resume

    return asyncio.run(_resume(argparse.Namespace(plain=getattr(args, "plain", False)), entry.path))
