"""The closing messages kept as key decisions, and the earlier requests, quoted longer as
the memory is read.

A closing message that states a choice is kept as a key decision, cut to a share of the
budget when the fold keeps it (:meth:`deriver.stands.Stands._keep_closing`); an earlier
request is kept cut too (head and tail). When the memory is read, the room the rest leaves
lets the newest of them say more (head and tail kept): the earlier closing messages, "while
the budget allows", and what a long request asked in its middle ("never push sensitive
data"); the closing message the latest request followed is quoted where the session stands
(:func:`earlier_message`). Nothing is evicted for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from deriver.agent_text import before_question, quote_head_tail, without_git_state
from deriver.store import Item, MemoryStore, Stamp
from deriver.wording import longest_cut

__all__ = ["KEPT_WHOLE", "concluded", "earlier_message", "widened"]

_CONCLUDED: Final = "the agent concluded: "
KEPT_WHOLE: Final = 8
"""The closing messages kept as decisions whose whole words are remembered (the newest)."""
_WIDENED: Final = 3
"""How many of the newest are quoted longer."""
_MOST_CHARS: Final = 2000
_MIN_PREVIOUS_CHARS: Final = 80


def concluded(said: str, chars: int) -> str:
    """The key decision a closing message becomes, its words cut to ``chars``."""
    return _CONCLUDED + quote_head_tail(said, chars)


def widened(
    store: MemoryStore,
    items: list[Item],
    whole: Mapping[str, str],
    free: int,
    quoted: Callable[[str, int], str] = concluded,
) -> tuple[list[Item], int]:
    """A section's items with the newest of those kept cut (``whole``: each one's line as
    kept -> its whole words; the closing messages among the key decisions, the earlier
    requests) ``quoted`` longer, into up to ``free`` tokens: the items in their order, and
    the tokens taken."""
    shown, used, left = list(items), 0, _WIDENED
    body = store.tokens.body
    for i in reversed(range(len(shown))):
        item = shown[i]
        said = whole.get(item.text)
        if said is None:
            continue
        if left == 0:
            break
        left -= 1
        room = item.body_tokens + free - used
        text = quoted(said, _MOST_CHARS)
        if text == item.text:
            continue  # kept whole
        if body(text) > room:  # only a shorter cut fits: the longest

            def fits(chars: int, said: str = said, room: int = room) -> bool:
                return body(quoted(said, chars)) <= room

            chars = longest_cut(fits, room, _MOST_CHARS, 1)
            text = quoted(said, chars) if chars else ""
            if len(text) <= len(item.text):
                continue
        wider = store.retexted(item, text)
        used += wider.body_tokens - item.body_tokens
        shown[i] = wider
    return shown, used


def earlier_message(
    store: MemoryStore, previous: str, stamp: Stamp | None, free: int
) -> tuple[str, str, Stamp] | None:
    """The closing message the latest request followed (``previous``), cut to take up to
    ``free`` tokens where the session stands: what that request answers. None when there is
    none or no cut fits."""
    if not previous or stamp is None:
        return None
    said = without_git_state(before_question(previous))
    room = free - store.tokens.prefix(None, 1, None)
    room -= 0 if store.stands else store.tokens.stands_header

    def line(chars: int) -> tuple[str, str, Stamp]:
        text = f"before the latest request, the agent said: {quote_head_tail(said, chars)}"
        return ("previous_message", text, stamp)

    body = store.tokens.body
    chars = longest_cut(lambda n: body(line(n)[1]) <= room, room, _MOST_CHARS, _MIN_PREVIOUS_CHARS)
    return line(chars) if chars else None
