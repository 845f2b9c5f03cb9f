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

_DEPLOYS: Final[dict[str, frozenset[str]]] = {
    "vercel": frozenset({"deploy", "--prod"}),
    "netlify": frozenset({"deploy"}),
    "fly": frozenset({"deploy"}),
    "flyctl": frozenset({"deploy"}),
    "wrangler": frozenset({"deploy", "publish"}),
    "firebase": frozenset({"deploy"}),
    "gcloud": frozenset({"deploy"}),
    "railway": frozenset({"up"}),
    "serverless": frozenset({"deploy"}),
    "sls": frozenset({"deploy"}),
    "cdk": frozenset({"deploy"}),
    "sam": frozenset({"deploy"}),
    "pulumi": frozenset({"up"}),
    "terraform": frozenset({"apply"}),
    "kubectl": frozenset({"apply"}),
    "helm": frozenset({"install", "upgrade"}),
    "supabase": frozenset({"deploy"}),
}
"""A program and the words of its arguments that make its run a deploy."""
_PUBLISHES: Final[dict[str, frozenset[str]]] = {
    "npm": frozenset({"publish"}),
    "pnpm": frozenset({"publish"}),
    "yarn": frozenset({"publish"}),
    "cargo": frozenset({"publish"}),
    "twine": frozenset({"upload"}),
    "uv": frozenset({"publish"}),
    "poetry": frozenset({"publish"}),
    "gem": frozenset({"push"}),
}
"""A program and the words of its arguments that make its run a release to a registry."""
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
        program, rest = basename(words[0]), set(words[1:])
        if rest & _NO_RUN:
            continue
        if rest & _DEPLOYS.get(program, frozenset()):
            return "deployed"
        if rest & _PUBLISHES.get(program, frozenset()):
            return "published"
    return ""
