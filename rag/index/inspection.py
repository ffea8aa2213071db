"""What the index reports about itself: its totals and per-source rows, and whether its three stores agree."""

from __future__ import annotations

from rag.index.keyword_index import KeywordIndex
from rag.index.manifest import Manifest
from rag.records import ConsistencyReport, IndexStats, SourceStats


def index_stats(manifest: Manifest, configured_model: str) -> IndexStats:
    """Totals over the searchable sources and one row per source (failed ones too).

    Args:
        manifest: the index's manifest.
        configured_model: the model to name when the manifest records none yet (nothing embedded).
    """
    rows = manifest.all_sources()
    indexed = [r for r in rows if r.status in ("indexed", "partial")]  # a partial file's slices are searchable
    per_source = tuple(
        SourceStats(
            r.source,
            r.doc_type,
            r.pages,
            r.chunks,
            r.status,
            r.error,
            r.date,
            r.index_version,
            r.language,
            r.warnings,
            r.ocr_pages,
        )  # fmt: skip
        for r in rows
    )
    return IndexStats(
        sources=len(indexed),
        chunks=sum(r.chunks for r in indexed),
        pages=sum(r.pages for r in indexed),
        index_version=manifest.index_version,
        embedding_model=manifest.get_meta("embedding_model") or configured_model,
        per_source=per_source,
    )


def consistency_report(
    manifest_ids: set[str], vector_ids: set[str], keyword: KeywordIndex, manifest_version: str
) -> ConsistencyReport:
    """How the chunk ids of Chroma (``vector_ids``) and BM25 (``keyword``) differ from the manifest's."""
    keyword_ids = set(keyword.ids)
    missing = tuple(sorted(manifest_ids - vector_ids))
    orphans = tuple(sorted(vector_ids - manifest_ids))
    ok = not missing and not orphans and keyword_ids == manifest_ids
    message = (
        "Manifest, Chroma and BM25 agree."
        if ok
        else (
            f"{len(missing)} chunk(s) missing from Chroma, {len(orphans)} orphan(s) in Chroma, "
            f"{len(keyword_ids ^ manifest_ids)} BM25 difference(s). Run `python -m rag check --repair` to repair."
        )
    )
    return ConsistencyReport(ok, len(manifest_ids), len(vector_ids), len(keyword_ids), missing[:20], orphans[:20],
                             keyword.version, manifest_version, message)  # fmt: skip
