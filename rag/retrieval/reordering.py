"""Reorderings of the fused candidates by what a candidate is and what the question names, applied by
``rag.retrieval.hybrid`` after fusion in this order: a table of contents or an index page counts for less
(``demote_index_pages``), chunks listing an entity the question names come first (``boost_entities``), and a file
the question names is lifted by its share of the name (``boost_named_sources``, the share from
``rag.retrieval.named_sources``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from rag.records import Chunk
from rag.retrieval.fusion import Fused
from rag.retrieval.named_sources import NAME_BOOST

ENTITY_BOOST = 1.0
"""Boosts are in units of the best fused score, whatever the fusion: a chunk listing the named entity gains one unit,
so it outranks every chunk that does not."""
DEFINITION_BOOST = 0.5
"""What a chunk that defines the entity (in its section title or at a line start) gains beyond ``ENTITY_BOOST``."""
UNNAMED_BEST_PLACE = 1
"""Place (from 0) that the best candidate before the lift for named sources keeps at least when its source is not
named (``boost_named_sources``): second, so the first two passages, all the embedded model's context may hold, read
the named source and the best answer by meaning. On the realdocs golden sets it put the answer in the context of 3
more of 140 answerable questions and took it out of none."""


def boost_named_sources(fused: list[Fused], chunks: dict[str, Chunk], named: dict[str, float]) -> list[Fused]:
    """Candidates from a source the question names (``rag.retrieval.named_sources``) lifted by ``NAME_BOOST``.

    A question that names two or more sources in full asks about each: "did the author of 『OpenChain仕様書詳細解説』
    attend the 2018年6月13日 meeting?" needs the commentary and the minutes. The best candidate of each such source
    comes first (in score order), so the answer reads both; lifted alike, the commentary's passages filled the
    context.

    A name may only set the scene: "The OSS compliance pamphlet encourages giving bug fixes back… Do most OSS
    licences actually require you to hand modified source code back?" is answered by the licence FAQ, the best
    candidate before the lift, which every page of the pamphlet passed. The best candidate of a source not named
    keeps place ``UNNAMED_BEST_PLACE`` at least, behind the named source's best, so the context reads both."""
    if not named or not fused:
        return fused
    lifted = [replace(f, score=f.score + NAME_BOOST * named.get(chunks[f.chunk_id].source, 0.0)) for f in fused]
    lifted.sort(key=lambda f: -f.score)
    best = fused[0].chunk_id
    if chunks[best].source not in named and all(f.chunk_id != best for f in lifted[: UNNAMED_BEST_PLACE + 1]):
        kept = next(f for f in lifted if f.chunk_id == best)
        rest = [f for f in lifted if f is not kept]
        lifted = [*rest[:UNNAMED_BEST_PLACE], kept, *rest[UNNAMED_BEST_PLACE:]]
    in_full = {source for source, share in named.items() if share >= 1.0}
    if len(in_full) < 2:
        return lifted
    firsts: dict[str, Fused] = {}
    for f in lifted:
        source = chunks[f.chunk_id].source
        if source in in_full:
            firsts.setdefault(source, f)
    leading = list(firsts.values())
    return [*leading, *(f for f in lifted if f not in leading)]


INDEX_PAGE_LEADER_SHARE = 0.2
"""Share of a chunk's characters in dot leaders (". . . . 38") above which it is a table of contents or an index."""
INDEX_PAGE_WEIGHT = 0.5
"""What a table of contents or an index page keeps of its fused score (``demote_index_pages``)."""
_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|・{4,}")


def is_index_page(text: str) -> bool:
    """Whether ``text`` is a table of contents or an index: dot leaders make more than ``INDEX_PAGE_LEADER_SHARE``
    of it ("\\uptexversion . . . . . . . . 38")."""
    leaders = sum(len(found.group()) for found in _LEADER.finditer(text))
    return leaders > INDEX_PAGE_LEADER_SHARE * len(text)


def demote_index_pages(fused: list[Fused], chunks: dict[str, Chunk]) -> list[Fused]:
    """Candidates that are tables of contents or index pages (``is_index_page``) at ``INDEX_PAGE_WEIGHT`` of their
    score. They list every topic's name and answer no question, and their embeddings sit near every question's: asked
    in Japanese why Edison's patent uses platinum leading-wires, four of five passages were the pTeX manual's index
    and the model read no page of the patent."""
    index_pages = {f.chunk_id for f in fused if is_index_page(chunks[f.chunk_id].text)}
    if not index_pages:
        return fused
    weighed = [replace(f, score=f.score * INDEX_PAGE_WEIGHT) if f.chunk_id in index_pages else f for f in fused]
    return sorted(weighed, key=lambda f: -f.score)


def boost_entities(query: str, fused: list[Fused], chunks: dict[str, Chunk], patterns: dict[str, str]) -> list[Fused]:
    """Chunks that list an entity the query names come first; those that define it before those that mention it."""
    named = {field: set(re.findall(p, query)) for field, p in patterns.items()}
    named = {field: found for field, found in named.items() if found}
    if not named or not fused:
        return fused
    unit = max(f.score for f in fused)

    def boost(f: Fused) -> float:
        chunk = chunks[f.chunk_id]
        extra = 0.0
        for field, entities in named.items():
            listed = set(str(chunk.extra.get(field, "")).split(","))
            for entity in entities & listed:
                extra += ENTITY_BOOST
                at_line_start = re.search(rf"^\W*{re.escape(entity)}(?![A-Za-z0-9_])", chunk.text[:200], re.M)
                if entity in chunk.section or at_line_start:
                    extra += DEFINITION_BOOST
        return extra

    boosted = [replace(f, score=f.score + unit * boost(f)) for f in fused]
    return sorted(boosted, key=lambda f: -f.score)
