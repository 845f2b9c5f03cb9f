"""A runnable, model-free agent loop that keeps a session memory and puts it in every prompt.

The "model" is a script of tool calls and answers, so the loop runs offline and always the
same way. Everything else is what a real agent does: it records each event in the native
transcript format (one JSON object per line), applies it to a ``SessionMemoryDeriver``, and
before each model call builds the view with ``build_model_view`` (system prompt, memory,
history fitted to the context window).

    python examples/agent_loop.py                       # prints each step and the last memory
    python examples/agent_loop.py --context-window 900  # a tight window: old turns are dropped
    python examples/agent_loop.py --transcript s.jsonl  # also write the transcript
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from deriver import SessionMemoryDeriver
from session_memory import SessionMemory, TranscriptEvent
from viewbuilder import ModelView, build_model_view, render_memory

SYSTEM_PROMPT = "You are a careful coding agent. Use the tools; run the tests before you finish."

CLI_SOURCE = "".join(f"    parser.add_argument('--option-{i}')\n" for i in range(40))

# What the scripted model does for each user request: tool calls (name, args, result, ok),
# then a final answer.
SCRIPT: list[tuple[str, list[tuple[str, dict[str, Any], str, bool]], str]] = [
    (
        "Add a --verbose flag to the CLI and make sure the tests pass.",
        [
            ("Read", {"path": "src/app/cli.py"}, "def build_parser():\n" + CLI_SOURCE, True),
            ("Edit", {"path": "src/app/cli.py"}, "1 edit applied", True),
            ("Bash", {"command": "pytest -q"}, "F...\n1 failed, 3 passed in 0.21s", False),
            ("Edit", {"path": "tests/test_cli.py"}, "1 edit applied", True),
            ("Bash", {"command": "pytest -q"}, "....\n4 passed in 0.19s", True),
        ],
        "Decision: --verbose sets the log level to DEBUG. The flag is added and tests pass.",
    ),
    (
        "Now document the flag in the README.",
        [
            ("Read", {"path": "README.md"}, "# app\n\nUsage: app [options]\n", True),
            ("Edit", {"path": "README.md"}, "1 edit applied", True),
        ],
        "The README documents --verbose.",
    ),
]


class Recorder:
    """Writes native transcript events and applies them to the deriver, one at a time."""

    def __init__(self, deriver: SessionMemoryDeriver, out: IO[str] | None) -> None:
        self.deriver = deriver
        self.out = out
        self.ids = itertools.count()
        self.step = 0

    def record(self, event_type: str, payload: dict[str, Any]) -> None:
        n = next(self.ids)
        native = {
            "event_id": f"evt-{n}",
            "timestamp": f"2026-08-25T10:{n // 60:02d}:{n % 60:02d}Z",
            "session_id": "demo",
            "run_id": "run-1",
            "step": self.step,
            "event_type": event_type,
            "payload": payload,
            "reference_id": None,
            "schema_version": 1,
        }
        if self.out is not None:
            self.out.write(json.dumps(native, sort_keys=True) + "\n")
        self.deriver.apply(msgspec.convert(native, TranscriptEvent))


def scripted_model(
    calls: list[tuple[str, dict[str, Any], str, bool]], answer: str
) -> Iterator[tuple[str, Any]]:
    """The stand-in for a model: one action per call, ending with the final answer."""
    for call in calls:
        yield "tool", call
    yield "final", answer


def run(context_window: int, budget: int, transcript: IO[str] | None) -> SessionMemory:
    deriver = SessionMemoryDeriver(budget_tokens=budget)
    recorder = Recorder(deriver, transcript)
    history: list[dict[str, Any]] = []
    view: ModelView | None = None
    call_ids = itertools.count(1)

    for request, calls, answer in SCRIPT:
        recorder.record("message", {"role": "user", "content": request})
        history.append({"role": "user", "content": request})
        print(f"user: {request}")
        for action, data in scripted_model(calls, answer):
            view = build_model_view(
                SYSTEM_PROMPT,
                deriver.memory,
                history,
                context_window=context_window,
                reserve_output_tokens=200,
                previous=view,
            )
            changed = "changed" if view.memory_changed else "unchanged"
            print(
                f"  step {recorder.step:2}: view of {len(view.messages):2} messages, "
                f"~{view.total_tokens:4} tokens (memory {view.memory_tokens}, {changed}; "
                f"old messages dropped: {view.dropped_messages})"
            )
            recorder.step += 1
            if action == "final":
                recorder.record(
                    "message",
                    {"role": "assistant", "content": data, "metadata": {"action_type": "final"}},
                )
                history.append({"role": "assistant", "content": data})
                print(f"  -> answer: {data}")
                break
            name, args, result, ok = data
            call_id = f"call_{next(call_ids)}"
            arguments = json.dumps(args, sort_keys=True)
            history.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": arguments},
                        }
                    ],
                }
            )
            recorder.record(
                "state_transition",
                {
                    "from_state": "calling_model",
                    "to_state": "running_tools",
                    "reason": "model_returned_tool_calls",
                },
            )
            lifecycle = {"tool_name": name, "tool_call_id": call_id, "args": args}
            recorder.record("tool_lifecycle", {**lifecycle, "status": "requested"})
            recorder.record("tool_lifecycle", {**lifecycle, "status": "started"})
            if ok:
                recorder.record(
                    "tool_lifecycle", {**lifecycle, "status": "completed", "result": result}
                )
            else:
                recorder.record(
                    "tool_lifecycle",
                    {**lifecycle, "status": "failed", "error": result.splitlines()[-1]},
                )
            history.append({"role": "tool", "tool_call_id": call_id, "content": result})
            print(f"  -> {name} {arguments}: {'ok' if ok else 'failed'}")
    recorder.record("terminal", {"reason": "completed"})
    return deriver.memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--context-window", type=int, default=2000, metavar="N")
    parser.add_argument("--budget", type=int, default=400, metavar="N", help="memory budget")
    parser.add_argument("--transcript", type=Path, help="also write the native transcript here")
    args = parser.parse_args()
    if args.transcript is not None:
        with args.transcript.open("w", encoding="utf-8") as out:
            memory = run(args.context_window, args.budget, out)
    else:
        memory = run(args.context_window, args.budget, None)
    print(f"\nThe memory at the end ({memory.tokens_used}/{memory.budget_tokens} tokens):\n")
    print(render_memory(memory), end="")


if __name__ == "__main__":
    main()
