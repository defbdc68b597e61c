"""Red team, wave 2 session 22: what an outsider can do to log files without any key, and what
several files audited together say, in all three games (each table seats a witness too).

- **Record-level edits of a format-3 file** (docs/protocol.md §1.3): a compact record's ``how``
  rewritten (to another rule, or to none), a record doubled, two swapped, one dropped, the genesis
  stored compactly, records of another game's file spliced in, a record claiming gigabytes, a
  payload nested past the bound, an envelope in a non-canonical encoding, the header of another
  format or none, the file cut at and inside every record. Each blames nobody, and the command
  never prints a traceback.
- **Files that are no log**: a directory, a symlink loop, a dangling symlink, an empty file,
  ``/dev/null``, a file nobody may read, and an evidence file beside the log that is a directory
  or a symlink loop. Unreadable (exit 2) or, beside a good log, no change to its verdict.
- **A junk tail of many entries**: the search for two signed versions of one place in one file
  checked a signature per entry after the break (an outsider's thousands of junk entries cost as
  many Ed25519 verifications); it now checks them only where a place holds two versions.
- **Pipes.** A named pipe someone wrote a line into hung the audit: having found no log in it, it
  opened the pipe again to tell what it was, and that opening waited for a writer for ever. A log
  piped in (``cat LOG | fairdeck audit /dev/stdin OTHER``) was read again for the comparison, found
  empty, and two logs proving an equivocation were "not compared": the command said clean. Each
  file is now read once.
- **Several files**: an honest log beside each outsider-edited copy names nobody; beside a copy
  holding the witness's other signed version of an entry, names the witness; a mix of logs of two
  games, an unreadable file and a directory compares only what can be compared.
- **The honest baseline** audits clean, and **no report shows a secret**: no party's identity key,
  key share or seal key, and no face of a card that was still private where the log stops.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from p2p.log import FILE_MAGIC, Entry, pack
from replay.audit import audit_path
from tests.replay.redteam_w21_support import (
    FAIRDECK,
    GAMES,
    entries,
    forge,
    honest,
    run_audit,
    witness,
    write_log,
)
from tests.replay.redteam_w22_support import (
    REPORT_LIMIT,
    audit,
    first_index,
    leaked,
    names_nobody,
    private_faces_at,
    proven,
    records,
    rematch,
    words,
)


def _file(tmp_path: Path, game: str, name: str = "game.fdlog") -> Path:
    return write_log(tmp_path / name, honest(game))


def _compact(recs: list[bytes], how: int, start: int = 10) -> int:
    """The index of a compact record whose prev follows rule ``how``, from ``start`` on."""
    return next(i for i in range(start, len(recs)) if recs[i][0] == 0x93 and recs[i][1] == how)


def _how(rec: bytes, how: int) -> bytes:
    return rec[:1] + bytes([how]) + rec[2:]


def _edits(tmp_path: Path, game: str) -> dict[str, bytes]:
    """Every record-level edit of ``game``'s honest file, as the edited file's bytes."""
    header, recs = records(_file(tmp_path, game, "source.fdlog"))
    _, others = records(write_log(tmp_path / "other.fdlog", rematch(game)))
    k, group, member = _compact(recs, 0), _compact(recs, 2), _compact(recs, 1)

    def file(rs: list[bytes], head: bytes = header) -> bytes:
        return head + b"".join(rs)

    bomb = b"\x91" * 5000 + b"\xc0"  # nested past the bound, in a payload nobody signed
    noncanonical = b"\x92\xc5\x00\x03\x93\x01\x02\xc4\x40" + bytes(64)  # a bin16 header for 3 bytes
    return {
        "a compact record's how made 1": file([*recs[:k], _how(recs[k], 1), *recs[k + 1 :]]),
        "a compact record's how made 2": file([*recs[:k], _how(recs[k], 2), *recs[k + 1 :]]),
        "a compact record's how made 3": file([*recs[:k], _how(recs[k], 3), *recs[k + 1 :]]),
        "a compact record's how made 127": file([*recs[:k], _how(recs[k], 127), *recs[k + 1 :]]),
        "a group hash record's how made 0": file([*recs[:group], _how(recs[group], 0), *recs[group + 1 :]]),
        "a member's how made 0": file([*recs[:member], _how(recs[member], 0), *recs[member + 1 :]]),
        "a compact record doubled": file([*recs[: k + 1], recs[k], *recs[k + 1 :]]),
        "two records swapped": file([*recs[:k], recs[k + 1], recs[k], *recs[k + 2 :]]),
        "a record dropped": file([*recs[:k], *recs[k + 1 :]]),
        "the genesis stored compactly": file([recs[k], *recs[1:]]),
        "the genesis record dropped": file(recs[1:]),
        "another game's records spliced in": file([*recs[:k], *others[k:]]),
        "another game's genesis in the middle": file([*recs[:k], others[0], *recs[k:]]),
        "a record claiming 4 GiB": file([*recs[:k], b"\x91\xc6\xff\xff\xff\xff" + b"\x00" * 64]),
        "a compact tail claiming 4 GiB": file([*recs[:k], b"\x93\x00\xc6\xff\xff\xff\xff" + b"\x00" * 64]),
        "a bomb in a payload": file([*recs[:k], pack([pack([bomb, bytes(64)])]), *recs[k:]]),
        "a non-canonical envelope": file([*recs[:k], pack([noncanonical]), *recs[k:]]),
        "a record of a bare envelope": file([*recs[:k], honest(game)[k], *recs[k + 1 :]]),
        "the header of format 9": file(recs, b"fairdeck log 9\n"),
        "no header": file(recs, b""),
        "the header twice": file([header, *recs]),
        "the whole file twice": file(recs) + file(recs),
    }


EDITS = [
    "a compact record's how made 1",
    "a compact record's how made 2",
    "a compact record's how made 3",
    "a compact record's how made 127",
    "a group hash record's how made 0",
    "a member's how made 0",
    "a compact record doubled",
    "two records swapped",
    "a record dropped",
    "the genesis stored compactly",
    "the genesis record dropped",
    "another game's records spliced in",
    "another game's genesis in the middle",
    "a record claiming 4 GiB",
    "a compact tail claiming 4 GiB",
    "a bomb in a payload",
    "a non-canonical envelope",
    "a record of a bare envelope",
    "the header of format 9",
    "no header",
    "the header twice",
    "the whole file twice",
]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_edit_list_is_complete(game: str, tmp_path: Path) -> None:
    assert sorted(_edits(tmp_path, game)) == sorted(EDITS)


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_record_level_edit_blames_nobody(game: str, edit: str, tmp_path: Path) -> None:
    path = tmp_path / "edited.fdlog"
    path.write_bytes(_edits(tmp_path, game)[edit])
    report = audit_path(path, proven(game))
    assert report.exit_code in (1, 2), report.text()
    assert names_nobody(report), report.text()
    assert len(report.text()) < REPORT_LIMIT


@pytest.mark.parametrize("game", sorted(GAMES))
def test_fairdeck_audit_of_every_record_level_edit_says_so_without_a_traceback(
    game: str, tmp_path: Path
) -> None:
    paths = []
    for index, data in enumerate(_edits(tmp_path, game).values()):
        paths.append(tmp_path / f"edit{index}.fdlog")
        paths[-1].write_bytes(data)
    done = run_audit("--json", *map(str, paths))  # (asserts no traceback and nothing on stderr)
    out = json.loads(done.stdout)
    assert done.returncode in (1, 2)
    assert all(r["exit_code"] in (1, 2) for r in out["logs"]), [r["headline"] for r in out["logs"]]
    assert all(f["seat"] is None for r in out["logs"] for f in r["faults"])
    assert all(f["seat"] is None for f in out["comparison"]["faults"]), out["comparison"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_file_cut_anywhere_names_nobody_and_a_cut_between_records_is_clean_so_far(
    game: str, tmp_path: Path
) -> None:
    header, recs = records(_file(tmp_path, game))
    data = header + b"".join(recs)
    ends = [len(header) + sum(map(len, recs[: i + 1])) for i in range(len(recs) - 1)]
    boundaries = set(ends[:: max(1, len(ends) // 12)])  # (a dozen places, the genesis's end first)
    path = tmp_path / "cut.fdlog"
    for size in sorted(
        {5, len(header) + 3, *boundaries, *(b + 1 for b in boundaries), *(b - 2 for b in boundaries)}
    ):
        path.write_bytes(data[:size])
        report = audit_path(path, proven(game))
        assert names_nobody(report), (size, report.text())
        if size in boundaries:
            assert report.exit_code in (0, 3), (size, report.text())  # a log that stops early
        elif size < len(header) + len(recs[0]):  # (not even the genesis: no log)
            assert report.exit_code == 2 and report.unreadable is not None, (size, report.text())
        else:
            assert report.exit_code == 1 and "cut off" in report.text(), (size, report.text())


# -- files that are no log ----------------------------------------------------------------------


def test_files_that_are_no_log_are_unreadable(tmp_path: Path) -> None:
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "empty.fdlog").write_bytes(b"")
    (tmp_path / "header.fdlog").write_bytes(FILE_MAGIC[:9])
    (tmp_path / "adir").mkdir()
    paths = ["loop1", "dangling", "empty.fdlog", "header.fdlog", "adir", "/dev/null"]
    for name in paths:
        report = audit_path(tmp_path / name)
        assert report.exit_code == 2 and report.verdict == "unreadable" and not report.faults, name
    done = run_audit(*(str(tmp_path / name) for name in paths))
    assert done.returncode == 2 and done.stdout.count("VERDICT: UNREADABLE") == len(paths)
    assert "COMPARISON: NOTHING COMPARED" in done.stdout


def test_a_file_nobody_may_read_is_unreadable_or_read_by_the_one_who_may(tmp_path: Path) -> None:
    path = _file(tmp_path, "regicide")
    path.chmod(0)
    try:
        report = audit_path(path, proven("regicide"))
        if os.access(path, os.R_OK):  # (the superuser may read it: then it is the honest log it is)
            assert report.exit_code == 0 and report.verdict == "clean", report.text()
        else:
            assert report.exit_code == 2 and "Permission denied" in (report.unreadable or "")
    finally:
        path.chmod(0o644)


@pytest.mark.parametrize("kind", ["a directory", "a symlink loop", "a named pipe", "a dangling symlink"])
def test_an_evidence_file_that_is_no_file_leaves_the_verdict_alone(tmp_path: Path, kind: str) -> None:
    path = _file(tmp_path, "regicide")
    beside = path.with_suffix(".evidence")
    if kind == "a directory":
        beside.mkdir()
    elif kind == "a symlink loop":
        beside.symlink_to(beside)
    elif kind == "a named pipe":
        os.mkfifo(beside)
    else:
        beside.symlink_to(tmp_path / "nowhere")
    done = run_audit(str(path))  # (a pipe nobody writes to must not be waited on)
    assert done.returncode == 0 and "VERDICT: CLEAN" in done.stdout, done.stdout


# -- a junk tail ----------------------------------------------------------------------------------


def test_a_junk_tail_of_many_places_costs_no_signature_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries each at a place of their own after the break prove nothing whatever their signatures:
    checking them all made a file of junk cost an Ed25519 verification per entry."""
    log = honest("regicide")
    game_id = entries("regicide")[0].game
    junk = [
        pack([pack([2, game_id, len(log) + i, bytes(32), i % 3, "move", {"n": i}]), bytes(64)])
        for i in range(400)
    ]
    checks = []
    real = Entry.signed_by

    def counted(self: Entry, key: bytes) -> bool:
        checks.append(self.seq)
        return real(self, key)

    monkeypatch.setattr(Entry, "signed_by", counted)
    report = audit([*log, *junk], "regicide")
    assert names_nobody(report) and report.exit_code == 1
    assert len([seq for seq in checks if seq >= len(log)]) <= 1, len(checks)  # (the fold's own refusal)


def test_a_second_version_buried_among_junk_versions_of_its_place_is_still_found() -> None:
    """A real pair behind a few forged versions of the same place: the search weighs up to sixteen."""
    game = "regicide"
    log, es = honest(game), entries(game)
    k = next(i for i in range(12, len(es)) if es[i].kind == "move")
    junk = [pack([es[k].payload, bytes([i]) * 64]) for i in range(8)]
    other = forge(log[k], body={**es[k].body, "move": {**es[k].body["move"], "again": 1}})
    report = audit([*log, *junk, other], game)
    assert [(f.seat, f.seq) for f in report.faults if f.seat is not None] == [(es[k].seat, k)], report.text()


# -- several files -------------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_honest_log_beside_outsider_edited_copies_names_nobody(game: str, tmp_path: Path) -> None:
    honest_path = _file(tmp_path, game, "honest.fdlog")
    edits = _edits(tmp_path, game)
    paths = [str(honest_path)]
    for index, name in enumerate(
        ["a record dropped", "two records swapped", "another game's records spliced in"]
    ):
        path = tmp_path / f"copy{index}.fdlog"
        path.write_bytes(edits[name])
        paths.append(str(path))
    done = run_audit("--json", *paths)
    out = json.loads(done.stdout)
    assert done.returncode == 1 and out["logs"][0]["verdict"] == "clean"
    assert all(f["seat"] is None for r in out["logs"] for f in r["faults"])
    assert all(f["seat"] is None for f in out["comparison"]["faults"]), out["comparison"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_witness_that_signed_two_versions_is_named_by_the_two_logs_that_hold_them(
    game: str, tmp_path: Path
) -> None:
    es, log, w = entries(game), honest(game), witness(game)
    k = next(
        i for i in range(12, len(es)) if es[i].seat == w and es[i].kind == "tokens" and es[i].body["tokens"]
    )
    tokens = es[k].body["tokens"]
    other = forge(
        log[k], body={"tokens": [[tokens[0][0], tokens[0][1][:-1] + bytes([tokens[0][1][-1] ^ 1])]]}
    )
    a = write_log(tmp_path / "a.fdlog", log)
    b = write_log(tmp_path / "b.fdlog", [*log[:k], other])
    done = run_audit("--json", str(a), str(b))
    out = json.loads(done.stdout)
    assert done.returncode == 1
    assert [(f["seat"], f["entry"]) for f in out["comparison"]["faults"]] == [(w, k)], out["comparison"]
    # b alone: its own last entry breaks a rule, signed by the witness, and nobody else is named
    assert [(f["seat"], f["entry"]) for f in out["logs"][1]["faults"]] == [(w, k)]
    assert out["logs"][0]["verdict"] == "clean"


def test_logs_of_two_games_an_unreadable_file_and_a_directory_compare_only_what_can_be(
    tmp_path: Path,
) -> None:
    a = _file(tmp_path, "loveletter", "a.fdlog")
    a2 = write_log(tmp_path / "a2.fdlog", honest("loveletter")[:40])
    b = write_log(tmp_path / "b.fdlog", rematch("regicide"))
    (tmp_path / "junk.fdlog").write_bytes(b"\xc1" * 100)
    done = run_audit("--json", str(a), str(a2), str(b), str(tmp_path / "junk.fdlog"), str(tmp_path))
    out = json.loads(done.stdout)
    assert done.returncode == 2 and not out["comparison"]["faults"]
    relations = sorted(p["relation"] for p in out["comparison"]["pairs"])
    assert relations.count("prefix") == 1 and relations.count("different games") == 2, relations
    assert [r["verdict"] for r in out["logs"]] == ["clean", "clean", "clean", "unreadable", "unreadable"]


# -- the honest baseline, and no secret in any report ----------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_honest_game_audits_clean_with_the_command(game: str, tmp_path: Path) -> None:
    done = run_audit(str(_file(tmp_path, game)))
    assert done.returncode == 0 and "VERDICT: CLEAN — every entry verified" in done.stdout, done.stdout


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_report_shows_a_secret_or_a_private_face(game: str, tmp_path: Path) -> None:
    log = honest(game)
    # a cut where someone holds a card nobody else has seen, and everything else the audit says
    cut = next(c for c in range(10, len(log), 3) if private_faces_at(game, c))
    hidden = private_faces_at(game, cut)
    texts = []
    for name, data in [
        ("cut.fdlog", log[:cut]),
        ("whole.fdlog", log),
        ("edited.fdlog", [*log[:cut], log[cut + 1]]),
    ]:
        path = write_log(tmp_path / name, data)
        texts += [run_audit(str(path)).stdout, run_audit("--json", str(path)).stdout]
    for text in texts:
        assert not leaked(game, text), text
    for text in texts[:2] + texts[4:]:  # (the whole game's report may name disclosed cards)
        assert not words(text) & {face.lower() for face in hidden}, (hidden, text)


def test_a_log_piped_in_is_compared_with_the_others(tmp_path: Path) -> None:
    """``cat LOG | fairdeck audit /dev/stdin OTHER``: the comparison read every file again, and a
    pipe holds nothing the second time, so two logs proving an equivocation were "not compared" and
    the command said clean. Each file is now read once, for its audit and the comparison alike."""
    game = "loveletter"
    es, log = entries(game), honest(game)
    k = first_index(game, "commit")  # (another commitment, on its own, breaks no rule)
    other = forge(log[k], body={"digest": bytes(32)})
    theirs = write_log(tmp_path / "theirs.fdlog", [*log[:k], other])
    mine = write_log(tmp_path / "mine.fdlog", log).read_bytes()
    done = subprocess.run(
        [str(FAIRDECK), "audit", "--json", "/dev/stdin", str(theirs)],
        input=mine,
        capture_output=True,
        timeout=300,
    )
    out = json.loads(done.stdout)
    assert [r["verdict"] for r in out["logs"]] == ["clean", "clean"], out["logs"]
    assert [(f["seat"], f["entry"]) for f in out["comparison"]["faults"]] == [(es[k].seat, k)], out
    assert done.returncode == 1


def _audit_with_timeout(*args: str, data: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """``fairdeck audit ARGS`` (``data`` on its standard input); a hang fails the test."""
    done = subprocess.run(
        [str(FAIRDECK), "audit", *args], input=data, capture_output=True, timeout=120, check=False
    )
    out, err = done.stdout.decode(), done.stderr.decode()
    assert "Traceback" not in out + err and not err.strip(), err
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


def test_a_named_pipe_someone_wrote_a_line_into_is_said_to_be_text_not_waited_on(tmp_path: Path) -> None:
    """The audit read the pipe, found no log, then opened it again to tell what it was: that second
    opening waited for a writer for ever. What it is, is now told from the bytes it read."""
    pipe = tmp_path / "game.fdlog"
    os.mkfifo(pipe)
    writer = subprocess.Popen(["sh", "-c", f"printf 'not a log at all\\n' > '{pipe}'"])
    try:
        done = _audit_with_timeout(str(pipe))
    finally:
        writer.kill()
        writer.wait()
    assert done.returncode == 2 and "it is a text file" in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"hello, this is not a log\n", "it is a text file"),
        (b"fairdeck log 9\n\x91\xc4\x01x", "a fairdeck log of format 9"),
        (b"\xc1" * 40, "it does not begin with a log entry"),
        (FILE_MAGIC, "only a log's header"),
    ],
)
def test_a_pipe_that_is_no_log_is_said_to_be_what_it_is(data: bytes, words: str) -> None:
    """``… | fairdeck audit /dev/stdin``: the pipe's bytes are read once; what they are is told from
    them (the pipe read again held nothing, and text was "not a log entry")."""
    done = _audit_with_timeout("/dev/stdin", data=data)
    assert done.returncode == 2 and words in done.stdout, done.stdout
