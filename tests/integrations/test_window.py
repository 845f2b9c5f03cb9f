"""What the integrations share: the budget, folding only what is new, keeping exchanges whole."""

from __future__ import annotations

from typing import Any

import pytest

from session_memory.apps.integrations.window import (
    MEMORY_FRAME_TOKENS,
    Budget,
    Conversation,
    Conversations,
)
from session_memory.core.errors import BudgetError, ConfigError
from session_memory.core.events import JsonObject
from session_memory.formats.framework import FrameworkAdapter, MessageFacts


class Plain(FrameworkAdapter):
    """A toy format: {"user": text} is a prompt, {"call": id} a call, {"result": id} its end."""

    format_name = "plain"

    def _feed(self, record: JsonObject, offset: int, out: list[Any]) -> None:
        if "user" in record:
            self._user(out, offset, record["user"])
        elif "call" in record:
            self._call(out, offset, 0, "read_file", record["call"], {"path": record["call"]})
        elif "result" in record:
            self._result(out, offset, 0, record["result"], "text", failed=False)
        else:
            self._skip(out, offset, "no known key")


def facts(message: JsonObject) -> MessageFacts:
    return MessageFacts(
        texts=() if "system" in message else (str(message.get("text", "x")),),
        system=("system",) if "system" in message else (),
        issued=(message["call"],) if "call" in message else (),
        answered=(message["result"],) if "result" in message else (),
        joins_next=bool(message.get("joins")),
    )


class Counting:
    """facts() that counts the messages it is asked about."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, message: JsonObject) -> MessageFacts:
        self.asked += 1
        return facts(message)


def conversation(counting: Counting | None = None) -> Conversation:
    budget = Budget.checked(context_tokens=2000, memory_tokens=300, min_recent_tokens=100)
    return Conversation(
        budget, Plain, lambda m: m if isinstance(m, dict) else None, counting or facts
    )


def exchange(n: int) -> list[dict[str, Any]]:
    return [{"call": f"c{n}"}, {"result": f"c{n}"}]


class TestBudget:
    def test_a_budget_without_room_for_recent_messages_fails_at_construction(self) -> None:
        """The memory's largest size plus its framing must leave min_recent_tokens."""
        with pytest.raises(ConfigError, match="leaves 100 for the recent messages"):
            Budget.checked(context_tokens=400 + MEMORY_FRAME_TOKENS + 100, memory_tokens=400,
                           min_recent_tokens=101)  # fmt: skip
        Budget.checked(context_tokens=400 + MEMORY_FRAME_TOKENS + 100, memory_tokens=400,
                       min_recent_tokens=100)  # fmt: skip

    def test_an_impossible_memory_budget_is_the_derivers_error(self) -> None:
        with pytest.raises(ConfigError, match="cannot hold the memory's fixed parts"):
            Budget.checked(context_tokens=10_000, memory_tokens=5)

    @pytest.mark.parametrize(
        "kwargs",
        [{"context_tokens": "8000"}, {"context_tokens": 8000, "min_recent_tokens": 0},
         {"context_tokens": 8000, "encoding": "no-such-encoding"}],
    )  # fmt: skip
    def test_bad_arguments_fail_at_construction(self, kwargs: dict[str, Any]) -> None:
        with pytest.raises(ConfigError):
            Budget.checked(**kwargs)


class TestFolding:
    def test_only_new_messages_are_folded(self) -> None:
        """Each call looks at the messages it has not seen: O(new), not O(history)."""
        counting = Counting()
        conv = conversation(counting)
        history: list[Any] = [{"user": "Read the files"}]
        for n in range(50):
            history += exchange(n)
            conv.advance(history)
        assert counting.asked == len(history)
        assert conv.refolds == 0
        assert "Read the files" in conv.memory()[0]

    def test_a_rewritten_history_is_folded_anew(self) -> None:
        """A history that does not continue the one seen starts the memory over."""
        conv = conversation()
        conv.advance([{"user": "First goal"}, *exchange(0)])
        conv.advance([{"user": "Another conversation"}, *exchange(0)])
        assert conv.refolds == 1
        text = conv.memory()[0]
        assert "Another conversation" in text
        assert "First goal" not in text

    def test_a_message_of_unknown_kind_is_a_counted_skip(self) -> None:
        conv = conversation()
        conv.advance([{"user": "Go"}, {"hologram": 1}, "not even an object"])
        assert conv.deriver.memory.diagnostics.lines_skipped == 2


class TestKeeping:
    def test_the_latest_messages_that_fit_are_kept(self) -> None:
        conv = conversation()
        conv.advance([{"user": "Go"}, *(m for n in range(20) for m in exchange(n))])
        per_message = 4 + 3 + 1  # framing, one part, "x"
        start = conv.keep_from(6 * per_message)
        assert start == conv.seen - 6

    def test_a_result_is_never_kept_without_its_call(self) -> None:
        """A budget that would cut between a call and its result keeps neither."""
        conv = conversation()
        conv.advance([{"user": "Go"}, *(m for n in range(20) for m in exchange(n))])
        per_message = 8
        assert conv.keep_from(5 * per_message) == conv.seen - 4

    def test_parallel_calls_stay_with_all_their_results(self) -> None:
        conv = conversation()
        history = [{"user": "Go"}, {"call": "a"}, {"call": "b"}, {"result": "a"}, {"result": "b"}]
        conv.advance(history)
        assert conv.keep_from(4 * 8) == 1
        with pytest.raises(BudgetError, match="the latest 4 messages"):
            conv.keep_from(4 * 8 - 1)

    def test_a_message_that_belongs_with_the_next_is_not_cut_off(self) -> None:
        conv = conversation()
        conv.advance([{"user": "Go"}, {"joins": True}, *exchange(0)])
        assert conv.keep_from(3 * 8) == 1
        with pytest.raises(BudgetError, match="the latest 3 messages"):
            conv.keep_from(3 * 8 - 1)

    def test_when_the_latest_exchange_does_not_fit_the_error_says_so(self) -> None:
        conv = conversation()
        conv.advance([{"user": "Go"}, *exchange(0)])
        with pytest.raises(BudgetError, match="the latest 2 messages"):
            conv.keep_from(10)

    def test_system_prompt_messages_are_pinned_not_counted_as_recent(self) -> None:
        conv = conversation()
        conv.advance([{"system": 1}, {"user": "Go"}, *exchange(0)])
        assert conv.pinned == [0]
        assert conv.system_tokens == 4 + 3 + 1  # framing, a part, "system"
        assert conv.keep_from(3 * 8) == 0  # the pinned message costs the recent ones nothing


class TestConversations:
    def test_the_least_recently_used_is_forgotten(self) -> None:
        made: list[Conversation] = []

        def new() -> Conversation:
            made.append(conversation())
            return made[-1]

        conversations = Conversations(new, limit=2)
        first = conversations.get("a")
        conversations.get("b")
        assert conversations.get("a") is first
        conversations.get("c")  # forgets b, the least recently used
        assert len(conversations) == 2
        conversations.get("b")
        assert len(made) == 4
