"""Reading native JSONL transcripts: bytes in, events and counted skips out.

The reader takes a path or a binary file object (so tests feed it ``io.BytesIO``); a path to a
zstd-compressed file (Codex rewrites week-old rollouts as ``rollout-*.jsonl.zst``) is read
decompressed, whatever its name. It never
raises for the content of a transcript: every line that is not a valid event becomes a
:class:`SkippedLine` with its byte offset and the reason. Memory stays bounded by
``max_line_bytes`` whatever the input: an over-long line is discarded while it streams past.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import IO, Final, TypeAlias, cast

import orjson

from session_memory.core.arguments import check_argument, check_source
from session_memory.core.errors import ConfigError, TranscriptError
from session_memory.core.events import (
    JsonObject,
    Record,
    SkippedLine,
    TranscriptEvent,
    event_from_object,
)

__all__ = [
    "MAX_LINE_BYTES",
    "ZSTD_MAGIC",
    "LineItem",
    "Source",
    "iter_line_items",
    "iter_lines",
    "iter_objects",
    "object_of_line",
    "open_source",
    "read_events",
    "read_records",
    "too_long",
    "zstd_stream",
]

MAX_LINE_BYTES: Final = 8 * 1024 * 1024
"""Lines longer than this are skipped unread; the reader holds at most this plus one chunk."""

_CHUNK: Final = 1024 * 1024
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
"""The first four bytes of a zstd frame."""

Source = str | os.PathLike[str] | IO[bytes]
LineItem: TypeAlias = "tuple[int, bytes | SkippedLine, int]"
"""A whole stream's line as :func:`iter_line_items` yields it: ``(offset, line or skip, end)``."""


def object_of_line(
    line: bytes | None, offset: int, max_line_bytes: int = MAX_LINE_BYTES, end: int | None = None
) -> JsonObject | SkippedLine:
    """What one line from :func:`iter_lines` holds: a JSON object, or why it is skipped.

    The one mapping from lines to objects, shared by reading a whole file, tailing one and
    feeding an adapter line by line, so that they all see the same records. ``line`` is
    None for a line longer than ``max_line_bytes``. ``end`` (the offset after the line, when
    reading a whole stream) tells a last line without its newline, whose skip says so.
    """
    # The common line is one JSON object: it is decoded once, without the calls that explain
    # a skip.
    if line:
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
        else:
            if type(obj) is dict:
                return obj
    return _skipped(line, offset, max_line_bytes, end)


def too_long(offset: int, max_line_bytes: int) -> SkippedLine:
    """The skip of a line longer than ``max_line_bytes`` (:func:`iter_lines` gives None)."""
    return SkippedLine(offset=offset, reason=f"line longer than {max_line_bytes} bytes")


def _skipped(line: bytes | None, offset: int, max_line_bytes: int, end: int | None) -> SkippedLine:
    """Why a line that is not one JSON object is skipped."""
    if line is None:
        return too_long(offset, max_line_bytes)
    skip = SkippedLine(offset=offset, reason=_reason(line))
    if end == offset + len(line):
        skip = SkippedLine(offset=offset, reason=f"incomplete last line: {skip.reason}")
    return skip


def _reason(line: bytes) -> str:
    if not line.strip():
        return "blank line"
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return f"not valid JSON: {_first_line(str(exc))}"
    return f"not a JSON object but {type(obj).__name__}"


def iter_lines(
    stream: IO[bytes],
    start: int = 0,
    *,
    final_partial: bool = True,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[tuple[int, bytes | None, int]]:
    """Yield ``(offset, line, end)`` for each line of ``stream`` read from ``start``.

    ``line`` excludes the newline; it is ``None`` for a line longer than ``max_line_bytes``,
    which is discarded as it streams past. ``end`` is the offset just after the line. With
    ``final_partial`` false, a last line without a newline is not yielded (a tailer waits
    for its newline); with it true it is yielded as it is.
    """
    buf = b""
    buf_start = start
    line_start = start
    oversized = False
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        if oversized:
            nl = chunk.find(b"\n")
            if nl < 0:
                buf_start += len(chunk)
                continue
            end = buf_start + nl + 1
            yield line_start, None, end
            oversized = False
            chunk = chunk[nl + 1 :]
            buf_start = end
        # One split per chunk: the lines are cut in C, not by a find and a slice each.
        lines = (buf + chunk).split(b"\n")
        buf = lines.pop()
        for line in lines:
            end = buf_start + len(line) + 1
            yield buf_start, line if len(line) <= max_line_bytes else None, end
            buf_start = end
        if len(buf) > max_line_bytes:
            line_start = buf_start
            oversized = True
            buf_start += len(buf)
            buf = b""
    if final_partial:
        if oversized:
            yield line_start, None, buf_start
        elif buf:
            yield buf_start, buf, buf_start + len(buf)


@contextlib.contextmanager
def open_source(source: Source) -> Iterator[IO[bytes]]:
    """A binary stream for a path or an open binary file; OSError becomes TranscriptError."""
    if not isinstance(source, str | os.PathLike):
        yield source
        return
    try:
        stream = open(source, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise TranscriptError(
            f"cannot read transcript {os.fspath(source)!r}: {exc.strerror}"
        ) from exc
    with stream:
        try:
            compressed = stream.read(4) == ZSTD_MAGIC
            stream.seek(0)
        except OSError as exc:
            raise TranscriptError(
                f"cannot read transcript {os.fspath(source)!r}: {exc.strerror}"
            ) from exc
        if not compressed:
            yield stream
            return
        yield zstd_stream(stream)


def zstd_stream(stream: IO[bytes]) -> IO[bytes]:
    """``stream`` (zstd data, one frame or more) read decompressed; only ``read`` is offered.

    Corrupt data, or data that ends inside a frame, raises ``OSError`` on the read that finds
    it, like a read error (:func:`iter_objects` makes it a :class:`TranscriptError`).
    """
    return cast(IO[bytes], _Zstd(stream))


class _Zstd:
    """A zstd file read decompressed, frame after frame. Corrupt data, or a file that ends
    inside a frame (truncated), is an ``OSError`` like a read error."""

    _INPUT: Final = 64 * 1024

    def __init__(self, stream: IO[bytes]) -> None:
        import zstandard  # only for compressed files: ~30 ms of start-up otherwise

        self._zstd = zstandard
        self._stream = stream
        self._frame = zstandard.ZstdDecompressor().decompressobj()
        self._started = False
        """Whether the current frame has had input (a file may end only between frames)."""

    def read(self, size: int = -1) -> bytes:
        while True:
            data = self._stream.read(self._INPUT)
            if not data:
                if self._started and not self._frame.eof:
                    raise OSError("truncated zstd data")
                return b""
            if out := self._decompress(data):
                return out

    def _decompress(self, data: bytes) -> bytes:
        parts: list[bytes] = []
        try:
            while data:
                if self._frame.eof:
                    self._frame = self._zstd.ZstdDecompressor().decompressobj()
                self._started = True
                parts.append(self._frame.decompress(data))
                data = self._frame.unused_data if self._frame.eof else b""
        except self._zstd.ZstdError as exc:
            raise OSError(f"corrupt zstd data: {exc}") from exc
        return b"".join(parts)

    def __enter__(self) -> _Zstd:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def iter_line_items(
    stream: IO[bytes], *, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[LineItem]:
    """Yield ``(offset, line or skip, end)`` for every line of a whole stream.

    A line longer than ``max_line_bytes`` is a skip here; any other is left for its reader
    to decode (an adapter's ``feed_line``, with ``end``). A read error is a
    :class:`TranscriptError`.
    """
    try:
        for offset, line, end in iter_lines(stream, max_line_bytes=max_line_bytes):
            yield (
                offset,
                too_long(offset, max_line_bytes) if line is None else line,
                end,
            )
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript: {exc}") from exc


def iter_objects(
    stream: IO[bytes], *, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, JsonObject | SkippedLine]]:
    """Yield ``(offset, object or skip)`` for every line of a whole stream.

    Blank lines are skipped and counted like any other line that is not an event; a read
    error is a :class:`TranscriptError`.
    """
    for offset, item, end in iter_line_items(stream, max_line_bytes=max_line_bytes):
        yield (
            offset,
            item if isinstance(item, SkippedLine) else object_of_line(item, offset, end=end),
        )


def read_records(source: Source, *, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[Record]:
    """Yield every line of a native transcript as an event or a skip, in order.

    A missing or unreadable file is a :class:`TranscriptError`; nothing in the file's
    content raises.
    """
    check_source("source", source)
    check_argument("max_line_bytes", max_line_bytes, int)
    # iter_objects unrolled: a generator less between the file and the fold, on every line.
    with open_source(source) as stream:
        try:
            for offset, line, end in iter_lines(stream, max_line_bytes=max_line_bytes):
                obj = object_of_line(line, offset, max_line_bytes, end)
                yield event_from_object(obj, offset) if isinstance(obj, dict) else obj
        except OSError as exc:
            raise TranscriptError(f"cannot read transcript: {exc}") from exc


def read_events(
    source: Source, on_skip: Callable[[SkippedLine], None] | None = None
) -> Iterator[TranscriptEvent]:
    """Yield the events of a transcript; each skipped line goes to ``on_skip``."""
    if on_skip is not None and not callable(on_skip):
        raise ConfigError(f"on_skip must be a function or None, not {type(on_skip).__name__}")
    for record in read_records(source):
        if isinstance(record, SkippedLine):
            if on_skip is not None:
                on_skip(record)
        else:
            yield record


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]
