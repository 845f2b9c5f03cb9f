"""Rules for messages, state transitions, checkpoints and terminal events.

Each event is first parsed into a small typed value (pure: any JSON shape is tolerated, a
payload that says nothing to the memory parses to None), then applied to the store.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from deriver.agent_text import (
    bids_anew,
    option_of,
    quote_head_tail,
    replies_to_question,
    retractions,
    takes_offer,
)
from deriver.checks import CheckRules
from deriver.conclusions import KEPT_WHOLE
from deriver.keys import checkpoint_key, verify_key
from deriver.recording import Failures, decision, verification
from deriver.stands import Stands
from deriver.store import MemoryStore, Stamp
from deriver.todo_lists import TodoLists
from deriver.tool_calls import answered_in_words
from deriver.user_text import (
    choices_stated,
    is_short_answer,
    names_nothing,
    only_asks,
    only_ships,
    reports_done,
)
from deriver.wording import DRIVE_RE, as_dict, code, detail_text, goal_text, quote, str_or_none
from session_memory.core.events import TranscriptEvent
from session_memory.core.outcome import payload_text
from session_memory.core.redact import contain_trusted_line, quote_untrusted
from session_memory.core.summary import CompactionSummary, checkpoint_summary

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
_MAX_REASONS: Final = 6
_REQUEST_CHARS: Final = 120
_SUMMARY_CHARS: Final = 140
_CHOICE_CHARS: Final = 240
# An error the summary says was fixed (by a word, or a "Fix:" of its own), or needed no fix.
_FIXED_RE: Final = re.compile(
    r"(?i)\b(?:fixed|resolved|solved|corrected|removed)\b|\bfix(?:es)?:"
    r"|\bno (?:changes?|fix(?:es)?) (?:was |were )?(?:needed|required)\b"
)
_SUMMARY_KINDS: Final = frozenset(
    {"summary_todo", "summary_resume", "summary_lesson", "summary_decision", "summary_goal",
     "summary_done"}
)  # fmt: skip


class UserMessage(NamedTuple):
    """A user's request or acknowledgement."""

    content: str
    stamp: Stamp
    run_id: str | None
    cwd: str | None = None
    git: bool = False
    """The adapter says the working directory is in a git work tree (``payload["git_branch"]``)."""
    queued: bool = False
    """Typed while the agent worked (``metadata["queued"]``): the request it worked on goes on."""


class AssistantMessage(NamedTuple):
    """What an assistant message says to the memory: decisions, and a final answer."""

    decisions: tuple[str, ...]
    final_action: str | None
    content: str
    stamp: Stamp
    cwd: str | None = None
    git: bool = False


class Transition(NamedTuple):
    reason: str
    details: str
    stamp: Stamp
    checkpoint_id: str | None = None
    cwd: str | None = None
    git: bool = False


class Checkpoint(NamedTuple):
    """A compaction checkpoint: its line in Key decisions, and what its summary states."""

    text: str
    checkpoint_id: str | None
    summary: CompactionSummary | None
    stamp: Stamp
    label: str = ""
    """A compaction's line without the summary's request: when the memory quotes the
    session's own requests, the summary's account of them repeats them."""


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
    cwd, git = _cwd(payload), _in_git(payload)
    if role == "user":
        if str_or_none(metadata.get("source")) in SYNTHETIC_SOURCES or not content.strip():
            return None if cwd is None else AssistantMessage((), None, "", _stamp(event), cwd, git)
        queued = metadata.get("queued") is True
        return UserMessage(content, _stamp(event), event.run_id, cwd, git, queued)
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
    if not decisions and final is None and cwd is None and not content.strip():
        return None
    return AssistantMessage(tuple(decisions), final, content, _stamp(event), cwd, git)


_MAX_CWD_CHARS: Final = 4096


def _cwd(payload: Mapping[str, object]) -> str | None:
    """The session's working directory an adapter states (``payload["cwd"]``)."""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or len(cwd) > _MAX_CWD_CHARS:
        return None
    if cwd.startswith("/"):
        return cwd.rstrip("/") or "/"
    if DRIVE_RE.match(cwd):  # Windows: D:\proj
        return cwd.rstrip("/\\") if len(cwd) > 3 else cwd
    return None


def _in_git(payload: Mapping[str, object]) -> bool:
    """Whether an adapter states the git branch of the working directory, which is then in
    a git work tree (``payload["git_branch"]``)."""
    branch = payload.get("git_branch")
    return isinstance(branch, str) and bool(branch.strip())


def _reasons(details: object) -> str:
    """A gate's ``details.reasons`` (``verification_invalid:tests``...) as code spans."""
    reasons = as_dict(details).get("reasons")
    if not isinstance(reasons, list):
        return ""
    names = [code(r, 60) for r in reasons[:_MAX_REASONS] if isinstance(r, str) and r.strip()]
    return ", ".join(names)


def _compaction_details(details: object) -> str:
    """How many messages a compaction folded away, and into which checkpoint."""
    fields = as_dict(details)
    count = fields.get("messages_compacted")
    parts = [f"{count} messages"] if type(count) is int else []
    checkpoint_id = str_or_none(fields.get("checkpoint_id"))
    if checkpoint_id:
        parts.append(f"checkpoint {code(checkpoint_id, 60)}")
    return ", ".join(parts)


def parse_transition(event: TranscriptEvent) -> Transition | None:
    payload = event.payload
    reason = payload.get("reason")
    cwd, git = _cwd(payload), _in_git(payload)
    if not isinstance(reason, str) or reason not in _TRANSITION_REASONS:
        return None if cwd is None else Transition("", "", _stamp(event), None, cwd, git)
    details = payload.get("details")
    stamp = _stamp(event)
    if reason == "context_compacted":
        checkpoint_id = str_or_none(as_dict(details).get("checkpoint_id"))
        return Transition(reason, _compaction_details(details), stamp, checkpoint_id, cwd, git)
    text = detail_text(details)
    text = quote_untrusted(text, 120) if text else ""
    reasons = _reasons(details)
    if reasons:
        text = f"{text} ({reasons})" if text else reasons
    return Transition(reason, text, stamp, None, cwd, git)


def _summary_lead(summary: str) -> str:
    """The first line of a summary that is not a heading, for a summary with no request."""
    for text_line in summary.splitlines():
        stripped = text_line.strip().strip("*_ ")
        if stripped and not text_line.lstrip().startswith("#"):
            return stripped
    return ""


def parse_checkpoint(event: TranscriptEvent) -> Checkpoint:
    payload = event.payload
    checkpoint_id = str_or_none(payload.get("checkpoint_id"))
    raw = payload_text(payload.get("summary"))
    summary = checkpoint_summary(payload)
    trigger = str_or_none(payload.get("trigger"))
    if trigger is not None:
        pre = payload.get("pre_tokens")
        tokens = f", {pre} tokens before" if type(pre) is int else ""
        label = f"context compacted ({contain_trusted_line(trigger, 20)}{tokens})"
    elif checkpoint_id:
        label = f"checkpoint {code(checkpoint_id, 60)}"
    else:
        label = "checkpoint"
    lead = summary.request if summary is not None and summary.request else _summary_lead(raw)
    if summary is not None and lead:
        # Text the checkpoint's own line quotes is not repeated as where work resumes.
        resume = tuple(r for r in summary.resume if not r.startswith(lead))
        summary = summary._replace(resume=resume)
    text = f"{label}: {quote_untrusted(lead, _REQUEST_CHARS)}" if lead else label
    # A client's compaction summary's request paraphrases the session's requests; a summary's
    # first line otherwise says where work stood, and a native checkpoint's summary is the
    # agent's own record of it: kept whole.
    paraphrase = trigger is not None and summary is not None and bool(summary.request)
    return Checkpoint(text, checkpoint_id, summary, _stamp(event), label if paraphrase else "")


# How a run ended, in words: the native reasons (MyCodeAgent's, which the adapters map
# their formats' endings to); any other reason is shown as it is written.
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
_CAUSE_CHARS: Final = 40


def _ending_details(reason: str, details: dict[str, Any]) -> str:
    """What a terminal event's details add for a reader: who interrupted, why the run was
    cut short, the limit reached, the reasons a gate gave, the error message."""
    if details.get("by") == "user":
        return " by the user"
    cause = str_or_none(details.get("cause"))
    if cause is not None and (shown := contain_trusted_line(cause, _CAUSE_CHARS)):
        return f" ({shown})"
    limit = details.get("max_steps")
    if type(limit) is int:
        return f" ({limit} steps)"
    reasons = _reasons(details)
    if reasons:
        return f": {reasons}"
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

    def __init__(
        self,
        store: MemoryStore,
        failures: Failures,
        stands: Stands,
        todos: TodoLists,
        checks: CheckRules,
    ) -> None:
        self.store = store
        self.failures = failures
        self.stands = stands
        self.todos = todos
        self.checks = checks

    def _set_cwd(self, cwd: str | None, git: bool) -> None:
        if cwd is not None:
            self.store.cwd = cwd
            self.store.root = self.store.root or cwd
        if git:
            self.stands.in_git()

    def apply_message(self, message: UserMessage | AssistantMessage) -> bool:
        self._set_cwd(message.cwd, message.git)
        if isinstance(message, UserMessage):
            return self._user_message(message)
        store = self.store
        stamp = message.stamp
        if message.final_action is None:
            # Said while working, not to close the turn: the agent's last words (where the
            # session stands shows them), and maybe its reading of a failure.
            if message.content:
                self.failures.read_by_agent(message.content, stamp)
                self.stands.working_message(message.content, stamp)
            if not message.decisions:
                return bool(message.content)
        else:
            self.failures.unread = None
        wrong = retractions(message.content)
        if wrong:
            self.todos.said_wrong(wrong, stamp)
        for text in message.decisions:
            decision(store, "decision", text, stamp)
        action = message.final_action
        if action is not None:
            # The message that closes a turn: where the session stands until the next one.
            self.stands.closing_message(message.content, stamp)
            self.failures.turn_closed(stamp)
            self.todos.turn_closed(stamp)
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
        self.failures.unread = None  # what the agent says next answers the user
        if not self.checks.pasted(message.content, message.stamp):
            self.failures.reported(message.content, message.stamp)
        store, stands = self.store, self.stands
        goal, content, closing = store.goal, message.content, stands.closing
        answered_in_words(store, content, message.stamp)
        if goal is not None and (
            (is_short_answer(content) and not bids_anew(closing, content))
            or reports_done(content)
            or (closing and (option_of(closing, content) or takes_offer(closing, content)
                             or replies_to_question(closing, content)))
        ):  # fmt: skip
            # An answer to the agent ("yes", "the second one", "B, nested in the options",
            # "post it" to its offer to post, "I restarted the server, try again"), not a new
            # request: bound to its question.
            stands.user_said(content, True, message.stamp)
            return True
        if message.queued and goal is not None and not (stands.ending or stands.completed):
            # Typed while the agent worked on the request and taken into its running turn
            # ("also note …", "remember to …"): more of the same request, not a new one.
            stands.extended(content)
            text = f"{goal.text}\n{goal_text(content)}"
            store.set_goal(text, goal.source, goal.run_id, root=goal.root)
            assert store.goal is not None
            store.goal.worked, store.goal.shipped = goal.worked, goal.shipped
            self._choices(content, message.stamp)  # "we also use migrations in staging"
            return True
        stands.user_said(content, False, message.stamp)
        self.todos.plan_steps.planned(content, message.stamp, approved=False)
        if goal is not None and goal.text == goal_text(content):
            # The same request sent again (after an interrupt): still the one goal.
            store.set_goal(goal.text, message.stamp, message.run_id, root=goal.root)
            return True
        if goal is not None and not goal.root:
            # How the user wants the work done: true after the request itself is done, so
            # kept once a new request replaces it (the current goal shows its own). The root
            # request stays pinned, its choices with it.
            self._choices(goal.text, goal.source)
        self.todos.new_request(message.stamp)
        for item in store.items_of("todo_items"):
            if item.kind == "summary_resume":
                store.remove(item, message.stamp)  # where work stood at a compaction: past
        self.failures.new_request(message.stamp)
        if goal is not None and (goal.root or not (
            self.checks.run_pasted(goal.text)
            or (only_asks(goal.text) and not goal.worked)
            or (only_ships(goal.text) and goal.shipped)
            or names_nothing(goal.text)
        )):  # fmt: skip
            # A run the user pasted, once replaced, is in the checks and failures; a question
            # answered with no file changed, in the answer; a commit or push asked for and
            # made, in the completed work; a bare word ("update"), in the agent's message it
            # answered; a request is an earlier goal.
            # Head and tail: what a long message asks is often at its end, after what it
            # quotes.
            earlier = quote_head_tail(goal.text, _EARLIER_GOAL_CHARS)
            # The session's root request stays pinned: evicted only with the todos.
            kind, tier = ("root_goal", "todo_items") if goal.root else ("goal", None)
            store.add("earlier_goals", kind, earlier, goal.source, tier=tier)
            store.requests = dict([*store.requests.items(), (earlier, goal.text)][-KEPT_WHOLE:])
        store.set_goal(goal_text(content), message.stamp, message.run_id, root=goal is None)
        return True

    def _choices(self, request: str, stamp: Stamp) -> None:
        """What a request states of how the work is to be done, a key decision."""
        if choices := choices_stated(request):
            decision(self.store, "user_choice", f"user said: {quote(choices, _CHOICE_CHARS)}",
                     stamp)  # fmt: skip

    def apply_transition(self, transition: Transition) -> bool:
        self._set_cwd(transition.cwd, transition.git)
        if not transition.reason:
            return False  # only a working directory: nothing to show
        details, stamp = transition.details, transition.stamp
        suffix = f": {details}" if details else ""
        if transition.reason == "context_compacted":
            self._compacted(transition)
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

    def _compacted(self, transition: Transition) -> None:
        """A compaction: on its checkpoint's line when that is in the memory, else its own."""
        store, stamp, details = self.store, transition.stamp, transition.details
        checkpoint_id = transition.checkpoint_id
        item = store.get(checkpoint_key(checkpoint_id)) if checkpoint_id else None
        if item is None:
            text = f"context compacted ({details})" if details else "context compacted"
            self._drop_earlier_compactions(stamp)
            decision(store, "compaction", text, stamp)
            return
        count = details.split(",", 1)[0] if details[:1].isdigit() else ""
        if count and "compacted" not in item.text:
            label, _, rest = item.text.partition(": ")
            text = f"{label} ({count} compacted)" + (f": {rest}" if rest else "")
            store.update(item, stamp, text=text, touch=False)

    def apply_checkpoint(self, checkpoint: Checkpoint) -> bool:
        store, stamp = self.store, checkpoint.stamp
        if store.goal is not None and not store.goal.text.startswith(_FROM_SUMMARY):
            checkpoint = checkpoint._replace(text=checkpoint.label or checkpoint.text)
        self._drop_summary_items(stamp)
        checkpoint_id = checkpoint.checkpoint_id
        if checkpoint_id:
            key = checkpoint_key(checkpoint_id)
            item = store.get(key)
            if item is None:
                self._drop_earlier_compactions(stamp)
                store.add("key_decisions", "checkpoint", checkpoint.text, stamp,
                          status="decision", key=key)  # fmt: skip
            else:
                store.update(item, stamp, text=checkpoint.text)
        else:
            self._drop_earlier_compactions(stamp)
            decision(store, "checkpoint", checkpoint.text, stamp)
        if checkpoint.summary is not None:
            self._apply_summary(checkpoint.summary, stamp)
        return True

    def _drop_earlier_compactions(self, stamp: Stamp) -> None:
        """A compaction's line stands for the ones before it: that the context was
        compacted is said once, by the latest."""
        store = self.store
        for item in store.items_of("key_decisions"):
            if item.kind in _COMPACTION_KINDS:
                store.remove(item, stamp)

    def _drop_summary_items(self, stamp: Stamp) -> None:
        """A new checkpoint's summary supersedes the items of the one before."""
        store = self.store
        for section in _SUMMARY_SECTIONS:
            for item in store.items_of(section):
                if item.kind in _SUMMARY_KINDS:
                    store.remove(item, stamp)

    def _apply_summary(self, summary: CompactionSummary, stamp: Stamp) -> None:
        """A summary's sections as items, quoted: pending tasks as todos, the current work
        and next step as where work resumes, errors not fixed as lessons, decisions, the user's
        messages as earlier goals, completed milestones as completed work."""
        store = self.store
        if store.goal is None and summary.request:
            store.set_goal(goal_text(f"{_FROM_SUMMARY}{summary.request}"),
                           stamp, None)  # fmt: skip
        # All of it in the tiers evicted first (completed work, then earlier goals), so
        # that a summary never crowds out an exact item; within a tier the most recent
        # items are spared longest, so the pending tasks come last.
        for text in summary.done:
            store.add("completed_work", "summary_done", f"summary: {_quote(text)}", stamp)
        for text in summary.decisions:
            store.add("key_decisions", "summary_decision", f"summary: {_quote(text)}", stamp,
                      status="decision", tier="earlier_goals")  # fmt: skip
        for text in summary.errors:
            # One it says was fixed is past, nothing left open; the others are kept as put.
            if not _FIXED_RE.search(text):
                store.add("failed_attempts", "summary_lesson", f"summary: {_quote(text)}",
                          stamp, status="lesson", tier="earlier_goals")  # fmt: skip
        for text in self._new_requests(summary.user_messages):
            store.add("earlier_goals", "summary_goal", f"{_quote(text)} (summary)", stamp)
        for text in summary.resume:
            store.add("todo_items", "summary_resume", _quote(text), stamp, status="resume",
                      tier="earlier_goals")  # fmt: skip
        for text in summary.todos:
            store.add("todo_items", "summary_todo", f"summary: {_quote(text)}", stamp,
                      status="pending", tier="earlier_goals")  # fmt: skip

    def _new_requests(self, messages: tuple[str, ...]) -> list[str]:
        """The summary's user messages that no goal in the memory already states."""
        store = self.store
        known = [_normal(item.text) for item in store.items_of("earlier_goals")]
        if store.goal is not None:
            known.append(_normal(store.goal.text))
        fresh = []
        for message in messages:
            if is_short_answer(message) or names_nothing(message):
                continue  # "continue", "yes", "update": an answer then, no request to remember
            text = _normal(message)
            # The memory keeps a long message's head: the same head is the same message.
            head = text[:_SAME_HEAD_CHARS]
            if text and not any(text in seen or seen.startswith(head) for seen in known):
                fresh.append(message)
        return fresh

    def apply_terminal(self, terminal: Terminal) -> bool:
        stamp = terminal.stamp
        self.stands.terminal(terminal.reason, terminal.text, stamp)
        if terminal.reason == "completed":
            blocked = self.store.get(verify_key("stop_hook"))
            if blocked is not None:
                self.store.remove(blocked, stamp)
            # The run that resumed after a compaction ended: what its summary said was
            # pending and under way is past (what is left is in the later events).
            for item in self.store.items_of("todo_items"):
                if item.kind == "summary_resume" or item.kind == "summary_todo":
                    self.store.remove(item, stamp)
        return True


_SUMMARY_SECTIONS: Final = (
    "todo_items", "failed_attempts", "key_decisions", "earlier_goals", "completed_work"
)  # fmt: skip


_COMPACTION_KINDS: Final = frozenset({"compaction", "checkpoint"})
_SAME_HEAD_CHARS: Final = 80
_EARLIER_GOAL_CHARS: Final = 280
_FROM_SUMMARY: Final = "(from the compaction summary) "


def _quote(text: str) -> str:
    return quote_untrusted(text, _SUMMARY_CHARS)


def _normal(text: str) -> str:
    """Text compared loosely: case, quotes, runs of white space and the memory's own marks
    (a line break shown as "⏎", a heading's "#" in its full-width form) do not count."""
    text = unicodedata.normalize("NFKC", text).replace("\u23ce", " ")
    return " ".join(text.casefold().replace("\u201c", " ").replace("\u201d", " ")
                    .replace('"', " ").split())  # fmt: skip
