"""The README and docs/ stay true: their examples run, every output they show is produced or
compared here, every command and option is documented, and they point only to files in the
repository.

The README's hook example, what Claude Code showed the model after ``/compact``, is compared
by the end-to-end test that produces it (``e2e/test_claude_code.py``).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest

from session_memory import TranscriptEvent
from session_memory.apps.cli import build_parser
from session_memory.formats import read_transcript
from tests.cc_session import ClaudeCodeSession

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SOURCES = ("session_memory", "deriver", "viewbuilder", "tests", "benchmarks", "examples", "e2e")
"""Where docstrings and comments are read for references to other files."""


class Block(NamedTuple):
    """A fenced code block of a document."""

    doc: Path
    line: int
    lang: str
    body: str

    def __str__(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks(*langs: str) -> list[Block]:
    """Every fenced block of the README and docs/ in one of ``langs``."""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
            if match.group(1) in langs:
                line = text.count("\n", 0, match.start()) + 1
                found.append(Block(doc, line, match.group(1), match.group(2)))
    return found


def block_of(doc: str, lang: str) -> Block:
    """The one block in ``lang`` of the document named ``doc``."""
    (block,) = (b for b in blocks(lang) if b.doc.name == doc)
    return block


def json_values(text: str) -> list[Any]:
    """The JSON values written one after the other in ``text``."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def run_cli(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> str:
    """What the command line prints (stdout, then stderr), run from the repository root."""
    result = subprocess.run(
        [sys.executable, "-m", "session_memory.apps.cli", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        env={**os.environ, "PYTHONHASHSEED": "0", **(env or {})},
        check=True,
    )
    return (result.stdout + result.stderr).decode()


def shows(shown: str, actual: str) -> bool:
    """Whether ``actual`` is what ``shown`` shows, where ``[...]`` stands for any text."""
    pattern = ".*?".join(re.escape(part) for part in shown.split("[...]"))
    return re.fullmatch(pattern, actual, re.S) is not None


def one_line(text: str) -> str:
    return " ".join(text.split())


def doc_section(doc: str, heading: str) -> str:
    """The text of a section of a document, from its heading to the next heading."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    end = text.find("\n#", start + len(heading) + 2)
    return text[start : end if end != -1 else None]


class TestExamples:
    @pytest.mark.parametrize("block", blocks("python"), ids=str)
    def test_python_example_runs(self, block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
        """Every Python example runs as written, from the repository root."""
        monkeypatch.chdir(ROOT)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block.body, str(block), "exec"), {"__name__": "doc_example"})

    @pytest.mark.parametrize("block", blocks("console"), ids=str)
    def test_terminal_session_is_real(self, block: Block) -> None:
        """Each shown command prints exactly what the document shows (``[...]`` eliding)."""
        first, _, shown = block.body.partition("\n")
        assert first.startswith("$ session-memory "), "a console block shows one command"
        actual = run_cli(*shlex.split(first.removeprefix("$ session-memory ")))
        if "[...]" in shown:
            assert shows(shown, actual), actual
        else:
            assert actual == shown

    def test_elision_stands_for_any_text_and_only_there(self) -> None:
        """``[...]`` matches any text, across lines; everything else must be equal."""
        assert shows('{\n  "m": [...],\n  "n": 1\n}', '{\n  "m": [\n    1\n  ],\n  "n": 1\n}')
        assert not shows('{"m": [...], "n": 1}', '{"m": [1], "n": 2}')

    def test_the_native_event_shown_is_one_event(self) -> None:
        """The README's native line is read as the event it shows, every field kept."""
        shown = orjson.loads(block_of("README.md", "json").body)
        (event,) = read_transcript(io.BytesIO(orjson.dumps(shown) + b"\n"))
        assert isinstance(event, TranscriptEvent)
        assert {name: getattr(event, name) for name in shown} == shown

    def test_the_native_result_shapes_give_the_failures_described(self, tmp_path: Path) -> None:
        """The tool results docs/formats.md shows are read as it says: the Bash envelope
        ``partial`` with exit code 1 is a failed command, the Edit error is its message."""
        shapes = json_values(block_of("formats.md", "json").body)
        transcript = tmp_path / "shapes.jsonl"
        transcript.write_bytes(
            b"".join(orjson.dumps({"event_id": f"e{i}", **s}) + b"\n" for i, s in enumerate(shapes))
        )
        failed = run_cli("derive", str(transcript)).split("## Failed attempts\n")[1]
        assert failed.splitlines()[:2] == [
            "- Bash exited 1: “1 failed, 2 passed in 0.03s”",
            "- Edit: “Edit at index 0: old_string not found; it must be unique.”",
        ]


class TestHookDocs:
    @pytest.fixture
    def transcript(self, tmp_path: Path) -> Path:
        session = ClaudeCodeSession(tmp_path / "p" / "s-1.jsonl")
        session.prompt("Fix the rounding bug in checkout")
        return session.path

    def test_the_output_is_the_json_shown_and_starts_with_the_line_shown(
        self, transcript: Path, tmp_path: Path
    ) -> None:
        """docs/hooks.md shows the hook's output object and its first line as they are."""
        section = one_line(doc_section("docs/hooks.md", "## Events"))
        shape = re.search(r"The output is `(\{.*?\})`", section)
        first_line = re.search(r"the text starts with one line: \*(.*?)\*", section)
        assert shape is not None and first_line is not None
        event = {"session_id": "s-1", "transcript_path": str(transcript), "cwd": "/work/app"}
        event |= {"hook_event_name": "SessionStart", "source": "compact"}
        out = run_cli("hook", "--state-dir", str(tmp_path / "s"), stdin=orjson.dumps(event))
        printed = orjson.loads(out)
        text = printed["hookSpecificOutput"]["additionalContext"]
        filled = shape.group(1).replace("<the event>", "SessionStart")
        assert printed == orjson.loads(filled.replace('"<text>"', orjson.dumps(text).decode()))
        assert text.split("\n", 1)[0] == first_line.group(1)

    def test_the_installed_entry_is_the_one_shown(self, tmp_path: Path) -> None:
        """docs/hooks.md shows the entry that install adds for each event."""
        section = one_line(doc_section("docs/hooks.md", "## What gets installed"))
        shown = re.search(r"One entry per event, `(\{.*?\})`", section)
        assert shown is not None
        home = tmp_path / "home"
        env = {"HOME": str(home), "PATH": "/nonexistent"}
        run_cli("install", "claude-code", env=env)
        settings = orjson.loads((home / ".claude" / "settings.json").read_bytes())
        (entry,) = settings["hooks"]["SessionStart"][0]["hooks"]
        script = entry["command"].partition(" hook ")[0]
        expected = shown.group(1).replace("<this installation's session-memory>", script)
        assert entry == orjson.loads(expected.replace("<client>", "claude-code"))


class TestWatchDocs:
    def test_the_layout_shown_is_what_watch_writes(self, tmp_path: Path) -> None:
        """The directory tree docs/service-guarantees.md shows is the one ``watch`` writes."""
        (block,) = (b for b in blocks("") if b.doc.name == "service-guarantees.md")
        out = tmp_path / "out"
        run_cli("watch", "--once", "--out", str(out), "examples/sample_transcript.jsonl")
        assert set(_entries_written(out)) == set(_entries_shown(block.body))


def _entries_written(out: Path) -> Iterator[tuple[str, str]]:
    """(path, what) of every entry under ``out``, in the notation of the documentation."""
    (link,) = out.glob("*.memory.md")
    session = link.name.removesuffix(".memory.md")

    def shown(name: str) -> str:
        name = re.sub(rf"^{re.escape(session)}\.\d+", "<name>.<N>", name)
        name = re.sub(rf"(?<=/){re.escape(session)}\.\d+", "<name>.<N>", name)
        name = re.sub(r"[0-9a-f]{32}(?=\.state$)", "<hash of the transcript's real path>", name)
        return name.replace(session, "<name>")

    for path in out.rglob("*"):
        name = shown(str(path.relative_to(out)))
        if path.is_symlink():
            yield name, "-> " + shown(os.readlink(path))
        else:
            yield name, "dir" if path.is_dir() else "file"


def _entries_shown(tree: str) -> Iterator[tuple[str, str]]:
    """(path, what) of every entry of a tree drawn as ``name/`` lines indented by two
    spaces, with ``-> target`` for a link and, after a directory, the files it holds."""
    parents: list[str] = []
    for line in tree.splitlines()[1:]:  # the first line is OUT/
        depth = (len(line) - len(line.lstrip())) // 2 - 1
        name, *rest = re.split(r"\s{2,}", line.strip())
        path = "/".join([*parents[:depth], name.rstrip("/")])
        parents[depth:] = [name.rstrip("/")]
        if rest and rest[0].startswith("-> "):
            yield path, rest[0]
        elif name.endswith("/"):
            yield path, "dir"
            for held in rest[0].split(", ") if rest else []:
                yield f"{path}/{held}", "file"
        else:
            yield path, "file"


class TestPerformanceTable:
    def test_the_readme_quotes_the_latest_benchmark_results(self) -> None:
        """Every figure measured in the README's performance table is in
        benchmarks/results/latest.md, as written or rounded."""
        table = doc_section("README.md", "## Performance").split("\n|")[3:]
        results = (ROOT / "benchmarks" / "results" / "latest.md").read_text(encoding="utf-8")
        figures = {float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\.?\d*", results)}
        for row in table:
            measured = row.split("|")[1]
            for number in re.findall(r"\d[\d,]*(?:\.\d+)?", measured):
                decimals = len(number.partition(".")[2])
                value = float(number.replace(",", ""))
                assert any(round(f, decimals) == value for f in figures), (number, row)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand of the command line and its parser, walking the whole parser."""
    (sub,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def documented() -> str:
    """The README and docs/ without their example code: prose and command lines."""
    text = "\n".join(doc.read_text(encoding="utf-8") for doc in DOCS)
    return re.sub(r"^```(python|json|text)\n.*?^```", "", text, flags=re.S | re.M)


class TestCommandLine:
    def test_every_command_is_documented(self) -> None:
        """Each subcommand appears as ``session-memory <command>`` in the README or docs/."""
        text = documented()
        assert [name for name in subcommands() if f"session-memory {name}" not in text] == []

    @pytest.mark.parametrize("command", ["", *subcommands()])
    def test_every_option_is_documented(self, command: str) -> None:
        """Each option of the command line (but argparse's own --help) appears in the README
        or docs/, outside example code."""
        parser = subcommands()[command] if command else build_parser()
        text = documented()
        missing = [
            option
            for action in parser._actions
            if not isinstance(action, argparse._HelpAction)
            for option in action.option_strings
            if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text)
        ]
        assert missing == []

    def test_the_check_finds_an_undocumented_option(self) -> None:
        """An option that no document names is found missing."""
        assert not re.search(r"(?<![\w-])--no-such-option(?![\w-])", documented())


OUTSIDE = re.compile(
    r"\bDESIGN\b"  # the design document the project was built to, not in the repository
    r"|(?<![\w./-])(?:shared|research)/"  # its folders of research notes and fixtures
)
"""A reference to a file outside the repository."""

REPOSITORY_PATH = re.compile(
    r"(?<![\w./<-])((?:session_memory|deriver|viewbuilder|tests|benchmarks|examples|e2e|docs)"
    r"/[\w./*-]*[\w*]/?)"
)


def docstrings_and_comments(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every docstring and comment of a Python file."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                yield node.body[0].lineno, docstring
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def python_files() -> list[Path]:
    return [p for root in SOURCES for p in sorted((ROOT / root).rglob("*.py"))]


def ignored(path: str) -> bool:
    """Whether ``path`` is where something is written that is not kept (.gitignore)."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    return any(path.rstrip("/") + "/" == line or path == line for line in lines)


class TestReferences:
    @pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
    def test_documents_name_only_files_of_the_repository(self, doc: Path) -> None:
        """A document refers to no file outside the repository, and every file of the
        repository it names (or links to) exists."""
        text = doc.read_text(encoding="utf-8")
        assert OUTSIDE.findall(prose_of(text)) == []
        links = re.findall(r"\]\(([^)#\s]+)\)", text)
        for link in links:
            if "://" not in link:
                target = (doc.parent / link).resolve()
                assert target.is_relative_to(ROOT) and target.exists(), link
        named = {
            m for m in REPOSITORY_PATH.findall(without_outputs(text)) if not re.search(r"[*<]", m)
        }
        assert sorted(p for p in named if not (ROOT / p).exists() and not ignored(p)) == []

    def test_docstrings_and_comments_name_no_file_outside_the_repository(self) -> None:
        """No docstring or comment of the code, tests, benchmarks or examples cites a file
        that is not in the repository (a section of a design document kept elsewhere)."""
        found = [
            f"{path.relative_to(ROOT)}:{line}: {match}"
            for path in python_files()
            for line, text in docstrings_and_comments(path)
            for match in OUTSIDE.findall(text)
        ]
        assert found == []

    def test_the_check_finds_a_reference_outside(self) -> None:
        """The pattern catches the kinds of reference it is meant to."""
        for text in ("(DESIGN section 7)", "see shared/fixtures", "shared/research/a.txt"):
            assert OUTSIDE.search(text), text
        for text in ("tests/fixtures", "docs/rules.md", "~/.claude/projects", "/home/dev/app"):
            assert not OUTSIDE.search(text), text


def prose_of(text: str) -> str:
    """A document without its example output (text blocks): the hook example of the README
    shows the paths of the machine it quotes."""
    return re.sub(r"^```text\n.*?^```", "", text, flags=re.S | re.M)


def without_outputs(text: str) -> str:
    """A document without what its console examples print (their ``$`` commands kept): a
    memory of the sample names the files of the sample's project, not of this repository."""

    def commands(block: re.Match[str]) -> str:
        return "\n".join(line for line in block.group(0).splitlines() if line.startswith("$ "))

    return re.sub(r"^```console\n.*?^```", commands, text, flags=re.S | re.M)


class TestLayout:
    def test_the_readme_names_every_floor_and_application(self) -> None:
        """The README's layout names every floor and each module or package of the
        applications' floor."""
        layout = doc_section("README.md", "## Development").split("Layout, in floors")[1]
        named = set(re.findall(r"`([\w/]+?)/?`", layout))
        floors = {"session_memory/core", "session_memory/formats", "deriver", "viewbuilder"}
        apps = {
            p.stem if p.is_file() else p.name
            for p in (ROOT / "session_memory" / "apps").iterdir()
            if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.stem != "__init__"
        }
        assert sorted((floors | {"session_memory/apps"} | apps) - named) == []
