"""Codex runs a command hook only once it is trusted; this module records that trust.

Codex lists every configured hook with a key (``<hooks.json path>:<event>:<group>:<hook>``)
and the hash of its current definition through ``codex app-server`` (JSON-RPC over stdio,
``hooks/list``); it runs a hook when ``$CODEX_HOME/config.toml`` holds
``[hooks.state."<key>"] trusted_hash = "<hash>"`` for it. :func:`trust_our_hooks` asks the
installed Codex for the keys and hashes of our hooks, writes those tables (keeping the rest of
config.toml byte for byte, atomically, with a backup) and lists again to check that Codex
now reports them trusted. Nothing here guesses Codex's hash: the hash comes from Codex.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from session_memory.apps.memory_dir.outputs import atomic_write
from session_memory.core.errors import TrustError

__all__ = [
    "ListedHook",
    "TrustError",
    "hook_keys",
    "list_hooks",
    "trust_our_hooks",
    "with_trust",
    "without_trust",
]

APP_SERVER_TIMEOUT: Final = 20.0
TRUSTED: Final = "trusted"

_EVENT_KEYS: Final = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit"}


@dataclass(frozen=True, slots=True)
class ListedHook:
    """One hook as ``codex app-server`` lists it."""

    key: str
    command: str
    current_hash: str
    trust_status: str


def hook_keys(hooks_file: Path, entries: Iterable[tuple[str, int, int]]) -> list[str]:
    """The keys Codex gives the entries (event, group index, hook index) of a hooks file."""
    return [
        f"{hooks_file}:{_EVENT_KEYS.get(event, event)}:{group}:{index}"
        for event, group, index in entries
    ]


def list_hooks(
    codex: str, codex_home: Path, cwd: Path, *, timeout: float = APP_SERVER_TIMEOUT
) -> list[ListedHook]:
    """Every hook the installed Codex sees for ``cwd``, through ``codex app-server``."""
    env = {**os.environ, "CODEX_HOME": str(codex_home)}
    try:
        proc = subprocess.Popen(
            [codex, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
    except OSError as exc:
        raise TrustError(f"cannot run {codex} app-server: {exc.strerror or exc}") from exc
    try:
        rpc = _Rpc(proc, time.monotonic() + timeout)
        rpc.call(1, "initialize", {"clientInfo": {"name": "session-memory", "version": "1"}})
        rpc.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        result = rpc.call(2, "hooks/list", {"cwds": [str(cwd)]})
    finally:
        proc.kill()
        proc.wait()
    return _listed(result)


def _listed(result: Mapping[str, Any]) -> list[ListedHook]:
    hooks: list[ListedHook] = []
    data = result.get("data")
    for entry in data if isinstance(data, list) else []:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        for h in inner if isinstance(inner, list) else []:
            if not isinstance(h, dict):
                continue
            key, command, digest = h.get("key"), h.get("command"), h.get("currentHash")
            if isinstance(key, str) and isinstance(command, str) and isinstance(digest, str):
                status = h.get("trustStatus")
                hooks.append(
                    ListedHook(key, command, digest, status if isinstance(status, str) else "")
                )
    return hooks


class _Rpc:
    """Newline-delimited JSON-RPC with a child process, bounded by a deadline."""

    def __init__(self, proc: subprocess.Popen[bytes], deadline: float) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self._proc = proc
        self._deadline = deadline
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(proc.stdout, selectors.EVENT_READ)

    def send(self, message: Mapping[str, Any]) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(orjson.dumps(message) + b"\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise TrustError(f"codex app-server went away: {exc}") from exc

    def call(self, request_id: int, method: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self._next()
            if message.get("id") != request_id:
                continue  # notifications and server requests are not ours to answer
            if "error" in message:
                raise TrustError(f"codex app-server {method} failed: {message['error']}")
            result = message.get("result")
            return result if isinstance(result, dict) else {}

    def _next(self) -> Mapping[str, Any]:
        assert self._proc.stdout is not None
        while b"\n" not in self._buffer:
            left = self._deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                raise TrustError("codex app-server did not answer in time")
            chunk = os.read(self._proc.stdout.fileno(), 65536)
            if not chunk:
                raise TrustError("codex app-server exited before answering")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            return {}
        return message if isinstance(message, dict) else {}


# -- config.toml ------------------------------------------------------------------------


def _header(key: str) -> str:
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'[hooks.state."{escaped}"]'


def without_trust(text: str, keys: Iterable[str]) -> str:
    """``text`` (a config.toml) without the ``[hooks.state."<key>"]`` tables of ``keys``."""
    headers = {_header(k) for k in keys}
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("["):
            skipping = stripped in headers
        if not skipping:
            out.append(line)
    return "".join(out)


def with_trust(text: str, trusted: Mapping[str, str]) -> str:
    """``text`` with one ``[hooks.state."<key>"] trusted_hash = "<hash>"`` table per key
    (``text`` itself when it already says so)."""
    if _trusted_in(text, trusted):
        return text
    out = without_trust(text, trusted).rstrip("\n")
    for key, digest in trusted.items():
        separator = "\n\n" if out else ""
        out += f'{separator}{_header(key)}\ntrusted_hash = "{digest}"'
    out += "\n"
    try:
        tomllib.loads(out)
    except tomllib.TOMLDecodeError as exc:
        raise TrustError(f"config.toml would not parse after adding the trust: {exc}") from exc
    if not _trusted_in(out, trusted):
        raise TrustError("config.toml holds other trust entries for the hook: fix it by hand")
    return out


def _trusted_in(text: str, trusted: Mapping[str, str]) -> bool:
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    hooks = parsed.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        return False
    return all(
        isinstance(state.get(k), dict) and state[k].get("trusted_hash") == v
        for k, v in trusted.items()
    )


def trust_our_hooks(
    codex: str, codex_home: Path, cwd: Path, is_ours: Any, *, dry_run: bool = False
) -> tuple[Path, str, str]:
    """Trust every hook of ours Codex lists; (config path, old text, new text).

    ``is_ours`` tells our commands from others. Raises :class:`TrustError` when Codex cannot
    be asked, lists none of ours, or does not report them trusted after the write.
    """
    ours = [h for h in list_hooks(codex, codex_home, cwd) if is_ours(h.command)]
    if not ours:
        raise TrustError("codex does not list the installed session-memory hooks")
    path = codex_home / "config.toml"
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise TrustError(f"cannot read {path}: {exc}") from exc
    new = with_trust(old, {h.key: h.current_hash for h in ours})
    if dry_run or new == old:
        return path, old, new
    try:
        if path.exists():
            atomic_write(path.with_name(path.name + ".bak"), old.encode())
        codex_home.mkdir(parents=True, exist_ok=True)
        atomic_write(path, new.encode())
    except OSError as exc:
        raise TrustError(f"cannot write {path}: {exc.strerror or exc}") from exc
    untrusted = [
        h.key
        for h in list_hooks(codex, codex_home, cwd)
        if is_ours(h.command) and h.trust_status != TRUSTED
    ]
    if untrusted:
        raise TrustError(f"codex still reports untrusted: {', '.join(untrusted)}")
    return path, old, new
