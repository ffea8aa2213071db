"""The engines of one storage's knowledge bases: one per base, built on first use, let go of before its base is
renamed or deleted.

An engine is the facade's (``RagService``): the facade hands in how to build one, so this stage never imports it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from rag.index.bases import BaseRegistry
from rag.records import DEFAULT_BASE, KnowledgeBase
from rag.settings import Settings

if TYPE_CHECKING:  # only named: listing the bases must not load the writer's stores
    from rag.index.writer import Index


class BaseEngine(Protocol):
    """What this module needs of an engine: its settings, its base's name and its index."""

    settings: Settings
    base_name: str

    @property
    def index(self) -> Index: ...


EngineT = TypeVar("EngineT", bound=BaseEngine)


class BaseEngines(Generic[EngineT]):
    """The bases of one storage (``registry``) and their engines, built once each.

    Args:
        settings: the storage's settings (the default base's).
        lock: the lock the engines are built and let go under (the storage's service's own).
        build: makes the engine of a base from its name and settings.
    """

    def __init__(self, settings: Settings, lock: threading.RLock, build: Callable[[str, Settings], EngineT]) -> None:
        self.registry = BaseRegistry(settings)
        self._lock = lock
        self._build = build
        self._engines: dict[str, EngineT] = {}

    def engine(self, name: str) -> EngineT:
        """The engine of a base other than ``default``, built on first use.

        Raises:
            BaseNotFoundError: no base by that name (the message lists them).
        """
        with self._lock:
            name = self.registry.require(name)
            engine = self._engines.get(name)
            if engine is None:
                engine = self._build(name, self.registry.settings_for(name))
                self._engines[name] = engine
            return engine

    def describe_all(self) -> list[KnowledgeBase]:
        """Every base, ``default`` first, with what each holds and how it differs."""
        return [self.registry.describe(name) for name in self.registry.names()]

    def rename(self, old: str, new: str) -> KnowledgeBase:
        """Rename a base (not ``default``) once its engine has let go of its stores."""
        with self._lock:
            _close(self._engines.pop(old, None))
            return self.registry.rename(old, new)

    def delete(self, name: str, *, confirmed_by: str = "") -> None:
        """Delete a base (not ``default``) and everything in it, with a line in the version history."""
        with self._lock:
            if name == DEFAULT_BASE:
                self.registry.delete(name)  # refuses, with the reason
            engine = self.engine(name)
            if engine.settings.chroma_server is not None:  # a server keeps the collection after the folder is gone
                engine.index.vectors.drop()
            _close(self._engines.pop(engine.base_name, None))
            self.registry.delete(engine.base_name, confirmed_by=confirmed_by)


def _close(engine: BaseEngine | None) -> None:
    """Let go of a base's open stores before its folder moves or goes."""
    if engine is not None and "index" in vars(engine):
        engine.index.close()
