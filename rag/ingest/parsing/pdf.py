"""PDF (PyMuPDF), page by page: each page's text lines and tables (as markdown), made into blocks by
``rag.ingest.parsing.pdf_layout`` (paragraphs, headings; page numbers removed, running headers/footers kept once).

A PDF of more than ``STREAM_PAGES`` pages is read a window of pages at a time (``PdfStream``). A page is read with OCR
(``rag.ingest.parsing.ocr``) when it has no text layer, when a little text sits on a page that is mostly images
(slides of pictures, scans with a stamped footer), when its text is an invisible layer over a full-page
image (an earlier, often poor OCR), or when its text is mostly unreadable (broken font encodings); its
blocks then carry ``ocr=True``. With OCR off, unreadable pages are skipped with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pymupdf

from rag.errors import DocumentReadError
from rag.ingest.metadata import iso_date
from rag.ingest.parsing.ocr import OCR_PACKAGES, ocr_page
from rag.ingest.parsing.pdf_layout import Line, PageText, blocks_of, body_font_size, strip_margins
from rag.ingest.parsing.tabular import render_markdown_table
from rag.ingest.text_cleanup import (
    GARBAGE_PAGE_THRESHOLD,
    garbage_ratio,
    normalize_text,
    strip_unreadable,
)
from rag.records import Block, ParsedDocument
from rag.settings import Settings

pymupdf.TOOLS.mupdf_display_errors(False)  # MuPDF's repair chatter would go to stderr; we warn instead

_TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
_PAGE_ERRORS = (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase)
_IMAGE_SHARE = 0.5  # a page this much covered by images is "mostly images"
_TEXT_SHARE = 0.1  # ... and its text layer is only a footer when its lines cover less than this
_INVISIBLE = 3  # PDF text render mode 3: drawn invisibly, what OCR tools lay over a scan
_MOSTLY_IMAGES = "mostly images"


def _open(path: Path) -> pymupdf.Document:
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except _PAGE_ERRORS as err:
        raise DocumentReadError(
            f"{path.name} is damaged or not a complete PDF and could not be opened. "
            "Get an intact copy (download or export it again) and try again."
        ) from err
    if doc.needs_pass:
        doc.close()
        raise DocumentReadError(
            f"{path.name} is password-protected. Remove the password (for example, print it to a new PDF) "
            "and upload it again."
        )
    if doc.page_count == 0:
        doc.close()
        raise DocumentReadError(f"{path.name} has no pages. Get an intact copy of the PDF and try again.")
    return doc


def _cell_text(words: list[tuple[Any, ...]], cell: tuple[float, float, float, float] | None) -> str:
    if cell is None:
        return ""
    x0, y0, x1, y1 = cell
    lines: dict[tuple[int, int], list[str]] = {}
    for wx0, wy0, wx1, wy1, word, block, line, _ in words:
        if x0 <= (wx0 + wx1) / 2 < x1 and y0 <= (wy0 + wy1) / 2 < y1:
            lines.setdefault((block, line), []).append(word)
    return "\n".join(" ".join(ws) for ws in lines.values())


def _tables(page: pymupdf.Page) -> list[tuple[pymupdf.Rect, str]]:
    drawings = page.get_drawings()
    if not drawings:  # the line strategy needs ruling lines; skip the finder when there are none
        return []
    # Only the area with ruling lines (plus room for a header row above) is searched: 4x faster.
    # use_layout=False: the same result whether or not PyMuPDF's layout analyzer is active.
    area = pymupdf.Rect(drawings[0]["rect"])
    for drawing in drawings[1:]:
        area |= drawing["rect"]
    clip = (area + (-5, -30, 5, 5)) & page.rect
    tables = page.find_tables(clip=clip, use_layout=False).tables
    if not tables:
        return []
    # Cell text from ordinary word extraction: the finder's own extract() uses minimal glyph heights,
    # which splits "TEE_Malloc" into "TEE Malloc" + "_" in some fonts.
    words = page.get_text("words", flags=_TEXT_FLAGS, sort=True)
    found = []
    for table in tables:
        rows = [[_cell_text(words, cell) for cell in row.cells] for row in table.rows]
        rect = pymupdf.Rect(table.bbox)
        header = table.header
        if header.external:
            rect |= pymupdf.Rect(header.bbox)
            names = [_cell_text(words, cell) for cell in header.cells]
            markdown = render_markdown_table(names, rows)
        else:
            markdown = render_markdown_table(rows[0] if rows else [], rows[1:])
        if markdown:
            found.append((rect, markdown))
    return found


def _lines(page: pymupdf.Page, table_rects: list[pymupdf.Rect]) -> list[Line]:
    lines = []
    content: dict[str, Any] = page.get_text("dict", flags=_TEXT_FLAGS)
    grown = [rect + (-2, -2, 2, 2) for rect in table_rects]
    for block_no, block in enumerate(content["blocks"]):
        for line in block.get("lines", ()):
            spans = [s for s in line["spans"] if s["text"]]
            text = normalize_text("".join(s["text"] for s in spans))
            if not text:
                continue
            rect = pymupdf.Rect(line["bbox"])
            center = pymupdf.Point((rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2)
            if any(center in table for table in grown):
                continue  # table text is kept once, in the table's markdown
            size = max(s["size"] for s in spans)
            bold = all(s["flags"] & pymupdf.TEXT_FONT_BOLD or "bold" in s["font"].lower() for s in spans)
            bulleted = len(spans) > 1 and _BULLET_GLYPH.fullmatch(spans[0]["text"].strip()) is not None
            words_x0 = float(spans[1]["bbox"][0]) if bulleted else None
            lines.append(Line(text, rect, size, bold, block_no, words_x0))
    return lines


_BULLET_GLYPH = re.compile("[\ue000-\uf8ff•・●○■□◆◇▪▫►▶✓✔※\\-–*]")
"""A span that is only a bullet: a symbol font's private-use glyph (Wingdings' \uf075), a dot, a square, a dash."""


def _page_list(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10])
    return f"page {shown}" if len(numbers) == 1 else f"pages {shown}{' ...' if len(numbers) > 10 else ''}"


def _image_area(pdf_page: pymupdf.Page) -> pymupdf.Rect:
    """The union of the page's image boxes (empty when it has none)."""
    area = pymupdf.Rect()
    for info in pdf_page.get_image_info():
        area |= pymupdf.Rect(info["bbox"]) & pdf_page.rect
    return area


def _ocr_reason(pdf_page: pymupdf.Page, lines: list[Line], garbage: bool) -> str:
    """Why a page needs OCR ("" when it does not)."""
    if garbage:
        return "unreadable text layer"
    area = abs(pdf_page.rect) or 1.0
    images = sum(abs(pymupdf.Rect(info["bbox"]) & pdf_page.rect) for info in pdf_page.get_image_info())
    image_share = min(1.0, images / area)
    if not lines:
        return "no text layer" if image_share > 0 or pdf_page.get_drawings() else ""
    if image_share < _IMAGE_SHARE:
        return ""
    if sum(abs(line.rect) for line in lines) / area < _TEXT_SHARE:
        return _MOSTLY_IMAGES
    if all(trace["type"] == _INVISIBLE for trace in pdf_page.get_texttrace()):
        return "an invisible text layer over a scan"
    return ""


def _ocr_lines(pdf_page: pymupdf.Page, lines: list[Line], reason: str, settings: Settings) -> list[Line]:
    """The page's lines read with OCR. A page of pictures with a little real text (a footer) keeps that text
    and has only its pictures read, so the footer stays exactly as written (and is found as a running footer)."""
    clip = _image_area(pdf_page) if reason == _MOSTLY_IMAGES else None
    kept = [line for line in lines if clip is not None and not clip.intersects(line.rect)]
    read = ocr_page(pdf_page, language=settings.ocr_language, dpi=settings.ocr_dpi,
                    cache_dir=settings.storage / "ocr_cache", clip=clip)  # fmt: skip
    first = max((line.block for line in kept), default=-1) + 1  # OCR paragraphs numbered after the text blocks
    ocr_lines = [Line(line.text, pymupdf.Rect(line.rect), float(round(line.rect[3] - line.rect[1])), False,
                       first + line.paragraph) for line in read]  # fmt: skip
    if clip is None:
        return ocr_lines
    above = [line for line in kept if line.rect.y1 <= clip.y0]  # OCR lines keep their own reading order
    return above + ocr_lines + [line for line in kept if line.rect.y1 > clip.y0]


@dataclass(slots=True)
class _Reading:
    """What reading the pages found besides their text."""

    garbage: list[int] = field(default_factory=list)
    ocr: list[int] = field(default_factory=list)
    ocr_missing: str = ""  # why OCR could not run (Tesseract missing), when a page needed it
    skipped: list[str] = field(default_factory=list)  # pages that could not be read, with the reason

    def warnings(self) -> tuple[str, ...]:
        found = list(self.skipped)
        if self.garbage:
            found.append(
                f"{_page_list(self.garbage)}: mostly unreadable text (possible font encoding problem), skipped"
            )
        if self.ocr:
            found.append(f"{_page_list(self.ocr)}: read with OCR (scanned or image-only); quotes are its reading")
        if self.ocr_missing:
            found.append(f"some pages need OCR, which could not run: {self.ocr_missing}")
        return tuple(found)


def _read_pages(doc: pymupdf.Document, numbers: range, reading: _Reading, settings: Settings) -> list[PageText]:
    """The lines and tables of the pages at ``numbers`` (0-based), OCR'd where needed; unreadable pages come back
    empty, and what reading found (garbage, OCR'd pages, read errors) is added to ``reading``."""
    pages = []
    for index in numbers:
        page = PageText(index + 1)
        pdf_page = None
        try:
            pdf_page = doc.load_page(index)
            page.tables = _tables(pdf_page)
            page.lines = _lines(pdf_page, [rect for rect, _ in page.tables])
        except _PAGE_ERRORS as err:
            reading.skipped.append(f"page {page.number}: could not be read ({err}), skipped")
            page = PageText(index + 1)
        text = "\n".join([line.text for line in page.lines] + [t for _, t in page.tables])
        garbage = bool(text.strip()) and garbage_ratio(text) > GARBAGE_PAGE_THRESHOLD
        reason = _ocr_reason(pdf_page, page.lines, garbage) if pdf_page is not None and settings.ocr_enabled else ""
        if reason and not reading.ocr_missing:
            try:
                page = PageText(index + 1, lines=_ocr_lines(pdf_page, page.lines, reason, settings), ocr=True)  # type: ignore[arg-type]
                reading.ocr.append(page.number)
                garbage = False
            except DocumentReadError as err:
                reading.ocr_missing = str(err)
        if garbage:
            reading.garbage.append(page.number)
            page = PageText(index + 1)
        for line in page.lines:  # a readable page may still carry a few symbol-font glyphs
            line.text = strip_unreadable(line.text).strip()
        page.lines = [line for line in page.lines if line.text]
        page.tables = [(rect, strip_unreadable(markdown)) for rect, markdown in page.tables]
        page.comments = _comments(pdf_page) if pdf_page is not None else []
        pages.append(page)
    return pages


_DRAWN_TEXT = ("FreeText", "Popup", "Widget")
"""Annotations whose text the page shows (a typewriter box is read with the page's text) or that hold no comment."""


def _comments(pdf_page: pymupdf.Page) -> list[str]:
    """The review comments on a page: a sticky note, or the note on a highlight, underline or shape, as
    "Comment (author): text". A reviewer's "this must be 5 years" on a spec's retention period was read nowhere:
    the page's text holds only the note's icon."""
    comments = []
    try:
        for annot in pdf_page.annots():
            if annot.type[1] in _DRAWN_TEXT:
                continue
            info = annot.info or {}
            if text := normalize_text(info.get("content") or ""):
                author = normalize_text(info.get("title") or "")
                comments.append(f"Comment ({author}): {text}" if author else f"Comment: {text}")
    except _PAGE_ERRORS:  # a broken annotation loses the comments, not the page
        return comments
    return comments


def _no_text_error(path: Path, reading: _Reading, settings: Settings) -> DocumentReadError:
    if reading.ocr_missing:
        return DocumentReadError(f"{path.name}: {reading.ocr_missing}")
    if reading.garbage:
        return DocumentReadError(
            f"{path.name}: every page is unreadable text (a font encoding problem). "
            "Export the PDF again with embedded fonts or from the original document."
        )
    tried = " and OCR found none on its images" if reading.ocr else ""
    hint = "" if settings.ocr_enabled else f" (OCR is off: set RAG_OCR_ENABLED=1; it needs {OCR_PACKAGES})"
    return DocumentReadError(
        f"{path.name} has no extractable text{tried}{hint}. Use a PDF with a text layer or a clearer scan."
    )


def _document(path: Path, doc: pymupdf.Document, blocks: list[Block], date: str) -> ParsedDocument:
    """The document's record: title (metadata, else the first heading), date, pages; no warnings yet."""
    meta = doc.metadata or {}
    first_heading = next((b.text for b in blocks if b.kind == "heading"), "")
    return ParsedDocument(
        blocks=(),
        total_pages=doc.page_count,
        title=normalize_text(meta.get("title") or "") or first_heading,
        date=iso_date(meta.get("creationDate") or "") or iso_date(meta.get("modDate") or "") or date,
        warnings=("the PDF was damaged and has been repaired; some content may be missing",) if doc.is_repaired else (),
    )


def parse_pdf(path: Path, date: str, settings: Settings) -> ParsedDocument:
    """Read a PDF page by page, with OCR where a page needs it.

    Args:
        path: the file.
        date: fallback date (file mtime) when the PDF metadata has no creation date.
        settings: ``ocr_enabled``, ``ocr_language``, ``ocr_dpi`` and the storage folder (OCR cache) are used.

    Returns:
        Blocks in reading order with 1-based page numbers; ``ocr_pages`` lists the pages read with OCR;
        warnings for a repaired file, OCR'd pages and skipped pages.

    Raises:
        DocumentReadError: damaged beyond repair, password-protected, no pages, no text even with OCR
            (or OCR needed but Tesseract missing: the message names the apt packages), or every page unreadable.
    """
    return read_pdf(path, _open(path), date, settings)


def read_pdf(path: Path, doc: pymupdf.Document, date: str, settings: Settings) -> ParsedDocument:
    """``parse_pdf`` of a document already open (``path`` names it in messages); closes ``doc``."""
    with doc:
        reading = _Reading()
        pages = _read_pages(doc, range(doc.page_count), reading, settings)
        if not any(p.lines or p.tables for p in pages):
            raise _no_text_error(path, reading, settings)
        strip_margins(pages)
        blocks, _ = blocks_of(pages, body_font_size(pages), "")
        parsed = _document(path, doc, blocks, date)
    return replace(parsed, blocks=tuple(blocks), warnings=parsed.warnings + reading.warnings(),
                   ocr_pages=tuple(reading.ocr))  # fmt: skip


STREAM_PAGES = 200
"""PDFs with more pages than this are read in windows of ``WINDOW_PAGES`` as their blocks are taken."""
WINDOW_PAGES = 100


class PdfStream:
    """The blocks of a long PDF, read ``WINDOW_PAGES`` pages at a time: memory stays flat, progress shows.

    Running headers and footers are found within each window (100 pages repeat them as well as 2,000 do), the body
    font size on the first window. The first window is read when the stream is opened, for the title and for a
    clear error when the PDF opens with no text; the warnings and OCR'd pages of the whole file are in
    ``finished`` once the blocks have all been taken.
    """

    def __init__(self, path: Path, doc: pymupdf.Document, date: str, settings: Settings) -> None:
        """Read the first window of ``doc`` (``path`` opened; the blocks after it are read from ``path`` again)."""
        self.path = path
        self._settings = settings
        self._reading = _Reading()
        self.total = doc.page_count
        self._windows = _windows(self.total)
        pages = _read_pages(doc, self._windows[0], self._reading, settings)
        if not any(p.lines or p.tables for p in pages):
            raise _no_text_error(path, self._reading, settings)
        self._kept_margins: set[str] = set()  # running headers and footers are kept once in the whole file
        strip_margins(pages, self._kept_margins)
        self._body_font_size = body_font_size(pages)
        self._first, self._section = blocks_of(pages, self._body_font_size, "")
        self.doc = _document(path, doc, self._first, date)
        self._pages_read = len(self._windows[0])

    def fraction_read(self) -> float:
        """How much of the file the blocks given out so far were read from (0-1), for progress."""
        return self._pages_read / self.total

    def finished(self) -> ParsedDocument:
        """The document with the warnings and OCR'd pages of every page read so far (all, once iterated)."""
        return replace(self.doc, warnings=self.doc.warnings + self._reading.warnings(),
                       ocr_pages=tuple(self._reading.ocr))  # fmt: skip

    def __iter__(self) -> Iterator[Block]:
        yield from self._first
        self._first = []
        with _open(self.path) as doc:
            for window in self._windows[1:]:
                pages = _read_pages(doc, window, self._reading, self._settings)
                strip_margins(pages, self._kept_margins)
                blocks, self._section = blocks_of(pages, self._body_font_size, self._section)
                self._pages_read += len(window)
                yield from blocks


def _windows(total: int) -> list[range]:
    """0-based page ranges of ``WINDOW_PAGES`` (the last one at least half a window, for its margins)."""
    starts = list(range(0, total, WINDOW_PAGES))
    if len(starts) > 1 and total - starts[-1] < WINDOW_PAGES // 2:
        starts.pop()
    return [range(start, end) for start, end in zip(starts, [*starts[1:], total])]


def open_pdf_stream(path: Path, date: str, settings: Settings) -> PdfStream | None:
    """A stream over a PDF of more than ``STREAM_PAGES`` pages, or ``None`` when it is to be read whole.

    Raises:
        DocumentReadError: as ``parse_pdf`` (for a long PDF, judged on its first window of pages).
    """
    with _open(path) as doc:
        return PdfStream(path, doc, date, settings) if doc.page_count > STREAM_PAGES else None
