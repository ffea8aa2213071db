"""Fitting passages into a prompt: a token estimate that knows Japanese costs more, and the part of a chunk to keep.

A local model on a CPU reads its prompt at a fixed rate (about 90 tokens/s for the 1.5B embedded model on two
cores), so the time to the first answer token is set by the prompt's length in tokens, not characters. Japanese
text costs about three times as many tokens per character as English, so a budget in characters alone makes
Japanese answers three times slower. :func:`estimate_tokens` counts per script without loading a tokenizer;
:func:`focus` keeps the sentences of a long chunk that the question is about instead of its first sentences.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rag.answers.evidence import SentenceRelevance
from rag.answers.faithfulness import content_tokens, sentence_spans
from rag.answers.prompts import script_language

CJK_TOKENS_PER_CHAR = 0.8
"""Qwen2.5 tokenizer on 300 JSQuAD paragraphs: 38,949 tokens for 47,472 CJK and 5,190 other characters."""
OTHER_TOKENS_PER_CHAR = 0.25
"""Qwen2.5 tokenizer on 300 SciFact abstracts: 0.22 tokens per character, rounded up."""
ELLIPSIS = "…"

_TABLE_ROW = re.compile(r"\s*\|.*\|\s*$")
_SEPARATOR = re.compile(r"\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
_CJK_CHAR = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """About how many tokens an LLM tokenizer makes of ``text`` (CJK characters 0.8 each, others 0.25)."""
    cjk = len(_CJK_CHAR.findall(text))
    return round(cjk * CJK_TOKENS_PER_CHAR + (len(text) - cjk) * OTHER_TOKENS_PER_CHAR)


def fits(text: str, max_chars: int, max_tokens: int | None) -> bool:
    """Whether ``text`` is within ``max_chars`` characters and, when given, ``max_tokens`` estimated tokens."""
    return len(text) <= max_chars and (max_tokens is None or estimate_tokens(text) <= max_tokens)


def focus(
    question: str, text: str, max_chars: int, max_tokens: int | None = None, relevance: SentenceRelevance | None = None
) -> str:
    """The part of ``text`` that fits the limits and is most about ``question``.

    The whole text when it fits. Otherwise the consecutive sentences around the sentence most about the question
    (``line_scores``), grown one neighbour at a time, the better-matching side first, while they fit; "…" marks
    where text was left out. A single sentence too long for the limits is cut at a character boundary.

    Args:
        question: what the passage is for.
        text: the passage text.
        max_chars: limit in characters.
        max_tokens: limit in estimated tokens (``None``: characters only).
        relevance: the embedding model's cosines, for a question in another language than the text.

    Returns:
        A contiguous excerpt of ``text`` (with ellipses where it was cut).
    """
    if fits(text, max_chars, max_tokens):
        return text
    if _TABLE_ROW.match(text.lstrip("\n")) or "\n|" in text:
        return focus_table(question, text, max_chars, max_tokens, relevance)
    spans = sentence_spans(text)
    if not spans:
        return _cut(text, max_chars, max_tokens)
    scores = line_scores(question, [text[start:end] for start, end in spans], relevance)
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    low = high = best

    def excerpt(first: int, last: int) -> str:
        body = text[spans[first][0] : spans[last][1]]
        return (ELLIPSIS if first > 0 else "") + body + (ELLIPSIS if last < len(spans) - 1 else "")

    if not fits(excerpt(low, high), max_chars, max_tokens):
        return _cut(excerpt(low, high), max_chars, max_tokens)
    while True:
        sides = [i for i in (low - 1, high + 1) if 0 <= i < len(spans)]
        grown = False
        for i in sorted(sides, key=lambda i: -scores[i]):
            first, last = min(low, i), max(high, i)
            if fits(excerpt(first, last), max_chars, max_tokens):
                low, high, grown = first, last, True
                break
        if not grown:
            return excerpt(low, high)


def focus_table(
    question: str, text: str, max_chars: int, max_tokens: int | None = None, relevance: SentenceRelevance | None = None
) -> str:
    """The rows of a markdown table that are most about ``question``, with the header rows and any caption.

    A question about a table needs its rows, not its first rows: rows are taken best-matching first
    (``line_scores``), kept in table order, while they fit; the header (and the
    ``| --- |`` line) always stays, so every kept row is read with its column names. Lines before the table
    (a caption) stay when they fit.

    Returns:
        The caption, header and chosen rows, with an ellipsis row where rows were left out.
    """
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _TABLE_ROW.match(line)), 0)
    head_end = first + (2 if first + 1 < len(lines) and _SEPARATOR.match(lines[first + 1]) else 1)
    rows = lines[head_end:]
    scores = line_scores(question, rows, relevance)
    return _best_lines(lines[:first], lines[first:head_end], rows, max_chars, max_tokens, scores=scores)


def focus_record(
    question: str, text: str, max_chars: int, max_tokens: int | None = None, relevance: SentenceRelevance | None = None
) -> str:
    """The lines of a record (a row of a wide sheet, read as "column: value" lines under the line naming the row)
    that are about ``question``, under that naming line.

    A line is scored by the question's words it holds that at most half of the record's lines hold: a word most
    lines share (the group in every column's name, "OpenChain / Spec. -1.2", "OpenChain / Curriculum -1.2") tells
    them apart no better than nothing. Lines whose value holds such a word are kept, best first while they fit;
    when no value does, lines whose column name does; so a record the question touches by its column names alone
    leaves the room to the passages after it. When no line holds one (a question in another language, or one about
    the whole row), the whole record is kept when it fits, else its lines are chosen as a table's rows are
    (``focus_table``, by meaning across languages).
    """
    label, *lines = text.split("\n")
    values, columns = _telling_scores(question, lines)
    for scores in (values, columns):
        if any(scores):
            # best by these words, then by the column's; a line without these words is left out
            kept = [score * 100 + column if score else 0 for score, column in zip(scores, columns, strict=True)]
            return _best_lines([], [label], lines, max_chars, max_tokens, scores=kept, scored_only=True)
    if fits(text, max_chars, max_tokens):
        return text
    return _best_lines([], [label], lines, max_chars, max_tokens, scores=line_scores(question, lines, relevance))


def _telling_scores(question: str, lines: list[str]) -> tuple[list[int], list[int]]:
    """For each "column: value" line, how many of ``question``'s content words that at most half of ``lines`` hold
    its value holds, and its column name."""
    wanted = content_tokens(question)
    parts = [line.partition(": ") if ": " in line else ("", "", line) for line in lines]
    in_values = [wanted & content_tokens(value) for _column, _sep, value in parts]
    in_columns = [wanted & content_tokens(column) for column, _sep, _value in parts]
    counts = Counter(word for value, column in zip(in_values, in_columns, strict=True) for word in value | column)
    telling = {word for word, count in counts.items() if count * 2 <= len(lines)}
    return [len(words & telling) for words in in_values], [len(words & telling) for words in in_columns]


def line_scores(question: str, lines: Sequence[str], relevance: SentenceRelevance | None = None) -> list[float]:
    """How much each line (a sentence, a table row) is about ``question``: how many of its content words (or
    character bigrams) the line holds; for a question in another language than the lines, which share no word with
    it, the embedding model's cosine (``relevance``), when given: asked in English what to hand over with a product
    holding OSS, the pamphlet's section kept its first sentences, and not
    "…OSSの名称やバージョン、ライセンスの情報など…"."""
    if relevance is not None and lines and script_language(question) != script_language("\n".join(lines)):
        return [float(cosine) for cosine in relevance(question, list(lines))]
    wanted = content_tokens(question)
    return [float(len(wanted & content_tokens(line))) for line in lines]


def _best_lines(
    caption: list[str],
    header: list[str],
    rows: list[str],
    max_chars: int,
    max_tokens: int | None,
    *,
    scores: Sequence[float],
    scored_only: bool = False,
) -> str:
    """``header`` and the best-scoring ``rows`` that fit, in their order, "…" where rows were left out; ``caption``
    above them when it fits too. ``scored_only``: rows scoring 0 are left out even when they fit."""

    def render(chosen: list[int], with_caption: bool) -> str:
        body: list[str] = []
        for position, i in enumerate(chosen):  # rows in order, an ellipsis wherever rows were skipped
            if (position == 0 and i > 0) or (position > 0 and i > chosen[position - 1] + 1):
                body.append(ELLIPSIS)
            body.append(rows[i])
        if chosen and chosen[-1] < len(rows) - 1:
            body.append(ELLIPSIS)
        return "\n".join([*(caption if with_caption else []), *header, *body])

    chosen: list[int] = []
    for i in sorted(range(len(rows)), key=lambda i: (-scores[i], i)):
        if scored_only and scores[i] == 0:
            break
        candidate = sorted([*chosen, i])
        if fits(render(candidate, False), max_chars, max_tokens):
            chosen = candidate
    with_caption = bool(caption) and fits(render(chosen, True), max_chars, max_tokens)
    result = render(chosen, with_caption)
    return result if fits(result, max_chars, max_tokens) else _cut(result, max_chars, max_tokens)


def _cut(text: str, max_chars: int, max_tokens: int | None) -> str:
    end = min(len(text), max_chars - 1)
    while end > 0 and not fits(text[:end] + ELLIPSIS, max_chars, max_tokens):
        end -= max(1, end // 20)
    return text[: max(end, 0)].rstrip() + ELLIPSIS
