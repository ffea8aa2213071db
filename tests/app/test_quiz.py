"""Quiz page: generate from a source, play statement by statement, see the score, export and delete the set."""

from __future__ import annotations

from pathlib import Path

from app_driver import index_folder, ok, texts
from docmaker import PdfPage, make_pdf
from streamlit.testing.v1 import AppTest

FACTS = (
    "セキュアストレージの鍵は128ビットのAESで暗号化される。",
    "TEE_Mallocはヒープから最大64キロバイトのメモリを確保する。",
    "セッションは最大16個まで同時に開くことができる。",
    "共有メモリの登録には4096バイト境界への整列が必要である。",
    "The client library retries a failed command 3 times before it reports an error.",
    "A trusted application may hold at most 8 open object handles.",
    "時刻APIは1秒未満の精度を保証しない。",
    "The secure monitor saves 31 general purpose registers on every world switch.",
)


def test_generate_play_judge_score_export_delete(app: AppTest, tmp_path: Path) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    make_pdf(folder / "tee_spec.pdf", [PdfPage((fact,), heading=f"{n}章") for n, fact in enumerate(FACTS, 1)])
    index_folder(app, folder)

    app.switch_page("app_pages/quiz.py").run()
    assert "保存済みのクイズはありません" in texts(app)
    app.selectbox(key="quiz_source").set_value("manuals/tee_spec.pdf")
    app.number_input(key="quiz_count").set_value(3)
    app.button(key="quiz_submit").click()
    ok(app.run())
    assert app.status[0].label == "3 問のクイズを作成しました。"
    assert "3 items ready" in texts(app)  # the generator's progress messages
    assert "1 / 3 問目" in app.get("progress")[0].proto.text

    correct = 0
    for position in range(3):
        statement = app.markdown[0].value
        assert statement.startswith("### ")
        app.button(key=f"quiz_true_{position}").click()
        ok(app.run())
        verdict = (app.main.success or app.main.error)[0].value
        assert verdict in ("正解です!", "不正解です。")
        correct += verdict == "正解です!"
        assert any(m.value.startswith("正解: ") for m in app.markdown)
        assert app.text and app.text[0].value  # the explanation
        assert "引用" in texts(app) and "manuals/tee_spec.pdf" in texts(app)  # and where it comes from
        app.button(key=f"quiz_next_{position}").click()
        ok(app.run())

    assert f"終了! 得点: {correct} / 3" in texts(app)
    assert f"これまでの得点: {correct}/3" in texts(app)  # recorded with the saved set

    export = next(b for b in app.download_button if b.key and b.key.startswith("quiz_export_"))
    quiz_id = export.key.removeprefix("quiz_export_")
    app.button(key=f"quiz_delete_{quiz_id}").click()
    ok(app.run())
    assert "保存済みのクイズはありません" in texts(app)
