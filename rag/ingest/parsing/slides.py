"""PowerPoint (python-pptx): each slide's title, text boxes, tables, charts (as the table of figures they plot,
``rag.ingest.parsing.charts``), SmartArt (``rag.ingest.parsing.diagrams``) and speaker notes; the page is the slide
number.

A picture that covers a good part of its slide (a scanned handout, a screenshot of a table or a form) is read with
OCR where its shape stands in the slide's reading order (``rag.ingest.parsing.pictures``).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import pptx
from lxml.etree import XMLSyntaxError
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.exc import PackageNotFoundError

from rag.errors import DocumentReadError
from rag.ingest.metadata import iso_date
from rag.ingest.parsing.charts import chart_table
from rag.ingest.parsing.diagrams import diagram_texts
from rag.ingest.parsing.pictures import PictureReader
from rag.ingest.parsing.tabular import render_markdown_table
from rag.ingest.text_cleanup import normalize_text
from rag.records import Block, ParsedDocument
from rag.settings import Settings

_READ_ERRORS = (zipfile.BadZipFile, PackageNotFoundError, KeyError, ParseError, XMLSyntaxError, ValueError)


def _shapes_in_reading_order(shapes: Any) -> Iterator[Any]:
    """Shapes top to bottom, left to right; a group's shapes take the group's place."""
    ordered = sorted(shapes, key=lambda s: (s.top or 0, s.left or 0))
    for shape in ordered:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shapes_in_reading_order(shape.shapes)
        else:
            yield shape


def _shape_text(shape: Any) -> str:
    # a line break inside a paragraph comes out as a vertical tab
    return normalize_text("\n".join(p.text.replace("\v", "\n") for p in shape.text_frame.paragraphs))


def _picture(shape: Any) -> bytes:
    """The image of a picture shape, or of a placeholder holding one (b"" for any other shape)."""
    try:
        return bytes(shape.image.blob)
    except (AttributeError, KeyError, ValueError):
        return b""


def _slide_blocks(slide: Any, number: int, pictures: PictureReader, slide_area: float) -> list[Block]:
    title_shape = slide.shapes.title
    title = _shape_text(title_shape) if title_shape is not None and title_shape.has_text_frame else ""
    section = title.replace("\n", " ") or f"Slide {number}"
    blocks = [Block(text=section, kind="heading", page=number, section=section)] if title else []

    def parts(rid: str) -> bytes | None:  # a SmartArt graphic's data part
        try:
            return bytes(slide.part.related_part(rid).blob)
        except KeyError:
            return None

    for shape in _shapes_in_reading_order(slide.shapes):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if shape.has_text_frame and (text := _shape_text(shape)):
            blocks.append(Block(text=text, page=number, section=section))
        elif image := _picture(shape):
            area = (shape.width or 0) * (shape.height or 0)
            label = f"slide {number}, {shape.name}"
            blocks.extend(
                pictures.blocks(image, area=area, whole=slide_area, label=label, page=number, section=section)
            )
        elif getattr(shape, "has_chart", False) and (figures := chart_table(shape.chart_part.blob)):
            blocks.append(Block(text=figures, kind="table", page=number, section=section))
        elif getattr(shape, "has_table", False):
            rows = [[cell.text for cell in row.cells] for row in shape.table.rows]
            if rows and (markdown := render_markdown_table(rows[0], rows[1:])):
                blocks.append(Block(text=markdown, kind="table", page=number, section=section))
        else:
            blocks += [Block(text=t, page=number, section=section) for t in diagram_texts(shape.element, parts)]
    if slide.has_notes_slide and (frame := slide.notes_slide.notes_text_frame) is not None:
        if notes := normalize_text(frame.text):
            blocks.append(Block(text=notes, page=number, section=f"{section} (notes)"))
    return blocks


def parse_pptx(path: Path, date: str, settings: Settings) -> ParsedDocument:
    """Read a PPTX slide by slide: the title is the section, text boxes and large pictures (with OCR) in reading
    order, tables and charts' figures as markdown, speaker notes last (section ``<title> (notes)``).

    Args:
        path: the file.
        date: fallback date (file mtime) when the core properties carry none.
        settings: ``ocr_enabled``, ``ocr_language``, ``ocr_dpi`` and the storage folder (OCR cache) are used.

    Returns:
        Blocks with the slide number as the page; ``total_pages`` is the slide count; ``ocr_pages`` the slides
        whose pictures were read with OCR.

    Raises:
        DocumentReadError: the file is not a readable presentation, or no slide has text.
    """
    try:
        presentation = pptx.Presentation(str(path))
        props = presentation.core_properties
        pictures = PictureReader(path, settings)
        slide_area = (presentation.slide_width or 0) * (presentation.slide_height or 0)
        blocks = [
            b
            for number, slide in enumerate(presentation.slides, start=1)
            for b in _slide_blocks(slide, number, pictures, slide_area)
        ]
        total = len(presentation.slides)
    except _READ_ERRORS as err:
        raise DocumentReadError(
            f"{path.name} is not a readable PowerPoint file ({type(err).__name__}: {err}). "
            "Open it in PowerPoint and save it again as .pptx."
        ) from err
    if not blocks:
        raise DocumentReadError(
            f"{path.name}: no slide has text, and no picture on them has text OCR could read"
            + (f" ({pictures.missing})" if pictures.missing else "")
            + ". Check that the slides are not blank."
        )
    first_heading = next((b.text for b in blocks if b.kind == "heading"), "")
    return ParsedDocument(
        blocks=tuple(blocks),
        total_pages=max(total, 1),
        title=normalize_text(props.title or "") or first_heading,
        date=iso_date(props.created) or iso_date(props.modified) or date,
        warnings=pictures.warnings("slides"),
        ocr_pages=tuple(pictures.pages),
    )
