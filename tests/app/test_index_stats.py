"""The index page after an embedding switch: it says what differs and re-embeds with one click."""

from __future__ import annotations

from pathlib import Path

from app_driver import ok
from streamlit.testing.v1 import AppTest

from rag.models.embedding import MINILM_OFFLINE
from rag.service import RagService
from rag.settings import Settings

PAGE = Path(__file__).resolve().parents[2] / "app_pages" / "index_stats.py"


def test_a_switched_embedding_is_reported_and_reembedded_with_one_click(
    storage: Path, models_dir: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tee.txt").write_text("Sessions are opened with TEEC_OpenSession and closed with TEEC_CloseSession.")
    # Built with MiniLM's torch int8 variant; the app is configured with MiniLM fp32 (the storage fixture).
    built = Settings(
        storage_dir=storage, model_dir=models_dir, embedding_model=MINILM_OFFLINE, embedding_precision="int8"
    )
    chunks = RagService(built).index_paths([docs]).embedded

    at = ok(AppTest.from_file(str(PAGE), default_timeout=120).run())
    assert any("check --reembed" in w.value for w in at.warning)
    ok(at.button(key="stats_reembed").click().run())
    assert [s.value for s in at.success] == [f"{chunks} チャンクを再埋め込みしました。"]
    assert not at.warning
    assert chunks > 0
