"""Which of several the evidence picks, when a claim picks one: of the alternatives a question offers, the evidence
may give the other for what the claim is about (``chose_elsewhere``); of the steps it tells in order, the one it marks
first (or last) may be another than the claim's (``ordered_elsewhere``); and the one a Japanese claim says does
something may not be the one the evidence makes do it (``done_by_another``). The claim checks
(``rag.answers.claims``) ask these once a claim's words are all found in its evidence.
"""

from __future__ import annotations

import re

from rag.answers.bindings import CLAUSE_END
from rag.answers.faithfulness import content_tokens, sentence_spans

_ORDER_WORDS = {
    "first": re.compile(r"最初|まず|初めに|はじめに|第一に|\b(?i:first|firstly|initially)\b"),
    "last": re.compile(r"最後|最終的|\b(?i:last|lastly|finally)\b"),
}
"""The words that mark a step as the first or the last of several, in a question and in its evidence."""


def ordered_elsewhere(claim: str, question: str, reading: str, ignored: set[str]) -> tuple[str, str] | None:
    """The step the question asks for ("first", "last") and the clause of the evidence marking it, when the words
    the claim adds to the question (``ignored`` aside) are all in the evidence's other clauses.

    Asked whom one consults first about a compliance concern, the model answered the in-house legal department or an
    outside law firm. The commentary names them as the experts a company can consult, and then says "各担当者はまず
    Open Source Compliance Officer に懸案事項について相談し": its first step names another."""
    added = content_tokens(claim) - content_tokens(question) - ignored
    clauses = [c for start, end in sentence_spans(reading) for c in CLAUSE_END.split(reading[start:end])]
    for order, mark in _ORDER_WORDS.items():
        if not mark.search(question):
            continue
        marked = [c for c in clauses if mark.search(c)]
        if not added or not marked or any(added & content_tokens(c) for c in marked):
            continue
        if any(added & content_tokens(c) for c in clauses):
            return order, marked[0].strip()
    return None


_EN_ALTERNATIVES = re.compile(r"\b([A-Za-z][\w-]*)\s+or\s+(?:(?:the|a|an)\s+)?([A-Za-z][\w-]*)", re.IGNORECASE)
_JA_TERM = "[\u3400-\u9fff々\u30a1-\u30fa\u30fcA-Za-z0-9_]+"
_JA_ALTERNATIVES = re.compile(
    f"({_JA_TERM})(?:です|でしょう|なの)?か[、,]?\\s*({_JA_TERM})(?:です|でしょう|なの)?か"
    f"|({_JA_TERM})(?:と|または|か)({_JA_TERM})の(?:どちら|どっち|いずれ)"
)
_ALTERNATIVE_CLAUSE_END = re.compile(r"[、，；;。]|,(?!\d{3})|\s(?:and|while|whereas|but)\s", re.IGNORECASE)


def chose_elsewhere(claim: str, question: str, reading: str) -> tuple[str, str] | None:
    """For a question that offers alternatives ("Is Secure World the client or the server?", "AですかBですか",
    "AとBのどちら"), the alternative the claim picks and the one the evidence gives for what the claim is about.

    "…with Normal World acting as a client and Secure World as a server" holds every word of "Secure World is the
    client": which alternative goes with the subject is told only by the clause each stands in. Among the clauses
    naming one alternative and not the other, the one sharing most of the claim's other words decides; None when it
    names the claim's pick, ties, or the claim names both or neither. ``(pick, "")`` when the evidence does not name
    the pick at all: the words the claim takes from the question are no evidence of which it chose.
    """
    offered = _alternatives(question)
    if offered is None:
        return None
    said = content_tokens(claim)
    picked = [term for term in offered if _names_term(said, term)]
    if len(picked) != 1:
        return None
    pick, other = picked[0], next(term for term in offered if term != picked[0])
    if not _names_term(content_tokens(reading), pick):
        return pick, ""
    subject = said - content_tokens(" ".join(offered))
    best: dict[str, int] = {}
    for clause in _ALTERNATIVE_CLAUSE_END.split(reading):
        tokens = content_tokens(clause)
        named = [term for term in offered if _names_term(tokens, term)]
        if len(named) == 1:
            best[named[0]] = max(best.get(named[0], 0), len(subject & tokens))
    return (pick, other) if best.get(other, 0) > best.get(pick, 0) else None


def _alternatives(question: str) -> tuple[str, str] | None:
    """The two alternatives a question offers, or None (the same word twice offers nothing)."""
    match = _EN_ALTERNATIVES.search(question) or _JA_ALTERNATIVES.search(question)
    if match is None:
        return None
    first, second = (group for group in match.groups() if group)
    words = content_tokens(first), content_tokens(second)
    return (first, second) if all(words) and words[0] != words[1] else None


def _names_term(tokens: set[str], term: str) -> bool:
    words = content_tokens(term)
    return bool(words) and words <= tokens


_JA_CLEFT = re.compile(
    r"([\u3400-\u9fff々]+)([\u3040-\u309f]{0,3}?)(?:る|た|す|う|く|つ|む)のは、?(.+?)(?:だと|です|である|だ|。|$)"
)
"""A Japanese cleft sentence, "決めるのは法務部門です": the verb's kanji (決) and kana before its ending (め), and
who or what the claim says does it."""
_JA_DOER = re.compile(
    r"([^、。,\s][^、。,]*?)\s*が(?=[^\u3040-\u309f]|[\u3040-\u309f]{0,2}[\u3400-\u9fff\u30a1-\u30fa])"
)
"""The phrase a clause marks as its subject with が (a noun ends before it: not the が of "ですが" or "ながら")."""


def done_by_another(claim: str, reading: str) -> tuple[str, str] | None:
    """For a Japanese claim saying who does something ("…を決めるのは法務部門です"), the one the evidence makes the
    subject of that verb instead, with the claim's: ``(evidence's doer, claim's)``; None when the evidence's clause
    names no subject with が, or names the claim's.

    Asked who decides whether outside experts are consulted, the model answered "…決めるのは社内の法務部門や社外の
    法律事務所の役割の人だ": the commentary's sentence holds both, the departments as examples of the experts
    "(例として、社内の法務部門や社外の法律事務所)" and "Open Source Compliance Officer が外部有識者のアドバイスを受け
    るかどうかを決め" as the one who decides."""
    cleft = _JA_CLEFT.search(claim)
    if cleft is None:
        return None
    verb, doer = cleft.group(1) + cleft.group(2), cleft.group(3)
    wanted = content_tokens(doer)
    for found in re.finditer(re.escape(verb), reading):
        clause = re.split(r"[、。]", reading[: found.start()])[-1]
        subjects = _JA_DOER.findall(clause)
        if not subjects:
            continue
        subject = subjects[-1].strip()
        if wanted and not content_tokens(subject) & wanted:
            return subject, doer
    return None
