"""Rules for messages, state transitions, checkpoints and terminal events.

Each event is first parsed into a small typed value (pure: any JSON shape is tolerated, a
payload that says nothing to the memory parses to None), then applied to the store.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from deriver.keys import verify_key
from deriver.recording import Failures, decision, verification
from deriver.store import MemoryStore, Stamp
from deriver.user_text import first_line, is_acknowledgement
from deriver.wording import EXCERPT_CHARS, as_dict, code, detail_text, goal_text, str_or_none
from session_memory.events import TranscriptEvent
from session_memory.outcome import payload_text
from session_memory.redact import contain_trusted_line, quote_untrusted

__all__ = [
    "AssistantMessage",
    "Checkpoint",
    "MessageRules",
    "Terminal",
    "Transition",
    "UserMessage",
    "parse_checkpoint",
    "parse_message",
    "parse_terminal",
    "parse_transition",
]

FINAL_ACTIONS: Final = frozenset({"final", "final_unverified"})
SYNTHETIC_SOURCES: Final = frozenset({"completion_gate"})
_GOAL_SOURCE_CHARS: Final = 64 * 1024
_DECISION_PREFIX: Final = "decision:"
_TRANSITION_REASONS: Final = frozenset(
    {"context_compacted", "stop_hook_blocking", "model_recovery_failed"}
)


class UserMessage(NamedTuple):
    """A user's request or acknowledgement."""

    content: str
    stamp: Stamp
    run_id: str | None


class AssistantMessage(NamedTuple):
    """What an assistant message says to the memory: decisions, and a final answer."""

    decisions: tuple[str, ...]
    final_action: str | None
    content: str
    stamp: Stamp


class Transition(NamedTuple):
    reason: str
    details: str
    stamp: Stamp


class Checkpoint(NamedTuple):
    text: str
    stamp: Stamp


class Terminal(NamedTuple):
    reason: str
    text: str
    stamp: Stamp


def _stamp(event: TranscriptEvent) -> Stamp:
    return (event.event_id, event.step)


def parse_message(event: TranscriptEvent) -> UserMessage | AssistantMessage | None:
    payload = event.payload
    role = payload.get("role")
    if role != "user" and role != "assistant":
        return None
    metadata = as_dict(payload.get("metadata"))
    content = payload_text(payload.get("content"))[:_GOAL_SOURCE_CHARS]
    if role == "user":
        if str_or_none(metadata.get("source")) in SYNTHETIC_SOURCES or not content.strip():
            return None
        return UserMessage(content, _stamp(event), event.run_id)
    decisions = []
    raw = metadata.get("decision")
    if isinstance(raw, str) and raw.strip():
        decisions.append(contain_trusted_line(raw, 240))
    # Lowering is per character, so a line that starts with the marker in any case leaves
    # it in the lowered text: most messages have none and skip the scan line by line.
    lines = content.splitlines() if _DECISION_PREFIX in content.lower() else ()
    for text_line in lines:
        stripped = text_line.strip()
        if stripped[: len(_DECISION_PREFIX)].lower() == _DECISION_PREFIX:
            text = stripped[len(_DECISION_PREFIX) :].strip()
            if text:
                decisions.append(contain_trusted_line(text, 240))
    action = metadata.get("action_type")
    final = action if isinstance(action, str) and action in FINAL_ACTIONS else None
    if final is not None and not content.strip():
        final = None
    if not decisions and final is None:
        return None
    return AssistantMessage(tuple(decisions), final, content, _stamp(event))


def parse_transition(event: TranscriptEvent) -> Transition | None:
    payload = event.payload
    reason = payload.get("reason")
    if not isinstance(reason, str) or reason not in _TRANSITION_REASONS:
        return None
    return Transition(reason, detail_text(payload.get("details")), _stamp(event))


def parse_checkpoint(event: TranscriptEvent) -> Checkpoint:
    payload = event.payload
    checkpoint_id = str_or_none(payload.get("checkpoint_id"))
    summary = first_line(payload_text(payload.get("summary")), 400)
    label = f"checkpoint {code(checkpoint_id, 60)}" if checkpoint_id else "checkpoint"
    text = f"{label}: {quote_untrusted(summary, EXCERPT_CHARS)}" if summary else label
    return Checkpoint(text, _stamp(event))


# How a run ended, in words: the reasons the formats write (MyCodeAgent's, and the
# adapters' ``completed``/``interrupted``); any other reason is shown as it is written.
_ENDINGS: Final = {
    "completed": "completed",
    "interrupted": "interrupted",
    "max_steps": "stopped at the step limit",
    "max_turns": "stopped at the turn limit",
    "model_error": "stopped by a model error",
    "error": "stopped by an error",
    "completion_gate_blocked": "blocked by the completion gate",
    "killed": "killed",
    "cancelled": "cancelled",
    "timeout": "timed out",
}
_ABORT_REASONS_SHOWN: Final = frozenset({"replaced", "review_ended", "timeout", "error"})


def _ending_details(reason: str, details: dict[str, Any]) -> str:
    """What a terminal event's details add for a reader: who interrupted, the limit
    reached, the reasons a gate gave, the error message."""
    if details.get("by") == "user":
        return " by the user"
    abort = str_or_none(details.get("abort_reason"))
    if abort is not None:
        return f" ({abort.replace('_', ' ')})" if abort in _ABORT_REASONS_SHOWN else ""
    limit = details.get("max_steps")
    if type(limit) is int:
        return f" ({limit} steps)"
    reasons = details.get("reasons")
    if isinstance(reasons, list) and reasons:
        listed = ", ".join(str(r) for r in reasons[:4] if isinstance(r, str | int))
        return f": {quote_untrusted(listed, 120)}" if listed else ""
    text = detail_text(details)
    return f": {quote_untrusted(text, 120)}" if text else ""


def parse_terminal(event: TranscriptEvent) -> Terminal:
    payload = event.payload
    reason = str_or_none(payload.get("reason")) or "unknown"
    raw = payload.get("details")
    ending = _ENDINGS.get(reason) or contain_trusted_line(reason.replace("_", " "), 60)
    if isinstance(raw, dict):
        ending += _ending_details(reason, raw)
    elif text := detail_text(raw):
        ending += f": {quote_untrusted(text, 120)}"
    return Terminal(reason, ending, _stamp(event))


class MessageRules:
    """Applies parsed messages, transitions, checkpoints and terminal events to a store."""

    def __init__(self, store: MemoryStore, failures: Failures) -> None:
        self.store = store
        self.failures = failures

    def apply_message(self, message: UserMessage | AssistantMessage) -> bool:
        if isinstance(message, UserMessage):
            self._turn_started(message.stamp)
            return self._user_message(message)
        store = self.store
        stamp = message.stamp
        for text in message.decisions:
            decision(store, "decision", text, stamp)
        action = message.final_action
        if action is not None:
            answer = quote_untrusted(first_line(message.content, 400), EXCERPT_CHARS)
            label = "final answer" if action == "final" else "final answer (unverified)"
            store.add("completed_work", "final_answer", f"{label}: {answer}", stamp)
            if action == "final_unverified":
                verification(
                    store,
                    "final_unverified",
                    "warning",
                    "final answer given without verification",
                    stamp,
                    key=verify_key("final"),
                )
        return True

    def _user_message(self, message: UserMessage) -> bool:
        store = self.store
        goal = store.goal
        content = message.content
        if goal is not None and is_acknowledgement(content):
            store.acknowledge(contain_trusted_line(content, 40))
            return True
        if goal is not None:
            earlier = contain_trusted_line(goal.text, 200)
            store.add("earlier_goals", "goal", f"\u201c{earlier}\u201d", goal.source)
        store.set_goal(goal_text(content), message.stamp, message.run_id)
        return True

    def apply_transition(self, transition: Transition) -> bool:
        details, stamp = transition.details, transition.stamp
        suffix = f": {quote_untrusted(details, 120)}" if details else ""
        if transition.reason == "context_compacted":
            decision(self.store, "compaction", "context compacted" + suffix, stamp)
        elif transition.reason == "stop_hook_blocking":
            text = "completion blocked pending verification" + suffix
            verification(
                self.store, "stop_hook", "blocked", text, stamp, key=verify_key("stop_hook")
            )
        else:
            self.failures.record(
                "model_recovery", "model", None, "model recovery failed" + suffix, stamp
            )
        return True

    def apply_checkpoint(self, checkpoint: Checkpoint) -> bool:
        decision(self.store, "checkpoint", checkpoint.text, checkpoint.stamp)
        return True

    def _turn_started(self, stamp: Stamp) -> None:
        """A new turn: how the previous run ended is no longer how the last run ended."""
        ended = self.store.get(verify_key("terminal"))
        if ended is not None:
            self.store.remove(ended, stamp)

    def apply_terminal(self, terminal: Terminal) -> bool:
        stamp = terminal.stamp
        verification(
            self.store, "terminal", "ended", terminal.text, stamp, key=verify_key("terminal")
        )
        if terminal.reason == "completed":
            blocked = self.store.get(verify_key("stop_hook"))
            if blocked is not None:
                self.store.remove(blocked, stamp)
        return True
