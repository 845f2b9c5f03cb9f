"""Reading the tool calls out of a code-mode cell's JavaScript, without running it.

Scripts are shaped as Codex Desktop 0.145's model writes them (benchmarks/recall/corpus3).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from session_memory.formats.codex_script import ScriptCall, script_calls

SCRIPT_CHARACTERS = "tools.exec_command({cmd:`'\"${}/*\\\n[]),;+=> 0x1e9"
"""What scripts are made of: the reader's every token kind, in any order."""


class TestCalls:
    def test_an_exec_command_object_literal_is_read(self) -> None:
        """The argument object's keys and JSON-like values are the call's arguments."""
        script = (
            "const r = await tools.exec_command({\n"
            '  cmd: "rg -n \\"sigKey\\" internal/sem/analyze.go",\n'
            '  workdir: "/home/dev/graph",\n'
            "  yield_time_ms: 10000,\n"
            "  sandbox_permissions: 'require_escalated',\n"
            "  tty: false\n"
            "});\n"
            "text(r.output);\n"
        )
        assert script_calls(script) == [
            ScriptCall(
                "exec_command",
                {
                    "cmd": 'rg -n "sigKey" internal/sem/analyze.go',
                    "workdir": "/home/dev/graph",
                    "yield_time_ms": 10000,
                    "sandbox_permissions": "require_escalated",
                    "tty": False,
                },
            )
        ]

    def test_calls_in_promise_all_are_read_in_order(self) -> None:
        """Several calls in one cell, MCP tools among them, come in the order written."""
        script = (
            "const [stat, files] = await Promise.all([\n"
            '  tools.exec_command({cmd: "git diff --stat", workdir: "/w"}),\n'
            "  tools.mcp__codex_apps__github_list_pr_changed_filenames("
            '{repo_full_name:"o/r", pr_number:43})\n'
            "]);\n"
            'text("STAT\\n"+stat.output);\n'
        )
        assert script_calls(script) == [
            ScriptCall("exec_command", {"cmd": "git diff --stat", "workdir": "/w"}),
            ScriptCall(
                "mcp__codex_apps__github_list_pr_changed_filenames",
                {"repo_full_name": "o/r", "pr_number": 43},
            ),
        ]

    def test_a_template_literal_keeps_its_placeholders(self) -> None:
        """A command built in a loop is read as written, ``${...}`` and all."""
        script = (
            "const rs=await Promise.all(nums.map(n=>tools.exec_command({\n"
            "  cmd:`gh pr checks ${n} --repo entireio/entire-graph`,\n"
            '  workdir:"/w"})));'
        )
        (call,) = script_calls(script) or []
        assert call.argument == {
            "cmd": "gh pr checks ${n} --repo entireio/entire-graph",
            "workdir": "/w",
        }

    def test_a_patch_bound_to_a_name_is_the_argument(self) -> None:
        """``const patch = "..."; tools.apply_patch(patch)``: the patch is the argument."""
        patch = (
            "*** Begin Patch\\n*** Update File: /w/internal/git.go\\n@@\\n-a\\n+b\\n*** End Patch"
        )
        script = (
            f'const patch = "{patch}";\n'
            "const r = await tools.apply_patch(patch);\ntext(JSON.stringify(r));"
        )
        assert script_calls(script) == [
            ScriptCall(
                "apply_patch",
                "*** Begin Patch\n*** Update File: /w/internal/git.go\n@@\n-a\n+b\n*** End Patch",
            )
        ]

    def test_strings_joined_with_plus_read_as_one(self) -> None:
        """A string built with ``+`` reads as one, its other parts as ``${...}``."""
        script = 'await tools.exec_command({cmd: "git show " + sha + ":go.mod", workdir: dir});'
        assert script_calls(script) == [
            ScriptCall("exec_command", {"cmd": "git show ${sha}:go.mod", "workdir": "${dir}"})
        ]

    def test_tools_in_strings_comments_and_regexes_are_no_calls(self) -> None:
        """Only code calls tools: the same words in a string, a comment or a regex do not."""
        script = (
            "// tools.exec_command({cmd: 'rm -rf /'})\n"
            "/* tools.apply_patch(p) */\n"
            "const re = /tools.write_stdin\\(/g;\n"
            "const half = total / 2;\n"
            'text("tools.exec_command(" + half);\n'
        )
        assert script_calls(script) == []

    def test_a_script_without_tools_calls_none(self) -> None:
        """A cell that only computes makes no call."""
        assert script_calls("const a = [1, 2];\ntext(JSON.stringify(a.map(x => x * 2)));") == []

    def test_a_use_of_tools_that_cannot_be_read_is_unknown(self) -> None:
        """Destructuring ``tools`` or naming a tool by a variable: the calls are unknown."""
        assert script_calls("const {exec_command} = tools; await exec_command('ls');") is None
        assert script_calls("await tools[name]({cmd: 'ls'});") is None


class TestHostileScripts:
    def test_deep_nesting_is_read_without_recursing_forever(self) -> None:
        """Thousands of nested templates, objects or arrays are read, not a crash."""
        assert script_calls("`${" * 5000) == []
        assert script_calls("tools.x(" + "{a:" * 5000) is not None
        assert script_calls("tools.x(" + "[" * 5000) is not None

    def test_a_script_that_takes_too_much_work_to_read_is_unknown(self) -> None:
        """Arrays nested 32 deep around thousands of items cost more reading than a script
        of that length may take: the calls are unknown, not guessed from a part."""
        script = "tools.x(" + "[" * 32 + "1," * 5000 + "]" * 32 + ")"
        assert script_calls(script) is None

    @given(st.text(alphabet=st.sampled_from(list(SCRIPT_CHARACTERS)), max_size=300))
    def test_any_text_reads_without_raising(self, script: str) -> None:
        """A script is arbitrary text: reading it never raises."""
        calls = script_calls(script)
        assert calls is None or all(isinstance(c.name, str) for c in calls)
