"""Sheets read as a person reads them: merged cells, a title above the table, group headers, wide tables as records."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import openpyxl
from docmaker import make_csv
from test_claims import REALDOCS, checked_on, chunks_of, needs_realdocs

from rag.answers.context import RECORD_SHARE, build_context
from rag.answers.context_window import estimate_tokens
from rag.ingest.chunking import chunk_document
from rag.ingest.parsing import parse_file
from rag.records import Hit, StageScores
from rag.settings import Settings

SETTINGS = Settings()
TRAINING = "ja_oss_training_case_analysis.xlsx"


def _workbook(path: Path, rows: list[list[object]], merged: list[str]) -> Path:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "売上"
    for row in rows:
        sheet.append(row)
    for cells in merged:
        sheet.merge_cells(cells)
    workbook.save(str(path))
    return path


def test_a_title_is_the_caption_and_a_merged_group_names_the_columns_under_it(tmp_path: Path) -> None:
    path = _workbook(
        tmp_path / "sales.xlsx",
        [
            ["地域別四半期売上(百万円)"],
            ["", "2023", None, "2024", None],
            ["地域", "Q1", "Q2", "Q1", "Q2"],
            ["東京", 10, 20, 30, 40],
            ["大阪", 11, 21, 31, 41],
        ],
        ["A1:E1", "B2:C2", "D2:E2"],
    )
    blocks = parse_file(path, SETTINGS).blocks
    texts = [b.text for b in blocks]
    assert "地域別四半期売上(百万円)" in texts  # the title says what the table is; it names no column
    table = next(b.text for b in blocks if b.kind == "table")
    assert table.splitlines()[0] == "| 地域 | 2023 / Q1 | 2023 / Q2 | 2024 / Q1 | 2024 / Q2 |"
    assert "| 大阪 | 11 | 21 | 31 | 41 |" in table  # 2024's Q2 for Osaka is 41, not a column away


def test_a_wide_table_is_read_as_one_record_per_row_that_says_what_each_value_is(tmp_path: Path) -> None:
    header = ["ID", "品名", "単価", "在庫", "倉庫", "仕入先", "発注点", "単位", "更新日", "担当"]
    rows = [
        [101, "温度センサー", 1200, 240, "川崎", "Kestrel Systems", 50, "個", "2024-05-01", "佐藤"],
        [102, "湿度センサー", 1500, 80, "横浜", "Nordic Sense", 30, "個", "2024-05-02", "田中"],
    ]
    path = make_csv(tmp_path / "stock.csv", header, rows)
    doc = parse_file(path, SETTINGS)
    chunks = chunk_document(doc, source=path.name, rel_path=path.name, doc_type="general", settings=SETTINGS)
    second = next(c for c in chunks if c.text.startswith("ID: 102"))
    assert "在庫: 80" in second.text.splitlines() and "仕入先: Nordic Sense" in second.text.splitlines()
    assert "240" not in second.text  # each row on its own: the other sensor's stock is not read with it
    assert second.chunk_type == "record"


@needs_realdocs
def test_the_training_workbook_says_which_company_trains_new_hires_and_in_which_course() -> None:
    # The sheet's title was read as its header and every other column as "colN"; the companies (merged over
    # their courses' columns) stood three rows above the audience row, and the question "which company runs a
    # course for new hires?" got no answer from a row reading "| 対象者 | ... | 新人 | ..." among twenty cells.
    doc = parse_file(REALDOCS / TRAINING, SETTINGS)
    texts = [b.text for b in doc.blocks]
    assert not any("col2" in text for text in texts)
    assert any(text.startswith("各社の教育体系の整理") for text in texts)
    audience = next(text.splitlines() for text in texts if text.startswith("Company / 教育: 対象者"))
    assert "A Consumer Electronics Company / OSS基礎研修: 新人" in audience
    # a category written once goes on over the rows under it: copyright, patents and trade marks are intellectual
    # property items of the same course
    property_items = next(
        text for text in texts if text.startswith("教育の内容のカテゴリ — Company / 教育: 知的財産権")
    )
    assert "Precision Machinery Company / ソフトウェア開発者が押さえておくべき 知的財産権: 商標権5" in property_items


@needs_realdocs
def test_a_revision_cycle_given_to_the_course_beside_it_is_refused() -> None:
    question = "教育プログラム事例分析の表で、IT Companyの「OSSの基礎」研修はどのくらいの頻度で改訂されますか？"
    passage = (TRAINING, "2年毎に改訂")
    wrong = checked_on(passage, question, "IT Companyの「OSSの基礎」研修は毎回新規作成されます[1]。")
    right = checked_on(passage, question, "IT Companyの「OSSの基礎」研修は2年毎に改訂されます[1]。")
    assert not wrong.claims[0].supported and "another entry" in wrong.claims[0].reason
    assert right.claims[0].supported, right.claims[0].reason


@needs_realdocs
def test_an_answer_naming_no_course_is_read_for_the_course_its_question_names() -> None:
    # "IT Company / OSSの基礎: OSSを利用するための社内インフラ利用経験のある営業、SE、…" and, on the next line,
    # "IT Company / OSSコンプライアンス教育: OSSのコンプライアンス(ライセンス、知財、他)、…管理者、担当者向け": the
    # answer copying the next line names no course, and was verified
    question = "教育プログラム事例分析の表で、IT Companyの「OSSの基礎」研修の対象者は誰ですか？"
    passage = (TRAINING, "社内インフラ利用経験のある営業")
    wrong = checked_on(
        passage,
        question,
        "OSSのコンプライアンス（ライセンス、知財など）やガイドラインに関連する管理者・担当者が対象です[1]。",
    )
    right = checked_on(
        passage,
        question,
        "OSSを利用するための社内インフラの利用経験がある営業、SE、設計、品質保証などの人が対象です[1]。",
    )
    assert not wrong.claims[0].supported and "another entry; OSSの基礎's is" in wrong.claims[0].reason
    assert right.claims[0].supported, right.claims[0].reason


@needs_realdocs
def test_a_row_of_a_sheet_leaves_room_in_the_context_for_the_rows_after_it() -> None:
    # The end of one category's record came first, widened with its neighbours' text, then the rest of the record
    # whole: the embedded model's context was full, and the row holding the answer, third in the search, was not
    # read (教育完了85%以上 is under "その他"). A record now brings the lines the question is about, at most half
    # the context, under the line naming its row.
    question = "OpenChain仕様1.2の教育要件として教育完了率の目標は何％以上ですか？"
    program = "教育の内容のカテゴリ — Company / 教育: コンプライアンスプログラム"
    chunks = chunks_of(TRAINING)
    at = {name: next(i for i, c in enumerate(chunks) if all(n in c.text for n in name)) for name in NEEDLES}
    end_of_it, long_row, answering = (chunks[at[name]] for name in NEEDLES)
    around = chunks[at[NEEDLES[0]] - 1], chunks[at[NEEDLES[0]] + 1]
    first = Hit(end_of_it, 1.0, StageScores(), context_before=around[0].text, context_after=around[1].text)
    hits = [first, Hit(long_row, 0.9, StageScores()), Hit(answering, 0.8, StageScores())]

    passages = build_context(question, hits, replace(SETTINGS, context_budget_tokens=800), "embedded")

    assert [p.chunk for p in passages] == [end_of_it, long_row, answering]
    assert passages[0].text.splitlines()[0] == program  # a record is read under the line naming its row
    assert "OpenChain / Spec. -1.2: 教育対象者への教育完了85%以上" in passages[2].text.splitlines()
    assert all(estimate_tokens(p.text) <= 800 * RECORD_SHARE for p in passages)


@needs_realdocs
def test_a_record_the_question_touches_by_its_column_names_alone_leaves_the_room_to_the_row_that_answers() -> None:
    # Every line of the workbook's records is named "OpenChain / Spec. -1.2", "OpenChain / Spec. -2.0" and so on, so
    # asked about "仕様1.2" and "2.0", a long record of another category filled half the context with its lines,
    # the commentary's page took the rest, and the row holding 教育完了85%以上, fourth in the search, was not read.
    question = (
        "各社の教育体系を整理したExcelには、OpenChain仕様1.2の教育要件として教育完了率の目標が書かれています。"
        "その目標は何％以上で、仕様2.0ではこの種の修了条件はどう扱われていますか？"
    )
    chunks = chunks_of(TRAINING)
    at = {name: next(i for i, c in enumerate(chunks) if all(n in c.text for n in name)) for name in NEEDLES}
    end_of_it, long_row, answering = (chunks[at[name]] for name in NEEDLES)
    commentary = next(c for c in chunks_of("ja_openchain_spec_kaisetsu.pdf") if "Version 2.0)では削除" in c.text)
    in_order = (end_of_it, long_row, commentary, answering)
    hits = [Hit(chunk, 1.0 - i / 10, StageScores()) for i, chunk in enumerate(in_order)]

    passages = build_context(question, hits, replace(SETTINGS, context_budget_tokens=800), "embedded")

    assert [p.chunk for p in passages] == list(in_order)
    assert "OpenChain / Spec. -1.2: 教育対象者への教育完了85%以上" in passages[3].text.splitlines()
    assert "Version 2.0)では削除されています" in passages[2].text


NEEDLES = (
    ("コンプライアンスプログラム", "スキルのエビデンスとして保持5"),  # the record's last chunk
    ("コンプライアンスプログラム", "プログラムのパフォーマンスと効果"),
    ("教育対象者への教育完了85%以上",),
)
