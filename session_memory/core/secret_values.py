"""What a value is, where a rule has found a place a secret may be: the judgements of redaction.

A value is a known credential (one of :mod:`session_memory.core.token_formats`), a
reference or a mask (``$TOKEN``, ``{{ secret }}``, ``****``), code (``self.token``,
``get_token()``), a stand-in (``test-client-secret``), a digest or a UUID, a string that
looks generated rather than written, or one shaped like a password. The rules of
:mod:`session_memory.core.secret_rules` and :mod:`session_memory.core.unmarked_secrets` ask
these questions of the values they find.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from typing import Final

from session_memory.core.rule_set import (
    MARKER_PREFIX,
    Rule,
    RuleSet,
    apply_rules,
    lower_same_length,
    whole,
)
from session_memory.core.token_formats import TOKEN_FORMATS

__all__ = [
    "SPECIFIC",
    "is_address",
    "is_digest_or_id",
    "is_stand_in",
    "looks_like_reference",
    "looks_random",
    "password_shaped",
    "redact_specific",
    "specific_kind",
    "specific_rules",
    "unquoted_is_code",
]

# Unquoted values that are code or configuration, not a secret (see redact_secrets).
_KEEP_WORDS: Final = frozenset(
    {
        "true",
        "false",
        "on",  # YAML's booleans, and a setting's: "Add to ID token: ON"
        "off",
        "yes",
        "no",
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
        # access levels: a workflow's `id-token: write`, a scope's `contents: read`
        "read",
        "write",
        "read-all",
        "write-all",
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


def specific_kind(value: str) -> str | None:
    """The kind of the specific secret that ``value`` starts with, if any.

    Only the rules whose trigger is at the start are tried, in rule order (the candidates
    are sorted by position, then rule): there are too many formats to try each.
    """
    rules = SPECIFIC
    for pos, index in specific_rules().candidates(value, lower_same_length(value)):
        if pos > 0:
            break
        if rules[index].regex.match(value) is not None:
            return rules[index].kind
    return None


def redact_specific(text: str) -> str:
    """Redact only the specific kinds: for text that a broader rule decided to keep."""
    return apply_rules(text, specific_rules(), lower_same_length(text))


def looks_like_reference(value: str) -> bool:
    """Whether a quoted or unquoted value is a placeholder or a reference, not a secret."""
    if not value or value.startswith(MARKER_PREFIX):
        return True
    if value.startswith(("$", "{{", "%(", "<")):
        return True
    return set(value) <= _MASK_CHARS


def unquoted_is_code(value: str) -> bool:
    """Whether an unquoted value is code or configuration rather than a literal secret."""
    if looks_like_reference(value):
        return True
    if not any(c.isalnum() for c in value):
        return True  # punctuation: "Unexpected token: }"
    bare = value.rstrip(")]},.").strip("*")  # **bold** is Markdown's, not the value's
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


_RANDOM_MIN_LENGTH: Final = 16
_RANDOM_MIN_BITS: Final = 3.0


# A name written by a person: words in any case convention and short numbers
# (created_at_desc_index_v2, OAuth2ClientFactory, user-profile-2026).
_WORD_PARTS: Final = re.compile(r"(?:[A-Z]*+[a-z]{2,}+|[A-Z]++|[0-9]{1,4}+)++")
_PART_SEPARATORS: Final = re.compile(r"[_./~+=-]++")


def looks_random(value: str) -> bool:
    """Whether a value after a key-like name looks generated rather than written.

    The high-entropy fallback for names that are often not secret (``key``, ``auth``): at
    least 16 characters mixing letters and digits, not a path, not a name made of words, and
    at least 3 bits of Shannon entropy per character, and no space (``public, max-age=86400``
    is written).
    """
    if len(value) < _RANDOM_MIN_LENGTH or value.startswith(("/", "~", "-", ".")):
        return False
    if any(c.isspace() for c in value):
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


# What a password stated in a sentence looks like: a symbol or a digit somewhere (hunter2,
# Tr0ub4dor&3), or three words or more joined by hyphens (correct-horse-battery-staple).
_PASSWORD_MIN_LENGTH: Final = 6
_PASSWORD_SYMBOLS: Final = frozenset("!@#$%^&*+=?~")
_PIN_MIN_DIGITS: Final = 4
_VERSION: Final = re.compile(r"v?[0-9]++(?:\.[0-9]++)++(?:[-+][0-9A-Za-z.-]++)?+")
_EMAIL: Final = re.compile(r"[^@\s]++@[^@\s.]++(?:\.[^@\s.]++)++")
_LOWER_WORDS: Final = re.compile(r"[a-z]++(?:-[a-z]++)++")


def password_shaped(value: str, *, pin: bool = False) -> bool:
    """Whether a word named as a password in a sentence looks like one, not like prose or code.

    At least six characters with a digit or one of ``!@#$%^&*+=?~`` (``hunter2``,
    ``P@ssw0rd!``), or three or more lowercase words joined by hyphens
    (``correct-horse-battery-staple``); not code (a name, a call, an opening bracket), a
    path, a URL, an e-mail address, a version or a compound of two words (``base64-encoded``,
    ``auto-generated``). Digits alone count only with ``pin`` (a PIN of four digits or more),
    never as a count (``3600``).
    """
    if value.isdigit():
        return pin and len(value) >= _PIN_MIN_DIGITS
    if len(value) < _PASSWORD_MIN_LENGTH or unquoted_is_code(value):
        return False
    if "://" in value or value.startswith(("/", "~", ".")) or _EMAIL.fullmatch(value):
        return False
    if any(c in "([{<" for c in value):
        return False  # code: 3000});text(...
    if _VERSION.fullmatch(value):
        return False
    if _LOWER_WORDS.fullmatch(value):
        return value.count("-") >= 2
    if value.count("-") == 1 and all(part.isalnum() for part in value.split("-")):
        return False  # base64-encoded, sha256-hashed, 64-bit
    return any(c.isdigit() or c in _PASSWORD_SYMBOLS for c in value)


# Values written as stand-ins in tests, examples and docs: words that say so, alone or with
# the names of what they stand for (test-client-secret, dummy-password, YOUR_API_KEY), or one
# character repeated (xxxxxxxx).
_STAND_IN_WORDS: Final = frozenset(
    {"test", "testing", "dummy", "fake", "example", "sample", "mock", "placeholder", "your"}
    | {"foo", "bar", "baz", "qux"}
)
_NAMED_WORDS: Final = frozenset(
    {"my", "the", "secret", "password", "pass", "passwd", "token", "key", "api", "client"}
    | {"id", "user", "username", "value", "here", "app", "access", "auth"}
)
_WORDS_AND_NUMBERS: Final = re.compile(r"[a-z]++|[0-9]++")


def is_stand_in(value: str) -> bool:
    """Whether a value is a stand-in for a credential rather than one.

    A reference or a mask (:func:`looks_like_reference`), one character repeated, or words
    that name a credential (``secret``, ``pass``) joined by ``-``, ``_`` or nothing, with
    digits only beside a word that says it stands in (``test-password-1``, not
    ``password1``).
    """
    if looks_like_reference(value) or len(set(value)) == 1:
        return True
    words = _WORDS_AND_NUMBERS.findall(value.lower())
    letters = [w for w in words if not w.isdigit()]
    if not letters or not all(w in _STAND_IN_WORDS or w in _NAMED_WORDS for w in letters):
        return False
    return any(w in _STAND_IN_WORDS for w in letters) or len(letters) == len(words)


_HASH: Final = re.compile(
    r"(?i:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{56}|[0-9a-f]{64}|[0-9a-f]{96,128})"
)
_UUID: Final = re.compile(r"(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")


def is_digest_or_id(value: str) -> bool:
    """Whether a value has the shape of a digest (MD5, SHA-1, SHA-2: hex of 32, 40, 56, 64
    or 96 to 128 digits) or of a UUID."""
    return _HASH.fullmatch(value) is not None or _UUID.fullmatch(value) is not None


def is_address(value: str) -> bool:
    """Whether a value names a place or a person: a URL, a path or an e-mail address."""
    return "://" in value or value.startswith(("/", "./", "~/")) or bool(_EMAIL.fullmatch(value))


SPECIFIC: Final = tuple(
    Rule(f.pattern, f.triggers, whole(f.kind), f.kind, f.scan, f.scan_min_length)
    for f in TOKEN_FORMATS
)


@functools.cache
def specific_rules() -> RuleSet:
    """The specific rules alone, as a rule set of their own: built when a text first needs
    it (few do; building it was a fifth of this module's import)."""
    return RuleSet(SPECIFIC)
