"""Metadata filters for both retrievers.

Chroma gets a ``where`` clause for what it can express (source, doc type, language, date range); every filter,
entity lists included, is also checked against a per-version table of chunk metadata held in memory, which
gives BM25 its document mask and post-filters dense results.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from rag.index.manifest import Manifest
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


class MetadataTable:
    """Chunk metadata as columns aligned with a list of chunk ids (one version of the index).

    A column is read from the manifest the first time a filter needs it, so a search without filters costs
    nothing here and a filtered one holds only the fields it filters on (at 139k chunks, every field of every
    chunk held as Python objects took about 400 MB).
    """

    def __init__(self, ids: tuple[str, ...], manifest: Manifest) -> None:
        self.ids = ids
        self._manifest = manifest
        self._columns: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def column(self, field: str) -> np.ndarray:
        """The field's value for each id (``""``, or 0 for ``date_num``, where a chunk lacks it)."""
        with self._lock:
            if field in self._columns:
                return self._columns[field]
        missing: str | int = 0 if field == "date_num" else ""
        by_id = self._manifest.metadata_field(field)
        values = [by_id.get(cid, missing) for cid in self.ids]
        column = np.array(values, dtype=np.int64 if field == "date_num" else object)
        with self._lock:
            self._columns[field] = column
        return column

    def mask(self, filters: SearchFilters | None) -> np.ndarray | None:
        """Boolean mask over ``ids`` of the chunks that pass every filter (None: no filter)."""
        if filters is None or filters.is_empty():
            return None
        keep = np.ones(len(self.ids), dtype=bool)
        for field, values in (("source", filters.sources), ("doc_type", filters.doc_types),
                              ("language", filters.languages)):  # fmt: skip
            if values:
                keep &= np.isin(self.column(field), list(values))
        if filters.date_from:
            keep &= self.column("date_num") >= _date_num(filters.date_from)
        if filters.date_to:
            keep &= self.column("date_num") <= _date_num(filters.date_to)
        for field, value in filters.entities:
            keep &= np.array([value in str(v).split(",") for v in self.column(field)], dtype=bool)
        return keep


class MetadataCache:
    """Holds the MetadataTable of the current index version, for the id order of the current BM25 index."""

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest
        self._lock = threading.Lock()
        self._key: tuple[str, int] | None = None
        self._table: MetadataTable | None = None

    def table(self, version: str, ids: tuple[str, ...]) -> MetadataTable:
        key = (version, len(ids))
        with self._lock:
            if self._key != key or self._table is None:
                self._key, self._table = key, MetadataTable(ids, self._manifest)
            return self._table
