"""Minimal Codex rollout records, shaped as Codex Desktop 0.145 and the CLI write them.

Field names and nesting are copied from real rollouts (benchmarks/recall/corpus3); the
values are made up. ``feed`` reads records through the adapter, ``memory`` through the fold.
"""

from __future__ import annotations

from typing import Any

import orjson

from deriver import SessionMemoryDeriver
from session_memory.core.events import Record, TranscriptEvent
from session_memory.core.memory import SessionMemory
from session_memory.formats import CodexAdapter

JsonRecord = dict[str, Any]

TURN = "019f80ed-66d1-7001-9057-78225e5676f3"


def line(rtype: str, **payload: Any) -> JsonRecord:
    return {"timestamp": "2026-07-20T19:08:26.776Z", "type": rtype, "payload": payload}


def event(kind: str, **fields: Any) -> JsonRecord:
    return line("event_msg", type=kind, **fields)


SESSION = line("session_meta", id="019f80ed-65ac-7eb3-9c28-9885c0fbca91", cwd="/home/dev/graph")
STARTED = event("task_started", turn_id=TURN)
COMPLETE = event("task_complete", turn_id=TURN, last_agent_message=None)


def prompt(text: str) -> JsonRecord:
    return event("user_message", message=text, images=[])


def function_call(call_id: str, name: str, **args: Any) -> JsonRecord:
    return line(
        "response_item",
        type="function_call",
        name=name,
        arguments=orjson.dumps(args).decode(),
        call_id=call_id,
    )


def function_output(call_id: str, output: object) -> JsonRecord:
    return line("response_item", type="function_call_output", call_id=call_id, output=output)


def cell(call_id: str, script: str) -> JsonRecord:
    """A code-mode cell: a ``custom_tool_call`` named ``exec`` with its JavaScript."""
    return line(
        "response_item",
        type="custom_tool_call",
        status="completed",
        call_id=call_id,
        name="exec",
        input=script,
    )


def texts(header: str, *items: str) -> list[dict[str, str]]:
    """A cell's output: its header item, then one text item per ``text(...)`` it called."""
    return [
        {"type": "input_text", "text": t}
        for t in (f"{header}\nWall time 0.3 seconds\nOutput:\n", *items)
    ]


def script_output(call_id: str, header: str, *items: str) -> JsonRecord:
    """A cell's output record (a ``wait``'s output is a ``function_call_output``)."""
    return line(
        "response_item",
        type="custom_tool_call_output",
        call_id=call_id,
        output=texts(header, *items),
    )


def running(call_id: str, cell_id: str) -> JsonRecord:
    """A cell's output when it runs on: one string, as Codex writes it."""
    text = f"Script running with cell ID {cell_id}\nWall time 10.0 seconds\nOutput:\n"
    return line("response_item", type="custom_tool_call_output", call_id=call_id, output=text)


def result(output: str, **fields: Any) -> str:
    """A unified-exec result object as a script prints it with ``JSON.stringify(r)``."""
    return orjson.dumps(
        {"chunk_id": "7718fc", "wall_time_seconds": 0.2, **fields, "output": output}
    ).decode()


def feed(*records: JsonRecord) -> list[Record]:
    adapter = CodexAdapter()
    out: list[Record] = []
    for offset, record in enumerate(records):
        out.extend(adapter.feed(record, offset * 100))
    out.extend(adapter.finish())
    return out


def events(*records: JsonRecord) -> list[TranscriptEvent]:
    return [r for r in feed(*records) if isinstance(r, TranscriptEvent)]


def tool_events(*records: JsonRecord) -> list[tuple[str, str, Any]]:
    """(status, tool name, args or outcome) of every tool event, in order."""
    return [
        (
            e.payload["status"],
            e.payload["tool_name"],
            e.payload.get("args") if "args" in e.payload else e.payload.get("outcome"),
        )
        for e in events(*records)
        if e.event_type == "tool_lifecycle" and e.payload["status"] != "started"
    ]


def memory(*records: JsonRecord) -> SessionMemory:
    deriver = SessionMemoryDeriver()
    deriver.apply_all(feed(*records))
    return deriver.memory


def lines(items: tuple[Any, ...]) -> list[str]:
    return [item.text for item in items]
