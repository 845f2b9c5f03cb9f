"""A plan's verification steps the session was not seen to take stay a todo."""

from __future__ import annotations

from typing import Any

import pytest

from deriver import SessionMemoryDeriver
from deriver.plan_steps import verification_steps
from tests.deriver.test_rules import call, derive, texts, user

PLAN = """# Fix the shutdown timeout

## Changes
1. Skip the drain on shutdown (`walCheckpoint.go`)
2. Delete each host's WAL after its snapshot

## Verification

1. `go build ./...` — must compile
2. `go test ./pkg/metricstore/...` — existing tests pass
3. Manual test: start with sample data, send SIGTERM, verify:
   - Phase timing logs appear in order
   - No 60s timeout

## Notes
- 1. not a step
"""


def shell(command: str, call_id: str, output: str = "ok") -> list[dict[str, Any]]:
    return call("Bash", {"command": command}, call_id=call_id, result=output, exit_code=0)


def plan_todos(memory: Any) -> list[str]:
    return [t for t in texts(memory.todo_items) if "plan's verification" in t]


class TestVerificationSteps:
    def test_the_first_level_items_of_the_section(self) -> None:
        """The steps are the list items at the section's first level, up to the next
        heading: details under a step and other sections are not steps."""
        assert verification_steps(PLAN) == [
            "`go build ./...` — must compile",
            "`go test ./pkg/metricstore/...` — existing tests pass",
            "Manual test: start with sample data, send SIGTERM, verify:",
        ]

    @pytest.mark.parametrize(
        "heading", ["## 验证方式", "## 検証手順", "## 검증 방법", "## Проверка", "### Vérification"]
    )
    def test_the_section_in_the_plan_s_own_language(self, heading: str) -> None:
        """A plan written in Chinese, Japanese, Korean, Russian or French names its
        verification section in its own words: its steps are steps all the same."""
        plan = f"# 计划\n## 步骤\n1. 更新文档\n\n{heading}\n\n"
        plan += "1. 检查所有内部锚点链接\n2. `pnpm test`\n"
        assert verification_steps(plan) == ["检查所有内部锚点链接", "`pnpm test`"]

    @pytest.mark.parametrize(
        "plan",
        ["# Plan\n1. Add cache\n2. Test", "## Verification\n\nRun it and see.",
         "Verification:\n1. `make test`"],
    )  # fmt: skip
    def test_no_section_or_no_list_is_no_step(self, plan: str) -> None:
        assert verification_steps(plan) == []


class TestThePlansVerification:
    def test_steps_not_taken_stay_a_todo(self) -> None:
        """An approved plan's steps: those a command line took go (a broader run of the
        same check takes a narrower step); a step done by hand is never seen done."""
        memory = derive(
            user("plan the shutdown fix"),
            call("ExitPlanMode", {"plan": PLAN}, call_id="p1", result="approved"),
            shell("go build ./... 2>&1 | tail -5", "b1"),
            shell("go test ./...", "t1", "ok  \tpkg/metricstore\t0.6s"),
        )
        (todo,) = plan_todos(memory)
        assert "send SIGTERM" in todo
        assert "go build" not in todo and "go test" not in todo

    def test_a_load_test_is_taken_by_no_run_of_the_suite(self) -> None:
        """ "Load test: a burst of 100+ concurrent job events" names a test but no command:
        the suite's run (``go test``) does not put that load on, so it stays, as a step done
        by hand does; "existing tests pass" is taken by it."""
        plan = ("# Plan\n## Verification\n1. Existing tests pass\n"
                "2. Load test: simulate a burst of 100+ concurrent job events\n")  # fmt: skip
        memory = derive(
            user("plan it"),
            call("ExitPlanMode", {"plan": plan}, call_id="p1", result="approved"),
            shell("go test ./...", "t1", "ok  \tpkg/jobs\t0.6s"),
        )
        (todo,) = plan_todos(memory)
        assert "Load test" in todo and "Existing tests" not in todo

    def test_the_steps_shown_grow_with_the_budget(self) -> None:
        """Two steps at least, one more for each 240 tokens of the budget (five at 1200),
        the rest counted."""
        steps = "".join(f"{n}. Manual check {n}: open page {n} and look\n" for n in range(1, 8))
        approved = call("ExitPlanMode", {"plan": f"# Plan\n## Verification\n{steps}"},
                        call_id="p1", result="approved")  # fmt: skip
        (wide,) = plan_todos(derive(user("plan it"), approved, budget=1200))
        assert "page 5" in wide and "page 6" not in wide and wide.endswith("(+2 more)")
        (narrow,) = plan_todos(derive(user("plan it"), approved, budget=600))
        assert "page 2" in narrow and "page 3" not in narrow and narrow.endswith("(+5 more)")

    def test_a_run_that_failed_took_its_step_and_one_refused_did_not(self) -> None:
        """A step is taken by a run, whatever it found (its FAILED line says how it went),
        however the client marks the failure; a run the user refused never ran."""
        plan = "## Verification\n1. `go test ./...`\n2. `go build ./...`\n"
        memory = derive(
            call("ExitPlanMode", {"plan": plan}, call_id="p1", result="approved"),
            call("Bash", {"command": "go test ./..."}, "failed", "t1",
                 error="--- FAIL: TestA\nFAIL\tpkg\t0.1s", exit_code=1),
            call("Bash", {"command": "go build ./..."}, "rejected", "b1",
                 error="The user doesn't want to proceed with this tool use."),
        )  # fmt: skip
        (todo,) = plan_todos(memory)
        assert "go build" in todo and "go test" not in todo

    def test_all_steps_taken_leave_nothing(self) -> None:
        plan = "## Verification\n1. `make test`\n2. All existing tests pass\n"
        memory = derive(
            user("plan it"),
            call("ExitPlanMode", {"plan": plan}, call_id="p1", result="approved"),
            shell("cd api && make test", "m1", "12 passed in 0.3s"),
        )
        assert plan_todos(memory) == []

    def test_a_request_that_carries_a_plan(self) -> None:
        """A request with a verification section of its own ("Implement the following
        plan: …") is a plan too; a later request without one leaves its steps."""
        memory = derive(
            user(f"Implement the following plan:\n\n{PLAN}"),
            shell("go build ./...", "b1"),
            user("also log the phases"),
        )
        (todo,) = plan_todos(memory)
        assert todo.count("\u201c") == 2 and "go test ./pkg/metricstore/..." in todo

    def test_a_new_approved_plan_replaces_the_steps(self) -> None:
        memory = derive(
            call("ExitPlanMode", {"plan": PLAN}, call_id="p1", result="approved"),
            call("ExitPlanMode", {"plan": "# Smaller plan\n1. Do it"}, call_id="p2",
                 result="approved"),
        )  # fmt: skip
        assert plan_todos(memory) == []

    def test_a_snapshot_keeps_the_steps(self) -> None:
        """Restored from a snapshot between the plan and the run that takes a step, the
        memory is the rebuild's."""
        first = [
            *call("ExitPlanMode", {"plan": PLAN}, call_id="p1", result="approved"),
        ]
        rest = shell("go test ./pkg/metricstore/...", "t1")
        restored = SessionMemoryDeriver.restore(SessionMemoryDeriver.rebuild(first).snapshot())
        for event in rest:
            restored.apply(event)
        assert restored.memory.todo_items == derive(first, rest).todo_items
        assert "go build" in plan_todos(restored.memory)[0]

    def test_a_step_that_allows_an_equivalent_is_taken_by_any_check_of_its_kind(self) -> None:
        """ "Run `npm run build` (or equivalent)": the project's own build, `npx astro build`,
        takes it; a test run does not, nor a build for a step that names only its own."""
        plan = (
            "# Plan\n## Verification\n1. Run `npm run build` (or equivalent) to confirm no "
            "type errors\n2. Run `cargo build --release`\n"
        )
        memory = derive(
            user("plan it"),
            call("ExitPlanMode", {"plan": plan}, call_id="p1", result="approved"),
            shell("npx vitest run", "t1", "Tests  3 passed (3)"),
        )
        (todo,) = plan_todos(memory)
        assert "npm run build" in todo
        built = derive(
            user("plan it"),
            call("ExitPlanMode", {"plan": plan}, call_id="p1", result="approved"),
            shell("npx astro build", "b1", "[build] Complete!"),
            shell("cargo check", "b2", "Finished"),
        )
        (todo,) = plan_todos(built)
        assert "npm run build" not in todo and "cargo build --release" in todo
