"""session_memory.store: atomic private writes, state round trips, safe names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from session_memory.store import (
    StateError,
    TranscriptState,
    atomic_write,
    ensure_private_dir,
    load_state,
    safe_name,
    save_state,
    state_path,
)
from tests.service.service_helpers import file_mode

HOSTILE = ["../../x", "/etc/passwd", "a\x00b", "x" * 10_000, "", ".", "..", ".hidden", "a/b\\c"]


class TestSafeName:
    @pytest.mark.parametrize("raw", HOSTILE)
    def test_hostile_ids_become_plain_names(self, raw: str, tmp_path: Path) -> None:
        """Traversal, absolute paths, NUL, huge and dot names map to one safe file name."""
        name = safe_name(raw)
        assert name
        assert len(name) <= 96
        assert not name.startswith(".")
        assert all(c.isascii() and (c.isalnum() or c in "._-") for c in name)
        target = (tmp_path / f"{name}.memory.json").resolve()
        assert target.parent == tmp_path.resolve()

    def test_plain_ids_are_kept(self) -> None:
        """An id that is already a safe name is used verbatim."""
        assert safe_name("s-1.run_2") == "s-1.run_2"

    def test_altered_ids_stay_distinct(self) -> None:
        """Two ids that clean to the same text differ by their hash suffix."""
        assert safe_name("a/b") != safe_name("a:b")
        assert safe_name("a/b").startswith("a_b-")


class TestAtomicWrite:
    def test_private_mode_and_no_leftovers(self, tmp_path: Path) -> None:
        """The file is 0o600 from its creation and no temp file is left behind."""
        target = tmp_path / "out.json"
        atomic_write(target, b"one")
        atomic_write(target, b"two")
        assert target.read_bytes() == b"two"
        assert file_mode(target) == 0o600
        assert os.listdir(tmp_path) == ["out.json"]

    def test_private_dirs(self, tmp_path: Path) -> None:
        """Directories created for outputs and state are 0o700."""
        made = ensure_private_dir(tmp_path / "a" / "b")
        assert file_mode(made) == 0o700


class TestState:
    def _state(self, snapshot: bytes = b"\x00snap\nshot") -> TranscriptState:
        return TranscriptState(
            path="/t/a.jsonl",
            dev=1,
            ino=2,
            offset=3,
            fingerprint="0" * 32 + ":3",
            name="s-1",
            budget_tokens=1200,
            encoding="cl100k_base",
            snapshot=snapshot,
            memory_hash="1" * 32,
        )

    def test_round_trip(self, tmp_path: Path) -> None:
        """A saved state loads back equal, binary snapshot included."""
        state = self._state()
        save_state(tmp_path, state)
        assert load_state(state_path(tmp_path, state.path)) == state
        assert file_mode(state_path(tmp_path, state.path)) == 0o600

    @pytest.mark.parametrize("damage", [b"", b"garbage", b'{"format": 99}\n', None])
    def test_damaged_state_is_an_error(self, tmp_path: Path, damage: bytes | None) -> None:
        """A damaged or foreign state file is a StateError, never a wrong resume."""
        state = self._state()
        save_state(tmp_path, state)
        path = state_path(tmp_path, state.path)
        if damage is None:
            path.write_bytes(path.read_bytes()[:-1] + b"X")
        else:
            path.write_bytes(damage)
        with pytest.raises(StateError):
            load_state(path)
