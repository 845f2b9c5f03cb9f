"""Claude Code's tool calls and how they end: the part of the adapter that keeps them open.

A ``tool_use`` block becomes ``requested`` + ``started``, and its ``tool_result`` (in a later
``user`` record) ``completed`` or ``failed``, with the outcome the result states
(``claude_results``). TaskCreate / TaskUpdate keep a todo list (``claude_tasks``), and the
states a TaskList result lists update it; ``ToolSearch`` and TaskGet do no work and emit
nothing. Work started in the
background stays open until its task notification or a poll says how it ended, and the polls
are no calls of their own (``claude_background``). A ``pr-link`` record (the session's pull
request) becomes a completed ``pull request`` call with its ``url``, once per pull request.

The file's order is not always the order of events: Claude Code sometimes writes a
``tool_result`` a record before the ``tool_use`` it answers (its ``parentUuid`` names the
call's record). Such a result is kept, a few at most, and ends its call when the call comes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar, Final

from session_memory.core.events import JsonObject, Record
from session_memory.formats.base import MAX_OPEN_CALLS, AdapterBase, as_dict, as_int, as_str
from session_memory.formats.claude_background import (
    POLL_TOOLS,
    STOP_TOOLS,
    TaskEnd,
    launched_task,
    polled_task,
    read_poll,
    task_outcome,
)
from session_memory.formats.claude_results import RESULT_MARKERS, ending, is_failed, result_text
from session_memory.formats.claude_tasks import (
    TASK_TOOLS,
    Tasks,
    listed_task_states,
    plan_task_call,
    settle_task_call,
    tasks_are_valid,
)
from session_memory.formats.outcomes import ResultMarkers

__all__ = ["ClaudeCalls"]

_NOT_WORK_TOOLS: Final = frozenset({"ToolSearch", "TaskGet"})
"""Calls that do no work: loading deferred tools' schemas (``ToolSearch`` with
``select:TaskCreate,TaskUpdate``) and reading back one task the adapter already keeps."""
_PULL_REQUEST: Final = "pull request"
_MAX_PULL_REQUESTS: Final = 16
_MAX_EARLY_RESULTS: Final = 16


class ClaudeCalls(AdapterBase):
    """The open calls of a Claude Code session, and the records that end them."""

    result_markers: ClassVar[ResultMarkers] = RESULT_MARKERS
    _STATE: ClassVar[tuple[str, ...]] = (
        "_open",
        "_tasks",
        "_background",
        "_polls",
        "_pull_requests",
        "_early",
    )

    def __init__(self) -> None:
        super().__init__()
        self._open: dict[str, list[str | None]] = {}
        """Open tool calls: tool_use id -> [tool name, run id]."""
        self._tasks: Tasks = []
        """The task list TaskCreate / TaskUpdate keep (see ``claude_tasks``)."""
        self._background: dict[str, str] = {}
        """Work running in the background: task id -> the open call that started it."""
        self._polls: dict[str, str] = {}
        """Polls of that work waiting for their result: poll call id -> task id."""
        self._pull_requests: list[str] = []
        """The URLs of the pull requests already emitted."""
        self._early: dict[str, list[Any]] = {}
        """Results written before their call: tool_use id -> [toolUseResult, the result
        block, its event id, timestamp]."""

    def _state_is_valid(self) -> bool:
        return (
            super()._state_is_valid()
            and tasks_are_valid(self._tasks)
            and isinstance(self._open, dict)
            and all(isinstance(v, list) and len(v) == 2 for v in self._open.values())
            and all(
                isinstance(m, dict) and all(isinstance(v, str) for v in m.values())
                for m in (self._background, self._polls)
            )
            and all(isinstance(url, str) for url in self._pull_requests)
            and all(
                isinstance(v, list) and len(v) == 4 and isinstance(v[1], dict)
                for v in self._early.values()
            )
        )

    @staticmethod
    def _is_work(block: JsonObject) -> bool:
        """Whether a ``tool_use`` block is a call that does work (it may be a poll of one)."""
        name = block.get("name")
        return (
            isinstance(block.get("id"), str)
            and isinstance(name, str)
            and name not in (_NOT_WORK_TOOLS)
        )

    def _call(self, out: list[Record], event_id: str, block: JsonObject, ts: str | None) -> None:
        """A call of :meth:`_is_work`: requested and started, unless it polls background work."""
        call_id, name = str(block["id"]), str(block["name"])
        args = as_dict(block.get("input")) or {}
        task = polled_task(args) if name in POLL_TOOLS else None
        if task is not None and (task in self._background or name in STOP_TOOLS):
            self._polls[call_id] = task
            _bound(self._polls)
            return
        if name in TASK_TOOLS:
            args = plan_task_call(self._tasks, name, call_id, args)
        self._tool_call(out, event_id, name, call_id, args, ts, self._open)
        early = self._early.pop(call_id, None)
        if early is not None:
            structured, result, result_id, result_ts = early
            self._tool_result({"toolUseResult": structured}, result, result_id, result_ts, out)

    def _tool_result(
        self,
        record: JsonObject,
        block: JsonObject,
        event_id: str,
        ts: str | None,
        out: list[Record],
    ) -> None:
        """A ``tool_result`` block ends its call, unless the call went on in the background."""
        call_id = as_str(block.get("tool_use_id"))
        text = result_text(block.get("content"))
        structured = record.get("toolUseResult")
        if call_id in self._polls:
            task = self._polls.pop(call_id)
            polled = read_poll(structured, text)
            if polled is not None:
                self._task_ended(replace(polled, task_id=task), event_id, ts, out)
            return
        entry = self._open.pop(call_id, None) if call_id is not None else None
        if call_id is None:
            return
        if entry is None:
            # Written before its call, or the call is not in this file (an excerpt).
            self._early[call_id] = [structured, block, event_id, ts]
            while len(self._early) > _MAX_EARLY_RESULTS:
                del self._early[next(iter(self._early))]
            return
        name = entry[0]
        failed = is_failed(block, structured)
        if name in TASK_TOOLS:
            settle_task_call(self._tasks, call_id, failed=failed, structured=structured, text=text)
        started = None if failed else launched_task(structured)
        if started is not None:  # started in the background: open until its end is reported
            self._open[call_id] = entry
            self._background[started] = call_id
            _bound(self._background)
            return
        end = ending(name, text, structured, failed=failed)
        listed = listed_task_states(self._tasks, text) if name == "TaskList" else None
        if listed is not None:
            end = replace(end, extra={**end.extra, "args": listed})
        self._tool_end(
            out,
            event_id,
            call_id,
            entry,
            failed=failed,
            text=end.text,
            timestamp=ts,
            exit_code=end.exit_code,
            extra=end.extra,
            outcome=end.outcome,
        )

    def _task_ended(
        self, end: TaskEnd | None, event_id: str, ts: str | None, out: list[Record]
    ) -> None:
        """Background work ended: the call that started it ends as the work did."""
        if end is None:
            return
        call_id = self._background.pop(end.task_id or "", None)
        if call_id is None and end.call_id is not None and end.call_id in self._background.values():
            call_id = end.call_id
            self._background = {t: c for t, c in self._background.items() if c != call_id}
        entry = self._open.pop(call_id, None) if call_id is not None else None
        if call_id is None or entry is None:
            return  # not started in this file, or its end was already reported
        outcome = task_outcome(end)
        failed = outcome.status == "failed"
        self._tool_end(
            out,
            event_id,
            call_id,
            entry,
            failed=failed,
            text=end.text,
            timestamp=ts,
            outcome=outcome,
        )

    def _pull_request(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        """The session's pull request (``pr-link``): a completed call naming it, once."""
        url = as_str(record.get("prUrl"))
        if not url or url in self._pull_requests:
            return
        self._pull_requests.append(url)
        del self._pull_requests[:-_MAX_PULL_REQUESTS]
        args: JsonObject = {"url": url}
        if (number := as_int(record.get("prNumber"))) is not None:
            args["number"] = number
        ts, event_id = as_str(record.get("timestamp")), f"cc@{offset}:pr"
        self._tool_call(out, event_id, _PULL_REQUEST, event_id, args, ts, self._open)
        entry = self._open.pop(event_id)
        self._tool_end(out, event_id, event_id, entry, failed=False, text=url, timestamp=ts)


def _bound(mapping: dict[str, str]) -> None:
    """Forget the oldest entries beyond what the open calls themselves keep."""
    while len(mapping) > MAX_OPEN_CALLS:
        del mapping[next(iter(mapping))]
