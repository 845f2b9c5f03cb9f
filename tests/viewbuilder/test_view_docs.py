"""The code in docs/view.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "view.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("code", BLOCKS)
def test_example_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each Python block of the document runs without error and prints what it promises."""
    pytest.importorskip("deriver", reason="the deriver lands separately")
    try:
        from deriver import SessionMemoryDeriver  # noqa: F401
    except ImportError:
        pytest.skip("deriver.SessionMemoryDeriver missing")
    exec(compile(code, str(DOC), "exec"), {})
    assert capsys.readouterr().out
