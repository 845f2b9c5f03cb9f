"""Rules for the tool-call lifecycle: requested, started, completed, failed.

A ``tool_lifecycle`` event is parsed into a :class:`ToolEvent` (pure; a finished call
carries its typed :class:`~session_memory.core.outcome.ToolOutcome`), then applied: open calls
are todos, started and unfinished calls are uncertain, finished calls become completed
work, folded reads, changed files, failed attempts or check results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from deriver.actions import is_no_match
from deriver.check_commands import CheckRun, detect_check
from deriver.check_output import exit_code_from_output
from deriver.checks import CheckRules
from deriver.keys import (
    ItemKey,
    call_key,
    done_key,
    edit_key,
    fold_key,
    issue_key,
    verify_key,
)
from deriver.read_only import is_read_only_command
from deriver.recording import Failures, bump, decision
from deriver.store import MemoryStore, Stamp
from deriver.task_tracker import TrackerChange, tracker_changes
from deriver.tool_kinds import (
    ToolKind,
    classify_tool,
    edited_paths,
    is_side_effecting,
    key_argument,
)
from deriver.user_text import first_line, informative_line
from deriver.wording import (
    EXCERPT_CHARS,
    FAILURE_ARG_CHARS,
    MAX_OPEN_CALLS,
    as_dict,
    code,
    describe,
    line,
    path_code,
    relative,
    str_or_none,
    uncertain_text,
)
from session_memory.core.events import TranscriptEvent
from session_memory.core.outcome import ToolOutcome, payload_text, tool_outcome
from session_memory.core.redact import quote_untrusted

__all__ = ["Call", "Fold", "ToolCallRules", "ToolEvent", "parse_tool_event"]

FOLDED_KINDS: Final = {
    ToolKind.READ: "read",
    ToolKind.SEARCH: "searched",
    ToolKind.LIST: "listed",
    ToolKind.WEB: "fetched",
}
_FOLD_NOUNS: Final = {
    "ran": ("read-only command", "read-only commands"),
    "read": ("file", "files"),
    "searched": ("pattern", "patterns"),
    "listed": ("path", "paths"),
    "fetched": ("web resource", "web resources"),
}
_FOLD_NAMES_SHOWN: Final = 5
_MAX_TODOS: Final = 100
_TODO_STATUSES: Final = frozenset({"pending", "in_progress"})
"""The statuses of an open todo that have a tag of their own; "completed" moves it to done."""
_STATUS_CHARS: Final = 40
_MAX_ISSUES: Final = 8  # tracker issues kept as todos: the latest touched
_ISSUE_TITLE_CHARS: Final = 80
_STATUSES: Final = frozenset({"requested", "started", "completed", "failed"})
_FINISHED: Final = frozenset({"completed", "failed"})
"""The statuses that carry an outcome: only they read the payload's result."""
_UNCERTAIN_KEY: Final = verify_key("uncertain")
_CALL_ID_TYPES: Final = (str, int)
"""A tuple, not ``str | int``: a union written in the call is built again on every event."""
_NOTED_KINDS: Final = frozenset({ToolKind.PLAN_EXIT, ToolKind.TASK})
"""The kinds of call whose arguments carry a note (see :func:`_call_note`)."""

Todo = tuple[str, str]
"""A todo's content and status."""


class ToolEvent(NamedTuple):
    """One step of a tool call's lifecycle, as the payload states it."""

    status: str
    key: ItemKey | None
    tool_name: str | None
    args: object
    outcome: ToolOutcome | None
    stamp: Stamp


def parse_tool_event(event: TranscriptEvent) -> ToolEvent | None:
    payload = event.payload
    status = payload.get("status")
    if not isinstance(status, str) or status not in _STATUSES:
        return None
    call_id = payload.get("tool_call_id")
    key = call_key(event.run_id, call_id) if isinstance(call_id, _CALL_ID_TYPES) else None
    # Built as the tuple it is: a NamedTuple's __new__ is one more Python call per event.
    return _new_tuple(
        ToolEvent,
        (
            status,
            key,
            str_or_none(payload.get("tool_name")),
            payload.get("args"),
            tool_outcome(payload) if status in _FINISHED else None,
            (event.event_id, event.step),
        ),
    )


_new_tuple: Final = tuple.__new__


@dataclass(slots=True)
class Call:
    """What the rules remember of one open tool call, keyed by (run_id, tool_call_id)."""

    name: str
    kind: ToolKind
    key: str | None
    check: CheckRun | None
    edited: tuple[str, ...]
    todos: list[Todo] | None
    note: str | None
    started: bool = False

    @classmethod
    def of(cls, name: str, args: object) -> Call:
        kind = classify_tool(name)
        key = key_argument(name, args)
        return cls(  # positional: keywords make every call's dataclass __init__ slower
            name,
            kind,
            key,
            detect_check(key) if kind is ToolKind.SHELL and key else None,
            edited_paths(name, args) if kind is ToolKind.EDIT else (),
            _todo_list(args) if kind is ToolKind.TODO else None,
            _call_note(kind, args) if kind in _NOTED_KINDS else None,
        )

    def to_state(self) -> dict[str, Any]:
        check = self.check
        return {
            "name": self.name,
            "key": self.key,
            "check": None if check is None else {"name": check.name, "command": check.command},
            "edited": list(self.edited),
            "todos": None if self.todos is None else [list(t) for t in self.todos],
            "note": self.note,
            "started": self.started,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Call:
        check = state["check"]
        todos = state["todos"]
        return cls(
            name=state["name"],
            kind=classify_tool(state["name"]),
            key=state["key"],
            check=None if check is None else detect_check(state["key"] or check["command"]),
            edited=tuple(state["edited"]),
            todos=None if todos is None else [(c, s) for c, s in todos],
            note=state["note"],
            started=state["started"],
        )


@dataclass(slots=True)
class Fold:
    """A rolling item: how many calls it stands for, and the latest names shown."""

    count: int = 0
    recent: list[str] = field(default_factory=list)


def _todo_list(args: object) -> list[Todo] | None:
    """The (content, status) pairs of a todo tool call, in order, or None if malformed."""
    data = as_dict(args)
    raw = data.get("todos")
    content_key = "content"
    if not isinstance(raw, list):
        raw, content_key = data.get("plan"), "step"
    if not isinstance(raw, list):
        return None
    todos = []
    for entry in raw[:_MAX_TODOS]:
        entry = as_dict(entry)
        content = payload_text(entry.get(content_key))
        status = entry.get("status")
        if content.strip():
            todos.append((content, status if isinstance(status, str) else "pending"))
    return todos


def _call_note(kind: ToolKind, args: object) -> str | None:
    data = as_dict(args)
    if kind is ToolKind.PLAN_EXIT:
        return str_or_none(data.get("plan"))
    if kind is ToolKind.TASK:
        return str_or_none(data.get("description")) or str_or_none(data.get("prompt"))
    return None


class ToolCallRules:
    """Applies parsed tool events to a store, tracking the calls still open."""

    def __init__(self, store: MemoryStore, failures: Failures) -> None:
        self.store = store
        self.failures = failures
        self.checks = CheckRules(store, failures)
        self.calls: dict[ItemKey, Call] = {}
        self.started_open = 0  # calls started and not finished: the uncertain actions
        self.folds: dict[str, Fold] = {}
        self.todos_done: list[str] = []  # todo contents already moved to completed work

    def apply(self, event: ToolEvent) -> bool:
        key = event.key
        call = self.calls.get(key) if key is not None else None
        if call is None:
            if event.tool_name is None:
                return False
            call = Call.of(event.tool_name, event.args)
        stamp = event.stamp
        if event.status == "requested":
            return self._requested(key, call, stamp)
        if event.status == "started":
            return self._started(key, call, stamp)
        self._close(key, stamp)
        outcome = event.outcome
        assert outcome is not None  # completed and failed events always carry one
        if outcome.status == "failed":
            return self._failed(call, outcome.error, outcome.exit_code, stamp)
        return self._completed(call, outcome, stamp)

    def _describe(self, call: Call) -> str:
        """The call as the memory names it, paths relative to the session's directory."""
        return describe(call.name, relative(call.key, self.store.cwd))

    def _requested(self, key: ItemKey | None, call: Call, stamp: Stamp) -> bool:
        if key is None or key in self.calls:
            return False
        self._track(key, call)
        self.store.add(
            "todo_items",
            "replan",
            self._describe(call),
            stamp,
            status="replan",
            key=key,
        )
        return True

    def _started(self, key: ItemKey | None, call: Call, stamp: Stamp) -> bool:
        if key is None or call.started:
            return False
        call.started = True
        self.started_open += 1
        if key not in self.calls:
            self._track(key, call)
        safe = not is_side_effecting(call.kind) or (
            call.kind is ToolKind.SHELL and bool(call.key) and is_read_only_command(call.key or "")
        )
        store = self.store
        item = store.get(key)
        if item is None:
            store.add(
                "todo_items",
                "uncertain",
                self._describe(call),
                stamp,
                status="uncertain",
                key=key,
                safe_to_replay=safe,
            )
        else:
            store.retag(item, stamp, "uncertain", "uncertain", safe)
        self._update_uncertain_warning(stamp)
        return True

    def _track(self, key: ItemKey, call: Call) -> None:
        calls = self.calls
        calls[key] = call
        if len(calls) > MAX_OPEN_CALLS:
            # A call whose todo was evicted long ago and never finished: forget the oldest.
            oldest = calls.pop(next(iter(calls)))
            self.started_open -= oldest.started

    def _close(self, key: ItemKey | None, stamp: Stamp) -> None:
        if key is None:
            return
        call = self.calls.pop(key, None)
        item = self.store.get(key)
        if item is not None:
            self.store.remove(item, stamp)
        if call is not None and call.started:
            self.started_open -= 1
            self._update_uncertain_warning(stamp)

    def _update_uncertain_warning(self, stamp: Stamp) -> None:
        store = self.store
        open_started = self.started_open
        key = _UNCERTAIN_KEY
        warning = store.get(key)
        if open_started == 0:
            if warning is not None:
                store.remove(warning, stamp)
            return
        text = uncertain_text(open_started)
        if warning is None:
            store.add(
                "verification_status",
                "uncertain_actions",
                text,
                stamp,
                status="warning",
                key=key,
                tier="todo_items",
            )
        else:
            store.retext(warning, stamp, text)

    def _completed(self, call: Call, outcome: ToolOutcome, stamp: Stamp) -> bool:
        result = outcome.output
        exit_code = outcome.exit_code
        if exit_code is None and call.kind is ToolKind.SHELL:
            exit_code = exit_code_from_output(result)
        if call.check is not None:
            self.checks.record(call.name, call.check, exit_code, result, stamp)
            self.failures.resolve(call.name, call.key, stamp, call.check.name)
            return True
        if (exit_code is not None and exit_code != 0) or outcome.status != "completed":
            return self._failed(call, result or f"exit code {exit_code}", exit_code, stamp)
        self.failures.resolve(call.name, call.key, stamp)
        self._record_success(call, result, stamp)
        return True

    def _record_success(self, call: Call, result: str, stamp: Stamp) -> None:
        kind = call.kind
        store = self.store
        if kind in FOLDED_KINDS:
            self._fold(FOLDED_KINDS[kind], call.key, stamp)
        elif (
            kind is ToolKind.SHELL
            and call.key
            and ((changes := tracker_changes(call.key, result)) is not None)
        ):
            self._track_issues(changes, stamp)
        elif kind is ToolKind.SHELL and call.key and is_read_only_command(call.key):
            self._fold("ran", call.key, stamp)
        elif kind is ToolKind.EDIT:
            for path in call.edited or ((call.key,) if call.key else ()):
                shown = path_code(relative(path, store.cwd) or path)
                bump(store, "completed_work", "file_changed", f"changed {shown}", stamp,
                     edit_key(path))  # fmt: skip
            self.checks.edited(call.edited or ((call.key,) if call.key else ()), stamp)
        elif kind is ToolKind.TODO:
            self._replace_todos(call.todos, stamp)
        elif kind is ToolKind.PLAN_EXIT:
            plan = first_line(call.note or result, 400)
            text = f"approved plan: {quote_untrusted(plan, EXCERPT_CHARS)}"
            decision(store, "plan", text, stamp)
        elif kind is ToolKind.QUESTION:
            answer = first_line(result, 400) or "(no answer)"
            text = f"user answered: {quote_untrusted(answer, EXCERPT_CHARS)}"
            decision(store, "answer", text, stamp)
        elif kind is ToolKind.TASK:
            what = line(call.note or call.key or "sub-task", 120)
            store.add("completed_work", "task", f"{line(call.name, 40)}: {what}", stamp)
        else:
            text = self._describe(call)
            bump(store, "completed_work", "tool", text, stamp, done_key(text))

    def _failed(self, call: Call, error: str, exit_code: int | None, stamp: Stamp) -> bool:
        if call.check is not None:
            code = exit_code if exit_code is not None else 1
            self.checks.record(call.name, call.check, code, error, stamp)
            return True
        if call.kind is ToolKind.SHELL and is_no_match(call.key, exit_code, error):
            # A search that matched nothing did what it was asked: no failure to remember.
            self._record_success(call, "", stamp)
            return True
        first = informative_line(error, 400) or "failed"
        what = describe(call.name, relative(call.key, self.store.cwd), FAILURE_ARG_CHARS)
        if exit_code is not None and exit_code != 0:
            what += f" exited {exit_code}"
        text = f"{what}: {quote_untrusted(first, EXCERPT_CHARS)}"
        self.failures.record("tool_failed", call.name, call.key, text, stamp, first)
        return True

    def _track_issues(self, changes: list[TrackerChange], stamp: Stamp) -> None:
        """A task tracker's issues as todos, one per issue: claimed, listed, closed."""
        store = self.store
        for change in changes:
            key = issue_key(change.issue)
            item = store.get(key)
            title = line(change.title, _ISSUE_TITLE_CHARS) if change.title else None
            text = f"{line(change.issue, 60)}: {title}" if title else None
            if change.status == "closed":
                if item is not None:
                    store.remove(item, stamp)
                done = f"done: {item.text if item is not None else line(change.issue, 60)}"
                bump(store, "completed_work", "todo_done", done, stamp, done_key(done))
            elif item is None:
                store.add("todo_items", "tracker_todo", text or line(change.issue, 60), stamp,
                          status=change.status or "pending", key=key)  # fmt: skip
            else:
                store.update(item, stamp, text=text, status=change.status)
        issues = [i for i in store.items_of("todo_items") if i.kind == "tracker_todo"]
        for item in issues[: max(0, len(issues) - _MAX_ISSUES)]:
            store.remove(item, stamp)

    def _fold(self, fold: str, name: str | None, stamp: Stamp) -> None:
        state = self.folds.get(fold)
        if state is None:  # not setdefault: it would build a Fold on every call
            state = self.folds[fold] = Fold()
        state.count += 1
        count = state.count
        recent = state.recent
        if name:
            name = relative(name, self.store.cwd) or name
            shown = path_code(name) if fold in ("read", "listed") else code(name, 80)
            if shown in recent:
                recent.remove(shown)
            recent.append(shown)
            del recent[:-_FOLD_NAMES_SHOWN]
        noun = _FOLD_NOUNS[fold][count != 1]
        head = f"{fold} {count} {noun}"
        store = self.store
        tokens = None
        if recent:
            text = f"{head}, latest: {', '.join(reversed(recent))}"
            # The line changes with every call but its parts rarely do: count it in the
            # parts TokenArithmetic checks meet at pre-token boundaries (around the count,
            # " `name`," after punctuation), each counted once. The oldest name comes last,
            # without its comma.
            parts = [f" {fold} ", f" {noun}, latest:", f" {recent[0]}\n"]
            parts += [f" {shown}," for shown in recent[1:]]
            tokens = store.tokens.parts(parts) + store.tokens.number(count)
        else:
            text = head
        key = fold_key(fold)
        item = store.get(key)
        if item is None:
            store.add("completed_work", f"folded_{fold}", text, stamp, key=key, body_tokens=tokens)
        else:
            store.update(item, stamp, text=text, body_tokens=tokens)

    def _replace_todos(self, todos: list[Todo] | None, stamp: Stamp) -> None:
        """The todo list becomes the tool's latest list, verbatim and in order."""
        if todos is None:
            return
        store = self.store
        for item in store.items_of("todo_items"):
            # A compaction summary's pending tasks and current work are superseded too.
            if item.kind in ("todo", "summary_todo", "summary_resume"):
                store.remove(item, stamp)
        done = self.todos_done
        for content, status in todos:
            text = line(content, 300)
            if status == "completed":
                if text not in done:
                    done.append(text)
                    store.add("completed_work", "todo_done", f"done: {text}", stamp)
                continue
            if status not in _TODO_STATUSES:
                # Any other status is data, never a tag: the open box, the status quoted.
                shown = f"(status {quote_untrusted(status, _STATUS_CHARS)})"
                text, status = f"{text} {shown}" if text else shown, "pending"
            store.add("todo_items", "todo", text, stamp, status=status)
        del done[: -_MAX_TODOS * 2]

    # -- snapshots ----------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "calls": [{"key": k, "call": c.to_state()} for k, c in self.calls.items()],
            "folds": {
                name: {"count": f.count, "recent": f.recent} for name, f in self.folds.items()
            },
            "todos_done": self.todos_done,
            "checks": self.checks.to_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.calls = {ItemKey(c["key"]): Call.from_state(c["call"]) for c in state["calls"]}
        self.started_open = sum(c.started for c in self.calls.values())
        self.folds = {
            name: Fold(count=f["count"], recent=list(f["recent"]))
            for name, f in state["folds"].items()
        }
        self.todos_done = list(state["todos_done"])
        self.checks.load_state(state.get("checks"))
