"""Session memory inside a LangChain 1.x agent: a middleware for ``create_agent``.

::

    agent = create_agent(model, tools, middleware=[SessionMemoryMiddleware(context_tokens=8000)])

Around each model call the middleware folds the messages of the agent's state that it has not
seen (one deriver per LangGraph ``thread_id``), then sends the model the system prompt, the
memory as one system message, and the most recent messages that fit the budget, never
separating a tool call from its result. The agent's state keeps every message.
``docs/langchain.md`` shows it at work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, Final

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AnyMessage, BaseMessage, SystemMessage
from langgraph.config import get_config

from session_memory.apps.integrations.window import (
    DEFAULT_MIN_RECENT_TOKENS,
    MAX_CONVERSATIONS,
    MEMORY_FRAME_TOKENS,
    Budget,
    Conversation,
    Conversations,
    read_request,
    request_tokens_of,
    text_message_tokens,
)
from session_memory.core.events import JsonObject
from session_memory.core.tokens import DEFAULT_ENCODING, counter
from session_memory.formats.framework import MessageFacts
from session_memory.formats.langchain import LangChainAdapter, message_facts

__all__ = ["SessionMemoryMiddleware", "request_facts", "request_tokens"]

# What the mapping reads; metadata fields (which may hold any object) are left out.
_FIELDS: Final[set[str]] = {
    "type",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
    "status",
    "role",
    "additional_kwargs",
}


def _as_json(message: object) -> JsonObject | None:
    """A message as ``model_dump(mode="json")`` writes it (the fields the mapping reads)."""
    if not isinstance(message, BaseMessage):
        return None
    try:
        data = message.model_dump(mode="json", include=_FIELDS)
    except (TypeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def request_facts(messages: Sequence[BaseMessage]) -> list[MessageFacts]:
    """What a model reads of each message of a call, as the middleware sees it."""
    return read_request(messages, _as_json, message_facts)


def request_tokens(
    messages: Sequence[BaseMessage],
    system_message: SystemMessage | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> int:
    """The estimated tokens of a model call: its system message and messages, counted as the
    middleware counts them (``session_memory/apps/integrations/window.py``)."""
    system = system_message.text if system_message else None
    return request_tokens_of(request_facts(messages), system, encoding)


def _thread_id() -> Hashable:
    """The LangGraph thread the call runs in; None outside a graph or without one."""
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:
        return None
    thread: Hashable = configurable.get("thread_id")
    return thread


class SessionMemoryMiddleware(AgentMiddleware[Any, Any, Any]):
    """Sends the model the system prompt, the session memory and the recent messages only.

    ``context_tokens`` bounds each model call (estimated: system prompt, memory and messages;
    tool definitions are not counted); ``memory_tokens`` bounds the memory (exact, the
    deriver's default when None); the budget must leave at least ``min_recent_tokens`` for
    recent messages after the largest memory, else :class:`ConfigError` here. A call whose
    latest tool exchange alone does not fit raises :class:`BudgetError`.

    One deriver per conversation (the LangGraph ``thread_id``; calls outside a thread share
    one), the ``max_conversations`` most recently used kept. Each call folds only the
    messages not seen before.
    """

    def __init__(
        self,
        context_tokens: int,
        *,
        memory_tokens: int | None = None,
        min_recent_tokens: int = DEFAULT_MIN_RECENT_TOKENS,
        encoding: str = DEFAULT_ENCODING,
        max_conversations: int = MAX_CONVERSATIONS,
    ) -> None:
        super().__init__()
        budget = Budget.checked(context_tokens, memory_tokens, min_recent_tokens, encoding)
        self._budget = budget
        self._conversations = Conversations(
            lambda: Conversation(budget, LangChainAdapter, _as_json, message_facts),
            max_conversations,
        )

    def conversation(self, thread_id: Hashable = None) -> Conversation:
        """The state kept for one thread: its deriver (``.deriver.memory``) and more."""
        return self._conversations.get(thread_id)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        return handler(self._fitted(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        return await handler(self._fitted(request))

    def _fitted(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        messages = request.messages
        conversation = self._conversations.get(_thread_id())
        conversation.advance(messages)
        memory, memory_tokens = conversation.memory()
        system = request.system_message
        fixed = (
            text_message_tokens(system.text if system else None, counter(self._budget.encoding))
            + conversation.system_tokens
            + (MEMORY_FRAME_TOKENS + memory_tokens if memory else 0)
        )
        start = conversation.keep_from(self._budget.context_tokens - fixed)
        pinned = conversation.pinned
        kept: list[AnyMessage] = [messages[index] for index in pinned]
        if memory:
            kept.append(SystemMessage(content=memory))
        lifted = {index for index in pinned if index >= start}
        kept.extend(messages[i] for i in range(start, len(messages)) if i not in lifted)
        return request.override(messages=kept)
