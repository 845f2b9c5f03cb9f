"""Checks in the memory: a test, build or lint run becomes a verification item.

One line per check: a check is its name and what it covers (:class:`CheckScope`); its
latest run replaces the line, and a later run that covers more (``mix test`` after
``mix test test/foo_test.exs``) settles the narrower lines. A failed run is also a failed
attempt, keyed by the check, which a later pass of the same or a broader check resolves.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable
from typing import Any, Final

from deriver.check_commands import CheckRun, detect_check, shown_command
from deriver.check_output import CheckSummary, script_command, summarize_check
from deriver.check_runners import CheckKind, gate_covers, kinds_of
from deriver.check_scope import CheckScope, names_path
from deriver.check_verdict import (
    check_passed,
    failing_tests,
    failure_line,
    lines_said,
    names_problems,
    problems_counted,
)
from deriver.ci_checks import CI_CHECKS, ci_verdict
from deriver.git_state import elsewhere
from deriver.keys import call_identity, check_key, check_of, failure_key
from deriver.output_scan import windowed
from deriver.recording import Failures, verification
from deriver.store import MemoryStore, Stamp
from deriver.wording import (
    DRIVE_RE,
    EXCERPT_CHARS,
    beside,
    code,
    describe,
    in_scratch,
    quote,
    relative,
    under,
)
from session_memory.core.redact import contain_trusted_line

__all__ = ["CheckRules", "covered_by_checks"]

_CHECK_TOOL: Final = "check"
# Failures of a check are keyed by the check, whatever ran it.
_CAUSE_TIER: Final = "resolved_failures"
_PASTED_TOOL: Final = "user"
_PUSHED_SINCE: Final = "; pushed again since"
# A test run that found nothing to run (and counted nothing): jest's "No tests found, exiting
# with code 0", pytest's "no tests ran", go's "[no tests to run]".
_NO_TESTS_RE: Final = re.compile(
    r"^No tests found|\bno tests ran\b|\bno tests to run\b", re.IGNORECASE | re.MULTILINE
)
# A run whose paths matched nothing to check: `go: warning: "./..." matched no packages`.
_MATCHED_NOTHING_RE: Final = re.compile(r"\bmatched no packages\b")
_SCAN: Final = 4096
# A check's own program not there: "zsh: command not found: nx", "bash: nx: command not found".
_ABSENT: Final = r"command not found: {0}\b|(?<![\w/.-]){0}: (?:command )?not found"
_PASTE_SCAN: Final = 16_000
_WHOLE_OUTPUT: Final = 32 * 1024
"""The longest output whose every line is read for the causes a failed run still says."""
# An output that says part of it was cut ("[3515 characters truncated]", "…1110 tokens
# truncated…", pytest's "Full output truncated"): what it does not show may still be there.
_CUT_SHORT_RE: Final = re.compile(r"\btruncated\b", re.IGNORECASE)
# A shell prompt line in a user's message, then the command: "$ pytest -q", "\u276f make
# test" (a zsh theme), "[test:ci] $ go test ./..." (a task runner's echo).
_PROMPT_RE: Final = re.compile(r"^\s*(?:\[[^\]\n]{1,60}\] )?[$\u276f%] +(\S.{0,500})$")
_MAX_TRACKED: Final = 256  # checks remembered per name; the oldest are forgotten first
_NAMES_CHARS: Final = 100
_SEP: Final = "\x00"
"""Between the parts of a check's identity: its name, directory, paths and filters."""
_NAMED_TESTS: Final = 5
"""Failing tests remembered per failed run; a run that listed more is settled only by a
broader pass."""
_CAUSE_CHARS: Final = 120
_COMMAND_CHARS: Final = 120
# Files no test, build or linter reads: changing them leaves a passing check valid.
_NOT_CHECKED_SUFFIXES: Final = (
    ".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".org", ".png", ".jpg", ".jpeg",
    ".gif", ".webp", ".ico", ".pdf",
)  # fmt: skip
_NOT_CHECKED_NAMES: Final = frozenset(
    {".gitignore", ".gitattributes", ".dockerignore", ".mailmap", ".editorconfig",
     "license", "licence", "copying", "authors", "codeowners", "notice", "changelog",
     "readme", "contributing"}
)  # fmt: skip
# A static check (a build, linter, type checker or formatter) reads the sources of its own
# language and files of none (its config, data): a change to another language's source leaves
# it valid (``cargo check`` after an edit of a Python script). A test or a gate may run
# anything: any change can change what it reports.
_LANGUAGE_OF_SUFFIX: Final = {
    ".py": "python", ".pyi": "python", ".rs": "rust", ".go": "go", ".dart": "dart",
    ".ex": "elixir", ".exs": "elixir", ".rb": "ruby", ".php": "php", ".swift": "swift",
    ".ts": "js", ".tsx": "js", ".js": "js", ".jsx": "js", ".mjs": "js", ".cjs": "js",
}  # fmt: skip
_LANGUAGE_OF_CHECK: Final = {
    "cargo": "rust", "rustfmt": "rust", "go": "go", "gofmt": "go", "golangci-lint": "go",
    "staticcheck": "go", "mypy": "python", "ruff": "python", "pyright": "python",
    "flake8": "python", "pylint": "python", "black": "python", "isort": "python",
    "dart": "dart", "flutter": "dart", "mix": "elixir", "rubocop": "ruby", "phpstan": "php",
    "psalm": "php", "swift": "swift", "tsc": "js", "eslint": "js",
}  # fmt: skip
_READ_BY_ALL: Final = frozenset({CheckKind.TEST, CheckKind.GATE})


def covered_by_checks(path: str, cwd: str | None = None) -> bool:
    """Whether changing ``path`` can change what a check reports: not for documentation,
    images and VCS ignore files (``README.md``, ``docs/x.rst``, ``.gitignore``), nor for a
    scratch file outside the session's working directory ``cwd`` (a script in ``/tmp``). A
    file of the project above ``cwd`` (the agent went into ``assets/``) is read."""
    path = path.replace("\\", "/")
    if in_scratch(path, cwd):
        return False
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(_NOT_CHECKED_SUFFIXES):
        return False
    return name not in _NOT_CHECKED_NAMES and name.split(".", 1)[0] not in _NOT_CHECKED_NAMES


# A filter that keeps only some lines of a check's output: ``tsc | grep -E "ezoic"``.
_GREP_FILTER_RE: Final = re.compile(r"\|&?\s*((?:grep|egrep|rg)\b[^|;&]*)")
# A filter that shows lines around those it keeps (``grep -B1 no-unused-vars``): what it
# prints is not only what it looked for.
_CONTEXT_FLAG_RE: Final = re.compile(r"(?:^|\s)(?:-[ABC]\s*\d*|--(?:after-|before-)?context\b)")


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name[name.rfind(".") :] if "." in name else ""


def _identity(check: CheckRun) -> str:
    scope = check.scope
    return _SEP.join((check.name, scope.directory, "\x01".join(scope.paths),
                      "\x01".join(scope.filters)))  # fmt: skip


def _name_of(identity: str) -> str:
    """The check name an identity (:func:`_identity`) starts with."""
    return identity.split(_SEP, 1)[0]


def _ran_beside(identity: str, paths: tuple[str, ...], root: str | None) -> bool:
    """Whether a check ran in a directory beside the project's (``cd ../lib && go test``),
    neither above nor below it, and none of ``paths`` is in it: they cannot change what it
    reported."""
    directory = identity.split(_SEP, 2)[1] if _SEP in identity else ""
    if not directory or not root or DRIVE_RE.match(root):
        return False
    root = posixpath.normpath(root)
    place = posixpath.normpath(posixpath.join(root, directory))
    if not beside(place, root):
        return False
    changed = (posixpath.normpath(posixpath.join(root, p)) for p in paths)
    return not any(p == place or under(p, place) for p in changed)


def _scope_state(scope: CheckScope) -> list[Any]:
    return [scope.directory, list(scope.paths), list(scope.filters)]


def _scope_of(state: list[Any]) -> CheckScope:
    directory, paths, filters = state
    return CheckScope(directory, tuple(paths), tuple(filters))


def _line(
    shown: str,
    summary: CheckSummary | None,
    passed: bool | None,
    output: str,
    unchecked: str,
    runs: str,
) -> str:
    """A check's verification line: its command (and what a project script ran), the
    runner's summary, the failing tests (or the line that says why it failed)."""
    detail = contain_trusted_line(words := summary.words if summary else "", 80)
    if passed is None and not detail:
        detail = unchecked or "outcome unknown"
    if runs:
        detail = f"runs {quote(runs, _COMMAND_CHARS)}" + (f"; {detail}" if detail else "")
    text = code(shown, _COMMAND_CHARS) + (f" ({detail})" if detail else "")
    if passed is False:
        names = failing_tests(output, 2)
        if names:
            text += ": " + quote(", ".join(names), _NAMES_CHARS)
        elif output.strip() and (why := failure_line(output, words)) != words:
            text += ": " + quote(why, EXCERPT_CHARS)  # also a linter's first error, its count
    return text


class CheckRules:
    """The verification line of each check, and the failures its runs left open."""

    def __init__(self, store: MemoryStore, failures: Failures) -> None:
        self.store = store
        self.failures = failures
        # check name -> identity -> scope: the lines shown and the failures still open
        self.lines: dict[str, dict[str, CheckScope]] = {}
        self.failing: dict[str, dict[str, CheckScope]] = {}
        self.kinds: dict[str, str] = {}
        """The kind of each check name seen (a test run, a linter, a project's gate...)."""
        self.failed_tests: dict[str, list[str]] = {}
        """Per failing run (its identity), the tests it listed as failing, when it listed
        all of them: a later run that names each and passes settles it."""

    def record(
        self, tool: str, check: CheckRun, exit_code: int | None, output: str, stamp: Stamp
    ) -> bool:
        """The check's latest run: passed, failed or unknown, in the runner's own words;
        whether it passed."""
        output = self.store.words_in_project(output)
        ci = ci_verdict(output) if check.name in CI_CHECKS else None
        summary = ci.summary if ci is not None else summarize_check(check.name, output)
        counts = summary.counts if summary is not None else None
        stages = _GREP_FILTER_RE.findall(check.command) if summary is None else []
        kept = next((s for s in stages if not names_problems(s)), None)
        if kept is not None:
            # "tsc | grep ezoic", "pytest | grep FAILED | grep -v retriever": the run shows
            # only the lines its filters kept, so it stands for no broader run. A summary that
            # shows ("5 passed") is the whole run's, and a filter for problems ("grep -iE
            # 'error|issue'", "grep -v warning") keeps all of them.
            scope = check.scope
            narrowed = CheckScope(scope.directory, scope.paths, (*scope.filters, kept))
            check = dataclasses.replace(check, scope=narrowed)
        counted = problems_counted(check.command, output)
        passed: bool | None
        if ci is not None:
            passed = ci.passed  # the checks' states, whatever gh's exit (8: some pending)
        elif counted is not None:
            # The count is the verdict (grep exits 1 when it counts none), and the summary.
            passed, summary = counted.counts.errors == 0, summary or counted
        elif kept is not None and not output.strip():
            passed = None  # "cargo test | grep 'test result'" printed nothing: no verdict shows
        elif any(_CONTEXT_FLAG_RE.search(stage) for stage in stages):
            passed = None  # lines around those the filter kept: neither verdict shows
        else:
            passed = check_passed(
                exit_code,
                counts,
                output,
                exit_is_the_checks=check.own_exit,
                silent_passes=check.kind in _SILENT_KINDS,
            )
        no_test = (
            passed is not False
            and check.kind in (CheckKind.TEST, CheckKind.GATE)  # a linter runs no tests
            and not (counts and counts.passed)
            and _NO_TESTS_RE.search(output[-_SCAN:]) is not None
        )
        nothing = passed is not False and _MATCHED_NOTHING_RE.search(output[-_SCAN:])
        unchecked = "ran no test" if no_test else "matched no code" if nothing else ""
        if unchecked:
            passed = None  # "No tests found, exiting with code 0": nothing was checked
        status = "passed" if passed else "failed" if passed is False else "warning"
        shown = shown_command(check.command)
        if place := elsewhere(check.command, self.store.cwd):
            # Run in another checkout beside the project's: that one's check, shown so.
            check = dataclasses.replace(check, name=f"{check.name} in {place}")
            shown = f"cd {place} && {shown}"
        identity = _identity(check)
        self.kinds[check.name] = check.kind
        self._settle(check, identity, stamp)
        if passed and check.kind is CheckKind.GATE:
            self._gate_passed(check, stamp)
        # A project's script says what it ran ("bun run lint": "$ biome check").
        script = shown.rsplit(None, 1)[-1] if shown.strip() else ""
        runs = script_command(output, script) if check.kind is CheckKind.GATE else ""
        text = _line(shown, summary, passed, output, unchecked, runs)
        if tool == _PASTED_TOOL:
            text += ", run by the user"
        verification(self.store, "check", status, text, stamp, key=check_key(identity))
        if passed is False:
            self._failed(tool, check, identity, shown, exit_code, output, summary, stamp)
        else:
            if passed:
                self._resolve(check, stamp)
                self._named_tests_passed(check, stamp)
            if passed or output.strip():  # what it says of a run that printed nothing is no reading
                self.failures.unread = check_key(identity)  # the agent's reading of the outcome
        return bool(passed)

    def passed_on_the_way(self, check: CheckRun, stamp: Stamp) -> None:
        """A check that passed before the one a command line is shown by (``go build ./...``
        of ``go build ./... && go test ./...``, which exited 0): that line stands for the run.
        The check's own lines it covers that are stale or failed go, and its failures are
        resolved."""
        self._drop(check.name, check.scope, stamp, lambda status: status not in (None, "passed"))
        self._resolve(check, stamp)

    def _gate_passed(self, check: CheckRun, stamp: Stamp) -> None:
        """A project's gate that passed stands for the earlier failed runs of the checks it
        runs (``mise run lint`` for a failed ``golangci-lint run``, ``make test`` for ``pytest
        tests/a.py``): their FAILED lines go, their failures are resolved. Their passes stay,
        a gate may run less than they did, but not those stale since: the gate's pass is the
        newer word on the code as it is."""
        covered = gate_covers(check.name)
        if not covered:
            return
        for name in self.lines:
            kinds = kinds_of(name, self.kinds.get(name))  # mise run rust:lint: the linters
            if name != check.name and kinds and kinds <= covered:
                self._drop(name, check.scope, stamp, lambda status: status == "stale")
        for name, failing in self.failing.items():
            if self.kinds.get(name) in covered:
                ran = list(failing.items())
            elif (kinds := kinds_of(name, self.kinds.get(name))) and kinds <= covered:
                # Another gate of those kinds that never ran ("zsh: command not found: nx"
                # of nx lint api): the gate that did run stands for it.
                ran = [(other, scope) for other, scope in failing.items() if self._absent(other)]
            else:
                continue
            for other, scope in ran:
                if check.scope.covers(scope):
                    self._settled(name, other, stamp, no_lesson=_no_lesson(check))

    def _absent(self, identity: str) -> bool:
        """Whether a failed run's line says its own program is not there: it ran nothing."""
        item = self.store.get(check_key(identity))
        said = item.text.partition("\u201c")[2] if item is not None else ""
        return re.search(_ABSENT.format(re.escape(identity.split(" ", 1)[0])), said) is not None

    def _settle(self, check: CheckRun, identity: str, stamp: Stamp) -> None:
        """Lines of narrower runs of the same check go: this run's result stands for them."""
        lines = self.lines.setdefault(check.name, {})
        self._drop(check.name, check.scope, stamp, lambda status: True, but=identity)
        lines.pop(identity, None)
        lines[identity] = check.scope
        if len(lines) > _MAX_TRACKED:
            del lines[next(iter(lines))]

    def _drop(
        self,
        name: str,
        scope: CheckScope,
        stamp: Stamp,
        goes: Callable[[str | None], bool],
        but: str = "",
    ) -> None:
        """The lines of ``name``'s runs that ``scope`` covers go (not ``but``'s) when their
        status (None: no longer shown) ``goes``."""
        lines = self.lines.get(name, {})
        for other, covered in list(lines.items()):
            item = self.store.get(check_key(other))
            if other != but and scope.covers(covered) and goes(item.status if item else None):
                del lines[other]
                if item is not None:
                    self.store.remove(item, stamp)

    def _failed(
        self,
        tool: str,
        check: CheckRun,
        identity: str,
        shown: str,
        exit_code: int | None,
        output: str,
        summary: CheckSummary | None,
        stamp: Stamp,
    ) -> None:
        why = failure_line(output, summary.words if summary is not None else "") or "failed"
        what = describe(tool, shown)
        if exit_code:
            what += f" exited {exit_code}"
        excerpt = quote(why, _CAUSE_CHARS)
        self._causes_gone(check, identity, output, summary, excerpt, stamp)
        # One failed attempt per cause: each thing that went wrong on the way is a lesson,
        # the same cause again counts up; a pass of the check resolves them all.
        self.failures.record(
            "check_failed", _CHECK_TOOL, identity, f"{what}: {excerpt}", stamp, excerpt
        )
        # The check's FAILED line already says that it fails: its causes are history, kept
        # below the open failures of other actions and evicted before them.
        item = self.store.get(failure_key(call_identity(_CHECK_TOOL, identity), excerpt))
        if item is not None:
            self.store.update(item, stamp, tier=_CAUSE_TIER, touch=False)
        failing = self.failing.setdefault(check.name, {})
        failing[identity] = check.scope
        if len(failing) > _MAX_TRACKED:
            del failing[next(iter(failing))]
        names = failing_tests(output, _NAMED_TESTS + 1)
        if 0 < len(names) <= _NAMED_TESTS:
            self.failed_tests[identity] = list(names)
        else:
            self.failed_tests.pop(identity, None)
        if len(self.failed_tests) > _MAX_TRACKED:
            del self.failed_tests[next(iter(self.failed_tests))]

    def _causes_gone(
        self,
        check: CheckRun,
        identity: str,
        output: str,
        summary: CheckSummary | None,
        excerpt: str,
        stamp: Stamp,
    ) -> None:
        """A run that fails again, its whole output seen, no longer says the causes of the
        earlier runs it does not show: they were fixed (an import order fixed while other
        errors remain). Each is resolved as a pass would resolve it."""
        if (
            len(output) >= _WHOLE_OUTPUT
            or _GREP_FILTER_RE.search(check.command)
            or windowed(check.command, output)
            or _CUT_SHORT_RE.search(output)
        ):
            return  # a view cut short: what it does not show may still be there
        prefix = str(failure_key(call_identity(_CHECK_TOOL, identity), ""))
        earlier = [
            item
            for item in self.store.items_of("failed_attempts")
            if item.status == "open" and item.key is not None and item.key.startswith(prefix)
        ]
        if not earlier:
            return
        said = lines_said(output, summary.words if summary is not None else "")
        shown = {quote(text, _CAUSE_CHARS) for text in said if text}
        if excerpt not in shown:
            return  # causes read otherwise than this run's own
        for item in earlier:
            if item.key is not None and item.key[len(prefix) :] not in shown:
                self.failures.settle(item.key, stamp, no_lesson=_no_lesson(check))

    def formatted(self, command: str, stamp: Stamp) -> None:
        """A formatter run to write (``cargo fmt`` after ``cargo fmt --check`` failed, ``ruff
        format .``) fixed what its check reported: those FAILED lines go, and their failures
        with no lesson. Told only while a formatter's check is failing."""
        failing = [n for n, f in self.failing.items() if f and self.kinds.get(n) is _FORMAT]
        check = detect_check(f"{command} --check") if failing else None
        if check is None or check.kind is not _FORMAT or check.name not in failing:
            return
        for identity, scope in list(self.failing[check.name].items()):
            if check.scope.covers(scope):
                self._settled(check.name, identity, stamp, no_lesson=True)

    def _named_tests_passed(self, check: CheckRun, stamp: Stamp) -> None:
        """A pass of a run that names each test an earlier run listed as failing (``go test
        -run 'TestA|TestB'``, ``pytest tests/a.py::test_b``, after ``mise run check`` failed
        on them): that run's failure is fixed, and its FAILED line goes, as when the run
        passes again."""
        scope = check.scope
        named = " ".join((*scope.filters, *scope.paths))
        if not named or not self.failed_tests:
            return
        for identity, names in list(self.failed_tests.items()):
            if all(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", named) for n in names):
                self._settled(_name_of(identity), identity, stamp)

    def _settled(self, name: str, identity: str, stamp: Stamp, *, no_lesson: bool = False) -> None:
        """A failed run that a later pass stands for: its failure is resolved (gone with
        ``no_lesson``), and its FAILED line goes."""
        self.failing.get(name, {}).pop(identity, None)
        self.failed_tests.pop(identity, None)
        self.failures.resolve(_CHECK_TOOL, identity, stamp, no_lesson=no_lesson)
        item = self.store.get(check_key(identity))
        if item is not None and item.status == "failed":
            self.lines.get(name, {}).pop(identity, None)
            self.store.remove(item, stamp)

    def _resolve(self, check: CheckRun, stamp: Stamp) -> None:
        """A pass resolves the failures of the same check and of the narrower runs it covers."""
        failing = self.failing.get(check.name)
        if not failing:
            return
        for identity, scope in list(failing.items()):
            if check.scope.covers(scope):
                del failing[identity]
                self.failed_tests.pop(identity, None)
                self.failures.resolve(_CHECK_TOOL, identity, stamp, no_lesson=_no_lesson(check))

    def pushed(self, stamp: Stamp) -> None:
        """A push since CI's checks were listed: what they said is of an earlier commit. Their
        lines say so, and the failures they listed are history (the push may hold the fix)
        until CI's checks are listed again."""
        for item in self.store.items_of("verification_status"):
            if item.kind == "check" and item.key and _by_ci(_name_of(check_of(item.key))):
                self.store.update(item, stamp, status="earlier_push", touch=False)
        prefixes = tuple(
            str(failure_key(call_identity(_CHECK_TOOL, identity), ""))
            for name, failing in self.failing.items() if _by_ci(name)
            for identity in failing
        )  # fmt: skip
        for item in self.store.items_of("failed_attempts") if prefixes else ():
            if item.status == "open" and str(item.key).startswith(prefixes):
                text = item.text.removesuffix(_PUSHED_SINCE) + _PUSHED_SINCE
                self.store.update(item, stamp, text=text, touch=False)

    def pasted(self, text: str, stamp: Stamp) -> bool:
        """A check the user ran and pasted into a message, its prompt line (``$ pytest``,
        ``\u276f mise run test``) and then its output: its run as any other, when it is the
        last command pasted (the runner's summary decides: there is no exit code). After it,
        another command's prompt line (a script's next step: ``$ bun publish``) says that what
        follows is not its output."""
        check, start = None, 0
        lines = text[:_PASTE_SCAN].splitlines()
        for i, text_line in enumerate(lines):
            if (prompt := _PROMPT_RE.match(text_line)) is not None:
                check, start = detect_check(prompt.group(1)), i
        if check is None:
            return False
        output = "\n".join(lines[start + 1 :])
        if not output.strip():
            return False
        self.record(_PASTED_TOOL, check, None, output, stamp)
        return True

    @staticmethod
    def run_pasted(text: str) -> bool:
        """Whether a message opens with the prompt line of a check the user ran: it is the
        run's output, pasted, with no request of its own before it."""
        prompt = _PROMPT_RE.match(text.lstrip()[:_PASTE_SCAN].split("\n", 1)[0])
        return prompt is not None and detect_check(prompt.group(1)) is not None

    def edited(self, paths: tuple[str, ...], stamp: Stamp) -> None:
        """An edit after a passing check: the check no longer says the code passes, unless
        only files no check reads changed."""
        store = self.store
        passed = [
            item
            for item in store.items_of("verification_status")
            if item.kind == "check" and item.status == "passed"
        ]
        # Most edits come after the checks went stale: which files a check reads is asked
        # only while one passes.
        if not passed or (paths and not any(covered_by_checks(p, store.cwd) for p in paths)):
            return
        languages = {_LANGUAGE_OF_SUFFIX.get(_suffix(p)) for p in paths}
        for item in passed:
            identity = check_of(item.key) if item.key is not None else ""
            if paths and _ran_beside(identity, paths, store.root or store.cwd):
                continue
            name = _name_of(identity)
            scope = self.lines.get(name, {}).get(identity)
            if paths and scope and self.kinds.get(name) in _STYLE_KINDS:
                # From where the session is now and from the project's root (the linter ran
                # in one of them); a path above both may be any of the linter's.
                shown = {relative(p, base) or p for p in paths for base in (store.cwd, store.root)}
                if not any(p.startswith("../") or names_path(scope, p) for p in shown):
                    continue  # a linter of lib/ read nothing of test/
            language = _LANGUAGE_OF_CHECK.get(name.split(" ", 1)[0])
            static = self.kinds.get(name) not in _READ_BY_ALL
            # Stale unless a static check of one language saw only other languages change.
            if not (static and language and paths) or {None, language} & languages:
                store.update(item, stamp, status="stale", touch=False)

    # -- snapshots ----------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        def dump(table: dict[str, dict[str, CheckScope]]) -> dict[str, Any]:
            return {
                name: [[identity, _scope_state(scope)] for identity, scope in checks.items()]
                for name, checks in table.items()
            }

        return {
            "lines": dump(self.lines),
            "failing": dump(self.failing),
            "kinds": self.kinds,
            "failed_tests": self.failed_tests,
        }

    def load_state(self, state: dict[str, Any] | None) -> None:
        def load(table: dict[str, Any]) -> dict[str, dict[str, CheckScope]]:
            return {
                name: {identity: _scope_of(scope) for identity, scope in checks}
                for name, checks in table.items()
            }

        state = state or {}
        self.lines = load(state.get("lines", {}))
        self.failing = load(state.get("failing", {}))
        self.kinds = dict(state.get("kinds", {}))
        self.failed_tests = {k: list(v) for k, v in state.get("failed_tests", {}).items()}


_FORMAT: Final = CheckKind.FORMAT
_STYLE_KINDS: Final = frozenset({CheckKind.LINT, _FORMAT})
_SILENT_KINDS: Final = _STYLE_KINDS | {CheckKind.TYPECHECK, CheckKind.BUILD}
"""Checks that print nothing when all is well (``git diff --check``, ``tsc``, ``go build``)."""


def _by_ci(name: str) -> bool:
    """Whether a check's name (``gh pr checks``, ``gh pr checks in ../lib``) is CI's."""
    return name.split(" in ", 1)[0] in CI_CHECKS


def _no_lesson(check: CheckRun) -> bool:
    """Whether the failures a pass of ``check`` resolves leave no lesson: a linter's or a
    formatter's findings, fixed, are in the code now (a test's or a build's failure says how
    the code behaved, and stays)."""
    if check.kind is CheckKind.GATE:
        covered = gate_covers(check.name)
        return bool(covered) and covered <= _STYLE_KINDS
    return check.kind in _STYLE_KINDS
