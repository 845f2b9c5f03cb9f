"""Helpers for the format adapter tests: fixture paths and selectors over a fixture's records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from session_memory.core.events import Record, SkippedLine, TranscriptEvent
from session_memory.formats import read_transcript

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ALL_FIXTURES = sorted(FIXTURES.glob("*/*.jsonl"))


def dumped(record: Record) -> object:
    """A record as plain data, to compare reads: an event's dump, a skip's fields."""
    return msgspec.structs.asdict(record)


class Read:
    """The records of one fixture read whole, with selectors for what the tests check."""

    def __init__(self, path: Path) -> None:
        self.records = list(read_transcript(path))
        self.events = [r for r in self.records if isinstance(r, TranscriptEvent)]
        self.skipped = [r for r in self.records if isinstance(r, SkippedLine)]

    def of_type(self, event_type: str) -> list[TranscriptEvent]:
        return [e for e in self.events if e.event_type == event_type]

    def messages(self, role: str) -> list[str]:
        return [e.payload["content"] for e in self.of_type("message") if e.payload["role"] == role]

    def finals(self) -> list[str]:
        return [
            e.payload["content"]
            for e in self.of_type("message")
            if e.payload["metadata"].get("action_type") == "final"
        ]

    def calls(self, status: str, tool: str | None = None) -> list[dict[str, Any]]:
        return [
            e.payload
            for e in self.of_type("tool_lifecycle")
            if e.payload["status"] == status and (tool is None or e.payload["tool_name"] == tool)
        ]

    def open_calls(self) -> dict[str, str]:
        """Calls started but never completed or failed: the deriver's uncertain actions."""
        open_: dict[str, str] = {}
        for p in (e.payload for e in self.of_type("tool_lifecycle")):
            if p["status"] == "started":
                open_[p["tool_call_id"]] = p["tool_name"]
            elif p["status"] in ("completed", "failed"):
                open_.pop(p["tool_call_id"], None)
        return open_

    def last_args(self, tool: str) -> dict[str, Any]:
        args: dict[str, Any] = self.calls("requested", tool)[-1]["args"]
        return args
