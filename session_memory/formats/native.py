"""Native transcript objects, checked exactly as :mod:`session_memory.formats.reader` does."""

from __future__ import annotations

from typing import ClassVar

from session_memory.core.events import JsonObject, Record, event_from_object
from session_memory.formats.base import AdapterBase

__all__ = ["NativeAdapter"]


class NativeAdapter(AdapterBase):
    """The identity adapter: each object is one :class:`TranscriptEvent` or a skip."""

    format_name: ClassVar[str] = "native"

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        out.append(event_from_object(record, offset))
