"""The session's commits and whether they are pushed: a completed-work line per commit, and
the commits not pushed yet, which the section of where the session stands names.

A commit is named by the hash and subject ``git commit`` prints, or by the subject its
command line gives when it is quiet. An amended commit replaces the last one, pushed or not
(a force-push then takes it). A push takes every commit not pushed; so does a ``git
status`` that says the branch is up to date with its upstream, and one that says it is
ahead by N commits leaves only the last N unpushed (whoever pushed the others).
"""

from __future__ import annotations

from typing import Any, Final

from deriver.git_state import COMMIT_RE, commit_line
from deriver.keys import done_key
from deriver.recording import bump
from deriver.store import MemoryStore, Stamp
from deriver.wording import code, quote

__all__ = ["Commits"]

_MAX_KEPT: Final = 64
"""Commits not pushed remembered (the oldest are only counted)."""


class Commits:
    """The session's commits not pushed yet, and the last one pushed."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.last = ""
        """The last commit, while it is not pushed."""
        self.earlier: list[str] = []
        """The commits before it, not pushed either (oldest first)."""
        self.branch = ""
        """The branch ``git commit`` said the last commit went on."""
        self.stamp: Stamp | None = None
        self.last_pushed = ""
        """The last commit pushed, until another is made: an amend replaces it."""

    def committed(self, command: str, output: str, stamp: Stamp) -> None:
        """A ``git commit`` that worked."""
        store = self.store
        found = COMMIT_RE.search(output[:4000])
        commit = commit_line(command)
        if found is None and not commit.subject:
            return
        if commit.amend and (self.last or self.last_pushed):
            # The amended commit replaces the last one, whether or not it was pushed.
            replaced = self.last or self.last_pushed
            for key in (done_key(f"committed {replaced}"), done_key(f"pushed {replaced}")):
                if (item := store.get(key)) is not None:
                    store.remove(item, stamp)
        elif self.last:
            self.earlier = [*self.earlier, self.last][-_MAX_KEPT:]
        self.last_pushed = ""
        if found is not None:
            branch = found.group(1) or ""
            self.branch = "" if branch == "detached" else branch  # "[detached HEAD 1a2b3c4]"
            self.last = f"{code(found.group(2), 16)} {quote(found.group(3), 120)}"
        else:
            self.last = quote(commit.subject, 120)  # quiet (-q): the command line names it
        self.stamp = stamp
        text = f"committed {self.last}"
        bump(store, "completed_work", "commit", text, stamp, done_key(text))

    def pushed_all(self, stamp: Stamp) -> None:
        """A push: one line per commit, the commit's own line says it was pushed, and so do
        those of the commits before it that the push took along."""
        if not self.last:
            return
        store = self.store
        self._mark_pushed(self.earlier, stamp)
        item = store.get(done_key(f"committed {self.last}"))
        if item is not None:
            store.update(item, stamp, text=f"committed and pushed {self.last}")
        else:
            text = f"pushed {self.last}"
            bump(store, "completed_work", "push", text, stamp, done_key(text))
        self.last_pushed, self.last, self.earlier = self.last, "", []

    def upstream_has(self, branch: str, ahead: int, stamp: Stamp) -> None:
        """git says ``branch`` has ``ahead`` commits its upstream has not: those before them
        were pushed (by the session or not)."""
        if not self.last or branch != self.branch:
            return
        unpushed = len(self.earlier) + 1
        if ahead == 0:
            self.pushed_all(stamp)
        elif ahead < unpushed:
            cut = unpushed - ahead
            self._mark_pushed(self.earlier[:cut], stamp)
            del self.earlier[:cut]

    def _mark_pushed(self, commits: list[str], stamp: Stamp) -> None:
        for commit in commits:
            item = self.store.get(done_key(f"committed {commit}"))
            if item is not None:
                self.store.update(item, stamp, text=f"committed and pushed {commit}", touch=False)

    # -- snapshots ------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "last": self.last,
            "earlier": list(self.earlier),
            "branch": self.branch,
            "stamp": self.stamp,
            "last_pushed": self.last_pushed,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.last, self.earlier = state["last"], list(state["earlier"])
        self.branch, self.last_pushed = state["branch"], state["last_pushed"]
        stamp = state["stamp"]
        self.stamp = None if stamp is None else (stamp[0], stamp[1])
