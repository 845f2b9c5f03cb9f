"""Claude Code 2.1.328, for real, against a scripted model: the memory after compaction and
after resume."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import msgspec
from anthropic_mock import sse_message, texts, tool_results
from conftest import CACHE, ROOT, SESSION_MEMORY, Clients
from scenario import (
    FINAL_ANSWER,
    GOAL,
    PYTHON,
    RESUME_ANSWER,
    RESUME_PROMPT,
    SUMMARY,
    TEST_COMMAND,
    TEST_TIMEOUT_MS,
    TODO_FIX,
    TODO_SUITE,
    Script,
    write_project,
)
from sse_server import MockModelServer

from deriver import SessionMemoryDeriver
from session_memory.formats import read_transcript
from viewbuilder import render_memory

COMPACTION_MARKERS = ("CRITICAL: Respond with TEXT ONLY", "create a detailed summary")
HOOK_PREFIX = "SessionStart hook additional context: "
CAPTURE = CACHE / "claude-code-after-compact.txt"


def steps(work: Path) -> list[dict[str, Any]]:
    checkout = str(work / "checkout.py")
    return [
        {
            "tool": "ToolSearch",
            "input": {"query": "select:TaskCreate,TaskUpdate", "max_results": 5},
        },
        {"tool": "TaskCreate", "input": {"subject": TODO_FIX, "description": "round to cents"}},
        {"tool": "TaskCreate", "input": {"subject": TODO_SUITE, "description": "all of it"}},
        {"tool": "TaskUpdate", "input": {"taskId": "1", "status": "in_progress"}},
        {"tool": "Bash", "input": {"command": TEST_COMMAND, "timeout": TEST_TIMEOUT_MS}},
        {"tool": "Read", "input": {"file_path": checkout}},
        {
            "tool": "Edit",
            "input": {
                "file_path": checkout,
                "old_string": "round(sum(prices), 1)",
                "new_string": "round(sum(prices), 2)",
            },
        },
        {"tool": "Bash", "input": {"command": TEST_COMMAND, "timeout": TEST_TIMEOUT_MS}},
        {"tool": "TaskUpdate", "input": {"taskId": "1", "status": "completed"}},
        {"text": FINAL_ANSWER},
    ]


class ClaudeModel:
    """The scripted model behind ``ANTHROPIC_BASE_URL``."""

    def __init__(self, work: Path) -> None:
        # The edit's reply reports a context nearly full (of a 100k window): auto-compaction.
        self.script = Script(steps(work), compact_after=6, big_usage=99_000)
        self.compactions: list[int] = []

    def __call__(self, path: str, body: dict[str, Any]) -> Any:
        if not path.startswith("/v1/messages"):
            return None
        model = str(body.get("model", "claude"))
        messages = body.get("messages", [])
        self.script.observe(r.get("tool_use_id", "") for m in messages for r in tool_results(m))
        last = " ".join(texts(messages[-1].get("content"))) if messages else ""
        if any(marker in last for marker in COMPACTION_MARKERS):
            return sse_message({"text": f"<summary>{SUMMARY}</summary>"}, model=model)
        if any(t.strip() == RESUME_PROMPT for m in messages for t in texts(m.get("content"))):
            return sse_message({"text": RESUME_ANSWER}, model=model)
        step, call_id, usage = self.script.next()
        return sse_message(step, model=model, input_tokens=usage, tool_use_id=call_id)


def claude(clients: Clients, env: dict[str, str], work: Path, *args: str) -> dict[str, Any]:
    result = subprocess.run(
        [
            str(clients.claude),
            *args,
            "--output-format",
            "json",
            "--dangerously-skip-permissions",
            "--max-turns",
            "30",
        ],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def hook_injections(transcript: Path) -> list[tuple[int, str]]:
    """(byte offset of the record, text) of every hook context Claude Code recorded."""
    found = []
    offset = 0
    for line in transcript.read_bytes().splitlines(keepends=True):
        record = json.loads(line)
        attachment = record.get("attachment") if record.get("type") == "attachment" else None
        if isinstance(attachment, dict) and attachment.get("type") == "hook_additional_context":
            content = attachment.get("content")
            for text in content if isinstance(content, list) else [content]:
                found.append((offset, str(text)))
        offset += len(line)
    return found


def _derived_by_a_prefix(data: bytes, end: int, memory: str, lines: int = 60) -> bool:
    """Whether the transcript cut at one of the ``lines`` line ends before ``end`` derives
    exactly ``memory``."""
    cut = end
    for _ in range(lines):
        deriver = SessionMemoryDeriver()
        deriver.apply_all(read_transcript(io.BytesIO(data[:cut])))
        if render_memory(deriver.memory) == memory:
            return True
        if cut == 0:
            return False
        cut = data.rfind(b"\n", 0, cut - 1) + 1
    return False


TOKENS_BEFORE = re.compile(r"(\(\w+, )\d+ tokens before")


def readme_hook_example() -> str:
    """The README's example of what Claude Code shows the model after ``/compact``.

    The count of tokens before a compaction is Claude Code's own, and its prompt holds the
    project's path, which differs from run to run: the example compares with the count masked.
    """
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", readme, re.S)
    (example,) = (block for block in blocks if block.startswith(HOOK_PREFIX))
    return TOKENS_BEFORE.sub(r"\1N tokens before", example)


def shortened(text: str, work: Path) -> str:
    """``text`` with this run's project directory and interpreter as the README shows them."""
    text = text.replace(str(work), "/home/you/shop").replace(PYTHON, ".venv/bin/python")
    return TOKENS_BEFORE.sub(r"\1N tokens before", text)


def derived_memory(data: bytes, tmp: Path) -> str:
    """What `session-memory derive` prints for these transcript bytes."""
    path = tmp / "prefix.jsonl"
    path.write_bytes(data)
    result = subprocess.run(
        [str(SESSION_MEMORY), "derive", str(path)], capture_output=True, text=True, check=True
    )
    return result.stdout


class TestClaudeCode:
    def test_the_memory_reaches_the_model_after_compaction_and_resume(
        self, clients: Clients, run_dir: Path
    ) -> None:
        """Installed with `session-memory install claude-code`, the hook's memory is in the
        next model request after auto-compaction, after /compact and after --resume, and it
        is what deriving the transcript Claude Code wrote gives."""
        home, work = run_dir / "home", run_dir / "work"
        home.mkdir()
        write_project(work)
        model = ClaudeModel(work)
        with MockModelServer(model, run_dir / "requests.jsonl", max_requests=60) as server:
            env = {
                "PATH": os.environ["PATH"],
                "HOME": str(home),
                "ANTHROPIC_BASE_URL": server.url,
                "ANTHROPIC_API_KEY": "dummy",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "IS_SANDBOX": "1",
                "CLAUDE_CODE_ENABLE_TODO_TOOLS": "true",
            }
            install = subprocess.run(
                [str(SESSION_MEMORY), "install", "claude-code"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            assert "installed" in install.stdout
            first = claude(clients, env, work, "-p", GOAL, "--autocompact", "100000")
            session = first["session_id"]
            after_auto = len(server.bodies())
            claude(clients, env, work, "-p", "/compact", "--resume", session)
            after_manual = len(server.bodies())
            claude(clients, env, work, "-p", RESUME_PROMPT, "--resume", session)
            bodies = [b["body"] for b in server.bodies()]
            assert not server.errors, server.errors

        transcript = next((home / ".claude" / "projects").glob(f"*/{session}.jsonl"))
        injected = hook_injections(transcript)
        sources = [text.split(",", 1)[0] for _, text in injected]
        assert sources == [
            "Session memory after compaction",  # auto-compaction, during the first run
            "Session memory on resuming",  # claude -p /compact --resume: resumes, then
            "Session memory after compaction",  # ... compacts
            "Session memory on resuming",  # claude -p continue --resume
        ]

        def requests_with(text: str) -> list[int]:
            return [i for i, b in enumerate(bodies) if any(text in t for t in _strings(b))]

        compactions = [i for i, b in enumerate(bodies) if _is_compaction(b)]
        assert len(compactions) == 2 and compactions[0] < after_auto <= compactions[1]
        auto_text, _, manual_text, resume_text = (text for _, text in injected)

        # The next request after each compaction, and after resume, carries the memory.
        assert compactions[0] + 1 in requests_with(HOOK_PREFIX + auto_text.rstrip())
        assert after_manual in requests_with(HOOK_PREFIX + manual_text.rstrip())
        # What the model is shown after /compact: the README shows it, paths shortened.
        CAPTURE.write_text(HOOK_PREFIX + manual_text)
        assert readme_hook_example() == shortened(HOOK_PREFIX + manual_text, work)
        assert after_manual in requests_with(HOOK_PREFIX + resume_text.rstrip())

        # After auto-compaction: the goal, both open todos verbatim, the failing check.
        assert f"> {GOAL}" in auto_text
        assert f"- [~] {TODO_FIX}" in auto_text and f"- [ ] {TODO_SUITE}" in auto_text
        assert f"FAILED: `{TEST_COMMAND}` (1 failed)" in auto_text
        # After the fix and resume: the goal, the one open todo, the check now passing.
        assert f"> {GOAL}" in resume_text
        assert (
            f"- [ ] {TODO_SUITE}" in resume_text
            and TODO_FIX not in resume_text.split("## Completed work")[0]
        )
        assert f"passed: `{TEST_COMMAND}` (1 passed)" in resume_text
        # The edit, in a git work tree by a session that ran no git: where the session stands.
        assert "- files changed, no commit of them seen: `" + str(work / "checkout.py") + "`" in (
            resume_text
        )

        # Each injected memory is exactly the memory of the transcript as it stood when the
        # hook ran: of one of its prefixes (Claude Code flushes its records in batches, so the
        # compaction's own records may land on disk after the hook ran).
        data = transcript.read_bytes()
        for offset, text in injected:
            assert _derived_by_a_prefix(data, offset, text.partition("\n\n")[2])
        # ... and the injections themselves never feed the memory.
        final = derived_memory(data, run_dir)
        assert "Session memory after compaction" not in final
        assert "Session memory on resuming" not in final
        events = list(read_transcript(transcript))
        assert not any("derived by session-memory" in json.dumps(_dump(e)) for e in events)


def _is_compaction(body: dict[str, Any]) -> bool:
    messages = body.get("messages", [])
    last = " ".join(texts(messages[-1].get("content"))) if messages else ""
    return any(marker in last for marker in COMPACTION_MARKERS)


def _strings(value: object) -> list[str]:
    """Every string inside a decoded JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _dump(record: object) -> object:
    return msgspec.to_builtins(record)
