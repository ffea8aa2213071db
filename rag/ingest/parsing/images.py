"""Scanned pages saved as images (PNG, JPEG, TIFF, BMP, GIF, WebP, AVIF): read as the pages of a PDF, with OCR.

A phone photo of a handout, a scanner's TIFF (one page per frame) or a screenshot of a slide has no text layer:
each image becomes one page of an in-memory PDF and ``rag.ingest.parsing.pdf`` reads it like any scanned page.
A page's size is the image's at the resolution it was scanned with, so OCR, which renders a page at the OCR
resolution, reads a 300-dpi scan's own pixels; an image that gives no scanning resolution (96 dpi or less: photos,
screenshots) is taken for a scan at the OCR resolution, so its pixels are read as they are, never enlarged.
"""

from __future__ import annotations

import io
from pathlib import Path

import pymupdf

from rag.errors import DocumentReadError

SCAN_DPI_FLOOR = 150
"""The lowest resolution an image's header is believed as its scanning resolution (screens write 72 or 96)."""
_READ_ERRORS = (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase)  # what MuPDF raises on a broken image
MAX_PIXELS = 150_000_000
"""Pixels of one image at most (an A0 poster at 300 dpi has 140 million): a bigger one would exhaust memory."""


def image_pages(path: Path, ocr_dpi: int, *, data: bytes | None = None) -> pymupdf.Document:
    """The image file as an in-memory PDF, one page per image (per frame of a TIFF), white under transparency.

    Args:
        path: the image file (with ``data``: the name the image goes by in messages).
        ocr_dpi: the resolution OCR renders pages at (``Settings.ocr_dpi``).
        data: the image's bytes, when it is not a file of its own (a picture inside a presentation).

    Raises:
        DocumentReadError: the file is damaged, cut short or not an image MuPDF reads, or an image is too big.
    """
    try:
        with open_image(path, data) as images, pymupdf.open("pdf", images.convert_to_pdf()) as converted:
            pdf = _as_scanned_pages(path, converted, ocr_dpi)
    except _READ_ERRORS as err:
        raise DocumentReadError(
            f"{path.name} is damaged or not a complete image and could not be opened ({err}). "
            "Get an intact copy or save it again as PNG or JPEG."
        ) from err
    if pdf.page_count == 0:
        raise DocumentReadError(f"{path.name} holds no image. Check the file and try again.")
    return pdf


def open_image(path: Path, data: bytes | None = None) -> pymupdf.Document:
    """The image file (or ``data``) opened by MuPDF; a format MuPDF does not read (WebP, AVIF) is converted to PNG
    with Pillow first, its first frame over white, its resolution kept.

    Raises:
        what MuPDF raises (``_READ_ERRORS``) when neither reads it.
    """
    try:
        return pymupdf.open(stream=data) if data is not None else pymupdf.open(path)
    except _READ_ERRORS:
        converted = _png_by_pillow(path, data if data is not None else path.read_bytes())
        if converted is None:
            raise
        return pymupdf.open(stream=converted)


def _png_by_pillow(path: Path, data: bytes) -> bytes | None:
    """``data`` as a PNG (None when Pillow does not read it either).

    Raises:
        DocumentReadError: the image has more than ``MAX_PIXELS`` pixels (known before any is decoded).
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise DocumentReadError(
                    f"{path.name}: the image is {width}×{height} pixels, over {MAX_PIXELS // 1_000_000} million. "
                    "Scale it down (300 dpi is enough for OCR) and try again."
                )
            image.seek(0)
            flat = Image.new("RGB", image.size, "white")
            flat.paste(image.convert("RGBA"), mask=image.convert("RGBA"))
            out = io.BytesIO()
            flat.save(out, format="PNG", dpi=image.info.get("dpi", (72, 72)))
            return out.getvalue()
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError):
        return None


def _as_scanned_pages(path: Path, converted: pymupdf.Document, ocr_dpi: int) -> pymupdf.Document:
    """One page per page of ``converted`` (MuPDF's PDF of the images), sized by its image's scanning resolution."""
    pdf = pymupdf.open()
    for number in range(1, converted.page_count + 1):
        page = converted[number - 1]
        pictures = page.get_images()
        if not pictures:
            continue
        width, height = pictures[0][2], pictures[0][3]
        if width * height > MAX_PIXELS:
            raise DocumentReadError(
                f"{path.name}: image {number} is {width}×{height} pixels, over {MAX_PIXELS // 1_000_000} "
                "million. Scale it down (300 dpi is enough for OCR) and try again."
            )
        dpi = width * 72 / page.rect.width
        scanned_at = dpi if dpi >= SCAN_DPI_FLOOR else ocr_dpi
        pixels = page.get_pixmap(dpi=round(dpi), alpha=False)  # the image's own pixels, over white
        target = pdf.new_page(width=pixels.width * 72 / scanned_at, height=pixels.height * 72 / scanned_at)
        target.insert_image(target.rect, pixmap=pixels)
    return pdf
