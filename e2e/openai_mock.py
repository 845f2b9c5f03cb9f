"""A scripted OpenAI Responses model (SSE) for driving the real Codex CLI."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

Step = dict[str, Any]  # {"text": ...} or {"tool": name, "input": {...}}

_ids = itertools.count(1)


def sse_response(
    step: Step, *, model: str, input_tokens: int = 100, call_id: str | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The SSE events of one response: a message, or one function call."""
    n = next(_ids)
    rid = f"resp_mock_{n}"
    base = {"id": rid, "object": "response", "model": model, "status": "in_progress", "output": []}
    yield "response.created", {"type": "response.created", "response": base}
    if "custom" in step:
        item: dict[str, Any] = {
            "type": "custom_tool_call",
            "id": f"ctc_mock_{n}",
            "call_id": call_id or f"call_mock_{n}",
            "name": step["custom"],
            "input": step["input"],
            "status": "completed",
        }
        yield (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "input": "", "status": "in_progress"},
            },
        )
    elif "tool" in step:
        item = {
            "type": "function_call",
            "id": f"fc_mock_{n}",
            "call_id": call_id or f"call_mock_{n}",
            "name": step["tool"],
            "arguments": json.dumps(step["input"]),
            "status": "completed",
        }
        yield (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "arguments": "", "status": "in_progress"},
            },
        )
    else:
        item = {
            "type": "message",
            "id": f"msg_mock_{n}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": step["text"], "annotations": []}],
        }
        yield (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": [], "status": "in_progress"},
            },
        )
        yield (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "content_index": 0,
                "item_id": item["id"],
                "delta": step["text"],
            },
        )
    yield (
        "response.output_item.done",
        {"type": "response.output_item.done", "output_index": 0, "item": item},
    )
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + 20,
    }
    yield (
        "response.completed",
        {
            "type": "response.completed",
            "response": {**base, "status": "completed", "output": [item], "usage": usage},
        },
    )
