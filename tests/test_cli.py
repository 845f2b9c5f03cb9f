"""The command line: derive, its summary line, and its errors; a hook call's arguments."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from session_memory.apps.cli import build_parser, cli
from session_memory.apps.cli.agents import hook_arguments

SAMPLE = Path(__file__).parent.parent / "examples" / "sample_transcript.jsonl"


class TestDerive:
    def test_prints_rendered_memory_and_summary(self, capsys: pytest.CaptureFixture[str]) -> None:
        """derive prints the Markdown memory and a one-line summary on stderr."""
        assert cli("derive", str(SAMPLE)) == 0
        out, err = capsys.readouterr()
        assert out.startswith("# Session memory\n")
        assert "## Current goal" in out
        assert "3000 events applied, 0 lines skipped" in err
        assert "/1200 tokens" in err

    def test_json_output(self, capsys: pytest.CaptureFixture[str]) -> None:
        """derive --json prints the SessionMemory as JSON."""
        assert cli("derive", "--json", "--budget", "800", str(SAMPLE)) == 0
        memory = orjson.loads(capsys.readouterr().out)
        assert memory["event_count"] == 3000
        assert memory["budget_tokens"] == 800
        assert memory["tokens_used"] <= 800

    def test_missing_file_exits_2_with_one_line(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A missing file is one line on stderr and exit code 2, no traceback."""
        assert cli("derive", str(tmp_path / "nope.jsonl")) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "cannot read transcript" in err

    def test_impossible_budget_exits_2(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A budget below the skeleton is a clear error."""
        assert cli("derive", "--budget", "10", str(SAMPLE)) == 2
        assert "use at least" in capsys.readouterr().err

    def test_standard_input(self, tmp_path: Path) -> None:
        """PATH - reads the transcript from standard input."""
        result = subprocess.run(
            [sys.executable, "-m", "session_memory.apps.cli", "derive", "-"],
            input=SAMPLE.read_bytes(),
            capture_output=True,
            check=True,
        )
        assert result.stdout.startswith(b"# Session memory\n")

    def test_its_own_process_prints_the_same(
        self, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
    ) -> None:
        """As its own process, derive prints exactly what the command prints in-process."""
        assert cli("derive", "--json", str(SAMPLE)) == 0
        expected = capsysbinary.readouterr().out
        env = {**os.environ, "SESSION_MEMORY_STATE_DIR": str(tmp_path)}
        command = [sys.executable, "-m", "session_memory.apps.cli", "derive", "--json", str(SAMPLE)]
        outputs = [
            subprocess.run(command, capture_output=True, check=True, env=env).stdout
            for _ in range(2)
        ]
        assert outputs == [expected, expected]

    def test_its_own_process_exits_with_the_commands_code(self, tmp_path: Path) -> None:
        """A process that ends without tearing down still exits 2 with its one error line."""
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "session_memory.apps.cli",
                "derive",
                str(tmp_path / "nope.jsonl"),
            ],
            capture_output=True,
            env={**os.environ, "SESSION_MEMORY_STATE_DIR": str(tmp_path)},
        )
        assert result.returncode == 2
        assert result.stderr.count(b"\n") == 1

    def test_output_is_deterministic_across_processes(self) -> None:
        """Two processes with different hash seeds print the same bytes."""
        outputs = []
        for seed in ("1", "2"):
            result = subprocess.run(
                [sys.executable, "-m", "session_memory.apps.cli", "derive", "--json", str(SAMPLE)],
                capture_output=True,
                check=True,
                env={"PYTHONHASHSEED": seed, "PATH": ""},
            )
            outputs.append(result.stdout)
        assert outputs[0] == outputs[1]


class TestHookArguments:
    """A hook call's command line is read without argparse, to the arguments argparse gives."""

    @pytest.mark.parametrize(
        "argv",
        [
            ["hook"],
            ["hook", "--client", "codex", "--state-dir", "/tmp/s", "--budget", "900"],
            ["hook", "--client=claude-code", "--on-clear", "carry-over", "--state-dir="],
            ["hook", "--budget", " 7 ", "--budget=8", "--state-dir", "a=b"],
            ["hook", "--nats", "nats://h:4222", "--nats-prefix", "p", "--nats-timeout", "0.5"],
        ],
    )
    def test_read_as_argparse_reads_them(self, argv: list[str]) -> None:
        """The installed hook's command lines give the same names and values."""
        plain = hook_arguments(argv)
        assert plain is not None
        assert vars(plain) == vars(build_parser("hook").parse_args(argv))

    @pytest.mark.parametrize(
        "argv",
        [
            ["hook", "--help"],
            ["-v", "hook"],
            ["hook", "--state", "x"],
            ["hook", "extra"],
            ["hook", "--", "--budget", "5"],
            ["hook", "--budget"],
            ["hook", "--budget", "-5"],
            ["hook", "--budget", "x"],
            ["hook", "--budget="],
            ["hook", "--client", "other"],
            ["hook", "--state-dir", "--budget", "5"],
        ],
    )
    def test_anything_else_is_left_to_argparse(self, argv: list[str]) -> None:
        """Help, abbreviations, stray or missing values, refused values: argparse's to read
        or refuse."""
        assert hook_arguments(argv) is None

    def test_argparse_still_refuses_what_it_refused(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A value the hook's parser refuses is argparse's usage error, exit code 2."""
        with pytest.raises(SystemExit) as exited:
            cli("hook", "--budget", "x")
        assert exited.value.code == 2
        assert "argument --budget: invalid int value: 'x'" in capsys.readouterr().err
