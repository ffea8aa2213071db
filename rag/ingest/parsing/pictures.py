"""Pictures inside Office documents read with OCR: a scan or a screenshot pasted into a slide or a Word page.

A picture that covers a good part of its slide or page (``PICTURE_SHARE``) is read as a scanned PDF page is
(``rag.ingest.parsing.images`` makes it a page, ``rag.ingest.parsing.pdf`` reads it); a logo or an icon is left
alone. Its blocks carry ``ocr=True`` and take the place of the picture in the document.
"""

from __future__ import annotations

from pathlib import Path

from rag.errors import DocumentReadError
from rag.records import OCR, Block
from rag.settings import Settings

PICTURE_SHARE = 0.125
"""Share of its slide or page a picture must cover to be read with OCR: a screenshot or a scan does, a logo not."""


class PictureReader:
    """Reads one document's large pictures with OCR (``settings.ocr_enabled``) and remembers what that found.

    Attributes:
        read: how many pictures gave text.
        pages: the pages (slides) those pictures are on, for formats with pages.
        missing: why OCR could not run (Tesseract missing), once a picture needed it.
    """

    def __init__(self, path: Path, settings: Settings) -> None:
        self._path, self._settings = path, settings
        self.read = 0
        self.pages: list[int] = []
        self.missing = ""

    def blocks(
        self, image: bytes, *, area: float, whole: float, label: str, page: int | None = None, section: str = ""
    ) -> list[Block]:
        """The text of a picture read with OCR ([] when it is small beside ``whole``, has no text, or OCR is off).

        Args:
            image: the picture's bytes (PNG, JPEG ...).
            area: the area the picture is shown at; ``whole``: its slide's or page's, in the same unit.
            label: how the picture is named in messages ("slide 3, Picture 2").
            page: the page (slide) number its blocks get; ``section``: their section.
        """
        if not self._settings.ocr_enabled or self.missing or whole <= 0 or area < PICTURE_SHARE * whole:
            return []
        from rag.ingest.parsing.images import image_pages
        from rag.ingest.parsing.ocr import check_languages
        from rag.ingest.parsing.pdf import read_pdf

        try:
            check_languages(self._settings.ocr_language)  # Tesseract and its languages are there
        except DocumentReadError as err:
            self.missing = str(err)
            return []
        name = self._path.with_name(f"{self._path.name} ({label})")
        try:
            read = read_pdf(name, image_pages(name, self._settings.ocr_dpi, data=image), "", self._settings)
        except DocumentReadError:  # no text on the picture, or a broken image
            return []
        self.read += 1
        if page is not None and page not in self.pages:
            self.pages.append(page)
        return [Block(text=b.text, kind=b.kind, page=page, section=section, metadata={OCR: True}) for b in read.blocks]

    def warnings(self, pages_called: str = "") -> tuple[str, ...]:
        """What a person should know: where pictures were read (``pages_called``: "slides"), or why they were not."""
        found = []
        if self.read:
            where = f"{pages_called} {', '.join(map(str, self.pages))}: " if pages_called and self.pages else ""
            found.append(f"{where}{self.read} picture{'s' if self.read > 1 else ''} read with OCR")
        if self.missing:
            found.append(f"some pictures need OCR, which could not run: {self.missing}")
        return tuple(found)
