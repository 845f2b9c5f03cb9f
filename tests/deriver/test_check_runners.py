"""The check table (deriver/check_runners.py): its rows are consistent, docs/rules.md lists
them, and a runner added as docs/rules.md shows is recognised from command to memory."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from deriver import SessionMemoryDeriver, check_commands
from deriver.check_commands import CheckTable, detect_check
from deriver.check_forms import Gates, RunTargets, ScriptFile, Scripts, Tasks
from deriver.check_output import PARSERS, summarize_check
from deriver.check_runners import CHECK_RUNNERS, RUN_BY_PATH, CheckKind, CheckRunner

DOC = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
FAMILIES = (Gates, Tasks, RunTargets, Scripts, ScriptFile)
"""Forms that name a check after the targets or script a command line gives: no one name to
parse."""


def documented_row() -> CheckRunner:
    """The row docs/rules.md shows under "Adding a check runner", as Python."""
    section = DOC.split("## Adding a check runner", 1)[1]
    match = re.search(r"```python\n(.*?)\n```", section, re.DOTALL)
    assert match is not None
    names: dict[str, object] = {}
    exec(match.group(1), names)
    row = names["row"]
    assert isinstance(row, CheckRunner)
    return row


@contextmanager
def table_with(row: CheckRunner) -> Iterator[None]:
    """The fold reads a copy of the check table with ``row`` added."""
    table = check_commands.CHECKS
    check_commands.CHECKS = CheckTable((*CHECK_RUNNERS, row))
    check_commands._detect_check.cache_clear()
    try:
        yield
    finally:
        check_commands.CHECKS = table
        check_commands._detect_check.cache_clear()


def bash(command: str, output: str, exit_code: int) -> list[dict[str, Any]]:
    """A shell call from request to its finish, as native events."""
    payload = {"tool_name": "Bash", "tool_call_id": "c1", "args": {"command": command}}
    finished = {"result": output, "exit_code": exit_code}
    return [
        {"event_id": f"e{i}", "event_type": "tool_lifecycle", "session_id": "s", "run_id": "r",
         "payload": {**payload, "status": status, **(finished if i == 2 else {})}}
        for i, status in enumerate(("requested", "started", "completed"))
    ]  # fmt: skip


BATS_FAILED = (
    "1..3\nok 1 addition works\nok 2 subtraction works\nnot ok 3 division by zero\n"
    "# (in test file test/math.bats, line 12)\n\n3 tests, 1 failure\n"
)


class TestAddingARunner:
    def test_documented_row_is_recognised_from_command_to_memory(self) -> None:
        """The row docs/rules.md shows, added to the table, makes its command a check: a
        verification line in the runner's words, and a failed attempt."""
        row = documented_row()
        events = bash("bats test/ 2>&1", BATS_FAILED, 1)
        before = SessionMemoryDeriver.rebuild(events).memory
        assert not before.verification_status
        with table_with(row):
            check = detect_check("bats test/ 2>&1")
            memory = SessionMemoryDeriver.rebuild(events).memory
        assert check is not None and (check.name, check.scope.paths) == ("bats", ("test",))
        [line] = memory.verification_status
        assert (line.kind, line.status, line.text) == (
            "check",
            "failed",
            "`bats test/` (3 tests, 1 failure)",
        )
        [failure] = memory.failed_attempts
        assert failure.kind == "check_failed"
        assert detect_check("bats test/") is None  # the table is the fold's own again

    def test_documented_row_reads_its_output_with_its_parser(self) -> None:
        """The parser a row names is tried first: its summary wins over one printed later."""
        output = "3 tests, 1 failure\nRan 2 tests in 0.1s\n\nOK\n"
        with table_with(documented_row()):
            own = summarize_check("bats", output)
        plain = summarize_check("bats", output)
        assert own is not None and own.words == "3 tests, 1 failure"
        assert plain is not None and plain.words == "Ran 2 tests, OK"


class TestChecksByMeaning:
    def test_workflow_linter_is_a_check(self) -> None:
        """actionlint checks workflow files: a clean run is a passed lint check."""
        memory = SessionMemoryDeriver.rebuild(bash("actionlint", "", 0)).memory
        [line] = memory.verification_status
        assert (line.status, line.text) == ("passed", "`actionlint`")

    def test_workflow_linter_findings_fail_it(self) -> None:
        """actionlint's findings and exit 1 are a failed check with the finding quoted."""
        output = '.github/workflows/ci.yml:12:9: property "node" is not defined [expression]\n'
        memory = SessionMemoryDeriver.rebuild(bash("actionlint", output, 1)).memory
        [line] = memory.verification_status
        assert line.status == "failed" and line.text.startswith("`actionlint`")

    def test_diff_check_is_a_check_and_plain_diff_is_not(self) -> None:
        """`git diff --check` reports whitespace errors and conflict markers: a check;
        `git diff` only shows changes."""
        check = detect_check("git diff --check")
        assert check is not None and check.name == "git diff --check"
        assert detect_check("git diff --stat") is None
        memory = SessionMemoryDeriver.rebuild(bash("git diff --check", "", 0)).memory
        [line] = memory.verification_status
        assert (line.status, line.text) == ("passed", "`git diff --check`")

    @pytest.mark.parametrize(
        ("command", "name", "kind"),
        [
            ("npx playwright test e2e/login.spec.ts", "playwright test", CheckKind.TEST),
            ("npx cypress run", "cypress run", CheckKind.TEST),
            ("gotestsum ./...", "gotestsum", CheckKind.TEST),
            ("php artisan test", "artisan test", CheckKind.TEST),
            ("./vendor/bin/pest --filter Login", "pest", CheckKind.TEST),
            ("python manage.py check --deploy", "django check", CheckKind.LINT),
            ("ninja -C build", "ninja", CheckKind.BUILD),
            ("xcodebuild -scheme App test", "xcodebuild test", CheckKind.TEST),
            ("black --check .", "black", CheckKind.FORMAT),
            ("terraform validate", "terraform validate", CheckKind.LINT),
            ("terraform fmt -check", "terraform fmt", CheckKind.FORMAT),
            ("helm lint charts/api", "helm lint", CheckKind.LINT),
            ("yamllint .", "yamllint", CheckKind.LINT),
            ("npx next build", "next build", CheckKind.BUILD),
            ("npx vite build", "vite build", CheckKind.BUILD),
            ("npx astro build", "astro build", CheckKind.BUILD),
            ("npx nuxi generate", "nuxt build", CheckKind.BUILD),
            ("ng build --configuration production", "ng build", CheckKind.BUILD),
            ("gatsby build", "gatsby build", CheckKind.BUILD),
            ("mkdocs build --strict", "mkdocs build", CheckKind.BUILD),
            ("sphinx-build -b html docs docs/_build", "sphinx-build", CheckKind.BUILD),
            ("flutter build apk --release", "flutter build", CheckKind.BUILD),
            ("npx svelte-check", "svelte-check", CheckKind.TYPECHECK),
            ("bash -n scripts/setup.sh", "bash -n", CheckKind.BUILD),
            ("sh -n install.sh", "bash -n", CheckKind.BUILD),
            ("node --check scripts/release.mjs", "node --check", CheckKind.BUILD),
            ("python -m py_compile src/app.py", "py_compile", CheckKind.BUILD),
            ("python3 -m compileall -q src", "py_compile", CheckKind.BUILD),
        ],
    )
    def test_more_runners_by_what_they_check(
        self, command: str, name: str, kind: CheckKind
    ) -> None:
        check = detect_check(command)
        assert check is not None and (check.name, check.kind) == (name, kind)

    @pytest.mark.parametrize(
        ("command", "name"),
        [
            ("node scripts/validate.js", "scripts/validate.js"),
            ("python3 tools/check_links.py docs", "tools/check_links.py"),
            ("bash scripts/run-tests.sh", "scripts/run-tests.sh"),
            ("python test_parser.py", "test_parser.py"),
            ("node -r ts-node/register scripts/verify-schema.ts", "scripts/verify-schema.ts"),
            ("./scripts/lint.sh src", "./scripts/lint.sh"),
        ],
    )
    def test_a_project_s_own_verifying_script_is_a_check(self, command: str, name: str) -> None:
        """A script named for what it verifies (validate, check, test, lint, verify), run by
        an interpreter or by its path, is the project's own check, named by its path."""
        check = detect_check(command)
        assert check is not None and (check.name, check.kind) == (name, CheckKind.GATE)

    @pytest.mark.parametrize(
        "command",
        ["node server.js", "python scripts/build_index.py", 'node -e "check()"',
         'python -c "import test"', "./run.sh", "python -", "bash install.sh"],
    )  # fmt: skip
    def test_other_scripts_and_inline_code_are_no_check(self, command: str) -> None:
        assert detect_check(command) is None

    def test_a_validation_script_s_failure_is_a_failed_check(self) -> None:
        """A failed run of the project's validator is its FAILED line, not a failed
        attempt of its own; a later pass of it resolves it."""
        output = "Error: schema.json: /items/0 must have required property 'id'\n"
        events = [
            *bash("node scripts/validate.js", output, 1),
            *bash("node scripts/validate.js", "validation ok\n", 0),
        ]
        for n, event in enumerate(events):
            event["event_id"] = f"e{n}"
            event["payload"]["tool_call_id"] = f"c{n // 3}"
        memory = SessionMemoryDeriver.rebuild(events).memory
        [line] = memory.verification_status
        assert (line.status, line.text) == ("passed", "`node scripts/validate.js`")
        assert [f.status for f in memory.failed_attempts] == ["resolved"]


class TestTable:
    def test_parsers_exist(self) -> None:
        """Every parser a row names is one of check_output's."""
        assert {r.parser for r in CHECK_RUNNERS if r.parser is not None} <= set(PARSERS)

    def test_a_name_has_one_parser(self) -> None:
        """Rows that name the same check trust the same parser, so the name finds it."""
        parsers: dict[str, str | None] = {}
        for row in CHECK_RUNNERS:
            assert parsers.setdefault(row.name, row.parser) == row.parser, row.name

    def test_families_name_no_parser(self) -> None:
        """A check named after a command line's targets (make test, npm run lint) runs
        anything: its output is read with every parser."""
        assert all(r.parser is None for r in CHECK_RUNNERS if isinstance(r.form, FAMILIES))

    def test_every_program_is_written_as_typed(self) -> None:
        """Programs are names without directory or suffix; interpreters are ``python``."""
        for row in CHECK_RUNNERS:
            for program in row.programs:
                if program == RUN_BY_PATH:
                    continue  # a script run by its path, looked up as this one
                assert re.fullmatch(r"[a-z][\w.+-]*", program), program
                assert not re.fullmatch(r"python[\d.]+|py|pypy[\d.]*", program), program

    def test_the_doc_lists_the_table_by_kind(self) -> None:
        """docs/rules.md lists every check of the table under its kind."""
        by_kind: dict[CheckKind, list[str]] = {}
        for row in CHECK_RUNNERS:
            name = f"{row.name} …" if isinstance(row.form, FAMILIES) else row.name
            names = by_kind.setdefault(row.kind, [])
            if name not in names:
                names.append(name)
        for kind in CheckKind:
            listed = ", ".join(f"`{name}`" for name in by_kind.get(kind, []))
            assert f"\n| {kind.value} | {listed} |\n" in DOC, kind
