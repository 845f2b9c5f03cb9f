"""Where the frameworks are imported: by their integration on the apps floor, nowhere else."""

from __future__ import annotations

import pytest

from tests.test_layering import ROOT, imports_of, package_files

FRAMEWORKS = {
    "pydantic_ai": "pydantic_ai",
    "agents": "openai_agents",
    "openai": "openai_agents",
    "langchain": "langchain",
    "langchain_core": "langchain",
    "langgraph": "langchain",
}

IMPORTS = {str(path.relative_to(ROOT)): imports_of(path) for path in package_files()}


@pytest.mark.parametrize("top", sorted(FRAMEWORKS))
def test_only_its_integration_imports_a_framework(top: str) -> None:
    """The adapters read the frameworks' JSON forms; only the integration imports the library."""
    users = {
        path
        for path, modules in IMPORTS.items()
        if any(m == top or m.startswith(top + ".") for m in modules)
    }
    assert users <= {f"session_memory/apps/integrations/{FRAMEWORKS[top]}.py"}
