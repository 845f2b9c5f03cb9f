"""The hash functions of the state and the hook, loaded without OpenSSL.

:mod:`hashlib` imports the OpenSSL binding (``_hashlib``) on first import, which costs a fresh
process more than a hook call whose state is current spends on its work. The digests used
here, SHA-256 and BLAKE2b, have small built-in modules of their own; the digests are the same
bytes whichever implementation computes them. An interpreter built without them falls back to
:mod:`hashlib`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a build without the module
        from hashlib import blake2b
    try:
        from _sha2 import sha256  # Python 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:  # pragma: no cover - a build without the module
            from hashlib import sha256

__all__ = ["blake2b", "sha256"]
