"""Secret redaction and containment of untrusted text (docs/rules.md): what every transcript
text passes on its way into the memory.

Pure functions over ``str``, stdlib ``re`` only, no I/O. Every function is total: any ``str``
(lone surrogates, NULs, megabytes) gives a result, never an exception, and every regular
expression here is linear in its input (possessive quantifiers, bounded repeats, anchored
starts), so an adversarial string cannot make the work blow up.

``redact_secrets`` replaces secrets with ``[redacted:<kind>]``; its rules live in
:mod:`session_memory.core.secret_rules` (found by context) and
:mod:`session_memory.core.token_formats` (found by value), applied by
:mod:`session_memory.core.rule_set`. ``contain_untrusted`` and
``quote_untrusted`` make text taken from tool output safe to place on one line of the Markdown
memory; ``contain_trusted_line`` gives the same single-line cleaning to our own short strings
(tool names, paths, commands).
"""

from __future__ import annotations

import functools
import re
from typing import Final

from session_memory.core.errors import ConfigError
from session_memory.core.rule_set import MARKER_PREFIX, RuleSet, apply_rules, lower_same_length
from session_memory.core.secret_rules import CONTEXT_RULES, PRIORITY_RULES
from session_memory.core.secret_values import SPECIFIC
from session_memory.core.token_formats import TOKEN_FORMATS
from session_memory.core.unmarked_secrets import POSITIONAL_RULES, UNMARKED_RULES

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


_ALL_RULES: Final = RuleSet(PRIORITY_RULES + SPECIFIC + CONTEXT_RULES + UNMARKED_RULES)
# Tried on what the others leave, so that a value they know keeps its kind (see
# unmarked_secrets): their trigger, "(", has no case, so the text is its own lowercase.
_POSITIONAL_RULES: Final = RuleSet(POSITIONAL_RULES)


def _redact_once(text: str) -> str:
    text = apply_rules(text, _ALL_RULES, lower_same_length(text))
    if "'" not in text and '"' not in text:
        return text  # no string argument to pass by position
    return apply_rules(text, _POSITIONAL_RULES, text)


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

    Recognised by where they stand, with no key word or format to mark them
    (:mod:`session_memory.core.unmarked_secrets`): ``password`` / ``token`` / ``secret`` for
    a credential stated in prose (``the staging password is …``, ``I reset the vault password
    to …``: quoted after a password word, or shaped like a password); a known format encoded
    in base64, base64url or hex (``echo <base64> | base64 -d``) keeps its own kind; and
    ``secret`` (``password`` for a login call) for a string passed by position after another
    (``Client('<id>', '<secret>')``, ``smtp.login(user, '…')``), unless it is a stand-in
    (``test-client-secret``), a digest or UUID outside a client call, or written rather than
    generated.

    A value that is itself a recognised secret keeps that secret's kind
    (``OPENAI_API_KEY=sk-...`` gives ``[redacted:openai-key]``, so does ``Bearer sk-...``).

    Decisions for key-value pairs, where code and configuration look alike:

    - The key name must end with the secret word: ``tokenizer``, ``token_count = 5``,
      ``max_tokens`` and ``password_reset_view.py`` are untouched; ``/etc/passwd:`` is a path.
    - A quoted value is redacted unless it is empty, a reference (``"${DB_PASSWORD}"``,
      ``"{{ secret }}"``, ``"%(pw)s"``, ``"<your token>"``) or a mask (``"****"``).
    - An unquoted value is kept when it is code: a null or boolean word (``on``, ``off``
      too), an access level (``id-token: write``), a type annotation
      (``password: str``), a bare integer of at most three digits (``token = 0``; no real
      credential is that short), a call or index (``get_token()``, ``os.environ["KEY"]``),
      an attribute of a well-known object (``self.token``, ``settings.SECRET_KEY``) or a
      variable named after a secret (``api_key=api_key``). Anything else, numbers of four or
      more digits included (PINs), is redacted: ``password: hunter2`` -> ``password:
      [redacted:password]``. Prose such as ``invalid token: abc`` is redacted too; losing a
      word is cheaper than leaking a credential.
    - ``Bearer <v>`` outside an Authorization header needs a value that is not a word
      (``Bearer authentication``, ``bearer credentials.`` are prose), and ``-u user:PW`` a
      user without ``%`` (``date -u +%H:%M`` is a format).
    - Markdown's emphasis is not part of a value: ``the token is **optional**`` is prose.
      After ``credentials`` (a set, not one value), a quoted value must be shaped like a
      password: ``**All credentials in keychain**: `cargo run``` is a list item.

    Redaction is idempotent (``redact_secrets(redact_secrets(t)) == redact_secrets(t)``): it
    runs to a fixed point, and a text with nothing to redact is checked once. It is linear in
    ``len(text)`` (at most four passes). ``benchmarks/bench_redact.py`` measures its cost per
    call on the texts a derivation hands it.
    """
    redacted = _redact_once(text)
    # A replacement can change what a later pass sees around it (a key name's look-back, the
    # user part of a URL), so run to a fixed point. Each pass that changes anything turns
    # non-marker text into markers, so this converges; text without secrets takes one pass,
    # and the cap keeps the work linear.
    for _ in range(_MAX_PASSES - 1):
        if redacted is text:
            break
        text, redacted = redacted, _redact_once(redacted)
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
    marker_start = line.rfind(MARKER_PREFIX, 0, cut)
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
