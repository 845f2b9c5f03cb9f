"""The background service: keep a memory next to every live transcript (DESIGN section 7).

:class:`MemoryService` tails transcripts (files, or directories watched recursively for
``*.jsonl``), folds each new complete line into that transcript's deriver, and keeps
``<out>/<session>.memory.json`` and ``<out>/<session>.memory.md`` current.

Crash safety rests on one rule: the *state file* of a transcript holds the deriver snapshot
and the byte offset it has consumed, written together in one atomic replace, so a snapshot
and an offset can never disagree. Outputs are derived from that state and written before it;
on start each transcript's outputs are compared with its restored memory and rewritten when
they differ. Killed at any instant, the service restarts from the last state, reads only the
bytes after its offset, and ends with exactly what a full rebuild gives: nothing lost,
nothing applied twice (no reliance on the deriver dropping duplicate event ids).

Naming: a session's outputs are named after the ``session_id`` of its events (sanitised by
:func:`session_memory.store.safe_name`), else after the transcript's file name, decided when
its memory is first written and then kept in its state. When two transcripts claim the same
name, the one that claimed it first keeps it and the other gets ``-<8 hex>`` of the hash of
its path appended, so both memories are kept and the choice survives restarts.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from deriver import SessionMemoryDeriver
from session_memory.errors import ConfigError, SessionMemoryError, StateError, TranscriptError
from session_memory.formats import AdapterBase, AutoAdapter, make_adapter, restore_adapter
from session_memory.memory import SessionMemory, SkippedLine
from session_memory.store import (
    TranscriptState,
    atomic_write,
    ensure_private_dir,
    fsync_dir,
    load_state,
    safe_name,
    save_state,
    state_path,
)
from session_memory.tail import (
    SWEEP_SECONDS,
    FileIdentity,
    FileTail,
    StopEvent,
    TailStatus,
    discover_transcripts,
    resolves_inside,
    watch_changes,
)
from session_memory.tokens import DEFAULT_ENCODING
from viewbuilder import render_memory

__all__ = ["DEFAULT_STATE_DIRNAME", "MemoryService", "ServiceSummary", "output_paths"]

logger = logging.getLogger(__name__)

DEFAULT_STATE_DIRNAME: Final = ".session-memory-state"
"""The state directory, inside the output directory unless one is given."""

JSON_SUFFIX: Final = ".memory.json"
MD_SUFFIX: Final = ".memory.md"
SKIPS_LOGGED: Final = 10


def output_paths(out_dir: Path, name: str) -> tuple[Path, Path]:
    """The ``.memory.json`` and ``.memory.md`` of a session name inside ``out_dir``."""
    return out_dir / f"{name}{JSON_SUFFIX}", out_dir / f"{name}{MD_SUFFIX}"


@dataclass(frozen=True, slots=True)
class ServiceSummary:
    """What a pass over the transcripts did."""

    transcripts: int
    events: int
    skipped: int
    outputs_written: int


@dataclass(slots=True)
class _Transcript:
    """One tailed transcript and everything the service knows about it."""

    path: str
    tail: FileTail
    deriver: SessionMemoryDeriver
    adapter: AdapterBase
    name: str | None = None
    outputs_stale: bool = True
    state_stale: bool = False
    on_disk: dict[Path, bytes | None] = field(default_factory=dict)  # outputs as written
    events_read: int = 0
    lines_skipped: int = 0


class MemoryService:
    """Tail transcripts and keep their session memories on disk, crash-safe.

    ``paths`` are transcript files or directories (watched recursively for ``*.jsonl``;
    files that appear later are picked up). Outputs go to ``out_dir``; state to
    ``state_dir`` (default ``out_dir/.session-memory-state``). Both are created mode 0o700,
    every file in them 0o600. ``stop_event`` (anything with ``is_set()``) ends :meth:`run`;
    without one, call :meth:`stop`.
    """

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        out_dir: str | os.PathLike[str],
        state_dir: str | os.PathLike[str] | None = None,
        *,
        budget_tokens: int = 1200,
        encoding: str = DEFAULT_ENCODING,
        format: str = "auto",
        stop_event: StopEvent | None = None,
        sweep_seconds: float = SWEEP_SECONDS,
        force_polling: bool | None = None,
    ) -> None:
        if not paths:
            raise ConfigError("nothing to watch: give at least one transcript or directory")
        self._dirs: list[str] = []
        self._files: list[str] = []
        for p in paths:
            absolute = os.path.abspath(p)
            if os.path.isdir(absolute):
                self._dirs.append(absolute)
            elif os.path.isfile(absolute):
                self._files.append(absolute)
            else:
                raise ConfigError(f"no such transcript or directory: {os.fspath(p)}")
        self._dir_reals = [os.path.realpath(d) for d in self._dirs]
        # Fail at construction on an impossible budget, an unknown encoding or format.
        SessionMemoryDeriver(budget_tokens=budget_tokens, encoding=encoding)
        make_adapter(format)
        self.budget_tokens = budget_tokens
        self.encoding = encoding
        self.format = format
        self.out_dir = Path(out_dir).absolute()
        self.state_dir = (
            Path(state_dir).absolute() if state_dir else self.out_dir / DEFAULT_STATE_DIRNAME
        )
        try:
            ensure_private_dir(self.out_dir)
            ensure_private_dir(self.state_dir)
        except OSError as exc:
            raise ConfigError(f"cannot create output or state directory: {exc}") from exc
        self._stop: StopEvent = stop_event if stop_event is not None else threading.Event()
        self._own_stop = self._stop if isinstance(self._stop, threading.Event) else None
        self._sweep_seconds = sweep_seconds
        self._force_polling = force_polling
        self._transcripts: dict[str, _Transcript] = {}
        self._aliases: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._outputs_written = 0

    # ------------------------------------------------------------------ public API

    def stop(self) -> None:
        """Ask :meth:`run` to finish (only when the service made its own stop event)."""
        if self._own_stop is None:
            raise ConfigError("this service was given a stop event: set that one")
        self._own_stop.set()

    def run_once(self) -> ServiceSummary:
        """Derive everything present now, write outputs and state, and return."""
        self._discover()
        for t in list(self._transcripts.values()):
            if self._stop.is_set():
                break
            self._advance(t)
        return self._summary()

    def run(self) -> ServiceSummary:
        """Catch up, then follow every transcript until the stop event is set.

        State is written after every change, so stopping needs no extra flush: each
        transcript's state and outputs are complete when this returns.
        """
        self.run_once()
        watched = self._dirs + self._files
        logger.info(
            "watching %d transcript(s) under %s", len(self._transcripts), ", ".join(watched)
        )
        last_sweep = time.monotonic()
        for changes in watch_changes(
            watched,
            stop_event=self._stop,
            sweep_seconds=self._sweep_seconds,
            force_polling=self._force_polling,
        ):
            for path in sorted(changes):
                if self._stop.is_set():
                    break
                self._on_change(path)
            # The slow timer runs whatever the notifications do, so a missed notification
            # (or a steady stream of them about other files) delays a file by one sweep at most.
            if time.monotonic() - last_sweep >= self._sweep_seconds:
                self._sweep()
                last_sweep = time.monotonic()
        logger.info("stopped; state and outputs are up to date")
        return self._summary()

    # ------------------------------------------------------------------ discovery

    def _discover(self) -> None:
        """Find transcripts; load every state before any name is claimed anew."""
        found: list[str] = list(self._files)
        for root in self._dirs:
            found.extend(discover_transcripts(root))
        for path in found:
            self._add(path)

    def _add(self, path: str) -> _Transcript | None:
        real = os.path.realpath(path)
        self._aliases[path] = real
        if real in self._transcripts:
            return None
        t = self._load(real)
        self._transcripts[real] = t
        logger.info(
            "tailing %s from byte %d%s",
            real,
            t.tail.offset,
            f" (session {t.name})" if t.name else "",
        )
        return t

    def _load(self, real: str) -> _Transcript:
        fresh = _Transcript(
            path=real,
            tail=FileTail(real),
            deriver=SessionMemoryDeriver(budget_tokens=self.budget_tokens, encoding=self.encoding),
            adapter=make_adapter(self.format),
        )
        spath = state_path(self.state_dir, real)
        if not spath.exists():
            return fresh
        try:
            state = load_state(spath)
            if state.path != real:
                raise StateError(f"state {spath} belongs to {state.path}")
            if (state.budget_tokens, state.encoding, state.transcript_format) != (
                self.budget_tokens,
                self.encoding,
                self.format,
            ):
                raise StateError("state was derived with another budget, encoding or format")
            deriver = SessionMemoryDeriver.restore(state.snapshot)
            adapter = (
                make_adapter(self.format)
                if state.adapter is None
                else restore_adapter(state.adapter)
            )
        except SessionMemoryError as exc:
            logger.warning("rebuilding %s from scratch: %s", real, exc)
            return fresh
        if state.name is not None:
            self._names.setdefault(state.name, real)
        return _Transcript(
            path=real,
            tail=FileTail(
                real, state.offset, state.fingerprint, FileIdentity(state.dev, state.ino)
            ),
            deriver=deriver,
            adapter=adapter,
            name=state.name,
        )

    def _on_change(self, path: str) -> None:
        real = self._aliases.get(path)
        if real is None:
            if not self._eligible(path):
                return
            t = self._add(path)
            if t is None:
                return
        else:
            t = self._transcripts.get(real)
            if t is None:
                return
        self._advance(t)

    def _eligible(self, path: str) -> bool:
        """A new file under a watched directory, resolving inside it (symlinks included)."""
        for root, real_root in zip(self._dirs, self._dir_reals, strict=True):
            if os.path.commonpath([path, root]) == root and resolves_inside(path, real_root):
                return not os.path.basename(path).startswith(".")
        return False

    def _sweep(self) -> None:
        """The slow timer: pick up missed files and compare every size with its offset."""
        found = [f for f in self._files if os.path.isfile(f)]
        for root in self._dirs:
            found.extend(discover_transcripts(root))
        for path in found:
            if path not in self._aliases:
                t = self._add(path)
                if t is not None:
                    self._advance(t)
        for t in list(self._transcripts.values()):
            if self._stop.is_set():
                return
            self._advance(t, verify=False)

    # ------------------------------------------------------------------ the work

    def _advance(self, t: _Transcript, *, verify: bool = True) -> None:
        """Fold the new complete lines of one transcript, then write outputs, then state."""
        try:
            status = t.tail.check(verify=verify)
        except TranscriptError as exc:
            logger.warning("cannot check %s: %s", t.path, exc)
            return
        if status is TailStatus.DELETED:
            self._forget(t)
            return
        if status is TailStatus.REPLACED:
            logger.info("%s shrank or was rewritten; deriving it again from the start", t.path)
            t.tail = FileTail(t.path)
            t.deriver = SessionMemoryDeriver(
                budget_tokens=self.budget_tokens, encoding=self.encoding
            )
            t.adapter = make_adapter(self.format)
            t.outputs_stale = t.state_stale = True
        elif status is TailStatus.UNCHANGED:
            # Nothing new to read; a restored transcript still has its outputs reconciled.
            self._publish(t)
            return
        before = t.tail.offset
        try:
            for line in t.tail.read(self._stop):
                item = line.item
                records = (
                    [item] if isinstance(item, SkippedLine) else t.adapter.feed(item, line.offset)
                )
                for record in records:
                    if isinstance(record, SkippedLine):
                        t.deriver.record_skip(record)
                        t.lines_skipped += 1
                        self._log_skip(t, record)
                    else:
                        t.deriver.apply(record)
                        t.events_read += 1
        except TranscriptError as exc:
            # Whatever was folded before the error is consistent with tail.offset: keep it.
            logger.warning("reading %s stopped: %s", t.path, exc)
        if t.tail.offset != before:
            t.outputs_stale = t.state_stale = True
        self._publish(t)

    def _log_skip(self, t: _Transcript, record: SkippedLine) -> None:
        # Every skip is counted in the memory's diagnostics; the log names the first few
        # per transcript so a file of garbage cannot flood it.
        if t.lines_skipped <= SKIPS_LOGGED:
            logger.info("skipped line at byte %d of %s: %s", record.offset, t.path, record.reason)
            if t.lines_skipped == SKIPS_LOGGED:
                logger.info("further skipped lines of %s are logged at debug level", t.path)
        else:
            logger.debug("skipped line at byte %d of %s: %s", record.offset, t.path, record.reason)

    def _publish(self, t: _Transcript) -> None:
        """Write the outputs if the memory changed, then the state if anything was read.

        A failed write (disk full, permissions) is logged and retried on the next change or
        sweep; it leaves the previous outputs and state in place, which stay consistent.
        """
        try:
            if t.outputs_stale and t.tail.offset > 0 and _format_told(t.adapter):
                self._write_outputs(t)
            t.outputs_stale = False
            if t.state_stale:
                self._save(t)
        except OSError as exc:
            logger.error("cannot write the memory of %s: %s", t.path, exc)

    def _write_outputs(self, t: _Transcript) -> None:
        """Write each output whose bytes differ from what is on disk.

        The JSON carries bookkeeping (``event_count``, diagnostics) that changes with every
        line; the Markdown only when the content does. Both are compared byte for byte.
        """
        if t.name is None:
            t.name = self._claim_name(t)
        json_path, md_path = output_paths(self.out_dir, t.name)
        memory = _memory_so_far(t)
        wrote = False
        for path, data in (
            (md_path, render_memory(memory).encode()),
            (json_path, memory.to_json()),
        ):
            if path not in t.on_disk:
                t.on_disk[path] = _read_or_none(path)
            if data != t.on_disk[path]:
                atomic_write(path, data, sync_dir=False)
                t.on_disk[path] = data
                wrote = True
        if wrote:
            fsync_dir(self.out_dir)
            self._outputs_written += 1

    def _save(self, t: _Transcript) -> None:
        identity = t.tail.identity
        fingerprint = t.tail.fingerprint
        if identity is None or fingerprint is None:
            return  # nothing was read yet: nothing to resume from
        save_state(
            self.state_dir,
            TranscriptState(
                path=t.path,
                dev=identity.dev,
                ino=identity.ino,
                offset=t.tail.offset,
                fingerprint=fingerprint,
                name=t.name,
                budget_tokens=self.budget_tokens,
                encoding=self.encoding,
                snapshot=t.deriver.snapshot(),
                transcript_format=self.format,
                adapter=t.adapter.snapshot(),
            ),
        )
        t.state_stale = False

    def _claim_name(self, t: _Transcript) -> str:
        session = t.deriver.memory.session_id
        base = safe_name(session) if session else safe_name(Path(t.path).stem)
        owner = self._names.get(base)
        if owner is not None and owner != t.path:
            digest = hashlib.sha256(t.path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
            base = safe_name(f"{base}-{digest}")
            logger.info("session name taken by %s; writing %s as %s", owner, t.path, base)
        self._names.setdefault(base, t.path)
        return base

    def _forget(self, t: _Transcript) -> None:
        """A deleted transcript: stop tailing it, keep its outputs, drop its state."""
        logger.info("%s was deleted; stopped tailing it, its outputs are kept", t.path)
        del self._transcripts[t.path]
        for alias in [a for a, real in self._aliases.items() if real == t.path]:
            del self._aliases[alias]
        with contextlib.suppress(FileNotFoundError):
            state_path(self.state_dir, t.path).unlink()

    def _summary(self) -> ServiceSummary:
        ts = self._transcripts.values()
        return ServiceSummary(
            transcripts=len(self._transcripts),
            events=sum(t.events_read for t in ts),
            skipped=sum(t.lines_skipped for t in ts),
            outputs_written=self._outputs_written,
        )


def _format_told(adapter: AdapterBase) -> bool:
    """Whether some record told the transcript's format (no memory for a file of none)."""
    return not isinstance(adapter, AutoAdapter) or adapter.detected is not None


def _memory_so_far(t: _Transcript) -> SessionMemory:
    """The memory a full read of the transcript as it stands gives.

    An adapter may hold a record back until a later one says what it was (Claude Code's
    last assistant text is a final answer only if the turn then ends); a complete read
    releases it at the end of the file. The outputs show it released, computed on copies,
    while the tailed adapter and deriver keep waiting for the next line.
    """
    held = restore_adapter(t.adapter.snapshot()).finish()
    if not held:
        return t.deriver.memory
    copy = SessionMemoryDeriver.restore(t.deriver.snapshot())
    copy.apply_all(held)
    return copy.memory


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
