"""What a value is, where a rule has found a place a secret may be: the judgements of redaction.

A value is a known credential (one of :mod:`session_memory.core.token_formats`), a
reference or a mask (``$TOKEN``, ``{{ secret }}``, ``****``), code (``self.token``,
``get_token()``), or a string that looks generated rather than written. The rules of
:mod:`session_memory.core.secret_rules` ask these questions of the values they find.
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
    "looks_like_reference",
    "looks_random",
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


SPECIFIC: Final = tuple(
    Rule(f.pattern, f.triggers, whole(f.kind), f.kind, f.scan, f.scan_min_length)
    for f in TOKEN_FORMATS
)


@functools.cache
def specific_rules() -> RuleSet:
    """The specific rules alone, as a rule set of their own: built when a text first needs
    it (few do; building it was a fifth of this module's import)."""
    return RuleSet(SPECIFIC)
