"""Codex Desktop's code-mode cells read as the calls their scripts make.

Records are shaped as Codex Desktop 0.145 writes them (``tests/formats/codex_records.py``):
a ``custom_tool_call`` ``exec`` with JavaScript, its ``custom_tool_call_output`` a list of
text items under a "Script completed" / "Script failed" / "Script running with cell ID N"
header, a ``wait`` call for the rest of a running cell.
"""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from session_memory.core.events import Record, SkippedLine
from session_memory.formats import CodexAdapter
from tests.formats.codex_records import (
    COMPLETE,
    SESSION,
    STARTED,
    JsonRecord,
    cell,
    event,
    feed,
    function_call,
    function_output,
    lines,
    memory,
    prompt,
    result,
    running,
    script_output,
    texts,
    tool_events,
)

START = (SESSION, STARTED, prompt("Review the open PRs"))
PATCH = (
    "*** Begin Patch\\n*** Update File: /home/dev/graph/internal/git.go\\n@@\\n-a\\n+b\\n"
    "*** End Patch"
)
"""A patch as a script writes it, in a JavaScript string."""
PATCH_CELL = f'const patch = "{PATCH}";\nconst r = await tools.apply_patch(patch);\ntext("{{}}");'
MERGE_CELL = (
    "const r = await tools.mcp__codex_apps__github_merge_pull_request("
    '{repository_full_name: "o/r", pr_number: 38, merge_method: "squash"});\n'
    "text(JSON.stringify(r));"
)
POLL_CELL = (
    'const r = await tools.write_stdin({session_id: 61293, chars: ""});\ntext(JSON.stringify(r));'
)


def one_command(command: str, shown: str = "r.output") -> str:
    """A cell that runs ``command`` and prints ``shown``."""
    return (
        f'const r = await tools.exec_command({{cmd: "{command}", workdir: "/home/dev/graph"}});\n'
        f"text({shown});"
    )


def ended(status: str, output: str, exit_code: int | None = None) -> dict[str, object]:
    return {"status": status, "exit_code": exit_code, "output": output, "error": ""}


class TestCommands:
    def test_each_command_of_a_cell_is_a_shell_call(self) -> None:
        """``tools.exec_command({cmd})`` is the shell call it makes, with its output."""
        assert tool_events(
            *START,
            cell("call_1", one_command("gh pr list --state open")),
            script_output("call_1", "Script completed", "43\tImprove agent retrieval\n"),
        ) == [
            (
                "requested",
                "exec_command",
                {"cmd": "gh pr list --state open", "workdir": "/home/dev/graph"},
            ),
            ("completed", "exec_command", ended("completed", "43\tImprove agent retrieval\n")),
        ]

    def test_result_objects_printed_per_command_are_each_commands_own(self) -> None:
        """A cell that prints each command's whole result (``JSON.stringify(r)``) gives
        each command its own output and exit code, in the order the script calls them."""
        script = (
            "const rs = await Promise.all([\n"
            '  tools.exec_command({cmd: "go vet ./...", workdir: "/w"}),\n'
            '  tools.exec_command({cmd: "go test ./internal/sem", workdir: "/w"})\n'
            "]); rs.forEach((r) => text(JSON.stringify(r)));"
        )
        failing = "--- FAIL: TestRanking (0.00s)\nFAIL\tgraph/internal/sem\t0.4s\n"
        m = memory(
            *START,
            cell("call_1", script),
            script_output(
                "call_1", "Script completed", result("", exit_code=0), result(failing, exit_code=1)
            ),
        )
        checks = {item.text.split("`")[1]: item.status for item in m.verification_status}
        assert checks == {"go vet ./...": "passed", "go test ./internal/sem": "failed"}

    def test_outputs_printed_per_command_are_each_commands_own(self) -> None:
        """``results.forEach((r) => text(r.output))``: one item per command, in call order,
        an empty one included (a quiet check that found nothing), with no exit code."""
        script = (
            "const results = await Promise.all([\n"
            '  tools.exec_command({"cmd": "git diff --check", "workdir": "/w"}),\n'
            '  tools.exec_command({"cmd": "git status --short --branch", "workdir": "/w"})\n'
            "]); results.forEach((r) => text(r.output));"
        )
        status = "## feat/x...origin/feat/x\n M internal/sem/search.go\n"
        records = (*START, cell("call_1", script),
                   script_output("call_1", "Script completed", "", status))  # fmt: skip
        assert [outcome for state, _, outcome in tool_events(*records) if state == "completed"] == [
            ended("completed", ""),
            ended("completed", status),
        ]
        assert [(i.status, i.text) for i in memory(*records).verification_status] == [
            ("passed", "`git diff --check`")
        ]

    def test_a_shared_output_is_given_to_each_command(self) -> None:
        """When the output does not say whose part is whose, each command gets all of it,
        and no exit code."""
        script = (
            "const [a, b] = await Promise.all([\n"
            '  tools.exec_command({cmd: "git status --short"}),\n'
            '  tools.exec_command({cmd: "git diff --stat"})\n'
            "]);\n"
            "text(JSON.stringify({status: a.output, stat: b.output}));"
        )
        shared = '{"status": " M go.mod\\n", "stat": " go.mod | 2 +-\\n"}'
        events = tool_events(
            *START, cell("call_1", script), script_output("call_1", "Script completed", shared)
        )
        assert [outcome for status, _, outcome in events if status == "completed"] == [
            ended("completed", shared)
        ] * 2

    def test_a_running_cell_ends_with_the_output_its_wait_delivers(self) -> None:
        """ "Script running with cell ID N": the command runs on; ``wait`` on cell N is no
        call of its own, and its output ends the command."""
        events = tool_events(
            *START,
            cell("call_1", one_command("go test -race ./...")),
            running("call_1", "20"),
            function_call("call_2", "wait", cell_id="20", yield_time_ms=10000, max_tokens=30000),
            function_output(
                "call_2", texts("Script completed", "ok  \tgraph/internal/sem\t72.2s\n")
            ),
        )
        assert [(status, name) for status, name, _ in events] == [
            ("requested", "exec_command"),
            ("completed", "exec_command"),
        ]
        assert events[1][2] == ended("completed", "ok  \tgraph/internal/sem\t72.2s\n")

    def test_write_stdin_in_a_cell_continues_the_command_it_polls(self) -> None:
        """A command whose result says it runs on (``session_id``) is polled with
        ``write_stdin``: the poll's result, with its exit code, is the command's end."""
        events = tool_events(
            *START,
            cell("call_1", one_command("mise run check", "JSON.stringify(r)")),
            script_output(
                "call_1", "Script completed", result("[vet] $ go vet\n", session_id=61293)
            ),
            cell("call_2", POLL_CELL),
            script_output("call_2", "Script completed", result("[test:ci] FAIL\n", exit_code=1)),
        )
        assert [(status, name) for status, name, _ in events] == [
            ("requested", "exec_command"),
            ("failed", "exec_command"),
        ]
        assert events[1][2] == {
            "status": "failed",
            "exit_code": 1,
            "output": "",
            "error": "[test:ci] FAIL\n",
        }

    def test_ctrl_c_written_in_a_cell_stops_the_command_it_polls(self) -> None:
        """``write_stdin({session_id, chars: "\\u0003"})`` stops a watch the agent is done
        with (``gh run watch``): the command ends interrupted, not failed, nor left open,
        whatever the poll's output shows."""
        stop = POLL_CELL.replace('chars: ""', 'chars: "\\u0003"')
        events = tool_events(
            *START,
            cell("call_1", one_command("gh run watch 29280597410", "JSON.stringify(r)")),
            script_output(
                "call_1", "Script completed", result("Refreshing run status\n", session_id=61293)
            ),
            cell("call_2", stop),
            script_output("call_2", "Script completed", "Refreshing run status every 3 seconds."),
        )
        assert [(status, name) for status, name, _ in events] == [
            ("requested", "exec_command"),
            ("completed", "exec_command"),
        ]
        assert events[1][2]["status"] == "interrupted"

    def test_the_result_s_fields_printed_by_name_are_its_exit_and_session(self) -> None:
        """``text(r.output); text(`SESSION_ID=${r.session_id}`); text(`exit=${r.exit_code}`)``:
        the command runs on in that session, and the poll that sees it end ends it; a label
        with the exit code before another command's output ("staged-check(exit 0):") is
        that command's exit code."""
        script = one_command("mise run check") + (
            "\nif (r.session_id) text(`SESSION_ID=${r.session_id}`);\ntext(`exit=${r.exit_code}`);"
        )
        events = tool_events(
            *START,
            cell("call_1", script),
            script_output(
                "call_1",
                "Script completed",
                "[vet] $ go vet\n",
                "SESSION_ID=61293",
                "exit=undefined",
            ),
            cell("call_2", POLL_CELL),
            script_output("call_2", "Script completed", result("[test:ci] ok\n", exit_code=0)),
        )
        assert [(status, name) for status, name, _ in events] == [
            ("requested", "exec_command"),
            ("completed", "exec_command"),
        ]
        assert events[1][2] == ended("completed", "[test:ci] ok\n", 0)
        pair = (
            'const out = await Promise.all([tools.exec_command({cmd: "git status --short"}), '
            'tools.exec_command({cmd: "git diff --cached --check"})]);\n'
            'text("status:\\n" + out[0].output);\n'
            'text("staged-check(exit " + out[1].exit_code + "):\\n" + out[1].output);'
        )
        events = tool_events(
            *START,
            cell("call_1", pair),
            script_output(
                "call_1",
                "Script completed",
                "status:\nM  a.go\n",
                "staged-check(exit 2):\na.go:3: trailing whitespace.\n",
            ),
        )
        assert [(status, name) for status, name, _ in events][2:] == [
            ("completed", "exec_command"),
            ("failed", "exec_command"),
        ]
        assert events[3][2]["exit_code"] == 2

    def test_a_cell_that_prints_one_output_and_another_result_object(self) -> None:
        """``text(a.output); text(JSON.stringify(b))``: each command has its own item, the
        second's result object says it runs on, and its poll ends it."""
        script = (
            'const a = await tools.exec_command({cmd: "mkdir -p /tmp/x"});\n'
            'const b = await tools.exec_command({cmd: "go test ./internal/sem"});\n'
            "text(a.output); text(JSON.stringify(b));"
        )
        events = tool_events(
            *START,
            cell("call_1", script),
            script_output("call_1", "Script completed", "", result("", session_id=61293)),
            cell("call_2", POLL_CELL),
            script_output("call_2", "Script completed", result("--- FAIL: TestX\n", exit_code=1)),
        )
        assert [(status, name) for status, name, _ in events] == [
            ("requested", "exec_command"),
            ("requested", "exec_command"),
            ("completed", "exec_command"),
            ("failed", "exec_command"),
        ]
        assert events[3][2]["error"] == "--- FAIL: TestX\n"


class TestOtherTools:
    def test_a_patch_in_a_cell_is_the_file_change(self) -> None:
        """``tools.apply_patch(patch)`` changes the files its patch names."""
        m = memory(
            *START, cell("call_1", PATCH_CELL), script_output("call_1", "Script completed", "{}")
        )
        assert any("internal/git.go" in line for line in lines(m.where_stands))

    def test_a_failed_script_fails_the_calls_it_made(self) -> None:
        """ "Script failed", then "Script error: ...": the script's calls fail with the error."""
        error = "apply_patch verification failed: Failed to find expected lines in git.go:\n\ta"
        m = memory(
            *START,
            cell("call_1", PATCH_CELL),
            script_output("call_1", "Script failed", f"Script error:\n{error}"),
        )
        assert lines(m.failed_attempts) == [
            "apply_patch `internal/git.go`: “apply_patch verification failed: Failed to find "
            "expected lines in git.go:”"
        ]

    def test_an_mcp_call_ends_with_its_own_event(self) -> None:
        """An MCP tool a script calls ends with its ``mcp_tool_call_end``: an error result is
        a failure, whatever the cell printed."""
        m = memory(
            *START,
            cell("call_1", MERGE_CELL),
            event(
                "mcp_tool_call_end",
                call_id="exec-5b7b6ea8-e1aa-4143-a6e5-7f451026ef53",
                invocation={
                    "server": "codex_apps",
                    "tool": "github.merge_pull_request",
                    "arguments": {"pr_number": 38},
                },
                duration={"secs": 0, "nanos": 526882208},
                result={"Err": "GitHub API error 403: Resource not accessible by integration"},
            ),
            script_output("call_1", "Script completed", '{"content": []}'),
        )
        assert lines(m.failed_attempts) == [
            "mcp__codex_apps__github_merge_pull_request: “GitHub API error 403: Resource not "
            "accessible by integration”"
        ]

    def test_an_unreadable_cell_is_one_call(self) -> None:
        """A script that uses ``tools`` in a way that cannot be read is one call: the cell."""
        script = "const out = await Promise.all(cmds.map(([n, args]) => tools.exec_command(args)));"
        events = tool_events(
            *START, cell("call_1", script), script_output("call_1", "Script completed", "x")
        )
        assert [(status, name) for status, name, _ in events] == [
            ("requested", "exec"),
            ("completed", "exec"),
        ]

    def test_a_cell_without_tools_makes_no_call(self) -> None:
        """A cell that only computes in JavaScript changes nothing: no call."""
        assert (
            tool_events(
                *START,
                cell("call_1", "const keys = ['a', 'b'];\ntext(JSON.stringify(keys));"),
                script_output("call_1", "Script completed", '["a","b"]'),
                COMPLETE,
            )
            == []
        )


SCRIPTS = st.sampled_from(
    [
        one_command("go test ./..."),
        one_command("mise run check", "JSON.stringify(r)"),
        PATCH_CELL,
        MERGE_CELL,
        POLL_CELL,
        "const [a, b] = await Promise.all([tools.exec_command({cmd: 'ls'}), "
        "tools.exec_command({cmd: 'pwd'})]); text(JSON.stringify(a)); text(JSON.stringify(b));",
        "const {exec_command} = tools;",
        "text('no tools')",
    ]
)
ITEMS = st.lists(
    st.sampled_from(
        [
            "",
            "ok",
            result("ok\n", exit_code=0),
            result("FAIL\n", exit_code=1),
            result("", session_id=61293),
            "Script error:\nboom",
        ]
    ),
    max_size=3,
)
HEADERS = st.sampled_from(
    ["Script completed", "Script failed", "Script running with cell ID 20", "no header"]
)
CALL_IDS = st.sampled_from(["call_1", "call_2", "call_3"])
CELL_RECORDS = st.one_of(
    st.builds(cell, CALL_IDS, SCRIPTS),
    st.builds(lambda c, h, i: script_output(c, h, *i), CALL_IDS, HEADERS, ITEMS),
    st.builds(lambda c: running(c, "20"), CALL_IDS),
    st.builds(lambda c: function_call(c, "wait", cell_id="20"), CALL_IDS),
    st.builds(lambda c, i: function_output(c, texts("Script completed", *i)), CALL_IDS, ITEMS),
    st.just(event("patch_apply_end", call_id="exec-1", success=True, stdout="Success.")),
    st.just(COMPLETE),
)


class TestCellProperties:
    @settings(max_examples=80, deadline=None)
    @given(st.lists(CELL_RECORDS, max_size=12))
    def test_restored_after_every_record_reads_as_whole(self, records: list[JsonRecord]) -> None:
        """Cells, their outputs and waits in any order: never the safety net, and an
        adapter restored from its snapshot after every record emits what one reading
        everything emits."""
        whole = feed(*START, *records)
        adapter = CodexAdapter()
        pieces: list[Record] = []
        for offset, record in enumerate((*START, *records)):
            pieces.extend(adapter.feed(record, offset * 100))
            adapter = CodexAdapter.restore(orjson.loads(orjson.dumps(adapter.snapshot())))
        pieces.extend(adapter.finish())
        assert not [r for r in whole if isinstance(r, SkippedLine)]
        assert [getattr(r, "payload", r) for r in pieces] == [
            getattr(r, "payload", r) for r in whole
        ]
