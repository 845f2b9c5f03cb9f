"""The frameworks benchmark's parts: the scripted run, the trimming baseline, the ideal
summariser and the report (the runs themselves are the integration tests')."""

from __future__ import annotations

import re

import pytest

from benchmarks.frameworks import script
from benchmarks.frameworks.bench import SHOWN_CALLS, FrameworkResult, Strategy, trimmed
from benchmarks.frameworks.report import facts_table, markdown, overhead_table
from session_memory.formats.framework import MessageFacts
from tests.test_docs import ROOT, doc_section


class TestScript:
    def test_the_run_is_long_and_changes_its_goal(self) -> None:
        """Over 200 tool calls; four turns, two goals; each shown call is in the run."""
        assert script.tool_calls() >= 200
        goals = {must.goal for must in script.must_know()}
        assert goals == {script.PROMPTS[0], script.PROMPTS[2]}
        assert max(SHOWN_CALLS) <= len(script.STEPS)

    def test_the_tests_fail_then_pass(self) -> None:
        checks = [m.check for m in script.must_know() if m.check]
        assert list(dict.fromkeys(checks)) == [
            "1 failed, 9 passed",
            "10 passed",
            "1 failed, 11 passed",
            "12 passed",
        ]

    def test_a_fact_is_present_when_its_text_is(self) -> None:
        must = script.MustKnow("Fix it", ("write a test", "fix"), "1 failed, 2 passed")
        found = script.present(must, "> Fix it\n- [ ] fix\n- FAILED (1 failed, 2 passed)")
        assert (found.goal, found.todos, found.check, found.complete) == (True, 1, True, False)
        assert found.score == (3, 4)


class TestTrimming:
    def test_the_newest_messages_that_fit_are_kept_with_the_system_prompt(self) -> None:
        system = MessageFacts((), ("You code.",))
        call, result = MessageFacts(("x",), issued=("c",)), MessageFacts(("y",), answered=("c",))
        prompt = MessageFacts(("goal " * 5000,))
        kept = trimmed([system, prompt, call, result], None)
        assert kept == [system, call, result]

    def test_a_result_is_not_kept_without_its_call(self) -> None:
        big_call = MessageFacts(("x " * 3990,), issued=("c",))
        result = MessageFacts(("y",), answered=("c",))
        assert trimmed([big_call, result], None) == []


def test_the_ideal_summariser_keeps_the_facts_it_is_shown() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import HumanMessage

    from benchmarks.frameworks.summariser import IdealSummariser

    summariser = IdealSummariser()
    prompt = f"{script.PROMPTS[0]} ... 1 failed, 9 passed in 0.1s"
    answer = summariser.invoke([HumanMessage(prompt)])
    assert answer.text == f"- {script.PROMPTS[0]}\n- 1 failed, 9 passed"
    assert summariser.calls == 1
    assert summariser.prompt_tokens > 10


def test_the_report_has_both_tables() -> None:
    calls = len(script.STEPS)
    found = [script.present(m, m.goal) for m in script.must_know()]
    result = FrameworkResult("toy", calls, 2.0, 1.0, [0.001] * calls)
    result.strategies = [Strategy("session memory", found, 3000)]
    text = markdown([result], {"Command": "python -m benchmarks.frameworks"})
    assert overhead_table([result]) in text
    assert facts_table([result]) in text
    assert "| toy | session memory | 1/4 |" in text
    row = "| toy | 204 | 1,000 µs | 1,000 µs | 1,000 µs | 1,000 µs | 2.0 s (10 ms a call) | 1.0 s"
    assert row in text


def test_the_readme_quotes_the_measured_figures() -> None:
    """Every figure the README gives after naming benchmarks/results/frameworks.md is in that
    file, as written or rounded (a time in µs there may be given in ms)."""
    section = doc_section("README.md", "## Inside an agent framework")
    quoted = section.split("(benchmarks/results/frameworks.md)")[1]
    quoted = re.sub(r"`[^`]*`", "", quoted)  # names, not figures
    results = (ROOT / "benchmarks" / "results" / "frameworks.md").read_text(encoding="utf-8")
    figures = {float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\.?\d*", results)}
    figures |= {f / 1000 for f in figures}
    numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", quoted)
    assert len(numbers) > 20
    for number in numbers:
        decimals = len(number.partition(".")[2])
        value = float(number.replace(",", ""))
        assert any(round(f, decimals) == value for f in figures), number
