"""How the writer stores prepared files (``writer.Index`` runs these inside its lock, steps 2 to 4 of its write
order): small files pooled in one group, a big file in parts; and how a failed file is recorded.

A file in parts. A file with more chunks than ``settings.index_slice_chunks`` (a 150 MB text file has ~250,000)
is read, embedded and committed one slice at a time, so memory holds one slice, never the file: steps 2 and 3
per slice, where the slice's transaction adds its chunk rows (the first slice of a fresh start also drops the
source's old rows), records the source as ``partial`` with the chunks committed so far and the resume point
(chunks read, in reading order; meta ``partial_key``); a last transaction marks it ``indexed``; then its Chroma
ids the manifest no longer lists (the old version's) are deleted. What a crash leaves is the committed slices,
searchable and in agreement in all three stores after recovery; the next run resumes after them when the file
is unchanged (the skipped chunks are read again, not embedded, so ids and order are those of a run from the
start) and starts the file again when it changed. While a big file is re-indexed, search sees its new slices as
they are committed, not its old version. Near-duplicates are removed within each slice (exact repeats across
the whole file are removed by the chunker).
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from rag.index.file_preparation import unreadable_message
from rag.index.manifest import ChunkRow, SourceRow, partial_key
from rag.index.near_duplicates import drop_near_duplicates
from rag.index.write_run import FilePace, IndexStores, WriteRun
from rag.ingest.chunking import embedded_text
from rag.ingest.discovery import SourceFile
from rag.ingest.prepare import READING_VERSION, PreparedFile, tokens_of
from rag.models.embedding import Embedder
from rag.records import Chunk, FileOutcome

log = logging.getLogger("rag.index.writer")  # one logger for all an index run logs


def write_group(index: IndexStores, run: WriteRun, embedder: Embedder, group: list[PreparedFile]) -> None:
    """Embed the new chunks of several files (in slices, with progress), store them in Chroma in one call, then
    switch each file over in its own manifest transaction (a crash between leaves only orphans, removed on
    recovery)."""
    new_chunks = [
        c for p in group for c in p.chunks if not p.previous or c.chunk_id not in run.previous_ids(p.file.source)
    ]
    vectors = _embed_in_slices(index, run, embedder, [embedded_text(c) for c in new_chunks], group[-1].file.source)
    by_id = {c.chunk_id: vectors[i] for i, c in enumerate(new_chunks)}
    switches = [_plan_switch(index, run, prepared, by_id) for prepared in group]
    if not run.changed:
        index._mark_dirty(True)
    # fresh chunks, and kept ones whose chunk_index may have shifted (their metadata is refreshed)
    stored = [c for switch in switches for c in switch.chunks]
    if stored:
        index.vectors.upsert(stored, np.stack([v for switch in switches for v in switch.vectors]))
    for switch in switches:
        _commit_switch(index, run, switch)


def _embed_in_slices(
    index: IndexStores, run: WriteRun, embedder: Embedder, texts: list[str], source: str
) -> np.ndarray:
    """Embed in slices, reporting progress after each: a big file's embedding takes minutes, not a moment."""
    if not texts:
        return np.zeros((0, 1))
    parts = []
    size = index.settings.index_slice_chunks
    for start in range(0, len(texts), size):
        run.report("embedding", f"{source} ({start}/{len(texts)} chunks)" if len(texts) > size else source)
        parts.append(embedder.embed_passages(texts[start : start + size]))
        run.embedded += len(parts[-1])
    return np.vstack(parts)


def write_in_parts(index: IndexStores, run: WriteRun, embedder: Embedder, prepared: PreparedFile) -> None:
    """Embed and commit one big file slice by slice (the module docstring's "A file in parts")."""
    source = prepared.file.source
    read = prepared.resume_at  # chunks read so far in reading order: the resume point
    stored = index.manifest.chunk_count_of(source) if prepared.resume_at else 0
    fresh = not prepared.resume_at
    dropped, languages = 0, Counter[str]()
    chunks, tokens = list(prepared.chunks), prepared.tokens
    more = prepared.more if prepared.more is not None else iter(())
    pace = FilePace(prepared.fraction_read())
    while chunks:
        read += len(chunks)
        deduplicated, kept_tokens, vectors, n_dropped = _embed_slice(index, run, embedder, chunks, tokens)
        kept = [replace(c, chunk_index=stored + i) for i, c in enumerate(deduplicated)]
        if not run.changed:
            index._mark_dirty(True)
        index.vectors.upsert(kept, vectors)
        dropped += n_dropped
        languages.update(c.language for c in kept if c.language)
        with index.manifest.transaction() as db:
            version = run.version(db)
            if fresh:  # the old version, or the parts of an interrupted run over other content
                index.manifest.delete_source(db, source)
            index.manifest.add_chunks(db, source, [ChunkRow(c, t) for c, t in zip(kept, kept_tokens)])
            stored += len(kept)
            row = _source_row(prepared, stored, languages, version, prepared.doc.warnings, status="partial")
            index.manifest.put_source(db, row)
            index.manifest.set_meta(db, partial_key(source), str(read))
            index.manifest.set_meta(db, "embedding_model", embedder.fingerprint)
        fresh = False
        read_share = prepared.fraction_read()
        run.report("embedding", f"{source} ({stored:,} chunks committed, {read_share:.0%} read)",
                   eta_s=pace.eta_s(read_share))  # fmt: skip
        try:
            chunks = list(itertools.islice(more, index.settings.index_slice_chunks))
        except Exception as err:  # the same bulkhead as prepare_or_fail: the committed slices stay, marked partial
            log.exception("Reading %s failed unexpectedly", prepared.file.path)
            record_failure(index, run, prepared.file, FileOutcome(source, "failed", error=unreadable_message(err)))
            run.finish_file(FileOutcome(source, "failed", error=unreadable_message(err)))
            return
        tokens = tokens_of(chunks, index.tokenizer)
    if prepared.finished_doc is not None:  # a streamed PDF's warnings and OCR'd pages are known now
        prepared = replace(prepared, doc=prepared.finished_doc())
    note = f"{dropped} near-duplicate passage(s) stored once (compared within slices of {len(prepared.chunks)})"
    warnings = prepared.doc.warnings + ((note,) if dropped else ())
    with index.manifest.transaction() as db:
        version = run.version(db)
        index.manifest.put_source(db, _source_row(prepared, stored, languages, version, warnings))
        index.manifest.delete_meta(db, partial_key(source))
    index.vectors.delete(index.vectors.ids_of_source(source) - set(index.manifest.chunk_ids_of(source)))
    updated = prepared.previous is not None and prepared.previous.status == "indexed"
    run.finish_file(FileOutcome(source, "updated" if updated else "indexed", chunks=stored, warnings=warnings,
                                ocr_pages=prepared.doc.ocr_pages))  # fmt: skip


def _embed_slice(
    index: IndexStores, run: WriteRun, embedder: Embedder, chunks: list[Chunk], tokens: Sequence[tuple[str, ...]]
) -> tuple[tuple[Chunk, ...], tuple[tuple[str, ...], ...], np.ndarray, int]:
    """One slice's vectors (those Chroma already holds for the same ids are reused), near-duplicates dropped."""
    vectors = index.vectors.embeddings_of([c.chunk_id for c in chunks])
    new = [c for c in chunks if c.chunk_id not in vectors]
    if new:
        vectors.update(zip([c.chunk_id for c in new], embedder.embed_passages([embedded_text(c) for c in new])))
        run.embedded += len(new)
    kept, kept_tokens, dropped = drop_near_duplicates(chunks, tokens, vectors, index.settings.near_duplicate_cosine)
    return kept, kept_tokens, np.stack([vectors[c.chunk_id] for c in kept]), dropped


def _plan_switch(
    index: IndexStores, run: WriteRun, prepared: PreparedFile, new_vectors: dict[str, np.ndarray]
) -> _Switch:
    """What switching one file over writes: its chunks after near-duplicate removal, with their vectors."""
    old_ids = set(run.previous_ids(prepared.file.source))
    kept_vectors = index.vectors.embeddings_of([c.chunk_id for c in prepared.chunks if c.chunk_id in old_ids])
    own_ids = {c.chunk_id for c in prepared.chunks}
    vectors = {**kept_vectors, **{k: v for k, v in new_vectors.items() if k in own_ids}}
    chunks, tokens, dropped = drop_near_duplicates(
        prepared.chunks, prepared.tokens, vectors, index.settings.near_duplicate_cosine
    )
    chunks = tuple(replace(c, chunk_index=i) for i, c in enumerate(chunks))
    warnings = prepared.doc.warnings + ((f"{dropped} near-duplicate passage(s) stored once",) if dropped else ())
    return _Switch(prepared, chunks, tuple(tokens), tuple(vectors[c.chunk_id] for c in chunks), old_ids, warnings)


def _commit_switch(index: IndexStores, run: WriteRun, switch: _Switch) -> None:
    prepared, chunks = switch.prepared, switch.chunks
    source = prepared.file.source
    with index.manifest.transaction() as db:
        version = run.version(db)
        index.manifest.replace_chunks(db, source, [ChunkRow(c, t) for c, t in zip(chunks, switch.tokens)])
        languages = Counter(c.language for c in chunks if c.language)
        index.manifest.put_source(db, _source_row(prepared, len(chunks), languages, version, switch.warnings))
        index.manifest.delete_meta(db, partial_key(source))
        index.manifest.set_meta(db, "embedding_model", index.embedder.fingerprint)
    index.vectors.delete(switch.old_ids - {c.chunk_id for c in chunks})
    updated = prepared.previous is not None and prepared.previous.status == "indexed"
    outcome = FileOutcome(source, "updated" if updated else "indexed", chunks=len(chunks), warnings=switch.warnings,
                          ocr_pages=prepared.doc.ocr_pages)  # fmt: skip
    run.finish_file(outcome)


def record_failure(index: IndexStores, run: WriteRun, file: SourceFile, outcome: FileOutcome) -> None:
    """A failed file keeps whatever was indexed before (nothing is lost); the error is recorded."""
    previous = index.manifest.source(file.source)
    with index.manifest.transaction() as db:
        version = run.version(db)
        if previous and previous.status in ("indexed", "partial"):
            row = replace(previous, error=outcome.error, index_version=version)
        else:
            row = SourceRow(file.source, str(file.path), file.rel_path, "", 0, 0.0, "", 0, 0, "failed",
                            outcome.error, outcome.warnings, "", "", version)  # fmt: skip
        index.manifest.put_source(db, row)


@dataclass(frozen=True, slots=True)
class _Switch:
    """One file's switch-over, planned before the group's vectors are stored."""

    prepared: PreparedFile
    chunks: tuple[Chunk, ...]
    tokens: tuple[tuple[str, ...], ...]
    vectors: tuple[np.ndarray, ...]
    old_ids: set[str]
    warnings: tuple[str, ...]


def _source_row(
    prepared: PreparedFile,
    chunks: int,
    languages: Counter[str],
    version: str,
    warnings: tuple[str, ...],
    status: str = "indexed",
) -> SourceRow:
    language = max(languages, key=lambda lang: (languages[lang], lang)) if languages else ""
    return SourceRow(
        source=prepared.file.source, path=str(prepared.file.path), rel_path=prepared.file.rel_path,
        doc_type=prepared.doc_type, size=prepared.size, mtime=prepared.mtime, hash=prepared.digest,
        pages=prepared.doc.total_pages, chunks=chunks, status=status, error="", warnings=warnings,
        date=prepared.doc.date, language=language, index_version=version, ocr_pages=prepared.doc.ocr_pages,
        reading=READING_VERSION,
    )  # fmt: skip
