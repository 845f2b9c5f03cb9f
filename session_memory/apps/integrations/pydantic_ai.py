"""Session memory inside a pydantic-ai 2.x agent: a capability that keeps each request short.

::

    agent = Agent(model, capabilities=[SessionMemoryCapability(context_tokens=8000)])

Before each model request the capability folds the messages of the run's history that it has
not seen (one deriver per ``conversation_id``), then sends the model the system prompt, the
memory as one more system prompt part, and the most recent messages that fit the budget,
never separating a tool call from its return. The change is for the request only: the run's
own history, and what ``all_messages()`` returns, stay whole. ``docs/pydantic-ai.md`` shows
it at work.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    InstructionPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    SystemPromptPart,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import AgentDepsT, RunContext

from session_memory.apps.integrations.window import (
    DEFAULT_MIN_RECENT_TOKENS,
    MAX_CONVERSATIONS,
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
from session_memory.formats.pydantic_ai import PydanticAIAdapter, message_facts
from viewbuilder.counting import MESSAGE_OVERHEAD_TOKENS, PART_OVERHEAD_TOKENS

__all__ = ["SessionMemoryCapability", "request_facts", "request_tokens"]


def _as_json(message: object) -> JsonObject | None:
    """A message in the JSON form ``all_messages_json()`` writes; None if it has none."""
    if not isinstance(message, ModelRequest | ModelResponse):
        return None
    try:
        dumped = ModelMessagesTypeAdapter.dump_python([message], mode="json")
    except (TypeError, ValueError):
        return None
    first = dumped[0] if dumped else None
    return first if isinstance(first, dict) else None


def request_facts(messages: Sequence[ModelMessage]) -> list[MessageFacts]:
    """What a model reads of each message of a request, as the capability sees it."""
    return read_request(messages, _as_json, message_facts)


def request_tokens(
    messages: Sequence[ModelMessage],
    instructions: str | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> int:
    """The estimated tokens of a request: its instructions and messages, counted as the
    capability counts them (``session_memory/apps/integrations/window.py``)."""
    return request_tokens_of(request_facts(messages), instructions, encoding)


@dataclass
class SessionMemoryCapability(AbstractCapability[AgentDepsT]):
    """Sends the model the system prompt, the session memory and the recent messages only.

    ``context_tokens`` bounds each request (estimated: instructions, system prompt, memory and
    messages; tool definitions are not counted); ``memory_tokens`` bounds the memory (exact,
    the deriver's default when None); the budget must leave at least ``min_recent_tokens``
    for recent messages after the largest memory, else :class:`ConfigError` at construction.
    A request whose latest tool exchange alone does not fit raises :class:`BudgetError`.

    One deriver per conversation (``RunContext.conversation_id``), the ``max_conversations``
    most recently used kept. Each request folds only the messages not seen before.
    """

    context_tokens: int
    memory_tokens: int | None = None
    min_recent_tokens: int = DEFAULT_MIN_RECENT_TOKENS
    encoding: str = DEFAULT_ENCODING
    max_conversations: int = MAX_CONVERSATIONS

    def __post_init__(self) -> None:
        budget = Budget.checked(
            self.context_tokens, self.memory_tokens, self.min_recent_tokens, self.encoding
        )
        self._budget = budget
        self._conversations = Conversations(
            lambda: Conversation(budget, PydanticAIAdapter, _as_json, message_facts),
            self.max_conversations,
        )

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # its state (the conversations) is not a spec

    def conversation(self, conversation_id: str | None) -> Conversation:
        """The state kept for one conversation: its deriver (``.deriver.memory``) and more."""
        return self._conversations.get(conversation_id)

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        history = request_context.messages
        conversation = self._conversations.get(ctx.conversation_id)
        conversation.advance(history)
        memory, memory_tokens = conversation.memory()
        parts = request_context.model_request_parameters.instruction_parts
        instructions = InstructionPart.join(parts) if parts else None
        fixed = (
            text_message_tokens(instructions, counter(self.encoding))
            + MESSAGE_OVERHEAD_TOKENS
            + conversation.system_tokens
            + (PART_OVERHEAD_TOKENS + memory_tokens if memory else 0)
        )
        start = conversation.keep_from(self._budget.context_tokens - fixed)
        request_context.messages = _request(history, conversation.pinned, start, memory)
        return request_context


def _request(
    history: Sequence[ModelMessage], pinned: Sequence[int], start: int, memory: str
) -> list[ModelMessage]:
    """A first request holding the system prompt and the memory, then ``history[start:]``
    without the system prompt parts moved into it."""
    kept: list[ModelMessage] = _lead(history, pinned, memory)
    lifted = {index for index in pinned if index >= start}
    for index in range(start, len(history)):
        message = _without_system(history[index]) if index in lifted else history[index]
        if message is not None:
            kept.append(message)
    return kept


def _lead(
    history: Sequence[ModelMessage], pinned: Sequence[int], memory: str
) -> list[ModelMessage]:
    """The request of the system prompt parts of ``history`` and the memory (if any)."""
    parts: list[ModelRequestPart] = [
        part
        for index in pinned
        for part in history[index].parts
        if isinstance(part, SystemPromptPart)
    ]
    if memory:
        parts.append(SystemPromptPart(memory))
    return [ModelRequest(parts=parts)] if parts else []


def _without_system(message: ModelMessage) -> ModelMessage | None:
    """``message`` without its system prompt parts; None when nothing else is left."""
    if not isinstance(message, ModelRequest):
        return message
    rest = [p for p in message.parts if not isinstance(p, SystemPromptPart)]
    return dataclasses.replace(message, parts=rest) if rest else None
