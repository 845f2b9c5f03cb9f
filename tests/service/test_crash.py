"""The crash test: SIGKILL real `watch` processes at random moments while writers append,
rewrite, shrink and replace transcripts of all three formats."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgspec
import orjson
import pytest

from deriver import SessionMemoryDeriver
from examples.generate_sample import generate_events
from session_memory.apps.memory_dir.outputs import GENERATIONS_DIRNAME
from session_memory.core.memory import SessionMemory
from session_memory.formats import read_transcript
from viewbuilder import render_memory

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = str(Path(sys.executable).with_name("session-memory"))
FIXTURES = ROOT / "tests" / "fixtures"
KILLS_PER_CHAIN = 52  # two chains run side by side: 104 kills in all
REWRITES = ("truncate", "rename-over", "shrink", "in-place-longer")


def sources() -> dict[str, list[bytes]]:
    """One transcript's lines per format: generated native, a Claude Code and a Codex file."""
    native = [
        orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE)
        for e in generate_events(1500, 5, session_id="crash-native")
    ]
    cc = FIXTURES / "claude_code" / "cc-2.1.39_subagents_agent-a2898e3.jsonl"
    codex = (
        FIXTURES
        / "codex"
        / "codex-0.125.0-cli_update-plan_apply-patch_EXCERPT_019e1625_L228-386.jsonl"
    )
    return {
        "native": native,
        "claude": cc.read_bytes().splitlines(keepends=True),
        "codex": codex.read_bytes().splitlines(keepends=True),
    }


class Writer:
    """Appends a transcript line by line in two halves, and now and then rewrites it.

    A rewrite starts over from a variant of the source: a random tenth of its lines left
    out, and every line ended by one to seven spaces, not as many as in the variant before
    it (the same JSON). Leaving lines out alone can give back the old bytes in the 4 KiB
    before a consumed offset (a line left out replaced by another of its length), which
    the service does not notice (docs/service-guarantees.md, known limits). A consumed
    offset is a line's end, and the spaces before it now differ from any old line's.
    """

    def __init__(self, path: Path, lines: list[bytes], seed: int) -> None:
        self.path = path
        self.lines = lines
        self.rng = random.Random(seed)
        self.variant = lines
        self.spacing = 0
        self.pos = 0
        self.rewrites: dict[str, int] = dict.fromkeys(REWRITES, 0)
        self._next_rewrite = self.rng.randrange(len(REWRITES))
        start = self.rng.randrange(5, len(lines) // 3)
        path.write_bytes(b"".join(lines[:start]))
        self.pos = start

    def _new_variant(self) -> list[bytes]:
        keep = [line for line in self.lines if self.rng.random() > 0.1] or self.lines
        self.spacing = self.spacing % 7 + 1
        return [line.rstrip(b"\n") + b" " * self.spacing + b"\n" for line in keep]

    def step(self) -> None:
        if self.pos >= len(self.variant) or self.rng.random() < 0.02:
            self.rewrite()
            return
        line = self.variant[self.pos]
        cut = self.rng.randrange(1, len(line))
        with open(self.path, "ab") as f:
            f.write(line[:cut])
            f.flush()
            time.sleep(self.rng.uniform(0, 0.01))
            f.write(line[cut:])
        self.pos += 1

    def rewrite(self) -> None:
        mode = REWRITES[self._next_rewrite]
        self._next_rewrite = (self._next_rewrite + 1) % len(REWRITES)
        self.rewrites[mode] += 1
        size = self.path.stat().st_size
        variant = self._new_variant()
        if mode == "shrink":
            # Cut anywhere, mid-line included; appends then go on from the cut.
            with open(self.path, "r+b") as f:
                f.truncate(self.rng.randrange(0, max(1, size)))
            return
        if mode == "in-place-longer":
            # Same inode, no truncation: new content from byte 0, longer than the old.
            k, data = 0, b""
            while k < len(variant) and len(data) <= size:
                data += variant[k]
                k += 1
            with open(self.path, "r+b") as f:
                f.write(data)
        else:
            k = self.rng.randrange(1, max(2, len(variant) // 2))
            data = b"".join(variant[:k])
            if mode == "truncate":
                with open(self.path, "r+b") as f:
                    f.truncate(0)
                    f.write(data)
            else:
                tmp = self.path.with_name(f".{self.path.name}.new")
                tmp.write_bytes(data)
                os.replace(tmp, self.path)
        self.variant, self.pos = variant, k

    def finish(self) -> None:
        """End on a complete line, as a transcript at rest does."""
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "ab") as f:
                f.write(b"\n")


def derived(path: Path) -> SessionMemory:
    """What `session-memory derive` gives for the whole file."""
    deriver = SessionMemoryDeriver(budget_tokens=1200)
    deriver.apply_all(read_transcript(path))
    return deriver.memory


def pairs(out: Path) -> dict[str, tuple[bytes, bytes]]:
    """Every published pair in ``out``: session name -> (Markdown, JSON)."""
    found: dict[str, tuple[bytes, bytes]] = {}
    for json_path in out.glob("*.memory.json"):
        name = json_path.name.removesuffix(".memory.json")
        md_path = out / f"{name}.memory.md"
        found[name] = (md_path.read_bytes(), json_path.read_bytes())
    return found


def assert_paired(out: Path) -> None:
    """Each Markdown on disk renders exactly the JSON beside it: one generation."""
    for name, (md, js) in pairs(out).items():
        memory = msgspec.json.decode(js, type=SessionMemory)
        assert render_memory(memory).encode() == md, f"{name}: Markdown and JSON differ"


class Chain:
    """A watched directory with one writer per format, and its own kill loop."""

    def __init__(self, base: Path, seed: int, env: dict[str, str]) -> None:
        self.watched, self.out = base / "w", base / "out"
        self.watched.mkdir(parents=True)
        self.seed = seed
        self.env = env
        self.writers = [
            Writer(self.watched / f"{fmt}.jsonl", lines, seed * 10 + k)
            for k, (fmt, lines) in enumerate(sources().items())
        ]
        self.errors: list[BaseException] = []
        self._killing = threading.Event()

    def _write(self) -> None:
        rng = random.Random(self.seed)
        try:
            while self._killing.is_set():
                rng.choice(self.writers).step()
                time.sleep(rng.uniform(0.0, 0.02))
        except BaseException as exc:
            self.errors.append(exc)

    def run(self) -> None:
        rng = random.Random(self.seed + 1)
        self._killing.set()
        writer = threading.Thread(target=self._write)
        writer.start()
        try:
            for _ in range(KILLS_PER_CHAIN):
                proc = subprocess.Popen(
                    [SCRIPT, "watch", str(self.watched), "--out", str(self.out)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=self.env,
                )
                time.sleep(rng.uniform(0.1, 1.6))
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
                assert_paired(self.out)
        except BaseException as exc:
            self.errors.append(exc)
        finally:
            self._killing.clear()
            writer.join()
        for w in self.writers:
            w.finish()


def unpublished(out: Path) -> list[str]:
    """Temp files and generation directories no pointer leads to."""
    generations = out / GENERATIONS_DIRNAME
    targets = {os.readlink(p) for p in generations.glob("*.current")}
    found = [p.name for p in out.rglob("*.tmp")]
    found += [
        p.name
        for p in generations.iterdir()
        if p.is_dir() and not p.is_symlink() and p.name not in targets
    ]
    return found


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """104 kills of real `watch` processes, inotify and polling, over native, Claude Code and
    Codex transcripts appended in halves and rewritten four ways: at every kill each pair on
    disk is one generation, and at the end every pair equals `derive` of its file.

    Kills land during start-up (about a second of imports), catch-up, rebuilds after a
    rewrite, output publication and state writes.
    """
    polling = {**os.environ, "WATCHFILES_FORCE_POLLING": "1"}
    chains = [
        Chain(tmp_path / "notify", 1, dict(os.environ)),
        Chain(tmp_path / "polling", 2, polling),
    ]
    threads = [threading.Thread(target=c.run) for c in chains]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for chain in chains:
        if chain.errors:
            raise chain.errors[0]
    for chain in chains:
        final = subprocess.run(
            [SCRIPT, "watch", str(chain.watched), "--out", str(chain.out), "--once"],
            capture_output=True,
            timeout=60,
        )
        assert final.returncode == 0, final.stderr.decode()
        published = pairs(chain.out)
        assert len(published) == 3
        by_session = {orjson.loads(js)["session_id"]: (md, js) for md, js in published.values()}
        for writer in chain.writers:
            expected = derived(writer.path)
            md, js = by_session[expected.session_id]
            assert orjson.loads(js) == orjson.loads(expected.to_json()), writer.path.name
            assert md == render_memory(expected).encode(), writer.path.name
            assert all(writer.rewrites.values()), writer.rewrites
        assert unpublished(chain.out) == []
