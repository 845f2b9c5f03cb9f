"""Session memory inside the frameworks, measured on the scripted run (``script.py``).

For each framework: the run with its plain history and the run with the integration (the CPU
time spent in the integration at each model call, and the CPU time of the whole run: CPU
time, not wall time, so that other work on the machine does not count), and which must-know
facts each model call's input carries, for three ways of keeping the input short:

* the session memory (the integration): the memory and the recent messages within the budget;
* trimming alone: the same budget filled with the most recent messages only, tool calls kept
  with their results (what a hand-written history processor or ``trim_messages`` does),
  applied to the requests of the plain run: the scripted model does the same either way;
* LangChain's ``SummarizationMiddleware``, driven by an ideal scripted summariser that keeps
  every must-know fact it is shown and nothing else: what any summarising model could at best
  keep, with the model calls and tokens it costs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from benchmarks.frameworks import drivers
from benchmarks.frameworks.script import Present, must_know, present
from session_memory.apps.integrations.window import (
    message_tokens,
    request_text,
    text_message_tokens,
)
from session_memory.core.tokens import DEFAULT_ENCODING, counter
from session_memory.formats.framework import MessageFacts

__all__ = [
    "CONTEXT_TOKENS",
    "MEMORY_TOKENS",
    "SHOWN_CALLS",
    "SUMMARY_KEEP_TOKENS",
    "SUMMARY_TRIGGER_TOKENS",
    "FrameworkResult",
    "Strategy",
    "run_all",
]

CONTEXT_TOKENS: Final = 4000
MEMORY_TOKENS: Final = 800
SUMMARY_TRIGGER_TOKENS: Final = 3000
SUMMARY_KEEP_TOKENS: Final = 1500
SHOWN_CALLS: Final = (25, 50, 100, 150, 200)
"""The model calls (counted from 1) whose inputs the report shows."""

Facts = Callable[[Sequence[Any]], list[MessageFacts]]


@dataclass(slots=True)
class Strategy:
    """One way of keeping the input short, judged at every model call."""

    name: str
    found: list[Present]
    largest_request: int
    model_calls: int = 0
    """Model calls it made besides the agent's own (a summariser's)."""
    tokens_sent: int = 0
    """Tokens it sent to them."""


@dataclass(slots=True)
class FrameworkResult:
    """One framework's figures."""

    name: str
    model_calls: int
    plain_seconds: float
    memory_seconds: float
    hook_seconds: list[float]
    strategies: list[Strategy] = field(default_factory=list)

    @property
    def hook_median_us(self) -> float:
        return statistics.median(self.hook_seconds) * 1e6

    def hook_median_of_us(self, part: slice) -> float:
        """The median of the calls in ``part`` (in call order): the cost must not grow with
        the conversation."""
        return statistics.median(self.hook_seconds[part]) * 1e6

    @property
    def hook_p99_us(self) -> float:
        ordered = sorted(self.hook_seconds)
        return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1e6


def _judge(
    name: str, recording: drivers.Recording, facts_of: Facts, keep: Callable[..., Any] | None
) -> Strategy:
    """Which facts each call's input carries; with ``keep``, of the input trimmed by it."""
    tok = counter(DEFAULT_ENCODING)
    expected = must_know()
    found: list[Present] = []
    largest = 0
    for call, must in zip(recording.calls, expected, strict=True):
        facts = facts_of(call.messages)
        if keep is not None:
            facts = keep(facts, call.instructions)
        found.append(present(must, request_text(facts, call.instructions)))
        size = text_message_tokens(call.instructions, tok) + sum(
            message_tokens(f, tok) for f in facts
        )
        largest = max(largest, size)
    return Strategy(name, found, largest)


def trimmed(facts: list[MessageFacts], instructions: str | None) -> list[MessageFacts]:
    """The input that trimming alone sends within ``CONTEXT_TOKENS``: the system prompt, then
    the most recent messages that fit, a tool call never without its results."""
    tok = counter(DEFAULT_ENCODING)
    system = [MessageFacts((), f.system) for f in facts if f.system]
    total = text_message_tokens(instructions, tok) + sum(message_tokens(f, tok) for f in system)
    start = len(facts)
    waiting: set[str] = set()
    for index in range(len(facts) - 1, -1, -1):
        message = facts[index]._replace(system=())
        total += message_tokens(message, tok) if message.texts else 0
        if total > CONTEXT_TOKENS:
            break
        waiting = (waiting | set(message.answered)) - set(message.issued)
        if not waiting:
            start = index
    return [*system, *(f._replace(system=()) for f in facts[start:] if f.texts)]


def _timed(runs: Callable[[], drivers.Recording]) -> tuple[drivers.Recording, float]:
    """The run's recording and the CPU time it took (all threads of the process)."""
    start = time.process_time()
    recording = runs()
    return recording, time.process_time() - start


# -- the three frameworks ----------------------------------------------------------------


def pydantic_ai() -> FrameworkResult:
    from session_memory.apps.integrations.pydantic_ai import (
        SessionMemoryCapability,
        request_facts,
    )

    hook: list[float] = []

    class Timed(SessionMemoryCapability[Any]):
        async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
            start = time.thread_time()
            done = await super().before_model_request(ctx, request_context)
            hook.append(time.thread_time() - start)
            return done

    plain, plain_s = _timed(drivers.run_pydantic_ai)
    capability = Timed(context_tokens=CONTEXT_TOKENS, memory_tokens=MEMORY_TOKENS)
    ours, ours_s = _timed(lambda: drivers.run_pydantic_ai([capability]))
    result = FrameworkResult("pydantic-ai", len(ours.calls), plain_s, ours_s, hook)
    result.strategies = [
        _judge("session memory", ours, request_facts, None),
        _judge("trimming alone", plain, request_facts, trimmed),
    ]
    return result


def openai_agents() -> FrameworkResult:
    from session_memory.apps.integrations.openai_agents import (
        SessionMemoryInputFilter,
        request_facts,
    )

    hook: list[float] = []
    input_filter = SessionMemoryInputFilter(
        context_tokens=CONTEXT_TOKENS, memory_tokens=MEMORY_TOKENS
    )

    def timed(data: Any) -> Any:
        start = time.thread_time()
        done = input_filter(data)
        hook.append(time.thread_time() - start)
        return done

    plain, plain_s = _timed(drivers.run_openai_agents)
    ours, ours_s = _timed(lambda: drivers.run_openai_agents(timed))
    result = FrameworkResult("OpenAI Agents SDK", len(ours.calls), plain_s, ours_s, hook)
    result.strategies = [
        _judge("session memory", ours, request_facts, None),
        _judge("trimming alone", plain, request_facts, trimmed),
    ]
    return result


def langchain() -> FrameworkResult:
    from langchain.agents.middleware import SummarizationMiddleware

    from benchmarks.frameworks.summariser import IdealSummariser
    from session_memory.apps.integrations.langchain import (
        SessionMemoryMiddleware,
        request_facts,
    )

    hook: list[float] = []

    class Timed(SessionMemoryMiddleware):
        def _fitted(self, request: Any) -> Any:
            start = time.thread_time()
            done = super()._fitted(request)
            hook.append(time.thread_time() - start)
            return done

    plain, plain_s = _timed(drivers.run_langchain)
    middleware = Timed(context_tokens=CONTEXT_TOKENS, memory_tokens=MEMORY_TOKENS)
    ours, ours_s = _timed(lambda: drivers.run_langchain([middleware]))
    summariser = IdealSummariser()
    summarising = SummarizationMiddleware(
        summariser,
        trigger=("tokens", SUMMARY_TRIGGER_TOKENS),
        keep=("tokens", SUMMARY_KEEP_TOKENS),
    )
    summarised = drivers.run_langchain([summarising])
    by_summary = _judge(
        "SummarizationMiddleware, ideal summariser", summarised, request_facts, None
    )
    by_summary.model_calls = summariser.calls
    by_summary.tokens_sent = summariser.prompt_tokens
    result = FrameworkResult("LangChain", len(ours.calls), plain_s, ours_s, hook)
    result.strategies = [
        _judge("session memory", ours, request_facts, None),
        _judge("trimming alone", plain, request_facts, trimmed),
        by_summary,
    ]
    return result


RUNS: Final[dict[str, Callable[[], FrameworkResult]]] = {
    "pydantic-ai": pydantic_ai,
    "openai-agents": openai_agents,
    "langchain": langchain,
}


def run_all(names: Sequence[str] = tuple(RUNS)) -> list[FrameworkResult]:
    """Measure the frameworks named (all by default), in order."""
    counter(DEFAULT_ENCODING).count("load the encoding before anything is timed")
    return [RUNS[name]() for name in names]
