"""The bad inputs ``bench/faults.py`` drops in: each with the outcome a user should see.

Every input goes through the path the upload page uses (``RagService.index_uploads``: the name the browser sent,
the bytes) except the two that only a folder can hold (a symlink loop, one content under two names), which go
through a folder scan as ``python -m rag index DIR`` does. An input meets its expectation when its outcome is:

- ``refused``: failed or skipped, with a message that is not a traceback;
- ``warned``: indexed, with a warning saying what was wrong (a PDF named .txt, a repaired PDF ...);
- ``read``: indexed, stored under a safe name inside the uploads folder (hostile names).
"""

from __future__ import annotations

import io
import os
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rag.records import FileOutcome  # noqa: E402
from tests.docmaker import (  # noqa: E402
    EN_PARAGRAPHS,
    JA_PARAGRAPHS,
    Slide,
    inflate_part,
    make_docx,
    make_pdf,
    make_pptx,
    make_xlsx,
)

TEXT = "\n\n".join(JA_PARAGRAPHS[:2] + EN_PARAGRAPHS[:2])


@dataclass(frozen=True, slots=True)
class BadInput:
    kind: str  # what the user dropped in, in words
    name: str  # the name the browser sends
    expect: str  # refused, warned or read
    data: bytes


def _pdf(tmp: Path, **options: str) -> bytes:
    return make_pdf(tmp / "made.pdf", [JA_PARAGRAPHS[0], EN_PARAGRAPHS[0]], **options).read_bytes()


def _bomb(tmp: Path, make: Callable[[Path], Path], part: str) -> bytes:
    """An Office file whose ``part`` is 300 MB of spaces: about 0.3 MB packed."""
    xml = b'<?xml version="1.0" encoding="UTF-8"?>\n' + b" " * (300 * 1024 * 1024)
    return inflate_part(make(tmp / "bomb"), part, xml).read_bytes()


def _truncated_pdf(tmp: Path) -> bytes:
    """A real multi-page PDF cut before its cross-reference table: PyMuPDF repairs it."""
    doc = pymupdf.open()
    for paragraph in EN_PARAGRAPHS[:3]:
        doc.new_page().insert_text((72, 72), paragraph[:80])
    data = doc.tobytes()
    return data[: data.rfind(b"xref")]


def uploads(tmp: Path, limit_mb: int) -> list[BadInput]:
    """The inputs sent as uploads (name and bytes), at least one of each kind the fault issue lists; ``limit_mb`` is
    the engine's file size limit (``Settings.max_file_mb``)."""
    tmp.mkdir(parents=True, exist_ok=True)
    pdf = _pdf(tmp)
    return [
        BadInput(
            "corrupt PDF (random bytes after the header)", "garbage.pdf", "refused", b"%PDF-1.7\n" + os.urandom(4000)
        ),
        BadInput(
            "PDF with no pages",
            "nopages.pdf",
            "refused",
            b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n",
        ),
        BadInput("truncated PDF (cut before its xref)", "truncated.pdf", "warned", _truncated_pdf(tmp)),
        BadInput("encrypted PDF", "secret.pdf", "refused", _pdf(tmp, user_password="pw")),
        BadInput("zero-byte file", "empty.txt", "refused", b""),
        BadInput("whitespace-only text", "blank.md", "refused", b" \n\t\n   \n"),
        BadInput("PDF named .txt", "report.txt", "warned", pdf),
        BadInput("text named .pdf", "notes.pdf", "warned", b"notes " + TEXT.encode()),
        BadInput("binary garbage named .txt", "binary.txt", "refused", os.urandom(3000)),
        BadInput("random bytes named .docx", "random.docx", "refused", os.urandom(5000)),
        BadInput("PNG image named .pdf", "image.pdf", "refused", b"\x89PNG\r\n\x1a\n" + os.urandom(500)),
        BadInput("double-encoded (mojibake) text", "mojibake.txt", "refused", TEXT.encode().decode("latin-1").encode()),
        BadInput(
            "ZIP without Word parts named .docx",
            "not_word.docx",
            "refused",
            _zip({"word/document.xml": "<w:document>" + "a" * 1000 + "</w:document>"}),
        ),
        BadInput(
            "DOCX ZIP bomb",
            "bomb.docx",
            "refused",
            _bomb(tmp, lambda p: make_docx(p.with_suffix(".docx"), ["本文"]), "word/document.xml"),
        ),
        BadInput(
            "XLSX ZIP bomb",
            "bomb.xlsx",
            "refused",
            _bomb(tmp, lambda p: make_xlsx(p.with_suffix(".xlsx"), {"表": [["a"], [1]]}), "xl/worksheets/sheet1.xml"),
        ),
        BadInput(
            "PPTX ZIP bomb",
            "bomb.pptx",
            "refused",
            _bomb(tmp, lambda p: make_pptx(p.with_suffix(".pptx"), [Slide(title="題")]), "ppt/slides/slide1.xml"),
        ),
        BadInput(
            "old binary Office file (.doc)",
            "old.doc",
            "refused",
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + os.urandom(2000),
        ),
        BadInput("JSON nested 5,000 levels", "deep.json", "refused", b"[" * 5000 + b"]" * 5000),
        BadInput("JSON cut off mid-record", "broken.json", "refused", b'{"records": [{"text": "a", "id": '),
        BadInput(
            "CSV with broken quoting",
            "broken.csv",
            "warned",
            b'id,text\n1,"an open quote that never closes\n2,second row\n',
        ),
        BadInput("file over the size limit", "huge.txt", "refused", _over(limit_mb)),
        BadInput("unsupported kind (.exe)", "setup.exe", "refused", b"MZ" + os.urandom(1000)),
        BadInput("name with ../", "../../evil.txt", "read", TEXT.encode()),
        BadInput("absolute path name", "/etc/passwd.txt", "read", b"absolute " + TEXT.encode()),
        BadInput("name with a NUL byte", "nul\x00name.txt", "read", b"nul " + TEXT.encode()),
        BadInput("name with a newline", "line\nbreak.md", "read", b"newline " + TEXT.encode()),
        BadInput("name of 300 characters", "長" * 300 + ".txt", "read", b"long " + TEXT.encode()),
        BadInput("name of only emoji", "📄📄📄.txt", "read", b"emoji " + TEXT.encode()),
        BadInput("name that is only ..", "..", "refused", TEXT.encode()),
    ]


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _over(limit_mb: int) -> bytes:
    """A text file one megabyte over the limit (real bytes: an upload is bytes in memory)."""
    line = b"a line of an enormous log file that nobody split before uploading it\n"
    return line * ((limit_mb + 1) * 1024 * 1024 // len(line) + 1)


def folder_inputs(folder: Path) -> list[tuple[str, str, str]]:
    """A folder with a symlink loop and one content under two names: (kind, source name, expectation)."""
    folder.mkdir(parents=True)
    (folder / "original.txt").write_text(TEXT, encoding="utf-8")
    (folder / "copy of original.txt").write_text(TEXT, encoding="utf-8")
    (folder / "sub").mkdir()
    (folder / "sub" / "loop").symlink_to(folder, target_is_directory=True)
    (folder / "sub" / "inside.md").write_text("# Inside\n\nA note in a folder with a symlink loop.\n", encoding="utf-8")
    return [
        ("one content under two names (first)", f"{folder.name}/original.txt", "warned"),
        ("one content under two names (second)", f"{folder.name}/copy of original.txt", "warned"),
        ("a folder holding a symlink loop", f"{folder.name}/sub/inside.md", "read"),
    ]


def meets(outcome: FileOutcome | None, expect: str) -> bool:
    """Whether an outcome is what the user should see for an input expected to be ``expect``."""
    if outcome is None:
        return False
    if expect == "refused":
        return outcome.status in ("failed", "skipped") and bool(outcome.error) and "Traceback" not in outcome.error
    if expect == "warned":
        return outcome.status == "indexed" and bool(outcome.warnings)
    return outcome.status == "indexed"
