"""The check table: which command lines run a check, of what kind, read by which parser.

One row per way of running a check. A row names the ``programs`` that run it (as typed,
without a directory or ``.exe``; ``python3.11``, ``py`` and ``pypy3`` are ``python``), the
``form`` of the words after the program (:mod:`deriver.check_forms`), the check's ``name``
(for task runners, the start of the name: ``make`` gives ``make test lint``), its ``kind``,
the output ``parser`` to trust first (:data:`deriver.check_output.PARSERS`; None: every
parser, the last summary wins) and whether the words given to it narrow what runs
(``scoped``: ``pytest tests/a.py`` covers less than ``pytest``).

A program's rows are tried in order; the first that matches names the check. Adding a
runner is adding a row (``docs/rules.md``, "Adding a check runner").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from deriver.check_forms import (
    Always,
    Form,
    Gates,
    Goal,
    RunTargets,
    Script,
    ScriptFile,
    Scripts,
    Subcommand,
    Tasks,
    Unless,
    WithOption,
    WithoutOption,
)
from deriver.user_text import word_set

__all__ = [
    "CHECK_RUNNERS",
    "GATE_NAMES",
    "RUN_BY_PATH",
    "CheckKind",
    "CheckRunner",
    "gate_covers",
    "kinds_of",
]


class CheckKind(StrEnum):
    """What a check verifies."""

    TEST = "test"
    BUILD = "build"
    LINT = "lint"
    TYPECHECK = "typecheck"
    FORMAT = "format"
    GATE = "gate"
    """A project's own gate (``make check``, ``npm run lint``): whatever its recipe runs."""


@dataclass(frozen=True, slots=True)
class CheckRunner:
    """One row of the check table (see the module's docstring)."""

    programs: tuple[str, ...]
    form: Form
    name: str
    kind: CheckKind
    parser: str | None = None
    scoped: bool = True


# How projects name their gates, in package scripts, make, just, task, mise, turbo and nx
# ("test", "check-types", "lint:ci", "test:unit", "ci:lint"); never a watch mode.
GATE_NAMES: Final = re.compile(
    r"^(?!.*watch)(?:[\w-]+:)*(?:test|tests|check|checks|lint|lints|ci|verify|validate"
    r"|typecheck|type-check|types|tsc|compile|build|coverage|cov|e2e|unit|spec|integration"
    r"|qa|precommit|pre-commit|(?:fmt|format)[-_:]check|(?:unit|integration|e2e)[-_]tests?)"
    r"(?:[:_.-][\w:.-]*)?$"
)

TEST, BUILD, LINT = CheckKind.TEST, CheckKind.BUILD, CheckKind.LINT
TYPECHECK, FORMAT = CheckKind.TYPECHECK, CheckKind.FORMAT
_GATE_WORD_KINDS: Final[dict[str, frozenset[CheckKind]]] = {
    **dict.fromkeys(("test", "tests", "unit", "spec", "integration", "e2e", "coverage", "cov"),
                    frozenset({TEST})),
    **dict.fromkeys(("lint", "lints"), frozenset({LINT, FORMAT})),
    **dict.fromkeys(("typecheck", "types", "tsc"), frozenset({TYPECHECK})),
    **dict.fromkeys(("build", "compile"), frozenset({BUILD})),
    **dict.fromkeys(("fmt", "format"), frozenset({FORMAT})),
}  # fmt: skip
_GATE_ALL_WORDS: Final = frozenset({"check", "checks", "ci", "verify", "validate", "qa"})
_ALL_KINDS: Final = frozenset({TEST, BUILD, LINT, TYPECHECK, FORMAT})


def gate_covers(name: str) -> frozenset[CheckKind]:
    """The kinds of check a project's gate runs, by the words of the tasks it names
    (``mise run lint``: the linters; ``make test``: the tests; ``npm run check``,
    ``just ci``: all of them; ``lint:ci`` is the linters'). Empty for words it cannot tell."""
    words = re.split(r"[\s:_.-]+", name.lower())[1:]
    kinds = frozenset().union(*(_GATE_WORD_KINDS.get(word, frozenset()) for word in words))
    if kinds:
        return kinds
    return _ALL_KINDS if _GATE_ALL_WORDS.intersection(words) else frozenset()


def kinds_of(name: str, kind: str | None) -> frozenset[CheckKind]:
    """The kinds of check a run named ``name`` is: a project's gate, those of the tasks it
    names (``mise run rust:lint``: the linters)."""
    if kind == CheckKind.GATE:
        return gate_covers(name)
    return frozenset() if kind is None else frozenset({CheckKind(kind)})


GATE = CheckKind.GATE
ANY: Final = Always()


def _sub(words: str, *, needs: str = "") -> Subcommand:
    """A :class:`Subcommand` form, its words written as one string."""
    return Subcommand(word_set(words), needs=word_set(needs))


_FORMAT_CHECKING: Final = "--check --check-formatted --set-exit-if-changed --dry-run"
_MAVEN_GOALS: Final = word_set("test verify package install compile")
_MAVEN_FLAGS: Final = word_set("-pl -P -f -s -T -rf -D")


def _mvn(goal: str) -> Goal:
    return Goal(goal, _MAVEN_GOALS, _MAVEN_FLAGS)


_JS_FLAGS: Final = word_set("--filter -F -C --dir --prefix --workspace --cwd")
_JS_RUNNERS: Final = word_set("jest vitest mocha tsc vue-tsc eslint playwright cypress")
_RUN_VERBS: Final = word_set("run r run-many affected")
_RUN_FLAGS: Final = word_set("-C --cd --filter -F -j --jobs --projects -p --hook-stage")
_LEAD_FLAGS: Final = word_set("-C --cd --filter -F")


def _run(
    *, bare_target: bool = False, any_target: bool = False, group: str | None = None
) -> RunTargets:
    return RunTargets(
        GATE_NAMES, _RUN_VERBS, _RUN_FLAGS, _LEAD_FLAGS, bare_target, any_target, group
    )


# A project's own script named for what it verifies: "validate.js", "check_links.py",
# "run-tests.sh", "test_parser.py", "verify-release.sh", "smoke.mjs".
VERIFYING_SCRIPT: Final = re.compile(
    r"^(?:run[_-])?(?:tests?|checks?|lint|validate|validation|verify|smoke|e2e)(?:[_-][\w-]*)?$"
)
_SCRIPT_FILE: Final = ScriptFile(
    VERIFYING_SCRIPT,
    value_flags=word_set("-r --require --import --loader -W -X"),
    code_flags=word_set("-c -e -p --eval --print"),
)
RUN_BY_PATH: Final = "./"
"""The program a script run by its path (``./scripts/check.sh``) is looked up as; the path
is the first of its words."""
_INTERPRETERS: Final = (
    "python",
    "node",
    "tsx",
    "ts-node",
    "bash",
    "sh",
    "zsh",
    "ruby",
    "perl",
    RUN_BY_PATH,
)
_R = CheckRunner

CHECK_RUNNERS: Final[tuple[CheckRunner, ...]] = (
    # Test runners
    _R(("pytest", "py.test"), ANY, "pytest", TEST, "pytest"),
    _R(("tox",), ANY, "tox", TEST, "pytest"),
    _R(("nox",), ANY, "nox", TEST, "pytest"),
    _R(("unittest",), ANY, "unittest", TEST, "unittest"),
    _R(("nose2",), ANY, "nose2", TEST, "unittest"),
    _R(("python",), Script("manage.py", "test"), "django test", TEST, "unittest"),
    _R(("python",), Script("manage.py", "check"), "django check", LINT),
    _R(("jest",), ANY, "jest", TEST, "jest"),
    _R(("vitest",), Always(mode="run"), "vitest", TEST, "jest"),
    _R(("mocha",), ANY, "mocha", TEST, "mocha"),
    _R(("node",), WithOption(word_set("--test")), "node --test", TEST, "node"),
    _R(("ctest",), ANY, "ctest", TEST, "ctest"),
    _R(("rspec",), ANY, "rspec", TEST, "rspec"),
    _R(("phpunit",), ANY, "phpunit", TEST, "phpunit"),
    _R(("pest",), ANY, "pest", TEST, "phpunit"),
    _R(("php",), Script("artisan", "test"), "artisan test", TEST, "phpunit"),
    _R(("playwright",), _sub("test"), "playwright test", TEST),
    _R(("cypress",), _sub("run"), "cypress run", TEST),
    _R(("gotestsum",), ANY, "gotestsum", TEST, "go"),
    _R(("meson",), _sub("test"), "meson test", TEST),
    _R(("xcodebuild",), WithOption(word_set("test test-without-building")), "xcodebuild test",
       TEST, "xctest"),
    _R(("xcodebuild",), WithOption(word_set("build build-for-testing")), "xcodebuild build",
       BUILD, scoped=False),
    # Type checkers and linters
    _R(("mypy", "dmypy"), ANY, "mypy", TYPECHECK, "linters"),
    _R(("pyright", "basedpyright"), ANY, "pyright", TYPECHECK, "linters"),
    _R(("tsc", "vue-tsc"), ANY, "tsc", TYPECHECK, "linters"),
    _R(("phpstan",), ANY, "phpstan", TYPECHECK),
    _R(("psalm",), ANY, "psalm", TYPECHECK),
    _R(("eslint",), ANY, "eslint", LINT, "linters"),
    _R(("ruff",), Subcommand(word_set("check"), bare=True), "ruff", LINT, "linters"),
    _R(("ruff",), _sub("format", needs="--check --diff"), "ruff", FORMAT, "linters"),
    _R(("ruff",), Unless(word_set("check format rule version clean server config analyze help "
                                  "linter")), "ruff", LINT, "linters"),
    _R(("flake8",), ANY, "flake8", LINT),
    _R(("pylint",), ANY, "pylint", LINT),
    _R(("golangci-lint",), _sub("run"), "golangci-lint", LINT, "linters"),
    _R(("staticcheck",), ANY, "staticcheck", LINT),
    _R(("shellcheck",), ANY, "shellcheck", LINT),
    _R(("rubocop",), ANY, "rubocop", LINT),
    _R(("hadolint",), ANY, "hadolint", LINT),
    _R(("stylelint",), ANY, "stylelint", LINT),
    _R(("actionlint",), ANY, "actionlint", LINT),
    _R(("oxlint",), ANY, "oxlint", LINT),
    _R(("tflint",), ANY, "tflint", LINT),
    _R(("yamllint",), ANY, "yamllint", LINT),
    _R(("markdownlint", "markdownlint-cli2"), ANY, "markdownlint", LINT),
    _R(("ansible-lint",), ANY, "ansible-lint", LINT),
    _R(("codespell",), ANY, "codespell", LINT),
    _R(("cspell",), ANY, "cspell", LINT),
    _R(("vale",), ANY, "vale", LINT),
    _R(("svelte-check",), ANY, "svelte-check", TYPECHECK),
    _R(("terraform", "tofu"), _sub("validate"), "terraform validate", LINT),
    _R(("terraform", "tofu"), _sub("fmt", needs="-check"), "terraform fmt", FORMAT),
    _R(("helm",), _sub("lint"), "helm lint", LINT),
    _R(("buf",), _sub("lint"), "buf lint", LINT),
    _R(("sqlfluff",), _sub("lint"), "sqlfluff lint", LINT),
    _R(("astro",), _sub("check"), "astro check", TYPECHECK),
    # A framework's or a docs site's build: it fails when the code or the pages do not build.
    _R(("astro",), _sub("build"), "astro build", BUILD),
    _R(("nuxt", "nuxi"), _sub("build generate"), "nuxt build", BUILD),
    _R(("ng",), _sub("build"), "ng build", BUILD),
    _R(("gatsby",), _sub("build"), "gatsby build", BUILD),
    _R(("mkdocs",), _sub("build"), "mkdocs build", BUILD),
    _R(("sphinx-build",), ANY, "sphinx-build", BUILD),
    _R(("next",), _sub("build"), "next build", BUILD),
    _R(("next",), _sub("lint"), "next lint", LINT),
    _R(("vite",), _sub("build"), "vite build", BUILD),
    _R(("git",), _sub("diff", needs="--check"), "git diff --check", LINT),
    # A syntax check: the code parses (nothing runs).
    _R(("bash", "sh", "zsh"), WithOption(word_set("-n")), "bash -n", BUILD),
    _R(("node",), WithOption(word_set("--check -c")), "node --check", BUILD),
    _R(("py_compile", "compileall"), ANY, "py_compile", BUILD),
    # Formatters and linters that only check when told to
    _R(("prettier",), WithOption(word_set("--check -c --list-different -l")), "prettier", FORMAT),
    _R(("biome",), WithOption(word_set("check ci lint")), "biome", LINT),
    _R(("stylua",), WithOption(word_set("--check")), "stylua", FORMAT),
    _R(("gofmt",), WithOption(word_set("-l -d")), "gofmt", FORMAT),
    _R(("clang-format",), WithOption(word_set("--dry-run -n")), "clang-format", FORMAT),
    _R(("black",), WithOption(word_set("--check --diff")), "black", FORMAT),
    _R(("isort",), WithOption(word_set("--check --check-only -c --diff")), "isort", FORMAT),
    _R(("rustfmt",), WithOption(word_set("--check")), "rustfmt", FORMAT),
    # Toolchains whose subcommands check
    _R(("go",), _sub("test"), "go test", TEST, "go"),
    _R(("go",), _sub("build"), "go build", BUILD),
    _R(("go",), _sub("vet"), "go vet", LINT),
    _R(("cargo",), _sub("test t"), "cargo test", TEST, "cargo"),
    _R(("cargo",), _sub("nextest"), "cargo nextest", TEST, "cargo"),
    _R(("cargo",), _sub("llvm-cov"), "cargo llvm-cov", TEST, "cargo"),
    _R(("cargo",), _sub("tarpaulin"), "cargo tarpaulin", TEST),
    _R(("cargo",), _sub("build b"), "cargo build", BUILD),
    _R(("cargo",), _sub("check c"), "cargo check", BUILD),
    _R(("cargo",), _sub("clippy"), "cargo clippy", LINT),
    _R(("cargo",), _sub("fmt", needs=_FORMAT_CHECKING), "cargo fmt", FORMAT),
    _R(("dotnet",), _sub("test"), "dotnet test", TEST, "dotnet"),
    _R(("dotnet",), _sub("build"), "dotnet build", BUILD),
    _R(("deno",), _sub("test"), "deno test", TEST),
    _R(("bun",), _sub("test"), "bun test", TEST, "bun"),
    _R(("deno",), _sub("lint"), "deno lint", LINT),
    _R(("deno",), _sub("check"), "deno check", TYPECHECK),
    _R(("deno",), _sub("fmt", needs=_FORMAT_CHECKING), "deno fmt", FORMAT),
    _R(("swift",), _sub("test"), "swift test", TEST, "xctest"),
    _R(("swift",), _sub("build"), "swift build", BUILD),
    _R(("mix",), _sub("test"), "mix test", TEST, "exunit"),
    _R(("mix",), _sub("compile"), "mix compile", BUILD),
    _R(("mix",), _sub("credo"), "mix credo", LINT, "credo"),
    _R(("mix",), _sub("check"), "mix check", GATE),
    _R(("mix",), _sub("dialyzer"), "mix dialyzer", TYPECHECK),
    _R(("mix",), _sub("sobelow"), "mix sobelow", LINT),
    _R(("mix",), _sub("format", needs=_FORMAT_CHECKING), "mix format", FORMAT),
    _R(("bazel",), _sub("test"), "bazel test", TEST),
    _R(("bazel",), _sub("build"), "bazel build", BUILD),
    _R(("flutter",), _sub("test"), "flutter test", TEST),
    _R(("flutter",), _sub("analyze"), "flutter analyze", LINT, "dart"),
    _R(("flutter",), _sub("build"), "flutter build", BUILD),
    _R(("dart",), _sub("test"), "dart test", TEST),
    _R(("dart",), _sub("analyze"), "dart analyze", LINT, "dart"),
    _R(("dart",), _sub("format", needs=_FORMAT_CHECKING), "dart format", FORMAT),
    _R(("zig",), _sub("build"), "zig build", BUILD),
    _R(("zig",), _sub("test"), "zig test", TEST),
    _R(("sbt",), _sub("test"), "sbt test", TEST),
    _R(("sbt",), _sub("compile"), "sbt compile", BUILD),
    _R(("lein",), _sub("test"), "lein test", TEST),
    _R(("stack",), _sub("test"), "stack test", TEST),
    _R(("stack",), _sub("build"), "stack build", BUILD),
    _R(("cabal",), _sub("test"), "cabal test", TEST),
    _R(("cabal",), _sub("build"), "cabal build", BUILD),
    _R(("dune",), _sub("test"), "dune test", TEST),
    _R(("dune",), _sub("build"), "dune build", BUILD),
    _R(("hatch",), _sub("test"), "hatch test", TEST),
    _R(("rake",), _sub("test"), "rake test", TEST),
    _R(("rake",), _sub("spec"), "rake spec", TEST),
    _R(("rails",), _sub("test"), "rails test", TEST),
    _R(("composer",), _sub("test"), "composer test", TEST),
    _R(("cmake",), WithOption(word_set("--build")), "cmake --build", BUILD, scoped=False),
    _R(("ninja",), ANY, "ninja", BUILD, scoped=False),
    # Build tools named by the goal or task the command line names last
    _R(("mvn", "mvnw"), _mvn("test"), "mvn test", TEST, "maven", scoped=False),
    _R(("mvn", "mvnw"), _mvn("verify"), "mvn verify", TEST, "maven", scoped=False),
    _R(("mvn", "mvnw"), _mvn("package"), "mvn package", BUILD, scoped=False),
    _R(("mvn", "mvnw"), _mvn("install"), "mvn install", BUILD, scoped=False),
    _R(("mvn", "mvnw"), _mvn("compile"), "mvn compile", BUILD, scoped=False),
    _R(("gradle", "gradlew"), Tasks(re.compile(r"^(?:test|build|check|assemble|lint)\w*$"),
                                    word_set("-p -b -c -x")), "gradle", GATE, scoped=False),
    # Project gates: task runners and package scripts, named by the gates the line names
    _R(("make", "gmake"), Gates(GATE_NAMES, word_set("-C -f --directory --file -I -o -W"),
                                recipe_args=False, bare=True, also=word_set("all")),
       "make", GATE, scoped=False),
    _R(("just",), Gates(GATE_NAMES, word_set(
        "-f --justfile -d --working-directory --set --dotenv-filename --dotenv-path --shell "
        "--shell-arg --color --chooser")), "just", GATE, scoped=False),
    _R(("task",), Gates(GATE_NAMES, word_set(
        "-d --dir -t --taskfile -o --output -C --concurrency")), "task", GATE, scoped=False),
    _R(("poe",), Gates(GATE_NAMES, word_set("-C --directory --root -e --executor")), "poe",
       GATE, scoped=False),
    _R(("mise",), _run(group="tasks"), "mise run", GATE, scoped=False),
    _R(("turbo",), _run(bare_target=True), "turbo run", GATE, scoped=False),
    _R(("nx",), _run(bare_target=True), "nx", GATE, scoped=False),
    _R(("lefthook",), _run(any_target=True), "lefthook run", GATE, scoped=False),
    # The project's CI workflows, run locally (nektos/act): not when it only lists or plans
    _R(("act",), WithoutOption(word_set("-l --list -n --dryrun -g --graph -h --help --version"),
                               word_set("-j --job")), "act", GATE, scoped=False),
    _R(("pre-commit", "prek"), Subcommand(word_set("run"), bare=True, value_flags=_LEAD_FLAGS),
       "pre-commit", GATE, scoped=False),
    # The project's CI checks, as the forge lists them (deriver/ci_checks.py reads them)
    _R(("gh",), Script("pr", "checks"), "gh pr checks", GATE, scoped=False),
    _R(("gh",), Script("run", "watch"), "gh run watch", GATE, scoped=False),
    _R(("npm",), Scripts(GATE_NAMES, _JS_FLAGS | {"-w"}, _JS_RUNNERS, bare=False), "npm", GATE),
    _R(("pnpm",), Scripts(GATE_NAMES, _JS_FLAGS, _JS_RUNNERS), "pnpm", GATE),
    _R(("yarn",), Scripts(GATE_NAMES, _JS_FLAGS, _JS_RUNNERS, workspace="workspace"), "yarn",
       GATE),
    _R(("bun",), Scripts(GATE_NAMES, _JS_FLAGS, _JS_RUNNERS), "bun", GATE),
    # A project's own verifying script, run by an interpreter (last: its other rows first)
    _R(_INTERPRETERS, _SCRIPT_FILE, "script", GATE, scoped=False),
)  # fmt: skip
