"""What the Codex adapter makes of each real recording, checked against a reading by hand."""

from __future__ import annotations

from typing import Any

CX = "codex/"


class TestTurn1:
    """0.125.0 CLI: session_meta, injected context, "show tools", one polled command."""

    NAME = CX + "codex-0.125.0-cli_turn1_EXCERPT_019e1625_L1-19.jsonl"

    def test_session_and_turn(self, read: Any) -> None:
        """session_meta owns the session id; task_started gives the run id."""
        r = read(self.NAME)
        assert {e.session_id for e in r.events} == {"019e1625-789d-76c0-80ab-3724b5ddb799"}
        assert {e.run_id for e in r.events} == {"019e1625-d031-75e3-a85f-f143e43c0d84"}

    def test_injected_context_is_not_a_goal(self, read: Any) -> None:
        """Permissions (developer), AGENTS.md and environment context (user items) are dropped;
        the typed prompt appears once although it is written twice."""
        r = read(self.NAME)
        assert r.messages("user") == ["show tools"]
        assert r.messages("system") == []

    def test_the_polled_command_completes_once(self, read: Any) -> None:
        """exec_command runs on, exec_command_end completes it with exit 0; the write_stdin
        poll is folded into it rather than becoming a call of its own."""
        r = read(self.NAME)
        (done,) = r.calls("completed")
        assert done["tool_name"] == "exec_command"
        assert done["outcome"]["exit_code"] == 0
        assert done["outcome"]["output"].startswith("---\nname: using-superpowers")
        assert r.calls("requested", "write_stdin") == []
        assert r.open_calls() == {}

    def test_final_answer_and_turn_end(self, read: Any) -> None:
        """phase final_answer is the final message; task_complete ends the run."""
        r = read(self.NAME)
        (final,) = r.finals()
        assert final.startswith("Available tool groups in this session:")
        assert [t.payload["reason"] for t in r.of_type("terminal")] == ["completed"]
        assert r.messages("assistant") == [final]  # agent_message duplicate dropped


class TestUpdatePlanApplyPatch:
    """0.125.0 CLI, end of the session: plans, patches, a red test run, build, final answer."""

    NAME = CX + "codex-0.125.0-cli_update-plan_apply-patch_EXCERPT_019e1625_L228-386.jsonl"

    def test_plans_are_todo_lists(self, read: Any) -> None:
        """Two update_plan calls with the whole plan; the last one is the current list."""
        r = read(self.NAME)
        assert len(r.calls("requested", "update_plan")) == 2
        assert r.last_args("update_plan")["plan"] == [
            {
                "step": "Add failing tests for default compaction threshold in generated "
                "OpenCode env config",
                "status": "completed",
            },
            {
                "step": "Set default compaction threshold to 90% in generated "
                "OPENCODE_CONFIG_CONTENT paths",
                "status": "completed",
            },
            {"step": "Run focused verification", "status": "in_progress"},
        ]

    def test_patches_with_their_files(self, read: Any) -> None:
        """Three apply_patch calls, each completed by patch_apply_end, each naming its file."""
        r = read(self.NAME)
        assert [p["args"]["file_path"] for p in r.calls("requested", "apply_patch")] == [
            "src/agents/plugins/__tests__/codemie-code-reasoning.test.ts",
            "src/agents/plugins/codemie-code.plugin.ts",
            "src/agents/plugins/opencode/opencode.plugin.ts",
        ]
        assert len(r.calls("completed", "apply_patch")) == 3

    def test_the_red_test_run_is_the_only_failure(self, read: Any) -> None:
        """exec_command_end status failed, exit 1: the intended TDD red run."""
        (failed,) = read(self.NAME).calls("failed")
        assert failed["tool_name"] == "exec_command"
        assert failed["outcome"]["exit_code"] == 1
        assert "1 failed" in failed["outcome"]["error"]

    def test_every_command_resolved_and_no_polls(self, read: Any) -> None:
        """All 14 commands resolve; their write_stdin polls never appear as calls."""
        r = read(self.NAME)
        assert len(r.calls("requested", "exec_command")) == 14
        assert r.calls("requested", "write_stdin") == []
        assert r.open_calls() == {}

    def test_run_id_learnt_mid_turn(self, read: Any) -> None:
        """The excerpt starts mid-turn: the turn id is learnt from the first event carrying it."""
        r = read(self.NAME)
        assert r.events[-1].run_id == "019e162b-0011-7240-abbc-f7b732e49728"
        assert r.events[0].session_id is None  # no session_meta in an excerpt

    def test_final_answer(self, read: Any) -> None:
        """Commentary messages are not final; the last message is."""
        r = read(self.NAME)
        (final,) = r.finals()
        assert final.startswith("Implemented the default context compaction setting")
        assert len(r.messages("assistant")) == 7


class TestInflightTruncated:
    """0.104 Desktop: the file ends inside a turn, with a command that has no output."""

    NAME = CX + "codex-0.104.0a1-desktop_inflight-truncated_REDACTED_019c8a70.jsonl"

    def test_goal_and_uncertain_command(self, read: Any) -> None:
        """One prompt (redacted upstream); the exec_command stays open; no terminal."""
        r = read(self.NAME)
        assert r.messages("user") == ["[REDACTED_MESSAGE len=86 sha=2239bcba]"]
        assert r.open_calls() == {"call_UtYwHmwWekzvq83m8Rb9K8jJ": "exec_command"}
        assert r.of_type("terminal") == []

    def test_redacted_arguments_are_kept_raw(self, read: Any) -> None:
        """Arguments that are not JSON are kept as text rather than dropped."""
        (call,) = read(self.NAME).calls("requested")
        assert call["args"] == {"raw": "[REDACTED_ARGUMENTS len=456 sha=df6be51a]"}


class TestMcpTools:
    """0.104 Desktop: MCP tools called as function_calls named mcp__<server>__<tool>."""

    NAME = CX + "codex-0.104.0a1-desktop_mcp-tools_REDACTED_019c8bfe.jsonl"

    def test_mcp_calls_complete(self, read: Any) -> None:
        """Five calls, all completed, under their original names."""
        r = read(self.NAME)
        names = [p["tool_name"] for p in r.calls("completed")]
        assert names == [
            "mcp__cloud-associates__search_workflows",
            "[REDACTED_NAME len=43 sha=c186413b]",
            "mcp__cloud-associates__execute_workflow",
            "mcp__cloud-associates__execute_workflow",
            "mcp__cloud-associates__execute_workflow",
        ]
        assert r.calls("failed") == []
        assert r.open_calls() == {}

    def test_one_prompt_one_final_answer(self, read: Any) -> None:
        """Repeated turn_context records do not split the turn."""
        r = read(self.NAME)
        assert len(r.messages("user")) == 1
        assert len(r.finals()) == 1
        assert {e.run_id for e in r.events} == {"019c8bfe-ed40-7a21-b57f-6447436c5881"}


class TestCompaction:
    """0.104 Desktop excerpt: mid-turn compaction with an encrypted summary."""

    NAME = CX + "codex-0.104.0a1-desktop_compaction_REDACTED_EXCERPT_019c8a59_L1778-1800.jsonl"

    def test_compacted_is_one_checkpoint(self, read: Any) -> None:
        """The compacted line is the checkpoint; context_compacted after it adds nothing."""
        r = read(self.NAME)
        (cp,) = r.of_type("checkpoint")
        assert cp.payload["retained_items"] == 40
        summary = cp.payload["summary"]
        assert summary.strip()
        # Text under no heading of a Codex summary is where work resumes.
        assert cp.payload["summary_sections"]["resume"] == [summary]
        assert r.of_type("state_transition") == []

    def test_calls_across_the_compaction(self, read: Any) -> None:
        """The patch before completes; of the three commands after, two are still open."""
        r = read(self.NAME)
        assert [p["tool_name"] for p in r.calls("completed")] == ["apply_patch", "exec_command"]
        assert r.open_calls() == {
            "call_w1kWcbwO5WLgKPIfzAyOEy6j": "exec_command",
            "call_WOzOhiVCly0LQhsiZcQxBfXY": "exec_command",
        }
        assert r.messages("user") == []


class TestAbandonedCallResume:
    """0.104 Desktop excerpt: a finished turn, an abandoned command, a resume, a new prompt."""

    NAME = (
        CX
        + "codex-0.104.0a1-desktop_abandoned-call_resume_REDACTED_EXCERPT_019c8a53_L770-837.jsonl"
    )

    def test_prompts_not_the_resumption_context(self, read: Any) -> None:
        """Three typed prompts; the developer/user context re-injected on resume is dropped."""
        assert read(self.NAME).messages("user") == [
            "[REDACTED_MESSAGE len=43 sha=8e471f1c]",
            "[REDACTED_MESSAGE len=136 sha=2cca47bf]",
            "[REDACTED_MESSAGE len=15 sha=ce2cc05a]",
        ]

    def test_the_abandoned_command_stays_uncertain(self, read: Any) -> None:
        """No output, no turn_aborted: the call at line 57 stays open across the new turn."""
        r = read(self.NAME)
        assert r.open_calls() == {"call_BpTazJ89W9PntRqGPwDNfwEY": "exec_command"}
        assert len(r.calls("completed", "exec_command")) == 6

    def test_turns(self, read: Any) -> None:
        """The first turn completes with a final answer; the later two never end."""
        r = read(self.NAME)
        assert len(r.finals()) == 1
        assert [t.payload["details"]["turn_id"] for t in r.of_type("terminal")] == [
            "019c8a7e-95c9-7343-96e0-19409b7a3e67"
        ]
        assert r.events[-1].run_id == "019c8a93-d838-7840-b143-0af4aa2cb17a"
