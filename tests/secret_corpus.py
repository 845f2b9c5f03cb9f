"""A corpus of fake secrets of many kinds, and of ordinary strings that must survive.

Every fake secret is assembled at run time from pieces and seeded random characters, so no
realistic credential is written in this file and secret scanners have nothing to find. Each
entry is ``(kind, value, sentence)``: the kind of ``[redacted:<kind>]`` marker expected, the
secret itself (which must appear in no output), and a realistic line with ``{}`` where the
secret goes. Formats follow each provider's documentation of its tokens.
"""

from __future__ import annotations

import base64
import random
import string

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def fake(n: int, alphabet: str = ALNUM, seed: int = 0) -> str:
    """n seeded random characters, with a digit and both cases where the alphabet has them."""
    rng = random.Random(f"{seed}-{n}-{alphabet}")
    wants = [set(string.digits), set(string.ascii_lowercase), set(string.ascii_uppercase)]
    wants = [chars for chars in wants if chars & set(alphabet)]
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if all(chars & set(value) for chars in wants):
            return value


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def jwt(seed: int) -> str:
    header = b64url(b'{"alg":"HS256","typ":"JWT"}')
    payload = b64url(b'{"sub":"' + str(seed).encode() + b'","name":"Ada","iat":1516239022}')
    return f"{header}.{payload}.{fake(43, URLSAFE, seed)}"


BEGIN = "-----" + "BEGIN"
END = "-----" + "END"
PK = "PRIVATE" + " KEY-----"
PEM_BODY = "\n".join(fake(64, B64, i) for i in range(4))
PEM_RSA = f"{BEGIN} RSA {PK}\n{PEM_BODY}\n{END} RSA {PK}"
PEM_TRUNCATED = f"{BEGIN} OPENSSH {PK}\n{PEM_BODY}"  # END line lost in a cut output
BASIC = base64.b64encode(b"deploy:" + fake(14, seed=7).encode()).decode()

# (kind, secret value, sentence with {} where the value goes)
SECRETS: list[tuple[str, str, str]] = [
    ("aws-access-key", "AKIA" + fake(16, UPPER, 1), "export AWS_ACCESS_KEY_ID={}"),
    ("aws-access-key", "ASIA" + fake(16, UPPER, 2), '{{"AccessKeyId": "{}", "Expiration": 1}}'),
    ("aws-secret-key", fake(40, B64, 3), "aws_secret_access_key = {}"),
    ("aws-secret-key", fake(40, B64, 4), '{{"SecretAccessKey": "{}"}}'),
    ("aws-secret-key", fake(40, B64, 5), "aws configure set aws_secret_access_key {}"),
    ("github-token", "ghp_" + fake(36, seed=6), "git clone https://{}@github.com/acme/api.git"),
    ("github-token", "gho_" + fake(36, seed=7), "The OAuth app returned {} for the user."),
    ("github-token", "ghs_" + fake(36, seed=8), "export GITHUB_TOKEN={}"),
    ("github-token", "ghu_" + fake(36, seed=9), "user-to-server token {} expired"),
    ("github-token", "ghr_" + fake(36, seed=10), "refresh with {} now"),
    (
        "github-token",
        "github_pat_" + fake(22, seed=11) + "_" + fake(59, seed=12),
        "gh auth login --with-token <<< {}",
    ),
    (
        "anthropic-key",
        "sk-ant-api03-" + fake(93, URLSAFE, 13) + "AA",
        "ANTHROPIC_API_KEY={} python run.py",
    ),
    ("anthropic-key", "sk-ant-admin01-" + fake(80, URLSAFE, 14), "x-api-key: {}"),
    ("openai-key", "sk-" + fake(48, seed=15), "Using key {} for the completion call."),
    ("openai-key", "sk-proj-" + fake(156, URLSAFE, 16), 'client = OpenAI(api_key="{}")'),
    ("openai-key", "sk-svcacct-" + fake(64, URLSAFE, 17), "OPENAI_API_KEY: {}"),
    (
        "slack-token",
        "xoxb-"
        + fake(12, string.digits, 18)
        + "-"
        + fake(13, string.digits, 19)
        + "-"
        + fake(24, seed=20),
        "SLACK_BOT={} ./notify.sh",
    ),
    ("slack-token", "xoxp-" + fake(11, string.digits, 21) + "-" + fake(32, seed=22), "a {} b"),
    ("slack-token", "xoxa-2-" + fake(40, seed=23), "legacy workspace token {}."),
    ("slack-token", "xoxs-" + fake(30, seed=24), "session cookie value {}"),
    (
        "slack-token",
        "T0" + fake(8, UPPER, 25) + "/B0" + fake(8, UPPER, 26) + "/" + fake(24, seed=27),
        "curl -X POST https://hooks.slack.com/services/{} -d @msg.json",
    ),
    ("google-api-key", "AIza" + fake(35, URLSAFE, 28), "maps.googleapis.com/api?key={}&q=x"),
    ("stripe-key", "sk_" + "live_" + fake(24, seed=29), "stripe.api_key = '{}'"),
    ("stripe-key", "rk_" + "live_" + fake(99, seed=30), "restricted key {} rotated"),
    ("jwt", jwt(31), "the session cookie was {}; it expires soon"),
    ("private-key", PEM_BODY, f"wrote id_rsa:\n{PEM_RSA.replace(PEM_BODY, '{}')}\ndone"),
    ("private-key", PEM_BODY, f"cat key.pem | head\n{PEM_TRUNCATED.replace(PEM_BODY, '{}')}"),
    ("url-password", fake(16, seed=32), "psql postgres://app:{}@db.internal:5432/app"),
    ("url-password", fake(20, seed=33), "REDIS_URL=redis://:{}@cache.internal:6379/0"),
    ("url-password", fake(12, seed=34), "pip install -i https://ci:{}@pkgs.example.com/simple x"),
    ("bearer-token", fake(32, seed=35) + "." + fake(8, seed=36), "-H 'Authorization: Bearer {}'"),
    ("bearer-token", BASIC, 'curl -H "Authorization: Basic {}" https://api.example.com'),
    ("bearer-token", fake(40, URLSAFE, 37), "request sent with Bearer {} and 200 OK"),
    ("password", fake(14, seed=38), '{{"username": "ada", "password": "{}"}}'),
    ("password", fake(12, seed=39), "export DB_PASSWORD={}"),
    ("password", fake(10, seed=40), "  passwd: {}"),
    ("password", fake(18, seed=41), "mysql -u root --password {} -e 'select 1'"),
    ("password", fake(22, seed=42), "passphrase = '{}'"),
    ("secret", fake(30, seed=43), "secret={}"),
    ("secret", fake(40, URLSAFE, 44), '"client_secret": "{}",'),
    ("secret", fake(32, seed=45), 'api_key = "{}"'),
    ("secret", fake(32, seed=46), "apikey: {}"),
    ("token", fake(24, seed=47), "GET /callback?access_token={}&state=xyz"),
    ("token", fake(28, seed=48), "export FOO_TOKEN={}"),
    ("token", fake(20, seed=49), "token = '{}'"),
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


HEX = "0123456789abcdef"
LETTERS = string.ascii_letters
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _discord(user_id: str, seed: int) -> str:
    head = base64.b64encode(user_id.encode()).decode().rstrip("=")
    return f"{head}.{fake(6, URLSAFE, seed)}.{fake(38, URLSAFE, seed + 1)}"


def _sas(seed: int) -> str:
    raw = base64.b64encode(random.Random(seed).randbytes(32)).decode()
    return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


_SID = "A" + "C" + fake(32, HEX, 900)  # a Twilio account SID (not itself secret)
_KEY_ID = "AK" + "IA" + fake(16, UPPER, 901)  # an AWS access key id, redacted on its own too
_PPK_PUBLIC = fake(64, B64, 902) + "\n" + fake(20, B64, 903)
_PPK_PRIVATE = fake(64, B64, 904) + "\n" + fake(64, B64, 905) + "\n" + fake(12, B64, 906)
_PPK = (
    "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: imported-openssh-key\n"
    f"Public-Lines: 2\n{_PPK_PUBLIC}\nPrivate-Lines: 3\n{{}}\nPrivate-MAC: {fake(40, HEX, 907)}"
)

# Formats added with the documented token formats of each provider (token_formats.py) and
# the context rules for passwords on command lines, connection strings and files.
MORE_SECRETS: list[tuple[str, str, str]] = [
    (
        "gitlab-token",
        "glp" + "at-" + fake(20, URLSAFE, 100),
        "git clone https://oauth2:{}@gitlab.com/acme/api.git",
    ),
    ("gitlab-token", "glr" + "t-" + fake(20, ALNUM, 101), "runner registered with {} on the host"),
    (
        "gitlab-token",
        "glp" + "at-" + fake(27, URLSAFE, 102) + ".01." + fake(9, ALNUM, 103),
        "export GITLAB_TOKEN={}",
    ),
    ("huggingface-token", "h" + "f_" + fake(34, LETTERS, 104), "huggingface-cli login --token {}"),
    ("huggingface-token", "h" + "f_" + fake(34, LETTERS, 105), "HF_TOKEN={} python train.py"),
    (
        "npm-token",
        "np" + "m_" + fake(36, ALNUM, 106),
        "echo '//registry.example.com/:_authToken={}' >> .npmrc",
    ),
    ("npm-token", "np" + "m_" + fake(36, ALNUM, 107), "the publish step uses {} from the vault"),
    (
        "pypi-token",
        "py" + "pi-AgEIcHlwaS5vcmc" + fake(70, URLSAFE, 108),
        "twine upload -u __token__ -p {} dist/*",
    ),
    (
        "pypi-token",
        "py" + "pi-AgEIcHlwaS5vcmc" + fake(70, URLSAFE, 109),
        "twine upload -u __token__ -p{} dist/*",
    ),
    (
        "pypi-token",
        "py" + "pi-AgENdGVzdC5weXBpLm9yZw" + fake(70, URLSAFE, 110),
        "[testpypi]\npassword = {}",
    ),
    (
        "sendgrid-key",
        "S" + "G." + fake(22, URLSAFE, 111) + "." + fake(43, URLSAFE, 112),
        "sg = SendGridAPIClient('{}')",
    ),
    (
        "stripe-key",
        "whs" + "ec_" + fake(32, ALNUM, 113),
        "stripe listen printed your webhook signing secret {}",
    ),
    ("stripe-key", "whs" + "ec_" + fake(32, ALNUM, 114), "STRIPE_WEBHOOK_SECRET={}"),
    (
        "mailgun-key",
        "ke" + "y-" + fake(32, HEX, 115),
        "curl -s --user 'api:{}' https://api.mailgun.net/v3/domains",
    ),
    ("mailgun-key", "ke" + "y-" + fake(32, HEX, 116), "the old mailgun key {} was rotated"),
    ("digitalocean-token", "do" + "p_v1_" + fake(64, HEX, 117), "doctl auth init -t {}"),
    ("digitalocean-token", "do" + "o_v1_" + fake(64, HEX, 118), "oauth token {} issued"),
    ("vault-token", "hv" + "s." + fake(90, URLSAFE, 119), "VAULT_TOKEN={} vault kv get secret/db"),
    (
        "vault-token",
        "hv" + "s." + fake(24, ALNUM, 120),
        "Success! You are now authenticated. token {}",
    ),
    ("linear-key", "lin" + "_api_" + fake(40, ALNUM, 121), '{{"Authorization": "{}"}}'),
    (
        "grafana-token",
        "gl" + "sa_" + fake(32, ALNUM, 122) + "_" + fake(8, HEX, 123),
        "grafana service account token {} created",
    ),
    ("grafana-token", "gl" + "c_" + fake(60, B64, 124), "GRAFANA_CLOUD_ACCESS={}"),
    ("newrelic-key", "NR" + "AK-" + fake(27, UPPER, 125), "NEW_RELIC_API_KEY={} newrelic apm"),
    (
        "postman-key",
        "PM" + "AK-" + fake(24, HEX, 126) + "-" + fake(34, HEX, 127),
        "newman run c.json --postman-api-key {}",
    ),
    (
        "atlassian-token",
        "AT" + "ATT3xFfGF0" + fake(170, URLSAFE, 128) + "=" + fake(8, HEX, 129),
        "curl -u ada@example.com:{} https://acme.atlassian.net/rest/api/3/myself",
    ),
    ("atlassian-token", "AT" + "ATT3xFfGF0" + fake(170, URLSAFE, 130), "jira token {}"),
    ("square-token", "EA" + "AA" + fake(60, URLSAFE, 131), "SQUARE_ACCESS_TOKEN={}"),
    ("square-token", "sq0" + "csp-" + fake(43, URLSAFE, 132), "application secret {} (production)"),
    (
        "age-key",
        "AGE-" + "SECRET-KEY-1" + fake(58, BECH32, 133),
        "age -d -i key.txt; key.txt holds {}",
    ),
    ("discord-token", _discord("123456789012345678", 134), "client.run('{}')"),
    ("discord-token", _discord("9876543210987654321", 135), 'bot.run("{}")  # prod bot'),
    (
        "telegram-token",
        "A" + "A" + fake(33, URLSAFE, 136),
        "curl https://api.telegram.org/bot123456789:{}/getMe",
    ),
    ("telegram-token", "A" + "A" + fake(33, URLSAFE, 137), "bot = Bot('5123456789:{}')"),
    ("google-oauth-token", "1//" + "0" + fake(100, URLSAFE, 138), "refresh_token: {}"),
    ("google-oauth-token", "ya" + "29." + fake(150, URLSAFE, 139), "Authorization: Bearer {}"),
    (
        "google-oauth-token",
        "1//" + "0" + fake(60, URLSAFE, 140),
        "gcloud printed {} as the refresh token",
    ),
    (
        "azure-key",
        fake(86, B64, 141) + "==",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={};EndpointSuffix=core.windows.net",
    ),
    (
        "azure-key",
        fake(43, B64, 142) + "=",
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={}",
    ),
    (
        "azure-sas",
        _sas(143),
        "az storage blob download --sas-token 'sv=2022-11-02&ss=b&sp=r&sig={}'",
    ),
    (
        "azure-sas",
        _sas(144),
        "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sr=b&sp=r&sig={}",
    ),
    ("password", fake(14, ALNUM, 145), "mysql -u root -p{} -h db.internal shop"),
    ("password", fake(12, ALNUM, 146), "mysqldump -uroot -p'{}' shop > shop.sql"),
    ("password", fake(16, ALNUM, 147), "curl -u admin:{} https://jenkins.internal/api/json"),
    ("password", fake(16, ALNUM, 148), "curl --user deploy:{} -X POST https://ci.internal/build"),
    ("password", fake(12, ALNUM, 149), "sshpass -p {} ssh deploy@10.0.0.5 uptime"),
    ("password", fake(12, ALNUM, 150), "sshpass -p'{}' scp build.tgz deploy@10.0.0.5:"),
    ("password", fake(18, ALNUM, 151), "docker login -u ci -p {} registry.example.com"),
    ("password", fake(18, ALNUM, 152), "podman login --username ci -p {} quay.example.com"),
    ("password", fake(12, ALNUM, 153), "htpasswd -bc /etc/nginx/.htpasswd admin {}"),
    ("password", fake(12, ALNUM, 154), "htpasswd -nbB admin {}"),
    ("twilio-token", fake(32, HEX, 155), f'client = Client("{_SID}", "{{}}")'),
    ("twilio-token", fake(32, HEX, 156), f"curl -X POST https://api.twilio.com -u {_SID}:{{}}"),
    (
        "private-key",
        base64.b64encode(PEM_RSA.encode()).decode(),
        "users:\n- name: admin\n  user:\n    client-key-data: {}",
    ),
    ("private-key", _PPK_PRIVATE, _PPK),
    (
        "aws-secret-key",
        fake(40, B64, 157),
        f"User name,Access key ID,Secret access key\nci,{_KEY_ID},{{}}",
    ),
    ("aws-secret-key", fake(40, B64, 158), f"access_key {_KEY_ID} {{}} shared-credentials-file"),
    (
        "url-password",
        fake(6, ALNUM, 159) + "@" + fake(6, ALNUM, 160),
        "mysql://root:{}@db.internal/shop",
    ),
    (
        "url-password",
        fake(8, ALNUM, 161) + "@" + fake(4, ALNUM, 162),
        "DATABASE_URL=postgres://app:{}@db:5432/app",
    ),
    ("secret", fake(32, ALNUM, 163), "license_key = {}"),
    ("secret", fake(32, HEX, 164), "-H 'Ocp-Apim-Subscription-Key: {}'"),
    ("secret", fake(40, B64, 165), "vercel deploy --key {}"),
    ("secret", fake(24, URLSAFE, 166), '{{"apiKey": "{}"}}'),
    ("secret", fake(28, ALNUM, 167), "ENCRYPTION_KEY={}"),
    ("secret", fake(30, ALNUM, 168), "ngrok --auth {} http 80"),
    ("shopify-token", "shp" + "at_" + fake(32, HEX, 169), "X-Shopify-Access-Token: {}"),
    ("doppler-token", "dp." + "pt." + fake(43, ALNUM, 170), "DOPPLER_TOKEN={} doppler run"),
    ("databricks-token", "da" + "pi" + fake(32, HEX, 171), "databricks token {} for the job"),
    ("pulumi-token", "pu" + "l-" + fake(40, HEX, 172), "PULUMI_ACCESS_TOKEN={}"),
    ("sentry-token", "sn" + "trys_" + fake(80, B64, 173), "SENTRY_AUTH_TOKEN={}"),
    ("groq-key", "gs" + "k_" + fake(52, ALNUM, 174), "GROQ_API_KEY={}"),
    ("replicate-token", "r" + "8_" + fake(37, ALNUM, 175), "export REPLICATE_API_TOKEN={}"),
    ("notion-token", "nt" + "n_" + fake(46, ALNUM, 176), "notion = Client(auth='{}')"),
    ("notion-token", "sec" + "ret_" + fake(43, ALNUM, 177), "NOTION_KEY={}"),
    ("figma-token", "fi" + "gd_" + fake(40, URLSAFE, 178), "X-Figma-Token: {}"),
]

ALL_SECRETS: list[tuple[str, str, str]] = SECRETS + MORE_SECRETS

MORE_ORDINARY: list[str] = [
    "b7e23ec29af22b0b4e41da31e868d57226121c84",
    "git log --oneline -3: 2836343 adfdfa6 c71b0e7",
    "uuid4(): 7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "tests/test_redact.py::TestRedactSecrets::test_ordinary_identifier_is_untouched",
    "test_login_rejects_bad_password PASSED",
    "pytest -k 'token and not expired' -q",
    "docker run -u 1000:1000 -v /srv/app:/src app",
    "date -u +%Y-%m-%dT%H:%M:%SZ; git status --short",
    "installation tokens remain bearer credentials. RFC 8693 calls out this tradeoff",
    "The Logfire token is **optional** — the system works without it",
    "`pages: write` and `id-token: write` are now scoped to the `deploy` job",
    "permissions:\n  id-token: write\n  contents: read",
    "3. **All credentials in keychain**: `cargo run` → no overlay, immediate startup",
    "**Multivalued: ON**, **Add to ID token: ON**",
    "mysql -u root -p shop < dump.sql",
    "ssh-keygen -t ed25519 -C ada@example.com",
    "SELECT * FROM users WHERE api_key IS NULL",
    "primary_key: id",
    "sort key: created_at_desc_index_v2",
    "key: OAuth2ClientFactory",
    "--key ~/.ssh/id_ed25519",
    "nginx --key server.key --cert server.crt",
    "auth: basic",
    "curl -u $USER:$TOKEN https://ci.internal",
    'sshpass -p "$SSH_PASS" ssh host',
    "docker login -u ci -p $CI_REGISTRY_PASSWORD registry.example.com",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "signature: 3f786850e387550fdab836ed7e6dc881de23001b",
    "AccountName=acme;EndpointSuffix=core.windows.net",
    "monkey=banana1234567890123",
    "the hf_transformers cache lives in ~/.cache",
    "npm_config_cache=/tmp/npm",
    "see SG.1 in the style guide",
    "a key-value store",
    "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U",
    "the test test_discord_token_shape passed",
    "OTk5OTk5 is base64 of 999999",
    "www.example.com.cdn.cloudflare.net",
    "python -m pytest tests/test_auth.py::test_token_refresh -q",
    "export PATH=/usr/local/bin:$PATH",
    "ac3478d69a3c81fa62e60f5c3696165a4e5e6ac4",
    "ACCEPTANCE criteria: AC1234",
    "chat 123456789:room joined",
    "ssh -p 2222 deploy@host",
    "git push -u origin main",
    "chown -R 1000:1000 /srv",
    "pip install -U pip",
    "src/keys/v2/store.py",
    "Generated 2026-08-25T10:00:00.123456+00:00 in 0.52s",
]

ALL_ORDINARY: list[str] = ORDINARY + MORE_ORDINARY


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def hexed(text: str) -> str:
    return text.encode().hex()


def password(n: int, seed: int) -> str:
    """A password of n characters: letters, digits and one or more symbols."""
    value = fake(n - 2, seed=seed)
    symbols = "!@%^*+="
    return value[: n // 2] + symbols[seed % 7] + value[n // 2 :] + symbols[(seed + 3) % 7]


def passphrase(seed: int) -> str:
    """Four seeded lowercase words."""
    rng = random.Random(seed)
    return " ".join(
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 7)))
        for _ in range(4)
    )


def wrapped(text: str, width: int = 76) -> str:
    """``text`` cut into lines of ``width`` characters, as ``base64`` prints it."""
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


_ENV_FILE = (
    "DEBUG=0\nSTRIPE_SECRET_KEY=" + "sk_" + "live_" + fake(99, seed=225) + "\nREGION=eu-west-1\n"
)

# Three kinds of credential that no key word or value format marks by itself: a password
# stated in a sentence, a known format wrapped in base64 or hex, and a secret passed by
# position to a client or credentials constructor.
UNMARKED_SECRETS: list[tuple[str, str, str]] = [
    (
        "password",
        password(14, 200),
        "The staging database password is {} (rotate it after the demo).",
    ),
    ("password", passphrase(201), "the admin passphrase is '{}'"),
    ("password", fake(10, seed=202) + "!", "FYI the root password for db01 is now {}."),
    ("password", password(12, 203), "I reset the vault password to {} this morning"),
    ("password", fake(6, string.digits, 204), "The PIN is {}, don't share it"),
    ("password", password(16, 205), "the password to the admin panel is `{}`"),
    ("token", fake(32, seed=206), "The deploy token is {}, keep it safe"),
    ("secret", fake(40, seed=207), "Our Mixpanel API key is {} for the prod project."),
    ("password", fake(9, seed=209) + "2024", "wifi password was {} last time I checked"),
    ("password", password(10, 210), "the passcode for the side door is {} until Friday"),
    ("password", fake(6, string.digits, 211), "door passcode: {}"),
    ("password", password(12, 212), "Log in with the admin password {} and change it"),
    ("secret", fake(32, seed=213), "the access key: {} (read-only)"),
    (
        "github-token",
        b64("gh" + "p_" + fake(36, seed=220)),
        "echo {} | base64 -d > ~/.config/gh/token",
    ),
    (
        "openai-key",
        b64("sk-" + "proj-" + fake(120, URLSAFE, 221)),
        "echo '{}' | base64 --decode | docker login --password-stdin ghcr.io",
    ),
    (
        "aws-access-key",
        hexed("AK" + "IA" + fake(16, UPPER, 222)),
        "printf %s {} | xxd -r -p > id.txt",
    ),
    (
        "slack-token",
        b64("xo" + "xb-" + fake(12, string.digits, 223) + "-" + fake(24, seed=224)),
        "python -c \"import base64; print(base64.b64decode('{}').decode())\"",
    ),
    ("stripe-key", wrapped(b64(_ENV_FILE)), "cat prod.env.b64\n{}\n"),
    (
        "anthropic-key",
        b64url(("sk-" + "ant-api03-" + fake(93, URLSAFE, 226)).encode()),
        "export KEY=$(echo {} | base64 -d)",
    ),
    ("github-token", hexed("gh" + "o_" + fake(36, seed=227)), "token bytes: {}"),
    ("aws-access-key", "0x" + hexed("AK" + "IA" + fake(16, UPPER, 230)), "key id as hex: {}"),
    ("npm-token", b64("np" + "m_" + fake(36, seed=228)), "$ echo -n $NPM_TOKEN | base64\n{}"),
    ("huggingface-token", b64("h" + "f_" + fake(34, LETTERS, 229)), "HF_B64={} make publish"),
    (
        "secret",
        fake(40, seed=240),
        f"client = Client('{fake(20, UPPER, 241)}', '{{}}', 'acme-prod')",
    ),
    (
        "secret",
        fake(40, B64, 242),
        f"mc = Minio('play.min.io', '{fake(20, UPPER, 243)}', '{{}}', secure=True)",
    ),
    ("password", password(16, 244), "server.login('ada@example.com', '{}')"),
    ("password", password(14, 245), "r = requests.get(url, auth=HTTPBasicAuth('deploy', '{}'))"),
    (
        "secret",
        fake(40, B64, 246),
        'AWSCredentials creds = new BasicAWSCredentials(accessKey, "{}");',
    ),
    ("secret", fake(24, seed=247), "conn = pymysql.connect('db.internal', 'root', '{}', 'shop')"),
    ("secret", fake(32, seed=248), 'const client = new Client("my-app-prod", "{}");'),
    ("secret", fake(30, seed=249), "auth = OAuth1('app-key-prod', '{}')"),
    ("secret", password(12, 250), 'var cred = new NetworkCredential("ada", "{}");'),
    ("secret", fake(40, seed=251), "ftp = FTP('ftp.example.com', 'deploy', '{}')"),
    (
        "secret",
        fake(32, HEX, 252),
        "client = Client(\n    'acme-prod',\n    '{}',\n)",
    ),
]

_CERTIFICATE = (
    "-----BEGIN CERTIFICATE-----\n" + fake(64, B64, 260) + "\n-----END CERTIFICATE-----\n"
)

# Strings that stand where those credentials stand, and are not credentials.
UNMARKED_ORDINARY: list[str] = [
    "the password is required",
    "Error: the token is expired or invalid; log in again",
    "The password is hashed with bcrypt before it is stored",
    "the secret is stored in Vault under kv/app",
    "the password is 8 characters long at least",
    "the token is base64-encoded and signed",
    "The API key is read from OPENAI_API_KEY at start-up",
    "the password is `None` by default",
    "reset the password to the default one",
    "the token count is 4096 after compaction",
    "the password is auto-generated on first boot",
    "the secret is settings.SECRET_KEY",
    "Token is valid for 3600 seconds",
    "the passphrase is whatever you typed when you made the key",
    "The PIN is wrong",
    "log in with password authentication enabled",
    "use the token from the vault, not this one",
    "the password reset link expired",
    "passcode: see the team vault",
    "run({yield_time_ms:10000,max_output_tokens:3000});",
    f"echo {b64('hello world from the deploy script')} | base64 -d",
    f"printf %s {hexed('hello world again, nothing here')} | xxd -r -p",
    f"client-certificate-data: {b64(_CERTIFICATE)}",
    f"echo -n 'the tokenizer splits text' | base64\n{b64('the tokenizer splits text')}",
    "/home/ada/projects/session-memory/session_memory/core/redact.py",
    "base64.b64decode('" + b64('{"alg": "none", "typ": "JWT"}') + "')",
    "repo.git.checkout('-b', 'feature', '3f786850e387550fdab836ed7e6dc881de23001b')",
    "client = Client('test-client-id', 'test-client-secret')",
    "requests.get(url, auth=HTTPBasicAuth('user', 'pass'))",
    "uuid.UUID('550e8400-e29b-41d4-a716-446655440000')",
    "assert_digest('sha256', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')",
    "check('md5', 'd41d8cd98f00b204e9800998ecf8427e')",
    "Session('prod', 'eu-west-1')",
    "server.login('ada@example.com', 'dummy-password')",
    "make_user('ada', 'fake-secret-123')",
    "cache.set('user:42:profile', 'OAuth2ClientFactory')",
    "storage.upload('bucket', 'path/to/file_v2_abc123XYZ.tar.gz')",
    "print('token:', 'xxxxxxxxxxxxxxxxxxxx')",
    "Client('https://api.example.com', 'v2beta1')",
    "login(page, 'ada', 'test-password')",
    "git diff HEAD~3 b7e23ec29af22b0b4e41da31e868d57226121c84 -- src/",
]

ALL_SECRETS += UNMARKED_SECRETS
ALL_ORDINARY += UNMARKED_ORDINARY
