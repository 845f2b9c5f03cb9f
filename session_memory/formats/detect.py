"""Choosing an adapter: detection from a file's first records, and reading a whole file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import ClassVar, Final

from session_memory.core.arguments import check_argument, check_source
from session_memory.core.errors import ConfigError, SnapshotError
from session_memory.core.events import JsonObject, Record, SkippedLine
from session_memory.formats.base import AdapterBase
from session_memory.formats.claude_code import RECORD_TYPES as CLAUDE_CODE_TYPES
from session_memory.formats.claude_code import ClaudeCodeAdapter
from session_memory.formats.codex import CodexAdapter
from session_memory.formats.names import FORMAT_CHOICES, FormatChoice, FormatName
from session_memory.formats.native import NativeAdapter
from session_memory.formats.reader import (
    MAX_LINE_BYTES,
    LineItem,
    Source,
    iter_line_items,
    object_of_line,
    open_source,
)

__all__ = [
    "FORMAT_CHOICES",
    "NO_KNOWN_FORMAT",
    "AutoAdapter",
    "FormatChoice",
    "classify_object",
    "detect_format",
    "make_adapter",
    "read_transcript",
    "restore_adapter",
]


_ADAPTERS: Final[dict[str, type[AdapterBase]]] = {
    "native": NativeAdapter,
    "claude-code": ClaudeCodeAdapter,
    "codex": CodexAdapter,
}
"""Format -> the class of its adapter."""


_CODEX_TYPES: Final = frozenset(
    {
        "session_meta",
        "turn_context",
        "response_item",
        "event_msg",
        "compacted",
        "world_state",
        "token_usage_record",
    }
)
NO_KNOWN_FORMAT: Final = "record of no known transcript format"
"""The skip reason of a record read before any record told the format."""


def classify_object(obj: object) -> FormatName | None:
    """The format one decoded record belongs to, or None when it says nothing."""
    if not isinstance(obj, dict):
        return None
    if "event_type" in obj and "event_id" in obj:
        return "native"
    rtype = obj.get("type")
    if not isinstance(rtype, str):
        rtype = None
    if rtype in _CODEX_TYPES and "payload" in obj:
        return "codex"
    if rtype in CLAUDE_CODE_TYPES or ("sessionId" in obj and "uuid" in obj):
        return "claude-code"
    return None


def detect_format(first_objects: Iterable[object]) -> FormatName:
    """The format of a file from its first valid JSON records; native when none says."""
    for obj in first_objects:
        found = classify_object(obj)
        if found is not None:
            return found
    return "native"


def make_adapter(fmt: str) -> AdapterBase:
    """A fresh adapter for ``fmt`` (one of :data:`FORMAT_CHOICES`)."""
    check_argument("format", fmt, str)
    if fmt == "auto":
        return AutoAdapter()
    try:
        cls = _ADAPTERS[fmt]
    except KeyError:
        raise ConfigError(
            f"unknown transcript format {fmt!r}; choose from {', '.join(FORMAT_CHOICES)}"
        ) from None
    return cls()


def restore_adapter(state: JsonObject) -> AdapterBase:
    """The adapter a :meth:`snapshot` describes, whatever its format."""
    fmt = state.get("format") if isinstance(state, dict) else None
    if fmt == "auto":
        return AutoAdapter.restore(state)
    if not isinstance(fmt, str) or fmt not in _ADAPTERS:
        raise SnapshotError(f"adapter snapshot of unknown format {fmt!r}")
    return _ADAPTERS[fmt].restore(state)


class AutoAdapter(AdapterBase):
    """Detects the format on the first telling record, then delegates to that adapter.

    Records before it (an empty object, a record of no known shape) are skipped as such.
    """

    format_name: ClassVar[str] = "auto"

    def __init__(self) -> None:
        super().__init__()
        self.inner: AdapterBase | None = None

    @property
    def detected(self) -> str | None:
        """The detected format, None until a record told."""
        return None if self.inner is None else self.inner.format_name

    def feed(self, record: JsonObject, offset: int) -> list[Record]:
        """Detect on the first telling record, then delegate."""
        inner = self.inner or self._detect(record)
        if inner is None:
            return [SkippedLine(offset=offset, reason=NO_KNOWN_FORMAT)]
        return inner.feed(record, offset)

    def feed_line(self, line: bytes, offset: int, end: int | None = None) -> list[Record]:
        """Detect on the first telling record, then delegate the line itself."""
        inner = self.inner
        if inner is None:
            obj = object_of_line(line, offset, end=end)
            if isinstance(obj, SkippedLine):
                return [obj]
            inner = self._detect(obj)
            if inner is None:
                return [SkippedLine(offset=offset, reason=NO_KNOWN_FORMAT)]
        return inner.feed_line(line, offset, end)

    def _detect(self, record: JsonObject) -> AdapterBase | None:
        """The adapter of the format ``record`` tells, from now on; None if it tells none."""
        fmt = classify_object(record)
        if fmt is None:
            return None
        self.inner = _ADAPTERS[fmt]()
        return self.inner

    def finish(self) -> list[Record]:
        """Delegate."""
        return [] if self.inner is None else self.inner.finish()

    def snapshot(self) -> JsonObject:
        """The inner adapter's snapshot wrapped with the ``auto`` marker."""
        return {
            "format": "auto",
            "version": 1,
            "inner": None if self.inner is None else self.inner.snapshot(),
        }

    @classmethod
    def restore(cls, state: JsonObject) -> AutoAdapter:
        """Restore the wrapper and, when detection had happened, its inner adapter."""
        if not isinstance(state, dict) or state.get("format") != "auto" or "inner" not in state:
            raise SnapshotError("not an auto adapter snapshot")
        adapter = cls()
        inner = state["inner"]
        if inner is not None:
            if not isinstance(inner, dict) or inner.get("format") == "auto":
                raise SnapshotError("auto adapter snapshot has an invalid inner adapter")
            adapter.inner = restore_adapter(inner)
        return adapter


def read_transcript(
    source: Source, format: str = "auto", *, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Record]:
    """Every record of a transcript in any supported format, as native events and skips.

    ``format`` is ``auto`` (detect), ``native``, ``claude-code`` or ``codex``. A missing or
    unreadable file is a :class:`TranscriptError` and an unknown format a
    :class:`ConfigError`; nothing in the file's content raises.
    """
    check_source("source", source)
    check_argument("max_line_bytes", max_line_bytes, int)
    return _records(source, make_adapter(format), max_line_bytes)


def _records(source: Source, adapter: AdapterBase, max_line_bytes: int) -> Iterator[Record]:
    with open_source(source) as stream:
        items = iter_line_items(stream, max_line_bytes=max_line_bytes)
        reader = adapter
        if isinstance(adapter, AutoAdapter):
            yield from _until_detected(adapter, items)
            # Detection is done: from here the wrapper would only delegate, on every line.
            reader = adapter.inner or adapter
        yield from reader.records(items)
    yield from adapter.finish()


def _until_detected(adapter: AutoAdapter, items: Iterator[LineItem]) -> Iterator[Record]:
    """Feed ``items`` to ``adapter`` up to and including the record that tells the format."""
    for offset, item, end in items:
        if isinstance(item, SkippedLine):
            yield item
            continue
        yield from adapter.feed_line(item, offset, end)
        if adapter.inner is not None:
            return
