"""Failed attempts say why they failed and are resolved by a later success of the same
action, however it is spelled (CAUSES E1, issue 17 "Failures must say why")."""

from __future__ import annotations

import time
from typing import Any

import orjson
import pytest

from deriver import SessionMemoryDeriver
from deriver.actions import Action, actions_of, is_no_match, resolves
from deriver.check_verdict import failure_line
from deriver.output_scan import informative_line
from deriver.read_only import is_read_only_command
from deriver.recording import Failures
from deriver.store import EVICTION_TIERS, MemoryStore
from deriver.token_budget import TokenArithmetic
from session_memory.core.memory import SessionMemory
from session_memory.core.tokens import DEFAULT_ENCODING, counter
from session_memory.formats import ClaudeCodeAdapter
from tests.deriver.test_rules import assistant, bash, call, derive, event, texts, user
from tests.deriver.test_rules import tool as tool_event


def claude_code(*records: dict[str, Any]) -> SessionMemory:
    """Derive Claude Code records, as the adapter reads them from a file."""
    adapter = ClaudeCodeAdapter()
    events: list[Any] = []
    offset = 0
    for record in records:
        line = orjson.dumps(record)
        events.extend(adapter.feed_line(line, offset))
        offset += len(line) + 1
    events.extend(adapter.finish())
    deriver = SessionMemoryDeriver(budget_tokens=1200)
    deriver.apply_all(events)
    return deriver.memory


_BASE = {"sessionId": "s-1", "cwd": "/home/u/proj", "version": "2.1.39", "isSidechain": False}


def bash_use(n: int, command: str) -> dict[str, Any]:
    return {
        **_BASE,
        "type": "assistant",
        "uuid": f"a{n}",
        "timestamp": f"2026-02-11T20:00:{n:02d}.000Z",
        "message": {
            "id": f"msg_{n}",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{n}",
                    "name": "Bash",
                    "input": {"command": command},
                }
            ],
        },
    }


def bash_result(n: int, content: str, *, is_error: bool) -> dict[str, Any]:
    return {
        **_BASE,
        "type": "user",
        "uuid": f"u{n}",
        "timestamp": f"2026-02-11T20:00:{n:02d}.500Z",
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}", "is_error": is_error,
                 "content": content}
            ],
        },
    }  # fmt: skip


_NO_UPSTREAM = (
    "Exit code 128\nfatal: The current branch feature-x has no upstream branch.\n"
    "To push the current branch and set the remote as upstream, use\n\n"
    "    git push --set-upstream origin feature-x\n"
)


class TestInformativeLine:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            (_NO_UPSTREAM, "fatal: The current branch feature-x has no upstream branch."),
            ('Exit code 1\n\u2718 [ERROR] Could not resolve "js/app.js"\n\n1 error\n',
             '\u2718 [ERROR] Could not resolve "js/app.js"'),
            ("Exit code 1\nThe following paths are ignored by one of your .gitignore files:\n"
             "priv/static/assets\nhint: Use -f if you really want to add them.\n",
             "The following paths are ignored by one of your .gitignore files:"),
            ("On branch main\nnothing to commit, working tree clean\n",
             "nothing to commit, working tree clean"),
            ("\u2705 Pre-commit check passed\n\nOn branch f\nUntracked files:\n\t.env\n\n"
             "nothing added to commit but untracked files present",
             "nothing added to commit but untracked files present"),
            ('Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n'
             "    main()\nKeyError: 'user_id'\n", "KeyError: 'user_id'"),
            ("Running ExUnit with seed: 1\n\n  1) test mount (AppWeb.PageTest)\n"
             "     ** (RuntimeError) no :secret_key_base configuration found\n",
             "** (RuntimeError) no :secret_key_base configuration found"),
            ("   Compiling app v0.1.0\nthread 'main' panicked at src/main.rs:4:5:\nboom\n",
             "thread 'main' panicked at src/main.rs:4:5:"),
            ("cat: a.txt: No such file or directory", "cat: a.txt: No such file or directory"),
            ("<anonymous_script>:49\n      ]\n      ^\n\nSyntaxError: Unexpected token ']'\n"
             "    at JSON.parse (<anonymous>)\n", "SyntaxError: Unexpected token ']'"),
            ('  File "<string>", line 19\n    print("a)\n          ^\n'
             "SyntaxError: unterminated string literal (detected at line 19)\n",
             "SyntaxError: unterminated string literal (detected at line 19)"),
        ],
    )  # fmt: skip
    def test_the_line_in_an_errors_words(self, text: str, expected: str) -> None:
        """The first line that says why, across tools and languages, over framing lines."""
        assert informative_line(text) == expected

    def test_a_summary_of_no_errors_is_not_the_reason(self) -> None:
        """ "0 errors" is not an error: the first plain line is quoted instead."""
        assert informative_line("Exit code 3\nlinting 12 files\n0 errors, 2 warnings") == (
            "linting 12 files"
        )

    def test_a_structured_logs_error_line_is_the_reason(self) -> None:
        """A linter's verbose log (``golangci-lint run -v``): its level=error line among the
        info lines says why it failed."""
        log = (
            'level=info msg="golangci-lint has version 2.11.3"\n'
            'level=info msg="[lintersdb] Active 44 linters"\n'
            'level=error msg="Running error: context loading failed: no go files to analyze"\n'
            'level=info msg="Execution took 42ms"\n'
        )
        assert failure_line(log).startswith('level=error msg="Running error: context loading')

    def test_a_powershell_error_record_in_any_language_is_the_reason(self) -> None:
        """PowerShell in Chinese: a listing's header first, then the error record. Its
        message after the cmdlet's name is the reason; else its CategoryInfo, English in
        any language."""
        record = (
            "\r\nFullName        Length LastWriteTime\r\n--------        ------ ----\r\n"
            "D:\\a\\entire.log   688 2026/6/30\r\n\r\n"
            "Get-ChildItem : 对路径“D:\\a\\data”的访问被拒绝。\r\n所在位置 行:2 字符: 1\r\n"
            "+ Get-ChildItem -Recurse -Force -File .\r\n"
            "    + CategoryInfo          : PermissionDenied: (D:\\a\\data:String) "
            "[Get-ChildItem], UnauthorizedAccessException\r\n"
        )
        assert informative_line(record) == "Get-ChildItem : 对路径“D:\\a\\data”的访问被拒绝。"
        thrown = "#2 added\r\n    + CategoryInfo : OperationStopped: (x) [], RuntimeException"
        assert informative_line(thrown).startswith("+ CategoryInfo : OperationStopped")

    def test_a_framed_heading_over_an_indented_traceback_is_not_the_reason(self) -> None:
        """conda's error report: a heading framed by marks, then a traceback indented as a
        whole. The exception line, at the traceback's own indentation, says why."""
        report = (
            "\r\n# >>>>>>>>>>>>>>>>>>>>>> ERROR REPORT <<<<<<<<<<<<<<<<<<<<<<\r\n\r\n"
            "    Traceback (most recent call last):\r\n"
            '      File "D:\\conda\\cli\\main_run.py", line 141, in execute\r\n'
            '        print(response.stdout, file=sys.stdout, end="")\r\n'
            "    UnicodeEncodeError: 'gbk' codec can't encode character '\\ufffd'\r\n\r\n"
            "`$ D:\\conda\\Scripts\\conda-script.py run -n MedAI python probe.py`\r\n"
        )
        assert informative_line(report) == (
            "UnicodeEncodeError: 'gbk' codec can't encode character '\\ufffd'"
        )

    def test_a_long_run_of_marks_is_read_in_linear_time(self) -> None:
        """A line of a hundred thousand "=" before error words costs about ten times one of
        ten thousand (not a hundred): a heading is told by its ends, not searched."""

        def seconds(size: int) -> float:
            started = time.process_time()
            for _ in range(5):
                informative_line("=" * size + " error here")
            return time.process_time() - started

        small, large = seconds(10_000), seconds(100_000)
        assert large < 30 * max(small, 0.02)

    def test_a_tools_notice_is_not_the_reason(self) -> None:
        """A notice that says how to turn it off (a shell's ``cd`` hook, a package manager's
        hint) comes before the command's own words: those say why."""
        notice = (
            "Exit code 1\nzoxide: detected a possible configuration issue.\nPlease ensure that "
            "zoxide is initialized right at the end of your shell configuration file.\n\nIf "
            "the issue persists, consider filing an issue at:\nhttps://example.org/issues\n\n"
            "Disable this message by setting _ZO_DOCTOR=0.\n\n"
        )
        said = "(eval):1: no matches found: --include=*.py"
        assert informative_line(notice + said) == said
        assert failure_line(notice + said) == said
        hint = "Hide these hints with HOMEBREW_NO_ENV_HINTS=1 (see `man brew`).\n"
        assert informative_line("==> Upgrading 1 package\n" + hint + "x 1.2 is pinned") == (
            "x 1.2 is pinned"
        )

    def test_an_output_of_only_framing_is_its_first_line(self) -> None:
        """When every line is framing, the failure still says what there is."""
        assert informative_line("Exit code 1") == "Exit code 1"
        assert informative_line("   \n") == ""


class TestFailureExcerpt:
    def test_claude_code_exit_header_is_not_the_reason(self) -> None:
        """A Claude Code Bash error quotes git's fatal line, not its "Exit code 128" header."""
        memory = claude_code(
            bash_use(1, "git push 2>&1"), bash_result(1, _NO_UPSTREAM, is_error=True)
        )
        (failure,) = texts(memory.failed_attempts)
        assert "has no upstream branch" in failure
        assert "exited 128" in failure

    def test_the_only_line_exit_code_is_still_said(self) -> None:
        """An error whose only line is "Exit code 1" still says so."""
        memory = claude_code(
            bash_use(1, "make deploy"), bash_result(1, "Exit code 1", is_error=True)
        )
        assert "Exit code 1" in texts(memory.failed_attempts)[0]

    def test_a_non_zero_exit_quotes_the_informative_line(self) -> None:
        """A completed call with a non-zero exit code quotes the line that says why."""
        memory = derive(
            call("shell", {"command": ["bash", "-lc", "git commit -m 'wip'"]}, exit_code=1,
                 result="On branch main\nnothing to commit, working tree clean\n")
        )  # fmt: skip
        assert "nothing to commit, working tree clean" in texts(memory.failed_attempts)[0]

    @pytest.mark.parametrize("command", ["swift build 2>&1 | tail -20", "make deploy"])
    def test_paths_are_named_from_the_project(self, command: str) -> None:
        """A compiler names files by their absolute path: the excerpt names them from the
        project's directory, so its length goes to the error (a check's and any command's)."""
        error = (
            "Exit code 1\n/home/u/proj/Sources/App/Media/MediaOptimizer.swift:212:38: error: "
            "cannot find 'kCMVideoCodec_HEVC' in scope\n** BUILD FAILED **"
        )
        prompt = {**_BASE, "type": "user", "uuid": "u0", "timestamp": "2026-02-11T20:00:00Z",
                  "message": {"role": "user", "content": "build the app"}}  # fmt: skip
        memory = claude_code(prompt, bash_use(1, command), bash_result(1, error, is_error=True))
        failure = texts(memory.failed_attempts)[0]
        assert "“Sources/App/Media/MediaOptimizer.swift:212:38: error: cannot find " in failure
        assert "'kCMVideoCodec_HEVC' in scope" in failure
        assert "/home/u/proj" not in failure

    def test_a_call_cancelled_beside_a_failure_is_none(self) -> None:
        """Claude Code cancels the other calls of a turn when one fails ("Sibling tool call
        errored"): they never ran, so only the call that failed is a failed attempt."""
        failing = "Exit code 2\nmake: *** No rule to make target 'deploy'.  Stop."
        memory = claude_code(
            bash_use(1, "make deploy"), bash_use(2, "git status"),
            bash_result(1, failing, is_error=True),
            bash_result(2, "<tool_use_error>Sibling tool call errored</tool_use_error>",
                        is_error=True),
        )  # fmt: skip
        (failure,) = texts(memory.failed_attempts)
        assert "No rule to make target" in failure
        assert not memory.todo_items


class TestResolution:
    def test_a_differently_spelled_success_resolves_and_teaches(self) -> None:
        """``git push`` failing, then ``git push --set-upstream …`` working: a resolved lesson."""
        memory = claude_code(
            bash_use(1, "git push 2>&1"),
            bash_result(1, _NO_UPSTREAM, is_error=True),
            bash_use(2, "git push --set-upstream origin feature-x 2>&1"),
            bash_result(
                2, "branch 'feature-x' set up to track 'origin/feature-x'.", is_error=False
            ),
        )
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved"
        assert "has no upstream branch" in failure.text
        assert "then `git push --set-upstream origin feature-x 2>&1` worked" in failure.text

    def test_a_piped_success_that_says_the_error_again_settles_nothing(self) -> None:
        """``git stash`` failing, then ``git stash -u 2>&1 | head -5`` exiting 0 (the exit is
        ``head``'s) while its output says the same error: still open, until a run that
        does not say it."""

        def then_piped(output: str) -> Any:
            return claude_code(
                bash_use(1, "git stash"),
                bash_result(1, "Exit code 1\nerror: could not write index", is_error=True),
                bash_use(2, "git stash -u 2>&1 | head -5"),
                bash_result(2, output, is_error=False),
            )

        (failure,) = then_piped("error: could not write index").failed_attempts
        assert failure.status == "open"
        assert "could not write index" in failure.text
        (failure,) = then_piped("Saved working directory and index state WIP").failed_attempts
        assert failure.status == "resolved"

    def test_a_success_in_another_repository_resolves_only_its_own(self) -> None:
        """The same push failing in the project and in a checkout beside it (a Codex call's
        ``workdir``): each is resolved by the push that worked where it failed."""

        def push(call_id: str, command: str, workdir: str, **outcome: Any) -> list[Any]:
            args = {"cmd": command, "workdir": workdir}
            if outcome:
                return call("exec_command", args, "failed", call_id, exit_code=1, **outcome)
            return call("exec_command", args, call_id=call_id, result="ok", exit_code=0)

        memory = derive(
            event("message", role="user", content="push both", cwd="/w/app"),
            push("p1", "git push --force-with-lease", "/w/app", error="error: app refs"),
            push("p2", "git push --force-with-lease", "/w/action", error="error: action refs"),
            push("p3", "git push --force-with-lease=main:abc https://h/app.git", "/w/app"),
        )
        app, action = memory.failed_attempts
        assert "app refs" in app.text and app.status == "resolved"
        assert "action refs" in action.text and action.status == "open"

    def test_what_worked_instead_outlives_failures_fixed_by_edits(self) -> None:
        """A tight budget drops the failures that edits fixed before the lesson of what
        worked instead, which is kept as long as the decisions."""
        fixed = []
        for n in range(8):
            fixed += [
                *bash(f"cargo build -p crate{n}", f"error[E0599]: no method `m{n}`", f"b{n}", 101),
                *call("Edit", {"file_path": f"src/c{n}.rs", "old_string": "a", "new_string": "b"},
                      call_id=f"e{n}", result="ok"),
                *bash(f"cargo build -p crate{n}", "Finished", f"r{n}"),
            ]  # fmt: skip
        memory = derive(
            call("Bash", {"command": "git push"}, "failed", "c1", error=_NO_UPSTREAM),
            call("Bash", {"command": "git push --set-upstream origin x"}, call_id="c2",
                 result="ok"),
            *fixed, budget=300,
        )  # fmt: skip
        shown = texts(memory.failed_attempts)
        assert any("has no upstream branch" in t for t in shown)
        assert memory.omitted["failed_attempts"] > 0

    def test_a_success_in_a_compound_line_resolves(self) -> None:
        """``bd sync && git push`` working resolves an earlier ``git push`` failure."""
        memory = derive(
            call("Bash", {"command": "git push"}, "failed", "c1", error=_NO_UPSTREAM),
            call("Bash", {"command": "cd /repo && bd sync && git push 2>&1"}, call_id="c2",
                 result="ok"),
        )  # fmt: skip
        assert [i.status for i in memory.failed_attempts] == ["resolved"]

    def test_a_line_that_did_not_run_what_failed_does_not_resolve_it(self) -> None:
        """``cat log | python3 -c …`` failed in python3: ``cat log | grep x`` reads the same
        file but never ran what failed, so it settles nothing (nor ``ls build | head`` what
        ``ls build | xargs rm`` failed at); the same line working again does."""
        parse = 'cat /tmp/run.log | python3 -c "import json,sys; json.load(sys.stdin)"'
        failed = bash(parse, "json.decoder.JSONDecodeError: Expecting value", "c1", exit_code=1)
        memory = derive(failed, bash('cat /tmp/run.log | grep -A20 "Check formatting"', "ok", "c2"))
        assert [i.status for i in memory.failed_attempts] == ["open"]
        assert derive(failed, bash(parse, "", "c2")).failed_attempts == ()  # again: a flake
        listed = bash("ls build | xargs rm", "rm: build/a: Permission denied", "c1", exit_code=1)
        memory = derive(listed, bash("ls build | head -3", "a", "c2"))
        assert [i.status for i in memory.failed_attempts] == ["open"]

    def test_a_success_on_another_target_does_not_resolve(self) -> None:
        """An edit of another file, or ``git add`` of other paths, leaves the failure open."""
        memory = derive(
            call("Edit", {"file_path": "a.py"}, "failed", "c1", error="old_string not found"),
            call("Edit", {"file_path": "b.py"}, call_id="c2", result="ok"),
            call("Bash", {"command": "git add priv/static"}, "failed", "c3",
                 error="The following paths are ignored by one of your .gitignore files:"),
            call("Bash", {"command": "git add lib/app.ex"}, call_id="c4", result=""),
        )  # fmt: skip
        assert [i.status for i in memory.failed_attempts] == ["open", "open"]

    @pytest.mark.parametrize(
        ("failed", "error", "worked"),
        [("git-ai prompts --since 1d",
          "Error parsing --since: Invalid --since value: '1d'. Expected number of days",
          "git-ai prompts --since 1"),
         ("entire status --no-pager", "Error: Invalid usage: unknown flag: --no-pager",
          "entire status"),
         ("gh run view 218 --json title,pullRequests --jq '{title}'",
          'Unknown JSON field: "pullRequests"\nAvailable fields:\n  attempt',
          "gh run view 218 --json title,headBranch --jq '.'"),
         ("./scripts/land.ps1 -TaskId ab8 -Subject 'x'",
          "land.ps1: A parameter cannot be found that matches parameter name 'Subject'.",
          "./scripts/land.ps1 -TaskId ab8 -Transcript t.txt")],
    )  # fmt: skip
    def test_a_command_called_as_it_takes_settles_its_usage_slip(
        self, failed: str, error: str, worked: str
    ) -> None:
        """An error that refuses an argument ("Invalid --since value: '1d'", "unknown flag:
        --no-pager") is settled by the same command with that argument changed or gone, one
        refused for how it was called ("Unknown JSON field") by the same command asked
        otherwise: a slip in calling it, nothing learned, nothing left; an error that refuses
        nothing is not settled so (``git add b.py`` after ``git add a.py``)."""
        memory = derive(bash(failed, error, "c1", exit_code=1), bash(worked, "3 prompts", "c2"))
        assert memory.failed_attempts == ()
        missing = "fatal: could not open 'a.py' for reading: Permission denied"
        memory = derive(bash("git add a.py", missing, "c1", exit_code=128),
                        bash("git add b.py", "", "c2"))  # fmt: skip
        assert [f.status for f in memory.failed_attempts] == ["open"]

    def test_a_success_that_found_the_work_done_is_not_what_worked_instead(self) -> None:
        """``gh pr merge 22 --squash --delete-branch`` refused (not mergeable), conflicts
        resolved and pushed, then ``gh pr merge 22 --squash --delete-branch=false`` says the
        pull request "was already merged": resolved, but that call did nothing, and no line
        names it as what worked."""
        memory = derive(
            bash("gh pr merge 22 --squash --delete-branch", "X Pull request o/r#22 is not "
                 "mergeable: the merge commit cannot be cleanly created.", "c1", exit_code=1),
            bash("gh pr merge 22 --squash --delete-branch=false",
                 "! Pull request o/r#22 was already merged", "c2"),
        )  # fmt: skip
        [failure] = memory.failed_attempts
        assert failure.status == "resolved" and "worked" not in failure.text

    def test_a_tool_called_as_its_schema_takes_settles_the_refusal(self) -> None:
        """A tool's input refused by its schema ("Invalid input: expected number, received
        string", an MCP server's; Claude Code's InputValidationError), then the tool called
        with input it takes: a slip in calling it, nothing learned, nothing left."""
        refused = '[{"code": "invalid_type", "message": "Invalid input: expected number"}]'
        name = "mcp__playwright__browser_resize"
        memory = derive(
            call(name, {"width": "390", "height": "844"}, "failed", "c1", error=refused),
            call(name, {"width": 390, "height": 844}, call_id="c2", result="Resized"),
        )  # fmt: skip
        assert memory.failed_attempts == ()
        memory = derive(call(name, {"width": "390"}, "failed", "c1", error=refused))
        assert [f.status for f in memory.failed_attempts] == ["open"]

    def test_a_value_refused_from_a_list_is_left_out_by_the_success(self) -> None:
        """``gh issue create --label security,p0`` refused ("could not add label: 'security'
        not found"), then the same issue created without the labels: resolved. Only the
        error's words say what was refused: an edit of another file does not resolve an edit
        whose text was not found in its own."""
        body = "--title 'CORS wildcard' --body 'fix it'"
        memory = derive(
            bash(f"gh issue create {body} --label security,p0", "could not add label: "
                 "'security' not found", "c1", exit_code=1),
            bash(f"gh issue create {body}", "https://github.com/o/r/issues/59", "c2"),
        )  # fmt: skip
        assert [f.status for f in memory.failed_attempts] == ["resolved"]
        memory = derive(
            call("Edit", {"file_path": "a.py"}, "failed", "c1", error="old_string not found"),
            call("Edit", {"file_path": "b.py"}, call_id="c2", result="ok"),
        )
        assert [f.status for f in memory.failed_attempts] == ["open"]

    def test_a_usage_slip_is_settled_whatever_changed_since(self) -> None:
        """A test run whose own arguments were refused ("unexpected argument
        'rustup_component' found": cargo test takes one filter) ran no test: files edited
        before the run that works did not fix it, and nothing is learned."""
        slip = "error: unexpected argument 'rustup_component' found"
        memory = derive(
            bash("cargo test rust_options rustup_component", slip, "c1", exit_code=1),
            call("Edit", {"file_path": "src/rust.rs"}, call_id="e1", result="ok"),
            bash("cargo test", "test result: ok. 3 passed; 0 failed", "c2"),
        )
        assert memory.failed_attempts == ()

    def test_a_tool_called_by_a_name_it_knows_settles_the_unknown_one(self) -> None:
        """A skill asked for by a name the client does not know ("Unknown skill: commit"),
        then by its full name, worked: a slip, nothing left."""
        unknown = "<tool_use_error>Unknown skill: commit</tool_use_error>"
        memory = derive(
            call("Skill", {"skill": "commit"}, "failed", "s1", error=unknown),
            call("Skill", {"skill": "commit-commands:commit"}, call_id="s2", result="Launching"),
        )
        assert memory.failed_attempts == ()

    def test_the_same_call_succeeding_resolves_without_a_lesson(self) -> None:
        """The same tool on the same file working later resolves the failure and adds nothing
        to it (an edit's key argument is not the whole call: the failure stays as a lesson)."""
        memory = derive(
            call("Edit", {"file_path": "a.py", "old_string": "f("}, "failed", "c1",
                 error="old_string not found"),
            call("Edit", {"file_path": "a.py", "old_string": "f(x"}, call_id="c2", result="ok"),
        )  # fmt: skip
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved"
        assert "worked" not in failure.text

    def test_the_same_edit_working_when_sent_again_leaves_nothing(self) -> None:
        """An edit a hook stopped once ("PreToolUse:Edit hook error: … You are editing a
        GitHub Actions workflow"), sent again as it was and working, taught nothing; an edit
        that worked only once changed (``old_string`` fixed) stays, resolved."""
        args = {"file_path": ".github/workflows/ci.yml", "old_string": "a", "new_string": "b"}
        hook = "PreToolUse:Edit hook error: [security_reminder_hook.py]: You are editing a workflow"
        memory = derive(
            call("Edit", args, "failed", "c1", error=hook),
            call("Edit", args, call_id="c2", result="ok"),
        )
        assert memory.failed_attempts == ()
        fixed = {**args, "old_string": "a "}
        memory = derive(
            call("Edit", args, "failed", "c1", error="String to replace not found in file."),
            call("Edit", fixed, call_id="c2", result="ok"),
        )
        assert [f.status for f in memory.failed_attempts] == ["resolved"]

    def test_a_command_line_working_as_it_failed_leaves_nothing(self) -> None:
        """The same command line working when run again taught nothing: the failure goes."""
        memory = derive(
            call("Bash", {"command": "docker compose up -d"}, "failed", "c1",
                 error="Cannot connect to the Docker daemon"),
            call("Bash", {"command": "docker compose up -d"}, call_id="c2", result="Started"),
        )  # fmt: skip
        assert memory.failed_attempts == ()

    @pytest.mark.parametrize(
        ("failed", "error", "worked"),
        [("cd web && npm install", "(eval):cd:1: no such file or directory: web", "npm install"),
         ("python scripts/build_data.py",
          "python: can't open file '/p/web/scripts/build_data.py': [Errno 2] No such file",
          "cd /p && python scripts/build_data.py")],
    )  # fmt: skip
    def test_a_command_line_that_needed_another_directory_leaves_nothing(
        self, failed: str, error: str, worked: str
    ) -> None:
        """``cd web && npm install`` failing because the shell was in ``web`` already, then
        ``npm install`` working (or the other way round): run from where it belonged, it
        taught nothing."""
        memory = derive(
            call("Bash", {"command": failed}, "failed", "c1", error=error, exit_code=1),
            call("Bash", {"command": worked}, call_id="c2", result="done"),
        )
        assert memory.failed_attempts == ()

    def test_a_success_of_part_of_a_command_line_does_not_resolve(self) -> None:
        """``make build && make deploy`` failing is not settled by ``cd x && make build``."""
        memory = derive(
            call("Bash", {"command": "make build && make deploy"}, "failed", "c1",
                 error="deploy: permission denied"),
            call("Bash", {"command": "cd /repo && make build"}, call_id="c2", result="ok"),
        )  # fmt: skip
        assert [i.status for i in memory.failed_attempts] == ["open"]

    def test_staging_files_does_not_resolve_a_commit(self) -> None:
        """``git add`` working says nothing of the ``git commit`` that failed with it."""
        memory = derive(
            call("Bash", {"command": "git add -A && git commit -m 'wip'"}, "failed", "c1",
                 error="pre-commit hook failed"),
            call("Bash", {"command": "git add -A"}, call_id="c2", result=""),
        )  # fmt: skip
        assert [i.status for i in memory.failed_attempts] == ["open"]

    def test_asking_a_command_for_its_help_does_not_resolve_its_run(self) -> None:
        """``migrate.py --help`` prints how to run it and runs nothing: the failed run
        stays open."""
        memory = derive(
            call("Bash", {"command": "python scripts/migrate.py"}, "failed", "c1",
                 error="KeyError: 'DATABASE_URL'"),
            call("Bash", {"command": "python scripts/migrate.py --help"}, call_id="c2",
                 result="usage: migrate.py [-h] [--dry-run]"),
            call("Bash", {"command": "deploy -h"}, call_id="c3", result="usage: deploy"),
        )  # fmt: skip
        assert [i.status for i in memory.failed_attempts] == ["open"]

    def test_a_whole_suite_settles_one_file_but_not_the_reverse(self) -> None:
        """A whole suite passing settles a failing file; one file passing does not settle all."""
        one_file = actions_of("Bash", "mix test test/a_test.exs 2>&1", "mix test")[0]
        whole = actions_of("Bash", "mix test 2>&1 | tail -5", "mix test")[0]
        assert resolves(whole, one_file, check=True)
        assert not resolves(one_file, whole, check=True)

    def test_actions_are_program_subcommand_and_targets(self) -> None:
        """Wrappers, redirections, messages, pipe filters and ``cd`` are not part of an action."""
        assert actions_of("Bash", "cd /x && timeout 60 git push -u origin main 2>&1 | tail -3") == (
            Action("$ git push", frozenset({"origin", "main"})),
        )
        assert actions_of("Bash", "git commit -m 'fix the bug'") == (
            Action("$ git commit", frozenset()),
        )
        assert actions_of("Edit", "a.py") == (Action("Edit", frozenset({"a.py"})),)


class TestCausesFixed:
    """A check that fails again, its whole output seen, says which earlier causes remain."""

    LINT_1 = (
        "/p/src/tree-node.tsx\n  29:1  error  `./add-node-dialog` import should occur before "
        "type import of `@/lib/types`  import/order\n/p/src/parsers.test.ts\n  2:30  error  "
        "Prefer `node:fs` over `fs`  node/prefer-node-protocol\n\n\u2716 2 problems (2 errors, "
        "0 warnings)\n"
    )
    LINT_2 = (
        "/p/src/parsers.test.ts\n  2:30  error  Prefer `node:fs` over `fs`  "
        "node/prefer-node-protocol\n\n\u2716 1 problem (1 error, 0 warnings)\n"
    )

    def lint(self, command: str, output: str, call_id: str) -> list[dict[str, Any]]:
        return call("Bash", {"command": command}, "failed", call_id, error=output, exit_code=1)

    def test_a_finding_the_next_run_no_longer_lists_was_fixed(self) -> None:
        """The import order fixed while another error remains: a linter's finding fixed is in
        the code, so its failed attempt goes; the error still listed stays open."""
        memory = derive(
            user("add the context menu"),
            *self.lint("bun run lint", self.LINT_1, "l1"),
            call("Edit", {"file_path": "src/tree-node.tsx"}, call_id="e1"),
            *self.lint("bun run lint", self.LINT_2, "l2"),
        )
        shown = texts(memory.failed_attempts)
        assert not any("import/order" in line or "add-node-dialog" in line for line in shown)
        assert any("node:fs" in line for line in shown)
        assert any(i.status == "failed" for i in memory.verification_status)

    def test_a_name_the_compiler_found_unused_fixed_leaves_nothing(self) -> None:
        """``tsc`` failing on a name declared and never read (TS6133), then passing: a
        linter's finding in all but the tool that reported it, so nothing is left; an error
        of what the code does (a missing export) stays, resolved."""
        unused = "src/Tabs.tsx(24,40): error TS6133: 'onCollapse' is declared but its value is "
        unused += "never read.\n"
        missing = "src/Footer.tsx(1,10): error TS2305: Module 'lucide-react' has no exported "
        missing += "member 'Github'.\n"
        for output, kept in ((unused, 0), (missing, 1)):
            memory = derive(
                user("build the dashboard"),
                call("Bash", {"command": "npm run build"}, "failed", "b1", error=output,
                     exit_code=2),
                call("Edit", {"file_path": "src/Tabs.tsx"}, call_id="e1"),
                call("Bash", {"command": "npm run build"}, call_id="b2",
                     result="vite v5.4.21 building for production...\n✓ built in 1.2s",
                     exit_code=0),
            )  # fmt: skip
            assert [f.status for f in memory.failed_attempts] == ["resolved"] * kept

    def test_a_test_failing_otherwise_resolves_its_earlier_cause(self) -> None:
        """A test run whose next failure says something else: the earlier cause was fixed on
        the way, a resolved lesson; the new one is open."""
        first = "E       KeyError: 'full_name'\n1 failed, 3 passed in 0.2s\n"
        second = "E       AssertionError: assert 500 == 404\n1 failed, 3 passed in 0.2s\n"
        memory = derive(
            user("fix the cli"),
            *self.lint("pytest -q tests/test_cli.py", first, "t1"),
            *self.lint("pytest -q tests/test_cli.py", second, "t2"),
        )
        statuses = [(f.text.split("\u201c", 1)[1], f.status) for f in memory.failed_attempts]
        assert statuses == [
            ("KeyError: 'full_name'\u201d", "resolved"),
            ("AssertionError: assert 500 == 404\u201d", "open"),
        ]

    def test_a_window_of_the_output_says_nothing_of_what_it_does_not_show(self) -> None:
        """``| tail -3`` shows the end of the run: an earlier cause not in it may remain. A
        window larger than the output (``| tail -20`` of five lines) shows all of it."""
        for window, shown in (("tail -3", True), ("tail -20", False), ("head -n 20", False)):
            memory = derive(
                user("add the context menu"),
                *self.lint(f"bun run lint 2>&1 | {window}", self.LINT_1, "l1"),
                *self.lint(f"bun run lint 2>&1 | {window}", self.LINT_2, "l2"),
            )
            lines = texts(memory.failed_attempts)
            assert any("import/order" in line for line in lines) is shown, window

    def test_an_output_that_says_it_was_cut_says_nothing_of_what_it_left_out(self) -> None:
        """A client or a runner that cut the middle of an output says so ("[3515 characters
        truncated]"): an earlier cause may be in what it left out."""
        cut = self.LINT_2.replace("\n\n", "\n\n... [3515 characters truncated] ...\n\n", 1)
        memory = derive(
            user("add the context menu"),
            *self.lint("bun run lint", self.LINT_1, "l1"),
            *self.lint("bun run lint", cut, "l2"),
        )
        assert any("import/order" in line for line in texts(memory.failed_attempts))


class TestNoMatch:
    def test_a_search_matching_nothing_is_not_a_failure(self) -> None:
        """``rg``/``grep`` exiting 1 with no output found no match: no failed attempt, and no
        work done either."""
        memory = claude_code(
            bash_use(1, 'rg "PATCH" lib/ 2>/dev/null'),
            bash_result(1, "Exit code 1", is_error=True),
            bash_use(2, "cd /repo && grep -rn TODO src"),
            bash_result(2, "Exit code 1", is_error=True),
        )
        assert memory.failed_attempts == ()
        assert memory.completed_work == ()

    def test_a_look_whose_program_is_missing_is_a_failure(self) -> None:
        """``gh repo list`` exiting 127, ``gh: command not found``: the look found nothing
        because the machine lacks the program, which the next agent must know; a look that
        found nothing to see (``gh pr view`` of a pull request not there) is dropped."""
        memory = derive(
            bash("gh repo list acme --limit 10", "(eval):1: command not found: gh", "c1",
                 exit_code=127),
            bash("gh pr view 9 --json state", "no pull requests found for branch", "c2",
                 exit_code=1),
        )  # fmt: skip
        (failure,) = texts(memory.failed_attempts)
        assert "command not found: gh" in failure
        # A search tool that could not start its own program is broken, whatever it sought.
        spawn = "ENOENT: no such file or directory, posix_spawn '/opt/claude-code/2.1.39/claude'"
        memory = derive(call("Grep", {"pattern": "Opus"}, "failed", error=spawn))
        (failure,) = texts(memory.failed_attempts)
        assert "posix_spawn" in failure

    def test_a_read_of_a_missing_file_is_dropped(self) -> None:
        """``cat``/``ls``/``sed -n`` of a missing file, or a Read tool that found no file,
        only looked: neither a failed attempt nor completed work."""
        memory = claude_code(
            bash_use(1, "cat config/missing.yml"),
            bash_result(
                1, "Exit code 1\ncat: config/missing.yml: No such file or directory", is_error=True
            ),
            bash_use(2, "ls docs/plans"),
            bash_result(2, "Exit code 2\nls: docs/plans: No such file or directory", is_error=True),
        )
        assert memory.failed_attempts == ()
        assert memory.completed_work == ()
        read = derive(call("Read", {"file_path": "x.py"}, "failed", error="File does not exist."))
        assert read.failed_attempts == ()
        assert read.completed_work == ()
        # A directory where the file was looked for: nothing read there either.
        eisdir = "EISDIR: illegal operation on a directory, read '/p/scripts/os/wsl'"
        read = derive(call("Read", {"file_path": "/p/scripts/os/wsl"}, "failed", error=eisdir))
        assert read.failed_attempts == ()

    def test_a_probe_that_finds_nothing_running_is_dropped(self) -> None:
        """``lsof`` of a port nobody listens on, ``pgrep`` or ``command -v`` of what is not
        there exit 1: they only asked, and nothing is the answer."""
        memory = claude_code(
            bash_use(1, "lsof -nP -iTCP:5173 -sTCP:LISTEN"),
            bash_result(1, "Exit code 1", is_error=True),
            bash_use(2, "command -v agent-browser"),
            bash_result(2, "Exit code 1", is_error=True),
            bash_use(3, "ps -o pid,command | rg 'vite|node'"),
            bash_result(3, "Exit code 1", is_error=True),
        )
        assert memory.failed_attempts == ()
        assert memory.completed_work == ()

    def test_a_malformed_call_is_no_attempt(self) -> None:
        """A model's malformed call names no tool (``Task" >`` and a parameter tag run into
        the name): the client ran nothing ("No such tool available"), and the call made
        right next worked: no failed attempt."""
        name = 'Task" >\n<parameter name="description'
        memory = derive(
            call(name, {"prompt": "find the phase files"}, "failed",
                 error=f"Error: No such tool available: {name}"),
            call("Task", {"prompt": "find the phase files"}, call_id="c2", result="found"),
        )  # fmt: skip
        assert memory.failed_attempts == ()

    def test_a_read_refused_for_its_size_is_a_failure(self) -> None:
        """A read tool that found the file but would not read it all failed: the lesson is
        how to read it."""
        too_big = "File content (85812 tokens) exceeds maximum allowed tokens"
        memory = derive(call("Read", {"file_path": "big.jsonl"}, "failed", error=too_big))
        assert [i.status for i in memory.failed_attempts] == ["open"]

    def test_a_codex_search_with_exit_1_and_no_output_is_not_a_failure(self) -> None:
        """A shell ``rg`` reported with exit code 1 and an empty output found no match."""
        memory = derive(call("shell", {"command": ["bash", "-lc", "rg PATCH src"]}, exit_code=1,
                             result=""))  # fmt: skip
        assert memory.failed_attempts == ()

    def test_a_search_error_is_still_a_failure(self) -> None:
        """A search that printed an error (or exited 2) failed."""
        assert not is_no_match("rg foo missing/", 2, "")
        assert not is_no_match("rg foo missing/", 1, "rg: missing/: No such file or directory")
        assert not is_no_match("rg foo && make", 1, "")
        assert is_no_match("git grep -n foo", 1, "Exit code 1\n")

    def test_a_pipeline_whose_last_filter_matched_nothing_is_not_a_failure(self) -> None:
        """A pipeline exits as its last command: ``… | rg x`` exiting 1 with nothing said is
        the filter finding no line, whatever ran before it (the records the agent hoped to
        see gone); one that said why it failed is a failure."""
        said_nothing = {"status": "failed", "exit_code": 1, "output": "", "error": ""}
        args = {"cmd": "./graph snapshot --format ndjson | rg -m 1 name_only"}
        memory = derive(
            *call("exec_command", args)[:2],
            tool_event("failed", "exec_command", outcome=said_nothing),
            call("exec_command", {"cmd": "./graph snapshot --head | rg -m 1 name_only"},
                 "failed", "c2", exit_code=1, error="snapshot: unexpected arguments: --head"),
        )  # fmt: skip
        (failure,) = texts(memory.failed_attempts)
        assert "unexpected arguments: --head" in failure
        assert is_no_match("make build 2>&1 | grep -i error", 1, "Exit code 1")


def test_an_unfinished_read_only_shell_command_is_safe_to_replay() -> None:
    """A ``cat`` started and never finished may be run again; a ``rm`` may not."""
    memory = derive(
        call("Bash", {"command": "cat README.md"}, call_id="c1")[:2],
        call("Bash", {"command": "rm -rf build"}, call_id="c2")[:2],
    )
    replay = {i.text: i.safe_to_replay for i in memory.todo_items if i.status == "uncertain"}
    assert replay == {"Bash `cat README.md`": True, "Bash `rm -rf build`": False}


@pytest.mark.parametrize(
    ("command", "reads"),
    [("git remote -v", True), ("git remote show origin", True), ("git remote add o u", False),
     ("git branch --show-current", True), ("git branch -a", True), ("git branch new-x", False),
     ("git branch -D old", False)],
)  # fmt: skip
def test_git_remote_and_branch_only_read_when_they_list(command: str, reads: bool) -> None:
    """``git remote`` and ``git branch`` list, unless they add, set, make or delete."""
    assert is_read_only_command(command) is reads


_MISMATCH = 'Exit code 1\n# internal/godebugs\ncompile: version "go1.24.13" does not match go tool version "go1.26.1"\n'  # noqa: E501


class TestTheAgentsReading:
    """What the agent says right after a failure is its reading of it, kept with it."""

    def test_the_first_words_after_a_failure_are_kept_with_it(self) -> None:
        """A diagnosis the agent states before acting again is the lesson of the failure;
        the rerun through the project's pinned toolchain is the same check and resolves it."""
        memory = derive(
            bash("go test ./internal/sem", _MISMATCH, "c1", exit_code=1),
            bash("go version", "go version go1.26.1 darwin/arm64", "c2"),
            assistant("The run hit a host toolchain mismatch (plain go is 1.26.1, the repo "
                      "pins 1.24.13 through mise), so no test executed. Rerunning through mise."),
            bash("mise exec -- go test ./internal/sem", "ok  \tx/internal/sem\t0.8s", "c3"),
        )  # fmt: skip
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved"
        assert "the agent: \u201cThe run hit a host toolchain mismatch" in failure.text

    def test_a_reading_keeps_the_cause_its_first_sentence_ends_with(self) -> None:
        """The cause often ends the agent's first sentence, past its first 120 characters
        ("… this repo's test ctor mutates a shared test HOME"): the reading keeps 160."""
        said = (
            "The second test abort came from running two Cargo test binaries at once: this "
            "repo's test ctor mutates a shared test HOME, so the parallel runs raced."
        )
        memory = derive(bash("cargo test a & cargo test b", "SIGABRT", "c1", exit_code=101),
                        assistant(said))  # fmt: skip
        assert "shared test HOME" in memory.failed_attempts[0].text

    def test_an_announcement_of_the_next_step_is_no_reading(self) -> None:
        """ "Let me look at the file." says nothing of what went wrong."""
        memory = derive(
            bash("make deploy", "Exit code 2\nmissing target", "c1", exit_code=2),
            assistant("Let me look at the Makefile."),
        )
        assert "the agent" not in memory.failed_attempts[0].text

    def test_words_after_the_agent_acted_again_are_not_the_failures(self) -> None:
        """Once another call changed something, what the agent says is about that."""
        memory = derive(
            bash("make deploy", "Exit code 2\nmissing target", "c1", exit_code=2),
            call("Edit", {"file_path": "Makefile", "old_string": "a", "new_string": "b"},
                 call_id="c2", result="ok"),
            assistant("The deploy target now builds the image first."),
        )  # fmt: skip
        assert "the agent" not in memory.failed_attempts[0].text

    @pytest.mark.parametrize(("looks", "read"), [(20, False), (2, True)])
    def test_words_after_a_long_look_around_are_of_what_it_read(
        self, looks: int, read: bool
    ) -> None:
        """The agent's first words after a failure and many reads since ("Now I understand
        the full picture. There's already a rewriter…") are of what it read, not the
        failure's reading; after a read or two they are."""
        failed = bash("cd apps/api && python3 check.py", "zoxide: you are already in the "
                      "only match", "c1", exit_code=1)  # fmt: skip
        reads = [call("Read", {"file_path": f"src/m{n}.py"}, call_id=f"r{n}", result="x")
                 for n in range(looks)]  # fmt: skip
        said = assistant("The cd is zoxide's, which fails inside the workspace: absolute paths.")
        memory = derive(failed, *reads, said)
        assert ("the agent: \u201cThe cd is zoxide's" in memory.failed_attempts[0].text) is read

    def test_a_failure_the_agent_expected_is_no_failed_attempt(self) -> None:
        """Test-first: the check written to fail, failing "for the expected reason", is the
        red step of the work."""
        memory = derive(
            bash("node check.js", "Error: missing Mermaid guidance", "c1", exit_code=1),
            assistant("The red step failed for the expected reason: the skill lacks Mermaid."),
        )
        assert memory.failed_attempts == ()

    def test_the_agents_words_on_a_check_that_passed_are_kept_with_it(self) -> None:
        """ "All 527 tests pass, coverage thresholds met." is the agent's reading of the run:
        its first sentence, kept with the check's line."""
        memory = derive(
            bash("npx jest --coverage", "Tests:       527 passed, 527 total", "c1"),
            assistant("All 527 tests pass, coverage thresholds met. Let me commit and push."),
        )
        (check,) = memory.verification_status
        assert check.text.endswith("; the agent: “All 527 tests pass, coverage thresholds met.”")

    def test_the_agents_words_after_calls_asked_together_are_of_them_all(self) -> None:
        """Calls asked for together finish together: the agent's words after them are of
        them all, kept with the last that failed ("One test command had two filters" with
        the cargo test refused, not with git diff --check), else with none (two that passed:
        "87 tests pass" is no reading of the linter's run)."""
        slip = bash("cargo test -p core a:: b::", "error: unexpected argument 'b::' found",
                    "c1", exit_code=1)  # fmt: skip
        lint = bash("mix credo", "42 mods/funs, found no issues.", "c2")
        tests = bash("mix test", "Finished in 0.1 seconds\n87 tests, 0 failures", "c3")
        diff = bash("git diff --check", "", "c4")
        said = assistant("One test command had two filters, which Cargo doesn't accept.")
        memory = derive(*slip[:2], *diff[:2], slip[2], diff[2], said)
        assert [f.text.endswith("Cargo doesn't accept.”") for f in memory.failed_attempts] == [True]
        assert not any("the agent" in t for t in texts(memory.verification_status))
        memory = derive(*tests[:2], *lint[:2], tests[2], lint[2], assistant("87 tests pass."))
        assert not any("the agent" in t for t in texts(memory.verification_status))
        memory = derive(*tests, *lint, assistant("All checks pass, no issues found."))
        assert texts(memory.verification_status)[-1].endswith("“All checks pass, no issues found.”")

    def test_the_agents_words_on_a_check_whose_output_did_not_tell_are_kept_with_it(
        self,
    ) -> None:
        """A check whose output says neither way (no exit code, no summary) is shown with
        the agent's reading of it: what the memory cannot tell, the agent may have seen."""
        memory = derive(
            call(
                "Bash",
                {"command": "mise run check"},
                call_id="c1",
                result="[fmt] $ gofmt -s -w .\n[vet] $ go vet ./...\n",
            ),
            assistant("All verification gates are green. Committing next."),
        )
        (check,) = memory.verification_status
        assert (check.status, check.text) == (
            "warning",
            "`mise run check` (outcome unknown); the agent: “All verification gates are green.”",
        )

    @pytest.mark.parametrize(
        "said", ["Now verify lint passes cleanly.", "The config looks fine.", "Let me commit."]
    )
    def test_words_after_a_pass_that_report_nothing_are_not_kept(self, said: str) -> None:
        """What comes next, or words about something else, are no reading of the pass."""
        memory = derive(bash("npx jest", "Tests:       5 passed, 5 total", "c1"), assistant(said))
        assert "the agent" not in memory.verification_status[0].text


class TestRerunAfterAChange:
    def test_a_command_that_works_after_an_edit_was_fixed(self) -> None:
        """A build that failed, then worked as typed after an edit, was fixed by the edit:
        its error stays as a resolved lesson."""
        memory = derive(
            bash("cargo run --bin tool", "error[E0599]: no method named `get_number`", "c1",
                 exit_code=101),
            call("Edit", {"file_path": "src/tool.rs", "old_string": "a", "new_string": "b"},
                 call_id="c2", result="ok"),
            bash("cargo run --bin tool", "done", "c3"),
        )  # fmt: skip
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved"
        assert "get_number" in failure.text

    def test_what_worked_is_named_only_when_it_shows_differently(self) -> None:
        """Two long command lines that differ past what a line shows: "then … worked" would
        repeat the failed one's text."""
        head = "python - <<'PY'\nimport json\nfrom pathlib import Path\ndata = json.loads("
        memory = derive(
            bash(head + "Path('a.json').read_text())\nPY", "ValueError", "c1", exit_code=1),
            call("Edit", {"file_path": "a.json", "old_string": "a", "new_string": "b"},
                 call_id="c2", result="ok"),
            bash(head + "Path('a.json').read_text()) or {}\nPY", "ok", "c3"),
        )  # fmt: skip
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved" and "worked" not in failure.text

    def test_a_linters_finding_fixed_leaves_no_lesson(self) -> None:
        """A linter's finding, fixed and the linter passing (or a project's lint task),
        is in the code now: the failure goes. A test's failure says how the code behaved
        and stays, resolved."""
        edit = call("Edit", {"file_path": "a.go", "old_string": "a", "new_string": "b"},
                    call_id="e1", result="ok")  # fmt: skip
        finding = "internal/a.go:665:3: SA9003: empty branch (staticcheck)"
        for lint in ("golangci-lint run ./...", "mise run lint"):
            memory = derive(
                bash(lint, finding, "c1", exit_code=1), edit, bash(lint, "0 issues.", "c2")
            )
            assert memory.failed_attempts == (), lint
        memory = derive(
            bash("go test ./...", "--- FAIL: TestSync (0.01s)\nFAIL", "c1", exit_code=1),
            edit,
            bash("go test ./...", "ok  \tx/internal\t0.1s", "c2"),
        )
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved" and "TestSync" in failure.text

    @pytest.mark.parametrize(
        "missing", ["make: ruff: No such file or directory", "make: ruff: Command not found"]
    )
    def test_a_lint_task_whose_linter_was_not_there_teaches(self, missing: str) -> None:
        """A lint task that failed because its linter was not on the machine (make's words:
        "make: ruff: No such file or directory"), then passed once the Makefile ran it
        otherwise (uv run ruff), found nothing in the code: what the machine lacks stays,
        resolved, as a lesson."""
        edit = call("Edit", {"file_path": "Makefile", "old_string": "\truff", "new_string":
                    "\tuv run ruff"}, call_id="e1", result="ok")  # fmt: skip
        failed = f"ruff check wfc/\n{missing}\nmake: *** [lint] Error 1"
        memory = derive(
            bash("make lint", failed, "c1", exit_code=2),
            edit,
            bash("make lint", "uv run ruff check wfc/\nAll checks passed!", "c2"),
        )
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved" and missing in failure.text

    def test_a_linter_that_crashed_teaches(self) -> None:
        """A linter that failed with its own exception (ESLint 10 under a config made for 9:
        "TypeError: scopeManager.addGlobals is not a function"), then passed once the
        version was changed, found nothing in the code: the crash stays, resolved, a
        lesson about the toolchain."""
        crash = (
            "> site@1.0 lint\n> eslint .\n\nOops! Something went wrong! :(\n\nESLint: 10.0.0\n\n"
            "TypeError: scopeManager.addGlobals is not a function\n"
            "    at addDeclaredGlobals (node_modules/eslint/lib/source-code.js:221:15)"
        )
        edit = call("Edit", {"file_path": "package.json", "old_string": '"eslint": "^10',
                    "new_string": '"eslint": "^9'}, call_id="e1", result="ok")  # fmt: skip
        memory = derive(
            bash("npm run lint", crash, "c1", exit_code=2),
            edit,
            bash("npm run lint", "> site@1.0 lint\n> eslint .", "c2"),
        )
        (failure,) = memory.failed_attempts
        assert failure.status == "resolved" and "scopeManager.addGlobals" in failure.text

    def test_a_command_that_works_again_with_nothing_changed_was_a_flake(self) -> None:
        """The same command line working again with no change in between taught nothing."""
        memory = derive(
            bash(
                "curl -fsS localhost:8080/health", "curl: (7) Failed to connect", "c1", exit_code=7
            ),
            bash("curl -fsS localhost:8080/health", "ok", "c2"),
        )
        assert memory.failed_attempts == ()


_CONFLICT = (
    "Auto-merging src/app.go\nCONFLICT (content): Merge conflict in src/app.go\n"
    "Automatic merge failed; fix conflicts and then commit the result."
)


class TestMergeConflicts:
    def test_the_commit_that_resolves_the_conflicts_finishes_the_merge(self) -> None:
        """A merge that stopped on conflicts is finished by the commit after the session
        resolved them: nothing open, nothing learned."""
        memory = derive(
            bash("git merge main", _CONFLICT, "c1", exit_code=1),
            call("Edit", {"file_path": "src/app.go", "old_string": "<<<", "new_string": "x"},
                 call_id="c2", result="ok"),
            bash("git add src/app.go && git commit --no-edit", "[fix 1a2b3c4] Merge main", "c3"),
        )  # fmt: skip
        assert memory.failed_attempts == ()

    def test_an_unfinished_merge_stays_open(self) -> None:
        """Until a commit or ``--continue`` finishes it, the merge is still stopped."""
        memory = derive(
            bash("git rebase main", _CONFLICT, "c1", exit_code=1),
            bash("git status", "rebase in progress", "c2"),
        )
        assert [i.status for i in memory.failed_attempts] == ["open"]
        finished = derive(
            bash("git rebase main", _CONFLICT, "c3", exit_code=1),
            bash("git rebase --continue", "Successfully rebased", "c4"),
        )
        assert finished.failed_attempts == ()

    def test_a_rebase_that_could_not_apply_a_commit_stopped_on_its_conflicts(self) -> None:
        """git's rebase ends its list of conflicts with the commit it could not apply: the
        line shown says so, and ``--continue`` that works finishes it all the same."""
        stopped = (
            "Rebasing (3/4)\nAuto-merging README.md\nCONFLICT (content): Merge conflict in "
            "README.md\nerror: could not apply 669232e1... add evaluate options budget\nhint: "
            'Resolve all conflicts manually, mark them as resolved with "git add/rm"\n'
        )
        memory = derive(bash("git rebase origin/main", stopped, "c1", exit_code=1))
        (failure,) = memory.failed_attempts
        assert "could not apply 669232e1" in failure.text and failure.status == "open"
        finished = derive(
            bash("git rebase origin/main", stopped, "c1", exit_code=1),
            bash("git add README.md && GIT_EDITOR=true git rebase --continue",
                 "Successfully rebased and updated refs/heads/dash.", "c2"),
        )  # fmt: skip
        assert finished.failed_attempts == ()


class TestHeredocs:
    def test_a_long_heredoc_is_data_to_its_end(self) -> None:
        """A script fed to node in a heredoc is one command, however long (its delimiter may
        lie past what is read): the same command working later settles its failure."""
        script = "node --input-type=module <<'NODE'\n" + "const a = await f();\n" * 400
        assert actions_of("Bash", script + "NODE") == (Action("$ node", frozenset()),)
        assert actions_of("Bash", script) == (Action("$ node", frozenset()),)
        memory = derive(
            bash(script + "NODE", "Error: Timed out waiting for #loader", "c1", exit_code=1),
            bash(script.replace("f()", "g()") + "NODE", "saved /tmp/shot.png", "c2"),
        )
        assert [i.status for i in memory.failed_attempts] == ["resolved"]


class TestSettledByParts:
    def test_a_failed_line_is_settled_once_each_of_its_parts_has_worked(self) -> None:
        """``install && doctor`` failed; the install run again with other flags, then the
        doctor on its own, worked: each part has, so the failure is settled. One part alone
        settles nothing."""
        failed = "uv tool install --upgrade langlearn && langlearn doctor"
        error = "ImportError: cannot import name 'AudioProviderId' from 'langlearn_types'"
        reinstall = "uv tool install --force --reinstall-package langlearn-types langlearn"
        half = derive(
            bash(failed, error, "c1", exit_code=1),
            bash(reinstall, "Installed 2 executables", "c2"),
        )
        assert [i.status for i in half.failed_attempts] == ["open"]
        memory = derive(
            bash(failed, error, "c1", exit_code=1),
            bash(reinstall, "Installed 2 executables", "c2"),
            bash("langlearn doctor", "8 passed, 0 failed", "c3"),
        )
        [failure] = memory.failed_attempts
        assert failure.status == "resolved" and "then" not in failure.text


class TestStaging:
    def test_a_commit_settles_a_failed_attempt_to_stage(self) -> None:
        """``git add`` of a path that no longer exists failed; the commit of what was staged
        then makes it moot (what followed the ``git add`` never ran). A commit that failed
        (a hook) is no attempt to stage: it stays."""
        pathspec = "fatal: pathspec 'crates/server/Cargo.toml' did not match any files"
        staging = "git add Cargo.toml crates/server/Cargo.toml && git status --short"
        memory = derive(
            bash(staging, pathspec, "c1", exit_code=128),
            bash("git add Cargo.toml", "", "c2"),
            bash("git commit -m 'fold the server into the cli'", "[main 16ada76] fold", "c3"),
        )
        assert memory.failed_attempts == ()
        ignored = "The following paths are ignored by one of your .gitignore files:\ndocs"
        memory = derive(
            bash("git add docs/plan.md", ignored, "c1", exit_code=1),
            bash("git commit -m 'skill diagrams'", "[main 1a2b3c4] skill diagrams", "c2"),
        )
        # docs/ is ignored: a lesson, resolved (the commit went on without it)
        assert [i.status for i in memory.failed_attempts] == ["resolved"]
        forced = derive(
            bash("git add docs/plan.md", ignored, "c1", exit_code=1),
            bash("git commit -m 'skill diagrams'", "[main 1a2b3c4] skill diagrams", "c2"),
            bash("git add -f docs/plan.md", "", "c3"),
        )
        assert [i.status for i in forced.failed_attempts] == ["resolved"]
        hook = "pre-commit: ruff found 2 errors"
        memory = derive(
            bash("git add . && git commit -m x", hook, "c1", exit_code=1),
            bash("git commit -m 'x, lint fixed'", "[main 1a2b3c4] x, lint fixed", "c2"),
        )
        assert len(memory.failed_attempts) == 1


class TestFailuresOfEarlierRequests:
    def test_a_failure_left_open_by_an_earlier_request_is_history(self) -> None:
        """Once the user moved on to a new request, a failure still open is still shown, but
        in the tier of history, evicted before the failures of the work at hand."""
        store = MemoryStore(TokenArithmetic(counter(DEFAULT_ENCODING)), 1200, 300)
        failures = Failures(store)
        failures.record("tool_failed", "Bash", "make deploy", "deploy: no credentials", ("e1", 1))
        failures.new_request(("e2", 2))
        failures.record("tool_failed", "Bash", "git push", "push: no username", ("e3", 3))
        shown = {
            i.text: (i.status, EVICTION_TIERS[i.tier]) for i in store.items_of("failed_attempts")
        }
        assert shown == {
            "deploy: no credentials": ("open", "resolved_failures"),
            "push: no username": ("open", "open_failures"),
        }


class TestStaleEdits:
    @pytest.mark.parametrize(
        ("tool", "error"),
        [
            ("Edit", "<tool_use_error>File has not been read yet. Read it first before "
                     "writing to it.</tool_use_error>"),
            ("Edit", "File has been modified since read, either by the user or by a linter. "
                     "Read it again before attempting to write it."),
            ("Edit", "<tool_use_error>String to replace not found in file.\nString: foo()"
                     "</tool_use_error>"),
            ("Write", "File has not been read yet. Read it first before writing to it."),
            ("apply_patch", "apply_patch verification failed: Failed to find expected lines "
                            "in /repo/src/app.js:\n  render();"),
        ],
    )  # fmt: skip
    def test_an_edit_made_good_once_the_file_is_read_again_leaves_nothing(
        self, tool: str, error: str
    ) -> None:
        """An edit that did not apply because the file was not as the agent last saw it is
        open until an edit of the file works; then it is gone, nothing learned."""
        args = {"file_path": "/repo/src/app.js"} if tool != "apply_patch" else {
            "input": "*** Begin Patch\n*** Update File: /repo/src/app.js\n@@\n-a\n+b\n"
                     "*** End Patch"
        }  # fmt: skip
        # The adapters read the client's words (tests/formats): "stale" is what reaches the fold.
        stale = {"status": "stale", "exit_code": None, "output": "", "error": error}
        made = [*call(tool, args)[:2], tool_event("failed", tool, outcome=stale)]
        failed = derive(made)
        assert [i.status for i in failed.failed_attempts] == ["open"]
        memory = derive(
            made,
            call("Read", {"file_path": "/repo/src/app.js"}, call_id="c2", result="a"),
            call(tool, args, call_id="c3", result="ok"),
        )
        assert memory.failed_attempts == ()
        refused = derive(
            call(tool, args, "failed", "c1", error=error),
            call(tool, {**args, "new_string": "b2"}, call_id="c3", result="ok"),
        )
        assert [i.status for i in refused.failed_attempts] == ["resolved"]  # a failure

    def test_a_hook_that_blocks_an_edit_is_still_a_lesson(self) -> None:
        """An edit a hook refused, then changed until it passed, says something of the
        project: resolved, it stays."""
        blocked = "PreToolUse:Edit hook error: [check-secrets]: blocked: a token in the diff"
        memory = derive(
            call("Edit", {"file_path": "a.py", "new_string": "k = 'sk-1'"}, "failed", "c1",
                 error=blocked),
            call("Edit", {"file_path": "a.py", "new_string": "k = env('K')"}, call_id="c2",
                 result="ok"),
        )  # fmt: skip
        assert [i.status for i in memory.failed_attempts] == ["resolved"]

    def test_a_read_of_the_file_settles_an_edit_refused_for_an_old_view_of_it(self) -> None:
        """A write refused because the file was not read (another agent had made it since):
        once the agent reads the file it sees it as it is, and the refusal is gone, written
        or not. A write refused for another reason stays."""
        error = "File has not been read yet. Read it first before writing to it."
        unread = {"status": "stale", "exit_code": None, "output": "", "error": error}
        args = {"file_path": "/repo/screen.dart"}
        refused = [*call("Write", args)[:2], tool_event("failed", "Write", outcome=unread)]
        read = call("Read", args, call_id="c2", result="class Screen {}")
        assert derive(refused, read).failed_attempts == ()
        other = call("Read", {"file_path": "/repo/other.dart"}, call_id="c2", result="x")
        assert len(derive(refused, other).failed_attempts) == 1
        denied = call("Write", args, "failed", "w1", error="EACCES: permission denied")
        assert len(derive(denied, read).failed_attempts) == 1

    def test_a_shell_line_that_shows_the_file_settles_it_too(self) -> None:
        """Codex reads through its shell: ``sed -n '1,140p' internal/cli/root_test.go`` after
        a patch whose context was not found shows the file as it is (named from the
        project's directory); ``ls`` of its directory, or a line that writes, does not."""
        error = "apply_patch verification failed: Failed to find expected lines"
        stale = {"status": "stale", "exit_code": None, "output": "", "error": error}
        args = {"file_path": "/w/p/internal/cli/root_test.go"}
        refused = [*call("Edit", args)[:2], tool_event("failed", "Edit", outcome=stale)]

        def shell(command: str) -> list[dict[str, Any]]:
            return call("exec_command", {"cmd": command}, call_id="s1", result="x", exit_code=0)

        shown = shell("sed -n '1,140p' internal/cli/root_test.go")
        assert derive(refused, shown).failed_attempts == ()
        for other in ("ls internal/cli", "sed -i 's/a/b/' internal/cli/root_test.go"):
            assert len(derive(refused, shell(other)).failed_attempts) == 1


def _rejected_edit(path: str, n: int) -> list[dict[str, Any]]:
    return call("Edit", {"file_path": path}, "failed", f"r{n}", error="User rejected tool use")


class TestFailuresJoined:
    def test_calls_that_fail_the_same_way_in_a_row_are_one_line(self) -> None:
        """The user rejecting three edits at once is one failed attempt naming the three
        files; a call that works in between starts a line of its own."""
        memory = derive(
            _rejected_edit("skills/a/SKILL.md", 1),
            _rejected_edit("skills/b/SKILL.md", 2),
            _rejected_edit("skills/c/SKILL.md", 3),
            call("Read", {"file_path": "skills/a/SKILL.md"}, call_id="r4", result="x"),
            _rejected_edit("skills/d/SKILL.md", 5),
        )
        assert texts(memory.failed_attempts) == [
            "Edit `skills/a/SKILL.md`, `skills/b/SKILL.md`, `skills/c/SKILL.md`: "
            "“User rejected tool use”",
            "Edit `skills/d/SKILL.md`: “User rejected tool use”",
        ]

    def test_a_new_request_starts_a_new_line(self) -> None:
        """Failures of the work at hand join none met while working on an earlier request."""
        memory = derive(
            _rejected_edit("a.md", 1),
            event("message", role="user", content="now fix the docs"),
            _rejected_edit("b.md", 2),
        )
        assert len(memory.failed_attempts) == 2

    def test_other_words_or_another_tool_are_a_line_of_their_own(self) -> None:
        memory = derive(
            _rejected_edit("a.md", 1),
            call("Write", {"file_path": "b.md"}, "failed", "w2", error="User rejected tool use"),
            call("Edit", {"file_path": "c.md"}, "failed", "e3", error="File has not been read"),
        )
        assert len(memory.failed_attempts) == 3

    def test_the_line_is_resolved_once_each_of_them_worked(self) -> None:
        """A file never changed is not shown changed because another of the line was: the
        line names those still open."""
        unread = "File has not been read yet. Read it first before writing to it."

        def edit(path: str, n: int, error: str = "") -> list[dict[str, Any]]:
            if error:
                return call("Edit", {"file_path": path}, "failed", f"e{n}", error=error)
            return call("Edit", {"file_path": path}, call_id=f"e{n}", result="ok")

        one = derive(edit("a.py", 1, unread), edit("b.py", 2, unread), edit("a.py", 3))
        (line,) = one.failed_attempts
        assert (line.status, line.text) == ("open", f"Edit `b.py`: “{unread}”")
        both = derive(
            edit("a.py", 1, unread), edit("b.py", 2, unread), edit("a.py", 3), edit("b.py", 4)
        )
        assert [f.status for f in both.failed_attempts] in ([], ["resolved"])


def test_an_edit_of_a_text_into_itself_is_no_failed_attempt() -> None:
    """An edit whose new text is its old one would change nothing: its refusal ("No changes
    to make") is no attempt at the work. An edit that would change something, refused, is."""
    same = {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 1"}
    refused = "<tool_use_error>No changes to make: old_string and new_string are exactly the same."
    memory = derive(call("Edit", same, "failed", "e1", error=refused))
    assert memory.failed_attempts == ()
    every = {**same, "old_string": " \u2014", "new_string": " \u2014", "replace_all": True}
    assert derive(call("Edit", every, "failed", "e1", error=refused)).failed_attempts == ()
    other = {**same, "new_string": "x = 2"}
    memory = derive(call("Edit", other, "failed", "e1", error="String to replace not found"))
    assert len(memory.failed_attempts) == 1
