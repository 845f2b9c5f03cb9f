"""Hostile lines through the service: skipped, counted, and the service keeps tailing."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.apps.service import MemoryService
from session_memory.formats import read_transcript
from tests.service.service_helpers import append, user

HOSTILE = [
    b"[" * 100_000 + b"]" * 100_000,
    b"\x00" * 10_000,
    b'{"event_id":"x","event_type":"message","payload":{"content":"\xff\xfe"}}',
    b'{"event_id":"y","event_type":"message","payload":{"c":"\\ud800"}}',
    b"",
    b"   ",
    b'{"event_id": 7, "event_type": "message"}',
]


class TestHostileWatched:
    def test_service_skips_hostile_lines_and_keeps_going(self, tmp_path: Path) -> None:
        """Each hostile line is counted; lines after them are still applied, as derive does."""
        transcripts = tmp_path / "t"
        transcripts.mkdir()
        path = transcripts / "s.jsonl"
        path.write_bytes(user(1, "Fix the parser"))
        out = tmp_path / "out"
        MemoryService([transcripts], out).run_once()
        for i, line in enumerate(HOSTILE):
            append(path, line + b"\n")
            append(path, user(10 + i, f"request {i}"))
            MemoryService([transcripts], out).run_once()
        [json_path] = out.glob("*.memory.json")
        watched = orjson.loads(json_path.read_bytes())
        whole = SessionMemoryDeriver.rebuild(read_transcript(path)).memory
        assert watched == orjson.loads(whole.to_json())
        assert watched["diagnostics"]["lines_skipped"] == len(HOSTILE)
        assert watched["current_goal"]["text"] == f"request {len(HOSTILE) - 1}"

    @pytest.mark.slow
    def test_64_mib_line_is_skipped_while_tailing(self, tmp_path: Path) -> None:
        """A 64 MiB line in a tailed transcript is skipped; the next line is applied."""
        transcripts = tmp_path / "t"
        transcripts.mkdir()
        path = transcripts / "s.jsonl"
        path.write_bytes(user(1, "Fix the parser"))
        out = tmp_path / "out"
        MemoryService([transcripts], out).run_once()
        with path.open("ab") as f:
            for _ in range(64):
                f.write(b"a" * (1 << 20))
            f.write(b"\n")
        append(path, user(2, "after the huge line"))
        MemoryService([transcripts], out).run_once()
        [json_path] = out.glob("*.memory.json")
        watched = orjson.loads(json_path.read_bytes())
        assert watched["diagnostics"]["lines_skipped"] == 1
        assert watched["current_goal"]["text"] == "after the huge line"
