"""SessionMemoryDeriver: the deterministic fold from transcript events to session memory.

The fold reads no files, no clock and no environment. One handler per event type; each
handler first pulls what it needs out of the payload (tolerating any JSON shape) and only
then changes state. Rebuild is the same fold from the empty state.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

import msgspec
import orjson

from deriver.agent_text import quote_head_tail
from deriver.conclusions import earlier_message, widened
from deriver.rules import Rules
from deriver.store import Item, MemoryStore
from deriver.token_budget import TokenArithmetic
from session_memory.core.arguments import check_argument
from session_memory.core.errors import ConfigError, SnapshotError
from session_memory.core.events import Record, SkippedLine, TranscriptEvent, event_from_object
from session_memory.core.memory import MEMORY_SCHEMA_VERSION, Diagnostics, SessionMemory
from session_memory.core.tokens import DEFAULT_BUDGET, DEFAULT_ENCODING, counter

__all__ = ["SessionMemoryDeriver"]

SNAPSHOT_FORMAT: Final = 24
"""Version 24: the whole words of the newest earlier requests; version 23: whether the question
the agent's next words answer was typed into its running turn; version 22: the agent's last
message to its team, and how far the branch is behind its upstream; version 21: the paths git
add staged since the last commit; version 20: whether a call was
asked for since the last one finished; version 19: the key
decision the closing message the latest request followed became (shown where the session stands
instead); version 18: the last commit pushed and when (where the session stands shows it until
another is made), and the whole words of the newest closing messages kept as decisions; version
17: the closing message the latest request followed, and the forge's state as one entry; version
16: the steps of a plan's verification not seen taken, what each edit sent, and the last edit of
each file that failed; version 15: what each edit replaced, and the edits of each file changed
since it was last unchanged (an edit that undoes them leaves no change); version 14: the last
commit not pushed has no line of completed work (where the session stands shows it); version 13
keeps the session's first directory (files changed are named from it) and the parts of a failed
command line that worked since; version 12 the commits of other repositories the session worked
in and whether it changed anything; version 11 the branch the session made; version 9 the paths
git said it ignores; version 8 the tests each failed check listed and the failure just recorded
(a next one may join its line); version 7 the steps done that the agent later said were wrong;
version 6 the items evicted that may come back when the memory is read; version 3 where the
session stands. Any other version is refused: rebuild instead."""
_MAX_SKIPPED_KEPT: Final = 50
_MAX_UNKNOWN_TYPES_KEPT: Final = 50
# What parsing a payload of an unexpected shape can raise.
_MALFORMED: Final = (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError)


class SessionMemoryDeriver:
    """Keeps the session memory current, one transcript event at a time.

    ``budget_tokens`` bounds the exact token count of ``render_memory(self.memory)``;
    ``goal_tokens`` caps the current goal's block (default: a quarter of the budget, at
    most 400). ``dedup_window`` is how many recent event ids are remembered to ignore a
    re-delivered event; it bounds state independently of the transcript's length.
    """

    def __init__(
        self,
        budget_tokens: int = DEFAULT_BUDGET,
        encoding: str = DEFAULT_ENCODING,
        *,
        goal_tokens: int | None = None,
        dedup_window: int = 2048,
    ) -> None:
        check_argument("budget_tokens", budget_tokens, int)
        check_argument("encoding", encoding, str)
        check_argument("goal_tokens", goal_tokens, int, optional=True)
        check_argument("dedup_window", dedup_window, int)
        if goal_tokens is None:
            goal_tokens = max(24, min(400, budget_tokens // 4))
        if goal_tokens < 24:
            raise ConfigError(f"goal_tokens must be at least 24, not {goal_tokens}")
        if dedup_window < 1:
            raise ConfigError(f"dedup_window must be positive, not {dedup_window}")
        self._config = _Config(budget_tokens, encoding, goal_tokens, dedup_window)
        self._store = MemoryStore(TokenArithmetic(counter(encoding)), budget_tokens, goal_tokens)
        minimum = self._store.fixed_tokens_worst_case()
        if budget_tokens < minimum:
            raise ConfigError(
                f"a budget of {budget_tokens} tokens cannot hold the memory's fixed parts "
                f"(header, a goal of {goal_tokens} tokens, section markers): "
                f"use at least {minimum}"
            )
        # Where the session stands takes up to a quarter of the budget, never more than what
        # the fixed parts leave: the smallest budget allowed stays what it was.
        self._store.stands_cap = min(budget_tokens // 4, budget_tokens - minimum)
        self._rules = Rules(self._store)
        self._seen: set[str] = set()
        self._seen_order: deque[str] = deque()
        self._dedup_window = dedup_window
        self._event_count = 0
        self._last_event_id: str | None = None
        self._session_id: str | None = None
        self._version = 0
        self._diag = _DiagnosticsState()
        self._memory: SessionMemory | None = None
        """The memory as of the last change, built when first asked for."""
        self._handlers = self._rules.handlers

    # -- the fold -----------------------------------------------------------------------

    def apply(self, event: TranscriptEvent | Mapping[str, Any]) -> bool:
        """Apply one event; False when it was not applied (a duplicate or not an event).

        Never raises for any input: a mapping that is not a valid event is counted as a
        skipped line (offset -1), a payload of an unexpected shape is counted as malformed.
        """
        if type(event) is not TranscriptEvent:
            checked = self._as_event(event)
            if checked is None:
                return False
            event = checked
        event_id = event.event_id
        run_id = event.run_id
        session_id = event.session_id
        if not (
            event_id.isascii()
            and (run_id is None or run_id.isascii())
            and (session_id is None or session_id.isascii())
        ):
            event = _without_surrogates(event)
            event_id, session_id = event.event_id, event.session_id
        seen = self._seen
        if event_id in seen:
            self._diag.duplicate_events += 1
            self._memory = None
            return False
        # Remember the id: a set for membership, a deque for age (dropping the oldest key of
        # an insertion-ordered dict instead would scan its deleted slots on every event).
        seen.add(event_id)
        seen_order = self._seen_order
        seen_order.append(event_id)
        if len(seen_order) > self._dedup_window:
            seen.discard(seen_order.popleft())
        self._event_count += 1
        self._last_event_id = event_id
        if self._session_id is None and session_id:
            self._session_id = session_id
        if event.unknown_fields:
            self._diag.events_with_unknown_fields += 1
        self._memory = None
        event_type = event.event_type
        handler = self._handlers.get(event_type)
        if handler is None:
            self._count_unknown_type(event_type)
            return True
        try:
            parsed = handler.parse(event)
        except _MALFORMED:
            # Parsing is pure: a payload it cannot read leaves the memory as it was.
            self._diag.malformed_payloads += 1
            return True
        if parsed is None:
            return True  # it says nothing to the memory (parsing is pure): it still fits
        if handler.apply(parsed):
            self._version += 1
        # After every event applied, whatever its handler says it changed: the budget holds
        # by construction (a handler that changed where the session stands and said it
        # changed nothing once left the memory over it).
        self._store.fit()
        return True

    def _as_event(self, event: object) -> TranscriptEvent | None:
        """``event`` as an event (a mapping is checked into one); None, and the skip
        counted, when it is not an event."""
        if isinstance(event, TranscriptEvent):
            return event
        record = event_from_object(dict(event), -1) if isinstance(event, Mapping) else None
        if isinstance(record, TranscriptEvent):
            return record
        self.record_skip(
            record
            if isinstance(record, SkippedLine)
            else SkippedLine(offset=-1, reason="not an event object")
        )
        return None

    def record_skip(self, skip: SkippedLine) -> None:
        """Count a transcript line that could not be applied, keeping the first few."""
        self._diag.lines_skipped += 1
        kept = self._diag.skipped
        if len(kept) < _MAX_SKIPPED_KEPT:
            kept.append(skip)
        self._memory = None

    def apply_all(self, records: Iterable[Record | Mapping[str, Any]]) -> int:
        """Apply events and record skips in order; returns how many events were applied."""
        applied = 0
        for record in records:
            if isinstance(record, SkippedLine):
                self.record_skip(record)
            elif self.apply(record):
                applied += 1
        return applied

    @classmethod
    def rebuild(
        cls, records: Iterable[Record | Mapping[str, Any]], **config: Any
    ) -> SessionMemoryDeriver:
        """A new deriver with every record applied: the same fold from the empty state."""
        deriver = cls(**config)
        deriver.apply_all(records)
        return deriver

    def _count_unknown_type(self, event_type: str) -> None:
        counts = self._diag.unknown_event_types
        if event_type in counts or len(counts) < _MAX_UNKNOWN_TYPES_KEPT:
            counts[event_type] = counts.get(event_type, 0) + 1
        else:
            counts["(other)"] = counts.get("(other)", 0) + 1

    # -- views --------------------------------------------------------------------------

    @property
    def version(self) -> int:
        """Increases whenever the content of the memory may have changed."""
        return self._version

    @property
    def event_count(self) -> int:
        return self._event_count

    @property
    def session_id(self) -> str | None:
        return self._session_id

    @property
    def budget_tokens(self) -> int:
        return self._store.budget_tokens

    @property
    def memory(self) -> SessionMemory:
        """The memory as a frozen :class:`SessionMemory`, built on demand and kept until the
        next change."""
        if self._memory is None:
            self._memory = self._build_memory()
        return self._memory

    def _build_memory(self) -> SessionMemory:
        store = self._store
        sections = {name: self._rules.ordered(name) for name in store.sections}
        diag = self._diag
        stands, used = store.stands, store.total_tokens()
        # Evicted items come back into the room the memory has now (they lost it at the
        # fold's tightest moment); then the last message, when cut to its share, takes what
        # is left.
        back, back_tokens = store.returned(store.budget_tokens - used)
        used += back_tokens
        omitted, omitted_kinds = dict(store.omitted), dict(store.omitted_kinds)
        for item in back:
            _insert_in_order(sections[item.section], item)
            omitted[item.section] -= 1
            omitted_kinds[item.kind] -= 1
        wider = self._rules.stands.widened(store.budget_tokens - used)
        if wider is not None:
            item = store.stands_item(*wider)
            used += item.body_tokens - stands[0].body_tokens
            stands = [item, *stands[1:]]
        # The closing message the latest request followed is where the session stands: kept
        # as a key decision, its line there makes room for it.
        kept, decisions = self._rules.stands.previous_kept, sections["key_decisions"]
        rest = [item for item in decisions if item.text != kept] if kept else decisions
        left_out = omitted.get("key_decisions", 0)
        freed = store.shown_cost("key_decisions", decisions, left_out) - store.shown_cost(
            "key_decisions", rest, left_out
        )
        followed = self._rules.stands  # the closing message the latest request followed
        room = store.budget_tokens - used + freed
        earlier = earlier_message(store, followed.previous, followed.previous_stamp, room)
        if earlier is not None:
            sections["key_decisions"], used = rest, used - freed
            item = store.stands_item(*earlier)
            used += store.stands_cost([*stands, item]) - store.stands_cost(stands)
            stands = [*stands, item]
        # Then the newest closing messages kept as decisions say more, while room is left.
        sections["key_decisions"], taken = widened(
            store, sections["key_decisions"], self._rules.stands.whole, store.budget_tokens - used
        )
        used += taken
        # And the newest earlier requests, cut to their share when the fold kept them.
        sections["earlier_goals"], taken = widened(
            store, sections["earlier_goals"], store.requests, store.budget_tokens - used,
            quote_head_tail,
        )  # fmt: skip
        used += taken
        return SessionMemory(
            schema_version=MEMORY_SCHEMA_VERSION,
            session_id=self._session_id,
            current_goal=store.goal_item(),
            where_stands=tuple(i.frozen() for i in stands),
            earlier_goals=tuple(i.frozen() for i in sections["earlier_goals"]),
            todo_items=tuple(i.frozen() for i in sections["todo_items"]),
            completed_work=tuple(i.frozen() for i in sections["completed_work"]),
            key_decisions=tuple(i.frozen() for i in sections["key_decisions"]),
            failed_attempts=tuple(i.frozen() for i in sections["failed_attempts"]),
            verification_status=tuple(i.frozen() for i in sections["verification_status"]),
            omitted={s: n for s, n in sorted(omitted.items()) if n},
            omitted_kinds={k: n for k, n in sorted(omitted_kinds.items()) if n},
            event_count=self._event_count,
            last_event_id=self._last_event_id,
            version=self._version,
            budget_tokens=store.budget_tokens,
            encoding=self._config.encoding,
            tokens_used=used,
            diagnostics=Diagnostics(
                lines_skipped=diag.lines_skipped,
                skipped=tuple(diag.skipped),
                duplicate_events=diag.duplicate_events,
                unknown_event_types=dict(sorted(diag.unknown_event_types.items())),
                events_with_unknown_fields=diag.events_with_unknown_fields,
                malformed_payloads=diag.malformed_payloads,
            ),
        )

    # -- snapshots ----------------------------------------------------------------------

    def snapshot(self) -> bytes:
        """The whole fold state as bytes; :meth:`restore` continues exactly from here."""
        state = {
            "format": SNAPSHOT_FORMAT,
            "config": asdict(self._config),
            "seen": list(self._seen_order),
            "event_count": self._event_count,
            "last_event_id": self._last_event_id,
            "session_id": self._session_id,
            "version": self._version,
            "diagnostics": self._diag.to_state(),
            "store": self._store.to_state(),
            "rules": self._rules.to_state(),
        }
        return orjson.dumps(state)

    @classmethod
    def restore(cls, data: bytes) -> SessionMemoryDeriver:
        """A deriver in the state :meth:`snapshot` captured; SnapshotError if unusable."""
        check_argument("data", data, (bytes, bytearray, memoryview), error=SnapshotError)
        try:
            state = orjson.loads(data)
            if not isinstance(state, dict) or "format" not in state:
                raise SnapshotError("not a session-memory deriver snapshot")
            if state["format"] != SNAPSHOT_FORMAT:
                raise SnapshotError(
                    f"deriver snapshot of format {state['format']!r}, this version reads format "
                    f"{SNAPSHOT_FORMAT}: rebuild the memory from the transcript"
                )
            _check_snapshot_fields(state)
            deriver = cls(**state["config"])
            deriver._seen_order = deque(state["seen"])
            deriver._seen = set(deriver._seen_order)
            deriver._event_count = state["event_count"]
            deriver._last_event_id = state["last_event_id"]
            deriver._session_id = state["session_id"]
            deriver._version = state["version"]
            deriver._diag = _DiagnosticsState.from_state(state["diagnostics"])
            deriver._store.load_state(state["store"])
            deriver._rules.load_state(state["rules"])
        except SnapshotError:
            raise
        except (
            ConfigError,
            orjson.JSONDecodeError,
            KeyError,
            TypeError,
            ValueError,
            IndexError,
        ) as exc:
            raise SnapshotError(f"deriver snapshot is corrupt: {exc}") from exc
        return deriver


def _insert_in_order(items: list[Item], item: Item) -> None:
    """``item`` put back among a section's ``items``: before the first one written after it."""
    number = _item_number(item)
    at = next((i for i, shown in enumerate(items) if _item_number(shown) > number), len(items))
    items.insert(at, item)


def _item_number(item: Item) -> int:
    return int(item.id[1:])


_SNAPSHOT_FIELDS: Final[dict[str, tuple[tuple[type, ...], bool]]] = {
    "config": ((dict,), False),
    "seen": ((list,), False),
    "event_count": ((int,), False),
    "last_event_id": ((str,), True),
    "session_id": ((str,), True),
    "version": ((int,), False),
    "diagnostics": ((dict,), False),
    "store": ((dict,), False),
    "rules": ((dict,), False),
}


def _check_snapshot_fields(state: dict[str, Any]) -> None:
    """SnapshotError naming the first top-level field of a snapshot of the wrong type."""
    for name, (kinds, optional) in _SNAPSHOT_FIELDS.items():
        check_argument(
            f"snapshot field {name}", state[name], kinds, error=SnapshotError, optional=optional
        )
    for i, event_id in enumerate(state["seen"]):
        check_argument(f"snapshot field seen[{i}]", event_id, str, error=SnapshotError)


@dataclass(frozen=True, slots=True)
class _Config:
    """What the deriver was built with; a snapshot rebuilds the deriver from it."""

    budget_tokens: int
    encoding: str
    goal_tokens: int
    dedup_window: int


@dataclass(slots=True)
class _DiagnosticsState:
    """The running counts behind :class:`~session_memory.core.memory.Diagnostics`."""

    lines_skipped: int = 0
    skipped: list[SkippedLine] = field(default_factory=list)
    duplicate_events: int = 0
    unknown_event_types: dict[str, int] = field(default_factory=dict)
    events_with_unknown_fields: int = 0
    malformed_payloads: int = 0

    def to_state(self) -> dict[str, Any]:
        return {
            "lines_skipped": self.lines_skipped,
            "skipped": [{"offset": s.offset, "reason": s.reason} for s in self.skipped],
            "duplicate_events": self.duplicate_events,
            "unknown_event_types": self.unknown_event_types,
            "events_with_unknown_fields": self.events_with_unknown_fields,
            "malformed_payloads": self.malformed_payloads,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> _DiagnosticsState:
        return cls(
            lines_skipped=state["lines_skipped"],
            skipped=[_skipped_line(s) for s in state["skipped"]],
            duplicate_events=state["duplicate_events"],
            unknown_event_types=dict(state["unknown_event_types"]),
            events_with_unknown_fields=state["events_with_unknown_fields"],
            malformed_payloads=state["malformed_payloads"],
        )


def _skipped_line(state: dict[str, Any]) -> SkippedLine:
    offset, reason = state["offset"], state["reason"]
    if type(offset) is not int or type(reason) is not str:
        raise SnapshotError("deriver snapshot is corrupt: a skipped line of the wrong types")
    return SkippedLine(offset=offset, reason=reason)


def _without_surrogates(event: TranscriptEvent) -> TranscriptEvent:
    """The event with lone surrogates in its ids replaced, so the memory serialises."""

    def clean(text: str | None) -> str | None:
        return None if text is None else text.encode("utf-8", "replace").decode("utf-8")

    return msgspec.structs.replace(
        event,
        event_id=clean(event.event_id),
        run_id=clean(event.run_id),
        session_id=clean(event.session_id),
    )
