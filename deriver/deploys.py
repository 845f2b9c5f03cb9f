"""Deploys and releases: a command that puts the work somewhere others use it (a hosting
platform, a cluster, a package registry), found in a shell command line.

What it shipped is not in git: a session that deployed its uncommitted changes left
production ahead of the repository. A completed deploy is a completed-work line.
Total, deterministic, free of I/O.
"""

from __future__ import annotations

import re
from typing import Final

from deriver.shell import basename, segments, strip_wrappers

__all__ = ["shipped"]

_DEPLOYED: Final = "deployed"
_PUBLISHED: Final = "published"
_SHIPS: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "vercel": (_DEPLOYED, frozenset({"deploy", "--prod"})),
    "netlify": (_DEPLOYED, frozenset({"deploy"})),
    "fly": (_DEPLOYED, frozenset({"deploy"})),
    "flyctl": (_DEPLOYED, frozenset({"deploy"})),
    "wrangler": (_DEPLOYED, frozenset({"deploy", "publish"})),
    "firebase": (_DEPLOYED, frozenset({"deploy"})),
    "gcloud": (_DEPLOYED, frozenset({"deploy"})),
    "railway": (_DEPLOYED, frozenset({"up"})),
    "serverless": (_DEPLOYED, frozenset({"deploy"})),
    "sls": (_DEPLOYED, frozenset({"deploy"})),
    "cdk": (_DEPLOYED, frozenset({"deploy"})),
    "sam": (_DEPLOYED, frozenset({"deploy"})),
    "pulumi": (_DEPLOYED, frozenset({"up"})),
    "terraform": (_DEPLOYED, frozenset({"apply"})),
    "kubectl": (_DEPLOYED, frozenset({"apply"})),
    "helm": (_DEPLOYED, frozenset({"install", "upgrade"})),
    "supabase": (_DEPLOYED, frozenset({"deploy"})),
    "npm": (_PUBLISHED, frozenset({"publish"})),
    "pnpm": (_PUBLISHED, frozenset({"publish"})),
    "yarn": (_PUBLISHED, frozenset({"publish"})),
    "cargo": (_PUBLISHED, frozenset({"publish"})),
    "twine": (_PUBLISHED, frozenset({"upload"})),
    "uv": (_PUBLISHED, frozenset({"publish"})),
    "poetry": (_PUBLISHED, frozenset({"publish"})),
    "gem": (_PUBLISHED, frozenset({"push"})),
}
"""A program, how its run ships the work (a deploy, or a release to a registry), and the words
of its arguments that make it one."""
_NO_RUN: Final = frozenset({"--help", "-h", "--dry-run", "--version", "plan"})
_SHIPS_RE: Final = re.compile(
    r"\b(?:deploy|publish|apply|upload|up|install|upgrade|push)\b|--prod\b"
)
"""A word every deploy or release has: a line without one is not split into commands. It
serves the target that `apply` per event stay within 10% of the last stop (cProfile over the
bench generator's 60,000 events: 1.3% of the fold's time without it, 0.6% with it)."""


def shipped(command: str) -> str:
    """How a command line ships the work: "deployed" (``npx vercel deploy --prod``,
    ``terraform apply``), "published" (``npm publish``), or empty. A dry run, or asking how
    to run it, ships nothing."""
    if _SHIPS_RE.search(command) is None:
        return ""
    for words in segments(command):
        words = strip_wrappers(words)
        if not words:
            continue
        ships = _SHIPS.get(basename(words[0]))
        rest = set(words[1:])
        if ships is not None and rest & ships[1] and not rest & _NO_RUN:
            return ships[0]
    return ""
