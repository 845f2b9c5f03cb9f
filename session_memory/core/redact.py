"""Secret redaction and containment of untrusted text (docs/rules.md).

Pure functions over ``str``, stdlib ``re`` only, no I/O. Every function is total: any ``str``
(lone surrogates, NULs, megabytes) gives a result, never an exception, and every regular
expression here is linear in its input (possessive quantifiers, bounded repeats, anchored
starts), so an adversarial string cannot make the work blow up.

``redact_secrets`` replaces secrets with ``[redacted:<kind>]``. ``contain_untrusted`` and
``quote_untrusted`` make text taken from tool output safe to place on one line of the Markdown
memory; ``contain_trusted_line`` gives the same single-line cleaning to our own short strings
(tool names, paths, commands).
"""

from __future__ import annotations

import functools
import math
import re
import string
from collections import Counter
from collections.abc import Callable
from typing import Final

from session_memory.core.errors import ConfigError
from session_memory.core.token_formats import TOKEN_FORMATS

__all__ = [
    "NEWLINE_MARK",
    "REDACTION_KINDS",
    "contain_block",
    "contain_trusted_line",
    "contain_trusted_line_uncached",
    "contain_untrusted",
    "quote_untrusted",
    "redact_secrets",
]

REDACTION_KINDS: Final[tuple[str, ...]] = (
    *dict.fromkeys(f.kind for f in TOKEN_FORMATS),
    "aws-secret-key",
    "azure-key",
    "azure-sas",
    "telegram-token",
    "twilio-token",
    "url-password",
    "bearer-token",
    "password",
    "secret",
    "token",
)
"""Every ``<kind>`` that can appear in a ``[redacted:<kind>]`` marker."""

NEWLINE_MARK: Final = " \u23ce "
"""What a line break becomes in single-line text: `` ⏎ `` (U+23CE with a space either side)."""

_MARKER_PREFIX: Final = "[redacted:"


_Handler = Callable[[re.Match[str]], str | None]
"""What replaces a rule's match; None declines it, and the text is scanned on as if the rule
had not matched there."""


def _marker(kind: str) -> str:
    return f"{_MARKER_PREFIX}{kind}]"


# --------------------------------------------------------------------------------------------
# Secret rules
#
# Each rule is an anchored regular expression that starts with one of its literal triggers.
# redact_secrets finds trigger positions with str.find (C speed; case-insensitive triggers are
# found in the lowercased text), tries the rules only there, and keeps the leftmost match; at
# one position the earlier rule wins (anthropic before openai: both start with "sk-"). That is
# the semantics of one big alternation, without paying for ~16 alternatives at every
# character: a text with no trigger costs only the finds. Because the leftmost match wins, a
# key name ("GITHUB_TOKEN=", "Authorization:") is seen before the value it introduces; the
# value is then classified by the specific rules, so the more precise kind is kept.

# Key names whose value is a secret. The name must END with one of these (a prefix such as
# "GITHUB_" or "client_" is fine): "tokenizer", "token_count" and "password_reset_view" are
# not secret names. Longer alternatives first. _KEYWORD_TRIGGERS are the literal starts.
_KEYWORDS: Final = (
    r"passphrase|password|passwd"
    r"|(?:secret|access|private|signing|encryption|master)[_-]?key"
    r"|api[_-]?key|secret|token|auth"
)
_KEYWORD_TRIGGERS: Final = (
    "pass",
    "secret",
    "access",
    "private",
    "signing",
    "encryption",
    "master",
    "api",
    "token",
    "auth",
)

_QUOTED_VALUE: Final = (
    r"(?P<g_q1>\\\")(?P<g_qv1>[^\"\\\n]{0,1024}+)"  # JSON inside JSON: \"value\"
    r"|(?P<g_q2>\")(?P<g_qv2>(?:[^\"\\\n]|\\.){0,1024}+)"
    r"|(?P<g_q3>')(?P<g_qv3>(?:[^'\\\n]|\\.){0,1024}+)"
)

_ASSIGNMENT: Final = (
    r"(?P<g_k>(?i:" + _KEYWORDS + r"))(?![A-Za-z0-9_-])"
    r"(?:\\?[\"'])?"
    # An optional type annotation, so "token: str = 'abc'" redacts 'abc'.
    r"(?:[ \t]*+:[ \t]*+[A-Za-z_][\w.]{0,60}+(?:\[[\w.\[\], |]{0,80}+\])?"
    r"(?:[ \t]*+\|[ \t]*+[A-Za-z_][\w.]{0,60}+){0,4}+(?=[ \t]*+=[^=]))?"
    # "==", "!=", "::" are comparisons and paths, not assignments.
    r"[ \t]*+(?:=>|:=|=(?!=)|:(?!:))[ \t]*+"
    r"(?:" + _QUOTED_VALUE + r"|(?P<g_uv>[^\s'\"`,;&<>]{1,1024}+))"
)

# The value of a command-line password flag: quoted, or one word.
_FLAG_VALUE: Final = r"'[^'\n]{1,200}+'|\"[^\"\n]{1,200}+\"|[^\s'\"][^\s'\"]{0,200}+"

# Rules that need context around the value: (name, pattern, triggers)
_CONTEXT_RULES: Final[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
    (
        "aws_secret_key",
        r"(?<![A-Za-z0-9])(?i:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)"
        r"(?:\\?[\"'])?[ \t]*+(?::|=)?[ \t]*+(?:\\?[\"'])?"
        r"(?P<as_v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("aws", "secret"),
    ),
    (
        "slack_webhook",
        r"(?P<sw_p>hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_-]{8,}+",
        ("hooks.slack.com/",),
    ),
    (
        # The scheme and user before "://user:" are kept, as is the host after the last "@"
        # of the authority: in mysql://root:abc@def@db the password is "abc@def".
        "url_password",
        r"(?<=[A-Za-z0-9])(?P<up_p>://[^\s:/?#@\[\]'\"<>]{0,256}+:)"
        r"(?P<up_v>[^\s/?#'\"<>]{1,256})(?=@[^\s/?#@'\"<>]*+(?![^\s/?#'\"<>]))",
        ("://",),
    ),
    (
        "auth_header",
        r"(?P<ah_p>(?i:(?:proxy-)?authorization)(?:\\?[\"'])?[ \t]*+[:=][ \t]*+(?:\\?[\"'])?"
        r"(?:(?i:bearer|basic|token|digest|bot|apikey)[ \t]++)?+)"
        r"(?P<ah_v>[A-Za-z0-9._~+/=-]{6,}+)",
        ("authorization", "proxy-authorization"),
    ),
    (
        "bearer",
        r"(?<![A-Za-z0-9_])(?P<b_p>(?i:bearer)[ \t]++)(?P<b_v>[A-Za-z0-9._~+/=-]{8,}+)",
        ("bearer",),
    ),
    ("assignment", _ASSIGNMENT, _KEYWORD_TRIGGERS),
    (
        # "--password VALUE", "--api-key VALUE", "--key VALUE": the handler checks the word
        # starts with "-" (and, for key and auth, that the value looks random).
        "cli_flag",
        r"(?P<cf_p>(?i:password|passwd|token|secret|api-?key|key|auth)(?![\w-])[ \t]++)"
        r"(?P<cf_v>[^\s'\"-][^\s'\"]{0,1024}+)",
        ("pass", "token", "secret", "api", "key", "auth"),
    ),
    (
        # A name ending in "key" (license_key=, X-Goog-Api-Key:, apiKey:, KEY=) before a value
        # that looks random: the high-entropy fallback (see _looks_random).
        "key_value",
        r"(?P<kv_p>(?:(?<![A-Za-z0-9])|(?<=[_.-])|(?<=[a-z])(?=K))(?i:key)(?![A-Za-z0-9_])"
        r"(?:\\?[\"'])?[ \t]*+(?:=(?!=)|:(?!:))[ \t]*+(?:\\?[\"'])?)"
        r"(?P<kv_v>[A-Za-z0-9+/_~-]{16,512}+={0,2}+)",
        ("key",),
    ),
    (
        # Azure storage and Service Bus connection strings.
        "azure_key",
        r"(?P<az_p>(?i:AccountKey|SharedAccessKey)=)(?P<az_v>[A-Za-z0-9+/]{20,}+={0,2}+)",
        ("accountkey=", "sharedaccesskey="),
    ),
    (
        # An Azure shared access signature: "sig=" + the URL-encoded base64 of an HMAC.
        "azure_sas",
        r"(?<![A-Za-z0-9_])(?P<sas_p>sig=)(?P<sas_v>[A-Za-z0-9%+/=]{30,}+)",
        ("sig=",),
    ),
    (
        # A Telegram bot token: the bot id, ":" and 35 characters starting "AA". The id stays.
        "telegram",
        r"(?<=[0-9]{8}):AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])",
        (":AA",),
    ),
    (
        # A Twilio account SID followed by its auth token (32 hex digits), by position:
        # Client("AC...", "..."), AC...:..., "AC..." "...".
        "twilio",
        r"(?P<tw_p>AC[0-9a-f]{32}[\"']?[ \t]*+[,:]?[ \t]*+[\"']?)(?P<tw_v>[0-9a-f]{32})"
        r"(?![A-Za-z0-9])",
        (),  # "AC" is too common a start for the trigger search: see _CONTEXT_SCANS
    ),
    (
        # The private key of a kubeconfig user, base64 of a PEM block.
        "kubeconfig_key",
        r"(?P<kc_p>client-key-data[\"']?[ \t]*+:[ \t]*+[\"']?)(?P<kc_v>[A-Za-z0-9+/=]{16,}+)",
        ("client-key-data",),
    ),
    (
        # The private half of a PuTTY .ppk file: its base64 lines and MAC.
        "putty_private",
        r"(?P<pk_p>Private-Lines:)[ \t]*+[0-9]{1,4}+(?:(?:\r?\n|\\n)[A-Za-z0-9+/=]{1,100}+)++"
        r"(?:(?:\r?\n|\\n)Private-(?:MAC|Hash):[ \t]*+[0-9a-fA-F]++)?+",
        ("Private-Lines:",),
    ),
    (
        # mysql and mariadb take a password glued to -p ("-pSECRET"; "-p" alone prompts).
        "mysql_password",
        r"(?<![A-Za-z0-9_])(?P<my_p>(?i:mysql|mariadb)[a-z-]*+(?:[ \t]++(?!-p)[^\s|;&]++){0,20}+"
        r"[ \t]++-p)(?P<my_v>" + _FLAG_VALUE + r")",
        ("mysql", "mariadb"),
    ),
    (
        "sshpass",
        r"(?<![A-Za-z0-9_])(?P<sp_p>sshpass(?:[ \t]++-[^p\s]\S*+){0,4}+[ \t]++-p[ \t]*+)"
        r"(?P<sp_v>" + _FLAG_VALUE + r")",
        ("sshpass",),
    ),
    (
        # docker, podman, helm registry, ... login -p VALUE.
        "login_password",
        r"(?<![A-Za-z0-9_])(?P<lp_p>login(?:[ \t]++(?!-p[ \t])[^\s|;&]++){0,8}+[ \t]++-p[ \t]++)"
        r"(?P<lp_v>" + _FLAG_VALUE + r")",
        ("login",),
    ),
    (
        # htpasswd -b takes the password on the command line, after the file and the user
        # (after the user alone with -n).
        "htpasswd",
        r"(?<![A-Za-z0-9_])htpasswd(?P<ht_f>(?:[ \t]++-[A-Za-z]++)++)"
        r"(?P<ht_a>(?:[ \t]++[^\s-][^\s]*+){1,3}+)",
        ("htpasswd",),
    ),
    (
        # curl -u user:password (--user), also glued (-uuser:password).
        "user_password",
        r"(?<![\w-])(?P<cu_p>(?:-u|--user)(?:[ \t]++|=)?+[\"']?(?P<cu_u>[^\s:'\"]{1,100}+):)"
        r"(?P<cu_v>[^\s'\"]{1,200}+)",
        ("-u", "--user"),
    ),
)

# An AWS access key id followed by its secret (the two columns of a credentials CSV, or a
# configure listing): tried before the access key alone, so both are redacted.
_PRIORITY_RULES: Final[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
    (
        "aws_key_pair",
        r"(?<![A-Za-z0-9])(?P<ak_id>(?:AKIA|ASIA)[A-Z0-9]{16})"
        r"(?P<ak_sep>[\"']?[ \t]*+[,;|\t][ \t]*+[\"']?|[ \t]++)"
        r"(?P<ak_v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("AKIA", "ASIA"),
    ),
)

# Unquoted values that are code or configuration, not a secret (see redact_secrets).
_KEEP_WORDS: Final = frozenset(
    {
        "true",
        "false",
        "null",
        "none",
        "nil",
        "undefined",
        "str",
        "string",
        "bytes",
        "int",
        "bool",
        "secretstr",
        "secretbytes",
        "any",
        "optional",
        "required",
    }
)
_CODE_ROOTS: Final = frozenset(
    {
        "self",
        "this",
        "cls",
        "os",
        "process",
        "args",
        "opts",
        "options",
        "config",
        "cfg",
        "conf",
        "settings",
        "env",
        "ctx",
        "request",
        "req",
        "params",
        "props",
        "secrets",
        "vars",
    }
)
_IDENT_CHAIN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)*+")
# A name whose last component is a secret word: api_key, API_KEY, apiKey, token, self._password
# (not "monkey" or "mypassword123", which are values).
_NAMED_AFTER_SECRET: Final = re.compile(
    r"(?:^|(?<=[._])|(?<=[a-z0-9])(?=[A-Z]))"
    r"(?i:password|passwd|passphrase|secret|token|key|auth|credentials?)$"
)
_MASK_CHARS: Final = frozenset("*\u2022xX.")
_AWS_SECRET_VALUE: Final = re.compile(r"[A-Za-z0-9/+]{40}")


def _specific_kind(value: str) -> str | None:
    """The kind of the specific secret that ``value`` starts with, if any.

    Only the rules whose trigger is at the start are tried, in rule order (the candidates
    are sorted by position, then rule): there are too many formats to try each.
    """
    rules = _SPECIFIC
    for pos, index in _specific_rules().candidates(value, _lower_same_length(value)):
        if pos > 0:
            break
        if rules[index].regex.match(value) is not None:
            return rules[index].kind
    return None


def _redact_specific(text: str) -> str:
    """Redact only the specific kinds: for text that a broader rule decided to keep."""
    return _apply(text, _specific_rules(), _lower_same_length(text))


def _looks_like_reference(value: str) -> bool:
    """Whether a quoted or unquoted value is a placeholder or a reference, not a secret."""
    if not value or value.startswith(_MARKER_PREFIX):
        return True
    if value.startswith(("$", "{{", "%(", "<")):
        return True
    return set(value) <= _MASK_CHARS


def _unquoted_is_code(value: str) -> bool:
    """Whether an unquoted value is code or configuration rather than a literal secret."""
    if _looks_like_reference(value):
        return True
    if not any(c.isalnum() for c in value):
        return True  # punctuation: "Unexpected token: }"
    bare = value.rstrip(")]},.")
    if bare.lower() in _KEEP_WORDS:
        return True
    if bare.isdigit() and len(bare) <= 3:
        return True  # a count, an index, a small port-like number
    m = _IDENT_CHAIN.match(value)
    if m is None:
        return False
    chain = m.group(0)
    rest = value[m.end() :]
    if rest.startswith(("(", "[")):
        return True  # a call or an index: get_token(), os.environ["KEY"]
    if rest.strip(")]}"):
        return False  # closing brackets may follow a name: f(api_key=api_key)
    if "." in chain and chain.split(".", 1)[0] in _CODE_ROOTS:
        return True  # self.token, settings.SECRET_KEY
    # A variable named after a secret (`api_key=api_key`) refers to it; it is not its value.
    return _NAMED_AFTER_SECRET.search(chain.lstrip("_")) is not None


def _assignment_kind(keyword: str) -> str:
    k = keyword.lower()
    if k.startswith("pass"):
        return "password"
    if k.endswith("token"):
        return "token"
    return "secret"


def _key_name(text: str, keyword_start: int) -> tuple[str, int]:
    """The full key name ending at a keyword, and where it starts (bounded look-back)."""
    start = keyword_start
    limit = max(0, keyword_start - 100)
    while start > limit and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
        start -= 1
    return text[start:keyword_start], start


_AUTH_SCHEME_CHARS: Final = 16


def _replace_assignment(m: re.Match[str]) -> str:
    whole = m.group(0)
    base = m.start()
    prefix, name_start = _key_name(m.string, base)
    if name_start > 0 and m.string[name_start - 1] in "/\\":
        return _redact_specific(whole)  # a path such as /etc/passwd: not a key
    keyword = m.group("g_k")
    for quote_group, value_group in (("g_q1", "g_qv1"), ("g_q2", "g_qv2"), ("g_q3", "g_qv3")):
        if m.group(quote_group) is not None:
            value = m.group(value_group)
            if _looks_like_reference(value):
                return _redact_specific(whole)
            break
    else:
        value_group = "g_uv"
        value = m.group(value_group)
        if _unquoted_is_code(value):
            return _redact_specific(whole)
    if keyword.lower() == "auth" and value.isalpha() and len(value) <= _AUTH_SCHEME_CHARS:
        return _redact_specific(whole)  # a scheme or a mode: auth: basic, "auth": "none"
    kind = _specific_kind(value)
    if kind is None:
        name = (prefix + keyword).lower().replace("_", "").replace("-", "")
        aws_name = "secret" in name and ("aws" in name or "accesskey" in name)
        if aws_name and _AWS_SECRET_VALUE.fullmatch(value):
            kind = "aws-secret-key"
        else:
            kind = _assignment_kind(keyword)
    cut = m.start(value_group) - base
    # The kept context is scanned too: "password: AKIA...=x" parses as an annotation.
    head, tail = whole[:cut], whole[cut + len(value) :]
    return _redact_specific(head) + _marker(kind) + _redact_specific(tail)


def _replace_value(m: re.Match[str], prefix_group: str, value_group: str, kind: str) -> str:
    value = m.group(value_group)
    if value.startswith(_MARKER_PREFIX):
        return _redact_specific(m.group(0))
    # The kept context is scanned too: in https://ghp_...:x-oauth-basic@github.com the user
    # is the secret.
    return _redact_specific(m.group(prefix_group)) + _marker(_specific_kind(value) or kind)


def _replace_bearer(m: re.Match[str]) -> str:
    value = m.group("b_v")
    if value.isalpha():
        return m.group(0)  # prose: "Bearer authentication"
    return _replace_value(m, "b_p", "b_v", "bearer-token")


def _replace_cli_flag(m: re.Match[str]) -> str | None:
    prefix, _start = _key_name(m.string, m.start())
    value = m.group("cf_v")
    if not prefix.startswith("-") or _unquoted_is_code(value):
        return None  # not a flag ("a token value"), or code
    flag = m.group("cf_p").lower()
    word = flag.rstrip()
    if word in ("key", "auth") and not _looks_random(value):
        return None  # --key server.pem, --auth basic
    kind = "password" if "pass" in flag else "token" if "token" in flag else "secret"
    return _replace_value(m, "cf_p", "cf_v", kind)


def _replace_aws_secret(m: re.Match[str]) -> str:
    cut = m.start("as_v") - m.start()
    return m.group(0)[:cut] + _marker("aws-secret-key")


_RANDOM_MIN_LENGTH: Final = 16
_RANDOM_MIN_BITS: Final = 3.0


# A name written by a person: words in any case convention and short numbers
# (created_at_desc_index_v2, OAuth2ClientFactory, user-profile-2026).
_WORD_PARTS: Final = re.compile(r"(?:[A-Z]*+[a-z]{2,}+|[A-Z]++|[0-9]{1,4}+)++")
_PART_SEPARATORS: Final = re.compile(r"[_./~+=-]++")


def _looks_random(value: str) -> bool:
    """Whether a value after a key-like name looks generated rather than written.

    The high-entropy fallback for names that are often not secret (``key``, ``auth``): at
    least 16 characters mixing letters and digits, not a path, not a name made of words, and
    at least 3 bits of Shannon entropy per character.
    """
    if len(value) < _RANDOM_MIN_LENGTH or value.startswith(("/", "~", "-", ".")):
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    if "/" in value and (value.islower() or value.isupper()):
        return False  # a path such as src/keys/v2/store
    parts = _PART_SEPARATORS.split(value)
    if all(len(part) <= 3 or _WORD_PARTS.fullmatch(part) for part in parts):
        return False
    n = len(value)
    bits = -sum(k / n * math.log2(k / n) for k in Counter(value).values())
    return bits >= _RANDOM_MIN_BITS


def _replace_key_value(m: re.Match[str]) -> str | None:
    if not _looks_random(m.group("kv_v")):
        return None
    return _replace_value(m, "kv_p", "kv_v", "secret")


def _replace_flag_password(prefix_group: str, value_group: str) -> _Handler:
    """A password given to a command-line flag; a variable reference or a port is kept."""

    def replace(m: re.Match[str]) -> str | None:
        value = m.group(value_group)
        quote = value[0] if value[0] in "'\"" else ""
        bare = value.strip("'\"")
        if _looks_like_reference(bare) or (bare.isdigit() and len(bare) <= 5):
            return None
        return _redact_specific(m.group(prefix_group)) + quote + _marker("password") + quote

    return replace


def _replace_htpasswd(m: re.Match[str]) -> str | None:
    flags = m.group("ht_f")
    if "b" not in flags:
        return None
    parts = re.split(r"([ \t]++)", m.group("ht_a"))  # ["", " ", "file", " ", "user", ...]
    password = 4 if "n" in flags else 6  # the index of the password word in parts
    if len(parts) <= password or _looks_like_reference(parts[password]):
        return None
    parts[password] = _marker("password")
    return "htpasswd" + _redact_specific(flags) + "".join(parts)


_TWILIO_SID: Final = re.compile(r"AC[0-9a-f]{32}")


def _replace_user_password(m: re.Match[str]) -> str | None:
    value = m.group("cu_v")
    if _looks_like_reference(value) or (value.isdigit() and m.group("cu_u").isdigit()):
        return None  # -u $CREDS, docker run -u 1000:1000
    kind = "twilio-token" if _TWILIO_SID.fullmatch(m.group("cu_u")) else "password"
    return _replace_value(m, "cu_p", "cu_v", kind)


def _replace_aws_pair(m: re.Match[str]) -> str:
    return _marker("aws-access-key") + m.group("ak_sep") + _marker("aws-secret-key")


class _Rule:
    """One anchored rule: where it may start, how it matches, what replaces a match."""

    __slots__ = ("_regex", "handler", "kind", "pattern", "scan", "scan_min_length", "triggers")

    def __init__(
        self,
        pattern: str,
        triggers: tuple[str, ...],
        handler: _Handler,
        kind: str = "",
        scan: str = "",
        scan_min_length: int = 0,
    ) -> None:
        self.pattern = pattern
        self._regex: re.Pattern[str] | None = None
        self.triggers = triggers  # literal starts, matched case-insensitively
        self.handler = handler
        self.kind = kind
        self.scan = re.compile(scan) if scan else None
        self.scan_min_length = scan_min_length

    @property
    def regex(self) -> re.Pattern[str]:
        """The rule's pattern, compiled when a text first has its trigger: most texts reach
        few of the rules, and compiling them all was a third of this module's import."""
        regex = self._regex
        if regex is None:
            regex = self._regex = re.compile(self.pattern)
        return regex


def _whole(kind: str) -> _Handler:
    marker = _marker(kind)
    return lambda _m: marker


_CONTEXT_HANDLERS: Final[dict[str, _Handler]] = {
    "aws_key_pair": _replace_aws_pair,
    "aws_secret_key": _replace_aws_secret,
    "slack_webhook": lambda m: m.group("sw_p") + _marker("slack-token"),
    "url_password": lambda m: _replace_value(m, "up_p", "up_v", "url-password"),
    "auth_header": lambda m: _replace_value(m, "ah_p", "ah_v", "bearer-token"),
    "bearer": _replace_bearer,
    "assignment": _replace_assignment,
    "cli_flag": _replace_cli_flag,
    "key_value": _replace_key_value,
    "azure_key": lambda m: _replace_value(m, "az_p", "az_v", "azure-key"),
    "azure_sas": lambda m: _replace_value(m, "sas_p", "sas_v", "azure-sas"),
    "telegram": lambda _m: ":" + _marker("telegram-token"),
    "twilio": lambda m: _replace_value(m, "tw_p", "tw_v", "twilio-token"),
    "kubeconfig_key": lambda m: _replace_value(m, "kc_p", "kc_v", "private-key"),
    "putty_private": lambda m: m.group("pk_p") + " " + _marker("private-key"),
    "mysql_password": _replace_flag_password("my_p", "my_v"),
    "sshpass": _replace_flag_password("sp_p", "sp_v"),
    "login_password": _replace_flag_password("lp_p", "lp_v"),
    "htpasswd": _replace_htpasswd,
    "user_password": _replace_user_password,
}

_URLSAFE: Final = frozenset(string.ascii_letters + string.digits + "_-")


# Substrings of triggers that the gate looks for instead of the whole trigger, because they
# start with a character that already starts another trigger: each distinct first character
# makes the gate stop at more positions of an ordinary text ("d", "n", "w", "y" and "f" are
# common letters), and the whole trigger is still checked at every hit.
_GATE_ANCHORS: Final = (
    "_v1_",  # dop_v1_ doo_v1_ dor_v1_
    "api",  # dapi lin_api_ api_org_
    "p.pt.", "p.st.", "p.ct.", "p.sa.", "p.scim.", "p.audit.",  # dp.pt. ...
    "gd_", "pm_", "rak-", "raa-", "rii-", "tn_", "hsec_", "a29.", "//0",
)  # fmt: skip


def _first_parts(
    text: str, words: frozenset[str] | set[str], lengths: list[int], longest: int | None = None
) -> dict[str, int]:
    """Each of ``words`` (whose lengths are ``lengths``, ascending) that occurs in ``text``,
    with the offset of its first occurrence; only words of at most ``longest`` characters.

    The substrings of a short trigger are few, so looking each up in the set is cheaper than
    searching the trigger for every word (that was most of the cost of building a rule set
    at import)."""
    found: dict[str, int] = {}
    for length in lengths:
        if length > len(text) or (longest is not None and length > longest):
            break
        for start in range(len(text) - length + 1):
            part = text[start : start + length]
            if part in words and part not in found:
                found[part] = start
    return found


class _RuleSet:
    """Rules in priority order, and one trigger regex that finds where any of them may start.

    The trigger regex is a literal alternation over the lowercased text, grouped by first
    character so that re's charset prefix and branch skipping make a miss cost a few
    nanoseconds per character. Triggers that contain a shorter trigger are dropped from it
    (the shorter one finds them) and the rest are searched overlapping, so none is missed; a
    hit becomes a candidate only when the rule's whole trigger is there, in the text's own
    case when the trigger is written with a capital ("AKIA", "NRAK-") and in any case
    otherwise. A rule without a literal start has a scan pattern instead, searched only in
    texts long enough to hold a match: each scan hit lies in the run of URL-safe characters
    the token starts.
    """

    __slots__ = ("gate", "rules", "scans", "starts")

    def __init__(self, rules: tuple[_Rule, ...]) -> None:
        self.rules = rules
        wanted = {t.lower() for rule in rules for t in rule.triggers}
        wanted |= {a for a in _GATE_ANCHORS if any(a in t for t in wanted)}
        lengths = sorted({len(t) for t in wanted})
        minimal = sorted(t for t in wanted if not _first_parts(t, wanted, lengths, len(t) - 1))
        shorts = frozenset(minimal)
        short_lengths = sorted({len(t) for t in minimal})
        # short trigger -> (the rules whose trigger it is, as written in any case; and
        # [(its offset in a rule's longer trigger, rule index, that whole trigger, whether
        # the whole trigger must match in the text's own case)])
        self.starts: dict[str, tuple[list[int], list[tuple[int, int, str, bool]]]] = {
            t: ([], []) for t in minimal
        }
        for index, rule in enumerate(rules):
            for trigger in dict.fromkeys(rule.triggers):
                lowered = trigger.lower()
                exact = trigger != lowered
                whole = trigger if exact else lowered
                for short, offset in _first_parts(lowered, shorts, short_lengths).items():
                    if offset == 0 and whole == short:
                        self.starts[short][0].append(index)
                    else:
                        self.starts[short][1].append((offset, index, whole, exact))
        by_first: dict[str, list[str]] = {}
        for t in minimal:
            by_first.setdefault(t[0], []).append(re.escape(t[1:]))
        self.gate = re.compile(
            "|".join(
                re.escape(first) + "(?:" + "|".join(rests) + ")"
                for first, rests in sorted(by_first.items())
            )
        )
        self.scans = [
            (rule.scan, rule.scan_min_length, index)
            for index, rule in enumerate(rules)
            if rule.scan is not None
        ]

    def candidates(self, text: str, lowered: str) -> list[tuple[int, int]]:
        """Every (position, rule index) where a rule may match, sorted."""
        found: list[tuple[int, int]] = []
        hit = self.gate.search(lowered)
        while hit is not None:
            at = hit.start()
            direct, checked = self.starts[hit.group()]
            for index in direct:
                found.append((at, index))
            for offset, index, whole, exact in checked:
                start = at - offset
                if start >= 0 and (text if exact else lowered).startswith(whole, start):
                    found.append((start, index))
            hit = self.gate.search(lowered, at + 1)
        for scan, min_length, index in self.scans:
            if len(text) >= min_length:
                for m in scan.finditer(text):
                    start = m.start()
                    while start > 0 and text[start - 1] in _URLSAFE:
                        start -= 1
                    found.append((start, index))
        found.sort()
        return found


_SPECIFIC: Final = tuple(
    _Rule(f.pattern, f.triggers, _whole(f.kind), f.kind, f.scan, f.scan_min_length)
    for f in TOKEN_FORMATS
)


@functools.cache
def _specific_rules() -> _RuleSet:
    """The specific rules alone, as a rule set of their own: built when a text first needs
    it (few do; building it was a fifth of this module's import)."""
    return _RuleSet(_SPECIFIC)


# Context rules found by a search instead of a trigger (see _RuleSet): (pattern, minimum
# length of a text worth searching).
_CONTEXT_SCANS: Final[dict[str, tuple[str, int]]] = {"twilio": (r"AC[0-9a-f]{32}", 66)}


def _context_rules(rules: tuple[tuple[str, str, tuple[str, ...]], ...]) -> tuple[_Rule, ...]:
    return tuple(
        _Rule(pattern, triggers, _CONTEXT_HANDLERS[name], "", *_CONTEXT_SCANS.get(name, ("", 0)))
        for name, pattern, triggers in rules
    )


_ALL_RULES: Final = _RuleSet(
    _context_rules(_PRIORITY_RULES) + _SPECIFIC + _context_rules(_CONTEXT_RULES)
)


def _apply(text: str, rule_set: _RuleSet, lowered: str) -> str:
    """One left-to-right pass: at each candidate, in rule order, the first match that its
    handler does not decline is replaced."""
    candidates = rule_set.candidates(text, lowered)
    if not candidates:
        return text
    rules = rule_set.rules
    parts: list[str] = []
    done = 0  # text[:done] is settled
    previous = (-1, -1)
    for candidate in candidates:
        pos, index = candidate
        if pos < done or candidate == previous:
            continue  # inside a replaced span, or a second trigger of the same rule here
        previous = candidate
        m = rules[index].regex.match(text, pos)
        if m is None:
            continue
        replacement = rules[index].handler(m)
        if replacement is None:
            continue  # declined: later rules and positions are tried as if it had not matched
        parts.append(text[done:pos])
        parts.append(replacement)
        done = m.end()
    if not parts:
        return text
    parts.append(text[done:])
    joined = "".join(parts)
    return text if joined == text else joined


def _lower_same_length(text: str) -> str:
    """``text.lower()`` with positions preserved (only U+0130 lowercases to two characters)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = text.replace("\u0130", "I").lower()
    return lowered


_MAX_PASSES: Final = 4


def redact_secrets(text: str) -> str:
    """Replace secrets in ``text`` with ``[redacted:<kind>]`` markers.

    Kinds (see :data:`REDACTION_KINDS`). Recognised by the value alone, from each provider's
    documented token format (the table is :mod:`session_memory.core.token_formats`):
    ``private-key`` (a PEM ``BEGIN ... PRIVATE KEY`` block through its END line, or to the
    end of the text when END is missing; also a kubeconfig ``client-key-data`` and the
    private lines of a PuTTY ``.ppk``), ``aws-access-key`` (``AKIA``/``ASIA``... ids),
    ``github-token``, ``gitlab-token`` (``glpat-`` and the other ``gl*-`` tokens),
    ``anthropic-key`` (``sk-ant-``), ``openai-key`` (``sk-``, ``sk-proj-``), ``slack-token``
    (``xox?-``, ``xapp-``, a hooks.slack.com webhook path), ``google-api-key`` (``AIza``),
    ``google-oauth-token`` (refresh tokens ``1//0``, access tokens ``ya29.``), ``stripe-key``
    (``sk_live_``, ``rk_live_``, the ``_test_`` keys, ``whsec_``), ``jwt``,
    ``huggingface-token`` (``hf_``), ``npm-token`` (``npm_``), ``pypi-token`` (``pypi-Ag``),
    ``sendgrid-key`` (``SG.``), ``mailgun-key`` (``key-`` + 32 hex), ``digitalocean-token``
    (``dop_v1_``), ``vault-token`` (``hvs.``), ``linear-key`` (``lin_api_``),
    ``grafana-token`` (``glsa_``, ``glc_``), ``newrelic-key`` (``NRAK-``), ``postman-key``
    (``PMAK-``), ``atlassian-token`` (``ATATT3``), ``square-token`` (``EAAA``, ``sq0csp-``),
    ``age-key`` (``AGE-SECRET-KEY-1``), ``discord-token`` (three dotted base64url parts, the
    first the bot's id), ``shopify-token``, ``doppler-token``, ``databricks-token``,
    ``pulumi-token``, ``sentry-token``, ``groq-key``, ``replicate-token``, ``notion-token`` and
    ``figma-token``.

    Recognised by their context: ``aws-secret-key`` (40 characters after an
    ``aws_secret_access_key``-like name, or after an access key id, as in a credentials CSV),
    ``azure-key`` (``AccountKey=``, ``SharedAccessKey=``), ``azure-sas`` (``sig=``),
    ``telegram-token`` (``<bot id>:AA...``; the id stays), ``twilio-token`` (32 hex digits
    after an account SID), ``url-password`` (``scheme://user:PASSWORD@host``: scheme, user and
    host stay; the password may hold ``@``), ``bearer-token`` (``Bearer <v>``,
    ``Authorization: Basic <v>`` and other Authorization header values), ``password`` for
    passwords on command lines (``mysql -pPW``, ``curl -u user:PW``, ``sshpass -p PW``,
    ``docker login -p PW``, ``htpasswd -b file user PW``), and ``password`` / ``secret`` /
    ``token`` for the value of a key whose name ends in a secret word (``password=``,
    ``"passwd": "..."``, ``export GITHUB_TOKEN=...``, ``client_secret:``, ``api_key=``,
    ``--password VALUE``): the key name stays. After the weaker words ``key`` and ``auth``
    (``license_key=``, ``X-Api-Key:``, ``--key``), only a value that looks generated is
    redacted, as ``secret``: 16 or more characters mixing letters and digits, not a path or
    a name made of words, with at least 3 bits of entropy per character.

    A value that is itself a recognised secret keeps that secret's kind
    (``OPENAI_API_KEY=sk-...`` gives ``[redacted:openai-key]``, so does ``Bearer sk-...``).

    Decisions for key-value pairs, where code and configuration look alike:

    - The key name must end with the secret word: ``tokenizer``, ``token_count = 5``,
      ``max_tokens`` and ``password_reset_view.py`` are untouched; ``/etc/passwd:`` is a path.
    - A quoted value is redacted unless it is empty, a reference (``"${DB_PASSWORD}"``,
      ``"{{ secret }}"``, ``"%(pw)s"``, ``"<your token>"``) or a mask (``"****"``).
    - An unquoted value is kept when it is code: a null or boolean word, a type annotation
      (``password: str``), a bare integer of at most three digits (``token = 0``; no real
      credential is that short), a call or index (``get_token()``, ``os.environ["KEY"]``),
      an attribute of a well-known object (``self.token``, ``settings.SECRET_KEY``) or a
      variable named after a secret (``api_key=api_key``). Anything else, numbers of four or
      more digits included (PINs), is redacted: ``password: hunter2`` -> ``password:
      [redacted:password]``. Prose such as ``invalid token: abc`` is redacted too; losing a
      word is cheaper than leaking a credential.
    - ``Bearer <v>`` outside an Authorization header needs a value that is not all letters
      (``Bearer authentication`` is prose).

    Redaction is idempotent (``redact_secrets(redact_secrets(t)) == redact_secrets(t)``): it
    runs to a fixed point, and a text with nothing to redact is checked once. It is linear in
    ``len(text)`` (at most four passes). ``benchmarks/bench_redact.py`` measures its cost per
    call on the texts a derivation hands it.
    """
    redacted = _apply(text, _ALL_RULES, _lower_same_length(text))
    # A replacement can change what a later pass sees around it (a key name's look-back, the
    # user part of a URL), so run to a fixed point. Each pass that changes anything turns
    # non-marker text into markers, so this converges; text without secrets takes one pass,
    # and the cap keeps the work linear.
    for _ in range(_MAX_PASSES - 1):
        if redacted is text:
            break
        text, redacted = redacted, _apply(redacted, _ALL_RULES, _lower_same_length(redacted))
    return redacted


# --------------------------------------------------------------------------------------------
# Containment

_PLAIN_LINE: Final = re.compile("[ -~]*+")  # printable ASCII: no line break, no control
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_ANSI: Final = re.compile(
    r"\x1b\[[0-?]*+[ -/]*+[@-~]?"  # CSI: colours, cursor moves (an unfinished one too)
    r"|\x1b\][^\x07\x1b\n]*+(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    r"|\x1b[PX^_][^\x1b\n]*+(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*+[0-~]?"  # other escapes (charset selection, ESC 7...) and a lone ESC
    r"|\x9b[0-?]*+[ -/]*+[@-~]?"  # 8-bit CSI
    r"|\x9d[^\x07\x1b\x9c\n]*+(?:\x07|\x9c)?"  # 8-bit OSC
)
# Invisible characters: every format character (category Cf through Unicode 16: zero-width
# spaces and joiners, bidi embeddings, overrides and isolates, BOM, tag characters, the
# Egyptian hieroglyph format controls), variation selectors, the combining grapheme joiner
# and the Hangul fillers.
_INVISIBLE: Final = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    "\u034f\u115f\u1160\u180b-\u180d\u180f\u3164\uffa0\ufe00-\ufe0f\U000e0100-\U000e01ef]"
)
# Every line break str.splitlines knows, other than "\n": CR, VT, FF, the file, group and
# record separators, NEL, and the Unicode line and paragraph separators.
_LINE_BREAK: Final = re.compile("\r\n|[\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_CONTROL: Final = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")  # after _LINE_BREAK
_TAB: Final = "\t"

# Chat-template and role markers, so that they cannot be read as markers. The mapping:
#   "<" before "|" or a fullwidth bar, and ">" after one: U+2039 and U+203A (single angle
#   quotation marks), so <|im_start|>, <|endoftext|>, any <|...|> lose their delimiters;
#   <<SYS>> and <</SYS>>: U+00AB SYS U+00BB (guillemets);
#   [INST] [/INST] [SYSTEM_PROMPT] [AVAILABLE_TOOLS] [TOOL_CALLS] [TOOL_RESULTS]: the brackets
#   become U+FF3B and U+FF3D (fullwidth);
#   every tag, <system>, </system>, <assistant>, </tool_result>, <s>: U+2039 and U+203A
#   around it; a "<" that opens a tag without closing it here ("<system" at the end of one
#   field would close with a ">" in the next) and "<!" (an HTML comment) get U+2039 too;
#   "Human:" and "Assistant:" anywhere, and "System:", "User:", "AI:", "Developer:", "Tool:",
#   "Model:" at a line start, after nothing but spaces and punctuation ("> - System:",
#   "```System:", a quotation mark), or opening a code span or a quotation anywhere: the
#   colon becomes U+A789 (modifier letter colon);
#   a run of "#" at a line start ("### Instruction", "## Current goal"): U+FF03 each.
_PIPE_OPEN: Final = re.compile("<(?=[|\uff5c])")
_PIPE_CLOSE: Final = re.compile("(?<=[|\uff5c])>")
_DOUBLE_ANGLE: Final = re.compile(r"<<(/?[A-Za-z_]{1,20}+)>>")
_BRACKET_MARKER: Final = re.compile(
    r"(?i)\[(/?(?:INST|SYS|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS))\]"
)
_TAG: Final = re.compile(r"<(/?[A-Za-z][\w:.-]{0,40}+(?:\s[^<>]{0,200}+)?/?)>")
_TAG_OPEN: Final = re.compile("<(?=[A-Za-z/!])")
# [^\w\n] is any space or punctuation but a line break: a no-break space before "System:" is
# gone once the line's whitespace is collapsed, and a quote, fence or list mark before it only
# frames it, so neither may hide the role from these patterns.
_ROLE_AT_LINE_START: Final = re.compile(
    r"(?im)^([^\w\n]*+"
    r"(?:human|assistant|system|user|ai|developer|tool|model)[^\S\n]*+):"
)
_TURN_ROLE: Final = re.compile(r"(?i)(?<![A-Za-z0-9_])((?:human|assistant)[^\S\n]*+):")
# A role opening a code span or a quotation anywhere in a line reads as a turn too.
_QUOTED_ROLE: Final = re.compile(
    r"(?i)([`\u201c][^\S\n]*+(?:system|user|ai|developer|tool|model)[^\S\n]*+):"
)
_HASHES_AT_LINE_START: Final = re.compile(r"(?m)^([^\S\n]*+)(#{1,6}+)(?=[^\S\n]|$)")

# A leading Markdown structure, so that a fragment cannot pass for a heading, quote, list item,
# task box, rule, fence or table row: its first characters become look-alikes.
_LEADING_MARKDOWN: Final = re.compile(
    r"#{1,6}+|>|[-*+_=](?=[ \t]|[-*+_=]*+$)|[-*_=]{3,}+|`{3,}+|~{3,}+|\d{1,9}+[.)]|\|"
    r"|\[(?!redacted:)"
)
_LOOK_ALIKE: Final = str.maketrans(
    {
        "#": "\uff03",  # fullwidth number sign
        ">": "\u203a",  # single right-pointing angle quotation mark
        "-": "\u2010",  # hyphen
        "*": "\u2217",  # asterisk operator
        "+": "\uff0b",  # fullwidth plus sign
        "_": "\uff3f",  # fullwidth low line
        "=": "\uff1d",  # fullwidth equals sign
        "`": "\uff40",  # fullwidth grave accent
        "~": "\uff5e",  # fullwidth tilde
        ".": "\uff0e",  # fullwidth full stop
        ")": "\uff09",  # fullwidth right parenthesis
        "|": "\u2502",  # box drawings light vertical
        "[": "\uff3b",  # fullwidth left square bracket
    }
)

_QUOTE_OPEN: Final = "\u201c"
_QUOTE_CLOSE: Final = "\u201d"
# Curly quotes become straight ones in single-line text, so that no field can open or close
# the memory's own quotation of data: U+201C-U+201F and U+2033 become ", U+2018-U+201B and
# U+2032 become '.
_CURLY_QUOTES: Final = str.maketrans(
    dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"')
    | dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'")
)
_MIN_WINDOW: Final = 4096


def _neutralise_line_starts(text: str) -> str:
    text = _ROLE_AT_LINE_START.sub("\\1\ua789", text)
    return _HASHES_AT_LINE_START.sub(lambda m: m.group(1) + "\uff03" * len(m.group(2)), text)


def _neutralise_markers(text: str) -> str:
    # Each pass runs only when its marker's first character is there (a pass that cannot
    # match changes nothing): most texts have no "<", "[" or "|>" at all.
    if "<" in text:
        text = _PIPE_OPEN.sub("\u2039", text)
    if ">" in text:
        text = _PIPE_CLOSE.sub("\u203a", text)
    if "<<" in text:
        text = _DOUBLE_ANGLE.sub("\u00ab\\1\u00bb", text)
    if "[" in text:
        text = _BRACKET_MARKER.sub("\uff3b\\1\uff3d", text)
    if "<" in text:
        text = _TAG.sub("\u2039\\1\u203a", text)
    # (?i) also matches U+017F, U+0131 and U+0130 to "s" and "i": only ASCII can skip the pass.
    if not text.isascii() or "human" in text.lower() or "assistant" in text.lower():
        text = _TURN_ROLE.sub("\\1\ua789", text)
    if "`" in text or "\u201c" in text:
        text = _QUOTED_ROLE.sub("\\1\ua789", text)
    return _TAG_OPEN.sub("\u2039", text) if "<" in text else text


def _neutralise_leading_markdown(line: str) -> str:
    m = _LEADING_MARKDOWN.match(line)
    if m is None:
        return line
    return m.group(0).translate(_LOOK_ALIKE) + line[m.end() :]


_PRINTABLE_LINES: Final = re.compile("[ -~\t\n]*+")  # nothing for _visible_lines to change


def _visible_lines(text: str) -> str:
    """``text`` without escapes, invisible or control characters, every line break a ``\\n``."""
    if _PRINTABLE_LINES.fullmatch(text):
        return text
    text = _SURROGATE.sub("\ufffd", text)
    text = _ANSI.sub("", text)
    text = _INVISIBLE.sub("", text)
    text = _LINE_BREAK.sub("\n", text)
    return _CONTROL.sub("", text)  # after the escapes, so ESC [31m leaves no "[31m"


def _is_plain(text: str) -> bool:
    """Whether only redaction, whitespace and a leading Markdown structure can change ``text``.

    True for most texts (names, paths, commands, one-line errors): one line of printable
    ASCII (so nothing for :func:`_visible_lines` to remove) with no marker character, no role
    and no heading.
    """
    if _PLAIN_LINE.fullmatch(text) is None or "<" in text or "[" in text or "|>" in text:
        return False
    if _ROLE_AT_LINE_START.match(text) or _HASHES_AT_LINE_START.match(text):
        return False
    if "`" in text and _QUOTED_ROLE.search(text):
        return False
    lowered = text.lower()  # a cheap test first: _TURN_ROLE has no literal prefix to skip to
    return not (("human" in lowered or "assistant" in lowered) and _TURN_ROLE.search(text))


def _clean(text: str, markdown: bool, *, shortcut: bool = True) -> str:
    """The uncapped single-line form of ``text``: the one containment path for a line.

    With ``shortcut`` (always, outside the tests), plain text (see :func:`_is_plain`) with
    no secret skips the passes that cannot change it, and plain text with a secret skips
    :func:`_visible_lines`; a property test proves the branches give what every pass gives.
    """
    plain = shortcut and _is_plain(text)
    redacted = redact_secrets(text if plain else _visible_lines(text))
    if plain and redacted == text:
        line = " ".join(text.split())
    else:
        text = _neutralise_line_starts(redacted)  # redacted on the lines, before the join
        lines = (" ".join(line.split()) for line in text.split("\n"))
        line = NEWLINE_MARK.join(part for part in lines if part)
        line = _neutralise_markers(line).translate(_CURLY_QUOTES)
    return _neutralise_leading_markdown(line) if markdown else line


def contain_block(text: str) -> str:
    """Make multi-line text (the user's request) safe to quote line by line in the memory.

    The meaning is kept, lines and indentation included; what is not meaning goes: lone
    surrogates become U+FFFD; ANSI escape sequences, control characters and invisible
    characters go; every line break becomes ``\\n`` (``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``,
    NEL, U+2028 and U+2029 included) and tabs become spaces (to 4-column stops); secrets are
    redacted; chat-template and role markers are neutralised as in :func:`contain_untrusted`
    (a ``#`` at a line start is kept: the memory quotes each line after ``> ``). The result
    has no control character other than ``\\n``. Any ``str`` is accepted.
    """
    text = _visible_lines(text).expandtabs(4)
    text = redact_secrets(text)
    text = _ROLE_AT_LINE_START.sub("\\1\ua789", text)
    return _neutralise_markers(text)


def _cap(line: str, max_chars: int) -> str:
    if len(line) <= max_chars:
        return line
    cut = max_chars - 1  # room for the ellipsis
    marker_start = line.rfind(_MARKER_PREFIX, 0, cut)
    if marker_start >= 0 and line.find("]", marker_start) >= cut:
        cut = marker_start  # never leave half a [redacted:...] marker
    head = line[:cut].rstrip()
    if head.endswith("\u23ce"):
        head = head[:-1].rstrip()
    return head + "\u2026"


def _single_line(text: str, max_chars: int, markdown: bool) -> str:
    if max_chars < 1:
        raise ConfigError(f"max_chars must be at least 1, not {max_chars}")
    # Bound the work on huge text: clean a window a few times larger than the cap (cleaning
    # only shrinks text) and widen it while the result is still too short to be capped.
    window = max(4 * max_chars, _MIN_WINDOW)
    while True:
        truncated = len(text) > window
        raw = text[:window]
        if truncated and not raw[-1].isspace():
            # Drop the word the window cut: a secret cut in two might not be recognised.
            words = raw.rsplit(None, 1)
            raw = words[0] if len(words) == 2 else ""
        line = _clean(raw, markdown)
        if not truncated:
            return _cap(line, max_chars)
        if len(line) > max_chars:
            return _cap(line, max_chars)
        window *= 4


def contain_untrusted(text: str, max_chars: int = 400) -> str:
    """Make text from tool output safe to place on one line of the Markdown memory.

    In order: lone surrogates become U+FFFD; ANSI escape sequences (CSI, OSC, DCS...) and
    other control characters go; invisible characters (zero-width, bidi overrides and
    isolates, BOM, tag characters, variation selectors) go; secrets are redacted
    (:func:`redact_secrets`); chat-template and role markers are neutralised with look-alike
    characters (``<|`` and ``|>``, every ``<tag>``, ``[INST]``, ``<<SYS>>``, the colon of
    ``Human:`` and ``Assistant:`` anywhere and of ``System:``/``User:``... at a line start, a
    ``#`` run at a line start; the mapping is listed above ``_PIPE_OPEN`` in this module);
    each line's whitespace collapses to single spaces, tabs included; empty lines go and line
    breaks (``\\r``, ``\\v``, ``\\f``, NEL, U+2028... as well as ``\\n``) become `` ⏎ ``
    (:data:`NEWLINE_MARK`); curly quotes become straight ones (U+201C-U+201F and U+2033
    ``"``, U+2018-U+201B and U+2032 ``'``), so no text can open or close the memory's
    quotation of data; a leading Markdown structure (``#``, ``>``, ``- ``, ``* ``, ``+ ``,
    ``1. ``, ``[ ]``, ``---``, triple backticks, ``|``) gets look-alike characters (fullwidth
    forms, U+2010 hyphen, U+2217 asterisk operator...) so the line cannot pass for a heading,
    quote, list item or fence.

    The result has no line break or control character, never starts or ends with whitespace,
    and has at most ``max_chars`` characters: when text is cut, it ends with ``…`` (counted),
    and the cut never splits a ``[redacted:<kind>]`` marker. The work is bounded by
    ``max_chars`` for ordinary text, whatever ``len(text)``. Raises :class:`ConfigError` only
    when ``max_chars < 1``; any ``str`` is accepted.
    """
    return _single_line(text, max_chars, markdown=True)


def quote_untrusted(text: str, max_chars: int = 400) -> str:
    """:func:`contain_untrusted` wrapped in curly double quotes: ``“...”``.

    The renderer uses this form for every excerpt of tool output, so the model always sees
    where quoted text starts and ends. Curly quotes inside become straight ones, so quoted
    text can never close the quotation early. ``max_chars`` caps the text inside the
    quotes; the result has at most ``max_chars + 2`` characters.
    """
    inner = _single_line(text, max_chars, markdown=True)
    return f"{_QUOTE_OPEN}{inner}{_QUOTE_CLOSE}"


def contain_trusted_line(text: str, max_chars: int) -> str:
    """The single-line cleaning of :func:`contain_untrusted` for our own short strings.

    For tool names, paths and commands, which are not tool output but must still sit on one
    memory line: the same removal of escapes, control and invisible characters, the same
    redaction, marker neutralisation, curly quote normalisation, line joining and cap. A
    leading Markdown character is kept (``> out.log``, ``--force``, ``# comment`` read as
    written): the renderer always puts these after its own prefix, never at the start of a
    line.

    The cleaned line of each of the most recent :data:`TRUSTED_LINES_CACHED` texts is
    kept, whatever the cap it was asked with: a session names the same tools, paths and
    commands over and over (half of the 2,544 calls of a 3 MB Claude Code session's fold
    repeat an earlier one), and each costs ~11 µs; the same path or pattern is also asked
    for at two caps (a call's todo names it at 160 characters, the rolling line of files
    read at 80), which half of the other calls were. A text up to the cleaning window is
    cleaned whole whatever the cap, so only the cap is applied per call; a longer one is
    computed afresh. The result is that of :func:`contain_trusted_line_uncached`.
    """
    if len(text) <= _MIN_WINDOW and max_chars >= 1:
        return _cap(_trusted_line_cached(text), max_chars)
    return _single_line(text, max_chars, markdown=False)


def contain_trusted_line_uncached(text: str, max_chars: int) -> str:
    """:func:`contain_trusted_line` computed every time (what the cached one is tested
    against)."""
    return _single_line(text, max_chars, markdown=False)


TRUSTED_LINES_CACHED: Final = 4096


def _trusted_line(text: str) -> str:
    """The uncapped line :func:`_single_line` cleans a text of at most ``_MIN_WINDOW``
    characters into (such a text is never windowed, whatever the cap)."""
    return _clean(text, markdown=False)


_trusted_line_cached: Final = functools.lru_cache(maxsize=TRUSTED_LINES_CACHED)(_trusted_line)
