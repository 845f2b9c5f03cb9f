"""Hostile transcripts: each is skipped or handled in bounded memory, counted, never fatal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.formats.reader import MAX_LINE_BYTES, read_records
from viewbuilder import render_memory

GOAL = orjson.dumps(
    {"event_id": "g", "event_type": "message", "payload": {"role": "user", "content": "Fix it"}}
)
LAST = orjson.dumps({"event_id": "t", "event_type": "terminal", "payload": {"reason": "completed"}})

# VmHWM, not ru_maxrss: the latter also counts the parent's pages shared before exec.
PEAK_RSS_OF_DERIVE = """
import re, sys
from deriver import SessionMemoryDeriver
from session_memory.formats.reader import read_records
deriver = SessionMemoryDeriver.rebuild(read_records(sys.argv[1]))
status = open("/proc/self/status").read()
print(deriver.memory.event_count, deriver.memory.diagnostics.lines_skipped,
      int(re.search(r"VmHWM:\\s+(\\d+)", status).group(1)) // 1024)
"""


def derive_in_child(path: Path) -> tuple[int, int, int]:
    """Events applied, lines skipped and peak resident MiB of a derive in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK_RSS_OF_DERIVE, str(path)],
        capture_output=True,
        check=True,
        text=True,
    ).stdout.split()
    return int(out[0]), int(out[1]), int(out[2])


def transcript(tmp_path: Path, hostile: bytes) -> Path:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(GOAL + b"\n" + hostile + b"\n" + LAST + b"\n")
    return path


HOSTILE_LINES = {
    "nesting depth 100,000": b"[" * 100_000 + b"]" * 100_000,
    "deep object nesting": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "NUL bytes": b"\x00" * 10_000,
    "invalid UTF-8": b'{"event_id":"x","event_type":"message","payload":{"content":"\xff\xfe"}}',
    "lone surrogate escape": b'{"event_id":"x","event_type":"message","payload":{"c":"\\ud800"}}',
    "number out of range": b'{"event_id":"x","event_type":"message","step":1e999}',
}


class TestHostileLines:
    @pytest.mark.parametrize("hostile", HOSTILE_LINES.values(), ids=HOSTILE_LINES.keys())
    def test_line_is_skipped_and_derivation_goes_on(self, tmp_path: Path, hostile: bytes) -> None:
        """The hostile line is skipped and counted; the events around it are applied."""
        memory = SessionMemoryDeriver.rebuild(read_records(transcript(tmp_path, hostile))).memory
        assert memory.event_count == 2
        assert memory.diagnostics.lines_skipped == 1
        assert memory.diagnostics.skipped[0].offset == len(GOAL) + 1
        assert memory.current_goal is not None

    def test_nul_and_control_characters_in_text_never_reach_the_memory(self) -> None:
        """Valid JSON text full of NULs and escapes is cleaned before it reaches the memory."""
        content = "Fix\x00 the\x1b[31m bug\x07" + "\x00" * 1000
        deriver = SessionMemoryDeriver()
        deriver.apply({"event_id": "e", "event_type": "message",
                       "payload": {"role": "user", "content": content}})  # fmt: skip
        rendered = render_memory(deriver.memory)
        assert "\x00" not in rendered and "\x1b" not in rendered and "\x07" not in rendered


@pytest.mark.slow
class TestHostileFiles:
    def test_64_mib_line_is_skipped_in_bounded_memory(self, tmp_path: Path) -> None:
        """A 64 MiB line is skipped while it streams past: peak memory stays far below it."""
        small = derive_in_child(transcript(tmp_path, b"{}"))
        huge_line = b'{"event_id":"x","event_type":"message","payload":{"c":"' + b"a" * (64 << 20)
        events, skipped, peak_mib = derive_in_child(transcript(tmp_path, huge_line + b'"}}'))
        assert (events, skipped) == (2, 1)
        # The reader holds at most MAX_LINE_BYTES plus one 1 MiB chunk of a line.
        assert peak_mib - small[2] < (MAX_LINE_BYTES >> 20) + 16

    def test_million_empty_lines(self, tmp_path: Path) -> None:
        """A million blank lines are skipped and counted, in bounded memory."""
        path = tmp_path / "blank.jsonl"
        path.write_bytes(GOAL + b"\n" + b"\n" * 1_000_000 + LAST + b"\n")
        events, skipped, _ = derive_in_child(path)
        assert (events, skipped) == (2, 1_000_000)
