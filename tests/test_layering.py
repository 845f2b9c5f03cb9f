"""The direction of imports (DESIGN section 8): the fold never reaches the edges."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
EDGES = ("session_memory.tail", "session_memory.service", "session_memory.cli")


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "deriver").rglob("*.py")) + sorted((ROOT / "viewbuilder").rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
class TestLayering:
    def test_fold_and_view_never_import_the_edges(self, path: Path) -> None:
        """deriver and viewbuilder import no tailing, service, CLI or file watching."""
        for module in imports_of(path):
            assert not module.startswith(EDGES), f"{path.name} imports {module}"
            assert not module.startswith("watchfiles"), f"{path.name} imports {module}"

    def test_fold_reads_no_clock_or_environment(self, path: Path) -> None:
        """The fold is free of I/O: no clock, no environment, no randomness."""
        if path.parent.name != "deriver":
            return
        for module in imports_of(path):
            assert module not in {"time", "datetime", "os", "random", "uuid"}, module


def test_only_tail_imports_watchfiles() -> None:
    """watchfiles is imported by session_memory.tail alone."""
    users = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "session_memory").rglob("*.py")
        if any(m.startswith("watchfiles") for m in imports_of(p))
    }
    assert users <= {"session_memory/tail.py"}


def test_only_the_jetstream_module_imports_the_nats_client() -> None:
    """The core keeps no NATS import: only session_memory/distributed/jetstream.py has one."""
    users = {
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "session_memory").rglob("*.py"))
        + sorted((ROOT / "deriver").rglob("*.py"))
        + sorted((ROOT / "viewbuilder").rglob("*.py"))
        if any(m == "nats" or m.startswith("nats.") for m in imports_of(p))
    }
    assert users == {"session_memory/distributed/jetstream.py"}


def test_the_core_reaches_the_distributed_package_only_through_the_cli() -> None:
    """Outside session_memory/distributed, only the command line names it (to add commands)."""
    users = {
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "session_memory").rglob("*.py"))
        + sorted((ROOT / "deriver").rglob("*.py"))
        + sorted((ROOT / "viewbuilder").rglob("*.py"))
        if "distributed" not in p.parts
        and any(m.startswith("session_memory.distributed") for m in imports_of(p))
    }
    assert users <= {"session_memory/cli.py"}
