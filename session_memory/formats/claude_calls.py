"""Claude Code's tool calls and how they end: the part of the adapter that keeps them open.

A ``tool_use`` block becomes ``requested`` + ``started``, and its ``tool_result`` (in a later
``user`` record) ``completed`` or ``failed``, with the outcome the result states
(``claude_results``). TaskCreate / TaskUpdate keep a todo list (``claude_tasks``);
``ToolSearch``, TaskList and TaskGet do no work and emit nothing.
"""

from __future__ import annotations

from typing import ClassVar, Final

from session_memory.core.events import JsonObject, Record
from session_memory.formats.base import AdapterBase, as_dict, as_str
from session_memory.formats.claude_results import RESULT_MARKERS, ending, is_failed, result_text
from session_memory.formats.claude_tasks import (
    TASK_TOOLS,
    Tasks,
    plan_task_call,
    settle_task_call,
    tasks_are_valid,
)
from session_memory.formats.outcomes import ResultMarkers

__all__ = ["ClaudeCalls"]

_NOT_WORK_TOOLS: Final = frozenset({"ToolSearch", "TaskList", "TaskGet"})
"""Calls that do no work: loading deferred tools' schemas (``ToolSearch`` with
``select:TaskCreate,TaskUpdate``) and reading back the task list the adapter already keeps."""


class ClaudeCalls(AdapterBase):
    """The open calls of a Claude Code session, and the records that end them."""

    result_markers: ClassVar[ResultMarkers] = RESULT_MARKERS
    _STATE: ClassVar[tuple[str, ...]] = ("_open", "_tasks")

    def __init__(self) -> None:
        super().__init__()
        self._open: dict[str, list[str | None]] = {}
        """Open tool calls: tool_use id -> [tool name, run id]."""
        self._tasks: Tasks = []
        """The task list TaskCreate / TaskUpdate keep (see ``claude_tasks``)."""

    def _state_is_valid(self) -> bool:
        return (
            super()._state_is_valid()
            and tasks_are_valid(self._tasks)
            and isinstance(self._open, dict)
            and all(isinstance(v, list) and len(v) == 2 for v in self._open.values())
        )

    @staticmethod
    def _is_work(block: JsonObject) -> bool:
        """Whether a ``tool_use`` block is a call that does work."""
        name = block.get("name")
        return (
            isinstance(block.get("id"), str)
            and isinstance(name, str)
            and name not in (_NOT_WORK_TOOLS)
        )

    def _call(self, out: list[Record], event_id: str, block: JsonObject, ts: str | None) -> None:
        """A call of :meth:`_is_work`: requested and started."""
        call_id, name = str(block["id"]), str(block["name"])
        args = as_dict(block.get("input")) or {}
        if name in TASK_TOOLS:
            args = plan_task_call(self._tasks, name, call_id, args)
        self._tool_call(out, event_id, name, call_id, args, ts, self._open)

    def _tool_result(
        self,
        record: JsonObject,
        block: JsonObject,
        event_id: str,
        ts: str | None,
        out: list[Record],
    ) -> None:
        """A ``tool_result`` block ends its call."""
        call_id = as_str(block.get("tool_use_id"))
        entry = self._open.pop(call_id, None) if call_id is not None else None
        if call_id is None or entry is None:
            return  # the call is not in this file (an excerpt) or was never seen
        name = entry[0]
        text = result_text(block.get("content"))
        structured = record.get("toolUseResult")
        failed = is_failed(block, structured)
        if name in TASK_TOOLS:
            settle_task_call(self._tasks, call_id, failed=failed, structured=structured, text=text)
        end = ending(name, text, structured, failed=failed)
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
