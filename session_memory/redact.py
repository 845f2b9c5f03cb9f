"""Secret redaction and containment of untrusted text (DESIGN section 3).

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

import re
from collections.abc import Callable
from typing import Final

from session_memory.errors import ConfigError

__all__ = [
    "NEWLINE_MARK",
    "REDACTION_KINDS",
    "contain_block",
    "contain_trusted_line",
    "contain_untrusted",
    "quote_untrusted",
    "redact_secrets",
]

REDACTION_KINDS: Final[tuple[str, ...]] = (
    "private-key",
    "aws-access-key",
    "aws-secret-key",
    "github-token",
    "anthropic-key",
    "openai-key",
    "slack-token",
    "google-api-key",
    "stripe-key",
    "jwt",
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

_TOKEN_END: Final = r"(?![A-Za-z0-9_])"

# Specific rules: the value alone identifies the kind. (name, kind, pattern, triggers); the
# triggers are the literal starts of a match, found case-insensitively.
_SPECIFIC: Final[tuple[tuple[str, str, str, tuple[str, ...]], ...]] = (
    (
        "private_key",
        "private-key",
        # Through the END line, or to the end of the text when it is missing (a truncated key
        # is still a key). Lazy scan: it stops at the first END line.
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?s:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*)",
        ("-----BEGIN",),
    ),
    (
        "aws_access_key",
        "aws-access-key",
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    (
        "github_token",
        "github-token",
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{30,}+)"
        + _TOKEN_END,
        ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
    ),
    (
        "anthropic_key",
        "anthropic-key",
        r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}+",
        ("sk-ant-",),
    ),
    (
        # A kebab-case word after "sk-" is not a key: require a digit, as every real key has.
        "openai_key",
        "openai-key",
        r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]*+[0-9])"
        r"[A-Za-z0-9_-]{20,}+",
        ("sk-",),
    ),
    (
        "slack_token",
        "slack-token",
        r"(?<![A-Za-z0-9_])(?:xox[abposr]-[A-Za-z0-9-]{10,}+|xapp-[0-9]-[A-Za-z0-9-]{10,}+)",
        ("xox", "xapp-"),
    ),
    (
        "google_api_key",
        "google-api-key",
        r"(?<![A-Za-z0-9_])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])",
        ("AIza",),
    ),
    (
        "stripe_key",
        "stripe-key",
        r"(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[A-Za-z0-9]{16,}+" + _TOKEN_END,
        ("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
    ),
    (
        "jwt",
        "jwt",
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]*+",
        ("eyJ",),
    ),
)

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
        # The scheme and user before "://user:" are kept, as is the host after "@".
        "url_password",
        r"(?<=[A-Za-z0-9])(?P<up_p>://[^\s:/?#@\[\]'\"<>]{0,256}+:)"
        r"(?P<up_v>[^\s/?#@'\"<>]{1,256}+)(?=@)",
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
        # "--password VALUE", "--api-key VALUE": the handler checks the word starts with "-".
        "cli_flag",
        r"(?P<cf_p>(?i:password|passwd|token|secret|api-?key)(?![\w-])[ \t]++)"
        r"(?P<cf_v>[^\s'\"-][^\s'\"]{0,1024}+)",
        ("pass", "token", "secret", "api"),
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
    """The kind of the specific secret that ``value`` starts with, if any."""
    for rule in _SPECIFIC_RULES.rules:
        if rule.regex.match(value) is not None:
            return rule.kind
    return None


def _redact_specific(text: str) -> str:
    """Redact only the specific kinds: for text that a broader rule decided to keep."""
    return _apply(text, _SPECIFIC_RULES, _lower_same_length(text))


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


def _replace_cli_flag(m: re.Match[str]) -> str:
    prefix, _start = _key_name(m.string, m.start())
    value = m.group("cf_v")
    if not prefix.startswith("-") or _unquoted_is_code(value):
        return _redact_specific(m.group(0))  # not a flag ("a token value"), or code
    flag = m.group("cf_p").lower()
    kind = "password" if "pass" in flag else "token" if "token" in flag else "secret"
    return _replace_value(m, "cf_p", "cf_v", kind)


def _replace_aws_secret(m: re.Match[str]) -> str:
    cut = m.start("as_v") - m.start()
    return m.group(0)[:cut] + _marker("aws-secret-key")


class _Rule:
    """One anchored rule: where it may start, how it matches, what replaces a match."""

    __slots__ = ("handler", "kind", "regex", "triggers")

    def __init__(
        self,
        pattern: str,
        triggers: tuple[str, ...],
        handler: Callable[[re.Match[str]], str],
        kind: str = "",
    ) -> None:
        self.regex = re.compile(pattern)
        self.triggers = triggers  # literal starts, matched case-insensitively
        self.handler = handler
        self.kind = kind


def _whole(kind: str) -> Callable[[re.Match[str]], str]:
    marker = _marker(kind)
    return lambda _m: marker


_CONTEXT_HANDLERS: Final[dict[str, Callable[[re.Match[str]], str]]] = {
    "aws_secret_key": _replace_aws_secret,
    "slack_webhook": lambda m: m.group("sw_p") + _marker("slack-token"),
    "url_password": lambda m: _replace_value(m, "up_p", "up_v", "url-password"),
    "auth_header": lambda m: _replace_value(m, "ah_p", "ah_v", "bearer-token"),
    "bearer": _replace_bearer,
    "assignment": _replace_assignment,
    "cli_flag": _replace_cli_flag,
}


class _RuleSet:
    """Rules in priority order, and one trigger regex that finds where any of them may start.

    The trigger regex is a literal alternation over the lowercased text, grouped by first
    character so that re's charset prefix and branch skipping make a miss cost a few
    nanoseconds per character. Triggers that contain a shorter trigger are dropped (the
    shorter one finds them) and the rest are searched overlapping, so none is missed.
    """

    __slots__ = ("gate", "rules", "starts")

    def __init__(self, rules: tuple[_Rule, ...]) -> None:
        self.rules = rules
        wanted = {t.lower() for rule in rules for t in rule.triggers}
        minimal = sorted(t for t in wanted if not any(o != t and o in t for o in wanted))
        # trigger -> [(offset of the trigger inside the rule's start, rule index)]
        self.starts: dict[str, list[tuple[int, int]]] = {t: [] for t in minimal}
        for index, rule in enumerate(rules):
            for trigger in {t.lower() for t in rule.triggers}:
                for short in minimal:
                    offset = trigger.find(short)
                    if offset >= 0 and (offset, index) not in self.starts[short]:
                        self.starts[short].append((offset, index))
        by_first: dict[str, list[str]] = {}
        for t in minimal:
            by_first.setdefault(t[0], []).append(re.escape(t[1:]))
        self.gate = re.compile(
            "|".join(
                re.escape(first) + "(?:" + "|".join(rests) + ")"
                for first, rests in sorted(by_first.items())
            )
        )

    def candidates(self, lowered: str) -> list[tuple[int, int]]:
        """Every (position, rule index) where a rule may match, sorted."""
        found: list[tuple[int, int]] = []
        hit = self.gate.search(lowered)
        while hit is not None:
            at = hit.start()
            for offset, index in self.starts[hit.group()]:
                if at >= offset:
                    found.append((at - offset, index))
            hit = self.gate.search(lowered, at + 1)
        found.sort()
        return found


_SPECIFIC_RULES: Final = _RuleSet(
    tuple(_Rule(pattern, triggers, _whole(kind), kind) for _n, kind, pattern, triggers in _SPECIFIC)
)
_ALL_RULES: Final = _RuleSet(
    _SPECIFIC_RULES.rules
    + tuple(
        _Rule(pattern, triggers, _CONTEXT_HANDLERS[name])
        for name, pattern, triggers in _CONTEXT_RULES
    )
)


def _apply(text: str, rule_set: _RuleSet, lowered: str) -> str:
    """One left-to-right pass: at each candidate, in rule order, the first match is replaced."""
    candidates = rule_set.candidates(lowered)
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
        parts.append(text[done:pos])
        parts.append(rules[index].handler(m))
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

    Kinds (see :data:`REDACTION_KINDS`): ``private-key`` (a PEM ``BEGIN ... PRIVATE KEY``
    block through its END line, or to the end of the text when END is missing),
    ``aws-access-key`` (``AKIA``/``ASIA``... ids), ``aws-secret-key`` (40 characters after an
    ``aws_secret_access_key``-like name), ``github-token`` (``ghp_ gho_ ghs_ ghu_ ghr_
    github_pat_``), ``anthropic-key`` (``sk-ant-``), ``openai-key`` (``sk-``, ``sk-proj-``),
    ``slack-token`` (``xox?-`` tokens, ``xapp-``, the path of a hooks.slack.com webhook),
    ``google-api-key`` (``AIza`` + 35), ``stripe-key`` (``sk_live_``, ``rk_live_`` and the
    ``_test_`` keys, which still open an account), ``jwt`` (three base64url segments starting
    ``eyJ``), ``url-password`` (``scheme://user:PASSWORD@host``: scheme, user and host stay),
    ``bearer-token`` (``Bearer <v>``, ``Authorization: Basic <v>`` and other Authorization
    header values), and ``password`` / ``secret`` / ``token`` for the value of a key whose name
    ends in a secret word (``password=``, ``"passwd": "..."``, ``export GITHUB_TOKEN=...``,
    ``client_secret:``, ``api_key=``, ``--password VALUE``): the key name stays.

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
    ``len(text)`` (at most four passes). Speed, measured with ``python -m timeit`` on the
    development machine (CPython 3.11), per 200-character line: 3.5 us with no trigger word
    (the cost of the trigger search), 4.4 us with a trigger word such as "passed" or "token"
    but no secret, 16 us with one secret (two passes). 1 MB of test output mentioning
    "token" on every line: 70 ms; 1 MB repetitions of any rule's prefix: about a second at
    most.
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
#   around it; "<!" (an HTML comment) gets U+2039 too;
#   "Human:" and "Assistant:" anywhere, and "System:", "User:", "AI:", "Developer:", "Tool:",
#   "Model:" at a line start: the colon becomes U+A789 (modifier letter colon);
#   a run of "#" at a line start ("### Instruction", "## Current goal"): U+FF03 each.
_PIPE_OPEN: Final = re.compile("<(?=[|\uff5c])")
_PIPE_CLOSE: Final = re.compile("(?<=[|\uff5c])>")
_DOUBLE_ANGLE: Final = re.compile(r"<<(/?[A-Za-z_]{1,20}+)>>")
_BRACKET_MARKER: Final = re.compile(
    r"(?i)\[(/?(?:INST|SYS|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS))\]"
)
_TAG: Final = re.compile(r"<(/?[A-Za-z][\w:.-]{0,40}+(?:\s[^<>]{0,200}+)?/?)>")
_COMMENT_OPEN: Final = re.compile("<!")
_ROLE_AT_LINE_START: Final = re.compile(
    r"(?im)^([ \t]*+[>*+-]*+[ \t]*+(?:human|assistant|system|user|ai|developer|tool|model)"
    r"[ \t]*+):"
)
_TURN_ROLE: Final = re.compile(r"(?i)(?<![A-Za-z0-9_])((?:human|assistant)[ \t]*+):")
_HASHES_AT_LINE_START: Final = re.compile(r"(?m)^([ \t]*+)(#{1,6}+)(?=[ \t]|$)")

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
    text = _PIPE_OPEN.sub("\u2039", text)
    text = _PIPE_CLOSE.sub("\u203a", text)
    text = _DOUBLE_ANGLE.sub("\u00ab\\1\u00bb", text)
    text = _BRACKET_MARKER.sub("\uff3b\\1\uff3d", text)
    text = _TAG.sub("\u2039\\1\u203a", text)
    text = _TURN_ROLE.sub("\\1\ua789", text)
    return _COMMENT_OPEN.sub("\u2039!", text)


def _neutralise_leading_markdown(line: str) -> str:
    m = _LEADING_MARKDOWN.match(line)
    if m is None:
        return line
    return m.group(0).translate(_LOOK_ALIKE) + line[m.end() :]


def _visible_lines(text: str) -> str:
    """``text`` without escapes, invisible or control characters, every line break a ``\\n``."""
    text = _SURROGATE.sub("\ufffd", text)
    text = _ANSI.sub("", text)
    text = _INVISIBLE.sub("", text)
    text = _LINE_BREAK.sub("\n", text)
    return _CONTROL.sub("", text)  # after the escapes, so ESC [31m leaves no "[31m"


def _is_plain(text: str) -> bool:
    """Whether only redaction, whitespace and a leading Markdown structure can change ``text``.

    True for most texts (names, paths, commands, one-line errors): one line of printable
    ASCII with no marker character, no role and no heading.
    """
    return (
        _PLAIN_LINE.fullmatch(text) is not None
        and "<" not in text
        and "[" not in text
        and "|>" not in text
        and _ROLE_AT_LINE_START.match(text) is None
        and _HASHES_AT_LINE_START.match(text) is None
        and _TURN_ROLE.search(text) is None
        and redact_secrets(text) == text
    )


def _clean(text: str, markdown: bool, *, shortcut: bool = True) -> str:
    """The uncapped single-line form of ``text``: the one containment path for a line.

    With ``shortcut`` (always, outside the tests), plain text (see :func:`_is_plain`) skips
    the passes that cannot change it; a property test proves both branches give the same.
    """
    if shortcut and _is_plain(text):
        line = " ".join(text.split())
    else:
        text = _visible_lines(text)
        text = redact_secrets(text)  # on the lines, before they are joined
        text = _neutralise_line_starts(text)
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
    """
    return _single_line(text, max_chars, markdown=False)
