"""session_memory.apps.memory_dir.outputs: atomic private writes, state round trips, safe names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from session_memory.apps.memory_dir.outputs import (
    OutputPair,
    Outputs,
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
        """Directories created for outputs and state are 0o700, parents included."""
        made = ensure_private_dir(tmp_path / "a" / "b")
        assert file_mode(made) == 0o700
        assert file_mode(tmp_path / "a") == 0o700


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


class TestWindowsNames:
    @pytest.mark.parametrize("raw", ["CON", "nul", "Aux", "com1", "LPT9", "con.x", "PRN.memory"])
    def test_reserved_device_stems_are_altered(self, raw: str) -> None:
        """A stem Windows reserves for a device never names an output."""
        name = safe_name(raw)
        assert name.split(".", 1)[0].upper() not in {"CON", "NUL", "AUX", "PRN", "COM1", "LPT9"}
        assert name.startswith("_")

    def test_names_that_only_start_like_a_device_are_kept(self) -> None:
        """``console`` or ``com10`` are ordinary names."""
        assert safe_name("console") == "console"
        assert safe_name("com10") == "com10"


class TestOutputs:
    PAIR = OutputPair(b"# md one\n", b'{"one": 1}\n')

    def test_publish_switches_both_names_at_once(self, tmp_path: Path) -> None:
        """Both names lead through one pointer to one generation; the old one is removed."""
        outputs = Outputs(tmp_path)
        outputs.publish("s", self.PAIR)
        first = os.readlink(tmp_path / ".generations" / "s.current")
        second = OutputPair(b"# md two\n", b'{"two": 2}\n')
        outputs.publish("s", second)
        assert os.readlink(tmp_path / ".generations" / "s.current") != first
        assert (tmp_path / "s.memory.md").read_bytes() == second.markdown
        assert (tmp_path / "s.memory.json").read_bytes() == second.json
        assert not (tmp_path / ".generations" / first).exists()
        assert outputs.matches("s", second)
        assert not outputs.matches("s", self.PAIR)

    def test_a_first_publication_replaces_what_is_in_its_way(self, tmp_path: Path) -> None:
        """A first publication makes its links in place, and still replaces any entry
        already at the pointer's or a name's path (never writing through it)."""
        outside = tmp_path / "outside"
        outside.write_bytes(b"keep")
        out = tmp_path / "out"
        (out / ".generations").mkdir(parents=True)
        (out / ".generations" / "s.current").write_bytes(b"not a link")
        (out / "s.memory.json").symlink_to(outside)
        (out / "s.memory.md").write_bytes(b"old")
        outputs = Outputs(out)
        outputs.publish("s", self.PAIR)
        assert outputs.matches("s", self.PAIR)
        assert (out / "s.memory.md").read_bytes() == self.PAIR.markdown
        assert outside.read_bytes() == b"keep"
        assert sorted(os.listdir(out / ".generations")) == ["s.1", "s.current"]

    def test_unchanged_markdown_is_linked_not_rewritten(self, tmp_path: Path) -> None:
        """A new generation whose Markdown did not change shares the old file."""
        outputs = Outputs(tmp_path)
        outputs.publish("s", self.PAIR)
        inode = (tmp_path / "s.memory.md").stat().st_ino
        outputs.publish("s", OutputPair(self.PAIR.markdown, b"{}\n"), markdown_unchanged=True)
        assert (tmp_path / "s.memory.md").stat().st_ino == inode
        assert (tmp_path / "s.memory.json").read_bytes() == b"{}\n"

    def test_clean_removes_what_a_killed_writer_left(self, tmp_path: Path) -> None:
        """Temp files and a generation no pointer leads to go; the published pair stays."""
        outputs = Outputs(tmp_path)
        outputs.publish("s", self.PAIR)
        (tmp_path / ".s.memory.json.0123abcd.tmp").write_bytes(b"x" * 40_000)
        orphan = tmp_path / ".generations" / "s.9"
        orphan.mkdir()
        (orphan / "memory.md").write_bytes(b"half")
        (tmp_path / ".generations" / ".s.current.89abcdef.tmp").symlink_to("s.9")
        assert outputs.clean() == 3
        assert sorted(os.listdir(tmp_path / ".generations")) == ["s.1", "s.current"]
        assert outputs.matches("s", self.PAIR)
        assert not list(tmp_path.glob("*.tmp"))

    def test_clean_reads_a_pointer_only_where_it_must(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A generation left behind by a pointer that moved, and the first generation of a
        name whose pointer was never made, go; a name with one generation and its pointer
        is left as it is, its pointer unread."""
        outputs = Outputs(tmp_path)
        outputs.publish("kept", self.PAIR)
        outputs.publish("moved", self.PAIR)
        generations = tmp_path / ".generations"
        outputs.publish("moved", OutputPair(b"# two\n", b"{}\n"), discard=lambda _: None)
        (generations / "unborn.1").mkdir()
        (generations / "unborn.1" / "memory.json").write_bytes(b"{}\n")
        read: list[str] = []
        readlink = os.readlink

        def counting(path: str) -> str:
            read.append(path)
            return readlink(path)

        monkeypatch.setattr(os, "readlink", counting)
        assert outputs.clean() == 2
        assert read == [str(generations / "moved.current")]
        assert sorted(os.listdir(generations)) == [
            "kept.1",
            "kept.current",
            "moved.2",
            "moved.current",
        ]
        assert outputs.matches("moved", OutputPair(b"# two\n", b"{}\n"))

    def test_edited_or_planted_outputs_do_not_match(self, tmp_path: Path) -> None:
        """An output edited in place, or swapped for a link, is found different unread."""
        outputs = Outputs(tmp_path)
        outputs.publish("s", self.PAIR)
        (tmp_path / "s.memory.json").write_bytes(b'{"one": 2}\n')
        assert not outputs.matches("s", self.PAIR)
        outputs.publish("s", self.PAIR)
        (tmp_path / "s.memory.md").unlink()
        (tmp_path / "s.memory.md").symlink_to("/dev/zero")
        assert not outputs.matches("s", self.PAIR)
        outputs.publish("s", self.PAIR)
        assert outputs.matches("s", self.PAIR)

    def test_read_gives_both_files_of_one_generation(self, tmp_path: Path) -> None:
        """Outputs.read opens the generation once: the pair it returns always agrees."""
        outputs = Outputs(tmp_path)
        assert outputs.read("s") is None
        outputs.publish("s", self.PAIR)
        assert outputs.read("s") == self.PAIR
        second = OutputPair(b"# two\n", b"{}\n")
        outputs.publish("s", second)
        assert outputs.read("s") == second
