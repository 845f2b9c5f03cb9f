"""What every integration's scripted run must show, request by request."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.frameworks.drivers import Call, Recording
from benchmarks.frameworks.script import must_know, present
from session_memory.apps.integrations.window import request_text
from session_memory.formats.framework import MessageFacts

Facts = Callable[[Sequence[Any]], list[MessageFacts]]
Tokens = Callable[[Call], int]


def unpaired(facts: Sequence[MessageFacts]) -> set[str]:
    """Call ids of a request made without their result, or answered without their call."""
    issued = {i for f in facts for i in f.issued}
    answered = {i for f in facts for i in f.answered}
    return issued ^ answered


def check_requests(
    recording: Recording, facts_of: Facts, tokens_of: Tokens, context_tokens: int
) -> None:
    """At every model call of the run: the goal, the open todos and the last check's verdict
    are in the request, the request is within budget, every call has its result, and the
    history sent is short."""
    expected = must_know()
    assert len(recording.calls) == len(expected)
    for number, (call, must) in enumerate(zip(recording.calls, expected, strict=True)):
        facts = facts_of(call.messages)
        found = present(must, request_text(facts, call.instructions))
        assert found.complete, f"call {number}: {found} of {must}"
        assert tokens_of(call) <= context_tokens, f"call {number} over budget"
        assert not unpaired(facts), f"call {number}: calls and results apart"
        assert len(call.messages) <= 30, f"call {number}: {len(call.messages)} messages sent"
    assert len(recording.history) > 400  # the framework's own history stayed whole
