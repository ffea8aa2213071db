"""Read any supported file into a ``ParsedDocument``; the kind is sniffed from the content, not just the name.

``parse_file`` is the one entry point; ``open_document`` is the same for a reader that takes blocks as they come
(a big text file is then read in parts, ``rag.ingest.parsing.text_stream``). A PDF named ``.txt`` is read as a PDF; a
text file named ``.pdf`` is read as text with a warning; binary data named ``.txt`` is refused. The supported
kinds live in ``rag.ingest.parsing.kinds``.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from rag.errors import DocumentReadError, UnsupportedFileError
from rag.ingest.metadata import file_date
from rag.ingest.parsing.kinds import KIND_BY_EXTENSION, SUPPORTED_EXTENSIONS, SUPPORTED_TEXT, unsupported_message
from rag.records import Block, ParsedDocument
from rag.settings import Settings

__all__ = ["KIND_BY_EXTENSION", "SUPPORTED_EXTENSIONS", "OpenedDocument", "file_kind", "open_document", "parse_file",
           "sniff_kind"]  # fmt: skip

_BINARY_KINDS = frozenset({"pdf", "docx", "xlsx", "pptx", "image"})
_OFFICE_NAMES = {"docx": "Word", "xlsx": "Excel", "pptx": "PowerPoint"}
_IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"II*\x00", b"MM\x00*")  # PNG, JPEG, GIF, TIFF (two byte orders)
_MAGIC = {
    b"\x1f\x8b": "a gzip archive",
    b"7z\xbc\xaf": "a 7-Zip archive",
    b"Rar!": "a RAR archive",
    b"\x7fELF": "a program",
    b"MZ": "a Windows program",
}
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_HTML_START = re.compile(rb"^\s*(<!doctype html|<html|<head|<body)", re.IGNORECASE)


def sniff_kind(path: Path, head: bytes) -> str:
    """The file kind from its first bytes: pdf, docx, xlsx, pptx, image, ole, zip, binary or text."""
    # PDF readers accept junk before the header; only trust that for files that say they are PDFs
    if head.lstrip().startswith(b"%PDF-") or (b"%PDF-" in head[:1024] and path.suffix.lower() == ".pdf"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except (zipfile.BadZipFile, OSError):
            return "zip"
        if "word/document.xml" in names:
            return "docx"
        if "xl/workbook.xml" in names:
            return "xlsx"
        if "ppt/presentation.xml" in names:
            return "pptx"
        return "zip"
    if head.startswith(_OLE):
        return "ole"
    webp_or_avif = (head[:4] == b"RIFF" and head[8:12] == b"WEBP") or head[4:12] in (b"ftypavif", b"ftypavis")
    if head.startswith(_IMAGE_MAGIC) or webp_or_avif or (head.startswith(b"BM") and path.suffix.lower() == ".bmp"):
        return "image"
    if any(head.startswith(magic) for magic in _MAGIC):
        return "binary"
    return "text"


def _binary_description(head: bytes) -> str:
    return next((what for magic, what in _MAGIC.items() if head.startswith(magic)), "binary data")


def _unsupported(path: Path) -> UnsupportedFileError:
    return UnsupportedFileError(unsupported_message(path))


def _reads_as_text(path: Path, head: bytes) -> bool:
    from rag.ingest.parsing.plain import decode_text

    try:
        decode_text(head, path.name)
    except DocumentReadError:
        return False
    return True


def _text_kind(data: bytes) -> str:
    stripped = data.lstrip()
    if _HTML_START.match(stripped[:1024]):
        return "html"
    return "text"


def parse_file(path: Path, settings: Settings) -> ParsedDocument:
    """Read one file into blocks (text, headings, markdown tables) with page numbers and warnings.

    Args:
        path: the file to read.
        settings: engine settings (``max_file_mb``, the OCR and JSON field rules are used).

    Returns:
        The parsed document.

    Raises:
        UnsupportedFileError: the file kind is not one the engine reads (the message lists those it reads).
        DocumentReadError: the file is missing, empty, too big, corrupt, truncated, password-protected,
            binary where text was expected, or has no readable text.
    """
    path = Path(path)
    kind, notes = _checked_kind(path, settings)
    doc = _dispatch(kind, path, settings, file_date(path))
    return doc if not notes else _with_notes(doc, list(notes))


@dataclass(frozen=True, slots=True)
class OpenedDocument:
    """A document whose blocks may still be coming: ``doc`` has everything but them when they are streamed.

    Attributes:
        doc: the parsed document; its ``blocks`` are empty when ``blocks`` streams them.
        blocks: the blocks in reading order (``doc.blocks``, or a stream to iterate once).
        fraction_read: how much of the file the blocks given out so far came from (0-1), for progress.
        finished: the document with what reading all its blocks found (a long PDF's warnings and OCR'd pages).
    """

    doc: ParsedDocument
    blocks: Iterable[Block]
    fraction_read: Callable[[], float]
    finished: Callable[[], ParsedDocument]


def open_document(path: Path, settings: Settings) -> OpenedDocument:
    """``parse_file``, but a plain-text file over ``STREAM_BYTES`` or a PDF of more than ``STREAM_PAGES`` pages is
    read in parts as its blocks are taken.

    Raises:
        UnsupportedFileError: as ``parse_file``.
        DocumentReadError: as ``parse_file``; for a streamed file, judged on its first part.
    """
    from rag.ingest.parsing.pdf import open_pdf_stream
    from rag.ingest.parsing.text_stream import STREAM_BYTES, open_text_stream

    path = Path(path)
    kind, notes = _checked_kind(path, settings)
    if kind == "text" and path.stat().st_size > STREAM_BYTES and (stream := open_text_stream(path)) is not None:
        doc = ParsedDocument(blocks=(), date=file_date(path), warnings=notes)
        return OpenedDocument(doc, stream, stream.fraction_read, lambda: doc)
    if kind == "pdf" and (pdf := open_pdf_stream(path, file_date(path), settings)) is not None:
        return OpenedDocument(
            _with_notes(pdf.doc, list(notes)), pdf, pdf.fraction_read, lambda: _with_notes(pdf.finished(), list(notes))
        )
    doc = _dispatch(kind, path, settings, file_date(path))
    doc = doc if not notes else _with_notes(doc, list(notes))
    counted = _CountedBlocks(doc.blocks)
    return OpenedDocument(doc, counted, counted.fraction_read, lambda: doc)


class _CountedBlocks:
    """A parsed document's blocks given out once, counted: the share read is the share of blocks given out (a
    30,000-record JSONL committed in parts shows how far it is by records, not only once it is done)."""

    def __init__(self, blocks: tuple[Block, ...]) -> None:
        self._blocks = blocks
        self._given = 0

    def __iter__(self) -> Iterator[Block]:
        for block in self._blocks:
            self._given += 1
            yield block

    def fraction_read(self) -> float:
        return self._given / len(self._blocks) if self._blocks else 1.0


def _checked_kind(path: Path, settings: Settings) -> tuple[str, tuple[str, ...]]:
    kind, notes = file_kind(path)
    size = path.stat().st_size
    if size > settings.max_file_mb * 1024 * 1024:
        raise DocumentReadError(
            f"{path.name} is {size / 1024 / 1024:.0f} MB, over the {settings.max_file_mb} MB limit. "
            "Split the file or raise RAG_MAX_FILE_MB."
        )
    return kind, notes


def file_kind(path: Path) -> tuple[str, tuple[str, ...]]:
    """Which parser reads ``path``, judged by its first bytes and its name, and notes on a misleading name.

    Cheap (reads 8 KB): indexing asks it before hashing a file it may not read at all.

    Returns:
        The kind (``pdf``, ``docx``, ``xlsx``, ``pptx``, ``html``, ``csv``, ``json``, ``jsonl``, ``markdown``,
        ``text``) and warnings such as "named .txt but is a PDF file".

    Raises:
        UnsupportedFileError: not a kind the engine reads.
        DocumentReadError: unreadable, empty, or its content contradicts its name in a way that cannot be read.
    """
    name = path.name
    ext = path.suffix.lower()
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
    except OSError as err:
        raise DocumentReadError(
            f"{name} could not be read ({err.strerror or err}). Check that the file exists."
        ) from err
    if not head:
        raise DocumentReadError(f"{name} is empty (0 bytes). Upload a file with content.")
    claimed = KIND_BY_EXTENSION.get(ext)
    sniffed = sniff_kind(path, head)
    if sniffed in _BINARY_KINDS:
        what = "an image" if sniffed == "image" else f"a {sniffed.upper()} file"
        note = f"named {ext} but is {what}; read as {'an image' if sniffed == 'image' else sniffed.upper()}"
        return sniffed, (note,) if claimed is not None and claimed != sniffed else ()
    if sniffed == "ole":
        if claimed in _OFFICE_NAMES:
            raise DocumentReadError(
                f"{name} is a password-protected Office file or an old binary format (.doc/.xls/.ppt). "
                "Remove the password or save it as .docx/.xlsx/.pptx, then try again."
            )
        raise UnsupportedFileError(
            f"{name} is an old binary Office file (.doc/.xls/.ppt); save it as .docx, .xlsx or .pptx. "
            f"Supported kinds: {SUPPORTED_TEXT}."
        )
    if claimed is None:
        raise _unsupported(path)
    if sniffed in ("zip", "binary"):
        if sniffed == "zip" and claimed in _OFFICE_NAMES:
            raise DocumentReadError(
                f"{name} is damaged or not a real {_OFFICE_NAMES[claimed]} file "
                "(its ZIP container is unreadable or lacks the document). Open it and save it again."
            )
        what = "a ZIP archive" if sniffed == "zip" else _binary_description(head)
        raise DocumentReadError(f"{name} is named {ext} but contains {what}. Check the file and try again.")
    if claimed not in _BINARY_KINDS:
        return claimed, ()
    if not _reads_as_text(path, head):
        raise DocumentReadError(
            f"{name} is named {ext} but is neither a readable {_OFFICE_NAMES.get(claimed, 'PDF')} file nor text: "
            "its content is unrecognizable (damaged, cut short, or encrypted by another program). Get an intact copy, "
            "or open it in the program that made it and save it again."
        )
    kind = _text_kind(head)
    return kind, (f"named {ext} but is plain text; read as {'HTML' if kind == 'html' else 'text'}",)


def _dispatch(kind: str, path: Path, settings: Settings, date: str) -> ParsedDocument:
    # Parsers are imported on first use: PyMuPDF (with its layout model), pandas and the Office
    # libraries take seconds to import, and a process may never meet those kinds.
    if kind == "pdf":
        from rag.ingest.parsing.pdf import parse_pdf

        return parse_pdf(path, date, settings)
    if kind == "image":
        from rag.ingest.parsing.images import image_pages
        from rag.ingest.parsing.pdf import read_pdf

        return read_pdf(path, image_pages(path, settings.ocr_dpi), date, settings)
    if kind in _OFFICE_NAMES:
        from rag.ingest.parsing.office import check_inflated_size, parse_docx, parse_xlsx

        check_inflated_size(path, _OFFICE_NAMES[kind])
        if kind == "pptx":
            from rag.ingest.parsing.slides import parse_pptx

            return parse_pptx(path, date, settings)
        return parse_docx(path, date, settings) if kind == "docx" else parse_xlsx(path, date, settings)
    from rag.ingest.parsing.plain import decode_text, parse_markdown, parse_text

    try:
        data = path.read_bytes()
    except OSError as err:
        raise DocumentReadError(f"{path.name} could not be read ({err.strerror or err}).") from err
    if kind == "html":
        from rag.ingest.parsing.web import parse_html

        decode_text(data, path.name)  # refuses binary data before BeautifulSoup makes sense of it
        return parse_html(data, path.name, date)
    if kind == "markdown":
        return parse_markdown(data, path.name, date)
    if kind == "text":
        return parse_text(data, path.name, date)
    if kind == "email":
        from rag.ingest.parsing.email_message import parse_eml

        return parse_eml(data, path.name, date)
    text = decode_text(data, path.name)
    if kind == "csv":
        from rag.ingest.parsing.tabular import parse_csv

        return parse_csv(text, path.name, date)
    from rag.ingest.parsing.records import parse_json, parse_jsonl

    if kind == "json":
        return parse_json(text, path.name, date, settings)
    if kind == "jsonl":
        return parse_jsonl(text, path.name, date, settings)
    raise ValueError(f"kind={kind!r}; allowed: {', '.join(sorted(set(KIND_BY_EXTENSION.values())))}")


def _with_notes(doc: ParsedDocument, notes: list[str]) -> ParsedDocument:
    return replace(doc, warnings=(*notes, *doc.warnings))
