"""What the Claude Code adapter makes of each real recording, checked against a reading by hand."""

from __future__ import annotations

from typing import Any

CC = "claude_code/"


class TestRejectedToolsInterrupt:
    """cc-2.1.38 short session: one prompt, two parallel calls rejected, an interrupt, /model."""

    NAME = CC + "cc-2.1.38_rejected-tools_interrupt_short.jsonl"

    def test_the_prompt_is_the_only_user_message(self, read: Any) -> None:
        """Hook progress, file-history snapshots and the /model command are not prompts."""
        assert read(self.NAME).messages("user") == ["mix phx.server doesnt seem to start"]

    def test_one_api_message_over_five_records_is_one_assistant_message(self, read: Any) -> None:
        """The "\\n\\n" block, the thinking block and the text share message.id: one message."""
        r = read(self.NAME)
        assert r.messages("assistant") == [
            "Let me check the project structure and try running the server to see the error."
        ]
        assert r.finals() == []

    def test_rejected_calls_end_rejected(self, read: Any) -> None:
        """Both parallel calls were rejected by the user: rejected, not failed nor left open."""
        r = read(self.NAME)
        ended = r.calls("completed")
        assert [(p["tool_name"], p["outcome"]["status"], p["outcome"]["error"]) for p in ended] == [
            ("Bash", "rejected", "User rejected tool use"),
            ("Glob", "rejected", "User rejected tool use"),
        ]
        assert r.calls("failed") == []
        assert (
            r.calls("requested", "Bash")[0]["args"]["command"] == "mix phx.server 2>&1 | head -80"
        )
        assert r.open_calls() == {}

    def test_the_interrupt_ends_the_run(self, read: Any) -> None:
        """ "[Request interrupted by user for tool use]" is a terminal event, not a prompt."""
        terminals = read(self.NAME).of_type("terminal")
        assert [t.payload["reason"] for t in terminals] == ["interrupted"]

    def test_session_and_run_ids(self, read: Any) -> None:
        """The session id is the file's sessionId; the run is the prompt's uuid."""
        r = read(self.NAME)
        assert {e.session_id for e in r.events} == {"55604662-cf2a-4331-851a-ec234028f8ca"}
        assert len({e.run_id for e in r.events}) == 1
        assert r.skipped == []


class TestTodoWriteInlineSidechain:
    """cc-1.0.108: a custom slash command, five TodoWrite lists, inline sidechains, failures."""

    NAME = CC + "cc-1.0.108_todowrite_inline-sidechain_5c0375b4.jsonl"

    def test_the_custom_command_with_its_arguments_is_the_goal(self, read: Any) -> None:
        """/orchestrator is not a built-in; its arguments are the request; the expansion is not."""
        assert read(self.NAME).messages("user") == [
            "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
        ]

    def test_five_todo_lists_the_last_all_completed(self, read: Any) -> None:
        """Each TodoWrite carries the whole list; the last one has four completed items."""
        r = read(self.NAME)
        assert len(r.calls("requested", "TodoWrite")) == 5
        todos = r.last_args("TodoWrite")["todos"]
        assert [t["content"] for t in todos] == [
            "Discover available commands in the project",
            "Analyze current project structure",
            "Check package.json for dependencies and scripts",
            "Update CLAUDE.md with latest project information",
        ]
        assert {t["status"] for t in todos} == {"completed"}

    def test_failures_of_the_parent_only(self, read: Any) -> None:
        """The Task validation error and the Edit-before-Read error; the sidechain's failed
        `tree` call (line 33) belongs to the sub-agent and stays out."""
        failed = read(self.NAME).calls("failed")
        assert [p["tool_name"] for p in failed] == ["Task", "Edit"]
        assert failed[0]["outcome"]["error"].startswith("InputValidationError: Task failed")
        assert (
            failed[1]["outcome"]["error"]
            == "File has not been read yet. Read it first before writing to it."
        )

    def test_sidechain_records_do_not_reach_the_parent(self, read: Any) -> None:
        """No sub-agent prompt, message or call appears; the Task results carry its answer."""
        r = read(self.NAME)
        tools = {p["tool_name"] for p in r.calls("requested")}
        assert tools == {"TodoWrite", "Glob", "Task", "Edit", "Read", "MultiEdit"}
        assert not any("Examine the package.json" in m for m in r.messages("assistant"))
        tasks = r.calls("completed", "Task")
        assert [t["outcome"]["output"].split("\n")[0] for t in tasks] == [
            "## Package.json Analysis Summary",
            "Based on my analysis of the current project structure in /path/to/Demo, "
            "here's a comprehensive summary:",
        ]

    def test_the_retried_task_and_no_open_calls(self, read: Any) -> None:
        """Three Task calls: the failed one, its sibling and the retry; all resolved."""
        r = read(self.NAME)
        assert len(r.calls("requested", "Task")) == 3
        assert r.open_calls() == {}

    def test_the_last_answer_is_final(self, read: Any) -> None:
        """The Japanese summary at the end of the file is the turn's final answer."""
        finals = read(self.NAME).finals()
        assert len(finals) == 1
        assert finals[0].startswith("CLAUDE.mdファイルを最新の状態にアップデートしました")


class TestInterleavedSummaryRecords:
    """cc-2.1.4 via Bedrock: 16 title records between conversation records, three prompts."""

    NAME = CC + "cc-2.1.4_interleaved-summary-records_9eda1058.jsonl"

    def test_title_records_are_ignored(self, read: Any) -> None:
        """`summary` records are titles: no checkpoint, no message, no skip."""
        r = read(self.NAME)
        assert r.of_type("checkpoint") == []
        assert r.skipped == []

    def test_three_prompts_three_runs(self, read: Any) -> None:
        """Each prompt starts a run; the last prompt is the current goal."""
        r = read(self.NAME)
        assert r.messages("user") == [
            "show tools and store response in file",
            "explore more of current repo",
            "what else?",
        ]
        assert len({e.run_id for e in r.events}) == 3

    def test_rejected_write_and_interrupt(self, read: Any) -> None:
        """The Write was rejected ("Error: The user doesn't want..."), then interrupted."""
        r = read(self.NAME)
        assert [
            (p["tool_name"], p["outcome"]["status"], p["outcome"]["error"])
            for p in r.calls("completed", "Write")
        ] == [("Write", "rejected", "User rejected tool use")]
        assert [t.payload["reason"] for t in r.of_type("terminal")] == [
            "interrupted",
            "completed",
            "completed",
        ]

    def test_two_final_answers_end_their_turns(self, read: Any) -> None:
        """turn_duration closes the text-only message before it: a final answer each turn."""
        finals = read(self.NAME).finals()
        assert [f.split("\n")[0] for f in finals] == [
            "Perfect! I've completed a comprehensive exploration of the codemie-code "
            "repository. Here's what I discovered:",
            "Excellent! Here's what I discovered in the deeper exploration:",
        ]
        assert read(self.NAME).open_calls() == {}


class TestTaskPlanModeSubagentParent:
    """cc-2.1.38: skill command, web research, AskUserQuestion, a Plan sub-agent mirrored in
    agent_progress, ExitPlanMode, an interrupt, then "create the beads"."""

    NAME = CC + "cc-2.1.38_task-plan-mode_subagent-parent.jsonl"

    def test_goals(self, read: Any) -> None:
        """The skill invocation with its arguments, then the follow-up prompt."""
        prompts = read(self.NAME).messages("user")
        assert len(prompts) == 2
        assert prompts[0].startswith(
            "/handgemacht:create-beads websearch to learn how to fastest setup credo"
        )
        assert prompts[1] == "create the beads"

    def test_agent_progress_copies_are_ignored(self, read: Any) -> None:
        """The 19 agent_progress records add no calls: only the parent's own tools appear."""
        r = read(self.NAME)
        names = [p["tool_name"] for p in r.calls("requested")]
        assert names.count("Task") == 1
        assert set(names) == {
            "WebFetch", "WebSearch", "Glob", "Read", "AskUserQuestion", "Task", "Write",
            "ExitPlanMode", "Bash",
        }  # fmt: skip
        assert len(names) == 16

    def test_user_answers_are_the_question_result(self, read: Any) -> None:
        """AskUserQuestion's answers become its result: a digest by header, then in full."""
        (answer,) = read(self.NAME).calls("completed", "AskUserQuestion")
        lines = answer["outcome"]["output"].split("\n")
        assert lines[0] == "Rig prefix: No rig; Tools: Credo + Dialyxir + mix_audit"
        assert lines[2] == "Which tools should we set up? = Credo + Dialyxir + mix_audit"

    def test_plan_approval_and_interrupt(self, read: Any) -> None:
        """ExitPlanMode completes (its plan is in plan.md, toolUseResult.plan is null); the
        user then interrupts."""
        r = read(self.NAME)
        (exit_plan,) = r.calls("completed", "ExitPlanMode")
        assert exit_plan["outcome"]["output"] == (
            "plan saved at /home/marco/.claude/plans/humble-seeking-umbrella.md\n"
            "User has approved exiting plan mode. You can now proceed."
        )
        assert [t.payload["reason"] for t in r.of_type("terminal")] == ["interrupted"]

    def test_commands_succeed_with_exit_code_zero(self, read: Any) -> None:
        """Four `bd` commands, all completed; nothing failed, nothing open."""
        r = read(self.NAME)
        bash = r.calls("completed", "Bash")
        assert [p["outcome"]["exit_code"] for p in bash] == [0, 0, 0, 0]
        assert r.calls("failed") == []
        assert r.open_calls() == {}

    def test_final_answer_before_the_stop_hook(self, read: Any) -> None:
        """stop_hook_summary ends the turn: the beads table is the final answer."""
        assert [f.split("\n")[0] for f in read(self.NAME).finals()] == ["## Beads Created"]


class TestAutoCompaction:
    """cc-2.1.39 excerpt: auto compaction in the middle of a tool loop."""

    NAME = CC + "cc-2.1.39_auto-compaction_EXCERPT_4d5611e5_L741-773.jsonl"

    def test_boundary_and_summary_are_one_checkpoint(self, read: Any) -> None:
        """compact_boundary + the isCompactSummary record give one checkpoint, with the
        sections of Claude Code's summary read; its text starts after "Summary:"."""
        (cp,) = read(self.NAME).of_type("checkpoint")
        assert cp.payload["checkpoint_id"] == "dd3cc2e6-a191-4331-a0f0-2473e6d7692d"
        assert cp.payload["trigger"] == "auto"
        assert cp.payload["pre_tokens"] == 170251
        assert cp.payload["summary"].split("\n")[0] == "1. Primary Request and Intent:"
        assert "spotter-dov" in cp.payload["summary"]
        sections = cp.payload["summary_sections"]
        assert sections["request"].startswith("The user asked to work on bead `spotter-dov`")
        assert sections["user_messages"][-1] == "continue"
        assert sections["todos"][-1].startswith("Session close protocol")

    def test_the_summary_is_not_a_prompt(self, read: Any) -> None:
        """The excerpt has no human prompt at all: the work continues after compaction."""
        r = read(self.NAME)
        assert r.messages("user") == []
        assert r.messages("assistant")[-1].startswith("Continuing with spotter-dov.3.")

    def test_calls_around_the_boundary(self, read: Any) -> None:
        """The result on line 1 belongs to a call before the excerpt and is ignored; the Write
        before and the Edit after the boundary complete."""
        r = read(self.NAME)
        assert [p["tool_name"] for p in r.calls("completed")] == ["Write", "Edit"]
        assert r.open_calls() == {}


class TestManualCompact:
    """cc-2.1.39 excerpt: turn end, /compact, its summary and command records, next prompt."""

    NAME = CC + "cc-2.1.39_manual-compact_EXCERPT_ae4a77f8_L1472-1499.jsonl"

    def test_checkpoint(self, read: Any) -> None:
        """A manual checkpoint with the pre-compaction token count."""
        (cp,) = read(self.NAME).of_type("checkpoint")
        assert cp.payload["trigger"] == "manual"
        assert cp.payload["pre_tokens"] == 142431
        assert not cp.payload["summary"].startswith("This session is being continued")

    def test_only_the_real_prompt_is_a_goal(self, read: Any) -> None:
        """The caveat, the /compact command and its stdout are not prompts."""
        assert read(self.NAME).messages("user") == ["continue implementation"]

    def test_turn_end_before_compaction(self, read: Any) -> None:
        """The summary message before stop_hook_summary/turn_duration is final."""
        r = read(self.NAME)
        assert [f.split("\n")[0] for f in r.finals()] == [
            "Perfect! I have successfully completed two full tasks in this work session:"
        ]
        assert [t.payload["reason"] for t in r.of_type("terminal")] == ["completed"]
        order = [e.event_type for e in r.events]
        assert order.index("terminal") < order.index("checkpoint")

    def test_the_last_command_is_uncertain(self, read: Any) -> None:
        """`git status --short` started as the excerpt ends: open, never resolved."""
        assert read(self.NAME).open_calls() == {"toolu_01McaeUrQrZ8bRR2M4UssBpQ": "Bash"}


class TestCompactionSubagentFile:
    """cc-2.1.39 agent-acompact: the summariser's own transcript, a session of its own."""

    NAME = CC + "cc-2.1.39_subagents_agent-acompact-e1f845.jsonl"

    def test_own_session(self, read: Any) -> None:
        """A sub-agent file keeps the parent's sessionId plus its agentId."""
        ids = {e.session_id for e in read(self.NAME).events}
        assert ids == {"4d5611e5-241a-462a-8d15-5122611a9569:agent-acompact-e1f845"}

    def test_hook_reminders_are_not_the_goal(self, read: Any) -> None:
        """The three isMeta <system-reminder> records are skipped; the prompt is the goal."""
        r = read(self.NAME)
        (prompt,) = r.messages("user")
        assert prompt.startswith("Your task is to create a detailed summary of the conversation")
        (final,) = r.finals()
        assert final.startswith("<analysis>")


class TestExploreSubagentFile:
    """cc-2.1.39 agent-a2898e3: an Explore sub-agent with eight failed reads."""

    NAME = CC + "cc-2.1.39_subagents_agent-a2898e3.jsonl"

    def test_own_session_and_goal(self, read: Any) -> None:
        """Every record is a sidechain: this file is the sub-agent's own session."""
        r = read(self.NAME)
        assert {e.session_id for e in r.events} == {
            "4d5611e5-241a-462a-8d15-5122611a9569:agent-a2898e3"
        }
        (prompt,) = r.messages("user")
        assert prompt.startswith("Very thorough exploration. I need to understand:")

    def test_failed_reads(self, read: Any) -> None:
        """One missing file, then seven siblings cancelled by it: not run, so interrupted."""
        r = read(self.NAME)
        failed = r.calls("failed")
        assert [p["outcome"]["error"] for p in failed] == ["File does not exist."]
        cancelled = [p for p in r.calls("completed") if p["outcome"]["status"] == "interrupted"]
        assert [p["outcome"]["output"] for p in cancelled] == [
            "<tool_use_error>Sibling tool call errored</tool_use_error>"
        ] * 7
        assert {p["tool_name"] for p in failed + cancelled} == {"Read"}

    def test_report_is_final_and_nothing_open(self, read: Any) -> None:
        """The report at the end is the final answer; every call got its result."""
        r = read(self.NAME)
        assert [f.split("\n")[0] for f in r.finals()] == [
            "Perfect! Now I have all the information needed. Let me create a comprehensive report."
        ]
        assert r.open_calls() == {}
