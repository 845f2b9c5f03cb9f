"""Reading the agent's messages: what a closing message asks, which option a short reply picks,
whether a message states a choice, and its sentences on git state; whether a sub-agent's
report says it did not finish, and the lines in which the agent says work it did is wrong;
quoting a long message by its head and its tail.

Total, deterministic, free of I/O.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from deriver.user_text import QUESTION_WORDS, first_sentence, word_set
from deriver.wording import quote

__all__ = [
    "MESSAGE_CHARS",
    "QUESTION_CHARS",
    "before_question",
    "bids_anew",
    "concedes",
    "last_sentence",
    "offer_of",
    "option_of",
    "question_of",
    "quote_head_tail",
    "reports_unfinished",
    "retractions",
    "sole_question",
    "states_choice",
    "takes_offer",
    "without_git_state",
]

MESSAGE_CHARS: Final = 8000
"""The most of a message ever quoted."""
_ELLIPSIS: Final = " \u2026 "
_HEAD_SHARE: Final = 0.6
_LAST_LINES: Final = 3


def quote_head_tail(text: str, max_chars: int) -> str:
    """``text`` quoted on one line; when longer than ``max_chars``, its head and its tail
    around an ellipsis (what a message asks or concludes is often at its end)."""
    whole = quote(text, MESSAGE_CHARS)[1:-1]
    if len(whole) <= max_chars:
        return f"\u201c{whole}\u201d"
    keep = max(2, max_chars - len(_ELLIPSIS))
    head = int(keep * _HEAD_SHARE)
    tail = keep - head
    return f"\u201c{whole[:head].rstrip()}{_ELLIPSIS}{whole[-tail:].lstrip()}\u201d"


# A question mark that ends a sentence: after a word, before the line's end or a space (a
# closing quote, bracket or emphasis mark between), never inside a URL or a path.
_QUESTION_END_RE: Final = re.compile(r"(?<![/=&?])\?(?=[\"'\u201d\u2019)\]*_`]*(?:\s|$))")


# Where a sentence before the question ends: its mark and the blank after it (the "." of
# "writeup.md" or "v1.2" ends none, nor that of "e.g. " or "etc. ").
_SENTENCE_GAP_RE: Final = re.compile(
    r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)[.!?]+[\"'\u201d\u2019)\]*_`]*\s"
)


def _in_address(word: str) -> bool:
    """Whether a word is (the start of) a URL or a path, where "?" starts a query."""
    return "://" in word or "=" in word or word.lstrip("(`\"'").startswith(("/", "~/", "./"))


def question_of(text: str) -> str:
    """The question a message ends by asking (in its last few lines), or the menu of options
    it ends with ("[A] Advanced [C] Continue"), or empty."""
    lines = [ln.strip() for ln in text[-4000:].splitlines() if ln.strip()]
    if lines and _menu(lines[-1]):
        return " ".join(lines[-1].replace("**", "").split())
    for text_line in reversed(lines[-_LAST_LINES:]):
        ends = [
            m.start()
            for m in _QUESTION_END_RE.finditer(text_line)
            if not _in_address(text_line[: m.start()].rsplit(None, 1)[-1])
        ]
        if ends:
            end = ends[-1]
            starts = [m.end() for m in _SENTENCE_GAP_RE.finditer(text_line, 0, end)]
            start = starts[-1] if starts else 0
            return text_line[start : end + 1].strip().lstrip("-*# ").strip()
    return ""


def sole_question(text: str) -> str:
    """The question a user's message ends by asking, when it asks no other: one that asks
    several (a list of questions to look into) is a request the agent's next words do not
    answer."""
    question = question_of(text)
    return question if question and len(_QUESTION_END_RE.findall(text)) <= 1 else ""


QUESTION_CHARS: Final = 240
"""How much of a question the memory quotes on a line of its own."""


@functools.lru_cache(maxsize=8)
def before_question(text: str) -> str:
    """A message without the question it ends with (:func:`question_of`), which where the
    session stands shows whole on a line of its own; empty when the question is all it
    says. Memoised: the section quotes the same last message at many lengths to fit it."""
    question = question_of(text)
    body = text.rstrip()
    at = body.rfind(question) if question and len(question) <= QUESTION_CHARS else -1
    if at < 0 or body[at + len(question) :].strip(" *_`'\"\u201d\u2019)"):
        return text
    return body[:at].rstrip()


# A sentence that offers the user a next step: "Say the word and I'll post it", "Want me to
# push?", "I can open the PR if you like".
_OFFER_RE: Final = re.compile(
    r"\b(?:want me to|shall i|should i|i can|i could|i['\u2019]ll|i will|say the word"
    r"|let me know)\b",
    re.IGNORECASE,
)
_OFFER_SCAN: Final = 600
_WORD_RE: Final = re.compile(r"[a-z][a-z'\u2019-]*")
# Words of a reply that take what was offered without naming it: "post it", "push them now".
_TAKING_WORDS: Final = word_set(
    "it them that this those these please pls now then go ahead and the a ok okay yes sure do"
)
_MAX_TAKING_CHARS: Final = 40
_MAX_TAKING_VERBS: Final = 3


def offer_of(message: str) -> str:
    """The last sentence near a message's end that offers the user a next step, or empty."""
    for text_line in reversed(message[-_OFFER_SCAN:].splitlines()):
        for sentence in reversed(re.split(r"(?<=[.!?])\s+", text_line.strip())):
            if _OFFER_RE.search(sentence):
                return sentence
    return ""


def takes_offer(message: str, reply: str) -> bool:
    """Whether a short reply takes up the one step a message offered, in the offer's own
    words ("post it" to "Say the word and I'll post it"): an answer, not a new request. A
    reply to an offer of this or that ("the minimal fix, or the restructure?") is not read
    so: the words the two share are no choice."""
    reply = reply.strip()
    if not reply or len(reply) > _MAX_TAKING_CHARS or reply.endswith("?"):
        return False
    offer = offer_of(message)
    if not offer or re.search(r"\bor\b", offer):
        return False
    offered = set(_WORD_RE.findall(offer.lower()))
    verbs = [w for w in _WORD_RE.findall(reply.lower()) if w not in _TAKING_WORDS]
    return 0 < len(verbs) <= _MAX_TAKING_VERBS and all(w in offered for w in verbs)


_NO_STEP: Final = word_set("yes ok okay sure do go ahead on it that this now continue proceed")


def bids_anew(message: str, reply: str) -> bool:
    """Whether a polite short reply bids a step of its own ("Please open a PR", "pls research
    it") to a message that neither asks nor offers: a request, not an answer to it."""
    words = _WORD_RE.findall(reply.lower())
    if words[:1] not in (["please"], ["pls"]) or all(w in _NO_STEP for w in words[1:]):
        return False
    return not (message and (question_of(message) or offer_of(message)))


# A reply that picks an option by its number or letter: "1", "option B", "the second one".
_PICK_RE: Final = re.compile(
    r"^\s*(?:(?:option|choice|#)\s*)?(?P<key>[0-9]|[a-e])\s*[.)]?\s*(?:please)?\s*$"
    r"|^\s*(?:the\s+)?(?P<ordinal>first|second|third|fourth|fifth)(?:\s+(?:one|option))?\W*$",
    re.IGNORECASE,
)
_ORDINALS: Final = {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5"}
# A reply that opens by picking an option and says more: "B, nested in strategy options",
# "A. is fine, ensure we log", "I think 2 - and keep the flag".
_LEADING_PICK_RE: Final = re.compile(
    r"^\s*(?:i think|i'd say|i'd go with|i prefer|let's go with|let's do|go with)?\s*"
    r"(?:option\s+)?(?P<key>[0-9]|[a-eA-E])(?:[.,):]|\s+[-\u2013\u2014])\s",
    re.IGNORECASE,
)
# An option of a list or of a table's first column: "2. Copy", "**B.** nested", "| **A.
# `auto_summarize`** | Simple boolean |", "**[C]** Continue".
_OPTION_LINE_RE: Final = re.compile(
    r"^[\s>*_#|-]*(?:option\s+|approach\s+)?[(\[]?(?P<key>[0-9]|[a-eA-E])[.):\]][\s*]*"
    r"(?P<text>\S.*)$",
    re.IGNORECASE,
)
_CELLS_RE: Final = re.compile(r"\s*\|\s*")
# A menu on one line: "[A] Advanced Elicitation [P] Party Mode [C] Continue - Save and …".
_MENU_ITEM_RE: Final = re.compile(r"\[(?P<key>[1-9A-Za-z])\]\s*(?P<text>[^\[\]]+)")
_CONTINUES_RE: Final = re.compile(
    r"^option \w: (?:continue|proceed|next|go on|carry on|keep going)\b", re.IGNORECASE
)


def option_of(message: str, reply: str) -> str:
    """The option of ``message`` that a reply picks by its number, letter or ordinal ("1",
    "option B", "the second one"), or opens by picking when the message ends asking the
    user to choose ("B, nested in strategy options"): its line of the message's list (the
    last list that has it, nearest the question); else empty."""
    pick = _PICK_RE.match(reply)
    if pick is None:
        pick = _LEADING_PICK_RE.match(reply)
        if pick is None or not _asks_to_choose(question_of(message)):
            return _named_options(message, reply)
        key = pick.group("key")
    else:
        key = pick.group("key") or _ORDINALS[pick.group("ordinal").lower()]
    found = ""
    for text_line in message[-MESSAGE_CHARS:].splitlines():
        option = _OPTION_LINE_RE.match(text_line)
        if option is not None and option.group("key").lower() == key.lower():
            text = _CELLS_RE.sub(" | ", option.group("text").replace("**", "")).strip(" |")
            found = f"option {option.group('key')}: {text}"
        for menu_key, text in _menu(text_line):
            if menu_key.lower() == key.lower():
                found = f"option {menu_key}: {text.strip()}"
    return found


def _named_options(message: str, reply: str) -> str:
    """The options of ``message`` a reply of a few short lines names, one per line, by the
    words each starts with ("Show no-data / 0", then "Strip the first zero bar", picking an
    option of each of two questions); empty unless every line names one."""
    picked = [ln.strip(" >*-") for ln in reply.strip().splitlines()]
    if not picked or len(picked) > _MAX_NAMED or any(len(p) > _NAMED_CHARS for p in picked):
        return ""
    options = []
    for text_line in message[-MESSAGE_CHARS:].splitlines():
        option = _OPTION_LINE_RE.match(text_line)
        if option is not None:
            options.append((option.group("key"), option.group("text").replace("**", "").strip()))
    found = []
    for name in picked:
        named = [(k, t) for k, t in options if name and t.lower().startswith(name.lower())]
        if not named:
            return ""
        found.append(f"option {named[-1][0]}: {named[-1][1]}")
    return " \u2026 ".join(found)


_MAX_NAMED: Final = 4
_NAMED_CHARS: Final = 80


def _menu(line: str) -> list[tuple[str, str]]:
    """The items of a menu a line is ("[A] Advanced [C] Continue": two items at least)."""
    items = _MENU_ITEM_RE.findall(line.replace("**", ""))
    return items if len(items) > 1 else []


_WORK_VERBS: Final = word_set(
    "fix add implement make create update remove delete change run commit push build write do "
    "try use rename move refactor test check deploy merge revert undo install open close "
    "start stop continue go review explain show let lets let's please call name"
)
"""Words that open a request for work, not an answer."""
_MAX_REPLY_WORDS: Final = 6


def replies_to_question(message: str, reply: str) -> bool:
    """Whether a reply of a few words answers the question a message ends with ("only me",
    "nothing to add" to "Who else uses it?"), not a request of its own: it neither asks nor
    opens with a verb of work ("fix the tests") or a question word."""
    words = reply.split()
    if not words or len(words) > _MAX_REPLY_WORDS or reply.rstrip().endswith("?"):
        return False
    if words[0].startswith("/"):
        return False  # a slash command: a request of its own
    first = words[0].lower().strip(".,!:;")
    if first in _WORK_VERBS or first in QUESTION_WORDS:
        return False
    return bool(question_of(message))


def only_continues(option: str) -> bool:
    """Whether a picked option (:func:`option_of`) only goes on to the next step of a flow
    ("option C: Continue - Save and move to …"): it chooses nothing."""
    return _CONTINUES_RE.match(option) is not None


# Words with which a message states a choice or its reason rather than a status: "too
# brittle, so I parse", "instead of", "the convention here is", "I went with".
_CHOICE_RE: Final = re.compile(
    r"\b(?:because|instead|rather than|in favou?r of|chose|chosen|choose|choice|decided|decision|"
    r"went with|opted|opt for|prefer(?:red)?|trade-?offs?|convention|the reason|so that|"
    r"recommend(?:ed)?|suggest(?:ed)?|approach|i would|i'd)\b|, so\b",
    re.IGNORECASE,
)


# A sentence: up to a mark before a blank (the "." of "app.ts" or "v1.2" ends none), a line's
# end or the text's.
_SENTENCE_RE: Final = re.compile(r"(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))*(?:[.!?]+|\n|$)")
# A sentence that leaves the choice to the user: a question, "until you tell me which
# approach you prefer", "let me know which you want".
_ASKS_USER_RE: Final = re.compile(
    r"\?\s*$|\b(?:let me know|tell me|you(?:'d| would)? (?:prefer|want|like)"
    r"|up to you)\b",
    re.IGNORECASE,
)


# A question that leaves the user to choose: "Which naming do you prefer?", "Which way do
# you want to go?", "Option A or B?", "Commit them as one, or fold them into the last?",
# "What would you like to do?" after the steps the agent recommends (not "… to do about the
# race?", which asks about one thing).
_ASKS_TO_CHOOSE_RE: Final = re.compile(
    r"\b(?:which|prefer|rather|options?|choose|pick)\b|\bor\b[^?]*\?$"
    r"|\b(?:what|how) (?:would|do) you (?:like|want) to (?:do|proceed|start)(?: next)?\?$",
    re.IGNORECASE,
)


def _asks_to_choose(question: str) -> bool:
    """Whether a question leaves the user to choose: it says so, or it is a menu."""
    return _ASKS_TO_CHOOSE_RE.search(question) is not None or bool(_menu(question))


def states_choice(text: str) -> bool:
    """Whether a closing message states a choice or its reason, rather than only a status
    (or a choice it leaves to the user: a sentence that asks it, or the whole message when
    it ends asking the user to choose, its recommendation a proposal)."""
    if _CHOICE_RE.search(text) is None or _asks_to_choose(question_of(text)):
        return False
    return any(
        _CHOICE_RE.search(s) and not _ASKS_USER_RE.search(s) for s in _SENTENCE_RE.findall(text)
    )


# A sentence that tells where the work stands in git: "The changes remain uncommitted", "Not
# pushed yet", "I haven't committed", "Worktree is clean except untracked `.codex/`", "no
# code changes were made", "4 commits on the branch". Where the session stands tells it from
# the commands.
_GIT_STATE_RE: Final = re.compile(
    r"\b(?:un(?:committed|pushed|staged)|not (?:yet )?(?:been )?(?:committed|pushed|staged)"
    r"|(?:haven['\u2019]t|have not|didn['\u2019]t|did not) (?:yet )?"
    r"(?:commit|push|stage)(?:ted|ed|d)?"
    r"|(?:working tree|work ?tree|working directory|checkout|repo(?:sitory)?) (?:is )?"
    r"(?:now )?(?:clean|dirty)"
    r"|no (?:code |source )?(?:changes|files?) (?:were |was )?(?:made|changed|edited)"
    r"|nothing (?:left )?to commit|nothing (?:is |was |has been )?(?:yet )?(?:committed|pushed)"
    r"|\d+ (?:new |local )?commits? (?:on|ahead|behind)\b)\b",
    re.IGNORECASE,
)


def without_git_state(text: str) -> str:
    """A closing message kept as a decision, without its sentences on where the work stands
    in git: they go stale at the next commit or push, and the section of where the session
    stands says it from the commands themselves."""
    if _GIT_STATE_RE.search(text) is None:
        return text
    kept = "".join(s for s in _SENTENCE_RE.findall(text) if not _GIT_STATE_RE.search(s))
    return kept.strip() or text


def last_sentence(text: str) -> str:
    lines = [ln.strip() for ln in text[-2000:].splitlines() if ln.strip()]
    if not lines:
        return ""
    parts = [p for p in re.split(r"(?<=[.!?])\s+", lines[-1]) if p.strip()]
    return parts[-1] if parts else lines[-1]


# A report that opens by saying the work was not done: "I could not finish: …", "Unable to
# run the tests …", "BLOCKED: I need …", "Failed to apply the patch". Only its opening counts:
# a report of work done may tell of something that failed on the way.
_UNFINISHED_RE: Final = re.compile(
    r"^(?:\W*(?:blocked|failed|incomplete|not (?:done|completed|finished))\b"
    r"|(?:i |we )?(?:could not|couldn't|was unable to|were unable to|am unable to|unable to|"
    r"wasn't able to|was not able to|failed to|did not (?:finish|complete|manage)|"
    r"didn't (?:finish|complete|manage)|cannot (?:proceed|continue|complete)|"
    r"can't (?:proceed|continue|complete)|gave up)\b)",
    re.IGNORECASE,
)


def reports_unfinished(report: str) -> str:
    """The opening sentence of a sub-agent's report when it says the task was not done
    (blocked, could not, failed to); else empty."""
    lines = [ln.strip(" #*>-\t") for ln in report[:2000].splitlines()]
    opening = next((ln for ln in lines if ln), "")
    if _UNFINISHED_RE.match(opening) is None:
        return ""
    return first_sentence(opening)


# The agent says that what it did earlier is wrong: "The README instructions I just wrote
# are wrong", "drop the bogus instructions I wrote earlier", "the fix I made was incorrect".
_WRONG: Final = r"(?:wrong|incorrect|bogus|broken|invalid|outdated|mistaken|misleading)"
_DID_IT: Final = (
    r"(?:i|we) (?:just |earlier |already )?(?:wrote|added|made|created|put|gave|implemented|did)"
)
_RETRACTION_RE: Final = re.compile(
    rf"\b{_DID_IT}\b[^\n]{{0,160}}?\b(?:is|are|was|were)(?: all)? (?:{_WRONG}|not right|not correct"
    rf"|a mistake)\b|\b{_WRONG}\b[^\n]{{0,80}}?\b{_DID_IT}\b",
    re.IGNORECASE,
)


# The agent opens by owning that what it said last did not hold: "Correct — I was sloppy on
# that", "Good catch, my mistake", "I stand corrected", or that its fix changed nothing
# ("Still empty. The fix I made parses …", after the user's screenshot).
_CONCEDES_RE: Final = re.compile(
    r"\b(?:I was (?:wrong|sloppy|mistaken|incorrect)|I stand corrected|my (?:mistake|bad)"
    r"|I (?:misspoke|misread|misunderstood|conflated|got (?:that|this|it) wrong)|good catch"
    r"|(?:that|this) was (?:wrong|incorrect|a mistake))\b"
    r"|^\W*(?:it(?:['\u2019]s| is) )?still (?:empty|blank|failing|broken|not working)\b",
    re.IGNORECASE,
)
_CONCEDES_SCAN: Final = 160


def concedes(message: str) -> bool:
    """Whether an agent's message opens by owning that what it said before was wrong."""
    return _CONCEDES_RE.search(message[:_CONCEDES_SCAN]) is not None


def retractions(message: str) -> list[str]:
    """The lines of an agent's message that say work it did earlier is wrong."""
    if _RETRACTION_RE.search(message) is None:
        return []
    return [ln for ln in message.splitlines() if _RETRACTION_RE.search(ln)]
