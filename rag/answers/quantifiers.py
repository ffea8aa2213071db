"""Words that widen a claim: "only", "all", "always", "exactly the same", 「のみ」「すべて」「必ず」「まったく同じ」.

A careless answer widens what its passage says while keeping every fact of it: "the only toolchain option is GCC
6.1q1" of "Options are GCC 6.1q1, GCC 6.1q2 and GCC 8q4"; 「常に下級審の判断を掲載」 of a sentence that gives a rule
and its exception; 「法務向けとまったく同じ形式」 of 「法務と同じ形式の前に、さらに…」. Word overlap and the fact checks
see nothing wrong: the widening word is one among many. So a claim that widens must find a word of the same kind in
its evidence, in either language (the evidence's 「のみ」 backs "only", "must" backs "always"), or take it from its
question ("Is GCC the only option?"); a widening word the claim denies ("not only", 「必ずしも…ない」,
「だけでなく」) widens nothing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from rag.answers.faithfulness import content_tokens, sentence_spans


class _Kind(NamedTuple):
    """One way of widening: ``claimed`` finds it in a claim, ``backed`` the words of evidence that say as much, and
    ``implied`` those that say as much only of the words around them (a sentence saying the others are not)."""

    claimed: re.Pattern[str]
    backed: re.Pattern[str]
    implied: re.Pattern[str] | None = None


_I = re.IGNORECASE
_KINDS = (
    _Kind(  # only
        re.compile(
            r"\b(?:only|solely|exclusively|sole)\b|のみ|(?<!でき)(?<!どれ)(?<!これ)(?<!それ)だけ|唯一"
            r"|に限(?:り|る|られ|定)",
            _I,
        ),
        re.compile(
            r"\b(?:only|solely|exclusive(?:ly)?|sole|alone|just|unless|except|excluding|(?<!not )limited|"
            r"(?<!not )restricted|must|"
            r"required?|requires|need(?:s|ed)? to|nothing but)\b|のみ|だけ|唯一|しか|以外|除|専ら|必須|必要"
            r"|限(?!ら(?:ない|ず)|りません|定され(?:ない|ず|ません))",  # not 「これに限らない」
            _I,
        ),
        # "the mandatory argument is now long, whereas the optional arguments are not"
        re.compile(
            r"\b(?:whereas|unlike|but|while|rather than|instead of|in contrast)\b[^.;]*\b(?:not|no|never)\b"
            r"(?!\s+(?:limited|restricted)\b)|n't\b"  # not "(but is not limited to)"
            r"|ではなく|以外",
            _I,
        ),
    ),
    _Kind(  # all
        re.compile(
            r"\b(?:all|every(?:one|thing)?|entire(?:ly)?)\b(?!\s+(?:but|right|rights|the same))"
            r"|すべて|全て|全部|全員|あらゆる|いずれも",
            _I,
        ),
        re.compile(
            r"\b(?:all|every\w*|both|each|any|entire(?:ly)?|whole|without exception|regardless|irrespective|"
            r"whatever|whichever)\b|すべて|全(?:て|部|員|体|般|件|域|面|国|社)|各|いずれ|両|とも|共に|あらゆる|一律|皆|みな"
            r"|問わ|かかわら|いかん|それぞれ",
            _I,
        ),
    ),
    _Kind(  # always
        re.compile(
            r"\b(?:always|invariably|at all times|without exception)\b|常に|必ず(?!しも)|いつも|例外なく|絶対", _I
        ),
        re.compile(
            r"\b(?:always|invariably|at all times|without exception|must|shall|guaranteed|required?|requires|"
            r"mandatory|never|every\w*|all|any|whenever|regardless|irrespective)\b|常に|必ず|いつも|例外|必須|義務|"
            r"ければならな|ねばならな|こと[。.]|べき|全(?:て|部|員|体|般|件)|すべて|問わ|かかわら|いかん|絶対|一律",
            _I,
        ),
    ),
    _Kind(  # exactly
        re.compile(r"\b(?:exactly the same|identical(?:ly)?|completely|totally)\b|まったく|全く|完全に", _I),
        re.compile(
            r"\b(?:exactly|identical(?:ly)?|complete(?:ly)?|total(?:ly)?|entirely|fully|the same)\b|まったく|全く|"
            r"完全|同一|そのまま|一切",
            _I,
        ),
    ),
)

_DENIED_AFTER = re.compile(r"\bnot\s+(?:\w+\s+)?$|\bn't\s+(?:\w+\s+)?$|\bnot necessarily\s+$", re.IGNORECASE)
"""A denial just before the widening word: "not only", "is not always", "doesn't always"."""
_DENIED_JA = re.compile(r"^(?:しも|でなく|ではなく|じゃなく|ならず|とは限ら|ではな|でもな|ではありません)")
"""Kana after the widening word that deny it: 「必ずしも」「だけでなく」「のみならず」「すべてではない」."""


_CLAUSE_END = re.compile(r"[,;、，；。]|\b(?:while|whereas)\b", re.IGNORECASE)
NEAR_SHARE = 0.5
"""Share of the words of a widening word's clause ("uppercases only the very first letter") that a sentence backing
it elsewhere in the passage must hold."""


def widened_unsaid(claim: str, question: str, reading: str, passage: str = "") -> str | None:
    """The widening word of ``claim`` ("only", 「すべて」, "always", 「まったく」) that neither ``reading`` (the
    window the claim is checked on) nor ``question`` backs with a word of its kind; None when the claim widens
    nothing, denies its widening word, or each widening word is backed.

    A claim that joins two statements is checked on the window that holds it best, which may hold only one of them:
    a sentence of the whole ``passage`` that backs the word and holds most of the words around it backs it too."""
    if not question:
        return None  # without the question, a widening word may be the question's own ("for every file it read")
    for kind in _KINDS:
        if kind.backed.search(question) or kind.claimed.search(question):
            continue
        for match in kind.claimed.finditer(claim):
            before, after = claim[max(0, match.start() - 20) : match.start()], claim[match.end() : match.end() + 8]
            if _DENIED_AFTER.search(before) or _DENIED_JA.match(after):
                continue
            if not kind.backed.search(reading) and not _backed_nearby(claim, match, kind, passage):
                return match.group()
    return None


def _backed_nearby(claim: str, match: re.Match[str], kind: _Kind, passage: str) -> bool:
    """Whether a sentence of ``passage`` backs ``kind`` and holds ``NEAR_SHARE`` of the words of the clause of
    ``claim`` that ``match`` is in."""
    starts = [m.end() for m in _CLAUSE_END.finditer(claim, 0, match.start())]
    closing = _CLAUSE_END.search(claim, match.end())
    clause = claim[starts[-1] if starts else 0 : closing.start() if closing else len(claim)]
    near = content_tokens(clause) - content_tokens(match.group())
    if not near:
        return False
    for start, end in sentence_spans(passage):
        sentence = passage[start:end]
        backs = kind.backed.search(sentence) or (kind.implied and kind.implied.search(sentence))
        if backs and len(near & content_tokens(sentence)) >= NEAR_SHARE * len(near):
            return True
    return False
