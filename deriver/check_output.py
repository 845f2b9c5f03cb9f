"""Check output and exit codes: the counts a test, build or lint run printed, whether it
passed, and an exit code printed in tool output.

Total, deterministic, free of I/O; only the head and tail of a large output are read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

__all__ = [
    "CheckCounts",
    "check_passed",
    "exit_code_from_output",
    "parse_check_output",
]


@dataclass(frozen=True, slots=True)
class CheckCounts:
    """Result counts from a check's summary line; None where the tool does not report one."""

    passed: int | None = None
    failed: int | None = None
    errors: int | None = None
    skipped: int | None = None


# Summaries are printed at the end; scanning only the tail bounds the work on huge outputs.
_MAX_SUMMARY_SCAN: Final = 8192
_ANSI_RE: Final = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
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
_CARGO_RE: Final = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored", re.MULTILINE
)
_FOUND_RE: Final = re.compile(
    r"^Found (\d+) errors?\b(?:[^\n(]*\((\d+) fixed, (\d+) remaining\))?", re.MULTILINE
)
_MYPY_SUCCESS_RE: Final = re.compile(r"^Success: no issues found", re.MULTILINE)
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
_DOTNET_RE: Final = re.compile(
    r"^\s*(?:Passed|Failed)!\s+-\s+Failed:\s+(\d+),\s+Passed:\s+(\d+),\s+Skipped:\s+(\d+)",
    re.MULTILINE,
)
_CTEST_RE: Final = re.compile(r"^\d+% tests passed, (\d+) tests? failed out of (\d+)", re.MULTILINE)
_SUCCESS_RE: Final = re.compile(
    r"^(?:Success: no issues found|All checks passed!|OK\b|test result: ok\."
    r"|[ \t]*0 errors?, \d+ warnings?, \d+ informations?|Found 0 errors)",
    re.MULTILINE,
)

_Summary = tuple[int, CheckCounts]  # (end offset in the scanned tail, counts)


def _tail(text: str, limit: int) -> str:
    tail = text[-limit:] if len(text) > limit else text
    return _ANSI_RE.sub("", tail).replace("\r\n", "\n")


# A literal that every match of a summary pattern contains: a substring search rules most
# patterns out at once, where a pattern anchored at line starts tries every position. Keyed
# by the pattern's text: hashing a compiled pattern hashes its whole program.
_NEEDLES: Final[Mapping[str, str]] = {
    _PYTEST_RE.pattern: "in ",
    _UNITTEST_RE.pattern: "Ran ",
    _JEST_RE.pattern: "Tests:",
    _VITEST_RE.pattern: "Tests",
    _MOCHA_RE.pattern: " passing (",
    _MOCHA_FAILING_RE.pattern: " failing",
    _CARGO_RE.pattern: "test result: ",
    _FOUND_RE.pattern: "Found ",
    _MYPY_SUCCESS_RE.pattern: "Success: no issues found",
    _RUFF_SUCCESS_RE.pattern: "All checks passed!",
    _PYRIGHT_RE.pattern: " warning",
    _ESLINT_RE.pattern: " problem",
    _RSPEC_RE.pattern: " example",
    _PHPUNIT_OK_RE.pattern: "OK (",
    _PHPUNIT_RE.pattern: ", Assertions: ",
    _MAVEN_RE.pattern: "Tests run: ",
    _DOTNET_RE.pattern: "Failed:",
    _CTEST_RE.pattern: "% tests passed, ",
}
# Patterns that match only at a line start and never across a line break: only a line that
# holds the needle can match, so the last match is found from the end, one such line at a
# time, instead of by trying every position of the text.
_ONE_LINE: Final = frozenset(
    {
        _PYTEST_RE.pattern,
        _JEST_RE.pattern,
        _VITEST_RE.pattern,
        _MOCHA_FAILING_RE.pattern,
        _FOUND_RE.pattern,
        _MYPY_SUCCESS_RE.pattern,
        _RUFF_SUCCESS_RE.pattern,
        _PYRIGHT_RE.pattern,
        _ESLINT_RE.pattern,
        _RSPEC_RE.pattern,
        _PHPUNIT_OK_RE.pattern,
        _PHPUNIT_RE.pattern,
        _CTEST_RE.pattern,
    }
)


def _matches(pattern: re.Pattern[str], text: str) -> Iterable[re.Match[str]]:
    """Every match of ``pattern`` in ``text``; none at once when the text lacks its needle."""
    return pattern.finditer(text) if _NEEDLES.get(pattern.pattern, "") in text else ()


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``."""
    needle = _NEEDLES.get(pattern.pattern, "")
    if needle not in text:
        return None
    if pattern.pattern in _ONE_LINE:
        end = len(text)
        while (hit := text.rfind(needle, 0, end)) >= 0:
            start = text.rfind("\n", 0, hit) + 1
            match = pattern.match(text, start)
            if match is not None:
                return match
            end = start
        return None
    found: re.Match[str] | None = None
    for match in pattern.finditer(text):
        found = match
    return found


def _words_counts(text: str, extra_failed: Iterable[str] = ()) -> dict[str, int]:
    counts: dict[str, int] = {}
    for number, word in _COUNT_WORD_RE.findall(text):
        key = word.lower()
        counts[key] = counts.get(key, 0) + int(number)
    for key in extra_failed:
        counts.setdefault(key, 0)
    return counts


def _pytest(text: str) -> _Summary | None:
    match = _last(_PYTEST_RE, text)
    if match is None:
        return None
    words = _words_counts(match.group(1))
    return match.end(), CheckCounts(
        passed=words.get("passed", 0) + words.get("xpassed", 0),
        failed=words.get("failed", 0),
        errors=words.get("error", 0) + words.get("errors", 0),
        skipped=words.get("skipped", 0) + words.get("xfailed", 0),
    )


def _unittest(text: str) -> _Summary | None:
    match = _last(_UNITTEST_RE, text)
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
    return match.end(), CheckCounts(
        passed=max(ran - failed - errors - skipped, 0),
        failed=failed,
        errors=errors,
        skipped=skipped,
    )


def _jest(text: str) -> _Summary | None:
    found: _Summary | None = None
    jest = _last(_JEST_RE, text)
    if jest is not None:
        words = _words_counts(jest.group(1))
        found = (
            jest.end(),
            CheckCounts(
                passed=words.get("passed", 0),
                failed=words.get("failed", 0),
                skipped=words.get("skipped", 0) + words.get("todo", 0) + words.get("pending", 0),
            ),
        )
    vitest = _last(_VITEST_RE, text)
    if vitest is not None and (found is None or vitest.end() > found[0]):
        words = _words_counts(vitest.group(1))
        found = (
            vitest.end(),
            CheckCounts(
                passed=words.get("passed", 0),
                failed=words.get("failed", 0),
                skipped=words.get("skipped", 0) + words.get("todo", 0),
            ),
        )
    return found


def _mocha(text: str) -> _Summary | None:
    match = _last(_MOCHA_RE, text)
    if match is None:
        failing = _last(_MOCHA_FAILING_RE, text)
        if failing is None:
            return None
        return failing.end(), CheckCounts(failed=int(failing.group(1)))
    return match.end(), CheckCounts(
        passed=int(match.group(1)),
        failed=int(match.group(3) or 0),
        skipped=int(match.group(2) or 0),
    )


def _go(text: str) -> _Summary | None:
    tests = {"--- PASS": 0, "--- FAIL": 0, "--- SKIP": 0}
    packages_ok = packages_failed = 0
    end = -1
    for match in _GO_RE.finditer(text):
        end = match.end()
        if match.group(1):
            tests[match.group(1)] += 1
        elif match.group(2):
            packages_ok += 1
        else:
            packages_failed += 1
    if end < 0:
        return None
    # Without -v only failing tests are listed; the packages then stand for the passes.
    passed = tests["--- PASS"] or packages_ok
    failed = tests["--- FAIL"] or packages_failed
    return end, CheckCounts(passed=passed, failed=failed, skipped=tests["--- SKIP"])


def _cargo(text: str) -> _Summary | None:
    # One run prints a result line per test binary (unit, integration, doc tests): sum them.
    passed = failed = ignored = 0
    end = -1
    for match in _matches(_CARGO_RE, text):
        end = match.end()
        passed += int(match.group(1))
        failed += int(match.group(2))
        ignored += int(match.group(3))
    if end < 0:
        return None
    return end, CheckCounts(passed=passed, failed=failed, skipped=ignored)


def _linters(text: str) -> _Summary | None:
    candidates: list[_Summary] = []
    found = _last(_FOUND_RE, text)
    if found is not None:
        errors = int(found.group(3) if found.group(3) is not None else found.group(1))
        candidates.append((found.end(), CheckCounts(errors=errors)))
    for pattern in (_MYPY_SUCCESS_RE, _RUFF_SUCCESS_RE):
        success = _last(pattern, text)
        if success is not None:
            candidates.append((success.end(), CheckCounts(errors=0)))
    pyright = _last(_PYRIGHT_RE, text)
    if pyright is not None:
        candidates.append((pyright.end(), CheckCounts(errors=int(pyright.group(1)))))
    eslint = _last(_ESLINT_RE, text)
    if eslint is not None:
        candidates.append((eslint.end(), CheckCounts(errors=int(eslint.group(1)))))
    return max(candidates, key=lambda summary: summary[0]) if candidates else None


def _rspec(text: str) -> _Summary | None:
    match = _last(_RSPEC_RE, text)
    if match is None:
        return None
    examples, failures = int(match.group(1)), int(match.group(2))
    pending = int(match.group(3) or 0)
    return match.end(), CheckCounts(
        passed=max(examples - failures - pending, 0),
        failed=failures,
        errors=int(match.group(4) or 0),
        skipped=pending,
    )


def _phpunit(text: str) -> _Summary | None:
    candidates: list[_Summary] = []
    ok = _last(_PHPUNIT_OK_RE, text)
    if ok is not None:
        candidates.append((ok.end(), CheckCounts(passed=int(ok.group(1)), failed=0, errors=0)))
    full = _last(_PHPUNIT_RE, text)
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
        candidates.append((full.end(), counts))
    return max(candidates, key=lambda summary: summary[0]) if candidates else None


def _maven(text: str) -> _Summary | None:
    match = _last(_MAVEN_RE, text)
    if match is None:
        return None
    run, failures, errors, skipped = (int(group) for group in match.groups())
    return match.end(), CheckCounts(
        passed=max(run - failures - errors - skipped, 0),
        failed=failures,
        errors=errors,
        skipped=skipped,
    )


def _dotnet(text: str) -> _Summary | None:
    match = _last(_DOTNET_RE, text)
    if match is None:
        return None
    failed, passed, skipped = (int(group) for group in match.groups())
    return match.end(), CheckCounts(passed=passed, failed=failed, skipped=skipped)


def _ctest(text: str) -> _Summary | None:
    match = _last(_CTEST_RE, text)
    if match is None:
        return None
    failed, total = int(match.group(1)), int(match.group(2))
    return match.end(), CheckCounts(passed=max(total - failed, 0), failed=failed)


_Parser = Callable[[str], "_Summary | None"]
_PARSERS: Final[tuple[_Parser, ...]] = (
    _pytest,
    _unittest,
    _jest,
    _mocha,
    _go,
    _cargo,
    _linters,
    _rspec,
    _phpunit,
    _maven,
    _dotnet,
    _ctest,
)
# The check name picks the parser to trust first; "npm test", "make test" and friends can run
# anything, so they (and a preferred parser that finds nothing) fall back to all parsers.
_PREFERRED_PARSER: Final[Mapping[str, _Parser]] = {
    "pytest": _pytest,
    "tox": _pytest,
    "nox": _pytest,
    "unittest": _unittest,
    "django test": _unittest,
    "nose2": _unittest,
    "jest": _jest,
    "vitest": _jest,
    "mocha": _mocha,
    "go test": _go,
    "cargo test": _cargo,
    "mypy": _linters,
    "ruff": _linters,
    "tsc": _linters,
    "pyright": _linters,
    "eslint": _linters,
    "rspec": _rspec,
    "phpunit": _phpunit,
    "mvn test": _maven,
    "mvn verify": _maven,
    "dotnet test": _dotnet,
    "ctest": _ctest,
}


def parse_check_output(name: str, output: str) -> CheckCounts | None:
    """Counts from the last summary line in a check's output, or None when there is none.

    Understands pytest, unittest, jest, vitest, mocha, go test, cargo test, mypy, ruff, tsc,
    pyright, eslint, rspec, phpunit, Maven surefire, dotnet test and ctest. Only the last
    ~8 KB of ``output`` are read.
    """
    if not isinstance(output, str) or not output:
        return None
    text = _tail(output, _MAX_SUMMARY_SCAN)
    preferred = _PREFERRED_PARSER.get(name) if isinstance(name, str) else None
    if preferred is not None:
        summary = preferred(text)
        if summary is not None:
            return summary[1]
    best: _Summary | None = None
    for parser in _PARSERS:
        summary = parser(text)
        if summary is not None and (best is None or summary[0] > best[0]):
            best = summary
    return best[1] if best is not None else None


def check_passed(exit_code: int | None, counts: CheckCounts | None, output: str) -> bool | None:
    """Whether a check passed: the exit code decides when known, then the counts, then an
    explicit success summary ("OK", "All checks passed!", ...); None when nothing says.
    """
    if isinstance(exit_code, int) and not isinstance(exit_code, bool):
        return exit_code == 0
    if counts is not None:
        if (counts.failed or 0) > 0 or (counts.errors or 0) > 0:
            return False
        if (counts.passed or 0) > 0:
            return True
    if isinstance(output, str) and _SUCCESS_RE.search(_tail(output, _MAX_SUMMARY_SCAN)):
        return True
    return None


_EXIT_SCAN: Final = 2048
_EXIT_LINE_RE: Final = re.compile(
    r"""^[ \t>*\[(\#-]*(?:error:[ \t]*)?
    (?:
        (?:command[ \t]+failed[ \t]+with[ \t]+|process[ \t]+exited[ \t]+with[ \t]+)?
        exit[ \t_]?code
      | (?:[\w./-]+[ \t]+){0,3}exited[ \t]+with[ \t]+(?:exit[ \t]+)?code
    )
    [ \t]*[:=]?[ \t]*(-?\d{1,5})\b""",
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)


def exit_code_from_output(text: str) -> int | None:
    """A process exit code printed in tool output ("Exit code: 2", "Process exited with code
    1"...), looking only at the first and last ~2 KB.
    """
    if not isinstance(text, str) or not text:
        return None
    if len(text) <= 2 * _EXIT_SCAN:
        head, tail = text, ""
    else:
        head, tail = text[:_EXIT_SCAN], text[-_EXIT_SCAN:]
    match = _EXIT_LINE_RE.search(head)
    if match is None and tail:
        match = _last(_EXIT_LINE_RE, tail)
    return int(match.group(1)) if match is not None else None
