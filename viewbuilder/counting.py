"""Counting the tokens of a view: each chat message, the system prompt and the memory.

Token counts of chat messages are an *estimate* of what the provider will count: the content is
counted exactly with tiktoken, the chat framing around it is approximated by fixed overheads
(see :func:`message_tokens`). Counts of history messages, with what fitting needs to know of
each (the tool calls it makes and answers, whether the user wrote it), are kept in a
:class:`~viewbuilder.cache.MessageTokenCache` keyed by content, so a loop that builds a view at
every step counts each message once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

import orjson

from session_memory.core.arguments import check_argument
from session_memory.core.errors import ViewInputError
from session_memory.core.memory import SessionMemory
from session_memory.core.tokens import DEFAULT_ENCODING, TiktokenCounter, counter
from viewbuilder.cache import (
    DEFAULT_MESSAGE_TOKEN_CACHE,
    CacheInfo,
    CacheKey,
    MessageTokenCache,
)
from viewbuilder.render import render_memory
from viewbuilder.shapes import Message, SystemPrompt, _ShapeRules

__all__ = [
    "ATTACHMENT_TOKENS",
    "MESSAGE_OVERHEAD_TOKENS",
    "PART_OVERHEAD_TOKENS",
    "clear_message_token_cache",
    "message_token_cache_info",
    "message_tokens",
]

MESSAGE_OVERHEAD_TOKENS: Final = 4
"""Estimated framing tokens per message (role and delimiters)."""

PART_OVERHEAD_TOKENS: Final = 3
"""Estimated framing tokens per tool call, tool use or tool result inside a message."""

ATTACHMENT_TOKENS: Final = 1000
"""Flat estimate for an image or document part, whose real cost depends on its size."""

_ATTACHMENT_TYPES: Final = frozenset(
    {"image", "image_url", "input_image", "document", "file", "input_file", "input_audio"}
)


def message_tokens(message: Message, encoding: str = DEFAULT_ENCODING) -> int:
    """Estimate the tokens a provider counts for one chat message (either shape).

    The estimate is deterministic: :data:`MESSAGE_OVERHEAD_TOKENS` for the message, plus the
    exact count of its ``name`` and ``tool_call_id``, plus its content: a string counts as
    itself; in a list of parts, text (and thinking) parts count their text, images and
    documents a flat :data:`ATTACHMENT_TOKENS`, ``tool_use`` its id, name and JSON input,
    ``tool_result`` its id and content, each plus :data:`PART_OVERHEAD_TOKENS`; an unknown part
    counts as its JSON text. Each OpenAI ``tool_calls`` entry counts its id, function name and
    argument string plus :data:`PART_OVERHEAD_TOKENS`. Providers frame messages differently,
    so this is an estimate of their count, not the count itself.
    """
    check_argument("message", message, Mapping, error=ViewInputError)
    check_argument("encoding", encoding, str)
    return _uncached_tokens(message, counter(encoding))


def message_token_cache_info() -> CacheInfo:
    """How often the default message token cache answered (hits) or had to count (misses)."""
    return DEFAULT_MESSAGE_TOKEN_CACHE.info()


def clear_message_token_cache() -> None:
    """Empty the default message token cache and reset its statistics."""
    DEFAULT_MESSAGE_TOKEN_CACHE.clear()


class _Facts(NamedTuple):
    """What fitting needs to know about one history message, computed once per content."""

    tokens: int
    issued: tuple[str, ...]
    """Ids of the tool calls this message makes."""
    answered: tuple[str, ...]
    """Ids of the tool calls whose results this message carries."""
    user_turn: bool
    """Whether the user wrote it (role user, and not only tool results)."""


class _Counts(NamedTuple):
    """The counted parts of a view before fitting."""

    prompt: list[Message]
    system_tokens: int
    memory_text: str
    memory_tokens: int
    facts: list[_Facts]


def _count(
    system_prompt: SystemPrompt,
    memory: SessionMemory | None,
    history: Sequence[Message],
    rules: _ShapeRules,
    tok: TiktokenCounter,
    cache: MessageTokenCache,
) -> _Counts:
    """Validate and count the system prompt, the rendered memory and each history message."""
    prompt = _system_messages(system_prompt)
    system_tokens = sum(_uncached_tokens(m, tok) for m in prompt)
    memory_text = render_memory(memory) if memory is not None else ""
    memory_tokens = (
        (MESSAGE_OVERHEAD_TOKENS + _cached_text_tokens(memory_text, tok, cache))
        if memory_text
        else 0
    )
    if not isinstance(history, Sequence) or isinstance(history, str | bytes):
        raise ViewInputError(f"history must be a list of messages, not {type(history).__name__}")
    facts = _history_facts(history, rules, tok, cache)
    return _Counts(prompt, system_tokens, memory_text, memory_tokens, facts)


def _canonical(message: object, what: str) -> bytes:
    try:
        return orjson.dumps(message, option=orjson.OPT_SORT_KEYS)
    except TypeError as exc:
        raise ViewInputError(f"{what} is not JSON-serialisable: {exc}") from exc


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _history_facts(
    history: Sequence[Message], rules: _ShapeRules, tok: TiktokenCounter, cache: MessageTokenCache
) -> list[_Facts]:
    """The facts of each history message, computing them only for content not seen before."""
    name = tok.encoding
    keys: list[CacheKey] = []
    for i, message in enumerate(history):
        # type(...) is dict first: isinstance against the Mapping ABC is slow.
        if type(message) is not dict and not isinstance(message, Mapping):
            raise ViewInputError(
                f"history message {i} is not a JSON object but {type(message).__name__}"
            )
        keys.append((name, rules.name, _digest(_canonical(message, f"history message {i}"))))
    found = cache.get_many(keys)
    new: list[tuple[CacheKey, Any]] = []
    for i, (key, facts) in enumerate(zip(keys, found, strict=True)):
        if facts is None:
            facts = _facts(history[i], rules, tok)
            new.append((key, facts))
            found[i] = facts
    if new:
        cache.put_many(new)
    return found


def _facts(message: Message, rules: _ShapeRules, tok: TiktokenCounter) -> _Facts:
    return _Facts(
        _uncached_tokens(message, tok),
        rules.issued(message),
        rules.answered(message),
        rules.user_turn(message),
    )


def _cached_text_tokens(text: str, tok: TiktokenCounter, cache: MessageTokenCache) -> int:
    key = (tok.encoding, "text", _digest(text.encode("utf-8", "surrogatepass")))
    (value,) = cache.get_many([key])
    if value is None:
        value = tok.count(text)
        cache.put_many([(key, value)])
    assert isinstance(value, int)
    return value


def _uncached_tokens(message: Message, tok: TiktokenCounter) -> int:
    total = MESSAGE_OVERHEAD_TOKENS
    for field in ("name", "tool_call_id"):
        value = message.get(field)
        if isinstance(value, str):
            total += tok.count(value)
    total += _content_tokens(message.get("content"), tok)
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            total += PART_OVERHEAD_TOKENS + _tool_call_tokens(call, tok)
    return total


def _tool_call_tokens(call: object, tok: TiktokenCounter) -> int:
    if not isinstance(call, Mapping):
        return _json_tokens(call, tok)
    total = _str_tokens(call.get("id"), tok)
    function = call.get("function")
    if isinstance(function, Mapping):
        total += _str_tokens(function.get("name"), tok)
        arguments = function.get("arguments")
        total += (
            _str_tokens(arguments, tok)
            if isinstance(arguments, str)
            else _json_tokens(arguments, tok)
        )
    return total


def _content_tokens(content: object, tok: TiktokenCounter) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return tok.count(content)
    if isinstance(content, list):
        return sum(_part_tokens(part, tok) for part in content)
    return _json_tokens(content, tok)


def _part_tokens(part: object, tok: TiktokenCounter) -> int:
    if isinstance(part, str):
        return tok.count(part)
    if not isinstance(part, Mapping):
        return _json_tokens(part, tok)
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text"):
        return _str_tokens(part.get("text"), tok)
    if kind == "thinking":
        return _str_tokens(part.get("thinking"), tok)
    if kind in _ATTACHMENT_TYPES:
        return ATTACHMENT_TOKENS
    if kind == "tool_use":
        return (
            PART_OVERHEAD_TOKENS
            + _str_tokens(part.get("id"), tok)
            + _str_tokens(part.get("name"), tok)
            + _json_tokens(part.get("input", {}), tok)
        )
    if kind == "tool_result":
        return (
            PART_OVERHEAD_TOKENS
            + _str_tokens(part.get("tool_use_id"), tok)
            + _content_tokens(part.get("content"), tok)
        )
    return _json_tokens(part, tok)


def _str_tokens(value: object, tok: TiktokenCounter) -> int:
    return tok.count(value) if isinstance(value, str) else 0


def _json_tokens(value: object, tok: TiktokenCounter) -> int:
    return tok.count(_canonical(value, "message content").decode())


def _system_messages(system_prompt: SystemPrompt) -> list[Message]:
    """The system prompt as OpenAI system messages; text blocks become messages too."""
    if isinstance(system_prompt, str):
        return [{"role": "system", "content": system_prompt}] if system_prompt else []
    if not isinstance(system_prompt, Sequence) or isinstance(system_prompt, bytes):
        raise ViewInputError(
            f"system_prompt must be a string or a list of messages, "
            f"not {type(system_prompt).__name__}"
        )
    messages: list[Message] = []
    for i, item in enumerate(system_prompt):
        if not isinstance(item, Mapping):
            raise ViewInputError(
                f"system prompt item {i} is not a JSON object but {type(item).__name__}"
            )
        if "role" in item:
            messages.append(item)
        elif item.get("type") == "text" and isinstance(item.get("text"), str):
            messages.append({"role": "system", "content": [item]})
        else:
            raise ViewInputError(
                f"system prompt item {i} is neither a message (role) nor a text block"
            )
        _canonical(item, f"system prompt item {i}")
    return messages
