"""Building the messages of one model call: system prompt, session memory, history.

:func:`build_model_view` puts the rendered session memory between the system prompt and the
history (docs/view.md), in the OpenAI chat shape or the Anthropic shape
(viewbuilder/shapes.py), and optionally fits the history into a context window by dropping its
oldest messages, never separating a tool call from its results. The token counts it fits by
are estimates made in viewbuilder/counting.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from session_memory.core.arguments import check_argument
from session_memory.core.errors import BudgetError, ConfigError, ViewInputError
from session_memory.core.memory import SessionMemory
from session_memory.core.tokens import DEFAULT_ENCODING, counter
from viewbuilder.cache import DEFAULT_MESSAGE_TOKEN_CACHE, MessageTokenCache
from viewbuilder.counting import _count, _Facts
from viewbuilder.shapes import _SHAPES, MemoryPosition, Message, Shape, SystemPrompt, _ShapeRules

__all__ = ["ModelView", "ViewInputError", "build_model_view"]

_POSITIONS: Final = ("before_history", "after_history")


@dataclass(frozen=True, slots=True)
class ModelView:
    """The messages of one model call, and what building them did.

    ``messages`` holds the caller's own history message objects, not copies: the view never
    changes them, and the caller should not change them while the view is in use. For the
    Anthropic shape ``system`` holds the text blocks of the ``system`` field (the prompt's,
    then the memory's); for the OpenAI shape it is ``None`` and the system prompt and memory
    are the first messages. Token counts are estimates (see
    :func:`~viewbuilder.counting.message_tokens`).
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
