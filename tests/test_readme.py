"""The README's first screen stays true: its code runs and its terminal session is real."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
CONSOLE_BLOCKS = re.findall(r"```console\n(.*?)```", README, re.S)


class TestReadme:
    @pytest.mark.parametrize("code", PYTHON_BLOCKS)
    def test_python_example_runs(self, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
        """Every Python example in the README runs as written, from the repository root."""
        monkeypatch.chdir(ROOT)
        exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})

    @pytest.mark.parametrize("block", CONSOLE_BLOCKS)
    def test_terminal_session_is_real(self, block: str) -> None:
        """Each shown command prints exactly what the README says it prints."""
        first, _, shown = block.partition("\n")
        assert first.startswith("$ session-memory ")
        args = shlex.split(first.removeprefix("$ session-memory "))
        result = subprocess.run(
            [sys.executable, "-m", "session_memory.apps.cli", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
            check=True,
        )
        assert result.stdout + result.stderr == shown
