"""The one list of file kinds the engine reads, and what to tell a person about a file it does not read.

Folder scans, the upload widget and the parser dispatch all take their file name endings from here.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "IMAGE_EXTENSIONS",
    "KIND_BY_EXTENSION",
    "PAGE_IMAGE_EXTENSIONS",
    "SUPPORTED_EXTENSIONS",
    "SUPPORTED_TEXT",
    "is_ignored",
    "unsupported_message",
]

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".webp", ".avif")
"""Image files read as scanned pages (``rag.ingest.parsing.images``)."""
PAGE_IMAGE_EXTENSIONS = (".pdf", *IMAGE_EXTENSIONS)
"""Files whose pages can be shown as pictures, a cited quote on its page (``rag.answers.page_render``)."""

_KINDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # (kind, how a person calls it, name endings)
    ("pdf", "PDF", (".pdf",)),
    ("docx", "Word", (".docx",)),
    ("xlsx", "Excel", (".xlsx", ".xlsm")),
    ("pptx", "PowerPoint", (".pptx",)),
    ("html", "HTML", (".html", ".htm")),
    ("csv", "CSV/TSV", (".csv", ".tsv")),
    ("json", "JSON", (".json",)),
    ("jsonl", "JSON Lines", (".jsonl", ".ndjson")),
    ("markdown", "Markdown", (".md", ".markdown")),
    ("text", "plain text and chat exports", (".txt", ".text", ".log")),
    ("email", "e-mail", (".eml",)),
    ("image", "scanned images, read with OCR", IMAGE_EXTENSIONS),
)

KIND_BY_EXTENSION: dict[str, str] = {ext: kind for kind, _, exts in _KINDS for ext in exts}
"""Lower-case file name ending -> parser kind."""
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(KIND_BY_EXTENSION)
"""File name endings the engine reads (for upload widgets and folder scans)."""
SUPPORTED_TEXT = ", ".join(f"{label} ({', '.join(exts)})" for _, label, exts in _KINDS)
"""The supported kinds as a person reads them, for messages."""

_OLD_OFFICE = "an old binary Office format: open it and save it as .docx, .xlsx or .pptx"
_IMAGE = "an image format OCR cannot open: save it as PNG or JPEG"
_ARCHIVE = "an archive: unpack it and index the folder"
_ADVICE: dict[str, str] = {
    ".doc": _OLD_OFFICE, ".xls": _OLD_OFFICE, ".ppt": _OLD_OFFICE,
    ".rtf": "Rich Text: open it in Word or LibreOffice and save it as .docx",
    ".odt": "OpenDocument text: save it as .docx", ".ods": "an OpenDocument spreadsheet: save it as .xlsx",
    ".odp": "OpenDocument slides: save them as .pptx",
    ".pages": "Apple Pages: export it as Word or PDF", ".numbers": "Apple Numbers: export it as Excel",
    ".key": "Apple Keynote: export it as PowerPoint or PDF",
    ".epub": "an e-book: convert it to PDF or HTML",
    ".msg": "an Outlook e-mail: save it as .eml (or as PDF or text)",
    ".heic": _IMAGE, ".heif": _IMAGE,
    ".zip": _ARCHIVE, ".7z": _ARCHIVE, ".rar": _ARCHIVE, ".gz": _ARCHIVE, ".tar": _ARCHIVE,
}  # fmt: skip


def is_ignored(name: str) -> bool:
    """Files a folder scan passes over silently: hidden files and Office's ``~$`` lock files."""
    return name.startswith((".", "~$"))


def unsupported_message(path: Path) -> str:
    """Why ``path`` is not read and what to do instead, with the list of supported kinds."""
    ext = path.suffix.lower()
    what = f"{ext} files are not supported" if ext else "files without a name ending (.pdf, .txt ...) are not read"
    advice = f" ({_ADVICE[ext]})" if ext in _ADVICE else ""
    return f"{path.name}: {what}{advice}. Supported kinds: {SUPPORTED_TEXT}."
