"""The derivation rules: which handler parses and applies each event type.

Each handler first parses the event into a typed value (pure; any JSON shape is tolerated,
and this is the one step where a malformed payload can be caught and counted), then applies
it to the store. The rules and their eviction tiers are documented in ``docs/rules.md``
and listed in :data:`RULES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, NamedTuple, TypeVar

from deriver.messages import (
    AssistantMessage,
    MessageRules,
    UserMessage,
    parse_checkpoint,
    parse_message,
    parse_terminal,
    parse_transition,
)
from deriver.recording import Failures
from deriver.stands import Stands
from deriver.store import Item, MemoryStore
from deriver.tool_calls import ToolCallRules, parse_tool_event
from session_memory.core.events import TranscriptEvent
from session_memory.core.memory import SectionName

__all__ = ["RULES", "Handler", "Rule", "Rules"]

T = TypeVar("T")


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
    Rule("root_goal", "the session's first goal, replaced by a later one",
         "earlier goal pinned: evicted only with the todos", "earlier_goals", "todo_items"),
    Rule("acknowledgement", "short user reply that continues (continue, yes, ok, 继续, "
         "continue until all are done...)",
         "counted on the current goal, never a new goal", "current_goal", "never evicted"),
    Rule("final_answer", "assistant message with metadata.action_type final or final_unverified",
         "completed work with the answer's first line", "completed_work", "completed_work"),
    Rule("final_unverified", "assistant message with metadata.action_type final_unverified",
         "verification warning", "verification_status", "verification_status"),
    Rule("decision", "assistant metadata.decision, or an assistant line starting 'Decision:'",
         "key decision; the same decision again counts up", "key_decisions", "key_decisions"),
    Rule("compaction", "state_transition with reason context_compacted",
         "key decision", "key_decisions", "key_decisions"),
    Rule("checkpoint", "checkpoint event",
         "key decision: the checkpoint and its summary's request (or first line); a "
         "context_compacted transition naming it adds the messages compacted",
         "key_decisions", "key_decisions"),
    Rule("summary_todo", "checkpoint summary section of pending tasks",
         "todo, quoted; gone when a run completes, a todo list or checkpoint follows",
         "todo_items", "earlier_goals"),
    Rule("summary_resume", "checkpoint summary section of current work or next step",
         "todo 'resume:', quoted; gone when a run completes, a todo list or checkpoint follows",
         "todo_items", "earlier_goals"),
    Rule("summary_lesson", "checkpoint summary section of errors, fixes or learnings",
         "failed attempt 'lesson:', quoted; replaced by a later checkpoint",
         "failed_attempts", "earlier_goals"),
    Rule("summary_decision", "checkpoint summary section of decisions or problem solving",
         "key decision, quoted; replaced by a later checkpoint", "key_decisions",
         "earlier_goals"),
    Rule("summary_goal", "checkpoint summary section of the user's messages",
         "earlier goal, quoted, unless a goal in the memory states it",
         "earlier_goals", "earlier_goals"),
    Rule("summary_done", "checkpoint summary section of completed milestones",
         "completed work, quoted; replaced by a later checkpoint", "completed_work",
         "completed_work"),
    Rule("plan", "ExitPlanMode (plan-mode exit) completed", "key decision: the approved plan",
         "key_decisions", "key_decisions"),
    Rule("answer", "AskUserQuestion completed", "key decision: the user's answer",
         "key_decisions", "key_decisions"),
    Rule("stop_hook", "state_transition with reason stop_hook_blocking",
         "verification: completion blocked; cleared when a run completes",
         "verification_status", "verification_status"),
    Rule("terminal", "terminal event",
         "verification: how the last run ended, in words; gone once a new turn starts",
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
         "failed attempt with tool, key argument, the line that says why; the same failure again "
         "counts up; a later success that did all the failed command did, on the same targets, "
         "resolves it: kept as a lesson when spelled otherwise, gone when the same command line "
         "simply worked; a read that found nothing (no match, no such file) is no failure and "
         "no work",
         "failed_attempts", "open_failures, then resolved_failures"),
    Rule("check", "shell command that runs tests, builds, linters or a project gate "
         "(make check, just test, npm run check-types, pre-commit run...)",
         "one verification line per check: passed or failed in the runner's own summary "
         "words, with the failing tests; a broader later run settles narrower ones; stale "
         "after a later edit of a file checks read (not docs)",
         "verification_status", "verification_status"),
    Rule("check_failed", "a check that failed",
         "failed attempt with the line that says why, one per cause; a later pass of the "
         "same or a broader check marks it resolved", "failed_attempts", "resolved_failures"),
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
         "the todo list is replaced by the latest list, verbatim, in order; its open steps "
         "go when the agent's closing message (a final answer) follows",
         "todo_items", "todo_items"),
    Rule("tracker_todo", "task-tracker shell command (beads bd update/close/list/ready/show/"
         "create) completed", "one todo per issue the session claimed, created or closed, and the "
         "open issues listed under them; a listing alone is a read; closed issues become "
         "completed work", "todo_items", "todo_items"),
    Rule("todo_done", "a todo item that became completed", "completed work",
         "completed_work", "completed_work"),
    Rule("task", "Task (sub-agent) completed", "completed work with its description",
         "completed_work", "completed_work"),
    Rule("tool", "any other tool call completed", "completed work: tool and key argument",
         "completed_work", "completed_work"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Handler(Generic[T]):
    """How one event type changes the memory: ``parse`` (pure, may fail), then ``apply``."""

    parse: Callable[[TranscriptEvent], T | None]
    apply: Callable[[T], bool]


class Rules:
    """Event handlers over a :class:`MemoryStore`."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.failures = Failures(store)
        self.stands = Stands(store)
        self.messages = MessageRules(store, self.failures, self.stands)
        self.tools = ToolCallRules(store, self.failures, self.stands)
        messages = self.messages
        self.handlers: dict[str, Handler[Any]] = {
            "message": Handler(parse_message, self._apply_message),
            "state_transition": Handler(parse_transition, messages.apply_transition),
            "tool_lifecycle": Handler(parse_tool_event, self.tools.apply),
            "checkpoint": Handler(parse_checkpoint, messages.apply_checkpoint),
            "terminal": Handler(parse_terminal, messages.apply_terminal),
        }

    def _apply_message(self, message: UserMessage | AssistantMessage) -> bool:
        changed = self.messages.apply_message(message)
        if isinstance(message, AssistantMessage) and message.final_action is not None:
            # The agent closed its turn reporting what it did: the plan it never updated
            # again is over, its steps still marked open are not what is left to do.
            changed = self.tools.close_plan(message.stamp) or changed
        return changed

    # -- views and snapshots --------------------------------------------------------------

    def ordered(self, section: SectionName) -> list[Item]:
        """A section's items in display order: the todo list first, in its own order."""
        items = self.store.items_of(section)
        if section == "todo_items":
            return [i for i in items if i.kind == "todo"] + [i for i in items if i.kind != "todo"]
        return items

    def to_state(self) -> dict[str, Any]:
        return {
            **self.tools.to_state(),
            "failures": self.failures.to_state(),
            "stands": self.stands.to_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.tools.load_state(state)
        self.failures.load_state(state["failures"])
        self.stands.load_state(state["stands"])
