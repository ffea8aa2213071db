"""Hybrid search: dense (Chroma) + BM25, fused (convex or weighted RRF), entity boost, cross-encoder, dedup, context.

Every stage's rank and score travels on the Hit so the search page can show why a result ranked where it did.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from rag.errors import EmptyIndexError, IndexError_
from rag.index.keyword_index import KeywordIndex, KeywordScores
from rag.index.writer import Index
from rag.ingest.metadata import detect_language, writes_japanese
from rag.ingest.tokenization import search_terms
from rag.records import Chunk, Hit, SearchFilters, StageScores
from rag.retrieval.filters import MetadataCache, chroma_where
from rag.retrieval.fusion import Fused, adaptive_weight, apply_rerank_thresholds, fuse_convex, fuse_rrf
from rag.retrieval.named_sources import (
    SourceNames,
    abbreviations,
    dated_names,
    designations,
    numbers,
)
from rag.retrieval.reordering import boost_entities, boost_named_sources, demote_index_pages
from rag.retrieval.reranker import Reranker, load_reranker
from rag.settings import Settings

log = logging.getLogger(__name__)

# A filtered dense search over-fetches unfiltered neighbours (this many times the expected number needed) and
# filters them itself while that means at most OVERFETCH_MAX neighbours; figures in bench/search.py.
OVERFETCH_MARGIN = 1.5
OVERFETCH_MAX = 1500
NAMED_SOURCES_SEARCHED = 2  # sources a question names that are searched on their own (the best named first)
NAMED_SOURCE_K = 5  # nearest chunks taken from each of them


@dataclass(frozen=True, slots=True)
class StageTimes:
    embed_ms: float = 0.0
    dense_ms: float = 0.0
    bm25_ms: float = 0.0
    fuse_ms: float = 0.0
    rerank_ms: float = 0.0


class HybridRetriever:
    """Search over one Index; thread-safe (the one per-query state, ``last_times``, is kept per thread)."""

    def __init__(
        self,
        index: Index,
        settings: Settings,
        reranker: Reranker | None = None,
        query_vector: Callable[[str], np.ndarray] | None = None,
    ) -> None:
        """``query_vector``: the index's embedding of a query, from a memo the answer's evidence shares (a question
        is searched and then read with its sentences); None embeds each query afresh."""
        self._index = index
        self._settings = settings
        self._query_vector = query_vector or (lambda query: index.embedder.embed_queries([query])[0])
        self._reranker = reranker
        self._reranker_loaded = reranker is not None
        self._metadata = MetadataCache(index.manifest)
        self._source_names = SourceNames(index.tokenizer.tokenize)
        self._times = threading.local()

    @property
    def last_times(self) -> StageTimes:
        """The stage times of this thread's last search (concurrent searches each see their own)."""
        times: StageTimes = getattr(self._times, "value", StageTimes())
        return times

    @property
    def reranker(self) -> Reranker | None:
        if not self._reranker_loaded:
            self._reranker = load_reranker(self._settings.reranker_model)
            self._reranker_loaded = True
        return self._reranker

    def search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        semantic_weight: float | None = None,
        filters: SearchFilters | None = None,
        rerank: bool | None = None,
        contextual: bool = False,
    ) -> list[Hit]:
        """Ranked hits for ``query``.

        Args:
            top_k: hits to return (settings.top_k by default).
            semantic_weight: 0 = BM25 only (no query embedding), 1 = dense only, else the share of dense in fusion.
            filters: metadata filters applied to both retrievers.
            rerank: None = use the cross-encoder when one is configured; False = never.
            contextual: attach the previous/next chunk text of each hit.

        Raises:
            ValueError: empty query, top_k < 1 or semantic_weight outside [0, 1].
            EmptyIndexError: nothing is indexed.
        """
        s = self._settings
        self._times.value = StageTimes()
        top_k = s.top_k if top_k is None else top_k
        weight = s.semantic_weight if semantic_weight is None else semantic_weight
        if not query.strip():
            raise ValueError("The query is empty; type a few words to search for.")
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"semantic_weight must be within [0, 1], got {weight}")
        if self._index.manifest.chunk_count() == 0:
            raise EmptyIndexError("Nothing is indexed yet. Upload documents or run `python -m rag index PATH`.")
        keyword = self._index.keyword_index()
        candidate_k = min(s.candidate_k_max, max(s.candidate_k_min, top_k * 8))
        mask = self._metadata.table(keyword.version, keyword.ids).mask(filters)
        if mask is not None and not mask.any():
            return []

        t0 = time.perf_counter()
        query_tokens = search_terms(self._index.tokenizer.tokenize(query))
        keyword_scores = keyword.score(query_tokens, allowed=mask) if weight < 1.0 else None
        keyword_hits = keyword_scores.top(candidate_k) if keyword_scores is not None else []
        t1 = time.perf_counter()
        dense_hits: list[tuple[str, float]] = []
        named: dict[str, float] = {}
        vector = None
        embed_ms = dense_ms = 0.0
        if weight > 0.0:
            self._index.check_model(self._index.embedder)  # query vectors from another embedding would not match
            vector = self._query_vector(query)
            t2 = time.perf_counter()
            dense_hits = self._dense(vector, candidate_k, filters, mask, keyword)
            if filters is None:
                named_by = [*query_tokens, *designations(query), *dated_names(query)]
                catalog = self._index.catalog
                named = self._source_names.named(
                    keyword.version, catalog.sources, named_by, catalog.titles, abbreviations(query), numbers(query)
                )
                dense_hits = self._with_named_sources(vector, dense_hits, named)
            embed_ms, dense_ms = (t2 - t1) * 1e3, (time.perf_counter() - t2) * 1e3
        t3 = time.perf_counter()
        weight = adaptive_weight(weight, query_tokens, keyword_hits)
        chunks = self._index.manifest.chunks_by_id(list(dict.fromkeys(cid for cid, _ in [*dense_hits, *keyword_hits])))
        unjudged = _other_language(query, dense_hits, chunks)
        fused = self._fuse(weight, vector, dense_hits, keyword_hits, keyword_scores, unjudged, _quotes_japanese(query))
        fused = [f for f in fused if f.chunk_id in chunks]  # readers trust only committed manifest rows
        fused = demote_index_pages(fused, chunks)
        fused = boost_entities(query, fused, chunks, s.entity_patterns)
        fused = boost_named_sources(fused, chunks, named)
        t4 = time.perf_counter()
        hits, rerank_ms = self._finish(query, fused, chunks, top_k, rerank)
        hits = _collapse_duplicates(hits, self._index, s.near_duplicate_cosine)[:top_k]
        stored_tokens = self._index.manifest.tokens_by_id([h.chunk.chunk_id for h in hits])
        hits = [
            replace(h, scores=replace(h.scores, final_rank=i), matched_terms=_matched(query_tokens, stored_tokens, h))
            for i, h in enumerate(hits, 1)
        ]
        if contextual:
            hits = [self._with_context(h) for h in hits]
        self._times.value = StageTimes(embed_ms, dense_ms, (t1 - t0) * 1e3, (t4 - t3) * 1e3, rerank_ms)
        return hits

    def _dense(
        self, vector: np.ndarray, k: int, filters: SearchFilters | None, mask: np.ndarray | None, keyword: KeywordIndex
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest chunks that pass the filters.

        A filter that keeps a fair share of the chunks is applied after an unfiltered HNSW search for enough
        extra neighbours: Chroma's own filtered search was 4-10 times slower at 139k chunks (``bench/search.py``).
        A narrow filter, or an over-fetch that came back short, goes to Chroma's ``where`` instead.
        """
        if mask is None or filters is None:
            return self._index.vectors.query(vector, k)
        rows = keyword.rows()
        passes = lambda cid: (row := rows.get(cid)) is not None and bool(mask[row])  # noqa: E731
        share = float(mask.mean())
        fetch = math.ceil(k / share * OVERFETCH_MARGIN) if share > 0 else OVERFETCH_MAX + 1
        if fetch <= OVERFETCH_MAX:
            found = self._index.vectors.query(vector, fetch)
            kept = [(cid, score) for cid, score in found if passes(cid)]
            if len(kept) >= k or len(found) < fetch:  # enough neighbours, or every chunk was seen
                return kept[:k]
        found = self._index.vectors.query(vector, k, where=chroma_where(filters))
        return [(cid, score) for cid, score in found if passes(cid)]  # entity lists Chroma cannot express

    def _with_named_sources(
        self, vector: np.ndarray, dense_hits: list[tuple[str, float]], named: dict[str, float]
    ) -> list[tuple[str, float]]:
        """``dense_hits`` with the nearest chunks inside each source the question names (a few each), best first."""
        found = dict(dense_hits)
        for source in sorted(named, key=lambda src: -named[src])[:NAMED_SOURCES_SEARCHED]:
            try:
                inside = self._index.vectors.query(vector, NAMED_SOURCE_K, where={"source": source})
            except IndexError_ as err:  # a busy store: the named source's passages are lifted if found anyway
                log.warning("Searching inside %s skipped: %s", source, err)
                continue
            for cid, score in inside:
                found.setdefault(cid, score)
        return sorted(found.items(), key=lambda item: -item[1])

    def _fuse(
        self,
        weight: float,
        vector: np.ndarray | None,
        dense_hits: list[tuple[str, float]],
        keyword_hits: list[tuple[str, float]],
        keyword_scores: KeywordScores | None,
        dense_only: Collection[str] = (),
        quoted_in_their_script: bool = False,
    ) -> list[Fused]:
        """Fuse as configured; convex fusion first gives every candidate the score of the retriever that missed it
        (and judges ``dense_only`` candidates, which keyword search cannot, by their dense score alone, or by the
        words the query writes in their script: ``fuse_convex``)."""
        s = self._settings
        if s.fusion != "convex":
            return fuse_rrf(dense_hits, keyword_hits, semantic_weight=weight, k=s.rrf_k)
        cosines: dict[str, float] = {}
        if vector is not None:
            returned = {cid for cid, _ in dense_hits}
            stored = self._index.vectors.embeddings_of([cid for cid, _ in keyword_hits if cid not in returned])
            cosines = {cid: float(embedding @ vector) for cid, embedding in stored.items()}
        bm25 = keyword_scores.of([cid for cid, _ in dense_hits]) if keyword_scores is not None else None
        return fuse_convex(
            dense_hits,
            keyword_hits,
            semantic_weight=weight,
            k=s.rrf_k,
            dense_extra=cosines,
            keyword_extra=bm25,
            dense_only=dense_only,
            quoted_in_their_script=quoted_in_their_script,
        )

    def _finish(
        self, query: str, fused: list[Fused], chunks: dict[str, Chunk], top_k: int, rerank: bool | None
    ) -> tuple[list[Hit], float]:
        reranker = self.reranker if rerank is not False else None
        pool = fused[: max(top_k * 3, self._settings.candidate_k_min)]
        if reranker is None or not pool:
            return [Hit(chunks[f.chunk_id], f.score, _scores(f)) for f in pool], 0.0
        started = time.perf_counter()
        n = min(self._settings.rerank_n_max, max(self._settings.rerank_n_min, top_k * 2))
        head = pool[:n]
        scores = dict(zip([f.chunk_id for f in head], reranker.score(query, [chunks[f.chunk_id].text for f in head])))
        passing = apply_rerank_thresholds(
            scores, absolute=self._settings.rerank_abs_threshold, gap=self._settings.rerank_gap_threshold
        )
        head = sorted((f for f in head if f.chunk_id in passing), key=lambda f: -scores[f.chunk_id])
        hits = [Hit(chunks[f.chunk_id], scores[f.chunk_id], replace(_scores(f), rerank_score=scores[f.chunk_id]))
                for f in head]  # fmt: skip
        return hits, (time.perf_counter() - started) * 1e3

    def _with_context(self, hit: Hit) -> Hit:
        around = self._index.catalog.neighbours(hit.chunk.chunk_id, 1)
        preceding = [c for c in around if c.chunk_index < hit.chunk.chunk_index]
        following = [c for c in around if c.chunk_index > hit.chunk.chunk_index]
        return replace(
            hit,
            context_before="\n".join(c.text for c in preceding),
            context_after="\n".join(c.text for c in following),
            following=following[0] if following else None,
            preceding=preceding[-1] if preceding else None,
        )


def _other_language(query: str, dense_hits: list[tuple[str, float]], chunks: dict[str, Chunk]) -> set[str]:
    """Dense candidates written in the other language than ``query`` (English against Japanese or the reverse).

    An English question about a Japanese spreadsheet shares no word with it: its BM25 zero says nothing about the
    chunk, and in convex fusion it would sink the chunk below any English passage with a chance word in common.
    """
    language = detect_language(query)
    other = {"en": "ja", "ja": "en"}.get(language)
    return {cid for cid, _ in dense_hits if (chunk := chunks.get(cid)) is not None and chunk.language == other}


def _quotes_japanese(query: str) -> bool:
    """Whether an English query writes a word in Japanese script ("who first used the term bunsetsu (文節)?"): the
    asker quotes the documents' own term. (Latin words in a Japanese query are ordinary Japanese writing: OSS,
    OpenChain, API names.)"""
    return detect_language(query) == "en" and writes_japanese(query)


def _matched(query_tokens: Sequence[str], stored: dict[str, frozenset[str]], hit: Hit) -> tuple[str, ...]:
    """The query's tokens that the hit's chunk contains, in query order (the chunk's tokens as indexed)."""
    chunk_tokens = stored.get(hit.chunk.chunk_id, frozenset())
    return tuple(dict.fromkeys(t for t in query_tokens if t in chunk_tokens))


def _scores(f: Fused) -> StageScores:
    return StageScores(f.dense_rank, f.dense_score, f.bm25_rank, f.bm25_score, f.rrf, fused_score=f.score)


def _collapse_duplicates(hits: list[Hit], index: Index, threshold: float) -> list[Hit]:
    """Hits with the same text, or near-identical embeddings, become one hit that lists all their sources."""
    if len(hits) < 2:
        return hits
    vectors = index.vectors.embeddings_of([h.chunk.chunk_id for h in hits])
    kept: list[Hit] = []
    for hit in hits:
        vector = vectors.get(hit.chunk.chunk_id)
        for i, other in enumerate(kept):
            same_text = hit.chunk.content_hash and hit.chunk.content_hash == other.chunk.content_hash
            other_vector = vectors.get(other.chunk.chunk_id)
            near = vector is not None and other_vector is not None and float(vector @ other_vector) >= threshold
            if same_text or near:
                if hit.chunk.source != other.chunk.source and hit.chunk.source not in other.also_sources:
                    kept[i] = replace(other, also_sources=other.also_sources + (hit.chunk.source,))
                break
        else:
            kept.append(hit)
    return kept
