"""Searching inside the sources a question spells out by what it asks of them, not by their names.

"In the 2023 OpenChain industry survey, what share of respondents said their company is publicly listed?" names the
survey, and the retriever looks inside it (``rag.retrieval.named_sources``). But every page of the survey is the
survey: its name tells none of them apart, and its words ("OpenChain", "2023", 業界調査) are on the title page, which
both retrievers put first. The page that answers ("あなたの組織(会社) は上場していますか … 45.9%") was 19th of the
survey's pages by meaning, and absent from keyword search. Inside a source spelled out, both retrievers score the
question without its name (``without_names``): "what share of respondents said their company is publicly listed?"
puts that page first. Elsewhere the whole question is searched as before.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from rag.index.keyword_index import KeywordIndex, KeywordScores


@dataclass(frozen=True, slots=True)
class InsideNamed:
    """The sources a question spells out, and what it asks of them (the question without their names)."""

    sources: dict[str, tuple[str, ...]]
    """Each source spelled out, with the question's words that name it."""
    asked: str
    asked_tokens: tuple[str, ...]
    held: np.ndarray
    """Over the keyword index's ids: the chunks of ``sources``."""
    rows: dict[str, int]

    def holds(self, chunk_id: str) -> bool:
        row = self.rows.get(chunk_id)
        return row is not None and bool(self.held[row])

    def keyword_scores(self, keyword: KeywordIndex) -> KeywordScores:
        """BM25 scores of what the question asks, over the spelled-out sources' chunks only."""
        return keyword.score(list(self.asked_tokens), allowed=self.held)

    def keyword_hits(self, hits: Sequence[tuple[str, float]], inside: KeywordScores, k: int) -> list[tuple[str, float]]:
        """``hits`` with the spelled-out sources' chunks scored by what is asked of them, best first."""
        outside = [(cid, score) for cid, score in hits if not self.holds(cid)]
        return sorted([*outside, *inside.top(k)], key=lambda hit: -hit[1])[:k]

    def bm25_of(self, whole: KeywordScores, inside: KeywordScores) -> Callable[[Sequence[str]], dict[str, float]]:
        """BM25 scores of candidates by the whole question, or by what is asked for those inside."""

        def of(ids: Sequence[str]) -> dict[str, float]:
            return {
                **whole.of([cid for cid in ids if not self.holds(cid)]),
                **inside.of([c for c in ids if self.holds(c)]),
            }

        return of

    def dense_hits(
        self,
        hits: Sequence[tuple[str, float]],
        others: Collection[str],
        vector: np.ndarray,
        embeddings_of: Callable[[Sequence[str]], dict[str, np.ndarray]],
    ) -> list[tuple[str, float]]:
        """``hits`` with every candidate inside (among them and ``others``, the keyword candidates) scored by
        ``vector``, the embedding of what is asked, best first."""
        inside = [cid for cid in dict.fromkeys([*(cid for cid, _ in hits), *others]) if self.holds(cid)]
        found = dict(hits)
        found.update({cid: float(embedding @ vector) for cid, embedding in embeddings_of(inside).items()})
        return sorted(found.items(), key=lambda item: -item[1])
