"""The session memory derived from each real recording, checked against a reading by hand.

These run the whole path (adapter, deriver) with a budget large enough that nothing is
evicted, so every expectation is about what the rules derive, not what the budget keeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deriver import SessionMemoryDeriver
from session_memory.formats import read_transcript
from tests.formats.fixture_reads import FIXTURES

BUDGET = 8000


def memory_of(name: str) -> Any:
    d = SessionMemoryDeriver(budget_tokens=BUDGET)
    d.apply_all(read_transcript(FIXTURES / name))
    return d.memory


def texts(items: Any) -> list[str]:
    return [i.text for i in items]


def uncertain(memory: Any) -> list[Any]:
    return [t for t in memory.todo_items if t.status == "uncertain"]


def joined(items: Any) -> str:
    return "\n".join(texts(items))


class TestClaudeCodeMemory:
    """Memory of each Claude Code fixture."""

    def test_rejected_tools(self) -> None:
        """Goal is the prompt; both rejected calls are failed attempts; nothing uncertain."""
        m = memory_of("claude_code/cc-2.1.38_rejected-tools_interrupt_short.jsonl")
        assert m.current_goal.text == "mix phx.server doesnt seem to start"
        failed = joined(m.failed_attempts)
        assert "mix phx.server" in failed
        assert "User rejected tool use" in failed
        assert uncertain(m) == []

    def test_todowrite_inline_sidechain(self) -> None:
        """The last TodoWrite list is all completed; the parent's two failures only."""
        m = memory_of("claude_code/cc-1.0.108_todowrite_inline-sidechain_5c0375b4.jsonl")
        assert m.current_goal.text.startswith("/orchestrator @CLAUDE.md")
        assert not [t for t in m.todo_items if t.status in ("pending", "in_progress")]
        assert "Update CLAUDE.md with latest project information" in joined(m.completed_work)
        failed = joined(m.failed_attempts)
        assert "InputValidationError" in failed
        assert "File has not been read yet" not in failed  # the agent read it then
        assert "tree " not in failed  # the sidechain's failed command stays out
        assert uncertain(m) == []

    def test_interleaved_summary_records(self) -> None:
        """Titles are not checkpoints; the last prompt is the goal; the Write was rejected."""
        m = memory_of("claude_code/cc-2.1.4_interleaved-summary-records_9eda1058.jsonl")
        assert m.current_goal.text == "what else?"
        assert not any("compact" in t.lower() for t in texts(m.key_decisions))
        assert "available-tools.md" in joined(m.failed_attempts)

    def test_task_plan_mode(self) -> None:
        """The follow-up prompt is the goal; the sub-agent's mirrored calls add nothing."""
        m = memory_of("claude_code/cc-2.1.38_task-plan-mode_subagent-parent.jsonl")
        assert m.current_goal.text == "create the beads"
        assert m.failed_attempts == ()
        assert uncertain(m) == []
        # The beads it created are the todo list (bd is a task tracker), not completed work.
        assert "spotter-0p7: Setup Code Quality Tools" in joined(m.todo_items)

    def test_auto_compaction(self) -> None:
        """The checkpoint is a key decision; with no prompt before it, the summary's request
        is the goal, marked as coming from the summary."""
        m = memory_of("claude_code/cc-2.1.39_auto-compaction_EXCERPT_4d5611e5_L741-773.jsonl")
        assert m.current_goal is not None
        assert m.current_goal.text.startswith("(from the compaction summary)")
        assert "context compacted (auto, 170251 tokens before)" in joined(m.key_decisions)

    def test_manual_compact(self) -> None:
        """The checkpoint is a decision; the last command is uncertain, and safe to replay
        because it only reads."""
        m = memory_of("claude_code/cc-2.1.39_manual-compact_EXCERPT_ae4a77f8_L1472-1499.jsonl")
        assert "context compacted (manual, 142431 tokens before)" in joined(m.key_decisions)
        (todo,) = uncertain(m)
        assert "git status --short" in todo.text
        assert todo.safe_to_replay is True

    def test_compaction_summariser(self) -> None:
        """The summariser's own session: its prompt is the goal, its answer the agent's last
        message."""
        m = memory_of("claude_code/cc-2.1.39_subagents_agent-acompact-e1f845.jsonl")
        assert m.current_goal.text.startswith("Your task is to create a detailed summary")
        assert [i.kind for i in m.where_stands][:1] == ["last_message"]

    def test_explore_subagent(self) -> None:
        """A read that found no file only looked and is no failed attempt; the reads Claude
        Code cancelled beside it never ran and are none either."""
        m = memory_of("claude_code/cc-2.1.39_subagents_agent-a2898e3.jsonl")
        assert m.current_goal.text.startswith("Very thorough exploration.")
        assert m.failed_attempts == ()
        assert uncertain(m) == []


class TestCodexMemory:
    """Memory of each Codex fixture."""

    def test_turn1(self) -> None:
        """The typed prompt is the goal; context messages are not."""
        m = memory_of("codex/codex-0.125.0-cli_turn1_EXCERPT_019e1625_L1-19.jsonl")
        assert m.current_goal.text == "show tools"
        assert m.failed_attempts == ()
        assert uncertain(m) == []

    def test_update_plan_apply_patch(self) -> None:
        """The plan's open step is the todo; the red test run (exit 1), failing as the agent
        says it was written to ("The RED check failed exactly because …"), is the red step of
        test-first, no failed attempt; the passing run replaces its line."""
        m = memory_of(
            "codex/codex-0.125.0-cli_update-plan_apply-patch_EXCERPT_019e1625_L228-386.jsonl"
        )
        open_todos = [t for t in m.todo_items if t.status in ("pending", "in_progress")]
        assert texts(open_todos) == ["Run focused verification"]
        assert m.failed_attempts == ()
        checks = joined(m.verification_status)
        assert "16 passed)" in checks
        assert "npm run build" in checks
        assert "codemie-code.plugin.ts" in joined(m.where_stands)
        assert uncertain(m) == []

    def test_inflight_truncated(self) -> None:
        """The command without output is an uncertain action, not safe to replay."""
        m = memory_of("codex/codex-0.104.0a1-desktop_inflight-truncated_REDACTED_019c8a70.jsonl")
        assert m.current_goal.text == "[REDACTED_MESSAGE len=86 sha=2239bcba]"
        (todo,) = uncertain(m)
        assert todo.safe_to_replay is False

    def test_mcp_tools(self) -> None:
        """Five MCP calls completed, nothing failed, none left open: no milestone either."""
        m = memory_of("codex/codex-0.104.0a1-desktop_mcp-tools_REDACTED_019c8bfe.jsonl")
        assert m.failed_attempts == ()
        assert uncertain(m) == []
        assert [i.kind for i in m.where_stands] == ["last_message"]

    def test_compaction(self) -> None:
        """The compaction is a key decision; two commands are left uncertain."""
        m = memory_of(
            "codex/codex-0.104.0a1-desktop_compaction_REDACTED_EXCERPT_019c8a59_L1778-1800.jsonl"
        )
        assert "context compacted (auto)" in joined(m.key_decisions)
        assert len(uncertain(m)) == 2

    def test_abandoned_call_resume(self) -> None:
        """The abandoned command stays uncertain across the resume; the last prompt is the goal."""
        m = memory_of(
            "codex/codex-0.104.0a1-desktop_abandoned-call_resume_REDACTED_EXCERPT_019c8a53_L770-837.jsonl"
        )
        assert m.current_goal.text == "[REDACTED_MESSAGE len=15 sha=ce2cc05a]"
        assert len(uncertain(m)) == 1


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*/*.jsonl")), ids=lambda p: p.name[:40])
def test_tailing_line_by_line_gives_the_same_memory(path: Path) -> None:
    """Applying the adapter's output line by line equals deriving the whole file."""
    from session_memory.formats import make_adapter
    from session_memory.formats.reader import iter_lines

    whole = SessionMemoryDeriver(budget_tokens=1200)
    whole.apply_all(read_transcript(path))
    tailed = SessionMemoryDeriver(budget_tokens=1200)
    adapter = make_adapter("auto")
    with path.open("rb") as stream:
        for offset, line, _ in iter_lines(stream):
            assert line is not None
            tailed.apply_all(adapter.feed_line(line, offset))
    tailed.apply_all(adapter.finish())
    assert tailed.memory == whole.memory


def test_cli_derive_reads_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    """`derive` detects the format; --format forces it; forcing the wrong one derives
    nothing, and says so."""
    from session_memory.apps.cli import cli

    path = str(FIXTURES / "codex/codex-0.125.0-cli_turn1_EXCERPT_019e1625_L1-19.jsonl")
    assert cli("derive", path) == 0
    assert "> show tools" in capsys.readouterr().out
    assert cli("derive", "--format", "codex", path) == 0
    assert "> show tools" in capsys.readouterr().out
    assert cli("derive", "--format", "claude-code", path) != 0
    captured = capsys.readouterr()
    assert "show tools" not in captured.out
    assert "is no claude-code transcript: 19 lines skipped" in captured.err
