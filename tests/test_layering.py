"""The floors (docs/architecture.md): every import runs down, never back up.

From the ground up: core (``session_memory.core``); the format adapters
(``session_memory.formats``), the fold (``deriver``) and the view (``viewbuilder``), each
importing core only; the applications (``session_memory.apps``), which may import anything
below them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGES = ("session_memory", "deriver", "viewbuilder")

CORE = "session_memory.core"
FORMATS = "session_memory.formats"
APPS = "session_memory.apps"
FLOORS: dict[str, int] = {CORE: 0, FORMATS: 1, "deriver": 1, "viewbuilder": 1, APPS: 2}
"""Each room and its floor; rooms of one floor do not import each other."""


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def room_of(module: str) -> str | None:
    """The room a module of the packages lives in; None for the ``session_memory`` root."""
    for room in FLOORS:
        if module == room or module.startswith(room + "."):
            return room
    return None


def imports_of(path: Path) -> set[str]:
    """Every absolute module an import statement of the file names (type-only ones too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def package_files() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def wrong_way(importer: str, imported: str) -> bool:
    """Whether ``importer`` importing ``imported`` runs up a floor or across one."""
    source, target = room_of(importer), room_of(imported)
    if source is None or target is None or source == target:
        return False
    return FLOORS[target] >= FLOORS[source]


@pytest.mark.parametrize("path", package_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_run_down_the_floors(path: Path) -> None:
    """A module imports only from rooms on floors below its own (or from its own room)."""
    importer = module_of(path)
    assert room_of(importer) is not None or importer == "session_memory", importer
    upward = sorted(m for m in imports_of(path) if wrong_way(importer, m))
    assert upward == [], f"{importer} imports {upward}"


def test_the_rule_catches_an_import_that_runs_back_up(tmp_path: Path) -> None:
    """The check itself fails on a core module that imports the fold or an application."""
    assert wrong_way("session_memory.core.events", "deriver.store")
    assert wrong_way("session_memory.core.tokens", "session_memory.apps.memory_dir.files")
    assert wrong_way("deriver.rules", "session_memory.formats.codex")
    assert wrong_way("viewbuilder.view", "deriver")
    assert not wrong_way("session_memory.apps.cli", "deriver")
    assert not wrong_way("deriver.rules", "session_memory.core.memory")


def test_the_fold_reads_no_clock_or_environment() -> None:
    """The fold is free of I/O: no clock, no environment, no randomness, no file watching."""
    for path in sorted((ROOT / "deriver").rglob("*.py")):
        for module in imports_of(path):
            assert module.split(".")[0] not in {
                "time",
                "datetime",
                "os",
                "random",
                "uuid",
                "watchfiles",
            }, f"{path.name} imports {module}"


def _users_of(prefix: str) -> set[str]:
    return {
        str(p.relative_to(ROOT))
        for p in package_files()
        if any(m == prefix or m.startswith(prefix + ".") for m in imports_of(p))
    }


def test_only_tail_imports_watchfiles() -> None:
    """watchfiles is imported by the tailer alone."""
    assert _users_of("watchfiles") <= {"session_memory/apps/tail.py"}


def test_only_the_jetstream_package_imports_the_nats_client() -> None:
    """Only the modules of session_memory/apps/distributed/jetstream/ import the NATS client."""
    users = _users_of("nats")
    assert users and all(p.startswith("session_memory/apps/distributed/jetstream/") for p in users)


def test_the_distributed_package_is_reached_only_through_the_cli() -> None:
    """Outside the distributed package, only the command line names it (to add commands)."""
    users = {p for p in _users_of(f"{APPS}.distributed") if "/distributed/" not in p}
    assert all(p.startswith("session_memory/apps/cli/") for p in users), users
