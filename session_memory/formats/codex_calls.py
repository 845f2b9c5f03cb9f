"""Codex tool calls: their arguments as objects, and what their outputs say.

``function_call`` arguments are a JSON object encoded as a string; a ``custom_tool_call``
(``apply_patch``) has a raw input, whose patch headers name the files it touches. An output
is text ("Process exited with code N" or "Exit code: N", "Process running with session ID N"
above an ``Output:`` part), a JSON object with ``output`` and ``metadata.exit_code``, or, in
some builds, ``{"content", "success"}``; ``exec_command_end`` and ``patch_apply_end`` events
say how a command or a patch ended with authority, and ``mcp_tool_call_end`` how an MCP call
did. A result reported as completed may still say the call did not succeed
(:data:`RESULT_MARKERS`).

Sub-agents: ``spawn_agent`` starts one (a native sub-agent task, :data:`TASK_TOOL`: its
name and its message); the other agent tools wait for, list, message, resume or close
agents already spawned (:data:`AGENT_BOOKKEEPING`): no work of their own, but what they
report of an agent's end may say it failed (:func:`agent_failures`).
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

import orjson

from session_memory.core.events import JsonObject
from session_memory.formats.base import as_dict, as_int, as_str, cap_text, join_texts
from session_memory.formats.outcomes import ResultMarkers

__all__ = [
    "AGENT_BOOKKEEPING",
    "RESULT_MARKERS",
    "SPAWN_AGENT",
    "TASK_TOOL",
    "Output",
    "agent_failures",
    "agent_key",
    "decode_arguments",
    "exec_end",
    "mcp_end",
    "mcp_name",
    "parse_output",
    "patch_arguments",
    "patch_end",
    "shell_patch",
    "spawned",
    "task_arguments",
]

_ABORTED: Final = "aborted"
_STDIN_FAILED: Final = "write_stdin failed"
RESULT_MARKERS: Final = ResultMarkers(
    errored=(f"{_STDIN_FAILED}:", "apply_patch verification failed"),
    interrupted=frozenset({_ABORTED}),
    stale=("Failed to find expected lines", "Failed to find context"),
)
"""How a result Codex reports as completed says the call did not succeed."""
_RUNNING: Final = re.compile(r"^Process running with session ID (\d+)", re.M)
_EXITED: Final = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)", re.M)
"""How an output's header gives the exit code: exec_command's "Process exited with code 1",
shell_command's "Exit code: 1" (Codex 0.118)."""
_PATCH_FILE: Final = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
_NOT_IDENTIFIER: Final = re.compile(r"[^\w$]")
_SHELL_PATCH: Final = re.compile(
    r"\A\s*(?:cd\s+\S+\s*&&\s*)?(?:apply_patch|applypatch)\b.*?"
    r"(\*\*\* Begin Patch\n.*?\*\*\* End Patch)",
    re.S,
)
"""A command that runs ``apply_patch`` on a patch (a heredoc, or the patch as an argument):
Codex applies such a patch itself, as the ``apply_patch`` tool."""
SPAWN_AGENT: Final = "spawn_agent"
TASK_TOOL: Final = "Task"
"""The native name of a sub-agent task (MyCodeAgent's, as the fold knows it)."""
AGENT_BOOKKEEPING: Final = frozenset(
    {"wait_agent", "list_agents", "send_message", "send_input", "followup_task",
     "close_agent", "resume_agent", "interrupt_agent", "wait"}
)  # fmt: skip
"""The agent tools that look after sub-agents already spawned: no call of their own."""


class Output(NamedTuple):
    """What a tool output says: its text, exit code, the session still running, failure."""

    text: str
    exit_code: int | None
    running: str | None
    failed: bool


def decode_arguments(raw: object) -> JsonObject:
    """Function-call arguments: a JSON object encoded as a string (sometimes already decoded)."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return {}
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {"raw": cap_text(raw)}
    return value if isinstance(value, dict) else {"raw": cap_text(raw)}


def shell_patch(args: JsonObject) -> str | None:
    """The patch a shell call's command hands to ``apply_patch``, or None."""
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):
        parts = [part for part in command if isinstance(part, str)]
        shell_c = len(parts) >= 3 and parts[1] in ("-lc", "-c")
        command = parts[2] if shell_c else "\n".join(parts)
    if not isinstance(command, str):
        return None
    found = _SHELL_PATCH.match(command)
    return found.group(1) if found is not None else None


def patch_arguments(raw: str) -> JsonObject:
    """A custom tool call's input, with the files its patch headers name."""
    args: JsonObject = {"input": cap_text(raw)}
    files = _PATCH_FILE.findall(raw)
    if files:
        args["files"] = files
        args["file_path"] = files[0]
    return args


def parse_output(output: object) -> Output:
    """What a tool output of any known shape says."""
    exit_code: int | None = None
    if isinstance(output, dict):  # {"content": ..., "success": bool} in some builds
        text = as_str(output.get("content")) or ""
        failed = output.get("success") is False
        return Output(text, None, None, failed)
    if not isinstance(output, str):
        return Output("", None, None, False)
    text = output
    if text.startswith("{"):
        try:
            decoded = orjson.loads(text)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, dict) and "output" in decoded:
            text = as_str(decoded.get("output")) or ""
            metadata = as_dict(decoded.get("metadata")) or {}
            exit_code = as_int(metadata.get("exit_code"))
            return Output(text, exit_code, None, exit_code is not None and exit_code != 0)
    if text.strip() == _ABORTED or text.startswith(_STDIN_FAILED):
        return Output(text, None, None, True)
    header, sep, body = text.partition("\nOutput:\n")
    if not sep:
        header, body = text[:400], text
    running = _RUNNING.search(header)
    exited = _EXITED.search(header)
    if exited:
        exit_code = int(exited.group(1))
    return Output(
        body,
        exit_code,
        running.group(1) if running else None,
        exit_code is not None and exit_code != 0,
    )


def exec_end(p: JsonObject) -> Output:
    """How an ``exec_command_end`` event says its command ended: failed on ``status:
    failed`` or a non-zero exit code, with the aggregated output."""
    exit_code = as_int(p.get("exit_code"))
    failed = p.get("status") == "failed" or (exit_code is not None and exit_code != 0)
    text = (
        as_str(p.get("aggregated_output"))
        or as_str(p.get("formatted_output"))
        or join_texts((as_str(p.get("stdout")) or "", as_str(p.get("stderr")) or ""))
    )
    return Output(text, exit_code, None, failed)


def patch_end(p: JsonObject) -> Output:
    """How a ``patch_apply_end`` event says its patch ended."""
    failed = p.get("success") is False or p.get("status") == "failed"
    text = join_texts((as_str(p.get("stdout")) or "", as_str(p.get("stderr")) or ""))
    return Output(text or ("patch failed" if failed else "patch applied"), None, None, failed)


def task_arguments(args: JsonObject) -> JsonObject:
    """A ``spawn_agent`` call's arguments as a sub-agent task's: its ``description`` (the
    task's name, when the call gives one), ``prompt`` (the message) and ``subagent_type``."""
    task: JsonObject = {}
    name = as_str(args.get("task_name"))
    message = as_str(args.get("message"))
    if message is None and isinstance(args.get("items"), list):
        message = join_texts(
            t for item in args["items"] if (t := as_str((as_dict(item) or {}).get("text")))
        )
    kind = as_str(args.get("agent_type"))
    for key, value in (("description", name), ("prompt", message), ("subagent_type", kind)):
        if value and value.strip():
            task[key] = cap_text(value.strip())
    return task


_FORKED: Final = "You are the newly spawned agent."
"""How the copy of its parent's history a forked sub-agent's rollout starts with ends: the
``spawn_agent`` call that started this very agent, its output told to the agent."""


def spawned(text: str) -> bool:
    """Whether a ``spawn_agent`` output says the agent started: it names the agent in a JSON
    object, or it is the fork's note in the rollout of the agent it started; an error is
    plain text."""
    if text.startswith(_FORKED):
        return True
    try:
        return isinstance(orjson.loads(text), dict)
    except orjson.JSONDecodeError:
        return False


def agent_key(text: str) -> str | None:
    """The id a ``spawn_agent`` output gives its agent (``agent_id``, or ``task_name`` in
    the builds that name agents by their task), which later reports of its status use."""
    try:
        started = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(started, dict):
        return None
    return as_str(started.get("agent_id")) or as_str(started.get("task_name"))


def agent_failures(text: str, target: str | None) -> list[tuple[str, str]]:
    """The agents an agent tool's output reports as ended in error, with the error: a wait's
    ``{"status": {id: {"errored": "..."}}}``, a listing's ``{"agents": [{"agent_name",
    "agent_status"}]}``, or a close's ``{"previous_status": ...}`` of ``target`` (the agent
    it closed). A status that is not ``errored`` (completed, running, shut down, not found)
    says no agent's work failed."""
    try:
        report = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    if not isinstance(report, dict):
        return []
    statuses = dict(as_dict(report.get("status")) or {})
    if target is not None and "previous_status" in report:
        statuses = {target: report["previous_status"]}
    listing = report.get("agents")
    for entry in listing if isinstance(listing, list) else ():
        listed = as_dict(entry) or {}
        if (name := as_str(listed.get("agent_name"))) is not None:
            statuses[name] = listed.get("agent_status")
    failures = []
    for agent, status in statuses.items():
        error = as_str((as_dict(status) or {}).get("errored"))
        if error is not None:
            failures.append((agent, error.strip() or "sub-agent failed"))
    return failures


def mcp_name(server: str, tool: str) -> str:
    """The name a code-mode script calls an MCP tool by: ``mcp__server__tool``, each
    character that is not an identifier's as ``_``."""
    return _NOT_IDENTIFIER.sub("_", f"mcp__{server}__{tool}")


def mcp_end(p: JsonObject) -> tuple[str, Output]:
    """An ``mcp_tool_call_end`` event: the tool's script name, and how the call ended (its
    result ``{"Ok": {"content", "isError"}}`` or ``{"Err": "..."}``)."""
    invocation = as_dict(p.get("invocation")) or {}
    name = mcp_name(as_str(invocation.get("server")) or "", as_str(invocation.get("tool")) or "")
    result = as_dict(p.get("result")) or {}
    ok = as_dict(result.get("Ok"))
    if ok is None:
        error = as_str(result.get("Err")) or "failed"
        return name, Output(error, None, None, True)
    content = ok.get("content")
    parts = content if isinstance(content, list) else []
    text = join_texts(t for part in parts if (t := as_str((as_dict(part) or {}).get("text"))))
    return name, Output(text, None, None, ok.get("isError") is True)
