"""Tests for deriver.tools: the pure helpers that read tool calls and their output.

Quoted strings marked "fixture" are copied from the real recordings in shared/fixtures.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import tools
from deriver.tools import (
    _NEEDLES,
    CheckCounts,
    CheckRun,
    ToolKind,
    _last,
    check_passed,
    classify_tool,
    detect_check,
    edited_paths,
    exit_code_from_output,
    first_line,
    is_acknowledgement,
    is_failure_text,
    is_read_only_command,
    is_side_effecting,
    key_argument,
    parse_check_output,
)

JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=20,
)
ARG_KEYS = st.sampled_from(
    [
        "file_path",
        "path",
        "notebook_path",
        "filename",
        "command",
        "cmd",
        "pattern",
        "query",
        "glob",
        "url",
        "description",
        "prompt",
        "input",
        "edits",
        "questions",
        "plan",
        "chars",
        "subject",
    ]
)
TOOL_ARGS: st.SearchStrategy[Any] = (
    JSON_VALUES
    | st.dictionaries(ARG_KEYS, JSON_VALUES, max_size=4)
    | st.dictionaries(st.sampled_from(["command", "cmd"]), st.lists(st.text(), max_size=4))
)
TOOL_NAMES = st.sampled_from(
    [
        "Read",
        "Edit",
        "MultiEdit",
        "Write",
        "Bash",
        "Grep",
        "Glob",
        "Task",
        "TodoWrite",
        "ExitPlanMode",
        "AskUserQuestion",
        "WebFetch",
        "exec_command",
        "shell",
        "apply_patch",
        "update_plan",
        "write_stdin",
        "mcp__server__tool",
    ]
) | st.text(max_size=20)

FIVE_MB = 5 * 1024 * 1024

# fixture: codex-0.125.0-cli_update-plan_apply-patch, an apply_patch custom tool call input
CODEX_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: src/agents/plugins/__tests__/codemie-code-reasoning.test.ts\n"
    "@@\n"
    "   describe('Plugin Injection', () => {\n"
    "@@\n"
    "   });\n"
    "+\n"
    "+  describe('Compaction Config', () => {\n"
    "*** End Patch\n"
)
# fixture: codex-0.125.0-cli_update-plan_apply-patch, the failing vitest run (exit_code 1)
VITEST_FAILED = (
    "Chunk ID: 922caa\nWall time: 0.0000 seconds\nProcess exited with code 1\n"
    "Original token count: 332\nOutput:\n"
    " \u276f src/agents/plugins/__tests__/codemie-code-reasoning.test.ts:253:33\n\n"
    " Test Files  1 failed (1)\n"
    "      Tests  1 failed | 15 skipped (16)\n"
    "   Start at  11:42:09\n"
    "   Duration  2.91s (transform 1.18s, setup 0ms, import 794ms, tests 1.32s, environment 0ms)\n"
)
# fixture: same file, the green run after the fix
VITEST_PASSED = (
    "\n Test Files  1 passed (1)\n"
    "      Tests  16 passed (16)\n"
    "   Start at  11:43:08\n"
    "   Duration  3.78s (transform 1.93s, setup 0ms, import 1.46s, tests 1.47s, environment 2ms)\n"
)
# fixture: same file, the apply_patch output
CODEX_PATCH_OUTPUT = (
    '{"output":"Success. Updated the following files:\\n'
    'M src/agents/plugins/__tests__/codemie-code-reasoning.test.ts\\n",'
    '"metadata":{"exit_code":0,"duration_seconds":2.2}}'
)
# fixture: cc-2.1.38_rejected-tools_interrupt_short, a rejected Bash call
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def _timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


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
    @pytest.mark.parametrize("kind", [ToolKind.EDIT, ToolKind.SHELL, ToolKind.TASK, ToolKind.OTHER])
    def test_unsafe_kinds(self, kind: ToolKind) -> None:
        """Edits, shell commands, sub-agents and unknown tools are not safe to replay."""
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

    def test_codex_arguments_as_json_string(self) -> None:
        """Codex ``arguments`` still encoded as a JSON string are decoded first."""
        args = '{"cmd":"git status --short","workdir":"/repo","yield_time_ms":1000}'
        assert key_argument("exec_command", args) == "git status --short"

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
        assert _timed(lambda: key_argument("apply_patch", patch)) < 1.0


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


class TestDetectCheck:
    @pytest.mark.parametrize(
        ("command", "name"),
        [
            ("pytest", "pytest"),
            ("pytest -q tests/test_tools.py", "pytest"),
            ("python -m pytest -x", "pytest"),
            ("python3.11 -m pytest", "pytest"),
            ("py.test", "pytest"),
            (".venv/bin/pytest", "pytest"),
            ("tox -e py311", "tox"),
            ("nox -s tests", "nox"),
            ("python -m unittest discover", "unittest"),
            ("npm test", "npm test"),
            ("npm run test", "npm test"),
            ("pnpm test", "pnpm test"),
            ("yarn test", "yarn test"),
            ("bun test", "bun test"),
            ("npm run build", "npm run build"),
            ("npm run lint", "npm run lint"),
            ("pnpm --filter web build", "pnpm run build"),
            ("jest --coverage", "jest"),
            ("vitest run", "vitest"),
            ("mocha", "mocha"),
            ("go test ./...", "go test"),
            ("go build ./...", "go build"),
            ("go vet ./...", "go vet"),
            ("cargo test", "cargo test"),
            ("cargo build --release", "cargo build"),
            ("cargo check", "cargo check"),
            ("cargo clippy -- -D warnings", "cargo clippy"),
            ("mvn -q clean test", "mvn test"),
            ("mvn verify", "mvn verify"),
            ("mvn package -DskipTests", "mvn package"),
            ("gradle test", "gradle test"),
            ("./gradlew build", "gradle build"),
            ("make", "make"),
            ("make -j4", "make"),
            ("make test", "make test"),
            ("make check", "make check"),
            ("make build", "make build"),
            ("make lint", "make lint"),
            ("make -C sub test", "make test"),
            ("ctest --output-on-failure", "ctest"),
            ("ruff check .", "ruff"),
            ("ruff format --check .", "ruff"),
            ("mypy --strict src", "mypy"),
            ("pyright", "pyright"),
            ("tsc --noEmit", "tsc"),
            ("eslint .", "eslint"),
            ("rspec", "rspec"),
            ("bundle exec rspec spec/a_spec.rb", "rspec"),
            ("vendor/bin/phpunit", "phpunit"),
            ("dotnet test", "dotnet test"),
            ("dotnet build", "dotnet build"),
        ],
    )
    def test_recognised_checks(self, command: str, name: str) -> None:
        """Test, build and lint commands are recognised and named canonically."""
        assert detect_check(command) == CheckRun(name=name, command=command)

    @pytest.mark.parametrize(
        ("command", "name"),
        [
            ("cd repo && pytest -q", "pytest"),
            ("FOO=1 BAR=2 pytest", "pytest"),
            ("env CI=1 npm test", "npm test"),
            ("uv run pytest", "pytest"),
            ("uv run --with hypothesis pytest", "pytest"),
            ("poetry run python -m pytest", "pytest"),
            ("npx vitest run", "vitest"),
            ("npx -y tsc -p .", "tsc"),
            ("pytest 2>&1 | tail -20", "pytest"),
            ("timeout 60 pytest", "pytest"),
            ("time make test", "make test"),
            ("(cd web && npm run build)", "npm run build"),
            ("source .venv/bin/activate && pytest", "pytest"),
            ("bash -lc 'cd repo && cargo test'", "cargo test"),
            ("ruff check . && mypy && pytest -q", "pytest"),
            # fixture: codex-0.125.0-cli_update-plan_apply-patch
            (
                "npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts "
                '-t "Compaction Config"',
                "npm test",
            ),
        ],
    )
    def test_wrapped_checks(self, command: str, name: str) -> None:
        """Checks behind cd, env assignments, runners, wrappers, pipes and shells are found."""
        check = detect_check(command)
        assert check is not None
        assert check.name == name

    @pytest.mark.parametrize(
        "command",
        [
            "cat pytest.ini",
            "ls tests",
            "grep pytest",
            "grep -r 'make test' .",
            "echo make test",
            "pip install pytest",
            "uv pip install pytest",
            'git commit -m "make tests pass"',
            "which pytest",
            "pytest --version",
            "ruff format .",
            "make clean",
            "npm install",
            "cargo run",
            "go run main.go",
            "git status --short",
            "cat <<EOF > run.sh\npytest\nEOF",
            "",
            "   ",
        ],
    )
    def test_not_checks(self, command: str) -> None:
        """Commands that only mention a check, install it or read its files are not checks."""
        assert detect_check(command) is None

    def test_same_name_different_commands(self) -> None:
        """Runs of different files share the name but keep distinct commands."""
        first = detect_check("pytest tests/a.py")
        second = detect_check("python -m pytest  tests/b.py")
        assert first is not None and second is not None
        assert first.name == second.name == "pytest"
        assert first.command == "pytest tests/a.py"
        assert second.command == "python -m pytest tests/b.py"

    @given(st.text())
    def test_total_and_deterministic(self, command: str) -> None:
        """Any text gives a CheckRun or None, the same each time."""
        result = detect_check(command)
        assert result is None or (isinstance(result, CheckRun) and result.name)
        assert detect_check(command) == result

    @given(
        st.lists(
            st.sampled_from(
                ["pytest", "npm", "test", "&&", "|", ";", "'", '"', "\\", "(", ")", "<<", "EOF",
                 "\n", "-m", "python", "bash", "-lc", "make", "uv", "run", "=", "cd", "x"]
            ),
            max_size=20,
        ).map(" ".join)
    )  # fmt: skip
    def test_total_on_shell_like_text(self, command: str) -> None:
        """Shell-looking fragments with unbalanced quotes and operators never raise."""
        detect_check(command)

    def test_huge_command_is_fast(self) -> None:
        """A 5 MB command line is scanned only at its start."""
        command = "pytest " + "x" * FIVE_MB
        assert _timed(lambda: detect_check(command)) < 1.0


class TestParseCheckOutput:
    @pytest.mark.parametrize(
        ("output", "counts"),
        [
            ("3 failed, 12 passed, 1 skipped in 0.2s", CheckCounts(12, 3, 0, 1)),
            ("..\n===== 5 passed in 1.2s ====", CheckCounts(5, 0, 0, 0)),
            ("=== 1 failed, 2 passed, 1 error in 0.31s ===", CheckCounts(2, 1, 1, 0)),
            ("==== 1 error in 0.10s ====", CheckCounts(0, 0, 1, 0)),
            ("= 4 passed, 2 warnings in 0.12s (0:00:00) =", CheckCounts(4, 0, 0, 0)),
            (
                "\x1b[31m====== \x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m2 passed\x1b[0m"
                "\x1b[31m in 0.05s\x1b[0m\x1b[31m ======\x1b[0m",
                CheckCounts(2, 1, 0, 0),
            ),
        ],
    )
    def test_pytest(self, output: str, counts: CheckCounts) -> None:
        """pytest summary lines give passed, failed, errors and skipped, colours or not."""
        assert parse_check_output("pytest", output) == counts

    def test_unittest(self) -> None:
        """unittest's "Ran N tests" and its OK or FAILED line give the counts."""
        failed = "F.E\n----\nRan 12 tests in 0.003s\n\nFAILED (failures=2, errors=1)\n"
        assert parse_check_output("unittest", failed) == CheckCounts(9, 2, 1, 0)
        ok = "Ran 12 tests in 0.010s\n\nOK (skipped=2)\n"
        assert parse_check_output("unittest", ok) == CheckCounts(10, 0, 0, 2)

    def test_jest(self) -> None:
        """jest's "Tests:" line gives the counts."""
        output = "Test Suites: 1 failed, 1 total\nTests:       1 failed, 5 passed, 6 total\n"
        assert parse_check_output("jest", output) == CheckCounts(5, 1, None, 0)

    def test_vitest_fixture(self) -> None:
        """vitest's "Tests" line gives the counts, not the "Test Files" line (fixture)."""
        assert parse_check_output("npm test", VITEST_FAILED) == CheckCounts(0, 1, None, 15)
        assert parse_check_output("npm test", VITEST_PASSED) == CheckCounts(16, 0, None, 0)
        assert parse_check_output("vitest", " Tests  2 passed (2)\n") == CheckCounts(2, 0, None, 0)

    def test_go_test(self) -> None:
        """go test counts failing tests and the packages that passed."""
        output = (
            "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: boom\nFAIL\n"
            "FAIL\texample.com/parse\t0.011s\nok  \texample.com/render\t0.020s\n"
        )
        assert parse_check_output("go test", output) == CheckCounts(1, 1, None, 0)
        assert parse_check_output("go test", "ok  \texample.com/a\t(cached)\n") == CheckCounts(
            1, 0, None, 0
        )

    def test_cargo_test(self) -> None:
        """cargo's result lines, one per test binary, are added up."""
        output = (
            "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"
            "test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out\n"
        )
        assert parse_check_output("cargo test", output) == CheckCounts(5, 1, None, 1)

    @pytest.mark.parametrize(
        ("name", "output", "errors"),
        [
            ("mypy", "a.py:3: error: x\nFound 3 errors in 2 files (checked 9 source files)", 3),
            ("mypy", "Success: no issues found in 9 source files\n", 0),
            ("ruff", "a.py:1:1: F401 unused\nFound 4 errors.\n[*] 4 fixable", 4),
            ("ruff", "Found 4 errors (3 fixed, 1 remaining).\n", 1),
            ("ruff", "All checks passed!\n", 0),
            ("tsc", "src/a.ts(3,1): error TS2304\n\nFound 2 errors in 2 files.\n", 2),
            ("tsc", "Found 1 error in src/a.ts:3\n", 1),
            ("pyright", "0 errors, 0 warnings, 0 informations \n", 0),
            ("eslint", "\u2716 5 problems (3 errors, 2 warnings)\n", 3),
        ],
    )
    def test_linters(self, name: str, output: str, errors: int) -> None:
        """Type checkers and linters report an error count."""
        assert parse_check_output(name, output) == CheckCounts(errors=errors)

    def test_rspec_and_mocha(self) -> None:
        """rspec's examples line and mocha's passing/failing lines give counts."""
        assert parse_check_output("rspec", "10 examples, 2 failures\n") == CheckCounts(8, 2, 0, 0)
        mocha = "  5 passing (20ms)\n  1 pending\n  1 failing\n\n  1) parse\n"
        assert parse_check_output("mocha", mocha) == CheckCounts(5, 1, None, 1)

    def test_last_summary_wins(self) -> None:
        """When a run prints several summaries, the last one counts."""
        output = "=== 1 failed, 3 passed in 1.0s ===\n... rerun ...\n=== 4 passed in 1.0s ===\n"
        assert parse_check_output("pytest", output) == CheckCounts(4, 0, 0, 0)

    def test_unknown_runner_takes_the_last_summary_of_any_kind(self) -> None:
        """A generic check (make test) takes whichever known summary comes last."""
        output = "All checks passed!\n" + "=== 2 failed, 1 passed in 0.1s ===\n"
        assert parse_check_output("make test", output) == CheckCounts(1, 2, 0, 0)

    def test_no_summary(self) -> None:
        """Output without a summary gives None."""
        assert parse_check_output("make", "gcc -o main main.c\n") is None
        assert parse_check_output("pytest", "") is None

    def test_summary_beyond_the_scanned_tail_is_ignored(self) -> None:
        """Only the tail is read, so a summary buried under megabytes of output is not seen."""
        output = "=== 1 passed in 0.1s ===\n" + "x" * FIVE_MB
        assert parse_check_output("pytest", output) is None

    def test_huge_output_is_fast(self) -> None:
        """A 5 MB output with its summary at the end is parsed quickly."""
        output = ("." * 99 + "\n") * (FIVE_MB // 100) + "=== 3 passed in 9.9s ===\n"
        assert _timed(lambda: parse_check_output("pytest", output)) < 1.0
        assert parse_check_output("pytest", output) == CheckCounts(3, 0, 0, 0)

    @given(st.text(), st.text())
    def test_total_and_deterministic(self, name: str, output: str) -> None:
        """Any text gives counts or None, the same each time, never negative."""
        result = parse_check_output(name, output)
        assert parse_check_output(name, output) == result
        if result is not None:
            values = (result.passed, result.failed, result.errors, result.skipped)
            assert all(value is None or value >= 0 for value in values)

    @given(st.lists(st.sampled_from(
        ["3 failed", ", ", "12 passed", " in 0.2s", "=", "\n", "Ran 2 tests in 1s", "OK",
         "FAILED (failures=1)", "Tests:", " 6 total", "Tests  ", "(2)", "ok  \tp\t1s",
         "--- FAIL: T", "test result: ok. 1 passed; 0 failed; 0 ignored", "Found 2 errors",
         "10 examples, 2 failures", "  5 passing (2ms)", "\x1b[31m"]
    ), max_size=30).map("".join))  # fmt: skip
    def test_total_on_summary_fragments(self, output: str) -> None:
        """Jumbled pieces of real summary lines never make the parser raise."""
        parse_check_output("make test", output)


class TestCheckPassed:
    def test_exit_code_decides(self) -> None:
        """A known exit code wins over counts and text."""
        failing = CheckCounts(passed=0, failed=3)
        assert check_passed(0, failing, "3 failed in 1s") is True
        assert check_passed(1, CheckCounts(passed=5, failed=0), "All checks passed!") is False

    def test_failures_or_errors_fail(self) -> None:
        """Without an exit code, any failure or error means failed."""
        assert check_passed(None, CheckCounts(passed=5, failed=1), "") is False
        assert check_passed(None, CheckCounts(errors=2), "") is False

    def test_passes_pass(self) -> None:
        """Without an exit code, passes and no failures mean passed."""
        assert check_passed(None, CheckCounts(passed=5, failed=0), "") is True

    @pytest.mark.parametrize(
        "output",
        [
            "Success: no issues found in 3 source files\n",
            "All checks passed!\n",
            "Ran 0 tests in 0.000s\n\nOK\n",
        ],
    )
    def test_success_summary_passes(self, output: str) -> None:
        """A success summary with no counted passes still means passed."""
        counts = parse_check_output("mypy", output)
        assert check_passed(None, counts, output) is True

    def test_unknown(self) -> None:
        """Nothing known gives None."""
        assert check_passed(None, None, "building...\n") is None
        assert check_passed(None, parse_check_output("pytest", "no tests ran in 0.01s"), "") is None

    def test_vitest_fixture(self) -> None:
        """The fixture's red and green vitest runs are failed and passed from text alone."""
        assert check_passed(None, parse_check_output("npm test", VITEST_FAILED), "") is False
        assert check_passed(None, parse_check_output("npm test", VITEST_PASSED), "") is True

    @given(st.none() | st.integers(), st.none() | st.builds(
        CheckCounts,
        st.none() | st.integers(0, 9),
        st.none() | st.integers(0, 9),
        st.none() | st.integers(0, 9),
        st.none() | st.integers(0, 9),
    ), st.text())  # fmt: skip
    def test_total_and_deterministic(
        self, exit_code: int | None, counts: CheckCounts | None, output: str
    ) -> None:
        """Any input gives True, False or None, the same each time."""
        result = check_passed(exit_code, counts, output)
        assert result in (True, False, None)
        assert check_passed(exit_code, counts, output) is result
        if exit_code is not None:
            assert result is (exit_code == 0)


class TestExitCodeFromOutput:
    @pytest.mark.parametrize(
        ("text", "code"),
        [
            ("Exit code: 2\nWall time: 0.5 seconds\nOutput:\n", 2),
            ("exit code 1", 1),
            ("Exit code 1\nerror: no such file", 1),
            ("Error: Exit code 1\nlsd: 3: No such file or directory", 1),
            ("Process exited with code 1\n", 1),
            ("bash: foo: command not found\nexited with code 127", 127),
            ("Command failed with exit code 2: npm test", 2),
            ("some output\n[exit code: 1]", 1),
            ("Process exited with code 0\nOriginal token count: 12\nOutput:\nok\n", 0),
        ],
    )
    def test_printed_exit_codes(self, text: str, code: int) -> None:
        """The ways agents print an exit code are all read."""
        assert exit_code_from_output(text) == code

    def test_codex_exec_header(self) -> None:
        """Codex exec output's header carries the exit code (fixture)."""
        assert exit_code_from_output(VITEST_FAILED) == 1

    def test_codex_metadata_json(self) -> None:
        """Codex custom tool output carries it in ``metadata.exit_code`` (fixture)."""
        assert exit_code_from_output(CODEX_PATCH_OUTPUT) == 0
        failing = '{"output": "boom", "metadata": {"exit_code": 3, "duration_seconds": 0.1}}'
        assert exit_code_from_output(failing) == 3

    def test_large_codex_metadata_json(self) -> None:
        """A metadata exit code after megabytes of output is still found, in the tail."""
        text = '{"output": "' + "x" * FIVE_MB + '", "metadata": {"exit_code": 4}}'
        assert exit_code_from_output(text) == 4

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "all good",
            "Chunk ID: ac6588\nWall time: 1.0113 seconds\nProcess running with session ID 83395\n",
            "the exit code was not printed",
            '{"output": "x", "metadata": {"duration_seconds": 1}}',
        ],
    )
    def test_absent(self, text: str) -> None:
        """Text without an exit code gives None (a still-running Codex process included)."""
        assert exit_code_from_output(text) is None

    def test_middle_of_huge_output_is_not_scanned(self) -> None:
        """Only the first and last ~2 KB are looked at."""
        text = "x" * FIVE_MB + "\nExit code: 9\n" + "y" * FIVE_MB
        assert exit_code_from_output(text) is None
        assert exit_code_from_output("x" * FIVE_MB + "\n[exit code: 5]") == 5
        assert _timed(lambda: exit_code_from_output(text)) < 1.0

    @given(st.text())
    def test_total_and_deterministic(self, text: str) -> None:
        """Any text gives an int or None, the same each time."""
        result = exit_code_from_output(text)
        assert result is None or isinstance(result, int)
        assert exit_code_from_output(text) == result


class TestIsAcknowledgement:
    @pytest.mark.parametrize(
        "text",
        [
            "continue",
            "go on",
            "go ahead",
            "yes",
            "y",
            "ok",
            "okay",
            "proceed",
            "lgtm",
            "sounds good",
            "do it",
            "keep going",
            "next",
            "sure",
            "yep",
            "please continue",
            "继续",
            "好的",
            "好",
            "是",
            "可以",
            "ok thanks",
            "Yes!",
            "continue.",
            "ok, go ahead",
            "  OK  ",
            "Continue 🙏",
            "好的\uff0c继续",
            "Let's go!",
            "\U0001f44d",
        ],
    )
    def test_acknowledgements(self, text: str) -> None:
        """Short replies that only say "carry on" are acknowledgements."""
        assert is_acknowledgement(text)

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "   ",
            "yes, but use postgres instead",
            "continue with the migration",
            "no",
            "stop",
            "Refactor the auth module",
            "mix phx.server doesnt seem to start",
            "ok ok ok ok ok ok ok",
            "1",
            "继续\uff0c但是用 postgres",
            "yes go ahead and then deploy it",
        ],
    )
    def test_not_acknowledgements(self, text: str) -> None:
        """Real requests, refusals, long replies and conditional yeses are not."""
        assert not is_acknowledgement(text)

    def test_huge_text_is_not_an_acknowledgement(self) -> None:
        """A 5 MB reply is rejected at once."""
        text = "ok " + " " * FIVE_MB
        assert _timed(lambda: is_acknowledgement(text)) < 1.0
        assert not is_acknowledgement(text)

    @given(st.text())
    def test_total_and_deterministic(self, text: str) -> None:
        """Any text gives a bool, the same each time."""
        result = is_acknowledgement(text)
        assert isinstance(result, bool)
        assert is_acknowledgement(text) is result

    @given(st.text(min_size=1))
    def test_anything_with_a_long_tail_is_not(self, text: str) -> None:
        """Appending seven words to anything makes it not an acknowledgement."""
        assert not is_acknowledgement(text + " and also please fix the build")


def _reference_first_line(text: str, max_chars: int) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= max_chars else line[: max_chars - 1].rstrip() + "\u2026"


class TestFirstLine:
    def test_first_non_blank_line(self) -> None:
        """Leading blank lines are skipped and the line is stripped."""
        assert first_line("\n\n   hello world  \nsecond") == "hello world"

    def test_capped_with_ellipsis(self) -> None:
        """A long line is cut to max_chars, the last of them an ellipsis."""
        assert first_line("abcdefghij", 5) == "abcd\u2026"
        assert first_line("abcde", 5) == "abcde"

    def test_blank(self) -> None:
        """Blank text gives an empty string."""
        assert first_line("") == ""
        assert first_line(" \n\t\r\n ") == ""

    def test_error_text_fixture(self) -> None:
        """The first line of a multi-line error is its headline (fixture)."""
        text = "Error: lsd: 3: No such file or directory (os error 2).\n\n\nDemo\n├── CLAUDE.md"
        assert first_line(text) == "Error: lsd: 3: No such file or directory (os error 2)."

    def test_huge_line_is_fast(self) -> None:
        """A 5 MB single line is cut without being copied whole."""
        text = "x" * FIVE_MB
        assert _timed(lambda: first_line(text)) < 1.0
        assert first_line(text) == "x" * 199 + "\u2026"

    def test_line_padded_past_the_window(self) -> None:
        """Trailing blanks longer than the look-ahead do not make a short line look long."""
        assert first_line("abc" + " " * 500 + "\nnext", 10) == "abc"
        assert first_line("abc" + " " * 500 + "d", 10) == "abc\u2026"

    @given(st.text(), st.integers(min_value=1, max_value=300))
    def test_matches_reference(self, text: str, max_chars: int) -> None:
        """The result equals the obvious splitlines-based definition."""
        assert first_line(text, max_chars) == _reference_first_line(text, max_chars)

    @given(st.text(), st.integers(min_value=-5, max_value=300))
    def test_total_and_bounded(self, text: str, max_chars: int) -> None:
        """Any text gives one line of at most max_chars characters."""
        result = first_line(text, max_chars)
        assert len(result) <= max(max_chars, 0)
        assert result == result.strip()
        assert len(result.splitlines()) <= 1


class TestIsFailureText:
    @pytest.mark.parametrize(
        "text",
        [
            "<tool_use_error>File does not exist.</tool_use_error>",
            "<tool_use_error>Sibling tool call errored</tool_use_error>",
            "Error: File has not been read yet. Read it first before writing to it.",
            "Error: File content (85812 tokens) exceeds maximum allowed tokens",
            "User rejected tool use",
            REJECTED,
            'InputValidationError: [\n  {\n    "code": "invalid_type"',
            "write_stdin failed: no such session",
            "aborted",
        ],
    )
    def test_errors_reported_as_text(self, text: str) -> None:
        """The markers agents use for failed calls are recognised (fixtures)."""
        assert is_failure_text(text)

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "Todos have been modified successfully.",
            "Plan updated",
            CODEX_PATCH_OUTPUT,
            "     1\tError: this line of a file mentions an error",
            "no Error: at the start",
            "error: lower-case compiler output",
            "The operation was aborted by the remote side",
        ],
    )
    def test_ordinary_results(self, text: str) -> None:
        """Ordinary results, including ones that mention errors, are not failures."""
        assert not is_failure_text(text)

    @given(st.text())
    def test_total_and_deterministic(self, text: str) -> None:
        """Any text gives a bool, the same each time."""
        result = is_failure_text(text)
        assert isinstance(result, bool)
        assert is_failure_text(text) is result

    def test_huge_text_is_fast(self) -> None:
        """Only the start of a 5 MB result is looked at."""
        text = " " * FIVE_MB + "Error: late"
        assert _timed(lambda: is_failure_text(text)) < 1.0
        assert not is_failure_text(text)


class TestIsReadOnlyCommand:
    @pytest.mark.parametrize(
        "command",
        ["cat package.json", "sed -n '1,80p' a.py", "git status --short", "cd src && ls -la",
         "rg -n foo src 2>/dev/null | head -5", "nl -ba x | sed -n '90,108p'",
         "bash -lc \"cat x\"", "find . -name '*.py' | wc -l"],
    )  # fmt: skip
    def test_looking_commands_are_read_only(self, command: str) -> None:
        """Commands that only look at files are read-only."""
        assert is_read_only_command(command)

    @pytest.mark.parametrize(
        "command",
        ["sed -i s/a/b/ x", "git commit -m x", "ls -la > out.txt", "echo hi >> f",
         "find . -name '*.pyc' -delete", "pytest -q", "rm -rf build", "cat a | tee b", ""],
    )  # fmt: skip
    def test_writing_or_unknown_commands_are_not(self, command: str) -> None:
        """Writes, redirects to files and unknown commands are not read-only."""
        assert not is_read_only_command(command)

    @given(st.text(max_size=200))
    def test_total(self, command: str) -> None:
        """Any text gives an answer."""
        assert is_read_only_command(command) in (True, False)


def _every_match_last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = None
    for match in pattern.finditer(text):
        found = match
    return found


_SUMMARY_PATTERNS = [
    value
    for name, value in vars(tools).items()
    if isinstance(value, re.Pattern) and value.pattern in _NEEDLES
]
# Pieces of every summary format, near misses and line breaks, so that generated outputs
# hold matches, lines that hold a needle and do not match, and several candidates.
_SUMMARY_FRAGMENTS = st.sampled_from(
    [
        "\n", "\r\n", " ", "\t", "=====", "3 failed, 12 passed", " in 0.2s", "in ", "no tests ran",
        "Tests:", " 2 passed, 3 total", "Tests  4 passed | 1 failed (5)", " 3 passing (2ms)",
        " 1 failing", "Found 2 errors", " (1 fixed, 1 remaining)", "Success: no issues found",
        "All checks passed!", "0 errors, 1 warning, 2 informations", "x 3 problems (2 errors, 1 "
        "warnings)", "4 examples, 1 failure", "OK (3 tests, 4 assertions)",
        "Tests: 5, Assertions: 6, Failures: 1.", "Tests run: 4, Failures: 1, Errors: 0, "
        "Skipped: 0", "Failed!  - Failed:     1, Passed:     2, Skipped:     0",
        "90% tests passed, 1 tests failed out of 10", "Ran 3 tests in 0.1s\n\nOK",
        "test result: ok. 3 passed; 0 failed; 0 ignored", "7", "abc", "%", ",", ":", "(", ")",
    ]
)  # fmt: skip


class TestLastSummaryMatch:
    @given(
        st.lists(_SUMMARY_FRAGMENTS | st.text(max_size=8), max_size=40).map("".join),
        st.sampled_from(_SUMMARY_PATTERNS),
    )
    @settings(max_examples=1000)
    def test_equals_the_last_of_every_match(self, text: str, pattern: re.Pattern[str]) -> None:
        """Ruling out by a needle and searching line by line from the end change nothing."""
        expected = _every_match_last(pattern, text)
        found = _last(pattern, text)
        assert (found and found.span()) == (expected and expected.span())
        assert (found and found.groups()) == (expected and expected.groups())
