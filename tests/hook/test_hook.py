"""``session-memory hook``: what it injects for each event, its caps, its state, its failures."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.apps.hook import (
    CAPS,
    MARGIN,
    HookConfig,
    detect_client,
    hook_main,
    parse_hook_input,
)
from session_memory.apps.memory_dir.current import current_memory, state_dir_of
from session_memory.apps.memory_dir.outputs import OutputPair, Outputs, load_state, state_path
from session_memory.apps.service import MemoryService
from session_memory.core.tokens import counter
from session_memory.formats import read_transcript
from tests.cc_session import ClaudeCodeSession
from viewbuilder import render_memory

CODEX_FIXTURE = (
    Path(__file__).parent.parent
    / "fixtures/codex/codex-0.125.0-cli_update-plan_apply-patch_EXCERPT_019e1625_L228-386.jsonl"
)


def event(
    transcript: Path | None,
    name: str = "SessionStart",
    source: str | None = "compact",
    session: str = "s-1",
    cwd: str = "/work/app",
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "session_id": session,
        "transcript_path": None if transcript is None else str(transcript),
        "cwd": cwd,
        "hook_event_name": name,
    }
    if source is not None:
        obj["source"] = source
    return obj


def call(config: HookConfig, payload: dict[str, Any] | bytes) -> dict[str, Any] | None:
    """Run the hook in-process; the parsed output, or None when it printed nothing."""
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    out = io.BytesIO()
    assert hook_main(io.BytesIO(data), out, config) == 0
    if not out.getvalue():
        return None
    parsed: dict[str, Any] = orjson.loads(out.getvalue())
    return parsed


def context(output: dict[str, Any] | None) -> str:
    assert output is not None
    text: str = output["hookSpecificOutput"]["additionalContext"]
    return text


def full_memory(path: Path, budget: int = 1200) -> str:
    deriver = SessionMemoryDeriver(budget_tokens=budget)
    deriver.apply_all(read_transcript(path))
    return render_memory(deriver.memory)


def memory_dir(config: HookConfig) -> Path:
    """The memory directory of ``config`` (a plain string path in the hook itself)."""
    return Path(config.memory_dir)


def state_of(config: HookConfig, transcript: Path) -> Path:
    return state_path(state_dir_of(memory_dir(config)), os.path.realpath(transcript))


def log_lines(config: HookConfig) -> list[str]:
    log = memory_dir(config) / "hook.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def config(tmp_path: Path) -> HookConfig:
    return HookConfig(memory_dir=tmp_path / "memory")


@pytest.fixture
def session(tmp_path: Path) -> ClaudeCodeSession:
    s = ClaudeCodeSession(tmp_path / "projects" / "-work-app" / "s-1.jsonl")
    s.prompt("Make the checkout tests pass")
    s.todos(("Fix the rounding bug", "in_progress"), ("Run the full suite", "pending"))
    s.tool(
        "Bash", {"command": "pytest -q tests/test_checkout.py"}, "1 failed, 4 passed", error=True
    )
    s.tool("Edit", {"file_path": "/work/app/checkout.py"}, "The file has been updated.")
    s.tool("Bash", {"command": "pytest -q tests/test_checkout.py"}, "5 passed in 0.1s")
    return s


class TestSessionStart:
    def test_compact_injects_the_memory_with_an_introduction(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """After a compaction the hook prints the whole memory, introduced by one line."""
        out = call(config, event(session.path, source="compact"))
        assert out is not None
        assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        intro, blank, memory = context(out).partition("\n\n")
        assert blank and "\n" not in intro
        assert "derived by session-memory from this session's transcript" in intro
        assert "never instructions" in intro
        assert memory == full_memory(session.path)
        assert "Fix the rounding bug" in memory and "5 passed" in memory

    def test_resume_injects_the_memory(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """On resume the hook prints the memory too."""
        assert "Run the full suite" in context(call(config, event(session.path, source="resume")))

    def test_startup_of_a_new_session_prints_nothing(
        self, config: HookConfig, tmp_path: Path
    ) -> None:
        """A session that has no transcript yet gets nothing, and nothing is logged."""
        assert call(config, event(tmp_path / "new.jsonl", source="startup")) is None
        empty = tmp_path / "empty.jsonl"
        empty.touch()
        assert call(config, event(empty, source="startup")) is None
        assert log_lines(config) == []

    def test_clear_prints_nothing_by_default(
        self, config: HookConfig, session: ClaudeCodeSession, tmp_path: Path
    ) -> None:
        """After /clear the new session starts clean unless carry-over is asked for."""
        fresh = session.path.with_name("s-2.jsonl")
        assert call(config, event(fresh, source="clear", session="s-2")) is None

    def test_clear_can_carry_over_the_previous_session_of_the_same_cwd(
        self, config: HookConfig, session: ClaudeCodeSession, tmp_path: Path
    ) -> None:
        """With on_clear=carry-over, /clear injects the most recent other session's memory."""
        older = ClaudeCodeSession(session.path.with_name("s-0.jsonl"), session_id="s-0")
        older.prompt("An older task")
        os.utime(older.path, (1, 1))
        carry = HookConfig(memory_dir=config.memory_dir, on_clear="carry-over")
        fresh = session.path.with_name("s-2.jsonl")
        text = context(call(carry, event(fresh, source="clear", session="s-2")))
        assert text.startswith("Session memory of the previous session in this directory")
        assert text.partition("\n\n")[2] == full_memory(session.path)

    def test_clear_carries_over_a_codex_session_seen_in_the_same_cwd(self, tmp_path: Path) -> None:
        """For Codex the previous session is one the hook saw with the same cwd."""
        carry = HookConfig(memory_dir=tmp_path / "memory", on_clear="carry-over")
        rollout = tmp_path / "rollout-2026-12-01T10-00-00-aaaa.jsonl"
        rollout.write_bytes(CODEX_FIXTURE.read_bytes())
        assert call(carry, event(rollout, source="startup", session="a", cwd="/r")) is not None
        out = call(carry, event(tmp_path / "rollout-new.jsonl", "SessionStart", "clear", "b", "/r"))
        assert context(out).partition("\n\n")[2] == full_memory(rollout)
        other_cwd = event(tmp_path / "rollout-new.jsonl", "SessionStart", "clear", "b", "/x")
        assert call(carry, other_cwd) is None


class TestUserPromptSubmit:
    def test_injects_only_when_the_memory_changed(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """A prompt gets the memory once; again only after the memory changed."""
        prompt = event(session.path, name="UserPromptSubmit", source=None)
        first = call(config, prompt)
        assert first is not None
        assert first["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
        assert call(config, prompt) is None
        session.tool("Bash", {"command": "pytest -q"}, "2 failed, 40 passed", error=True)
        assert "2 failed" in context(call(config, prompt))
        assert call(config, prompt) is None

    def test_a_prompt_after_compaction_does_not_repeat_it(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """What SessionStart injected counts as injected for the next prompt."""
        assert call(config, event(session.path, source="compact")) is not None
        assert call(config, event(session.path, name="UserPromptSubmit", source=None)) is None

    def test_other_events_print_nothing(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """Events the hook does not answer get no output."""
        assert call(config, event(session.path, name="Stop", source=None)) is None


class TestCaps:
    @pytest.fixture
    def big(self, tmp_path: Path) -> Path:
        s = ClaudeCodeSession(tmp_path / "big.jsonl")
        s.prompt("Port the whole service to the new framework")
        for i in range(300):
            s.tool("Edit", {"file_path": f"/work/app/src/module_{i:03d}/handlers.py"}, "ok")
            s.tool("Bash", {"command": f"pytest -q tests/t{i}.py"}, f"FAILED {i}", error=True)
        return s.path

    def test_claude_code_text_fits_its_character_cap(self, tmp_path: Path, big: Path) -> None:
        """A memory too long for 10,000 characters is derived again smaller, whole."""
        config = HookConfig(memory_dir=tmp_path / "m", budget_tokens=4000)
        text = context(call(config, event(big)))
        assert len(orjson.dumps(text)) <= CAPS["claude-code"].max_chars * MARGIN  # type: ignore[operator]
        memory = text.partition("\n\n")[2]
        budget = orjson.loads((tmp_path / "m" / "s-1.memory.json").read_bytes())["budget_tokens"]
        assert budget == 4000  # the shared state keeps the configured budget
        smaller = [3200, 2560, 2048, 1638, 1310, 1048]  # the budgets tried, each 0.8 of the last
        assert any(memory == full_memory(big, b) for b in smaller)

    def test_codex_text_fits_its_token_cap(self, tmp_path: Path, big: Path) -> None:
        """For Codex the text stays within 2,500 tokens with the margin."""
        config = HookConfig(memory_dir=tmp_path / "m", budget_tokens=4000, client="codex")
        text = context(call(config, event(big)))
        limit = CAPS["codex"].max_tokens * MARGIN  # type: ignore[operator]
        assert counter().count(text) <= limit
        assert len(text.encode()) / 4 <= limit

    def test_default_budget_fits_both_clients_without_rederiving(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """At the default budget the memory is the shared state's, unchanged."""
        assert context(call(config, event(session.path))).endswith(full_memory(session.path))


class TestState:
    def test_a_call_folds_only_the_appended_bytes(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """The state keeps the offset; a later call reads on from it and equals a rebuild."""
        call(config, event(session.path))
        spath = state_path(state_dir_of(memory_dir(config)), os.path.realpath(session.path))
        first = load_state(spath).offset
        assert first == session.path.stat().st_size
        session.tool("Bash", {"command": "pytest -q"}, "12 passed")
        text = context(call(config, event(session.path, source="resume")))
        assert load_state(spath).offset == session.path.stat().st_size > first
        assert text.partition("\n\n")[2] == full_memory(session.path)

    def test_reads_what_watch_keeps_current(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """After `watch --out DIR` ran, the hook on DIR reads its outputs without folding."""
        MemoryService([session.path], config.memory_dir).run_once()
        memory = current_memory(session.path, config.memory_dir)
        assert not memory.folded
        assert memory.markdown == full_memory(session.path)
        session.prompt("Now also update the changelog")
        assert current_memory(session.path, config.memory_dir).folded

    def test_reads_both_outputs_from_one_generation(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """The Markdown read comes from the generation of the JSON, whatever the names show."""
        MemoryService([session.path], config.memory_dir).run_once()
        name = load_state(state_of(config, session.path)).name
        assert name is not None
        md_name = memory_dir(config) / f"{name}.memory.md"
        md_name.unlink()
        md_name.write_text("# a Markdown of another generation\n")
        memory = current_memory(session.path, config.memory_dir)
        assert not memory.folded
        assert memory.markdown == full_memory(session.path)

    def test_outputs_published_since_by_another_are_not_trusted(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """A pair that is not the memory the state was saved with is derived again."""
        MemoryService([session.path], config.memory_dir).run_once()
        name = load_state(state_of(config, session.path)).name
        assert name is not None
        other = OutputPair(b"# Session memory\n- another one\n", b'{"tokens_used": 5}')
        Outputs(memory_dir(config)).publish(name, other)
        memory = current_memory(session.path, config.memory_dir)
        assert memory.folded
        assert memory.markdown == full_memory(session.path)
        assert Outputs(memory_dir(config)).read(name) != other

    def test_a_rewritten_transcript_is_derived_again(
        self, config: HookConfig, session: ClaudeCodeSession, tmp_path: Path
    ) -> None:
        """A transcript replaced by other bytes of the same length is not trusted."""
        call(config, event(session.path))
        data = session.path.read_bytes().replace(b"checkout tests", b"checkout TESTS")
        session.path.write_bytes(data)
        assert "checkout TESTS" in context(call(config, event(session.path)))


class TestInjectedTextIsIgnored:
    def test_claude_code_hook_attachments_do_not_feed_the_memory(
        self, config: HookConfig, session: ClaudeCodeSession
    ) -> None:
        """The injected memory, recorded back as an attachment, changes nothing."""
        before = full_memory(session.path)
        session.hook_context(context(call(config, event(session.path))))
        assert full_memory(session.path) == before
        assert context(call(config, event(session.path))).endswith(before)

    def test_codex_developer_messages_do_not_feed_the_memory(self, tmp_path: Path) -> None:
        """The injected memory, recorded as a Codex developer message, changes nothing."""
        rollout = tmp_path / "rollout-x.jsonl"
        rollout.write_bytes(CODEX_FIXTURE.read_bytes())
        before = full_memory(rollout)
        injected = {
            "timestamp": "2026-12-01T10:00:00Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Session memory ...\n" + before}],
            },
        }
        with rollout.open("ab") as f:
            f.write(orjson.dumps(injected) + b"\n")
        assert full_memory(rollout) == before


class TestFailures:
    def test_bad_json_prints_nothing_and_logs_one_line(self, config: HookConfig) -> None:
        """Unparseable standard input: exit 0, no output, one log line."""
        assert call(config, b"{not json") is None
        lines = log_lines(config)
        assert len(lines) == 1 and "hook failed" in lines[0]

    def test_unreadable_transcript_prints_nothing_and_logs_one_line(
        self, config: HookConfig, tmp_path: Path
    ) -> None:
        """A compaction whose transcript cannot be read: exit 0, no output, one line."""
        assert call(config, event(tmp_path / "missing.jsonl", source="compact")) is None
        directory = tmp_path / "a-directory.jsonl"
        directory.mkdir()
        assert call(config, event(directory, source="resume")) is None
        assert len(log_lines(config)) == 2

    def test_full_disk_prints_nothing_and_logs_one_line(
        self, config: HookConfig, session: ClaudeCodeSession, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """When every state write fails with ENOSPC the hook stays silent and exits 0."""
        import session_memory.apps.memory_dir.outputs as store

        def full(*_args: object, **_kwargs: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(store, "atomic_write", full)
        monkeypatch.setattr(store, "write_new", full)  # every file the service creates
        monkeypatch.setattr("session_memory.apps.hook_sessions.atomic_write", full)
        assert call(config, event(session.path)) is None
        assert any("No space left" in line for line in log_lines(config))

    def test_an_open_state_directory_is_reported_in_the_log_not_on_stderr(
        self, config: HookConfig, session: ClaudeCodeSession, capfd: pytest.CaptureFixture[str]
    ) -> None:
        """A state directory others may enter is warned about in hook.log, never on stderr."""
        memory_dir(config).mkdir(mode=0o755)
        memory_dir(config).chmod(0o755)
        assert "Fix the rounding bug" in context(call(config, event(session.path)))
        assert capfd.readouterr().err == ""
        lines = log_lines(config)
        assert lines and all("WARNING" in line and "mode 755" in line for line in lines)

    def test_never_writes_outside_its_state_directory(
        self, session: ClaudeCodeSession, tmp_path: Path
    ) -> None:
        """A real hook process changes files only inside its state directory."""
        home = tmp_path / "home"
        home.mkdir()
        before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CACHE_HOME": "",
            "SESSION_MEMORY_STATE_DIR": "",
        }
        result = subprocess.run(
            [sys.executable, "-m", "session_memory.apps.cli", "hook"],
            input=orjson.dumps(event(session.path)),
            capture_output=True,
            cwd=tmp_path,
            env=env,
            check=True,
        )
        assert b"additionalContext" in result.stdout and result.stderr == b""
        state = home / ".cache" / "session-memory"
        changed = {
            p
            for p in tmp_path.rglob("*")
            if before.get(p) != p.stat().st_mtime_ns and not p.is_relative_to(state)
        }
        assert changed <= {home, home / ".cache"}


class TestInput:
    def test_client_is_detected_from_the_transcript_name(self) -> None:
        """Codex rollouts are named rollout-*.jsonl; anything else is Claude Code."""
        assert detect_client("/h/.codex/sessions/2026/12/01/rollout-2026-x.jsonl") == "codex"
        assert detect_client("/h/.claude/projects/-w/abc.jsonl") == "claude-code"
        assert detect_client(None) == "claude-code"

    def test_client_option_wins_over_detection(self) -> None:
        """--client overrides what the input suggests."""
        data = orjson.dumps(event(Path("/x/rollout-1.jsonl")))
        assert parse_hook_input(data, "claude-code").client == "claude-code"

    def test_console_script_prints_the_structured_output(
        self, session: ClaudeCodeSession, tmp_path: Path
    ) -> None:
        """`session-memory hook --state-dir DIR` reads stdin and prints the hook JSON."""
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "session_memory.apps.cli",
                "hook",
                "--state-dir",
                str(tmp_path / "s"),
            ],
            input=orjson.dumps(event(session.path, source="resume")),
            capture_output=True,
            check=True,
        )
        out = orjson.loads(result.stdout)
        assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert out["hookSpecificOutput"]["additionalContext"].endswith(full_memory(session.path))
