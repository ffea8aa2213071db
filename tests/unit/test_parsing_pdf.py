"""PDF parsing on real PDFs made with PyMuPDF: Japanese text, running margins, tables, damage, broken fonts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest
from docmaker import API_TABLE, EN_PARAGRAPHS, JA_PARAGRAPHS, PdfPage, make_long_pdf, make_pdf, wrap_lines

from rag.errors import DocumentReadError
from rag.ingest.chunking import chunk_document
from rag.ingest.parsing import parse_file
from rag.records import Chunk, ParsedDocument
from rag.service import RagService
from rag.settings import Settings

SETTINGS = Settings()
HEADER = "TEE 内部仕様書 v1.2 社外秘"
REALDOCS = Path(__file__).resolve().parents[2].parent / "shared" / "realdocs" / "docs"


@pytest.fixture(scope="module")
def spec_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pages = [
        PdfPage(heading="1. メモリ管理", paragraphs=JA_PARAGRAPHS[:2]),
        PdfPage(heading="2. 関数一覧", paragraphs=[JA_PARAGRAPHS[2]], table=API_TABLE),
        PdfPage(
            heading="3. Overview",
            paragraphs=[
                *EN_PARAGRAPHS,
                "The loader checks the imple-\nmentation version.",
                "暗号化されたﬁle systemのﬂag設定を確認する。",
            ],
        ),
    ]
    path = tmp_path_factory.mktemp("pdf") / "tee_spec.pdf"
    return make_pdf(
        path,
        pages,
        header=HEADER,
        footer="- {page} -",
        metadata={"title": "TEE仕様", "creationDate": "D:20240115093000+09'00'"},
    )


@pytest.fixture(scope="module")
def spec_chunks(spec_pdf: Path):
    doc = parse_file(spec_pdf, SETTINGS)
    return doc, _chunk(doc)


def _chunk(doc: ParsedDocument) -> list[Chunk]:
    name = "tee_spec.pdf"
    return chunk_document(doc, source=name, rel_path=name, doc_type="specification", settings=SETTINGS)


def test_japanese_wraps_joined_without_spaces(spec_chunks) -> None:
    _, chunks = spec_chunks
    assert len(wrap_lines(JA_PARAGRAPHS[0])) > 1  # the PDF really wraps inside the sentence
    text = "\n".join(c.text for c in chunks)
    for para in JA_PARAGRAPHS:
        assert para in text


def test_english_wraps_get_spaces_and_hyphens_removed(spec_chunks) -> None:
    _, chunks = spec_chunks
    text = "\n".join(c.text for c in chunks)
    assert EN_PARAGRAPHS[0] in text
    assert "The loader checks the implementation version." in text


def test_ligatures_expanded(spec_chunks) -> None:
    _, chunks = spec_chunks
    assert any("暗号化されたfile systemのflag設定を確認する。" in c.text for c in chunks)


def test_chunk_ids_stable_across_runs(spec_pdf: Path, spec_chunks) -> None:
    _, first = spec_chunks
    again = _chunk(parse_file(spec_pdf, SETTINGS))
    assert [c.chunk_id for c in again] == [c.chunk_id for c in first]
    assert again == first


def test_running_header_kept_on_its_first_page_and_page_numbers_removed(spec_chunks) -> None:
    doc, chunks = spec_chunks
    assert [b.page for b in doc.blocks if HEADER in b.text] == [1]  # the version it gives is said nowhere else
    assert not any(b.text.strip("- ").isdigit() for b in doc.blocks)
    assert [c.page for c in chunks if "社外秘" in c.text] == [1]
    assert not any("- 2 -" in c.text for c in chunks)


def test_a_survey_period_given_only_in_the_footer_is_found(settings: Settings, minilm_embedder, tmp_path: Path) -> None:
    # a survey deck states when it ran only in the footer of its pages of charts: dropped from every page as a
    # running footer, "when was the survey conducted?" had nothing to find
    asked = ["Which languages does your team use?", "How large is your team?", "Which licences do you allow?"]
    pages = [f"{question} See the chart of answers below." for question in asked]
    path = make_pdf(tmp_path / "survey.pdf", pages, footer="Survey period: 2023/4/3-4/28")
    service = RagService(replace(settings, ocr_enabled=False), embedder=minilm_embedder)
    service.index_paths([path])
    hit = service.search("survey period")[0]
    assert "Survey period: 2023/4/3-4/28" in hit.chunk.text and hit.chunk.page == 1
    texts = [c.text for c in chunk_document(parse_file(path, SETTINGS), source="survey.pdf", rel_path="survey.pdf",
                                            doc_type="general", settings=SETTINGS)]  # fmt: skip
    assert sum("Survey period" in t for t in texts) == 1  # kept once, not on each page


@pytest.mark.skipif(not REALDOCS.is_dir(), reason="../shared/realdocs is not beside the checkout")
def test_the_faqs_licence_in_its_running_footer_is_kept_once() -> None:
    doc = parse_file(REALDOCS / "ja_oss_license_misunderstandings_faq.pdf", Settings())
    assert [b.page for b in doc.blocks if "CC0-1.0(パブリックドメイン)" in b.text] == [2]


def test_review_comments_on_a_page_are_read_after_its_text(tmp_path: Path) -> None:
    # a reviewer's sticky note or the note on a highlight is not in the page's text: only its icon is drawn
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "The retention period is 3 years.", fontsize=11)
    note = page.add_text_annot((300, 90), "Legal says this must be 5 years from 2025.")
    note.set_info(title="Sato")
    note.update()
    marked = page.add_highlight_annot(pymupdf.Rect(72, 88, 200, 104))
    marked.set_info(content="Check with the auditor")
    marked.update()
    page.add_freetext_annot(pymupdf.Rect(72, 200, 300, 230), "Reviewed on 2024-05-01")  # drawn: read as page text
    doc.save(tmp_path / "policy.pdf")
    blocks = parse_file(tmp_path / "policy.pdf", replace(SETTINGS, ocr_enabled=False)).blocks
    assert [b.text for b in blocks] == [
        "The retention period is 3 years.",
        "Reviewed on 2024-05-01",
        "Comment (Sato): Legal says this must be 5 years from 2025.",
        "Comment: Check with the auditor",
    ]


def test_table_is_one_markdown_chunk_not_duplicated_in_text(spec_chunks) -> None:
    _, chunks = spec_chunks
    tables = [c for c in chunks if c.chunk_type == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert table.text.split("\n")[:3] == [
        "| 関数名 | 説明 | 戻り値 |",
        "| --- | --- | --- |",
        "| TEE_Malloc | メモリを確保する | ポインタ |",
    ]
    assert table.page == 2 and table.section == "2. 関数一覧"
    assert table.extra["api_functions"] == "TEE_Malloc,TEE_Free,TEE_MemMove"
    assert not any("メモリをコピーする" in c.text for c in chunks if c.chunk_type == "text")


def test_sections_pages_and_metadata(spec_chunks) -> None:
    doc, chunks = spec_chunks
    assert doc.total_pages == 3 and doc.title == "TEE仕様" and doc.date == "2024-01-15"
    assert doc.warnings == ()
    by_page = {c.page: c for c in chunks if c.chunk_type == "text"}
    assert by_page[1].section == "1. メモリ管理" and by_page[1].text.startswith("1. メモリ管理\n\n")
    assert by_page[3].section == "3. Overview" and by_page[3].language == "en"
    assert by_page[1].language == "ja" and all(c.total_pages == 3 and c.date == "2024-01-15" for c in chunks)


def test_many_pages_keep_page_numbers_and_drop_margins(tmp_path: Path) -> None:
    doc = parse_file(make_long_pdf(tmp_path / "long.pdf", 12), SETTINGS)
    chunks = chunk_document(doc, source="long.pdf", rel_path="long.pdf", doc_type="general", settings=SETTINGS)
    assert doc.total_pages == 12
    assert {c.page for c in chunks} == set(range(1, 13))
    assert [c.page for c in chunks if "社外秘" in c.text] == [1]
    assert [c.section for c in chunks if c.page == 7][0] == "7. メモリ管理"


def test_password_protected_pdf_is_refused(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "secret.pdf", [JA_PARAGRAPHS[0]], user_password="s3cret")
    with pytest.raises(DocumentReadError, match="password"):
        parse_file(path, SETTINGS)


def test_truncated_pdf_head_is_refused(tmp_path: Path, spec_pdf: Path) -> None:
    path = tmp_path / "cut.pdf"
    path.write_bytes(spec_pdf.read_bytes()[:300])
    with pytest.raises(DocumentReadError, match="damaged or not a complete PDF"):
        parse_file(path, SETTINGS)


def test_pdf_missing_its_tail_is_repaired_with_warning(tmp_path: Path, spec_pdf: Path) -> None:
    path = tmp_path / "tail.pdf"
    path.write_bytes(spec_pdf.read_bytes()[:-80])  # xref table and trailer gone
    doc = parse_file(path, SETTINGS)
    assert any("repaired" in w for w in doc.warnings)
    assert doc.blocks


def test_garbage_font_page_skipped_with_warning_when_ocr_is_off(tmp_path: Path) -> None:
    pages = [
        PdfPage(paragraphs=[JA_PARAGRAPHS[0]]),
        PdfPage(paragraphs=["Broken font text that extracts as private use glyphs only."], garbage=True),
        PdfPage(paragraphs=[JA_PARAGRAPHS[1]]),
    ]
    doc = parse_file(make_pdf(tmp_path / "broken.pdf", pages), replace(SETTINGS, ocr_enabled=False))
    assert "page 2: mostly unreadable text (possible font encoding problem), skipped" in doc.warnings
    assert {b.page for b in doc.blocks} == {1, 3}
    assert not any("\ue000" <= ch <= "\uf8ff" for b in doc.blocks for ch in b.text)


def test_all_pages_garbage_is_an_error(tmp_path: Path) -> None:
    pages = [PdfPage(paragraphs=["Nothing here is readable at all."], garbage=True)] * 2
    with pytest.raises(DocumentReadError, match="unreadable"):
        parse_file(make_pdf(tmp_path / "allbroken.pdf", pages), replace(SETTINGS, ocr_enabled=False))


def test_pdf_without_text_layer_is_an_error(tmp_path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().draw_circle((200, 200), 50)
    doc.save(str(tmp_path / "scan.pdf"))
    with pytest.raises(DocumentReadError, match="no extractable text and OCR found none"):
        parse_file(tmp_path / "scan.pdf", replace(SETTINGS, storage_dir=tmp_path))


@pytest.mark.skipif(not REALDOCS.is_dir(), reason="../shared/realdocs is not beside the checkout")
def test_a_word_export_that_makes_every_line_a_block_is_read_as_paragraphs() -> None:
    # this real Word export puts each printed line in a block of its own, cutting 有効期間 and 認証 in two
    doc = parse_file(REALDOCS / "ja_openchain_spec_kaisetsu.pdf", Settings())
    paragraph = next(b.text for b in doc.blocks if "18 か月" in b.text)
    assert "有効期間は認証取得時から18 か月であり" in paragraph
    assert "再度認証取得しなければなりません。" in paragraph
    # separate paragraphs and headings stay apart
    assert not any(b.text.startswith("【解説】") and "本項目" in b.text for b in doc.blocks)


@pytest.mark.skipif(not REALDOCS.is_dir(), reason="../shared/realdocs is not beside the checkout")
def test_a_bulleted_line_goes_on_in_the_block_below_its_words() -> None:
    # the FAQ's answer "\uf075Webサービスの顧客が…配布" wraps into a block of its own, "したことにはなりません。",
    # that starts under the bullet's words, not under the bullet: the quote, the answer strings and the claim checks
    # all met "配布\n\nしたことには"
    doc = parse_file(REALDOCS / "ja_oss_license_misunderstandings_faq.pdf", Settings())
    answer = "Webサービスの顧客が、OSSのコピーを受け取るようになっていないので、配布したことにはなりません。"
    block = next(b.text for b in doc.blocks if answer in b.text)
    assert f"{answer}\nなお、たとえOSS自体を" in block  # the next bullet, after the sentence's end: a line of its own


@pytest.mark.skipif(not REALDOCS.is_dir(), reason="../shared/realdocs is not beside the checkout")
def test_a_paragraph_whose_first_line_is_indented_goes_on_in_the_block_below() -> None:
    # Japanese paragraphs indent their first line by one character (字下げ): the block below starts left of it,
    # under the paragraph's other lines, and words were cut in two ("和文文" / "字直後", "本書にお" / "ける")
    manual = parse_file(REALDOCS / "ja_ptex_manual.pdf", Settings())
    assert any("対照的に)和文文字直後の改行は何も発生しない." in b.text for b in manual.blocks)
    spec = parse_file(REALDOCS / "ja_openchain_spec_kaisetsu.pdf", Settings())
    assert any("本書における日本語訳は、バージョン1.2 の公式日本語訳を参考に" in b.text for b in spec.blocks)


@pytest.mark.skipif(not REALDOCS.is_dir(), reason="../shared/realdocs is not beside the checkout")
def test_a_faqs_large_yes_stays_in_the_chunk_of_the_question_it_answers() -> None:
    # the FAQ prints its answer "はい" and the label "Answer" large, as a heading would be; read as headings they
    # opened chunks of their own ("はい\n\n#デュアルライセンス#マルチライセンス"), apart from the question
    name = "ja_oss_license_misunderstandings_faq.pdf"
    doc = parse_file(REALDOCS / name, Settings())
    assert not any(b.kind == "heading" and b.text in ("はい", "いいえ", "Answer") for b in doc.blocks)
    chunks = chunk_document(doc, source=name, rel_path=name, doc_type="general", settings=SETTINGS)
    answered = next(c for c in chunks if "選択したライセンス文書のみを添付すればよいですか" in c.text)
    assert "よいですか?\n\nはい" in answered.text
    assert answered.section == "デュアルライセンスは選択した方だけ添付すればいい?"
    assert not any(c.text.startswith(("はい", "いいえ", "Answer")) for c in chunks)
