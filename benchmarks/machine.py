"""Facts about the machine and the code a run measured, for the report's header."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

__all__ = ["PACKAGES", "load_average", "machine_facts", "process_cpu_seconds", "process_rss_kib"]

ROOT = Path(__file__).resolve().parent.parent

PACKAGES = ("session-memory", "msgspec", "orjson", "tiktoken", "watchfiles")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _ram() -> str:
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    kib = int(line.split()[1])
                    return f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return "unknown"


def _cores() -> str:
    logical = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = logical
    return f"{usable} usable ({logical} logical)" if usable != logical else str(logical)


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def _commit() -> str:
    commit = _git("rev-parse", "--short", "HEAD")
    if not commit:
        return "unknown"
    # The results directory is what this run writes; changes there do not count.
    dirty = _git("status", "--porcelain", "--", ".", ":(exclude)benchmarks/results")
    return f"{commit} (with uncommitted changes)" if dirty else commit


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 min)"


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine_facts(command: str) -> dict[str, str]:
    """CPU, cores, RAM, OS, Python, package versions, date, commit and the command."""
    facts = {
        "CPU": _cpu_model(),
        "Cores": _cores(),
        "RAM": _ram(),
        "OS": platform.platform(),
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
    }
    for name in (*PACKAGES, "matplotlib"):
        facts[name] = _version(name)
    facts["Load average at start"] = load_average()
    facts["Date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    facts["Commit"] = _commit()
    facts["Command"] = command
    return facts


def process_rss_kib(pid: int) -> int:
    """The resident memory of a running process (``VmRSS``), in KiB; -1 if it has none."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def process_cpu_seconds(pid: int, *, children: bool = False) -> float:
    """User + system CPU time a running process has used so far; with ``children``, that of
    its children that have ended and been waited for instead."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    first = 13 if children else 11
    return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")
