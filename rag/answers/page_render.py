"""Render one PDF page (or one scanned image) as a PNG with a quote highlighted, for the answer view's citations.

The document is opened read-only from its file and the highlight annotation is added to the in-memory copy;
nothing is ever saved back, so the indexed file stays untouched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf

from rag.errors import DocumentReadError
from rag.ingest.parsing.images import open_image
from rag.ingest.parsing.kinds import IMAGE_EXTENSIONS

_MIN_FRAGMENT = 4
_PREFIX_CHARS = 40
_SPLIT = re.compile(r"(?<=[。．！？.!?;；])\s*|\n+")


def render_pdf_page(path: Path, page: int, highlight: str = "", zoom: float = 1.5) -> bytes:
    """Render ``page`` (1-based) of the PDF at ``path`` as PNG bytes, with ``highlight`` marked.

    A quote that does not match the page's text as a whole (line breaks, hyphenation, normalization) is
    searched for sentence by sentence, then by its first words; a page without a match renders unmarked.

    Args:
        path: the PDF file.
        page: 1-based page number.
        highlight: the text to mark ("" renders the page without marks).
        zoom: scale factor (1.0 = 72 dpi).

    Returns:
        The PNG image.

    Raises:
        DocumentReadError: the file is missing, not a PDF, or cannot be rendered.
        ValueError: ``page`` is outside the document or ``zoom`` is not in (0, 8].
    """
    if not 0 < zoom <= 8:
        raise ValueError(f"zoom={zoom}; allowed: a number in (0, 8]")
    try:
        doc = open_image(path) if path.suffix.lower() in IMAGE_EXTENSIONS else pymupdf.open(path)
    except (RuntimeError, OSError) as err:  # pymupdf's FileDataError and EmptyFileError are RuntimeErrors
        raise DocumentReadError(f"Cannot open {path} to show its page: {err}. Re-index the source.") from err
    if not doc.is_pdf and path.suffix.lower() in IMAGE_EXTENSIONS:  # a scanned image: its frames are its pages
        with doc:
            doc = pymupdf.open("pdf", doc.convert_to_pdf())
    with doc:
        if not doc.is_pdf:
            raise DocumentReadError(f"{path} is not a PDF; only PDF pages can be shown as images.")
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"page={page}; allowed: 1..{doc.page_count} for {path.name}")
        pdf_page = doc[page - 1]
        quads = find_quads(pdf_page, highlight)
        if quads:
            annot = pdf_page.add_highlight_annot(quads)
            annot.update()
        try:
            pixmap = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), annots=True)
        except RuntimeError as err:
            raise DocumentReadError(f"Cannot render page {page} of {path}: {err}") from err
        return pixmap.tobytes("png")


def find_quads(pdf_page: pymupdf.Page, text: str) -> list[pymupdf.Quad]:
    """Where ``text`` appears on the page: the whole quote, else its sentences, else its opening words."""
    quote = " ".join(text.split())
    if len(quote) < _MIN_FRAGMENT:
        return []
    quads: list[pymupdf.Quad] = pdf_page.search_for(quote, quads=True)
    if quads:
        return quads
    for fragment in (part.strip() for part in _SPLIT.split(text)):
        fragment = " ".join(fragment.split())
        if len(fragment) >= _MIN_FRAGMENT:
            quads.extend(pdf_page.search_for(fragment, quads=True))
    if quads:
        return quads
    return pdf_page.search_for(quote[:_PREFIX_CHARS], quads=True)
