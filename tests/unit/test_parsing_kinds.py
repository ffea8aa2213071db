"""Slides, every file kind in a folder getting an outcome, and hostile or mislabelled files getting the right advice."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from docmaker import (
    JA_PARAGRAPHS,
    ChartSpec,
    Slide,
    inflate_part,
    make_docx,
    make_jsonl,
    make_pdf,
    make_pptx,
    make_xlsx,
)

from rag.errors import DocumentReadError
from rag.ingest.chunking import chunk_document
from rag.ingest.parsing import SUPPORTED_EXTENSIONS, parse_file
from rag.ingest.parsing.charts import chart_table
from rag.ingest.text_cleanup import find_margin_lines
from rag.service import RagService
from rag.settings import Settings

SETTINGS = Settings()


def test_pptx_slides_notes_and_tables(tmp_path: Path) -> None:
    slides = [
        Slide(
            title="TEE の概要",
            boxes=["信頼できる実行環境はアプリを分離する。", "一行目\n二行目"],
            notes="ここで質問を受ける。",
        ),
        Slide(title="API 一覧", table=[["関数", "説明"], ["TEE_Malloc", "確保"], ["TEE_Free", "解放"]]),
    ]
    doc = parse_file(make_pptx(tmp_path / "deck.pptx", slides, title="社内説明会"), SETTINGS)
    assert doc.title == "社内説明会" and doc.total_pages == 2
    assert [(b.kind, b.page, b.text) for b in doc.blocks] == [
        ("heading", 1, "TEE の概要"),
        ("text", 1, "信頼できる実行環境はアプリを分離する。"),
        ("text", 1, "一行目\n二行目"),
        ("text", 1, "ここで質問を受ける。"),
        ("heading", 2, "API 一覧"),
        ("table", 2, "| 関数 | 説明 |\n| --- | --- |\n| TEE_Malloc | 確保 |\n| TEE_Free | 解放 |"),
    ]
    assert doc.blocks[3].section == "TEE の概要 (notes)"


def test_a_slides_chart_is_read_as_the_table_of_figures_it_plots(tmp_path: Path) -> None:
    # a survey deck's answers are charts: their figures are in the chart's own part, not in any text box
    listed = ChartSpec("あなたの組織は上場していますか", ["はい", "いいえ"], {"回答数": [17, 20]})
    shares = ChartSpec("OSSの管理体制", ["ある", "ない"], {"2022年": [0.412, 0.588], "2023年": [0.459, 0.541]},
                        number_format="0.0%")  # fmt: skip
    slides = [Slide(title="回答者の属性", chart=listed), Slide(title="管理体制", chart=shares)]
    doc = parse_file(make_pptx(tmp_path / "survey.pptx", slides), SETTINGS)
    tables = [(b.page, b.text) for b in doc.blocks if b.kind == "table"]
    assert chart_table(b"<c:chartSpace") == ""  # a damaged chart part loses the chart, not the deck
    assert tables == [
        (1, "| あなたの組織は上場していますか | 回答数 |\n| --- | --- |\n| はい | 17 |\n| いいえ | 20 |"),
        (
            2,
            "| OSSの管理体制 | 2022年 | 2023年 |\n| --- | --- | --- |\n"
            "| ある | 41.2% | 45.9% |\n| ない | 58.8% | 54.1% |",
        ),
    ]


def test_a_slides_smartart_is_read_as_its_nodes(tmp_path: Path) -> None:
    # a process flow drawn as SmartArt keeps its text in a data part the slide only points to
    slides = [
        Slide(
            title="申請の流れ", boxes=["所要日数は5営業日です。"], smartart=["申請書の提出", "部長の審査", "承認と通知"]
        )
    ]
    doc = parse_file(make_pptx(tmp_path / "flow.pptx", slides), SETTINGS)
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("heading", "申請の流れ"),
        ("text", "所要日数は5営業日です。"),
        ("text", "申請書の提出\n部長の審査\n承認と通知"),  # the nodes, not the connectors between them
    ]


def test_pptx_named_zip_is_read_and_picture_only_deck_is_explained(tmp_path: Path) -> None:
    renamed = make_pptx(tmp_path / "deck.pptx", [Slide(title="見出し", boxes=["本文です。"])]).rename(
        tmp_path / "d.zip"
    )
    assert parse_file(renamed, SETTINGS).blocks[1].text == "本文です。"
    with pytest.raises(DocumentReadError, match="no slide has text"):
        parse_file(make_pptx(tmp_path / "empty.pptx", [Slide()]), SETTINGS)


def test_every_file_in_a_folder_gets_an_outcome(tmp_path: Path, settings: Settings, minilm_embedder: object) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pptx(folder / "deck.pptx", [Slide(title="概要", boxes=["スライドの本文です。"])])
    make_xlsx(folder / "book.xlsx", {"表": [["列", "値"], ["a", 1]]}).rename(folder / "macro.xlsm")
    (folder / "table.tsv").write_text("name\tvalue\nalpha\t1\nbeta\t2\n", encoding="utf-8")
    records = ({"text": "一件目の記録は監査の予定です。"}, {"text": "二件目の記録は予算の承認です。"})
    (folder / "log.ndjson").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    (folder / "memo.text").write_text("メモの本文は来週の会議の議題です。\n", encoding="utf-8")
    (folder / "letter.rtf").write_text(r"{\rtf1\ansi Hello}", encoding="ascii")
    (folder / "photo.heic").write_bytes(b"\x00\x00\x00\x18ftypheic" + os.urandom(64))
    (folder / "~$deck.pptx").write_bytes(b"lock")  # Office's lock file: not a document
    report = RagService(settings, embedder=minilm_embedder).index_paths([folder])  # type: ignore[arg-type]
    status = {f.source: f.status for f in report.files}
    assert status == {
        "docs/deck.pptx": "indexed", "docs/macro.xlsm": "indexed", "docs/table.tsv": "indexed",
        "docs/log.ndjson": "indexed", "docs/memo.text": "indexed",
        "docs/letter.rtf": "skipped", "docs/photo.heic": "skipped",
    }  # fmt: skip
    errors = {f.source: f.error for f in report.files}
    assert "open it in Word or LibreOffice and save it as .docx" in errors["docs/letter.rtf"]
    assert "save it as PNG or JPEG" in errors["docs/photo.heic"] and not report.failed


def test_upload_page_offers_exactly_the_supported_kinds() -> None:
    source = (Path(__file__).resolve().parents[2] / "app_pages" / "upload.py").read_text(encoding="utf-8")
    assert "svc.supported_extensions()" in source and "FILE_TYPES = [" not in source  # the one list, via the facade
    assert tuple(RagService.supported_extensions()) == tuple(SUPPORTED_EXTENSIONS)
    assert {".pptx", ".tsv", ".xlsm", ".ndjson", ".text"} <= set(SUPPORTED_EXTENSIONS)


def test_mislabelled_pdf_and_text_in_a_folder(tmp_path: Path, settings: Settings, minilm_embedder: object) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "report.txt", [JA_PARAGRAPHS[0]])
    (folder / "notes.pdf").write_text(JA_PARAGRAPHS[1], encoding="utf-8")
    report = RagService(settings, embedder=minilm_embedder).index_paths([folder])  # type: ignore[arg-type]
    outcome = {f.source: (f.status, " ".join(f.warnings)) for f in report.files}
    assert outcome["docs/report.txt"][0] == "indexed" and "named .txt but is a PDF" in outcome["docs/report.txt"][1]
    assert outcome["docs/notes.pdf"][0] == "indexed" and "named .pdf but is plain text" in outcome["docs/notes.pdf"][1]


@pytest.mark.parametrize("name", ["deep.json", "deep.jsonl"])
def test_deeply_nested_json_is_a_clear_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    with pytest.raises(DocumentReadError, match="nested too deeply"):
        parse_file(path, SETTINGS)


def test_docx_with_one_huge_text_run_is_a_clear_error(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "huge.docx", ["短い段落。", "x" * 11_000_000])
    with pytest.raises(DocumentReadError, match="over 10 MB without a break"):
        parse_file(path, SETTINGS)


@pytest.mark.parametrize("kind", ["docx", "xlsx", "pptx"])
def test_office_zip_bomb_is_refused_before_parsing(tmp_path: Path, kind: str) -> None:
    makers = {
        "docx": lambda p: make_docx(p, ["本文"]),
        "xlsx": lambda p: make_xlsx(p, {"表": [["a"], [1]]}),
        "pptx": lambda p: make_pptx(p, [Slide(title="題")]),
    }
    part = {"docx": "word/document.xml", "xlsx": "xl/worksheets/sheet1.xml", "pptx": "ppt/slides/slide1.xml"}[kind]
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n'
    path = inflate_part(makers[kind](tmp_path / f"bomb.{kind}"), part, head + b" " * (48 * 1024 * 1024))
    assert path.stat().st_size < 1024 * 1024
    with pytest.raises(DocumentReadError, match=r"unpacks from 0\.\d MB to 4\d MB"):
        parse_file(path, SETTINGS)


def test_random_bytes_named_docx_are_not_called_an_encoding_problem(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    path.write_bytes(os.urandom(20000))
    with pytest.raises(DocumentReadError, match="neither a readable Word file nor text") as info:
        parse_file(path, SETTINGS)
    assert "UTF-8" not in str(info.value)


def test_double_encoded_text_gets_its_own_advice(tmp_path: Path) -> None:
    path = tmp_path / "memo.txt"
    path.write_bytes(JA_PARAGRAPHS[0].encode("utf-8").decode("latin-1").encode("utf-8"))
    with pytest.raises(DocumentReadError, match="converted to UTF-8 twice") as info:
        parse_file(path, SETTINGS)
    assert "binary data" not in str(info.value)


def test_pages_that_differ_only_by_their_number_keep_their_text(tmp_path: Path) -> None:
    assert find_margin_lines([["月次報告書", "本文は同じ。", str(n)] for n in (1, 2, 3)]) == [{2}, {2}, {2}]
    path = make_pdf(tmp_path / "form.pdf", ["月次報告書の様式です。記入してください。"] * 3, footer="- {page} -")
    doc = parse_file(path, SETTINGS)
    assert {b.text for b in doc.blocks} == {"月次報告書の様式です。記入してください。"}
    assert all("- " not in b.text for b in doc.blocks)


def test_real_json_records_keep_their_nesting_readable(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"service": {"name": "auth", "ports": [80, 443]}}), encoding="utf-8")
    assert parse_file(path, SETTINGS).blocks[0].text == "service.name: auth\nservice.ports: 80\nservice.ports: 443"


def test_every_chunk_of_a_long_record_says_which_record_it_is(tmp_path: Path) -> None:
    """A profile too long for one chunk: the chunk holding where the person lives still names the person."""
    scores = {f"score_{n:02d}": n / 7 for n in range(60)}
    people = [
        {"interlocutor_id": who, "persona": [f"{who} の自己紹介です。"], "personality": scores,
         "demographic_information": {"gender": "Female", "region_of_residence": region}}
        for who, region in (("AA", "Osaka"), ("AB", "Hyogo"))
    ]  # fmt: skip
    path = make_jsonl(tmp_path / "profiles.jsonl", people)
    chunks = chunk_document(
        parse_file(path, SETTINGS), source=path.name, rel_path=path.name, doc_type="records", settings=SETTINGS
    )
    assert len(chunks) > 2
    residence = [c.text for c in chunks if "region_of_residence" in c.text]
    assert [text.split("\n")[0] for text in residence] == ["interlocutor_id: AA", "interlocutor_id: AB"]
    assert "demographic_information.region_of_residence: Hyogo" in residence[1]
    assert all(c.text.startswith("interlocutor_id: A") for c in chunks)
    assert all(len(c.text) <= SETTINGS.chunk_size_for("records") for c in chunks)
