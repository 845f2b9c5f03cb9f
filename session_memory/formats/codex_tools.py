"""Codex's tool calls as native lifecycle events: calls joined with their outputs, and the
processes a call leaves running.

* ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` become ``requested`` +
  ``started``, joined with their outputs on ``call_id`` (what an output says is read by
  :mod:`~session_memory.formats.codex_calls`); ``exec_command_end`` and ``patch_apply_end``
  are authoritative when present;
* an output "Process running with session ID N" leaves the call open, and the
  ``write_stdin`` polls of session N are folded into it instead of becoming calls of their
  own (its output is all it printed); the same command line run again while it runs,
  unpolled, ends it there;
* a code-mode cell (``exec``) becomes the calls its script makes
  (:mod:`~session_memory.formats.codex_cells`), each closed by its own end event where
  Codex writes one (a patch, an MCP call) or by the cell's output; ``wait`` on a cell
  delivers the rest of its output, and is no call of its own;
* a shell command that hands a patch to ``apply_patch`` (Codex applies it itself) is the
  ``apply_patch`` call it is;
* ``spawn_agent`` is a native sub-agent task (``Task``), failed when the agent did not
  start; the tools that wait for, list, message or close agents are bookkeeping and emit
  nothing, except that an agent they report as ended in error is that task, failed (the
  agent's work failed, which the spawn alone never says).

:class:`CodexAdapter <session_memory.formats.codex.CodexAdapter>` builds on this class for
the rest of a rollout.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from session_memory.core.events import JsonObject, Record, SkippedLine
from session_memory.core.outcome import ToolOutcome
from session_memory.formats.base import AdapterBase, as_dict, as_str, cap_text
from session_memory.formats.codex_calls import (
    AGENT_BOOKKEEPING,
    RESULT_MARKERS,
    SPAWN_AGENT,
    TASK_TOOL,
    Output,
    agent_failures,
    agent_key,
    decode_arguments,
    exec_end,
    mcp_end,
    parse_output,
    patch_arguments,
    patch_end,
    shell_patch,
    spawned,
    task_arguments,
)
from session_memory.formats.codex_cells import (
    CELL_TOOL,
    MAX_ITEMS,
    Cell,
    CellOutput,
    cell_output,
    native_call,
    script_error,
    shell_results,
)
from session_memory.formats.codex_script import script_calls
from session_memory.formats.outcomes import ResultMarkers

__all__ = ["CodexToolCalls"]

MAX_SESSIONS: Final = 256
_MAX_CELLS: Final = 64
_SESSION_TOOLS: Final = frozenset({"exec_command", "shell", "local_shell"})
"""The tools whose output may leave a process running, polled by ``write_stdin`` later."""
_SEEN_CHARS: Final = 4096
"""How much of a running process's output is kept: its latest part."""
_CTRL_C: Final = "\u0003"
"""The character a poll writes to stop a running process (Ctrl-C)."""
_CTRL_C_ECHO: Final = "^C"
"""How a terminal shows the Ctrl-C a poll wrote (``chars: "\\u0003"``) to a running process."""
_SHELL: Final = "shell"
_POLL: Final = "poll"
_STOP: Final = "stop"
"""A cell's poll that wrote Ctrl-C to the command it looks at: the agent stopped it."""
_CALL: Final = "call"


class CodexToolCalls(AdapterBase):
    """The tool calls of a Codex rollout: their lifecycle events and the state that joins them."""

    result_markers: ClassVar[ResultMarkers] = RESULT_MARKERS
    _STATE: ClassVar[tuple[str, ...]] = (
        "_open",
        "_sessions",
        "_polls",
        "_stopping",
        "_seen",
        "_cells",
        "_cell_ids",
        "_waits",
        "_tasks",
        "_agents",
        "_agent_calls",
        "_commands",
    )

    def __init__(self) -> None:
        super().__init__()
        self._open: dict[str, list[str | None]] = {}
        """Open tool calls: call_id -> [tool name, run id]."""
        self._sessions: dict[str, str] = {}
        """Running unified-exec processes: session id -> the call_id that started them."""
        self._polls: dict[str, str] = {}
        """Open ``write_stdin`` polls: their call_id -> the original call_id."""
        self._stopping: dict[str, str] = {}
        """The open polls that wrote Ctrl-C to their process: call_id -> the original."""
        self._seen: dict[str, str] = {}
        """What a running process printed so far (its latest part), by its call_id."""
        self._cells: dict[str, Cell] = {}
        """Code-mode cells waiting for their output, by the ``exec`` call's call_id."""
        self._cell_ids: dict[str, str] = {}
        """Running cells: the cell id a ``wait`` names -> the ``exec`` call's call_id."""
        self._waits: dict[str, str] = {}
        """Open ``wait`` calls: their call_id -> the ``exec`` call's call_id."""
        self._tasks: dict[str, JsonObject] = {}
        """Open ``spawn_agent`` calls: their call_id -> the task's arguments."""
        self._agents: dict[str, JsonObject | None] = {}
        """Agents spawned: their id -> the task's arguments (None once reported failed)."""
        self._agent_calls: dict[str, str] = {}
        """Open agent bookkeeping calls: their call_id -> the agent they target, or ""."""
        self._commands: dict[str, str] = {}
        """The command lines of the shell calls started, by call_id: the same line run again
        while an earlier run of it is still running (never polled) ends that run."""

    def _state_is_valid(self) -> bool:
        return (
            super()._state_is_valid()
            and all(isinstance(v, list) and len(v) == 2 for v in self._open.values())
            and all(
                isinstance(v, str)
                for mapping in (
                    self._sessions,
                    self._polls,
                    self._stopping,
                    self._seen,
                    self._cell_ids,
                    self._waits,
                    self._commands,
                )
                for v in mapping.values()
            )
            and all(_is_cell(v) for v in self._cells.values())
            and all(isinstance(v, dict) for v in self._tasks.values())
            and all(v is None or isinstance(v, dict) for v in self._agents.values())
            and all(isinstance(v, str) for v in self._agent_calls.values())
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
            if ptype == "custom_tool_call" and name == CELL_TOOL:
                self._cell(call_id, as_str(p.get("input")) or "", eid, ts, out)
                return
            if ptype == "custom_tool_call":
                args = patch_arguments(as_str(p.get("input")) or "")
            else:
                args = decode_arguments(p.get("arguments"))
        if name == "wait" and (cell := self._cell_ids.get(str(args.get("cell_id")))):
            self._waits[call_id] = cell  # delivers the rest of the cell's output
            _trim(self._waits, MAX_SESSIONS)
            return
        role = self._start(out, eid, name, call_id, args, ts)
        if role is not None and role[0] == _POLL:
            # A poll of a command we already track: its outcome belongs to that command
            # (which exec_command_end may have closed already), not to a call of its own.
            self._polls[call_id] = role[1]
            _trim(self._polls, MAX_SESSIONS)
            if _CTRL_C in (as_str(args.get("chars")) or ""):
                self._stopping[call_id] = role[1]
                _trim(self._stopping, MAX_SESSIONS)

    def _start(
        self,
        out: list[Record],
        eid: str,
        name: str,
        call_id: str,
        args: JsonObject,
        ts: str | None,
    ) -> list[str] | None:
        """Start a call (of a rollout or of a cell's script); its role in a cell's output.

        None for agent bookkeeping, which emits nothing; a poll of a tracked process is
        that process's call, not one of its own.
        """
        if name in AGENT_BOOKKEEPING:
            self._agent_calls[call_id] = as_str(args.get("target")) or ""
            _trim(self._agent_calls, MAX_SESSIONS)
            return None
        if name == "write_stdin":
            session = args.get("session_id")
            original = self._sessions.get(str(session)) if session is not None else None
            if original is not None:
                return [_POLL, original]
        if name == SPAWN_AGENT:
            name, args = TASK_TOOL, task_arguments(args)
            self._tasks[call_id] = args
            _trim(self._tasks, MAX_SESSIONS)
        elif name in _SESSION_TOOLS and (patch := shell_patch(args)) is not None:
            name, args = "apply_patch", patch_arguments(patch)  # Codex applies it as a patch
        command = as_str(args.get("cmd")) if name in _SESSION_TOOLS else None
        if command:
            self._rerun(out, eid, command, ts)
            self._commands[call_id] = command
            _trim(self._commands, MAX_SESSIONS)
        self._tool_call(out, eid, name, call_id, args, ts, self._open)
        return [_SHELL if name in _SESSION_TOOLS or name == "write_stdin" else _CALL, call_id]

    def _output(
        self, p: JsonObject, offset: int, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        call_id = as_str(p.get("call_id"))
        if call_id is None:
            out.append(
                SkippedLine(offset=offset, reason="Codex tool output without a string call_id")
            )
            return
        cell = self._waits.pop(call_id, None) or (call_id if call_id in self._cells else None)
        if cell is not None:
            self._cell_output(cell, cell_output(p.get("output")), eid, ts, out)
            return
        text, exit_code, running, failed = parse_output(p.get("output"))
        if call_id in self._agent_calls:
            self._agent_report(self._agent_calls.pop(call_id), text, eid, ts, out)
            return
        if call_id in self._tasks:
            failed = failed or not self._spawned(call_id, text)
        original = self._polls.pop(call_id, None)
        stopping = self._stopping.pop(call_id, None) is not None
        outcome = None
        if original is not None:
            if running is not None or exit_code is None:
                self._runs_on(original, None, text)
                return
            if stopping or text.lstrip().startswith(_CTRL_C_ECHO):
                # Stopped with Ctrl-C (a dev server the agent is done with): it did not fail.
                outcome = ToolOutcome("interrupted", exit_code, text, "")
            seen = self._seen.get(original)
            if seen:
                text = f"{seen}\n{text}"  # what it printed before the poll that saw it end
            self._forget_session(original)
            call_id = original
        elif running is not None and self._open.get(call_id, [None])[0] in _SESSION_TOOLS:
            self._runs_on(call_id, running, text)  # open until a poll or the turn's end
            return
        self._end_call(out, eid, call_id, Output(text, exit_code, None, failed), ts, outcome)

    def _spawned(self, call_id: str, text: str) -> bool:
        """Whether a ``spawn_agent`` output says the agent started; remember it if so."""
        args = self._tasks.pop(call_id)
        key = agent_key(text)
        if key is not None:
            self._agents[key] = args
            _trim(self._agents, MAX_SESSIONS)
        return spawned(text)

    def _agent_report(
        self, target: str, text: str, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        """What a wait for or a close of agents reports: an agent ended in error is its
        task failed, once (a wait and the close after it both report it)."""
        for n, (agent, error) in enumerate(agent_failures(text, target or None)):
            if agent in self._agents and self._agents[agent] is None:
                continue
            args = self._agents.get(agent) or {"description": agent}
            self._agents[agent] = None
            _trim(self._agents, MAX_SESSIONS)
            call_id = f"{eid}#{agent}"
            self._tool_call(out, f"{eid}#{n}", TASK_TOOL, call_id, args, ts, self._open)
            entry = self._open.pop(call_id)
            self._tool_end(out, f"{eid}#{n}", call_id, entry, failed=True, text=error, timestamp=ts)

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
        """``patch_apply_end``: the authoritative end of the patch it names (a cell's patch
        has an id of its own: the cell's first patch still open is it)."""
        call_id = as_str(p.get("call_id"))
        if call_id is not None and call_id not in self._open:
            call_id = self._cell_call("apply_patch")
        entry = self._open.pop(call_id, None) if call_id else None
        if call_id and entry is not None:
            text, _, _, failed = patch_end(p)
            self._tool_end(out, eid, call_id, entry, failed=failed, text=text, timestamp=ts)

    def _mcp_end(self, p: JsonObject, eid: str, ts: str | None, out: list[Record]) -> None:
        """``mcp_tool_call_end`` of a call a cell's script made: its end. (A direct MCP call
        ends with its output, which says the same.)"""
        call_id = as_str(p.get("call_id"))
        if call_id is None or call_id in self._open:
            return
        name, (text, _, _, failed) = mcp_end(p)
        found = self._cell_call(name)
        entry = self._open.pop(found, None) if found else None
        if found and entry is not None:
            self._tool_end(out, eid, found, entry, failed=failed, text=text, timestamp=ts)

    # -- code-mode cells ------------------------------------------------------------------

    def _cell(self, call_id: str, source: str, eid: str, ts: str | None, out: list[Record]) -> None:
        """A code-mode cell: the calls its script makes, started in order; the cell as one
        call when its script uses tools in a way that cannot be read."""
        found = script_calls(source)
        calls = [native_call(call) for call in found] if found is not None else [None]
        roles: list[list[str]] = []
        if any(call is None for call in calls):
            self._tool_call(
                out, eid, CELL_TOOL, call_id, {"input": cap_text(source)}, ts, self._open
            )
            roles.append([_CALL, call_id])
        else:
            for n, call in enumerate(c for c in calls if c is not None):
                role = self._start(out, f"{eid}#{n}", call[0], f"{call_id}#{n}", call[1], ts)
                if role is not None and role[0] == _POLL:
                    stops = _CTRL_C in (as_str(call[1].get("chars")) or "")
                    role = [_STOP, role[1]] if stops else role
                if role is not None:
                    roles.append(role)
        self._cells[call_id] = Cell(calls=roles, items=[])
        _trim(self._cells, _MAX_CELLS)

    def _cell_output(
        self, cell_call: str, result: CellOutput, eid: str, ts: str | None, out: list[Record]
    ) -> None:
        """One delivery of a cell's output: the cell runs on, or its calls end."""
        cell = self._cells.get(cell_call)
        if cell is None:
            return
        cell["items"] = [*cell["items"], *(cap_text(i) for i in result.items)][:MAX_ITEMS]
        if result.state == "running":
            if result.cell_id is not None:
                self._cell_ids[result.cell_id] = cell_call
                _trim(self._cell_ids, MAX_SESSIONS)
            return
        del self._cells[cell_call]
        for cell_id, owner in list(self._cell_ids.items()):
            if owner == cell_call:
                del self._cell_ids[cell_id]
        if result.state == "failed":
            error = script_error(cell["items"])
            for n, (role, call_id) in enumerate(cell["calls"]):
                if role not in (_POLL, _STOP):  # the process a poll looks at runs on
                    self._end_call(out, f"{eid}#{n}", call_id, Output(error, None, None, True), ts)
            return
        self._settle_cell(cell, eid, ts, out)

    def _settle_cell(self, cell: Cell, eid: str, ts: str | None, out: list[Record]) -> None:
        """A completed cell's calls end, each with the output that is its own."""
        items = cell["items"]
        whole = "\n".join(item for item in items if item)
        shells = iter(shell_results(sum(r != _CALL for r, _ in cell["calls"]), items))
        for n, (role, call_id) in enumerate(cell["calls"]):
            if role == _CALL:
                self._end_call(out, f"{eid}#{n}", call_id, Output(whole, None, None, False), ts)
                continue
            text, exit_code, session = next(shells)
            shell = role == _SHELL and self._open.get(call_id, [None])[0] in _SESSION_TOOLS
            if shell and exit_code is None and session is not None:
                self._runs_on(call_id, session, text)  # open until a poll or the turn's end
                continue
            outcome = None
            if role == _STOP:  # stopped with Ctrl-C (a watch the agent is done with): no failure
                outcome = ToolOutcome("interrupted", exit_code, text, "")
            elif role == _POLL and exit_code is None:
                self._runs_on(call_id, None, text)  # a later poll may say how it ended
                continue
            if role != _SHELL:
                self._forget_session(call_id)
            failed = exit_code is not None and exit_code != 0
            self._end_call(
                out, f"{eid}#{n}", call_id, Output(text, exit_code, None, failed), ts, outcome
            )

    def _end_call(
        self,
        out: list[Record],
        id_prefix: str,
        call_id: str,
        result: Output,
        ts: str | None,
        outcome: ToolOutcome | None = None,
    ) -> None:
        """The end of an open call (none when its own end event came first, or when it is
        not in this file)."""
        entry = self._open.pop(call_id, None)
        if entry is not None:
            text, exit_code, _, failed = result
            self._tool_end(
                out, id_prefix, call_id, entry, failed=failed, text=text, timestamp=ts,
                exit_code=exit_code, outcome=outcome,
            )  # fmt: skip

    def _cell_call(self, name: str) -> str | None:
        """The first call of a waiting cell's script to ``name`` that is still open."""
        for cell in self._cells.values():
            for role, call_id in cell["calls"]:
                if role != _POLL and self._open.get(call_id, [None])[0] == name:
                    return call_id
        return None

    def _web_search(self, p: JsonObject, eid: str, ts: str | None, out: list[Record]) -> None:
        """``web_search_end``: a web search, requested and completed at once."""
        self._release(out, final=False)
        call_id = as_str(p.get("call_id")) or eid
        query = as_str(p.get("query")) or ""
        self._tool_call(out, eid, "web_search", call_id, {"query": query}, ts, self._open)
        entry = self._open.pop(call_id)
        self._tool_end(out, eid, call_id, entry, failed=False, text=query, timestamp=ts)

    def _rerun(self, out: list[Record], eid: str, command: str, ts: str | None) -> None:
        """The agent runs a command line again while an earlier run of it still runs,
        unpolled: it moved on from that run, which ends here with what it printed (not at the
        turn's end, after the new run's result)."""
        open_calls = self._open
        self._commands = {k: v for k, v in self._commands.items() if k in open_calls}
        running = set(self._sessions.values())
        for n, (call_id, earlier) in enumerate(list(self._commands.items())):
            if earlier != command or call_id not in running:
                continue
            entry = self._open.pop(call_id, None)
            text = self._seen.get(call_id, "")
            self._forget_session(call_id)
            del self._commands[call_id]
            if entry is not None:
                self._tool_end(
                    out, f"{eid}:rerun{n}", call_id, entry, failed=False, text=text, timestamp=ts
                )

    def _runs_on(self, call_id: str, session: str | None, text: str) -> None:
        """The process of ``call_id`` runs on (in ``session``, when newly learnt), having
        printed ``text`` since it was last looked at."""
        if session is not None:
            self._sessions[session] = call_id
            _trim(self._sessions, MAX_SESSIONS)
        if text.strip():
            seen = self._seen.get(call_id)
            self._seen[call_id] = (f"{seen}\n{text}" if seen else text)[-_SEEN_CHARS:]
            _trim(self._seen, MAX_SESSIONS)

    def _turn_ended(self, eid: str, ts: str | None, out: list[Record]) -> None:
        """The turn ended with processes still running: the agent moved on with what they
        had printed, which is their result (their end is not in the rollout). A cell still
        running ends the same way with what it printed."""
        for cell_call in list(dict.fromkeys(self._cell_ids.values())):
            cell = self._cells.get(cell_call)
            if cell is not None:
                self._cell_output(cell_call, CellOutput("completed", None, ()), eid, ts, out)
        for n, call_id in enumerate(dict.fromkeys(self._sessions.values())):
            entry = self._open.pop(call_id, None)
            if entry is not None:
                text = self._seen.pop(call_id, "")
                self._tool_end(
                    out, f"{eid}#{n}", call_id, entry, failed=False, text=text, timestamp=ts
                )

    def _forget_session(self, call_id: str) -> None:
        self._seen.pop(call_id, None)
        for session, owner in list(self._sessions.items()):
            if owner == call_id:
                del self._sessions[session]
        for polls in (self._polls, self._stopping):
            for poll, owner in list(polls.items()):
                if owner == call_id:
                    del polls[poll]


def _is_cell(value: object) -> bool:
    """Whether a restored cell has the shape :class:`Cell` says."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("calls"), list)
        and all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)
            for c in value["calls"]
        )
        and isinstance(value.get("items"), list)
        and all(isinstance(i, str) for i in value["items"])
    )


def _trim(mapping: dict[str, Any], limit: int) -> None:
    while len(mapping) > limit:
        del mapping[next(iter(mapping))]
