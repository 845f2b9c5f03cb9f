"""What a start says in the log: each transcript named when there are few, counts when there
are many, and how far a long catch-up has come."""

from __future__ import annotations

import itertools
import logging
import re
from pathlib import Path

import pytest

from session_memory.apps.service import LISTED_MAX, PROGRESS_SECONDS, MemoryService
from tests.service.service_helpers import append, varied_lines

_TAILING = re.compile(r"^tailing ", re.M)


def write_transcripts(watched: Path, n: int) -> list[Path]:
    watched.mkdir()
    paths = [watched / f"{k:03d}.jsonl" for k in range(n)]
    for k, path in enumerate(paths):
        path.write_bytes(b"".join(varied_lines(6, seed=k, session=f"s-{k}")))
    return paths


def info_messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "session_memory.apps.service" and r.levelno >= logging.INFO
    ]


def test_a_start_that_finds_many_transcripts_counts_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Past LISTED_MAX, no line per transcript: one line of counts, new ones first time, then
    those appended to (resumed) and those left as they were (kept on disk)."""
    n = LISTED_MAX + 8
    paths = write_transcripts(tmp_path / "t", n)
    with caplog.at_level(logging.INFO, logger="session_memory.apps.service"):
        summary = MemoryService([tmp_path / "t"], tmp_path / "out").run_once()
    messages = info_messages(caplog)
    assert summary.outputs_written == n
    assert not any(_TAILING.match(m) for m in messages), messages
    assert f"found {n} transcript(s): {n} new, 0 to resume, 0 unchanged (kept on disk)" in messages

    for path in paths[:5]:
        append(path, b"".join(varied_lines(8, seed=99, session="s-x")[6:]))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="session_memory.apps.service"):
        MemoryService([tmp_path / "t"], tmp_path / "out").run_once()
    messages = info_messages(caplog)
    assert not any(_TAILING.match(m) for m in messages), messages
    expected = f"found {n} transcript(s): 0 new, 5 to resume, {n - 5} unchanged (kept on disk)"
    assert expected in messages


def test_a_start_that_finds_few_names_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Up to LISTED_MAX, each transcript found is named, and no counts are given."""
    paths = write_transcripts(tmp_path / "t", 3)
    with caplog.at_level(logging.INFO, logger="session_memory.apps.service"):
        MemoryService([tmp_path / "t"], tmp_path / "out").run_once()
    messages = info_messages(caplog)
    assert [m for m in messages if _TAILING.match(m)] == [
        f"tailing {p.resolve()} from byte 0" for p in paths
    ]
    assert not any(m.startswith("found ") for m in messages), messages


def test_a_long_catch_up_says_how_far_it_has_come(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A clock that moves PROGRESS_SECONDS at every reading: a progress line comes at least
    every few transcripts, each counting more of them done, none past the total."""
    n = 12
    write_transcripts(tmp_path / "t", n)
    ticks = itertools.count()
    service = MemoryService(
        [tmp_path / "t"], tmp_path / "out", clock=lambda: next(ticks) * PROGRESS_SECONDS
    )
    with caplog.at_level(logging.INFO, logger="session_memory.apps.service"):
        summary = service.run_once()
    assert summary.outputs_written == n
    progress = [
        int(m.group(1))
        for m in map(re.compile(rf"catching up: (\d+) of {n} transcript\(s\) done").fullmatch,
                     info_messages(caplog))
        if m is not None
    ]  # fmt: skip
    assert len(progress) >= 2, info_messages(caplog)
    assert progress == sorted(set(progress))
    assert all(0 < done < n for done in progress)
