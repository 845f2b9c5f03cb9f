"""Native transcripts for the service tests: small, varied, deterministic."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from benchmarks.machine import process_cpu_seconds, process_rss_kib


def event(
    i: int,
    event_type: str,
    payload: dict[str, Any],
    *,
    session: str = "s-1",
    run: str = "run-1",
) -> bytes:
    """One native event line, newline included."""
    obj = {
        "event_id": f"evt-{i}",
        "timestamp": f"2026-08-25T10:{(i // 60) % 60:02d}:{i % 60:02d}Z",
        "session_id": session,
        "run_id": run,
        "step": i,
        "event_type": event_type,
        "payload": payload,
        "reference_id": None,
        "schema_version": 1,
    }
    return orjson.dumps(obj) + b"\n"


def user(i: int, text: str, **kw: Any) -> bytes:
    return event(i, "message", {"role": "user", "content": text}, **kw)


def tool(i: int, name: str, call: str, status: str, args: dict[str, Any], **kw: Any) -> bytes:
    payload: dict[str, Any] = {
        "tool_name": name,
        "tool_call_id": call,
        "status": status,
        "args": args,
    }
    if status == "completed":
        payload["result"] = "ok"
    if status == "failed":
        payload["error"] = "boom: it broke\nsecond line"
    return event(i, "tool_lifecycle", payload, **kw)


def varied_lines(n: int, *, seed: int = 0, session: str = "s-1") -> list[bytes]:
    """``n`` lines of a plausible session: goals, tool calls, tests, decisions, bad lines.

    About one line in fifty is corrupt and one in forty repeats an earlier event id, so the
    skip counting and the duplicate handling are exercised too.
    """
    rng = random.Random(seed)
    lines: list[bytes] = []
    i = 0
    while len(lines) < n:
        i += 1
        roll = rng.random()
        kw = {"session": session}
        if roll < 0.02:
            lines.append(b'{"event_id": "broken", "payload": \n')
        elif roll < 0.045 and i > 2:
            lines.append(user(rng.randrange(1, i), "repeat", **kw))
        elif roll < 0.12:
            lines.append(user(i, f"Task {i}: refactor module m{i % 7}.py", **kw))
        elif roll < 0.5:
            name = rng.choice(["Read", "Edit", "Bash", "Grep", "Write"])
            args: dict[str, Any] = (
                {"command": rng.choice(["pytest -q", "make test", "ls"])}
                if name == "Bash"
                else {"file_path": f"src/m{i % 9}.py"}
            )
            status = rng.choice(["requested", "started", "completed", "completed", "failed"])
            lines.append(tool(i, name, f"call-{i // 3}", status, args, **kw))
        elif roll < 0.6:
            lines.append(
                event(
                    i, "message", {"role": "assistant", "content": f"Decision: use plan {i}"}, **kw
                )
            )
        elif roll < 0.7:
            lines.append(
                event(
                    i,
                    "message",
                    {
                        "role": "assistant",
                        "content": f"Done {i}",
                        "metadata": {"action_type": "final"},
                    },
                    **kw,
                )
            )
        elif roll < 0.75:
            lines.append(
                event(
                    i,
                    "checkpoint",
                    {"checkpoint_id": f"cp-{i}", "summary": f"Compacted at {i}"},
                    **kw,
                )
            )
        elif roll < 0.8:
            lines.append(event(i, "terminal", {"reason": "completed"}, **kw))
        else:
            lines.append(event(i, "mystery_event", {"x": i}, **kw))
    return lines


def append(path: Path, data: bytes) -> None:
    """Append bytes with one write and flush them to the file."""
    with open(path, "ab") as f:
        f.write(data)
        f.flush()


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, interval: float = 0.01) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` passes; return its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def file_mode(path: Path) -> int:
    return os.stat(path).st_mode & 0o777


SCRIPT = str(Path(sys.executable).with_name("session-memory"))


class WatchProcess:
    """A real `session-memory watch` process, its log in a file; killed if left running."""

    def __init__(self, *args: str | Path, log: Path, env: dict[str, str] | None = None) -> None:
        self.log_path = log
        self._log = open(log, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [SCRIPT, "watch", *map(str, args)],
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            env=env,
        )

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.proc.pid)

    def rss_mib(self) -> float:
        kib = process_rss_kib(self.proc.pid)
        return kib / 1024 if kib >= 0 else -1.0

    def terminate(self, timeout: float = 10.0) -> int:
        """SIGTERM, and the exit status once it has stopped (TimeoutExpired if it does not)."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()

    def __enter__(self) -> WatchProcess:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def tree_contains(root: Path, needle: bytes) -> list[Path]:
    """Regular files under ``root`` (links not followed) whose bytes hold ``needle``."""
    return [
        p
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and needle in p.read_bytes()
    ]
