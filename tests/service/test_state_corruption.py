"""The state file is input: every corruption of it rebuilds, never crashes, never escapes."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.outputs import state_path
from session_memory.apps.service import MemoryService
from session_memory.formats import read_transcript
from tests.service.service_helpers import append, user, varied_lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

Header = dict[str, Any]
Snapshot = dict[str, Any]


def _set(key: str, value: object) -> Callable[[Header], None]:
    def change(header: Header) -> None:
        header[key] = value

    return change


HEADER_CASES: dict[str, Callable[[Header], None]] = {
    "absolute name": _set("name", "/tmp/escaped"),
    "traversing name": _set("name", "../../escaped"),
    "foreign plain name": _set("name", "someone-else"),
    "name not a string": _set("name", 5),
    "offset -100": _set("offset", -100),
    "offset a bool": _set("offset", True),
    "offset a string": _set("offset", "3"),
    "dev a string": _set("dev", "1"),
    "ino null": _set("ino", None),
    "fingerprint a number": _set("fingerprint", 5),
    "fingerprint malformed": _set("fingerprint", "zz"),
    "budget a string": _set("budget_tokens", "1200"),
    "encoding a number": _set("encoding", 1),
    "format a number": _set("transcript_format", 2),
    "adapter a string": _set("adapter", "x"),
    "path a number": _set("path", 3),
    "path of another file": _set("path", "/elsewhere/t.jsonl"),
    "memory hash wrong": _set("memory_blake2b", "0" * 32),
    "memory hash missing": lambda h: h.pop("memory_blake2b"),
    "format null": _set("format", None),
}

SNAPSHOT_CASES: dict[str, Callable[[Snapshot], None]] = {
    "event_count x": _set("event_count", "x"),
    "event_count a numeric string": _set("event_count", "5"),
    "version null": _set("version", None),
    "seen a string": _set("seen", "abc"),
    "session_id a number": _set("session_id", 5),
    "last_event_id a number": _set("last_event_id", 7),
    "diagnostics a list": _set("diagnostics", []),
    "config empty": _set("config", {}),
    "store null": _set("store", None),
    "rules a number": _set("rules", 3),
}


def corrupt_state(
    path: Path,
    header_change: Callable[[Header], None] | None = None,
    snapshot_change: Callable[[Snapshot], None] | None = None,
) -> None:
    """Rewrite a state file with one change, its snapshot hash recomputed to match."""
    head, _, snapshot = path.read_bytes().partition(b"\n")
    header = orjson.loads(head)
    if snapshot_change is not None:
        snap = orjson.loads(snapshot)
        snapshot_change(snap)
        snapshot = orjson.dumps(snap)
        header["snapshot_blake2b"] = hashlib.blake2b(snapshot, digest_size=16).hexdigest()
    if header_change is not None:
        header_change(header)
    path.write_bytes(orjson.dumps(header) + b"\n" + snapshot)


def derived(path: Path) -> object:
    return orjson.loads(SessionMemoryDeriver.rebuild(read_transcript(path)).memory.to_json())


def run_corrupted(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    header_change: Callable[[Header], None] | None = None,
    snapshot_change: Callable[[Snapshot], None] | None = None,
) -> None:
    """Derive, corrupt the state, append, derive again: one warning, a rebuild equal to
    derive, nothing written outside the output directory."""
    root, out = tmp_path / "w" / "t", tmp_path / "w" / "out"
    root.mkdir(parents=True)
    path = root / "s.jsonl"
    lines = varied_lines(120, seed=9, session="s")
    path.write_bytes(b"".join(lines[:80]))
    service = MemoryService([root], out)
    service.run_once()
    corrupt_state(
        state_path(service.state_dir, str(path.resolve())), header_change, snapshot_change
    )
    append(path, b"".join(lines[80:]))
    before = set(tmp_path.parent.glob("*")) | set(Path("/tmp").glob("escaped*"))
    with caplog.at_level(logging.WARNING):
        MemoryService([root], out).run_once()
    rebuilding = [r for r in caplog.records if "rebuilding" in r.getMessage()]
    assert len(rebuilding) == 1, [r.getMessage() for r in caplog.records]
    assert rebuilding[0].levelno == logging.WARNING
    assert set(tmp_path.parent.glob("*")) | set(Path("/tmp").glob("escaped*")) == before
    assert not list((tmp_path / "w").glob("escaped*"))
    assert sorted(p.name for p in out.glob("*.memory.json")) == ["s.memory.json"]
    assert orjson.loads((out / "s.memory.json").read_bytes()) == derived(path)
    # And the state written by the rebuild resumes cleanly.
    caplog.clear()
    append(path, user(900, "later", session="s"))
    with caplog.at_level(logging.WARNING):
        assert MemoryService([root], out).run_once().events == 1
    assert not caplog.records
    assert orjson.loads((out / "s.memory.json").read_bytes()) == derived(path)


class TestCorruptState:
    @pytest.mark.parametrize("case", sorted(HEADER_CASES))
    def test_corrupt_header_field_rebuilds(
        self, case: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A state header field of the wrong type, range or value is one warning and a rebuild."""
        run_corrupted(tmp_path, caplog, header_change=HEADER_CASES[case])

    @pytest.mark.parametrize("case", sorted(SNAPSHOT_CASES))
    def test_corrupt_snapshot_field_rebuilds(
        self, case: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A snapshot field of the wrong type, with the hash made to match, is one warning
        and a rebuild."""
        run_corrupted(tmp_path, caplog, snapshot_change=SNAPSHOT_CASES[case])

    @pytest.mark.parametrize("value", ["x", None])
    def test_snapshot_field_of_a_silently_accepted_type_rebuilds(
        self, value: object, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A next item id of the wrong type is caught before it names items differently."""
        run_corrupted(
            tmp_path,
            caplog,
            snapshot_change=lambda snap: snap["store"].__setitem__("next_id", value),
        )

    def test_adapter_state_failing_on_the_next_line_rebuilds(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """An adapter state that restores but fails on the first line fed to it is one
        warning and a rebuild, not a crash."""
        fixture = FIXTURES / "claude_code" / "cc-2.1.38_task-plan-mode_subagent-parent.jsonl"
        lines = fixture.read_bytes().splitlines(keepends=True)
        root, out = tmp_path / "w", tmp_path / "out"
        root.mkdir()
        path = root / "t.jsonl"
        path.write_bytes(b"".join(lines[:50]))
        service = MemoryService([root], out)
        service.run_once()
        corrupt_state(
            state_path(service.state_dir, str(path.resolve())),
            lambda header: header["adapter"]["inner"].__setitem__("step", "x"),
        )
        append(path, b"".join(lines[50:]))
        with caplog.at_level(logging.WARNING):
            MemoryService([root], out).run_once()
        assert [r.levelname for r in caplog.records if "rebuilding" in r.getMessage()] == [
            "WARNING"
        ]
        [json_path] = out.glob("*.memory.json")
        assert orjson.loads(json_path.read_bytes()) == derived(path)

    def test_offset_past_the_end_is_a_shrunk_file(self, tmp_path: Path) -> None:
        """An offset beyond the file's size reads as a truncated transcript: rebuilt."""
        root, out = tmp_path / "t", tmp_path / "out"
        root.mkdir()
        path = root / "s.jsonl"
        path.write_bytes(b"".join(varied_lines(60, session="s")))
        service = MemoryService([root], out)
        service.run_once()
        corrupt_state(state_path(service.state_dir, str(path.resolve())), _set("offset", 10**12))
        MemoryService([root], out).run_once()
        assert orjson.loads((out / "s.memory.json").read_bytes()) == derived(path)
