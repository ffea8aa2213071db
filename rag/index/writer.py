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

Where the steps live: this module holds the lock, the recovery, the run over the files, deletions, the BM25 side
and the checks (their reports made in ``inspection``); ``file_preparation`` reads each file behind a bulkhead;
``file_commits`` stores prepared files (steps 2 to 4: small files pooled, a big file in parts, as its docstring
tells); ``write_run`` keeps one run's book-keeping and reports its progress.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path

from filelock import FileLock, Timeout

from rag.errors import IndexBusyError, IndexError_, ModelMismatchError, SourceNotFoundError
from rag.index.catalog import ChunkCatalog
from rag.index.file_commits import record_failure, write_group, write_in_parts
from rag.index.file_preparation import prepare_or_fail, unreadable_message
from rag.index.inspection import consistency_report, index_stats
from rag.index.keyword_index import KeywordIndex
from rag.index.manifest import Manifest, SourceRow
from rag.index.same_content import note_same_content
from rag.index.vector_store import ChromaStore
from rag.index.write_run import WriteRun
from rag.ingest.chunking import embedded_text
from rag.ingest.discovery import Discovery, discover, nfc
from rag.ingest.prepare import PreparedFile
from rag.ingest.tokenization import Tokenizer, make_tokenizer
from rag.models.embedding import Embedder
from rag.records import ConsistencyReport, FileOutcome, IndexProgress, IndexReport, IndexStats
from rag.settings import Settings

__all__ = ["EMBED_GROUP_CHUNKS", "WRITER_LOCK_TIMEOUT_S", "Index", "unreadable_message"]

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
        run = WriteRun(self.manifest, len(found.files), progress)
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
                result = prepare_or_fail(self, file)
                if isinstance(result, FileOutcome):
                    run.finish_file(result)
                    if result.status == "failed":
                        record_failure(self, run, file, result)
                    continue
                if result.in_parts:
                    if pending:
                        write_group(self, run, embedder, pending)
                        pending = []
                    write_in_parts(self, run, embedder, result)
                    continue
                pending.append(result)
                if sum(len(p.chunks) for p in pending) >= EMBED_GROUP_CHUNKS:
                    write_group(self, run, embedder, pending)
                    pending = []
            if pending:
                write_group(self, run, embedder, pending)
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

    def remove_sources(self, sources: Sequence[str], *, confirmed_by: str = "") -> int:
        keys = [nfc(s) for s in sources]
        with self.writer():
            self._require_known(keys)
            run = WriteRun(self.manifest, 0, None)
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

    def _delete_sources(self, run: WriteRun, sources: Sequence[str], why: str) -> int:
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
        return index_stats(self.manifest, self.settings.embedding_model)

    def check_consistency(self) -> ConsistencyReport:
        manifest_ids = self.manifest.all_chunk_ids()
        vector_ids = self.vectors.all_ids()
        keyword = self.keyword_index()
        return consistency_report(manifest_ids, vector_ids, keyword, self.manifest.index_version)

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
                self.vectors.upsert(missing, self.embedder.embed_passages([embedded_text(c) for c in missing]))
            self._rebuild_keyword()
        return self.check_consistency()


def _group_by_root(rows: Sequence[SourceRow]) -> dict[Path | None, list[SourceRow]]:
    """Re-index each source under the same name: find the root its name was made relative to."""
    groups: dict[Path | None, list[SourceRow]] = {}
    for row in rows:
        path = Path(row.path)
        depth = len(Path(row.source).parts)
        root = path.parents[depth - 1] if depth > 1 or row.source != path.name else None
        groups.setdefault(root, []).append(row)
    return groups
