"""Entry point: `streamlit run streamlit_app.py`. Navigation over app_pages/ and the shared sidebar; no logic."""

from __future__ import annotations

import streamlit as st

from rag.errors import RagError
from ui.i18n import init_language, t
from ui.icon import page_icon
from ui.service import get_service
from ui.sidebar import render_sidebar

st.set_page_config(page_title="Local RAG", page_icon=page_icon(), layout="wide")  # an image: nothing fetched remotely

try:
    service = get_service()
except RagError as err:
    st.error(str(err))
    st.stop()

init_language(service.settings.ui_language)
page = st.navigation(
    [
        st.Page("app_pages/upload.py", title=t("nav.upload"), icon=":material/upload_file:", default=True),
        st.Page("app_pages/index_stats.py", title=t("nav.stats"), icon=":material/analytics:"),
        st.Page("app_pages/search.py", title=t("nav.search"), icon=":material/search:"),
        st.Page("app_pages/ask.py", title=t("nav.ask"), icon=":material/forum:"),
        st.Page("app_pages/quiz.py", title=t("nav.quiz"), icon=":material/quiz:"),
        st.Page("app_pages/bases.py", title=t("nav.bases"), icon=":material/library_books:"),
    ]
)
page.run()
# The sidebar comes after the page so the page's first screen does not wait for the backend probe.
# Pages therefore never st.stop(): the sidebar must be reached on every run.
render_sidebar(service)
