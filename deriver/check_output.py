"""Check output and exit codes: the counts a test, build or lint run printed, whether it
passed, and an exit code printed in tool output.

Total, deterministic, free of I/O; only the head and tail of a large output are read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple

from deriver.check_commands import parser_of
from deriver.output_scan import LinePattern, tail
from session_memory.core.outcome import ELIDED

__all__ = [
    "PARSERS",
    "CheckCounts",
    "CheckSummary",
    "is_script_echo",
    "parse_check_output",
    "script_command",
    "summarize_check",
]


@dataclass(frozen=True, slots=True)
class CheckCounts:
    """Result counts from a check's summary line; None where the tool does not report one."""

    passed: int | None = None
    failed: int | None = None
    errors: int | None = None
    skipped: int | None = None


# Summaries are printed at the end; scanning only the tail bounds the work on huge outputs.
MAX_SUMMARY_SCAN: Final = 8192
_FIRST_NUMBER_RE: Final = re.compile(r"\d[^\n]*")
_COUNT_WORD_RE: Final = re.compile(r"(\d+)\s+([a-z]+)", re.IGNORECASE)

_PYTEST_RE: Final = re.compile(
    r"^=*[ \t]*((?:\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|warnings?|errors?"
    r"|rerun)(?:, )?)+|no tests ran)[ \t]+in [\d.]+s\b",
    re.MULTILINE,
)
_UNITTEST_RE: Final = re.compile(
    r"^Ran (\d+) tests? in [^\n]*\n(?:[ \t]*\n)*[ \t]*(OK|FAILED)(?:[ \t]*\(([^)\n]*)\))?",
    re.MULTILINE,
)
_JEST_RE: Final = re.compile(r"^Tests:[ \t]+([^\n]*?\d+ total)", re.MULTILINE)
_VITEST_RE: Final = re.compile(
    r"^[ \t]*Tests[ \t]+((?:\d+ [a-z]+(?:[ \t]*\|[ \t]*)?)+)[ \t]*\((\d+)\)", re.MULTILINE
)
# vitest's "Test Files  11 failed | 4 passed (15)": a file that did not load ran no test.
_VITEST_FILES_RE: Final = re.compile(r"^[ \t]*Test Files[ \t]+((?:\d+ [a-z]+[ \t|]*)+)", re.M)
_MOCHA_RE: Final = re.compile(
    r"^[ \t]*(\d+) passing \([^)\n]*\)[ \t]*\n(?:[ \t]*(\d+) pending[ \t]*\n)?"
    r"(?:[ \t]*(\d+) failing[ \t]*$)?",
    re.MULTILINE,
)
_MOCHA_FAILING_RE: Final = re.compile(r"^[ \t]*(\d+) failing[ \t]*$", re.MULTILINE)
_GO_RE: Final = re.compile(
    r"^(?:(--- (?:PASS|FAIL|SKIP)): |(ok)[ \t]+\S+[ \t]+(?:[\d.]+s|\(cached\))"
    r"|(FAIL)[ \t]+\S+[ \t]+(?:[\d.]+s|\[))",
    re.MULTILINE,
)
_CARGO_WORDS: Final = "test result: "
_CARGO_SCAN: Final = 1 << 20
"""How much of a long ``cargo test`` output is read for its result lines: all of it, up to
a megabyte."""
_CARGO_RE: Final = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored", re.MULTILINE
)
_FOUND_RE: Final = re.compile(
    r"^Found (\d+) errors?\b(?:[^\n(]*\((\d+) fixed, (\d+) remaining\))?", re.MULTILINE
)
_MYPY_SUCCESS_RE: Final = re.compile(r"^Success: no issues found(?: in \d+ source files?)?", re.M)
# golangci-lint's last word: "0 issues.", or "3 issues:" before the count per linter.
_GOLANGCI_RE: Final = re.compile(r"^(\d+) issues?[.:]$", re.MULTILINE)
_RUFF_SUCCESS_RE: Final = re.compile(r"^All checks passed!", re.MULTILINE)
_PYRIGHT_RE: Final = re.compile(
    r"^[ \t]*(\d+) errors?, (\d+) warnings?, (\d+) (?:informations?|notes?)", re.MULTILINE
)
_ESLINT_RE: Final = re.compile(
    r"^\S*[ \t]*\d+ problems? \((\d+) errors?, (\d+) warnings?\)", re.MULTILINE
)
_RSPEC_RE: Final = re.compile(
    r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?"
    r"(?:, (\d+) errors? occurred outside of examples)?",
    re.MULTILINE,
)
_PHPUNIT_OK_RE: Final = re.compile(r"^OK \((\d+) tests?, \d+ assertions?\)", re.MULTILINE)
_PHPUNIT_RE: Final = re.compile(r"^Tests: (\d+), Assertions: \d+((?:, [A-Za-z ]+: \d+)*)\.", re.M)
_MAVEN_RE: Final = re.compile(
    r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)", re.MULTILINE
)
# dotnet test's "Failed!  - Failed:     0, Passed:   254, Skipped: 0", and counts a script
# prints with their labels ("Passed: 254, Failed: 0": a summary of a runner's output piped
# through the agent's own filter).
_LABELLED_RE: Final = re.compile(
    r"^[^\n]*?\b((?i:passed|failed)):[ \t]*(\d+),[ \t]*((?i:passed|failed)):[ \t]*(\d+)"
    r"(?:,[ \t]*(?i:skipped):[ \t]*(\d+))?",
    re.MULTILINE,
)
_CTEST_RE: Final = re.compile(r"^\d+% tests passed, (\d+) tests? failed out of (\d+)", re.MULTILINE)
# XCTest (xcodebuild test, swift test): "Executed 313 tests, with 0 failures (0 unexpected)"
# after each suite, the last one the run's whole.
_XCTEST_RE: Final = re.compile(r"^[ \t]*Executed (\d+) tests?, with (\d+) failures?", re.MULTILINE)
# ExUnit: "14 doctests, 1 property, 87 tests, 0 failures, 2 excluded" (any test types).
_EXUNIT_RE: Final = re.compile(
    r"^(?:\d+ (?:doctests?|propert(?:y|ies)|tests?|features?), )+\d+ failures?"
    r"(?:, \d+ (?:excluded|skipped|invalid))*"
    r"(?: \((?:\d+ (?:excluded|skipped|invalid)(?:, )?)+\))?",
    re.MULTILINE,
)
_EXUNIT_KINDS: Final = frozenset(
    {"doctest", "doctests", "property", "properties", "test", "tests", "feature", "features"}
)
# dart / flutter analyze: one "  error - lib/a.dart:3:5 - message - code" line an issue, then
# "36 issues found." or "No issues found!"; infos alone do not fail the run.
_DART_RE: Final = re.compile(r"^[ \t]*(?:(\d+) issues? found\.|No issues found!)[ \t]*$", re.M)
_DART_ISSUE_RE: Final = re.compile(r"^[ \t]*(error|warning|info) - ", re.MULTILINE)
# credo: "42 mods/funs, found no issues." / "found 1 refactoring opportunity, 2 warnings."
# bun test: " 1309 pass", " 2 skip", " 0 fail", one count a line.
_BUN_RE: Final = re.compile(
    r"^[ \t]*(\d+) pass[ \t]*\n(?:[ \t]*(\d+) skip[ \t]*\n)?(?:[ \t]*(\d+) todo[ \t]*\n)?"
    r"[ \t]*(\d+) fail[ \t]*$",
    re.MULTILINE,
)
# node's test runner: "tests 2", "suites 0", "pass 1", "fail 1", each after an information
# sign (U+2139; the TAP reporter's "#"), one count a line.
_NODE_TEST_RE: Final = re.compile(
    r"^[ \t]*[\u2139#] tests (\d+)[ \t]*\n(?:[ \t]*[\u2139#] suites \d+[ \t]*\n)?"
    r"[ \t]*[\u2139#] pass (\d+)[ \t]*\n[ \t]*[\u2139#] fail (\d+)[ \t]*$",
    re.MULTILINE,
)
_CREDO_RE: Final = re.compile(
    r"^\d+ mods/funs, found (no issues|\d+ [a-z ]+(?:, \d+ [a-z ]+)*)\.?[ \t]*$", re.MULTILINE
)


class CheckSummary(NamedTuple):
    """A check's result as its runner summed it up: the counts, and the runner's own words
    ("14 doctests, 87 tests, 0 failures"), whitespace collapsed."""

    counts: CheckCounts
    words: str


class _Summary(NamedTuple):
    end: int  # end offset of the summary in the scanned tail
    counts: CheckCounts
    words: str


_MAX_WORDS: Final = 80


# Each summary pattern with a literal every match of it contains (see LinePattern).
_PYTEST: Final = LinePattern(_PYTEST_RE, "in ", one_line=True)
_UNITTEST: Final = LinePattern(_UNITTEST_RE, "Ran ")
_JEST: Final = LinePattern(_JEST_RE, "Tests:", one_line=True)
_VITEST: Final = LinePattern(_VITEST_RE, "Tests", one_line=True)
_MOCHA: Final = LinePattern(_MOCHA_RE, " passing (")
_MOCHA_FAILING: Final = LinePattern(_MOCHA_FAILING_RE, " failing", one_line=True)
_CARGO: Final = LinePattern(_CARGO_RE, "test result: ")
_FOUND: Final = LinePattern(_FOUND_RE, "Found ", one_line=True)
_MYPY_SUCCESS: Final = LinePattern(_MYPY_SUCCESS_RE, "Success: no issues found", one_line=True)
_GOLANGCI: Final = LinePattern(_GOLANGCI_RE, " issue", one_line=True)
_RUFF_SUCCESS: Final = LinePattern(_RUFF_SUCCESS_RE, "All checks passed!", one_line=True)
_PYRIGHT: Final = LinePattern(_PYRIGHT_RE, " warning", one_line=True)
_ESLINT: Final = LinePattern(_ESLINT_RE, " problem", one_line=True)
_RSPEC: Final = LinePattern(_RSPEC_RE, " example", one_line=True)
_PHPUNIT_OK: Final = LinePattern(_PHPUNIT_OK_RE, "OK (", one_line=True)
_PHPUNIT: Final = LinePattern(_PHPUNIT_RE, ", Assertions: ", one_line=True)
_MAVEN: Final = LinePattern(_MAVEN_RE, "Tests run: ")
_LABELLED: Final = LinePattern(_LABELLED_RE, "ailed:", one_line=True)
_CTEST: Final = LinePattern(_CTEST_RE, "% tests passed, ", one_line=True)
_XCTEST: Final = LinePattern(_XCTEST_RE, " tests, with ", one_line=True)
_EXUNIT: Final = LinePattern(_EXUNIT_RE, " failure", one_line=True)
_BUN: Final = LinePattern(_BUN_RE, " pass")
_CREDO: Final = LinePattern(_CREDO_RE, " mods/funs, found ", one_line=True)
_DART: Final = LinePattern(_DART_RE, " found", one_line=True)
_NODE_TEST: Final = LinePattern(_NODE_TEST_RE, " tests ")


def _words_counts(text: str, extra_failed: Iterable[str] = ()) -> dict[str, int]:
    counts: dict[str, int] = {}
    for number, word in _COUNT_WORD_RE.findall(text):
        key = word.lower()
        counts[key] = counts.get(key, 0) + int(number)
    for key in extra_failed:
        counts.setdefault(key, 0)
    return counts


def _summary(match: re.Match[str], counts: CheckCounts, words: str | None = None) -> _Summary:
    """A parser's finding: where its summary ends, the counts, and the runner's own words."""
    text = match.group(0) if words is None else words
    return _Summary(match.end(), counts, " ".join(text.strip(" \t=").split()))


def _pytest(text: str) -> _Summary | None:
    match = _PYTEST.last(text)
    if match is None:
        return None
    words = _words_counts(match.group(1))
    counts = CheckCounts(
        passed=words.get("passed", 0) + words.get("xpassed", 0),
        failed=words.get("failed", 0),
        errors=words.get("error", 0) + words.get("errors", 0),
        skipped=words.get("skipped", 0) + words.get("xfailed", 0),
    )
    return _summary(match, counts, match.group(1))


def _unittest(text: str) -> _Summary | None:
    match = _UNITTEST.last(text)
    if match is None:
        return None
    ran = int(match.group(1))
    details: dict[str, int] = {}
    for part in (match.group(3) or "").split(","):
        key, _, value = part.partition("=")
        if value.strip().isdigit():
            details[key.strip()] = int(value.strip())
    failed = details.get("failures", 0) + details.get("unexpected successes", 0)
    errors = details.get("errors", 0)
    skipped = details.get("skipped", 0) + details.get("expected failures", 0)
    counts = CheckCounts(
        passed=max(ran - failed - errors - skipped, 0),
        failed=failed,
        errors=errors,
        skipped=skipped,
    )
    verdict = match.group(2) + (f" ({match.group(3)})" if match.group(3) else "")
    return _summary(match, counts, f"Ran {ran} tests, {verdict}")


def _jest(text: str) -> _Summary | None:
    found: _Summary | None = None
    jest = _JEST.last(text)
    if jest is not None:
        words = _words_counts(jest.group(1))
        counts = CheckCounts(
            passed=words.get("passed", 0),
            failed=words.get("failed", 0),
            skipped=words.get("skipped", 0) + words.get("todo", 0) + words.get("pending", 0),
        )
        found = _summary(jest, counts, jest.group(1))
    vitest = _VITEST.last(text)
    if vitest is not None and (found is None or vitest.end() > found.end):
        words = _words_counts(vitest.group(1))
        files = _VITEST_FILES_RE.search(text, max(0, vitest.start() - 200), vitest.start())
        broken = _words_counts(files.group(1)).get("failed", 0) if files else 0
        broken = 0 if words.get("failed") else broken  # failed by its tests: they say so
        counts = CheckCounts(words.get("passed", 0), words.get("failed", 0), broken or None,
                             words.get("skipped", 0) + words.get("todo", 0))  # fmt: skip
        said = vitest.group(1).strip(" \t|")
        said = (
            f"Test Files {files.group(1).strip(' |')}; Tests {said}" if broken and files else said
        )
        found = _summary(vitest, counts, said)
    return found


def _mocha(text: str) -> _Summary | None:
    match = _MOCHA.last(text)
    if match is None:
        failing = _MOCHA_FAILING.last(text)
        if failing is None:
            return None
        return _summary(failing, CheckCounts(failed=int(failing.group(1))))
    counts = CheckCounts(
        passed=int(match.group(1)),
        failed=int(match.group(3) or 0),
        skipped=int(match.group(2) or 0),
    )
    words = [f"{match.group(1)} passing"]
    for group, label in ((2, "pending"), (3, "failing")):
        if match.group(group):
            words.append(f"{match.group(group)} {label}")
    return _summary(match, counts, ", ".join(words))


def _go(text: str) -> _Summary | None:
    # go prints a line per test with -v ("--- PASS: T") and one per package ("ok  pkg 0.1s").
    lines: dict[str, int] = {"--- PASS": 0, "--- FAIL": 0, "--- SKIP": 0, "ok": 0, "FAIL": 0}
    last: re.Match[str] | None = None
    for match in _GO_RE.finditer(text):
        last = match
        lines[match.group(1) or match.group(2) or "FAIL"] += 1
    if last is None:
        return None
    # Without -v only failing tests are listed; the packages then stand for the passes.
    passed = lines["--- PASS"] or lines["ok"]
    failed = lines["--- FAIL"] or lines["FAIL"]
    counts = CheckCounts(passed=passed, failed=failed, skipped=lines["--- SKIP"])
    # In go's words: the packages, else the tests.
    words = _counted(((lines["ok"], "ok"), (lines["FAIL"], "FAIL")))
    words = words or _counted(((passed, "PASS"), (failed, "FAIL")))
    return _summary(last, counts, words or "no tests")


def _counted(counts: Iterable[tuple[int, str]]) -> str:
    """``3 ok, 1 FAIL``: the counts that are not zero."""
    return ", ".join(f"{n} {label}" for n, label in counts if n)


def _cargo(text: str) -> _Summary | None:
    # One run prints a result line per test binary (unit, integration, doc tests): sum them.
    passed = failed = ignored = 0
    last: re.Match[str] | None = None
    for match in _CARGO.all(text):
        last = match
        passed += int(match.group(1))
        failed += int(match.group(2))
        ignored += int(match.group(3))
    if last is None:
        return None
    verdict = "FAILED" if failed else "ok"
    if ELIDED in text[: last.start()]:
        # Result lines were in the middle cut out of a long output: the counts left are some
        # binaries' only, so only the verdict is told.
        return _summary(last, CheckCounts(failed=failed), f"test result: {verdict}")
    counts = CheckCounts(passed=passed, failed=failed, skipped=ignored)
    words = f"test result: {verdict}. {passed} passed; {failed} failed; {ignored} ignored"
    return _summary(last, counts, words)


def _exunit(text: str) -> _Summary | None:
    match = _EXUNIT.last(text)
    if match is None:
        return None
    words = _words_counts(match.group(0))
    failures = words.get("failure", 0) + words.get("failures", 0)
    skipped = words.get("skipped", 0) + words.get("excluded", 0)
    invalid = words.get("invalid", 0)
    total = sum(n for key, n in words.items() if key in _EXUNIT_KINDS)
    counts = CheckCounts(
        passed=max(total - failures - invalid - words.get("skipped", 0), 0),
        failed=failures,
        errors=invalid,
        skipped=skipped,
    )
    return _summary(match, counts)


def _bun(text: str) -> _Summary | None:
    match = _BUN.last(text)
    if match is None:
        return None
    passed, skipped, todo, failed = (int(group or 0) for group in match.groups())
    counts = CheckCounts(passed=passed, failed=failed, skipped=skipped + todo)
    words = [f"{passed} pass"]
    for number, label in ((match.group(2), "skip"), (match.group(3), "todo")):
        if number is not None:
            words.append(f"{number} {label}")
    return _summary(match, counts, ", ".join([*words, f"{failed} fail"]))


def _node_test(text: str) -> _Summary | None:
    match = _NODE_TEST.last(text)
    if match is None:
        return None
    total, passed, failed = (int(group) for group in match.groups())
    counts = CheckCounts(passed=passed, failed=failed, skipped=max(total - passed - failed, 0))
    return _summary(match, counts, f"{total} tests, {passed} pass, {failed} fail")


def _credo(text: str) -> _Summary | None:
    match = _CREDO.last(text)
    if match is None:
        return None
    found = match.group(1)
    issues = 0 if found == "no issues" else sum(int(n) for n in re.findall(r"\d+", found))
    return _summary(match, CheckCounts(errors=issues), match.group(0).rstrip("."))


def _dart(text: str) -> _Summary | None:
    match = _DART.last(text)
    if match is None:
        return None
    shown = _DART_ISSUE_RE.findall(text, 0, match.start())
    failing = sum(level != "info" for level in shown)
    if not failing and len(shown) < int(match.group(1) or 0):
        return None  # some issues are not in the output (``| tail``): their levels unknown
    return _summary(match, CheckCounts(errors=failing), match.group(0).rstrip(".!"))


def _linters(text: str) -> _Summary | None:
    candidates: list[_Summary] = []
    found = _FOUND.last(text)
    if found is not None:
        errors = int(found.group(3) if found.group(3) is not None else found.group(1))
        candidates.append(_summary(found, CheckCounts(errors=errors)))
    for pattern in (_MYPY_SUCCESS, _RUFF_SUCCESS):
        success = pattern.last(text)
        if success is not None:
            candidates.append(_summary(success, CheckCounts(errors=0)))
    golangci = _GOLANGCI.last(text)
    if golangci is not None:
        candidates.append(_summary(golangci, CheckCounts(errors=int(golangci.group(1)))))
    pyright = _PYRIGHT.last(text)
    if pyright is not None:
        candidates.append(_summary(pyright, CheckCounts(errors=int(pyright.group(1)))))
    eslint = _ESLINT.last(text)
    if eslint is not None:
        digits = _FIRST_NUMBER_RE.search(eslint.group(0))
        words = digits.group(0) if digits is not None else eslint.group(0)
        candidates.append(_summary(eslint, CheckCounts(errors=int(eslint.group(1))), words))
    return max(candidates, key=lambda summary: summary.end) if candidates else None


def _rspec(text: str) -> _Summary | None:
    match = _RSPEC.last(text)
    if match is None:
        return None
    examples, failures = int(match.group(1)), int(match.group(2))
    pending = int(match.group(3) or 0)
    counts = CheckCounts(
        passed=max(examples - failures - pending, 0),
        failed=failures,
        errors=int(match.group(4) or 0),
        skipped=pending,
    )
    return _summary(match, counts)


def _phpunit(text: str) -> _Summary | None:
    candidates: list[_Summary] = []
    ok = _PHPUNIT_OK.last(text)
    if ok is not None:
        candidates.append(_summary(ok, CheckCounts(passed=int(ok.group(1)), failed=0, errors=0)))
    full = _PHPUNIT.last(text)
    if full is not None:
        fields: dict[str, int] = {}
        for part in full.group(2).split(","):
            key, _, value = part.partition(":")
            if value.strip().isdigit():
                fields[key.strip().lower()] = int(value.strip())
        failed, errors = fields.get("failures", 0), fields.get("errors", 0)
        skipped = fields.get("skipped", 0) + fields.get("incomplete", 0)
        total = int(full.group(1))
        counts = CheckCounts(
            passed=max(total - failed - errors - skipped, 0),
            failed=failed,
            errors=errors,
            skipped=skipped,
        )
        candidates.append(_summary(full, counts))
    return max(candidates, key=lambda summary: summary.end) if candidates else None


def _maven(text: str) -> _Summary | None:
    match = _MAVEN.last(text)
    if match is None:
        return None
    run, failures, errors, skipped = (int(group) for group in match.groups())
    counts = CheckCounts(
        passed=max(run - failures - errors - skipped, 0),
        failed=failures,
        errors=errors,
        skipped=skipped,
    )
    return _summary(match, counts)


def _labelled(text: str) -> _Summary | None:
    match = _LABELLED.last(text)
    if match is None:
        return None
    first, one, second, other, skipped = match.groups()
    found = {first.lower(): int(one), second.lower(): int(other)}
    if len(found) < 2:
        return None  # "passed: 3, passed: 4" counts no failure
    counts = CheckCounts(found["passed"], found["failed"], None, int(skipped) if skipped else None)
    return _summary(match, counts)


def _ctest(text: str) -> _Summary | None:
    match = _CTEST.last(text)
    if match is None:
        return None
    failed, total = int(match.group(1)), int(match.group(2))
    return _summary(match, CheckCounts(passed=max(total - failed, 0), failed=failed))


def _xctest(text: str) -> _Summary | None:
    match = _XCTEST.last(text)
    if match is None:
        return None
    total, failed = int(match.group(1)), int(match.group(2))
    return _summary(match, CheckCounts(passed=max(total - failed, 0), failed=failed))


_Parser = Callable[[str], "_Summary | None"]
PARSERS: Final[Mapping[str, _Parser]] = {
    "pytest": _pytest,
    "unittest": _unittest,
    "jest": _jest,
    "mocha": _mocha,
    "go": _go,
    "cargo": _cargo,
    "linters": _linters,
    "rspec": _rspec,
    "exunit": _exunit,
    "credo": _credo,
    "dart": _dart,
    "phpunit": _phpunit,
    "maven": _maven,
    "dotnet": _labelled,  # and the counts any script prints with their labels
    "ctest": _ctest,
    "xctest": _xctest,
    "bun": _bun,
    "node": _node_test,
}
"""The summary parsers by name, as the check table names them; a check without one of its
own, or whose own finds nothing, is read with all of them in this order (the summary that
ends last wins)."""


def summarize_check(name: str, output: str) -> CheckSummary | None:
    """The counts and the runner's own words of the last summary line in a check's output.

    Understands pytest, unittest, jest, vitest, mocha, go test, cargo test, ExUnit
    (``mix test``), credo, dart and flutter analyze, mypy, ruff, tsc, pyright, eslint,
    golangci-lint, rspec, phpunit, Maven surefire, dotnet test, ctest, XCTest, bun test,
    node's test runner, and counts a script prints with their labels ("Passed: 254, Failed:
    0"). A project gate (``make check``, ``just check``) echoes whatever its recipe runs, so
    it is read with all parsers, as is a run whose own parser finds nothing (its output
    filtered). Only the last ~8 KB of ``output`` are read.
    """
    if not isinstance(output, str) or not output:
        return None
    text = tail(output, MAX_SUMMARY_SCAN)
    own = parser_of(name) if isinstance(name, str) else None
    best = (PARSERS[own](text) if own is not None else None) or _last_summary(text)
    if best is None:
        return None
    if len(output) > MAX_SUMMARY_SCAN and best.words.startswith(_CARGO_WORDS):
        # cargo prints a result line per test binary, far apart in a long output (the unit
        # tests' line before all the integration tests' output): all of them are counted.
        best = _cargo(tail(output, _CARGO_SCAN)) or best
    return CheckSummary(best.counts, best.words[:_MAX_WORDS])


def _last_summary(text: str) -> _Summary | None:
    """The summary, of any parser's, that ends last (the first parser's on a tie)."""
    best: _Summary | None = None
    for parser in PARSERS.values():
        summary = parser(text)
        if summary is not None and (best is None or summary.end > best.end):
            best = summary
    return best


def parse_check_output(name: str, output: str) -> CheckCounts | None:
    """Counts from the last summary line in a check's output, or None when there is none
    (see :func:`summarize_check`)."""
    summary = summarize_check(name, output)
    return summary.counts if summary is not None else None


# What a script runner prints before it runs a script: bun and yarn "$ biome check", npm and
# pnpm "> pkg@1.0.0 lint" then "> eslint .", mise "[lint] $ golangci-lint run".
# Gradle's "> Task :test" and "> Configure project :app" say which task runs, not a command.
_SCRIPT_ECHO_RE: Final = re.compile(
    r"^(?:\[([^\]\s]+)\] )?\$ (\S.*)$|^> (?!(?:Task|Configure project) :)(\S.*)$"
)
_PACKAGE_HEADER_RE: Final = re.compile(r"^@?[^@\s]+@\S*(?: \S+){1,2}$")
"""npm's and pnpm's first echo line: the package, its version, the script (and its path)."""
_ECHO_LINES: Final = 6


def is_script_echo(line: str) -> bool:
    """Whether an output line is a script runner's echo of what it runs (it says nothing of
    how the run went)."""
    return _SCRIPT_ECHO_RE.match(line.strip()) is not None


def script_command(output: str, script: str) -> str:
    """The command the project script ``script`` ran, as its runner echoed it before the
    script's output (``bun run lint`` prints "$ biome check --error-on-warnings"); empty when
    not echoed. A task's echo counts only under the task's own name: ``mise run check`` echoes
    "[test:ci] $ go test" for a task it depends on."""
    for line in output[:2000].splitlines()[:_ECHO_LINES]:
        echo = _SCRIPT_ECHO_RE.match(line.strip())
        if echo is None or (echo.group(1) and echo.group(1) != script):
            continue
        command = echo.group(2) or echo.group(3)
        if echo.group(3) and _PACKAGE_HEADER_RE.match(command):
            continue
        return command.strip()
    return ""
