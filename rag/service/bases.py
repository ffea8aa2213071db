"""The facade's knowledge bases (each its own index, settings and engine) and their backups to one archive file."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from rag.records import DEFAULT_BASE, BackupReport, Hit, KnowledgeBase
from rag.service.part import FacadePart
from rag.settings import Settings

if TYPE_CHECKING:
    from rag.index.base_engines import BaseEngines
    from rag.models.embedding import Embedder
    from rag.quiz.store import QuizStore


class BasesFacade(FacadePart):
    """``RagService``'s knowledge bases and backups; the storage's own service (``_root``) holds every base's engine."""

    if TYPE_CHECKING:  # provided by RagService

        @property
        def quizzes(self) -> QuizStore: ...

        @property
        def embedder(self) -> Embedder: ...

        _root: Self
        _lock: threading.RLock
        _embedder: Embedder | None
        _base_engines: BaseEngines[Self] | None
        _bases_lock: threading.Lock

        def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None) -> None: ...

        def _search(self, query: str, bases: Sequence[str], options: dict[str, Any]) -> list[Hit]: ...

    def export_base(self, path: str | Path) -> BackupReport:
        """Write the index (manifest rows, vectors, BM25 tokens, the settings that shaped it) and the quiz sets to one
        archive file, for ``import_base`` on another machine. Indexing waits meanwhile; searches do not.

        Raises:
            BackupError: Chroma lacks vectors the manifest lists (run ``check --repair``), or the file cannot be
                written.
        """
        from rag.index.backup import export_base

        return export_base(self.index, self.quizzes.directory, Path(path))

    def import_base(self, path: str | Path) -> BackupReport:
        """Restore an archive made by ``export_base`` into this (empty) storage without embedding anything again.

        Returns:
            What was restored, with warnings where this machine's settings differ from the exporting one's.

        Raises:
            BackupError: corrupt, truncated or foreign file; vectors of another embedding model; storage not empty.
        """
        from rag.index.backup import import_base

        return import_base(self.index, self.quizzes.directory, Path(path), self._model_fingerprint)

    def _model_fingerprint(self) -> str:
        """The embedding model's fingerprint, from its weights file when it is not loaded yet (no minute of torch)."""
        from rag.models.embedding import configured_fingerprint

        with self._lock:
            loaded = self._embedder
        if loaded is not None:  # loaded, or handed in (tests, benchmarks): the settings may not name it
            return loaded.fingerprint
        return configured_fingerprint(self.settings) or self.embedder.fingerprint

    @property
    def _bases(self) -> BaseEngines[Self]:
        """The storage's knowledge bases and their engines (held by the storage's own service, ``_root``), made
        once (two engines of one base would open its stores twice) under a lock of their own (``_lock`` may be
        held for a minute while a model loads; listing the bases must not wait for it)."""
        with self._bases_lock:
            if self._base_engines is None:
                from rag.index.base_engines import BaseEngines

                self._base_engines = BaseEngines(self.settings, self._lock, self._build_base_engine)
            return self._base_engines

    def _build_base_engine(self, name: str, settings: Settings) -> Self:
        """A base's engine: its own index, sharing this service's LLM backend and, for the same model, its embedder."""
        shared = self._embedder if settings.embedding_model == self.settings.embedding_model else None
        engine = type(self)(settings, embedder=shared)
        engine.base_name, engine._root = name, self
        return engine

    def base(self, name: str = DEFAULT_BASE) -> Self:
        """The service of one knowledge base (built once, on first use): everything above, on that base.

        Raises:
            BaseNotFoundError: no base by that name (the message lists them).
        """
        return self._root if name == DEFAULT_BASE else self._root._bases.engine(name)

    def base_names(self) -> list[str]:
        """The knowledge bases' names, ``default`` first (cheap: no manifest is opened)."""
        return self._root._bases.registry.names()

    def knowledge_bases(self) -> list[KnowledgeBase]:
        """Every knowledge base of the storage, ``default`` first, with what each holds and how it differs."""
        return self._root._bases.describe_all()

    def create_base(self, name: str, overrides: Mapping[str, Any] | None = None) -> KnowledgeBase:
        """Create an empty knowledge base; ``overrides`` sets its own settings (``rag.index.bases.PER_BASE_SETTINGS``:
        chunk_size, chunk_overlap, ocr_language, embedding_model as ``offline`` or ``ollama:<model>`` ...).

        Raises:
            BaseNameError: a name a base cannot have; KnowledgeBaseError: it exists, or a setting is not allowed.
        """
        return self._root._bases.registry.create(name, overrides)

    def rename_base(self, old: str, new: str) -> KnowledgeBase:
        """Rename a knowledge base (not ``default``); its content stays as it is."""
        return self._root._bases.rename(old, new)

    def delete_base(self, name: str, *, confirmed_by: str = "") -> None:
        """Delete a knowledge base (not ``default``) and everything in it, with a line in the version history.

        Args:
            confirmed_by: how the person confirmed it (``"with --yes"``, ``"by typing its name"``).
        """
        self._root._bases.delete(name, confirmed_by=confirmed_by)

    def _search_bases(self, query: str, bases: list[str], options: dict[str, Any]) -> list[Hit]:
        from rag.retrieval.across_bases import search_bases

        engines = [self.base(name) for name in bases]
        searches = {e.base_name: partial(e._search, query, (), options) for e in engines}
        same_model = len({e.settings.embedding_model for e in engines}) == 1
        return search_bases(searches, options.get("top_k") or self.settings.top_k, same_embedding=same_model)
