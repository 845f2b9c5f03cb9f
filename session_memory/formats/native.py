"""Native transcript objects, validated exactly as :mod:`session_memory.reader` does."""

from __future__ import annotations

from typing import ClassVar

from session_memory.event_struct import JsonObject
from session_memory.formats._base import AdapterBase
from session_memory.reader import Record, event_from_object

__all__ = ["NativeAdapter"]


class NativeAdapter(AdapterBase):
    """The identity adapter: each object is one :class:`TranscriptEvent` or a skip."""

    format_name: ClassVar[str] = "native"

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        out.append(event_from_object(record, offset))
