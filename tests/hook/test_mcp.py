"""``session-memory mcp``: the SDK's own client against the server in a real subprocess."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.current import current_memory
from session_memory.formats import read_transcript
from tests import mcp_client
from tests.cc_session import ClaudeCodeSession
from tests.mcp_client import data_of, text_of
from viewbuilder import render_memory


def full_memory(path: Path, budget: int = 1200) -> str:
    deriver = SessionMemoryDeriver(budget_tokens=budget)
    deriver.apply_all(read_transcript(path))
    return render_memory(deriver.memory)


@pytest.fixture(scope="module")
def memory_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A memory directory knowing two sessions of /work/app and one of /work/other."""
    root = tmp_path_factory.mktemp("mcp")
    memory = root / "memory"
    a = ClaudeCodeSession(root / "p" / "a.jsonl", session_id="a", cwd="/work/app")
    a.prompt("Make the checkout tests pass")
    a.tool("Bash", {"command": "pytest -q tests/test_checkout.py"}, "1 failed", error=True)
    a.tool("Edit", {"file_path": "/work/app/checkout.py"}, "The file has been updated.")
    b = ClaudeCodeSession(root / "p" / "b.jsonl", session_id="b", cwd="/work/app")
    b.prompt("Write the changelog")
    c = ClaudeCodeSession(root / "q" / "c.jsonl", session_id="c", cwd="/work/other")
    c.prompt("Something else")
    for s in (a, c, b):  # b written last: the most recent of /work/app
        current_memory(s.path, memory)
    return memory


def with_client(memory_dir: Path, work: Callable[[Client], Awaitable[Any]]) -> Any:
    return mcp_client.with_client(["--state-dir", str(memory_dir)], work)


class TestMcpServer:
    def test_offers_the_three_tools_and_the_resource_template(self, memory_dir: Path) -> None:
        """The server lists get_memory, list_sessions, explain and session-memory://{id}."""

        async def work(client: Client) -> tuple[set[str], list[str]]:
            tools = await client.list_tools()
            templates = await client.list_resource_templates()
            return {t.name for t in tools.tools}, [
                t.uri_template for t in templates.resource_templates
            ]

        tools, templates = with_client(memory_dir, work)
        assert tools == {"get_memory", "list_sessions", "explain"}
        assert templates == ["session-memory://{session_id}"]

    def test_list_sessions_of_a_cwd_newest_first(self, memory_dir: Path) -> None:
        """list_sessions(cwd) gives that directory's sessions, most recently written first."""

        async def work(client: Client) -> Any:
            return data_of(await client.call_tool("list_sessions", {"cwd": "/work/app"}))

        sessions = with_client(memory_dir, work)
        assert [s["session_id"] for s in sessions] == ["b", "a"]
        assert sessions[0]["uri"] == "session-memory://b"

    def test_get_memory_by_id_transcript_cwd_and_budget(self, memory_dir: Path) -> None:
        """get_memory answers by session id, by transcript, by cwd, at any budget."""
        a = next(memory_dir.parent.glob("p/a.jsonl"))

        async def work(client: Client) -> list[str]:
            return [
                text_of(await client.call_tool("get_memory", {"session_id": "a"})),
                text_of(
                    await client.call_tool("get_memory", {"transcript_path": str(a), "budget": 300})
                ),
                text_of(await client.call_tool("get_memory", {"cwd": "/work/app"})),
            ]

        by_id, small, by_cwd = with_client(memory_dir, work)
        assert by_id == full_memory(a)
        assert small == full_memory(a, 300)
        assert "Write the changelog" in by_cwd

    def test_a_session_resource_is_its_memory(self, memory_dir: Path) -> None:
        """Reading session-memory://<id> gives the session's memory."""

        async def work(client: Client) -> str:
            result = await client.read_resource("session-memory://a")
            return "".join(getattr(c, "text", "") for c in result.contents)

        assert with_client(memory_dir, work) == full_memory(
            next(memory_dir.parent.glob("p/a.jsonl"))
        )

    def test_explain_gives_provenance_with_transcript_offsets(self, memory_dir: Path) -> None:
        """explain(item_id) names the creating event and the byte offset of its line."""
        a = next(memory_dir.parent.glob("p/a.jsonl"))
        memory = json.loads((memory_dir / "a.memory.json").read_text())
        failure = memory["verification_status"][0]

        async def work(client: Client) -> Any:
            return data_of(await client.call_tool("explain", {"item_id": failure["id"]}))

        explained = with_client(memory_dir, work)
        assert explained["session_id"] == "a" and explained["section"] == "verification_status"
        created = next(e for e in explained["events"] if e["role"] == "created")
        assert created["event_id"] == failure["provenance"]["created_by"]
        line = a.read_bytes()[created["offset"] :].split(b"\n", 1)[0]
        assert b"1 failed" in line  # the tool result that failed

    def test_an_unknown_item_is_a_tool_error(self, memory_dir: Path) -> None:
        """explain of an id no session has is an error result, not a crash."""

        async def work(client: Client) -> Any:
            return await client.call_tool("explain", {"item_id": "nope"})

        assert with_client(memory_dir, work).is_error
