"""The budget-keeping store behind the deriver: items, sections, eviction tiers, token totals.

Every change is O(1) amortised: an item's body is counted once when its text changes, its
prefix comes from a small cache, and the store keeps a running total of the tokens the
rendered memory will take (:mod:`deriver.token_budget` counts the parts and checks that they
add up exactly).
When the total goes over the budget, the oldest item of the lowest tier goes first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from deriver.goal import GoalState, Stamp, fit_goal, stamp_of
from deriver.keys import ItemKey
from deriver.token_budget import TokenArithmetic
from deriver.wording import relative
from session_memory.core.arguments import check_argument
from session_memory.core.errors import SnapshotError
from session_memory.core.layout import RENDER_ORDER, STANDS_SECTION
from session_memory.core.memory import Goal, MemoryItem, Provenance, SectionName

__all__ = ["EVICTION_TIERS", "GoalState", "Item", "MemoryStore", "Stamp"]


# Tier names in the order they are sacrificed when the budget is tight (docs/rules.md).
EVICTION_TIERS: Final[tuple[str, ...]] = (
    "completed_work",
    "earlier_goals",
    "resolved_failures",
    "key_decisions",
    "verification_status",
    "open_failures",
    "todo_items",
)
_TIER_INDEX: Final = {name: i for i, name in enumerate(EVICTION_TIERS)}
_HISTORY_TIERS: Final = _TIER_INDEX["open_failures"]

_SPARED_PER_TIER: Final = 3
_EVICTED_KEPT: Final = 16
_SETTLED_KINDS: Final = frozenset(
    {"goal", "root_goal", "user_choice", "answer", "reply", "plan", "decision"}
)
"""Kinds of item no rule changes or removes once written (:meth:`MemoryStore.returned`):
requests, the user's choices and answers, the agent's stated decisions, answers and approved
plans. A closing message is not one: a later turn may overtake what it says."""


class Item:
    """One mutable memory item; :meth:`frozen` gives it as the memory shows it."""

    __slots__ = (
        "body_tokens",
        "changed",
        "closed",
        "count",
        "created",
        "id",
        "key",
        "kind",
        "prefix_tokens",
        "safe_to_replay",
        "section",
        "status",
        "text",
        "tier",
    )

    def __init__(
        self,
        item_id: str,
        section: SectionName,
        kind: str,
        text: str,
        status: str | None,
        created: Stamp,
        key: ItemKey | None,
        safe_to_replay: bool | None,
        tier: int = 0,
        body_tokens: int = 0,
        prefix_tokens: int = 0,
    ) -> None:
        self.id = item_id
        self.section: SectionName = section
        self.kind = kind
        self.text = text
        self.status = status
        self.count = 1
        self.safe_to_replay = safe_to_replay
        self.created = created
        self.changed = created
        self.closed: Stamp | None = None
        self.key = key
        self.tier = tier
        self.body_tokens = body_tokens
        self.prefix_tokens = prefix_tokens

    @property
    def tokens(self) -> int:
        return self.prefix_tokens + self.body_tokens

    def frozen(self) -> MemoryItem:
        """The item as the memory shows it."""
        closed = self.closed
        return MemoryItem(
            id=self.id,
            kind=self.kind,
            text=self.text,
            status=self.status,
            count=self.count,
            safe_to_replay=self.safe_to_replay,
            tokens=self.tokens,
            provenance=Provenance(
                created_by=self.created[0],
                created_step=self.created[1],
                changed_by=self.changed[0],
                changed_step=self.changed[1],
                closed_by=closed[0] if closed else None,
                closed_step=closed[1] if closed else None,
            ),
        )

    def to_state(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "section": self.section,
            "kind": self.kind,
            "text": self.text,
            "status": self.status,
            "count": self.count,
            "safe_to_replay": self.safe_to_replay,
            "created": list(self.created),
            "changed": list(self.changed),
            "closed": list(self.closed) if self.closed else None,
            "key": self.key,
            "tier": self.tier,
            "body_tokens": self.body_tokens,
            "prefix_tokens": self.prefix_tokens,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Item:
        item = cls(
            state["id"],
            state["section"],
            state["kind"],
            state["text"],
            state["status"],
            stamp_of(state["created"]),
            state["key"],
            state["safe_to_replay"],
        )
        item.count = state["count"]
        item.changed = stamp_of(state["changed"])
        item.closed = stamp_of(state["closed"]) if state["closed"] else None
        item.tier = state["tier"]
        item.body_tokens = state["body_tokens"]
        item.prefix_tokens = state["prefix_tokens"]
        return item


class MemoryStore:
    """Items by section, eviction order by tier, and the running token total."""

    def __init__(self, tokens: TokenArithmetic, budget_tokens: int, goal_tokens: int) -> None:
        self.tokens = tokens
        self.budget_tokens = budget_tokens
        self.goal_tokens = goal_tokens
        self.sections: dict[SectionName, dict[str, Item]] = {s: {} for s in RENDER_ORDER}
        self._tiers: list[dict[str, Item]] = [{} for _ in EVICTION_TIERS]
        self.by_key: dict[ItemKey, Item] = {}
        self.omitted: dict[SectionName, int] = {}
        self.omitted_kinds: dict[str, int] = {}
        self.evicted: list[Item] = []
        """The latest items evicted of the kinds that never change once written (see
        :meth:`returned`)."""
        self.goal: GoalState | None = None
        self.requests: dict[str, str] = {}
        """The newest earlier requests' lines, cut, and their whole words (said longer as
        the memory is read: :func:`deriver.conclusions.widened`)."""
        self.cwd: str | None = None
        """The session's working directory, as its latest message or transition said."""
        self.root: str | None = None
        """The first working directory said: the project's, files changed are named from it
        wherever the agent's shell moved since."""
        self.stands: list[Item] = []
        """Where the session stands: rebuilt whole by :mod:`deriver.stands`, never evicted."""
        self.stands_tokens = 0
        self.stands_cap = 0
        """The most tokens the stands section may take (set by the deriver)."""
        self._next_id = 0
        self._items_tokens = 0
        self._header_tokens = tokens.header
        self._section_tokens = tokens.section_headers
        # Headings and markers of the sections that render, kept as a running total.
        self._section_costs: dict[SectionName, int] = dict.fromkeys(RENDER_ORDER, 0)
        self._structure_tokens = 0

    # -- counting -----------------------------------------------------------------------

    def _count_prefix(self, item: Item) -> int:
        return self.tokens.prefix(item.status, item.count, item.safe_to_replay)

    def fixed_tokens_worst_case(self) -> int:
        """Tokens that cannot be evicted: header, goal and every section's marker."""
        markers = sum(self._section_tokens[s] + self.tokens.largest_marker(s) for s in RENDER_ORDER)
        return self._header_tokens + self.goal_tokens + markers

    def total_tokens(self) -> int:
        """Tokens of the rendered memory as it stands (0 when it renders empty)."""
        if self.goal is None and not self._structure_tokens and not self.stands_tokens:
            return 0
        total = self._header_tokens + self._items_tokens + self._structure_tokens
        total += self.stands_tokens
        if self.goal is not None:
            total += self.goal.tokens
        return total

    def _restructure(self, section: SectionName) -> None:
        """Recount a section's heading and marker after its items or omitted count changed."""
        cost = self._section_cost(
            section, bool(self.sections[section]), self.omitted.get(section, 0)
        )
        self._structure_tokens += cost - self._section_costs[section]
        self._section_costs[section] = cost

    # -- items --------------------------------------------------------------------------

    def add(
        self,
        section: SectionName,
        kind: str,
        text: str,
        stamp: Stamp,
        *,
        status: str | None = None,
        key: ItemKey | None = None,
        safe_to_replay: bool | None = None,
        tier: str | None = None,
    ) -> Item:
        """Add an item at the end of its section (the most recent place)."""
        self._next_id += 1
        item_id = f"{_ID_PREFIX[section]}{self._next_id}"
        tier_index = _TIER_INDEX[tier or section]
        body_tokens = self.tokens.body(text)
        prefix_tokens = self.tokens.prefix(status, 1, safe_to_replay)
        item = Item(
            item_id,
            section,
            kind,
            text,
            status,
            stamp,
            key,
            safe_to_replay,
            tier_index,
            body_tokens,
            prefix_tokens,
        )
        items = self.sections[section]
        items[item_id] = item
        self._tiers[tier_index][item_id] = item
        if key is not None:
            self.by_key[key] = item
        self._items_tokens += prefix_tokens + body_tokens
        if len(items) == 1:
            self._restructure(section)
        return item

    def update(
        self,
        item: Item,
        stamp: Stamp,
        *,
        text: str | None = None,
        status: str | None = None,
        count: int | None = None,
        safe_to_replay: bool | None = None,
        kind: str | None = None,
        tier: str | None = None,
        touch: bool = True,
    ) -> None:
        """Change an item the store holds, in place: the fields given, recounting its tokens;
        ``tier`` moves it to another eviction tier; ``touch`` moves it to the most recent
        place of its section and tier (else it keeps its place). ``stamp`` is the event that
        changed it."""
        if item.id not in self.sections[item.section]:
            return
        if kind is not None:
            item.kind = kind
        if text is not None:
            self._set_text(item, text)
        if status is not None or count is not None or safe_to_replay is not None:
            self._set_prefix(item, status, count, safe_to_replay)
        item.changed = stamp
        self._place(item, tier, touch)

    def close(self, item: Item, stamp: Stamp) -> None:
        """Record ``stamp`` as the event that closed an item; it stays in the memory."""
        item.closed = stamp

    def reopen(self, item: Item) -> None:
        """Forget that an item was closed."""
        item.closed = None

    def _set_text(self, item: Item, text: str) -> None:
        if text != item.text:
            item.text = text
            tokens = self.tokens.body(text)
            self._items_tokens += tokens - item.body_tokens
            item.body_tokens = tokens

    def _set_prefix(
        self, item: Item, status: str | None, count: int | None, safe_to_replay: bool | None
    ) -> None:
        """Change the fields an item's prefix shows, and count the prefix again."""
        if status is not None:
            item.status = status
        if count is not None:
            item.count = count
        if safe_to_replay is not None:
            item.safe_to_replay = safe_to_replay
        tokens = self._count_prefix(item)
        self._items_tokens += tokens - item.prefix_tokens
        item.prefix_tokens = tokens

    def _place(self, item: Item, tier: str | None, touch: bool) -> None:
        """Move an item to another tier, or to the most recent place of its own."""
        tiers = self._tiers
        new_tier = _TIER_INDEX[tier] if tier is not None else item.tier
        if new_tier != item.tier or touch:
            del tiers[item.tier][item.id]
            item.tier = new_tier
            tiers[new_tier][item.id] = item
        if touch:
            section_items = self.sections[item.section]
            section_items[item.id] = section_items.pop(item.id)

    def remove(self, item: Item, stamp: Stamp | None = None) -> None:
        """Take an item out of the memory because it is closed (not counted as omitted)."""
        items = self.sections[item.section]
        if items.pop(item.id, None) is None:
            return
        del self._tiers[item.tier][item.id]
        if item.key is not None and self.by_key.get(item.key) is item:
            del self.by_key[item.key]
        if stamp is not None:
            item.closed = stamp
        self._items_tokens -= item.prefix_tokens + item.body_tokens
        if not items:
            self._restructure(item.section)

    def get(self, key: ItemKey) -> Item | None:
        """The item with this key, if it is in the memory."""
        return self.by_key.get(key)

    def items_of(self, section: SectionName) -> list[Item]:
        return list(self.sections[section].values())

    # -- where the session stands ---------------------------------------------------------

    def in_project(self, path: str) -> str:
        """A file as the memory names it: from the project's directory, wherever the shell
        moved since (a file edited before and after ``cd frontend`` is one file); else from
        where the shell is; else as given."""
        shown = relative(path, self.root) or path
        return shown if shown != path else relative(path, self.cwd) or path

    def words_in_project(self, text: str) -> str:
        """A tool's output with the project's directory left out of the paths it names:
        ``/repo/src/a.rs:3:1: error: …`` reads ``src/a.rs:3:1: error: …``, so that the excerpt
        a failure keeps is the error, not the directory the session works in."""
        root = (self.root or self.cwd or "").rstrip("/\\")
        if len(root) < 2 or root not in text:
            return text
        return text.replace(root + "/", "").replace(root + "\\", "")

    def stands_cost(self, items: list[Item]) -> int:
        """Tokens the stands section takes with these items (none: no section)."""
        if not items:
            return 0
        return self.tokens.stands_header + sum(i.prefix_tokens + i.body_tokens for i in items)

    def set_stands(self, items: list[Item]) -> None:
        """The stands section's items (:meth:`stands_item`), in order; the caller fits them
        to :attr:`stands_cap`."""
        self.stands = items
        self.stands_tokens = self.stands_cost(items)

    def stands_item(self, kind: str, text: str, stamp: Stamp) -> Item:
        """An item of the stands section, its tokens counted."""
        item = Item(f"s-{kind}", STANDS_SECTION, kind, text, None, stamp, None, None)
        item.body_tokens = self.tokens.body(text)
        item.prefix_tokens = self.tokens.prefix(None, 1, None)
        return item

    def retexted(self, item: Item, text: str) -> Item:
        """A copy of ``item`` saying ``text`` (as the memory is read), its tokens counted."""
        copy = Item(item.id, item.section, item.kind, text, item.status, item.created,
                    item.key, item.safe_to_replay, item.tier, self.tokens.body(text),
                    item.prefix_tokens)  # fmt: skip
        copy.count, copy.changed, copy.closed = item.count, item.changed, item.closed
        return copy

    # -- goal ---------------------------------------------------------------------------

    def set_goal(self, text: str, stamp: Stamp, run_id: str | None, *, root: bool = False) -> None:
        self.goal = GoalState(text, stamp, run_id, root=root)
        self._fit_goal()

    def acknowledge(self, text: str) -> None:
        if self.goal is None:
            return
        self.goal.acknowledgements += 1
        self.goal.last_ack = text
        self._fit_goal()

    def _fit_goal(self) -> None:
        """Shorten the goal text until its block fits the goal cap; never drop it."""
        assert self.goal is not None
        fit_goal(self.goal, self.tokens.goal, self.goal_tokens)

    # -- budget -------------------------------------------------------------------------

    def fit(self) -> None:
        """Evict the oldest items of the lowest tiers until the memory fits the budget."""
        while self.total_tokens() > self.budget_tokens:
            victim = self._next_victim()
            if victim is None:  # only the goal and markers are left; the cap keeps them in
                return
            self.remove(victim)
            section = victim.section
            self.omitted[section] = self.omitted.get(section, 0) + 1
            self.omitted_kinds[victim.kind] = self.omitted_kinds.get(victim.kind, 0) + 1
            self._restructure(section)
            if victim.kind in _SETTLED_KINDS:
                self.evicted.append(victim)
                del self.evicted[:-_EVICTED_KEPT]

    def forget_evicted(self, section: SectionName, kinds: Iterable[str]) -> None:
        """Items of ``kinds`` a rule replaced whole (a todo list's steps by a newer list): the
        ones evicted before are gone with them, no more items left out to count."""
        gone = sum(self.omitted_kinds.pop(kind, 0) for kind in kinds)
        if gone:
            self.omitted[section] = max(self.omitted.get(section, 0) - gone, 0)
            self._restructure(section)

    def returned(self, room: int) -> tuple[list[Item], int]:
        """The evicted items that come back into ``room`` tokens as the memory is read, and
        the tokens they take: the last evicted first, while they fit. Eviction is for the
        fold's tightest moment; the memory read later may have room again. Only items no
        rule changes once written come back (:data:`_SETTLED_KINDS`): one the fold would
        have changed had it stayed could come back stale."""
        back: list[Item] = []
        used = 0
        omitted = dict(self.omitted)
        shown = {s for s, items in self.sections.items() if items}
        keys = set(self.by_key)
        for item in reversed(self.evicted):
            if item.key is not None and item.key in keys:
                continue  # written again since, and shown or evicted again after it
            if item.key is not None:
                keys.add(item.key)
            section = item.section
            before = self._section_cost(section, section in shown, omitted[section])
            after = self._section_cost(section, True, omitted[section] - 1)
            cost = item.tokens + after - before
            if used + cost <= room:
                back.append(item)
                used += cost
                omitted[section] -= 1
                shown.add(section)
        return back, used

    def shown_cost(self, section: SectionName, items: list[Item], omitted: int) -> int:
        """What a section costs shown with ``items`` and ``omitted`` more left out."""
        return self._section_cost(section, bool(items), omitted) + sum(i.tokens for i in items)

    def _section_cost(self, section: SectionName, has_items: bool, omitted: int) -> int:
        """A section's heading and marker: what :meth:`_restructure` counts."""
        if not (has_items or omitted):
            return 0
        cost = self._section_tokens[section]
        return cost + self.tokens.marker(section, omitted) if omitted else cost

    def _next_victim(self) -> Item | None:
        # First pass: spare each history tier's most recent few items, so that a tight
        # budget thins every section of history before it empties the lowest one. Open
        # failures and todos are not history: they go only after all history is gone.
        for tier in self._tiers[:_HISTORY_TIERS]:
            if len(tier) > _SPARED_PER_TIER:
                return next(iter(tier.values()))
        for tier in self._tiers:
            if tier:
                return next(iter(tier.values()))
        return None

    # -- views and snapshots --------------------------------------------------------------

    def goal_item(self) -> Goal | None:
        """The current goal as the memory shows it."""
        goal = self.goal
        if goal is None:
            return None
        return Goal(
            text=goal.text,
            truncated=goal.truncated,
            acknowledgements=goal.acknowledgements,
            last_acknowledgement=goal.last_ack,
            event_id=goal.source[0],
            step=goal.source[1],
            run_id=goal.run_id,
            tokens=goal.tokens,
        )

    def to_state(self) -> dict[str, Any]:
        goal = self.goal
        return {
            "next_id": self._next_id,
            "items": [i.to_state() for items in self.sections.values() for i in items.values()],
            "tiers": [list(tier) for tier in self._tiers],
            "omitted": self.omitted,
            "omitted_kinds": self.omitted_kinds,
            "evicted": [i.to_state() for i in self.evicted],
            "goal": None if goal is None else goal.to_state(),
            "requests": self.requests,
            "cwd": self.cwd,
            "root": self.root,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        for name, kind in _STATE_FIELDS.items():
            check_argument(f"snapshot field store.{name}", state[name], kind, error=SnapshotError)
        self._next_id = state["next_id"]
        items = {}
        for raw in state["items"]:
            item = Item.from_state(raw)
            items[item.id] = item
            self.sections[item.section][item.id] = item
            if item.key is not None:
                self.by_key[item.key] = item
            self._items_tokens += item.tokens
        self._tiers = [{i: items[i] for i in ids} for ids in state["tiers"]]
        self.omitted = dict(state["omitted"])
        self.omitted_kinds = dict(state["omitted_kinds"])
        self.evicted = [Item.from_state(raw) for raw in state["evicted"]]
        self.requests = dict(state["requests"])
        for section in RENDER_ORDER:
            self._restructure(section)
        cwd, root = state.get("cwd"), state.get("root")
        self.cwd = cwd if isinstance(cwd, str) else None
        self.root = root if isinstance(root, str) else None
        raw_goal = state["goal"]
        if raw_goal is not None:
            self.goal = GoalState.from_state(raw_goal)


_ID_PREFIX: Final[dict[SectionName, str]] = {
    "earlier_goals": "g",
    "todo_items": "t",
    "verification_status": "v",
    "failed_attempts": "f",
    "key_decisions": "d",
    "completed_work": "c",
}
_STATE_FIELDS: Final[dict[str, type]] = {
    "next_id": int,
    "items": list,
    "tiers": list,
    "omitted": dict,
    "omitted_kinds": dict,
    "evicted": list,
    "requests": dict,
}
"""The types of the store's snapshot fields that restore as they are, checked on load."""
