"""The session's commits and whether they are pushed: a completed-work line per commit, and
the commits not pushed yet, which the section of where the session stands names.

A commit is named by the hash and subject ``git commit`` prints, or by the subject its
command line gives when it is quiet. An amended commit replaces the last one, pushed or not
(a force-push then takes it). A push takes every commit not pushed; so does a ``git
status`` that says the branch is up to date with its upstream, and one that says it is
ahead by N commits leaves only the last N unpushed (whoever pushed the others).

A reset back past the last commits (``git reset HEAD~1``) takes them off, as an amend does.
A branch the session made (``git checkout -b x``, ``git switch -c x main``) is where its work
goes until it moves to another: named with the branch it was made from. Another repository
the session works in beside the project has commits of its own (:class:`Repositories`).
"""

from __future__ import annotations

import re
from typing import Any, Final

from deriver.actions import positional_words
from deriver.git_state import COMMIT_RE, commit_subjects
from deriver.keys import done_key
from deriver.shell import basename, simple_commands
from deriver.store import MemoryStore, Stamp
from deriver.wording import code, quote

__all__ = ["Commits", "Repositories"]

_MAX_KEPT: Final = 64
"""Commits not pushed remembered (the oldest are only counted)."""
_MAX_ELSEWHERE: Final = 8
"""Other repositories whose commits are remembered (the first left go)."""
_NEW_BRANCH: Final = frozenset({"-b", "-B", "-c", "-C", "--create", "--force-create"})
# What git and gh say when they move to a branch: "Switched to a new branch 'x'", "✓ Deleted
# local branch x and switched to branch main".
_SWITCHED_RE: Final = re.compile(r"[Ss]witched to (?:a new )?branch '?([^'\s]+)")
_SWITCHES: Final = frozenset({"$ git checkout", "$ git switch"})
_INTEGRATES: Final = frozenset({"$ git pull", "$ git merge", "$ git rebase", "$ git reset"})
_ON_BRANCH_RE: Final = re.compile(r"^On branch (\S+)", re.MULTILINE)
_MERGE_DELETES_RE: Final = re.compile(r"\bmerge\b.*(?:\s--delete-branch\b|\s-d(?=\s|$))")
# A reset's target back from a commit: "HEAD~2", "HEAD^^", "74e8a5e^".
_BACK_RE: Final = re.compile(r"(HEAD|@|[0-9a-f]{7,40})((?:\^|~\d*)+)")
_STEP_RE: Final = re.compile(r"\^|~\d*")
_MODES: Final = frozenset({"--soft", "--mixed", "--hard", "--keep", "--merge"})
_HEX_RE: Final = re.compile(r"[0-9a-f]{7,40}")
_HASH_PREFIX_RE: Final = re.compile(r"^`[0-9a-f]{7,40}` ")
_HASH_RE: Final = re.compile(r"`([0-9a-f]{7,40})`")
_PUSHED_HEAD_RE: Final = re.compile(
    r"^\s*[+ ]?\s*[0-9a-f]{7,40}\.\.\.?([0-9a-f]{7,40})\s+(\S+)\s+->\s+\S+", re.MULTILINE
)
_REWRITES: Final = frozenset({"$ git rebase", "$ git filter-repo", "$ git filter-branch"})
"""What makes the commits not pushed anew (so does ``git pull --rebase``)."""
_REBASING_RE: Final = re.compile(r"(?:^|\s)(?:--rebase(?:=\S+)?|-r)(?=\s|$)")
_NOT_DONE_RE: Final = re.compile(r"(?:^|\s)--(?:abort|quit|edit-todo|show-current-patch)\b")


def _same_hash(a: str, b: str) -> bool:
    """Whether two abbreviations name the same commit (one starts the other)."""
    return a.startswith(b) or b.startswith(a)


class Commits:
    """The session's commits not pushed yet, the last one pushed, and the branch it made."""

    def __init__(self, store: MemoryStore, place: str = "") -> None:
        self.store = store
        self.where = f" in {code(place, 80)}" if place else ""
        """Where the commits are when not in the project: another repository beside it."""
        self.last = ""
        """The last commit, while it is not pushed."""
        self.earlier: list[str] = []
        """The commits before it, not pushed either (oldest first)."""
        self.branch = ""
        """The branch ``git commit`` said the last commit went on."""
        self.stamp: Stamp | None = None
        self.last_pushed = ""
        """The last commit pushed, until another is made: an amend replaces it. Until then
        it is where the session stands (what the branch's upstream has), no line of its own."""
        self.pushed_stamp: Stamp | None = None
        self.made = ""
        """The branch the session made and is on, and the one it made it from (if named)."""
        self.made_from = ""
        self.made_stamp: Stamp | None = None
        self.behind = 0
        """The upstream's commits the branch has not, as git's last status said."""

    def committed(self, command: str, output: str, stamp: Stamp) -> None:
        """A ``git commit`` that worked; each of a line's commits in turn (``git commit -q -m
        a && … && git commit -q -m b``), by what git printed of it or else its subject."""
        made = list(COMMIT_RE.finditer(output[:4000]))
        subjects = commit_subjects(command)
        amend = "--amend" in command
        for n in range(max(len(made), len(subjects))):
            found = made[n] if n < len(made) else None
            self._made(found, subjects[n] if n < len(subjects) else "", amend and not n, stamp)

    def _made(self, found: re.Match[str] | None, subject: str, amend: bool, stamp: Stamp) -> None:
        store = self.store
        if found is None and not subject:
            return
        if amend and (self.last or self.last_pushed):
            # The amended commit replaces the last one, whether or not it was pushed.
            self._take_off(self.last or self.last_pushed, stamp)
            self.last_pushed, self.pushed_stamp = "", None
        elif self.last:
            # No longer the last: the stands line counts it, the completed work names it.
            self.earlier = [*self.earlier, self.last][-_MAX_KEPT:]
            text = f"committed {self.last}"
            if store.get(done_key(text)) is None:
                store.add("completed_work", "commit", text, self.stamp or stamp, key=done_key(text))
        self.settle_pushed()
        if found is not None:
            branch = found.group(1) or ""
            self.branch = "" if branch == "detached" else branch  # "[detached HEAD 1a2b3c4]"
            self.last = f"{code(found.group(2), 16)} {quote(found.group(3), 120)}{self.where}"
        else:
            # quiet (-q): the command line names it
            self.last = f"{quote(subject, 120)}{self.where}"
        self.stamp = stamp  # shown where the session stands until pushed: no line of its own

    def pushed_all(self, stamp: Stamp, output: str = "") -> None:
        """A push: the last commit is shown where the session stands as pushed (until another
        is made), and the lines of the commits before it that the push took along say so.
        When the head git says it pushed (``b3e6ad6e..e921c91e  HEAD -> main``) is not the
        commit made, a rebase since rewrote them: the commit is named by the head pushed."""
        if not self.last:
            return
        head = _PUSHED_HEAD_RE.search(output[:4000])
        made = _HASH_RE.match(self.last)
        if head and made and head.group(2) in ("HEAD", self.branch):
            pushed, mine = head.group(1), made.group(1)
            if not (pushed.startswith(mine) or mine.startswith(pushed)):
                self.rewritten(stamp)
                self.last = f"{code(pushed[: len(mine)], 16)} {self.last}"
        self._mark_pushed(self.earlier, stamp)
        self.last_pushed, self.last, self.earlier = self.last, "", []
        self.pushed_stamp, self.behind = stamp, 0

    def upstream_has(self, branch: str, ahead: int, behind: int, stamp: Stamp) -> None:
        """git says ``branch`` has ``ahead`` commits its upstream has not: those before them
        were pushed (by the session or not); and ``behind`` the upstream's it has not: a
        push of the session's commits is refused until they are pulled."""
        if not self.last or branch != self.branch:
            return
        self.behind = behind
        unpushed = len(self.earlier) + 1
        if ahead == 0:
            self.pushed_all(stamp)
        elif ahead < unpushed:
            cut = unpushed - ahead
            self._mark_pushed(self.earlier[:cut], stamp)
            del self.earlier[:cut]

    def ran(self, action: str, command: str, output: str, stamp: Stamp) -> None:
        """A command that worked, by its action: a commit, a push, a reset, a move to a
        branch (what git or gh says of one)."""
        if action == "$ git commit":
            self.committed(command, output, stamp)
        elif action == "$ git push" and _pushes_branch(command):
            self.pushed_all(stamp, output)
        elif action == "$ git reset":
            self.reset(command, stamp)
        elif _rewrites(action, command):
            self.rewritten(stamp)
        if action in _INTEGRATES:
            self.behind = 0  # the upstream's commits taken in (or the branch set to them)
        if action in _SWITCHES or (self.made and "witched to" in output):
            self.switched(command, output, stamp)
        elif self.made and (on := _ON_BRANCH_RE.search(output[:2000])) and on[1] != self.made:
            self.made = ""  # git status: "On branch main", the branch made is left
        elif self.made and action == "$ gh pr" and _MERGE_DELETES_RE.search(command):
            self.made = ""  # the pull request merged, its branch deleted: back on the default

    def reset(self, command: str, stamp: Stamp) -> None:
        """``git reset`` back past the last commits (``HEAD~2``, ``HEAD^``, the last one's
        hash and ``^``): they are taken off, and their lines go, as an amend replaces one."""
        for piped, words in simple_commands(command):
            refs = [w for w in words[2:] if not w.startswith("-")]
            if piped or basename(words[0]) != "git" or words[1:2] != ["reset"] or len(refs) != 1:
                continue  # not a reset, or one of paths (unstaging)
            found, top = _BACK_RE.fullmatch(refs[0]), self.last or self.last_pushed
            named = _MODES.intersection(words) or _HEX_RE.fullmatch(refs[0])
            if found is None and named and not refs[0].startswith(("HEAD", "@")):
                self._reset_to(refs[0], stamp)  # git reset --soft 9f01281: squashed after
            if found is None or not top:
                continue
            base, hashed = found.group(1), _HASH_RE.match(top)
            if base not in ("HEAD", "@") and not (hashed and _same_hash(base, hashed.group(1))):
                continue  # back from another commit than the last: which ones, unknown
            back = sum(
                int(step[1:] or 1) if step[0] == "~" else 1
                for step in _STEP_RE.findall(found.group(2))
            )
            taken = [top, *reversed(self.earlier)][:back] if self.last else [top][:back]
            for commit in taken:
                self._take_off(commit, stamp)
            if self.last:
                kept = self.earlier[: len(self.earlier) - (len(taken) - 1)]
                self.last, self.earlier = (kept[-1], kept[:-1]) if kept else ("", [])
                if self.last:  # the last again: shown where the session stands
                    self._take_off(self.last, stamp)
            self.last_pushed, self.pushed_stamp = "", None

    def _reset_to(self, ref: str, stamp: Stamp) -> None:
        """``git reset`` to a commit named (a hash, ``origin/main``): the commits not pushed
        made after it are taken off; all of them, when it names none of them."""
        mine = [*self.earlier, self.last] if self.last else []
        hashes = [_HASH_RE.match(commit) for commit in mine]
        at = next((n for n, h in enumerate(hashes) if h and _same_hash(ref, h.group(1))), -1)
        for commit in mine[at + 1 :]:
            self._take_off(commit, stamp)
        kept = mine[: at + 1]
        self.last, self.earlier = (kept[-1], kept[:-1]) if kept else ("", [])
        if self.last:  # the last again: shown where the session stands
            self._take_off(self.last, stamp)

    def pushed_hash(self) -> str:
        """The last commit pushed by its hash as the memory shows it (`` `1a2b3c4` ``); empty
        when none was, or it is named by its subject only (a quiet commit)."""
        found = _HASH_RE.match(self.last_pushed)
        return found.group(0) if found is not None else ""

    def rewritten(self, stamp: Stamp) -> None:
        """A rebase or a history filter (``git pull --rebase``, ``git filter-repo``) made the
        commits not pushed anew: their hashes name commits no longer on the branch, so their
        lines name them by subject."""
        store = self.store
        for commit in self.earlier:
            renamed = _HASH_PREFIX_RE.sub("", commit)
            item = store.get(done_key(f"committed {commit}"))
            if item is not None and renamed != commit:
                store.remove(item, stamp)
                store.add("completed_work", "commit", f"committed {renamed}", item.changed,
                          key=done_key(f"committed {renamed}"))  # fmt: skip
        self.earlier = [_HASH_PREFIX_RE.sub("", c) for c in self.earlier]
        self.last = _HASH_PREFIX_RE.sub("", self.last)

    def settle_pushed(self) -> None:
        """The last commit pushed is no longer where the session stands (another was made,
        or the pull request of its branch merged it): a line of completed work."""
        if self.last_pushed and self.pushed_stamp is not None:
            text = f"committed and pushed {self.last_pushed}"
            key = done_key(f"committed {self.last_pushed}")
            item = self.store.get(key)
            if item is None:
                self.store.add("completed_work", "commit", text, self.pushed_stamp, key=key)
            else:
                self.store.update(item, self.pushed_stamp, text=text)
        self.last_pushed, self.pushed_stamp = "", None

    def _take_off(self, commit: str, stamp: Stamp) -> None:
        """A commit amended or reset away: its lines go, pushed or not."""
        for key in (done_key(f"committed {commit}"), done_key(f"pushed {commit}")):
            if (item := self.store.get(key)) is not None:
                self.store.remove(item, stamp)

    def switched(self, command: str, output: str, stamp: Stamp) -> None:
        """A command that worked moved to a branch: one the session made (``git checkout
        -b``, ``git switch -c``) or another (``git switch main``, or what git or gh said)."""
        for piped, words in simple_commands(command):
            if piped or basename(words[0]) != "git" or words[1:2] not in (["checkout"], ["switch"]):
                continue
            made = [w for w in words[2:] if w != "--"]
            flag = next((i for i, w in enumerate(made) if w in _NEW_BRANCH), None)
            if flag is not None and flag + 1 < len(made):
                after = [w for w in made[flag + 2 :] if not w.startswith("-")]
                self.made, self.made_from = made[flag + 1], after[0] if after else ""
                self.made_stamp = stamp
                return
            if words[1] == "switch" or made[-1:] == [self.made_from]:
                self.made = ""  # back on another branch (checkout x may restore a file)
        found = _SWITCHED_RE.search(output[:4000])
        if found is not None and found.group(1) != self.made:
            self.made = ""

    def lines(self) -> list[tuple[str, str, Stamp]]:
        """Where the session stands with its commits: the last one not pushed, or else the
        last one pushed, and the branch the session made (named once)."""
        found = []
        on = f" on {code(self.branch, 60)}" if self.branch else ""
        if self.last_pushed and self.pushed_stamp is not None:
            found.append(("pushed", f"committed and pushed{on}: {self.last_pushed}",
                          self.pushed_stamp))  # fmt: skip
        if self.last and self.stamp is not None:
            earlier = len(self.earlier)
            more = f" (and {earlier} earlier commit{'s' * (earlier > 1)})" if earlier else ""
            behind = self.behind
            if behind:
                more += f"; its upstream has {behind} commit{'s' * (behind > 1)} it has not"
            found.append(("unpushed", f"committed and not pushed{on}: {self.last}{more}",
                          self.stamp))  # fmt: skip
        if self.made and self.made_stamp is not None and not (found and self.branch == self.made):
            made_from = f" from {code(self.made_from, 60)}" if self.made_from else ""
            found.append(("branch", f"on branch {code(self.made, 60)}{self.where}, made in this "
                          f"session{made_from}", self.made_stamp))  # fmt: skip
        return found

    def facts(self) -> tuple[object, ...]:
        """What the lines of :meth:`lines` are made of."""
        return (self.last, len(self.earlier), self.stamp, self.branch, self.made, self.made_from,
                self.last_pushed, self.pushed_stamp, self.behind)  # fmt: skip

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
            "pushed_stamp": self.pushed_stamp,
            "made": [self.made, self.made_from, self.made_stamp],
            "behind": self.behind,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.last, self.earlier = state["last"], list(state["earlier"])
        self.branch, self.last_pushed = state["branch"], state["last_pushed"]
        stamp = state["stamp"]
        self.stamp = None if stamp is None else (stamp[0], stamp[1])
        self.made, self.made_from, made_stamp = state["made"]
        self.made_stamp = None if made_stamp is None else (made_stamp[0], made_stamp[1])
        pushed = state["pushed_stamp"]
        self.pushed_stamp = None if pushed is None else (pushed[0], pushed[1])
        self.behind = state["behind"]


class Repositories:
    """The commits of the project ("") and of other repositories the session worked in
    beside it (``cd ../other``, a Codex ``workdir``), by their directory: each has its own
    last commit, pushes and branch."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.by_place: dict[str, Commits] = {"": Commits(store)}

    def at(self, place: str) -> Commits:
        found = self.by_place.get(place)
        if found is None:
            found = self.by_place[place] = Commits(self.store, place)
            if len(self.by_place) > _MAX_ELSEWHERE + 1:
                del self.by_place[next(p for p in self.by_place if p)]
        return found

    def lines(self) -> list[tuple[str, str, Stamp]]:
        return [line for commits in self.by_place.values() for line in commits.lines()]

    def facts(self) -> tuple[object, ...]:
        return tuple(commits.facts() for commits in self.by_place.values())

    def to_state(self) -> dict[str, Any]:
        return {place: commits.to_state() for place, commits in self.by_place.items()}

    def load_state(self, state: dict[str, Any]) -> None:
        self.by_place = {"": Commits(self.store)}
        for place, commits in state.items():
            self.at(place).load_state(commits)


def _rewrites(action: str, command: str) -> bool:
    """Whether a command that worked made the commits not pushed anew: a rebase that went
    through (``git pull --rebase`` too; not ``git rebase --abort``), a history filter."""
    rebased = action == "$ git pull" and _REBASING_RE.search(command) is not None
    return (action in _REWRITES or rebased) and _NOT_DONE_RE.search(command) is None


def _pushes_branch(command: str) -> bool:
    """Whether a ``git push`` sends the branch's commits: not one that names only notes or
    tags (``git push origin refs/notes/ai``, ``git push --tags``)."""
    for piped, words in simple_commands(command):
        if piped or basename(words[0]) != "git" or words[1:2] != ["push"]:
            continue
        refs = [w.lstrip("+") for w in positional_words(words[2:])[1:]]
        if refs and all(r.startswith(("refs/notes/", "refs/tags/")) for r in refs):
            continue
        if "--tags" in words and not refs:
            continue
        return True
    return False
