"""Office Open XML: DOCX (python-docx) and XLSX (openpyxl), and the inflated-size check every OOXML file passes."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import docx
import openpyxl
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml.etree import XMLSyntaxError
from openpyxl.utils.cell import coordinate_to_tuple
from openpyxl.utils.exceptions import InvalidFileException

from rag.errors import DocumentReadError
from rag.ingest.metadata import iso_date
from rag.ingest.parsing.charts import chart_table
from rag.ingest.parsing.diagrams import diagram_texts
from rag.ingest.parsing.pictures import PictureReader
from rag.ingest.parsing.sheet_layout import merged_ranges, sheet_table
from rag.ingest.parsing.sheet_overlays import A4_EMU_AREA, Drawing, SheetOverlays, sheet_overlays
from rag.ingest.parsing.tabular import format_cell, render_markdown_table, table_blocks
from rag.ingest.parsing.word_lists import WordListNumbers
from rag.ingest.parsing.word_text import WordNotes, body_items, box_texts, cell_text, chart_parts, paragraph_text
from rag.ingest.text_cleanup import normalize_text
from rag.records import Block, ParsedDocument
from rag.settings import Settings

_HEADING_STYLE = re.compile(r"^(?:heading|見出し)\s*(\d)$|^(title|表題)$", re.IGNORECASE)
_READ_ERRORS = (zipfile.BadZipFile, PackageNotFoundError, InvalidFileException, KeyError, ParseError, ValueError)
MAX_INFLATED_MB = 256
"""Most an Office file may unpack to: its XML is parsed in memory at several times its size."""
MAX_INFLATION_RATIO = 100
"""Above this unpacked/packed ratio (and past 32 MB unpacked) a file is a ZIP bomb, not a document."""


def check_inflated_size(path: Path, what: str) -> None:
    """Refuse an Office file (a ZIP) whose parts unpack to more than the engine will hold in memory.

    Python's zipfile never inflates a member past its declared size, so the declared sizes bound the work.

    Args:
        path: the file.
        what: ``Word``, ``Excel`` or ``PowerPoint``, for the message.

    Raises:
        DocumentReadError: the file would unpack past ``MAX_INFLATED_MB``, or is a ZIP bomb.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as err:
        raise DocumentReadError(
            f"{path.name} is damaged or not a real {what} file ({err}). Open it and save it again."
        ) from err
    inflated = sum(m.file_size for m in members)
    packed = max(1, sum(m.compress_size for m in members))
    bomb = inflated > 32 * 1024 * 1024 and inflated / packed > MAX_INFLATION_RATIO
    if inflated > MAX_INFLATED_MB * 1024 * 1024 or bomb:
        raise DocumentReadError(
            f"{path.name} unpacks from {packed / 1024 / 1024:.1f} MB to {inflated / 1024 / 1024:.0f} MB, more than "
            f"{'an' if what[0] in 'AEIOU' else 'a'} {what} document should "
            f"(limit {MAX_INFLATED_MB} MB, {MAX_INFLATION_RATIO}x): it was refused to protect "
            "memory. If it is a genuine document, split it into smaller files."
        )


def _is_heading(paragraph: Paragraph) -> bool:
    try:
        style = paragraph.style.name if paragraph.style is not None else ""
    except (KeyError, AttributeError):  # a style id the styles part does not define
        style = ""
    return bool(style) and _HEADING_STYLE.match(style.strip()) is not None


def _docx_table(table: Table) -> str:
    # a merged cell repeats its text in every grid column it spans, which keeps columns aligned
    rows = [[cell_text(cell) for cell in row.cells] for row in table.rows]
    return render_markdown_table(rows[0], rows[1:]) if rows else ""


def _pictures(paragraph: Paragraph, document: Any) -> list[tuple[bytes, float]]:
    """The pictures drawn in ``paragraph`` (inline or floating), each with the area it is shown at (EMU²)."""
    found: list[tuple[bytes, float]] = []
    for drawing in paragraph._element.xpath(".//w:drawing"):
        extents, embeds = drawing.xpath(".//wp:extent"), drawing.xpath(".//a:blip/@r:embed")
        part = document.part.related_parts.get(embeds[0]) if embeds else None
        if extents and part is not None:
            found.append((part.blob, int(extents[0].get("cx", 0)) * int(extents[0].get("cy", 0))))
    return found


def parse_docx(path: Path, date: str, settings: Settings) -> ParsedDocument:
    """Read a DOCX: paragraphs in order, ``Heading N`` / ``Title`` styles as sections, tables as markdown, and a
    picture covering a good part of the page (a pasted scan) read with OCR in its place
    (``rag.ingest.parsing.pictures``). Text nested where python-docx does not read it (tracked insertions,
    content controls) is read; text boxes, the figures of charts (``rag.ingest.parsing.charts``), the nodes of
    SmartArt (``rag.ingest.parsing.diagrams``) and the footnotes and endnotes a paragraph refers to follow it; the
    running header comes first and the footer last (``rag.ingest.parsing.word_text``).

    A list paragraph starts with the number or bullet Word prints for it (``rag.ingest.parsing.word_lists``).

    Args:
        path: the file.
        date: fallback date (file mtime) when the core properties carry none.
        settings: ``ocr_enabled``, ``ocr_language``, ``ocr_dpi`` and the storage folder (OCR cache) are used.

    Raises:
        DocumentReadError: the file is not a readable Word document or has no text.
    """
    try:
        document = docx.Document(str(path))
        props = document.core_properties
        doc_date = iso_date(props.created) or iso_date(props.modified) or date
        title = normalize_text(props.title or "")
        blocks: list[Block] = []
        section = ""
        numbers = WordListNumbers.of(document)
        notes = WordNotes(document)

        def related_blob(rid: str) -> bytes | None:  # a SmartArt graphic's data part
            related = document.part.related_parts
            return bytes(related[rid].blob) if rid in related else None

        # the running header before the body, the footer after it, as a page shows them
        blocks += [Block(text=text) for t in notes.headers if (text := normalize_text(t))]
        pictures, drawn = PictureReader(path, settings), 0
        first = document.sections[0] if document.sections else None
        page = (first.page_width or 0) * (first.page_height or 0) if first is not None else 0
        for item in body_items(document):
            if isinstance(item, Paragraph):
                label = numbers.label(item)  # counted even when the paragraph is empty, as Word counts it
                own = paragraph_text(item._element)
                text = normalize_text(f"{label} {own}" if label and own.strip() else own)
                if text and _is_heading(item):
                    section = text
                    blocks.append(Block(text=text, kind="heading", section=section))
                elif text:
                    blocks.append(Block(text=text, section=section))
                # what the paragraph's text boxes say, then the notes it refers to, as a reader meets them
                for aside in [*box_texts(item), *notes.referenced_in(item)]:
                    if aside_text := normalize_text(aside):
                        blocks.append(Block(text=aside_text, section=section))
                for chart in chart_parts(item):
                    if figures := chart_table(chart):
                        blocks.append(Block(text=figures, kind="table", section=section))
                blocks += [Block(text=t, section=section) for t in diagram_texts(item._element, related_blob)]
                for image, area in _pictures(item, document):
                    drawn += 1
                    blocks.extend(
                        pictures.blocks(image, area=area, whole=page, label=f"picture {drawn}", section=section)
                    )
            elif isinstance(item, Table) and (markdown := _docx_table(item)):
                blocks.append(Block(text=markdown, kind="table", section=section))
        blocks += [Block(text=text, section=section) for t in notes.footers if (text := normalize_text(t))]
    except XMLSyntaxError as err:
        raise DocumentReadError(
            f"{path.name}: its XML could not be parsed ({err}). A single stretch of text over 10 MB without a "
            "break cannot be read; split that text into paragraphs (or save the document again from Word)."
        ) from err
    except _READ_ERRORS as err:
        raise DocumentReadError(
            f"{path.name} is not a readable Word document ({type(err).__name__}: {err}). "
            "Open it in Word and save it again as .docx."
        ) from err
    if not blocks:
        missing = f" ({pictures.missing})" if pictures.missing else ""
        raise DocumentReadError(
            f"{path.name} contains no text, and no picture in it has text OCR could read{missing}. "
            "Add content to the document and try again."
        )
    first_heading = next((b.text for b in blocks if b.kind == "heading"), "")
    return ParsedDocument(
        blocks=tuple(blocks), title=title or first_heading, date=doc_date, warnings=pictures.warnings()
    )


def parse_xlsx(path: Path, date: str, settings: Settings) -> ParsedDocument:
    """Read an XLSX: each sheet's table (``rag.ingest.parsing.sheet_layout``: merged cells filled, the title above it
    as its caption, a merged group header over its columns) as table blocks or, when wide, records; then what the sheet
    holds over its cells (``rag.ingest.parsing.sheet_overlays``): text boxes as text, charts as the table of their
    figures and a picture covering an eighth of an A4 page or more (a pasted screenshot) read with OCR, top to
    bottom; then each cell comment with its cell ("C5 (講義形式): …").

    Cached formula results are read (``data_only``); the sheet name becomes the section.

    Raises:
        DocumentReadError: the file is not a readable workbook or every sheet is empty.
    """
    try:
        # a file object, not the path: openpyxl refuses names not ending in .xlsx (sniffed files may differ)
        data = path.read_bytes()
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except OSError as err:
        raise DocumentReadError(f"{path.name} could not be read ({err}).") from err
    except _READ_ERRORS as err:
        raise DocumentReadError(
            f"{path.name} is not a readable Excel workbook ({type(err).__name__}: {err}). "
            "Open it in Excel and save it again as .xlsx."
        ) from err
    pictures = PictureReader(path, settings)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:  # openpyxl opened it: a sound package
            overlays = sheet_overlays(package)
            merges = merged_ranges(package)
        props = workbook.properties
        doc_date = iso_date(props.created) or iso_date(props.modified) or date
        blocks: list[Block] = []
        for sheet in workbook.worksheets:
            grid = [list(r) for r in sheet.iter_rows(values_only=True)]
            name = normalize_text(sheet.title)
            table = sheet_table(grid, merges.get(name, ()))
            held = overlays.get(name, SheetOverlays())
            if table is None and not held.drawings and not held.comments:
                continue
            blocks.append(Block(text=name, kind="heading", section=name))
            if table is not None:
                if table.caption:
                    blocks.append(Block(text="\n".join(table.caption), section=name))
                blocks.extend(table_blocks(table.header, table.rows, section=name, row_numbers=table.row_numbers))
            blocks.extend(_drawing_blocks(held.drawings, name, pictures))
            blocks.extend(Block(text=_comment_line(ref, text, grid), section=name) for ref, text in held.comments)
        title = normalize_text(props.title or "")
    finally:
        workbook.close()
    if not any(b.kind != "heading" for b in blocks):
        missing = f" ({pictures.missing})" if pictures.missing else ""
        raise DocumentReadError(f"{path.name}: every sheet is empty{missing}. Add data to the workbook and try again.")
    return ParsedDocument(blocks=tuple(blocks), title=title, date=doc_date, warnings=pictures.warnings())


def _comment_line(ref: str, comment: str, grid: list[list[Any]]) -> str:
    """A cell comment with the cell it is on and what the cell holds: "C5 (講義形式): 小泉 悟: 事前に…"."""
    try:
        row, column = coordinate_to_tuple(ref)
        value = grid[row - 1][column - 1] if row <= len(grid) and column <= len(grid[row - 1]) else None
    except (ValueError, TypeError):
        value = None
    shown = normalize_text(format_cell(value)) if value is not None else ""
    return f"{ref} ({shown}): {comment}" if shown else f"{ref}: {comment}"


def _drawing_blocks(drawings: Sequence[Drawing], sheet: str, pictures: PictureReader) -> list[Block]:
    """The blocks of what a sheet draws, in the order given: text boxes, charts' figures, pictures' OCR."""
    blocks: list[Block] = []
    for n, drawing in enumerate(drawings, start=1):
        if drawing.text:
            blocks.append(Block(text=drawing.text, section=sheet))
        elif drawing.table:
            blocks.append(Block(text=drawing.table, kind="table", section=sheet))
        elif drawing.picture:
            label = f"sheet {sheet}, picture {n}"
            blocks += pictures.blocks(drawing.picture, area=drawing.area, whole=A4_EMU_AREA, label=label, section=sheet)
    return blocks
