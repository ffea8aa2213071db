"""What a denial is of: the words a sentence's denials negate, and whether a passage that denies something denies
what a claim says or something else beside the claim's words (``denies_what_is_claimed``). Whether a sentence is
negated at all is ``rag.answers.polarity``'s; this module scopes the denial it finds.

A polarity conflict alone keeps a claim from being verified; only a denial of what the claim says makes a passage
say its opposite (``ClaimCheck.opposes``, ``ClaimCheck.contradicts``: the "No." that leads the evidence).
"""

from __future__ import annotations

import re

from rag.answers.facts import plain_text
from rag.answers.faithfulness import content_tokens, punctuated_sentences
from rag.answers.polarity import (
    ANSWER_PARTICLE,
    CONTENT_RUN,
    EN_CLAUSE_END,
    EN_NEGATION,
    EN_NOT_NEGATION,
    EN_REPORTING,
    JA_CLAUSE_END,
    JA_NEGATION,
    JA_NOT_NEGATION,
    KANA,
    OBLIGATION,
    is_negated,
    predicate_words,
)
from rag.ingest.tokenization import EnglishTokenizer

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_ADVERB = re.compile(r"[A-Za-z]{3,}(?<![Pp])ly")
"""An adverb ("currently", "fully"), not a verb in -ply ("apply", "supply") or a short word ("only", "rely")."""
_STEMS = EnglishTokenizer(whole=False)
"""Snowball stems of English words, stopwords left out: "apply" and "applied" share one, "application" has its own."""
_EN_WHOLE_DENIAL = re.compile(r"nothing|none|nobody|nowhere|neither|nor", re.IGNORECASE)
"""A denial that is the subject ("Nothing in this division may be construed to authorize…"): it denies its clause."""
_GRAMMATICAL_DENIAL = re.compile(r"not|no|never|cannot|n't", re.IGNORECASE)
_EN_PASSED_ON = frozenset(
    _STEMS.tokenize(" ".join(EN_REPORTING) + " construed interpreted deemed considered intended meant")
)
"""Verbs a denial passes through to what follows: "may not be construed to authorize X" denies authorizing X."""


def negated_words(text: str) -> set[str] | None:
    """The words the English denials in ``text`` negate: the first content word after each in its clause, an adverb
    passed over ("does not currently support" negates "support", "does not apply to …" negates "apply", "no funds"
    negates "funds"); the rest of the clause after a denial that is the subject ("nothing", "none") or passes through
    a verb of saying or reading ("not be construed to authorize …"). None when a denial's scope cannot be named so:
    in Japanese, for a denial with no word after it ("| TEE_Panic | No |"), and for a word that is itself the denial
    ("unsupported", "prohibited")."""
    text = EN_NOT_NEGATION.sub(" ", ANSWER_PARTICLE.sub("", plain_text(text)))
    if KANA.search(text):
        return None
    negated: set[str] = set()
    for clause in re.split(r"\||" + EN_CLAUSE_END.pattern, text):
        for denial in EN_NEGATION.finditer(clause or ""):
            words = [w for w in _EN_WORD.findall(clause[denial.end() :]) if _STEMS.tokenize(w)]
            words = [w for w in words if not EN_NEGATION.fullmatch(w) and not _ADVERB.fullmatch(w)]
            whole = bool(_EN_WHOLE_DENIAL.fullmatch(denial.group()))
            if not words or not (whole or _GRAMMATICAL_DENIAL.fullmatch(denial.group())):
                return None
            whole = whole or _STEMS.tokenize(words[0])[0] in _EN_PASSED_ON
            negated.update(w.lower() for w in (words if whole else words[:1]))
    return negated


def denies_what_is_claimed(claim: str, evidence: str) -> bool:
    """Whether ``evidence`` that denies something denies what an affirmative ``claim`` says, not something else
    beside the claim's words.

    English: one of its denials negates a word of the claim (the same stem). "(A) does not apply to a foreign
    adversary controlled application with respect to which a qualified divestiture is executed…" holds every word of
    "H.R. 815 requires divestiture of applications controlled by a foreign adversary" and a "not", yet denies that
    the prohibition applies, not that divestiture is required. Japanese: a denial negates a word of the claim or
    follows the claim's predicate (``_ja_denies_claim``). "…英語の組版では,…行の調整処理も,…日本語組版に比べると,
    それほど複雑ではない" denies 複雑, and "…分割を禁止することで回避できる" forbids 分割: neither denies that
    行頭そろえ avoids 行の調整処理.

    True when nothing settles it that way: a negated claim, evidence with no denial that can be scoped.
    """
    if is_negated(claim):
        return True
    if KANA.search(plain_text(evidence)):
        return _ja_denies_claim(claim, evidence) is not False
    if KANA.search(plain_text(claim)) or not (negated := negated_words(evidence)):
        return True
    claimed = set(_STEMS.tokenize(claim))
    return any(claimed & set(_STEMS.tokenize(word)) for word in negated)


def _ja_denies_claim(claim: str, text: str) -> bool | None:
    """Whether a Japanese denial in ``text`` is of what ``claim`` says: one of the two words written in kanji or
    katakana just before it in its clause is one of the claim's ("配布にはなりません" denies 配布, "セルの結合を行わず"
    結合 and 行), or the sentence names the claim's predicate before it, as the condition whose outcome it denies
    ("改行が含まれていると、…読み取れなくなる" against "改行を含めても大丈夫"). None when ``text`` denies nothing
    (obligations and the words ``negation_count`` passes over are no denials)."""
    claimed = content_tokens(claim)
    predicate = predicate_words(claim)
    found = False
    for sentence in punctuated_sentences(plain_text(text)):
        kept = JA_NOT_NEGATION.sub(_blank, OBLIGATION.sub(_blank, sentence))
        for denial in JA_NEGATION.finditer(kept):
            found = True
            before = kept[: denial.start()]
            clause = JA_CLAUSE_END.split(before)[-1]
            if any(content_tokens(word) & claimed for word in CONTENT_RUN.findall(clause)[-2:]):
                return True
            if any(word in before for word in predicate):
                return True
    return False if found else None


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())
