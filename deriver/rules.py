"""The derivation rules: one handler per event type, and the tool-call tracking they share.

Each handler pulls what it needs out of the event first (any JSON shape is tolerated) and
returns whether it changed the memory. Texts enter items only through the containment
functions of :mod:`session_memory.redact`: secrets are redacted, tool output is quoted.
The rules and their eviction tiers are documented in ``docs/rules.md``.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final, NamedTuple

from deriver.check_output import (
    check_passed,
    exit_code_from_output,
    is_failure_text,
    parse_check_output,
)
from deriver.shell import CheckRun, detect_check, is_read_only_command
from deriver.store import Item, MemoryStore, Stamp
from deriver.tool_kinds import (
    ToolKind,
    classify_tool,
    edited_paths,
    is_side_effecting,
    key_argument,
)
from deriver.user_text import first_line, is_acknowledgement
from session_memory.events import TranscriptEvent
from session_memory.memory import SectionName
from session_memory.redact import contain_trusted_line, quote_untrusted, redact_secrets

__all__ = ["RULES", "Rule", "Rules"]


class Rule(NamedTuple):
    """One derivation rule as documented in ``docs/rules.md``; ``kind`` names its items."""

    kind: str
    pattern: str
    effect: str
    section: str
    tier: str


RULES: Final[tuple[Rule, ...]] = (
    Rule("goal", "user message, not synthetic, not an acknowledgement",
         "becomes the current goal; the previous goal becomes an earlier goal",
         "current_goal, earlier_goals", "earlier_goals"),
    Rule("acknowledgement", "short user reply that continues (continue, yes, ok, 继续...)",
         "counted on the current goal, never a new goal", "current_goal", "never evicted"),
    Rule("final_answer", "assistant message with metadata.action_type final or final_unverified",
         "completed work with the answer's first line", "completed_work", "completed_work"),
    Rule("final_unverified", "assistant message with metadata.action_type final_unverified",
         "verification warning", "verification_status", "verification_status"),
    Rule("decision", "assistant metadata.decision, or an assistant line starting 'Decision:'",
         "key decision; the same decision again counts up", "key_decisions", "key_decisions"),
    Rule("compaction", "state_transition with reason context_compacted",
         "key decision", "key_decisions", "key_decisions"),
    Rule("checkpoint", "checkpoint event", "key decision with the summary's first line",
         "key_decisions", "key_decisions"),
    Rule("plan", "ExitPlanMode (plan-mode exit) completed", "key decision: the approved plan",
         "key_decisions", "key_decisions"),
    Rule("answer", "AskUserQuestion completed", "key decision: the user's answer",
         "key_decisions", "key_decisions"),
    Rule("stop_hook", "state_transition with reason stop_hook_blocking",
         "verification: completion blocked; cleared when a run completes",
         "verification_status", "verification_status"),
    Rule("terminal", "terminal event", "verification: how the last run ended",
         "verification_status", "verification_status"),
    Rule("model_recovery", "state_transition with reason model_recovery_failed",
         "failed attempt", "failed_attempts", "open_failures"),
    Rule("replan", "tool call requested, not yet started", "todo: replan it",
         "todo_items", "todo_items"),
    Rule("uncertain", "tool call started, never completed or failed",
         "todo marked uncertain; Edit, Write, Bash, Task... not safe to replay",
         "todo_items", "todo_items"),
    Rule("uncertain_actions", "any uncertain tool call open",
         "verification warning with the number of uncertain actions",
         "verification_status", "todo_items"),
    Rule("tool_failed", "tool call failed, exited non-zero, or returned an error text",
         "failed attempt with tool, key argument, first error line; the same failure again "
         "counts up; a later success of the same call marks it resolved",
         "failed_attempts", "open_failures, then resolved_failures"),
    Rule("check", "shell command that runs tests, builds or linters",
         "verification passed or failed with counts; stale after a later edit",
         "verification_status", "verification_status"),
    Rule("folded_read", "Read and equivalents completed", "one rolling item: files read",
         "completed_work", "completed_work"),
    Rule("folded_searched", "Grep and equivalents completed", "one rolling item: patterns",
         "completed_work", "completed_work"),
    Rule("folded_listed", "Glob, LS and equivalents completed", "one rolling item: paths listed",
         "completed_work", "completed_work"),
    Rule("folded_ran", "shell command that only reads (cat, sed -n, rg, ls, git status...)",
         "one rolling item: read-only commands run", "completed_work", "completed_work"),
    Rule("folded_fetched", "WebFetch, WebSearch and equivalents completed",
         "one rolling item: web resources", "completed_work", "completed_work"),
    Rule("file_changed", "Edit, Write, MultiEdit, apply_patch and equivalents completed",
         "completed work per file changed (counted up); passing checks become stale",
         "completed_work", "completed_work"),
    Rule("todo", "TodoWrite / todo_write / update_plan completed",
         "the todo list is replaced by the latest list, verbatim, in order",
         "todo_items", "todo_items"),
    Rule("todo_done", "a todo item that became completed", "completed work",
         "completed_work", "completed_work"),
    Rule("task", "Task (sub-agent) completed", "completed work with its description",
         "completed_work", "completed_work"),
    Rule("tool", "any other tool call completed", "completed work: tool and key argument",
         "completed_work", "completed_work"),
)  # fmt: skip

FINAL_ACTIONS: Final = frozenset({"final", "final_unverified"})
SYNTHETIC_SOURCES: Final = frozenset({"completion_gate"})
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
_MAX_OPEN_CALLS: Final = 1024
_MAX_TODOS: Final = 100
_EXCERPT_CHARS: Final = 160
_ARG_CHARS: Final = 160
_GOAL_SOURCE_CHARS: Final = 64 * 1024
_DECISION_PREFIX: Final = "decision:"
_CONTROL_BUT_LINE_BREAK_AND_TAB: Final = re.compile("[\x00-\x08\x0b-\x1f]")
_TRANSITION_REASONS: Final = frozenset(
    {"context_compacted", "stop_hook_blocking", "model_recovery_failed"}
)


def _text(value: object) -> str:
    """A text field of a payload: strings as they are, content parts joined, else empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@functools.lru_cache(maxsize=4096)
def _code(text: str, max_chars: int = _ARG_CHARS) -> str:
    """An argument (path, command, pattern) as an inline code span on one line.

    Memoised (as is :func:`_describe`): agents touch the same paths and commands again and
    again, and containment is the most expensive step of most events.
    """
    return "`" + contain_trusted_line(text, max_chars).replace("`", "'") + "`"


@functools.lru_cache(maxsize=4096)
def _line(text: str, max_chars: int) -> str:
    """Agent-written text (a todo, a decision) on one contained line; memoised like _code."""
    return contain_trusted_line(text, max_chars)


@functools.lru_cache(maxsize=4096)
def _describe(tool: str, key: str | None) -> str:
    name = contain_trusted_line(tool, 60) or "tool"
    return f"{name} {_code(key)}" if key else name


@functools.lru_cache(maxsize=2 * _MAX_OPEN_CALLS)
def _uncertain_text(open_started: int) -> str:
    # Memoised: the count goes up and down by one with every call, and the same string
    # object keeps its hash for the store's token cache.
    noun = "action was" if open_started == 1 else "actions were"
    return (
        f"{open_started} {noun} started but never finished; "
        "check their effects before replaying (see Todo)"
    )


class _Call:
    """What the rules remember of one open tool call, keyed by (run_id, tool_call_id)."""

    __slots__ = ("check", "edited", "key", "kind", "name", "note", "started", "todos")

    def __init__(self, name: str, args: object) -> None:
        self.name = name
        self.kind = classify_tool(name)
        self.key = key_argument(name, args)
        self.check: CheckRun | None = (
            detect_check(self.key) if self.kind is ToolKind.SHELL and self.key else None
        )
        self.edited = edited_paths(name, args) if self.kind is ToolKind.EDIT else ()
        self.todos = _todo_list(args) if self.kind is ToolKind.TODO else None
        self.note = _call_note(self.kind, args)
        self.started = False

    def to_state(self) -> list[Any]:
        check = [self.check.name, self.check.command] if self.check else None
        return [self.name, self.key, check, list(self.edited), self.todos, self.note, self.started]

    @classmethod
    def from_state(cls, state: list[Any]) -> _Call:
        call = cls.__new__(cls)
        call.name, call.key = state[0], state[1]
        call.kind = classify_tool(call.name)
        call.check = CheckRun(name=state[2][0], command=state[2][1]) if state[2] else None
        call.edited = tuple(state[3])
        call.todos = [tuple(t) for t in state[4]] if state[4] is not None else None
        call.note, call.started = state[5], state[6]
        return call


def _todo_list(args: object) -> list[tuple[str, str]] | None:
    """The (content, status) pairs of a todo tool call, in order, or None if malformed."""
    data = _dict(args)
    raw = data.get("todos")
    content_key = "content"
    if not isinstance(raw, list):
        raw, content_key = data.get("plan"), "step"
    if not isinstance(raw, list):
        return None
    todos = []
    for entry in raw[:_MAX_TODOS]:
        entry = _dict(entry)
        content = _text(entry.get(content_key))
        status = entry.get("status")
        if content.strip():
            todos.append((content, status if isinstance(status, str) else "pending"))
    return todos


def _call_note(kind: ToolKind, args: object) -> str | None:
    data = _dict(args)
    if kind is ToolKind.PLAN_EXIT:
        return _str_or_none(data.get("plan"))
    if kind is ToolKind.TASK:
        return _str_or_none(data.get("description")) or _str_or_none(data.get("prompt"))
    return None


class Rules:
    """Event handlers over a :class:`MemoryStore`."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._calls: dict[str, _Call] = {}
        self._started_open = 0  # calls started and not finished: the uncertain actions
        self._folds: dict[str, list[Any]] = {}  # fold name -> [count, recent names]
        self._todos_done: list[str] = []  # todo contents already moved to completed work
        self._failures: dict[str, list[str]] = {}  # tool+key -> failure item keys

    # -- messages -----------------------------------------------------------------------

    def on_message(self, event: TranscriptEvent) -> bool:
        payload = event.payload
        role = payload.get("role")
        if role != "user" and role != "assistant":
            return False
        metadata = _dict(payload.get("metadata"))
        content = _text(payload.get("content"))[:_GOAL_SOURCE_CHARS]
        stamp = (event.event_id, event.step)
        if role == "user":
            if _str_or_none(metadata.get("source")) in SYNTHETIC_SOURCES or not content.strip():
                return False
            return self._user_message(content, stamp, event.run_id)
        changed = False
        decision = metadata.get("decision")
        if isinstance(decision, str) and decision.strip():
            self._decision("decision", contain_trusted_line(decision, 240), stamp)
            changed = True
        # Lowering is per character, so a line that starts with the marker in any case leaves
        # it in the lowered text: most messages have none and skip the scan line by line.
        lines = content.splitlines() if _DECISION_PREFIX in content.lower() else ()
        for line in lines:
            stripped = line.strip()
            if stripped[: len(_DECISION_PREFIX)].lower() == _DECISION_PREFIX:
                text = stripped[len(_DECISION_PREFIX) :].strip()
                if text:
                    self._decision("decision", contain_trusted_line(text, 240), stamp)
                    changed = True
        action = metadata.get("action_type")
        if isinstance(action, str) and action in FINAL_ACTIONS and content.strip():
            answer = quote_untrusted(first_line(content, 400), _EXCERPT_CHARS)
            label = "final answer" if action == "final" else "final answer (unverified)"
            self.store.add("completed_work", "final_answer", f"{label}: {answer}", stamp)
            if action == "final_unverified":
                self._verification(
                    "final_unverified",
                    "warning",
                    "final answer given without verification",
                    stamp,
                    key="verify:final",
                )
            changed = True
        return changed

    def _user_message(self, content: str, stamp: Stamp, run_id: str | None) -> bool:
        store = self.store
        goal = store.goal
        if goal is not None and is_acknowledgement(content):
            store.acknowledge(contain_trusted_line(content, 40))
            return True
        if goal is not None:
            earlier = contain_trusted_line(goal.text, 200)
            store.add("earlier_goals", "goal", f"“{earlier}”", goal.source)
        store.set_goal(_goal_text(content), stamp, run_id)
        return True

    # -- state transitions, checkpoints, terminal events --------------------------------

    def on_state_transition(self, event: TranscriptEvent) -> bool:
        payload = event.payload
        reason = payload.get("reason")
        if not isinstance(reason, str) or reason not in _TRANSITION_REASONS:
            return False
        details = _detail_text(payload.get("details"))
        stamp = (event.event_id, event.step)
        if reason == "context_compacted":
            text = "context compacted" + (f": {quote_untrusted(details, 120)}" if details else "")
            self._decision("compaction", text, stamp)
        elif reason == "stop_hook_blocking":
            text = "completion blocked pending verification" + (
                f": {quote_untrusted(details, 120)}" if details else ""
            )
            self._verification("stop_hook", "blocked", text, stamp, key="verify:stop_hook")
        elif reason == "model_recovery_failed":
            text = "model recovery failed" + (
                f": {quote_untrusted(details, 120)}" if details else ""
            )
            self._failure("model_recovery", "model", None, text, stamp)
        else:
            return False
        return True

    def on_checkpoint(self, event: TranscriptEvent) -> bool:
        payload = event.payload
        checkpoint_id = _str_or_none(payload.get("checkpoint_id"))
        summary = first_line(_text(payload.get("summary")), 400)
        label = f"checkpoint {_code(checkpoint_id, 60)}" if checkpoint_id else "checkpoint"
        text = f"{label}: {quote_untrusted(summary, _EXCERPT_CHARS)}" if summary else label
        self._decision("checkpoint", text, (event.event_id, event.step))
        return True

    def on_terminal(self, event: TranscriptEvent) -> bool:
        payload = event.payload
        reason = _str_or_none(payload.get("reason")) or "unknown"
        details = _detail_text(payload.get("details"))
        run = f"{contain_trusted_line(event.run_id, 60)} " if event.run_id else ""
        text = f"{run}{contain_trusted_line(reason, 60)}"
        if details:
            text += f": {quote_untrusted(details, 120)}"
        stamp = (event.event_id, event.step)
        self._verification("terminal", "ended", text, stamp, key="verify:terminal")
        if reason == "completed":
            blocked = self.store.by_key.get("verify:stop_hook")
            if blocked is not None:
                self.store.remove(blocked, stamp)
        return True

    # -- tool calls ---------------------------------------------------------------------

    def on_tool_lifecycle(self, event: TranscriptEvent) -> bool:
        payload = event.payload
        status = payload.get("status")
        call_id = payload.get("tool_call_id")
        key = call = None
        if isinstance(call_id, str | int):
            key = f"call:{event.run_id or ''}\x00{call_id}"
            call = self._calls.get(key)
        if call is None:
            tool_name = _str_or_none(payload.get("tool_name"))
            if tool_name is None:
                return False
            call = _Call(tool_name, payload.get("args"))
        stamp = (event.event_id, event.step)
        if status == "requested":
            return self._requested(key, call, stamp)
        if status == "started":
            return self._started(key, call, stamp)
        if status == "completed":
            self._close(key, stamp)
            return self._completed(call, payload, stamp)
        if status == "failed":
            self._close(key, stamp)
            error = _text(payload.get("error")) or _text(payload.get("result")) or "failed"
            exit_code = payload.get("exit_code")
            return self._failed(call, error, exit_code if type(exit_code) is int else None, stamp)
        return False

    def _requested(self, key: str | None, call: _Call, stamp: Stamp) -> bool:
        if key is None or key in self._calls:
            return False
        self._track(key, call)
        self.store.add(
            "todo_items",
            "replan",
            _describe(call.name, call.key),
            stamp,
            status="replan",
            key=key,
        )
        return True

    def _started(self, key: str | None, call: _Call, stamp: Stamp) -> bool:
        if key is None or call.started:
            return False
        call.started = True
        self._started_open += 1
        if key not in self._calls:
            self._track(key, call)
        safe = not is_side_effecting(call.kind)
        item = self.store.by_key.get(key)
        if item is None:
            self.store.add(
                "todo_items",
                "uncertain",
                _describe(call.name, call.key),
                stamp,
                status="uncertain",
                key=key,
                safe_to_replay=safe,
            )
        else:
            item.kind = "uncertain"
            self.store.update(item, stamp, status="uncertain", safe_to_replay=safe, touch=False)
        self._update_uncertain_warning(stamp)
        return True

    def _track(self, key: str, call: _Call) -> None:
        calls = self._calls
        calls[key] = call
        if len(calls) > _MAX_OPEN_CALLS:
            # A call whose todo was evicted long ago and never finished: forget the oldest.
            oldest = calls.pop(next(iter(calls)))
            self._started_open -= oldest.started

    def _close(self, key: str | None, stamp: Stamp) -> None:
        if key is None:
            return
        call = self._calls.pop(key, None)
        item = self.store.by_key.get(key)
        if item is not None:
            self.store.remove(item, stamp)
        if call is not None and call.started:
            self._started_open -= 1
            self._update_uncertain_warning(stamp)

    def _update_uncertain_warning(self, stamp: Stamp) -> None:
        store = self.store
        open_started = self._started_open
        warning = store.by_key.get("verify:uncertain")
        if open_started == 0:
            if warning is not None:
                store.remove(warning, stamp)
            return
        text = _uncertain_text(open_started)
        if warning is None:
            store.add(
                "verification_status",
                "uncertain_actions",
                text,
                stamp,
                status="warning",
                key="verify:uncertain",
                tier="todo_items",
            )
        else:
            store.update(warning, stamp, text=text, touch=False)

    def _completed(self, call: _Call, payload: dict[str, Any], stamp: Stamp) -> bool:
        result = _text(payload.get("result"))
        exit_code = payload.get("exit_code")
        if type(exit_code) is not int:
            exit_code = exit_code_from_output(result) if call.kind is ToolKind.SHELL else None
        if call.check is not None:
            self._check(call.check, exit_code, result, stamp)
            self._resolve(call, stamp)
            return True
        if (exit_code is not None and exit_code != 0) or is_failure_text(result):
            return self._failed(call, result or f"exit code {exit_code}", exit_code, stamp)
        self._resolve(call, stamp)
        kind = call.kind
        store = self.store
        if kind in FOLDED_KINDS:
            self._fold(FOLDED_KINDS[kind], call.key, stamp)
        elif kind is ToolKind.SHELL and call.key and is_read_only_command(call.key):
            self._fold("ran", call.key, stamp)
        elif kind is ToolKind.EDIT:
            for path in call.edited or ((call.key,) if call.key else ()):
                self._bump(
                    "completed_work",
                    "file_changed",
                    f"changed {_code(path)}",
                    stamp,
                    f"edit:{path}",
                )
            self._mark_checks_stale(stamp)
        elif kind is ToolKind.TODO:
            self._replace_todos(call.todos, stamp)
        elif kind is ToolKind.PLAN_EXIT:
            plan = first_line(call.note or result, 400)
            self._decision("plan", f"approved plan: {quote_untrusted(plan, _EXCERPT_CHARS)}", stamp)
        elif kind is ToolKind.QUESTION:
            answer = first_line(result, 400) or "(no answer)"
            self._decision(
                "answer", f"user answered: {quote_untrusted(answer, _EXCERPT_CHARS)}", stamp
            )
        elif kind is ToolKind.TASK:
            what = _line(call.note or call.key or "sub-task", 120)
            store.add("completed_work", "task", f"{_line(call.name, 40)}: {what}", stamp)
        else:
            text = _describe(call.name, call.key)
            self._bump("completed_work", "tool", text, stamp, f"done:{text}")
        return True

    def _failed(self, call: _Call, error: str, exit_code: int | None, stamp: Stamp) -> bool:
        if call.check is not None:
            self._check(call.check, exit_code if exit_code is not None else 1, error, stamp)
            return True
        line = first_line(error, 400) or "failed"
        what = _describe(call.name, call.key)
        if exit_code is not None and exit_code != 0:
            what += f" exited {exit_code}"
        self._failure(
            "tool_failed",
            call.name,
            call.key,
            f"{what}: {quote_untrusted(line, _EXCERPT_CHARS)}",
            stamp,
            line,
        )
        return True

    def _failure(
        self, kind: str, tool: str, key: str | None, text: str, stamp: Stamp, line: str = ""
    ) -> None:
        """A failed attempt; the same failure again counts up one item instead of adding."""
        store = self.store
        call_key = f"{tool}\x00{key or ''}"
        item_key = f"fail:{call_key}\x00{line}"
        item = store.by_key.get(item_key)
        if item is not None:
            item.closed = None  # failing again re-opens a resolved failure
            store.update(
                item, stamp, text=text, status="open", count=item.count + 1, tier="open_failures"
            )
        else:
            store.add(
                "failed_attempts", kind, text, stamp, status="open", key=item_key,
                tier="open_failures",
            )  # fmt: skip
        keys = self._failures.setdefault(call_key, [])
        if item_key not in keys:
            keys.append(item_key)
        if len(self._failures) > _MAX_OPEN_CALLS:
            self._failures = {
                k: live
                for k, v in self._failures.items()
                if (live := [i for i in v if i in store.by_key])
            }

    def _resolve(self, call: _Call, stamp: Stamp) -> None:
        """A success of the same tool on the same argument resolves its earlier failures."""
        keys = self._failures.pop(f"{call.name}\x00{call.key or ''}", None)
        for item_key in keys or ():
            item = self.store.by_key.get(item_key)
            if item is not None and item.status == "open":
                self.store.update(
                    item,
                    stamp,
                    status="resolved",
                    tier="resolved_failures",
                    touch=False,
                    closed=True,
                )

    def _check(self, check: CheckRun, exit_code: int | None, output: str, stamp: Stamp) -> None:
        counts = parse_check_output(check.name, output)
        passed = check_passed(exit_code, counts, output)
        status = "passed" if passed else "failed" if passed is False else "warning"
        detail = ""
        if counts is not None:
            parts = [
                f"{n} {label}"
                for n, label in (
                    (counts.failed, "failed"),
                    (counts.errors, "errors"),
                    (counts.passed, "passed"),
                    (counts.skipped, "skipped"),
                )
                if n
            ]
            detail = ", ".join(parts)
        elif passed is None:
            detail = "outcome unknown"
        if passed is False and counts is None:
            detail = (
                quote_untrusted(first_line(output, 400), _EXCERPT_CHARS) if output.strip() else ""
            )
        text = _code(check.command, 120) + (f" ({detail})" if detail else "")
        self._verification("check", status, text, stamp, key=f"check:{check.command}")

    def _mark_checks_stale(self, stamp: Stamp) -> None:
        store = self.store
        for item in store.items_of("verification_status"):
            if item.kind == "check" and item.status == "passed":
                store.update(item, stamp, status="stale", touch=False)

    def _fold(self, fold: str, name: str | None, stamp: Stamp) -> None:
        state = self._folds.setdefault(fold, [0, []])
        state[0] += 1
        count: int = state[0]
        recent: list[str] = state[1]
        if name:
            shown = _code(name, 80)
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
            # The line changes with every call but its parts rarely do: count it in parts
            # that meet at pre-token boundaries (around the count, " `name`," after
            # punctuation), each part counted once. The oldest name comes last, without
            # its comma.
            parts = [f" {fold} ", f" {noun}, latest:", f" {recent[0]}\n"]
            parts += [f" {shown}," for shown in recent[1:]]
            tokens = store.count_parts(parts) + store.count_number(count)
        else:
            text = head
        item = store.by_key.get(f"fold:{fold}")
        if item is None:
            store.add(
                "completed_work", f"folded_{fold}", text, stamp, key=f"fold:{fold}",
                body_tokens=tokens,
            )  # fmt: skip
        else:
            store.update(item, stamp, text=text, body_tokens=tokens)

    def _bump(self, section: SectionName, kind: str, text: str, stamp: Stamp, key: str) -> None:
        """Add an item, or count up and refresh the item with the same key."""
        item = self.store.by_key.get(key)
        if item is None:
            self.store.add(section, kind, text, stamp, key=key)
        else:
            self.store.update(item, stamp, text=text, count=item.count + 1)

    def _replace_todos(self, todos: list[tuple[str, str]] | None, stamp: Stamp) -> None:
        """The todo list becomes the tool's latest list, verbatim and in order."""
        if todos is None:
            return
        store = self.store
        for item in store.items_of("todo_items"):
            if item.kind == "todo":
                store.remove(item, stamp)
        done = self._todos_done
        for content, status in todos:
            text = _line(content, 300)
            if status == "completed":
                if text not in done:
                    done.append(text)
                    store.add("completed_work", "todo_done", f"done: {text}", stamp)
                continue
            store.add("todo_items", "todo", text, stamp, status=status)
        del done[: -_MAX_TODOS * 2]

    def _decision(self, kind: str, text: str, stamp: Stamp) -> None:
        """A key decision; the same decision taken again counts up its item."""
        item = self.store.by_key.get(f"decision:{text}")
        if item is None:
            self.store.add(
                "key_decisions", kind, text, stamp, status="decision", key=f"decision:{text}"
            )
        else:
            self.store.update(item, stamp, count=item.count + 1)

    def _verification(self, kind: str, status: str, text: str, stamp: Stamp, *, key: str) -> None:
        item = self.store.by_key.get(key)
        if item is None:
            self.store.add("verification_status", kind, text, stamp, status=status, key=key)
        else:
            self.store.update(item, stamp, text=text, status=status, count=1)

    # -- views and snapshots --------------------------------------------------------------

    def ordered(self, section: SectionName) -> list[Item]:
        """A section's items in display order: the todo list first, in its own order."""
        items = self.store.items_of(section)
        if section == "todo_items":
            return [i for i in items if i.kind == "todo"] + [i for i in items if i.kind != "todo"]
        return items

    def to_state(self) -> dict[str, Any]:
        return {
            "calls": [[k, c.to_state()] for k, c in self._calls.items()],
            "folds": self._folds,
            "todos_done": self._todos_done,
            "failures": self._failures,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self._calls = {k: _Call.from_state(c) for k, c in state["calls"]}
        self._started_open = sum(c.started for c in self._calls.values())
        self._folds = state["folds"]
        self._todos_done = state["todos_done"]
        self._failures = state["failures"]


def _goal_text(content: str) -> str:
    """The user's request as the goal: secrets redacted, control characters dropped."""
    text = redact_secrets(content.replace("\r\n", "\n").replace("\r", "\n"))
    text = text.encode("utf-8", "replace").decode("utf-8")
    cleaned = _CONTROL_BUT_LINE_BREAK_AND_TAB.sub("", text)
    return cleaned.strip() or "(empty request)"


def _detail_text(details: object) -> str:
    if isinstance(details, str):
        return first_line(details, 400)
    if isinstance(details, dict):
        for field in ("message", "summary", "reason", "error"):
            value = details.get(field)
            if isinstance(value, str) and value.strip():
                return first_line(value, 400)
    return ""
