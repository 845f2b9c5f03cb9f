"""Snapshots: restore in a new process and continue exactly as a full rebuild."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deriver import SessionMemoryDeriver
from session_memory.errors import SnapshotError
from session_memory.reader import read_records

SAMPLE = Path(__file__).parents[2] / "examples" / "sample_transcript.jsonl"

CONTINUE_IN_CHILD = """
import sys
from deriver import SessionMemoryDeriver
from session_memory.reader import read_records
deriver = SessionMemoryDeriver.restore(open(sys.argv[1], "rb").read())
records = list(read_records(sys.argv[2]))
deriver.apply_all(records[int(sys.argv[3]):])
sys.stdout.buffer.write(deriver.memory.model_dump_json().encode())
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
        assert child.stdout.decode() == full.model_dump_json()

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
