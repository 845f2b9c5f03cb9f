"""Snapshots: restore in a new process and continue exactly as a full rebuild."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.core.errors import SnapshotError
from session_memory.formats.reader import read_records
from tests.deriver.test_rules import bash, event

SAMPLE = Path(__file__).parents[2] / "examples" / "sample_transcript.jsonl"

CONTINUE_IN_CHILD = """
import sys
from deriver import SessionMemoryDeriver
from session_memory.formats.reader import read_records
deriver = SessionMemoryDeriver.restore(open(sys.argv[1], "rb").read())
records = list(read_records(sys.argv[2]))
deriver.apply_all(records[int(sys.argv[3]):])
sys.stdout.buffer.write(deriver.memory.to_json())
"""


class TestSnapshot:
    def test_restore_in_new_process_continues_like_rebuild(self, tmp_path: Path) -> None:
        """A snapshot restored in another process, fed the rest, equals a full rebuild."""
        records = list(read_records(SAMPLE))
        k = 1234
        snapshot = tmp_path / "snapshot.bin"
        snapshot.write_bytes(SessionMemoryDeriver.rebuild(records[:k]).snapshot())
        child = subprocess.run(
            [sys.executable, "-c", CONTINUE_IN_CHILD, str(snapshot), str(SAMPLE), str(k)],
            capture_output=True,
            check=True,
        )
        full = SessionMemoryDeriver.rebuild(records).memory
        assert child.stdout == full.to_json()

    def test_a_check_open_at_the_snapshot_is_the_same_check_restored(self) -> None:
        """A check that goes into the session's own directory (``cd /w/p && ruff check``),
        started before the snapshot and finished after: restored, it is the check it was,
        and settles the same narrower failure."""
        failed = bash("cd /w/p/api && ruff check a.py", "a.py:1:1: F401\nFound 1 error.", "c1", 1)
        whole = bash("cd /w/p && ruff check", "All checks passed!", "c2")
        events: list[Any] = [
            event("message", role="user", content="lint it", cwd="/w/p"),
            *failed,
            *whole[:2],
        ]
        half = SessionMemoryDeriver.rebuild(events)
        restored = SessionMemoryDeriver.restore(half.snapshot())
        restored.apply_all(whole[2:])
        assert restored.memory == SessionMemoryDeriver.rebuild([*events, *whole[2:]]).memory
        assert [c.status for c in restored.memory.verification_status] == ["passed"]

    @pytest.mark.parametrize("data", [b"", b"{}", b"[1]", b'{"format": 1}', b"\xff"])
    def test_corrupt_snapshot_is_a_snapshot_error(self, data: bytes) -> None:
        """Bytes that are not a snapshot raise SnapshotError, nothing else."""
        with pytest.raises(SnapshotError):
            SessionMemoryDeriver.restore(data)

    def test_snapshot_size_does_not_grow_with_the_transcript(self) -> None:
        """State is bounded by the budget, not by the number of events."""
        records = list(read_records(SAMPLE))
        small = len(SessionMemoryDeriver.rebuild(records[:1500]).snapshot())
        large = len(SessionMemoryDeriver.rebuild(records).snapshot())
        assert large < small * 1.5


def _as_format_1(snapshot: bytes, version: int = 1) -> bytes:
    """A snapshot as an older format wrote it: the version number says so."""
    state = orjson.loads(snapshot)
    state["format"] = version
    return orjson.dumps(state)


def _line(i: int, **payload: Any) -> bytes:
    event = {"event_id": f"e{i}", "event_type": "message", "session_id": "s-1", "payload": payload}
    return orjson.dumps(event) + b"\n"


class TestSnapshotFormat:
    def test_old_format_says_to_rebuild(self) -> None:
        """A snapshot of the positional first format is refused: SnapshotError, rebuild."""
        old = _as_format_1(
            SessionMemoryDeriver.rebuild(list(read_records(SAMPLE))[:200]).snapshot()
        )
        with pytest.raises(SnapshotError, match="rebuild the memory from the transcript"):
            SessionMemoryDeriver.restore(old)

    def test_a_snapshot_without_where_the_session_stands_says_to_rebuild(self) -> None:
        """A format 2 snapshot (before where the session stands) is refused: rebuild."""
        old = _as_format_1(
            SessionMemoryDeriver.rebuild(list(read_records(SAMPLE))[:200]).snapshot(), 2
        )
        with pytest.raises(SnapshotError, match="rebuild the memory from the transcript"):
            SessionMemoryDeriver.restore(old)

    def test_fields_are_named(self) -> None:
        """Items, the goal, calls, where the session stands and diagnostics are saved by name,
        not by position."""
        state = orjson.loads(SessionMemoryDeriver.rebuild(read_records(SAMPLE)).snapshot())
        assert state["format"] == 24
        assert {"id", "section", "kind", "text", "tier"} <= set(state["store"]["items"][0])
        assert {"text", "source", "acknowledgements"} <= set(state["store"]["goal"])
        assert {"closing", "previous", "answer", "changed", "commits", "forge"} <= set(
            state["rules"]["stands"]
        )
        commits = state["rules"]["stands"]["commits"][""]  # the project's; "../x" another's
        assert {"last", "earlier", "branch", "last_pushed", "made"} <= set(commits)
        assert {"lines_skipped", "skipped", "malformed_payloads"} <= set(state["diagnostics"])

    def test_service_rebuilds_from_an_old_format_state(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The watch service meets an old-format snapshot by deriving the transcript again."""
        from session_memory.apps.memory_dir.outputs import load_state, save_state, state_path
        from session_memory.apps.service import MemoryService

        watched, out = tmp_path / "transcripts", tmp_path / "out"
        watched.mkdir()
        path = watched / "a.jsonl"
        path.write_bytes(_line(1, role="user", content="first goal"))
        service = MemoryService([watched], out)
        service.run_once()
        spath = state_path(service.state_dir, str(path.resolve()))
        state = load_state(spath)
        save_state(service.state_dir, state._replace(snapshot=_as_format_1(state.snapshot)))
        with path.open("ab") as file:
            file.write(_line(2, role="user", content="second goal"))
        with caplog.at_level(logging.WARNING, logger="session_memory.apps.service"):
            MemoryService([watched], out).run_once()
        assert "rebuild the memory from the transcript" in caplog.text
        expected = SessionMemoryDeriver.rebuild(read_records(path)).memory
        written = orjson.loads((out / "s-1.memory.json").read_bytes())
        assert written == orjson.loads(expected.to_json())
