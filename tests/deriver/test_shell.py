"""Tests for deriver.shell: which command line runs a check, which only reads.

Quoted strings marked "fixture" are copied from the real recordings in tests/fixtures.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deriver.check_commands import CheckRun, detect_check, shown_command
from deriver.check_runners import gate_covers
from deriver.check_scope import CheckScope
from deriver.read_only import is_read_only_command
from deriver.shell import and_chain
from tests.deriver.tool_samples import FIVE_MB, timed


class TestDetectCheck:
    @pytest.mark.parametrize(
        ("command", "name"),
        [
            ("pytest", "pytest"),
            ("pytest -q tests/test_tools.py", "pytest"),
            ("python -m pytest -x", "pytest"),
            ("python3.11 -m pytest", "pytest"),
            ("py.test", "pytest"),
            (".venv/bin/pytest", "pytest"),
            ("tox -e py311", "tox"),
            ("nox -s tests", "nox"),
            ("python -m unittest discover", "unittest"),
            ("npm test", "npm test"),
            ("npm run test", "npm test"),
            ("pnpm test", "pnpm test"),
            ("yarn test", "yarn test"),
            ("bun test", "bun test"),
            ("npm run build", "npm run build"),
            ("npm run lint", "npm run lint"),
            ("pnpm --filter web build", "pnpm run build"),
            ("jest --coverage", "jest"),
            ("vitest run", "vitest"),
            ("mocha", "mocha"),
            # A package's own program run by node from node_modules (a sandbox without pnpm).
            (
                "node node_modules/.pnpm/mocha@11.7.5/node_modules/mocha/bin/mocha.js --ui tdd "
                "out/test/a.test.js",
                "mocha",
            ),
            ("node ./node_modules/typescript/bin/tsc --noEmit", "tsc"),
            ("go test ./...", "go test"),
            ("go build ./...", "go build"),
            ("go vet ./...", "go vet"),
            ("cargo test", "cargo test"),
            ("cargo build --release", "cargo build"),
            ("cargo check", "cargo check"),
            ("cargo clippy -- -D warnings", "cargo clippy"),
            ("mvn -q clean test", "mvn test"),
            ("mvn verify", "mvn verify"),
            ("mvn package -DskipTests", "mvn package"),
            ("gradle test", "gradle test"),
            ("./gradlew build", "gradle build"),
            ("make", "make"),
            ("make -j4", "make"),
            ("make test", "make test"),
            ("make check", "make check"),
            ("make build", "make build"),
            ("make lint", "make lint"),
            ("make -C sub test", "make test"),
            ("ctest --output-on-failure", "ctest"),
            ("ruff check .", "ruff"),
            ("ruff format --check .", "ruff"),
            ("mypy --strict src", "mypy"),
            ("pyright", "pyright"),
            ("tsc --noEmit", "tsc"),
            ("eslint .", "eslint"),
            ("rspec", "rspec"),
            ("bundle exec rspec spec/a_spec.rb", "rspec"),
            ("vendor/bin/phpunit", "phpunit"),
            ("dotnet test", "dotnet test"),
            ("dotnet build", "dotnet build"),
        ],
    )
    def test_recognised_checks(self, command: str, name: str) -> None:
        """Test, build and lint commands are recognised and named canonically."""
        check = detect_check(command)
        assert check is not None
        assert (check.name, check.command) == (name, command)

    @pytest.mark.parametrize(
        ("command", "name"),
        [
            ("cd repo && pytest -q", "pytest"),
            ("FOO=1 BAR=2 pytest", "pytest"),
            ("env CI=1 npm test", "npm test"),
            ("uv run pytest", "pytest"),
            ("uv run --with hypothesis pytest", "pytest"),
            ("poetry run python -m pytest", "pytest"),
            ("npx vitest run", "vitest"),
            ("npx -y tsc -p .", "tsc"),
            ("pytest 2>&1 | tail -20", "pytest"),
            ("timeout 60 pytest", "pytest"),
            ("time make test", "make test"),
            ("(cd web && npm run build)", "npm run build"),
            ("source .venv/bin/activate && pytest", "pytest"),
            ("bash -lc 'cd repo && cargo test'", "cargo test"),
            ("ruff check . && mypy && pytest -q", "pytest"),
            # tool managers running the project's pinned tools
            ("env GOCACHE=/tmp/c mise exec -- go test -count=1 ./internal/sem", "go test"),
            ("mise x go@1.24 -- go test ./...", "go test"),
            ("asdf exec go test ./x", "go test"),
            ("pnpm exec vitest run", "vitest"),
            ("corepack pnpm exec vitest run test/a.test.ts", "vitest"),
            ("fnm exec --using=24.18.0 -- corepack pnpm run test", "pnpm test"),
            ("volta run pnpm test", "pnpm test"),
            # in a container, or with secrets and environments loaded
            ("docker compose exec app pytest -q", "pytest"),
            ("docker compose -f dev.yml run --rm -e CI=1 web npm test", "npm test"),
            ("docker exec -it api go test ./...", "go test"),
            ("docker-compose exec -T web python manage.py test", "django test"),
            ("docker run --rm -v .:/app -w /app node:20 npm test", "npm test"),
            ("op run --env-file .env -- npm test", "npm test"),
            ("dotenv -e .env.test -- jest", "jest"),
            ("direnv exec . pytest", "pytest"),
            ("nix develop -c cargo test", "cargo test"),
            ("nvm exec 20 npm test", "npm test"),
            ("npm exec -- jest", "jest"),
            ("hatch run pytest -q", "pytest"),
            ("rtk bun run lint", "bun run lint"),  # a proxy that filters the output
            # fixture: codex-0.125.0-cli_update-plan_apply-patch
            (
                "npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts "
                '-t "Compaction Config"',
                "npm test",
            ),
        ],
    )
    def test_wrapped_checks(self, command: str, name: str) -> None:
        """Checks behind cd, env assignments, runners, wrappers, pipes and shells are found."""
        check = detect_check(command)
        assert check is not None
        assert check.name == name

    @pytest.mark.parametrize(
        "command",
        [
            "cat pytest.ini",
            "ls tests",
            "grep pytest",
            "grep -r 'make test' .",
            "echo make test",
            "pip install pytest",
            "uv pip install pytest",
            'git commit -m "make tests pass"',
            "which pytest",
            "pytest --version",
            "ruff format .",
            "make clean",
            "npm install",
            "cargo run",
            "go run main.go",
            "node server.js",
            "node node_modules/vite/bin/vite.js",
            "npx astro dev",
            "ng serve",
            "golangci-lint version",
            "golangci-lint linters",
            "git status --short",
            "cat <<EOF > run.sh\npytest\nEOF",
            "",
            "   ",
        ],
    )
    def test_not_checks(self, command: str) -> None:
        """Commands that only mention a check, install it or read its files are not checks."""
        assert detect_check(command) is None

    def test_same_name_different_commands(self) -> None:
        """Runs of different files share the name but keep distinct commands."""
        first = detect_check("pytest tests/a.py")
        second = detect_check("python -m pytest  tests/b.py")
        assert first is not None and second is not None
        assert first.name == second.name == "pytest"
        assert first.command == "pytest tests/a.py"
        assert second.command == "python -m pytest tests/b.py"

    @pytest.mark.parametrize(
        ("command", "shown"),
        [("cat >> src/style.css <<'EOF'\n#go { top: 38%; }\nEOF\nnpm run build 2>&1 | tail -3",
          "npm run build 2>&1 | tail -3"),
         ("cd /repo\ncargo test \\\n  --all-features", "cargo test --all-features"),
         ("pytest -q && echo done", "pytest -q && echo done")],
    )  # fmt: skip
    def test_a_script_s_check_is_the_line_that_runs_it(self, command: str, shown: str) -> None:
        """Of a script of several lines (a heredoc written first), the command is the line
        that runs the check, its continuations joined; a one-line command is all of it."""
        check = detect_check(command)
        assert check is not None and check.command == shown

    @given(st.text())
    def test_total_and_deterministic(self, command: str) -> None:
        """Any text gives a CheckRun or None, the same each time."""
        result = detect_check(command)
        assert result is None or (isinstance(result, CheckRun) and result.name)
        assert detect_check(command) == result

    @given(
        st.lists(
            st.sampled_from(
                ["pytest", "npm", "test", "&&", "|", ";", "'", '"', "\\", "(", ")", "<<", "EOF",
                 "\n", "-m", "python", "bash", "-lc", "make", "uv", "run", "=", "cd", "x"]
            ),
            max_size=20,
        ).map(" ".join)
    )  # fmt: skip
    def test_total_on_shell_like_text(self, command: str) -> None:
        """Shell-looking fragments with unbalanced quotes and operators never raise."""
        detect_check(command)

    def test_huge_command_is_fast(self) -> None:
        """A 5 MB command line is scanned only at its start."""
        command = "pytest " + "x" * FIVE_MB
        assert timed(lambda: detect_check(command)) < 1.0


class TestAndChain:
    @pytest.mark.parametrize(
        ("command", "chain"),
        [("go build ./... && go test ./...",
          [(False, ["go", "build", "./..."]), (False, ["go", "test", "./..."])]),
         ("go build | tail -3 && go test",
          [(True, ["go", "build"]), (True, ["tail", "-3"]), (False, ["go", "test"])]),
         ("go build ; go test", []), ("make || true", []), ("a &\nb", []), ("", [])],
    )  # fmt: skip
    def test_a_line_of_and_and_pipes(
        self, command: str, chain: list[tuple[bool, list[str]]]
    ) -> None:
        """Only a line of ``&&`` and pipes is a chain; a command in a pipeline is marked."""
        assert and_chain(command) == chain


class TestIsReadOnlyCommand:
    @pytest.mark.parametrize(
        "command",
        ["cat package.json", "sed -n '1,80p' a.py", "git status --short", "cd src && ls -la",
         "rg -n foo src 2>/dev/null | head -5", "nl -ba x | sed -n '90,108p'",
         "bash -lc \"cat x\"", "find . -name '*.py' | wc -l", "go version", "go env GOROOT",
         "mise current", "node --version", "cargo -V", "git -C ../shop status",
         "git --no-pager -c color.ui=never log -5", "npx vercel link --help",
         "uv run migrate.py -h", "go help build", "npx vercel help storage",
         "lsof -nP -iTCP:5173 -sTCP:LISTEN", "ps -o pid,command | rg node", "pgrep -f vite",
         "command -v agent-browser", "sleep 5; cat /tmp/shot.out", "date -u", "uname -a",
         "gh api repos/o/r/contents/CODE_OF_CONDUCT.md", "gh api repos/o/r --jq .name",
         'sqlite3 ./var/job.db "SELECT COUNT(*) FROM sqlite_master WHERE name = 1"',
         "sqlite3 app.db .schema", 'sqlite3 app.db "PRAGMA table_info(job)"',
         'psql -d app -c "EXPLAIN SELECT * FROM t" | head', 'mysql -e "SHOW TABLES"',
         "gh pr view 1576 --repo o/r --json number,title", "gh issue list --label bug"],
    )  # fmt: skip
    def test_looking_commands_are_read_only(self, command: str) -> None:
        """Commands that only look at files are read-only."""
        assert is_read_only_command(command)

    @pytest.mark.parametrize(
        "command",
        ["sed -i s/a/b/ x", "git commit -m x", "git -C ../shop commit -m x", "ls -la > out.txt",
         "echo hi >> f", "find . -name '*.pyc' -delete", "pytest -q", "rm -rf build",
         "cat a | tee b", "", "tool --help > usage.txt", "npx vercel deploy --prod",
         "command git push", "sleep 2 && npm run build", "gh api repos/o/r/pulls -X POST",
         "gh api graphql -f query=q", "gh pr create --fill", 'sqlite3 app.db "DELETE FROM t"',
         'sqlite3 app.db "ANALYZE; EXPLAIN QUERY PLAN SELECT 1"', "sqlite3 app.db < seed.sql",
         'sqlite3 app.db "PRAGMA journal_mode = WAL"', "sqlite3 app.db", 'psql -c "VACUUM"',
         "gh pr checks 15 --watch", "gh pr merge 15 --squash", "gh issue close 3"],
    )  # fmt: skip
    def test_writing_or_unknown_commands_are_not(self, command: str) -> None:
        """Writes, redirects to files and unknown commands are not read-only."""
        assert not is_read_only_command(command)

    @given(st.text(max_size=200))
    def test_total(self, command: str) -> None:
        """Any text gives an answer."""
        assert is_read_only_command(command) in (True, False)


class TestProjectGates:
    @pytest.mark.parametrize(
        ("command", "name"),
        [
            ("just check 2>&1", "just check"),
            ("just --justfile ci.just lint test", "just lint test"),
            ("make check", "make check"),
            ("make -C backend test lint", "make test lint"),
            ("make verify", "make verify"),
            ("task test:unit", "task test:unit"),
            ("task ci", "task ci"),
            ("mise run lint", "mise run lint"),
            ("mise tasks run check", "mise run check"),
            ("mise run test:ssh-docker", "mise run test:ssh-docker"),  # a task's namespace
            ("mise run lint:go", "mise run lint:go"),
            ("turbo run typecheck", "turbo run typecheck"),
            ("nx run web:test", "nx web:test"),
            ("npm run check-types", "npm run check-types"),
            ("pnpm --filter @repo/web check-types", "pnpm run check-types"),
            ("yarn lint:ci", "yarn run lint:ci"),
            ("pre-commit run --all-files", "pre-commit"),
            ("lefthook run pre-push", "lefthook run pre-push"),
            ("cargo llvm-cov --fail-under-lines 100", "cargo llvm-cov"),
            ("cargo fmt --check", "cargo fmt"),
            ("mix format --check-formatted", "mix format"),
            ("mix credo --strict", "mix credo"),
            ("prettier --check .", "prettier"),
            ("golangci-lint run ./...", "golangci-lint"),
        ],
    )
    def test_gates_are_checks(self, command: str, name: str) -> None:
        """Project gates (just, make, task, mise, turbo, package scripts, hooks) are checks."""
        check = detect_check(command)
        assert check is not None
        assert check.name == name

    @pytest.mark.parametrize(
        "command",
        ["just", "just fmt", "just deploy", "make install", "task dev", "mise run serve",
         "npm run dev", "npm run test:watch", "cargo fmt", "mix format", "prettier --write ."],
    )  # fmt: skip
    def test_other_recipes_are_not_checks(self, command: str) -> None:
        """Recipes that are not gates, watch modes and formatters that write are not checks."""
        assert detect_check(command) is None


class TestCheckScope:
    @pytest.mark.parametrize(
        ("broader", "narrower"),
        [
            ("mix test", "mix test test/foo_test.exs"),
            ("mix test 2>&1 | tail -5", "mix test test/foo_test.exs:58 --seed 0"),
            ("pytest", "pytest tests/test_x.py"),
            ("pytest tests/", "python -m pytest tests/test_x.py::test_a"),
            ("pytest", "pytest -k parse tests/test_x.py"),
            ("go test ./...", "go test ./pkg/parse"),
            ("cargo test", "cargo test -p core"),
            ("cd /repo && mix test", "mix test test/a_test.exs"),
            ("go test -tags=integration ./...", "go test ./pkg/parse"),
            ("go test -tags integration ./...", "go test -tags=integration ./pkg/it/..."),
            ("cargo test --features pg", "cargo test -p core"),
            (
                "cd agents/kiro && go test ./internal/kiro/...",
                "go test ./agents/kiro/internal/kiro",
            ),
        ],
    )
    def test_broader_run_covers_narrower(self, broader: str, narrower: str) -> None:
        """A run of the whole suite, or of a parent path, covers a run of a part of it (also
        one in a subdirectory, of the same tests named from the session's directory)."""
        wide, narrow = detect_check(broader), detect_check(narrower)
        assert wide is not None and narrow is not None
        assert wide.scope.covers(narrow.scope)
        assert not narrow.scope.covers(wide.scope)

    @pytest.mark.parametrize(
        ("first", "second"),
        [
            ("pytest tests/test_a.py", "pytest tests/test_b.py"),
            ("cd frontend && npm test", "cd backend && npm test"),
            ("pytest -k parse", "pytest -k render"),
            ("go test ./...", "go test -tags=integration ./cmd/it/..."),
            ("cargo test", "cargo test --features pg -p core"),
        ],
    )
    def test_disjoint_runs_do_not_cover(self, first: str, second: str) -> None:
        """Runs of different files, directories or selections cover neither each other, nor
        does a run without the build tags or features that add tests (``-tags=integration``)
        cover one with them."""
        one, two = detect_check(first), detect_check(second)
        assert one is not None and two is not None
        assert not one.scope.covers(two.scope) and not two.scope.covers(one.scope)

    def test_flag_values_are_not_paths(self) -> None:
        """Values of options that do not select (``--seed 0``) leave the run whole."""
        check = detect_check("mix test --seed 0 --max-cases 4")
        assert check is not None
        assert check.scope == CheckScope()

    @pytest.mark.parametrize(
        ("command", "own"),
        [
            ("mix test", True),
            ("cd app && mix test", True),
            ("mix test 2>&1 | tail -30", False),
            ("pytest || true", False),
            ("pytest; echo done", False),
        ],
    )
    def test_whether_the_exit_status_is_the_checks(self, command: str, own: bool) -> None:
        """A check piped into tail, or followed by other commands, does not own the exit."""
        check = detect_check(command)
        assert check is not None
        assert check.own_exit is own


class TestShownCommand:
    @pytest.mark.parametrize(
        ("command", "shown"),
        [
            ("mix test 2>&1 | tail -30", "mix test"),
            ("cd /home/u/proj && mix test test/a_test.exs 2>&1", "mix test test/a_test.exs"),
            ("pytest -q 2>&1 | grep -v warn | head -50", "pytest -q"),
            ("just check", "just check"),
        ],
    )
    def test_filters_and_cd_are_dropped(self, command: str, shown: str) -> None:
        """The stderr merge, output filters and the cd into the project are not shown."""
        assert shown_command(command) == shown

    @given(st.text(max_size=200))
    def test_total(self, command: str) -> None:
        """Any text gives a string, never raising."""
        assert isinstance(shown_command(command), str)


class TestGateCovers:
    @pytest.mark.parametrize(
        ("name", "kinds"),
        [
            ("mise run lint", {"lint", "format"}),
            ("npm run check-types", {"typecheck"}),
            ("make test", {"test"}),
            ("mise run test:ci", {"test"}),
            ("just ci", {"test", "build", "lint", "typecheck", "format"}),
            ("make all", set()),
        ],
    )
    def test_the_kinds_a_gate_runs_by_its_words(self, name: str, kinds: set[str]) -> None:
        """A gate's task names say which checks it runs; "check" and "ci" run them all."""
        assert {str(k) for k in gate_covers(name)} == kinds
