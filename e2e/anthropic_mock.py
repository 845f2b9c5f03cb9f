"""A scripted Anthropic Messages model (SSE) for driving the real Claude Code.

Stateless: every reply follows from the request alone (the latest real prompt, how many tool
results came after it), like a model would decide from its context.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

Step = dict[str, Any]  # {"text": ...} or {"tool": name, "input": {...}}

_ids = itertools.count(1)


def sse_message(
    step: Step, *, model: str, input_tokens: int = 100, tool_use_id: str | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The SSE events of one assistant message: a text block or one tool call."""
    n = next(_ids)
    message = {
        "id": f"msg_mock_{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": message}
    if "tool" in step:
        block = {
            "type": "tool_use",
            "id": tool_use_id or f"toolu_mock_{n}",
            "name": step["tool"],
            "input": {},
        }
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        )
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        )
        delta = {"type": "text_delta", "text": step["text"]}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        stop = "end_turn"
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"input_tokens": input_tokens, "output_tokens": 20},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def texts(content: object) -> list[str]:
    """The text of a message's content (a string or blocks)."""
    if isinstance(content, str):
        return [content]
    out = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            out.append(str(block.get("text", "")))
    return out


def tool_results(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def request_text(body: dict[str, Any]) -> str:
    """Everything textual in a request (system included), for assertions."""
    return json.dumps(body, ensure_ascii=False)
