"""Compressed Codex rollouts (`rollout-*.jsonl.zst`) in a watched directory: read whole, once."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import orjson
import pytest
import zstandard

from session_memory.apps.service import MemoryService
from tests.service.service_helpers import SCRIPT, WatchProcess, wait_for

FIXTURE = (
    Path(__file__).parents[1]
    / "fixtures"
    / "codex"
    / "codex-0.125.0-cli_turn1_EXCERPT_019e1625_L1-19.jsonl"
)
ROLLOUT = "rollout-2026-05-12T09-30-00-019e1625"


def compressed(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


def derive_json(path: Path) -> object:
    """What `session-memory derive --json` prints for the whole file."""
    done = subprocess.run(
        [SCRIPT, "derive", "--json", str(path)], capture_output=True, check=True, timeout=60
    )
    return orjson.loads(done.stdout)


def memories(out: Path) -> dict[str, object]:
    return {p.name: orjson.loads(p.read_bytes()) for p in sorted(out.glob("*.memory.json"))}


@pytest.fixture
def watched(tmp_path: Path) -> Path:
    path = tmp_path / "sessions"
    path.mkdir()
    return path


class TestCompressedRollout:
    def test_memory_equals_derive(self, watched: Path, tmp_path: Path) -> None:
        """A `.jsonl.zst` in a watched directory gets the memory `derive` gives of it."""
        path = watched / f"{ROLLOUT}.jsonl.zst"
        path.write_bytes(compressed(FIXTURE.read_bytes()))
        out = tmp_path / "out"
        summary = MemoryService([watched], out).run_once()
        assert summary.transcripts == 1
        [memory] = memories(out).values()
        assert memory == derive_json(path)

    def test_read_once_then_resumed_unread(self, watched: Path, tmp_path: Path) -> None:
        """A restarted service resumes a compressed rollout from its state without reading it."""
        path = watched / f"{ROLLOUT}.jsonl.zst"
        path.write_bytes(compressed(FIXTURE.read_bytes()))
        out = tmp_path / "out"
        assert MemoryService([watched], out).run_once().events > 0
        before = memories(out)
        again = MemoryService([watched], out).run_once()
        assert (again.events, again.outputs_written) == (0, 0)
        assert memories(out) == before

    def test_file_written_in_two_steps_is_derived_again(
        self, watched: Path, tmp_path: Path
    ) -> None:
        """A `.zst` first seen cut inside its frame is derived again once it is complete."""
        data = compressed(FIXTURE.read_bytes())
        path = watched / f"{ROLLOUT}.jsonl.zst"
        path.write_bytes(data[: len(data) // 2])
        service = MemoryService([watched], tmp_path / "out")
        service.run_once()
        with path.open("ab") as f:
            f.write(data[len(data) // 2 :])
        service.run_once()
        [memory] = memories(tmp_path / "out").values()
        assert memory == derive_json(path)

    def test_corrupt_file_is_a_counted_logged_skip(
        self, watched: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Corrupt zstd data: one skip counted and one WARNING, no memory, no crash."""
        data = bytearray(compressed(FIXTURE.read_bytes()))
        data[20:60] = b"\xff" * 40
        (watched / f"{ROLLOUT}.jsonl.zst").write_bytes(bytes(data))
        out = tmp_path / "out"
        service = MemoryService([watched], out)
        with caplog.at_level(logging.WARNING, logger="session_memory.apps.service"):
            summary = service.run_once()
            service.run_once()  # read once: the same file is not read (nor logged) again
        assert (summary.skipped, summary.events, summary.outputs_written) == (1, 0, 0)
        [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert "zstd" in warning.getMessage()
        assert memories(out) == {}


class TestCompressedInPlaceOfPlain:
    def test_rewrite_keeps_one_memory_under_the_same_name(
        self, watched: Path, tmp_path: Path
    ) -> None:
        """A live rollout deleted and written again as `.jsonl.zst` keeps one memory, under
        the same name, equal to `derive` of the compressed file."""
        content = FIXTURE.read_bytes()
        plain = watched / f"{ROLLOUT}.jsonl"
        plain.write_bytes(content)
        out = tmp_path / "out"
        with WatchProcess(watched, "--out", out, log=tmp_path / "watch.log") as proc:
            assert wait_for(lambda: len(memories(out)) == 1, timeout=30), proc.log()
            [name] = memories(out)
            plain.unlink()
            assert wait_for(lambda: "was deleted" in proc.log(), timeout=30), proc.log()
            packed = watched / f"{ROLLOUT}.jsonl.zst"
            packed.write_bytes(compressed(content))
            assert wait_for(lambda: f"tailing {packed}" in proc.log(), timeout=30), proc.log()
            states = out / ".session-memory-state"
            assert wait_for(lambda: any(states.glob("*.state")), timeout=30), proc.log()
            expected = derive_json(packed)
            assert wait_for(lambda: memories(out) == {name: expected}, timeout=30), proc.log()
            assert proc.terminate() == 0
        assert memories(out) == {name: expected}
