"""SessionMemoryMiddleware on a real LangChain agent, its model LangChain's fake chat model."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage

from benchmarks.frameworks import drivers
from benchmarks.frameworks.script import PROMPTS
from session_memory.apps.integrations.langchain import (
    SessionMemoryMiddleware,
    request_facts,
    request_tokens,
)
from session_memory.core.errors import ConfigError
from tests.integrations.checks import check_requests

CONTEXT = 4000
MEMORY = 800


@pytest.fixture(scope="module")
def run() -> tuple[drivers.Recording, SessionMemoryMiddleware]:
    """The scripted run (over 200 tool calls, four user turns) with the middleware."""
    middleware = SessionMemoryMiddleware(context_tokens=CONTEXT, memory_tokens=MEMORY)
    return drivers.run_langchain([middleware]), middleware


class TestScriptedRun:
    def test_every_request_carries_the_facts_within_the_budget(
        self, run: tuple[drivers.Recording, SessionMemoryMiddleware]
    ) -> None:
        """Goal, open todos and last verdict at every call; within budget; pairs whole."""
        recording, _ = run
        check_requests(
            recording, request_facts, lambda call: request_tokens(call.messages), CONTEXT
        )

    def test_each_message_is_folded_once(
        self, run: tuple[drivers.Recording, SessionMemoryMiddleware]
    ) -> None:
        """Across four invocations of one thread (checkpointed state, so new message objects
        each time), the history is recognised and folded incrementally."""
        recording, middleware = run
        conversation = middleware.conversation("scripted")
        assert conversation.refolds == 0
        assert conversation.seen == len(recording.history) - 1
        assert f"> {PROMPTS[2]}" in conversation.memory()[0]


class Answering(GenericFakeChatModel):
    def bind_tools(self, tools: object, **kwargs: object) -> Answering:
        return self


def agent(middleware: SessionMemoryMiddleware) -> object:
    model = Answering(messages=iter([AIMessage("Done.")] * 4))
    return create_agent(model, tools=[], middleware=[middleware])


def test_a_budget_too_small_fails_at_construction() -> None:
    with pytest.raises(ConfigError, match="min_recent_tokens"):
        SessionMemoryMiddleware(context_tokens=1000, memory_tokens=800)


def test_threads_are_kept_apart() -> None:
    middleware = SessionMemoryMiddleware(context_tokens=4000)
    built = agent(middleware)
    for thread, prompt in (("a", "Rename the module"), ("b", "Write the release notes")):
        built.invoke(  # type: ignore[attr-defined]
            {"messages": [HumanMessage(prompt)]}, {"configurable": {"thread_id": thread}}
        )
    assert "Rename the module" in middleware.conversation("a").memory()[0]
    assert "Rename the module" not in middleware.conversation("b").memory()[0]


def test_a_message_of_unknown_kind_is_a_counted_skip() -> None:
    middleware = SessionMemoryMiddleware(context_tokens=4000)
    conversation = middleware.conversation()
    conversation.advance([HumanMessage("Go"), "not a message"])
    assert conversation.deriver.memory.diagnostics.lines_skipped == 1
