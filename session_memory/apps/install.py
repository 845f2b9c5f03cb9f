"""``session-memory install|uninstall claude-code|codex``: the hook entries in a client's config.

Claude Code reads hooks from ``~/.claude/settings.json`` (user) or
``<project>/.claude/settings.json`` (project); Codex from ``$CODEX_HOME/hooks.json`` (user) or
``<repo>/.codex/hooks.json`` (project). Both take ``{"hooks": {"<Event>": [{"matcher": ...,
"hooks": [{"type": "command", "command": ...}]}]}}``. Installing merges one SessionStart entry
(and, when asked, one UserPromptSubmit entry) running ``session-memory hook``; our entries are
recognised by their command, so installing twice equals installing once and uninstalling
removes exactly them. Every other key, event and hook is kept as it was. A file is replaced
atomically after a copy of the old one is kept as ``<file>.bak``; ``dry_run`` only returns the
diff.
"""

from __future__ import annotations

import copy
import difflib
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, get_args

import orjson

from session_memory.apps.hook import ClientName
from session_memory.apps.memory_dir.outputs import atomic_write
from session_memory.core.errors import ConfigError

__all__ = [
    "HOOK_EVENTS",
    "SCOPES",
    "Change",
    "Scope",
    "apply_change",
    "config_path",
    "hook_command",
    "install_change",
    "is_our_command",
    "merged",
    "removed",
    "uninstall_change",
]

Scope = Literal["user", "project"]
SCOPES: Final[tuple[Scope, ...]] = get_args(Scope)

HOOK_EVENTS: Final = ("SessionStart", "UserPromptSubmit")
"""The events the hook answers; UserPromptSubmit is installed only on request."""

HOOK_TIMEOUT_SECONDS: Final = 30
BACKUP_SUFFIX: Final = ".bak"
_MARK: Final = " hook --client "
"""Every command we install contains this, after the program name."""

Settings = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Change:
    """A config file as it is and as it would be."""

    path: Path
    before: bytes | None
    after: bytes | None
    """None: the file stays absent."""

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change (empty when nothing changes)."""
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        name = str(self.path)
        return "".join(
            difflib.unified_diff(
                old, new, fromfile=name if self.before is not None else "/dev/null", tofile=name
            )
        )


def config_path(
    client: ClientName,
    scope: Scope,
    *,
    project: Path | None = None,
    home: Path | None = None,
    codex_home: Path | None = None,
) -> Path:
    """The file that holds the client's hooks for the scope."""
    home = home if home is not None else Path(os.path.expanduser("~"))
    project = project if project is not None else Path.cwd()
    if client == "claude-code":
        base = home if scope == "user" else project
        return base / ".claude" / "settings.json"
    if scope == "project":
        return project / ".codex" / "hooks.json"
    if codex_home is None:
        env = os.environ.get("CODEX_HOME")
        codex_home = Path(env) if env else home / ".codex"
    return codex_home / "hooks.json"


def hook_command(client: ClientName, extra: tuple[str, ...] = ()) -> str:
    """The shell command of the hook: this installation's ``session-memory``, absolute."""
    script = Path(sys.executable).with_name("session-memory")
    found = str(script) if script.is_file() else shutil.which("session-memory")
    program = (
        [found] if found else [sys.executable, "-m", "session_memory.apps.cli"]
    )  # a source checkout without the console script
    return shlex.join([*program, "hook", "--client", client, *extra])


def is_our_command(command: object) -> bool:
    """Whether a configured hook command runs ``session-memory hook``."""
    return isinstance(command, str) and _MARK in command and "session" in command


def merged(settings: Settings, command: str, events: tuple[str, ...]) -> Settings:
    """``settings`` with our entries for ``events`` (and no other entries of ours)."""
    out = removed(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError("the settings' 'hooks' is not an object: fix it by hand first")
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"the settings' hooks.{event} is not a list: fix it by hand first")
        groups.append(
            {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}]}
        )
    return out


def removed(settings: Settings) -> Settings:
    """``settings`` without any entry of ours; groups and events we emptied are dropped
    (the ``hooks`` object itself stays, empty)."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                kept.append(group)
                continue
            others = [
                h for h in inner if not (isinstance(h, dict) and is_our_command(h.get("command")))
            ]
            if others:
                kept.append({**group, "hooks": others} if len(others) != len(inner) else group)
            elif not inner:
                kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    return out


def our_entries(settings: Settings) -> list[tuple[str, int, int]]:
    """(event, group index, hook index) of every entry of ours, in file order."""
    found: list[tuple[str, int, int]] = []
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            inner = group.get("hooks") if isinstance(group, dict) else None
            for h, hook in enumerate(inner if isinstance(inner, list) else []):
                if isinstance(hook, dict) and is_our_command(hook.get("command")):
                    found.append((event, g, h))
    return found


def read_settings(path: Path) -> tuple[bytes | None, Settings]:
    """The file's bytes (None when absent) and its JSON object."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    if not raw.strip():
        return raw, {}
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}): fix it by hand first") from exc
    if not isinstance(obj, dict):
        raise ConfigError(f"{path} is not a JSON object: fix it by hand first")
    return raw, obj


def _dumps(settings: Settings) -> bytes:
    return orjson.dumps(settings, option=orjson.OPT_INDENT_2) + b"\n"


def _change(path: Path, before: bytes | None, old: Settings, new: Settings) -> Change:
    # An unchanged object keeps its bytes exactly (no reformatting of a file we leave alone),
    # and an absent file stays absent.
    if new == old and (before is not None or not new):
        return Change(path, before, before)
    return Change(path, before, _dumps(new))


def install_change(path: Path, command: str, events: tuple[str, ...]) -> Change:
    """The change that installs our entries into the file at ``path``."""
    before, settings = read_settings(path)
    return _change(path, before, settings, merged(settings, command, events))


def uninstall_change(path: Path) -> Change:
    """The change that removes our entries from the file at ``path``."""
    before, settings = read_settings(path)
    return _change(path, before, settings, removed(settings))


def apply_change(change: Change) -> Path | None:
    """Write the change atomically, keeping the old file as ``<file>.bak``; the backup's
    path, or None when there was no old file (or nothing changed)."""
    if not change.changed or change.after is None:
        return None
    try:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        backup = None
        if change.before is not None:
            backup = change.path.with_name(change.path.name + BACKUP_SUFFIX)
            atomic_write(backup, change.before)
        atomic_write(change.path, change.after)
    except OSError as exc:
        raise ConfigError(f"cannot write {change.path}: {exc.strerror or exc}") from exc
    return backup


# -- the commands -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InstallOptions:
    """What ``install`` / ``uninstall`` were asked to do."""

    client: ClientName
    scope: Scope = "user"
    project: Path | None = None
    dry_run: bool = False
    on_prompt: bool = False
    hook_args: tuple[str, ...] = ()
    codex: str | None = None


def _codex_home() -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env) if env else Path(os.path.expanduser("~")) / ".codex"


def run_install(options: InstallOptions) -> list[str]:
    """Install the hook; the lines to show the user (diffs on a dry run)."""
    path = config_path(options.client, options.scope, project=options.project)
    events = HOOK_EVENTS if options.on_prompt else HOOK_EVENTS[:1]
    change = install_change(path, hook_command(options.client, options.hook_args), events)
    lines = _report(change, options.dry_run, "installed")
    if options.client == "codex":
        lines.extend(_trust(options, path))
    return lines


def run_uninstall(options: InstallOptions) -> list[str]:
    """Remove our hook entries (and, for Codex, their trust); the lines to show the user."""
    path = config_path(options.client, options.scope, project=options.project)
    _, settings = read_settings(path)
    change = uninstall_change(path)
    lines = _report(change, options.dry_run, "removed")
    if options.client == "codex":
        from session_memory.apps.codex_trust import hook_keys, without_trust

        keys = hook_keys(path.absolute(), our_entries(settings))
        config = _codex_home() / "config.toml"
        if keys and config.exists():
            old = config.read_bytes()
            new = without_trust(old.decode("utf-8"), keys).encode()
            lines.extend(_report(Change(config, old, new), options.dry_run, "trust removed"))
    return lines


def _report(change: Change, dry_run: bool, done: str) -> list[str]:
    if not change.changed:
        return [f"{change.path}: already up to date"]
    if dry_run:
        return [change.diff().rstrip("\n")]
    backup = apply_change(change)
    saved = f" (previous version kept as {backup})" if backup else ""
    return [f"{change.path}: {done}{saved}"]


_TRUST_STEP: Final = (
    "Codex runs only trusted hooks. To trust this one: run `codex`, type /hooks and trust "
    "the session-memory hook; or run `session-memory install codex` again where `codex` is "
    "on PATH (or give --codex PATH), which records the trust Codex reports."
)


def _trust(options: InstallOptions, hooks_file: Path) -> list[str]:
    from session_memory.apps.codex_trust import TrustError, trust_our_hooks

    codex = options.codex or shutil.which("codex")
    if options.dry_run:
        return [
            "then: record the trust of the hook in config.toml, as `codex app-server` reports it"
        ]
    if codex is None:
        return [f"codex not found. {_TRUST_STEP}"]
    cwd = options.project if options.scope == "project" and options.project else Path.cwd()
    try:
        path, old, new = trust_our_hooks(codex, _codex_home(), cwd, is_our_command)
    except TrustError as exc:
        return [f"{hooks_file}: written, but the trust step failed ({exc}). {_TRUST_STEP}"]
    if old == new:
        return [f"{path}: the hook is already trusted"]
    return [f"{path}: hook trusted (codex reports it trusted)"]
