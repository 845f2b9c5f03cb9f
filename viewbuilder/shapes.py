"""The two message shapes of a view: OpenAI chat messages and Anthropic messages.

What differs between them: how a message makes tool calls and carries their results, which
message is a user turn, and how the system prompt, the memory and the kept history are put
together (the system prompt arrives as OpenAI system messages; Anthropic takes it as ``system``
text blocks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple, TypeAlias

from session_memory.core.errors import ViewInputError

__all__ = ["MemoryPosition", "Message", "Shape", "SystemPrompt"]

Message: TypeAlias = Mapping[str, Any]
"""One chat message as the provider's API takes it (a decoded JSON object)."""

SystemPrompt: TypeAlias = str | Sequence[Message]
"""A system prompt: a string, or a list of system messages or text blocks."""

Shape = Literal["openai", "anthropic"]
MemoryPosition = Literal["before_history", "after_history"]


_Assembled: TypeAlias = tuple[list[Message], tuple[Message, ...] | None]
"""The view's messages, and its Anthropic ``system`` blocks (None for OpenAI)."""


def _openai_messages(
    prompt: Sequence[Message], memory_text: str, kept: Sequence[Message], position: MemoryPosition
) -> _Assembled:
    """OpenAI: the prompt's system messages, the memory as one more, around the history."""
    messages = list(prompt)
    memory = [{"role": "system", "content": memory_text}] if memory_text else []
    if position == "before_history":
        return [*messages, *memory, *kept], None
    return [*messages, *kept, *memory], None


def _anthropic_messages(
    prompt: Sequence[Message], memory_text: str, kept: Sequence[Message], position: MemoryPosition
) -> _Assembled:
    """Anthropic: prompt and memory as ``system`` blocks, or the memory as a last user turn."""
    blocks = [_anthropic_block(m) for m in prompt]
    messages = list(kept)
    if memory_text:
        memory_block = {"type": "text", "text": memory_text}
        if position == "before_history":
            blocks.append(memory_block)
        else:
            messages.append({"role": "user", "content": [memory_block]})
    return messages, tuple(blocks)


def _openai_issued(message: Message) -> tuple[str, ...]:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return ()
    return tuple(c["id"] for c in calls if isinstance(c, Mapping) and isinstance(c.get("id"), str))


def _openai_answered(message: Message) -> tuple[str, ...]:
    call_id = message.get("tool_call_id")
    return (call_id,) if message.get("role") == "tool" and isinstance(call_id, str) else ()


def _openai_user_turn(message: Message) -> bool:
    return message.get("role") == "user"


def _anthropic_issued(message: Message) -> tuple[str, ...]:
    return tuple(
        b["id"]
        for b in _blocks(message)
        if b.get("type") == "tool_use" and isinstance(b.get("id"), str)
    )


def _anthropic_answered(message: Message) -> tuple[str, ...]:
    return tuple(
        b["tool_use_id"]
        for b in _blocks(message)
        if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
    )


def _anthropic_user_turn(message: Message) -> bool:
    return message.get("role") == "user" and not _only_tool_results(message)


class _ShapeRules(NamedTuple):
    """What differs between the two shapes: tool-call links, user turns, assembly."""

    name: Shape
    issued: Callable[[Message], tuple[str, ...]]
    """Ids of the tool calls a message makes."""
    answered: Callable[[Message], tuple[str, ...]]
    """Ids of the tool calls whose results a message carries."""
    user_turn: Callable[[Message], bool]
    """Whether the user wrote a message (not only tool results)."""
    assemble: Callable[[Sequence[Message], str, Sequence[Message], MemoryPosition], _Assembled]


_SHAPES: Final[dict[str, _ShapeRules]] = {
    "openai": _ShapeRules(
        "openai", _openai_issued, _openai_answered, _openai_user_turn, _openai_messages
    ),
    "anthropic": _ShapeRules(
        "anthropic",
        _anthropic_issued,
        _anthropic_answered,
        _anthropic_user_turn,
        _anthropic_messages,
    ),
}


def _anthropic_block(message: Message) -> Message:
    """One Anthropic ``system`` text block from a system message (its text parts joined)."""
    content = message.get("content")
    if (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], Mapping)
        and content[0].get("type") == "text"
    ):
        block: Message = content[0]
        return block
    if isinstance(content, str):
        return {"type": "text", "text": content}
    if isinstance(content, list):
        texts = [p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content]
        return {"type": "text", "text": "\n".join(t for t in texts if isinstance(t, str))}
    raise ViewInputError("a system message needs string or text-part content")


def _blocks(message: Message) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, Mapping)]


def _only_tool_results(message: Message) -> bool:
    content = message.get("content")
    if not isinstance(content, list) or not content:
        return False
    return all(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)
