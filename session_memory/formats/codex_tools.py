"""Codex's tool calls as native lifecycle events: calls joined with their outputs, and the
processes a call leaves running.

``function_call`` / ``custom_tool_call`` / ``local_shell_call`` become ``requested`` +
``started``, joined with their outputs on ``call_id`` (what an output says is read by
:mod:`~session_memory.formats.codex_calls`); ``exec_command_end`` and ``patch_apply_end``
are authoritative when present; an output "Process running with session ID N" leaves the
call open, and the ``write_stdin`` polls of session N are folded into it instead of
becoming calls of their own. :class:`CodexAdapter <session_memory.formats.codex.CodexAdapter>`
builds on this class for the rest of a rollout.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from session_memory.core.events import JsonObject, Record, SkippedLine
from session_memory.formats.base import AdapterBase, as_dict, as_str
from session_memory.formats.codex_calls import (
    RESULT_MARKERS,
    decode_arguments,
    exec_end,
    parse_output,
    patch_arguments,
    patch_end,
)
from session_memory.formats.outcomes import ResultMarkers

__all__ = ["CodexToolCalls"]

MAX_SESSIONS: Final = 256
_SESSION_TOOLS: Final = frozenset({"exec_command", "shell", "local_shell"})
"""The tools whose output may leave a process running, polled by ``write_stdin`` later."""


class CodexToolCalls(AdapterBase):
    """The tool calls of a Codex rollout: their lifecycle events and the state that joins them."""

    result_markers: ClassVar[ResultMarkers] = RESULT_MARKERS
    _STATE: ClassVar[tuple[str, ...]] = ("_open", "_sessions", "_polls")

    def __init__(self) -> None:
        super().__init__()
        self._open: dict[str, list[str | None]] = {}
        """Open tool calls: call_id -> [tool name, run id]."""
        self._sessions: dict[str, str] = {}
        """Running unified-exec processes: session id -> the call_id that started them."""
        self._polls: dict[str, str] = {}
        """Open ``write_stdin`` polls: their call_id -> the original call_id."""

    def _state_is_valid(self) -> bool:
        return (
            super()._state_is_valid()
            and all(isinstance(v, list) and len(v) == 2 for v in self._open.values())
            and all(isinstance(v, str) for v in self._sessions.values())
            and all(isinstance(v, str) for v in self._polls.values())
        )

    def _release(self, out: list[Record], *, final: bool) -> None:
        """Emit what waits for the next record (a held message): the rollout's adapter knows."""

    def _call(
        self, ptype: str, p: JsonObject, offset: int, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        call_id = as_str(p.get("call_id")) or as_str(p.get("id"))
        if call_id is None:
            out.append(SkippedLine(offset=offset, reason=f"Codex {ptype} without a string call_id"))
            return
        self._release(out, final=False)
        args: JsonObject
        if ptype == "local_shell_call":
            name = "local_shell"
            args = as_dict(p.get("action")) or {}
        else:
            name_value = as_str(p.get("name"))
            if name_value is None:
                out.append(
                    SkippedLine(offset=offset, reason=f"Codex {ptype} without a string name")
                )
                return
            name = name_value
            if ptype == "custom_tool_call":
                args = patch_arguments(as_str(p.get("input")) or "")
            else:
                args = decode_arguments(p.get("arguments"))
        if name == "write_stdin":
            session = args.get("session_id")
            original = self._sessions.get(str(session)) if session is not None else None
            if original is not None:
                # A poll of a command we already track: its outcome belongs to that command
                # (which exec_command_end may have closed already), not to a call of its own.
                self._polls[call_id] = original
                _trim(self._polls, MAX_SESSIONS)
                return
        self._tool_call(out, eid, name, call_id, args, ts, self._open)

    def _output(
        self, p: JsonObject, offset: int, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        call_id = as_str(p.get("call_id"))
        if call_id is None:
            out.append(
                SkippedLine(offset=offset, reason="Codex tool output without a string call_id")
            )
            return
        text, exit_code, running, failed = parse_output(p.get("output"))
        original = self._polls.pop(call_id, None)
        if original is not None:
            if running is not None or exit_code is None:
                return  # still running
            self._forget_session(original)
            call_id = original
        elif running is not None and self._open.get(call_id, [None])[0] in _SESSION_TOOLS:
            self._sessions[running] = call_id  # the call stays open until a poll ends it
            _trim(self._sessions, MAX_SESSIONS)
            return
        entry = self._open.pop(call_id, None)
        if entry is None:
            return  # closed already (exec_command_end came first) or not in this file
        self._tool_end(
            out, eid, call_id, entry, failed=failed, text=text, timestamp=ts, exit_code=exit_code
        )

    def _exec_end(self, p: JsonObject, eid: str, ts: str | None, out: list[Record]) -> None:
        """``exec_command_end``: the authoritative end of the command it names."""
        self._release(out, final=False)
        call_id = as_str(p.get("call_id"))
        entry = self._open.pop(call_id, None) if call_id else None
        if call_id is None or entry is None:
            return
        text, exit_code, _, failed = exec_end(p)
        self._tool_end(
            out, eid, call_id, entry, failed=failed, text=text, timestamp=ts, exit_code=exit_code
        )

    def _patch_end(self, p: JsonObject, eid: str, ts: str | None, out: list[Record]) -> None:
        """``patch_apply_end``: the authoritative end of the patch it names."""
        call_id = as_str(p.get("call_id"))
        entry = self._open.pop(call_id, None) if call_id else None
        if call_id and entry is not None:
            text, _, _, failed = patch_end(p)
            self._tool_end(out, eid, call_id, entry, failed=failed, text=text, timestamp=ts)

    def _web_search(self, p: JsonObject, eid: str, ts: str | None, out: list[Record]) -> None:
        """``web_search_end``: a web search, requested and completed at once."""
        self._release(out, final=False)
        call_id = as_str(p.get("call_id")) or eid
        query = as_str(p.get("query")) or ""
        self._tool_call(out, eid, "web_search", call_id, {"query": query}, ts, self._open)
        entry = self._open.pop(call_id)
        self._tool_end(out, eid, call_id, entry, failed=False, text=query, timestamp=ts)

    def _forget_session(self, call_id: str) -> None:
        for session, owner in list(self._sessions.items()):
            if owner == call_id:
                del self._sessions[session]
        for poll, owner in list(self._polls.items()):
            if owner == call_id:
                del self._polls[poll]


def _trim(mapping: dict[str, Any], limit: int) -> None:
    while len(mapping) > limit:
        del mapping[next(iter(mapping))]
