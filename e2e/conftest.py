"""End-to-end fixtures: the real clients (pinned, installed with npm into a git-ignored cache),
a fresh HOME per run, and the session-memory console script of this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "e2e"
CLIENTS = CACHE / "clients"
RUNS = CACHE / "runs"
CLAUDE_CODE = ("@anthropic-ai/claude-code", "2.1.328")
CODEX = ("@openai/codex", "0.169.0")
SESSION_MEMORY = Path(sys.executable).with_name("session-memory")


@dataclass(frozen=True)
class Clients:
    claude: Path
    codex: Path


def _version(binary: Path) -> str:
    try:
        result = subprocess.run(
            [binary, "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "HOME": str(CACHE / "version-home")},
        )
    except OSError:
        return ""
    return result.stdout


def _install() -> None:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not on PATH: the end-to-end tests install the real clients with npm")
    CLIENTS.mkdir(parents=True, exist_ok=True)
    packages = [f"{name}@{version}" for name, version in (CLAUDE_CODE, CODEX)]
    result = subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(CLIENTS),
            "--no-audit",
            "--no-fund",
            "--no-save",
            *packages,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        pytest.fail(f"npm install {' '.join(packages)} failed:\n{result.stderr[-3000:]}")
    # Claude Code links its native binary in a postinstall script, which npm may not run.
    installer = CLIENTS / "node_modules" / CLAUDE_CODE[0] / "install.cjs"
    claude = CLIENTS / "node_modules" / ".bin" / "claude"
    if installer.exists() and CLAUDE_CODE[1] not in _version(claude):
        subprocess.run(
            ["node", str(installer)], cwd=installer.parent, capture_output=True, timeout=300
        )


@pytest.fixture(scope="session")
def clients() -> Clients:
    """The pinned clients, installed on first use; a failure (not a skip) without them."""
    bin_dir = CLIENTS / "node_modules" / ".bin"
    found = Clients(bin_dir / "claude", bin_dir / "codex")
    if CLAUDE_CODE[1] not in _version(found.claude) or CODEX[1] not in _version(found.codex):
        _install()
    for binary, (name, version) in ((found.claude, CLAUDE_CODE), (found.codex, CODEX)):
        if version not in _version(binary):
            pytest.fail(f"{name}@{version} is not runnable at {binary}")
    if not SESSION_MEMORY.is_file():
        pytest.fail(f"{SESSION_MEMORY} is missing: run `make .venv/.installed` first")
    return found


@pytest.fixture
def run_dir(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A fresh directory for one scenario (HOME, project, logs), outside /tmp: Codex refuses
    to set up its helpers under a temporary directory. Kept when the test fails."""
    RUNS.mkdir(parents=True, exist_ok=True)
    client = request.node.module.__name__.removeprefix("test_").replace("_", "-")
    path = RUNS / f"{client}-{uuid.uuid4().hex[:6]}"
    path.mkdir()
    yield path
    failed = getattr(request.node, "_e2e_failed", False)
    if not failed:
        shutil.rmtree(path, ignore_errors=True)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    report = yield
    if getattr(report, "failed", False):
        item._e2e_failed = True  # type: ignore[attr-defined]
    return report
