"""One transcript as the service holds it: in memory (:class:`Transcript`) or only on disk
(:class:`Dormant`); feeding it one line, and the memory it gives so far.

The service's own reads (:mod:`.update`), a restore from a state (:mod:`.restore`) and the
catch-up's worker processes (:mod:`.farm`) all fold through :func:`fold_line` and show
:func:`memory_so_far`, so each gives the bytes the others would.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.outputs import OutputPair
from session_memory.apps.tail import FileTail, Tailed
from session_memory.core.errors import SessionMemoryError, StateError
from session_memory.core.events import SkippedLine
from session_memory.core.memory import SessionMemory
from session_memory.formats import AdapterBase, AutoAdapter, restore_adapter

__all__ = ["DOUBT", "Dormant", "Transcript", "fold_line", "format_told", "memory_so_far"]

DOUBT: Final = (SessionMemoryError, ValueError, TypeError, KeyError, AttributeError, IndexError)
"""What restoring or first applying to a state that passed every check may still raise when
its snapshot was edited into something the deriver does not expect: reason to rebuild."""


@dataclass(slots=True)
class Transcript:
    """One tailed transcript in memory and everything the service knows about it."""

    path: str
    tail: FileTail
    deriver: SessionMemoryDeriver
    adapter: AdapterBase
    name: str | None = None
    outputs_stale: bool = True
    state_stale: bool = False
    published: OutputPair | None = None  # the pair known to be on disk
    outputs_synced: bool = False  # the published pair is known durable (fsynced)
    restored: bool = False  # resumed from a state, not yet proven by a line applied
    unreadable: bool = False  # a compressed file that cannot be decompressed: no memory
    events_read: int = 0
    lines_skipped: int = 0
    last_active: float = 0.0  # the clock when it last grew (or was derived, or woken)
    state_saved: float = -math.inf  # the clock when its state was last saved


@dataclass(slots=True)
class Dormant:
    """A transcript kept only on disk: its state file holds its memory, and this its tail's
    position, for the sweep's ``stat``; it is restored from the state when it changes.

    ``times``: the modification and change times a clean stop recorded of the file
    (:meth:`.Restorer.recorded`), which its first ``stat`` must find too."""

    tail: FileTail
    events_read: int = 0
    lines_skipped: int = 0
    times: tuple[int, int] | None = None


def fold_line(t: Transcript, line: Tailed) -> list[SkippedLine]:
    """Feed one line (or its skip) through the adapter into the deriver; the lines skipped
    (each counted in ``t.lines_skipped`` as it is recorded).

    A transcript restored from a state that fails on its first line raises
    :class:`StateError` (the state is doubted and the transcript rebuilt); one derived from
    scratch that fails is a bug, and the error goes up as it is.
    """
    skipped = []
    item = line.item
    try:
        records = (
            [item]
            if isinstance(item, SkippedLine)
            else t.adapter.feed_line(item, line.offset, line.end)
        )
        for record in records:
            if isinstance(record, SkippedLine):
                t.deriver.record_skip(record)
                t.lines_skipped += 1
                skipped.append(record)
            else:
                t.deriver.apply(record)
                t.events_read += 1
    except DOUBT as exc:
        if not t.restored:
            raise
        raise StateError(f"the restored state fails on the next line: {exc}") from exc
    t.restored = False
    return skipped


def memory_so_far(t: Transcript) -> SessionMemory:
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


def format_told(adapter: AdapterBase) -> bool:
    """Whether some record told the transcript's format (no memory for a file of none)."""
    return not isinstance(adapter, AutoAdapter) or adapter.detected is not None
