"""A conversation seen through an agent framework's messages: its memory, and the recent
messages that fit a request's budget.

Each integration of this package keeps one :class:`Conversation` per conversation (a
:class:`Conversations` registry). Before every model call it hands the conversation's whole
history over; the conversation folds only the messages it has not seen (O(new) per call)
through the framework's adapter into its own deriver, and tells what the request should carry:
the system prompt it found in the history, the memory, and where the recent messages it keeps
start (O(kept) per call). A history that is not the one seen before plus new messages (another
conversation under the same key, or a history rewritten by someone else) is folded again
from its start.

Token counts are estimates, made the same way for every framework (:func:`message_tokens`):
:data:`~viewbuilder.counting.MESSAGE_OVERHEAD_TOKENS` per message,
:data:`~viewbuilder.counting.PART_OVERHEAD_TOKENS` per part, plus the exact tiktoken count of each
part's text. Tool definitions are not counted. The memory's own count is exact.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from deriver import SessionMemoryDeriver
from session_memory.core.arguments import check_argument
from session_memory.core.errors import BudgetError, ConfigError
from session_memory.core.events import JsonObject, SkippedLine
from session_memory.core.tokens import DEFAULT_BUDGET, DEFAULT_ENCODING, TokenCounter, counter
from session_memory.formats.framework import FrameworkAdapter, MessageFacts
from viewbuilder import render_memory
from viewbuilder.counting import MESSAGE_OVERHEAD_TOKENS, PART_OVERHEAD_TOKENS

__all__ = [
    "DEFAULT_MIN_RECENT_TOKENS",
    "MAX_CONVERSATIONS",
    "MEMORY_FRAME_TOKENS",
    "Budget",
    "Conversation",
    "Conversations",
    "message_tokens",
    "read_request",
    "request_text",
    "request_tokens_of",
    "text_message_tokens",
]

DEFAULT_MIN_RECENT_TOKENS: Final = 1024
"""Room that a budget must leave for the recent messages, after the memory, by default."""

MAX_CONVERSATIONS: Final = 64
"""Conversations an integration keeps; the least recently used is forgotten beyond this."""

MEMORY_FRAME_TOKENS: Final = MESSAGE_OVERHEAD_TOKENS + PART_OVERHEAD_TOKENS
"""What the memory's message adds to the memory's own tokens (estimate)."""


def message_tokens(facts: MessageFacts, tok: TokenCounter) -> int:
    """The estimated tokens of one message: its framing, then each part's framing and text."""
    parts = (*facts.texts, *facts.system)
    return MESSAGE_OVERHEAD_TOKENS + sum(PART_OVERHEAD_TOKENS + tok.count(t) for t in parts)


def request_text(facts: Sequence[MessageFacts], instructions: str | None = None) -> str:
    """All the text of a request: its instructions, then every part of every message."""
    parts = [instructions or "", *(t for f in facts for t in (*f.system, *f.texts))]
    return "\n".join(p for p in parts if p)


def text_message_tokens(text: str | None, tok: TokenCounter) -> int:
    """The estimated tokens of a message of one text part (instructions, a system prompt);
    none for no text."""
    return message_tokens(MessageFacts((text,)), tok) if text else 0


def read_request(
    messages: Sequence[object],
    as_json: Callable[[object], JsonObject | None],
    facts_of: Callable[[JsonObject], MessageFacts],
) -> list[MessageFacts]:
    """What a model reads of each message of a call: its facts, or its ``repr`` when the
    framework cannot write it as JSON (as :class:`Conversation` reads it)."""
    found = []
    for message in messages:
        data = as_json(message)
        found.append(facts_of(data) if data is not None else MessageFacts((repr(message),)))
    return found


def request_tokens_of(
    facts: Sequence[MessageFacts], instructions: str | None, encoding: str
) -> int:
    """The estimated tokens of a call: its instructions (or system prompt) and messages."""
    tok = counter(encoding)
    return text_message_tokens(instructions, tok) + sum(message_tokens(f, tok) for f in facts)


@dataclass(frozen=True, slots=True)
class Budget:
    """How many tokens one request may carry, and how they are shared.

    ``context_tokens`` bounds the whole request (estimated): system prompt and instructions,
    the memory, the recent messages. ``memory_tokens`` bounds the memory (exact;
    :data:`~session_memory.core.tokens.DEFAULT_BUDGET` when None). ``min_recent_tokens`` is
    the least room the budget must leave for recent messages after the largest memory. Use
    :meth:`checked` to build one.
    """

    context_tokens: int
    memory_tokens: int
    min_recent_tokens: int
    encoding: str

    @classmethod
    def checked(
        cls,
        context_tokens: int,
        memory_tokens: int | None = None,
        min_recent_tokens: int = DEFAULT_MIN_RECENT_TOKENS,
        encoding: str = DEFAULT_ENCODING,
    ) -> Budget:
        """A budget, once it is known to be possible; :class:`ConfigError` saying why not."""
        check_argument("context_tokens", context_tokens, int)
        check_argument("memory_tokens", memory_tokens, int, optional=True)
        check_argument("min_recent_tokens", min_recent_tokens, int)
        check_argument("encoding", encoding, str)
        if min_recent_tokens < 1:
            raise ConfigError(f"min_recent_tokens must be positive, not {min_recent_tokens}")
        memory = DEFAULT_BUDGET if memory_tokens is None else memory_tokens
        # A deriver checks the memory's budget and the encoding exactly as it will be used.
        SessionMemoryDeriver(budget_tokens=memory, encoding=encoding)
        left = context_tokens - memory - MEMORY_FRAME_TOKENS
        if left < min_recent_tokens:
            raise ConfigError(
                f"a context of {context_tokens} tokens leaves {left} for the recent messages "
                f"after a memory of up to {memory} tokens (and {MEMORY_FRAME_TOKENS} for its "
                f"message), fewer than min_recent_tokens={min_recent_tokens}: raise "
                "context_tokens or lower memory_tokens"
            )
        return cls(context_tokens, memory, min_recent_tokens, encoding)

    def deriver(self) -> SessionMemoryDeriver:
        """A new deriver for one conversation's memory."""
        return SessionMemoryDeriver(budget_tokens=self.memory_tokens, encoding=self.encoding)


class _Seen(NamedTuple):
    """What fitting needs to know of one message of the history, found once."""

    tokens: int
    """Its estimated tokens among the recent messages (0 if it is all system prompt)."""
    anchor: int
    """The earliest message it cannot be kept without: the one making a call it answers."""
    joins_next: bool


def _same(message: object, seen: object) -> bool:
    return message is seen or bool(message == seen)


class Conversation:
    """One conversation's deriver and adapter, and what is known of each message seen.

    ``as_json`` turns a framework message into the JSON form the adapter reads (None when it
    cannot: the message is then a counted skip); ``facts_of`` tells what a model reads of it.
    """

    def __init__(
        self,
        budget: Budget,
        adapter: Callable[[], FrameworkAdapter],
        as_json: Callable[[object], JsonObject | None],
        facts_of: Callable[[JsonObject], MessageFacts],
    ) -> None:
        self._budget = budget
        self._new_adapter = adapter
        self._as_json = as_json
        self._facts_of = facts_of
        self._tok = counter(budget.encoding)
        self.refolds = -1
        """How often a history that was not an extension of the one seen was folded anew."""
        self._restart()

    def _restart(self) -> None:
        self.refolds += 1
        self.deriver = self._budget.deriver()
        self._adapter = self._new_adapter()
        self._seen: list[_Seen] = []
        self._issued: dict[str, int] = {}
        self._first: object = None
        self._last: object = None
        self.pinned: list[int] = []
        """Indices of the messages that hold system prompt parts, in order."""
        self.system_tokens = 0
        """Estimated tokens of those parts (and the framing of messages that are only that)."""

    @property
    def seen(self) -> int:
        """How many messages of the history have been folded."""
        return len(self._seen)

    def advance(self, history: Sequence[object]) -> None:
        """Fold the messages of ``history`` not seen yet (all of them, for another history).

        ``history`` continues the one seen when it is longer and its first and latest seen
        messages are the same (or equal) ones: cheap, and enough to tell conversations apart
        that share a key by mistake, not to catch an edit in their middle.
        """
        seen = len(self._seen)
        if seen and (
            len(history) < seen
            or not _same(history[seen - 1], self._last)
            or not _same(history[0], self._first)
        ):
            self._restart()
            seen = 0
        for index in range(seen, len(history)):
            self._add(history[index], index)
        if len(history) > seen:
            self._first, self._last = history[0], history[-1]

    def _add(self, message: object, index: int) -> None:
        data = self._as_json(message)
        if data is None:
            skip = SkippedLine(offset=index, reason="message not readable as JSON")
            self.deriver.record_skip(skip)
            facts = MessageFacts((repr(message),))
        else:
            for record in self._adapter.feed(data, index):
                if isinstance(record, SkippedLine):
                    self.deriver.record_skip(record)
                else:
                    self.deriver.apply(record)
            facts = self._facts_of(data)
        self._note(facts, index)

    def _note(self, facts: MessageFacts, index: int) -> None:
        count = self._tok.count
        own = sum(PART_OVERHEAD_TOKENS + count(t) for t in facts.texts)
        tokens = MESSAGE_OVERHEAD_TOKENS + own
        if facts.system:
            self.pinned.append(index)
            self.system_tokens += sum(PART_OVERHEAD_TOKENS + count(t) for t in facts.system)
            if not facts.texts:
                self.system_tokens += MESSAGE_OVERHEAD_TOKENS
                tokens = 0
        anchor = index
        issued = self._issued
        for call_id in facts.answered:
            anchor = min(anchor, issued.get(call_id, index))
        for call_id in facts.issued:
            issued[call_id] = index
        self._seen.append(_Seen(tokens, anchor, facts.joins_next))

    def memory(self) -> tuple[str, int]:
        """The memory's Markdown and its exact tokens ("" and 0 while it is empty)."""
        memory = self.deriver.memory
        text = render_memory(memory)
        return text, (memory.tokens_used if text else 0)

    def keep_from(self, room: int) -> int:
        """Where the recent messages that fit ``room`` tokens start.

        The kept messages are the longest suffix of the history that fits, in which every
        tool result has its call and no message is kept without one it belongs with. At
        least the latest such exchange is kept: when even that does not fit,
        :class:`BudgetError` says by how much. Work is proportional to the messages kept.
        """
        seen = self._seen
        total = 0
        lowest = len(seen)
        best: int | None = None
        for index in range(len(seen) - 1, -1, -1):
            entry = seen[index]
            total += entry.tokens
            lowest = min(lowest, entry.anchor)
            whole = lowest >= index and not (index and seen[index - 1].joins_next)
            if total > room:
                if best is not None:
                    return best
                if whole:
                    raise _too_small(room, total, len(seen) - index)
            elif whole:
                best = index
        # The whole history is always a cut that keeps exchanges whole: it fitted.
        return 0


def _too_small(room: int, needed: int, messages: int) -> BudgetError:
    noun = "message" if messages == 1 else "messages"
    return BudgetError(
        f"the latest {messages} {noun}, which cannot be separated (a tool call and its "
        f"result), take {needed} tokens; {room} are left for recent messages after the "
        "system prompt and the memory (estimates): raise context_tokens"
    )


class Conversations:
    """Conversations by key; past ``limit`` the least recently used one is forgotten."""

    def __init__(self, new: Callable[[], Conversation], limit: int = MAX_CONVERSATIONS) -> None:
        self._new = new
        self._limit = limit
        self._by_key: OrderedDict[Hashable, Conversation] = OrderedDict()

    def get(self, key: Hashable) -> Conversation:
        """The conversation of ``key``, new if it is not known."""
        found = self._by_key.get(key)
        if found is None:
            found = self._by_key[key] = self._new()
            while len(self._by_key) > self._limit:
                self._by_key.popitem(last=False)
        else:
            self._by_key.move_to_end(key)
        return found

    def __len__(self) -> int:
        return len(self._by_key)
