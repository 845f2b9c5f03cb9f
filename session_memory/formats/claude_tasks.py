"""Claude Code's task tools as the todo list they keep.

Claude Code 2.1.3xx replaced TodoWrite (which sends the whole list every time) by TaskCreate
(``subject``, ``description``) and TaskUpdate (``taskId``, ``status``, ``subject``...), each
changing one task. The fold knows a todo tool by the whole list in its arguments, so the
adapter keeps the list and gives every task call ``todos``: the list as it stands once that
call succeeds, in TodoWrite's shape (``content``, ``status``). A task is created when its call
is seen (so that calls sent together in one message see each other), gets its id from the
call's result ("Task #3 created successfully", or ``toolUseResult.task.id``), and is removed
again when the create failed. Deleted tasks leave the list. TaskList's result says how the
session's tasks stand (teammates update them in their own sessions): the states it lists
for tasks the list knows are theirs now; a task it lists that this session did not create
stays out (a listing is a read), remembered with its subject: once the session updates it
(a teammate claims the task its lead created, or completes it), it is the session's too.
"""

from __future__ import annotations

import re
from typing import Final

from session_memory.core.events import JsonObject
from session_memory.formats.base import as_dict, as_str

__all__ = [
    "MAX_TASKS",
    "TASK_TOOLS",
    "Tasks",
    "listed_task_states",
    "plan_task_call",
    "settle_task_call",
]

TASK_TOOLS: Final = frozenset({"TaskCreate", "TaskUpdate"})

MAX_TASKS: Final = 200
"""Tasks remembered; beyond this the oldest only listed, then the oldest finished (then the
oldest) are forgotten."""

Tasks = list[list[str | None]]
"""Each task as [create call id, task id or None until known, subject, status]; the create
call id is the updating call's for a task the session took on, empty for one only listed."""

_CREATED: Final = re.compile(r"Task #(\w+) created")
_STATUSES: Final = frozenset({"pending", "in_progress", "completed"})
# "#29 [in_progress] TST-6: Integration test for migration flow (test-eng) [blocked by #20]"
_LISTED: Final = re.compile(
    r"^#(\w+) \[(pending|in_progress|completed)\] ([^\n]*?)"
    r"(?: \([\w.@-]+\))?(?: \[blocked by [^\]\n]*\])?[ \t]*$",
    re.MULTILINE,
)


def plan_task_call(tasks: Tasks, name: str, call_id: str, args: JsonObject) -> JsonObject:
    """Apply a task call to ``tasks`` and return its arguments with the resulting ``todos``."""
    if name == "TaskCreate":
        subject = as_str(args.get("subject")) or as_str(args.get("description"))
        if not subject:
            return args
        tasks.append([call_id, None, subject, "pending"])
        _bound(tasks)
    else:
        task = _find(tasks, as_str(args.get("taskId")) or _int_str(args.get("taskId")))
        if task is None:
            return args
        status = as_str(args.get("status"))
        if status == "deleted":
            tasks.remove(task)
        else:
            if status in _STATUSES:
                task[3] = status
            task[2] = as_str(args.get("subject")) or task[2]
            task[0] = task[0] or call_id  # updated: the session's own now
    return {**args, "todos": _todos(tasks)}


def settle_task_call(
    tasks: Tasks, call_id: str, *, failed: bool, structured: object, text: str
) -> None:
    """Learn a created task's id from its result; forget the task if its creation failed."""
    for task in tasks:
        if task[0] == call_id and task[1] is None:
            break
    else:
        return
    if failed:
        tasks.remove(task)
        return
    details = as_dict(structured)
    created = as_dict(details.get("task")) if details else None
    task_id = (as_str(created.get("id")) or _int_str(created.get("id"))) if created else None
    if task_id is None and (m := _CREATED.search(text)):
        task_id = m.group(1)
    task[1] = task_id


def listed_task_states(tasks: Tasks, text: str) -> JsonObject | None:
    """Apply the states a TaskList result lists ("#3 [completed] Fix auth") to the tasks of
    ``tasks`` it names; the arguments carrying the resulting ``todos`` when one changed."""
    changed = False
    for task_id, status, subject in _LISTED.findall(text[:20_000]):
        task = _find(tasks, task_id)
        if task is None:
            tasks.append(["", task_id, subject.strip(), status])  # not the session's
            _bound(tasks)
        elif task[3] != status:
            task[3], changed = status, changed or bool(task[0])
    return {"todos": _todos(tasks)} if changed else None


def _todos(tasks: Tasks) -> list[JsonObject]:
    """The session's tasks in TodoWrite's shape (not those it only saw listed)."""
    return [{"content": t[2], "status": t[3]} for t in tasks if t[0]]


def tasks_are_valid(value: object) -> bool:
    """Whether restored adapter state has the shape of :data:`Tasks`."""
    return isinstance(value, list) and all(
        isinstance(t, list) and len(t) == 4 and all(v is None or isinstance(v, str) for v in t)
        for t in value
    )


def _find(tasks: Tasks, task_id: str | None) -> list[str | None] | None:
    if task_id is None:
        return None
    return next((t for t in tasks if t[1] == task_id), None)


def _int_str(value: object) -> str | None:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _bound(tasks: Tasks) -> None:
    while len(tasks) > MAX_TASKS:
        done = next((t for t in tasks if not t[0]), None)  # only listed
        done = done or next((t for t in tasks if t[3] == "completed"), None)
        tasks.remove(done if done is not None else tasks[0])
