"""Generate realistic native transcripts (docs/formats.md), seeded and deterministic.

The events read like a coding agent working on a Python web service over several runs: each
run starts with a user request, the agent reads, greps, edits and runs tests through the
tools Claude Code uses (with the argument names Claude Code uses), keeps a todo list, is
sometimes blocked by a completion gate, compacts its context now and then, and ends with a
terminal event. The edge cases the deriver must handle are there on purpose: tool call ids
reused across runs, a run interrupted while an Edit or Bash call was running, a call that was
requested but never started, failed calls, commands that exit non-zero. Tool results,
checkpoints and gate transitions have the shapes MyCodeAgent writes (``docs/formats.md``):
result envelopes with ``data.stdout``/``data.exit_code`` and ``error.message``, an
"Archived Session Summary", ``details.reasons``.

Usage::

    python examples/generate_sample.py [--events N] [--seed S] [--out PATH]

or, as a library, ``generate_events(n_events, seed)`` (a stream, O(1) memory) and
``write_transcript(path, n_events, seed)``. The same seed always gives the same bytes: the
timestamps come from a simulated clock, never from the wall clock.
"""

from __future__ import annotations

import argparse
import calendar
import os
import random
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any, Final

import orjson

__all__ = ["DEFAULT_EVENTS", "DEFAULT_OUT", "DEFAULT_SEED", "generate_events", "write_transcript"]

DEFAULT_EVENTS: Final = 3000
DEFAULT_SEED: Final = 7
DEFAULT_OUT: Final = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "sample_transcript.jsonl"
)

Event = dict[str, Any]

# --------------------------------------------------------------------------------------------
# Vocabularies. Everything the generator says is drawn from these, built once at import.
# --------------------------------------------------------------------------------------------

_ROOTS: Final = ("/home/dev/acme-shop", "/home/dev/projects/orders-api", "/srv/work/storefront")

_AREA_PATHS: Final[dict[str, tuple[str, ...]]] = {
    "auth": (
        "src/auth/login.py",
        "src/auth/tokens.py",
        "src/auth/middleware.py",
        "src/auth/password_reset.py",
        "tests/test_auth.py",
    ),
    "api": (
        "src/api/routes.py",
        "src/api/orders.py",
        "src/api/schemas.py",
        "src/api/errors.py",
        "tests/test_api.py",
    ),
    "db": (
        "src/db/models.py",
        "src/db/repository.py",
        "src/db/session.py",
        "migrations/versions/0007_order_customer_index.py",
        "tests/test_repository.py",
    ),
    "cache": (
        "src/cache/redis_cache.py",
        "src/catalogue/products.py",
        "src/catalogue/search.py",
        "tests/test_cache.py",
    ),
    "cli": (
        "src/cli/main.py",
        "src/cli/import_cmd.py",
        "src/cli/export_cmd.py",
        "tests/test_cli.py",
    ),
    "billing": (
        "src/billing/invoice.py",
        "src/billing/tax.py",
        "src/billing/currency.py",
        "tests/test_billing.py",
    ),
    "workers": (
        "src/workers/email.py",
        "src/workers/webhooks.py",
        "src/workers/reports.py",
        "tests/test_workers.py",
    ),
    "config": ("src/config.py", ".env.example", "pyproject.toml", "tests/test_config.py"),
    "misc": (
        "src/app.py",
        "src/utils/logging.py",
        "src/utils/text.py",
        "README.md",
        "Dockerfile",
        "tests/conftest.py",
        ".github/workflows/ci.yml",
    ),
}
_COMMON_PATHS: Final = ("src/app.py", "pyproject.toml", "tests/conftest.py", "src/config.py")

_REQUESTS: Final[tuple[tuple[str, str], ...]] = (
    ("Refactor the auth module to use JWT instead of session cookies", "auth"),
    ("Add rate limiting to the login endpoint: 5 attempts per minute per IP", "auth"),
    ("Password reset tokens never expire. Make them expire after 30 minutes.", "auth"),
    ("Fix the flaky test in tests/test_api.py", "api"),
    ("Add pagination to GET /orders (limit and offset, default limit 50)", "api"),
    ("Return 404 instead of 500 when an order does not exist", "api"),
    ("Add OpenAPI descriptions and examples for the orders endpoints", "api"),
    ("Make the search endpoint case-insensitive", "cache"),
    ("Add a migration with an index on orders.customer_id", "db"),
    ("Replace the raw SQL in src/db/repository.py with SQLAlchemy queries", "db"),
    ("The order listing does one query per order line. Fix the N+1 query.", "db"),
    ("Rename Customer.fullname to Customer.full_name everywhere, with a migration", "db"),
    ("Add a Redis cache in front of the product catalogue", "cache"),
    ("The product cache is never invalidated after an update; fix it", "cache"),
    ("Profile the /products endpoint and make it faster", "cache"),
    ("Add a --dry-run flag to the import command", "cli"),
    ("Make the CLI print errors to stderr and exit with a non-zero status", "cli"),
    ("Add CSV export for orders to the CLI", "cli"),
    ("Port the invoice PDF generation from reportlab to weasyprint", "billing"),
    ("Fix rounding errors in the tax calculation; use Decimal throughout", "billing"),
    ("Add support for EUR and GBP in the billing module", "billing"),
    (
        "Invoices show the wrong date for orders placed after 23:00 UTC. Fix the timezone bug.",
        "billing",
    ),
    ("The email worker crashes on subjects with non-ASCII characters, fix it", "workers"),
    ("Add retries with exponential backoff to the webhook sender", "workers"),
    ("Move the nightly report job from cron into the task queue", "workers"),
    ("Load all settings from environment variables with pydantic-settings", "config"),
    ("Remove the hard-coded database URL from src/config.py", "config"),
    ("Upgrade pydantic from v1 to v2", "config"),
    ("Set up pre-commit with ruff and mypy", "config"),
    ("Get the test suite passing on Python 3.12", "misc"),
    ("Speed up the test suite; it takes four minutes locally", "misc"),
    ("Add structured logging with a request id on every log line", "misc"),
    ("Add type hints to src/utils and make mypy --strict pass there", "misc"),
    ("Write a README section on local development", "misc"),
    ("test_checkout fails only on CI. Investigate and fix it.", "api"),
    ("Add a /healthz endpoint that checks the database and Redis", "api"),
    ("Validate the signup payload and return helpful 422 errors", "auth"),
    ("Delete the dead code in src/legacy and anything that only it uses", "misc"),
    ("Add a feature flag for the new checkout flow", "api"),
    ("Add a Dockerfile and a docker-compose.yml for local development", "misc"),
    ("Raise test coverage of src/billing above 90%", "billing"),
)

_ACKS: Final = ("continue", "yes", "ok", "go ahead", "yes, do it", "ok, continue", "sounds good")

_QUESTIONS: Final = (
    "Should I also update the callers in src/api, or keep the old function as a shim for now?",
    "The migration will lock the orders table for a few seconds. Is that acceptable?",
    "I can either patch the existing tests or rewrite them around fixtures. Which do you prefer?",
    "This touches the public API. Do you want a deprecation warning first?",
    "There are two failing tests that look unrelated to this change. Shall I leave them?",
)

_DECISIONS: Final = (
    "keep the session cookie as a fallback until the mobile client ships JWT support",
    "store refresh tokens hashed in the database, never in plain text",
    "use limit/offset pagination now; cursor pagination can come later",
    "put the cache invalidation in the repository layer, not in the API handlers",
    "use Decimal with ROUND_HALF_EVEN for all money arithmetic",
    "retry webhooks at most 5 times with jitter, then park them in a dead-letter table",
    "drop Python 3.9 support instead of adding compatibility shims",
    "read settings once at startup; no module-level os.environ lookups",
    "mock Redis with fakeredis in the tests rather than starting a container",
    "keep the old CLI flags as hidden aliases for one release",
    "fix the flaky test by freezing time instead of increasing the sleep",
    "return RFC 7807 problem+json bodies for all 4xx errors",
)

_REMARKS: Final = (
    "Let me look at how this is wired up first.",
    "I'll check the existing tests before changing anything.",
    "The failure comes from the fixture, not from the code under test.",
    "Now I'll update the call sites.",
    "That import is unused now; removing it.",
    "Let me run the tests for this module.",
    "The error message points at the serializer. Checking it.",
    "I need to see where this setting is read.",
    "Good, that part works. Moving on to the next item.",
    "Running the linters before the full suite.",
)

_FINALS: Final = (
    "Done. {request_lc}: the change is in {paths}. The full test suite passes ({passed} passed).",
    "Finished: {request_lc}. I edited {paths} and added tests; {passed} tests pass, ruff and "
    "mypy are clean.",
    "All done. Summary:\n- {request_lc}\n- touched {paths}\n- {passed} tests passing\n"
    "Nothing is left open.",
)

_GATE_MESSAGES: Final = (
    "[completion gate] Tests have not been run since the last edit. Run the test suite and "
    "report the result before finishing.",
    "[completion gate] The todo list still has open items. Finish them or explain why not.",
    "[completion gate] The last test run failed. Fix the failures before declaring success.",
)

_TODO_STEPS: Final = (
    ("Read the current implementation", "Reading the current implementation"),
    ("Write a failing test that reproduces the problem", "Writing a failing test"),
    ("Implement the change", "Implementing the change"),
    ("Update the call sites", "Updating the call sites"),
    ("Add a migration", "Adding a migration"),
    ("Update the documentation", "Updating the documentation"),
    ("Run the full test suite", "Running the full test suite"),
    ("Run ruff and mypy", "Running ruff and mypy"),
)

_GREP_PATTERNS: Final = (
    "def login",
    "session_cookie",
    "TODO",
    "import redis",
    "customer_id",
    r"class \w+Error",
    "fullname",
    r"datetime\.now\(\)",
    "SELECT .* FROM orders",
    "os.environ",
    "send_webhook",
    "Decimal",
)
_GLOB_PATTERNS: Final = (
    "**/*.py",
    "tests/**/test_*.py",
    "src/**/*.py",
    "**/*.toml",
    "migrations/versions/*.py",
    "**/*.md",
)
_TEST_NAMES: Final = (
    "test_login_rejects_expired_token",
    "test_orders_pagination_defaults",
    "test_order_not_found_returns_404",
    "test_cache_invalidated_on_update",
    "test_tax_rounding_half_even",
    "test_invoice_date_uses_utc",
    "test_email_subject_non_ascii",
    "test_webhook_retries_with_backoff",
    "test_settings_from_env",
    "test_import_dry_run_writes_nothing",
    "test_checkout_flow",
    "test_search_is_case_insensitive",
)
_ASSERTIONS: Final = (
    "AssertionError: assert 401 == 200",
    "AssertionError: assert 500 == 404",
    "AssertionError: assert Decimal('10.01') == Decimal('10.00')",
    "KeyError: 'full_name'",
    "TypeError: 'NoneType' object is not subscriptable",
    "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such column: customer_id",
    "UnicodeEncodeError: 'ascii' codec can't encode character '\\xe9' in position 7",
    "AttributeError: module 'src.auth.tokens' has no attribute 'decode_token'",
)

_PY_LINES: Final = (
    "from __future__ import annotations",
    "",
    "import logging",
    "from datetime import datetime, timedelta, timezone",
    "from decimal import ROUND_HALF_EVEN, Decimal",
    "",
    "from sqlalchemy import select",
    "from sqlalchemy.orm import Session",
    "",
    "from src.config import settings",
    "from src.db.models import Customer, Order",
    "",
    "log = logging.getLogger(__name__)",
    "",
    "",
    "class OrderNotFound(LookupError):",
    '    """Raised when an order id does not exist."""',
    "",
    "",
    "def get_order(session: Session, order_id: int) -> Order:",
    "    order = session.get(Order, order_id)",
    "    if order is None:",
    "        raise OrderNotFound(order_id)",
    "    return order",
    "",
    "",
    "def list_orders(session: Session, customer_id: int, limit: int = 50, offset: int = 0):",
    "    query = select(Order).where(Order.customer_id == customer_id)",
    "    query = query.order_by(Order.created_at.desc()).limit(limit).offset(offset)",
    "    return list(session.scalars(query))",
    "",
    "",
    "def issue_token(user_id: int, ttl: timedelta = timedelta(minutes=30)) -> str:",
    "    now = datetime.now(timezone.utc)",
    '    claims = {"sub": str(user_id), "iat": now, "exp": now + ttl}',
    '    return jwt.encode(claims, settings.jwt_secret, algorithm="HS256")',
    "",
    "",
    "def round_money(amount: Decimal) -> Decimal:",
    '    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)',
    "",
    "",
    "async def send_webhook(client, url: str, body: dict, attempts: int = 5) -> None:",
    "    for attempt in range(attempts):",
    "        response = await client.post(url, json=body, timeout=10)",
    "        if response.status_code < 500:",
    "            return",
    '        log.warning("webhook %s failed (attempt %d)", url, attempt + 1)',
    "        await asyncio.sleep(2**attempt + random.random())",
    "    raise WebhookFailed(url)",
    "",
    "",
    "@router.get('/orders')",
    "def orders_endpoint(limit: int = 50, offset: int = 0, user=Depends(current_user)):",
    "    with session_scope() as session:",
    "        orders = list_orders(session, user.id, limit, offset)",
    "        return [OrderOut.model_validate(o) for o in orders]",
    "",
    "",
    "def test_orders_pagination_defaults(client, customer):",
    "    response = client.get('/orders', headers=auth_headers(customer))",
    "    assert response.status_code == 200",
    "    assert len(response.json()) <= 50",
)
_TEXT_LINES: Final = (
    "# Acme shop",
    "",
    "## Local development",
    "",
    "```sh",
    "python -m venv .venv && . .venv/bin/activate",
    "pip install -e '.[dev]'",
    "docker compose up -d postgres redis",
    "pytest -q",
    "```",
    "",
    "[project]",
    'name = "acme-shop"',
    'requires-python = ">=3.11"',
    'dependencies = ["fastapi>=0.110", "sqlalchemy>=2.0", "redis>=5", "pydantic>=2"]',
    "",
    "[tool.pytest.ini_options]",
    'addopts = "-q"',
    "",
    "FROM python:3.12-slim",
    "WORKDIR /app",
    "COPY . .",
    "RUN pip install --no-cache-dir .",
    'CMD ["uvicorn", "src.app:app", "--host", "0.0.0.0"]',
    "",
    "# Example settings; copy to .env and fill in.",
    "DATABASE_URL=postgres://app:hunter2@localhost:5432/acme",
    "REDIS_URL=redis://localhost:6379/0",
    "JWT_SECRET=change-me",
    "PAYMENTS_API_KEY=sk-example-not-a-real-key-0000000000",
)

_EDITS: Final = (
    ("    return jsonify(orders)", "    return jsonify(paginate(orders, limit, offset))"),
    ("    session['user_id'] = user.id", "    token = issue_token(user.id)"),
    ("    return round(amount, 2)", "    return round_money(Decimal(amount))"),
    ("DATABASE_URL = 'postgres://localhost/acme'", "DATABASE_URL = settings.database_url"),
    ("    raise Exception('not found')", "    raise OrderNotFound(order_id)"),
    ("    subject = subject.encode('ascii')", "    subject = Header(subject, 'utf-8').encode()"),
    ("    time.sleep(1)", "    await asyncio.sleep(2**attempt + random.random())"),
    ("    customer.fullname", "    customer.full_name"),
    ("    now = datetime.now()", "    now = datetime.now(timezone.utc)"),
    (
        "def list_orders(session, customer_id):",
        "def list_orders(session, customer_id, limit=50, offset=0):",
    ),
)

_TASKS: Final = (
    (
        "Find all callers of login()",
        "Search the codebase for every call to login() and report "
        "file, line and how the return value is used.",
    ),
    (
        "Review the migration",
        "Review migrations/versions for anything that would lock a large "
        "table, and list the statements with their expected cost.",
    ),
    (
        "Survey test fixtures",
        "List the pytest fixtures in tests/conftest.py and which test files use each of them.",
    ),
    (
        "Check settings usage",
        "Find every place that reads configuration from os.environ "
        "directly instead of through src.config.settings.",
    ),
)

_STATIC_BASH: Final[tuple[tuple[str, str, int], ...]] = (
    ("git status --short", " M {p1}\n M {p2}\n?? tests/test_new_behaviour.py", 0),
    (
        "git diff --stat",
        " {p1} | 24 +++++++++++-------\n {p2} |  9 +++++---\n 2 files changed, "
        "21 insertions(+), 12 deletions(-)",
        0,
    ),
    (
        "git log --oneline -5",
        "3f2a9c1 Add order pagination\n9b7e0d4 Fix invoice rounding\n"
        "c41d2aa Bump sqlalchemy to 2.0.30\n77e1f09 Add healthz endpoint\n0a9c3b2 Initial import",
        0,
    ),
    ("ruff check .", "All checks passed!", 0),
    (
        "ruff check .",
        "{p1}:12:8: F401 [*] `os` imported but unused\n{p2}:88:101: E501 Line too "
        "long (104 > 100)\nFound 2 errors.\n[*] 1 fixable with the `--fix` option.",
        1,
    ),
    ("mypy src", "Success: no issues found in 47 source files", 0),
    (
        "mypy src",
        '{p1}:88: error: Incompatible return value type (got "list[Order] | None", '
        'expected "list[Order]")  [return-value]\n'
        "Found 1 error in 1 file (checked 47 source files)",
        1,
    ),
    (
        "ls -la src",
        "\n".join(
            (
                "total 48",
                "drwxr-xr-x  9 dev dev 4096 Aug 25 10:02 .",
                "drwxr-xr-x 12 dev dev 4096 Aug 25 09:58 ..",
                "-rw-r--r--  1 dev dev    0 Aug 20 14:11 __init__.py",
                "drwxr-xr-x  2 dev dev 4096 Aug 25 10:02 api",
                "-rw-r--r--  1 dev dev 2311 Aug 24 16:40 app.py",
                "drwxr-xr-x  2 dev dev 4096 Aug 25 09:59 auth",
                "drwxr-xr-x  2 dev dev 4096 Aug 22 11:31 billing",
            )
        ),
        0,
    ),
    (
        "alembic upgrade head",
        "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
        "INFO  [alembic.runtime.migration] Will assume transactional DDL.\nINFO  [alembic.runtime."
        "migration] Running upgrade 0006 -> 0007, order customer index",
        0,
    ),
    ("python -c 'import src.app'", "", 0),
    (
        "python -c 'import src.app'",
        'Traceback (most recent call last):\n  File "<string>", '
        'line 1, in <module>\n  File "{root}/src/app.py", line 7, in <module>\n    from src.auth '
        "import tokens\nImportError: cannot import name 'decode_token' from 'src.auth.tokens'",
        1,
    ),
)

_PIP_LINES: Final = tuple(
    f"Requirement already satisfied: {name} in ./.venv/lib/python3.12/site-packages "
    f"(from acme-shop==0.4.0) ({version})"
    for name, version in (
        ("fastapi>=0.110", "0.111.0"),
        ("sqlalchemy>=2.0", "2.0.30"),
        ("redis>=5", "5.0.4"),
        ("pydantic>=2", "2.7.1"),
        ("starlette<0.38.0,>=0.37.2", "0.37.2"),
        ("typing-extensions>=4.8.0", "4.12.0"),
        ("anyio<5,>=3.4.0", "4.4.0"),
        ("pytest>=8", "8.2.1"),
        ("idna>=2.8", "3.7"),
        ("sniffio>=1.1", "1.3.1"),
    )
)

# Tool mix, as weights out of 100 (a typical Claude Code session reads far more than it writes).
_TOOL_WEIGHTS: Final = (
    ("Read", 27),
    ("Bash", 20),
    ("Edit", 17),
    ("Grep", 10),
    ("Glob", 5),
    ("LS", 4),
    ("Write", 4),
    ("TodoWrite", 9),
    ("Task", 4),
)
_TOOL_TABLE: Final = tuple(name for name, weight in _TOOL_WEIGHTS for _ in range(weight))

_TERMINAL_OUTCOMES: Final = (
    ("completed", 70),
    ("max_steps", 10),
    ("error", 8),
    ("interrupted", 12),
)
_OUTCOME_TABLE: Final = tuple(name for name, weight in _TERMINAL_OUTCOMES for _ in range(weight))

_FIRST_OUTCOMES: Final = {1: "completed", 2: "interrupted", 3: "max_steps", 4: "error"}

_RECOVERY_ERRORS: Final = (
    "APIConnectionError: Connection reset by peer (after 3 retries)",
    "RateLimitError: 429 Too Many Requests (after 3 retries)",
    "InternalServerError: 529 overloaded (after 3 retries)",
)

_TOOL_RESULT_WRITE: Final = "File created successfully at: {path}"
_TOOL_RESULT_TODO: Final = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable"
)

# The 2026-08-25 10:00 UTC epoch, plus a few days per seed: every seed starts elsewhere.
_EPOCH_MS: Final = calendar.timegm((2026, 8, 25, 10, 0, 0, 0, 0, 0)) * 1000


def _number_lines(lines: Sequence[str], first: int) -> str:
    return "\n".join(f"{first + i:>6}\u2192{line}" for i, line in enumerate(lines))


_ERROR_CODES: Final = (
    ("not found", "NOT_FOUND"),
    ("does not exist", "NOT_FOUND"),
    ("modified since", "CONFLICT"),
    ("denied", "PERMISSION_DENIED"),
)


def _envelope(
    args: dict[str, Any], duration: int, text: str, exit_code: int | None, error: str | None
) -> Event:
    """A tool result as MyCodeAgent's tool runtime writes it: status, data, text, stats,
    context, and error {code, message} when the call failed. A Bash run keeps stdout and
    its exit code in ``data``; a non-zero exit is a "partial" result of a completed call."""
    context = {"cwd": ".", "params_input": args}
    stats = {"time_ms": duration}
    if error is not None:
        code = next((c for words, c in _ERROR_CODES if words in error.lower()), "INVALID_PARAM")
        return {
            "status": "error",
            "data": {},
            "text": error,
            "stats": stats,
            "context": context,
            "error": {"code": code, "message": error},
        }
    if exit_code is None:
        return {"status": "success", "data": {}, "text": text, "stats": stats, "context": context}
    command = str(args.get("command", ""))
    verdict = "succeeded" if exit_code == 0 else "failed"
    return {
        "status": "success" if exit_code == 0 else "partial",
        "data": {
            "stdout": text,
            "stderr": "",
            "exit_code": exit_code,
            "signal": None,
            "truncated": False,
            "command": command,
            "directory": ".",
        },
        "text": f"Command {verdict}: {command}\n(Exit code {exit_code}. Took {duration}ms)",
        "stats": {**stats, "stdout_bytes": len(text.encode()), "stderr_bytes": 0},
        "context": context,
    }


class _Session:
    """The simulated agent: run, step, clock and counters, and one method per kind of turn.

    Every method returns a short list of events (one turn at most), so the stream holds
    O(1) events at a time whatever ``n_events`` is.
    """

    def __init__(self, seed: int, session_id: str) -> None:
        rnd = random.Random(seed)
        self.random = rnd.random
        self.session_id = session_id
        self.root = _ROOTS[seed % len(_ROOTS)]
        self.clock_ms = _EPOCH_MS + (seed % 97) * 86_400_000 + int(rnd.random() * 3_600_000)
        self._minute = -1
        self._minute_prefix = ""
        self.n = 0
        self.history_len = 0
        self.checkpoints = 0
        self.next_checkpoint = 1000 + int(rnd.random() * 1000)
        self.run_no = 0
        self.run_id = ""
        self.step = 0
        self.call_no = 0
        self.request = ""
        self.area_paths: tuple[str, ...] = ()
        self.failing = 0
        self.todos: list[list[str]] = []
        self.edited: deque[str] = deque(maxlen=4)
        self.last_decision = ""
        self._build_pools()

    # -- pools: pre-rendered texts so that the hot path only picks ---------------------------

    def _build_pools(self) -> None:
        rnd = self.random
        py_pool = []
        text_pool = []
        for _ in range(48):
            # Log-uniform sizes between ~2 and ~60 lines: many short excerpts, a few long.
            size = int(2 * 30 ** rnd())
            start = int(rnd() * len(_PY_LINES))
            lines = [_PY_LINES[(start + i) % len(_PY_LINES)] for i in range(size)]
            first = 1 + int(rnd() * 200)
            py_pool.append(_number_lines(lines, first))
            size = max(2, size // 2)
            start = int(rnd() * len(_TEXT_LINES))
            lines = [_TEXT_LINES[(start + i) % len(_TEXT_LINES)] for i in range(size)]
            text_pool.append(_number_lines(lines, 1))
        self.py_reads = tuple(py_pool)
        self.text_reads = tuple(text_pool)
        self.write_bodies = tuple(
            "\n".join(_PY_LINES[i : i + 6 + int(rnd() * 30)]) for i in range(0, 48, 4)
        )
        self.pip_outputs = tuple(
            "Obtaining file://{root}\n  Installing build dependencies: started\n  Installing "
            "build dependencies: finished with status 'done'\n"
            + "\n".join(_PIP_LINES[: 3 + int(rnd() * 7)])
            + "\nSuccessfully installed acme-shop-0.4.0"
            for _ in range(4)
        )

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[int(self.random() * len(seq))]

    # -- the event itself -------------------------------------------------------------------

    def timestamp(self) -> str:
        ms = self.clock_ms
        sec = ms // 1000
        minute = sec // 60
        if minute != self._minute:
            self._minute = minute
            self._minute_prefix = time.strftime("%Y-%m-%dT%H:%M:", time.gmtime(minute * 60))
        return f"{self._minute_prefix}{sec % 60:02d}.{ms % 1000:03d}Z"

    def event(self, event_type: str, payload: Event, gap_ms: int, ref: str | None = None) -> Event:
        self.n += 1
        self.clock_ms += gap_ms
        return {
            "event_id": f"evt-{self.n}",
            "timestamp": self.timestamp(),
            "session_id": self.session_id,
            "run_id": self.run_id,
            "step": self.step,
            "event_type": event_type,
            "payload": payload,
            "reference_id": ref,
            "schema_version": 1,
        }

    def message(self, role: str, content: str, gap_ms: int, metadata: Event | None = None) -> Event:
        self.history_len += 1
        payload: Event = {"role": role, "content": content}
        if metadata is not None:
            payload["metadata"] = metadata
        return self.event("message", payload, gap_ms)

    def transition(self, from_state: str, to_state: str, reason: str, details: Event) -> Event:
        payload = {
            "from_state": from_state,
            "to_state": to_state,
            "reason": reason,
            "details": details,
        }
        return self.event("state_transition", payload, 1 + int(self.random() * 4))

    # -- runs -------------------------------------------------------------------------------

    def runs(self) -> Iterator[list[Event]]:
        """Yield the session as chunks of events, run after run, forever."""
        while True:
            yield from self.run()

    def run(self) -> Iterator[list[Event]]:
        rnd = self.random
        self.run_no += 1
        self.run_id = f"run-{self.run_no}"
        self.step = 0
        self.call_no = 0
        self.todos = []
        self.edited.clear()
        self.request, area = self.pick(_REQUESTS)
        self.area_paths = _AREA_PATHS[area]
        self.failing = int(rnd() * 4)
        # The first four runs end in each of the four ways, so that even a short transcript
        # has a completion gate, an interrupted call, a never-started call and a failed run.
        outcome = _FIRST_OUTCOMES.get(self.run_no) or self.pick(_OUTCOME_TABLE)
        gap = 60_000 + int(rnd() * 1_800_000) if self.run_no > 1 else 0
        yield [
            self.message("user", self.request, gap),
            self.transition("idle", "calling_model", "user_message", {}),
        ]
        start = self.n
        target = 150 + int(rnd() * 450)
        while self.n - start < target:
            self.step += 1
            if self.n >= self.next_checkpoint:
                yield self.compaction()
            r = rnd()
            if r < 0.03:
                yield self.question()
            elif self.step == 1 and r < 0.75:
                # Most runs open by writing a plan, as Claude Code does for multi-step work.
                yield self.tool_turn(forced="TodoWrite")
            else:
                yield self.tool_turn()
        self.step += 1
        if outcome == "completed":
            yield from self.finish()
        elif outcome == "max_steps":
            yield self.stop_at_max_steps()
        elif outcome == "error":
            yield self.fail_recovery()
        else:
            yield self.interrupt()

    def compaction(self) -> list[Event]:
        rnd = self.random
        self.checkpoints += 1
        self.next_checkpoint = self.n + 1000 + int(rnd() * 1000)
        keep = 4 + int(rnd() * 12)
        edited = ", ".join(self.edited) or "nothing yet"
        open_items = [t[0] for t in self.todos if t[1] != "completed"]
        decision = self.last_decision or "none recorded yet"
        summary = (
            "## Archived Session Summary\n"
            f"*(Contains context from step 1 to step {self.step})*\n\n"
            "### Objectives & Status\n"
            f"* **Original Goal**: {self.request}\n"
            f"* **Current Status**: {self.failing} tests failing at the last run\n\n"
            '### Completed Milestones (The "Done" Pile)\n'
            f"* [\u2713] Edited {edited}\n\n"
            "### Key Insights & Decisions\n"
            f"* **Decisions**: {decision}\n\n"
            "### Pending Tasks\n"
            f"* {open_items[0] if open_items else 'run the full test suite'}\n\n"
            "### File System State (Snapshot)\n"
            f"* edited: {edited}"
        )
        compacted = max(0, self.history_len - keep)
        checkpoint_id = f"compact_{self.checkpoints:032x}"
        return [
            # As MyCodeAgent writes it: the checkpoint, then the transition that names it.
            self.event(
                "checkpoint",
                {
                    "summary": summary,
                    "source_message_count": self.history_len,
                    "retain_start_idx": compacted,
                    "messages_compacted": compacted,
                    "checkpoint_id": checkpoint_id,
                },
                2_000 + int(rnd() * 20_000),
            ),
            self.transition(
                "calling_model",
                "context_compacted",
                "context_compacted",
                {
                    "checkpoint_id": checkpoint_id,
                    "messages_compacted": compacted,
                    "retain_start_idx": compacted,
                },
            ),
        ]

    def question(self) -> list[Event]:
        return [
            self.message("assistant", self.pick(_QUESTIONS), 2_000 + int(self.random() * 9_000)),
            self.transition("calling_model", "waiting_for_user", "model_asked_user", {}),
            self.message("user", self.pick(_ACKS), 5_000 + int(self.random() * 90_000)),
            self.transition("waiting_for_user", "calling_model", "user_message", {}),
        ]

    def tool_turn(self, forced: str | None = None, command: str | None = None) -> list[Event]:
        rnd = self.random
        events: list[Event] = []
        think = 1_500 + int(rnd() * 12_000)
        r = rnd()
        if r < 0.25:
            text = self.pick(_REMARKS)
            if r < 0.05:
                self.last_decision = self.pick(_DECISIONS)
                text = f"{text}\nDecision: {self.last_decision}"
            events.append(self.message("assistant", text, think))
            think = 5
        r = rnd()
        k = 1 if forced or r < 0.72 else (2 if r < 0.92 else 3)
        calls = [self.tool_call(forced if i == 0 else None, command) for i in range(k)]
        self.clock_ms += think
        events.append(
            self.transition(
                "calling_model", "executing_tools", "model_returned_tool_calls", {"tool_calls": k}
            )
        )
        requested = []
        for name, call_id, args, _ in calls:
            ev = self.event(
                "tool_lifecycle",
                {"tool_name": name, "tool_call_id": call_id, "status": "requested", "args": args},
                1,
            )
            requested.append(ev["event_id"])
            events.append(ev)
        for (name, call_id, args, outcome), ref in zip(calls, requested, strict=True):
            events.append(
                self.event(
                    "tool_lifecycle",
                    {"tool_name": name, "tool_call_id": call_id, "status": "started", "args": args},
                    2 + int(rnd() * 30),
                    ref,
                )
            )
            duration, text, exit_code, error = outcome
            result = _envelope(args, duration, text, exit_code, error)
            payload: Event = {
                "tool_name": name,
                "tool_call_id": call_id,
                "status": "completed" if error is None else "failed",
                "result": result,
            }
            # MyCodeAgent's tool message is the envelope as indented JSON.
            content = orjson.dumps(result, option=orjson.OPT_INDENT_2).decode()
            done = self.event("tool_lifecycle", payload, duration, ref)
            events.append(done)
            self.history_len += 1
            events.append(
                self.event(
                    "message",
                    {
                        "role": "tool",
                        "content": content,
                        "metadata": {"tool_call_id": call_id, "tool_name": name},
                    },
                    1,
                    done["event_id"],
                )
            )
        events.append(
            self.transition(
                "executing_tools", "calling_model", "tool_results_ready", {"tool_calls": k}
            )
        )
        return events

    def next_call_id(self) -> str:
        # Numbered per run, as the provider does it: run-2's call_1 is not run-1's call_1.
        self.call_no += 1
        return f"call_{self.call_no}"

    def path(self) -> str:
        if self.random() < 0.85:
            return f"{self.root}/{self.pick(self.area_paths)}"
        return f"{self.root}/{self.pick(_COMMON_PATHS)}"

    def tool_call(
        self, forced: str | None = None, command: str | None = None
    ) -> tuple[str, str, Event, tuple[int, str, int | None, str | None]]:
        """Choose one call: its name, id, args and (duration, result, exit code, error)."""
        rnd = self.random
        name = forced or self.pick(_TOOL_TABLE)
        call_id = self.next_call_id()
        r = rnd()
        if name == "Read":
            path = self.path()
            if r < 0.03:
                return (
                    name,
                    call_id,
                    {"file_path": path},
                    (
                        8,
                        "",
                        None,
                        f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'",
                    ),
                )
            pool = self.py_reads if path.endswith(".py") else self.text_reads
            return (
                name,
                call_id,
                {"file_path": path},
                (5 + int(rnd() * 60), self.pick(pool), None, None),
            )
        if name == "Edit":
            path = self.path()
            old, new = self.pick(_EDITS)
            args = {"file_path": path, "old_string": old, "new_string": new}
            if r < 0.08:
                return (
                    name,
                    call_id,
                    args,
                    (
                        6,
                        "",
                        None,
                        f"String to replace not found in file.\nString: {old}",
                    ),
                )
            self.edited.append(path.rsplit("/", 1)[-1])
            if self.failing and rnd() < 0.3:
                self.failing -= 1
            snippet = _number_lines((new, "", "    return result"), 40 + int(rnd() * 100))
            result = (
                f"The file {path} has been updated. Here's the result of running `cat -n` on a "
                f"snippet of the edited file:\n{snippet}"
            )
            return name, call_id, args, (10 + int(rnd() * 40), result, None, None)
        if name == "Write":
            path = f"{self.root}/tests/test_{self.pick(_TEST_NAMES)[5:]}.py"
            args = {"file_path": path, "content": self.pick(self.write_bodies)}
            if r < 0.02:
                return (
                    name,
                    call_id,
                    args,
                    (
                        4,
                        "",
                        None,
                        f"PermissionError: [Errno 13] Permission denied: '{path}'",
                    ),
                )
            self.edited.append(path.rsplit("/", 1)[-1])
            return name, call_id, args, (8, _TOOL_RESULT_WRITE.format(path=path), None, None)
        if name == "Bash":
            return (name, call_id, *self.bash(command))
        if name == "Grep":
            pattern = self.pick(_GREP_PATTERNS)
            where = self.pick(("src", "src", "tests", "."))
            args = {
                "pattern": pattern,
                "path": f"{self.root}/{where}" if where != "." else self.root,
            }
            if r < 0.15:
                return name, call_id, args, (40, "No files found", None, None)
            hits = sorted(
                {f"{self.root}/{self.pick(self.area_paths)}" for _ in range(1 + int(rnd() * 5))}
            )
            result = f"Found {len(hits)} file{'s' if len(hits) > 1 else ''}\n" + "\n".join(hits)
            return name, call_id, args, (20 + int(rnd() * 200), result, None, None)
        if name == "Glob":
            pattern = self.pick(_GLOB_PATTERNS)
            count = 2 + int(rnd() * 25)
            paths = [p for area in _AREA_PATHS.values() for p in area]
            start = int(rnd() * len(paths))
            result = "\n".join(
                f"{self.root}/{paths[(start + i) % len(paths)]}" for i in range(count)
            )
            return name, call_id, {"pattern": pattern}, (15 + int(rnd() * 80), result, None, None)
        if name == "LS":
            directory = self.pick(("src", "tests", "src/auth", "src/api", "migrations/versions"))
            entries = sorted({p.rsplit("/", 1)[-1] for p in self.area_paths})
            result = f"- {self.root}/{directory}/\n" + "\n".join(f"  - {e}" for e in entries)
            args = {"path": f"{self.root}/{directory}"}
            return name, call_id, args, (5 + int(rnd() * 20), result, None, None)
        if name == "TodoWrite":
            return name, call_id, {"todos": self.update_todos()}, (4, _TOOL_RESULT_TODO, None, None)
        # Task: a sub-agent, slow and wordy.
        description, prompt = self.pick(_TASKS)
        args = {"description": description, "prompt": prompt}
        if r < 0.04:
            return (
                name,
                call_id,
                args,
                (
                    120_000,
                    "",
                    None,
                    "TimeoutError: sub-agent did not finish within 120 s",
                ),
            )
        lines = [
            f"- {self.root}/{self.pick(self.area_paths)}:{10 + int(rnd() * 300)}" for _ in range(6)
        ]
        result = f"I looked into it: {description.lower()}.\nFindings:\n" + "\n".join(lines)
        return name, call_id, args, (20_000 + int(rnd() * 100_000), result, None, None)

    def update_todos(self) -> list[Event]:
        rnd = self.random
        if not self.todos:
            # A plan in the usual order: read, then some of the middle steps, then verify.
            middle = [step for step in _TODO_STEPS[1:-2] if rnd() < 0.5] or [_TODO_STEPS[2]]
            chosen = [_TODO_STEPS[0], *middle, _TODO_STEPS[-2]]
            self.todos = [[content, "pending", active] for content, active in chosen]
            self.todos[0][1] = "in_progress"
        else:
            # Close the item in progress and start the next one.
            for i, todo in enumerate(self.todos):
                if todo[1] == "in_progress":
                    todo[1] = "completed"
                    if i + 1 < len(self.todos):
                        self.todos[i + 1][1] = "in_progress"
                    break
            else:
                if all(t[1] == "completed" for t in self.todos):
                    self.todos = []
                    return self.update_todos()
                for todo in self.todos:
                    if todo[1] == "pending":
                        todo[1] = "in_progress"
                        break
        return [{"content": c, "status": s, "activeForm": a} for c, s, a in self.todos]

    def bash(self, command: str | None) -> tuple[Event, tuple[int, str, int | None, str | None]]:
        rnd = self.random
        r = rnd()
        if command is None and r < 0.03:
            cmd = "pytest -q tests/"
            return {"command": cmd}, (120_000, "", None, "Command timed out after 2m 0.0s")
        if command == "pytest" or r < 0.45:
            return self.pytest()
        if r < 0.52:
            cmd = "pip install -e '.[dev]'"
            text = self.pick(self.pip_outputs).replace("{root}", self.root)
            return {"command": cmd, "description": "Install the package"}, (
                4_000 + int(rnd() * 20_000),
                text,
                0,
                None,
            )
        cmd, template, code = self.pick(_STATIC_BASH)
        p1 = self.pick(self.area_paths)
        p2 = self.pick(self.area_paths)
        text = template.format(p1=p1, p2=p2, root=self.root)
        return {"command": cmd}, (300 + int(rnd() * 3_000), text, code, None)

    def pytest(self) -> tuple[Event, tuple[int, str, int | None, str | None]]:
        rnd = self.random
        tests = [p for p in self.area_paths if p.startswith("tests/")]
        if rnd() < 0.5 and tests:
            target = tests[0]
            total = 12 + int(rnd() * 30)
        else:
            target = ""
            total = 180 + int(rnd() * 30)
        cmd = self.pick(("pytest -q", "python -m pytest -q", "make test"))
        if target:
            cmd = f"{cmd.replace('make test', 'pytest -q')} {target}"
        failed = min(self.failing, total)
        seconds = f"{0.4 + rnd() * (2 if target else 30):.2f}s"
        parts = [f"{failed} failed, " if failed else "", f"{total - failed} passed in {seconds}"]
        summary = f" {''.join(parts)} ".center(80, "=")
        where = target or "tests/test_api.py"
        lines = []
        if failed:
            lines.append(" FAILURES ".center(80, "="))
            shown = []
            for i in range(failed):
                test = _TEST_NAMES[(int(rnd() * len(_TEST_NAMES)) + i) % len(_TEST_NAMES)]
                error = self.pick(_ASSERTIONS)
                shown.append((test, error))
                lines += [
                    f" {test} ".center(80, "_"),
                    "",
                    f"    def {test}(client):",
                    ">       assert response.status_code == 200",
                    f"E       {error}",
                    "",
                    f"{where}:{20 + int(rnd() * 200)}: {error.split(':')[0]}",
                ]
            lines.append(" short test summary info ".center(80, "="))
            lines += [f"FAILED {where}::{t} - {e}" for t, e in shown]
        dots = "." * min(total - failed, 60) + "F" * failed
        text = "\n".join([f"{dots} [100%]", *lines, summary])
        return {"command": cmd, "description": "Run the tests"}, (
            int(float(seconds[:-1]) * 1000) + 800,
            text,
            1 if failed else 0,
            None,
        )

    # -- how runs end -----------------------------------------------------------------------

    def finish(self) -> Iterator[list[Event]]:
        rnd = self.random
        if self.run_no == 1 or rnd() < 0.35:
            # The model declares victory, the stop hook sends it back to verify.
            yield [
                self.message("assistant", "The change is complete.", 3_000 + int(rnd() * 6_000)),
                self.transition(
                    "calling_model",
                    "calling_model",
                    "stop_hook_blocking",
                    {
                        "completion_verdict": "fail",
                        "reasons": ["verification_invalid:tests"],
                        "retry_count": 1,
                        "retry_limit": 2,
                    },
                ),
                self.message(
                    "user", self.pick(_GATE_MESSAGES), 50, metadata={"source": "completion_gate"}
                ),
            ]
            self.step += 1
        self.failing = 0
        yield self.tool_turn(forced="Bash", command="pytest")
        self.step += 1
        paths = ", ".join(self.edited) or "the code"
        text = self.pick(_FINALS).format(
            request_lc=self.request[0].lower() + self.request[1:].rstrip("."),
            paths=paths,
            passed=180 + int(rnd() * 30),
        )
        yield [
            self.message(
                "assistant", text, 3_000 + int(rnd() * 10_000), metadata={"action_type": "final"}
            ),
            self.transition("calling_model", "idle", "model_returned_final", {}),
            self.event("terminal", {"reason": "completed", "details": {"steps": self.step}}, 2),
        ]

    def stop_at_max_steps(self) -> list[Event]:
        # The model asked for another call on its last allowed step; the loop stops before
        # running it, so the call stays requested and never starts.
        name, call_id, args, _ = self.tool_call(self.pick(("Edit", "Bash", "Read")))
        return [
            self.transition(
                "calling_model", "executing_tools", "model_returned_tool_calls", {"tool_calls": 1}
            ),
            self.event(
                "tool_lifecycle",
                {"tool_name": name, "tool_call_id": call_id, "status": "requested", "args": args},
                1,
            ),
            self.transition(
                "executing_tools", "idle", "max_steps_reached", {"max_steps": self.step}
            ),
            self.event("terminal", {"reason": "max_steps", "details": {"max_steps": self.step}}, 2),
        ]

    def fail_recovery(self) -> list[Event]:
        error = self.pick(_RECOVERY_ERRORS)
        return [
            self.transition(
                "calling_model", "error", "model_recovery_failed", {"error": error, "attempts": 3}
            ),
            self.event("terminal", {"reason": "error", "details": {"error": error}}, 2),
        ]

    def interrupt(self) -> list[Event]:
        # The user pressed Esc while a side-effecting call was running: it was started and
        # never completed, so nobody knows whether it took effect.
        name, call_id, args, _ = self.tool_call(self.pick(("Edit", "Bash")))
        transition = self.transition(
            "calling_model", "executing_tools", "model_returned_tool_calls", {"tool_calls": 1}
        )
        requested = self.event(
            "tool_lifecycle",
            {"tool_name": name, "tool_call_id": call_id, "status": "requested", "args": args},
            1,
        )
        return [
            transition,
            requested,
            self.event(
                "tool_lifecycle",
                {"tool_name": name, "tool_call_id": call_id, "status": "started", "args": args},
                3,
                requested["event_id"],
            ),
            self.event(
                "terminal",
                {"reason": "interrupted", "details": {"by": "user"}},
                1_000 + int(self.random() * 20_000),
            ),
        ]


def generate_events(n_events: int, seed: int = 0, *, session_id: str = "s-demo") -> Iterator[Event]:
    """Yield exactly ``n_events`` native transcript events, deterministically from ``seed``.

    The stream holds one turn (a few events) at a time, so memory does not grow with
    ``n_events``; the last run is cut off wherever ``n_events`` falls, as a live transcript is.
    """
    if n_events < 0:
        raise ValueError(f"n_events must be >= 0, not {n_events}")
    remaining = n_events
    if remaining == 0:
        return
    for chunk in _Session(seed, session_id).runs():
        for event in chunk:
            yield event
            remaining -= 1
            if remaining == 0:
                return


def write_transcript(
    path: str | os.PathLike[str], n_events: int, seed: int = 0, *, session_id: str = "s-demo"
) -> int:
    """Write a generated transcript as JSONL (one object per line); return the bytes written."""
    dumps = orjson.dumps
    option = orjson.OPT_APPEND_NEWLINE
    written = 0
    with open(path, "wb") as out:
        for event in generate_events(n_events, seed, session_id=session_id):
            written += out.write(dumps(event, option=option))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: write a sample transcript."""
    parser = argparse.ArgumentParser(description="Generate a realistic native transcript.")
    parser.add_argument("--events", type=int, default=DEFAULT_EVENTS, help="number of events")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    parser.add_argument("--out", default=DEFAULT_OUT, help="output path (JSONL)")
    parser.add_argument("--session-id", default="s-demo", help="session_id of every event")
    args = parser.parse_args(argv)
    if args.events < 0:
        parser.error("--events must be >= 0")
    size = write_transcript(args.out, args.events, args.seed, session_id=args.session_id)
    print(f"wrote {args.events} events ({size} bytes) to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
