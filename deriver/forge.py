"""The forge's side of the session (GitHub, GitLab): the pull request it opened and left open
and whether CI was seen to check its last push (where the session stands); the pull requests
it opened earlier, merged or closed (completed work)."""

from __future__ import annotations

import re
from typing import Any, Final

from deriver.git_state import (
    MERGE_LATER_RE,
    PULL_URL_RE,
    PullAction,
    configures_ci,
    looks_at_ci,
    same_pull,
)
from deriver.keys import PULL_BOXES_KEY, done_key
from deriver.recording import bump, decision
from deriver.store import MemoryStore, Stamp
from deriver.wording import code, json_object, quoted_some

__all__ = ["Forge"]

# A box of a pull request's description left unchecked ("- [ ] Verify on Linux/Windows"): what
# the description says is still to be done or seen, most often in its test plan.
_UNCHECKED_RE: Final = re.compile(r"^[ \t]*[-*] \[ \] +(\S[^\n]*)", re.MULTILINE)
_BOX_RE: Final = re.compile(r"^[ \t]*[-*] \[[ xX]\] ", re.MULTILINE)
_BODY_RE: Final = re.compile(r"(?:^|\s)(?:--body|-b)[\s=]")  # not --body-file: its text unseen
_MERGED: Final = "Merge pull request #"
_MERGED_RE: Final = re.compile(r"\bMerge pull request #(\d+) from \S")
_TOKENS_PER_BOX: Final = 400
"""A box shown per this many tokens of the budget, one at least."""


def _unchecked(command: str) -> tuple[str, ...]:
    """The boxes a command's pull request description leaves unchecked."""
    return tuple(dict.fromkeys(m.group(1).strip() for m in _UNCHECKED_RE.finditer(command)))


def _shown_body(targets: frozenset[str], output: str, url: str) -> str | None:
    """The description of the pull request at ``url`` as ``gh pr view`` shows it (``--json
    body``, or its text with the boxes in it); None when it shows another one, or none."""
    if any(not same_pull(t, url) for t in targets if t.lstrip("#").isdigit() or "/pull" in t):
        return None
    text = output.strip()
    if not text.startswith("{"):
        return text if _BOX_RE.search(text) else None
    data = json_object(text)
    body, shown = data.get("body"), data.get("url", url)
    return body if isinstance(body, str) and same_pull(str(shown), url) else None


class Forge:
    """The pull request the session opened and left open, what became of others, and CI."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.open = ""
        self.stamp: Stamp | None = None
        self.ci = ""
        """"seen" once the session looked at CI (gh pr checks) or changed its configuration:
        CI runs on a push; "unseen" after a push since, of the commit ``ci_pushed`` (if one)."""
        self.ci_stamp: Stamp | None = None
        self.ci_pushed = ""

    def ran(self, command: str, output: str, stamp: Stamp) -> bool:
        """A command: one that looks at CI's runs (``gh run watch``) sees them; one whose
        output shows the open pull request's merge commit, as the forge writes it ("Merge
        pull request #2 from o/branch" in ``git log``), says it merged: whether it did."""
        self.ci = "seen" if looks_at_ci(command) else self.ci
        if self.open and _MERGED in output:
            for number in _MERGED_RE.findall(output[:8000]):
                if same_pull(number, self.open.strip("`")):
                    return self.ended(PullAction("merge", number, ""), "", stamp)
        return False

    def changed(self, path: str) -> None:
        """A file edited: CI's configuration (``.github/workflows/deploy.yml``) says that CI
        runs on a push."""
        self.ci = self.ci or ("seen" if configures_ci(path) else "")

    def pushed(self, commit: str, stamp: Stamp) -> None:
        """A push of ``commit`` (its hash as shown, or empty: none known): CI runs on it."""
        if self.ci:
            self.ci, self.ci_stamp, self.ci_pushed = "unseen", stamp, commit

    def pulled(self, targets: frozenset[str], command: str, output: str, stamp: Stamp) -> None:
        """A pull request command that worked: one that opened it, one that wrote the open
        one's description again (``gh pr edit 8 --body …``), or one that shows it (``gh pr
        view --json body``): its boxes unchecked since."""
        if "create" in targets:
            self.opened(output, stamp, command)
        elif "edit" in targets and self.open and _BODY_RE.search(command):
            self._boxes(_unchecked(command), stamp)
        elif "view" in targets and self.open and "[" in output:
            body = _shown_body(targets, output, self.open.strip("`"))
            if body is not None:  # as the forge shows it now: boxes ticked since (by anyone)
                self._boxes(_unchecked(body), stamp)

    def opened(self, output: str, stamp: Stamp, command: str = "") -> None:
        """A command or a forge's tool that opened one: its output's URL names it, and the
        description it was given (the command's ``--body``) the boxes it left unchecked."""
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
            self._boxes(_unchecked(command), stamp)
        elif found is not None and command:
            self._boxes(_unchecked(command), stamp)

    def _boxes(self, boxes: tuple[str, ...], stamp: Stamp) -> None:
        """The open pull request's boxes left unchecked, as its description was last written:
        a todo, until it is merged or closed."""
        store = self.store
        if (item := store.get(PULL_BOXES_KEY)) is not None:
            store.remove(item, stamp)
        if boxes:
            count = max(1, store.budget_tokens // _TOKENS_PER_BOX)
            text = f"the pull request's boxes left unchecked: {quoted_some(boxes, count, 80)}"
            # Mostly checks to run or see (a test plan's): evicted with the verification.
            store.add("todo_items", "pull_unchecked", text, stamp, status="pending",
                      key=PULL_BOXES_KEY, tier="verification_status")  # fmt: skip

    def ended(self, pull: PullAction, output: str, stamp: Stamp) -> bool:
        """A merge or close that worked: the pull request it names (by default the one the
        session opened) is merged or closed, unless the merge is only scheduled; the method
        a merge chose is a key decision, the project's way of merging. Whether it merged the
        session's own (its branch's work is then on the base branch)."""
        if pull.method:
            decision(self.store, "merge_method", f"merge method: {pull.method}", stamp)
        if pull.verb == "merge" and MERGE_LATER_RE.search(output[:4000]):
            return False  # "will be automatically merged … when all requirements are met"
        named, ours = pull.pull_request, self.open
        own = not named or bool(ours and same_pull(named, ours.strip("`")))
        if own:
            named, self.open = ours, ""
            self._boxes((), stamp)
        else:
            named = f"#{named}" if named.isdigit() else code(named, 160)
        if named:
            text = f"{pull.verb}d pull request {named}"
            bump(self.store, "completed_work", "pull_request", text, stamp, done_key(text))
        return own and pull.verb == "merge"

    def lines(self, commits: list[tuple[str, str, Stamp]]) -> list[tuple[str, str, Stamp]]:
        """The commits' lines where the session stands, then the forge's: CI not seen to
        check a push is said on the line that shows the commit pushed, if one does."""
        found = list(commits)
        if self.ci == "unseen" and self.ci_stamp is not None:
            shown = next((i for i, (kind, text, _) in enumerate(found)
                          if kind == "pushed" and self.ci_pushed and self.ci_pushed in text),
                         None)  # fmt: skip
            if shown is not None:
                kind, text, stamp = found[shown]
                found[shown] = (kind, f"{text}; its CI checks not seen", stamp)
            else:
                pushed = f"pushed {self.ci_pushed}" if self.ci_pushed else "pushed"
                found.append(("ci_unseen", f"{pushed}; its CI checks not seen", self.ci_stamp))
        if self.open and self.stamp is not None:
            found.append(("pull_open", f"pull request left open: {self.open}", self.stamp))
        return found

    def facts(self) -> tuple[object, ...]:
        return (self.open, self.stamp, self.ci, self.ci_stamp, self.ci_pushed)

    def to_state(self) -> list[Any]:
        return list(self.facts())

    def load_state(self, state: list[Any]) -> None:
        self.open, stamp, self.ci, ci_stamp, self.ci_pushed = state
        self.stamp = None if stamp is None else (stamp[0], stamp[1])
        self.ci_stamp = None if ci_stamp is None else (ci_stamp[0], ci_stamp[1])
