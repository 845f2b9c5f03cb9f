"""A check's verdict: whether it passed, which tests failed, the problems a filter of its output
counted, and the line that says why.

Total, deterministic, free of I/O; only the head and tail of a large output are read.
"""

from __future__ import annotations

import re
from typing import Final

from deriver.actions import lacks_program
from deriver.check_output import MAX_SUMMARY_SCAN, CheckCounts, CheckSummary, is_script_echo
from deriver.output_scan import ends_notice, exit_only, tail, without_colours

__all__ = [
    "check_passed",
    "failing_tests",
    "failure_line",
    "lines_said",
    "names_problems",
    "problems_counted",
]

_SUCCESS_RE: Final = re.compile(
    r"^(?:Success: no issues found|All checks passed!|OK\b|test result: ok\.|BUILD SUCCESSFUL\b"
    r"|\[INFO\] BUILD SUCCESS\b"
    r"|[ \t]*0 errors?, \d+ warnings?, \d+ informations?|Found 0 errors)",
    re.MULTILINE,
)


# A run that stops to ask, last in its output: "Continue? ● Yes / ○ No" (a prompt to install
# what it needs), "Ok to proceed? (y)", "Proceed? [y/N]".
_ASKS_RE: Final = re.compile(
    r"\?\s*(?:\((?:y|y/n)\)|\[y/n\]|[\u25cf\u25cb]?\s*yes\s*/\s*[\u25cf\u25cb]?\s*no)\s*$",
    re.IGNORECASE,
)
_ASK_SCAN: Final = 200


def _counts_verdict(counts: CheckCounts, *, no_errors_passes: bool) -> bool | None:
    """What a runner's counts say: failed with any failure or error, passed with a pass
    (or, ``no_errors_passes``, with no errors: a linter's "0 errors"); else nothing."""
    if (counts.failed or 0) > 0 or (counts.errors or 0) > 0:
        return False
    if (counts.passed or 0) > 0 or (no_errors_passes and counts.errors == 0):
        return True
    return None


def check_passed(
    exit_code: int | None,
    counts: CheckCounts | None,
    output: str,
    *,
    exit_is_the_checks: bool = True,
    silent_passes: bool = False,
) -> bool | None:
    """Whether a check passed: the exit code decides when known, then the counts, then an
    explicit success summary ("OK", "All checks passed!", ...); None when nothing says.
    With ``silent_passes`` (a linter, a formatter's check, a type checker, a build: they
    print nothing when all is well), a blank output with no exit code says it passed.

    A run whose output ends asking ("Continue? ● Yes / ○ No") stopped before it checked:
    nothing says. When the exit code is not the check's own (``exit_is_the_checks`` false:
    its output was piped into ``tail``, or ``|| true`` followed), the runner's summary
    decides over it.
    """
    if isinstance(output, str) and _ASKS_RE.search(without_colours(output[-_ASK_SCAN:])):
        return None  # it stopped to ask ("Continue? ● Yes / ○ No"): it never ran
    if counts is not None and not exit_is_the_checks:
        verdict = _counts_verdict(counts, no_errors_passes=True)
        if verdict is not None:
            return verdict
    has_exit = isinstance(exit_code, int) and not isinstance(exit_code, bool)
    if not (has_exit and exit_is_the_checks) and _says_run_failed(output):
        return False  # "./gradlew test | tail" exits 0 after "BUILD FAILED in 3s"
    if (
        not exit_is_the_checks
        and counts is None
        and (_lists_errors(output, panics=not silent_passes) or lacks_program(output))
    ):
        # "tsc | head -30" exits 0 with the type errors it printed; "nx lint | tail" with
        # "command not found: nx": the check did not run. (A build runs no program: a panic
        # after it, "cargo build -q && ./hk", is the program's.)
        return False
    if has_exit:
        return exit_code == 0
    verdict = _counts_verdict(counts, no_errors_passes=False) if counts is not None else None
    if verdict is not None:
        return verdict
    if isinstance(output, str) and _SUCCESS_RE.search(tail(output, MAX_SUMMARY_SCAN)):
        return True
    if silent_passes and exit_code is None and isinstance(output, str) and not output.strip():
        return True
    return None


# A build tool's or script runner's last word when the run failed: gradle "BUILD FAILED in
# 3s" and "> Task :test FAILED", maven "[ERROR] BUILD FAILURE", "Failed to compile." (webpack
# based builds), vite "error during build:", esbuild "✘ Build failed", npm "npm ERR! code
# ELIFECYCLE" (npm 10: "npm error Lifecycle script `test` failed"), pnpm "ELIFECYCLE  Test
# failed" (thin spaces around the code) and "ERR_PNPM_…", yarn "error Command failed with
# exit code 1", bun "error: script "test" exited with code 1", make "make: *** [Makefile:5:
# test] Error 1", turbo "ERROR  run failed".
_RUN_FAILED_RE: Final = re.compile(
    r"^(?:[^\S\n]|[>\u2718\u00d7\u2716!])*"
    r"(?:BUILD FAILED\b|FAILURE: Build failed|\[ERROR\] BUILD FAILURE"
    r"|Task :\S+ FAILED\b|Failed to compile\b|error during build:|Build failed\b"
    r"|npm (?:ERR!|error) (?:code ELIFECYCLE|Lifecycle script)|ELIFECYCLE\b.*\bfailed"
    r"|ERR_PNPM_\w+|error Command failed with exit code [1-9]"
    r"|error: script \S+ exited with code [1-9]|ERROR\s+run failed"
    r"|make(?:\[\d+\])?: \*\*\* .*\bError [1-9]\d*\b(?! \(ignored\)))",
    re.MULTILINE,
)


def _says_run_failed(output: str) -> bool:
    """Whether a check's output ends saying that its run failed, whatever its exit code."""
    return (
        isinstance(output, str)
        and _RUN_FAILED_RE.search(without_colours(tail(output, MAX_SUMMARY_SCAN))) is not None
    )


# Failing tests as the common runners list them: ExUnit "  1) test name (Module)", pytest
# "FAILED path::test", cargo "test name ... FAILED", go "--- FAIL: Name", jest "● Suite >
# test" (U+203A for >), vitest "FAIL file > suite > test", unittest "FAIL: test (mod.Class)",
# rspec "rspec ./spec/x_spec.rb:3 # description", dotnet "Failed Name [1 ms]", PHPUnit
# "1) Tests\UserTest::testEmail", node's test runner "✖ name (1.2ms)" (not eslint's summary,
# "✖ 5 problems (5 errors, 0 warnings)").
_FAILING_TEST_RE: Final = re.compile(
    r"^(?:[ \t]+\d+\) (test [^\n]+?)[ \t]*$"
    r"|\d+\) ([\w\\]+::\w+)(?: with data set [^\n]*)?[ \t]*$"
    r"|(?:FAILED|ERROR) ([^\s]+::[^\s]+)"
    r"|test ([^\s]+) \.\.\. FAILED[ \t]*$"
    r"|[ \t]*--- FAIL: ([^\s]+)"
    r"|[ \t]*\u25cf ([^\n]+?\u203a[^\n]+?)[ \t]*$"
    r"|[ \t]*(?:FAIL|\u00d7|\u2717)[ \t]+([^\s]+ > [^\n]+?)(?:[ \t]+\d+ms)?[ \t]*$"
    r"|(?:FAIL|ERROR): (test\w* \([\w.]+\))"
    r"|rspec (\./[^\s]+)(?: #[^\n]*)?$"
    r"|[ \t]*Failed ([\w.]+) \["
    r"|[ \t]*\u2716 (?!\d+ problems? \()([^\n]+?)(?: \([\d.]+m?s\))?[ \t]*$)",
    re.MULTILINE,
)
_FAILING_SCAN: Final = 32 * 1024


def failing_tests(output: str, limit: int = 3) -> tuple[str, ...]:
    """The first few failing tests a runner listed, by the names it gives them, in order (a
    task runner's label before a line is not part of it)."""
    if not isinstance(output, str) or not output:
        return ()
    text = _TASK_LABEL_RE.sub("", tail(output, _FAILING_SCAN))
    names: list[str] = []
    for match in _FAILING_TEST_RE.finditer(text):
        name = next(group for group in match.groups() if group)
        if name not in names:
            names.append(name)
            if len(names) >= limit:
                break
    return tuple(names)


# The line that says why a check failed: an ExUnit "** (Error) ...", a pytest "E   ...", a
# Rust panic message, a compiler or tool "error: ...", a structured log's level=error line.
_ERROR_LINE_RE: Final = re.compile(
    r"^[ \t]*(\*\* \([\w.]+\)[^\n]*"
    r"|E {3}[^\n]*\S"
    r"|thread '[^'\n]*'(?: \(\d+\))? panicked at[^\n]*"  # Rust 1.90+ names the thread's id
    r"|(?:error|ERROR|Error)(?:\[\w+\])?:[ \t]*\S[^\n]*"
    r"|\u2718 \[ERROR\][^\n]*|\[ERR_[A-Z0-9_]+\][^\n]*"
    r"|[\w.]*(?:Error|Exception): [^\n]+"
    # a compiler's diagnostic at a file position: ``a.go:44:19: x undefined``,
    # ``src/a.ts(12,5): error TS2345: …``, ``src/a.ts:12:5 - error TS2345: …`` (pyright:
    # ``- error: …``)
    r"|[^\s:()]+\.\w+(?::\d+:\d+:|\(\d+,\d+\):|:\d+:\d+ - error:?) [^\n]+"
    # javac's ``A.java:3: error: …``, maven's ``/p/A.java:[3,5] …`` (past its label), eslint's
    # ``  3:7  error  'x' is …``, a build's ``Type error: …``, dart's ``error - a.dart:3:5 - …``,
    # a linter's ``a.md:3:81 error MD013/line-length …``
    r"|[^\s:()]+\.\w+:\d+: (?:fatal )?error: [^\n]+|\S+\.\w+:\[\d+,\d+\] [^\n]+"
    r"|\d+:\d+ +error +[^\n]+|(?:Type|Syntax) error: [^\n]+|error - \S+:\d+:\d+ - [^\n]+"
    r"|[^\s:()]+\.\w+:\d+(?::\d+)? +error +[^\n]+"
    # a structured log's error among its info lines: ``level=error msg="Running error: …"``
    r"|(?:time=\S+ )?level=(?:error|fatal|panic) [^\n]+)",
    re.MULTILINE,
)


_STYLISH_PATH_RE: Final = re.compile(r"^(\S+\.\w+)[ \t]*$", re.MULTILINE)
"""A file's line over the findings under it, as eslint (stylish) and others list them."""
_WARNING_RE: Final = re.compile(r"\bwarning\b", re.IGNORECASE)
_WARNED_RE: Final = re.compile(r"(?:npm |yarn )?\[?(?:warn|warning)\b", re.IGNORECASE)
"""A line that only warns ("[WARN] …", "npm warn …"): it does not say why a check failed."""


def _first_error(head: str, *, panics: bool = True) -> re.Match[str] | None:
    """The first line of ``head`` that says why a check failed (a compiler's warning at a
    file position does not, nor a script runner's word that it exited with a code; a
    program's panic only with ``panics``)."""
    return next(
        (
            m
            for m in _ERROR_LINE_RE.finditer(head)
            if not _WARNING_RE.search(m[1])
            and (panics or not m[1].startswith("thread "))
            and not exit_only(m[1])
        ),
        None,
    )


def _lists_errors(output: str, *, panics: bool = True) -> bool:
    """Whether a check's output (its head) has a line that says why it failed."""
    if not isinstance(output, str):
        return False
    return _first_error(without_colours(output[:_FAILING_SCAN]), panics=panics) is not None


# Lines that say nothing about why: a harness's exit report, a runner's start banner (and a
# script runner's echo of what it runs, :func:`is_script_echo`).
_BOILERPLATE_RE: Final = re.compile(
    r"^(?:exit code:? -?\d+|error: exit code:? -?\d+|running |compiling |getting extensions"
    r"|finished in |randomized with seed|[=\-_.*]+$"
    r"|[\u2714\u2713\u221a] |ok\b|pass(?:ed)?\b)",  # a test that passed says nothing of why
    re.IGNORECASE,
)


# go's package that did not build ("FAIL\tpkg [build failed]", "[setup failed]"): why is in
# the line under the package's "# pkg" header ("compile: version … does not match", "open
# …: operation not permitted").
_GO_NOT_BUILT_RE: Final = re.compile(r"^FAIL\s+\S+ \[(?:build|setup) failed\]$", re.MULTILINE)
_GO_HEADER_RE: Final = re.compile(r"^# \S+\n[ \t]*([^\s#][^\n]*)", re.MULTILINE)

# A task runner's label before each line of a task's output: mise "[lint:go] ", concurrently
# and npm-run-all "[0] ", "[lint] ".
# A warning's level and an error's code are no label: "[WARN] …" only warns, pnpm's
# "[ERR_PNPM_…] …" says why.
_TASK_LABEL_RE: Final = re.compile(r"^\[(?!(?i:warn|warning)\]|ERR_)[^\]\s]+\] (?=\S)", re.M)


def _says_why(line: str) -> bool:
    """Whether a stripped line of a failed check's output may say why: not blank, no
    boilerplate, no script runner's echo, no warning."""
    return (
        bool(line)
        and not _BOILERPLATE_RE.match(line)
        and not is_script_echo(line)
        and not _WARNED_RE.match(line)
    )


def failure_line(output: str, summary: str = "") -> str:
    """The first line of a failed check's output that says why it failed: an error line
    (not a warning), else the first failing test's name, else the line that says a program
    is not there, else the error under the header of
    a go package that did not build, else the runner's ``summary``, else
    the first line that is not boilerplate; a task runner's label before a line is not part
    of it."""
    if not isinstance(output, str) or not output.strip():
        return summary
    head = _head(output)
    match = _first_error(head)
    if match is not None:
        found = match.group(1).strip()
        if found.startswith("thread ") and found.endswith(":"):
            # Rust's "thread 't' panicked at src/a.rs:4:5:": the panic's message is under it,
            # said of the test that panicked (cargo test names each test's thread after it).
            under = head[match.end() :].lstrip("\n").split("\n", 1)[0].strip()
            test = found.split("'")[1].rsplit("::", 1)[-1]
            if not under or test in ("main", "<unnamed>"):
                return under or found
            return f"{test}: {under}"
        if found[:1].isdigit() and (path := _STYLISH_PATH_RE.findall(head[: match.start()])):
            return f"{path[-1]} {found}"  # eslint's "  1:1  error …" under its file's line
        found = found[1:].strip() if found.startswith("E ") else found  # pytest's "E" margin
        return f"{test}: {found}" if (test := _only_test(output)) else found
    names = failing_tests(output, 1)
    if names:
        return names[0]
    missing = next((line.strip() for line in head.splitlines() if lacks_program(line)), "")
    if missing:
        return missing  # the program not there ("zsh: command not found: nx")
    if _GO_NOT_BUILT_RE.search(head) and (built := _GO_HEADER_RE.search(head)) is not None:
        return built.group(1).strip()
    if summary:
        return summary
    failed = _RUN_FAILED_RE.search(head)
    if failed is not None:
        said = failed.group(0).strip()
        if said.endswith(":"):
            # vite's "error during build:" then the error: the line under it says why.
            after = head[failed.end() :].splitlines()[1:]
            under = next((ln.strip() for ln in after if ln.strip()), "")
            return under if under and not _BOILERPLATE_RE.match(under) else said
        # pnpm's "ELIFECYCLE Command failed." ends a run: the line before it says why.
        before = (ln.strip() for ln in reversed(head[: failed.start()].splitlines()))
        return next((ln for ln in before if _says_why(ln)), said)
    lines = head.splitlines()
    notice = next((i for i in range(len(lines) - 1, -1, -1) if ends_notice(lines[i])), -1)
    return next(
        (text for raw in lines[notice + 1 :] if _says_why(text := raw.strip())),
        head.strip().splitlines()[0].strip(),
    )


def _head(output: str) -> str:
    """The start of a failed check's output that says why, as read: no colours, and no task
    runner's label before a line."""
    return _TASK_LABEL_RE.sub("", without_colours(output[:_FAILING_SCAN]))


def _only_test(output: str) -> str:
    """The one test a failed run names as failing by its path (pytest's ``tests/a.py::TestA::
    test_b``), by its own name: its error is that test's. Empty for none or several."""
    names = failing_tests(output, 2) if "::" in output else ()
    return names[0].rsplit("::", 1)[-1] if len(names) == 1 and "::" in names[0] else ""


def lines_said(output: str, summary: str = "") -> set[str]:
    """Every text :func:`failure_line` may take from a failed check's output: its lines (a
    pytest "E" margin off), the failing tests it names and the runner's ``summary``. A cause
    recorded from an earlier run that none of them is was fixed since."""
    if not isinstance(output, str):
        return {summary}
    said = {summary, *failing_tests(output, _FAILING_SCAN)}
    path = ""
    for raw in _head(output).splitlines():
        text = raw.strip()
        said.add(text)
        if text.startswith("E "):
            said.add(text[1:].strip())
        elif _STYLISH_PATH_RE.fullmatch(raw):
            path = text  # the file the findings under it are of
        elif path and text[:1].isdigit():
            said.add(f"{path} {text}")
    if test := _only_test(output):
        said |= {f"{test}: {text}" for text in said}
    return said


_PROBLEM_WORDS_RE: Final = re.compile(r"err|fail|issue|warn|problem|panic", re.IGNORECASE)


def names_problems(stage: str) -> bool:
    """Whether a filter of a check's output keeps the lines of its problems (``grep -iE
    'error|issue'``, ``grep -v warning``): it stands for the whole run."""
    return _PROBLEM_WORDS_RE.search(stage) is not None


# A filter that counts the problems a run printed, last on its line: ``flutter analyze |
# grep -c " error "``, ``eslint . | grep error | wc -l``.
_COUNTING_RE: Final = re.compile(r"\|&?\s*((?:grep|egrep)\b[^|;&]*)(\|\s*wc\s+-l\s*)?$")
_COUNT_FLAG_RE: Final = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*c[a-zA-Z]*|--count)(?=\s|$)")
_INVERT_FLAG_RE: Final = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*v[a-zA-Z]*|--invert-match)(?=\s|$)")


def problems_counted(command: str, output: str) -> CheckSummary | None:
    """How many problem lines a filter that ends the command line counted (its output's last
    line, a number), said as the summary of the run: the filter stripped from the command
    shown, the count is all its output says of it. None when it counts none (no such
    filter, or not of problems)."""
    found = _COUNTING_RE.search(command.rstrip())
    if found is None:
        return None
    stage = found.group(1)
    if found.group(2) is None and not _COUNT_FLAG_RE.search(stage):
        return None
    if _INVERT_FLAG_RE.search(stage) or not names_problems(stage):
        return None
    last = output.strip().rsplit("\n", 1)[-1].strip()
    if not last.isdigit():
        return None
    count = int(last)
    return CheckSummary(
        CheckCounts(errors=count), f"{count} problem line{'s' * (count != 1)} counted"
    )
