"""A tool event parsed, and what the rules remember of one call while it is open.

A ``tool_lifecycle`` event is parsed into a :class:`ToolEvent` (pure; a finished call
carries its typed :class:`~session_memory.core.outcome.ToolOutcome`); a call requested is a
:class:`Call`: its kind, its key argument, the check it runs, the files it edits, the todo
list it writes, what a plan or a sub-agent is about. Total, deterministic, free of I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from deriver.check_commands import CheckRun, detect_check
from deriver.keys import ItemKey, call_key
from deriver.store import Stamp
from deriver.todo_lists import Todo, todo_list
from deriver.tool_kinds import ToolKind, classify_tool, edited_paths, key_argument
from deriver.wording import as_dict, relative, str_or_none
from session_memory.core.events import TranscriptEvent
from session_memory.core.outcome import ToolOutcome, tool_outcome

__all__ = ["FINISHED", "SHUTDOWN_ANSWER", "Call", "ToolEvent", "parse_tool_event"]

_STATUSES: Final = frozenset({"requested", "started", "completed", "failed"})
FINISHED: Final = frozenset({"completed", "failed"})
"""The statuses that carry an outcome: only they read the payload's result."""


class ToolEvent(msgspec.Struct, frozen=True, gc=False):
    """One step of a tool call's lifecycle, as the payload states it.

    A struct, not a named tuple: one is made per tool event, and a named tuple takes six
    times as long to make (0.74 against 0.12 µs). It serves the target that `apply` per
    event be within 1.1x of 2836343 (benchmarks/bench_apply.py: 20.2-21.2 µs early against
    21.1-21.5 as a named tuple). gc=False: it refers to nothing that refers back to it.
    """

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
    return ToolEvent(
        status,
        call_key(event.run_id, call_id) if isinstance(call_id, (str, int)) else None,
        str_or_none(payload.get("tool_name")),
        payload.get("args"),
        tool_outcome(payload) if status in FINISHED else None,
        (event.event_id, event.step),
    )


def _workdir(args: object, cwd: str | None) -> str:
    """The directory a command runs in when its call names one other than the session's
    (Codex's ``workdir``); empty otherwise."""
    workdir = args.get("workdir") if isinstance(args, dict) else None
    if not isinstance(workdir, str) or workdir.rstrip("/") == (cwd or "").rstrip("/"):
        return ""
    return workdir


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
    workdir: str = ""
    """Where a command runs when not in the session's directory (:func:`_workdir`)."""
    replaced: str = ""
    """What a one-file edit replaced and by what (:func:`_replacement`)."""
    sent: str = ""
    """A digest of an edit's arguments: the same edit sent again is the same call."""

    @classmethod
    def of(cls, name: str, args: object, cwd: str | None = None) -> Call:
        kind = classify_tool(name)
        key = key_argument(name, args)
        return cls(  # by position: half the cost by keywords, on every request
            name,
            kind,
            key,
            detect_check(relative(key, cwd) or key) if kind is ToolKind.SHELL and key else None,
            edited_paths(name, args) if kind is ToolKind.EDIT else (),
            todo_list(args) if kind is ToolKind.TODO else None,
            _call_note(kind, args),
            False,
            _workdir(args, cwd) if kind is ToolKind.SHELL else "",
            _replacement(args) if kind is ToolKind.EDIT else "",
            _digest(msgspec.json.encode(args, order="sorted").decode())
            if kind is ToolKind.EDIT
            else "",
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
            "workdir": self.workdir,
            "replaced": self.replaced,
            "sent": self.sent,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any], cwd: str | None = None) -> Call:
        check, key = state["check"], state["key"]
        todos = state["todos"]
        return cls(
            name=state["name"],
            kind=classify_tool(state["name"]),
            key=key,
            check=None if check is None else detect_check(relative(key, cwd) or check["command"]),
            edited=tuple(state["edited"]),
            todos=None if todos is None else [(c, s) for c, s in todos],
            note=state["note"],
            started=state["started"],
            workdir=state["workdir"],
            replaced=state["replaced"],
            sent=state["sent"],
        )


def _replacement(args: object) -> str:
    """What an edit of one place in a file replaced and by what, as digests ("old>new"): an
    edit that puts back what the last one replaced undoes it. Empty for other edits (a
    whole file written, every occurrence replaced, unless into itself: no edit at all)."""
    data = as_dict(args)
    old, new = (
        data.get("old_string", data.get("oldString")),
        data.get("new_string", data.get("newString")),
    )
    if not isinstance(old, str) or not isinstance(new, str):
        return ""
    if data.get("replace_all") and old != new:
        return ""
    return f"{_digest(old)}>{_digest(new)}"


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _call_note(kind: ToolKind, args: object) -> str | None:
    """What a plan-mode exit, a sub-agent call or a message to the team says it is about:
    the plan, the task, the message (:func:`team_message`)."""
    if kind is ToolKind.PLAN_EXIT:
        return str_or_none(as_dict(args).get("plan"))
    if kind is ToolKind.TASK:
        data = as_dict(args)
        return str_or_none(data.get("description")) or str_or_none(data.get("prompt"))
    if kind is ToolKind.MESSAGE:
        return team_message(args)
    return None


SHUTDOWN_ANSWER: Final = "the agent answered its lead's shutdown request"


def team_message(args: object) -> str | None:
    """A message to another agent of the team, as where the session stands says it: who
    it went to, then its words ("the agent's last message to team-lead: …"), or the agent's
    answer to its lead's shutdown request (:data:`SHUTDOWN_ANSWER`), from SendMessage's
    arguments (``type``, ``recipient`` and ``content``; or ``to`` and a ``message``, words
    or an object)."""
    data = as_dict(args)
    message = data.get("message")
    kind = as_dict(message).get("type") or data.get("type")
    words = (
        message if isinstance(message, str)
        else as_dict(message).get("reason") or as_dict(message).get("content")
        or data.get("content") or data.get("summary")
    )  # fmt: skip
    words = words.strip() if isinstance(words, str) else ""
    if kind == "shutdown_response":
        return f"{SHUTDOWN_ANSWER}: {words or ('approved' if data.get('approve') else 'refused')}"
    to = data.get("recipient") or data.get("to")
    if not words or not isinstance(to, str):
        return None
    if kind == "shutdown_request":
        return f"the agent asked {to} to shut down: {words}"
    return f"the agent's last message to {to}: {words}"
