"""PDF (PyMuPDF), page by page: text blocks with wraps joined, headings by font size/bold, tables as markdown.

Running headers/footers and page numbers are removed per document; pages whose text is mostly
unreadable (broken font encodings) are skipped with a warning.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymupdf

from rag.doc_metadata import iso_date
from rag.errors import DocumentReadError
from rag.parsing.tabular import render_markdown_table
from rag.records import Block, ParsedDocument
from rag.text_cleanup import (
    GARBAGE_PAGE_THRESHOLD,
    find_margin_lines,
    garbage_ratio,
    is_page_number,
    join_wrapped_lines,
    normalize_text,
    strip_unreadable,
)

pymupdf.TOOLS.mupdf_display_errors(False)  # MuPDF's repair chatter would go to stderr; we warn instead

_TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
_PAGE_ERRORS = (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase)
_HEADING_SCALE = 1.15
_HEADING_MAX_CHARS = 80


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


def _page_blocks(page: _Page, body_size: float, section: str) -> tuple[list[Block], str]:
    groups: dict[int, list[_Line]] = {}
    for line in page.lines:
        groups.setdefault(line.block, []).append(line)
    # text in content-stream order; each table goes before the first text block below its top edge
    items: list[tuple[float, str | None, list[_Line]]] = [(g[0].rect.y0, None, g) for g in groups.values()]
    for rect, markdown in sorted(page.tables, key=lambda t: t[0].y0):
        at = next((i for i, item in enumerate(items) if item[1] is None and item[0] >= rect.y0), len(items))
        items.insert(at, (rect.y0, markdown, []))
    blocks = []
    for _, table, lines in items:
        if table is not None:
            blocks.append(Block(text=table, kind="table", page=page.number, section=section))
        elif _is_heading(lines, body_size):
            section = join_wrapped_lines("\n".join(line.text for line in lines)).replace("\n", " ")
            blocks.append(Block(text=section, kind="heading", page=page.number, section=section))
        elif text := join_wrapped_lines("\n".join(line.text for line in lines)):
            blocks.append(Block(text=text, page=page.number, section=section))
    return blocks, section


def _page_list(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10])
    return f"page {shown}" if len(numbers) == 1 else f"pages {shown}{' ...' if len(numbers) > 10 else ''}"


def _read_pages(doc: pymupdf.Document, warnings: list[str]) -> tuple[list[_Page], int]:
    """Every page's lines and tables; unreadable pages come back empty (and are counted)."""
    pages = []
    garbage: list[int] = []
    for index in range(doc.page_count):
        page = _Page(index + 1)
        try:
            pdf_page = doc.load_page(index)
            page.tables = _tables(pdf_page)
            page.lines = _lines(pdf_page, [rect for rect, _ in page.tables])
        except _PAGE_ERRORS as err:
            warnings.append(f"page {page.number}: could not be read ({err}), skipped")
            page = _Page(index + 1)
        text = "\n".join([line.text for line in page.lines] + [t for _, t in page.tables])
        if text.strip() and garbage_ratio(text) > GARBAGE_PAGE_THRESHOLD:
            garbage.append(page.number)
            page = _Page(index + 1)
        for line in page.lines:  # a readable page may still carry a few symbol-font glyphs
            line.text = strip_unreadable(line.text).strip()
        page.lines = [line for line in page.lines if line.text]
        page.tables = [(rect, strip_unreadable(markdown)) for rect, markdown in page.tables]
        pages.append(page)
    if garbage:
        warnings.append(f"{_page_list(garbage)}: mostly unreadable text (possible font encoding problem), skipped")
    return pages, len(garbage)


def _strip_margins(pages: list[_Page]) -> None:
    ordered = [sorted(p.lines, key=lambda line: (round(line.rect.y0), line.rect.x0)) for p in pages]
    drops = find_margin_lines([[line.text for line in lines] for lines in ordered])
    for page, lines, drop in zip(pages, ordered, drops):
        gone = {id(lines[i]) for i in drop}
        page.lines = [line for line in page.lines if id(line) not in gone]


def parse_pdf(path: Path, date: str) -> ParsedDocument:
    """Read a PDF page by page.

    Args:
        path: the file.
        date: fallback date (file mtime) when the PDF metadata has no creation date.

    Returns:
        Blocks in reading order with 1-based page numbers; warnings for a repaired file and for
        skipped pages.

    Raises:
        DocumentReadError: damaged beyond repair, password-protected, no pages, no extractable text
            (scanned images), or every page unreadable.
    """
    doc = _open(path)
    with doc:
        warnings: list[str] = []
        if doc.is_repaired:
            warnings.append("the PDF was damaged and has been repaired; some content may be missing")
        meta = doc.metadata or {}
        pages, skipped = _read_pages(doc, warnings)
        total = doc.page_count
    if not any(p.lines or p.tables for p in pages):
        if skipped:
            raise DocumentReadError(
                f"{path.name}: every page is unreadable text (a font encoding problem). "
                "Export the PDF again with embedded fonts or from the original document."
            )
        raise DocumentReadError(
            f"{path.name} has no extractable text (it may be scanned images; OCR is not supported). "
            "Use a PDF with a text layer."
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
    )
