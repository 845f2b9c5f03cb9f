"""Claude Code background work: a call whose result only says the work was started.

A Bash call run in the background (``run_in_background``, or moved there when it outlived
its timeout) and an asynchronous sub-agent (``Agent`` launched with its result
``status: async_launched``) return at once: their result names the task
(``toolUseResult.backgroundTaskId``, ``toolUseResult.agentId``) and says nothing of how the
work ends. The work ends later, in one of two records:

* a ``<task-notification>`` (a ``user`` record, or queued by ``queue-operation``) with the
  task's ``<task-id>``, the launching call's ``<tool-use-id>``, its ``<status>``
  (``completed``, ``failed``, ``killed``), a ``<summary>`` ("Background command "…" failed
  with exit code 1") and, for an agent, its report in ``<result>`` (an agent "completed"
  whose report is the model's error, "API Error: …", failed);
* the result of a poll (``TaskOutput``, 2.0's ``BashOutput``) that finds the task finished:
  ``toolUseResult.task`` (``status``, ``exitCode``, ``output``) or the same as tags in its
  text (``<status>``, ``<exit_code>``, ``<output>``).

The adapter keeps such a call open until one of them says how it ended (:class:`TaskEnd`),
and a poll is no call of its own. A call whose end never comes stays open: whether the work
finished is exactly what the transcript does not say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from session_memory.core.events import JsonObject
from session_memory.core.outcome import ToolOutcome
from session_memory.formats.base import as_dict, as_int, as_str, join_texts

__all__ = [
    "NOTIFICATION",
    "POLL_TOOLS",
    "STOP_TOOLS",
    "TaskEnd",
    "launched_task",
    "polled_task",
    "read_notification",
    "read_poll",
    "task_outcome",
]

NOTIFICATION: Final = "<task-notification>"
_API_ERROR: Final = "API Error:"
"""How Claude Code words the model's error as a turn's text (a sub-agent's last report when
its model refused: "API Error: … Rate limited")."""
STOP_TOOLS: Final = frozenset({"TaskStop", "KillShell", "KillBash"})
"""Calls that stop a background task: never work of their own, even of a task that already
ended ("Task … is not running")."""
POLL_TOOLS: Final = frozenset({"TaskOutput", "BashOutput", *STOP_TOOLS})
"""Calls that read a background task's output, or stop the task: polls, not work of their
own."""
_STOPPED: Final = re.compile(r"\bSuccessfully (?:stopped task|killed shell)\b")
"""How a stop's result says it stopped the task ("Successfully stopped task: be1uevdoa")."""
_POLL_ID_KEYS: Final = ("task_id", "bash_id", "shell_id")
_ENDED: Final = frozenset({"completed", "failed", "killed"})
_TAG: Final = re.compile(r"<([a-z_-]+)>(.*?)</\1>", re.S)
_EXIT_CODE: Final = re.compile(r"\bexit code (-?\d+)", re.I)


@dataclass(frozen=True, slots=True)
class TaskEnd:
    """How a background task ended, as a notification or a poll reports it."""

    task_id: str | None
    call_id: str | None
    status: str
    """``completed``, ``failed`` or ``killed``."""
    exit_code: int | None
    text: str


def launched_task(structured: object) -> str | None:
    """The task a completed result started in the background, else None."""
    details = as_dict(structured)
    if details is None:
        return None
    background = as_str(details.get("backgroundTaskId"))
    if background:
        return background
    if details.get("isAsync") is True or details.get("status") == "async_launched":
        return as_str(details.get("agentId"))
    return None


def polled_task(args: JsonObject) -> str | None:
    """The task a poll's arguments name."""
    for key in _POLL_ID_KEYS:
        value = as_str(args.get(key))
        if value:
            return value
    return None


def read_notification(text: str) -> TaskEnd | None:
    """A ``<task-notification>`` that says a task ended; None for any other text."""
    if not text.startswith(NOTIFICATION):
        return None
    tags = _tags(text[len(NOTIFICATION) :])
    status = tags.get("status", "")
    if status not in _ENDED:
        return None
    summary = tags.get("summary", "")
    found = _EXIT_CODE.search(summary)
    if tags.get("result", "").startswith(_API_ERROR):
        status = "failed"  # "completed", its report the model's error: it did not do the work
    return TaskEnd(
        task_id=tags.get("task-id") or None,
        call_id=tags.get("tool-use-id") or None,
        status=status,
        exit_code=int(found.group(1)) if found else None,
        text=join_texts((tags.get("result", ""), summary)),  # the agent's report says most
    )


def read_poll(structured: object, text: str) -> TaskEnd | None:
    """A poll's result when it found the task ended, or a stop's that stopped it (the task
    killed); None while it still runs."""
    details = as_dict(structured)
    task = as_dict(details.get("task")) if details is not None else None
    tags = _tags(text)
    status = (as_str(task.get("status")) if task else None) or tags.get("status", "")
    if status not in _ENDED:
        stopped = _STOPPED.search(text[:200])
        return TaskEnd(None, None, "killed", None, text) if stopped else None
    exit_code = as_int(task.get("exitCode")) if task else None
    if exit_code is None and (code := tags.get("exit_code", "").strip()).lstrip("-").isdigit():
        exit_code = int(code)
    output = (as_str(task.get("output")) if task else None) or tags.get("output", "")
    streams = join_texts((tags.get("stdout", ""), tags.get("stderr", "")))
    return TaskEnd(
        task_id=(as_str(task.get("task_id")) if task else None) or tags.get("task_id"),
        call_id=None,
        status=status,
        exit_code=exit_code,
        text=output.strip() or streams,
    )


def task_outcome(end: TaskEnd) -> ToolOutcome:
    """The outcome of the call that started a task, from how the task ended."""
    if end.status == "failed":
        return ToolOutcome("failed", end.exit_code, "", end.text or "failed")
    if end.status == "killed":
        return ToolOutcome("interrupted", end.exit_code, end.text, "")
    return ToolOutcome("completed", end.exit_code, end.text, "")


def _tags(text: str) -> dict[str, str]:
    """The first value of each ``<tag>value</tag>`` in a notification's body or a poll's
    result (a tag inside another one's value is not read)."""
    found: dict[str, str] = {}
    for match in _TAG.finditer(text):
        found.setdefault(match.group(1), match.group(2).strip())
    return found
