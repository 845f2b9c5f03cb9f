"""Transcripts of the three formats with chosen text in every place a memory takes text from.

``records(format, text)`` builds one small session per format (native MyCodeAgent, Claude Code,
Codex CLI) that exercises every section of the memory: user requests, decisions, a final
answer, shell commands that fail, reads, Write and Edit calls with file contents, todo lists
(TodoWrite, update_plan) with their statuses, an unfinished call, checkpoints, compaction,
stop hooks and the end of a run. Every text it holds comes from ``text(slot)``, so a test can
put the same string everywhere (secrets) or a different one in each slot (the grammar
property). ``derive`` turns the records into a memory through the real reader and adapters.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, Final

import orjson

from deriver import SessionMemoryDeriver
from session_memory.core.memory import SessionMemory
from session_memory.formats import read_transcript

FORMATS: Final = ("native", "claude-code", "codex")

SLOTS: Final = (
    "first_request",
    "request",
    "decision",
    "command",
    "result",
    "read_path",
    "error",
    "write_path",
    "write_content",
    "edit_old",
    "edit_new",
    "todo",
    "todo_status",
    "todo_active",
    "tool_name",
    "tool_output",
    "open_command",
    "checkpoint",
    "details",
    "final",
)
"""The names of the places a transcript's text can be put, in every format."""

Text = Callable[[str], str]
Record = dict[str, Any]


def _native(t: Text) -> list[Record]:
    n = iter(range(1000))

    def ev(event_type: str, **payload: Any) -> Record:
        return {"event_id": f"e{next(n)}", "run_id": "r", "event_type": event_type,
                "payload": payload}  # fmt: skip

    def call(tool: str, call_id: str, args: Any, **end: Any) -> list[Record]:
        base = {"tool_name": tool, "tool_call_id": call_id}
        started = [
            ev("tool_lifecycle", **base, status=s, args=args) for s in ("requested", "started")
        ]
        return started + ([ev("tool_lifecycle", **base, **end)] if end else [])

    todos = [
        {"content": t("todo"), "status": "pending", "activeForm": t("todo_active")},
        {"content": "Run the tests", "status": t("todo_status")},
        {"content": "Write the docs", "status": "in_progress"},
    ]
    return [
        ev("message", role="user", content=t("first_request")),
        ev("message", role="user", content=t("request")),
        ev("message", role="assistant", content="Decision: " + t("decision")),
        *call("Bash", "c1", {"command": t("command")}, status="completed", result=t("result"),
              exit_code=1),
        *call("Read", "c2", {"file_path": t("read_path")}, status="failed", error=t("error")),
        *call("Write", "c3", {"file_path": t("write_path"), "content": t("write_content")},
              status="completed", result="ok"),
        *call("Edit", "c4", {"file_path": "src/app.py", "old_string": t("edit_old"),
                             "new_string": t("edit_new")}, status="completed", result="ok"),
        *call("TodoWrite", "c5", {"todos": todos}, status="completed", result="ok"),
        *call(t("tool_name"), "c6", {"query": "x"}, status="failed", error=t("tool_output")),
        *call("Bash", "c7", {"command": t("open_command")}),
        ev("checkpoint", checkpoint_id="k", summary=t("checkpoint")),
        ev("state_transition", reason="model_recovery_failed", details=t("details")),
        ev("message", role="assistant", content=t("final"), metadata={"action_type": "final"}),
        ev("terminal", reason="error", details={"message": t("details")}),
    ]  # fmt: skip


def _claude_code(t: Text) -> list[Record]:
    def rec(kind: str, uuid: str, **fields: Any) -> Record:
        return {"type": kind, "uuid": uuid, "sessionId": "s", **fields}

    def tool_use(call_id: str, name: str, **args: Any) -> Record:
        return {"type": "tool_use", "id": call_id, "name": name, "input": args}

    def result(call_id: str, content: Any, *, error: bool = False) -> Record:
        return {"type": "tool_result", "tool_use_id": call_id, "content": content,
                "is_error": error}  # fmt: skip

    todos = [
        {"content": t("todo"), "status": "pending", "activeForm": t("todo_active")},
        {"content": "Run the tests", "status": t("todo_status"), "activeForm": "Running"},
        {"content": "Write the docs", "status": "in_progress", "activeForm": "Writing"},
    ]
    return [
        rec("user", "u1", message={"role": "user", "content": t("first_request")}),
        rec("user", "u2", message={"role": "user",
                                   "content": [{"type": "text", "text": t("request")}]}),
        rec("assistant", "a1", message={"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": "Decision: " + t("decision")},
            tool_use("t1", "Bash", command=t("command")),
            tool_use("t2", "Read", file_path=t("read_path")),
            tool_use("t3", "Write", file_path=t("write_path"), content=t("write_content")),
            tool_use("t4", "Edit", file_path="src/app.py", old_string=t("edit_old"),
                     new_string=t("edit_new")),
            tool_use("t5", "TodoWrite", todos=todos),
            tool_use("t6", t("tool_name"), query="x"),
        ]}),
        rec("user", "r1", message={"role": "user", "content": [
            result("t1", t("result"), error=True)]}),
        rec("user", "r2", message={"role": "user", "content": [
            result("t2", "<tool_use_error>" + t("error") + "</tool_use_error>", error=True)]},
            toolUseResult="Error: " + t("error")),
        rec("user", "r3", message={"role": "user", "content": [
            result("t3", [{"type": "text", "text": "File created"}])]}),
        rec("user", "r4", message={"role": "user", "content": [result("t4", "ok")]}),
        rec("user", "r5", message={"role": "user", "content": [
            result("t5", "Todos have been modified successfully")]}),
        rec("user", "r6", message={"role": "user", "content": [
            result("t6", t("tool_output"), error=True)]}),
        rec("assistant", "a2", message={"id": "m2", "role": "assistant", "content": [
            tool_use("t7", "Bash", command=t("open_command"))]}),
        rec("system", "b1", subtype="compact_boundary",
            compactMetadata={"trigger": "auto", "preTokens": 1000}),
        rec("user", "b2", isCompactSummary=True,
            message={"role": "user", "content": t("checkpoint")}),
        rec("system", "h1", subtype="stop_hook_summary", preventedContinuation=True,
            stopReason=t("details")),
        rec("assistant", "a3", message={"id": "m3", "role": "assistant", "stop_reason": "end_turn",
                                        "content": [{"type": "text", "text": t("final")}]}),
    ]  # fmt: skip


def _codex(t: Text) -> list[Record]:
    def line(kind: str, **payload: Any) -> Record:
        return {"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload}

    def call(call_id: str, name: str, **args: Any) -> Record:
        return line("response_item", type="function_call", name=name, call_id=call_id,
                    arguments=orjson.dumps(args).decode())  # fmt: skip

    def output(call_id: str, text: str) -> Record:
        return line("response_item", type="function_call_output", call_id=call_id, output=text)

    plan = [
        {"step": t("todo"), "status": "pending"},
        {"step": "Run the tests", "status": t("todo_status")},
        {"step": "Write the docs", "status": "in_progress"},
    ]
    patch = (
        f"*** Begin Patch\n*** Add File: {t('write_path')}\n+{t('write_content')}\n"
        f"*** Update File: src/app.py\n-{t('edit_old')}\n+{t('edit_new')}\n*** End Patch"
    )
    return [
        line("session_meta", id="s", cwd="/w"),
        line("event_msg", type="task_started", turn_id="turn-1"),
        line("event_msg", type="user_message", message=t("first_request")),
        line("event_msg", type="user_message", message=t("request")),
        line("response_item", type="message", role="assistant",
             content=[{"type": "output_text", "text": "Decision: " + t("decision")}]),
        call("c1", "exec_command", cmd=t("command")),
        output("c1", "Process exited with code 1\nOutput:\n" + t("result")),
        call("c2", "shell", command=["bash", "-lc", "cat " + t("read_path")]),
        line("event_msg", type="exec_command_end", call_id="c2", exit_code=1,
             aggregated_output=t("error")),
        line("response_item", type="custom_tool_call", name="apply_patch", call_id="c3",
             input=patch),
        line("response_item", type="custom_tool_call_output", call_id="c3", output="Success."),
        call("c4", "update_plan", explanation=t("todo_active"), plan=plan),
        output("c4", "Plan updated"),
        call("c5", t("tool_name"), query="x"),
        output("c5", orjson.dumps({"output": t("tool_output"),
                                   "metadata": {"exit_code": 2}}).decode()),
        call("c6", "exec_command", cmd=t("open_command")),
        line("compacted", message=t("checkpoint"), replacement_history=[]),
        line("event_msg", type="turn_aborted", reason=t("details")),
        line("event_msg", type="task_started", turn_id="turn-2"),
        line("response_item", type="message", role="assistant", phase="final_answer",
             content=[{"type": "output_text", "text": t("final")}]),
        line("event_msg", type="task_complete", turn_id="turn-2", last_agent_message=t("final")),
    ]  # fmt: skip


_BUILDERS: Final[dict[str, Callable[[Text], list[Record]]]] = {
    "native": _native,
    "claude-code": _claude_code,
    "codex": _codex,
}


def records(fmt: str, text: Text) -> list[Record]:
    """The session of format ``fmt`` with ``text(slot)`` in each slot of :data:`SLOTS`."""
    return _BUILDERS[fmt](text)


def everywhere(value: str) -> Text:
    """A slot filler that puts ``value`` in every slot."""
    return lambda _slot: value


def jsonl(objects: list[Any]) -> bytes:
    """The records as a JSONL transcript."""
    return b"".join(orjson.dumps(obj) + b"\n" for obj in objects)


def derive(data: bytes, fmt: str, budget_tokens: int = 50_000) -> SessionMemory:
    """The memory of a JSONL transcript, read with the named format's adapter."""
    events = read_transcript(io.BytesIO(data), fmt)
    return SessionMemoryDeriver.rebuild(events, budget_tokens=budget_tokens).memory
