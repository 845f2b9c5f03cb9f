"""Session memory inside an OpenAI Agents SDK run: a ``call_model_input_filter``.

::

    config = RunConfig(call_model_input_filter=SessionMemoryInputFilter(context_tokens=8000))
    result = await Runner.run(agent, prompt, run_config=config)

Before each model call the filter folds the input items it has not seen into the
conversation's memory, then sends the model the instructions, the memory as one system
message, and the most recent items that fit the budget, never separating a tool call from its
output. The run's own items stay whole. ``docs/openai-agents.md`` shows it at work.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from agents.run_config import CallModelData, ModelInputData

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
from session_memory.formats.openai_agents import OpenAIAgentsAdapter, item_facts

__all__ = ["SessionMemoryInputFilter", "request_facts", "request_tokens"]

ConversationKey = Callable[[CallModelData[Any]], Hashable]
"""Tells which conversation a model call belongs to, e.g. from the run's context."""


def _as_json(item: object) -> JsonObject | None:
    """An input item as a JSON object: items are plain dicts; a model is dumped."""
    if isinstance(item, dict):
        return item
    dump = getattr(item, "model_dump", None)
    if dump is None:
        return None
    try:
        data = dump(mode="json", exclude_unset=True)
    except (TypeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def request_facts(items: Sequence[object]) -> list[MessageFacts]:
    """What a model reads of each input item of a call, as the filter sees it."""
    return read_request(items, _as_json, item_facts)


def request_tokens(
    items: Sequence[object], instructions: str | None = None, encoding: str = DEFAULT_ENCODING
) -> int:
    """The estimated tokens of a model call's input: instructions and items, counted as the
    filter counts them (``session_memory/apps/integrations/window.py``)."""
    return request_tokens_of(request_facts(items), instructions, encoding)


class SessionMemoryInputFilter:
    """A ``RunConfig.call_model_input_filter`` that sends the memory and the recent items.

    ``context_tokens`` bounds each call's input (estimated: instructions, system messages,
    memory and items; tool definitions are not counted); ``memory_tokens`` bounds the memory
    (exact, the deriver's default when None); the budget must leave at least
    ``min_recent_tokens`` for recent items after the largest memory, else
    :class:`ConfigError` here. A call whose latest tool exchange alone does not fit raises
    :class:`BudgetError`.

    A filter keeps one deriver per conversation: ``conversation_key`` tells them apart
    (without one, every call is of one conversation: a history that does not continue the
    one seen is folded anew). The ``max_conversations`` most recently used are kept.
    """

    def __init__(
        self,
        context_tokens: int,
        *,
        memory_tokens: int | None = None,
        min_recent_tokens: int = DEFAULT_MIN_RECENT_TOKENS,
        encoding: str = DEFAULT_ENCODING,
        conversation_key: ConversationKey | None = None,
        max_conversations: int = MAX_CONVERSATIONS,
    ) -> None:
        budget = Budget.checked(context_tokens, memory_tokens, min_recent_tokens, encoding)
        self._budget = budget
        self._key = conversation_key
        self._conversations = Conversations(
            lambda: Conversation(budget, OpenAIAgentsAdapter, _as_json, item_facts),
            max_conversations,
        )

    def conversation(self, key: Hashable = None) -> Conversation:
        """The state kept for one conversation: its deriver (``.deriver.memory``) and more."""
        return self._conversations.get(key)

    def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        items = data.model_data.input
        instructions = data.model_data.instructions
        conversation = self._conversations.get(self._key(data) if self._key else None)
        conversation.advance(items)
        memory, memory_tokens = conversation.memory()
        fixed = (
            text_message_tokens(instructions, counter(self._budget.encoding))
            + conversation.system_tokens
            + (MEMORY_FRAME_TOKENS + memory_tokens if memory else 0)
        )
        start = conversation.keep_from(self._budget.context_tokens - fixed)
        pinned = conversation.pinned
        kept: list[Any] = [items[index] for index in pinned]
        if memory:
            kept.append({"role": "system", "content": memory})
        lifted = {index for index in pinned if index >= start}
        kept.extend(items[i] for i in range(start, len(items)) if i not in lifted)
        return ModelInputData(input=kept, instructions=instructions)
