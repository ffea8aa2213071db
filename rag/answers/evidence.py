"""Evidence first: the passages an answer is written from, each with the sentence that best answers the question.

The QA page shows the evidence within a second of asking, before the model has read a word, and shows it again
in place of an answer whose main claim does not hold. Every sentence here is verbatim text of its chunk (a table
row, never its header; a sentence rather than a bare title when there is one).

A sentence is scored by the words it shares with the question and, when the engine lends its embedding model
(``SentenceRelevance``), by how close its meaning is: a question asked in English about a Japanese document shares
no word with the sentence that answers it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.answers.citations import Passage, clip_quote
from rag.answers.claims import sentence_units
from rag.answers.faithfulness import content_tokens, is_question, similarity, support
from rag.records import Citation, Evidence

SentenceRelevance = Callable[[str, Sequence[str]], Sequence[float]]
"""``(question, sentences) -> one cosine per sentence``: the embedding model's view of how well each answers."""

TITLE_MAX_CHARS = 40
"""A line this short without closing punctuation is taken for a title: it counts half (so does a near-empty row)."""
TITLE_WEIGHT = 0.5
"""What a title, a question, a near-empty table row or a line of one or two words counts: they name the topic (and
share the question's words) without answering it."""
MIN_CONTENT_TOKENS = 2
"""Content words (Japanese: character pairs, kana endings aside) below which a line says too little to answer
anything ("AA: ですね!", "Answer"); "AA: 趣味は旅行です!" says enough."""
ANSWER_FOLLOWS_QUESTION = 0.5
"""Share of a question's score passed to the sentence after it: in a FAQ the answer follows the question it shares
the asker's words with."""
SEMANTIC_WEIGHT = 0.6
"""Weight of a sentence's meaning, scaled 0..1 between the least and most similar sentence of the evidence.

Word overlap ranges over 0..1.25; on the realdocs golden questions the two together picked an answering sentence
more often than either alone (``bench/answers_realdocs.py --backend extractive``)."""
MAX_SCORED_SENTENCES = 32
"""Sentences embedded per question at most; the rest keep their word-overlap score. On the realdocs golden set
(extractive backend) 32, 48 and 96 picked equally well (accuracy 0.373 each), and time to evidence grows with the
count (p50 about 0.9 s at 32 and 1.2 s at 96 on 2 cores, search included)."""
_CLOSING = "。．.！？!?）)」"
_HIRAGANA = re.compile("[\u3040-\u309f]+")
_SPEAKER = re.compile(r"^\s*[\w.-]{1,20}\s*[:：]\s*")


def _lexical_score(question: str, reading: str) -> float:
    return support(question, reading) + 0.25 * similarity(question, reading)


def answer_sentence(question: str, text: str) -> str:
    """The sentence or table row of ``text`` that best answers ``question`` by the words they share, verbatim.

    Scored by the share of the question's content words it holds (a table row read with its header), plus a
    quarter of their overlap; titles count half. ``""`` for empty text.
    """
    return answering_sentences(question, [text])[0]


def _answers_nothing(sentence: str) -> bool:
    """Whether a unit names a topic rather than answering: a short line without closing punctuation (a title), a
    question, a table row with one filled cell or fewer than a third filled (a label, a merged header), or
    a line of fewer than ``MIN_CONTENT_TOKENS`` content words after its speaker's name."""
    line = sentence.strip()
    if line.startswith("|"):
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        filled = sum(1 for cell in cells if cell)
        return filled <= 1 or 3 * filled < len(cells)
    if is_question(line):
        return True
    said = [token for token in content_tokens(_SPEAKER.sub("", line)) if not _HIRAGANA.fullmatch(token)]
    if len(said) < MIN_CONTENT_TOKENS:
        return True
    return len(line) <= TITLE_MAX_CHARS and line[-1:] not in _CLOSING


def answering_sentences(question: str, texts: Sequence[str], relevance: SentenceRelevance | None = None) -> list[str]:
    """For each text, its sentence or table row that best answers ``question``, verbatim (``""`` for empty text).

    Without ``relevance`` this is ``answer_sentence`` per text. With it, every candidate of every text is also
    scored by meaning in one batch, scaled between the least and most similar candidate, and added with
    ``SEMANTIC_WEIGHT``. Titles, questions and near-empty lines count ``TITLE_WEIGHT``; the sentence after a question
    gains part of the question's score (a FAQ's answer).
    """
    units = [sentence_units(text) for text in texts]
    weights = [[TITLE_WEIGHT if _answers_nothing(s) else 1.0 for s, _r in text_units] for text_units in units]
    scores = [[_lexical_score(question, r) for _s, r in text_units] for text_units in units]
    if relevance is not None:
        # the first passages are the most relevant: past the cap, later ones keep their word-overlap score
        chosen = [(i, j) for i, text_units in enumerate(units) for j in range(len(text_units))]
        chosen = chosen[:MAX_SCORED_SENTENCES]
        cosines = list(relevance(question, [units[i][j][1] for i, j in chosen])) if chosen else []
        if cosines:
            low, high = min(cosines), max(cosines)
            spread = high - low
            for (i, j), cosine in zip(chosen, cosines, strict=True):
                meaning = (cosine - low) / spread if spread > 1e-6 else 0.0
                scores[i][j] += SEMANTIC_WEIGHT * meaning
    best: list[str] = []
    for text_units, text_scores, text_weights in zip(units, scores, weights, strict=True):
        if not text_units:
            best.append("")
            continue
        raw = list(text_scores)
        text_scores = [score * weight for score, weight in zip(raw, text_weights, strict=True)]
        for k, (sentence, _reading) in enumerate(text_units):
            if not is_question(sentence.strip()):
                continue
            # the answer: the next unit that says something ("No." or "はい。" may come first)
            answer = next((m for m in range(k + 1, min(k + 3, len(text_units))) if text_weights[m] == 1.0), None)
            if answer is not None:
                text_scores[answer] += ANSWER_FOLLOWS_QUESTION * raw[k]
        top = max(range(len(text_units)), key=lambda k: text_scores[k])
        best.append(clip_quote(text_units[top][0]))
    return best


def gather_evidence(
    question: str, passages: Sequence[Passage], relevance: SentenceRelevance | None = None
) -> tuple[Evidence, ...]:
    """One Evidence per passage, in passage order, with the sentence that best answers ``question``."""
    sentences = answering_sentences(question, [p.chunk.text for p in passages], relevance)
    return tuple(
        Evidence(
            n=p.n,
            source=p.chunk.source,
            page=p.chunk.page,
            chunk_id=p.chunk.chunk_id,
            text=p.chunk.text,
            sentence=sentence,
            score=p.score,
        )
        for p, sentence in zip(passages, sentences, strict=True)
    )


def evidence_citations(evidence: Sequence[Evidence], limit: int) -> tuple[Citation, ...]:
    """Citations of the first ``limit`` pieces of evidence, each quoting its best sentence."""
    return tuple(Citation(e.n, e.source, e.page, e.sentence, e.chunk_id) for e in evidence[:limit] if e.sentence)


def evidence_answer(evidence: Sequence[Evidence], limit: int) -> str:
    """The best sentences of the first ``limit`` pieces of evidence, verbatim, each with its marker, one a line."""
    return "\n".join(f"{e.sentence} [{e.n}]" for e in evidence[:limit] if e.sentence)
