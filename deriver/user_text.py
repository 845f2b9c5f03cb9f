"""User-text helpers: whether a reply just acknowledges, and the first line of a text.

Total, deterministic, free of I/O and bounded on huge texts.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "QUESTION_WORDS",
    "answer_gist",
    "choices_stated",
    "disputes",
    "first_line",
    "first_sentence",
    "is_acknowledgement",
    "is_short_answer",
    "names_nothing",
    "only_asks",
    "only_ships",
    "reports_done",
    "reports_result",
    "says_next_step",
    "word_set",
]


def word_set(text: str, sep: str | None = None) -> frozenset[str]:
    """A set written as one string, so long vocabularies stay readable."""
    return frozenset(text.split(sep))


_MAX_ACK_CHARS: Final = 80
_MAX_ACK_SCAN: Final = 4096  # even padded with blank lines, an acknowledgement is short
_MAX_ACK_WORDS: Final = 6
# Phrases are "|"-separated; a reply is an acknowledgement when it is made only of these.
_ACK_PHRASES: Final = word_set(
    "continue|go on|go ahead|yes|y|ya|yeah|yea|yep|yup|ok|okay|okey|k|kk|proceed|lgtm"
    "|sounds good|do it|keep going|next|sure|please|pls|plz|thanks|thank you|thx|ty|cool"
    "|alright|all right|fine|perfect|great|nice|good|agreed|approved|resume|right|correct"
    "|carry on|go for it|looks good|looks good to me|yes please|please continue|makes sense"
    "|all good|that works|let's go|lets go|go|done|ack|roger|absolutely|of course"
    "|please do|continue please|and|then|now|good job|well done|awesome|excellent"
    "|continue where you left off|continue from where you left off"
    "|pick up where you left off"
    # the work confirmed: "works now, thanks", "that fixed it"
    "|works|it works|works now|it works now|that worked|it worked|worked|that did it"
    "|fixed|that fixed it|it's fixed|its fixed|solved",
    "|",
)
_ACK_PHRASE_MAX_WORDS: Final = max(len(phrase.split()) for phrase in _ACK_PHRASES)
_CJK_ACKS: Final = word_set(
    "继续 好的 好 是 可以 行 嗯 对 没问题 请继续 是的 对的 好啊 好滴 同意 确认 收到 谢谢 "
    "继续吧 开始 开始吧 执行 可以的 没错 就这样 ok 继续做"
)
_CJK_FILLERS: Final = frozenset("吧啊呀了哈嗯呢的")
_CJK_MAX: Final = max(len(phrase) for phrase in _CJK_ACKS)
_CJK_RE: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# Letters, digits, apostrophes and CJK survive; punctuation, emoji and symbols become spaces.
_NON_WORD_RE: Final = re.compile(r"[^\w']+|_+")


def _cjk_acknowledged(token: str) -> bool:
    i = 0
    while i < len(token):
        for size in range(min(_CJK_MAX, len(token) - i), 0, -1):
            if token[i : i + size] in _CJK_ACKS:
                i += size
                break
        else:
            if token[i] not in _CJK_FILLERS:
                return False
            i += 1
    return True


def is_acknowledgement(text: str) -> bool:
    """Whether a user reply just says "carry on" ("continue", "yes!", "ok, go ahead", "继续",
    "continue until all are done": a short imperative to go on that names nothing new).

    Tolerates case, punctuation, emoji and whitespace; a reply longer than a few words, or with
    any word that is not part of an acknowledgement ("yes, but use postgres"), is not one.
    A reply made only of punctuation or emoji (a thumbs-up) is one.
    """
    words = _reply_words(text)
    if words is None or len(words) > max(_MAX_ACK_WORDS, _MAX_CONTINUATION_WORDS):
        return False
    if len(words) > _MAX_ACK_WORDS:
        return _continues(words)  # "please continue from where you left off"
    i = 0
    while i < len(words):
        size = _acknowledged(words, i)
        if not size:
            return _continues(words)
        i += size
    return True


def _reply_words(text: str) -> list[str] | None:
    """The words of a short reply, lowercase, without punctuation; None for a long one."""
    if not isinstance(text, str) or len(text) > _MAX_ACK_SCAN:
        return None
    stripped = text.strip()
    if not stripped or len(stripped) > _MAX_ACK_CHARS:
        return None
    spaced = _NON_WORD_RE.sub(" ", stripped.lower().replace("\u2019", "'"))
    return [word for word in (raw.strip("'") for raw in spaced.split()) if word]


def _acknowledged(words: list[str], i: int) -> int:
    """How many words from ``words[i]`` on make one acknowledgement (0: none)."""
    if _CJK_RE.search(words[i]):
        return 1 if _cjk_acknowledged(words[i]) else 0
    for size in range(min(_ACK_PHRASE_MAX_WORDS, len(words) - i), 0, -1):
        if " ".join(words[i : i + size]) in _ACK_PHRASES:
            return size
    return 0


# A continuation: a short imperative to go on ("continue implementation", "ok continue",
# "continue until all are done", "keep going with the rest") names no new object. Its words
# are a verb that goes on, acknowledgement words, and words that only point back at the
# work under way (pronouns, quantifiers, "the rest", "implementation", "tasks").
_GO_ON_VERBS: Final = word_set(
    "continue continuing proceed resume keep carry finish complete go move"
)
_POINTING_BACK: Final = word_set(
    "the a an with on to until till up all everything rest remaining it them this that these "
    "those they are is be been being get gets done finished complete completed implementation "
    "implementing work working task tasks step steps plan todo todos items item remaining "
    "pending where you left off from as planned for me my your our so far one ones way same "
    "again going forward ahead further through what whatever was were there here of in"
)
_ACK_WORDS: Final = frozenset(word for phrase in _ACK_PHRASES for word in phrase.split())
_MAX_CONTINUATION_WORDS: Final = 8


def _continues(words: list[str]) -> bool:
    if len(words) > _MAX_CONTINUATION_WORDS or not any(w in _GO_ON_VERBS for w in words):
        return False
    return all(w in _GO_ON_VERBS or w in _ACK_WORDS or w in _POINTING_BACK for w in words)


# A short answer: an affirmation, refusal or retry word and at most a few more ("yes, please
# commit", "Try again", "Please merge."), or a pick among options offered ("the second one").
_ANSWER_LEADS: Final = word_set(
    "yes y yeah yep yup sure ok okay k please pls no nope nah try retry again approve "
    "approved lgtm agreed correct right fine"
)
_CHOICE_WORDS: Final = word_set(
    "the option options choice number first second third fourth fifth last other one ones "
    "both all neither either a b c d e #"
)
_PICK_VERBS: Final = word_set("do go with take use pick choose")
_MAX_ANSWER_WORDS: Final = 4
_MAX_ANSWER_CHARS: Final = 60


def is_short_answer(text: str) -> bool:
    """Whether a user reply answers the agent rather than asking anew: an acknowledgement
    (:func:`is_acknowledgement`), an affirmation, refusal or retry word with at most a few
    more words ("yes, please commit", "Try again", "Please merge."), or a pick among the
    options offered ("the second one", "option 2"). A reply that asks ("Ok, next 37
    then?") or bids a new thing done ("do the proper fix") is a request."""
    if is_acknowledgement(text):
        return True
    stripped = text.strip() if isinstance(text, str) else ""
    if not stripped or len(stripped) > _MAX_ANSWER_CHARS or stripped.endswith("?"):
        return False
    spaced = _NON_WORD_RE.sub(" ", stripped.lower().replace("\u2019", "'"))
    words = [word for word in (raw.strip("'") for raw in spaced.split()) if word]
    if not words:
        return False
    if words[0] in _ANSWER_LEADS:
        return len(words) <= _MAX_ANSWER_WORDS
    picked = [w for w in words if w not in _PICK_VERBS]  # "go with the second one"
    return 0 < len(picked) <= _MAX_ANSWER_WORDS and all(
        w in _CHOICE_WORDS or w.isdigit() for w in picked
    )


# The user did what the agent was waiting for ("I moved to Full access. Try again now.", "The
# CLI is logged in", "done, try now"): an answer to the agent, not a new request. A report
# of the user's own step or of a state, then at most a word to retry or go on.
_DID: Final = (
    r"(?:approved|restarted|installed|logged in|signed in|added|fixed|updated|ran|moved|"
    r"enabled|created|merged|pushed|committed|deleted|changed|configured|granted|"
    r"authenticated|reloaded|rebooted|upgraded|switched|started|stopped|cleared|removed|"
    r"gave|allowed|pulled)"
)
_REPORT_RE: Final = re.compile(
    r"^(?:ok(?:ay)?|done|all set)$"
    rf"|^(?:ok(?:ay)? )?(?:(?:i|we)(?:'ve| have)?(?: just| now)? )?{_DID}\b"
    r"|^(?:ok(?:ay)? )?(?:i|we)(?:'ve| have)?(?: just| now)? (?:set|reset|did|approve)\b"
    r"|^(?:the |my |your )?[\w./@ -]{1,40}? (?:is|are|should be)(?: now)? (?:logged in|"
    r"installed|running|up|set|enabled|configured|available|fixed|done|approved|back|ready)"
    r"(?: now)?$"
)
_RETRY_RE: Final = re.compile(
    r"^(?:(?:please |you can |can you )?(?:try|retry|rerun|run it|check)(?: it)?(?: again)?"
    r"(?: now)?|(?:please )?(?:continue|go ahead|go on|proceed)(?: now)?)$"
)
_CLAUSE_RE: Final = re.compile(r"[.,;!\n]+|\s[-\u2013\u2014]\s|\s(?:and|so|then|now)\s")
_MAX_REPORT_CHARS: Final = 100


def reports_done(text: str) -> bool:
    """Whether a user reply reports that the user did the step the agent waited for, or
    that what blocked it is gone ("I approve outside-sandbox CLI access,", "The server is
    running now", "fixed the env var, try again"), with at most a word to retry: it answers
    the agent and asks nothing new."""
    if not isinstance(text, str):
        return False
    stripped = text.strip().lower().replace("\u2019", "'")
    if not stripped or len(stripped) > _MAX_REPORT_CHARS or stripped.endswith("?"):
        return False
    clauses = [c.strip() for c in _CLAUSE_RE.split(stripped) if c.strip()]
    return (
        bool(clauses)
        and _REPORT_RE.search(clauses[0]) is not None
        and all(_RETRY_RE.search(c) for c in clauses[1:])
    )


# A request only to commit, push or open a pull request: "commit this", "push it", "commit
# and push please", "can you commit this in meaningful commits", "open a PR".
_SHIPPING: Final = word_set("commit commits push pr mr")
_SHIPPING_FILLER: Final = _SHIPPING | word_set(
    "committed pushed pull request open create make and then also "
    "it this that these them all everything changes change work the a an in into to for now "
    "please pls plz ok okay yes yeah sure go ahead can could you u we lets let's just "
    "meaningful small separate local branch origin remote"
)
_MAX_SHIPPING_WORDS: Final = 10


def only_ships(text: str) -> bool:
    """Whether a request asks only to commit, push or open a pull request ("commit and
    push please"), nothing else."""
    words = _NON_WORD_RE.sub(" ", text.lower()).split()
    return (
        0 < len(words) <= _MAX_SHIPPING_WORDS
        and bool(_SHIPPING.intersection(words))
        and all(word in _SHIPPING_FILLER for word in words)
    )


# A question that asks for work ("can you check…?", "could we…?", "please…?"), not only an
# answer.
_ASKS_FOR_WORK_RE: Final = re.compile(
    r"^(?:(?:can|could|would|will|won't|shall)\s+(?:you|we|u)\b|please\b|pls\b|let'?s\b)",
    re.IGNORECASE,
)
# A question that proposes what to do ("I feel we should flag this instead?"): a choice.
_PROPOSES_RE: Final = re.compile(
    r"\b(?:should|shouldn't|rather|instead|I (?:feel|think|want|prefer|'d like))\b", re.IGNORECASE
)
_QUESTION_PARTS_RE: Final = re.compile(r"(?<=[.!?])\s+|\n+")
_MAX_QUESTION_CHARS: Final = 400


_MAX_BARE_CJK: Final = 3


def names_nothing(text: str) -> bool:
    """Whether a request is one bare word ("update", "检查", "测试"): what it asks is in the
    agent's message before it, so once done it tells nothing by itself."""
    words = _reply_words(text)
    if words is None or len(words) != 1:
        return False
    word = words[0]
    if _CJK_RE.search(word):
        return len(word) <= _MAX_BARE_CJK and all(_CJK_RE.match(char) for char in word)
    return word.isalpha() and word.isascii()


def only_asks(text: str) -> bool:
    """Whether a request only asks questions ("what's the diff between e2e and lifecycle?",
    "Did you push them?"), each one for an answer, not for work ("can you check why it
    fails?", "Fix it. Does it pass now?") nor proposing what to do ("I feel we should flag
    it instead?")."""
    text = text.strip()
    if not text.endswith("?") or len(text) > _MAX_QUESTION_CHARS:
        return False
    parts = [part.strip() for part in _QUESTION_PARTS_RE.split(text) if part.strip()]
    return all(
        part.endswith("?") and not _ASKS_FOR_WORK_RE.match(part) and not _PROPOSES_RE.search(part)
        for part in parts
    )


_NON_BLANK_RE: Final = re.compile(r"\S")
_LINE_BREAK_RE: Final = re.compile(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# Blanks up to the end of a line: whether a line cut at the look-ahead window really ends there.
_BLANK_TO_EOL_RE: Final = re.compile(
    r"[^\S\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]*(?:[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]|\Z)"
)
_ELLIPSIS: Final = "\u2026"


def first_line(text: str, max_chars: int = 200) -> str:
    """The first non-blank line of ``text``, stripped, at most ``max_chars`` characters long
    (a longer line is cut and ends with "…"). Empty when there is none.
    """
    if not isinstance(text, str) or max_chars <= 0:
        return ""
    found = _NON_BLANK_RE.search(text)
    if found is None:
        return ""
    start = found.start()
    # Look only a little past the cap: a line of megabytes needs no more than its start.
    stop = start + max_chars + 1
    window = text[start:stop]
    end = _LINE_BREAK_RE.search(window)
    if end is not None:
        line = window[: end.start()].rstrip()
    else:
        line = window.rstrip()
        if stop < len(text) and not _BLANK_TO_EOL_RE.match(text, stop):
            # The line goes on past the window, so it is longer than max_chars: cut it.
            line = window + "\u2026"
    if len(line) <= max_chars:
        return line
    return line[: max_chars - 1].rstrip() + _ELLIPSIS


# What an answer says, past its lead-in: markdown framing and openers are skipped.
_FRAMING_RE: Final = re.compile(
    r"^(?:#{1,6}\s|[-=*_\u2500\u2501]{3,}\s*$|```|\|[-: |]+\|?\s*$|</?[\w-]+>\s*$)"
)
_MARKER_RE: Final = re.compile(r"^(?:[-*+\u2022]\s+|\d+[.)]\s+|>\s*)+")
# Bold marks outside a code span: ``**x**``, a word in ``__x__`` (not ``__init__.py`` in
# backticks, nor ``a__b``).
_EMPHASIS_RE: Final = re.compile(r"(`[^`\n]*`)|\*\*|(?<![\w`])__(\S(?:.*?\S)?)__(?![\w.])")
_SENTENCE_END_RE: Final = re.compile(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])")
_COLONS: Final = (":", "\uff1a")
_MAX_OPENER_WORDS: Final = 3
_MAX_GIST_LINES: Final = 200
_SHORT_GIST: Final = 60
_LITERAL_BREAK_RE: Final = re.compile(r"(?:\\r)?\\n")


def _is_opener(sentence: str) -> bool:
    """A few words that only open an answer ("All done.", "Perfect!")."""
    return (
        sentence.endswith((".", "!"))
        and len(sentence.split()) <= _MAX_OPENER_WORDS
        and not any(c.isdigit() or c in "`/" for c in sentence)
    )


def _gist_of(line: str) -> str:
    """A line without its lead-in: leading openers, and a closing "Here's …:" after other
    sentences (or a few words and a colon, "Summary:"), go."""
    sentences = [part for part in _SENTENCE_END_RE.split(line) if part.strip()]
    if not sentences:
        return ""
    last = sentences[-1].rstrip()
    few_words = len(last.split()) <= _MAX_OPENER_WORDS + 1
    if last.endswith(_COLONS) and (len(sentences) > 1 or few_words):
        sentences.pop()
    while sentences and _is_opener(sentences[0]):
        sentences.pop(0)
    return " ".join(sentences).strip()


# A sentence that announces the agent's next action ("Let me run the tests.", "I'll commit
# now:"), and says nothing of what it found.
_ANNOUNCES_RE: Final = re.compile(
    r"^(?:now,? |next,? |first,? |ok(?:ay)?,? )?(?:let me|let's|i'll|i will|i'm going to)\b",
    re.IGNORECASE,
)


def announces(sentence: str) -> bool:
    """Whether a sentence announces the agent's next action ("Let me run the tests.")."""
    return _ANNOUNCES_RE.match(sentence) is not None


# Words anywhere in a sentence that say what the agent will do rather than what it found:
# "Good question, let me check", "I'm tracing the SSH path", "Now verify lint".
_NEXT_STEP_RE: Final = re.compile(
    r"^now\b|\b(?:let me|let['\u2019]s|i['\u2019]ll|i will|i['\u2019]m (?:going to|\w+ing))\b",
    re.IGNORECASE,
)
# A sentence that reports a result: "All 527 tests pass", "Build, tests, and lint all clean",
# "87 tests + 14 doctests, 0 failures".
_RESULT_RE: Final = re.compile(
    r"\b(?:pass(?:es|ed|ing)?|green|clean|succeed(?:s|ed)?|\d+ (?:tests?|passed|ok))\b"
    r"|\d%[^.]* coverage\b",
    re.IGNORECASE,
)


# A reply that says the agent's claim did not hold: "mise run lint is still failing", "nope, I
# don't see it", "it doesn't work", "this is not what I wanted".
_DISPUTES_RE: Final = re.compile(
    r"\b(?:still (?:fail\w*|broken|not working|doesn['\u2019]?t work|erroring|red)"
    r"|(?:does|did)(?:n['\u2019]?t| not) work|not working|nope"
    r"|not what I (?:wanted|asked for|meant|expected))\b",
    re.IGNORECASE,
)
_DISPUTE_SCAN: Final = 300


def disputes(reply: str) -> bool:
    """Whether a user's reply says what the agent reported did not hold."""
    return _DISPUTES_RE.search(reply[:_DISPUTE_SCAN]) is not None


# A clause of a request that sets how the work is to be done rather than what to do: a name
# ("call it code-tour", "you should say …"), a constraint ("we should not touch the default
# ssh config", "we dont support antigravity", "don't push"), a convention ("we're branding skills as
# lowercased", "we also use migrations in staging") or a preference ("instead of saying …",
# "… is also fine", "only when clear and useful"). Words that report rather than choose are
# left out: "I don't see it", "it returns null instead of throwing", "it only fails when run in
# CI", "we're getting a 500".
_CHOICE_CLAUSE_RE: Final = re.compile(
    r"\b(?:(?:we|you|u)(?: also| just| really)? (?:do not|don['\u2019]?t"
    r"|should(?: not|n['\u2019]?t)|must(?: not|n['\u2019]?t)|never|no longer)\b"
    r"|^(?:please )?(?:don['\u2019]?t|do not|never) \w+"
    r"|stop (?:calling|using|adding|doing)|call it|name it|(?:just|should) say|titled"
    r"|(?:instead of|rather than) \w+ing|(?:use|say|call|keep|go with)\b.{0,60}\b(?:instead|rather)"
    r"|prefer(?:red)?|(?:let['\u2019]?s|lets) (?:use|go with|keep|stick with)"
    r"|is (?:also )?fine|i want|^only (?:when|if)|we (?:also )?use"
    r"|^(?:please |also )?keep (?!\w+ing\b|it up\b|at it\b|on\b)\w+"
    r"|^(?:please |always )?use \S+ (?:as|for) (?:the|our|all|every)\b"
    r"|we(?:['\u2019]?re| are) (?!(?:getting|seeing|having|hitting|experiencing|trying|running"
    r"|facing|looking|working|going)\b)\w+ing)\b",
    re.IGNORECASE,
)
# The same in Chinese, Japanese and Korean: don't, no need to, never again, must, only,
# just (不要, 不需要, 别再, 必须, 只需, 即可; しないで, 必ず; 하지 마, 반드시).
_CJK_CHOICE_RE: Final = re.compile(
    r"不要|不需要|不用|别再|別再|禁止|必须|必須|只需|即可|一律|しないで|必ず|하지 ?마|반드시"
)
_CLAUSE_SPLIT_RE: Final = re.compile(r"\.{2,}|(?<=[.!?;])\s+|\n+")
_LEADS_ON_RE: Final = re.compile(r"(?:\b(?:say|says|write|read|be|is|to|with|like|as)|:)$", re.I)
"""A clause that ends where what it says begins ("we should say" then the words on the next
line): the next clause is part of it."""
_FOR_NOW_RE: Final = re.compile(
    r"\b(?:yet|for now|for the moment|until)\b"
    r"|\b(?:don['\u2019]?t|do not) (?:implement|make (?:any )?changes|change anything|code)\b"
    r"|先不要|暂时|暫時|まだ|아직",
    re.IGNORECASE,
)
"""A constraint on this turn only ("dont implement yet", "dont make any changes": talk
first), lifted by the next request: no standing choice."""
QUESTION_WORDS: Final = word_set(
    "is are am was were can could should would will do does did shall may might what how why "
    "which where when who whose"
)
_MAX_CHOICE_REQUEST: Final = 600
"""A longer request specifies or pastes; its "should"s are not choices of how to work."""


# A line a program printed, pasted by the user: a log level or a logger's bracketed tag first
# ("Warning: …", "[transformers] `torch_dtype` is deprecated! Use `dtype` instead!").
_LOGGED_LINE_RE: Final = re.compile(
    r"^\s*(?:\[[^\]\n]{1,40}\]|(?:warning|warn|error|info|debug|notice|fatal|critical)"
    r"\s*[:|\]])",
    re.IGNORECASE | re.MULTILINE,
)


def choices_stated(request: str) -> str:
    """The clauses of a short request that state how the work is to be done (a name, a
    constraint, a convention, a preference), joined by " … "; empty when there are none.
    A clause that asks ("should this be moved …?") states nothing, nor does a line the user
    pasted from a program's output (its "Use `dtype` instead!" is the program's advice)."""
    if len(request) > _MAX_CHOICE_REQUEST:
        return ""
    found = []
    own = "\n".join(line for line in request.split("\n") if not _LOGGED_LINE_RE.match(line))
    clauses = [c.strip(" ,-*>") for c in _CLAUSE_SPLIT_RE.split(own)]
    for i, clause in enumerate(clauses):
        words = clause.split(None, 1)
        if (
            not words
            or clause.endswith("?")
            or (words[0].lower() in QUESTION_WORDS and not clause.lower().startswith("do not"))
            or (_CHOICE_CLAUSE_RE.search(clause) or _CJK_CHOICE_RE.search(clause)) is None
            or _FOR_NOW_RE.search(clause) is not None
        ):
            continue
        if _LEADS_ON_RE.search(clause) and i + 1 < len(clauses) and clauses[i + 1]:
            clause = f"{clause} {clauses[i + 1]}"
        found.append(clause)
    return " \u2026 ".join(found)


def says_next_step(sentence: str) -> bool:
    """Whether a sentence says what the agent will do next, not what it found."""
    return _NEXT_STEP_RE.search(sentence) is not None


_FIRST_SENTENCE_END_RE: Final = re.compile(r"(?<=[.!?])\s")


def first_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence (a ".", "!" or "?" before a blank)."""
    return _FIRST_SENTENCE_END_RE.split(text.strip(), maxsplit=1)[0]


def reports_result(text: str) -> str:
    """The first sentence of ``text`` when it reports a result and says no next step, else
    empty: the agent's own words on a check that passed."""
    first = first_sentence(text)
    if _RESULT_RE.search(first) is None or says_next_step(first):
        return ""
    return first


def answer_gist(text: str, max_chars: int = 200) -> str:
    """What a final answer says: its first substantive line(s), not its lead-in.

    Headings, rules, fences and list markers are framing; "All done. Here's the summary:"
    leads in to the lines after it. A short first point is joined by the next ("; ").
    Literal ``\\n`` escapes read as line breaks. Falls back to the first line.
    """
    if not isinstance(text, str) or max_chars <= 0:
        return ""
    head = text[: max_chars * 16]
    if "\\" in head:
        head = _LITERAL_BREAK_RE.sub("\n", head)
    found = _first_points(head)
    if not found:
        return first_line(head, max_chars)
    joined = found[0]
    if len(found) > 1:
        glue = " " if joined.endswith((*".!?;\u3002\uff01\uff1f", *_COLONS)) else "; "
        joined += glue + found[1]
    return first_line(joined, max_chars)


def _unbold(found: re.Match[str]) -> str:
    """A code span as it is, a bold mark gone (the words it marks kept)."""
    return found.group(1) or found.group(2) or ""


def _first_points(head: str) -> list[str]:
    """The gist of the first substantive line, and of the next when the first is short or
    introduces it."""
    found: list[str] = []
    for raw in head.splitlines()[:_MAX_GIST_LINES]:
        stripped = raw.strip()
        if not stripped or _FRAMING_RE.match(stripped):
            continue
        gist = _gist_of(_EMPHASIS_RE.sub(_unbold, _MARKER_RE.sub("", stripped)))
        if not gist:
            continue
        found.append(gist)
        if len(found) == 2 or (len(found[0]) >= _SHORT_GIST and not found[0].endswith(_COLONS)):
            break
    return found
