"""The replay viewer (``fairdeck.viewer``): stepping, rounds, perspectives, audit, unfinished logs."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from fairdeck.console import screen_text
from fairdeck.console.moves import face_label
from fairdeck.console.table import seat_rows
from fairdeck.viewer import Viewer, run_viewer
from p2p.identity import Identity
from p2p.log import LogWriter, pack, read_log, unpack
from p2p.memtable import build_table, seeded_identity
from replay.audit import audit_path
from replay.replay import Replay, replay_log, text_lines
from tests.p2p.test_console_support import (
    BIDI_NAME,
    HOSTILE_NAME,
    HOSTILE_REASON,
    assert_inert,
    named_table,
)

NAMES = ["tester", HOSTILE_NAME, BIDI_NAME, "dora"]

RIGHT, LEFT, PGDN, HOME, END = "\x1b[C", "\x1b[D", "\x1b[6~", "\x1b[H", "\x1b[F"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Identity]]:
    """A whole fair Love Letter game: seat 0's log and every seat's identity."""
    folder = tmp_path_factory.mktemp("viewer")
    identities = [seeded_identity(f"viewer-{i}") for i in range(4)]
    table = build_table("loveletter", 4, seed=5, shuffle_rounds=1, identities=identities, log_dir=folder)
    table.run()
    table.close()
    return folder / "seat0.fdlog", identities


def _viewer(replay: Replay, path: Path, **kwargs: Any) -> Viewer:
    return Viewer(replay, path, audit=lambda p: None, **kwargs)


def _cells(viewer: Viewer) -> list[str]:
    return [text for style, text in seat_rows(viewer.view()) if style == "class:hand"]


async def _wait(condition: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "the viewer did not get there"
        await asyncio.sleep(0.005)


def test_steps_pages_rounds_and_ends(game: tuple[Path, list[Identity]]) -> None:
    path, _ = game
    replay = replay_log(path)
    last = len(replay.frames) - 1
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = _viewer(replay, path)
        rounds = viewer.rounds
        assert len(rounds) >= 3

        def next_round(index: int) -> int:
            return next(i for i in rounds if i > index)

        async def main() -> None:
            task = asyncio.create_task(viewer.run_async())
            await _wait(lambda: viewer.app.is_running)
            expected = 0
            for key, after in (
                (RIGHT * 3, lambda i: 3),
                (LEFT, lambda i: 2),
                (PGDN, lambda i: 12),
                ("]", next_round),
                ("]", next_round),
                ("[", lambda i: max(r for r in rounds if r < i)),
                (END, lambda i: last),
                (HOME, lambda i: 0),
            ):
                expected = after(expected)
                keys.send_text(key)
                await _wait(lambda: viewer.index == expected)  # noqa: B023 - waited on at once
            keys.send_text("q")
            assert await asyncio.wait_for(task, 30) == 0

        asyncio.run(main())


def test_rounds_start_at_each_shuffle(game: tuple[Path, list[Identity]]) -> None:
    path, _ = game
    replay = replay_log(path)
    viewer = _viewer(replay, path)
    texts = [replay.frames[i].text for i in viewer.rounds]
    assert texts and all(t.startswith("round ") for t in texts)
    assert viewer.round_of(viewer.rounds[1]) == 2


def _mid_round(replay: Replay) -> int:
    """A frame in round 1 where every seat holds a card nobody has seen played."""
    for i, frame in enumerate(replay.frames):
        if "draws a card" in frame.text and getattr(frame.after, "round", 0) == 1:
            return i
    raise AssertionError("no draw in round 1")


def test_public_seat_and_full_views_show_exactly_what_they_may(game: tuple[Path, list[Identity]]) -> None:
    path, identities = game
    as_seat = replay_log(path, identities[1])
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = _viewer(as_seat, path)
        viewer.index = _mid_round(as_seat)
        frame = viewer.frame()
        assert frame is not None
        state = frame.after
        truth = as_seat.table.public_faces  # after the game every card was disclosed
        game_ = as_seat.table.game
        labels = [[face_label(game_, truth[r]) for r in state.hands[p]] for p in range(4)]

        assert viewer.perspective == "seat"  # --as: the seat's own view first
        cells = _cells(viewer)
        assert labels[1] and all(label in cells[1] for label in labels[1])
        for p in (0, 2, 3):
            assert "▒" in cells[p] and not any(label in cells[p] for label in labels[p] if label)

        viewer.cycle_perspective()
        assert viewer.perspective == "full"
        cells = _cells(viewer)
        for p in range(4):
            assert all(label in cells[p] for label in labels[p])

        viewer.cycle_perspective()
        assert viewer.perspective == "public"
        cells = _cells(viewer)
        for p in range(4):
            assert "▒" in cells[p] and not any(label in cells[p] for label in labels[p])
        assert "set aside: 1 face down" in screen_text(viewer.app)

    public_only = replay_log(path)
    assert _viewer(public_only, path).perspectives() == ["public", "full"]


def test_the_audit_verdict_is_shown_and_its_report_one_key_away(game: tuple[Path, list[Identity]]) -> None:
    path, _ = game
    replay = replay_log(path)
    shown: dict[str, str] = {}
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = Viewer(replay, path)  # the real audit, in its thread

        async def main() -> None:
            task = asyncio.create_task(viewer.run_async())
            while viewer.report is None:
                await asyncio.sleep(0.01)
            shown["title"] = screen_text(viewer.app).splitlines()[0]
            keys.send_text("a")
            while not viewer.show_audit:
                await asyncio.sleep(0.005)
            shown["audit"] = screen_text(viewer.app)
            keys.send_text("q")
            while viewer.show_audit:
                await asyncio.sleep(0.005)
            keys.send_text("q")
            assert await asyncio.wait_for(task, 30) == 0

        asyncio.run(main())
    assert "audit: CLEAN" in shown["title"]
    assert "VERDICT: CLEAN" in shown["audit"]


def _write(path: Path, envelopes: list[bytes]) -> Path:
    writer = LogWriter(path)
    for envelope in envelopes:
        writer.append(envelope)
    writer.close()
    return path


def test_an_unfinished_log_is_viewed_up_to_where_it_stops(
    game: tuple[Path, list[Identity]], tmp_path: Path
) -> None:
    path, _ = game
    envelopes = read_log(path).envelopes
    partial = _write(tmp_path / "partial.fdlog", envelopes[: len(envelopes) // 3])
    replay = replay_log(partial)
    assert replay.table.ended is None
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = _viewer(replay, partial)
        viewer.step(10_000)
        text = screen_text(viewer.app)
    assert viewer.index == len(replay.frames) - 1
    assert "unfinished log" in text and "Game over" not in text


def test_a_log_that_stops_at_a_bad_entry_says_where_and_why(
    game: tuple[Path, list[Identity]], tmp_path: Path
) -> None:
    path, _ = game
    envelopes = read_log(path).envelopes
    cut = 60
    payload, signature = unpack(envelopes[cut])
    forged = pack([payload, bytes([signature[0] ^ 1]) + signature[1:]])
    bad = _write(tmp_path / "bad.fdlog", [*envelopes[:cut], forged, *envelopes[cut + 1 :]])
    replay = replay_log(bad)
    assert replay.stopped is not None
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = _viewer(replay, bad)
        viewer.step(10_000)
        text = screen_text(viewer.app)
    assert f"replay stopped at entry {cut}" in text


def test_run_viewer_quits_with_q(game: tuple[Path, list[Identity]]) -> None:
    path, _ = game
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        keys.send_text("]]v" + RIGHT + "q")
        assert run_viewer(replay_log(path), path) == 0


# ---------------------------------------------------------------------------------------------
# Text the log's writers chose is shown inert
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fair Love Letter game whose players are called a fake verdict line and a bidi override,
    closed mid-round by seat 2 with a hostile abandon reason (seat 0's log)."""
    folder = tmp_path_factory.mktemp("hostile")
    table = named_table("loveletter", NAMES, seed=9, log_dir=folder)
    table.bots[0] = None  # seat 0 never moves: the table plays until it waits for seat 0
    table.run()
    assert table.parties[2].table.expected() == (0, "move")
    table._handle(2, table.parties[2].abandon(HOSTILE_REASON))  # anyone but the awaited may close
    table.run()
    table.close()
    assert table.parties[0].table.ended == "abandoned"
    return folder / "seat0.fdlog"


def _screens(viewer: Viewer, *keys: str) -> list[str]:
    """The viewer's screen now and after each of ``keys`` (as methods: step, round, view)."""
    shots = [screen_text(viewer.app)]
    for key in keys:
        {"end": lambda: viewer.step(10_000), "v": viewer.cycle_perspective, "a": lambda: None}[key]()
        if key == "a":
            viewer.show_audit = True
        shots.append(screen_text(viewer.app))
    return shots


def test_hostile_names_and_an_abandon_reason_are_drawn_inert(hostile_log: Path) -> None:
    replay = replay_log(hostile_log)
    assert [p.name for p in replay.table.parties][1:3] == [HOSTILE_NAME, BIDI_NAME]  # really in the log
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = Viewer(replay, hostile_log, audit=audit_path)
        viewer.report = audit_path(hostile_log)

        async def draw() -> list[str]:
            return _screens(viewer, "end", "v", "a")

        first, last, full, audit = asyncio.run(draw())
    for shot in (first, last, full):
        assert_inert(shot)  # no raw escape, bidi or control character; no line starts with a fake
    assert_inert(audit, fakes=())  # (its real verdict line starts with VERDICT: checked below)
    verdict = viewer.report.verdict
    assert first.splitlines()[0].rstrip().endswith(f"audit: {verdict.upper()}")  # the real verdict
    rows = [line for line in last.splitlines() if line[1:3] in ("0 ", "1 ", "2 ", "3 ")]
    assert len(rows) == 4 and "m\\x0aVERDICT: CLEAN" in rows[1] and "\\u202eevil\\u202c bob" in rows[2]
    flat = re.sub(r"\n +", " ", last)
    assert "The game was abandoned." in last
    assert "closed the game: gone\\x0aVERDICT: CLEAN — no faults\\x1b[2J\\x1b[8m\\u202ehidden" in flat
    assert "── this step" in last and "── log" in last and "frame " in last  # the real lines
    real = [line for line in viewer.report.text().splitlines() if line.startswith("VERDICT")]
    assert [line for line in audit.splitlines() if line.startswith("VERDICT")] == real


def test_the_title_shows_a_hostile_file_name_inert(hostile_log: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "x\x1b[8m\u202e.fdlog"
    renamed.write_bytes(hostile_log.read_bytes())
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = _viewer(replay_log(renamed), renamed)
        title = asyncio.run(_draw(viewer)).splitlines()[0]
    assert_inert(title)
    assert "x\\x1b[8m\\u202e.fdlog" in title


async def _draw(viewer: Viewer) -> str:
    return screen_text(viewer.app)


def test_the_text_replay_prints_hostile_names_and_reason_as_inert_lines(hostile_log: Path) -> None:
    lines = list(text_lines(replay_log(hostile_log)))
    printed = "\n".join(lines)
    assert_inert(printed)
    assert lines[0].startswith("loveletter: seat 0 (tester), seat 1 (m\\x0aVERDICT: CLEAN\\x1b[8m)")
    assert any("(\\u202eevil\\u202c bob)" in line for line in lines[1:])
    assert lines[-1].startswith("the game was abandoned: seat ")
    assert "closed the game: gone\\x0aVERDICT: CLEAN — no faults\\x1b[2J" in lines[-1]
    assert all(line.startswith("[") for line in lines[1:-1])  # one line per event, none split


def test_fairdeck_replay_text_prints_nothing_raw(hostile_log: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fairdeck", "replay", "--text", str(hostile_log)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert_inert(done.stdout)
    assert "closed the game: gone\\x0aVERDICT: CLEAN" in done.stdout
    bad = hostile_log.with_name("bad\x1b[2J.fdlog")
    bad.write_bytes(b"\x00" * 40)
    refused = subprocess.run(
        [sys.executable, "-m", "fairdeck", "replay", "--text", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode == 2 and "cannot replay" in refused.stderr
    assert_inert(refused.stderr)


def test_the_audit_report_in_the_viewer_starts_no_fake_line(hostile_log: Path) -> None:
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = _viewer(replay_log(hostile_log), hostile_log)
        viewer.report = audit_path(hostile_log)
        viewer.show_audit = True
        audit = asyncio.run(_draw(viewer))
    real = [line for line in audit_path(hostile_log).text().splitlines() if line.startswith("VERDICT")]
    verdicts = [line for line in audit.splitlines() if line.strip().startswith("VERDICT")]
    assert len(real) == 1 and verdicts == real, audit  # the audit's own verdict line, and no other


def test_a_live_title_keeps_its_verdict_in_80_columns(
    game: tuple[Path, list[Identity]], tmp_path: Path
) -> None:
    """``fairdeck watch`` names its log by the game id: the id gives way, never the verdict."""
    path, _ = game
    long = tmp_path / "1212f70aedc676626103f0f81f0bb8c6.fdlog"
    long.write_bytes(path.read_bytes())
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = _viewer(replay_log(long), long, live=True)
        title = asyncio.run(_draw(viewer)).splitlines()[0]
    assert title.rstrip().endswith("live · audited at the end") and len(title) <= 80
    assert "1212f70a" in title


def test_the_viewer_of_your_own_game_opens_with_your_seat_on_offer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fairdeck replay LOG`` (no ``--as``) on a terminal: the home's identity, when it holds a seat
    in that game, is used, so the seat view is offered; any other key, none, or no log: public."""
    from fairdeck.cli import _home_identity_seated_at
    from p2p.memtable import build_table
    from tests.p2p.protocol_support import identity_of

    table = build_table("loveletter", 3, seed=5)
    table.run()
    log = tmp_path / "game.fdlog"
    log.write_bytes(b"".join(table.logs[0]))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("FAIRDECK_HOME", str(home))
    assert _home_identity_seated_at(str(log)) is None  # no key at home: none is made
    assert not (home / "identity.key").exists()
    identity_of(5, 2).save(home / "identity.key")
    found = _home_identity_seated_at(str(log))
    assert found is not None and found.public_key == identity_of(5, 2).public_key
    assert _home_identity_seated_at(str(tmp_path / "missing.fdlog")) is None
    (home / "identity.key").unlink()
    identity_of(6, 0).save(home / "identity.key")  # a key seated at another table
    assert _home_identity_seated_at(str(log)) is None


def _rows(screen: str) -> dict[str, str]:
    """The screen's lines that begin ``seat N (name): `` (the hands), each with its wrapped
    continuation lines."""
    rows: dict[str, str] = {}
    key = ""
    for line in screen.splitlines():
        found = re.match(r"seat (\d+) \([^)]*\): ", line)
        if found:
            key = found.group(1)
            rows[key] = line
        elif key and line.startswith("    "):
            rows[key] += " " + line.strip()
        else:
            key = ""
    return rows


@pytest.mark.parametrize(("game_name", "seats"), [("regicide", 2), ("rebelprincess", 3)])
def test_the_full_view_shows_every_hand_marking_what_was_hidden_then(
    tmp_path: Path, game_name: str, seats: int
) -> None:
    """The full view shows more than a seat's, never less: every seat's hand by name, a card the table
    had not seen at that moment marked ``*``; the seat view keeps its own ``your hand`` line."""
    identities = [seeded_identity(f"full-{game_name}-{i}") for i in range(seats)]
    table = build_table(game_name, seats, seed=3, shuffle_rounds=1, identities=identities, log_dir=tmp_path)
    table.run()
    table.close()
    path = tmp_path / "seat0.fdlog"
    replay = replay_log(path, identities[0])
    with create_pipe_input(), create_app_session(input=create_pipe_input(), output=DummyOutput()):
        viewer = _viewer(replay, path)
        hands = [getattr(f.after, "hands", None) or [()] for f in replay.frames]
        viewer.index = next(i for i, h in enumerate(hands) if all(len(cards) >= 2 for cards in h))
        state = viewer.frame().after  # type: ignore[union-attr]
        truth = replay.table.public_faces
        assert viewer.perspective == "seat"
        seat_view = screen_text(viewer.app, 140, 50)
        assert "your hand:" in seat_view and "view: seat 0 (" in seat_view and "seat of seat" not in seat_view
        viewer.cycle_perspective()
        assert viewer.perspective == "full"
        full = screen_text(viewer.app, 140, 50)
        assert "view: full" in full
        hidden_then = 0
        for p in range(seats):
            row = _rows(full)[str(p)]
            for ref in state.hands[p]:
                label = face_label(replay.table.game, truth[ref])
                hidden = ref not in viewer.frame().public_faces  # type: ignore[union-attr]
                hidden_then += hidden
                assert (label + "*" if hidden else label) in row, (p, label, row)
        assert hidden_then, "at that frame some cards were still hidden from the table"
        assert "* hidden from the table then" in full
        viewer.cycle_perspective()
        assert viewer.perspective == "public"
        assert "* hidden" not in screen_text(viewer.app, 140, 50)  # the public view lists no hands
