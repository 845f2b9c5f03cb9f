"""Tests for deriver.tool_kinds: tool kinds, side effects, key arguments and edited paths.

Quoted strings marked "fixture" are copied from the real recordings in tests/fixtures.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deriver.tool_kinds import (
    ToolKind,
    classify_tool,
    edited_paths,
    is_side_effecting,
    key_argument,
)
from tests.deriver.tool_samples import (
    CODEX_PATCH,
    FIVE_MB,
    JSON_VALUES,
    TOOL_ARGS,
    TOOL_NAMES,
    timed,
)


class TestClassifyTool:
    @pytest.mark.parametrize(
        ("name", "kind"),
        [
            ("Read", ToolKind.READ),
            ("Write", ToolKind.EDIT),
            ("Edit", ToolKind.EDIT),
            ("MultiEdit", ToolKind.EDIT),
            ("NotebookEdit", ToolKind.EDIT),
            ("Bash", ToolKind.SHELL),
            ("BashOutput", ToolKind.SHELL),
            ("KillShell", ToolKind.SHELL),
            ("Grep", ToolKind.SEARCH),
            ("Glob", ToolKind.LIST),
            ("LS", ToolKind.LIST),
            ("Task", ToolKind.TASK),
            ("Agent", ToolKind.TASK),
            ("TodoWrite", ToolKind.TODO),
            ("TaskCreate", ToolKind.TODO),
            ("TaskUpdate", ToolKind.TODO),
            ("ExitPlanMode", ToolKind.PLAN_EXIT),
            ("AskUserQuestion", ToolKind.QUESTION),
            ("SendMessage", ToolKind.MESSAGE),
            ("WebFetch", ToolKind.WEB),
            ("WebSearch", ToolKind.WEB),
        ],
    )
    def test_claude_code_names(self, name: str, kind: ToolKind) -> None:
        """Claude Code's tool names map to their kinds."""
        assert classify_tool(name) is kind

    @pytest.mark.parametrize(
        ("name", "kind"),
        [
            ("shell", ToolKind.SHELL),
            ("exec_command", ToolKind.SHELL),
            ("shell_command", ToolKind.SHELL),  # Codex 0.118 (Desktop, Windows)
            ("write_stdin", ToolKind.SHELL),
            ("local_shell", ToolKind.SHELL),
            ("apply_patch", ToolKind.EDIT),
            ("update_plan", ToolKind.TODO),
            ("read_file", ToolKind.READ),
            ("list_dir", ToolKind.LIST),
            ("grep_files", ToolKind.SEARCH),
            ("view_image", ToolKind.READ),
            ("web_search", ToolKind.WEB),
        ],
    )
    def test_codex_names(self, name: str, kind: ToolKind) -> None:
        """Codex CLI's tool names map to their kinds."""
        assert classify_tool(name) is kind

    @pytest.mark.parametrize(
        ("name", "kind"),
        [
            ("read_file", ToolKind.READ),
            ("write_file", ToolKind.EDIT),
            ("edit_file", ToolKind.EDIT),
            ("run_command", ToolKind.SHELL),
            ("bash", ToolKind.SHELL),
            ("grep", ToolKind.SEARCH),
            ("glob", ToolKind.LIST),
            ("ls", ToolKind.LIST),
            ("search_files", ToolKind.SEARCH),
            ("todo_write", ToolKind.TODO),
            ("todowrite", ToolKind.TODO),
        ],
    )
    def test_generic_names(self, name: str, kind: ToolKind) -> None:
        """Generic lower-case tool names of home-grown agents map to their kinds."""
        assert classify_tool(name) is kind

    @pytest.mark.parametrize("name", [" Todo-Write ", "TODOWRITE", "todo-write", "Todo_Write"])
    def test_normalisation(self, name: str) -> None:
        """Case, surrounding blanks and "-" versus "_" do not matter."""
        assert classify_tool(name) is ToolKind.TODO

    @pytest.mark.parametrize(
        "name", ["mcp__cloud-associates__execute_workflow", "mcp__filesystem__read_file"]
    )
    def test_mcp_tools_are_other(self, name: str) -> None:
        """MCP tools are OTHER, even when the tool part looks like a known name."""
        assert classify_tool(name) is ToolKind.OTHER

    @pytest.mark.parametrize("name", ["", "frobnicate", "list_mcp_resources", "Skill"])
    def test_unknown_names_are_other(self, name: str) -> None:
        """Unknown names are OTHER."""
        assert classify_tool(name) is ToolKind.OTHER

    @given(st.text())
    def test_total_and_deterministic(self, name: str) -> None:
        """Any text classifies, the same way every time."""
        assert classify_tool(name) is classify_tool(name)

    @given(JSON_VALUES)
    def test_total_on_non_strings(self, name: Any) -> None:
        """A name that is not a string at all is OTHER, not an exception."""
        if not isinstance(name, str):
            assert classify_tool(name) is ToolKind.OTHER


class TestIsSideEffecting:
    @pytest.mark.parametrize(
        "kind", [ToolKind.EDIT, ToolKind.SHELL, ToolKind.TASK, ToolKind.MESSAGE, ToolKind.OTHER]
    )
    def test_unsafe_kinds(self, kind: ToolKind) -> None:
        """Edits, shell commands, sub-agents, messages to the team and unknown tools are not
        safe to replay."""
        assert is_side_effecting(kind)

    @pytest.mark.parametrize(
        "kind",
        [
            ToolKind.READ,
            ToolKind.SEARCH,
            ToolKind.LIST,
            ToolKind.WEB,
            ToolKind.TODO,
            ToolKind.QUESTION,
            ToolKind.PLAN_EXIT,
        ],
    )
    def test_safe_kinds(self, kind: ToolKind) -> None:
        """Reading, searching, listing, fetching and bookkeeping are safe to replay."""
        assert not is_side_effecting(kind)


class TestKeyArgument:
    @pytest.mark.parametrize(
        ("tool", "args", "expected"),
        [
            ("Read", {"file_path": "/path/to/Demo/todo-app/package.json"},
             "/path/to/Demo/todo-app/package.json"),
            ("NotebookEdit", {"notebook_path": "a.ipynb", "new_source": "x"}, "a.ipynb"),
            ("write_file", {"filename": "out.txt", "content": "x"}, "out.txt"),
            ("list_dir", {"path": "src"}, "src"),
            ("Glob", {"pattern": "**/*.md", "path": "./.claude/commands"}, "**/*.md"),
            ("Grep", {"pattern": "TranscriptSelection|TranscriptHighlighter",
                      "output_mode": "files_with_matches"},
             "TranscriptSelection|TranscriptHighlighter"),
            ("search_files", {"query": "def main"}, "def main"),
            ("glob", {"glob": "*.py"}, "*.py"),
            ("WebFetch", {"url": "https://github.com/bradleygolden/claude-marketplace-elixir",
                          "prompt": "What tools does this support?"},
             "https://github.com/bradleygolden/claude-marketplace-elixir"),
            ("WebSearch", {"query": "mix_audit hex elixir setup"}, "mix_audit hex elixir setup"),
            ("Task", {"subagent_type": "general-purpose",
                      "description": "Check package configuration",
                      "prompt": "Examine the package.json file(s)"},
             "Check package configuration"),
        ],
    )  # fmt: skip
    def test_paths_patterns_urls_and_descriptions(
        self, tool: str, args: dict[str, Any], expected: str
    ) -> None:
        """Paths, patterns, urls and Task descriptions are the key argument of their tools."""
        assert key_argument(tool, args) == expected

    def test_bash_command(self) -> None:
        """A Claude Code Bash call is summarised by its command (fixture)."""
        args = {"command": "mix phx.server 2>&1 | head -80", "timeout": 30000}
        assert key_argument("Bash", args) == "mix phx.server 2>&1 | head -80"

    def test_codex_cmd(self) -> None:
        """A Codex exec_command call is summarised by its ``cmd`` (fixture)."""
        args = {
            "cmd": "npm run build",
            "workdir": "/Users/Sample_User/repos/codemie-ai/codemie-code",
        }
        assert key_argument("exec_command", args) == "npm run build"

    def test_a_string_argument_is_taken_as_written(self) -> None:
        """A string argument is the command, path or query itself, JSON or not: the adapters
        decode what their formats encode (tests/formats/test_outcomes.py)."""
        assert key_argument("exec_command", '{"cmd": "ls"}') == '{"cmd": "ls"}'

    def test_argv_list_with_shell_wrapper(self) -> None:
        """``["bash", "-lc", cmd]`` gives the inner command."""
        args = {"command": ["/bin/zsh", "-lc", "cat package.json"]}
        assert key_argument("shell", args) == "cat package.json"

    def test_plain_argv_list(self) -> None:
        """A plain argv list is joined back into a shell-quoted command line."""
        assert key_argument("shell", {"command": ["ls", "-la", "my dir"]}) == "ls -la 'my dir'"

    def test_apply_patch_paths_from_input(self) -> None:
        """apply_patch is summarised by the files its patch names (fixture)."""
        expected = "src/agents/plugins/__tests__/codemie-code-reasoning.test.ts"
        assert key_argument("apply_patch", {"input": CODEX_PATCH}) == expected

    def test_apply_patch_several_files_raw_string(self) -> None:
        """A raw patch string naming several files gives them all, in order, comma-separated."""
        patch = (
            "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n"
            "*** Delete File: c.py\n*** End Patch\n"
        )
        assert key_argument("apply_patch", patch) == "a.py, b.py, c.py"

    def test_blank_values_are_skipped(self) -> None:
        """A blank path falls through to the next candidate, then to None."""
        assert key_argument("Read", {"file_path": "  ", "path": "b.py"}) == "b.py"
        assert key_argument("Read", {"file_path": "  "}) is None

    @pytest.mark.parametrize("args", [None, 3, 2.5, True, [], ["a"], {}, {"file_path": 7}])
    def test_nothing_fits(self, args: Any) -> None:
        """Values that carry no usable argument give None."""
        assert key_argument("Read", args) is None

    def test_todo_write_has_no_key_argument(self) -> None:
        """TodoWrite's list is not a key argument (fixture)."""
        args = {"todos": [{"content": "Discover available commands", "status": "pending"}]}
        assert key_argument("TodoWrite", args) is None

    def test_question_and_plan(self) -> None:
        """AskUserQuestion gives its first question; ExitPlanMode the first line of its plan."""
        question = {"questions": [{"question": "Which rig do these beads belong to?"}]}
        assert key_argument("AskUserQuestion", question) == "Which rig do these beads belong to?"
        plan = {"plan": "# Plan: Setup Code Quality Tools\n\n## Epic"}
        assert key_argument("ExitPlanMode", plan) == "# Plan: Setup Code Quality Tools"

    def test_unknown_tool_uses_generic_keys(self) -> None:
        """An unknown or MCP tool still shows a path or command when it has one."""
        assert key_argument("mcp__fs__write", {"path": "notes.md"}) == "notes.md"

    @given(TOOL_NAMES, TOOL_ARGS)
    def test_total_and_deterministic(self, tool: str, args: Any) -> None:
        """Any tool name and JSON value give a string or None, the same each time."""
        result = key_argument(tool, args)
        assert result is None or (isinstance(result, str) and result.strip() == result != "")
        assert key_argument(tool, args) == result

    def test_large_patch_is_fast(self) -> None:
        """A 5 MB patch is read in linear time."""
        patch = "*** Update File: a.py\n" + ("+" + "x" * 99 + "\n") * (FIVE_MB // 100)
        assert timed(lambda: key_argument("apply_patch", patch)) < 1.0


class TestEditedPaths:
    def test_single_file_tools(self) -> None:
        """Edit, Write and NotebookEdit change the one file they name."""
        assert edited_paths("Edit", {"file_path": "/a.ex", "old_string": "x"}) == ("/a.ex",)
        assert edited_paths("Write", {"file_path": "/plan.md", "content": ""}) == ("/plan.md",)
        assert edited_paths("NotebookEdit", {"notebook_path": "n.ipynb"}) == ("n.ipynb",)

    def test_multi_edit(self) -> None:
        """MultiEdit changes its file once, however many edits it makes (fixture shape)."""
        args = {"file_path": "/path/to/Demo/CLAUDE.md", "edits": [{"old_string": "a"}] * 3}
        assert edited_paths("MultiEdit", args) == ("/path/to/Demo/CLAUDE.md",)

    def test_edits_naming_their_own_files(self) -> None:
        """Edit lists that name a file per edit give every file, without duplicates."""
        args = {"edits": [{"path": "a.py"}, {"path": "b.py"}, {"path": "a.py"}]}
        assert edited_paths("multi_edit", args) == ("a.py", "b.py")

    def test_apply_patch_with_several_files(self) -> None:
        """apply_patch changes every file its patch adds, updates, deletes or moves to."""
        patch = (
            "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n"
            "*** Add File: c.py\n+z\n*** Delete File: d.py\n*** End Patch"
        )
        assert edited_paths("apply_patch", {"input": patch}) == ("a.py", "b.py", "c.py", "d.py")
        assert edited_paths("apply_patch", patch) == ("a.py", "b.py", "c.py", "d.py")

    def test_patch_markers_only_count_at_line_start(self) -> None:
        """A marker quoted inside a changed line is not a file header."""
        patch = "*** Update File: a.py\n+ '*** Add File: fake.py'\n"
        assert edited_paths("apply_patch", patch) == ("a.py",)

    def test_non_edit_tools_change_nothing(self) -> None:
        """Reads and shell commands have no edited paths, even with a path argument."""
        assert edited_paths("Read", {"file_path": "/a.py"}) == ()
        assert edited_paths("Bash", {"command": "rm a.py"}) == ()

    @given(TOOL_NAMES, TOOL_ARGS)
    def test_total_and_deterministic(self, tool: str, args: Any) -> None:
        """Any tool name and JSON value give a tuple of distinct strings, the same each time."""
        result = edited_paths(tool, args)
        assert isinstance(result, tuple)
        assert all(isinstance(path, str) and path for path in result)
        assert len(set(result)) == len(result)
        assert edited_paths(tool, args) == result
