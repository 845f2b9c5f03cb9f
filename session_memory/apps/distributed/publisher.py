"""Putting events on the log: :class:`Publisher` for agents, :class:`FilePublisher` for files.

:class:`FilePublisher` tails transcripts of any format with the same tailer and adapters as
``watch`` and publishes every record to its session's subject. It is restart-safe the same
way: per file it stores the byte offset, prefix fingerprint and adapter state, after the
records up to that offset were acknowledged. Records published again after a restart carry
the same de-duplication id (the log drops them) and the same position (a worker drops them
even after the log's window has passed).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
import os
import threading
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import orjson

from session_memory.apps.distributed.transport import Outgoing, Transport, TransportError
from session_memory.apps.distributed.wire import (
    Position,
    encode_batch,
    encode_held,
    encode_positioned,
    encode_record,
    session_key,
    source_id,
)
from session_memory.apps.memory_dir.outputs import atomic_write, ensure_private_dir
from session_memory.apps.tail import (
    SWEEP_SECONDS,
    FileIdentity,
    FileTail,
    Tailed,
    TailStatus,
    discover_transcripts,
    watch_changes,
)
from session_memory.core.errors import ConfigError, SessionMemoryError, TranscriptError
from session_memory.core.events import Record, SkippedLine, TranscriptEvent, event_from_object
from session_memory.formats import AdapterBase, make_adapter, restore_adapter

__all__ = ["DEFAULT_STATE_DIR", "FilePublisher", "PublishSummary", "Publisher"]

logger = logging.getLogger(__name__)

DEFAULT_STATE_DIR: Final = ".session-memory-publish-state"
LINES_PER_PUBLISH: Final = 5000
"""Lines read before their records are published and the offset stored."""

RECORDS_PER_MESSAGE: Final = 100
"""Records of one file sent in one message (see :mod:`.wire`)."""

MAX_MESSAGE_BYTES: Final = 512 * 1024
"""Bytes of one message, well under the server's default 1 MiB payload limit."""

_STATE_FORMAT: Final = 1


class Publisher:
    """Publishes native events of a session, for agents that emit events directly.

    The de-duplication id of an event is its session and ``event_id``: publishing an event
    again within the log's window stores nothing; later, the worker's deriver ignores it.
    """

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    async def publish(
        self, session: str, events: Iterable[TranscriptEvent | Mapping[str, Any]]
    ) -> int:
        """Publish events of ``session`` in order; returns how many were sent.

        Raises :class:`TranscriptError` for a mapping that is not a valid event (nothing of
        the batch is sent then) and :class:`TransportError` when acks do not come.
        """
        key = session_key(session)
        out: list[Outgoing] = []
        for event in events:
            record = _as_event(event)
            out.append(Outgoing(key, encode_record(record), f"{key}:{record.event_id}"))
        await self.transport.publish(out)
        return len(out)


def _as_event(event: TranscriptEvent | Mapping[str, Any]) -> TranscriptEvent:
    if isinstance(event, TranscriptEvent):
        return event
    record = event_from_object(dict(event), -1)
    if isinstance(record, SkippedLine):
        raise TranscriptError(f"not an event: {record.reason}")
    return record


class _Batches:
    """Records of one source cut into messages of bounded count and size."""

    def __init__(self, session: str, src: str) -> None:
        self.session = session
        self.src = src
        self.out: list[Outgoing] = []
        self._parts: list[bytes] = []
        self._first: Position | None = None
        self._last: Position = (0, 0)
        self._size = 0
        self.records = 0

    def add(self, record: Record, pos: Position) -> None:
        self.records += 1
        part = encode_positioned(record, pos)
        if len(part) > MAX_MESSAGE_BYTES:
            # Larger than the log takes in one message: counted as skipped, never stuck.
            reason = f"event too large for the log ({len(part)} bytes)"
            part = encode_positioned(SkippedLine(offset=pos[0], reason=reason), pos)
        if self._parts and (
            len(self._parts) >= RECORDS_PER_MESSAGE or self._size + len(part) > MAX_MESSAGE_BYTES
        ):
            self._cut()
        if self._first is None:
            self._first = pos
        self._parts.append(part)
        self._last = pos
        self._size += len(part) + 1

    def _cut(self) -> None:
        first, last = self._first, self._last
        assert first is not None
        # The id names both ends: a batch cut longer after a restart is a new message,
        # and the worker drops the part of it that it already applied.
        dedup = f"{self.session}:{self.src}:{first[0]}.{first[1]}-{last[0]}.{last[1]}"
        self.out.append(Outgoing(self.session, encode_batch(self.src, self._parts), dedup))
        self._parts, self._first, self._size = [], None, 0

    def done(self) -> list[Outgoing]:
        if self._parts:
            self._cut()
        return self.out


@dataclass(frozen=True, slots=True)
class PublishSummary:
    """What a publisher did."""

    transcripts: int
    records: int


@dataclass(slots=True)
class _File:
    path: str
    session: str
    tail: FileTail
    adapter: AdapterBase
    """A fold adapter (``make_adapter``): a native line is read straight to an event."""
    generation: int = 0
    held_sent: str | None = None
    """Digest of the held records last published (None: nothing held was announced)."""

    @property
    def src(self) -> str:
        return source_id(f"{self.path}\0{self.generation}")


class FilePublisher:
    """Tail transcript files (or directories of them) and publish every record.

    A file's session is its name without ``.jsonl`` (Claude Code and Codex name their files
    after the session); ``stop`` (a ``threading.Event``) ends :meth:`run`.
    """

    def __init__(
        self,
        transport: Transport,
        paths: Sequence[str | os.PathLike[str]],
        state_dir: str | os.PathLike[str] = DEFAULT_STATE_DIR,
        *,
        format: str = "auto",
        stop: threading.Event | None = None,
        sweep_seconds: float = SWEEP_SECONDS,
    ) -> None:
        if not paths:
            raise ConfigError("nothing to publish: give at least one transcript or directory")
        make_adapter(format)
        self.transport = transport
        self.format = format
        self.state_dir = Path(state_dir).absolute()
        try:
            ensure_private_dir(self.state_dir)
        except OSError as exc:
            raise ConfigError(f"cannot create state directory: {exc}") from exc
        self._roots = [os.path.abspath(p) for p in paths]
        for root in self._roots:
            if not os.path.exists(root):
                raise ConfigError(f"no such transcript or directory: {root}")
        self.stop = stop if stop is not None else threading.Event()
        self._sweep_seconds = sweep_seconds
        self._files: dict[str, _File] = {}
        self._records = 0

    def _discover(self) -> None:
        for root in self._roots:
            # Compressed rollouts are not published: they are read whole, never tailed.
            found = discover_transcripts(root, compressed=False) if os.path.isdir(root) else [root]
            for path in found:
                real = os.path.realpath(path)
                if real not in self._files:
                    self._files[real] = self._load(real)

    def _state_path(self, path: str) -> Path:
        digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:24]
        return self.state_dir / f"{digest}.json"

    def _load(self, path: str) -> _File:
        session = session_key(Path(path).name.removesuffix(".jsonl"))
        fresh = _File(path, session, FileTail(path), make_adapter(self.format))
        try:
            data = orjson.loads(self._state_path(path).read_bytes())
            if data.get("format") != _STATE_FORMAT or data.get("path") != path:
                raise ValueError("state of another file or format")
            return _File(
                path,
                session,
                FileTail(
                    path,
                    int(data["offset"]),
                    data["fingerprint"],
                    FileIdentity(int(data["dev"]), int(data["ino"])),
                ),
                restore_adapter(data["adapter"]),
                int(data["generation"]),
                data["held_sent"],
            )
        except FileNotFoundError:
            return fresh
        except (OSError, ValueError, KeyError, TypeError, SessionMemoryError) as exc:
            logger.warning("publishing from the start", extra={"path": path, "error": str(exc)})
            return fresh

    def _save(self, f: _File) -> None:
        identity = f.tail.identity
        if identity is None or f.tail.fingerprint is None:
            return
        state = {
            "format": _STATE_FORMAT,
            "path": f.path,
            "offset": f.tail.offset,
            "fingerprint": f.tail.fingerprint,
            "dev": identity.dev,
            "ino": identity.ino,
            "adapter": f.adapter.snapshot(),
            "generation": f.generation,
            "held_sent": f.held_sent,
        }
        atomic_write(self._state_path(f.path), orjson.dumps(state), sync_dir=False)

    async def run_once(self) -> PublishSummary:
        """Publish everything present now, then return.

        Raises :class:`TransportError` when the log does not acknowledge; what was not
        acknowledged is read and published again by the next call.
        """
        self._discover()
        for f in list(self._files.values()):
            if self.stop.is_set():
                break
            try:
                await self._advance(f)
            except TransportError:
                # Back to the last acknowledged offset: nothing read since is lost.
                self._files[f.path] = self._load(f.path)
                raise
        return PublishSummary(len(self._files), self._records)

    async def run(self) -> PublishSummary:
        """Publish what is there, then follow every transcript until ``stop`` is set.

        While the log is unreachable, publishing is tried again every half second.
        """
        loop = asyncio.get_running_loop()
        changes: asyncio.Queue[set[str]] = asyncio.Queue()

        def watch() -> None:
            for found in watch_changes(
                self._roots, stop_event=self.stop, sweep_seconds=self._sweep_seconds
            ):
                loop.call_soon_threadsafe(changes.put_nowait, found)

        watcher = asyncio.create_task(asyncio.to_thread(watch))
        try:
            while not self.stop.is_set():
                # Notifications are hints: every round compares every file with its offset.
                try:
                    await self.run_once()
                except TransportError as exc:
                    logger.warning("publishing failed, retrying", extra={"error": str(exc)})
                    await asyncio.sleep(0.5)
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changes.get(), timeout=self._sweep_seconds)
        finally:
            self.stop.set()
            await watcher
        return PublishSummary(len(self._files), self._records)

    async def _advance(self, f: _File) -> None:
        try:
            status = f.tail.check()
        except TranscriptError as exc:
            logger.warning("cannot check transcript", extra={"path": f.path, "error": str(exc)})
            return
        if status is TailStatus.DELETED:
            del self._files[f.path]
            return
        if status is TailStatus.REPLACED:
            # The log is append-only: the rewritten file's records follow the old ones.
            logger.warning("transcript rewritten; publishing it again", extra={"path": f.path})
            f.tail = FileTail(f.path)
            f.adapter = make_adapter(self.format)
            f.generation += 1
            f.held_sent = None
        if status is TailStatus.UNCHANGED and (f.held_sent is not None or f.tail.offset > 0):
            return  # (a file that has published nothing yet is announced below)
        while not self.stop.is_set():
            lines, out, count = self._read(f)
            if not lines:
                break
            if out:
                await self.transport.publish(out)
                self._records += count
                f.held_sent = None
            self._save(f)
        await self._announce_held(f)

    def _read(self, f: _File) -> tuple[int, list[Outgoing], int]:
        """The messages of the next lines (at most :data:`LINES_PER_PUBLISH`), lines and records."""
        batches = _Batches(f.session, f.src)
        count = 0
        # One verified open per read: the prefix is checked on the descriptor read from.
        with f.tail.look() as look:
            lines = cast(Generator[Tailed, None, None], look.lines(self.stop))
            try:
                for line in itertools.islice(lines, LINES_PER_PUBLISH):
                    count += 1
                    item = line.item
                    records: list[Record] = (
                        [item]
                        if isinstance(item, SkippedLine)
                        else f.adapter.feed_line(item, line.offset, line.end)
                    )
                    for i, record in enumerate(records):
                        batches.add(record, (line.offset, i))
            except TranscriptError as exc:
                logger.warning("reading stopped", extra={"path": f.path, "error": str(exc)})
            finally:
                lines.close()
        return count, batches.done(), batches.records

    async def _announce_held(self, f: _File) -> None:
        """Tell the workers which records a complete read would release now, if that changed.

        A file that has published nothing yet is announced even when there are none, so that
        its session has the memory ``derive`` prints for it (an empty file's).
        """
        held = self._held(f)
        body = encode_held(held)
        digest = hashlib.blake2b(body, digest_size=8).hexdigest()
        if (not held and f.held_sent is None and f.tail.offset > 0) or digest == f.held_sent:
            return
        dedup = f"{f.session}:{f.src}:h:{f.tail.offset}:{digest}"
        await self.transport.publish([Outgoing(f.session, body, dedup)])
        f.held_sent = digest
        self._save(f)

    def _held(self, f: _File) -> list[Record]:
        """What a complete read of the file now gives after the records published: those of
        a last line without its newline (the tail waits for it, ``derive`` reads it as it
        is), then those the adapter holds back until a later line tells what they were."""
        adapter = restore_adapter(f.adapter.snapshot())
        try:
            with f.tail.look() as look:
                last = look.last_partial()
        except TranscriptError:
            last = None  # rewritten or gone: the next round reads it again
        records: list[Record] = []
        if last is not None:
            item = last.item
            if isinstance(item, SkippedLine):
                records.append(item)
            else:
                records += adapter.feed_line(item, last.offset, last.end)
        return records + adapter.finish()
