"""A copy-on-update deriver, for comparison only: the cost model of MyCodeAgent's deriver.

MyCodeAgent (the agent whose transcript design this project grew from) updates its session
memory per event by building a new frozen memory from the previous one: every list of items
is copied, the tool-call state is copied, and the todo and verification items for unfinished
calls are recomputed by sorting *all* tool-call states seen so far. Nothing is ever evicted,
so each update costs time proportional to everything seen before it: O(n) per event and
O(n^2) to keep the memory current over a whole transcript.

This module reproduces that cost structure with the rules described in the MyCodeAgent
article on its Transcript and SessionMemoryDeriver: latest real user request as
the goal, final answers and completed calls as completed work, failed calls and
``model_recovery_failed`` as failed attempts, checkpoints and ``context_compacted`` as key
decisions, ``stop_hook_blocking`` and terminal events as verification status, calls requested
but never started as replan todos, calls started but never finished as uncertain actions.
It is written here for the benchmark and is not used by the library.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from session_memory.core.events import TranscriptEvent

__all__ = ["BaselineItem", "BaselineMemory", "CopyOnUpdateDeriver"]

_UNCERTAIN_MARK = "uncertain tool action"
_NOT_REPLAYABLE = frozenset({"Edit", "Bash", "Task"})


@dataclass(frozen=True)
class BaselineItem:
    """One memory line and the event it came from."""

    text: str
    event_id: str
    step: int | None


@dataclass(frozen=True)
class BaselineMemory:
    """The whole memory, rebuilt as new tuples on every update."""

    current_goal: BaselineItem | None = None
    completed_work: tuple[BaselineItem, ...] = ()
    key_decisions: tuple[BaselineItem, ...] = ()
    failed_attempts: tuple[BaselineItem, ...] = ()
    todo_items: tuple[BaselineItem, ...] = ()
    verification_status: tuple[BaselineItem, ...] = ()
    event_count: int = 0
    last_event_id: str | None = None
    tool_states: dict[str, dict[str, Any]] = field(default_factory=dict)


class CopyOnUpdateDeriver:
    """``update(previous, event)`` returns a new memory built from copies of the previous."""

    def update(self, previous: BaselineMemory | None, event: TranscriptEvent) -> BaselineMemory:
        prev = previous if previous is not None else BaselineMemory()
        goal = prev.current_goal
        completed = list(prev.completed_work)
        decisions = list(prev.key_decisions)
        failed = list(prev.failed_attempts)
        # Warnings about unfinished calls are recomputed below from the whole tool state.
        verification = [
            item for item in prev.verification_status if _UNCERTAIN_MARK not in item.text.lower()
        ]
        # A shallow copy, as MyCodeAgent makes; the one entry an event changes is copied too,
        # so that earlier memories stay as they were.
        tool_states = dict(prev.tool_states)

        payload = dict(event.payload)
        item = _item_factory(event)
        kind = event.event_type
        if kind == "message":
            role = str(payload.get("role") or "")
            metadata = payload.get("metadata")
            meta: dict[str, Any] = dict(metadata) if isinstance(metadata, dict) else {}
            content = str(payload.get("content") or "").strip()
            if role == "user" and meta.get("source") != "completion_gate":
                goal = item(content)
            elif (
                role == "assistant"
                and meta.get("action_type") in {"final", "final_unverified"}
                and content
            ):
                completed.append(item(f"Assistant produced final response: {content}"))
        elif kind == "state_transition":
            reason = str(payload.get("reason") or "")
            details = payload.get("details")
            checkpoint = details.get("checkpoint_id") if isinstance(details, dict) else None
            if reason == "context_compacted":
                decisions.append(item(f"Created compact checkpoint {checkpoint or 'unknown'}"))
            elif reason == "stop_hook_blocking":
                verification.append(item("Completion gate blocked finalization."))
            elif reason == "model_recovery_failed":
                failed.append(item("Model recovery failed."))
        elif kind == "checkpoint":
            decisions.append(item(f"Recorded checkpoint {payload.get('checkpoint_id')}"))
        elif kind == "terminal":
            reason = str(payload.get("reason") or "")
            if reason:
                verification.append(item(f"Run ended: {reason}."))
        elif kind == "tool_lifecycle":
            call_id = str(payload.get("tool_call_id") or "")
            if call_id:
                name = str(payload.get("tool_name") or "unknown")
                status = str(payload.get("status") or "")
                key = f"{event.run_id}\x1f{call_id}"
                state = dict(tool_states.get(key) or {"tool_call_id": call_id})
                state["tool_name"] = name
                state[status] = {"event_id": event.event_id, "step": event.step}
                tool_states[key] = state
                if status == "completed":
                    completed.append(item(f"Completed tool {name} ({call_id})."))
                elif status == "failed":
                    failed.append(item(f"Failed tool {name} ({call_id})."))

        todos, unresolved = _unresolved(tool_states)
        return BaselineMemory(
            current_goal=goal,
            completed_work=tuple(completed),
            key_decisions=tuple(decisions),
            failed_attempts=tuple(failed),
            todo_items=tuple(todos),
            verification_status=tuple([*verification, *unresolved]),
            event_count=prev.event_count + 1,
            last_event_id=event.event_id,
            tool_states=tool_states,
        )


def _item_factory(event: TranscriptEvent) -> Callable[[str], BaselineItem]:
    def make(text: str) -> BaselineItem:
        return BaselineItem(text=text, event_id=event.event_id, step=event.step)

    return make


def _unresolved(
    tool_states: dict[str, dict[str, Any]],
) -> tuple[list[BaselineItem], list[BaselineItem]]:
    """Todos and warnings for unfinished calls, from a sorted pass over every call seen."""
    todos: list[BaselineItem] = []
    warnings: list[BaselineItem] = []
    for _key, state in sorted(tool_states.items()):
        name = state["tool_name"]
        call_id = state["tool_call_id"]
        requested = state.get("requested")
        started = state.get("started")
        finished = state.get("completed") is not None or state.get("failed") is not None
        if started is not None and not finished:
            source = started
            replay = "replay allowed" if name not in _NOT_REPLAYABLE else "do not replay"
            todos.append(
                BaselineItem(
                    f"Resolve uncertain action {name} ({call_id}), {replay}.",
                    source["event_id"],
                    source["step"],
                )
            )
            warnings.append(
                BaselineItem(
                    f"Uncertain tool action {name} ({call_id}).",
                    source["event_id"],
                    source["step"],
                )
            )
        elif requested is not None and started is None and not finished:
            todos.append(
                BaselineItem(
                    f"Replan pending tool call {name} ({call_id}).",
                    requested["event_id"],
                    requested["step"],
                )
            )
    return todos, warnings
