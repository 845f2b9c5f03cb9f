"""The state file's checks and safe names, written without regular expressions, accept what
the regular expressions of their format accept."""

from __future__ import annotations

import hashlib
import re

from hypothesis import given
from hypothesis import strategies as st

from session_memory.apps.memory_dir.state import MAX_NAME, _is_fingerprint, _is_hex32, safe_name

HEX32 = re.compile(r"[0-9a-f]{32}")
FINGERPRINT = re.compile(r"[0-9a-f]{32}:[0-9]{1,4}")
UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{d}{i}" for d in ("COM", "LPT") for i in range(1, 10)}

hexish = st.text(alphabet="0123456789abcdefABF:٣ \n", max_size=40)
near_fingerprints = st.builds(
    lambda digest, sep, size: digest + sep + size,
    st.text(alphabet="0123456789abcdefg", min_size=31, max_size=33),
    st.sampled_from([":", "", "::", ";"]),
    st.text(alphabet="0123456789٣x", max_size=6),
)


@given(hexish | near_fingerprints | st.text(max_size=40))
def test_digest_and_fingerprint_checks_are_the_formats_patterns(value: str) -> None:
    """A digest or fingerprint passes exactly when its pattern fully matches."""
    assert _is_hex32(value) == bool(HEX32.fullmatch(value))
    assert _is_fingerprint(value) == bool(FINGERPRINT.fullmatch(value))


def safe_name_by_pattern(raw: str) -> str:
    """safe_name as it was written with a regular expression and hashlib."""
    cleaned = UNSAFE.sub("_", raw)
    if cleaned.startswith("."):
        cleaned = "_" + cleaned[1:]
    if cleaned.split(".", 1)[0].upper() in RESERVED:
        cleaned = "_" + cleaned
    if cleaned == raw and 0 < len(cleaned) <= MAX_NAME:
        return cleaned
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{cleaned[: MAX_NAME - 13] or 'session'}-{digest}"


@given(st.text(max_size=120) | st.sampled_from(["CON", "nul.x", "..", "", "a" * 97]))
def test_safe_names_are_those_of_the_pattern(raw: str) -> None:
    """safe_name gives, for any id, the name the pattern-based version gave."""
    assert safe_name(raw) == safe_name_by_pattern(raw)
