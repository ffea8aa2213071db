"""Evidence first: the passages an answer is written from, each with the sentence that best answers the question.

The QA page shows the evidence within a second of asking, before the model has read a word, and shows it again
in place of an answer whose main claim does not hold. Every sentence here is verbatim text of its chunk (a table
row, never its header; a sentence rather than a bare title when there is one).
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.citations import Passage, clip_quote
from rag.claims import sentence_units
from rag.faithfulness import similarity, support
from rag.records import Citation, Evidence

TITLE_MAX_CHARS = 40
"""A line this short without closing punctuation is taken for a title: it answers only when nothing else does."""
TITLE_WEIGHT = 0.5
_CLOSING = "。．.！？!?）)」"


def answer_sentence(question: str, text: str) -> str:
    """The sentence or table row of ``text`` that best answers ``question``, verbatim ("" for empty text).

    Scored by the share of the question's content words it holds (a table row read with its header), plus a
    quarter of their overlap; titles count half.
    """
    best, best_score = "", -1.0
    for sentence, reading in sentence_units(text):
        score = support(question, reading) + 0.25 * similarity(question, reading)
        if _looks_like_title(sentence):
            score *= TITLE_WEIGHT
        if score > best_score:
            best, best_score = sentence, score
    return clip_quote(best)


def _looks_like_title(sentence: str) -> bool:
    line = sentence.strip()
    return len(line) <= TITLE_MAX_CHARS and not line.startswith("|") and line[-1:] not in _CLOSING


def gather_evidence(question: str, passages: Sequence[Passage]) -> tuple[Evidence, ...]:
    """One Evidence per passage, in passage order, with the sentence that best answers ``question``."""
    return tuple(
        Evidence(
            n=p.n,
            source=p.chunk.source,
            page=p.chunk.page,
            chunk_id=p.chunk.chunk_id,
            text=p.chunk.text,
            sentence=answer_sentence(question, p.chunk.text),
            score=p.score,
        )
        for p in passages
    )


def evidence_citations(evidence: Sequence[Evidence], limit: int) -> tuple[Citation, ...]:
    """Citations of the first ``limit`` pieces of evidence, each quoting its best sentence."""
    return tuple(Citation(e.n, e.source, e.page, e.sentence, e.chunk_id) for e in evidence[:limit] if e.sentence)


def evidence_answer(evidence: Sequence[Evidence], limit: int) -> str:
    """The best sentences of the first ``limit`` pieces of evidence, verbatim, each with its marker, one a line."""
    return "\n".join(f"{e.sentence} [{e.n}]" for e in evidence[:limit] if e.sentence)
