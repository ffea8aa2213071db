"""parse_file's dispatch by sniffed content and its refusals (empty, binary, unsupported, too big, mis-named)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from docmaker import JA_PARAGRAPHS, make_docx, make_pdf, make_xlsx

from rag.errors import DocumentReadError, UnsupportedFileError
from rag.ingest.parsing import SUPPORTED_EXTENSIONS, parse_file
from rag.settings import Settings

SETTINGS = Settings()


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(DocumentReadError, match="empty"):
        parse_file(path, SETTINGS)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DocumentReadError, match="could not be read"):
        parse_file(tmp_path / "nope.txt", SETTINGS)


def test_whitespace_only_text(tmp_path: Path) -> None:
    path = tmp_path / "blank.txt"
    path.write_text(" \n\n\t\n", encoding="utf-8")
    with pytest.raises(DocumentReadError, match="no text"):
        parse_file(path, SETTINGS)


def test_text_named_pdf_is_read_as_text_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text(JA_PARAGRAPHS[0], encoding="utf-8")
    doc = parse_file(path, SETTINGS)
    assert doc.blocks[0].text == JA_PARAGRAPHS[0]
    assert any("named .pdf but is plain text" in w for w in doc.warnings)


def test_pdf_named_txt_is_read_as_pdf(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "report.txt", [JA_PARAGRAPHS[1]])
    doc = parse_file(path, SETTINGS)
    assert doc.blocks[0].text == JA_PARAGRAPHS[1] and doc.blocks[0].page == 1
    assert any("named .txt but is a PDF" in w for w in doc.warnings)


def test_office_files_sniffed_whatever_their_name(tmp_path: Path) -> None:
    docx_path = make_docx(tmp_path / "a.docx", [JA_PARAGRAPHS[0]]).rename(tmp_path / "a.xlsx")
    xlsx_path = make_xlsx(tmp_path / "b.xlsx", {"表": [["列", "値"], ["a", 1]]}).rename(tmp_path / "b.bin")
    assert parse_file(docx_path, SETTINGS).blocks[0].text == JA_PARAGRAPHS[0]
    assert parse_file(xlsx_path, SETTINGS).blocks[-1].kind == "table"


def test_binary_named_txt_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(os.urandom(4096))
    with pytest.raises(DocumentReadError, match="does not contain readable text"):
        parse_file(path, SETTINGS)


def test_a_cut_short_image_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "photo.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(100))
    with pytest.raises(DocumentReadError, match="photo.csv is damaged or not a complete image.*save it again as PNG"):
        parse_file(path, SETTINGS)


@pytest.mark.parametrize("name", ["photo.heic", "script.py", "archive.zip", "noext"])
def test_unsupported_kinds_list_supported_ones(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"PK\x03\x04" + os.urandom(64) if name.endswith(".zip") else b"print('hello')\n")
    with pytest.raises(UnsupportedFileError, match=r"Supported kinds: PDF \(\.pdf\), Word"):
        parse_file(path, SETTINGS)


def test_legacy_or_encrypted_office_file(tmp_path: Path) -> None:
    path = tmp_path / "locked.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600)
    with pytest.raises(DocumentReadError, match="password-protected Office file"):
        parse_file(path, SETTINGS)


def test_old_binary_office_file_is_unsupported(tmp_path: Path) -> None:
    path = tmp_path / "old.doc"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600)
    with pytest.raises(UnsupportedFileError, match="save it as .docx"):
        parse_file(path, SETTINGS)


def test_corrupt_docx(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04" + b"garbage" * 20)
    with pytest.raises(DocumentReadError, match="damaged or not a real Word file"):
        parse_file(path, SETTINGS)


def test_over_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"a" * (1024 * 1024 + 1))
    with pytest.raises(DocumentReadError, match="over the 1 MB limit"):
        parse_file(path, replace(SETTINGS, max_file_mb=1))


def test_supported_extensions_cover_every_format() -> None:
    assert {".pdf", ".txt", ".md", ".docx", ".xlsx", ".html", ".csv", ".json", ".jsonl"} <= set(SUPPORTED_EXTENSIONS)
