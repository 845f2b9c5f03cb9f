"""Tool names, arguments and outputs shared by the tests of the tool-reading modules.

Quoted strings marked "fixture" are copied from the real recordings in tests/fixtures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

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


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start
