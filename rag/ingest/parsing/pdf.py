"""PDF (PyMuPDF), page by page: text blocks with wraps joined, headings by font size/bold, tables as markdown.

Running headers/footers and page numbers are removed per document. A page is read with OCR
(``rag.ingest.parsing.ocr``) when it has no text layer, when a little text sits on a page that is mostly images
(slides of pictures, scans with a stamped footer), when its text is an invisible layer over a full-page
image (an earlier, often poor OCR), or when its text is mostly unreadable (broken font encodings); its
blocks then carry ``ocr=True``. With OCR off, unreadable pages are skipped with a warning.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymupdf

from rag.errors import DocumentReadError
from rag.ingest.metadata import iso_date
from rag.ingest.parsing.ocr import OCR_PACKAGES, ocr_page
from rag.ingest.parsing.tabular import render_markdown_table
from rag.ingest.text_cleanup import (
    GARBAGE_PAGE_THRESHOLD,
    find_margin_lines,
    garbage_ratio,
    is_page_number,
    join_wrapped_lines,
    normalize_text,
    strip_unreadable,
)
from rag.records import Block, ParsedDocument
from rag.settings import Settings

pymupdf.TOOLS.mupdf_display_errors(False)  # MuPDF's repair chatter would go to stderr; we warn instead

_TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
_PAGE_ERRORS = (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase)
_HEADING_SCALE = 1.15
_HEADING_MAX_CHARS = 80
OCR = "ocr"
"""Block and chunk metadata key: True on text read by OCR (a citation quotes the OCR's reading)."""
_IMAGE_SHARE = 0.5  # a page this much covered by images is "mostly images"
_TEXT_SHARE = 0.1  # ... and its text layer is only a footer when its lines cover less than this
_INVISIBLE = 3  # PDF text render mode 3: drawn invisibly, what OCR tools lay over a scan
_MOSTLY_IMAGES = "mostly images"
_PARAGRAPH_ENDS = ("。", "．", ".", "!", "?", "！", "？", ":", "：", "」", "）", ")")


@dataclass(slots=True)
class _Line:
    text: str
    rect: pymupdf.Rect
    size: float
    bold: bool
    block: int


@dataclass(slots=True)
class _Page:
    number: int
    lines: list[_Line] = field(default_factory=list)
    tables: list[tuple[pymupdf.Rect, str]] = field(default_factory=list)
    ocr: bool = False


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


def _lines(page: pymupdf.Page, table_rects: list[pymupdf.Rect]) -> list[_Line]:
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
            lines.append(_Line(text, rect, size, bold, block_no))
    return lines


def _body_size(pages: list[_Page]) -> float:
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            sizes[round(line.size, 1)] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _is_heading(lines: list[_Line], body_size: float) -> bool:
    text = " ".join(line.text for line in lines)
    if len(lines) > 2 or len(text) > _HEADING_MAX_CHARS or text.endswith(("。", ".", "、", ",")):
        return False
    if is_page_number(text) or not any(ch.isalpha() for ch in text):
        return False
    size = min(line.size for line in lines)
    return size >= body_size * _HEADING_SCALE or (all(line.bold for line in lines) and size >= body_size)


def _continues(above: list[_Line], below: list[_Line], right_edge: float) -> bool:
    """Whether block ``below`` goes on with the paragraph of block ``above`` (a writer put each line in a block).

    Word and PowerPoint exports often make every printed line a block of its own, which would cut words and
    sentences in two ("有効期" / "間は"). The paragraph goes on when the line above runs to the column's right
    edge without ending a sentence, and the line below starts where the block above starts, in the same size,
    one line further down.
    """
    last, first = above[-1], below[0]
    size = max(last.size, 1.0)
    return (
        last.rect.x1 >= right_edge - 2 * size
        and not last.text.rstrip().endswith(_PARAGRAPH_ENDS)
        and abs(first.rect.x0 - above[0].rect.x0) <= size
        and abs(first.size - last.size) < 0.5
        and -0.5 * size <= first.rect.y0 - last.rect.y1 <= size
    )


def _paragraph_groups(lines: list[_Line]) -> list[list[_Line]]:
    """The page's lines grouped by block, consecutive blocks of one paragraph merged (see ``_continues``)."""
    groups: dict[int, list[_Line]] = {}
    for line in lines:
        groups.setdefault(line.block, []).append(line)
    right_edge = max((line.rect.x1 for line in lines), default=0.0)
    merged: list[list[_Line]] = []
    for group in groups.values():
        if merged and _continues(merged[-1], group, right_edge):
            merged[-1] = merged[-1] + group
        else:
            merged.append(group)
    return merged


def _page_blocks(page: _Page, body_size: float, section: str) -> tuple[list[Block], str]:
    # text in content-stream order; each table goes before the first text block below its top edge
    items: list[tuple[float, str | None, list[_Line]]] = [
        (g[0].rect.y0, None, g) for g in _paragraph_groups(page.lines)
    ]
    for rect, markdown in sorted(page.tables, key=lambda t: t[0].y0):
        at = next((i for i, item in enumerate(items) if item[1] is None and item[0] >= rect.y0), len(items))
        items.insert(at, (rect.y0, markdown, []))
    blocks = []
    meta: dict[str, str | int | float | bool] = {OCR: True} if page.ocr else {}
    for _, table, lines in items:
        if table is not None:
            blocks.append(Block(text=table, kind="table", page=page.number, section=section, metadata=meta))
        elif _is_heading(lines, body_size):
            section = join_wrapped_lines("\n".join(line.text for line in lines)).replace("\n", " ")
            blocks.append(Block(text=section, kind="heading", page=page.number, section=section, metadata=meta))
        elif text := join_wrapped_lines("\n".join(line.text for line in lines)):
            blocks.append(Block(text=text, page=page.number, section=section, metadata=meta))
    return blocks, section


def _page_list(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10])
    return f"page {shown}" if len(numbers) == 1 else f"pages {shown}{' ...' if len(numbers) > 10 else ''}"


def _image_area(pdf_page: pymupdf.Page) -> pymupdf.Rect:
    """The union of the page's image boxes (empty when it has none)."""
    area = pymupdf.Rect()
    for info in pdf_page.get_image_info():
        area |= pymupdf.Rect(info["bbox"]) & pdf_page.rect
    return area


def _ocr_reason(pdf_page: pymupdf.Page, lines: list[_Line], garbage: bool) -> str:
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


def _ocr_lines(pdf_page: pymupdf.Page, lines: list[_Line], reason: str, settings: Settings) -> list[_Line]:
    """The page's lines read with OCR. A page of pictures with a little real text (a footer) keeps that text
    and has only its pictures read, so the footer stays exactly as written (and is found as a running footer)."""
    clip = _image_area(pdf_page) if reason == _MOSTLY_IMAGES else None
    kept = [line for line in lines if clip is not None and not clip.intersects(line.rect)]
    read = ocr_page(pdf_page, language=settings.ocr_language, dpi=settings.ocr_dpi,
                    cache_dir=settings.storage / "ocr_cache", clip=clip)  # fmt: skip
    first = max((line.block for line in kept), default=-1) + 1  # OCR paragraphs numbered after the text blocks
    ocr_lines = [_Line(line.text, pymupdf.Rect(line.rect), float(round(line.rect[3] - line.rect[1])), False,
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


def _read_pages(doc: pymupdf.Document, warnings: list[str], settings: Settings) -> tuple[list[_Page], _Reading]:
    """Every page's lines and tables (OCR'd where needed); unreadable pages come back empty (and are counted)."""
    pages = []
    reading = _Reading()
    for index in range(doc.page_count):
        page = _Page(index + 1)
        pdf_page = None
        try:
            pdf_page = doc.load_page(index)
            page.tables = _tables(pdf_page)
            page.lines = _lines(pdf_page, [rect for rect, _ in page.tables])
        except _PAGE_ERRORS as err:
            warnings.append(f"page {page.number}: could not be read ({err}), skipped")
            page = _Page(index + 1)
        text = "\n".join([line.text for line in page.lines] + [t for _, t in page.tables])
        garbage = bool(text.strip()) and garbage_ratio(text) > GARBAGE_PAGE_THRESHOLD
        reason = _ocr_reason(pdf_page, page.lines, garbage) if pdf_page is not None and settings.ocr_enabled else ""
        if reason and not reading.ocr_missing:
            try:
                page = _Page(index + 1, lines=_ocr_lines(pdf_page, page.lines, reason, settings), ocr=True)  # type: ignore[arg-type]
                reading.ocr.append(page.number)
                garbage = False
            except DocumentReadError as err:
                reading.ocr_missing = str(err)
        if garbage:
            reading.garbage.append(page.number)
            page = _Page(index + 1)
        for line in page.lines:  # a readable page may still carry a few symbol-font glyphs
            line.text = strip_unreadable(line.text).strip()
        page.lines = [line for line in page.lines if line.text]
        page.tables = [(rect, strip_unreadable(markdown)) for rect, markdown in page.tables]
        pages.append(page)
    if reading.garbage:
        warnings.append(
            f"{_page_list(reading.garbage)}: mostly unreadable text (possible font encoding problem), skipped"
        )
    if reading.ocr:
        warnings.append(f"{_page_list(reading.ocr)}: read with OCR (scanned or image-only); quotes are its reading")
    if reading.ocr_missing:
        warnings.append(f"some pages need OCR, which could not run: {reading.ocr_missing}")
    return pages, reading


def _strip_margins(pages: list[_Page]) -> None:
    ordered = [sorted(p.lines, key=lambda line: (round(line.rect.y0), line.rect.x0)) for p in pages]
    drops = find_margin_lines([[line.text for line in lines] for lines in ordered])
    for page, lines, drop in zip(pages, ordered, drops):
        gone = {id(lines[i]) for i in drop}
        page.lines = [line for line in page.lines if id(line) not in gone]


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
    doc = _open(path)
    with doc:
        warnings: list[str] = []
        if doc.is_repaired:
            warnings.append("the PDF was damaged and has been repaired; some content may be missing")
        meta = doc.metadata or {}
        pages, reading = _read_pages(doc, warnings, settings)
        total = doc.page_count
    if not any(p.lines or p.tables for p in pages):
        if reading.ocr_missing:
            raise DocumentReadError(f"{path.name}: {reading.ocr_missing}")
        if reading.garbage:
            raise DocumentReadError(
                f"{path.name}: every page is unreadable text (a font encoding problem). "
                "Export the PDF again with embedded fonts or from the original document."
            )
        tried = " and OCR found none on its images" if reading.ocr else ""
        hint = "" if settings.ocr_enabled else f" (OCR is off: set RAG_OCR_ENABLED=1; it needs {OCR_PACKAGES})"
        raise DocumentReadError(
            f"{path.name} has no extractable text{tried}{hint}. Use a PDF with a text layer or a clearer scan."
        )
    _strip_margins(pages)
    body_size = _body_size(pages)
    blocks: list[Block] = []
    section = ""
    for page in pages:
        page_blocks, section = _page_blocks(page, body_size, section)
        blocks.extend(page_blocks)
    first_heading = next((b.text for b in blocks if b.kind == "heading"), "")
    return ParsedDocument(
        blocks=tuple(blocks),
        total_pages=total,
        title=normalize_text(meta.get("title") or "") or first_heading,
        date=iso_date(meta.get("creationDate") or "") or iso_date(meta.get("modDate") or "") or date,
        warnings=tuple(warnings),
        ocr_pages=tuple(reading.ocr),
    )
