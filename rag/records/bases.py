"""Knowledge bases, and what exporting or importing one's index reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_BASE = "default"
"""The knowledge base that is the storage folder itself (what existed before there were several)."""


@dataclass(frozen=True, slots=True)
class KnowledgeBase:
    """One knowledge base: its own manifest, Chroma collection, BM25 index, uploads, quiz sets and settings.

    Attributes:
        name: what people call it (``default`` is the storage folder itself).
        storage: the folder that holds it.
        embedding_model: the embedding engine its vectors come from (``ollama:<model>`` or a local model).
        overrides: the settings it sets differently from the storage's (chunk size, OCR language ...).
        sources: how many sources are indexed in it.
        chunks: how many chunks.
    """

    name: str
    storage: str
    embedding_model: str
    overrides: dict[str, Any] = field(default_factory=dict)
    sources: int = 0
    chunks: int = 0


@dataclass(frozen=True, slots=True)
class BackupReport:
    """What an export wrote or an import restored.

    Attributes:
        path: the archive.
        sources: sources (manifest rows) in it.
        chunks: chunks (with their vectors and BM25 tokens) in it.
        quizzes: quiz sets in it.
        embedding_model: the model its vectors were made with.
        dimension: the vectors' length.
        index_version: the index version it holds.
        bytes: the archive's size.
        seconds: how long the export or import took.
        warnings: what a person should know (settings that differ from the importing machine's).
    """

    path: str
    sources: int
    chunks: int
    quizzes: int
    embedding_model: str
    dimension: int
    index_version: str
    bytes: int
    seconds: float
    warnings: tuple[str, ...] = ()
