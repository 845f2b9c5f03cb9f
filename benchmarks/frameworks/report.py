"""The Markdown report of ``python -m benchmarks.frameworks``."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata

from benchmarks.frameworks.bench import (
    CONTEXT_TOKENS,
    MEMORY_TOKENS,
    SHOWN_CALLS,
    SUMMARY_KEEP_TOKENS,
    SUMMARY_TRIGGER_TOKENS,
    FrameworkResult,
    Strategy,
)
from benchmarks.frameworks.script import STEPS, tool_calls

__all__ = ["facts_table", "markdown", "overhead_table", "version"]


def version(package: str) -> str:
    """The installed version of ``package``."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _score(strategy: Strategy, call: int) -> str:
    got, expected = strategy.found[call - 1].score
    return f"{got}/{expected}"


def _complete(strategy: Strategy) -> str:
    return f"{sum(p.complete for p in strategy.found)}/{len(strategy.found)}"


def overhead_table(results: Sequence[FrameworkResult]) -> str:
    """Time in the integration per model call, and the runs' wall time."""
    rows = [
        "| framework | model calls | integration per call, median | p99 | median of the first "
        "50 calls | median of the last 50 | run with the plain history | run with the "
        "integration |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        plain, memory = (s / r.model_calls * 1e3 for s in (r.plain_seconds, r.memory_seconds))
        rows.append(
            f"| {r.name} | {r.model_calls} | {r.hook_median_us:,.0f} µs | {r.hook_p99_us:,.0f} µs"
            f" | {r.hook_median_of_us(slice(None, 50)):,.0f} µs"
            f" | {r.hook_median_of_us(slice(-50, None)):,.0f} µs"
            f" | {r.plain_seconds:.1f} s ({plain:.0f} ms a call)"
            f" | {r.memory_seconds:.1f} s ({memory:.0f} ms a call) |"
        )
    return "\n".join(rows) + "\n"


def facts_table(results: Sequence[FrameworkResult]) -> str:
    """Must-know facts in the model's input at the shown calls, per strategy."""
    shown = " | ".join(f"call {c}" for c in SHOWN_CALLS)
    rows = [
        f"| framework | input kept by | {shown} | calls with every fact | largest input "
        "(tokens) | extra model calls | tokens sent to them |",
        "|---|---|" + "---:|" * (len(SHOWN_CALLS) + 4),
    ]
    for r in results:
        for s in r.strategies:
            scores = " | ".join(_score(s, c) for c in SHOWN_CALLS)
            rows.append(
                f"| {r.name} | {s.name} | {scores} | {_complete(s)} | {s.largest_request:,} "
                f"| {s.model_calls} | {s.tokens_sent:,} |"
            )
    return "\n".join(rows) + "\n"


def markdown(results: Sequence[FrameworkResult], facts: dict[str, str]) -> str:
    """The whole report: what was run, on what, and the two tables."""
    header = "\n".join(f"- {k}: {v}" for k, v in facts.items())
    return f"""# Session memory inside agent frameworks

`{facts.get("Command", "python -m benchmarks.frameworks")}`: the scripted run of
`benchmarks/frameworks/script.py` (four user turns of one coding task: a todo list written and
updated, a test that fails then passes, edits, a change of goal; {tool_calls()} tool calls in
{len(STEPS)} model calls) on each framework's own test model, once with its plain history and
once with the integration (`context_tokens={CONTEXT_TOKENS}`, `memory_tokens={MEMORY_TOKENS}`).

{header}

## Overhead per model call

The CPU time spent in the integration before each model call (folding the new messages,
building the request), over all calls and over the first and the last 50 (the history is
several times longer at the end), and the CPU time of the whole run (all threads) with the
framework's plain history and with the integration. CPU time, not wall time: other work on
the machine does not count, though it still slows the caches. The plain history grows with
the run, and so does each framework's own work on it; the integration sends far less, so a
run with it can cost less than one without.

{overhead_table(results)}
## Must-know facts in the model's input

At each model call, the facts a model must have to go on: the current goal, each open todo
of the latest todo list, and the verdict of the last test run (its summary line). Shown as
facts present / facts expected at the calls listed, and the calls whose input had all of
them. *Trimming alone* keeps the most recent messages within the same {CONTEXT_TOKENS} tokens
(the system prompt always, a tool call never without its results), applied to the inputs of
the plain run. *SummarizationMiddleware* (LangChain's, `trigger=("tokens",
{SUMMARY_TRIGGER_TOKENS})`, `keep=("tokens", {SUMMARY_KEEP_TOKENS})`, its other settings as
they come) is driven by an ideal scripted summariser that keeps every must-know fact it is
shown: no model summarises better, and each summary is a model call, counted with the tokens
of its prompt. Token counts are the integrations' estimate (cl100k_base).

{facts_table(results)}"""
