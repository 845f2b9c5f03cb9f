"""SessionMemoryInputFilter on a real Agents SDK run, its model a scripted Model."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent
from agents.run_config import CallModelData, ModelInputData

from benchmarks.frameworks import drivers
from benchmarks.frameworks.script import PROMPTS
from session_memory.apps.integrations.openai_agents import (
    SessionMemoryInputFilter,
    request_facts,
    request_tokens,
)
from session_memory.core.errors import ConfigError
from tests.integrations.checks import check_requests

CONTEXT = 4000
MEMORY = 800


@pytest.fixture(scope="module")
def run() -> tuple[drivers.Recording, SessionMemoryInputFilter]:
    """The scripted run (over 200 tool calls, four user turns) with the filter."""
    input_filter = SessionMemoryInputFilter(context_tokens=CONTEXT, memory_tokens=MEMORY)
    return drivers.run_openai_agents(input_filter), input_filter


class TestScriptedRun:
    def test_every_request_carries_the_facts_within_the_budget(
        self, run: tuple[drivers.Recording, SessionMemoryInputFilter]
    ) -> None:
        """Goal, open todos and last verdict at every call; within budget; pairs whole."""
        recording, _ = run
        check_requests(
            recording,
            request_facts,
            lambda call: request_tokens(call.messages, call.instructions),
            CONTEXT,
        )

    def test_each_item_is_folded_once(
        self, run: tuple[drivers.Recording, SessionMemoryInputFilter]
    ) -> None:
        recording, input_filter = run
        conversation = input_filter.conversation()
        assert conversation.refolds == 0
        assert conversation.seen == len(recording.history) - 1  # all but the last answer
        text = conversation.memory()[0]
        assert f"> {PROMPTS[2]}" in text
        assert "The last-page test fails" in text.split("## Where the session stands", 1)[1]


def data(items: list[Any], context: object = None) -> CallModelData[Any]:
    agent: Agent[Any] = Agent(name="a", instructions="You code.")
    return CallModelData(ModelInputData(input=items, instructions="You code."), agent, context)


def test_a_budget_too_small_fails_at_construction() -> None:
    with pytest.raises(ConfigError, match="min_recent_tokens"):
        SessionMemoryInputFilter(context_tokens=1000, memory_tokens=800)


def test_the_filter_sends_the_memory_as_a_system_message() -> None:
    input_filter = SessionMemoryInputFilter(context_tokens=4000)
    result = input_filter(data([{"role": "user", "content": "Rename the module"}]))
    assert result.instructions == "You code."
    memory, prompt = (dict(item) for item in result.input)
    assert memory["role"] == "system"
    assert "> Rename the module" in str(memory["content"])
    assert prompt == {"role": "user", "content": "Rename the module"}


def test_conversations_are_kept_apart_by_their_key() -> None:
    """With a conversation key (here the run's context), each conversation has its memory."""
    input_filter = SessionMemoryInputFilter(
        context_tokens=4000, conversation_key=lambda call: call.context
    )
    input_filter(data([{"role": "user", "content": "Rename the module"}], "a"))
    input_filter(data([{"role": "user", "content": "Write the release notes"}], "b"))
    assert "Rename the module" in input_filter.conversation("a").memory()[0]
    assert "Rename the module" not in input_filter.conversation("b").memory()[0]


def test_an_item_of_unknown_type_is_a_counted_skip() -> None:
    input_filter = SessionMemoryInputFilter(context_tokens=4000)
    items = [{"role": "user", "content": "Go"}, {"type": "hologram"}, object()]
    input_filter(data(items))
    assert input_filter.conversation().deriver.memory.diagnostics.lines_skipped == 2
