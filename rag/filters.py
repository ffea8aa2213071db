"""Metadata filters for both retrievers.

Chroma gets a ``where`` clause for what it can express (source, doc type, language, date range); every filter,
entity lists included, is also checked against a per-version table of chunk metadata held in memory, which
gives BM25 its document mask and post-filters dense results.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from rag.manifest import Manifest
from rag.records import SearchFilters


def chroma_where(filters: SearchFilters | None) -> dict[str, Any] | None:
    """The part of ``filters`` Chroma can apply itself, as a ``where`` clause (None when nothing to filter)."""
    if filters is None or filters.is_empty():
        return None
    clauses: list[dict[str, Any]] = []
    listed = (("source", filters.sources), ("doc_type", filters.doc_types), ("language", filters.languages))
    for field, values in listed:
        if values:
            clauses.append({field: {"$in": list(values)}})
    if filters.date_from:
        clauses.append({"date_num": {"$gte": _date_num(filters.date_from)}})
    if filters.date_to:
        clauses.append({"date_num": {"$lte": _date_num(filters.date_to)}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _date_num(iso: str) -> int:
    digits = iso.replace("-", "")[:8]
    if len(digits) != 8 or not digits.isdigit():
        raise ValueError(f"Dates must be ISO YYYY-MM-DD, got {iso!r}")
    return int(digits)


@dataclass(frozen=True, slots=True)
class MetadataTable:
    """Chunk metadata as columns aligned with a list of chunk ids (one version of the index)."""

    ids: tuple[str, ...]
    columns: dict[str, np.ndarray]

    def mask(self, filters: SearchFilters | None) -> np.ndarray | None:
        """Boolean mask over ``ids`` of the chunks that pass every filter (None: no filter)."""
        if filters is None or filters.is_empty():
            return None
        keep = np.ones(len(self.ids), dtype=bool)
        for field, values in (("source", filters.sources), ("doc_type", filters.doc_types),
                              ("language", filters.languages)):  # fmt: skip
            if values:
                keep &= np.isin(self.columns[field], list(values))
        dates = self.columns["date_num"]
        if filters.date_from:
            keep &= dates >= _date_num(filters.date_from)
        if filters.date_to:
            keep &= dates <= _date_num(filters.date_to)
        for field, value in filters.entities:
            listed = self.columns.get(field)
            if listed is None:
                return np.zeros(len(self.ids), dtype=bool)
            keep &= np.array([value in str(v).split(",") for v in listed], dtype=bool)
        return keep


class MetadataCache:
    """Builds the MetadataTable once per index version, for the id order of the current BM25 index."""

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest
        self._lock = threading.Lock()
        self._key: tuple[str, int] | None = None
        self._table: MetadataTable | None = None

    def table(self, version: str, ids: tuple[str, ...]) -> MetadataTable:
        key = (version, len(ids))
        with self._lock:
            if self._key == key and self._table is not None:
                return self._table
        by_id = dict(self._manifest.all_metadata())
        fields = {"source", "doc_type", "language", "date_num"} | {k for m in by_id.values() for k in m}
        columns: dict[str, np.ndarray] = {}
        for field in fields:
            missing = 0 if field == "date_num" else ""
            values = [by_id.get(cid, {}).get(field, missing) for cid in ids]
            columns[field] = np.array(values, dtype=np.int64 if field == "date_num" else object)
        table = MetadataTable(ids, columns)
        with self._lock:
            self._key, self._table = key, table
        return table
