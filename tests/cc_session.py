"""Small Claude Code session files written record by record, as the client writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


class ClaudeCodeSession:
    """Appends Claude Code records (prompts, tool calls and results, hook attachments)."""

    def __init__(self, path: Path, session_id: str = "s-1", cwd: str = "/work/app") -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self._n = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def _append(self, record: dict[str, Any]) -> None:
        self._n += 1
        base = {
            "uuid": f"{self.session_id}-u{self._n}",
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "timestamp": f"2026-12-01T10:00:{self._n % 60:02d}Z",
            "isSidechain": False,
        }
        with self.path.open("ab") as f:
            f.write(orjson.dumps({**base, **record}) + b"\n")

    def prompt(self, text: str) -> None:
        self._append({"type": "user", "message": {"role": "user", "content": text}})

    def tool(
        self,
        name: str,
        args: dict[str, Any],
        result: str,
        *,
        error: bool = False,
        structured: object = None,
    ) -> None:
        """A call and its result; ``structured`` is the record's ``toolUseResult``."""
        call = f"toolu_{self.session_id}_{self._n}"
        self._append(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{self._n}",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": call, "name": name, "input": args}],
                },
            }
        )
        self._append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": call,
                            "content": result,
                            "is_error": error,
                        }
                    ],
                },
                **({} if structured is None else {"toolUseResult": structured}),
            }
        )

    def compaction(self, summary: str, trigger: str = "auto", pre_tokens: int = 150000) -> None:
        """A compaction: the boundary, then the record holding the model's summary."""
        metadata = {"trigger": trigger, "preTokens": pre_tokens}
        self._append({"type": "system", "subtype": "compact_boundary", "compactMetadata": metadata})
        text = (
            "This session is being continued from a previous conversation that ran out of "
            "context. The summary below covers the earlier portion of the conversation.\n\n"
            + summary
        )
        self._append(
            {"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": text}}
        )

    def turn_end(self, duration_ms: int = 1000) -> None:
        """The record Claude Code writes when a turn ends."""
        self._append({"type": "system", "subtype": "turn_duration", "durationMs": duration_ms})

    def todos(self, *items: tuple[str, str]) -> None:
        todos = [{"content": c, "status": s, "activeForm": c} for c, s in items]
        self.tool("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")

    def hook_context(self, text: str) -> None:
        """What Claude Code 2.1.3xx records after a hook injected ``text``."""
        self._append(
            {
                "type": "attachment",
                "attachment": {
                    "type": "hook_additional_context",
                    "hookName": "SessionStart",
                    "hookEvent": "SessionStart",
                    "content": [text],
                },
            }
        )

    def task_create(self, subject: str, task_id: str) -> None:
        """TaskCreate as Claude Code 2.1.3xx records it, result included."""
        call = f"toolu_{self.session_id}_{self._n}"
        self._append(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{self._n}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": call,
                            "name": "TaskCreate",
                            "input": {"subject": subject, "description": subject},
                        }
                    ],
                },
            }
        )
        self._append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": call,
                            "content": f"Task #{task_id} created successfully: {subject}",
                        }
                    ],
                },
                "toolUseResult": {"task": {"id": task_id, "subject": subject}},
            }
        )

    def task_update(self, task_id: str, status: str) -> None:
        self.tool("TaskUpdate", {"taskId": task_id, "status": status}, f"Updated task #{task_id}")
