"""What a file is read into: the parsed document's blocks, and the chunks cut from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ChunkType = Literal["text", "table", "record", "chat"]
BlockKind = Literal["text", "table", "heading"]
Scalar = str | int | float | bool
OCR = "ocr"
"""Block and chunk metadata key: True on text read by OCR (a citation quotes the OCR's reading)."""


@dataclass(frozen=True, slots=True)
class Block:
    """One piece of a parsed document, before chunking.

    Attributes:
        text: normalized text (a markdown table for ``kind="table"``).
        kind: ``text``, ``table`` or ``heading``.
        page: 1-based page number, or None for formats without pages.
        section: nearest heading above this block ("" when none).
        metadata: extra flat fields (JSON record fields mapped to metadata).
    """

    text: str
    kind: BlockKind = "text"
    page: int | None = None
    section: str = ""
    metadata: dict[str, Scalar] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """What a parser read from one file.

    Attributes:
        blocks: the document's content in reading order.
        total_pages: page count (1 for formats without pages).
        title: document title when the format carries one.
        date: ISO date (document metadata, else file mtime).
        warnings: things a person should know (repaired PDF, garbage pages skipped, ...).
        ocr_pages: 1-based numbers of the pages read with OCR.
    """

    blocks: tuple[Block, ...]
    total_pages: int = 1
    title: str = ""
    date: str = ""
    warnings: tuple[str, ...] = ()
    ocr_pages: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable unit of text with flat, Chroma-safe metadata."""

    chunk_id: str
    text: str
    source: str
    rel_path: str = ""
    doc_type: str = "general"
    section: str = ""
    page: int | None = None
    total_pages: int = 1
    date: str = ""
    content_hash: str = ""
    chunk_index: int = 0
    chunk_type: ChunkType = "text"
    language: str = ""
    extra: dict[str, Scalar] = field(default_factory=dict)

    def metadata(self) -> dict[str, Scalar]:
        """Flat metadata for the vector store (no None values: Chroma rejects them)."""
        meta: dict[str, Scalar] = {
            "source": self.source,
            "rel_path": self.rel_path,
            "doc_type": self.doc_type,
            "section": self.section,
            "page": self.page if self.page is not None else 0,
            "total_pages": self.total_pages,
            "date": self.date,
            "date_num": _date_number(self.date),
            "content_hash": self.content_hash,
            "chunk_index": self.chunk_index,
            "chunk_type": self.chunk_type,
            "language": self.language,
        }
        meta.update(self.extra)
        return meta


def _date_number(iso_date: str) -> int:
    """YYYYMMDD as an int (0 when unknown): Chroma compares numbers, not strings, in range filters."""
    digits = iso_date.replace("-", "")[:8]
    return int(digits) if len(digits) == 8 and digits.isdigit() else 0
