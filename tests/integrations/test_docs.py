"""The example of each framework page in docs/ runs and prints what the page shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = {"pydantic-ai.md": "pydantic_ai", "openai-agents.md": "agents", "langchain.md": "langchain"}


def example(page: str) -> tuple[str, str]:
    """The page's Python block and the text block after it (what the block prints)."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S)
    assert found, f"{page} has no example with its output"
    return found.group(1), found.group(2)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_example_prints_what_the_page_shows(
    page: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip(PAGES[page])
    code, shown = example(page)
    exec(compile(code, str(DOCS / page), "exec"), {"__name__": "docs_example"})
    assert capsys.readouterr().out == shown
