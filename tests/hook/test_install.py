"""``session-memory install|uninstall``: merging the hook into the clients' config files."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_memory.apps.cli import cli
from session_memory.apps.codex_trust import hook_keys, with_trust, without_trust
from session_memory.apps.install import config_path, is_our_command, merged, our_entries, removed

OTHERS: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("PATH", "/nonexistent")  # no codex: the trust step is only printed
    return home


def settings(home: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = orjson.loads((home / ".claude" / "settings.json").read_bytes())
    return loaded


def write_settings(home: Path, obj: dict[str, Any]) -> Path:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(obj))
    return path


class TestClaudeCode:
    def test_install_adds_a_session_start_hook_and_keeps_everything_else(
        self, home: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Our SessionStart entry is added beside every other setting and hook."""
        write_settings(home, OTHERS)
        assert cli("install", "claude-code") == 0
        after = settings(home)
        assert after["model"] == "opus" and after["permissions"] == OTHERS["permissions"]
        assert after["hooks"]["Stop"] == OTHERS["hooks"]["Stop"]
        starts = after["hooks"]["SessionStart"]
        assert starts[0] == OTHERS["hooks"]["SessionStart"][0]
        (ours,) = starts[1]["hooks"]
        assert ours["type"] == "command" and ours["command"].endswith("hook --client claude-code")
        assert "UserPromptSubmit" not in after["hooks"]

    def test_installing_twice_is_installing_once(self, home: Path) -> None:
        """The second install changes no byte."""
        path = write_settings(home, OTHERS)
        cli("install", "claude-code", "--on-prompt")
        once = path.read_bytes()
        cli("install", "claude-code", "--on-prompt")
        assert path.read_bytes() == once

    def test_uninstall_removes_exactly_our_entries(self, home: Path) -> None:
        """install then uninstall gives back the original settings object."""
        write_settings(home, OTHERS)
        cli("install", "claude-code", "--on-prompt")
        cli("uninstall", "claude-code")
        assert settings(home) == OTHERS

    def test_on_prompt_adds_user_prompt_submit(self, home: Path) -> None:
        """--on-prompt installs the UserPromptSubmit entry too."""
        cli("install", "claude-code", "--on-prompt", "--on-clear", "carry-over")
        hooks = settings(home)["hooks"]
        command = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
        assert command.endswith("hook --client claude-code --on-clear carry-over")

    def test_dry_run_prints_the_diff_and_writes_nothing(
        self, home: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """--dry-run shows a unified diff and leaves the file as it was."""
        path = write_settings(home, OTHERS)
        before = path.read_bytes()
        assert cli("install", "claude-code", "--dry-run") == 0
        out = capsys.readouterr().out
        assert out.startswith(f"--- {path}\n+++ {path}\n")
        assert "+" in out and "hook --client claude-code" in out
        assert path.read_bytes() == before

    def test_a_backup_of_the_old_file_is_kept(self, home: Path) -> None:
        """The replaced file stays next to it as settings.json.bak."""
        path = write_settings(home, OTHERS)
        before = path.read_bytes()
        cli("install", "claude-code")
        assert path.with_name("settings.json.bak").read_bytes() == before

    def test_project_scope_writes_the_project_settings(self, home: Path, tmp_path: Path) -> None:
        """--scope project writes <project>/.claude/settings.json."""
        project = tmp_path / "repo"
        cli("install", "claude-code", "--scope", "project", "--project", str(project))
        data = orjson.loads((project / ".claude" / "settings.json").read_bytes())
        assert is_our_command(data["hooks"]["SessionStart"][0]["hooks"][0]["command"])
        assert not (home / ".claude").exists()

    def test_invalid_settings_are_an_error_and_stay_untouched(
        self, home: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A settings file that is not JSON is reported, never overwritten."""
        path = home / ".claude" / "settings.json"
        path.parent.mkdir()
        path.write_text("{ oops")
        assert cli("install", "claude-code") == 2
        assert "not valid JSON" in capsys.readouterr().err
        assert path.read_text() == "{ oops"

    def test_uninstall_without_a_file_creates_none(self, home: Path) -> None:
        """Uninstalling from a client never configured leaves no file behind."""
        assert cli("uninstall", "claude-code") == 0
        assert not (home / ".claude" / "settings.json").exists()


class TestMergeProperties:
    def test_merge_is_idempotent_and_removal_inverts_it(self) -> None:
        """merged(merged(s)) == merged(s), and removed(merged(s)) == s for our-free s."""
        once = merged(OTHERS, "/bin/session-memory hook --client codex", ("SessionStart",))
        assert merged(once, "/bin/session-memory hook --client codex", ("SessionStart",)) == once
        assert removed(once) == OTHERS
        assert our_entries(once) == [("SessionStart", 1, 0)]


class TestCodex:
    def test_install_writes_the_wrapped_hooks_file_and_names_the_trust_step(
        self, home: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Codex hooks go to $CODEX_HOME/hooks.json under "hooks"; without codex on PATH the
        one step the user must take is printed."""
        assert cli("install", "codex") == 0
        data = orjson.loads((home / ".codex" / "hooks.json").read_bytes())
        assert list(data) == ["hooks"]
        assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith("--client codex")
        assert "/hooks" in capsys.readouterr().out

    def test_project_scope_writes_the_repository_hooks_file(
        self, home: Path, tmp_path: Path
    ) -> None:
        """--scope project writes <repo>/.codex/hooks.json."""
        path = config_path("codex", "project", project=tmp_path / "repo")
        assert path == tmp_path / "repo" / ".codex" / "hooks.json"

    def test_trust_entries_are_added_once_and_removed_again(self) -> None:
        """The trust tables merge into config.toml idempotently, keeping the rest."""
        text = 'model = "gpt-5.5"\n\n[analytics]\nenabled = false\n'
        keys = hook_keys(Path("/h/.codex/hooks.json"), [("SessionStart", 0, 0)])
        assert keys == ["/h/.codex/hooks.json:session_start:0:0"]
        trusted = with_trust(text, {keys[0]: "sha256:abc"})
        assert with_trust(trusted, {keys[0]: "sha256:abc"}) == trusted
        parsed = tomllib.loads(trusted)
        assert parsed["hooks"]["state"][keys[0]]["trusted_hash"] == "sha256:abc"
        assert parsed["analytics"] == {"enabled": False}
        rehashed = with_trust(trusted, {keys[0]: "sha256:def"})
        assert tomllib.loads(rehashed)["hooks"]["state"][keys[0]]["trusted_hash"] == "sha256:def"
        assert tomllib.loads(without_trust(rehashed, keys)) == tomllib.loads(text)
