"""The hook's options, read without argparse: the values argparse gives, or argparse decides."""

from __future__ import annotations

import contextlib
import io

from hypothesis import given
from hypothesis import strategies as st

from session_memory.apps.cli import _build_parser, _hook_options, _HookOptions

FLAGS = [
    "--client",
    "--state-dir",
    "--budget",
    "--on-clear",
    "--nats",
    "--nats-prefix",
    "--nats-timeout",
]
OTHER_WORDS = ["--state", "--bud", "--help", "-h", "-v", "--verbose", "--", "-", "hook"]
VALUES = ["codex", "claude-code", "nothing", "carry-over", "12", "-3", "0x1", "1_000", " 5"]
VALUES += ["2.5", "1e-3", "inf", "", "dir", "~/x", "a=b", "-x", "a b"]

words = st.one_of(
    st.sampled_from(FLAGS + OTHER_WORDS + VALUES),
    st.builds(lambda f, v: f"{f}={v}", st.sampled_from([*FLAGS, "--st"]), st.sampled_from(VALUES)),
    st.text(max_size=4),
)


def by_argparse(argv: list[str]) -> _HookOptions | None:
    """The options argparse reads from ``argv``, or None when it refuses them (or helps)."""
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args = _build_parser("hook").parse_args(argv)
    except SystemExit:
        return None
    return _HookOptions(**{field: getattr(args, field) for field in _HookOptions._fields})


@given(st.lists(words, max_size=6))
def test_what_is_read_without_argparse_is_what_argparse_reads(rest: list[str]) -> None:
    """Whenever a hook call's options are read by hand, argparse reads the same values."""
    argv = ["hook", *rest]
    fast = _hook_options(argv)
    if fast is not None:
        assert repr(fast) == repr(by_argparse(argv))


def test_the_options_the_installed_hook_passes_are_read_by_hand() -> None:
    """The options `install` writes into the clients' configuration skip argparse."""
    argv = ["hook", "--client", "codex", "--on-clear=carry-over", "--state-dir", "/s"]
    argv += ["--budget", "800"]
    expected = _HookOptions(client="codex", state_dir="/s", budget=800, on_clear="carry-over")
    assert _hook_options(argv) == expected == by_argparse(argv)


def test_help_abbreviations_and_bad_values_go_to_argparse() -> None:
    """--help, an abbreviated option, a refused value or another command: argparse decides."""
    for argv in (
        ["hook", "--help"],
        ["hook", "--state", "/s"],
        ["hook", "--budget", "many"],
        ["hook", "--client", "vim"],
        ["hook", "--state-dir"],
        ["hook", "extra"],
        ["-v", "hook"],
        ["derive", "t.jsonl"],
    ):
        assert _hook_options(argv) is None, argv


def test_the_defaults_are_the_parsers() -> None:
    """A bare `hook` gives the defaults argparse gives."""
    assert _hook_options(["hook"]) == _HookOptions() == by_argparse(["hook"])
