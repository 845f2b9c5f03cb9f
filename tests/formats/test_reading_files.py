"""Reading whole transcript files: zstd-compressed rollouts, and files in no known format."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import zstandard

from session_memory.apps.cli import main
from session_memory.core.errors import TranscriptError
from session_memory.formats import read_transcript
from tests.formats.fixture_reads import ALL_FIXTURES, dumped

ROLLOUT = next(p for p in ALL_FIXTURES if p.parent.name == "codex")


def compressed(path: Path, tmp_path: Path) -> Path:
    target = tmp_path / (path.name + ".zst")
    target.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    return target


class TestZstd:
    def test_a_compressed_rollout_reads_as_the_plain_file(self, tmp_path: Path) -> None:
        """`rollout-*.jsonl.zst` gives exactly the records of the uncompressed rollout."""
        plain = [dumped(r) for r in read_transcript(ROLLOUT)]
        packed = [dumped(r) for r in read_transcript(compressed(ROLLOUT, tmp_path))]
        assert packed == plain and plain

    def test_compression_is_recognised_by_content_not_name(self, tmp_path: Path) -> None:
        """A zstd file named `.jsonl` is read decompressed too."""
        target = tmp_path / "rollout.jsonl"
        target.write_bytes(compressed(ROLLOUT, tmp_path).read_bytes())
        assert len(list(read_transcript(target))) == len(list(read_transcript(ROLLOUT)))

    @pytest.mark.parametrize("damage", ["truncated", "corrupted"])
    def test_a_damaged_compressed_file_is_a_transcript_error(
        self, tmp_path: Path, damage: str
    ) -> None:
        """A zstd file cut inside a frame, or with damaged data, raises TranscriptError."""
        data = compressed(ROLLOUT, tmp_path).read_bytes()
        if damage == "truncated":
            data = data[: len(data) // 2]
        else:
            data = data[:20] + bytes(b ^ 0xFF for b in data[20:80]) + data[80:]
        target = tmp_path / "rollout.jsonl.zst"
        target.write_bytes(data)
        with pytest.raises(TranscriptError):
            list(read_transcript(target))

    def test_frames_are_read_one_after_another(self, tmp_path: Path) -> None:
        """A file of several zstd frames reads as their contents concatenated."""
        lines = ROLLOUT.read_bytes().splitlines(keepends=True)
        half = len(lines) // 2
        target = tmp_path / "rollout.jsonl.zst"
        cctx = zstandard.ZstdCompressor()
        target.write_bytes(
            cctx.compress(b"".join(lines[:half])) + cctx.compress(b"".join(lines[half:]))
        )
        plain = [dumped(r) for r in read_transcript(ROLLOUT)]
        assert [dumped(r) for r in read_transcript(target)] == plain

    def test_derive_prints_the_memory_of_a_compressed_rollout(
        self, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
    ) -> None:
        """`session-memory derive rollout.jsonl.zst` prints what the plain file gives."""
        assert main(["derive", str(ROLLOUT)]) == 0
        plain = capsysbinary.readouterr().out
        assert main(["derive", str(compressed(ROLLOUT, tmp_path))]) == 0
        assert capsysbinary.readouterr().out == plain

    def test_view_reads_a_compressed_rollout(
        self, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
    ) -> None:
        """`session-memory view` builds its messages from a compressed rollout."""
        system = tmp_path / "system.txt"
        system.write_text("You are a coding agent.")
        argv = ["view", str(compressed(ROLLOUT, tmp_path)), "--system", str(system)]
        assert main(argv) == 0
        request = orjson.loads(capsysbinary.readouterr().out)
        assert "Session memory" in orjson.dumps(request).decode()


class TestNoKnownFormat:
    def test_derive_says_so_and_fails(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A file none of whose records has a known shape: one line on stderr, exit non-zero."""
        trace = tmp_path / "trace.jsonl"
        trace.write_bytes(b'{"span": "llm", "ms": 12}\n{"span": "tool", "ms": 3}\n')
        assert main(["derive", str(trace)]) != 0
        out, err = capsys.readouterr()
        assert out == ""
        assert "no known transcript format" in err and err.count("\n") == 1

    def test_a_pretty_printed_json_document_is_no_transcript(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A session exported as one indented JSON document (OpenCode's) has no JSON lines:
        derive says it is in no known format, rather than print an empty memory."""
        export = tmp_path / "ses_1.json"
        export.write_bytes(b'{\n  "info": {\n    "id": "ses_1"\n  },\n  "messages": []\n}\n')
        assert main(["derive", str(export)]) != 0
        assert "no known transcript format" in capsys.readouterr().err

    def test_an_empty_file_is_an_empty_memory(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """An empty transcript is not of an unknown format: derive succeeds."""
        empty = tmp_path / "empty.jsonl"
        empty.write_bytes(b"")
        assert main(["derive", str(empty)]) == 0
