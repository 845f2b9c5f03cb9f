"""watch writes no memory for a file in no known transcript format."""

from __future__ import annotations

from pathlib import Path

from session_memory.apps.service import MemoryService

PROMPT = (
    b'{"type":"user","uuid":"u-1","sessionId":"s-1","cwd":"/w","isSidechain":false,'
    b'"timestamp":"2026-12-01T10:00:00Z","message":{"role":"user","content":"Fix checkout"}}\n'
)


class TestUnknownFormatWatched:
    def test_a_file_of_no_known_format_gets_no_memory(self, tmp_path: Path) -> None:
        """A trace file whose records none of the formats knows writes no memory files."""
        transcripts = tmp_path / "t"
        transcripts.mkdir()
        (transcripts / "trace.jsonl").write_bytes(b'{"span": "llm", "ms": 12}\n')
        out = tmp_path / "out"
        MemoryService([transcripts], out).run_once()
        assert list(out.glob("*.memory.*")) == []

    def test_its_memory_appears_once_a_record_tells_the_format(self, tmp_path: Path) -> None:
        """When a later record is a Claude Code prompt, the memory is written."""
        transcripts = tmp_path / "t"
        transcripts.mkdir()
        path = transcripts / "s.jsonl"
        path.write_bytes(b'{"span": "llm", "ms": 12}\n')
        out = tmp_path / "out"
        MemoryService([transcripts], out).run_once()
        with path.open("ab") as f:
            f.write(PROMPT)
        MemoryService([transcripts], out).run_once()
        [md] = out.glob("*.memory.md")
        assert "Fix checkout" in md.read_text()
