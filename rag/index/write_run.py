"""One write run's book-keeping and progress reporting, and what a run needs of the index it writes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from rag.index.manifest import Manifest
from rag.index.vector_store import ChromaStore
from rag.ingest.tokenization import Tokenizer
from rag.models.embedding import Embedder
from rag.records import FileOutcome, IndexProgress, IndexStage
from rag.settings import Settings


class IndexStores(Protocol):
    """What preparing and storing files needs of ``writer.Index`` (which imports the modules that use this)."""

    settings: Settings
    manifest: Manifest

    @property
    def vectors(self) -> ChromaStore: ...

    @property
    def tokenizer(self) -> Tokenizer: ...

    @property
    def embedder(self) -> Embedder: ...

    def _mark_dirty(self, dirty: bool) -> None: ...


class WriteRun:
    """Book-keeping of one write: outcomes, progress, and the one version the run bumps to."""

    def __init__(self, manifest: Manifest, total: int, progress: Callable[[IndexProgress], None] | None) -> None:
        self.manifest = manifest
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
            self._previous_ids[source] = self.manifest.chunk_ids_of(source)
        return self._previous_ids[source]

    def version(self, db) -> str:  # type: ignore[no-untyped-def]
        if not self._version:
            self._version = self.manifest.bump_version(db, "index", "")
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


class FilePace:
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
