"""The MCP SDK's own client against ``session-memory mcp`` in a real subprocess."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def with_client(mcp_args: list[str], work: Callable[[Client], Awaitable[Any]]) -> Any:
    """Run ``work`` with a client of ``session-memory mcp <mcp_args>``; its result."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "session_memory.apps.cli", "mcp", *mcp_args]
    )

    async def main() -> Any:
        async with Client(params) as client:
            return await work(client)

    return anyio.run(main)


def text_of(result: Any) -> str:
    assert not result.is_error, result
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def data_of(result: Any) -> Any:
    assert not result.is_error, result
    if result.structured_content is not None:
        value = result.structured_content
        return value.get("result", value) if isinstance(value, dict) else value
    return json.loads(text_of(result))
