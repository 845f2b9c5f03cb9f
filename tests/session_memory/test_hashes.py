"""The hashes loaded without OpenSSL give hashlib's digests."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from session_memory.apps.memory_dir.hashes import blake2b, sha256


@given(st.binary(max_size=5000))
def test_digests_are_hashlibs(data: bytes) -> None:
    """SHA-256 and 16-byte BLAKE2b of any bytes equal hashlib's."""
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert (
        blake2b(data, digest_size=16).hexdigest()
        == hashlib.blake2b(data, digest_size=16).hexdigest()
    )
