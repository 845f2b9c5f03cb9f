"""A clean stop's index: the next start reads the state only of a transcript that changed."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import orjson
import pytest

from session_memory.apps.memory_dir import state as state_module
from session_memory.apps.memory_dir.index import INDEX_FILE, read_index
from session_memory.apps.service import MemoryService, restore
from session_memory.apps.service.options import DEFAULT_STATE_DIRNAME
from tests.service.service_helpers import append, varied_lines, wait_for


def published(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.memory.*"))}


def watch_once(watched: Path, out: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A ``watch`` started, stopped once it says it is watching, and joined."""
    caplog.clear()
    service = MemoryService([watched], out, sweep_seconds=0.05)
    thread = threading.Thread(target=service.run)
    with caplog.at_level(logging.INFO, logger="session_memory.apps.service"):
        thread.start()
        try:
            assert wait_for(lambda: "watching" in caplog.text, timeout=20)
        finally:
            service.stop()
            thread.join(20)
    assert not thread.is_alive()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The state files read, in order."""
    read: list[str] = []

    def counting(path: str | os.PathLike[str]) -> state_module.TranscriptState:
        read.append(os.fspath(path))
        return state_module.load_state(path)

    monkeypatch.setattr(restore, "load_state", counting)
    return read


def tree(tmp_path: Path) -> tuple[Path, dict[int, list[bytes]]]:
    watched = tmp_path / "t"
    (watched / "sub").mkdir(parents=True)
    lines = {k: varied_lines(50, seed=k, session=f"s-{k}") for k in range(4)}
    for k, ls in lines.items():
        (watched / ("sub" if k % 2 else "") / f"{k}.jsonl").write_bytes(b"".join(ls[:40]))
    return watched, lines


def test_a_restart_reads_the_state_only_of_what_changed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, reads: list[str]
) -> None:
    """After a clean stop, a start reads no state of an unchanged transcript, and the state
    of one appended to meanwhile; the outputs end as a fresh derivation's, and the next
    append to an unchanged one is read on from its offset."""
    watched, lines = tree(tmp_path)
    out = tmp_path / "out"
    watch_once(watched, out, caplog)
    assert (out / DEFAULT_STATE_DIRNAME / INDEX_FILE).is_file()
    reads.clear()
    watch_once(watched, out, caplog)
    assert reads == []
    append(watched / "0.jsonl", b"".join(lines[0][40:45]))
    watch_once(watched, out, caplog)
    assert {Path(r).name for r in reads} == {
        state_module.state_file_name("", os.path.realpath(watched / "0.jsonl"))
    }
    append(watched / "sub" / "1.jsonl", b"".join(lines[1][40:]))
    watch_once(watched, out, caplog)
    MemoryService([watched], tmp_path / "fresh").run_once()
    assert published(out) == published(tmp_path / "fresh")


@pytest.mark.parametrize("doubt", ["damaged index", "state replaced", "outputs removed"])
def test_an_index_in_doubt_is_checked_in_full(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, reads: list[str], doubt: str
) -> None:
    """A damaged index is not used; a state replaced or outputs removed since the stop make
    that transcript's state read and its outputs rewritten as they were."""
    watched, _lines = tree(tmp_path)
    out = tmp_path / "out"
    watch_once(watched, out, caplog)
    expected = published(out)
    state_dir = out / DEFAULT_STATE_DIRNAME
    one = Path(state_module.state_file_name(state_dir, os.path.realpath(watched / "0.jsonl")))
    if doubt == "damaged index":
        (state_dir / INDEX_FILE).write_bytes(b'{"format": 1, "transcripts": [[1]]}')
    elif doubt == "state replaced":
        data = one.read_bytes()
        one.unlink()
        (state_dir / "other").write_bytes(b"")  # so that the new state gets another inode
        one.write_bytes(data)
    else:
        for path in out.glob("s-0.memory.*"):
            path.unlink()
    reads.clear()
    watch_once(watched, out, caplog)
    if doubt == "damaged index":
        assert len(set(reads)) == 4
    else:
        assert set(reads) == {str(one)}
    assert published(out) == expected


def test_a_transcript_rewritten_in_place_after_the_stop_is_read_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, reads: list[str]
) -> None:
    """Its last line rewritten after the stop in place, to the same size (so only its
    modification and change times tell, until its fingerprint is read): its state is read,
    the file derived again, and its outputs end as a fresh derivation's."""
    watched, _lines = tree(tmp_path)
    out = tmp_path / "out"
    watch_once(watched, out, caplog)
    path = watched / "0.jsonl"
    data = path.read_bytes()
    last = data.rindex(b"\n", 0, len(data) - 1) + 1
    replacement = varied_lines(1, seed=99, session="s-0")[0].rstrip(b"\n")
    replacement = replacement[: len(data) - last - 1].ljust(len(data) - last - 1) + b"\n"
    with open(path, "r+b") as f:
        f.seek(last)
        f.write(replacement)
    assert path.stat().st_size == len(data)
    reads.clear()
    watch_once(watched, out, caplog)
    assert {Path(r).name for r in reads} == {
        state_module.state_file_name("", os.path.realpath(path))
    }
    MemoryService([watched], tmp_path / "fresh").run_once()
    assert published(out) == published(tmp_path / "fresh")


def test_a_stop_before_the_first_look_still_records_what_is_unchanged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, reads: list[str]
) -> None:
    """A start stopped before its sweep looked at the transcripts kept from the index still
    leaves them in the next index, once its stop finds them as recorded."""
    watched, _lines = tree(tmp_path)
    out = tmp_path / "out"
    watch_once(watched, out, caplog)
    stop = threading.Event()
    stop.set()
    MemoryService([watched], out, stop_event=stop).run()
    reads.clear()
    watch_once(watched, out, caplog)
    assert reads == []


GOOD_ROW = ["/t/0.jsonl", 1, 2, 3, 4, 5, "fp:3", "s-0", 6]


@pytest.mark.parametrize(
    "row",
    [
        GOOD_ROW[:-1],
        [*GOOD_ROW, 7],
        [0, *GOOD_ROW[1:]],
        ["/t/0.jsonl", True, *GOOD_ROW[2:]],
        ["/t/0.jsonl", 1, -2, *GOOD_ROW[3:]],
        [*GOOD_ROW[:5], 5.0, *GOOD_ROW[6:]],
        [*GOOD_ROW[:6], 7, *GOOD_ROW[7:]],
        [*GOOD_ROW[:7], ["s-0"], GOOD_ROW[8]],
        [*GOOD_ROW[:8], "6"],
        {"path": "/t/0.jsonl"},
    ],
)
def test_an_index_with_a_row_of_the_wrong_shape_is_not_used(tmp_path: Path, row: object) -> None:
    derives = [1200, "cl100k_base", "auto"]
    path = tmp_path / INDEX_FILE
    doc = {"format": 1, "derives": derives, "transcripts": [GOOD_ROW]}
    path.write_bytes(orjson.dumps(doc))
    assert list(read_index(str(path), derives)) == ["/t/0.jsonl"]
    path.write_bytes(orjson.dumps({**doc, "transcripts": [GOOD_ROW, row]}))
    assert read_index(str(path), derives) == {}
