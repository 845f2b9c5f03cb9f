"""Building the messages of one model call: system prompt, session memory, history.

:func:`build_model_view` puts the rendered session memory between the system prompt and the
history (docs/view.md), in the OpenAI chat shape or the Anthropic shape, and optionally fits
the history into a context window by dropping its oldest messages, never separating a tool call
from its results.

Token counts of chat messages are an *estimate* of what the provider will count: the content is
counted exactly with tiktoken, the chat framing around it is approximated by fixed overheads
(see :func:`message_tokens`). Counts of history messages are kept in a
:class:`~viewbuilder.cache.MessageTokenCache` keyed by content, so a loop that builds a view at
every step counts each message once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple, TypeAlias

import orjson

from session_memory.core.arguments import check_argument
from session_memory.core.errors import BudgetError, ConfigError, ViewInputError
from session_memory.core.memory import SessionMemory
from session_memory.core.tokens import DEFAULT_ENCODING, TiktokenCounter, counter
from viewbuilder.cache import (
    DEFAULT_MESSAGE_TOKEN_CACHE,
    CacheInfo,
    CacheKey,
    MessageTokenCache,
)
from viewbuilder.render import render_memory

__all__ = [
    "ATTACHMENT_TOKENS",
    "MESSAGE_OVERHEAD_TOKENS",
    "PART_OVERHEAD_TOKENS",
    "CacheInfo",
    "MemoryPosition",
    "Message",
    "MessageTokenCache",
    "ModelView",
    "Shape",
    "SystemPrompt",
    "ViewInputError",
    "build_model_view",
    "clear_message_token_cache",
    "message_token_cache_info",
    "message_tokens",
]

Message: TypeAlias = Mapping[str, Any]
"""One chat message as the provider's API takes it (a decoded JSON object)."""

SystemPrompt: TypeAlias = str | Sequence[Message]
"""A system prompt: a string, or a list of system messages or text blocks."""

Shape = Literal["openai", "anthropic"]
MemoryPosition = Literal["before_history", "after_history"]

MESSAGE_OVERHEAD_TOKENS: Final = 4
"""Estimated framing tokens per message (role and delimiters)."""

PART_OVERHEAD_TOKENS: Final = 3
"""Estimated framing tokens per tool call, tool use or tool result inside a message."""

ATTACHMENT_TOKENS: Final = 1000
"""Flat estimate for an image or document part, whose real cost depends on its size."""

_POSITIONS: Final = ("before_history", "after_history")
_ATTACHMENT_TYPES: Final = frozenset(
    {"image", "image_url", "input_image", "document", "file", "input_file", "input_audio"}
)


@dataclass(frozen=True, slots=True)
class ModelView:
    """The messages of one model call, and what building them did.

    ``messages`` holds the caller's own history message objects, not copies: the view never
    changes them, and the caller should not change them while the view is in use. For the
    Anthropic shape ``system`` holds the text blocks of the ``system`` field (the prompt's,
    then the memory's); for the OpenAI shape it is ``None`` and the system prompt and memory
    are the first messages. Token counts are estimates (see :func:`message_tokens`).
    """

    shape: Shape
    messages: tuple[Message, ...]
    system: tuple[Message, ...] | None
    memory_text: str
    memory_position: MemoryPosition
    system_tokens: int
    memory_tokens: int
    history_tokens: int
    dropped_messages: int
    dropped_tokens: int
    memory_changed: bool
    context_window: int | None
    reserve_output_tokens: int

    @property
    def total_tokens(self) -> int:
        """Estimated input tokens of the call: system prompt, memory and kept history."""
        return self.system_tokens + self.memory_tokens + self.history_tokens

    def to_request(self) -> dict[str, Any]:
        """The view as the message fields of a request body (``system`` only for Anthropic)."""
        request: dict[str, Any] = {"messages": list(self.messages)}
        if self.system is not None:
            request["system"] = list(self.system)
        return request

    def to_json(self) -> bytes:
        """:meth:`to_request` as JSON with sorted keys: the same view gives the same bytes."""
        return orjson.dumps(self.to_request(), option=orjson.OPT_SORT_KEYS)


def build_model_view(
    system_prompt: SystemPrompt,
    memory: SessionMemory | None,
    history: Sequence[Message],
    *,
    shape: Shape = "openai",
    context_window: int | None = None,
    reserve_output_tokens: int = 0,
    previous: ModelView | None = None,
    memory_position: MemoryPosition = "before_history",
    encoding: str = DEFAULT_ENCODING,
    cache: MessageTokenCache | None = None,
) -> ModelView:
    """Build the messages of one model call: system prompt, memory, then history.

    ``system_prompt`` is a string (an empty one is left out) or a list of system messages
    (``{"role": "system", "content": ...}``) or text blocks (``{"type": "text", "text": ...}``).
    ``history`` is a list of chat messages in ``shape``: OpenAI messages with ``tool_calls``
    and ``tool`` results keyed by ``tool_call_id``, or Anthropic messages whose content blocks
    include ``tool_use`` and ``tool_result``. The memory is rendered with
    :func:`~viewbuilder.render_memory` and becomes one system message (OpenAI) or its own text
    block after the prompt's in ``system`` (Anthropic); an empty memory is left out.

    With ``memory_position="after_history"`` the memory comes after the history instead (a
    system message for OpenAI, a user message for Anthropic, which has no system role in its
    messages), so that a memory change does not break the prompt cache of the history.

    With ``context_window`` the view fits ``context_window - reserve_output_tokens`` estimated
    tokens by dropping the oldest history messages. It keeps a contiguous suffix of the
    history that always contains the latest user message (and so everything after it), never
    starts inside a tool exchange (a kept tool result always has its call), and never drops
    the system prompt or the memory. When even that minimum does not fit, it raises
    :class:`~session_memory.core.errors.BudgetError` saying by how many tokens.

    ``memory_changed`` tells whether the memory text differs from ``previous``'s (true when
    there is no previous view): when it is true, a prompt cache over the memory breaks.
    Nothing passed in is mutated; the same inputs give the same :meth:`ModelView.to_json`.

    Counts of history messages and of the memory text are kept in ``cache`` (the process's
    default :class:`~viewbuilder.cache.MessageTokenCache` when None); the cache changes only
    how often a message is counted, never a count.

    Raises :class:`~session_memory.core.errors.ConfigError` for an unknown shape, position or
    encoding, an impossible window or an option of the wrong type, and :class:`ViewInputError`
    for a message that is not a JSON object or a ``memory`` or ``previous`` of the wrong type.
    """
    check_argument("memory", memory, SessionMemory, error=ViewInputError, optional=True)
    check_argument("previous", previous, ModelView, error=ViewInputError, optional=True)
    check_argument("encoding", encoding, str)
    check_argument("cache", cache, MessageTokenCache, optional=True)
    rules = _check_options(shape, memory_position, context_window, reserve_output_tokens)
    tok = counter(encoding)
    counts = _count(
        system_prompt,
        memory,
        history,
        rules,
        tok,
        DEFAULT_MESSAGE_TOKEN_CACHE if cache is None else cache,
    )
    keep_from = 0
    if context_window is not None:
        available = context_window - reserve_output_tokens
        keep_from = _fit(counts.facts, available, counts.system_tokens + counts.memory_tokens)
    messages, system = rules.assemble(
        counts.prompt, counts.memory_text, history[keep_from:], memory_position
    )
    return ModelView(
        shape=shape,
        messages=tuple(messages),
        system=system,
        memory_text=counts.memory_text,
        memory_position=memory_position,
        system_tokens=counts.system_tokens,
        memory_tokens=counts.memory_tokens,
        history_tokens=sum(f.tokens for f in counts.facts[keep_from:]),
        dropped_messages=keep_from,
        dropped_tokens=sum(f.tokens for f in counts.facts[:keep_from]),
        memory_changed=previous is None or previous.memory_text != counts.memory_text,
        context_window=context_window,
        reserve_output_tokens=reserve_output_tokens,
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


# -- the two shapes --------------------------------------------------------------------


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


# -- validation and counting -----------------------------------------------------------


def _check_options(
    shape: str, memory_position: str, context_window: int | None, reserve_output_tokens: int
) -> _ShapeRules:
    """The rules of ``shape``, once the options are known to be possible (else ConfigError)."""
    check_argument("shape", shape, str)
    check_argument("memory_position", memory_position, str)
    check_argument("context_window", context_window, int, optional=True)
    check_argument("reserve_output_tokens", reserve_output_tokens, int)
    rules = _SHAPES.get(shape)
    if rules is None:
        raise ConfigError(f"unknown view shape {shape!r}; expected one of {', '.join(_SHAPES)}")
    if memory_position not in _POSITIONS:
        raise ConfigError(
            f"unknown memory position {memory_position!r}; expected one of {', '.join(_POSITIONS)}"
        )
    if reserve_output_tokens < 0:
        raise ConfigError(
            f"reserve_output_tokens must not be negative, got {reserve_output_tokens}"
        )
    if context_window is not None and context_window <= reserve_output_tokens:
        raise ConfigError(
            f"context window of {context_window} tokens leaves no room for input after "
            f"reserving {reserve_output_tokens} output tokens"
        )
    return rules


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


def _fit(facts: Sequence[_Facts], available: int, fixed: int) -> int:
    """The index of the first history message to keep so that the view fits ``available``.

    ``fixed`` is what cannot be dropped (system prompt and memory). A cut at ``i`` keeps
    ``history[i:]``; it is allowed when no kept message answers a tool call made before ``i``
    and ``i`` is not after the latest user message. The smallest allowed cut that fits wins:
    the oldest messages go first, and as few as possible go.
    """
    n = len(facts)
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + facts[i].tokens
    room = available - fixed
    if suffix[0] <= room:
        return 0
    # anchor: for each message, the earliest message holding a call it answers (else itself).
    issued: dict[str, int] = {}
    anchors = list(range(n + 1))
    last_user: int | None = None
    for i, f in enumerate(facts):
        for call_id in f.answered:
            anchors[i] = min(anchors[i], issued.get(call_id, i))
        for call_id in f.issued:
            issued[call_id] = i
        if f.user_turn:
            last_user = i
    limit = n if last_user is None else last_user
    # lowest[i]: the earliest message that some message of history[i:] depends on.
    lowest = anchors
    for i in range(n - 1, -1, -1):
        lowest[i] = min(lowest[i], lowest[i + 1])
    best = 0
    for i in range(limit + 1):
        if lowest[i] < i:
            continue
        best = i
        if suffix[i] <= room:
            return i
    kept = None if last_user is None else n - best
    raise _budget_error(available, fixed, suffix[best], kept)


def _budget_error(available: int, fixed: int, minimum: int, kept: int | None) -> BudgetError:
    """Why even the smallest allowed view (``fixed`` plus ``minimum`` of history) is too big.

    ``kept`` is how many history messages that view keeps, None when it has no user message.
    """
    over = fixed + minimum - available
    if kept is None:
        what = f"system prompt and memory alone take {fixed} tokens"
    else:
        noun = "message" if kept == 1 else "messages"
        what = (
            f"system prompt and memory take {fixed} tokens, and the {kept} history {noun} "
            f"from the latest user message on (which cannot be dropped) {minimum} more"
        )
    return BudgetError(
        f"the view is {over} tokens over the {available} available for input: {what} (estimates)"
    )


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
