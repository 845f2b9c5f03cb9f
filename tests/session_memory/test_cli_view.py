"""The ``view`` subcommand: derive the memory, print the messages of a model call as JSON."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_memory.apps.cli import cli

try:
    from deriver import SessionMemoryDeriver  # noqa: F401
except ImportError:  # the deriver lands separately; only the input checks run without it
    HAVE_DERIVER = False
else:
    HAVE_DERIVER = True

needs_deriver = pytest.mark.skipif(not HAVE_DERIVER, reason="deriver.SessionMemoryDeriver missing")

GOAL = "Add a --verbose flag to the CLI"


def event(i: int, event_type: str, payload: dict[str, Any]) -> bytes:
    return orjson.dumps(
        {
            "event_id": f"evt-{i}",
            "timestamp": f"2026-08-25T10:00:{i:02d}Z",
            "session_id": "s-1",
            "run_id": "run-1",
            "step": i,
            "event_type": event_type,
            "payload": payload,
            "schema_version": 1,
        }
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    transcript = tmp_path / "s-1.jsonl"
    transcript.write_bytes(
        b"\n".join(
            [
                event(0, "message", {"role": "user", "content": GOAL}),
                event(
                    1,
                    "tool_lifecycle",
                    {
                        "tool_name": "Read",
                        "tool_call_id": "c1",
                        "status": "requested",
                        "args": {"path": "cli.py"},
                    },
                ),
                event(
                    2,
                    "tool_lifecycle",
                    {
                        "tool_name": "Read",
                        "tool_call_id": "c1",
                        "status": "started",
                        "args": {"path": "cli.py"},
                    },
                ),
                event(
                    3,
                    "tool_lifecycle",
                    {
                        "tool_name": "Read",
                        "tool_call_id": "c1",
                        "status": "completed",
                        "result": "def main(): ...",
                    },
                ),
            ]
        )
        + b"\n"
    )
    system = tmp_path / "system.txt"
    system.write_text("You are a careful coding agent.\n", encoding="utf-8")
    history = tmp_path / "history.json"
    history.write_bytes(
        orjson.dumps(
            [
                {"role": "user", "content": "hello"},
                {"role": "assistant", "content": "hi, what shall I do?"},
                {"role": "user", "content": GOAL},
            ]
        )
    )
    return {"transcript": transcript, "system": system, "history": history}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli("view", *args)
    out, err = capsys.readouterr()
    return code, out, err


@needs_deriver
class TestView:
    def test_prints_openai_messages(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """System prompt, memory (holding the goal), then the history, as JSON."""
        code, out, err = run(
            capsys,
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--history",
            str(files["history"]),
        )
        assert code == 0, err
        request = orjson.loads(out)
        messages = request["messages"]
        assert set(request) == {"messages", "session_memory"}
        assert messages[0] == {"role": "system", "content": "You are a careful coding agent.\n"}
        assert messages[1]["role"] == "system"
        assert GOAL in messages[1]["content"]
        assert messages[2:] == orjson.loads(files["history"].read_bytes())
        assert "0 history messages dropped" in err

    def test_prints_anthropic_system_blocks(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """--shape anthropic puts prompt and memory in system, the history in messages."""
        code, out, err = run(
            capsys,
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--history",
            str(files["history"]),
            "--shape",
            "anthropic",
        )
        assert code == 0, err
        request = orjson.loads(out)
        assert request["messages"] == orjson.loads(files["history"].read_bytes())
        assert [b["type"] for b in request["system"]] == ["text", "text"]
        assert GOAL in request["system"][1]["text"]

    def test_anthropic_without_history_is_one_line_error(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The Messages API rejects messages: [], so the view says what is missing instead."""
        code, out, err = run(
            capsys,
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--shape",
            "anthropic",
        )
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and "--history" in err

    @pytest.mark.parametrize("shape", ["openai", "anthropic"])
    def test_json_holds_memory_tokens_and_changed_beside_the_request(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str], shape: str
    ) -> None:
        """Every view's JSON has memory_tokens and memory_changed, under session_memory."""
        args = (str(files["transcript"]), "--system", str(files["system"]), "--shape", shape)
        code, out, err = run(capsys, *args, "--history", str(files["history"]))
        assert code == 0, err
        stats = orjson.loads(out)["session_memory"]
        assert set(stats) == {"memory_tokens", "memory_changed", "total_tokens", "dropped_messages"}
        assert stats["memory_tokens"] > 0 and stats["memory_changed"] is True
        assert f"memory {stats['memory_tokens']}," in err

    def test_output_is_byte_stable(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Two runs over the same files print the same bytes."""
        args = (
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--history",
            str(files["history"]),
        )
        assert run(capsys, *args)[1] == run(capsys, *args)[1]

    def test_context_window_drops_old_history(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A tight window drops the oldest turns and says how many on stderr."""
        base = (
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--history",
            str(files["history"]),
        )
        code, out, err = run(capsys, *base)
        full = len(orjson.loads(out)["messages"])
        total = int(re.search(r"~(\d+) tokens", err).group(1))  # type: ignore[union-attr]
        window = str(total - 1 + 100)
        code, out, err = run(capsys, *base, "--context-window", window, "--reserve-output", "100")
        assert code == 0, err
        messages = orjson.loads(out)["messages"]
        assert len(messages) < full
        assert messages[-1] == {"role": "user", "content": GOAL}

    def test_window_too_small_is_one_line_error(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """When even the minimum does not fit: exit 2, one line saying by how many tokens."""
        code, out, err = run(
            capsys,
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--context-window",
            "20",
        )
        assert code == 2
        assert out == ""
        assert err.count("\n") == 1
        assert "--context-window 20 is too small: the view is" in err
        assert "tokens over" in err

    def test_missing_transcript_is_one_line_error(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A transcript that cannot be read: exit 2 and one line on stderr."""
        code, _, err = run(
            capsys, str(files["transcript"]) + ".missing", "--system", str(files["system"])
        )
        assert code == 2
        assert err.startswith("session-memory: error: cannot read transcript")
        assert err.count("\n") == 1


class TestViewInputs:
    def test_unreadable_system_prompt(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A missing system prompt file: exit 2 and one line on stderr."""
        code, out, err = run(capsys, str(files["transcript"]), "--system", "/nonexistent/sys")
        assert (code, out) == (2, "")
        assert err.startswith("session-memory: error: cannot read system prompt")
        assert err.count("\n") == 1

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            (b'[{"role": ', "is not valid JSON"),
            (b'{"role": "user"}', "must be a JSON list of messages"),
            (b"[1, 2]", "history message 0 is not a JSON object but int"),
        ],
    )
    def test_malformed_history(
        self,
        files: dict[str, Path],
        capsys: pytest.CaptureFixture[str],
        content: bytes,
        message: str,
    ) -> None:
        """Malformed history JSON: exit 2 and one line on stderr saying what is wrong."""
        files["history"].write_bytes(content)
        if message.startswith("history message") and not HAVE_DERIVER:
            pytest.skip("checked by build_model_view, after deriving")
        code, out, err = run(
            capsys,
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--history",
            str(files["history"]),
        )
        assert (code, out) == (2, "")
        assert message in err
        assert err.count("\n") == 1

    def test_missing_history_file(
        self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A missing history file: exit 2 and one line on stderr."""
        code, _, err = run(
            capsys,
            str(files["transcript"]),
            "--system",
            str(files["system"]),
            "--history",
            "/nonexistent/history.json",
        )
        assert code == 2
        assert "cannot read history" in err
