"""Credentials that no key word or value format marks: stated in prose, encoded, passed by position.

Each rule names a place where a credential stands and asks of the value found there whether
it is one (:mod:`session_memory.core.secret_values`):

- **stated in a sentence**: a password, passphrase, passcode, PIN, token, secret or API key
  named in prose, and what it *is* (*was*, *is now*, *was set to*, *to*, ``:``): ``the
  staging password is hunter2!``, ``I reset the vault password to …``, ``the passphrase is
  '…'``, ``passcode: …``; or the value right after it where a verb says it is used: ``log
  in with the admin password …``, ``use token …``.
  The value counts when it is quoted after a password word, or shaped like a password
  (:func:`~session_memory.core.secret_values.password_shaped`); ``the token is expired``
  and ``the password is 8 characters long`` are prose.
- **encoded**: a run of base64, base64url or hex (``0x`` or not; lines of 60 characters or
  more continue on the next line, as ``base64`` and ``xxd -p`` wrap them) whose decoded text
  holds a known credential format: the run is that credential, of that kind. Decoded text
  without one (``hello world``, a certificate, binary data) is kept.
- **passed by position**: the string arguments of a call after its first (the first names an
  account, a user or a host). In a call whose name says it authenticates (``login``,
  ``HTTPBasicAuth``, ``NetworkCredential``, ``OAuth1``), every such argument after another
  string is a credential unless it is a stand-in or an address; one after a variable
  (``HTTPBasicAuth(user, '…')``) when it is shaped like a password or looks generated. In
  any other call, one that looks generated
  (:func:`~session_memory.core.secret_values.looks_random`) right after another string
  (``Client('<id>', '<secret>')``, ``Minio(host, key, secret)``), unless it has the shape of
  a digest or a UUID, which name commits and files; a client's or a connection's arguments
  are credentials in any shape. These rules are tried after all the others
  (:data:`POSITIONAL_RULES`), so that a value another rule knows keeps its kind.
"""

from __future__ import annotations

import binascii
import contextlib
import re
from typing import Final

from session_memory.core.rule_set import MARKER_PREFIX, Rule, marker
from session_memory.core.secret_values import (
    is_address,
    is_digest_or_id,
    is_stand_in,
    looks_random,
    password_shaped,
    redact_specific,
    specific_kind,
    unquoted_is_code,
)

__all__ = ["POSITIONAL_RULES", "UNMARKED_RULES"]

# -- stated in a sentence -----------------------------------------------------------------------

_PASSWORD_NOUNS: Final = r"pass(?:words?|phrases?|wd|codes?)|credentials?"
_NOUNS: Final = (
    r"(?:(?i:" + _PASSWORD_NOUNS + r"|secrets?|tokens?|(?:api|access|secret|private)[ _-]?keys?)"
    r"|PIN)"
)
_PROSE: Final = (
    r"(?P<pr_p>(?<![A-Za-z0-9])(?P<pr_n>" + _NOUNS + r")(?![A-Za-z0-9])"
    # "for the admin panel", "of db01", "to the vault": what the credential is for
    r"(?:(?:[ \t]++(?i:for|of|on|to|in|at)(?:[ \t]++[^\s:=,;]{1,40}+){1,4}?)?"
    r"(?:(?P<pr_sep>[ \t]*+[:=](?![:=])[ \t]*+)"  # "passcode: …", "PIN=…" (see below)
    r"|[ \t]++(?i:"
    r"(?:is|was|are|were)(?:[ \t]++(?:now|still|currently|actually|just|simply))?"
    r"(?:[ \t]++(?:set|changed|reset|updated)[ \t]++to)?"
    r"|(?:(?:has|have)[ \t]++been[ \t]++)?(?:set|changed|reset|updated)[ \t]++to"
    r"|to)(?![A-Za-z0-9])[ \t]*+:?[ \t]*+)"
    r"|(?P<pr_direct>[ \t]++)))"  # "log in with the admin password …": see _STATED_BEFORE
    r"(?:(?P<pr_q>['\"`\u2018\u201c])(?P<pr_qv>[^'\"`\u2019\u201d\n]{1,200}+)[\u2019\u201d'\"`]"
    r"|(?P<pr_v>[^\s'\"`]{1,200}+))"
)
_PROSE_TRIGGERS: Final = (
    "pass",
    "credential",
    "secret",
    "token",
    "api",
    "access",
    "private",
    "PIN",
)
_CLOSING_PUNCTUATION: Final = ".,;:?)]}"
_EMPHASIS: Final = re.compile(r"^(?:\*\*|__)|(?:\*\*|__)$")
# What a credential named right before its value needs before it: "with the admin password
# …", "use token …", "enter the PIN …" (not "the password reset link").
_STATED_BEFORE: Final = re.compile(
    r"(?i:(?<![A-Za-z])(?:with|using|use|enter|entered|type|typed)"
    r"(?:[ \t]++(?:the|my|our|your|this|that|a|an|new|same|old))?(?:[ \t]++[\w-]{1,20}+)?"
    r"[ \t]++)$"
)


def _noun_kind(noun: str) -> str:
    lowered = noun.lower()
    if lowered.startswith(("pass", "cred")) or noun == "PIN":
        return "password"
    return "token" if lowered.startswith("token") else "secret"


def _replace_prose(m: re.Match[str]) -> str | None:
    if m.group("pr_direct") is not None:
        before = m.string[max(0, m.start() - 48) : m.start()]
        if _STATED_BEFORE.search(before) is None:
            return None
    elif m.group("pr_sep") is not None and m.start() > 0 and m.string[m.start() - 1] in "_.-":
        return None  # max_output_tokens: 3000 is a key, and keys have a rule of their own
    noun = m.group("pr_n")
    noun_kind = _noun_kind(noun)
    quote = m.group("pr_q")
    if quote is not None:
        value, tail = m.group("pr_qv"), ""
        if unquoted_is_code(value) or is_stand_in(value):
            return None
        # A password word names one value, quoted in any shape. Credentials name a set, and
        # what follows them may be said of them ("credentials in keychain: `cargo run`").
        named_one = noun_kind == "password" and not noun.lower().startswith("cred")
        if not (named_one or password_shaped(value)):
            return None
    else:
        raw = m.group("pr_v")
        value = raw.rstrip(_CLOSING_PUNCTUATION)
        tail = raw[len(value) :]
        # Markdown's emphasis is no symbol of the value: "the token is **optional**".
        shown = _EMPHASIS.sub("", value)
        if not password_shaped(shown, pin=noun_kind == "password") or is_stand_in(shown):
            return None
    replaced = marker(specific_kind(value) or noun_kind)
    if quote is not None:
        replaced = m.group(0)[m.start("pr_q") - m.start()] + replaced + m.group(0)[-1]
    return redact_specific(m.group("pr_p")) + replaced + tail


# -- encoded ------------------------------------------------------------------------------------

_RUN_CHARS: Final = "A-Za-z0-9+/_-"
_LINE: Final = rf"(?<![{_RUN_CHARS}])[{_RUN_CHARS}]{{24,}}+={{0,2}}+"
# A run wraps onto the next line only from its first line: a line that continues another
# is tried on its own, not with the lines after it, or each line of a long wrapped run would
# decode all the rest again (quadratic in the run's length).
_ENCODED: Final = (
    rf"(?<![{_RUN_CHARS}]{{60}}\n)(?<![{_RUN_CHARS}]{{60}}\r\n){_LINE}"
    rf"(?:(?<=[{_RUN_CHARS}]{{60}})\r?\n[{_RUN_CHARS}]{{4,}}+={{0,2}}+)*+"
    rf"|{_LINE}"
)
_ENCODED_SCAN: Final = rf"(?<![{_RUN_CHARS}])[{_RUN_CHARS}]{{24}}"
_ENCODED_MIN_LENGTH: Final = 24
_HEX_RUN: Final = re.compile(r"(?:[0-9a-fA-F]{2})++")
_URLSAFE_TO_STANDARD: Final = bytes.maketrans(b"-_", b"+/")


def _may_be_base64(run: str) -> bool:
    """Whether a run can be the base64 of text: one alphabet (``+/`` or ``-_``, never
    both) and letters of both cases, as the base64 of any 18 characters has; a path
    (``/home/dev/orders-api``) or a name (``test_login_flow``) is not."""
    standard, urlsafe = "/" in run or "+" in run, "-" in run or "_" in run
    return not (standard and urlsafe) and not run.islower() and not run.isupper()


def _decoded(run: str) -> list[str]:
    """The texts a run of base64, base64url or hex may encode (none when it decodes to
    bytes that are not UTF-8 text)."""
    compact = run.replace("\r", "").replace("\n", "") if "\n" in run else run
    raw: list[bytes] = []
    if _HEX_RUN.fullmatch(compact, 2 if compact.startswith("0x") else 0):
        raw.append(bytes.fromhex(compact.removeprefix("0x")))
    body = compact.rstrip("=")
    if len(body) % 4 != 1 and _may_be_base64(body):
        data = body.encode("ascii").translate(_URLSAFE_TO_STANDARD) + b"=" * (-len(body) % 4)
        with contextlib.suppress(binascii.Error):
            raw.append(binascii.a2b_base64(data, strict_mode=True))
    texts = []
    for data in raw:
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return texts


def _replace_encoded(m: re.Match[str]) -> str | None:
    for text in _decoded(m.group(0)):
        redacted = redact_specific(text)
        start = redacted.find(MARKER_PREFIX)
        if redacted != text and start >= 0:
            return marker(redacted[start + len(MARKER_PREFIX) : redacted.index("]", start)])
    return None


UNMARKED_RULES: Final = (
    Rule(_PROSE, _PROSE_TRIGGERS, _replace_prose),
    Rule(_ENCODED, (), _replace_encoded, "", _ENCODED_SCAN, _ENCODED_MIN_LENGTH),
)
"""Credentials stated in prose and encoded ones, tried after the other context rules."""

# -- passed by position -------------------------------------------------------------------------

# A call's arguments, with calls one level deep inside them: f(a, g(b), 'c').
_CALL: Final = r"(?<=[A-Za-z0-9_])\((?P<pc_a>(?:[^()]|\([^()]{0,200}+\)){1,2000}+)\)"
_ARGUMENT_TOKENS: Final = re.compile(
    r"'(?:[^'\\\n]|\\.){0,300}+'|\"(?:[^\"\\\n]|\\.){0,300}+\"|[()\[\]{},]|[^'\"()\[\]{},]++"
)
_CALLEE_WORDS: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_AUTHENTICATING: Final = frozenset(
    {"auth", "authenticate", "credential", "credentials", "creds", "login", "logon", "signin"}
    | {"password", "passwd"}
)
_PASSWORD_CALLS: Final = frozenset({"login", "logon", "signin", "password", "passwd"})
_CLIENTS: Final = frozenset({"client", "connect", "connection", "session", "api", "sdk", "service"})


def _callee(text: str, paren: int) -> set[str]:
    """The lowercased words of the name a call's ``(`` follows (``HTTPBasicAuth``: http,
    basic, auth; ``sign_in``: sign, in, signin)."""
    start = paren
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    name = text[start:paren]
    words = {w.lower() for w in _CALLEE_WORDS.findall(name)}
    return words | {name.lower().replace("_", "")}


def _arguments(args: str) -> list[tuple[int, int, bool]]:
    """Each top-level argument of a call: its span in ``args``, and whether it is one string
    literal and nothing else."""
    found: list[tuple[int, int, bool]] = []
    depth = 0
    start = 0
    literals = others = 0
    for token in _ARGUMENT_TOKENS.finditer(args):
        t = token.group()
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif t == "," and depth == 0:
            found.append((start, token.start(), literals == 1 and others == 0))
            start, literals, others = token.end(), 0, 0
            continue
        if depth == 0 and t[0] in "'\"" and len(t) > 1:
            literals += 1
        elif not t.isspace():
            others += 1
    found.append((start, len(args), literals == 1 and others == 0))
    return found


def _is_positional_secret(value: str, callee: set[str], after_literal: bool) -> bool:
    if is_stand_in(value) or value.startswith(MARKER_PREFIX) or is_address(value):
        return False
    if callee & _AUTHENTICATING:
        return after_literal or password_shaped(value) or looks_random(value)
    if not after_literal or not looks_random(value):
        return False
    return bool(callee & _CLIENTS) or not is_digest_or_id(value)


def _replace_positional(m: re.Match[str]) -> str | None:
    args = m.group("pc_a")
    if "'" not in args and '"' not in args:
        return None
    callee = _callee(m.string, m.start())
    basic_auth = {"basic", "auth"} <= callee
    kind = "password" if callee & _PASSWORD_CALLS or basic_auth else "secret"
    parts: list[str] = []
    done = 0
    previous_literal = False
    for index, (start, end, literal) in enumerate(_arguments(args)):
        item = args[start:end].strip()
        value = item[1:-1]
        if literal and index > 0 and _is_positional_secret(value, callee, previous_literal):
            at = start + args[start:end].index(item) + 1
            parts += [args[done:at], marker(specific_kind(value) or kind)]
            done = at + len(value)
        previous_literal = literal  # a marker stands for the literal it replaced
    if not parts:
        return None
    return "(" + "".join(parts) + args[done:] + ")"


POSITIONAL_RULES: Final = (Rule(_CALL, ("(",), _replace_positional),)
"""Credentials passed by position, tried after every other rule has run on the text."""
