"""How long build_model_view takes inside an agent loop.

A 200-message history (user turns, assistant tool calls, tool results of a few hundred tokens)
grows by one message per step; a 1,200-token memory sits in front of it. Each step builds one
view, as an agent does before each model call. Reported: median and p99 per call, once with the
whole history and once fitted to a context window that forces dropping.

    python benchmarks/bench_view.py
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import msgspec

from session_memory.core.memory import Goal, MemoryItem, Provenance, SessionMemory
from session_memory.core.tokens import counter
from viewbuilder import build_model_view, message_token_cache_info, render_memory
from viewbuilder.counting import clear_message_token_cache

HISTORY = 200
WARMUP = 20
SYSTEM = "You are a careful coding agent. Use the tools; verify before you claim success."


def memory_of(tokens: int) -> SessionMemory:
    """A memory whose rendering is about ``tokens`` tokens."""
    tok = counter()
    goal = "Refactor the auth module so that tokens are refreshed before they expire"
    items: list[MemoryItem] = []
    memory = SessionMemory(budget_tokens=1200, encoding="cl100k_base", tokens_used=0)
    while True:
        i = len(items)
        text = f"edited src/auth/module_{i}.py: moved refresh logic into TokenStore.refresh()"
        items.append(
            MemoryItem(
                id=f"w{i}",
                kind="tool",
                text=text,
                tokens=tok.count(text),
                provenance=Provenance(created_by=f"e{i}", changed_by=f"e{i}"),
            )
        )
        candidate = msgspec.structs.replace(
            memory,
            current_goal=Goal(text=goal, event_id="e0", tokens=tok.count(goal)),
            completed_work=tuple(items),
        )
        used = tok.count(render_memory(candidate))
        if used > tokens:
            return memory
        memory = msgspec.structs.replace(candidate, tokens_used=used)


def message(i: int) -> dict[str, Any]:
    """The i-th message of a plausible agent history: user, call, result, call, result, ..."""
    if i % 20 == 0:
        return {"role": "user", "content": f"Step {i}: now make the refresh path thread-safe."}
    if i % 2 == 1:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": "Bash", "arguments": f'{{"command": "pytest -k t{i}"}}'},
                }
            ],
        }
    body = "".join(f"tests/test_auth.py::test_case_{i}_{j} PASSED\n" for j in range(25))
    return {"role": "tool", "tool_call_id": f"call_{i - 1}", "content": body}


def to_anthropic(m: dict[str, Any]) -> dict[str, Any]:
    """The same message in the Anthropic shape."""
    if m["role"] == "assistant":
        call = m["tool_calls"][0]
        block = {
            "type": "tool_use",
            "id": call["id"],
            "name": "Bash",
            "input": {"command": "pytest"},
        }
        return {"role": "assistant", "content": [block]}
    if m["role"] == "tool":
        result = {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}
        return {"role": "user", "content": [result]}
    return m


def run(
    label: str,
    history: list[dict[str, Any]],
    memory: SessionMemory,
    *,
    first: int = HISTORY,
    cold: bool = False,
    **kw: Any,
) -> None:
    """Append one message per step and build a view each time; time the steps after ``first``.

    The call at ``first`` messages is untimed: it fills the cache as the loop's earlier steps
    would have.
    """
    clear_message_token_cache()
    previous = None
    times: list[float] = []
    grown = history[:first]
    for n in range(first, len(history) + 1):
        if n > first:
            grown.append(history[n - 1])
        if cold:
            clear_message_token_cache()
        start = time.perf_counter()
        previous = build_model_view(SYSTEM, memory, grown, previous=previous, **kw)
        elapsed = time.perf_counter() - start
        if n > first:
            times.append(elapsed)
    assert previous is not None
    times.sort()
    median = statistics.median(times) * 1e3
    p99 = times[max(0, round(len(times) * 0.99) - 1)] * 1e3
    info = message_token_cache_info()
    print(
        f"{label:<30} median {median:6.3f} ms   p99 {p99:6.3f} ms   "
        f"(last view: {len(previous.messages)} messages, {previous.total_tokens} tokens, "
        f"{previous.dropped_messages} dropped; cache {info.hits} hits, {info.misses} misses)"
    )


def main() -> None:
    memory = memory_of(1200)
    history = [message(i) for i in range(2 * HISTORY)]
    print(f"memory {memory.tokens_used} tokens; one call per step, one message more per step")
    print(f"history growing from 1 to {HISTORY} messages:")
    run("openai, whole history", history[:HISTORY], memory, first=0)
    run("openai, 16k window", history[:HISTORY], memory, first=0, context_window=16_000)
    print(f"history growing from {HISTORY + 1} to {2 * HISTORY} messages:")
    run("openai, whole history", history, memory)
    run("openai, 16k window", history, memory, context_window=16_000)
    anthropic = [to_anthropic(m) for m in history]
    run("anthropic, 16k window", anthropic, memory, shape="anthropic", context_window=16_000)
    run("openai, cache cleared per call", history, memory, cold=True)


if __name__ == "__main__":
    main()
