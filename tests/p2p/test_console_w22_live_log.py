"""The replay viewer and ``fairdeck replay --text`` on a log that is still being written (a game
being played, the copy ``fairdeck watch`` keeps): an incomplete last entry is its writer at work, not
damage. The viewer says the log is being written and waits for more, following the file as it grows;
``--text`` waits for the entry to be whole. A tail left incomplete is still called cut off."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from fairdeck.cli import build_parser, cmd_replay
from fairdeck.console import screen_text
from fairdeck.viewer import Viewer
from p2p.log import read_log
from p2p.memtable import build_table, seeded_identity
from replay.replay import replay_log


@pytest.fixture(scope="module")
def whole_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole fair Love Letter game's log (seat 0's)."""
    folder = tmp_path_factory.mktemp("w22-live")
    identities = [seeded_identity(f"w22-live-{i}") for i in range(3)]
    table = build_table("loveletter", 3, seed=3, shuffle_rounds=1, identities=identities, log_dir=folder)
    table.run()
    table.close()
    return folder / "seat0.fdlog"


def _torn_copy(whole: Path, path: Path, entries: int) -> tuple[bytes, int]:
    """Write the first ``entries`` entries of ``whole`` and 7 bytes of the next one to ``path`` (as a
    reader may find a log while its writer is halfway through an entry); the whole file's bytes and
    where the copy stops."""
    data = whole.read_bytes()
    ends = read_log(whole).ends
    cut = ends[entries - 1] + 7
    path.write_bytes(data[:cut])
    return data, cut


def _replay_text(path: Path) -> int:
    """``fairdeck replay --text PATH``, in this process (so that it reads the file when asked to)."""
    return cmd_replay(build_parser().parse_args(["replay", "--text", str(path)]))


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


async def _until(condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"the viewer did not get there: {what}"
        await asyncio.sleep(0.02)


def test_the_viewer_says_a_log_being_written_is_being_written_and_follows_it(
    whole_log: Path, tmp_path: Path
) -> None:
    """Opened on a log whose last entry is halfway written, the viewer said "damaged log" and
    "replay stopped at entry N: the log is cut off ... (a torn write or a damaged file)", with the
    audit's FAULTS in the title, and never showed what came next."""
    path = tmp_path / "live.fdlog"
    data, cut = _torn_copy(whole_log, path, 40)
    ends = read_log(whole_log).ends
    replay = replay_log(path)
    assert replay.torn_bytes == 7 and replay.table.ended is None
    first_frames = len(replay.frames)
    seen: dict[str, str] = {}
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = Viewer(replay, path)  # the real audit

        async def script() -> None:
            task = asyncio.create_task(viewer.run_async())
            await _until(lambda: viewer.app.is_running, "running")
            keys.send_text("\x1b[F")  # End: the last event, where the log stops
            await _until(lambda: viewer.index == len(viewer.frames) - 1, "at the end")
            seen["writing"] = screen_text(viewer.app, 100, 32)
            # the writer completes its entry and writes ten more
            _append(path, data[cut : ends[50]])
            await _until(lambda: viewer.replay.entries == 51, "ten more entries")
            await _until(lambda: viewer.index == len(viewer.frames) - 1, "following")
            await _until(lambda: viewer.report is not None, "audited")
            seen["grown"] = screen_text(viewer.app, 100, 32)
            keys.send_text("q")
            seen["code"] = str(await asyncio.wait_for(task, 30))

        asyncio.run(script())
    writing, grown = seen["writing"], seen["grown"]
    assert "log still being written" in writing
    assert "the log is still being written: waiting for its next entry" in writing
    assert "audit: waiting for the log" in writing
    assert "damaged" not in writing and "cut off" not in writing and "FAULTS" not in writing
    assert len(viewer.frames) > first_frames
    assert "unfinished log" in grown and "cut off" not in grown
    assert "audit: CLEAN SO FAR" in grown
    assert seen["code"] == "0"


def test_a_tail_left_incomplete_is_still_called_cut_off(whole_log: Path, tmp_path: Path) -> None:
    """A torn tail nobody completes (its writer crashed an hour ago) is damage, as before."""
    path = tmp_path / "cut.fdlog"
    _torn_copy(whole_log, path, 40)
    hour_ago = time.time() - 3600
    os.utime(path, (hour_ago, hour_ago))
    replay = replay_log(path)
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        viewer = Viewer(replay, path, audit=lambda p: None)
        viewer.step(10_000)

        async def script() -> None:
            task = asyncio.create_task(viewer.run_async())
            await _until(lambda: viewer.app.is_running, "running")
            keys.send_text("q")
            await asyncio.wait_for(task, 30)

        asyncio.run(script())
        text = screen_text(viewer.app, 100, 32)
    assert "damaged log" in text and "the log is cut off: 7 trailing bytes" in text
    assert "being written" not in text


def test_replay_text_waits_for_the_entry_being_written(
    whole_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``fairdeck replay --text`` of a log read halfway through an entry printed "replay stopped at
    entry N: the log is cut off" and exited 1, though the entry was whole a moment later."""
    path = tmp_path / "live.fdlog"
    data, cut = _torn_copy(whole_log, path, 40)
    ends = read_log(whole_log).ends
    done = threading.Event()

    def writer() -> None:
        time.sleep(0.3)
        _append(path, data[cut : ends[44]])
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        code = _replay_text(path)
    finally:
        thread.join()
    out = capsys.readouterr()
    assert done.is_set()
    assert "cut off" not in out.out + out.err
    assert code == 0
    assert "replay stopped" not in out.out


def test_replay_text_still_reports_a_cut_off_log(
    whole_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tail that stays incomplete is reported cut off, exit 1 (after a short wait at most)."""
    path = tmp_path / "cut.fdlog"
    _torn_copy(whole_log, path, 40)
    assert _replay_text(path) == 1
    assert "replay stopped at entry 40: the log is cut off: 7 trailing bytes" in capsys.readouterr().out
