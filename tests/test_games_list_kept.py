"""``fairdeck games`` describes an ended game once: its description is kept beside its log."""

from __future__ import annotations

from pathlib import Path

import pytest

import fairdeck.games as games
import replay.replay
from p2p.memtable import build_table, seeded_identity


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fairdeck home holding one finished Regicide game of its own identity (a real fair game)."""
    folder = tmp_path / "games"
    folder.mkdir()
    identities = [seeded_identity(f"kept-{i}") for i in range(2)]
    table = build_table("regicide", 2, seed=5, identities=identities, log_dir=folder)
    try:
        table.run()
    finally:
        table.close()
    identities[0].save(tmp_path / "identity.key")
    (folder / "seat1.fdlog").unlink()
    (folder / "seat0.fdlog").rename(folder / "0123456789abcdef0123456789abcdef.fdlog")
    return tmp_path


def _count_replays(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    replayed: list[Path] = []
    real = replay.replay.replay_log

    def counted(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        replayed.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(replay.replay, "replay_log", counted)
    return replayed


def test_an_ended_game_is_replayed_once_then_read_from_what_was_kept(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replayed = _count_replays(monkeypatch)
    first = games.list_games(home)
    assert len(first) == 1 and first[0].status not in ("unfinished", "left", "damaged", "unreadable")
    assert len(replayed) == 1
    second = games.list_games(home)
    assert len(replayed) == 1, "an unchanged ended game was replayed again"
    assert [(e.game, e.names, e.seat, e.status, e.detail) for e in second] == [
        (e.game, e.names, e.seat, e.status, e.detail) for e in first
    ]


def test_what_was_kept_counts_only_for_the_same_log_and_identity(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replayed = _count_replays(monkeypatch)
    (entry,) = games.list_games(home)
    about = entry.path.with_suffix(games.ABOUT_SUFFIX)
    assert about.exists()
    # an edited or garbled description is not believed: the log is read again
    about.write_text('{"size": "no"')
    (again,) = games.list_games(home)
    assert len(replayed) == 2 and again.detail == entry.detail
    # another identity in this home: its seat is not ours, so the log is read again
    seeded_identity("someone else").save(home / "identity.key")
    (other,) = games.list_games(home)
    assert len(replayed) == 3 and other.seat is None
    # the log changed (an outsider appended bytes): read again, and damaged now
    with entry.path.open("ab") as handle:
        handle.write(b"\x00junk")
    (changed,) = games.list_games(home)
    assert len(replayed) == 4 and changed.status != entry.status


def test_discarding_a_game_removes_what_was_kept_of_it(home: Path) -> None:
    (entry,) = games.list_games(home)
    assert entry.path.with_suffix(games.ABOUT_SUFFIX).exists()
    games.discard(entry)
    assert not any(p.name.startswith(entry.id) for p in (home / "games").iterdir())
