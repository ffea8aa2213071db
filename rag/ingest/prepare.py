"""Per-file ingestion: decide whether a file changed, then parse, chunk and tokenize it.

Embedding and writing happen in ``rag.index`` so that chunks of many small files share embedding batches. Chunks
are made as they are taken: a file with more than one slice of chunks (``settings.index_slice_chunks``) comes
back with its first slice and the rest still to be read (``PreparedFile.more``), and is committed in parts.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from rag.errors import DocumentReadError, UnsupportedFileError
from rag.ingest.discovery import SourceFile
from rag.ingest.tokenization import Tokenizer
from rag.records import Chunk, FileOutcome, ParsedDocument
from rag.settings import Settings

READING_VERSION = 20
"""The version of how files are read into chunks (parsing, cleanup, chunking). Raise it when a change makes a file give
other chunks: files read by an older version are read again on the next index run, however unchanged, so an
upgrade's better reading reaches what was indexed before. Vectors of unchanged chunk texts are reused, so a re-read
costs reading, not embedding. 2: a PDF's bulleted lines go on across blocks. 3: so do paragraphs whose first line is
indented. 4: a Q&A layout's large answer (はい, いいえ) and labels (Question, Answer) are no headings, so an answer
stays in the chunk of its question. 5: every chunk keeps its document's title (``rag.ingest.chunking.DOC_TITLE``). 6:
OCR reads the lines of a skewed scan as Tesseract finds them. 7: OCR parts two long columns at a narrow gutter. 8: large
pictures in slides and Word documents are read with OCR. 9: a stopword in capitals ("IT", "AS") is a BM25 token
(``rag.ingest.tokenization``). 10: an HTML page's ``<aside>`` notes within its content are read
(``rag.ingest.parsing.web``). 11: a PDF's running header or footer is kept on the first page it is on
(``rag.ingest.text_cleanup.find_margin_lines``). 12: a DOCX's text boxes, footnotes, endnotes, header and footer are
read (``rag.ingest.parsing.word_text``). 13: so are its tracked insertions and content controls. 14: charts in
slides and Word documents are read as the table of figures they plot (``rag.ingest.parsing.charts``). 15: so is
SmartArt, as its nodes' text (``rag.ingest.parsing.diagrams``). 16: an Excel sheet's text boxes, charts, large
pictures (with OCR) and cell comments are read (``rag.ingest.parsing.sheet_overlays``). 17: a PDF's running line
numbered with the page ("H. R. 815—2") is not kept, as one repeating unchanged is. 18: a PDF page's review comments
(sticky notes, notes on highlights) are read after its text. 19: a passage is embedded under its document's title
and its section's heading (``rag.ingest.chunking.embedded_text``). 20: an Excel sheet's merged cells fill their
range, a title above its table is the table's caption, a merged group header names its columns
(``rag.ingest.parsing.sheet_layout``), and a CSV or sheet wider than eight columns is read as one record per row
(``rag.ingest.parsing.tabular.record_blocks``)."""


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
    @property
    def reading(self) -> int: ...


@dataclass(frozen=True, slots=True)
class PreparedFile:
    """A changed (or new) file, parsed and chunked, waiting for embeddings."""

    file: SourceFile
    size: int
    mtime: float
    digest: str
    doc: ParsedDocument
    doc_type: str
    chunks: tuple[Chunk, ...]  # all of them, or the first slice of a file committed in parts
    tokens: tuple[tuple[str, ...], ...]
    previous: IndexedCopy | None
    more: Iterator[Chunk] | None = None  # the chunks after ``chunks``, still to be read (committed in parts)
    resume_at: int = 0  # chunks an interrupted run committed (in reading order, before near-duplicate removal)
    fraction_read: Callable[[], float] = lambda: 1.0  # of the file, for progress
    # ``doc`` with what reading every part found (a long PDF's warnings and OCR'd pages), once ``more`` is read
    finished_doc: Callable[[], ParsedDocument] | None = None

    @property
    def in_parts(self) -> bool:
        """Committed slice by slice (too big for one commit, or resuming an interrupted one)."""
        return self.more is not None or self.resume_at > 0


CHANGED_WHILE_READ = (
    "the file changed while it was being read: what is indexed may mix old and new content. Index it again once "
    "it is no longer being written (the next run reads it again by itself)"
)


def file_digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def prepare_file(
    file: SourceFile,
    previous: IndexedCopy | None,
    settings: Settings,
    tokenizer: Tokenizer,
    *,
    committed_chunks: int = 0,
) -> PreparedFile | FileOutcome:
    """Return a FileOutcome when nothing needs embedding (unchanged or failed), else the prepared chunks.

    The cheap check (same path, size and mtime as the indexed copy) skips hashing; a touched file whose
    content is the same is still ``unchanged``. A file recorded as ``partial`` with the same content resumes
    after its ``committed_chunks`` first chunks; with other content it starts again.

    Args:
        file: the file.
        previous: its manifest row, if any.
        settings: engine settings (``index_slice_chunks`` is how many chunks are read ahead).
        tokenizer: the BM25 tokenizer.
        committed_chunks: for a ``partial`` row, how many chunks the interrupted run committed.
    """
    from rag.ingest.chunking import iter_chunks
    from rag.ingest.metadata import classify_doc_type
    from rag.ingest.parsing import file_kind, open_document

    try:
        stat = file.path.stat()
    except OSError as err:
        return _unreadable(file, err)
    if not file.explicit:
        try:
            file_kind(file.path)  # 8 KB: a stray video in a folder is skipped before it is hashed
        except UnsupportedFileError as err:
            return FileOutcome(file.source, "skipped", error=str(err))
        except DocumentReadError:
            pass  # reported by open_document below, after the unchanged check
    # a file read by an older version of the reading code is read again, however unchanged
    current = previous is not None and previous.status == "indexed" and previous.reading == READING_VERSION
    indexed = previous if current else None
    same_stat = indexed and (indexed.size, indexed.mtime) == (stat.st_size, stat.st_mtime)
    if indexed and same_stat and indexed.path == str(file.path) and not file.verify_content:
        return FileOutcome(file.source, "unchanged", chunks=indexed.chunks)
    try:
        digest = file_digest(file.path)
    except OSError as err:
        return _unreadable(file, err)
    if indexed and indexed.hash == digest:
        return FileOutcome(file.source, "unchanged", chunks=indexed.chunks)
    # an interrupted run resumes only on the same content read the same way
    last_run = (previous.status, previous.hash, previous.reading) if previous is not None else None
    resume_at = committed_chunks if last_run == ("partial", digest, READING_VERSION) else 0
    try:
        opened = open_document(file.path, settings)
    except (UnsupportedFileError, DocumentReadError) as err:
        return FileOutcome(file.source, "failed", error=str(err))
    doc = opened.doc
    doc_type = classify_doc_type(file.rel_path, settings)
    chunks = iter_chunks(doc, opened.blocks, source=file.source, rel_path=file.rel_path, doc_type=doc_type,
                         settings=settings, skip=resume_at)  # fmt: skip
    if settings.mask_pii:
        from rag.ingest.chunking import chunk_id
        from rag.ingest.pii import mask_chunk

        chunks = (mask_chunk(c, chunk_id) for c in chunks)
    ahead = settings.index_slice_chunks
    first = list(itertools.islice(chunks, ahead + 1))
    more = itertools.chain(first[ahead:], chunks) if len(first) > ahead else None
    first = first[:ahead]
    if not first and not resume_at:
        return FileOutcome(
            file.source,
            "failed",
            error="No indexable text found (empty, scanned images without a text layer, or only tiny fragments).",
            warnings=doc.warnings,
        )
    if more is None:  # everything was read
        doc = opened.finished()
        if _stamp(file.path) != (stat.st_size, stat.st_mtime):  # written to while it was read: the old stamp
            doc = replace(doc, warnings=(*doc.warnings, CHANGED_WHILE_READ))  # stays, so the next run reads it again
    return PreparedFile(file, stat.st_size, stat.st_mtime, digest, doc, doc_type, tuple(first),
                        tokens_of(first, tokenizer), previous, more, resume_at, opened.fraction_read,
                        opened.finished)  # fmt: skip


def _unreadable(file: SourceFile, err: OSError) -> FileOutcome:
    what = "no longer exists" if isinstance(err, FileNotFoundError) else f"cannot be read ({err.strerror or err})"
    return FileOutcome(
        file.source, "failed", error=f"{file.rel_path} {what}. Check the file and its permissions, then index again."
    )


def _stamp(path: Path) -> tuple[int, float] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime


def tokens_of(chunks: Sequence[Chunk], tokenizer: Tokenizer) -> tuple[tuple[str, ...], ...]:
    """The BM25 tokens of each chunk (its section heading included)."""
    return tuple(tuple(tokenizer.tokenize(_searchable_text(c))) for c in chunks)


def _searchable_text(chunk: Chunk) -> str:
    # the section heading is part of what a chunk is about: keyword search should match it too
    return f"{chunk.section}\n{chunk.text}" if chunk.section and chunk.section not in chunk.text else chunk.text
