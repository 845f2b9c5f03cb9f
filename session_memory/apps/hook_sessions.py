"""What ``session-memory hook`` remembers of each session, in ``<memory dir>/.hook-sessions/``.

Per session, one small JSON file: its client, working directory and transcript, and the
digest of the memory last injected into it. A UserPromptSubmit injects the memory only when
it differs from that digest; a SessionStart after ``/clear`` finds the previous session of
the same directory here (:func:`previous_session`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

from session_memory.apps.memory_dir.state import compact_json, safe_name
from session_memory.apps.memory_dir.writes import StrPath, atomic_write, ensure_private_dir
from session_memory.core.startup import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "SESSIONS_DIRNAME",
    "SessionRecord",
    "load_record",
    "previous_session",
    "record_path",
    "save_record",
]

SESSIONS_DIRNAME: Final = ".hook-sessions"


class SessionRecord(NamedTuple):
    """What the hook remembers of a session: where it runs, and what it last injected."""

    session_id: str
    client: str
    cwd: str | None
    transcript: str | None
    injected: str | None

    def to_json(self) -> bytes:
        return compact_json(
            {
                "session_id": self.session_id,
                "client": self.client,
                "cwd": self.cwd,
                "transcript": self.transcript,
                "injected": self.injected,
            }
        )


def _sessions_dir(memory_dir: StrPath) -> str:
    return os.path.join(memory_dir, SESSIONS_DIRNAME)


def record_path(memory_dir: StrPath, session_id: str) -> str:
    """The file of a session's record."""
    return os.path.join(_sessions_dir(memory_dir), f"{safe_name(session_id)}.json")


def load_record(path: str) -> SessionRecord | None:
    """The record in ``path``; None when there is none, or none that can be read."""
    try:
        with open(path, "rb") as f:
            obj = json.loads(f.read())
    except (OSError, ValueError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("session_id"), str):
        return None

    def text(key: str) -> str | None:
        value = obj.get(key)
        return value if isinstance(value, str) else None

    return SessionRecord(
        session_id=obj["session_id"],
        client=text("client") or "",
        cwd=text("cwd"),
        transcript=text("transcript"),
        injected=text("injected"),
    )


def _iter_records(memory_dir: StrPath) -> Iterator[SessionRecord]:
    try:
        entries = list(os.scandir(_sessions_dir(memory_dir)))
    except OSError:
        return
    for entry in entries:
        if entry.name.endswith(".json"):
            record = load_record(entry.path)
            if record is not None:
                yield record


def save_record(memory_dir: StrPath, record: SessionRecord, previous: SessionRecord | None) -> None:
    """Write ``record`` unless it is ``previous`` (the record read at the start of the call)."""
    if record == previous:
        return
    ensure_private_dir(_sessions_dir(memory_dir))
    atomic_write(record_path(memory_dir, record.session_id), record.to_json())


def previous_session(
    memory_dir: StrPath, session_id: str | None, cwd: str | None, claude_transcript: str | None
) -> str | None:
    """The transcript of the most recently written other session of the same ``cwd``.

    Candidates are the sessions this hook has seen with that cwd and, for a Claude Code
    session (``claude_transcript``, its new transcript), the other transcripts of the
    project directory (one per cwd) that transcript is in.
    """
    candidates: set[str] = set()
    for record in _iter_records(memory_dir):
        if (
            record.session_id != session_id
            and cwd is not None
            and record.cwd == cwd
            and record.transcript
        ):
            candidates.add(os.path.realpath(record.transcript))
    if claude_transcript:
        project = os.path.dirname(claude_transcript)
        own = os.path.realpath(claude_transcript)
        try:
            entries = list(os.scandir(project))
        except OSError:
            entries = []
        for entry in entries:
            if entry.name.endswith(".jsonl") and entry.is_file():
                candidates.add(os.path.realpath(entry.path))
        candidates.discard(own)
    best: tuple[int, str] | None = None
    for path in candidates:
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            continue
        if best is None or (mtime, path) > best:
            best = (mtime, path)
    return None if best is None else best[1]
