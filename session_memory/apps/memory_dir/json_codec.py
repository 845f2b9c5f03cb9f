"""JSON for a fresh hook process: the standard library's own C speedups, without its imports.

A hook call whose state is current is a new process per event, and importing :mod:`json`
brings :mod:`re`, :mod:`enum`, :mod:`functools` and :mod:`types` with it: more start-up time
than the call spends on its work. The C module behind :mod:`json` (``_json``) needs none of
them. :func:`loads` and :func:`dumps_compact` run it directly on what the hook reads and
writes (JSON objects whose first byte is ``{`` or ``[``; dicts, lists, strings, integers,
booleans and None), and hand everything else to :mod:`json` itself: the value, or the
exception, is always exactly what :func:`json.loads` or :func:`json.dumps` gives
(``tests/session_memory/test_json_codec.py`` compares them), only sooner.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final

__all__ = ["dumps_compact", "loads"]

_SPACE: Final = " \t\n\r"
"""What JSON allows around a value (json.decoder's WHITESPACE)."""


class _DecoderDefaults:
    """The attributes the C scanner reads from a decoder, with :func:`json.loads`'s values."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {
        "-Infinity": float("-inf"),
        "Infinity": float("inf"),
        "NaN": float("nan"),
    }.__getitem__
    memo: dict[str, object] = {}  # noqa: RUF012  # read by the C scanner, never written here


_scan: Callable[[str, int], tuple[object, int]] | None
_quote: Callable[[str], str] | None
try:
    from _json import encode_basestring as _quote
    from _json import make_scanner
except ImportError:  # pragma: no cover - an interpreter without json's C speedups
    _scan = _quote = None
else:
    # typeshed types the context as a scanner; the C code reads only the attributes above.
    _scan = make_scanner(_DecoderDefaults())  # type: ignore[arg-type]


def loads(data: bytes) -> object:
    """``json.loads(data)``: the same value, or the same exception raised by json itself."""
    # json.detect_encoding says UTF-8 for anything that starts with "{" or "[" and a
    # non-NUL byte; anything else (BOMs, UTF-16/32, leading space, scalars) goes to json.
    if _scan is not None and data[:1] in (b"{", b"[") and data[1:2] != b"\0":
        try:
            text = data.decode("utf-8", "surrogatepass")
            value, end = _scan(text, 0)
        except Exception:  # json.loads below raises the same, in its own words
            pass
        else:
            if not text[end:].strip(_SPACE):
                return value
    import json

    return json.loads(data)


def dumps_compact(value: object) -> bytes:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()``."""
    if _quote is not None:
        parts: list[str] = []
        try:
            if _encode(value, parts, _quote):
                return "".join(parts).encode()
        except RecursionError:
            pass  # json says what it says of a value nested this deep
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _encode(value: object, parts: list[str], quote: Callable[[str], str]) -> bool:
    """Append the compact JSON of ``value`` to ``parts`` as json would write it; False (and
    ``parts`` unusable) for anything but dicts with string keys, lists, strings, integers,
    booleans and None."""
    if isinstance(value, str):
        parts.append(quote(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif type(value) is int:
        parts.append(int.__repr__(value))
    elif type(value) is dict:
        parts.append("{")
        for i, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                return False
            parts.append(f"{',' if i else ''}{quote(key)}:")
            if not _encode(item, parts, quote):
                return False
        parts.append("}")
    elif type(value) is list:
        parts.append("[")
        for i, item in enumerate(value):
            if i:
                parts.append(",")
            if not _encode(item, parts, quote):
                return False
        parts.append("]")
    else:
        return False
    return True
