"""Example libraries: the records nearest a text, with their shown fields, for few-shot prompts.

A library is a base built from JSONL records (``rag.ingest.parsing.records``): each record's embedded fields,
compacted, are one chunk, and its shown fields ride along whole in the chunk's metadata (``RECORD_SHOWN``).
``similar_records`` searches record chunks only and returns each record once (a record longer than a chunk is
split, and its best part stands for it).

How a text is matched (``SimilarMode``):

- ``passage``: the text is embedded as the records were (the model's passage prompt) and compared by cosine:
  record to record, like to like;
- ``query``: the text is embedded as a question (the query prompt), as ``search`` does;
- ``hybrid``: ``search``'s dense + BM25 fusion (query prompt).

``DEFAULT_SIMILAR_MODE`` is the one that found the right record most often on ``bench/similar.py``'s set (600
generated positions, half Japanese, half English; multilingual-e5-small; 100 queries per kind), hit@1:

=========  =======  =====  ======
query      passage  query  hybrid
=========  =======  =====  ======
dropped    0.98     0.97   1.00
altered    0.76     0.83   0.94
=========  =======  =====  ======

(``dropped``: one feature left out, the rest reordered; ``altered``: one feature's value changed.) The shared
names and values (戦型, 四間飛車, "Opening", "Ruy Lopez") are what BM25 adds to the embedding's sense of the whole.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from rag.errors import EmptyIndexError
from rag.index.writer import Index
from rag.ingest.parsing.records import RECORD_NO, RECORD_SHOWN, stored_metadata_key
from rag.records import Chunk, SimilarRecord
from rag.retrieval.hybrid import HybridRetriever
from rag.settings import Settings

SimilarMode = Literal["passage", "query", "hybrid"]
SIMILAR_MODES: tuple[SimilarMode, ...] = ("passage", "query", "hybrid")
DEFAULT_SIMILAR_MODE: SimilarMode = "hybrid"
OVERFETCH = 4  # candidates per record asked for: parts of one record and non-record chunks are dropped


def similar_records(
    index: Index,
    retriever: HybridRetriever,
    settings: Settings,
    text: str,
    *,
    top_k: int | None = None,
    mode: SimilarMode = DEFAULT_SIMILAR_MODE,
) -> list[SimilarRecord]:
    """The ``top_k`` records nearest ``text``, best first, each once, with score and shown fields.

    Raises:
        ValueError: empty text, ``top_k`` < 1 or an unknown mode (the message names the allowed ones).
        EmptyIndexError: nothing is indexed.
    """
    top_k = settings.top_k if top_k is None else top_k
    if not text.strip():
        raise ValueError("The text is empty; give the record text (features) to find similar records for.")
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1, got {top_k}")
    if mode not in SIMILAR_MODES:
        raise ValueError(f"mode={mode!r}; allowed: {', '.join(SIMILAR_MODES)}")
    fetch = top_k * OVERFETCH
    if mode == "hybrid":
        scored = [(h.chunk, h.score) for h in retriever.search(text, top_k=fetch, rerank=False)]
    else:
        scored = _dense(index, text, fetch, passage=mode == "passage")
    records: list[SimilarRecord] = []
    seen: set[tuple[str, Any]] = set()
    for chunk, score in scored:
        key = (chunk.source, chunk.extra.get(RECORD_NO))
        if chunk.chunk_type != "record" or key in seen:
            continue
        seen.add(key)
        records.append(_record(len(records) + 1, chunk, score, settings))
        if len(records) == top_k:
            break
    return records


def _dense(index: Index, text: str, k: int, *, passage: bool) -> list[tuple[Chunk, float]]:
    if index.manifest.chunk_count() == 0:
        raise EmptyIndexError("Nothing is indexed yet. Build the library with `python -m rag index RECORDS.jsonl`.")
    embedder = index.embedder
    vector = (embedder.embed_passages if passage else embedder.embed_queries)([text])[0]
    found = index.vectors.query(vector, k)
    chunks = index.manifest.chunks_by_id([cid for cid, _ in found])
    return [(chunks[cid], score) for cid, score in found if cid in chunks]  # readers trust only manifest rows


def _record(rank: int, chunk: Chunk, score: float, settings: Settings) -> SimilarRecord:
    extra = chunk.extra
    shown = json.loads(str(extra[RECORD_SHOWN])) if extra.get(RECORD_SHOWN) else {}
    keys = [stored_metadata_key(field) for field in settings.json_metadata_fields]
    metadata = {key: extra[key] for key in keys if key in extra}
    number = extra.get(RECORD_NO)
    record_no = int(number) if isinstance(number, int | str) and str(number).isdigit() else 0
    return SimilarRecord(rank, float(score), chunk.source, record_no, chunk.text, shown, metadata, chunk.chunk_id)
