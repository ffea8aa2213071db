"""OCR with the real Tesseract: image-only PDFs made here are read, searchable, cached, and flagged as OCR text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest
from docmaker import PdfPage, make_pdf

from rag.errors import DocumentReadError
from rag.ingest.parsing import ocr, parse_file
from rag.service import RagService
from rag.settings import Settings

JA_LINES = ("TEE_Mallocはヒープからメモリを確保する関数である。", "失敗した場合は戻り値を必ず確認すること。")
EN_LINES = ("The secure world keeps every signing key inside the enclave.", "Rotate the keys every ninety days.")


def make_scan(path: Path, pages: Sequence[Sequence[str]], *, footer: str = "") -> Path:
    """An image-only PDF: each page's lines are drawn, rendered to a grey image, and only the image is kept.

    ``footer`` is added as real text under the image, as scanners and slide exports stamp one.
    """
    scan = pymupdf.open()
    for lines in pages:
        source = pymupdf.open()
        page = source.new_page(width=595, height=842)
        for n, line in enumerate(lines):
            font = "helv" if line.isascii() else "japan"
            page.insert_text((56, 100 + 36 * n), line, fontname=font, fontsize=14)
        image = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
        target = scan.new_page(width=595, height=842)
        target.insert_image(pymupdf.Rect(0, 0, 595, 800), pixmap=image)
        if footer:
            target.insert_text((250, 825), footer, fontname="helv", fontsize=8)
    scan.save(str(path))
    return path


@pytest.fixture
def ocr_settings(tmp_path: Path) -> Settings:
    return replace(Settings(), storage_dir=tmp_path / "storage")


def _text(doc) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(b.text for b in doc.blocks)


def test_image_only_pdf_is_read_with_ocr(tmp_path: Path, ocr_settings: Settings) -> None:
    doc = parse_file(make_scan(tmp_path / "scan.pdf", [JA_LINES, EN_LINES]), ocr_settings)
    text = _text(doc)
    assert "ヒープからメモリを確保する関数" in text and "戻り値を必ず確認" in text
    assert "signing key inside the enclave" in text and "ninety days" in text
    assert doc.ocr_pages == (1, 2)
    assert all(b.metadata.get("ocr") is True for b in doc.blocks)
    assert any("read with OCR" in w for w in doc.warnings)


def test_page_of_images_with_a_text_footer_is_ocr_read(tmp_path: Path, ocr_settings: Settings) -> None:
    path = make_scan(tmp_path / "slides.pdf", [EN_LINES, JA_LINES], footer="CC BY 4.0 Example Survey")
    doc = parse_file(path, ocr_settings)
    assert doc.ocr_pages == (1, 2)
    assert "ninety days" in _text(doc) and "戻り値を必ず確認" in _text(doc)


def test_pages_with_a_text_layer_are_not_ocr_read(tmp_path: Path, ocr_settings: Settings) -> None:
    doc = parse_file(make_pdf(tmp_path / "text.pdf", [JA_LINES[0], EN_LINES[0]]), ocr_settings)
    assert doc.ocr_pages == ()
    assert not any("ocr" in b.metadata for b in doc.blocks)


def test_unreadable_font_page_is_ocr_read(tmp_path: Path, ocr_settings: Settings) -> None:
    pages = [PdfPage(paragraphs=[JA_LINES[0]]), PdfPage(paragraphs=[EN_LINES[1]], garbage=True)]
    doc = parse_file(make_pdf(tmp_path / "broken.pdf", pages), ocr_settings)
    assert doc.ocr_pages == (2,)
    assert [b.text for b in doc.blocks if b.page == 2] == [EN_LINES[1]]


def test_ocr_readings_are_cached_by_page_content(
    tmp_path: Path, ocr_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = parse_file(make_scan(tmp_path / "a.pdf", [EN_LINES]), ocr_settings)

    def no_tesseract(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("Tesseract ran on a page already read")

    monkeypatch.setattr(pymupdf.Pixmap, "pdfocr_tobytes", no_tesseract)
    again = parse_file(make_scan(tmp_path / "copy.pdf", [EN_LINES]), ocr_settings)
    assert _text(again) == _text(first) and again.ocr_pages == (1,)


def test_missing_tesseract_names_the_apt_packages(
    tmp_path: Path, ocr_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    ocr.tessdata_dir.cache_clear()
    try:
        with pytest.raises(
            DocumentReadError, match="apt-get install tesseract-ocr tesseract-ocr-jpn tesseract-ocr-eng"
        ):
            parse_file(make_scan(tmp_path / "scan.pdf", [EN_LINES]), ocr_settings)
    finally:
        ocr.tessdata_dir.cache_clear()


def test_scanned_pdf_is_searchable_in_both_languages(
    tmp_path: Path, settings: Settings, minilm_embedder: object
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_scan(folder / "scan.pdf", [JA_LINES, EN_LINES])
    (folder / "other.md").write_text(
        "# 議事録\n\n来月のリリースでは暗号化モジュールの更新を優先する。\n", encoding="utf-8"
    )
    service = RagService(settings, embedder=minilm_embedder)  # type: ignore[arg-type]
    report = service.index_paths([folder])
    assert {f.source: f.ocr_pages for f in report.files}["docs/scan.pdf"] == (1, 2)
    for query, page in (("メモリを確保する関数", 1), ("signing key enclave", 2)):
        hit = service.search(query, top_k=1)[0]
        assert (hit.chunk.source, hit.chunk.page, hit.chunk.extra.get("ocr")) == ("docs/scan.pdf", page, True)
    per_source = {s.source: s.ocr_pages for s in service.stats().per_source}
    assert per_source == {"docs/scan.pdf": (1, 2), "docs/other.md": ()}


def test_a_label_on_a_coloured_chart_area_is_read(tmp_path: Path, ocr_settings: Settings) -> None:
    """A survey exported as slide images writes each chart's figures on the chart itself: "37 (100.0%)" in dark grey
    on a yellow pie. One threshold for the whole page takes the yellow area and its label together as ink, and the
    figure was lost; only the title and legend were read."""
    source = pymupdf.open()
    page = source.new_page(width=720, height=405)
    page.insert_text((40, 50), "Where do you live?", fontname="helv", fontsize=18)
    page.draw_circle((360, 230), 140, color=None, fill=(0.98, 0.74, 0.02))
    page.insert_text((300, 236), "37 (100.0%)", fontname="helv", fontsize=14, color=(0.2, 0.2, 0.2))
    page.insert_text((560, 380), "Japan 100.0%", fontname="helv", fontsize=10, color=(0.4, 0.4, 0.4))
    slides = pymupdf.open()
    slides.new_page(width=720, height=405).insert_image(pymupdf.Rect(0, 0, 720, 405), pixmap=page.get_pixmap(dpi=150))
    slides.save(str(tmp_path / "survey.pdf"))
    text = _text(parse_file(tmp_path / "survey.pdf", ocr_settings))
    assert "Where do you live?" in text
    assert "37 (100.0%)" in text


def test_a_slightly_skewed_two_column_scan_reads_column_after_column_each_line_whole(
    tmp_path: Path, ocr_settings: Settings
) -> None:
    """A patent scanned half a degree askew, two columns with a gutter narrowed by the skew to a few pixels, the
    columns' lines staggered. No gap wider than a word space parts the columns, so each row was read across both
    and neighbouring lines fell into each other ("A. Bigned D. 1879, by me this lst day of November," on the real
    Edison patent). A narrow gap that runs down two long columns of running text parts them; Tesseract's lines are
    kept whole."""
    left = (
        "The carbon filament is secured to",
        "the platina wires by a compound of",
        "lamp black and tar, and the whole is",
        "placed in a closed chamber for the",
        "carbonizing of the thread in coal",
        "dust, after which the copper wire",
        "is eaten away by the nitric acid and",
        "the spiral is soaked in clean water",
        "and then dried and placed upon the",
        "glass holder ready for the blowing.",
    )
    right = (
        "Signed by me this first day of",
        "November, in the year A. D. 1879",
        "The bulb is then exhausted to one",
        "millionth of an atmosphere and is",
        "sealed by the flame of a blowpipe",
        "while the current heats the carbon",
        "to drive out the occluded gases so",
        "that the lamp will give a steady and",
        "even light for many hundred hours",
        "without any loss of its resistance.",
    )
    page = pymupdf.open().new_page(width=595, height=842)
    width = max(pymupdf.get_text_length(line, "tiro", 12) for line in left)
    for n, (first, second) in enumerate(zip(left, right, strict=True)):
        page.insert_text((56, 100 + 14 * n), first, fontname="tiro", fontsize=12)
        page.insert_text((56 + width + 5, 107 + 14 * n), second, fontname="tiro", fontsize=12)  # staggered rows
    image = page.get_pixmap(matrix=pymupdf.Matrix(200 / 72, 200 / 72).prerotate(0.5), colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scan.new_page(width=595, height=842).insert_image(pymupdf.Rect(0, 0, 595, 842), pixmap=image)
    scan.save(str(tmp_path / "patent.pdf"))
    reading = " ".join(_text(parse_file(tmp_path / "patent.pdf", ocr_settings)).split())
    for lines in (left[2:5], right[3:6]):
        assert " ".join(lines) in reading, reading  # whole lines, one after another down the column
    assert reading.index(left[-1]) < reading.index(right[0])


def _page_image(lines: Sequence[str], *, alpha: bool = False) -> pymupdf.Pixmap:
    """A page of ``lines`` as a scanner (or, with ``alpha``, a screenshot tool: text on a transparent ground) saves
    it: 200 dpi, grey."""
    page = pymupdf.open().new_page(width=595, height=842)
    for n, line in enumerate(lines):
        page.insert_text((56, 100 + 36 * n), line, fontname="helv" if line.isascii() else "japan", fontsize=14)
    if alpha:
        return page.get_pixmap(dpi=200, alpha=True)
    return page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)


def test_a_scan_saved_as_an_image_is_read_with_ocr_page_by_page(tmp_path: Path, ocr_settings: Settings) -> None:
    """Scanners and phones save pages as PNG, JPEG or multi-page TIFF; the engine refused them ("put scanned pages
    into a PDF"). Each image, each frame of a TIFF, is now a page read with OCR."""
    from PIL import Image

    _page_image(JA_LINES).save(str(tmp_path / "memo.png"))
    _page_image(EN_LINES).save(str(tmp_path / "photo.jpg"), jpg_quality=90)
    frames = [
        Image.frombytes("L", (p.width, p.height), p.samples) for p in (_page_image(EN_LINES), _page_image(JA_LINES))
    ]
    frames[0].save(tmp_path / "fax.tiff", save_all=True, append_images=frames[1:], dpi=(200, 200))
    memo, photo, fax = (parse_file(tmp_path / name, ocr_settings) for name in ("memo.png", "photo.jpg", "fax.tiff"))
    assert "ヒープからメモリを確保する関数" in _text(memo) and memo.ocr_pages == (1,)
    assert "signing key inside the enclave" in _text(photo)
    assert fax.total_pages == 2 and fax.ocr_pages == (1, 2)
    assert [b.page for b in fax.blocks if "ninety days" in b.text] == [1]
    assert [b.page for b in fax.blocks if "戻り値を必ず確認" in b.text] == [2]
    assert all(b.metadata.get("ocr") is True for b in fax.blocks)


def test_a_screenshot_with_a_transparent_ground_is_read(tmp_path: Path, ocr_settings: Settings) -> None:
    """A screenshot tool saves black text on transparent pixels: the image is read as it is shown, over white
    (its pixels taken without their transparency have a black ground, like the text)."""
    _page_image(EN_LINES, alpha=True).save(str(tmp_path / "screenshot.png"))
    assert "signing key inside the enclave" in _text(parse_file(tmp_path / "screenshot.png", ocr_settings))


def test_a_scanned_image_is_searchable_and_its_page_shown(
    tmp_path: Path, settings: Settings, minilm_embedder: object
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    _page_image(EN_LINES).save(str(folder / "scan.png"))
    service = RagService(settings, embedder=minilm_embedder)  # type: ignore[arg-type]
    report = service.index_paths([folder])
    assert [(f.source, f.status, f.ocr_pages) for f in report.files] == [("docs/scan.png", "indexed", (1,))]
    hit = service.search("signing key enclave", top_k=1)[0]
    assert (hit.chunk.source, hit.chunk.page) == ("docs/scan.png", 1)
    assert RagService.shows_pages(hit.chunk.source)
    shown = pymupdf.open("png", service.render_page("docs/scan.png", 1))
    assert shown[0].rect.width > 100


def test_a_webp_screenshot_is_searchable_and_its_page_shown(
    tmp_path: Path, settings: Settings, minilm_embedder: object
) -> None:
    """Browsers and phones save screenshots as WebP (AVIF too), which MuPDF does not open: they were refused ("save
    it as PNG or JPEG"). Pillow makes them PNG first; a WebP picture pasted into a slide is read the same way."""
    from PIL import Image

    folder = tmp_path / "docs"
    folder.mkdir()
    scan = _page_image(EN_LINES)
    Image.frombytes("L", (scan.width, scan.height), scan.samples).save(folder / "screen.webp", quality=90)
    service = RagService(settings, embedder=minilm_embedder)  # type: ignore[arg-type]
    report = service.index_paths([folder])
    assert [(f.source, f.status, f.ocr_pages) for f in report.files] == [("docs/screen.webp", "indexed", (1,))]
    hit = service.search("signing key enclave", top_k=1)[0]
    assert (hit.chunk.source, hit.chunk.page) == ("docs/screen.webp", 1)
    shown = pymupdf.open("png", service.render_page("docs/screen.webp", 1))
    assert shown[0].rect.width > 100


def test_a_webp_too_big_to_read_is_refused_before_it_is_decoded(
    tmp_path: Path, ocr_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    from rag.ingest.parsing import images

    monkeypatch.setattr(images, "MAX_PIXELS", 10_000)  # a real one over 150 million pixels takes minutes to write
    Image.new("L", (200, 100), 255).save(tmp_path / "poster.webp")
    with pytest.raises(DocumentReadError, match=r"poster.webp: the image is 200×100 pixels, over 0 million. Scale"):
        parse_file(tmp_path / "poster.webp", ocr_settings)


def test_an_image_named_csv_is_read_as_an_image(tmp_path: Path, ocr_settings: Settings) -> None:
    _page_image(EN_LINES).save(str(tmp_path / "export.csv"), output="png")
    doc = parse_file(tmp_path / "export.csv", ocr_settings)
    assert "ninety days" in _text(doc)
    assert "named .csv but is an image; read as an image" in doc.warnings


def test_a_slide_of_a_scanned_page_is_read_with_ocr_and_a_logo_is_not(tmp_path: Path, ocr_settings: Settings) -> None:
    """Decks carry pasted scans and screenshots: a slide whose content is a picture was read as its title alone,
    and a deck of such slides was refused ("no slide has text"). A picture covering a good part of its slide is
    read with OCR where it stands; a small logo is not read at all."""
    from pptx import Presentation
    from pptx.util import Inches

    _page_image(EN_LINES).save(str(tmp_path / "scan.png"))
    _page_image(("ACME",)).save(str(tmp_path / "logo.png"))
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Key handling"
    slide.shapes.add_picture(str(tmp_path / "scan.png"), Inches(1), Inches(1.5), height=Inches(5.5))
    bare = deck.slides.add_slide(deck.slide_layouts[6])
    bare.shapes.add_picture(str(tmp_path / "scan.png"), Inches(0), Inches(0), height=Inches(7.5))
    bare.shapes.add_picture(str(tmp_path / "logo.png"), Inches(8.5), Inches(6.8), height=Inches(0.6))
    deck.save(str(tmp_path / "deck.pptx"))
    doc = parse_file(tmp_path / "deck.pptx", ocr_settings)
    read = [(b.page, b.section) for b in doc.blocks if "signing key inside the enclave" in b.text]
    assert read == [(1, "Key handling"), (2, "Slide 2")]
    assert doc.ocr_pages == (1, 2) and "slides 1, 2: 2 pictures read with OCR" in doc.warnings
    assert all(b.metadata.get("ocr") is True for b in doc.blocks if b.text != "Key handling")
    assert "ACME" not in _text(doc)


def test_a_screenshot_pasted_into_a_sheet_is_read_with_ocr_and_a_logo_is_not(
    tmp_path: Path, ocr_settings: Settings
) -> None:
    """An evidence workbook is rows of steps with a screenshot pasted beside each: openpyxl reads cells only, so
    the screenshots' text was lost, and a sheet of screenshots alone was left out as empty."""
    import openpyxl
    from openpyxl.drawing.image import Image

    _page_image(EN_LINES).save(str(tmp_path / "screen.png"))
    _page_image(("ACME",)).save(str(tmp_path / "logo.png"))
    workbook = openpyxl.Workbook()
    steps = workbook.active
    steps.title = "手順"
    steps.append(["手順", "結果"])
    steps.append(["鍵を生成する", "成功"])
    logo = Image(str(tmp_path / "logo.png"))
    logo.width, logo.height = 40, 40
    steps.add_image(logo, "D1")
    screens = workbook.create_sheet("画面")
    screens.add_image(Image(str(tmp_path / "screen.png")), "A1")
    workbook.save(str(tmp_path / "evidence.xlsx"))
    doc = parse_file(tmp_path / "evidence.xlsx", ocr_settings)
    read = [b.section for b in doc.blocks if "signing key inside the enclave" in b.text]
    assert read == ["画面"]
    assert "1 picture read with OCR" in doc.warnings and "ACME" not in _text(doc)


def test_a_scan_pasted_into_a_word_document_is_read_where_it_stands(tmp_path: Path, ocr_settings: Settings) -> None:
    """A scanned memo pasted into Word between two paragraphs was lost (a document of pasted scans alone was
    refused: "contains no text"). A picture covering a good part of the page is read with OCR in its place; a
    small logo is not."""
    import docx
    from docx.shared import Inches

    _page_image(JA_LINES).save(str(tmp_path / "memo.png"))
    _page_image(("ACME",)).save(str(tmp_path / "logo.png"))
    document = docx.Document()
    document.add_heading("鍵の管理", level=1)
    document.add_paragraph("以下は監査で受け取ったメモの写しです。")
    document.add_picture(str(tmp_path / "memo.png"), width=Inches(5.5))
    document.add_paragraph("メモの内容は次回の会議で確認する。")
    document.add_picture(str(tmp_path / "logo.png"), width=Inches(0.5))
    document.save(str(tmp_path / "audit.docx"))
    doc = parse_file(tmp_path / "audit.docx", ocr_settings)
    texts = [b.text for b in doc.blocks]
    memo = next(i for i, text in enumerate(texts) if "ヒープからメモリを確保する関数" in text)
    assert (
        texts.index("以下は監査で受け取ったメモの写しです。") < memo < texts.index("メモの内容は次回の会議で確認する。")
    )
    assert doc.blocks[memo].metadata.get("ocr") is True and doc.blocks[memo].section == "鍵の管理"
    assert "ACME" not in _text(doc) and "1 picture read with OCR" in doc.warnings

    pasted_only = docx.Document()
    pasted_only.add_picture(str(tmp_path / "memo.png"), width=Inches(6))
    pasted_only.save(str(tmp_path / "scan.docx"))
    assert "戻り値を必ず確認" in _text(parse_file(tmp_path / "scan.docx", ocr_settings))


def test_a_deck_of_pictures_without_tesseract_names_the_apt_packages(
    tmp_path: Path, ocr_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    _page_image(EN_LINES).save(str(tmp_path / "scan.png"))
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[6]).shapes.add_picture(str(tmp_path / "scan.png"), 0, 0, Inches(5))
    deck.save(str(tmp_path / "scans.pptx"))
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    ocr.tessdata_dir.cache_clear()
    try:
        with pytest.raises(DocumentReadError, match="no picture on them has text.*apt-get install tesseract-ocr"):
            parse_file(tmp_path / "scans.pptx", ocr_settings)
    finally:
        ocr.tessdata_dir.cache_clear()
