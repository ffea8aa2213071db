"""Citations that are true to the document: every quote shown is verbatim text of the cited chunk.

An answer cites numbered passages as ``[n]``. Markers that name no passage are dropped (``drop_invalid_markers``).
Quotes are chosen in code, never taken from the model: ``rag.answers.verification`` quotes the sentence that supports
each claim; ``best_sentences`` finds a chunk's sentence that best matches a text, and ``verify_quote`` turns a quote
someone else wrote (a quiz item's) into a verbatim one or rejects it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.answers.fact_matching import fact_found
from rag.answers.facts import facts_of, plain_text
from rag.answers.faithfulness import sentence_spans, similarity, split_sentences, support
from rag.records import Chunk, Citation

QUOTE_MAX_CHARS = 240
ATTRIBUTION_THRESHOLD = 0.75
"""Share of a claim's content tokens a passage the model did not cite must hold to be attached as its source."""
JOIN_MIN_GAIN = 0.2
SNAP_MIN_SIMILARITY = 0.3
"""A model-written quote is snapped to a chunk sentence only when they overlap at least this much."""

_FULLWIDTH_MARKER = re.compile(r"[［【]\s*([0-9０-９]+)\s*[］】]")
_LIST_MARKER = re.compile(r"\[\s*(\d+(?:\s*[,、，]\s*\d+)+)\s*\]")
_ANY_MARKER = re.compile(r"\[(\d+)\]")
_CLAUSE_START = re.compile(r"[,;:]\s+|[、，；：]")
_PLACEHOLDER = re.compile(r"\[(?:番号|数字|n|N|number|num)\]")  # the prompt's pattern copied instead of a number


@dataclass(frozen=True, slots=True)
class Passage:
    """One numbered passage of the context the model sees.

    Attributes:
        n: the number the answer cites it by (1-based).
        chunk: the chunk the passage is built from; quotes are verified against ``chunk.text``.
        text: what the model sees (the chunk text, possibly with neighbouring text, possibly trimmed).
        score: the hit's score (for ordering and display).
        around: the neighbouring chunks whose text ``text`` shows beside the chunk's: a claim drawn from them is
            checked against them, and its citation quotes the neighbour (its own page).
    """

    n: int
    chunk: Chunk
    text: str
    score: float = 0.0
    around: tuple[Chunk, ...] = ()

    @property
    def read(self) -> tuple[Chunk, ...]:
        """The chunks whose text the passage shows: its own first, then the neighbours it was widened with."""
        return (self.chunk, *self.around)

    def quoting(self, quote: str) -> Chunk:
        """The chunk of the passage whose text holds ``quote`` (its own when none does)."""
        return next((chunk for chunk in self.read if quote in chunk.text), self.chunk)

    def cite(self, quote: str) -> Citation:
        """A citation of the passage quoting ``quote``, with the source, page and id of the chunk that holds it."""
        chunk = self.quoting(quote)
        return Citation(self.n, chunk.source, chunk.page, quote, chunk.chunk_id)

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
        return clip_quote(text.strip(), max_chars)
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
    return clip_quote(quote, max_chars)


def verify_quote(quote: str, text: str, *, max_chars: int = QUOTE_MAX_CHARS) -> str | None:
    """A verbatim version of a model-written ``quote`` of ``text``: as is, snapped to a sentence, or None.

    Returns:
        The quote when found verbatim (clipped), else the best-matching sentence of ``text`` when it overlaps
        the quote by at least ``SNAP_MIN_SIMILARITY``, else None (the quote must be dropped).
    """
    found = locate_verbatim(quote, text)
    if found:
        return clip_quote(found, max_chars)
    snapped = best_sentences(quote, text, max_chars=max_chars)
    return snapped if snapped and similarity(quote, snapped) >= SNAP_MIN_SIMILARITY else None


def closed_sentence_spans(text: str) -> list[tuple[int, int]]:
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
    return passage.cite(best_sentences(reference, passage.chunk.text))


def clip_quote_for(claim: str, text: str, max_chars: int = QUOTE_MAX_CHARS) -> str:
    """The part of ``text`` (a claim's evidence) to quote for ``claim``: all of it when it fits, else the run of at
    most ``max_chars`` from one of its sentence or clause starts that holds most of the claim's facts, then of its
    words; a run of up to twice ``max_chars`` when no shorter one holds every fact ``text`` does.

    A quote clipped from the front alone can stop just before the command or number the claim is about; a bill's
    appropriation is one sentence of 800 characters, its amount and the program it funds in the middle.
    """
    if len(text) <= max_chars:
        return text
    starts = sorted(
        {0} | {start for start, _end in sentence_spans(text)} | {m.end() for m in _CLAUSE_START.finditer(text)}
    )
    stated = facts_of(claim)

    def holds(candidate: str) -> tuple[int, float]:
        found = facts_of(candidate)
        plain = plain_text(candidate)
        return sum(fact_found(fact, found, plain) for fact in stated), support(claim, candidate)

    everything = holds(text)[0]
    for limit in (max_chars, 2 * max_chars):
        best = max((clip_quote(text[start:], limit) for start in starts), key=holds)
        if holds(best)[0] >= everything:
            break
    return best


def clip_quote(text: str, max_chars: int = QUOTE_MAX_CHARS) -> str:
    """A prefix of ``text`` of at most ``max_chars`` characters, cut at a word boundary for Latin text."""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ")
    return cut[:space].rstrip() if space > max_chars // 2 else cut
