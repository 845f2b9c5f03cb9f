"""Tests for session_memory.redact: secret redaction.

Every fake secret is assembled at run time from pieces and seeded random characters, so no
realistic credential is written in this file and secret scanners have nothing to find.
"""

from __future__ import annotations

import base64
import random
import string
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_memory.redact import REDACTION_KINDS, redact_secrets

_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "-_"


def _fake(n: int, alphabet: str = _ALNUM, seed: int = 0) -> str:
    """n seeded random characters, with a digit and both cases where the alphabet has them."""
    rng = random.Random(f"{seed}-{n}-{alphabet}")
    wants = [set(string.digits), set(string.ascii_lowercase), set(string.ascii_uppercase)]
    wants = [chars for chars in wants if chars & set(alphabet)]
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if all(chars & set(value) for chars in wants):
            return value


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _jwt(seed: int) -> str:
    header = _b64url(b'{"alg":"HS256","typ":"JWT"}')
    payload = _b64url(b'{"sub":"' + str(seed).encode() + b'","name":"Ada","iat":1516239022}')
    return f"{header}.{payload}.{_fake(43, _URLSAFE, seed)}"


_BEGIN = "-----" + "BEGIN"
_END = "-----" + "END"
_PK = "PRIVATE" + " KEY-----"
_PEM_BODY = "\n".join(_fake(64, _B64, i) for i in range(4))
_PEM_RSA = f"{_BEGIN} RSA {_PK}\n{_PEM_BODY}\n{_END} RSA {_PK}"
_PEM_TRUNCATED = f"{_BEGIN} OPENSSH {_PK}\n{_PEM_BODY}"  # END line lost in a cut output
_BASIC = base64.b64encode(b"deploy:" + _fake(14, seed=7).encode()).decode()

# (kind, secret value, sentence with {} where the value goes)
SECRETS: list[tuple[str, str, str]] = [
    ("aws-access-key", "AKIA" + _fake(16, _UPPER, 1), "export AWS_ACCESS_KEY_ID={}"),
    ("aws-access-key", "ASIA" + _fake(16, _UPPER, 2), '{{"AccessKeyId": "{}", "Expiration": 1}}'),
    ("aws-secret-key", _fake(40, _B64, 3), "aws_secret_access_key = {}"),
    ("aws-secret-key", _fake(40, _B64, 4), '{{"SecretAccessKey": "{}"}}'),
    ("aws-secret-key", _fake(40, _B64, 5), "aws configure set aws_secret_access_key {}"),
    ("github-token", "ghp_" + _fake(36, seed=6), "git clone https://{}@github.com/acme/api.git"),
    ("github-token", "gho_" + _fake(36, seed=7), "The OAuth app returned {} for the user."),
    ("github-token", "ghs_" + _fake(36, seed=8), "export GITHUB_TOKEN={}"),
    ("github-token", "ghu_" + _fake(36, seed=9), "user-to-server token {} expired"),
    ("github-token", "ghr_" + _fake(36, seed=10), "refresh with {} now"),
    (
        "github-token",
        "github_pat_" + _fake(22, seed=11) + "_" + _fake(59, seed=12),
        "gh auth login --with-token <<< {}",
    ),
    (
        "anthropic-key",
        "sk-ant-api03-" + _fake(93, _URLSAFE, 13) + "AA",
        "ANTHROPIC_API_KEY={} python run.py",
    ),
    ("anthropic-key", "sk-ant-admin01-" + _fake(80, _URLSAFE, 14), "x-api-key: {}"),
    ("openai-key", "sk-" + _fake(48, seed=15), "Using key {} for the completion call."),
    ("openai-key", "sk-proj-" + _fake(156, _URLSAFE, 16), 'client = OpenAI(api_key="{}")'),
    ("openai-key", "sk-svcacct-" + _fake(64, _URLSAFE, 17), "OPENAI_API_KEY: {}"),
    (
        "slack-token",
        "xoxb-"
        + _fake(12, string.digits, 18)
        + "-"
        + _fake(13, string.digits, 19)
        + "-"
        + _fake(24, seed=20),
        "SLACK_BOT={} ./notify.sh",
    ),
    ("slack-token", "xoxp-" + _fake(11, string.digits, 21) + "-" + _fake(32, seed=22), "a {} b"),
    ("slack-token", "xoxa-2-" + _fake(40, seed=23), "legacy workspace token {}."),
    ("slack-token", "xoxs-" + _fake(30, seed=24), "session cookie value {}"),
    (
        "slack-token",
        "T0" + _fake(8, _UPPER, 25) + "/B0" + _fake(8, _UPPER, 26) + "/" + _fake(24, seed=27),
        "curl -X POST https://hooks.slack.com/services/{} -d @msg.json",
    ),
    ("google-api-key", "AIza" + _fake(35, _URLSAFE, 28), "maps.googleapis.com/api?key={}&q=x"),
    ("stripe-key", "sk_" + "live_" + _fake(24, seed=29), "stripe.api_key = '{}'"),
    ("stripe-key", "rk_" + "live_" + _fake(99, seed=30), "restricted key {} rotated"),
    ("jwt", _jwt(31), "the session cookie was {}; it expires soon"),
    ("private-key", _PEM_BODY, f"wrote id_rsa:\n{_PEM_RSA.replace(_PEM_BODY, '{}')}\ndone"),
    ("private-key", _PEM_BODY, f"cat key.pem | head\n{_PEM_TRUNCATED.replace(_PEM_BODY, '{}')}"),
    ("url-password", _fake(16, seed=32), "psql postgres://app:{}@db.internal:5432/app"),
    ("url-password", _fake(20, seed=33), "REDIS_URL=redis://:{}@cache.internal:6379/0"),
    ("url-password", _fake(12, seed=34), "pip install -i https://ci:{}@pkgs.example.com/simple x"),
    ("bearer-token", _fake(32, seed=35) + "." + _fake(8, seed=36), "-H 'Authorization: Bearer {}'"),
    ("bearer-token", _BASIC, 'curl -H "Authorization: Basic {}" https://api.example.com'),
    ("bearer-token", _fake(40, _URLSAFE, 37), "request sent with Bearer {} and 200 OK"),
    ("password", _fake(14, seed=38), '{{"username": "ada", "password": "{}"}}'),
    ("password", _fake(12, seed=39), "export DB_PASSWORD={}"),
    ("password", _fake(10, seed=40), "  passwd: {}"),
    ("password", _fake(18, seed=41), "mysql -u root --password {} -e 'select 1'"),
    ("password", _fake(22, seed=42), "passphrase = '{}'"),
    ("secret", _fake(30, seed=43), "secret={}"),
    ("secret", _fake(40, _URLSAFE, 44), '"client_secret": "{}",'),
    ("secret", _fake(32, seed=45), 'api_key = "{}"'),
    ("secret", _fake(32, seed=46), "apikey: {}"),
    ("token", _fake(24, seed=47), "GET /callback?access_token={}&state=xyz"),
    ("token", _fake(28, seed=48), "export FOO_TOKEN={}"),
    ("token", _fake(20, seed=49), "token = '{}'"),
]

ORDINARY: list[str] = [
    "3f786850e387550fdab836ed7e6dc881de23001b",  # git SHA
    "commit 3f78685 and a1b2c3d4e5f6 on main",  # short SHAs
    "550e8400-e29b-41d4-a716-446655440000",  # UUID
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/app.tar.gz",
    '"integrity": "sha512-'
    + "v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+susLBo+Cu/qq4wX6cMZCF1jUjiCsTXkOrmo8Qrg=="
    + '"',
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    "the tokenizer splits text into tokens",
    "max_tokens=4096, prompt_tokens: 812",
    "token_count = 5",
    "views/password_reset_view.py",
    "src/auth/token_service.py and tests/test_secret_rotation.py",
    "released 1.2.3-rc.1+build.5",
    "https://github.com/acme/api/pull/123#issuecomment-99",
    "ssh://git@github.com/acme/api.git",
    "http://localhost:8080/health",
    "arn:aws:iam::123456789012:role/deploy",
    "def get_token(self) -> str:",
    "self.token = token",
    "if password == expected_password:",
    "def login(user: str, password: str) -> bool:",
    "client = OpenAI(api_key=os.environ['OPENAI_API_KEY'])",
    "Bearer authentication is configured in settings.py",
    "ask-the-user-for-confirmation-before-deleting",
    "scikit-learn and sk-learn are different names",
    "eyJhbGciOiJIUzI1NiJ9 is only a header",
    "14 passed, 2 failed in 0.52s",
    "cat: /etc/passwd: Permission denied",
    "Unexpected token: }",
    "SyntaxError: Unexpected token '<'",
    "2026-08-25T10:00:00Z fe80::1 #ff0000",
    "secretName: tls-cert",
    "Authorization header missing",
    "the AKIA prefix marks an access key id",
    "user@example.com wrote to ops@example.com",
]


class TestRedactSecrets:
    @pytest.mark.parametrize(("kind", "value", "sentence"), SECRETS)
    def test_secret_is_replaced_by_its_kind(self, kind: str, value: str, sentence: str) -> None:
        """A planted secret never survives and its kind's marker appears."""
        text = sentence.format(value)
        out = redact_secrets(text)
        for line in value.splitlines():
            assert line not in out
        assert f"[redacted:{kind}]" in out

    def test_corpus_is_large_and_covers_every_kind(self) -> None:
        """The corpus has at least 30 secrets and exercises every redaction kind."""
        assert len(SECRETS) >= 30
        assert {kind for kind, _v, _s in SECRETS} == set(REDACTION_KINDS)

    @pytest.mark.parametrize("text", ORDINARY)
    def test_ordinary_identifier_is_untouched(self, text: str) -> None:
        """Hashes, ids, paths, versions and code without secrets come back unchanged."""
        assert redact_secrets(text) == text

    def test_ordinary_corpus_is_large(self) -> None:
        """The corpus has at least 30 ordinary identifiers."""
        assert len(ORDINARY) >= 30

    def test_url_password_keeps_scheme_user_and_host(self) -> None:
        """Only the password of a URL is redacted."""
        out = redact_secrets("postgres://app:" + _fake(12) + "@db.internal:5432/app")
        assert out == "postgres://app:[redacted:url-password]@db.internal:5432/app"

    def test_assignment_keeps_key_name_and_quotes(self) -> None:
        """The key name and the quotes around a value stay; only the value is replaced."""
        out = redact_secrets('{"password": "' + _fake(9) + '", "user": "ada"}')
        assert out == '{"password": "[redacted:password]", "user": "ada"}'

    def test_recognised_value_keeps_its_specific_kind(self) -> None:
        """A value that is itself a known secret is labelled with that kind, not the key's."""
        assert redact_secrets("GITHUB_TOKEN=ghp_" + _fake(36)) == (
            "GITHUB_TOKEN=[redacted:github-token]"
        )

    def test_anthropic_key_is_not_labelled_openai(self) -> None:
        """Anthropic keys start with sk- too; the anthropic rule is tried first."""
        assert redact_secrets("sk-ant-api03-" + _fake(90, _URLSAFE)) == "[redacted:anthropic-key]"

    def test_private_key_block_ends_at_its_end_line(self) -> None:
        """Text after the END line of a PEM block survives."""
        out = redact_secrets(f"before\n{_PEM_RSA}\nafter")
        assert out == "before\n[redacted:private-key]\nafter"

    def test_private_key_without_end_line_is_redacted_to_the_end(self) -> None:
        """A PEM block whose END line is missing is redacted to the end of the text."""
        assert redact_secrets(f"key:\n{_PEM_TRUNCATED}\nmore") == "key:\n[redacted:private-key]"

    def test_small_number_value_is_kept(self) -> None:
        """A bare integer of at most three digits is code (a count or an index), not a secret."""
        assert redact_secrets("token = 0") == "token = 0"

    def test_longer_number_value_is_redacted(self) -> None:
        """A four-digit value can be a PIN, so it is redacted."""
        assert redact_secrets("password=4821") == "password=[redacted:password]"

    def test_variable_named_after_the_secret_is_kept(self) -> None:
        """Passing a variable named like the secret is a reference, not the secret."""
        assert redact_secrets("Client(api_key=api_key)") == "Client(api_key=api_key)"

    @pytest.mark.parametrize("value", ["mypassword123", "monkey", "tokenize1", "passw0rd"])
    def test_word_merely_containing_a_secret_word_is_redacted(self, value: str) -> None:
        """Only a name whose last component is a secret word counts as a variable."""
        assert redact_secrets(f"password={value}") == "password=[redacted:password]"

    @pytest.mark.parametrize("value", ["API_KEY", "apiKey", "_token", "auth_token", "password"])
    def test_variables_named_after_secrets_are_kept(self, value: str) -> None:
        """``x = api_key``-style references to a variable stay readable."""
        assert redact_secrets(f"api_key = {value}") == f"api_key = {value}"

    def test_call_and_attribute_values_are_kept(self) -> None:
        """Calls, indexes and attributes of well-known objects are code."""
        text = "token = get_token(); pw = settings.SECRET_KEY; password = self.password"
        assert redact_secrets(text) == text

    def test_plain_word_value_is_redacted(self) -> None:
        """An unquoted word after a secret key is taken as the secret."""
        assert redact_secrets("password: hunter2") == "password: [redacted:password]"

    def test_type_annotation_is_kept_and_default_redacted(self) -> None:
        """In ``token: str = "..."`` the type stays and the literal default is redacted."""
        out = redact_secrets('token: str = "' + _fake(12) + '"')
        assert out == 'token: str = "[redacted:token]"'

    def test_references_and_masks_are_kept(self) -> None:
        """Environment references, templates and masks are not secrets."""
        text = 'password: "${DB_PASSWORD}" token="{{ secrets.T }}" secret=****'
        assert redact_secrets(text) == text

    def test_kept_value_still_loses_embedded_secret(self) -> None:
        """A value kept as code is still scanned for specific secrets."""
        out = redact_secrets("token = wrap(ghp_" + _fake(36) + ")")
        assert out == "token = wrap([redacted:github-token])"

    def test_token_as_url_user_is_redacted(self) -> None:
        """A token used as the user of a URL is redacted along with the password."""
        token = "ghp_" + _fake(36)
        out = redact_secrets(f"git remote add o https://{token}:x-oauth-basic@github.com/a/b")
        assert out == (
            "git remote add o https://[redacted:github-token]:[redacted:url-password]"
            "@github.com/a/b"
        )

    def test_secret_in_kept_context_is_redacted(self) -> None:
        """Text a rule keeps around a value is still scanned for specific secrets."""
        key = "AKIA" + _fake(16, _UPPER)
        out = redact_secrets(f"password: {key}={key}")
        assert key not in out
        assert redact_secrets(out) == out

    def test_key_name_next_to_a_replaced_secret_is_stable(self) -> None:
        """A flag glued to a redacted key gives the same result when redacted again."""
        key = "AKIA" + _fake(16, _UPPER)
        once = redact_secrets(f"{key}--password\tAuthorization /{key}-passwd: x")
        assert key not in once
        assert redact_secrets(once) == once

    def test_bearer_before_variable_is_kept(self) -> None:
        """``Bearer $TOKEN`` names a variable; there is nothing to redact."""
        text = 'curl -H "Authorization: Bearer $TOKEN" https://api.example.com'
        assert redact_secrets(text) == text

    @given(st.text(alphabet=st.characters(exclude_categories=())))
    def test_total_on_any_text(self, text: str) -> None:
        """Any str, lone surrogates included, gives a str."""
        assert isinstance(redact_secrets(text), str)

    @given(st.text(alphabet=st.characters(exclude_categories=())))
    def test_idempotent_on_any_text(self, text: str) -> None:
        """Redacting twice equals redacting once."""
        once = redact_secrets(text)
        assert redact_secrets(once) == once

    @given(
        st.lists(
            st.sampled_from(
                [
                    *(value for _k, value, _s in SECRETS[:25]),
                    "password",
                    "token",
                    "api_key",
                    "Authorization",
                    "Bearer",
                    "--password",
                    "postgres://u",
                    "@host",
                    "[redacted:token]",
                    "=",
                    ": ",
                    ":",
                    '"',
                    "'",
                    " ",
                    "\n",
                    "\\",
                    "x",
                    "self.",
                    "(",
                    "$",
                    "123",
                    _BEGIN,
                    _PK,
                ]
            ),
            max_size=12,
        ).map("".join)
    )
    @settings(max_examples=500)
    def test_idempotent_on_secret_shaped_text(self, text: str) -> None:
        """Redacting twice equals once, also for text built from secret-shaped pieces."""
        once = redact_secrets(text)
        assert redact_secrets(once) == once

    @pytest.mark.slow
    @pytest.mark.parametrize(
        "piece",
        [
            "a",
            _BEGIN + " ",
            "eyJ",
            "eyJaaaaa.",
            "password=",
            "password: [",
            "token: str | ",
            '\\"password\\":',
            "://:",
            "a://b:",
            "sk-",
            "Bearer ",
            "Authorization: ",
            "--password ",
            "aws_secret ",
            "xox",
            "AKIA",
            "api",
            '"',
        ],
    )
    def test_one_megabyte_adversarial_text_is_fast(self, piece: str) -> None:
        """A 1 MB repetition of a rule's prefix is redacted in well under a few seconds."""
        text = (piece * (1_000_000 // len(piece) + 1))[:1_000_000]
        started = time.perf_counter()
        redact_secrets(text)
        assert time.perf_counter() - started < 5.0
