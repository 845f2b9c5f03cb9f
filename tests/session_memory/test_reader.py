"""Reading native JSONL: every bad line is skipped and counted with its byte offset."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from session_memory.core.errors import TranscriptError
from session_memory.core.events import TranscriptEvent
from session_memory.core.memory import SkippedLine
from session_memory.formats.reader import iter_lines, read_events, read_records

GOOD = b'{"event_id":"e1","event_type":"message","payload":{"role":"user","content":"hi"}}'


def records(data: bytes, **kwargs: int) -> list[TranscriptEvent | SkippedLine]:
    return list(read_records(io.BytesIO(data), **kwargs))


class TestReadRecords:
    def test_valid_line_is_an_event(self) -> None:
        """A valid line becomes a TranscriptEvent."""
        [record] = records(GOOD + b"\n")
        assert isinstance(record, TranscriptEvent)
        assert record.payload["content"] == "hi"

    @pytest.mark.parametrize(
        ("line", "reason"),
        [
            (b"not json", "not valid JSON"),
            (b"[1, 2]", "not a JSON object but list"),
            (b'{"event_id": "x"}', "event_type"),
            (b'{"event_id": "x", "event_type": "message", "step": "three"}', "step"),
            (b'{"event_id": "x", "event_type": "message", "payload": [1]}', "payload"),
            (b'{"event_id": "\xff\xfe", "event_type": "message"}', "not valid JSON"),
        ],
    )
    def test_bad_line_is_skipped_with_offset_and_reason(self, line: bytes, reason: str) -> None:
        """A bad line in the middle is skipped with its offset, and reading goes on."""
        data = GOOD + b"\n" + line + b"\n" + GOOD.replace(b"e1", b"e2") + b"\n"
        first, skipped, last = records(data)
        assert isinstance(first, TranscriptEvent) and isinstance(last, TranscriptEvent)
        assert isinstance(skipped, SkippedLine)
        assert skipped.offset == len(GOOD) + 1
        assert reason in skipped.reason

    def test_line_cut_short_at_end_is_skipped(self) -> None:
        """A last line cut short is skipped as incomplete."""
        data = GOOD + b"\n" + GOOD[:20]
        _, skipped = records(data)
        assert isinstance(skipped, SkippedLine)
        assert skipped.reason.startswith("incomplete last line")
        assert skipped.offset == len(GOOD) + 1

    def test_complete_last_line_without_newline_is_read(self) -> None:
        """A valid last line that lacks only its newline is still read."""
        [record] = records(GOOD)
        assert isinstance(record, TranscriptEvent)

    def test_blank_lines_are_skipped_and_counted(self) -> None:
        """Blank lines are skipped with their offsets, like any line that is not an event."""
        found = records(b"\n  \n" + GOOD + b"\n\n")
        assert [(r.offset, r.reason) for r in found if isinstance(r, SkippedLine)] == [
            (0, "blank line"),
            (1, "blank line"),
            (5 + len(GOOD), "blank line"),
        ]

    def test_over_long_line_is_skipped_in_bounded_memory(self) -> None:
        """A line longer than the limit is skipped without being held whole."""
        data = GOOD + b"\n" + b"x" * 5000 + b"\n" + GOOD.replace(b"e1", b"e2") + b"\n"
        _, skipped, last = records(data, max_line_bytes=1000)
        assert isinstance(skipped, SkippedLine)
        assert skipped.offset == len(GOOD) + 1
        assert "longer than 1000 bytes" in skipped.reason
        assert isinstance(last, TranscriptEvent) and last.event_id == "e2"

    def test_unknown_fields_and_types_are_kept(self) -> None:
        """Unknown fields are tolerated and unknown event types kept as they are."""
        [record] = records(b'{"event_id":"e","event_type":"telemetry","extra":1}\n')
        assert isinstance(record, TranscriptEvent)
        assert record.event_type == "telemetry"
        assert record.unknown_fields == {"extra": 1}

    def test_missing_file_is_a_transcript_error(self, tmp_path: Path) -> None:
        """A missing file is one clear TranscriptError."""
        with pytest.raises(TranscriptError, match="cannot read transcript"):
            list(read_records(tmp_path / "missing.jsonl"))

    def test_read_events_reports_skips(self) -> None:
        """read_events yields only events and hands each skip to on_skip."""
        skips: list[SkippedLine] = []
        events = list(read_events(io.BytesIO(GOOD + b"\nnope\n"), on_skip=skips.append))
        assert [e.event_id for e in events] == ["e1"]
        assert [s.offset for s in skips] == [len(GOOD) + 1]


class TestIterLines:
    def test_partial_last_line_waits_when_asked(self) -> None:
        """With final_partial false, a line without its newline is not yielded."""
        lines = list(iter_lines(io.BytesIO(b"a\nb\nc"), final_partial=False))
        assert [(o, line, end) for o, line, end in lines] == [(0, b"a", 2), (2, b"b", 4)]

    def test_start_offset_is_added(self) -> None:
        """Offsets are absolute when reading starts in the middle of a file."""
        [(offset, line, end)] = list(iter_lines(io.BytesIO(b"xy\n"), start=100))
        assert (offset, line, end) == (100, b"xy", 103)
