"""Tests for deriver.check_output and deriver.check_verdict: check summaries, pass or fail,
exit codes.

Quoted strings marked "fixture" are copied from the real recordings in tests/fixtures.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import check_output
from deriver.check_output import (
    CheckCounts,
    parse_check_output,
    summarize_check,
)
from deriver.check_verdict import check_passed, failing_tests, failure_line
from deriver.output_scan import LinePattern, exit_code_from_output
from tests.deriver.test_rules import bash, call, derive, texts, user
from tests.deriver.tool_samples import FIVE_MB, VITEST_FAILED, VITEST_PASSED, timed


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

    def test_cargo_test_lines_far_apart_are_all_added_up(self) -> None:
        """In a long output the unit tests' result line comes long before the integration
        tests' (whose names fill the lines between): both are counted. When the middle of the
        output was cut out, the lines left are some binaries' only: only the verdict is told."""
        unit = "test result: ok. 620 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
        names = "test app::actions::push::tests::test_hint_format ... ok\n" * 400
        integration = "test result: ok. 59 passed; 0 failed; 0 ignored; 0 measured\n"
        summary = summarize_check("cargo test", unit + names + integration)
        assert summary is not None and summary.counts.passed == 679
        assert summary.words == "test result: ok. 679 passed; 0 failed; 0 ignored"
        cut = names + "\n[... 35000 characters elided ...]\n" + names + integration
        partial = summarize_check("cargo test", cut)
        assert partial is not None and partial.words == "test result: ok"
        assert partial.counts.passed is None

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
            ("golangci-lint", "a.go:3:2: Error return value is not checked\n3 issues:\n", 3),
            ("golangci-lint", "0 issues.\n", 0),
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
        assert timed(lambda: parse_check_output("pytest", output)) < 1.0
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

    def test_vitest_files_that_failed_to_load_fail_the_run(self) -> None:
        """vitest counts only the tests that ran: "Test Files  11 failed | 4 passed (15)" over
        "Tests  13 passed (13)" is a failed run (the others did not load)."""
        output = (
            " FAIL  test/a.test.ts [ test/a.test.ts ]\nError: Cannot find package '@b/cel'\n\n"
            " Test Files  11 failed | 4 passed (15)\n      Tests  13 passed (13)\n"
        )
        summary = summarize_check("vitest", output)
        assert summary is not None
        assert summary.words == "Test Files 11 failed | 4 passed; Tests 13 passed"
        assert check_passed(None, summary.counts, output) is False

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
        assert timed(lambda: exit_code_from_output(text)) < 1.0

    @given(st.text())
    def test_total_and_deterministic(self, text: str) -> None:
        """Any text gives an int or None, the same each time."""
        result = exit_code_from_output(text)
        assert result is None or isinstance(result, int)
        assert exit_code_from_output(text) == result


def _every_match_last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = None
    for match in pattern.finditer(text):
        found = match
    return found


_SUMMARY_PATTERNS = [
    value for value in vars(check_output).values() if isinstance(value, LinePattern)
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
        "Passed: 254, Failed: 0", "failed: 1,\npassed: 2",
        "90% tests passed, 1 tests failed out of 10", "Ran 3 tests in 0.1s\n\nOK",
        "test result: ok. 3 passed; 0 failed; 0 ignored", "14 doctests, 87 tests, 0 failures",
        "5 tests, 5 failures", ", 1 excluded", " failure", "42 mods/funs, found no issues.",
        "9 mods/funs, found 2 warnings, 1 refactoring opportunity.", " 12 pass", " 1 skip",
        " 0 fail", "7", "abc", "%", ",", ":",
        "(", ")",
    ]
)  # fmt: skip


class TestLastSummaryMatch:
    @given(
        st.lists(_SUMMARY_FRAGMENTS | st.text(max_size=8), max_size=40).map("".join),
        st.sampled_from(_SUMMARY_PATTERNS),
    )
    @settings(max_examples=1000)
    def test_equals_the_last_of_every_match(self, text: str, pattern: LinePattern) -> None:
        """Ruling out by a needle and searching line by line from the end change nothing."""
        expected = _every_match_last(pattern.regex, text)
        found = pattern.last(text)
        assert (found and found.span()) == (expected and expected.span())
        assert (found and found.groups()) == (expected and expected.groups())


# ExUnit's end of run, as `mix test` prints it (Elixir 1.15+).
EXUNIT_PASSED = (
    "Getting extensions in current project...\nRunning ExUnit with seed: 967718, max_cases: 32"
    "\n\n.....\nFinished in 5.3 seconds (2.5s async, 2.7s sync)\n14 doctests, 87 tests, 0 failures"
)
EXUNIT_FAILED = (
    "Exit code 2\nRunning ExUnit with seed: 918599, max_cases: 32\n\n"
    "  1) test mount renders the review page (MyAppWeb.ReviewLiveTest)\n"
    "     test/my_app_web/live/review_live_test.exs:58\n"
    "     ** (RuntimeError) no :secret_key_base configuration found in MyAppWeb.Endpoint.\n"
    '     code: {:ok, _view, html} = live(conn, "/review")\n\n'
    "  2) test mount handles a bad id (MyAppWeb.ReviewLiveTest)\n"
    "     test/my_app_web/live/review_live_test.exs:70\n\n"
    "Finished in 0.2 seconds\n5 tests, 5 failures\n\nRandomized with seed 918599\n"
)


class TestRunnerWords:
    def test_exunit_summary_in_its_own_words(self) -> None:
        """ExUnit's summary line is parsed and kept in the runner's words."""
        summary = summarize_check("mix test", EXUNIT_PASSED)
        assert summary is not None
        assert summary.words == "14 doctests, 87 tests, 0 failures"
        assert summary.counts == CheckCounts(101, 0, 0, 0)

    @pytest.mark.parametrize(
        ("line", "failed", "skipped"),
        [
            ("49 tests, 0 failures", 0, 0),
            ("14 doctests, 127 tests, 12 failures", 12, 0),
            ("1 doctest, 2 properties, 5 tests, 0 failures, 1 excluded", 0, 1),
            ("3 tests, 1 failure, 1 skipped", 1, 1),
        ],
    )
    def test_exunit_variants(self, line: str, failed: int, skipped: int) -> None:
        """Doctests, properties, excluded and skipped variants of ExUnit's line are read."""
        summary = summarize_check("mix test", f"Finished in 0.1 seconds\n{line}\n")
        assert summary is not None
        assert summary.words == line
        assert (summary.counts.failed, summary.counts.skipped) == (failed, skipped)

    def test_xctest_counts_the_whole_run(self) -> None:
        """XCTest (xcodebuild test, swift test) prints "Executed N tests, with M failures"
        after each suite: the last line is the run's whole, and a narrower run of it
        (``-only-testing:``) is its own line, not the whole run's."""
        output = (
            "Test Suite 'MediaTests' passed at 2026-02-17 17:55:00.100.\n"
            "\t Executed 11 tests, with 0 failures (0 unexpected) in 0.146 (0.148) seconds\n"
            "Test Suite 'VaultTests.xctest' passed at 2026-02-17 17:55:00.452.\n"
            "\t Executed 313 tests, with 2 failures (0 unexpected) in 2.436 (2.538) seconds\n"
        )
        summary = summarize_check("xcodebuild test", output)
        assert summary is not None
        assert summary.words == "Executed 313 tests, with 2 failures"
        assert summary.counts == CheckCounts(passed=311, failed=2)
        run = "xcodebuild test -project App.xcodeproj -scheme App -destination 'platform=iOS'"
        passed = output.replace("2 failures", "0 failures")
        memory = derive(
            bash(f"{run} 2>&1 | grep -E 'Executed|error'", passed, "c1"),
            bash(f"{run} -only-testing:AppTests/MediaTests | tail -5",
                 passed.replace("313", "21"), "c2"),
        )  # fmt: skip
        lines = texts(memory.verification_status)
        assert len(lines) == 2
        assert "(Executed 313 tests, with 0 failures)" in lines[0]

    def test_credo(self) -> None:
        """credo's "found no issues" passes; "found N ..." counts the issues."""
        clean = summarize_check(
            "mix credo", "Analysis took 0.3 seconds\n42 mods/funs, found no issues.\n"
        )
        assert clean is not None and clean.counts.errors == 0
        assert clean.words == "42 mods/funs, found no issues"
        dirty = summarize_check(
            "mix credo",
            "185 mods/funs, found 1 refactoring opportunity, 2 code readability issues.\n",
        )
        assert dirty is not None and dirty.counts.errors == 3

    def test_dart_analyze(self) -> None:
        """dart analyze's issue lines say whether its run failed, whatever the exit code of
        a ``| tail`` says: an error or warning fails it, infos alone do not, and when some of
        the issues counted are cut off and none shown fails, the verdict is not read."""
        failing = (
            "  error - lib/a.dart:234:22 - 'Failure' is defined twice. - ambiguous_import\n"
            "   info - lib/b.dart:76:9 - Use the null-aware marker '?'. - use_null_aware_elements\n"
            "\n36 issues found.\n"
        )
        dirty = summarize_check("dart analyze", failing)
        assert dirty is not None and dirty.counts.errors == 1
        assert dirty.words == "36 issues found"
        infos = "   info - lib/b.dart:76:9 - Use '?'. - use_null_aware_elements\n\n1 issue found.\n"
        summary = summarize_check("flutter analyze", infos)
        assert summary is not None and summary.counts.errors == 0
        clean = summarize_check("dart analyze", "Analyzing lib...\nNo issues found!\n")
        assert clean is not None and clean.counts.errors == 0
        cut = "   info - lib/b.dart:76:9 - Use '?'. - use_null_aware_elements\n\n36 issues found.\n"
        assert summarize_check("dart analyze", cut) is None

    @pytest.mark.parametrize(
        ("name", "output", "words"),
        [
            ("pytest", "..\n===== 5 passed, 1 warning in 1.2s ====", "5 passed, 1 warning"),
            ("jest", "Tests:       1 failed, 5 passed, 6 total\n", "1 failed, 5 passed, 6 total"),
            ("vitest", " Tests  1 failed | 2 passed (3)\n", "1 failed | 2 passed"),
            (
                "mypy",
                "Success: no issues found in 9 source files\n",
                "Success: no issues found in 9 source files",
            ),
            ("golangci-lint", "level=info msg=done\n0 issues.\n", "0 issues."),
            ("golangci-lint", "3 issues:\n* errcheck: 2\n* unused: 1\n", "3 issues:"),
            ("rspec", "10 examples, 2 failures\n", "10 examples, 2 failures"),
        ],
    )
    def test_other_runners_keep_their_words(self, name: str, output: str, words: str) -> None:
        """Each runner's summary is rendered as it wrote it, without timings."""
        summary = summarize_check(name, output)
        assert summary is not None and summary.words == words

    def test_bun_summary_in_its_own_words(self) -> None:
        """bun test prints one count a line ("1309 pass", "0 fail"); a script that runs it
        (`bun run test`) is read by it too."""
        output = (
            "\n 1309 pass\n 0 fail\n 2849 expect() calls\n"
            "Ran 1309 tests across 58 files. [756.00ms]\n"
        )
        for name in ("bun test", "bun run test"):
            summary = summarize_check(name, output)
            assert summary is not None and summary.words == "1309 pass, 0 fail"
            assert summary.counts == CheckCounts(passed=1309, failed=0, skipped=0)

    def test_bun_summary_counts_skips_and_failures(self) -> None:
        """bun's skip and todo lines count as skipped; its fail line fails the run."""
        summary = summarize_check("bun test", " 40 pass\n 2 skip\n 1 todo\n 3 fail\n")
        assert summary is not None and summary.words == "40 pass, 2 skip, 1 todo, 3 fail"
        assert summary.counts == CheckCounts(passed=40, failed=3, skipped=3)
        assert check_passed(0, summary.counts, "", exit_is_the_checks=False) is False

    def test_nodes_test_runner_in_its_own_words(self) -> None:
        """node --test prints one count a line ("pass 1" after an information sign, "# pass
        1" as TAP), and its failing tests as "✖ name (1.2ms)": a passing "✔" line is never
        why it failed."""
        output = (
            "\u2714 adds (0.5ms)\n\u2716 subs (1.2ms)\n  AssertionError [ERR_ASSERTION]: "
            "Expected values to be strictly equal:\n\n\u2139 tests 2\n\u2139 suites 0\n"
            "\u2139 pass 1\n\u2139 fail 1\n\u2139 cancelled 0\n"
        )
        summary = summarize_check("node --test", output)
        assert summary is not None and summary.words == "2 tests, 1 pass, 1 fail"
        assert summary.counts == CheckCounts(passed=1, failed=1, skipped=0)
        assert failing_tests(output) == ("subs",)
        tap = summarize_check("npm test", "# tests 3\n# suites 0\n# pass 3\n# fail 0\n")
        assert tap is not None and tap.counts == CheckCounts(passed=3, failed=0, skipped=0)
        assert failure_line("\u2714 adds (0.5ms)\nTypeError: x is not a function\n") == (
            "TypeError: x is not a function"
        )

    def test_cargo_lines_are_summed_in_cargo_words(self) -> None:
        """A gate that runs cargo (just check) sums its result lines, in cargo's words."""
        output = (
            "cargo llvm-cov --fail-under-lines 100\n   Compiling util v0.1.0\nrunning 29 tests\n"
            "test result: ok. 29 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
            "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out\n"
        )
        summary = summarize_check("just check", output)
        assert summary is not None
        assert summary.words == "test result: ok. 32 passed; 0 failed; 1 ignored"

    def test_go_packages(self) -> None:
        """go test's package lines are counted as go prints them, ok and FAIL."""
        output = (
            "--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/p\t0.01s\n"
            "ok  \texample.com/r\t0.02s\n"
        )
        summary = summarize_check("go test", output)
        assert summary is not None and summary.words == "1 ok, 1 FAIL"


class TestPipedExit:
    def test_summary_failures_beat_a_piped_exit_zero(self) -> None:
        """`mix test | tail -30` exits 0 while ExUnit says 11 failures: it failed."""
        counts = parse_check_output("mix test", "297 tests, 11 failures\n")
        assert check_passed(0, counts, "", exit_is_the_checks=False) is False
        assert check_passed(0, counts, "") is True

    def test_summary_pass_beats_a_filter_exit(self) -> None:
        """A grep after the check that finds nothing does not fail a passing run."""
        counts = parse_check_output("pytest", "=== 4 passed in 0.1s ===\n")
        assert check_passed(1, counts, "", exit_is_the_checks=False) is True

    def test_counts_a_filter_printed_with_their_labels_decide(self) -> None:
        """`go test -json | python3 -c "…"` exits 0 (the filter's exit) after printing the
        counts it made: "Passed: 89, Failed: 1" failed, "Passed: 254, Failed: 0" passed,
        and its words are the summary shown."""
        summary = summarize_check("go test", "Passed: 254, Failed: 0\nWall clock: 51.5s")
        assert summary is not None and summary.words == "Passed: 254, Failed: 0"
        failed = parse_check_output("go test", "Passed: 89, Failed: 1\nFailures:\n  - TestA")
        assert failed == CheckCounts(89, 1, None, None)
        assert check_passed(0, failed, "", exit_is_the_checks=False) is False

    def test_without_summary_the_exit_decides(self) -> None:
        """With no summary to read, a piped exit code still decides."""
        assert check_passed(1, None, "boom", exit_is_the_checks=False) is False
        assert check_passed(0, None, "ok", exit_is_the_checks=False) is True

    @pytest.mark.parametrize(
        "output",
        [
            "\x1b[96msrc/a.test.ts\x1b[0m:\x1b[93m29\x1b[0m:\x1b[93m39\x1b[0m - \x1b[91merror"
            "\x1b[0m TS2345: Argument of type 'null' is not assignable",
            "src/a.ts(12,5): error TS2345: Argument of type 'null'",
            "x.go:15:2: missing go.sum entry for module providing package",
            "docs/general.mdx:198:81 error MD013/line-length Line length [Expected: 80]",
        ],
    )
    def test_errors_listed_beat_a_piped_exit_zero(self, output: str) -> None:
        """`tsc | head -30` exits 0 with the type errors it printed (the summary cut off): it
        failed. A compiler's warning at a position is no error."""
        assert check_passed(0, None, output, exit_is_the_checks=False) is False
        assert check_passed(0, None, output) is True
        warning = "parser.c:254:18: warning: null character(s) preserved"
        assert check_passed(0, None, warning, exit_is_the_checks=False) is True

    @pytest.mark.parametrize(
        "output",
        ["To continue, Astro requires @astrojs/check.\n\x1b[?25l\u25c6  Continue?\n"
         "\u25cf Yes / \u25cb No", "Need to install the following packages:\n  x\n"
         "Ok to proceed? (y) ", "Proceed? [y/N]"],
    )  # fmt: skip
    def test_a_run_that_stopped_to_ask_says_nothing(self, output: str) -> None:
        """`npx astro check | tail` exits 0 at a prompt to install what it needs: it never
        checked, whatever its exit code."""
        assert check_passed(0, None, output, exit_is_the_checks=False) is None
        assert check_passed(0, None, output) is None

    def test_a_program_s_panic_after_a_build_is_not_the_build_s(self) -> None:
        """A build runs no program: "cargo build -q" then a script that runs what it built,
        whose panic the output shows, exiting 0, is no failed build; a run piped into head
        that panics ("cargo run | head") failed."""
        panic = "thread 'main' (14504524) panicked at src/settings.rs:101:30:\nno config\n"
        assert check_passed(0, None, panic, exit_is_the_checks=False, silent_passes=True)
        assert check_passed(0, None, panic, exit_is_the_checks=False) is False

    @pytest.mark.parametrize(
        "output",
        [
            "> Task :compileJava\n> Task :test FAILED\n\nFAILURE: Build failed with an exception."
            "\n\nBUILD FAILED in 3s\n",
            "[INFO] Tests run: 3\n[ERROR] BUILD FAILURE\n",
            "Creating an optimized production build...\nFailed to compile.\n\n./src/a.ts\n",
            "vite v5.0.0 building for production...\nerror during build:\nRollupError: x\n",
            "\u2718 Build failed\n",
            "> a@1.0.0 build\n> tsc\n\nnpm ERR! code ELIFECYCLE\nnpm ERR! errno 2\n",
            "npm error Lifecycle script `test` failed with error:\nnpm error code 1\n",
            " ELIFECYCLE \u2009Test failed. See above for more details.\n",
            "\u2009ELIFECYCLE\u2009 Test failed. See above for more details.\n",
            " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL \u2009@a/api@1.0.0 test: `jest`\n",
            "error Command failed with exit code 1.\n",
            'error: script "test" exited with code 1\n',
            "make: *** [Makefile:5: test] Error 1\n",
            " ERROR  run failed: command  exited (1)\n",
        ],
    )  # fmt: skip
    def test_a_run_that_says_it_failed_failed_whatever_the_piped_exit(self, output: str) -> None:
        """`./gradlew test | tail` exits 0 after "BUILD FAILED": the build tool's or script
        runner's last word decides, over an exit code that is not the check's own and when
        there is none (a Codex cell reports none). Its own exit code still decides."""
        assert check_passed(0, None, output, exit_is_the_checks=False) is False
        assert check_passed(None, None, output) is False
        assert check_passed(0, None, output) is True

    @pytest.mark.parametrize(
        "output",
        [
            "make: [Makefile:5: clean] Error 1 (ignored)\nmake: *** [x] Error 12 (ignored)\n",
            "Tests pass; the fixture logs 'failed to compile' on purpose\n",
        ],
    )
    def test_an_ignored_error_or_a_quoted_phrase_is_no_failed_run(self, output: str) -> None:
        assert check_passed(None, None, output) is None

    def test_a_gradle_build_piped_into_tail_is_failed(self) -> None:
        memory = derive(
            user("fix the build"),
            call("Bash", {"command": "./gradlew test 2>&1 | tail -5"}, exit_code=0,
                 result="> Task :test FAILED\n\nFAILURE: Build failed with an exception.\n\n"
                        "BUILD FAILED in 3s\n"),
        )  # fmt: skip
        assert [i.status for i in memory.verification_status] == ["failed"]
        assert "runs" not in memory.verification_status[0].text  # "> Task :test" is no echo

    def test_a_build_tool_s_success_line_passes_without_an_exit_code(self) -> None:
        assert check_passed(None, None, "> Task :test\n\nBUILD SUCCESSFUL in 3s\n") is True
        assert check_passed(None, None, "[INFO] BUILD SUCCESS\n[INFO] Total time: 2 s\n")


class TestWhyABuildFailed:
    @pytest.mark.parametrize(
        ("output", "why"),
        [
            ("   \u25b2 Next.js 14.2.3\n\n   Creating an optimized production build ...\n"
             "Failed to compile.\n\n./src/app/page.tsx:5:10\nType error: Cannot find name 'foo'.\n",
             "Type error: Cannot find name 'foo'."),
            ("> Task :compileJava FAILED\n/p/src/A.java:3: error: cannot find symbol\n    foo();\n",
             "/p/src/A.java:3: error: cannot find symbol"),
            ("[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal x: Compilation failure\n"
             "[ERROR] /p/src/A.java:[3,5] cannot find symbol\n",
             "/p/src/A.java:[3,5] cannot find symbol"),
            ("vite v5.0.0 building for production...\n\u2713 3 modules transformed.\n"
             "error during build:\nsrc/main.ts (3:7): \"foo\" is not exported by \"src/lib.ts\"\n",
             'src/main.ts (3:7): "foo" is not exported by "src/lib.ts"'),
            ("\n/p/src/a.ts\n  3:7  error  'x' is assigned a value but never used  no-unused-vars\n"
             "\n\u2716 1 problem (1 error, 0 warnings)\n",
             "/p/src/a.ts 3:7  error  'x' is assigned a value but never used  no-unused-vars"),
            ("   info - lib/b.dart:7:9 - Use '?'. - use_null_aware_elements\n"
             "  error - lib/a.dart:3:5 - Undefined name 'state'. - undefined_identifier\n"
             "\n2 issues found.\n",
             "error - lib/a.dart:3:5 - Undefined name 'state'. - undefined_identifier"),
            ('[WARN] The "pnpm" field in package.json is no longer read by pnpm.\n'
             "Scope: all 7 workspace projects\n[ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY] Aborted"
             " removal of modules directory due to no TTY\n\n[ERROR] Command failed with exit "
             "code 1: node pnpm.mjs install\n",
             "[ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY] Aborted removal of modules directory "
             "due to no TTY"),
        ],
    )  # fmt: skip
    def test_the_line_under_a_build_s_header_says_why(self, output: str, why: str) -> None:
        """A build's banner or task header ("▲ Next.js 14", "> Task :compileJava FAILED",
        "vite v5 building…"), or a warning before the error, is not why it failed: the error
        under it is (under an eslint file's line, said of that file)."""
        assert failure_line(output) == why

    def test_the_error_of_the_one_failing_test_is_said_of_it(self) -> None:
        """pytest naming one failing test: its error line is said of that test; with two, or
        a runner naming no test path, the error line alone."""
        one = (
            "E       AssertionError: assert 'disagreement' == 'agree'\n"
            "FAILED tests/test_omop.py::TestDual::test_agreement_is_case_insensitive\n"
            "1 failed, 353 passed in 12.63s\n"
        )
        assert failure_line(one) == (
            "test_agreement_is_case_insensitive: AssertionError: assert 'disagreement' == 'agree'"
        )
        two = one.replace("1 failed", "FAILED tests/test_omop.py::test_b\n2 failed")
        assert failure_line(two) == "AssertionError: assert 'disagreement' == 'agree'"

    def test_a_linter_s_first_error_is_quoted_with_its_count(self) -> None:
        """A failed linter or type checker whose runner says how many ("Found 1 error", "5
        problems"): its FAILED line quotes its first error too, eslint's said of its file
        (the count alone names no file); eslint's "✖ 5 problems" is no failing test."""
        lint = (
            "/p/src/parsers.test.ts\n  1:1  error  `vitest` import should occur after "
            "import of `path`  import/order\n\n\u2716 5 problems (5 errors, 0 warnings)\n"
        )
        mypy = "src/a.py:9: error: Incompatible return value type\nFound 1 error in 1 file\n"
        assert failing_tests(lint) == ()
        memory = derive(user("lint"), bash("bun run lint", lint, "l1", exit_code=1),
                        bash("mypy src", mypy, "m1", exit_code=1))  # fmt: skip
        shown = texts(memory.verification_status)
        assert any("5 problems" in t and "parsers.test.ts 1:1 error" in t for t in shown)
        assert any("src/a.py:9: error: Incompatible" in t for t in shown)

    @pytest.mark.parametrize("thread", ["'agent::tests::t'", "'agent::tests::t' (3488718)"])
    def test_a_rust_panic_says_why_in_its_message(self, thread: str) -> None:
        """cargo test's failures: the panic's message under "panicked at file:line:col:"
        (the thread named with its id since Rust 1.90), said of the test its thread is named
        after, says why, not cargo's last word "error: test failed, to rerun pass --bin x"."""
        output = (
            "running 2 tests\ntest agent::tests::t ... FAILED\n\nfailures:\n\n"
            f"---- agent::tests::t stdout ----\n\nthread {thread} panicked at "
            "/h/.cargo/registry/src/wiremock-0.6.5/src/mock_server/builder.rs:107:46:\n"
            "Failed to bind an OS port for a mock server.: Os { code: 1 }\n\n"
            "test result: FAILED. 1 passed; 1 failed; 0 ignored\n\n"
            "error: test failed, to rerun pass `--bin communique`\n"
        )
        why = "t: Failed to bind an OS port for a mock server.: Os { code: 1 }"
        assert failure_line(output) == why
        unnamed = output.replace(f"thread {thread}", "thread '<unnamed>'")
        assert failure_line(unnamed) == why.removeprefix("t: ")

    def test_the_line_before_a_runner_s_last_word_says_why(self) -> None:
        """pnpm ends a failed script with "ELIFECYCLE  Command failed." (thin spaces), and a
        warning may follow it: the line before it says why."""
        output = (
            "> @o/tauri@0.1.0 tauri /w/o\n> tauri build\n\nsh: tauri: command not found\n"
            "\u2009ELIFECYCLE\u2009 Command failed.\n\u2009WARN\u2009  Local package.json exists, "
            "but node_modules missing, did you mean to install?\n"
        )
        assert failure_line(output) == "sh: tauri: command not found"


class TestFailureListing:
    def test_exunit_failing_tests(self) -> None:
        """ExUnit's numbered failures give the failing tests' names."""
        assert failing_tests(EXUNIT_FAILED) == (
            "test mount renders the review page (MyAppWeb.ReviewLiveTest)",
            "test mount handles a bad id (MyAppWeb.ReviewLiveTest)",
        )

    @pytest.mark.parametrize(
        ("output", "name"),
        [
            ("FAILED tests/test_x.py::test_a - assert 1 == 2\n", "tests/test_x.py::test_a"),
            ("test parse::tests::empty ... FAILED\n", "parse::tests::empty"),
            ("--- FAIL: TestParse (0.00s)\n", "TestParse"),
            ("  \u25cf Parser \u203a rejects empty input\n", "Parser \u203a rejects empty input"),
            (
                " FAIL  src/a.test.ts > parser > rejects empty\n",
                "src/a.test.ts > parser > rejects empty",
            ),
            ("FAIL: test_parse (tests.test_a.ParseTest)\n", "test_parse (tests.test_a.ParseTest)"),
            ("rspec ./spec/a_spec.rb:12 # Parser rejects empty\n", "./spec/a_spec.rb:12"),
        ],
    )
    def test_common_runners(self, output: str, name: str) -> None:
        """pytest, cargo, go, jest, vitest, unittest and rspec listings give test names."""
        assert failing_tests(output) == (name,)

    def test_informative_line(self) -> None:
        """The excerpt is the error line, not the harness's "Exit code 2" header."""
        assert failure_line(EXUNIT_FAILED) == (
            "** (RuntimeError) no :secret_key_base configuration found in MyAppWeb.Endpoint."
        )
        pytest_output = "Exit code 1\n____ test_a ____\n>   assert f() == 2\nE   assert 1 == 2\n"
        assert failure_line(pytest_output) == "assert 1 == 2"

    @pytest.mark.parametrize(
        ("output", "why"),
        [("# internal/goos\ncompile: version \"go1.24.13\" does not match go tool version "
          "\"go1.26.1\"\nFAIL\tgithub.com/acme/x/internal/sem [build failed]\nFAIL\n",
          "compile: version \"go1.24.13\" does not match go tool version \"go1.26.1\""),
         ("FAIL\t./internal/sem [setup failed]\n# ./internal/sem\nopen /u/Caches/go-build/d1/a: "
          "operation not permitted\nFAIL\n",
          "open /u/Caches/go-build/d1/a: operation not permitted")],
    )  # fmt: skip
    def test_why_a_go_package_did_not_build(self, output: str, why: str) -> None:
        """go's "[build failed]" and "[setup failed]": why is under the package's header,
        not the "1 FAIL" its summary counts (two such failures are two causes)."""
        assert failure_line(output, "1 FAIL") == why

    def test_a_compilers_diagnostic_not_the_package_header(self) -> None:
        """A build's error is the diagnostic at a file position, not the header above it."""
        go = (
            "Exit code 1\n# github.com/acme/maps/cmd/server\n"
            "cmd/server/tool.go:44:19: req.GetNumber undefined (type mcp.CallToolRequest has no "
            "field or method GetNumber)\n"
        )
        assert failure_line(go).startswith("cmd/server/tool.go:44:19: req.GetNumber undefined")
        tsc = "src/ads.tsx(12,5): error TS2345: Argument of type 'string' is not assignable\n"
        assert failure_line(tsc) == tsc.strip()

    def test_a_task_runners_labels_and_a_compilers_warnings_are_not_why(self) -> None:
        """A task runner's label before each line is not part of it: the error under the
        labels is found, not the "Finished in" line of the task that passed. A compiler's
        warning at a file position is no error."""
        mise = (
            "[lint:gofmt] $ ~/repo/mise-tasks/lint/gofmt\n[lint:go] $ ~/repo/mise-tasks/lint/go\n"
            "[lint:gofmt] Finished in 24.5ms\n"
            "[lint:go] internal/syncer/syncer.go:665:3: SA9003: empty branch (staticcheck)\n"
        )
        assert (
            failure_line(mise)
            == "internal/syncer/syncer.go:665:3: SA9003: empty branch (staticcheck)"
        )
        go = (
            "parser.c:254:18: warning: null character(s) preserved in string literal\n"
            "cmd/a.go:3:1: undefined: errors\n"
        )
        assert failure_line(go) == "cmd/a.go:3:1: undefined: errors"
        labelled = (
            "[vet] # github.com/smacker/go-tree-sitter/lua\n"
            "[vet] parser.c:254:18: warning: null character(s) preserved in string literal\n"
            "[test:ci] --- FAIL: TestSearchPathPrior (0.00s)\n"
            "[test:ci]     search_test.go:1366: explicit workflow query was penalized: -4\n"
            "[test:ci] FAIL\n"
        )
        assert failure_line(labelled) == "TestSearchPathPrior"

    def test_phpunits_failing_test_and_pyrights_error_are_found(self) -> None:
        """PHPUnit lists "1) Tests\\UserTest::testEmail"; pyright's diagnostic reads
        "a.py:3:5 - error: …" (tsc's has no colon after "error")."""
        phpunit = (
            "..F.  4 / 4 (100%)\n\nThere was 1 failure:\n\n1) Tests\\UserTest::testEmail\n"
            "Failed asserting that false is true.\n\nFAILURES!\nTests: 4, Assertions: 4, "
            "Failures: 1.\n"
        )
        assert failing_tests(phpunit) == ("Tests\\UserTest::testEmail",)
        pyright = (
            '/p/src/a.py\n  /p/src/a.py:3:5 - error: "x" is not defined\n'
            "1 error, 0 warnings, 0 informations \n"
        )
        assert failure_line(pyright) == '/p/src/a.py:3:5 - error: "x" is not defined'

    def test_failing_test_then_summary_then_first_line(self) -> None:
        """Without an error line, the first failing test, the summary, then a real line."""
        assert failure_line("Exit code 2\n  1) test a (M)\n     Assertion failed\n") == "test a (M)"
        assert failure_line("Exit code 6\n", "9 mods/funs, found 2 warnings") == (
            "9 mods/funs, found 2 warnings"
        )
        assert failure_line("Exit code 1\nRunning tests\nsomething broke\n") == "something broke"
        assert failure_line("Exit code 1") == "Exit code 1"

    @given(st.text(max_size=300))
    def test_total(self, output: str) -> None:
        """Any text gives names and a line, never raising."""
        assert isinstance(failing_tests(output), tuple)
        assert isinstance(failure_line(output), str)


class TestScriptCommand:
    @pytest.mark.parametrize(
        ("output", "command"),
        [
            ("$ biome check --error-on-warnings\nChecked 286 files.",
             "biome check --error-on-warnings"),
            ("\n> evaluator@1.0.0 lint\n> eslint .\n", "eslint ."),
            ("> @scope/web@0.1.0 test /repo/web\n> vitest run\n", "vitest run"),
            ("[lint] $ golangci-lint run ./...\n0 issues.", "golangci-lint run ./..."),
            ("[test:ci] $ go test -race ./...\nok", ""),
            ("ok  \texample.com/pkg\t0.1s", ""),
            ("collected 3 items\n" * 10 + "$ late echo", ""),
            ("> Configure project :app\n> Task :lint FAILED\n", ""),
        ],
    )  # fmt: skip
    def test_the_command_a_runner_echoed_before_the_script(self, output: str, command: str) -> None:
        """bun and yarn echo "$ cmd", npm and pnpm "> pkg@version script" then "> cmd", mise
        "[task] $ cmd"; only in the first lines, before the script's own output."""
        assert check_output.script_command(output, "lint") == command

    def test_a_script_s_line_names_what_it_ran(self) -> None:
        memory = derive(
            user("fix lint"),
            call("Bash", {"command": "bun run lint"}, exit_code=0,
                 result="$ biome check --error-on-warnings\nChecked 286 files. No fixes applied."),
        )  # fmt: skip
        assert texts(memory.verification_status) == [
            "`bun run lint` (runs “biome check --error-on-warnings”)"
        ]


def test_a_failed_script_s_line_is_not_its_runner_s_echo() -> None:
    """ "[test:ci] $ go test -race ./..." says what ran, not why it failed."""
    output = "[test:ci] $ go test -race ./...\n> eslint .\nFAIL\texample.com/sem\t3.2s\n"
    assert failure_line(output) == "FAIL\texample.com/sem\t3.2s"


class TestGrepFilteredRun:
    _ERRORS = "src/api.test.ts(29,39): error TS2345: Argument of type 'null' is not assignable"

    def test_a_run_filtered_to_a_name_stands_for_no_broader_run(self) -> None:
        """`tsc | grep ezoic || echo "No errors in ezoic files"` passes for the ezoic files:
        the whole project's type errors stay, their failure open."""
        memory = derive(
            user("fix the ads"),
            bash("npx tsc --noEmit", self._ERRORS, "c1", exit_code=2),
            bash('npx tsc --noEmit | grep -E "ezoic" || echo "No errors in ezoic files"',
                 "No errors in ezoic files", "c2"),
        )  # fmt: skip
        statuses = [item.status for item in memory.verification_status]
        assert statuses == ["failed", "passed"]
        assert [item.status for item in memory.failed_attempts] == ["open"]

    def test_a_run_filtered_for_problems_stands_for_the_whole_run(self) -> None:
        """`tsc | grep -iE "error|issue"` that prints nothing found no problem at all."""
        memory = derive(
            user("fix the types"),
            bash("npx tsc --noEmit", self._ERRORS, "c1", exit_code=2),
            bash('npx tsc --noEmit | grep -iE "error|issue"', "", "c2"),
        )  # fmt: skip
        assert [item.status for item in memory.verification_status] == ["passed"]
        assert [item.status for item in memory.failed_attempts] == ["resolved"]

    def test_a_run_whose_filter_drops_some_failures_stands_for_no_broader_run(self) -> None:
        """`pytest | grep FAILED | grep -v "retriever"` that prints nothing says no test
        failed but those it dropped: the whole suite's failures stay, their failure open,
        and the filtered run shows no verdict of its own."""
        failed = "FAILED tests/test_retriever.py::test_a - assert 0 == 1\n1 failed, 9 passed in 1s"
        memory = derive(
            user("fix the retriever"),
            bash("uv run pytest tests/ -q", failed, "c1", exit_code=1),
            bash('uv run pytest tests/ -q | grep "FAILED" | grep -v "retriever\\|rag"', "", "c2"),
        )  # fmt: skip
        assert [item.status for item in memory.verification_status] == ["failed", "warning"]
        assert [item.status for item in memory.failed_attempts] == ["open"]


def test_a_commit_whose_pre_commit_hooks_passed_ran_its_checkers() -> None:
    """`git commit` with the pre-commit framework prints the hooks it ran: "ruff....Passed"
    is a pass of ruff (its FAILED line goes, and its failure, a linter's finding fixed); a
    hook skipped for no files, or one the check table does not know, is no run."""
    failed = bash("uv run ruff check src/main.py", "F401 `os` imported but unused\nFound 1 error",
                  "c1", exit_code=1)  # fmt: skip
    hooks = (
        "trim trailing whitespace.................................................Passed\n"
        "black....................................................................Passed\n"
        "mypy.................................................(no files to check)Skipped\n"
        "ruff.....................................................................{}\n"
        "[main d78f8f0] fix: use os\n 1 file changed, 2 insertions(+)\n"
    )
    passed = derive(failed, bash("git commit -m 'fix: use os'", hooks.format("Passed"), "c2"))
    assert passed.verification_status == passed.failed_attempts == ()  # a linter's, fixed
    skipped = hooks.format("(no files to check)Skipped").replace("ruff....", "ruff")
    kept = derive(failed, bash("git commit -m 'fix: use os'", skipped, "c2"))
    assert [v.status for v in kept.verification_status] == ["failed"]
    assert [f.status for f in kept.failed_attempts] == ["open"]
