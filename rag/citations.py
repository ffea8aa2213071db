"""Citations that are true to the document: every quote shown is verbatim text of the cited chunk.

An answer cites numbered passages as ``[n]``. Markers that name no passage are dropped. For each valid ``n``
the quote is chosen in code: the chunk sentence(s) that best match the answer sentences citing ``[n]``. A quote
the model wrote itself (``「...」 [n]`` or ``"..." [n]``) is kept only when it is found verbatim in the chunk;
otherwise it is snapped to the chunk's best-matching sentence, or dropped — never shown as if verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.faithfulness import content_tokens, markers_of, sentence_spans, similarity, split_sentences, support
from rag.records import Chunk, Citation

QUOTE_MAX_CHARS = 240
ATTRIBUTION_THRESHOLD = 0.75
"""Share of an uncited sentence's content tokens a passage must hold to be attached as its source."""
JOIN_MIN_GAIN = 0.2
SNAP_MIN_SIMILARITY = 0.3
"""A model-written quote is snapped to a chunk sentence only when they overlap at least this much."""

_FULLWIDTH_MARKER = re.compile(r"[［【]\s*([0-9０-９]+)\s*[］】]")
_LIST_MARKER = re.compile(r"\[\s*(\d+(?:\s*[,、，]\s*\d+)+)\s*\]")
_ANY_MARKER = re.compile(r"\[(\d+)\]")
_PLACEHOLDER = re.compile(r"\[(?:番号|数字|n|N|number|num)\]")  # the prompt's pattern copied instead of a number
_QUOTED = re.compile(r"[「『“\"]([^」』”\"]{8,400})[」』”\"]\s*((?:\[\d+\])+)")


@dataclass(frozen=True, slots=True)
class Passage:
    """One numbered passage of the context the model sees.

    Attributes:
        n: the number the answer cites it by (1-based).
        chunk: the chunk the passage is built from; quotes are verified against ``chunk.text``.
        text: what the model sees (the chunk text, possibly with neighbouring text, possibly trimmed).
        score: the hit's score (for ordering and display).
    """

    n: int
    chunk: Chunk
    text: str
    score: float = 0.0

    @property
    def label(self) -> str:
        """``source, p. N`` (or just the source for formats without pages)."""
        return f"{self.chunk.source}, p. {self.chunk.page}" if self.chunk.page else self.chunk.source


def normalize_markers(text: str) -> str:
    """Rewrite ``［1］``/``【1】`` and ``[1, 2]`` as ``[1]`` and ``[1][2]`` so every later step sees one form."""
    text = _FULLWIDTH_MARKER.sub(lambda m: f"[{int(m.group(1))}]", text)
    return _LIST_MARKER.sub(lambda m: "".join(f"[{n}]" for n in re.split(r"\D+", m.group(1)) if n), text)


def drop_invalid_markers(text: str, count: int) -> tuple[str, list[int]]:
    """Remove markers that name no passage (``[0]``, ``[7]`` of 3, a copied placeholder such as ``[番号]``).

    Returns:
        The cleaned text and the numbers that were dropped (in order of appearance).
    """
    dropped: list[int] = []

    def keep_or_drop(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if 1 <= n <= count:
            return match.group()
        dropped.append(n)
        return ""

    cleaned = _ANY_MARKER.sub(keep_or_drop, _PLACEHOLDER.sub("", normalize_markers(text)))
    return re.sub(r"[ \t]+([。、.,!?])", r"\1", cleaned), dropped


def locate_verbatim(quote: str, text: str) -> str | None:
    """The exact span of ``text`` that ``quote`` reproduces, ignoring differences in whitespace.

    Returns:
        A substring of ``text`` (so it is verbatim by construction), or None when the quote is not in it.
    """
    quote = quote.strip()
    if not quote:
        return None
    if quote in text:
        return quote
    words = quote.split()
    pattern = r"\s*".join(re.escape(w) for w in words) if len(words) > 1 else re.escape(quote)
    match = re.search(pattern, text)
    return match.group() if match else None


def best_sentences(reference: str, text: str, *, max_chars: int = QUOTE_MAX_CHARS) -> str:
    """The sentence of ``text`` that best supports ``reference``, joined with its best neighbour when it fits.

    Returns:
        A verbatim substring of ``text`` of at most ``max_chars`` characters ("" when ``text`` is empty).
    """
    sentences = [s for s in split_sentences(text) if locate_verbatim(s, text)]
    if not sentences:
        return _clip(text.strip(), max_chars)
    scores = [support(reference, s) + 0.25 * similarity(reference, s) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    quote = sentences[best]
    base = support(reference, quote)
    for j in sorted((best + 1, best - 1), key=lambda k: -scores[k] if 0 <= k < len(sentences) else 1.0):
        if not 0 <= j < len(sentences) or scores[j] <= 0:
            continue
        first, second = (quote, sentences[j]) if j > best else (sentences[j], quote)
        start, end = text.find(first), text.find(second)
        joined = text[start : end + len(second)] if 0 <= start < end else ""
        # a neighbour joins only when it covers much of the reference that the best sentence leaves out
        if joined and len(joined) <= max_chars and support(reference, joined) >= base + JOIN_MIN_GAIN:
            quote = joined
        break
    return _clip(quote, max_chars)


def verify_quote(quote: str, text: str, *, max_chars: int = QUOTE_MAX_CHARS) -> str | None:
    """A verbatim version of a model-written ``quote`` of ``text``: as is, snapped to a sentence, or None.

    Returns:
        The quote when found verbatim (clipped), else the best-matching sentence of ``text`` when it overlaps
        the quote by at least ``SNAP_MIN_SIMILARITY``, else None (the quote must be dropped).
    """
    found = locate_verbatim(quote, text)
    if found:
        return _clip(found, max_chars)
    snapped = best_sentences(quote, text, max_chars=max_chars)
    return snapped if snapped and similarity(quote, snapped) >= SNAP_MIN_SIMILARITY else None


def cite(answer: str, passages: Sequence[Passage]) -> tuple[Citation, ...]:
    """Citations for every valid ``[n]`` in ``answer``, each quoting verbatim text of passage ``n``'s chunk.

    Args:
        answer: answer text whose invalid markers were already dropped.
        passages: the numbered passages the answer was written from.

    Returns:
        One citation per cited passage, in order of first citation.
    """
    by_n = {p.n: p for p in passages}
    claims: dict[int, list[str]] = {}
    for sentence in split_sentences(answer):
        for n in markers_of(sentence):
            if n in by_n:
                claims.setdefault(n, []).append(_ANY_MARKER.sub("", sentence))
    model_quotes: dict[int, str] = {}
    for match in _QUOTED.finditer(answer):
        for n in markers_of(match.group(2)):
            model_quotes.setdefault(n, match.group(1))
    citations: list[Citation] = []
    for n, sentences in claims.items():
        chunk = by_n[n].chunk
        quote = None
        if n in model_quotes:
            quote = verify_quote(model_quotes[n], chunk.text)
        if quote is None:
            quote = best_sentences(" ".join(sentences), chunk.text)
        if quote:
            citations.append(Citation(n, chunk.source, chunk.page, quote, chunk.chunk_id))
    return tuple(citations)


def attribute_uncited(answer: str, question: str, passages: Sequence[Passage]) -> str:
    """Add ``[n]`` to each sentence of an answer the model left without markers, where a passage supports it.

    Small models often answer "1954年" or a bare sentence without citing. Each sentence gets the passage with the
    highest :func:`support` when that reaches ``ATTRIBUTION_THRESHOLD`` (stricter than the faithfulness check,
    since the model did not choose this passage). A short answer (under three content tokens: a name, a number)
    is judged together with the question, and its own tokens must all be in the passage. Sentences no passage
    supports stay unmarked, so the faithfulness check still flags them.

    Returns:
        The answer with markers placed before each supported sentence's closing punctuation.
    """
    if not passages:
        return answer
    marked: list[str] = []
    cursor = 0
    for start, end in _closed_sentence_spans(answer):
        sentence = answer[start:end]
        short = len(content_tokens(sentence)) < 3
        claim = f"{question} {sentence}" if short else sentence
        best = max(passages, key=lambda p: (support(claim, p.text), -p.n))  # ties: the better-ranked passage
        if support(claim, best.text) >= ATTRIBUTION_THRESHOLD and (not short or support(sentence, best.text) == 1.0):
            at = end - 1 if sentence[-1] in "。．.！？!?" else end  # the marker goes before the closing punctuation
            marked.append(answer[cursor:at] + f"[{best.n}]")
            cursor = at
        marked.append(answer[cursor:end])
        cursor = end
    return "".join(marked) + answer[cursor:]


def _closed_sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text``, a sentence ending inside brackets or quotes joined with what closes them.

    ``（That's a balk!）`` is one sentence here, so a marker never lands between the "!" and the bracket.
    """
    spans: list[tuple[int, int]] = []
    open_start: int | None = None
    end = 0
    for start, end in sentence_spans(text):
        first = start if open_start is None else open_start
        if _unclosed(text[first:end]):
            open_start = first
            continue
        spans.append((first, end))
        open_start = None
    if open_start is not None:
        spans.append((open_start, end))
    return spans


def _unclosed(text: str) -> bool:
    """Whether ``text`` opens a bracket or quotation it does not close."""
    pairs = (("「", "」"), ("『", "』"), ("（", "）"), ("(", ")"), ("“", "”"), ("【", "】"))
    return any(text.count(a) > text.count(b) for a, b in pairs) or text.count('"') % 2 == 1


def passage_citation(passage: Passage, reference: str) -> Citation:
    """A citation of ``passage`` quoting its sentence that best matches ``reference`` (e.g. the question)."""
    chunk = passage.chunk
    return Citation(passage.n, chunk.source, chunk.page, best_sentences(reference, chunk.text), chunk.chunk_id)


def _clip(text: str, max_chars: int) -> str:
    """A prefix of ``text`` of at most ``max_chars`` characters, cut at a word boundary for Latin text."""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ")
    return cut[:space].rstrip() if space > max_chars // 2 else cut
