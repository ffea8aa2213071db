"""Checks every quiz candidate must pass, and the reasons a candidate is rejected.

A statement is a statement, not a question; its answer is a boolean; it cites at least one quote that is verbatim
in a chunk of the source; a TRUE statement is supported by that chunk; a FALSE one shows a checkable contradiction
(a number the chunk does not have, the opposite negation, an antonym) and is not stated anywhere in the document.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from rag.citations import locate_verbatim, verify_quote
from rag.faithfulness import content_tokens, normalize, support
from rag.quiz.models import GeneratedItem
from rag.quiz.perturbation import ANTONYMS, is_negated, numbers_in
from rag.records import Chunk

MAX_STATEMENT_CHARS = 300
TRUE_QUOTE_SUPPORT = 0.5
TRUE_CHUNK_SUPPORT = 0.6
FALSE_MIN_RELEVANCE = 0.3
DUPLICATE_SIMILARITY = 0.8
_SENTENCE_ENDS = (".", "。", "．", "!", "！", "?", "？")

# a sentence cut where its chunk begins: lower-case English, or Japanese opening on a particle or punctuation
# (not も, と, で: もし, ところが, では open sentences)
_FRAGMENT_START = re.compile(r"[a-z,;:)\]、。，）」』をにがはのっ]")
_QUESTION_END = re.compile(r"(\?|？|か。?|ですか|ますか|でしょうか)\s*$")
_QUESTION_START = re.compile(r"^(is|are|does|do|did|can|what|which|who|when|where|why|how)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A statement that passed validation, with the chunk and verbatim quote it rests on."""

    statement: str
    answer_bool: bool
    explanation: str
    chunk: Chunk
    quote: str


def is_question(statement: str) -> bool:
    """Whether the text reads as a question (ends with ?/？/か, or opens like an English question)."""
    text = statement.strip()
    return bool(_QUESTION_END.search(text) or (_QUESTION_START.match(text) and text.endswith("?")))


def is_fragment(statement: str) -> bool:
    """Whether the text starts mid-sentence (lower-case English, or a Japanese particle or closing mark)."""
    return bool(_FRAGMENT_START.match(statement.strip()))


def is_heading(statement: str, text: str) -> bool:
    """Whether ``statement`` is a line of ``text`` that ends without sentence punctuation (a title, not a claim)."""
    plain = _plain(statement)
    lines = (line.rstrip() for line in text.splitlines())
    return any(_plain(line) == plain and not line.endswith(_SENTENCE_ENDS) for line in lines if line)


def validate_generated(raw: Any, passages: Sequence[Chunk], document: Sequence[Chunk]) -> Candidate | str:
    """Check one item of an LLM reply.

    Args:
        raw: the item as parsed from JSON (a dict, ideally).
        passages: the chunks shown to the model, numbered from 1.
        document: every pool chunk of the source (a quote may be found in any of them).

    Returns:
        The candidate, or the rejection reason (a short snake_case word).
    """
    try:
        item = GeneratedItem.model_validate(raw)
    except ValidationError as err:
        fields = {str(e["loc"][0]) for e in err.errors() if e["loc"]}
        return "bad_type" if "type" in fields else "answer_not_bool" if "answer_bool" in fields else "malformed_item"
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
    chunk, quote = _verbatim_quote(item.quote or statement, passages[item.passage - 1], document)
    if quote is None:
        return "quote_not_verbatim"
    if is_heading(statement, chunk.text):
        return "heading_not_statement"
    reason = check_truth(statement, item.answer_bool, chunk.text, quote, [c.text for c in document])
    if reason:
        return reason
    return Candidate(statement, item.answer_bool, item.explanation.strip(), chunk, quote)


def check_truth(statement: str, answer_bool: bool, chunk_text: str, quote: str, document: Sequence[str]) -> str:
    """ "" when the statement's truth value checks out against its chunk, else the rejection reason."""
    stated = any(_plain(statement) in _plain(text) for text in document)
    if answer_bool:
        supported = support(statement, quote) >= TRUE_QUOTE_SUPPORT or support(statement, chunk_text) >= (
            TRUE_CHUNK_SUPPORT
        )
        if stated or (supported and numbers_in(statement) <= numbers_in(chunk_text)):
            return ""
        return "true_not_supported"
    if stated:
        return "false_supported"
    if support(statement, chunk_text) < FALSE_MIN_RELEVANCE:
        return "false_off_topic"
    return "" if contradicts(statement, quote, chunk_text) else "false_not_verifiable"


def contradicts(statement: str, quote: str, chunk_text: str) -> bool:
    """Whether ``statement`` differs from ``quote`` in a checkable way: number, negation or antonym."""
    if numbers_in(statement) - numbers_in(chunk_text):
        return True
    if is_negated(statement) != is_negated(quote):
        return True
    low_statement, low_quote = statement.lower(), quote.lower()
    return any(
        (a in low_statement and a not in low_quote and b in low_quote)
        or (b in low_statement and b not in low_quote and a in low_quote)
        for a, b in ANTONYMS
    )


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


def _verbatim_quote(quote: str, cited: Chunk, document: Sequence[Chunk]) -> tuple[Chunk, str | None]:
    """The chunk and verbatim quote: as written in the cited chunk, in another pool chunk, or snapped."""
    found = locate_verbatim(quote, cited.text)
    if found:
        return cited, found
    for chunk in document:
        found = locate_verbatim(quote, chunk.text)
        if found and len(found) >= 8:
            return chunk, found
    return cited, verify_quote(quote, cited.text)


def _plain(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", normalize(text).lower())


def _dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0
