"""The rules that find a secret by its context: a key word, a header, a flag, a connection string.

Each rule is an anchored regular expression that starts with one of its literal triggers
(see :mod:`session_memory.core.rule_set`) and a handler that decides, from the value it
found, whether that value is a secret (:mod:`session_memory.core.secret_values`).
:data:`PRIORITY_RULES` are tried before the value formats, :data:`CONTEXT_RULES` after them.
"""

from __future__ import annotations

import re
from typing import Final

from session_memory.core.rule_set import MARKER_PREFIX, Handler, Rule, marker
from session_memory.core.secret_values import (
    looks_like_reference,
    looks_random,
    redact_specific,
    specific_kind,
    unquoted_is_code,
)

__all__ = ["CONTEXT_RULES", "PRIORITY_RULES"]

_AWS_SECRET_VALUE: Final = re.compile(r"[A-Za-z0-9/+]{40}")

# The leftmost match wins (see rule_set.apply_rules), so a key name ("GITHUB_TOKEN=",
# "Authorization:") is seen before the value it introduces; the value is then classified by
# the value formats, so the more precise kind is kept.

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
        # that looks random: the high-entropy fallback (see looks_random).
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
        # curl -u user:password (--user), also glued (-uuser:password); a user has no "%"
        # (date -u +%H:%M is a format).
        "user_password",
        r"(?<![\w-])(?P<cu_p>(?:-u|--user)(?:[ \t]++|=)?+[\"']?(?P<cu_u>[^\s:'\"%]{1,100}+):)"
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


def _closes_the_key(m: re.Match[str], name_start: int, quote_group: str) -> bool:
    """Whether the quote read as opening the value closes the string the key is in:
    ``print('token:', x)`` has no value; ``{"token":"..."}`` and ``'token: "..."'`` have."""
    text, quote = m.string, m.group(quote_group)
    opened = name_start > 0 and text[name_start - 1] == quote[-1]
    return opened and text[m.end("g_k")] not in "\\\"'"


def _replace_assignment(m: re.Match[str]) -> str:
    whole = m.group(0)
    base = m.start()
    prefix, name_start = _key_name(m.string, base)
    if name_start > 0 and m.string[name_start - 1] in "/\\":
        return redact_specific(whole)  # a path such as /etc/passwd: not a key
    keyword = m.group("g_k")
    for quote_group, value_group in (("g_q1", "g_qv1"), ("g_q2", "g_qv2"), ("g_q3", "g_qv3")):
        if m.group(quote_group) is not None:
            value = m.group(value_group)
            if looks_like_reference(value) or _closes_the_key(m, name_start, quote_group):
                return redact_specific(whole)
            break
    else:
        value_group = "g_uv"
        value = m.group(value_group)
        if unquoted_is_code(value):
            return redact_specific(whole)
    if keyword.lower() == "auth" and value.isalpha() and len(value) <= _AUTH_SCHEME_CHARS:
        return redact_specific(whole)  # a scheme or a mode: auth: basic, "auth": "none"
    kind = specific_kind(value)
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
    return redact_specific(head) + marker(kind) + redact_specific(tail)


def _replace_value(m: re.Match[str], prefix_group: str, value_group: str, kind: str) -> str:
    value = m.group(value_group)
    if value.startswith(MARKER_PREFIX):
        return redact_specific(m.group(0))
    # The kept context is scanned too: in https://ghp_...:x-oauth-basic@github.com the user
    # is the secret.
    return redact_specific(m.group(prefix_group)) + marker(specific_kind(value) or kind)


def _replace_bearer(m: re.Match[str]) -> str:
    value = m.group("b_v")
    if all(word.isalpha() for word in value.rstrip(".").split("-")):
        return m.group(0)  # prose: "Bearer authentication", "bearer credentials."
    return _replace_value(m, "b_p", "b_v", "bearer-token")


def _replace_cli_flag(m: re.Match[str]) -> str | None:
    prefix, _start = _key_name(m.string, m.start())
    value = m.group("cf_v")
    if not prefix.startswith("-") or unquoted_is_code(value):
        return None  # not a flag ("a token value"), or code
    flag = m.group("cf_p").lower()
    word = flag.rstrip()
    if word in ("key", "auth") and not looks_random(value):
        return None  # --key server.pem, --auth basic
    kind = "password" if "pass" in flag else "token" if "token" in flag else "secret"
    return _replace_value(m, "cf_p", "cf_v", kind)


def _replace_aws_secret(m: re.Match[str]) -> str:
    cut = m.start("as_v") - m.start()
    return m.group(0)[:cut] + marker("aws-secret-key")


def _replace_key_value(m: re.Match[str]) -> str | None:
    if not looks_random(m.group("kv_v")):
        return None
    return _replace_value(m, "kv_p", "kv_v", "secret")


def _replace_flag_password(prefix_group: str, value_group: str) -> Handler:
    """A password given to a command-line flag; a variable reference or a port is kept."""

    def replace(m: re.Match[str]) -> str | None:
        value = m.group(value_group)
        quote = value[0] if value[0] in "'\"" else ""
        bare = value.strip("'\"")
        if looks_like_reference(bare) or (bare.isdigit() and len(bare) <= 5):
            return None
        return redact_specific(m.group(prefix_group)) + quote + marker("password") + quote

    return replace


def _replace_htpasswd(m: re.Match[str]) -> str | None:
    flags = m.group("ht_f")
    if "b" not in flags:
        return None
    parts = re.split(r"([ \t]++)", m.group("ht_a"))  # ["", " ", "file", " ", "user", ...]
    password = 4 if "n" in flags else 6  # the index of the password word in parts
    if len(parts) <= password or looks_like_reference(parts[password]):
        return None
    parts[password] = marker("password")
    return "htpasswd" + redact_specific(flags) + "".join(parts)


_TWILIO_SID: Final = re.compile(r"AC[0-9a-f]{32}")


def _replace_user_password(m: re.Match[str]) -> str | None:
    value = m.group("cu_v")
    if looks_like_reference(value) or (value.isdigit() and m.group("cu_u").isdigit()):
        return None  # -u $CREDS, docker run -u 1000:1000
    kind = "twilio-token" if _TWILIO_SID.fullmatch(m.group("cu_u")) else "password"
    return _replace_value(m, "cu_p", "cu_v", kind)


def _replace_aws_pair(m: re.Match[str]) -> str:
    return marker("aws-access-key") + m.group("ak_sep") + marker("aws-secret-key")


_CONTEXT_HANDLERS: Final[dict[str, Handler]] = {
    "aws_key_pair": _replace_aws_pair,
    "aws_secret_key": _replace_aws_secret,
    "slack_webhook": lambda m: m.group("sw_p") + marker("slack-token"),
    "url_password": lambda m: _replace_value(m, "up_p", "up_v", "url-password"),
    "auth_header": lambda m: _replace_value(m, "ah_p", "ah_v", "bearer-token"),
    "bearer": _replace_bearer,
    "assignment": _replace_assignment,
    "cli_flag": _replace_cli_flag,
    "key_value": _replace_key_value,
    "azure_key": lambda m: _replace_value(m, "az_p", "az_v", "azure-key"),
    "azure_sas": lambda m: _replace_value(m, "sas_p", "sas_v", "azure-sas"),
    "telegram": lambda _m: ":" + marker("telegram-token"),
    "twilio": lambda m: _replace_value(m, "tw_p", "tw_v", "twilio-token"),
    "kubeconfig_key": lambda m: _replace_value(m, "kc_p", "kc_v", "private-key"),
    "putty_private": lambda m: m.group("pk_p") + " " + marker("private-key"),
    "mysql_password": _replace_flag_password("my_p", "my_v"),
    "sshpass": _replace_flag_password("sp_p", "sp_v"),
    "login_password": _replace_flag_password("lp_p", "lp_v"),
    "htpasswd": _replace_htpasswd,
    "user_password": _replace_user_password,
}


# Context rules found by a search instead of a trigger (see RuleSet): (pattern, minimum
# length of a text worth searching).
_CONTEXT_SCANS: Final[dict[str, tuple[str, int]]] = {"twilio": (r"AC[0-9a-f]{32}", 66)}


def _context_rules(rules: tuple[tuple[str, str, tuple[str, ...]], ...]) -> tuple[Rule, ...]:
    return tuple(
        Rule(pattern, triggers, _CONTEXT_HANDLERS[name], "", *_CONTEXT_SCANS.get(name, ("", 0)))
        for name, pattern, triggers in rules
    )


PRIORITY_RULES: Final = _context_rules(_PRIORITY_RULES)
"""Rules tried before the value formats of :mod:`session_memory.core.token_formats`."""

CONTEXT_RULES: Final = _context_rules(_CONTEXT_RULES)
"""Rules tried after the value formats."""
