"""One session's fold state as the worker holds it, and as it is stored in the state bucket.

The stored value is one JSON line of bookkeeping (the log position the snapshot covers,
the last record position applied per source file, the records held back) followed by the
deriver snapshot as it is: the two are written together in one revision-checked write,
so a snapshot and the position it covers can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import orjson

from deriver import SessionMemoryDeriver
from session_memory.apps.distributed.wire import Decoded, Position, record_object, record_of
from session_memory.core.errors import SnapshotError
from session_memory.core.events import Record, SkippedLine
from session_memory.core.memory import SessionMemory

__all__ = ["STATE_FORMAT", "SessionState", "load_session", "memory_of"]

STATE_FORMAT: Final = 1


@dataclass(slots=True)
class SessionState:
    """A session being folded: deriver, covered position, and what the buckets hold."""

    key: str
    deriver: SessionMemoryDeriver
    seq: int = 0
    """The last log position applied."""
    sources: dict[str, Position] = field(default_factory=dict)
    held: list[Record] = field(default_factory=list)
    state_rev: int | None = None
    stored_seq: int = 0
    """The position the stored state covers (``seq`` once flushed)."""
    memory: dict[str, tuple[bytes | None, int | None]] = field(default_factory=dict)
    """Per memory key: the bytes stored and their revision (None: absent)."""
    rendered_version: int | None = None
    """The deriver version the stored Markdown was rendered at (None: render again)."""
    touched: float = 0.0

    @property
    def dirty(self) -> bool:
        return self.seq != self.stored_seq

    def apply(self, seq: int, decoded: Decoded | SkippedLine) -> int:
        """Fold one message at log position ``seq``; how many records it folded.

        A message at or before the position already covered folds nothing (0); a held-back
        list replaces the previous one and folds nothing either.
        """
        if seq <= self.seq:
            return 0
        self.seq = seq
        if isinstance(decoded, SkippedLine):
            self.deriver.record_skip(decoded)
            return 1
        if decoded.held:
            self.held = decoded.records
            return 0
        if decoded.src is None or decoded.positions is None:
            self.held = []
            self._fold(decoded.records)
            return len(decoded.records)
        last = self.sources.get(decoded.src)
        fresh = [
            (record, pos)
            for record, pos in zip(decoded.records, decoded.positions, strict=True)
            if last is None or pos > last
        ]
        if fresh:
            # Records at or before the last position applied were published again.
            self.sources[decoded.src] = fresh[-1][1]
            self.held = []
            self._fold([record for record, _pos in fresh])
        return len(fresh)

    def _fold(self, records: list[Record]) -> None:
        for record in records:
            if isinstance(record, SkippedLine):
                self.deriver.record_skip(record)
            else:
                self.deriver.apply(record)

    def dump(self) -> bytes:
        """The stored form: bookkeeping line, newline, deriver snapshot."""
        meta = {
            "format": STATE_FORMAT,
            "seq": self.seq,
            "sources": self.sources,
            "held": [record_object(r) for r in self.held],
        }
        return orjson.dumps(meta) + b"\n" + self.deriver.snapshot()


def load_session(key: str, data: bytes, revision: int) -> SessionState:
    """A session restored from its stored state; :class:`SnapshotError` if unusable."""
    head, sep, snapshot = data.partition(b"\n")
    try:
        meta = orjson.loads(head)
        if not sep or not isinstance(meta, dict) or meta.get("format") != STATE_FORMAT:
            raise SnapshotError("not a session state of a known format")
        deriver = SessionMemoryDeriver.restore(snapshot)
        seq = int(meta["seq"])
        sources = {str(s): (int(p[0]), int(p[1])) for s, p in meta["sources"].items()}
        held: list[Record] = [record_of(r) for r in meta["held"]]
    except SnapshotError:
        raise
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise SnapshotError(f"session state is corrupt: {exc}") from exc
    return SessionState(
        key=key,
        deriver=deriver,
        seq=seq,
        sources=sources,
        held=held,
        state_rev=revision,
        stored_seq=seq,
    )


def memory_of(state: SessionState) -> SessionMemory:
    """The memory a complete read gives: held records shown released, on a copy."""
    if not state.held:
        return state.deriver.memory
    copy = SessionMemoryDeriver.restore(state.deriver.snapshot())
    copy.apply_all(state.held)
    return copy.memory
