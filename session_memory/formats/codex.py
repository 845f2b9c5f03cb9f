"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as native events.

Mapping (``docs/formats.md`` has the full table):

* ``session_meta`` gives the session id (the first one owns identity); ``task_started`` and
  ``turn_context`` give the run id (the turn id) and, with ``session_meta``, the session's
  working directory (``cwd``);
* the typed prompt becomes ``message(user)``: ``event_msg/user_message`` (up to 0.1xx), the
  ``response_item`` user message (the only copy in 0.169, with ``item_completed``
  ``UserMessage``); the copies of one prompt become one message, marked ``queued`` when
  typed into a running turn (a second prompt between ``task_started`` and its end). What
  Codex writes into user messages (:mod:`~session_memory.formats.codex_prompts`: AGENTS.md,
  ``<environment_context>``, an IDE preamble, ...) and every developer message
  (permissions, hook output) are not the prompt;
* assistant ``response_item`` messages become ``message(assistant)``, ``phase:
  final_answer`` marked ``action_type: final`` (``task_complete`` supplies the final answer
  when no message carried the phase); a message without ``phase`` (0.40) is held until the
  next record tells: a prompt, ``task_complete`` or the end of the file makes it the turn's
  final answer; ``agent_message`` duplicates are dropped, and so are the Codex app's
  directive lines (``::git-push{…}``);
* tool calls and their outputs are joined by
  :class:`~session_memory.formats.codex_tools.CodexToolCalls`, which this adapter builds on;
* ``compacted`` is a checkpoint: its summary without Codex's handoff preamble, with the
  earlier user messages its ``replacement_history`` keeps; ``task_complete`` and
  ``turn_aborted`` end runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar, Final

from session_memory.core.events import JsonObject, Record, SkippedLine
from session_memory.core.summary import MAX_PER_KIND, SUMMARY_CHARS, summary_payload
from session_memory.formats.base import as_dict, as_int, as_str, cap_text, join_texts
from session_memory.formats.codex_prompts import (
    earlier_requests,
    handoff_summary,
    request,
    typed_text,
)
from session_memory.formats.codex_tools import CodexToolCalls
from session_memory.formats.summaries import read_codex_summary

__all__ = ["CodexAdapter"]

# The Codex app's directive lines in an answer (``::git-push{cwd="…" branch="…"}``): buttons
# and records its UI draws, not what the agent says.
_DIRECTIVE_LINE: Final = re.compile(r"^[ \t]*::[a-z][\w-]*\{[^\n]*\}[ \t]*(?:\n|$)", re.M)
_RESPONSE_ITEMS: Final = frozenset(
    {
        "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
        "custom_tool_call_output", "local_shell_call", "web_search_call", "ghost_snapshot",
        "image_generation_call", "tool_search_call", "tool_search_output", "compaction",
        "context_compaction", "agent_message",
    }
)  # fmt: skip
_EVENTS: Final = frozenset(
    {
        "user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
        "agent_reasoning_section_break", "token_count", "context_compacted",
        "entered_review_mode", "exited_review_mode", "undo_started", "undo_completed",
        "task_started", "task_complete", "turn_aborted", "exec_command_begin",
        "exec_command_end", "patch_apply_begin", "patch_apply_end", "mcp_tool_call_begin",
        "mcp_tool_call_end", "web_search_begin", "web_search_end", "thread_rolled_back",
        "thread_goal_updated", "sub_agent_activity", "item_completed", "plan_update",
        "turn_diff", "error", "stream_error", "background_event", "thread_settings_applied",
        "thread_name_updated", "collab_agent_spawn_begin", "collab_agent_spawn_end",
        "collab_agent_interaction_begin", "collab_agent_interaction_end",
        "collab_waiting_begin", "collab_waiting_end", "collab_close_begin", "collab_close_end",
        "collab_resume_begin", "collab_resume_end",
    }
)  # fmt: skip
_IGNORED_RECORDS: Final = frozenset(
    {"world_state", "token_usage_record", "inter_agent_communication_metadata"}
)
"""Record types that carry no session-memory facts (settings, usage, how a sub-agent's
message is routed)."""
_ABORT_CAUSES: Final = {
    "replaced": "replaced",
    "review_ended": "review ended",
    "timeout": "timeout",
    "error": "error",
}
"""The ``turn_aborted`` reasons that say why a turn was cut short, in words; the others
("interrupted": the user stopped it) add nothing to the run's ending."""


class CodexAdapter(CodexToolCalls):
    """Incremental adapter for Codex CLI / Codex Desktop rollout files."""

    format_name: ClassVar[str] = "codex"
    _STATE: ClassVar[tuple[str, ...]] = (
        *CodexToolCalls._STATE,
        "_final_seen",
        "_compacted",
        "_last_prompt",
        "_held",
        "_pending_prompt",
        "_typed_prompts",
        "_turn_prompts",
    )

    def __init__(self) -> None:
        super().__init__()
        self._final_seen = False
        self._compacted = False
        self._last_prompt: str | None = None
        """The prompt just emitted, while nothing else followed (its other copies are dropped)."""
        self._held: list[str | None] | None = None
        """An assistant message without ``phase``: [event id, timestamp, text] until told."""
        self._pending_prompt: list[str | None] | None = None
        """The latest user ``response_item`` of a turn, [event id, timestamp, text]: the
        prompt once the model acts on it, unless a typed-prompt event stands for it."""
        self._typed_prompts = False
        """Whether this rollout writes typed-prompt events (``user_message``, a completed
        ``UserMessage`` item): then its user ``response_item`` messages are only copies."""
        self._turn_prompts: int | None = None
        """Prompts of the running turn (``task_started`` to its end; None outside one): a
        prompt after its first was typed while the agent worked, into its running turn."""

    def finish(self) -> list[Record]:
        """The held assistant message ends the file's last turn: its final answer."""
        out: list[Record] = []
        self._release(out, final=True)
        return out

    def _state_is_valid(self) -> bool:
        return (
            super()._state_is_valid()
            and (self._last_prompt is None or isinstance(self._last_prompt, str))
            and (self._turn_prompts is None or isinstance(self._turn_prompts, int))
            and all(
                v is None or (len(v) == 3 and isinstance(v[2], str))
                for v in (self._held, self._pending_prompt)
            )
        )

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        rtype = record.get("type")
        payload = record.get("payload")
        if isinstance(rtype, str) and rtype in _IGNORED_RECORDS:
            return
        if rtype not in ("session_meta", "turn_context", "response_item", "event_msg", "compacted"):
            out.append(SkippedLine(offset=offset, reason=f"unknown Codex record type {rtype!r}"))
            return
        if not isinstance(payload, dict):
            out.append(
                SkippedLine(
                    offset=offset, reason=f"Codex {rtype} record: 'payload' is not an object"
                )
            )
            return
        ts = as_str(record.get("timestamp"))
        eid = f"cx@{offset}"
        mark = len(out)
        if rtype == "session_meta":
            if self._session_id is None:
                self._session_id = as_str(payload.get("id"))
            self._cwd = as_str(payload.get("cwd")) or self._cwd
            git = as_dict(payload.get("git")) or {}
            self._git_branch = as_str(git.get("branch")) or self._git_branch
        elif rtype == "turn_context":
            self._run_id = as_str(payload.get("turn_id")) or self._run_id
            self._cwd = as_str(payload.get("cwd")) or self._cwd
        elif rtype == "compacted":
            self._release(out, final=False)
            self._checkpoint(payload, eid, ts, out)
        else:
            ptype = payload.get("type")
            known = _RESPONSE_ITEMS if rtype == "response_item" else _EVENTS
            if not isinstance(ptype, str) or ptype not in known:
                out.append(
                    SkippedLine(offset=offset, reason=f"unknown Codex {rtype} type {ptype!r}")
                )
            elif rtype == "response_item":
                self._response_item(ptype, payload, offset, eid, ts, out)
            else:
                self._event_msg(ptype, payload, offset, eid, ts, out)
        if len(out) > mark:  # most records make nothing
            events = [r for r in out[mark:] if not isinstance(r, SkippedLine)]
            if events and events[-1].payload.get("role") != "user":
                self._last_prompt = None  # something followed: a later copy is a new prompt

    # -- response items -------------------------------------------------------------------

    def _response_item(
        self, ptype: str, p: JsonObject, offset: int, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        if ptype == "message":
            self._message(p, offset, eid, ts, out)
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
            self._call(ptype, p, offset, eid, ts, out)
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            self._output(p, offset, eid, ts, out)

    def _message(
        self, p: JsonObject, offset: int, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        role = p.get("role")
        if role not in ("assistant", "user"):
            return  # developer items: permissions, instructions, hook output
        content = p.get("content")
        if not isinstance(content, list):
            out.append(SkippedLine(offset=offset, reason="Codex message: 'content' is not a list"))
            return
        if role == "user":
            text = typed_text(content)
            if text and not self._typed_prompts:
                self._pending_prompt = None  # context injected before the prompt: not it
                self._release(out, final=True)
                self._pending_prompt = [eid, ts, text]
            return
        text = join_texts(
            t for c in content if isinstance(c, dict) and (t := as_str(c.get("text")))
        )
        if not text:
            return
        self._release(out, final=False)
        phase = p.get("phase")
        if phase is None:
            self._held = [eid, ts, text]  # 0.40: final if nothing but the turn's end follows
            return
        final = phase == "final_answer"
        self._final_seen = self._final_seen or final
        self._assistant(eid, ts, text, final, out)

    def _assistant(
        self, eid: str | None, ts: str | None, text: str, final: bool, out: list[Record]
    ) -> None:
        if "::" in text:
            text = _DIRECTIVE_LINE.sub("", text).rstrip()
        payload: JsonObject = {
            "role": "assistant",
            "content": cap_text(text),
            "metadata": {"action_type": "final"} if final else {},
        }
        out.append(self._event(f"{eid}:assistant", "message", payload, ts))

    def _release(self, out: list[Record], *, final: bool) -> None:
        """Emit what waited for the next record: the held assistant message (as the turn's
        final answer or not), then the pending prompt."""
        held = self._held
        if held is not None:
            self._held = None
            eid, ts, text = held
            self._final_seen = self._final_seen or final
            self._assistant(eid, ts, text or "", final, out)
        pending = self._pending_prompt
        if pending is not None:
            self._pending_prompt = None
            self._prompt(pending[2] or "", pending[0] or "cx", pending[1], out)

    def _prompt(self, text: str, eid: str, ts: str | None, out: list[Record]) -> None:
        """The user's prompt, once however many copies of it the rollout holds."""
        prompt = request(text)
        if not prompt or prompt == self._last_prompt:
            return
        self._release(out, final=True)
        self._last_prompt = prompt
        into_turn = bool(self._turn_prompts)
        if self._turn_prompts is not None:
            self._turn_prompts += 1
        metadata: JsonObject = {"queued": True} if into_turn else {}
        payload: JsonObject = {"role": "user", "content": cap_text(prompt), "metadata": metadata}
        out.append(self._event(f"{eid}:user", "message", payload, ts))

    # -- events ---------------------------------------------------------------------------

    def _event_msg(
        self, ptype: str, p: JsonObject, offset: int, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        turn_id = as_str(p.get("turn_id"))
        if ptype == "task_started":
            self._run_id = turn_id or self._run_id
            self._final_seen = False
            self._turn_prompts = 0
        elif self._run_id is None and turn_id is not None:
            self._run_id = turn_id  # a file that starts mid-turn learns its turn here
        handler = _EVENT_MSG_HANDLERS.get(ptype)
        if handler is not None:
            handler(self, _EventMsg(p, offset, eid, ts, turn_id), out)

    def _user_message(self, m: _EventMsg, out: list[Record]) -> None:
        self._typed_prompts = True
        self._pending_prompt = None  # the response_item copy of this prompt
        message = m.p.get("message")
        if not isinstance(message, str):
            out.append(
                SkippedLine(offset=m.offset, reason="Codex user_message: 'message' is not a string")
            )
            return
        self._prompt(message, m.eid, m.ts, out)

    def _item_completed(self, m: _EventMsg, out: list[Record]) -> None:
        # Codex 0.16x writes the typed prompt only as a completed UserMessage item.
        item = as_dict(m.p.get("item"))
        if item is None or item.get("type") != "UserMessage":
            return
        content = item.get("content")
        parts = content if isinstance(content, list) else []
        texts = [t for c in parts if isinstance(c, dict) and (t := as_str(c.get("text")))]
        self._user_message(replace(m, p={"message": join_texts(texts)}), out)

    def _exec_command_end(self, m: _EventMsg, out: list[Record]) -> None:
        self._exec_end(m.p, m.eid, m.ts, out)

    def _patch_apply_end(self, m: _EventMsg, out: list[Record]) -> None:
        self._patch_end(m.p, m.eid, m.ts, out)

    def _web_search_end(self, m: _EventMsg, out: list[Record]) -> None:
        self._web_search(m.p, m.eid, m.ts, out)

    def _mcp_tool_call_end(self, m: _EventMsg, out: list[Record]) -> None:
        self._mcp_end(m.p, m.eid, m.ts, out)

    def _context_compacted(self, m: _EventMsg, out: list[Record]) -> None:
        self._release(out, final=False)
        if not self._compacted:
            payload = {
                "from_state": "running",
                "to_state": "running",
                "reason": "context_compacted",
                "details": {},
            }
            out.append(self._event(f"{m.eid}:compacted", "state_transition", payload, m.ts))
        self._compacted = False

    def _task_complete(self, m: _EventMsg, out: list[Record]) -> None:
        self._turn_ended(m.eid, m.ts, out)
        self._release(out, final=True)
        last = as_str(m.p.get("last_agent_message"))
        if not self._final_seen and last and last.strip():
            self._assistant(m.eid, m.ts, last.strip(), True, out)
        details: JsonObject = {"turn_id": m.turn_id} if m.turn_id else {}
        if (ms := as_int(m.p.get("duration_ms"))) is not None:
            details["duration_ms"] = ms
            details["summary"] = f"after {ms / 1000:.0f} s"
        self._terminal(m, "completed", details, out)

    def _turn_aborted(self, m: _EventMsg, out: list[Record]) -> None:
        self._turn_ended(m.eid, m.ts, out)
        self._release(out, final=False)
        details: JsonObject = {"turn_id": m.turn_id} if m.turn_id else {}
        reason = as_str(m.p.get("reason"))
        if reason in _ABORT_CAUSES:
            details["cause"] = _ABORT_CAUSES[reason]
        self._terminal(m, "interrupted", details, out)

    def _terminal(self, m: _EventMsg, reason: str, details: JsonObject, out: list[Record]) -> None:
        payload = {"reason": reason, "details": details}
        out.append(self._event(f"{m.eid}:terminal", "terminal", payload, m.ts))
        self._final_seen = False
        self._turn_prompts = None

    def _checkpoint(self, p: JsonObject, eid: str, ts: str | None, out: list[Record]) -> None:
        history = p.get("replacement_history")
        retained = len(history) if isinstance(history, list) else 0
        requests, kept_summary = earlier_requests(history)
        # The summary's whole text, and its sections; an empty summary (a remote
        # compaction's is in an encrypted item) says nothing, and the earlier requests the
        # history keeps are what the user asked.
        summary = cap_text(
            handoff_summary(as_str(p.get("message")) or "") or kept_summary, SUMMARY_CHARS
        )
        sections = read_codex_summary(summary)
        if requests and not sections.user_messages:
            sections = sections._replace(user_messages=tuple(requests[-MAX_PER_KIND:]))
        payload: JsonObject = {
            "checkpoint_id": eid,
            "summary": summary,
            "summary_sections": summary_payload(sections),
            "trigger": "auto",
            "retained_items": retained,
        }
        out.append(self._event(f"{eid}:checkpoint", "checkpoint", payload, ts))
        self._compacted = True


@dataclass(frozen=True, slots=True)
class _EventMsg:
    """An ``event_msg`` record's payload and where it came from."""

    p: JsonObject
    offset: int
    eid: str
    ts: str | None
    turn_id: str | None


_EVENT_MSG_HANDLERS: Final[dict[str, Callable[[CodexAdapter, _EventMsg, list[Record]], None]]] = {
    "user_message": CodexAdapter._user_message,
    "item_completed": CodexAdapter._item_completed,
    "exec_command_end": CodexAdapter._exec_command_end,
    "patch_apply_end": CodexAdapter._patch_apply_end,
    "web_search_end": CodexAdapter._web_search_end,
    "mcp_tool_call_end": CodexAdapter._mcp_tool_call_end,
    "context_compacted": CodexAdapter._context_compacted,
    "task_complete": CodexAdapter._task_complete,
    "turn_aborted": CodexAdapter._turn_aborted,
}
