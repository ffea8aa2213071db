"""Checks every quiz candidate must pass, and the reasons a candidate is rejected.

A statement is a statement, not a question; its answer is a boolean; its times, dates and numbers can exist
(``rag.quiz.wellformed``); it cites quotes that are verbatim in chunks of the source. A TRUE statement passes the
claim check answers use (``rag.answers.claims.check_claim``: every number, date, name and the polarity are in the cited
sentence) and is about that sentence; a FALSE one is contradicted by its cited sentence in exactly one fact (a
number, date, name... the sentence states differently, the opposite polarity, or a comparison turned round) and
is stated nowhere in the document. ``is_verbatim`` tells a restatement from a copy.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from rag.answers.citations import locate_verbatim, verify_quote
from rag.answers.claims import check_claim
from rag.answers.facts import facts_of
from rag.answers.faithfulness import content_tokens, is_question, normalize, split_sentences, support
from rag.answers.polarity import is_negated
from rag.quiz.models import GeneratedItem
from rag.quiz.perturbation import COMPARISONS, Kind
from rag.quiz.wellformed import is_well_formed
from rag.records import Chunk

MAX_STATEMENT_CHARS = 300
RELATION_MIN_TOKENS = 2
"""Content tokens a statement must share with each of two focus sentences to state their relation (cite both)."""
FALSE_MIN_RELEVANCE = 0.3
DUPLICATE_SIMILARITY = 0.8
VERBATIM_SHARE = 0.6
"""A statement with this share of its words copied in runs from its cited sentence is a copy, not a restatement."""
COPIED_RUN = 3.0
"""Weight of a run of words that counts as copied (three English words, six Japanese characters)."""
_SENTENCE_ENDS = (".", "。", "．", "!", "！", "?", "？")

# a sentence cut where its chunk begins: lower-case English, or Japanese opening on a particle or punctuation
# (not も, と, で: もし, ところが, では open sentences), or on a verb ending (…し\nて, …さ\nれる)
# or on the last kana of a cut word and a comma ("め、" of ため、): no sentence opens with one kana and a comma
_FRAGMENT_START = re.compile(
    r"[a-z,;:)\]、。，）」』をにがはのってれるらりんずゃゅょぁぃぅぇぉー]|[\u3040-\u309f][、，]"
)
_CJK_CHAR = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々〆ヶー]")
_TOKEN = re.compile("[a-z0-9]+(?:[.'_:][a-z0-9]+)*|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々〆ヶー]")
# words that narrow a claim to all, none or only some: a restatement may not bring one in that its sentence lacks
# ("No authority may grant waivers" from "The division may grant waivers" is another claim, not the same one)
_RESTRICTIONS = {
    "only": r"\bonly\b",
    "never": r"\bnever\b",
    "always": r"\balways\b",
    "all": r"\ball\b",
    "every": r"\bevery(?:one|thing|body)?\b",
    "no": r"\b(?:no|none|nobody|nothing)\b",
    "without": r"\bwithout\b",
    "のみ": "のみ",
    "だけ": "だけ",
    "しか": "しか",
    "必ず": "必ず",
    "すべて": "すべて|全て|全部",
    "一切": "一切",
    "常に": "常に|いつも",
}
# an exception in the sentence makes "only" a fair restatement ("X is not allowed; however, Y may" -> only Y)
_EXCEPTION = re.compile(
    r"\b(?:however|unless|except|only if|provided that)\b|ただし|除き|除く|限り|場合に限", re.IGNORECASE
)
_EXCLUSIVE = ("only", "のみ", "だけ", "しか")


@dataclass(frozen=True, slots=True)
class Focus:
    """The sentences of one chunk a statement is written from: one, or two whose relation it states."""

    chunk: Chunk
    sentences: tuple[str, ...]

    @classmethod
    def whole(cls, chunk: Chunk) -> Focus:
        """Every sentence of ``chunk``."""
        return cls(chunk, tuple(split_sentences(chunk.text)))

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


@dataclass(frozen=True, slots=True)
class Change:
    """The one fact in which a FALSE statement differs from its cited sentence."""

    kind: Kind
    original: str  # as the document states it
    replacement: str  # as the statement has it


@dataclass(frozen=True, slots=True)
class Candidate:
    """A statement that passed validation, with the chunk and the verbatim quotes it rests on."""

    statement: str
    answer_bool: bool
    explanation: str
    chunk: Chunk
    quote: str
    second_quote: str = ""  # a relation between two sentences cites both
    change: Change | None = None  # FALSE statements: what the cited sentence states differently

    @property
    def quotes(self) -> tuple[str, ...]:
        return (self.quote, self.second_quote) if self.second_quote else (self.quote,)

    @property
    def evidence(self) -> str:
        return " ".join(self.quotes)


def is_fragment(statement: str) -> bool:
    """Whether the text starts mid-sentence (lower-case English, or a Japanese particle or closing mark)."""
    return bool(_FRAGMENT_START.match(statement.strip()))


def is_heading(statement: str, text: str) -> bool:
    """Whether ``statement`` is a line of ``text`` that ends without sentence punctuation (a title, not a claim)."""
    plain = _plain(statement)
    lines = (line.rstrip() for line in text.splitlines())
    return any(_plain(line) == plain and not line.endswith(_SENTENCE_ENDS) for line in lines if line)


def validate_generated(raw: Any, passages: Sequence[Focus], document: Sequence[Chunk]) -> Candidate | str:
    """Check one item of an LLM reply.

    Args:
        raw: the item as parsed from JSON (a dict, ideally).
        passages: the focus sentences shown to the model, numbered from 1.
        document: every pool chunk of the source (a copied sentence may be found in any of them).

    Returns:
        The candidate, or the rejection reason (a short snake_case word).
    """
    try:
        item = GeneratedItem.model_validate(raw)
    except ValidationError as err:
        fields = {str(e["loc"][0]) for e in err.errors() if e["loc"]}
        return "bad_type" if "type" in fields else "answer_not_bool" if "answer_bool" in fields else "malformed_item"
    if re.search(r"[\x00-\x1f]", item.statement.strip()):  # "\newcommand" read as a JSON newline escape
        return "malformed_statement"
    statement = " ".join(item.statement.split())
    if not statement:
        return "empty_statement"
    if len(statement) > MAX_STATEMENT_CHARS:
        return "too_long"
    if is_question(statement):
        return "question_form"
    if is_fragment(statement):
        return "fragment_not_statement"
    if not 1 <= item.passage <= len(passages):
        return "no_citation"
    focus = passages[item.passage - 1]
    if is_heading(statement, focus.chunk.text):
        return "heading_not_statement"
    options = _evidence_options(item.quote or statement, focus, document)
    if not options:
        return "quote_not_verbatim"
    if not is_well_formed(statement, " ".join(q for _c, quotes in options for q in quotes)):
        return "malformed_statement"
    stated = any(_plain(statement) in _plain(c.text) for c in document)
    reason = "true_not_supported" if item.answer_bool else "false_supported" if stated else "false_not_verifiable"
    for chunk, quotes in options:
        evidence = " ".join(quotes)
        candidate = Candidate(
            statement, item.answer_bool, item.explanation.strip(), chunk, quotes[0], " ".join(quotes[1:])
        )
        if item.answer_bool and (stated or supports(statement, evidence)):
            if not stated and added_restriction(statement, evidence):
                reason = "true_adds_restriction"
                continue
            if not stated and untranslated_words(statement, evidence):
                reason = "true_untranslated"
                continue
            if not stated and len(split_sentences(statement)) > len(split_sentences(evidence)):
                reason = "true_adds_sentence"  # a sentence the citation has no counterpart for says something new
                continue
            return candidate
        change = None if item.answer_bool or stated else contradiction(statement, evidence)
        if change is not None:
            return replace(candidate, change=change)
        if not item.answer_bool and not stated and support(statement, evidence) < FALSE_MIN_RELEVANCE:
            reason = "false_off_topic"
    return reason


def added_restriction(statement: str, evidence: str) -> str:
    """A word narrowing the claim to all, none or only some that ``statement`` has and ``evidence`` lacks, else "".

    "only" (のみ, だけ, しか) is a fair restatement of a sentence that states an exception (however, unless, ただし).
    """
    low_statement, low_evidence = statement.lower(), evidence.lower()
    for word, pattern in _RESTRICTIONS.items():
        if re.search(pattern, low_statement) and not re.search(pattern, low_evidence):
            if word in _EXCLUSIVE and _EXCEPTION.search(low_evidence):
                continue
            return word
    return ""


def supports(statement: str, evidence: str) -> bool:
    """Whether ``evidence`` supports ``statement`` by the claim check answers get (facts, polarity, content words).

    A TRUE statement restates the sentence it cites, so with one sentence cited their polarity must agree however
    few words they share (the claim check compares polarity only with a sentence that shares half the claim's
    words: an answer may cite a whole chunk). "…実行する必要はありません" restating "…実行することが重要です" is
    no true statement.
    """
    if not check_claim(statement, evidence).supported:
        return False
    cited = split_sentences(evidence)
    return len(cited) != 1 or is_negated(statement) == is_negated(cited[0])


def untranslated_words(statement: str, evidence: str) -> list[str]:
    """Latin-letter words of a Japanese ``statement`` that its ``evidence`` lacks: a restatement that left a word of
    its English translation untranslated ("OSSは trademarksであるため") says something its sentence does not."""
    if not _is_ja(statement):
        return []
    cited = evidence.casefold()
    return [word for word in _LATIN_WORD.findall(statement) if word.casefold() not in cited]


def contradiction(statement: str, evidence: str) -> Change | None:
    """The one fact in which ``evidence`` contradicts ``statement``; None when it is none, or more than one.

    A fact of the statement missing from the evidence (its counterpart of the same kind named when the evidence
    has one), the opposite polarity, or a comparison turned round (以上 for 未満, before for after) each count as
    one difference; the statement must otherwise be about the evidence.
    """
    if support(statement, evidence) < FALSE_MIN_RELEVANCE:
        return None
    check = check_claim(statement, evidence)
    swaps = comparison_swaps(statement, evidence)
    if len(check.missing) + int(check.polarity_conflict) + len(swaps) != 1:
        return None
    if swaps:
        return Change("comparison", *swaps[0])
    if check.polarity_conflict:
        words = ("肯定", "否定") if _is_ja(statement) else ("affirmative", "negative")
        said = words[1] if is_negated(evidence) else words[0]
        return Change("polarity", said, words[0] if said == words[1] else words[1])
    fact = check.missing[0]
    claimed = {f.value for f in facts_of(statement)}
    counterparts = [f.text for f in facts_of(evidence) if f.kind == fact.kind and f.value not in claimed]
    return Change(fact.kind, counterparts[0] if len(counterparts) == 1 else "", fact.text)


def comparison_swaps(statement: str, evidence: str) -> list[tuple[str, str]]:
    """(evidence word, statement word) for each comparison the statement turns round (以上 → 未満, before → after)."""
    low_statement, low_evidence = statement.lower(), evidence.lower()
    swaps: list[tuple[str, str]] = []
    for a, b in COMPARISONS:
        for said, stated in ((a, b), (b, a)):
            if stated in low_statement and stated not in low_evidence and said in low_evidence:
                swaps.append((said, stated))
    return swaps


def copied_share(statement: str, evidence: str) -> float:
    """Share of ``statement`` that is copied from ``evidence``: in runs of its words found there word for word.

    Text is compared as tokens: a Latin word (or number) is one token of weight 1, a CJK character one of weight
    1/2 (two characters make a Japanese word about as often as not). A run of consecutive statement tokens that
    also stands, in that order, anywhere in the evidence is copied when its weight reaches ``COPIED_RUN`` (three
    English words, six Japanese characters); reordering copied clauses therefore still counts as copying.

    Args:
        statement: a quiz statement.
        evidence: the sentence(s) it cites.

    Returns:
        The copied share of the statement's token weight, 0.0 to 1.0 (0.0 for a statement without tokens).
    """
    tokens, cited = _tokens(statement), _tokens(evidence)
    if not tokens:
        return 0.0
    haystack = "\x1f" + "\x1f".join(cited) + "\x1f"
    copied = [False] * len(tokens)
    for start in range(len(tokens)):
        end = start
        while end < len(tokens) and "\x1f" + "\x1f".join(tokens[start : end + 1]) + "\x1f" in haystack:
            end += 1
        if sum(_weight(t) for t in tokens[start:end]) >= COPIED_RUN:
            copied[start:end] = [True] * (end - start)
    total = sum(_weight(t) for t in tokens)
    return sum(_weight(t) for t, hit in zip(tokens, copied, strict=True) if hit) / total


def is_verbatim(statement: str, evidence: str) -> bool:
    """Whether ``statement`` copies its cited sentence(s) rather than restating them.

    The one definition of a copy, used by the generator and by ``bench/quiz.py``: ``VERBATIM_SHARE`` or more of
    the statement stands word for word in the evidence (:func:`copied_share`). An excerpt, a sentence with a
    changed ending or a dropped clause, and clauses put in another order are copies; a restatement in other words
    that keeps the names and numbers is not.
    """
    return copied_share(statement, evidence) >= VERBATIM_SHARE


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(normalize(text).lower())


def _weight(token: str) -> float:
    return 0.5 if len(token) == 1 and _CJK_CHAR.match(token) else 1.0


def _evidence_options(quote: str, focus: Focus, document: Sequence[Chunk]) -> list[tuple[Chunk, tuple[str, ...]]]:
    """Where a statement may rest: the verbatim span a model quote (or a copied statement) names, else each focus
    sentence, and for a relation both focus sentences together."""
    for chunk in (focus.chunk, *document):
        found = locate_verbatim(quote, chunk.text)
        if found and (chunk is focus.chunk or len(found) >= 8):
            return [(chunk, (found,))]
    sentences = [s for s in focus.sentences if locate_verbatim(s, focus.chunk.text)]
    if not sentences:
        snapped = verify_quote(quote, focus.chunk.text)
        return [(focus.chunk, (snapped,))] if snapped else []
    ranked = sorted(sentences, key=lambda s: -support(quote, s))
    options: list[tuple[Chunk, tuple[str, ...]]] = [(focus.chunk, (s,)) for s in ranked]
    if len(sentences) == 2:
        pair = (focus.chunk, (sentences[0], sentences[1]))
        # a statement that draws on both sentences states their relation: it cites both
        uses_both = all(len(content_tokens(quote) & content_tokens(s)) >= RELATION_MIN_TOKENS for s in sentences)
        options.insert(0, pair) if uses_both else options.append(pair)
    return options


class Deduplicator:
    """Rejects repeats: the same normalized statement, the same core content, or a reused citation."""

    def __init__(self) -> None:
        self._statements: set[str] = set()
        self._contents: list[set[str]] = []
        self._citations: set[tuple[str, int | None, str]] = set()

    def reason(self, statement: str, chunk: Chunk, quote: str) -> str:
        """ "" when new, else ``duplicate_statement``, ``duplicate_content`` or ``citation_reused``."""
        if _plain(statement) in self._statements:
            return "duplicate_statement"
        tokens = content_tokens(statement)
        if any(_dice(tokens, seen) >= DUPLICATE_SIMILARITY for seen in self._contents):
            return "duplicate_content"
        if citation_key(chunk, quote) in self._citations:
            return "citation_reused"
        return ""

    def add(self, statement: str, chunk: Chunk, quote: str) -> None:
        self._statements.add(_plain(statement))
        self._contents.append(content_tokens(statement))
        self._citations.add(citation_key(chunk, quote))


def citation_key(chunk: Chunk, quote: str) -> tuple[str, int | None, str]:
    """(source, page, first 60 characters of the quote): two citations with one key are one citation."""
    return (chunk.source, chunk.page, normalize(quote)[:60])


def rejection_summary(reasons: Counter[str]) -> str:
    """``question_form: 3, quote_not_verbatim: 1`` (most frequent first)."""
    return ", ".join(f"{reason}: {n}" for reason, n in reasons.most_common()) or "none"


def _plain(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalize(text).lower())


_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")


def _is_ja(text: str) -> bool:
    return bool(re.search(r"[\u3040-\u30ff]", text))


def _dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0
