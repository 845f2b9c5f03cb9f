"""The sessions a memory directory knows, and where an item's events are in its transcript.

A memory directory (``watch --out DIR``, the hook's state directory) holds one state file per
transcript, naming the transcript and its outputs. :func:`known_sessions` lists them with
their working directory (from the hook's records, else from the transcript's first records).
:func:`locate_events` reads a transcript once, through the same adapters, and returns the
byte offset of the line each event came from: the deriver keeps event ids, not offsets, so
offsets are resolved on demand instead of being carried in every item.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

from session_memory.apps.memory_dir.current import state_dir_of
from session_memory.apps.memory_dir.outputs import StateError, load_state
from session_memory.core.events import SkippedLine, TranscriptEvent
from session_memory.formats import make_adapter
from session_memory.formats.reader import iter_objects

__all__ = ["KnownSession", "known_sessions", "locate_events", "transcript_cwd"]

_HOOK_SESSIONS: Final = ".hook-sessions"
_CWD_PROBE_BYTES: Final = 256 * 1024


@dataclass(frozen=True, slots=True)
class KnownSession:
    """One transcript the memory directory keeps a memory for."""

    session_id: str
    name: str
    transcript: str
    cwd: str | None
    updated: float
    """Modification time of the transcript (seconds since the epoch), 0 when it is gone."""


def known_sessions(memory_dir: Path) -> list[KnownSession]:
    """Every session with a memory in ``memory_dir``, most recently written first."""
    hook_cwds = _hook_cwds(memory_dir)
    found: list[KnownSession] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(state_dir_of(memory_dir)):
            if not entry.name.endswith(".state"):
                continue
            try:
                state = load_state(Path(entry.path))
            except StateError:
                continue
            if state.name is None:
                continue
            session = _session_id(memory_dir, state.name)
            try:
                updated = os.stat(state.path).st_mtime
            except OSError:
                updated = 0.0
            cwd = hook_cwds.get(state.path) or transcript_cwd(state.path)
            found.append(KnownSession(session, state.name, state.path, cwd, updated))
    found.sort(key=lambda s: (-s.updated, s.name))
    return found


def _session_id(memory_dir: Path, name: str) -> str:
    try:
        header = orjson.loads((memory_dir / f"{name}.memory.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return name
    session = header.get("session_id") if isinstance(header, dict) else None
    return session if isinstance(session, str) and session else name


def _hook_cwds(memory_dir: Path) -> dict[str, str]:
    """Transcript (real path) -> cwd, from what the hook was told."""
    cwds: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir(memory_dir / _HOOK_SESSIONS):
            try:
                record = orjson.loads(Path(entry.path).read_bytes())
            except (OSError, orjson.JSONDecodeError):
                continue
            if not isinstance(record, dict):
                continue
            transcript, cwd = record.get("transcript"), record.get("cwd")
            if isinstance(transcript, str) and isinstance(cwd, str):
                cwds[os.path.realpath(transcript)] = cwd
    return cwds


def transcript_cwd(path: str) -> str | None:
    """The working directory a transcript records near its start (Claude Code records carry
    ``cwd``; a Codex rollout's ``session_meta`` has it in its payload)."""
    try:
        with open(path, "rb") as f:
            head = f.read(_CWD_PROBE_BYTES)
    except OSError:
        return None
    for line in head.split(b"\n")[:200]:
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            continue
        payload = obj.get("payload")
        for holder in (obj, payload if isinstance(payload, dict) else {}):
            cwd = holder.get("cwd")
            if isinstance(cwd, str) and cwd:
                return cwd
    return None


def locate_events(transcript: str, event_ids: Iterable[str]) -> dict[str, int]:
    """Byte offset of the transcript line each of ``event_ids`` came from (the ids found)."""
    wanted = set(event_ids)
    found: dict[str, int] = {}
    if not wanted:
        return found
    adapter = make_adapter("auto")
    with open(transcript, "rb") as stream:
        for offset, obj in iter_objects(stream):
            if isinstance(obj, SkippedLine):
                continue
            for record in adapter.feed(obj, offset):
                if isinstance(record, TranscriptEvent) and record.event_id in wanted:
                    found.setdefault(record.event_id, offset)
            if len(found) == len(wanted):
                break
    # Records an adapter held back until the end (a final answer) come from the last lines.
    for record in adapter.finish():
        if isinstance(record, TranscriptEvent) and record.event_id in wanted:
            found.setdefault(record.event_id, -1)
    return found
