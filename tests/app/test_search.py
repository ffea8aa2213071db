"""Search inspection page: per-stage scores, highlighted terms, neighbours, side-by-side modes, evaluation."""

from __future__ import annotations

import json
from pathlib import Path

from app_driver import index_folder, ok, texts
from streamlit.testing.v1 import AppTest


def search(at: AppTest, query: str) -> AppTest:
    at.switch_page("app_pages/search.py").run()
    at.text_input(key="search_query").set_value(query)
    at.button(key="search_submit").click()
    return ok(at.run())


def test_hits_show_every_stage_and_the_matched_terms_in_bold(app: AppTest, spec_pdf: Path) -> None:
    index_folder(app, spec_pdf.parent)
    search(app, "TEE_Malloc メモリ 確保")

    assert "ハイブリッド検索の結果" in app.subheader[0].value
    scores = app.table[0].value.iloc[0]
    assert scores["最終順位"] == "1"
    assert scores["ベクトル 順位 (スコア)"].startswith("#")  # dense ran
    assert scores["BM25 順位 (スコア)"].startswith("#")  # BM25 ran
    assert float(scores["RRF スコア"]) > 0
    assert "docs/メモリ仕様.pdf" in texts(app) and "p.1" in texts(app)
    assert any("**TEE\\_Malloc**" in m.value for m in app.markdown)  # bold, with its underscore escaped
    assert "一致した語" in texts(app)

    # BM25 only / dense only / hybrid side by side
    assert "BM25 のみ / ベクトルのみ / ハイブリッド" in texts(app)
    assert {"**BM25 のみ**", "**ベクトルのみ**", "**ハイブリッド**"} <= {m.value for m in app.markdown}

    app.toggle(key="search_hybrid_nb_1").set_value(True)
    ok(app.run())
    shown = "\n".join(t.value for t in app.text)
    assert "TEE_Mallocはトラステッドアプリケーションのヒープからメモリを確保する関数である。" in shown


def test_document_text_is_never_rendered_as_markup(app: AppTest, tmp_path: Path) -> None:
    folder = tmp_path / "markup"
    folder.mkdir()
    (folder / "evil.md").write_text(
        "Payload <script>alert(1)</script> and <b>bold</b> and [a link](http://example.com) and :red[red] $x$.",
        encoding="utf-8",
    )
    index_folder(app, folder)
    search(app, "payload script link")
    body = next(m.value for m in app.markdown if "Payload" in m.value)
    for raw in ("<script>", "<b>", "](http", ":red[", "$x$"):
        assert raw not in body  # every markup character is escaped...
    assert "alert(1)" in texts(app) and "[a link](http://example.com)" in texts(app)  # ...and still readable


def test_filters_limit_hits_to_the_chosen_source(app: AppTest, spec_pdf: Path) -> None:
    (spec_pdf.parent / "other.txt").write_text("TEE_Malloc is also described in this other note.", encoding="utf-8")
    index_folder(app, spec_pdf.parent)
    app.switch_page("app_pages/search.py").run()
    app.multiselect(key="search_f_src").set_value(["docs/other.txt"])
    app.text_input(key="search_query").set_value("TEE_Malloc")
    app.button(key="search_submit").click()
    ok(app.run())
    titles = [m.value for m in app.markdown if m.value.startswith("**1\\.") or m.value.startswith("**2\\.")]
    assert titles and all("other\\.txt" in title for title in titles)


def test_evaluation_tab_shows_metrics_per_mode_and_per_query(app: AppTest, tmp_path: Path) -> None:
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    docs = {
        "d1": "Trusted applications run in an isolated secure world.",
        "d2": "Shared memory must be registered before invoking a command.",
        "d3": "Sessions are opened with TEEC_OpenSession.",
    }
    (beir / "corpus.jsonl").write_text(
        "\n".join(json.dumps({"_id": k, "title": "", "text": v}) for k, v in docs.items()), encoding="utf-8"
    )
    queries = {"q1": "how is a session opened", "q2": "register shared memory"}
    (beir / "queries.jsonl").write_text(
        "\n".join(json.dumps({"_id": k, "text": v}) for k, v in queries.items()), encoding="utf-8"
    )
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td3\t1\nq2\td2\t1\n", encoding="utf-8")

    app.switch_page("app_pages/search.py").run()
    app.text_input(key="search_eval_path").set_value(str(beir))
    app.multiselect(key="search_eval_modes").set_value(["bm25", "hybrid"])
    ok(app.run())
    app.button(key="search_eval_run").click()
    ok(app.run())
    metrics = app.dataframe[0].value
    assert set(metrics.index) == {"bm25", "hybrid"}
    assert metrics.loc["hybrid", "ndcg@10"] > 0.5  # both queries find their one relevant document near the top
    per_query = app.dataframe[1].value
    assert set(per_query["query_id"]) == {"q1", "q2"}


def test_evaluation_tab_scores_answers_on_a_golden_file(app: AppTest, spec_pdf: Path, tmp_path: Path) -> None:
    index_folder(app, spec_pdf.parent)
    golden = tmp_path / "golden.jsonl"
    lines = [
        {"id": "malloc", "question": "TEE_Mallocは何をする関数ですか?", "answer_contains": ["ヒープからメモリを確保"]},
        {"id": "wrong", "question": "TEE_Mallocは何をする関数ですか?", "answer_contains": ["ファイルを削除"]},
    ]
    golden.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")

    app.switch_page("app_pages/search.py").run()
    app.text_input(key="search_eval_path").set_value(str(golden))
    app.toggle(key="search_eval_answers").set_value(True)
    ok(app.run())
    app.button(key="search_eval_run").click()
    ok(app.run())
    summary = app.dataframe[0].value
    assert summary.loc["answers", "accuracy"] == 0.5  # the extractive answer holds the one right expectation
    assert summary.loc["answers", "citation_validity"] == 1.0
    per_query = app.dataframe[1].value
    assert list(per_query["correct"]) == [True, False]


def test_chat_hit_says_who_said_it_and_when(app: AppTest, tmp_path: Path) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    turns = [
        {"interlocutor_id": "AB", "text": "海外赴任の経験はありますか?", "timestamp": "2022-08-06T15:17:10.5"},
        {"interlocutor_id": "AA", "text": "イギリスに三年間駐在していました。", "timestamp": "2022-08-06T15:18:02.3"},
    ]
    chat = {"dialogue_id": 4, "utterances": turns}
    (folder / "chat.json").write_text(json.dumps(chat, ensure_ascii=False), encoding="utf-8")
    index_folder(app, folder)
    search(app, "イギリス 駐在")
    assert "発言者と時刻: AB, AA · 2022-08-06 15:17 – 15:18" in texts(app)
