"""Codex CLI 0.169.0, for real, against a scripted model: the memory after auto-compaction
and after `codex exec resume`, with the hook trusted the way `install` documents."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from conftest import SESSION_MEMORY, Clients
from openai_mock import sse_response
from scenario import (
    FINAL_ANSWER,
    GOAL,
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

COMPACTION_MARKER = "CONTEXT CHECKPOINT COMPACTION"
PATCH = (
    "*** Begin Patch\n*** Update File: checkout.py\n@@\n def total(prices):\n"
    "-    return round(sum(prices), 1)\n+    return round(sum(prices), 2)\n*** End Patch\n"
)


def plan(fix: str) -> dict[str, Any]:
    return {"plan": [{"step": TODO_FIX, "status": fix}, {"step": TODO_SUITE, "status": "pending"}]}


STEPS: list[dict[str, Any]] = [
    {"tool": "update_plan", "input": plan("in_progress")},
    {"tool": "exec_command", "input": {"cmd": TEST_COMMAND, "yield_time_ms": TEST_TIMEOUT_MS}},
    {"custom": "apply_patch", "input": PATCH},
    {"tool": "exec_command", "input": {"cmd": TEST_COMMAND, "yield_time_ms": TEST_TIMEOUT_MS}},
    {"tool": "update_plan", "input": plan("completed")},
    {"text": FINAL_ANSWER},
]

CONFIG = """model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "MOCK_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0

[tools.update_plan]
enabled = true

[analytics]
enabled = false
"""


class CodexModel:
    """The scripted model behind the ``mock`` provider."""

    def __init__(self) -> None:
        # The patch's reply reports more than model_auto_compact_token_limit: auto-compaction.
        self.script = Script(STEPS, compact_after=2, big_usage=60_000)

    def __call__(self, path: str, body: dict[str, Any]) -> Any:
        if not path.endswith("/responses"):
            return None
        model = str(body.get("model", "gpt"))
        items = body.get("input", [])
        self.script.observe(
            str(i.get("call_id")) for i in items if str(i.get("type", "")).endswith("_output")
        )
        if COMPACTION_MARKER in json.dumps(items) or not body.get("tools"):
            return sse_response({"text": SUMMARY}, model=model)
        prompts = [_text(i) for i in items if i.get("role") == "user"]
        if RESUME_PROMPT in prompts:
            return sse_response({"text": RESUME_ANSWER}, model=model)
        step, call_id, usage = self.script.next()
        return sse_response(step, model=model, input_tokens=usage, call_id=call_id)


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict)).strip()


def developer_texts(body: dict[str, Any]) -> list[str]:
    return [_text(i) for i in body.get("input", []) if i.get("role") == "developer"]


def injected_in_rollout(rollout: Path) -> list[tuple[int, str]]:
    """(byte offset, text) of every developer message of ours the rollout recorded."""
    found = []
    offset = 0
    for line in rollout.read_bytes().splitlines(keepends=True):
        record = json.loads(line)
        payload = record.get("payload") or {}
        if record.get("type") == "response_item" and payload.get("role") == "developer":
            text = _text(payload)
            if text.startswith("Session memory"):
                found.append((offset, text))
        offset += len(line)
    return found


def memory_of(data: bytes) -> str:
    deriver = SessionMemoryDeriver()
    deriver.apply_all(read_transcript(io.BytesIO(data)))
    return render_memory(deriver.memory)


class TestCodex:
    def test_the_memory_reaches_the_model_after_compaction_and_resume(
        self, clients: Clients, run_dir: Path
    ) -> None:
        """After `session-memory install codex` (which records the trust Codex reports), the
        hook runs without any bypass flag; its memory is in the next request after
        auto-compaction and after resume, and deriving the rollout gives it."""
        home, work = run_dir / "home", run_dir / "work"
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True)
        write_project(work)
        with MockModelServer(CodexModel(), run_dir / "requests.jsonl", max_requests=40) as server:
            (codex_home / "config.toml").write_text(CONFIG.format(url=server.url))
            env = {
                "PATH": f"{clients.codex.parent}:{os.environ['PATH']}",
                "HOME": str(home),
                "CODEX_HOME": str(codex_home),
                "MOCK_OPENAI_KEY": "dummy",
            }
            install = subprocess.run(
                [str(SESSION_MEMORY), "install", "codex"],
                env=env,
                cwd=work,
                capture_output=True,
                text=True,
                check=True,
            )
            assert "hook trusted (codex reports it trusted)" in install.stdout, install.stdout
            flags = [
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
                "--json",
            ]
            self.codex(
                clients, env, work, *flags, "-c", "model_auto_compact_token_limit=50000", GOAL
            )
            first_run = len(server.bodies())
            self.codex(clients, env, work, "resume", "--last", *flags, RESUME_PROMPT)
            bodies = [b["body"] for b in server.bodies()]
            assert not server.errors, server.errors

        compactions = [i for i, b in enumerate(bodies) if COMPACTION_MARKER in json.dumps(b)]
        assert len(compactions) == 1
        after_compaction = developer_texts(bodies[compactions[0] + 1])
        compact_text = next(t for t in after_compaction if t.startswith("Session memory after"))
        resume_text = next(
            t for t in developer_texts(bodies[first_run]) if t.startswith("Session memory on")
        )
        assert f"> {GOAL}" in compact_text
        assert f"- [~] {TODO_FIX}" in compact_text and f"- [ ] {TODO_SUITE}" in compact_text
        assert f"FAILED: `{TEST_COMMAND}` (1 failed)" in compact_text
        assert f"> {GOAL}" in resume_text
        assert f"- [ ] {TODO_SUITE}" in resume_text
        assert f"passed: `{TEST_COMMAND}` (1 passed)" in resume_text
        # The edit, in a git work tree by a session that ran no git: where the session stands.
        assert "- files changed, no commit of them seen: `checkout.py`" in resume_text

        (rollout,) = (codex_home / "sessions").rglob("rollout-*.jsonl")
        data = rollout.read_bytes()
        injected = injected_in_rollout(rollout)
        assert [t for _, t in injected] == [compact_text, resume_text]
        for offset, text in injected:
            # (the rollout and the request keep the text without its final newline)
            assert text.partition("\n\n")[2] == memory_of(data[:offset]).rstrip("\n")
        final = memory_of(data)
        assert "Session memory" not in final.replace("# Session memory\n", "")

    @staticmethod
    def codex(clients: Clients, env: dict[str, str], work: Path, *args: str) -> None:
        result = subprocess.run(
            [str(clients.codex), "exec", *args],
            env=env,
            cwd=work,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        errors = [
            line for line in result.stdout.splitlines() if '"type":"error"' in line.replace(" ", "")
        ]
        assert not errors, errors
