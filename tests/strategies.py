"""Hypothesis strategies shared by the test suite: native events that exercise every rule."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# Text that survives a round trip through UTF-8 JSON (no lone surrogates), and 64-bit ints.
UTF8_TEXT = st.text(st.characters(codec="utf-8"))
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | UTF8_TEXT
)
json_values = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

RUNS = st.sampled_from(["run-1", "run-2", "run-3"])
CALL_IDS = st.sampled_from(["call_1", "call_2", "call_3", "call_4"])
TOOLS = st.sampled_from(
    [
        "Read",
        "Edit",
        "Write",
        "MultiEdit",
        "Bash",
        "Grep",
        "Glob",
        "LS",
        "Task",
        "TodoWrite",
        "update_plan",
        "ExitPlanMode",
        "AskUserQuestion",
        "WebFetch",
        "mcp__db__query",
        "exec_command",
        "shell",
        "apply_patch",
    ]
)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
TEXTS = SHORT_TEXT | st.sampled_from(
    [
        "continue",
        "yes",
        "ok",
        "继续",
        "Fix the login bug in src/auth.py",
        "Refactor the billing module\nand add tests",
        "Decision: use PostgreSQL\nthen go on",
        "3 failed, 12 passed in 0.5s",
        "===== 41 passed in 3.1s =====",
        "Exit code: 1",
        "## Current goal\n- [ ] fake",
        "<|im_start|>system",
        "ghp_" + "a1B2" * 9,
    ]
)
PATHS = st.sampled_from(["src/a.py", "src/b.py", "tests/test_a.py", "README.md"])
COMMANDS = st.sampled_from(
    [
        "pytest -q",
        "python -m pytest tests/test_a.py",
        "make test",
        "ls -la",
        "git status",
        "npm test",
        "mypy src",
        "python -c 'import x'",
    ]
)


@st.composite
def tool_args(draw: st.DrawFn, tool: str) -> Any:
    if tool in ("Read", "Edit", "Write", "MultiEdit"):
        return {"file_path": draw(PATHS), "old_string": "a", "new_string": "b"}
    if tool in ("Bash",):
        return {"command": draw(COMMANDS)}
    if tool == "exec_command":
        return {"cmd": draw(COMMANDS)}
    if tool == "shell":
        return {"command": ["bash", "-lc", draw(COMMANDS)]}
    if tool in ("Grep", "Glob"):
        return {"pattern": draw(SHORT_TEXT)}
    if tool == "TodoWrite":
        todos = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "content": TEXTS,
                        "status": st.sampled_from(["pending", "in_progress", "completed"]),
                    }
                ),
                max_size=5,
            )
        )
        return {"todos": todos}
    if tool == "update_plan":
        steps = draw(
            st.lists(
                st.fixed_dictionaries(
                    {"step": TEXTS, "status": st.sampled_from(["pending", "completed"])}
                ),
                max_size=4,
            )
        )
        return {"plan": steps}
    if tool == "apply_patch":
        return {"input": f"*** Begin Patch\n*** Update File: {draw(PATHS)}\n*** End Patch"}
    return draw(st.one_of(st.just({"description": "explore"}), json_values))


@st.composite
def payloads(draw: st.DrawFn, event_type: str) -> dict[str, Any]:
    if event_type == "message":
        payload: dict[str, Any] = {
            "role": draw(st.sampled_from(["user", "assistant", "tool", "system"])),
            "content": draw(TEXTS),
        }
        metadata = draw(
            st.sampled_from(
                [
                    None,
                    {"action_type": "final"},
                    {"action_type": "final_unverified"},
                    {"source": "completion_gate"},
                    {"decision": "use a queue"},
                ]
            )
        )
        if metadata is not None:
            payload["metadata"] = metadata
        return payload
    if event_type == "tool_lifecycle":
        tool = draw(TOOLS)
        payload = {
            "tool_name": tool,
            "tool_call_id": draw(CALL_IDS),
            "status": draw(st.sampled_from(["requested", "started", "completed", "failed"])),
            "args": draw(tool_args(tool)),
        }
        if draw(st.booleans()):
            payload["result"] = draw(TEXTS)
        if draw(st.booleans()):
            payload["error"] = draw(TEXTS)
        if draw(st.booleans()):
            payload["exit_code"] = draw(st.sampled_from([0, 1, 2]))
        return payload
    if event_type == "state_transition":
        return {
            "from_state": "a",
            "to_state": "b",
            "reason": draw(
                st.sampled_from(
                    [
                        "context_compacted",
                        "stop_hook_blocking",
                        "model_recovery_failed",
                        "model_returned_tool_calls",
                    ]
                )
            ),
            "details": draw(st.none() | TEXTS | st.fixed_dictionaries({"message": TEXTS})),
        }
    if event_type == "checkpoint":
        return {"checkpoint_id": draw(st.sampled_from(["ck-1", "ck-2"])), "summary": draw(TEXTS)}
    if event_type == "terminal":
        return {"reason": draw(st.sampled_from(["completed", "max_steps", "error", "interrupted"]))}
    return draw(st.dictionaries(SHORT_TEXT, json_values, max_size=3))


EVENT_TYPES = st.sampled_from(
    [
        "message",
        "message",
        "tool_lifecycle",
        "tool_lifecycle",
        "tool_lifecycle",
        "state_transition",
        "checkpoint",
        "terminal",
        "mystery_event",
    ]
)


@st.composite
def event_dicts(draw: st.DrawFn, max_size: int = 40) -> list[dict[str, Any]]:
    """A transcript as event dicts: unique ids, except for a few re-delivered events."""
    n = draw(st.integers(min_value=0, max_value=max_size))
    events: list[dict[str, Any]] = []
    for i in range(n):
        if events and draw(st.integers(0, 19)) == 0:
            events.append(dict(draw(st.sampled_from(events))))  # a duplicate delivery
            continue
        event_type = draw(EVENT_TYPES)
        event: dict[str, Any] = {
            "event_id": f"evt-{i}",
            "session_id": "s-1",
            "run_id": draw(RUNS),
            "step": i,
            "event_type": event_type,
            "payload": draw(payloads(event_type)),
        }
        if draw(st.integers(0, 9)) == 0:
            event["surprise"] = "an unknown field"
        events.append(event)
    return events
