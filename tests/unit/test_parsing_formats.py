"""Happy paths of every non-PDF format, on real files written in the test."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from docmaker import (
    API_TABLE,
    JA_PARAGRAPHS,
    WORD_NS,
    ChartSpec,
    chart_xml,
    inflate_part,
    make_csv,
    make_docx,
    make_html,
    make_json,
    make_jsonl,
    make_xlsx,
)
from test_claims import REALDOCS, needs_realdocs

from rag.errors import DocumentReadError
from rag.ingest.chunking import chunk_document
from rag.ingest.parsing import parse_file
from rag.settings import Settings

SETTINGS = Settings()


def _chunks(path: Path, settings: Settings = SETTINGS):
    doc = parse_file(path, settings)
    return doc, chunk_document(doc, source=path.name, rel_path=path.name, doc_type="general", settings=settings)


def test_docx_headings_paragraphs_tables_and_date(tmp_path: Path) -> None:
    path = make_docx(
        tmp_path / "manual.docx",
        [("h1", "メモリ管理"), JA_PARAGRAPHS[0], ("h2", "関数一覧"), API_TABLE, "表の後の段落です。TEE_Freeを参照。"],
        title="TEE マニュアル",
        created=datetime(2023, 4, 1, 9, 30),
    )
    doc, chunks = _chunks(path)
    assert doc.title == "TEE マニュアル" and doc.date == "2023-04-01"
    assert [(c.chunk_type, c.section) for c in chunks] == [
        ("text", "メモリ管理"),
        ("table", "関数一覧"),
        ("text", "関数一覧"),
    ]
    assert JA_PARAGRAPHS[0] in chunks[0].text
    assert chunks[1].text.split("\n")[2] == "| TEE_Malloc | メモリを確保する | ポインタ |"


def test_docx_text_boxes_header_and_footer_are_read_once_where_a_reader_meets_them(tmp_path: Path) -> None:
    # python-docx's paragraph text leaves out what the paragraph's runs anchor: a callout's text box, and the
    # header and footer parts; Word writes each box twice (a shape and a VML copy for old readers)
    path = make_docx(
        tmp_path / "notice.docx",
        ["メンテナンスのお知らせです。", ("box", "停止中はVPNに接続できません。"), "作業は22時に始まります。"],
        header="社内向け資料 第3版",
        footer="問い合わせ先: 情報システム部 内線1234",
    )
    doc, chunks = _chunks(path)
    assert [b.text for b in doc.blocks] == [
        "社内向け資料 第3版",
        "メンテナンスのお知らせです。",
        "停止中はVPNに接続できません。",
        "作業は22時に始まります。",
        "問い合わせ先: 情報システム部 内線1234",
    ]
    assert "停止中はVPNに接続できません。" in chunks[0].text


def test_docx_text_nested_in_tracked_changes_and_content_controls_is_read_and_deleted_text_is_not(
    tmp_path: Path,
) -> None:
    import docx
    from docx.shared import Inches

    from rag.ingest.parsing.word_text import paragraph_text

    # python-docx reads the runs straight under a paragraph and the paragraphs straight under the body: a reviewer's
    # tracked insertion, a form's filled-in fields and a cover page's content control were all lost
    tracked = (
        f"<w:p {WORD_NS}><w:r><w:t>保守契約の期間は</w:t></w:r>"
        "<w:del><w:r><w:delText>1年</w:delText></w:r></w:del><w:ins><w:r><w:t>3年</w:t></w:r></w:ins>"
        "<w:r><w:t>とする。</w:t></w:r></w:p>"
    )
    form = (
        f"<w:p {WORD_NS}><w:r><w:t>担当者: </w:t></w:r>"
        "<w:sdt><w:sdtContent><w:r><w:t>山田 花子</w:t></w:r></w:sdtContent></w:sdt></w:p>"
    )
    cover = (
        f"<w:sdt {WORD_NS}><w:sdtContent><w:p><w:r><w:t>表紙: 2025年度 保守計画書</w:t></w:r></w:p>"
        "</w:sdtContent></w:sdt>"
    )
    cell = (
        f"<w:tbl {WORD_NS}><w:tr><w:tc><w:p><w:r><w:t>項目</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:p><w:r><w:t>値</w:t></w:r></w:p></w:tc></w:tr>"
        "<w:tr><w:tc><w:p><w:r><w:t>応答時間</w:t></w:r></w:p></w:tc><w:tc><w:sdt><w:sdtContent>"
        "<w:p><w:r><w:t>4時間以内</w:t></w:r></w:p></w:sdtContent></w:sdt></w:tc></w:tr></w:tbl>"
    )
    path = make_docx(tmp_path / "contract.docx", [("xml", cover), ("xml", tracked), ("xml", form), ("xml", cell)])
    doc = parse_file(path, SETTINGS)
    assert [b.text for b in doc.blocks] == [
        "表紙: 2025年度 保守計画書",
        "保守契約の期間は3年とする。",
        "担当者: 山田 花子",
        "| 項目 | 値 |\n| --- | --- |\n| 応答時間 | 4時間以内 |",
    ]
    # a paragraph's tab stops are w:tab elements in its properties, not tabs in its text
    tabbed = docx.Document().add_paragraph("窓口\t情報システム部")
    tabbed.paragraph_format.tab_stops.add_tab_stop(Inches(1))
    assert paragraph_text(tabbed._p) == "窓口\t情報システム部"


def test_a_chart_in_a_word_document_is_read_as_its_figures_after_the_paragraph_before_it(tmp_path: Path) -> None:
    shares = ChartSpec("", ["はい", "いいえ"], {"2023年": [0.459, 0.541]}, number_format="0.0%", pie=True)
    path = make_docx(tmp_path / "report.docx", ["上場している組織の割合は次のとおり。", ("chart", shares), "以上。"])
    doc = parse_file(path, SETTINGS)
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("text", "上場している組織の割合は次のとおり。"),
        ("table", "| col1 | 2023年 |\n| --- | --- |\n| はい | 45.9% |\n| いいえ | 54.1% |"),
        ("text", "以上。"),
    ]


def test_smartart_in_a_word_document_is_read_as_its_nodes(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "flow.docx", ["申請の流れは次のとおり。", ("smartart", ["申請書の提出", "部長の審査"])])
    assert [b.text for b in parse_file(path, SETTINGS).blocks] == [
        "申請の流れは次のとおり。",
        "申請書の提出\n部長の審査",
    ]


@needs_realdocs
def test_the_pamphlets_speech_bubbles_footnote_and_licence_footer_are_read() -> None:
    doc = parse_file(REALDOCS / "ja_oss_compliance_pamphlet.docx", SETTINGS)
    texts = [b.text for b in doc.blocks]
    assert texts.count("うちの会社の評判が\nガタ落ちだぁ。") == 1  # a bubble, once though Word writes it twice
    footnote = "開発者が他者へ著作権を譲渡している場合は、開発者以外の著作権者がライセンスを提示します。"
    referring = next(i for i, t in enumerate(texts) if t.startswith("近年、OSSは"))  # its footnote mark is here
    assert footnote in texts[referring + 1 : referring + 3]
    assert (
        texts[-1] == "※本ドキュメントは、CC0-1.0(パブリックドメイン)の条件で利用可能です。"
    )  # the first page's footer


_TEXT_BOX_ANCHOR = (
    '<xdr:twoCellAnchor xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><xdr:from><xdr:col>4</xdr:col><xdr:colOff>0'
    "</xdr:colOff><xdr:row>0</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from><xdr:to><xdr:col>8</xdr:col><xdr:colOff>0"
    '</xdr:colOff><xdr:row>3</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to><xdr:sp macro="" textlink="">'
    '<xdr:nvSpPr><xdr:cNvPr id="9" name="TextBox 1"/><xdr:cNvSpPr txBox="1"/></xdr:nvSpPr><xdr:spPr/><xdr:txBody>'
    "<a:bodyPr/><a:p><a:r><a:t>注意: 金額は税抜きです。</a:t></a:r></a:p></xdr:txBody></xdr:sp><xdr:clientData/>"
    "</xdr:twoCellAnchor>"
)


def test_xlsx_text_boxes_charts_and_cell_comments_are_read(tmp_path: Path) -> None:
    # openpyxl reads cells, not what a sheet draws over them nor (read-only) the comments on them
    import openpyxl
    from openpyxl.chart import BarChart, Reference
    from openpyxl.comments import Comment

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "見積"
    for row in (["品目", "金額"], ["センサー", 120], ["ゲートウェイ", 900]):
        sheet.append(row)
    sheet["B3"].comment = Comment("仕入先の値上げで来月から950になる", "佐藤")
    chart = BarChart()
    chart.title = "品目別の金額"
    chart.add_data(Reference(sheet, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    chart.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=3))
    sheet.add_chart(chart, "D5")
    path = tmp_path / "quote.xlsx"
    workbook.save(str(path))
    with zipfile.ZipFile(path) as package:
        drawing = package.read("xl/drawings/drawing1.xml").decode()
    inflate_part(path, "xl/drawings/drawing1.xml", drawing.replace("</wsDr>", _TEXT_BOX_ANCHOR + "</wsDr>").encode())
    # Excel saves the figures a chart last showed in its part; openpyxl writes only the cell ranges
    figures = ChartSpec("品目別の金額", ["センサー", "ゲートウェイ"], {"金額": [120, 900]})
    inflate_part(path, "xl/charts/chart1.xml", chart_xml(figures))
    doc = parse_file(path, SETTINGS)
    assert [(b.kind, b.text) for b in doc.blocks][2:] == [
        ("text", "注意: 金額は税抜きです。"),  # anchored at row 1, above the chart at row 5
        ("table", "| 品目別の金額 | 金額 |\n| --- | --- |\n| センサー | 120 |\n| ゲートウェイ | 900 |"),
        ("text", "B3 (900): 仕入先の値上げで来月から950になる"),
    ]


@needs_realdocs
def test_the_training_workbooks_cell_comments_are_read_with_their_cells() -> None:
    doc = parse_file(REALDOCS / "ja_oss_training_case_analysis.xlsx", SETTINGS)
    assert "N5 (法務向け教育): 小泉 悟:\n事前に質問を受け付けており、それに回答する形の講義形式です" in [
        b.text for b in doc.blocks
    ]


def _saved_mail(path: Path, *, html: str = "", attachment: str = "") -> Path:
    """A message as a Japanese mail client saves it: subject and body in ISO-2022-JP, an HTML alternative."""
    from email.message import EmailMessage

    message = EmailMessage()
    message["Subject"] = "保守契約の更新について"
    message["From"] = "佐藤 <sato@example.co.jp>"
    message["To"] = "yamada@example.co.jp"
    message["Date"] = "Tue, 14 May 2024 10:20:00 +0900"
    message.set_content(
        "山田様\n\n保守契約は2025年3月末で満了します。\n更新の要否を4月10日までにご連絡ください。\n",
        charset="iso-2022-jp",
    )
    if html:
        message.add_alternative(html, subtype="html")
    if attachment:
        message.add_attachment(b"%PDF-1.4", maintype="application", subtype="pdf", filename=attachment)
    path.write_bytes(message.as_bytes())
    return path


def test_a_saved_email_is_read_with_its_subject_headers_text_and_attachment_names(tmp_path: Path) -> None:
    # mail was refused ("save it as PDF or text"), though a thread is where a decision is often written down
    path = _saved_mail(tmp_path / "renewal.eml", html="<p>HTMLの版</p>", attachment="見積書.pdf")
    doc = parse_file(path, SETTINGS)
    assert doc.title == "保守契約の更新について" and doc.date == "2024-05-14"
    assert [b.text for b in doc.blocks] == [
        "保守契約の更新について",
        "From: 佐藤 <sato@example.co.jp>\nTo: yamada@example.co.jp\nDate: Tue, 14 May 2024 10:20:00 +0900",
        "山田様",
        "保守契約は2025年3月末で満了します。\n更新の要否を4月10日までにご連絡ください。",  # plain, not the HTML
        "Attachments: 見積書.pdf",
    ]
    assert {b.section for b in doc.blocks} == {"保守契約の更新について"}


def test_an_html_only_email_is_read_and_a_file_that_is_no_email_is_explained(tmp_path: Path) -> None:
    from email.message import EmailMessage

    message = EmailMessage()
    message["Subject"] = "Release notes"
    message["From"] = "build@example.com"
    message.set_content("<html><body><h1>v2.1</h1><p>The timeout is now 30 seconds.</p></body></html>", subtype="html")
    (tmp_path / "notes.eml").write_bytes(message.as_bytes())
    doc = parse_file(tmp_path / "notes.eml", SETTINGS)
    assert "The timeout is now 30 seconds." in [b.text for b in doc.blocks]
    (tmp_path / "memo.eml").write_text("just a memo, no headers\n", encoding="utf-8")
    with pytest.raises(DocumentReadError, match="not an e-mail"):
        parse_file(tmp_path / "memo.eml", SETTINGS)


def test_xlsx_sheets_as_sections_and_big_tables_split(tmp_path: Path) -> None:
    rows = [["ID", "関数", "登録日", "値"]] + [
        [n, f"TEE_F{n}", datetime(2024, 1, n % 28 + 1), n * 1.0] for n in range(1, 71)
    ]
    path = make_xlsx(
        tmp_path / "apis.xlsx", {"関数表": rows, "メモ": [["項目", "内容"], ["注意", "NULLを確認する"]], "空": []}
    )
    doc, chunks = _chunks(path, replace(SETTINGS, chunk_size=4000))
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert [b.section for b in tables] == ["関数表", "関数表", "関数表", "メモ"]
    assert all(b.text.startswith("| ID | 関数 | 登録日 | 値 |\n| --- |") for b in tables[:3])
    assert tables[0].text.count("\n") == 31  # header + separator + 30 rows
    assert "| 1 | TEE_F1 | 2024-01-02 | 1 |" in tables[0].text
    assert [c.chunk_type for c in chunks] == ["table"] * 4


def test_html_drops_scripts_and_nav_keeps_sections_and_tables(tmp_path: Path) -> None:
    body = """
    <nav><a href="/">ホーム</a> | <a href="/docs">ドキュメント</a></nav>
    <script>var secret = "do not index";</script><style>p { color: red }</style>
    <h1>TEE概要</h1>
    <p>信頼できる実行環境は
       アプリケーションを隔離する。<b>TEE_Malloc</b>でメモリを確保する。</p>
    <h2>関数</h2>
    <table><tr><th>関数名</th><th>説明</th></tr><tr><td>TEE_Free</td><td>解放する</td></tr></table>
    <ul><li>最初の項目です</li><li>二番目の項目です</li></ul>
    <footer>© 2024 Example</footer>
    """
    path = make_html(tmp_path / "page.html", body, title="概要ページ", head='<meta name="date" content="2022-12-24">')
    doc, chunks = _chunks(path)
    text = "\n".join(b.text for b in doc.blocks)
    assert "secret" not in text and "color" not in text and "ホーム" not in text and "Example" not in text
    assert doc.title == "概要ページ" and doc.date == "2022-12-24"
    assert "信頼できる実行環境はアプリケーションを隔離する。TEE_Mallocでメモリを確保する。" in text
    table = next(c for c in chunks if c.chunk_type == "table")
    assert table.section == "関数" and table.text == "| 関数名 | 説明 |\n| --- | --- |\n| TEE_Free | 解放する |"
    assert next(c for c in chunks if "最初の項目" in c.text).text == "• 最初の項目です\n\n• 二番目の項目です"


def test_html_list_items_are_written_as_items(tmp_path: Path) -> None:
    """An ``<li>`` reads as an item ("• …", or its number in an ``<ol>``): the line composition rules list their
    character classes without a full stop after any item, and read as one sentence, "行頭禁則約物類(cl-iii)" was
    bound to the "ルビ付き" of the ninth item."""
    body = """
    <p>新しい文字クラスは次のとおり。</p>
    <ol start="2"><li>終わり括弧類等(cl-ii) 終わり括弧類(cl-01)を統合</li>
    <li><p>行頭禁則約物類(cl-iii) ハイフン類(cl-03)を統合</p></li></ol>
    <ul><li>親文字群中の文字(ルビ付き)(cl-ix)</li></ul>
    """
    doc, _chunks_of_page = _chunks(make_html(tmp_path / "classes.html", body))
    assert [b.text for b in doc.blocks] == [
        "新しい文字クラスは次のとおり。",
        "2. 終わり括弧類等(cl-ii) 終わり括弧類(cl-01)を統合",
        "3. 行頭禁則約物類(cl-iii) ハイフン類(cl-03)を統合",
        "• 親文字群中の文字(ルビ付き)(cl-ix)",
    ]


def test_html_keeps_the_notes_of_its_text_and_drops_the_sidebar_of_the_page(tmp_path: Path) -> None:
    """A W3C draft writes its notes as ``<aside class="note">``: "ぶら下げ組は，岩波書店で採用されたのが最初であり…"
    was in none of the guide's chunks, and asked who devised hanging punctuation, no passage could say."""
    body = """
    <main><section><h2>行の調整処理</h2>
      <p>行の調整処理は、字間を詰めるか空けるかで行う。</p>
      <aside class="note" title="ぶら下げ組"><p>なお、ぶら下げ組は、岩波書店で採用されたのが最初である。</p></aside>
    </section></main>
    <aside><p>関連リンク: 他の仕様書を読む</p></aside>
    """
    doc, chunks = _chunks(make_html(tmp_path / "draft.html", body))
    text = "\n".join(b.text for b in doc.blocks)

    assert "なお、ぶら下げ組は、岩波書店で採用されたのが最初である。" in text
    assert next(c for c in chunks if "岩波書店" in c.text).section == "行の調整処理"
    assert "関連リンク" not in text


@needs_realdocs
def test_the_line_composition_guide_s_notes_are_read() -> None:
    doc = parse_file(REALDOCS / "ja_w3c_jlreq_line_composition.html", SETTINGS)

    assert "ぶら下げ組は,岩波書店で採用されたのが最初であり" in "\n".join(b.text for b in doc.blocks)


def test_html_in_shift_jis(tmp_path: Path) -> None:
    path = make_html(tmp_path / "sjis.html", f"<p>{JA_PARAGRAPHS[1]}</p>", encoding="shift_jis")
    doc = parse_file(path, SETTINGS)
    assert doc.blocks[0].text == JA_PARAGRAPHS[1]


def test_csv_blocks_of_30_rows_with_header(tmp_path: Path) -> None:
    path = make_csv(tmp_path / "data.csv", ["関数", "説明"], [[f"TEE_F{n}", f"説明{n}"] for n in range(70)])
    doc, chunks = _chunks(path, replace(SETTINGS, chunk_size=4000))
    assert len(doc.blocks) == 3 and all(b.kind == "table" for b in doc.blocks)
    assert all(b.text.startswith("| 関数 | 説明 |\n| --- | --- |\n") for b in doc.blocks)
    assert [b.text.count("\n") - 1 for b in doc.blocks] == [30, 30, 10]
    assert [c.chunk_type for c in chunks] == ["table"] * 3


def test_csv_shift_jis_semicolons_and_bad_rows(tmp_path: Path) -> None:
    path = tmp_path / "legacy.csv"
    path.write_bytes("名前;値\nメモリ;1\n壊れた;行;です\n解放;2\n".encode("cp932"))
    doc = parse_file(path, SETTINGS)
    assert doc.blocks[0].text == "| 名前 | 値 |\n| --- | --- |\n| メモリ | 1 |\n| 解放 | 2 |"
    assert any("malformed CSV rows skipped" in w for w in doc.warnings)


def test_csv_with_a_quote_never_closed_keeps_every_row_and_warns(tmp_path: Path) -> None:
    path = tmp_path / "export.csv"
    path.write_text('id,note\n1,"the quote opened here never closes\n2,second row\n3,third row\n', encoding="utf-8")
    doc = parse_file(path, SETTINGS)
    text = doc.blocks[0].text
    assert "| 2 | second row |" in text and "| 3 | third row |" in text  # not swallowed into row 1
    assert any("broken quoting" in w for w in doc.warnings)


def test_markdown_headings_code_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "---\ntitle: front matter\n---\n# TEE メモ\n\n導入の段落です。\n\n## 使い方\n\n"
        "```python\n# コメントは見出しではない\nif ok:\n    print(1)\n```\n\n"
        "| 関数 | 説明 |\n|---|---|\n| TEE_Free | 解放 |\n\n最後の段落です。これで終わり。\n",
        encoding="utf-8",
    )
    doc, chunks = _chunks(path)
    assert doc.title == "TEE メモ"
    assert [b.kind for b in doc.blocks] == ["heading", "text", "heading", "text", "table", "text"]
    assert (
        doc.blocks[3].section == "使い方" and "# コメントは見出しではない\nif ok:\n    print(1)" in doc.blocks[3].text
    )
    assert [c.chunk_type for c in chunks] == ["text", "text", "table", "text"]
    assert chunks[2].text == "| 関数 | 説明 |\n| --- | --- |\n| TEE_Free | 解放 |"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "cp932", "euc_jp"])
def test_text_encodings(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "memo.txt"
    path.write_bytes(f"{JA_PARAGRAPHS[0]}\r\n\r\n{JA_PARAGRAPHS[2]}\r\n".encode(encoding))
    doc = parse_file(path, SETTINGS)
    assert [b.text for b in doc.blocks] == [JA_PARAGRAPHS[0], JA_PARAGRAPHS[2]]


def test_json_records_metadata_and_compaction(tmp_path: Path) -> None:
    records = [
        {"id": 1, "title": "割当", "text": "TEE_Mallocで確保する。---以下は署名", "author": "佐藤", "source": "wiki"},
        {"id": 2, "title": "解放", "content": "TEE_Freeで解放する。" * 20, "category": "api"},
        {"id": 3, "title": "空"},
    ]
    path = make_json(tmp_path / "kb.json", records)
    fields = ("title", "id", "author", "category", "source")
    settings = replace(SETTINGS, json_cut_marker="---", json_max_chars=60, json_metadata_fields=fields)
    doc, chunks = _chunks(path, settings)
    assert [c.chunk_type for c in chunks] == ["record", "record"]
    assert chunks[0].text == "TEE_Mallocで確保する。"
    assert len(chunks[1].text) == 60
    assert chunks[0].section == "割当"
    assert chunks[0].extra == {
        "title": "割当", "id": 1, "author": "佐藤", "record_source": "wiki", "category": "",
        "record_no": 1, "api_functions": "TEE_Malloc", "api_functions_count": 1,
    }  # fmt: skip
    assert chunks[0].metadata()["source"] == "kb.json"
    assert any("1 record(s) without text" in w for w in doc.warnings)


def test_json_single_object_and_wrapped_list(tmp_path: Path) -> None:
    one = parse_file(make_json(tmp_path / "one.json", {"title": "単体", "body": "一件だけの記録です。"}), SETTINGS)
    assert [b.text for b in one.blocks] == ["一件だけの記録です。"]
    data = {"version": 2, "items": [{"text": "一"}, {"text": "二"}]}
    wrapped = parse_file(make_json(tmp_path / "wrapped.json", data), SETTINGS)
    assert [b.text for b in wrapped.blocks] == ["一", "二"]


def test_json_without_text_fields_is_read_as_key_value_lines(tmp_path: Path) -> None:
    path = make_json(tmp_path / "odd.json", [{"question": "q1", "answer": {"short": "a1", "score": 0.123456}}])
    doc = parse_file(path, SETTINGS)
    assert [b.text for b in doc.blocks] == ["question: q1\nanswer.short: a1\nanswer.score: 0.1235"]
    assert any("read as key: value lines" in w for w in doc.warnings)


def test_json_records_without_any_text_say_which_setting(tmp_path: Path) -> None:
    path = make_json(tmp_path / "empty.json", [{"question": "", "answer": None}])
    with pytest.raises(DocumentReadError, match=r"RAG_JSON_TEXT_FIELDS.*") as info:
        parse_file(path, SETTINGS)
    assert "answer" in str(info.value) and "question" in str(info.value)


def test_jsonl_30000_records_and_bad_lines(tmp_path: Path) -> None:
    path = make_jsonl(
        tmp_path / "chat.jsonl",
        (
            {"id": n, "message": f"メッセージ{n}: TEE_Open{n % 50}を呼んだ。", "author": f"user{n % 7}"}
            for n in range(30000)
        ),
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write("{not json}\n")
    doc, chunks = _chunks(path)
    assert len(doc.blocks) == 30000 and len(chunks) == 30000
    assert {c.chunk_type for c in chunks} == {"record"}
    assert chunks[123].extra["id"] == 123 and chunks[123].extra["record_no"] == 124
    assert chunks[123].extra["api_functions"] == "TEE_Open23"
    assert doc.warnings == ("1 line(s) are not valid JSON and were skipped (line 30001)",)
