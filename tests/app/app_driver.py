"""What every AppTest does: run the app, check the run raised nothing, upload files, read what the user sees."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "streamlit_app.py"
RUN_TIMEOUT = 120.0  # the first indexing or search run loads the embedding model


def ok(at: AppTest) -> AppTest:
    """The AppTest after asserting that the run raised nothing."""
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(at: AppTest, files: list[tuple[str, bytes, str]]) -> AppTest:
    """Put files in the uploader and press "add to index", as a user does."""
    at.switch_page("app_pages/upload.py").run()
    at.file_uploader[0].set_value(files)
    ok(at.run())
    at.button(key="upload_index_files").click()
    return ok(at.run())


def texts(at: AppTest) -> str:
    """Everything the page shows as text, markdown, captions and alerts, joined (for 'the user sees X')."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "text", "success", "info", "warning", "error"):
        parts.extend(str(element.value) for element in at.get(kind))
    return re.sub(r"\\(.)", r"\1", "\n".join(parts))  # undo the markdown escaping of document text


def index_folder(at: AppTest, folder: Path) -> AppTest:
    """Index a folder from the upload page's folder tab."""
    at.switch_page("app_pages/upload.py").run()
    at.text_input(key="upload_folder").set_value(str(folder))
    ok(at.run())
    at.button(key="upload_index_folder").click()
    ok(at.run())
    shown = texts(at)
    assert "失敗 0" in shown, shown
    return at
