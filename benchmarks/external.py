"""The other benchmark scripts (``benchmarks/bench_*.py``), run as they are and reported.

Each script is a plain program that prints its figures; it runs in its own interpreter, from
the repository root, with ``--quick`` when the runner is quick and the script accepts it.
Its standard output goes into the report as it is. A script that is expected but not there
yet gets a "not yet measured" row, so the report says what it does not cover.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EXPECTED", "ScriptRun", "discover", "run_scripts"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

EXPECTED: dict[str, str] = {
    "bench_service.py": "watch service: freshness, concurrency, restart, memory",
    "bench_view.py": "build_model_view: cost per call inside an agent loop",
    "bench_formats.py": "format adapters: read and derive cost per MB against native",
    "bench_startup.py": "start-up of --help, derive and hook against python -c pass",
}


@dataclass
class ScriptRun:
    """What one script printed, or why it has no figures."""

    name: str
    what: str
    status: str
    """``ok``, ``failed``, ``timed out`` or ``not yet measured``."""
    command: str = ""
    seconds: float = 0.0
    stdout: str = ""
    detail: str = ""


def discover(directory: Path = HERE) -> list[Path]:
    return sorted(directory.glob("bench_*.py"))


def _accepts_quick(script: Path) -> bool:
    try:
        return "--quick" in script.read_text(encoding="utf-8")
    except OSError:
        return False


def run_scripts(
    *,
    quick: bool,
    timeout_s: float,
    directory: Path = HERE,
    progress: Callable[[str], None] | None = None,
) -> list[ScriptRun]:
    """Run every ``bench_*.py`` in ``directory``; list the expected ones that are missing."""
    runs: list[ScriptRun] = []
    found = {path.name: path for path in discover(directory)}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    for name in sorted(set(found) | set(EXPECTED)):
        what = EXPECTED.get(name, "")
        path = found.get(name)
        if path is None:
            runs.append(ScriptRun(name, what, "not yet measured", detail="script not present"))
            continue
        argv = [sys.executable, str(path.relative_to(ROOT))]
        if quick and _accepts_quick(path):
            argv.append("--quick")
        command = " ".join(["python", *argv[1:]])
        if progress is not None:
            progress(f"  {command}")
        t0 = time.perf_counter()
        try:
            done = subprocess.run(
                argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout_s
            )
        except subprocess.TimeoutExpired:
            runs.append(
                ScriptRun(
                    name,
                    what,
                    "timed out",
                    command,
                    time.perf_counter() - t0,
                    detail=f"no result within {timeout_s:.0f} s",
                )
            )
            continue
        seconds = time.perf_counter() - t0
        if done.returncode == 0:
            runs.append(ScriptRun(name, what, "ok", command, seconds, done.stdout.rstrip()))
        else:
            tail = "\n".join(done.stderr.rstrip().splitlines()[-8:])
            runs.append(
                ScriptRun(
                    name,
                    what,
                    "failed",
                    command,
                    seconds,
                    done.stdout.rstrip(),
                    detail=f"exit code {done.returncode}\n{tail}",
                )
            )
    return runs
