"""Knowledge bases: several complete indexes under one storage folder, each with its own settings.

The base named ``default`` is the storage folder itself (``manifest.sqlite3``, ``chroma/``, ``bm25/``, uploads,
quiz sets), so storage written before there were bases opens unchanged as ``default``. Every other base is a
storage layout of its own under ``<storage>/bases/<name>/`` with ``base.json`` beside it: the settings it sets
differently (chunk size and overlap, doc_type rules, entity patterns, JSON field mapping, OCR language, the
embedding engine) and, for a ``chroma run`` server where all bases share one Chroma, its own collection name. The
models folder stays the storage's. Creating, renaming and deleting a base each add a line to the default base's
version history.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rag.errors import BaseNameError, BaseNotFoundError, ConfigError, KnowledgeBaseError
from rag.index.manifest import Manifest
from rag.records import DEFAULT_BASE, KnowledgeBase
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings

BASES_FOLDER = "bases"
BASE_FILE = "base.json"
MAX_NAME_CHARS = 64
NAME_RULE = (
    f"letters (Japanese too), digits, '-' and '_', at most {MAX_NAME_CHARS} characters, "
    "no spaces, dots or path separators"
)
PER_BASE_SETTINGS = (
    "chunk_size",
    "chunk_overlap",
    "chunk_size_by_doc_type",
    "doc_type_rules",
    "entity_patterns",
    "json_text_fields",
    "json_metadata_fields",
    "json_cut_marker",
    "json_max_chars",
    "ocr_enabled",
    "ocr_language",
    "mask_pii",
    "embedding_model",
)
"""What a knowledge base may set differently from the storage's settings."""
EMBEDDING_ENGINES = "offline (the built-in multilingual-e5-small) or ollama:<model>, e.g. ollama:bge-m3"


def check_base_name(name: str) -> str:
    """The name as stored (NFC, trimmed).

    Raises:
        BaseNameError: empty, too long, or with anything but letters, digits, '-' and '_'.
    """
    cleaned = unicodedata.normalize("NFC", name).strip()
    if not cleaned or len(cleaned) > MAX_NAME_CHARS or not all(ch.isalnum() or ch in "-_" for ch in cleaned):
        raise BaseNameError(f"{name!r} cannot name a knowledge base; allowed: {NAME_RULE}.")
    return cleaned


def embedding_model_for(engine: str) -> str:
    """``embedding_model`` for an engine as people type it: ``offline``, ``ollama:<model>`` (or a model name).

    Raises:
        BaseNameError: ``ollama:`` without a model.
    """
    engine = engine.strip()
    if engine in ("", "offline"):
        return DEFAULT_EMBEDDING_MODEL
    if engine == "ollama:" or engine == "ollama":
        raise BaseNameError(f"Name the Ollama model: embedding engines are {EMBEDDING_ENGINES}.")
    return engine


class BaseRegistry:
    """The knowledge bases of one storage folder: list, open, create, rename, delete.

    Args:
        settings: the storage's settings; they are the default base's, and every other base starts from them.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = settings.storage
        self.folder = self.root / BASES_FOLDER
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """``default`` first, then the other bases by name."""
        found = sorted(p.parent.name for p in self.folder.glob(f"*/{BASE_FILE}")) if self.folder.is_dir() else []
        return [DEFAULT_BASE, *found]

    def path_of(self, name: str) -> Path:
        return self.root if name == DEFAULT_BASE else self.folder / check_base_name(name)

    def require(self, name: str) -> str:
        """The stored name of an existing base. Raises ``BaseNotFoundError`` (listing the bases) otherwise."""
        if name == DEFAULT_BASE:
            return name
        cleaned = check_base_name(name)
        if not (self.folder / cleaned / BASE_FILE).is_file():
            raise BaseNotFoundError(
                f"No knowledge base named {name!r}; there are: {', '.join(self.names())}. "
                f"Create it with `python -m rag collections create {cleaned}`."
            )
        return cleaned

    def overrides_of(self, name: str) -> dict[str, Any]:
        if self.require(name) == DEFAULT_BASE:
            return {}
        data = self._read(name)
        return dict(data.get("settings", {}))

    def settings_for(self, name: str) -> Settings:
        """The settings a base's engine runs with: the storage's, its folder and collection, its overrides."""
        name = self.require(name)
        if name == DEFAULT_BASE:
            return self.settings
        data = self._read(name)
        try:
            base = self.settings.with_overrides(data.get("settings", {}))
        except ConfigError as err:
            raise KnowledgeBaseError(f"Knowledge base {name!r} has settings it cannot use: {err}") from err
        from dataclasses import replace

        return replace(
            base,
            storage_dir=self.folder / name,
            model_dir=self.settings.models,
            collection=data.get("collection") or self.settings.collection,
        )

    def describe(self, name: str) -> KnowledgeBase:
        """The base with its settings and how much it holds (read from its manifest, nothing loaded)."""
        settings = self.settings_for(name)
        sources = chunks = 0
        manifest_path = settings.storage / "manifest.sqlite3"
        if manifest_path.exists():
            manifest = Manifest(manifest_path)
            sources, chunks = len(manifest.all_sources()), manifest.chunk_count()
        return KnowledgeBase(
            name, str(settings.storage), settings.embedding_model, self.overrides_of(name), sources, chunks
        )

    def create(self, name: str, overrides: Mapping[str, Any] | None = None) -> KnowledgeBase:
        """A new, empty base with ``overrides`` (``PER_BASE_SETTINGS`` only; ``embedding_model`` as an engine).

        Raises:
            BaseNameError: the name is not allowed.
            KnowledgeBaseError: a base by that name exists, or a setting is not one a base may set or does not parse.
        """
        cleaned = check_base_name(name)
        values = dict(overrides or {})
        if unknown := set(values) - set(PER_BASE_SETTINGS):
            raise KnowledgeBaseError(
                f"A knowledge base cannot set {sorted(unknown)}; allowed: {', '.join(PER_BASE_SETTINGS)}."
            )
        if "embedding_model" in values:
            values["embedding_model"] = embedding_model_for(str(values["embedding_model"]))
        try:
            self.settings.with_overrides(values)
        except ConfigError as err:
            raise KnowledgeBaseError(f"Cannot create knowledge base {cleaned!r}: {err}") from err
        with self._lock:
            if cleaned == DEFAULT_BASE or (self.folder / cleaned).exists():
                raise KnowledgeBaseError(f"A knowledge base named {cleaned!r} already exists; choose another name.")
            created = datetime.now(UTC).isoformat(timespec="seconds")
            digest = hashlib.sha256(f"{cleaned}\n{created}".encode()).hexdigest()[:12]
            data = {"name": cleaned, "created": created, "collection": f"{self.settings.collection}-kb-{digest}"}
            (self.folder / cleaned).mkdir(parents=True)
            self._write(cleaned, {**data, "settings": _json_ready(values)})
        detail = ", ".join(f"{k}={v}" for k, v in values.items())
        self._history("create base", f"{cleaned}" + (f" ({detail})" if detail else ""))
        return self.describe(cleaned)

    def rename(self, old: str, new: str) -> KnowledgeBase:
        """Rename a base (its folder moves; its Chroma collection keeps its name so a server's data stays).

        Raises:
            KnowledgeBaseError: ``old`` is ``default``, or ``new`` exists; BaseNotFoundError: no base ``old``.
        """
        if old == DEFAULT_BASE:
            raise KnowledgeBaseError(
                "The default knowledge base is the storage folder itself and cannot be renamed; "
                "create a new base and index into it instead."
            )
        old = self.require(old)
        cleaned = check_base_name(new)
        with self._lock:
            if cleaned == DEFAULT_BASE or (self.folder / cleaned).exists():
                raise KnowledgeBaseError(f"A knowledge base named {cleaned!r} already exists; choose another name.")
            (self.folder / old).rename(self.folder / cleaned)
            data = self._read(cleaned)
            self._write(cleaned, {**data, "name": cleaned})
        self._history("rename base", f"{old} -> {cleaned}")
        return self.describe(cleaned)

    def delete(self, name: str, *, confirmed_by: str = "") -> None:
        """Delete a base's folder and everything in it (the caller drops its engine and server collection first).

        Raises:
            KnowledgeBaseError: ``name`` is ``default``; BaseNotFoundError: no such base.
        """
        if name == DEFAULT_BASE:
            raise KnowledgeBaseError(
                "The default knowledge base is the storage folder itself and cannot be deleted; "
                "remove its sources instead (`python -m rag remove SOURCE --yes`)."
            )
        name = self.require(name)
        with self._lock:
            shutil.rmtree(self.folder / name)
        self._history("delete base", name + (f" (confirmed {confirmed_by})" if confirmed_by else ""))

    def _read(self, name: str) -> dict[str, Any]:
        path = self.folder / name / BASE_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise KnowledgeBaseError(f"Cannot read {path}: {err}. Fix or delete the file.") from err
        return data if isinstance(data, dict) else {}

    def _write(self, name: str, data: dict[str, Any]) -> None:
        path = self.folder / name / BASE_FILE
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        temporary.replace(path)

    def _history(self, action: str, detail: str) -> None:
        Manifest(self.root / "manifest.sqlite3").record_event(action, detail)


def _json_ready(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
