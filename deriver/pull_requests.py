"""The pull requests of the session: the one it opened and left open (where the session
stands), and those it opened earlier, merged or closed (completed work)."""

from __future__ import annotations

from typing import Any

from deriver.git_state import MERGE_LATER_RE, PULL_URL_RE, PullAction, same_pull
from deriver.keys import done_key
from deriver.recording import bump, decision
from deriver.store import MemoryStore, Stamp
from deriver.wording import code

__all__ = ["PullRequests"]


class PullRequests:
    """The pull request the session opened and left open, and what became of others."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.open = ""
        self.stamp: Stamp | None = None

    def opened(self, output: str, stamp: Stamp) -> None:
        """A command or a forge's tool that opened one: its output's URL names it."""
        found = PULL_URL_RE.search(output[:4000])
        # The client may record the pull request the session opened beside the command's own
        # output: the same URL is one pull request, opened once. While it is open the section
        # says so; one opened before it and left open is completed work.
        if found is not None and code(found.group(0), 160) != self.open:
            if self.open and self.stamp is not None:
                text = f"opened pull request {self.open}"
                bump(self.store, "completed_work", "pull_request", text, self.stamp,
                     done_key(text))  # fmt: skip
            self.open, self.stamp = code(found.group(0), 160), stamp

    def ended(self, pull: PullAction, output: str, stamp: Stamp) -> None:
        """A merge or close that worked: the pull request it names (by default the one the
        session opened) is merged or closed, unless the merge is only scheduled; the method
        a merge chose is a key decision, the project's way of merging."""
        if pull.method:
            decision(self.store, "merge_method", f"merge method: {pull.method}", stamp)
        if pull.verb == "merge" and MERGE_LATER_RE.search(output[:4000]):
            return  # "will be automatically merged … when all requirements are met": open
        named, ours = pull.pull_request, self.open
        if not named or (ours and same_pull(named, ours.strip("`"))):
            named, self.open = ours, ""
        else:
            named = f"#{named}" if named.isdigit() else code(named, 160)
        if named:
            text = f"{pull.verb}d pull request {named}"
            bump(self.store, "completed_work", "pull_request", text, stamp, done_key(text))

    def lines(self) -> list[tuple[str, str, Stamp]]:
        if not self.open or self.stamp is None:
            return []
        return [("pull_open", f"pull request left open: {self.open}", self.stamp)]

    def facts(self) -> tuple[object, ...]:
        return (self.open, self.stamp)

    def to_state(self) -> list[Any]:
        return [self.open, self.stamp]

    def load_state(self, state: list[Any]) -> None:
        self.open, stamp = state
        self.stamp = None if stamp is None else (stamp[0], stamp[1])
