"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``) as native events.

Mapping (``docs/formats.md`` has the full table):

* a real human prompt becomes ``message(user)``; tool-result carriers, ``isMeta`` expansions,
  command wrappers, the client's own commands (those after the local command caveat) and
  compact summaries do not; what of a user's text is a prompt is ``claude_prompts``'s to say;
* the text blocks of one API message (records sharing ``message.id``) become one
  ``message(assistant)``; it is marked ``action_type: final`` when the message used no tool
  and the turn ended after it (a new prompt, ``turn_duration``, ``stop_hook_summary``,
  ``stop_reason: end_turn`` or the end of a complete read). A message the client wrote
  itself (``model: "<synthetic>"``) is not the agent's: an API error ends the run
  (``terminal`` ``model_error``), any other ("No response requested.") is dropped;
* ``tool_use`` becomes ``requested`` + ``started``; its ``tool_result`` ``completed`` or
  ``failed``, with the outcome the result states (``claude_calls``); a call with no
  result stays open, which the deriver reports as uncertain. Work started in the background
  stays open until its task notification or a poll says how it ended
  (``claude_background``);
* ``compact_boundary`` and the ``isCompactSummary`` record after it become one checkpoint;
* interrupt markers and ``turn_duration`` become ``terminal`` events;
* a prompt queued while the agent was busy (``queue-operation`` ``enqueue``, not a task
  notification or registration) becomes ``message(user)`` where it was queued, and is not
  emitted again when the queue delivers it as a ``user`` record;
* a ``pr-link`` (the session's pull request) becomes a completed ``pull request`` call with
  its ``url``, once per pull request;
* TaskCreate / TaskUpdate keep a todo list (``claude_tasks``); ``ToolSearch`` (loading
  deferred tools), TaskList and TaskGet are not work and emit nothing;
* ``summary`` titles, ``progress`` records (including ``agent_progress`` copies of a
  sub-agent's records), file-history snapshots, ``attachment`` records (hook output such as
  ``hook_additional_context``), ``away_summary`` recaps and 2.1.3xx bookkeeping
  (``api-request*``, ``last-prompt``, ``tools-used``, ``cost-state``, ``mode``) are ignored;
* every record's ``cwd`` is the session's working directory (``docs/formats.md``).

Sub-agents never pollute the parent: a file whose first conversational record is a
sidechain is a sub-agent file and becomes its own session (``<sessionId>:agent-<agentId>``);
in any other file, sidechain records (Claude Code 1.0 writes them inline) are ignored.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from session_memory.core.events import JsonObject, Record, SkippedLine
from session_memory.core.summary import SUMMARY_CHARS, summary_payload
from session_memory.formats.base import as_dict, as_int, as_str, cap_text, join_texts
from session_memory.formats.claude_background import NOTIFICATION, read_notification
from session_memory.formats.claude_calls import ClaudeCalls
from session_memory.formats.claude_prompts import (
    INTERRUPT_PREFIX,
    command_of,
    is_builtin_command,
    is_local_command_caveat,
    is_queued_prompt,
    is_wrapped,
    prompt_text,
)
from session_memory.formats.claude_results import block_texts
from session_memory.formats.summaries import (
    COMPACT_PREAMBLE,
    claude_code_summary_text,
    read_claude_code_summary,
)

__all__ = ["RECORD_TYPES", "ClaudeCodeAdapter"]

_IGNORED_TYPES: Final = frozenset(
    {
        "summary", "progress", "file-history-snapshot", "file-history-delta", "attachment",
        "api-request", "api-request-blob", "api-request-shape", "tools-used", "cost-state",
        "ai-title", "custom-title", "last-prompt", "mode", "permission-mode", "agent-name",
        "worktree-state", "tag", "bridge-session",
    }
)  # fmt: skip
"""Record types that carry no session-memory facts (titles, metadata, mirrored copies).

``attachment`` records (2.1.3xx: ``hook_additional_context``, ``hook_success``, ``file``,
``environment``, ``deferred_tools_delta``, ``skill_listing``, ...) hold what the client or a
hook injected into the context, never what the user asked: deriving them would feed an
injected memory back into itself."""
RECORD_TYPES: Final = frozenset(
    {"user", "assistant", "system", "queue-operation", "pr-link", *_IGNORED_TYPES}
)
"""Every record type the adapter knows: any of them tells a file is Claude Code's."""

_SYSTEM_SUBTYPES: Final = frozenset(
    {
        "compact_boundary", "microcompact_boundary", "stop_hook_summary", "turn_duration",
        "local_command", "api_error", "informational", "away_summary", "bridge_status",
    }
)  # fmt: skip
"""``away_summary`` is the client's recap for a user who was away: a model's restatement of
the records around it, stale as soon as work goes on, so it is not read."""
_SYNTHETIC: Final = "<synthetic>"
"""The ``model`` of an assistant message the client wrote itself."""
_MAX_QUEUED: Final = 32


class ClaudeCodeAdapter(ClaudeCalls):
    """Incremental adapter for Claude Code session and sub-agent files."""

    format_name: ClassVar[str] = "claude-code"
    _STATE: ClassVar[tuple[str, ...]] = (
        "_scope",
        "_group",
        "_boundary",
        "_queued",
        "_held",
        "_local_command",
        "_api_error",
        *ClaudeCalls._STATE,
    )

    def __init__(self) -> None:
        super().__init__()
        self._scope: str | None = None
        """``"main"`` or ``"agent"`` once the first conversational record is seen."""
        self._group: JsonObject | None = None
        """The assistant message being assembled: id, first uuid/timestamp, text, used tools."""
        self._boundary: JsonObject | None = None
        """A compact boundary waiting for its summary record."""
        self._queued: list[str] = []
        """Prompts emitted when the queue handed them over, their ``user`` record not yet seen."""
        self._held: list[list[str | None]] = []
        """Prompts queued and not yet handed over: text, event id, timestamp."""
        self._local_command = False
        """The local command caveat came: the next command is one the client runs itself."""
        self._api_error = False
        """The turn ended on an API error: its ``turn_duration`` is no normal end."""

    def _state_is_valid(self) -> bool:
        group, boundary = self._group, self._boundary
        return (
            super()._state_is_valid()
            and self._scope in (None, "main", "agent")
            and all(isinstance(q, str) for q in self._queued)
            and all(isinstance(h, list) and len(h) == 3 for h in self._held)
            and (group is None or (isinstance(group, dict) and group.keys() >= _GROUP_KEYS))
            and (
                boundary is None
                or (isinstance(boundary, dict) and boundary.keys() >= _BOUNDARY_KEYS)
            )
        )

    def finish(self) -> list[Record]:
        """Emit the held-back assistant message (final), a boundary without summary, and the
        prompts still queued (the user's last words)."""
        out: list[Record] = []
        self._end_turn_part(out, final=True)
        for held in self._held:
            self._release_held(held, out, into_turn=False)
        self._held.clear()
        return out

    # -- dispatch -----------------------------------------------------------------------

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        rtype = record.get("type")
        if not isinstance(rtype, str):
            reason = "Claude Code record without a string 'type'"
            out.append(SkippedLine(offset=offset, reason=reason))
            return
        if rtype in _IGNORED_TYPES:
            return
        if rtype == "queue-operation":
            self._queue_operation(record, offset, out)
            return
        if rtype == "pr-link":
            if self._scope != "agent":
                self._pull_request(record, offset, out)
            return
        if rtype not in ("user", "assistant", "system"):
            reason = f"unknown Claude Code record type {rtype!r}"
            out.append(SkippedLine(offset=offset, reason=reason))
            return
        if not self._in_scope(record):
            return
        self._cwd = as_str(record.get("cwd")) or self._cwd
        self._git_branch = as_str(record.get("gitBranch")) or self._git_branch
        uuid = as_str(record.get("uuid")) or f"cc@{offset}"
        ts = as_str(record.get("timestamp"))
        if rtype == "system":
            self._system(record, offset, uuid, ts, out)
            return
        message = as_dict(record.get("message"))
        content = message.get("content") if message is not None else None
        if message is None or not isinstance(content, str | list):
            what = f"'message.content' is {type(content).__name__}"
            if message is None:
                what = "'message' is not an object"
            out.append(SkippedLine(offset=offset, reason=f"Claude Code {rtype} record: {what}"))
            return
        if rtype == "assistant":
            self._assistant(record, message, content, uuid, ts, out)
        else:
            self._user(record, content, uuid, ts, out)

    def _in_scope(self, record: JsonObject) -> bool:
        """Decide (once) whether this is a sub-agent file; keep only this file's own thread."""
        sidechain = record.get("isSidechain") is True
        if self._scope is None:
            if record.get("type") == "system":
                return not sidechain
            self._scope = "agent" if sidechain else "main"
            session = as_str(record.get("sessionId"))
            agent = as_str(record.get("agentId"))
            if sidechain and session and agent:
                self._session_id = f"{session}:agent-{agent}"
            else:
                self._session_id = session
        elif self._session_id is None and not sidechain:
            self._session_id = as_str(record.get("sessionId"))
        return sidechain == (self._scope == "agent")

    def _queue_operation(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        """A prompt typed while the agent was busy is held until the queue hands it over.

        ``remove`` hands it to the running turn: more of the request at work (``metadata
        ["queued"]``); ``dequeue`` starts a new turn with it, and the ``user`` record that
        repeats it is not emitted twice; ``popAll`` takes them all back to be edited, and the
        end of a complete read releases those still held as the user's last words. A queued
        task notification ends the task it names; task registrations and other wrappers are
        not prompts.
        """
        operation = record.get("operation")
        content = as_str(record.get("content")) or ""
        if operation in ("remove", "dequeue") and self._held:
            named = prompt_text(content)
            held = next((h for h in self._held if h[0] == named), self._held[0])
            self._held.remove(held)
            self._release_held(held, out, into_turn=operation == "remove")
        elif operation == "popAll":
            self._held.clear()
        if operation != "enqueue" or self._scope == "agent":
            return
        ts = as_str(record.get("timestamp"))
        if content.startswith(NOTIFICATION):
            self._task_ended(read_notification(content), f"cc@{offset}:task", ts, out)
            return
        text = prompt_text(content)
        if is_queued_prompt(text):
            self._held.append([text, f"cc@{offset}:queued", ts])
            del self._held[:-_MAX_QUEUED]

    def _release_held(self, held: list[str | None], out: list[Record], *, into_turn: bool) -> None:
        """Emit a held prompt: into the running turn, or as a new turn's (its ``user`` record,
        if one comes, then says nothing new)."""
        text, eid, ts = (part or "" for part in held)
        self._close_group(out, final=not into_turn)
        metadata: JsonObject = {"queued": True} if into_turn else {}
        payload: JsonObject = {"role": "user", "content": cap_text(text), "metadata": metadata}
        out.append(self._event(eid, "message", payload, ts or None))
        if not into_turn:
            self._queued.append(text)
            del self._queued[:-_MAX_QUEUED]

    # -- user records -------------------------------------------------------------------

    def _user(
        self,
        record: JsonObject,
        content: str | list[Any],
        uuid: str,
        ts: str | None,
        out: list[Record],
    ) -> None:
        if record.get("isCompactSummary") is True or (
            isinstance(content, str) and COMPACT_PREAMBLE.match(content)
        ):
            text = content if isinstance(content, str) else block_texts(content)
            self._checkpoint(out, summary=text)
            return
        if record.get("isMeta") is True:
            # Skill/command expansions and hook reminders are injected, not the user's; the
            # caveat says the command after it is the client's own.
            text = content if isinstance(content, str) else block_texts(content)
            self._local_command = self._local_command or is_local_command_caveat(text)
            return
        if isinstance(content, str):
            self._user_text(content, uuid, ts, out)
            return
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            self._end_turn_part(out, final=False)
            for index, block in enumerate(results):
                self._tool_result(record, block, f"cc:{uuid}:{index}", ts, out)
        texts = [
            t
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and (t := as_str(b.get("text")))
        ]
        if any(t.startswith(INTERRUPT_PREFIX) for t in texts):
            self._interrupted(uuid, ts, out)
        elif texts and not results:
            self._user_text(join_texts(texts), uuid, ts, out)

    def _user_text(self, text: str, uuid: str, ts: str | None, out: list[Record]) -> None:
        local, self._local_command = self._local_command, False
        text = prompt_text(text)
        if text.startswith(INTERRUPT_PREFIX):
            self._interrupted(uuid, ts, out)
            return
        if text.startswith(NOTIFICATION):
            self._task_ended(read_notification(text), f"cc:{uuid}:task", ts, out)
            return
        if is_wrapped(text) or not text:
            return  # command output, shell input, notifications, hook feedback: not a goal
        command = command_of(text)
        if command is not None:
            name, args = command
            self._end_turn_part(out, final=True)
            if local or is_builtin_command(name):
                return  # the client ran it: it steers the session, it asks for no work
            text = f"/{name} {args}".strip()
        self._end_turn_part(out, final=True)
        self._api_error = False
        if text in self._queued:
            self._queued.remove(text)  # emitted when the queue handed it over
            return
        self._held = [h for h in self._held if h[0] != text]  # delivered as this record
        self._run_id = uuid
        payload: JsonObject = {"role": "user", "content": cap_text(text.strip()), "metadata": {}}
        out.append(self._event(f"cc:{uuid}:user", "message", payload, ts))

    def _interrupted(self, uuid: str, ts: str | None, out: list[Record]) -> None:
        self._end_turn_part(out, final=False)
        payload: JsonObject = {"reason": "interrupted", "details": {"by": "user"}}
        out.append(self._event(f"cc:{uuid}:terminal", "terminal", payload, ts))

    # -- assistant records ----------------------------------------------------------------

    def _assistant(
        self,
        record: JsonObject,
        message: JsonObject,
        content: str | list[Any],
        uuid: str,
        ts: str | None,
        out: list[Record],
    ) -> None:
        self._flush_boundary(out)
        if message.get("model") == _SYNTHETIC:
            self._synthetic(record, content, uuid, ts, out)
            return
        message_id = as_str(message.get("id")) or f"@{uuid}"
        group = self._group
        if group is not None and group["id"] != message_id:
            self._close_group(out, final=False)
            group = None
        if group is None:
            group = self._group = {
                "id": message_id,
                "uuid": None,
                "ts": None,
                "text": "",
                "tools": False,
            }
        blocks: list[Any] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content
        )
        for index, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                text = as_str(block.get("text"))
                if text and text.strip():
                    if group["uuid"] is None:
                        group["uuid"], group["ts"] = uuid, ts
                    group["text"] = join_texts((group["text"], text))
            elif btype == "tool_use" and self._is_work(block):
                self._emit_group_text(out, final=False)
                group["tools"] = True
                self._call(out, f"cc:{uuid}:{index}", block, ts)
        if message.get("stop_reason") == "end_turn":
            self._close_group(out, final=True)

    def _synthetic(
        self,
        record: JsonObject,
        content: str | list[Any],
        uuid: str,
        ts: str | None,
        out: list[Record],
    ) -> None:
        """A message the client wrote: an API error ends the run; "No response requested."
        and the like are nobody's words."""
        if record.get("isApiErrorMessage") is not True:
            return
        self._end_turn_part(out, final=False)
        self._api_error = True
        text = content if isinstance(content, str) else block_texts(content)
        payload: JsonObject = {"reason": "model_error", "details": {"message": cap_text(text)}}
        out.append(self._event(f"cc:{uuid}:terminal", "terminal", payload, ts))

    def _emit_group_text(self, out: list[Record], *, final: bool) -> None:
        group = self._group
        if group is None or not group["text"]:
            return
        metadata: JsonObject = {"action_type": "final"} if final and not group["tools"] else {}
        payload: JsonObject = {
            "role": "assistant",
            "content": cap_text(group["text"]),
            "metadata": metadata,
        }
        out.append(self._event(f"cc:{group['uuid']}:assistant", "message", payload, group["ts"]))
        group["text"] = ""
        group["uuid"] = group["ts"] = None

    def _close_group(self, out: list[Record], *, final: bool) -> None:
        self._emit_group_text(out, final=final)
        self._group = None

    # -- system records -------------------------------------------------------------------

    def _system(
        self, record: JsonObject, offset: int, uuid: str, ts: str | None, out: list[Record]
    ) -> None:
        subtype = record.get("subtype")
        if not isinstance(subtype, str) or subtype not in _SYSTEM_SUBTYPES:
            reason = f"unknown Claude Code system subtype {subtype!r}"
            out.append(SkippedLine(offset=offset, reason=reason))
            return
        if subtype == "compact_boundary":
            self._end_turn_part(out, final=False)
            meta = as_dict(record.get("compactMetadata")) or {}
            self._boundary = {
                "uuid": uuid,
                "ts": ts,
                "trigger": as_str(meta.get("trigger")) or "auto",
                "pre_tokens": as_int(meta.get("preTokens")),
            }
        elif subtype == "turn_duration":
            self._end_turn_part(out, final=True)
            if self._api_error:  # the run already ended, on the error
                return
            details: JsonObject = {}
            if (ms := as_int(record.get("durationMs"))) is not None:
                details["duration_ms"] = ms
            payload: JsonObject = {"reason": "completed", "details": details}
            out.append(self._event(f"cc:{uuid}:terminal", "terminal", payload, ts))
        elif subtype == "stop_hook_summary":
            self._end_turn_part(out, final=True)
            if record.get("preventedContinuation") is True:
                payload = {
                    "from_state": "completing",
                    "to_state": "running",
                    "reason": "stop_hook_blocking",
                    "details": {"stop_reason": as_str(record.get("stopReason")) or ""},
                }
                out.append(self._event(f"cc:{uuid}:stop_hook", "state_transition", payload, ts))
        elif subtype == "local_command":
            self._close_group(out, final=True)

    def _checkpoint(self, out: list[Record], *, summary: str) -> None:
        """The boundary and its summary as one checkpoint: the summary's text (without the
        client's own preamble, closing lines and reminders, read up to ``SUMMARY_CHARS``;
        Claude Code's run to ~15-40 KB) and its sections."""
        boundary = self._boundary
        if boundary is None:
            return  # a summary record with no boundary before it: nothing to anchor it to
        self._boundary = None
        text = cap_text(claude_code_summary_text(summary), SUMMARY_CHARS)
        payload: JsonObject = {"checkpoint_id": boundary["uuid"], "summary": text}
        if text.strip():
            payload["summary_sections"] = summary_payload(read_claude_code_summary(text))
        payload["trigger"] = boundary["trigger"]
        if boundary["pre_tokens"] is not None:
            payload["pre_tokens"] = boundary["pre_tokens"]
        out.append(
            self._event(f"cc:{boundary['uuid']}:checkpoint", "checkpoint", payload, boundary["ts"])
        )

    def _end_turn_part(self, out: list[Record], *, final: bool) -> None:
        """A pending compaction becomes a checkpoint, then the held assistant text is emitted."""
        self._flush_boundary(out)
        self._close_group(out, final=final)

    def _flush_boundary(self, out: list[Record]) -> None:
        if self._boundary is not None:
            self._checkpoint(out, summary="")


_GROUP_KEYS: Final = frozenset({"id", "uuid", "ts", "text", "tools"})
_BOUNDARY_KEYS: Final = frozenset({"uuid", "ts", "trigger", "pre_tokens"})
