"""Per-file ingestion: decide whether a file changed, then parse, chunk and tokenize it.

Embedding and writing happen in ``rag.index.writer`` so that chunks of many small files share embedding batches.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rag.errors import DocumentReadError, UnsupportedFileError
from rag.ingest.discovery import SourceFile
from rag.ingest.tokenization import Tokenizer
from rag.records import Chunk, FileOutcome, ParsedDocument
from rag.settings import Settings


class IndexedCopy(Protocol):
    """What the index holds of a file's last run (its manifest ``SourceRow``): enough to tell whether it changed."""

    @property
    def path(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def mtime(self) -> float: ...
    @property
    def hash(self) -> str: ...
    @property
    def chunks(self) -> int: ...
    @property
    def status(self) -> str: ...


@dataclass(frozen=True, slots=True)
class PreparedFile:
    """A changed (or new) file, parsed and chunked, waiting for embeddings."""

    file: SourceFile
    size: int
    mtime: float
    digest: str
    doc: ParsedDocument
    doc_type: str
    chunks: tuple[Chunk, ...]
    tokens: tuple[tuple[str, ...], ...]
    previous: IndexedCopy | None


def file_digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def prepare_file(
    file: SourceFile, previous: IndexedCopy | None, settings: Settings, tokenizer: Tokenizer
) -> PreparedFile | FileOutcome:
    """Return a FileOutcome when nothing needs embedding (unchanged or failed), else the prepared chunks.

    The cheap check (same path, size and mtime as the indexed copy) skips hashing; a touched file whose
    content is the same is still ``unchanged``.
    """
    from rag.ingest.chunking import chunk_document
    from rag.ingest.metadata import classify_doc_type
    from rag.ingest.parsing import file_kind, parse_file

    try:
        stat = file.path.stat()
    except OSError as err:
        return FileOutcome(file.source, "failed", error=f"Cannot read {file.path}: {err.strerror or err}")
    if not file.explicit:
        try:
            file_kind(file.path)  # 8 KB: a stray video in a folder is skipped before it is hashed
        except UnsupportedFileError as err:
            return FileOutcome(file.source, "skipped", error=str(err))
        except DocumentReadError:
            pass  # reported by parse_file below, after the unchanged check
    indexed = previous if previous is not None and previous.status == "indexed" else None
    if indexed and indexed.path == str(file.path) and (indexed.size, indexed.mtime) == (stat.st_size, stat.st_mtime):
        return FileOutcome(file.source, "unchanged", chunks=indexed.chunks)
    try:
        digest = file_digest(file.path)
    except OSError as err:
        return FileOutcome(file.source, "failed", error=f"Cannot read {file.path}: {err.strerror or err}")
    if indexed and indexed.hash == digest:
        return FileOutcome(file.source, "unchanged", chunks=indexed.chunks)
    try:
        doc = parse_file(file.path, settings)
    except (UnsupportedFileError, DocumentReadError) as err:
        return FileOutcome(file.source, "failed", error=str(err))
    doc_type = classify_doc_type(file.rel_path, settings)
    chunks = chunk_document(doc, source=file.source, rel_path=file.rel_path, doc_type=doc_type, settings=settings)
    if settings.mask_pii:
        from rag.ingest.chunking import chunk_id
        from rag.ingest.pii import mask_chunk

        chunks = [mask_chunk(c, chunk_id) for c in chunks]
    if not chunks:
        return FileOutcome(
            file.source,
            "failed",
            error="No indexable text found (empty, scanned images without a text layer, or only tiny fragments).",
            warnings=doc.warnings,
        )
    tokens = tuple(tuple(tokenizer.tokenize(_searchable_text(c))) for c in chunks)
    return PreparedFile(file, stat.st_size, stat.st_mtime, digest, doc, doc_type, tuple(chunks), tokens, previous)


def _searchable_text(chunk: Chunk) -> str:
    # the section heading is part of what a chunk is about: keyword search should match it too
    return f"{chunk.section}\n{chunk.text}" if chunk.section and chunk.section not in chunk.text else chunk.text
