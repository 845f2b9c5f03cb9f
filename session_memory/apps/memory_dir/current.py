"""The current memory of one transcript, through the state that ``watch`` keeps.

A *memory directory* is laid out exactly as ``session-memory watch --out DIR`` lays it out:
the outputs ``DIR/<name>.memory.json`` and ``.memory.md``, and the per-transcript state
(deriver snapshot, byte offset, prefix fingerprint, file identity) in
``DIR/.session-memory-state/``. :func:`current_memory` reads the outputs as they are when the
state says they cover the whole file; otherwise a one-shot :class:`MemoryService` folds only
the bytes appended since the state's offset (or the whole file, the first time), writes state
and outputs, and the outputs are read then. A ``watch`` running on the same directory keeps it
current, and callers such as the hook then only read two small files.

The cheap path touches no tokenizer and no deriver: it imports the service (and with it
the deriver, the tokenizer and watchfiles) only when there are bytes to fold.
"""

from __future__ import annotations

import json
import os

from session_memory.apps.memory_dir.state import (
    TranscriptState,
    fingerprint,
    load_state,
    memory_hash,
    read_published,
    state_file_name,
)
from session_memory.apps.memory_dir.writes import StrPath
from session_memory.core.errors import StateError, TranscriptError
from session_memory.core.startup import NamedTuple
from session_memory.core.tokens import DEFAULT_BUDGET, DEFAULT_ENCODING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "DEFAULT_BUDGET",
    "STATE_DIR_ENV",
    "CurrentMemory",
    "current_memory",
    "default_memory_dir",
    "read_current_memory",
    "state_dir_of",
]

STATE_DIR_ENV: Final = "SESSION_MEMORY_STATE_DIR"
"""Environment variable that overrides the default memory directory."""


TRANSCRIPT_FORMAT: Final = "auto"
"""The format ``watch`` uses by default; state derived with another one is not shared."""

# Kept equal to service.DEFAULT_STATE_DIRNAME without importing the service (and watchfiles).
_STATE_DIRNAME: Final = ".session-memory-state"


class CurrentMemory(NamedTuple):
    """The rendered memory of a transcript as of its last complete line.

    ``tokens`` is the exact token count of ``markdown`` (the memory's ``tokens_used``);
    ``markdown`` is empty when the transcript holds nothing worth remembering yet.
    ``folded`` says whether new bytes had to be read (False: the state was current).
    """

    transcript: str
    markdown: str
    tokens: int
    session_id: str | None
    budget_tokens: int
    folded: bool

    @property
    def is_empty(self) -> bool:
        return not self.markdown


def default_memory_dir() -> str:
    """``$SESSION_MEMORY_STATE_DIR``, else ``$XDG_CACHE_HOME/session-memory``, else
    ``~/.cache/session-memory``."""
    override = os.environ.get(STATE_DIR_ENV)
    if override:
        return os.path.expanduser(override)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "session-memory")


def state_dir_of(memory_dir: StrPath) -> str:
    """Where the per-transcript state lives inside a memory directory."""
    return os.path.join(memory_dir, _STATE_DIRNAME)


def current_memory(
    transcript: str | os.PathLike[str],
    memory_dir: StrPath,
    *,
    budget_tokens: int = DEFAULT_BUDGET,
    encoding: str = DEFAULT_ENCODING,
) -> CurrentMemory:
    """The memory of ``transcript``, reading only what was appended since the last call.

    Raises :class:`TranscriptError` when the transcript is missing or unreadable, and
    :class:`ConfigError` for an impossible budget or an unusable memory directory.
    """
    found = read_current_memory(
        transcript, memory_dir, budget_tokens=budget_tokens, encoding=encoding
    )
    if found is not None:
        return found
    real = os.path.realpath(transcript)
    from pathlib import Path

    from session_memory.apps.service import MemoryService

    MemoryService(
        [real],
        Path(memory_dir),
        Path(state_dir_of(memory_dir)),
        budget_tokens=budget_tokens,
        encoding=encoding,
        format=TRANSCRIPT_FORMAT,
    ).run_once()
    found = _read_current(real, memory_dir, budget_tokens, encoding, require_current=False)
    if found is not None:
        return CurrentMemory(
            found.transcript, found.markdown, found.tokens, found.session_id, budget_tokens, True
        )
    # Nothing written: an empty transcript (or one with no complete line yet).
    return CurrentMemory(real, "", 0, None, budget_tokens, True)


def read_current_memory(
    transcript: str | os.PathLike[str],
    memory_dir: StrPath,
    *,
    budget_tokens: int = DEFAULT_BUDGET,
    encoding: str = DEFAULT_ENCODING,
) -> CurrentMemory | None:
    """The memory of ``transcript`` if its state is current, else None; never derives.

    The cheap half of :func:`current_memory`: it imports and writes nothing. Raises
    :class:`TranscriptError` when the transcript is missing or not a regular file.
    """
    real = os.path.realpath(transcript)
    if not os.path.isfile(real):
        raise TranscriptError(f"no such transcript: {os.fspath(transcript)}")
    return _read_current(real, memory_dir, budget_tokens, encoding, require_current=True)


def _read_current(
    real: str, memory_dir: StrPath, budget_tokens: int, encoding: str, *, require_current: bool
) -> CurrentMemory | None:
    """The outputs named by the transcript's state, when they can be trusted as they are.

    Both files are read from one published generation (:func:`read_published`), so the
    Markdown and the JSON header always belong to the same memory. ``require_current``: the
    state must cover the file to its end (same identity, same prefix fingerprint, offset =
    size) and the published JSON must be the memory the state was saved with (its hash):
    outputs published since by another transcript that claimed the same name are not this
    one's.
    """
    spath = state_file_name(state_dir_of(memory_dir), real)
    try:
        state = load_state(spath)
    except StateError:
        return None
    if (state.path, state.budget_tokens, state.encoding, state.transcript_format) != (
        real,
        budget_tokens,
        encoding,
        TRANSCRIPT_FORMAT,
    ) or state.name is None:
        return None
    try:
        if require_current and not _covers(real, state):
            return None
        pair = read_published(memory_dir, state.name)
        if pair is None or (require_current and memory_hash(pair.json) != state.memory_hash):
            return None
        markdown = pair.markdown.decode("utf-8")
        header = json.loads(pair.json)
    except (OSError, ValueError):  # ValueError: not UTF-8, or not JSON
        return None
    if not isinstance(header, dict):
        return None
    tokens = header.get("tokens_used")
    session = header.get("session_id")
    if not isinstance(tokens, int):
        return None
    return CurrentMemory(
        real,
        markdown,
        tokens,
        session if isinstance(session, str) else None,
        budget_tokens,
        False,
    )


def _covers(real: str, state: TranscriptState) -> bool:
    """Whether the state has consumed the whole file."""
    fd = os.open(real, os.O_RDONLY)
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino, st.st_size) != (state.dev, state.ino, state.offset):
            return False
        return not state.offset or fingerprint(fd, state.offset) == state.fingerprint
    finally:
        os.close(fd)
