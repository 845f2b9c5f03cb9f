"""What every format adapter shares: the adapter protocol, event building, small helpers.

An adapter turns one decoded JSON object of a foreign transcript (with the byte offset of
its line) into zero or more native records. It never raises for content: a record it
cannot use becomes a :class:`SkippedLine` with the reason. Its state is small, bounded,
JSON-serialisable (``snapshot``) and restorable (``restore``), so a tailer can persist it
next to the deriver snapshot and resume after a restart.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import ClassVar, Final, Protocol, TypeVar

import orjson

from session_memory.core.errors import SnapshotError
from session_memory.core.events import JsonObject, Record, SkippedLine, TranscriptEvent
from session_memory.core.outcome import ELIDED, ToolOutcome, outcome_payload
from session_memory.formats.names import FormatName
from session_memory.formats.outcomes import ResultMarkers, result_outcome
from session_memory.formats.reader import LineItem, object_of_line

__all__ = [
    "MAX_OPEN_CALLS",
    "MAX_TEXT_CHARS",
    "Adapter",
    "AdapterBase",
    "FormatName",
    "cap_text",
]


MAX_TEXT_CHARS: Final = 16 * 1024
"""Tool output and message text longer than this keep their head and tail only."""

MAX_OPEN_CALLS: Final = 512
"""Open tool calls remembered per adapter; the oldest is forgotten beyond this."""

_TAIL_CHARS: Final = 4 * 1024
_SNAPSHOT_VERSION: Final = 4
_BASE_STATE: Final = ("_step", "_session_id", "_run_id", "_cwd", "_git_branch", "_cwd_sent")
_CWD_EVENTS: Final = frozenset({"message", "state_transition"})

A = TypeVar("A", bound="AdapterBase")


class _Current:
    """Marker for "the adapter's current run id"."""


_CURRENT: Final = _Current()


class Adapter(Protocol):
    """The incremental interface every format adapter offers."""

    format_name: str

    def feed(self, record: JsonObject, offset: int) -> list[Record]:
        """Translate one decoded record (at byte ``offset``) into native records."""
        ...

    def feed_line(self, line: bytes, offset: int, end: int | None = None) -> list[Record]:
        """Decode one line (without its newline) and :meth:`feed` it."""
        ...

    def finish(self) -> list[Record]:
        """Release what is held back waiting for a later record (end of a complete read)."""
        ...

    def snapshot(self) -> JsonObject:
        """The adapter's state as a small JSON-serialisable object."""
        ...


def cap_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` if short enough, else its head and tail around an elision marker."""
    if len(text) <= limit:
        return text
    head = limit - _TAIL_CHARS
    dropped = len(text) - head - _TAIL_CHARS
    return f"{text[:head]}\n[... {dropped}{ELIDED}\n{text[-_TAIL_CHARS:]}"


def as_str(value: object) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def as_dict(value: object) -> JsonObject | None:
    """``value`` if it is a JSON object, else None."""
    return value if isinstance(value, dict) else None


def as_int(value: object) -> int | None:
    """``value`` if it is an integer (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class AdapterBase:
    """Event building, the step counter, line decoding and snapshot plumbing.

    Subclasses list the attribute names that make up their state in ``_STATE``; every one
    must hold JSON-serialisable values.
    """

    format_name: ClassVar[str] = ""
    result_markers: ClassVar[ResultMarkers] = ResultMarkers()
    """How this format's completed results say the call did not succeed."""
    _STATE: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self._step = 0
        self._session_id: str | None = None
        self._run_id: str | None = None
        self._cwd: str | None = None
        """The session's working directory as the format last stated it."""
        self._git_branch: str | None = None
        """The git branch the format last stated the working directory is on."""
        self._cwd_sent: list[str | None] | None = None
        """[run id, cwd, git branch] of the last event that carried ``payload["cwd"]``."""

    # -- the protocol -------------------------------------------------------------------

    def feed(self, record: JsonObject, offset: int) -> list[Record]:
        """Translate one decoded record; never raises for its content."""
        out: list[Record] = []
        try:
            self._feed(record, offset, out)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # A safety net, not a code path: the property tests assert it is never taken.
            out.append(SkippedLine(offset=offset, reason=f"internal error: {type(exc).__name__}"))
        return out

    def feed_line(self, line: bytes, offset: int, end: int | None = None) -> list[Record]:
        """Decode one line (without its newline) and feed it.

        ``end`` is the offset after the line when it is the last of a whole stream and has no
        newline: a skip then says the line is incomplete (see :func:`object_of_line`).
        """
        obj = object_of_line(line, offset, end=end)
        return [obj] if isinstance(obj, SkippedLine) else self.feed(obj, offset)

    def records(self, items: Iterable[LineItem]) -> Iterator[Record]:
        """The records of a stream's lines, in order: a skip as it is, a line as
        :meth:`feed_line` reads it (without :meth:`finish`)."""
        feed = self.feed_line
        for offset, item, end in items:
            if isinstance(item, SkippedLine):
                yield item
            else:
                yield from feed(item, offset, end)

    def finish(self) -> list[Record]:
        """Release held-back output; the default holds nothing back."""
        return []

    def snapshot(self) -> JsonObject:
        """The adapter state: format, version and the attributes named in ``_STATE``.

        A deep copy (through JSON, which it must survive anyway): an adapter restored from
        it shares nothing with this one, so either can go on without touching the other.
        """
        state: JsonObject = {"format": self.format_name, "version": _SNAPSHOT_VERSION}
        for name in (*_BASE_STATE, *self._STATE):
            state[name.lstrip("_")] = getattr(self, name)
        copied: JsonObject = orjson.loads(orjson.dumps(state))
        return copied

    @classmethod
    def restore(cls: type[A], state: JsonObject) -> A:
        """An adapter in the state :meth:`snapshot` returned; :class:`SnapshotError` if unusable."""
        if not isinstance(state, dict) or state.get("format") != cls.format_name:
            raise SnapshotError(f"not a {cls.format_name} adapter snapshot")
        if state.get("version") != _SNAPSHOT_VERSION:
            raise SnapshotError(f"unsupported adapter snapshot version {state.get('version')!r}")
        adapter = cls()
        for name in (*_BASE_STATE, *cls._STATE):
            key = name.lstrip("_")
            if key not in state:
                raise SnapshotError(f"adapter snapshot lacks {key!r}")
            default = getattr(adapter, name)
            value = state[key]
            if default is not None and value is not None and type(value) is not type(default):
                raise SnapshotError(f"adapter snapshot field {key!r} has the wrong type")
            setattr(adapter, name, value)
        if not adapter._state_is_valid():
            raise SnapshotError(f"{cls.format_name} adapter snapshot is inconsistent")
        return adapter

    def _state_is_valid(self) -> bool:
        """Whether restored state has the shapes the adapter relies on."""
        sent = self._cwd_sent
        return (
            isinstance(self._step, int)
            and all(
                v is None or isinstance(v, str)
                for v in (self._session_id, self._run_id, self._cwd, self._git_branch)
            )
            and (
                sent is None
                or (len(sent) == 3 and all(v is None or isinstance(v, str) for v in sent))
            )
        )

    # -- for subclasses -----------------------------------------------------------------

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        raise NotImplementedError

    def _event(
        self,
        event_id: str,
        event_type: str,
        payload: JsonObject,
        timestamp: str | None,
        run_id: str | _Current | None = _CURRENT,
    ) -> TranscriptEvent:
        step = self._step
        self._step += 1
        run = self._run_id if isinstance(run_id, _Current) else run_id
        if event_type in _CWD_EVENTS and self._cwd is not None:
            # The working-directory contract (docs/formats.md): the first message or state
            # transition of a run carries the session's cwd (and its git branch, when the
            # format states one), and again whenever it changes.
            sent = [run, self._cwd, self._git_branch]
            if sent != self._cwd_sent:
                payload = {**payload, "cwd": self._cwd}
                if self._git_branch:
                    payload["git_branch"] = self._git_branch
                self._cwd_sent = sent
        return TranscriptEvent(
            event_id=event_id,
            event_type=event_type,
            payload=payload,
            timestamp=timestamp,
            session_id=self._session_id,
            run_id=run,
            step=step,
        )

    def _tool_call(
        self,
        out: list[Record],
        id_prefix: str,
        name: str,
        call_id: str,
        args: JsonObject,
        timestamp: str | None,
        open_calls: dict[str, list[str | None]],
    ) -> None:
        """Emit ``requested`` and ``started`` for a call and remember it as open."""
        base: JsonObject = {"tool_name": name, "tool_call_id": call_id, "args": args}
        out.append(
            self._event(
                f"{id_prefix}:requested",
                "tool_lifecycle",
                {**base, "status": "requested"},
                timestamp,
            )
        )
        out.append(
            self._event(
                f"{id_prefix}:started", "tool_lifecycle", {**base, "status": "started"}, timestamp
            )
        )
        open_calls[call_id] = [name, self._run_id]
        while len(open_calls) > MAX_OPEN_CALLS:
            del open_calls[next(iter(open_calls))]

    def _tool_end(
        self,
        out: list[Record],
        id_prefix: str,
        call_id: str,
        entry: list[str | None],
        *,
        failed: bool,
        text: str,
        timestamp: str | None,
        exit_code: int | None = None,
        extra: JsonObject | None = None,
        outcome: ToolOutcome | None = None,
    ) -> None:
        """Emit ``completed`` or ``failed`` for an open call (``entry`` = [name, run_id]), as
        the event ``{id_prefix}:{status}``, with the outcome :attr:`result_markers` make of
        ``text`` in its ``outcome`` field (or ``outcome`` when the adapter knows it)."""
        name, run_id = entry
        if outcome is None:
            outcome = result_outcome(
                self.result_markers, failed=failed, text=cap_text(text), exit_code=exit_code
            )
        else:
            outcome = replace(
                outcome, output=cap_text(outcome.output), error=cap_text(outcome.error)
            )
        status = "failed" if outcome.status in ("failed", "stale") else "completed"
        payload: JsonObject = {
            "tool_name": name or "unknown",
            "tool_call_id": call_id,
            "status": status,
            "outcome": outcome_payload(outcome),
        }
        if extra:
            payload.update(extra)
        out.append(
            self._event(
                f"{id_prefix}:{status}", "tool_lifecycle", payload, timestamp, run_id=run_id
            )
        )


def join_texts(parts: Iterable[str]) -> str:
    """Non-blank parts joined by blank lines."""
    return "\n\n".join(p.strip() for p in parts if p.strip())
