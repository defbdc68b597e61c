"""The replay viewer (``replay.viewer``): stepping, rounds, perspectives, audit, unfinished logs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p.console import screen_text
from p2p.console.moves import face_label
from p2p.console.table import seat_rows
from p2p.identity import Identity
from p2p.log import LogWriter, pack, read_log, unpack
from p2p.memtable import build_table, seeded_identity
from replay.replay import Replay, replay_log
from replay.viewer import Viewer, run_viewer

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
