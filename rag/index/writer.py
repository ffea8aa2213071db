"""The index: manifest (truth) + Chroma (dense) + BM25 (keyword), kept in agreement.

Write order for one source, chosen so a crash (even ``kill -9``) at any point leaves a state readers accept
and the next run completes:

1. mark the index dirty (manifest meta);
2. upsert the source's new embeddings into Chroma (not yet visible: readers trust only manifest rows);
3. one SQLite transaction replaces the source's chunk rows and its source row (the switch-over);
4. delete the source's old, no longer listed ids from Chroma;
5. after the run: rebuild BM25 from the manifest's tokens, tagged with the index version, and clear dirty.

A run that finds the index dirty first deletes Chroma ids the manifest does not list (orphans of a crash) and
rebuilds BM25. One writer at a time across processes (a lock file); readers never wait.

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
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np
from filelock import FileLock, Timeout

from rag.errors import IndexBusyError, IndexError_, ModelMismatchError, SourceNotFoundError
from rag.index.catalog import ChunkCatalog
from rag.index.keyword_index import KeywordIndex
from rag.index.manifest import ChunkRow, Manifest, SourceRow, partial_key
from rag.index.near_duplicates import drop_near_duplicates
from rag.index.same_content import note_same_content
from rag.index.vector_store import ChromaStore
from rag.ingest.discovery import Discovery, SourceFile, discover, nfc
from rag.ingest.prepare import PreparedFile, prepare_file, tokens_of
from rag.ingest.tokenization import Tokenizer, make_tokenizer
from rag.models.embedding import Embedder
from rag.records import (
    Chunk,
    ConsistencyReport,
    FileOutcome,
    IndexProgress,
    IndexReport,
    IndexStage,
    IndexStats,
    SourceStats,
)
from rag.settings import Settings

log = logging.getLogger(__name__)

EMBED_GROUP_CHUNKS = 256  # small files are pooled until this many chunks share one embedding call
WRITER_LOCK_TIMEOUT_S = 600.0


class Index:
    """Owns the three stores of one storage folder and every write to them."""

    def __init__(self, settings: Settings, embedder_factory: Callable[[], Embedder]) -> None:
        self.settings = settings
        self._embedder_factory = embedder_factory
        settings.storage.mkdir(parents=True, exist_ok=True)
        self.manifest = Manifest(settings.storage / "manifest.sqlite3")
        self.catalog = ChunkCatalog(self.manifest)
        self.uploads_dir = settings.storage / "uploads"
        self._thread_lock = threading.RLock()
        self._file_lock = FileLock(str(settings.storage / "writer.lock"))
        self._keyword: KeywordIndex | None = None
        self._keyword_lock = threading.Lock()

    @cached_property
    def vectors(self) -> ChromaStore:
        return ChromaStore(self.settings, owner=self.manifest.index_id())

    @cached_property
    def tokenizer(self) -> Tokenizer:
        return make_tokenizer(self.settings.bm25_tokenizer)

    @property
    def embedder(self) -> Embedder:
        return self._embedder_factory()

    def close(self) -> None:
        """Close the vector store if it was opened (before the storage folder is moved or deleted)."""
        if "vectors" in vars(self):
            self.vectors.close()
            del self.vectors

    # ---- the writer --------------------------------------------------------------------------------------

    @contextmanager
    def writer(self, *, wait_s: float = WRITER_LOCK_TIMEOUT_S) -> Iterator[None]:
        """Exclusive write access across threads and processes; recovers a crashed run first.

        Args:
            wait_s: how long to wait for another writer to finish; 0 does not wait at all.

        Raises:
            IndexBusyError: another writer still held the lock after ``wait_s``.
        """
        busy = IndexBusyError(
            f"Another process has been writing to {self.settings.storage} for over {wait_s:.0f} s. "
            "Wait for it to finish, then try again."
        )
        if not self._thread_lock.acquire(timeout=wait_s if wait_s > 0 else 0.0):
            raise busy
        try:
            try:
                self._file_lock.acquire(timeout=wait_s)
            except Timeout as err:
                raise busy from err
            try:
                if self.manifest.get_meta("dirty") == "1":
                    self._recover()
                yield
            finally:
                self._file_lock.release()
        finally:
            self._thread_lock.release()

    def _mark_dirty(self, dirty: bool) -> None:
        with self.manifest.transaction() as db:
            self.manifest.set_meta(db, "dirty", "1" if dirty else "0")

    def _recover(self) -> None:
        log.warning("Previous write was interrupted; removing its leftovers and rebuilding the keyword index")
        orphans = self.vectors.all_ids() - self.manifest.all_chunk_ids()
        self.vectors.delete(orphans)
        self._rebuild_keyword()
        self._mark_dirty(False)

    def check_model(self, embedder: Embedder) -> None:
        """Refuse an embedder whose fingerprint (model + back end + precision) is not the one the index was built with.

        Raises:
            ModelMismatchError: the fingerprints differ; the message names both and the command that re-embeds.
        """
        built_with = self.manifest.get_meta("embedding_model")
        if built_with and built_with != embedder.fingerprint:
            raise ModelMismatchError(
                f"The index in {self.settings.storage} was built with {built_with}, but the configured embedding "
                f"(model + back end + precision) is {embedder.fingerprint}. Re-embed the stored chunks with it: "
                "`python -m rag check --reembed` (no file is read again); or set RAG_EMBEDDING_MODEL, "
                "RAG_EMBEDDING_BACKEND and RAG_EMBEDDING_PRECISION back; or point RAG_STORAGE_DIR at a new folder "
                "to build a separate index."
            )

    # ---- indexing ----------------------------------------------------------------------------------------

    def index_paths(
        self,
        paths: Sequence[Path],
        *,
        progress: Callable[[IndexProgress], None] | None = None,
        root: Path | None = None,
    ) -> IndexReport:
        return self.index_found(discover(list(paths), root), progress=progress)

    def index_found(
        self,
        found: Discovery,
        *,
        progress: Callable[[IndexProgress], None] | None = None,
        retire: Sequence[str] = (),
    ) -> IndexReport:
        """Index files already discovered (``index_paths`` after ``discover``), in one writer run.

        Args:
            found: the files, the folders walked (their vanished files' sources are removed) and missing paths.
            progress: called after each file and each embedding batch.
            retire: further sources to remove in the same run (``rag.index.sync``: a live file no longer live).
        """
        run = _Run(self, len(found.files), progress)
        for missing in found.missing:
            run.outcomes.append(FileOutcome(nfc(missing), "failed", error=f"No such file or folder: {missing}"))
        if not found.files and not found.folders and not retire:
            return IndexReport(tuple(run.outcomes), 0, self.manifest.index_version)
        embedder = self.embedder
        with self.writer():
            self.check_model(embedder)
            pending: list[PreparedFile] = []
            for file in found.files:
                run.report("parsing", file.source)
                result = self._prepare(file)
                if isinstance(result, FileOutcome):
                    run.finish_file(result)
                    if result.status == "failed":
                        self._record_failure(run, file, result)
                    continue
                if result.in_parts:
                    if pending:
                        self._write_group(run, embedder, pending)
                        pending = []
                    self._write_in_parts(run, embedder, result)
                    continue
                pending.append(result)
                if sum(len(p.chunks) for p in pending) >= EMBED_GROUP_CHUNKS:
                    self._write_group(run, embedder, pending)
                    pending = []
            if pending:
                self._write_group(run, embedder, pending)
            vanished = self._vanished_sources(found.folders, {f.source for f in found.files})
            vanished += [s for s in retire if s not in vanished and self.manifest.source(s) is not None]
            if vanished:
                run.removed = vanished
                self._delete_sources(run, vanished, "files no longer in the indexed folder")
            if run.changed:
                run.report("finishing", "")
                self._rebuild_keyword()
                self._mark_dirty(False)
        outcomes = note_same_content(run.outcomes, self.manifest)
        return IndexReport(outcomes, run.embedded, self.manifest.index_version, tuple(run.removed))

    def reindex(
        self, sources: Sequence[str] | None = None, *, progress: Callable[[IndexProgress], None] | None = None
    ) -> IndexReport:
        rows = self.manifest.all_sources()
        if sources is not None:
            self._require_known(sources)
            rows = [r for r in rows if r.source in set(sources)]
        report = IndexReport((), 0, self.manifest.index_version)
        for root_key, group in _group_by_root(rows).items():
            part = self.index_paths([Path(r.path) for r in group], progress=progress, root=root_key)
            report = IndexReport(report.files + part.files, report.embedded + part.embedded, part.index_version)
        return report

    def _prepare(self, file: SourceFile) -> PreparedFile | FileOutcome:
        """``prepare_file`` behind a bulkhead: whatever one file makes a reader raise becomes that file's outcome.

        Parsers are third-party code fed untrusted files: a RecursionError from deep nesting, lxml's limits, a
        MemoryError are not ours to predict one by one, and one such file must not cost the batch its report.
        The traceback goes to the log (for a bug report), the person gets what happened and what to do.
        """
        previous = self.manifest.source(file.source)
        committed = int(self.manifest.get_meta(partial_key(file.source)) or 0) if previous else 0
        try:
            return prepare_file(file, previous, self.settings, self.tokenizer, committed_chunks=committed)
        except Exception as err:  # the bulkhead: recorded as this file's failure, logged in full
            log.exception("Reading %s failed unexpectedly", file.path)
            return FileOutcome(file.source, "failed", error=unreadable_message(err))

    def remove_sources(self, sources: Sequence[str], *, confirmed_by: str = "") -> int:
        keys = [nfc(s) for s in sources]
        with self.writer():
            self._require_known(keys)
            run = _Run(self, 0, None)
            removed = self._delete_sources(run, keys, f"deletion confirmed {confirmed_by}" if confirmed_by else "")
            self._rebuild_keyword()
            self._mark_dirty(False)
        return removed

    def _require_known(self, sources: Sequence[str]) -> None:
        unknown = [s for s in sources if self.manifest.source(nfc(s)) is None]
        if unknown:
            raise SourceNotFoundError(
                f"Not indexed: {', '.join(unknown)}. Run `python -m rag stats` to see the indexed sources."
            )

    def _write_group(self, run: _Run, embedder: Embedder, group: list[PreparedFile]) -> None:
        """Embed the new chunks of several files (in slices, with progress), store them in Chroma in one call, then
        switch each file over in its own manifest transaction (a crash between leaves only orphans, removed on
        recovery)."""
        new_chunks = [
            c for p in group for c in p.chunks if not p.previous or c.chunk_id not in run.previous_ids(p.file.source)
        ]
        vectors = self._embed(run, embedder, [c.text for c in new_chunks], group[-1].file.source)
        by_id = {c.chunk_id: vectors[i] for i, c in enumerate(new_chunks)}
        switches = [self._plan_switch(run, prepared, by_id) for prepared in group]
        if not run.changed:
            self._mark_dirty(True)
        # fresh chunks, and kept ones whose chunk_index may have shifted (their metadata is refreshed)
        stored = [c for switch in switches for c in switch.chunks]
        if stored:
            self.vectors.upsert(stored, np.stack([v for switch in switches for v in switch.vectors]))
        for switch in switches:
            self._commit_switch(run, switch)

    def _embed(self, run: _Run, embedder: Embedder, texts: list[str], source: str) -> np.ndarray:
        """Embed in slices, reporting progress after each: a big file's embedding takes minutes, not a moment."""
        if not texts:
            return np.zeros((0, 1))
        parts = []
        size = self.settings.index_slice_chunks
        for start in range(0, len(texts), size):
            run.report("embedding", f"{source} ({start}/{len(texts)} chunks)" if len(texts) > size else source)
            parts.append(embedder.embed_passages(texts[start : start + size]))
            run.embedded += len(parts[-1])
        return np.vstack(parts)

    def _write_in_parts(self, run: _Run, embedder: Embedder, prepared: PreparedFile) -> None:
        """Embed and commit one big file slice by slice (the module docstring's "A file in parts")."""
        source = prepared.file.source
        read = prepared.resume_at  # chunks read so far in reading order: the resume point
        stored = self.manifest.chunk_count_of(source) if prepared.resume_at else 0
        fresh = not prepared.resume_at
        dropped, languages = 0, Counter[str]()
        chunks, tokens = list(prepared.chunks), prepared.tokens
        more = prepared.more if prepared.more is not None else iter(())
        pace = _FilePace(prepared.fraction_read())
        while chunks:
            read += len(chunks)
            deduplicated, kept_tokens, vectors, n_dropped = self._embed_slice(run, embedder, chunks, tokens)
            kept = [replace(c, chunk_index=stored + i) for i, c in enumerate(deduplicated)]
            if not run.changed:
                self._mark_dirty(True)
            self.vectors.upsert(kept, vectors)
            dropped += n_dropped
            languages.update(c.language for c in kept if c.language)
            with self.manifest.transaction() as db:
                version = run.version(db)
                if fresh:  # the old version, or the parts of an interrupted run over other content
                    self.manifest.delete_source(db, source)
                self.manifest.add_chunks(db, source, [ChunkRow(c, t) for c, t in zip(kept, kept_tokens)])
                stored += len(kept)
                row = _source_row(prepared, stored, languages, version, prepared.doc.warnings, status="partial")
                self.manifest.put_source(db, row)
                self.manifest.set_meta(db, partial_key(source), str(read))
                self.manifest.set_meta(db, "embedding_model", embedder.fingerprint)
            fresh = False
            read_share = prepared.fraction_read()
            run.report("embedding", f"{source} ({stored:,} chunks committed, {read_share:.0%} read)",
                       eta_s=pace.eta_s(read_share))  # fmt: skip
            try:
                chunks = list(itertools.islice(more, self.settings.index_slice_chunks))
            except Exception as err:  # the same bulkhead as _prepare: the committed slices stay, marked partial
                log.exception("Reading %s failed unexpectedly", prepared.file.path)
                self._record_failure(run, prepared.file, FileOutcome(source, "failed", error=unreadable_message(err)))
                run.finish_file(FileOutcome(source, "failed", error=unreadable_message(err)))
                return
            tokens = tokens_of(chunks, self.tokenizer)
        if prepared.finished_doc is not None:  # a streamed PDF's warnings and OCR'd pages are known now
            prepared = replace(prepared, doc=prepared.finished_doc())
        note = f"{dropped} near-duplicate passage(s) stored once (compared within slices of {len(prepared.chunks)})"
        warnings = prepared.doc.warnings + ((note,) if dropped else ())
        with self.manifest.transaction() as db:
            version = run.version(db)
            self.manifest.put_source(db, _source_row(prepared, stored, languages, version, warnings))
            self.manifest.delete_meta(db, partial_key(source))
        self.vectors.delete(self.vectors.ids_of_source(source) - set(self.manifest.chunk_ids_of(source)))
        updated = prepared.previous is not None and prepared.previous.status == "indexed"
        run.finish_file(FileOutcome(source, "updated" if updated else "indexed", chunks=stored, warnings=warnings,
                                    ocr_pages=prepared.doc.ocr_pages))  # fmt: skip

    def _embed_slice(
        self, run: _Run, embedder: Embedder, chunks: list[Chunk], tokens: Sequence[tuple[str, ...]]
    ) -> tuple[tuple[Chunk, ...], tuple[tuple[str, ...], ...], np.ndarray, int]:
        """One slice's vectors (those Chroma already holds for the same ids are reused), near-duplicates dropped."""
        vectors = self.vectors.embeddings_of([c.chunk_id for c in chunks])
        new = [c for c in chunks if c.chunk_id not in vectors]
        if new:
            vectors.update(zip([c.chunk_id for c in new], embedder.embed_passages([c.text for c in new])))
            run.embedded += len(new)
        kept, kept_tokens, dropped = drop_near_duplicates(chunks, tokens, vectors, self.settings.near_duplicate_cosine)
        return kept, kept_tokens, np.stack([vectors[c.chunk_id] for c in kept]), dropped

    def _plan_switch(self, run: _Run, prepared: PreparedFile, new_vectors: dict[str, np.ndarray]) -> _Switch:
        """What switching one file over writes: its chunks after near-duplicate removal, with their vectors."""
        old_ids = set(run.previous_ids(prepared.file.source))
        kept_vectors = self.vectors.embeddings_of([c.chunk_id for c in prepared.chunks if c.chunk_id in old_ids])
        own_ids = {c.chunk_id for c in prepared.chunks}
        vectors = {**kept_vectors, **{k: v for k, v in new_vectors.items() if k in own_ids}}
        chunks, tokens, dropped = drop_near_duplicates(
            prepared.chunks, prepared.tokens, vectors, self.settings.near_duplicate_cosine
        )
        chunks = tuple(replace(c, chunk_index=i) for i, c in enumerate(chunks))
        warnings = prepared.doc.warnings + ((f"{dropped} near-duplicate passage(s) stored once",) if dropped else ())
        return _Switch(prepared, chunks, tuple(tokens), tuple(vectors[c.chunk_id] for c in chunks), old_ids, warnings)

    def _commit_switch(self, run: _Run, switch: _Switch) -> None:
        prepared, chunks = switch.prepared, switch.chunks
        source = prepared.file.source
        with self.manifest.transaction() as db:
            version = run.version(db)
            self.manifest.replace_chunks(db, source, [ChunkRow(c, t) for c, t in zip(chunks, switch.tokens)])
            languages = Counter(c.language for c in chunks if c.language)
            self.manifest.put_source(db, _source_row(prepared, len(chunks), languages, version, switch.warnings))
            self.manifest.delete_meta(db, partial_key(source))
            self.manifest.set_meta(db, "embedding_model", self.embedder.fingerprint)
        self.vectors.delete(switch.old_ids - {c.chunk_id for c in chunks})
        updated = prepared.previous is not None and prepared.previous.status == "indexed"
        outcome = FileOutcome(source, "updated" if updated else "indexed", chunks=len(chunks), warnings=switch.warnings,
                              ocr_pages=prepared.doc.ocr_pages)  # fmt: skip
        run.finish_file(outcome)

    def _record_failure(self, run: _Run, file: SourceFile, outcome: FileOutcome) -> None:
        """A failed file keeps whatever was indexed before (nothing is lost); the error is recorded."""
        previous = self.manifest.source(file.source)
        with self.manifest.transaction() as db:
            version = run.version(db)
            if previous and previous.status in ("indexed", "partial"):
                row = replace(previous, error=outcome.error, index_version=version)
            else:
                row = SourceRow(file.source, str(file.path), file.rel_path, "", 0, 0.0, "", 0, 0, "failed",
                                outcome.error, outcome.warnings, "", "", version)  # fmt: skip
            self.manifest.put_source(db, row)

    def _vanished_sources(self, folders: Sequence[Path], seen: set[str]) -> list[str]:
        if not folders:  # only files were named: nothing to look for (and no stat of every indexed file)
            return []
        vanished = []
        for row in self.manifest.all_sources():
            if row.source in seen or Path(row.path).exists():
                continue
            if any(Path(row.path).is_relative_to(folder) for folder in folders):
                vanished.append(row.source)
        return vanished

    def _delete_sources(self, run: _Run, sources: Sequence[str], why: str) -> int:
        """Delete sources from all three stores; the version history records them and ``why``."""
        self._mark_dirty(True)
        removed: list[str] = []
        with self.manifest.transaction() as db:
            for source in sources:
                removed += self.manifest.delete_source(db, source)
            self.manifest.bump_version(db, "remove", f"{', '.join(sources)} ({why})" if why else ", ".join(sources))
        self.vectors.delete(removed)
        run.changed = True
        return len(removed)

    # ---- keyword index -----------------------------------------------------------------------------------

    def _rebuild_keyword(self) -> KeywordIndex:
        index = self._keyword_from_manifest()
        index.save(self.settings.storage / "bm25", version=self._keyword_stamp())
        with self._keyword_lock:
            self._keyword = index
        return index

    def _keyword_stamp(self) -> str:
        """What a saved BM25 index must match to be reused: the index version and the BM25 parameters."""
        return f"{self.manifest.index_version} k1={self.settings.bm25_k1:g} b={self.settings.bm25_b:g}"

    def keyword_index(self) -> KeywordIndex:
        """The BM25 index to search: the one matching the manifest's version, reloaded when another process
        rebuilt it. Readers never wait for a writer: while one is between its manifest commit and its BM25 rebuild,
        the previous BM25 is served (a hit it names that the manifest no longer lists is dropped by the reader).
        """
        stamp = self._keyword_stamp()
        with self._keyword_lock:
            current = self._keyword
        if current is not None and current.version == stamp:
            return current
        try:
            with self.writer(wait_s=0):
                served = self._load_keyword()
                if served is None or served.version != self._keyword_stamp():
                    served = self._rebuild_keyword()  # behind and nobody writing: a crash or new BM25 parameters
        except IndexBusyError:
            served = current or self._load_keyword() or self._keyword_from_manifest()
        with self._keyword_lock:
            self._keyword = served
        return served

    def _load_keyword(self) -> KeywordIndex | None:
        try:
            return KeywordIndex.load(self.settings.storage / "bm25")
        except (IndexError_, OSError, ValueError):  # missing or unreadable: rebuilt from the manifest instead
            return None

    def _keyword_from_manifest(self) -> KeywordIndex:
        """A BM25 index of what the manifest commits now, in memory only (no BM25 was saved yet to fall back on)."""
        ids, tokens = self.manifest.all_tokens()
        return KeywordIndex.build(ids, tokens, k1=self.settings.bm25_k1, b=self.settings.bm25_b)

    # ---- inspection --------------------------------------------------------------------------------------

    def stats(self) -> IndexStats:
        rows = self.manifest.all_sources()
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
            index_version=self.manifest.index_version,
            embedding_model=self.manifest.get_meta("embedding_model") or self.settings.embedding_model,
            per_source=per_source,
        )

    def check_consistency(self) -> ConsistencyReport:
        manifest_ids = self.manifest.all_chunk_ids()
        vector_ids = self.vectors.all_ids()
        keyword = self.keyword_index()
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
                                 keyword.version, self.manifest.index_version, message)  # fmt: skip

    def repair(self) -> ConsistencyReport:
        """Make Chroma and BM25 agree with the manifest (the truth): delete Chroma's orphans, embed the chunks it
        lacks from their stored text, rebuild BM25. Returns the consistency afterwards.

        Raises:
            IndexBusyError: another process is writing and did not finish within the lock timeout.
        """
        with self.writer():
            manifest_ids = self.manifest.all_chunk_ids()
            vector_ids = self.vectors.all_ids()
            self.vectors.delete(vector_ids - manifest_ids)
            missing = list(self.manifest.chunks_by_id(sorted(manifest_ids - vector_ids)).values())
            if missing:
                self.check_model(self.embedder)
                self.vectors.upsert(missing, self.embedder.embed_passages([c.text for c in missing]))
            self._rebuild_keyword()
        return self.check_consistency()


@dataclass(frozen=True, slots=True)
class _Switch:
    """One file's switch-over, planned before the group's vectors are stored."""

    prepared: PreparedFile
    chunks: tuple[Chunk, ...]
    tokens: tuple[tuple[str, ...], ...]
    vectors: tuple[np.ndarray, ...]
    old_ids: set[str]
    warnings: tuple[str, ...]


class _Run:
    """Book-keeping of one write: outcomes, progress, and the one version the run bumps to."""

    def __init__(self, index: Index, total: int, progress: Callable[[IndexProgress], None] | None) -> None:
        self.index = index
        self.total = total
        self.progress = progress
        self.outcomes: list[FileOutcome] = []
        self.embedded = 0
        self.changed = False
        self.removed: list[str] = []
        self.started = time.monotonic()
        self._version = ""
        self._previous_ids: dict[str, list[str]] = {}

    def previous_ids(self, source: str) -> list[str]:
        if source not in self._previous_ids:
            self._previous_ids[source] = self.index.manifest.chunk_ids_of(source)
        return self._previous_ids[source]

    def version(self, db) -> str:  # type: ignore[no-untyped-def]
        if not self._version:
            self._version = self.index.manifest.bump_version(db, "index", "")
        self.changed = True
        return self._version

    def finish_file(self, outcome: FileOutcome) -> None:
        self.outcomes.append(outcome)
        self.report("parsing", outcome.source)

    def report(self, stage: IndexStage, current: str, *, eta_s: float | None = None) -> None:
        """Tell the progress callback; the time left is ``eta_s`` when given (a file in parts knows better),
        else the files' average so far times the files left."""
        if self.progress is None:
            return
        done = len(self.outcomes)
        elapsed = time.monotonic() - self.started
        if eta_s is None and done:
            eta_s = elapsed / done * (self.total - done)
        self.progress(IndexProgress(done, self.total, current, stage, elapsed, eta_s, self.embedded))


class _FilePace:
    """Time left on one file committed in parts, from how fast its share read grows (a 30,000-record JSONL is one
    file: the files' average says nothing until it is done). A resumed file starts at the share already read."""

    def __init__(self, start_share: float) -> None:
        self._start_share = start_share
        self._started = time.monotonic()

    def eta_s(self, share: float) -> float | None:
        gained = share - self._start_share
        if gained <= 0:
            return None
        return (time.monotonic() - self._started) / gained * (1.0 - share)


def unreadable_message(err: Exception) -> str:
    """What a person reads when a file made its reader fail in a way the engine has no specific message for."""
    what = {
        RecursionError: "it is nested too deeply",
        MemoryError: "it needs more memory than this machine has free",
    }.get(type(err), f"the reader stopped ({type(err).__name__}: {str(err)[:160]})")
    return (
        f"Could not read this file: {what}. The other files were indexed. If it opens in its own application, "
        "save it again in a simpler form (PDF, plain text, or smaller parts) and index it again."
    )


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
    )  # fmt: skip


def _group_by_root(rows: Sequence[SourceRow]) -> dict[Path | None, list[SourceRow]]:
    """Re-index each source under the same name: find the root its name was made relative to."""
    groups: dict[Path | None, list[SourceRow]] = {}
    for row in rows:
        path = Path(row.path)
        depth = len(Path(row.source).parts)
        root = path.parents[depth - 1] if depth > 1 or row.source != path.name else None
        groups.setdefault(root, []).append(row)
    return groups
