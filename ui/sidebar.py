"""The shared sidebar: language switch, the live LLM backend, models and where the index lives.

It must stay cheap: it reads settings and ``svc.stats()`` (the manifest) and asks the engine for the backends'
status, and which one answers, once per session (again on "re-check"); it loads no model.
"""

from __future__ import annotations

import streamlit as st

from rag.errors import RagError
from rag.records import BackendReport
from rag.service import RagService
from ui.bases import active_bases_picker
from ui.i18n import language_switch, t
from ui.widgets import show_error

_STATUS_KEY = "sidebar_backends"


def render_sidebar(svc: RagService) -> None:
    """Draw the sidebar on every page."""
    settings = svc.settings
    with st.sidebar:
        language_switch(settings.ui_language)
        active_bases_picker(svc)
        st.subheader(t("sidebar.llm"))
        recheck = bool(st.session_state.get("sidebar_recheck"))  # the button below, clicked on the last run
        if recheck or _STATUS_KEY not in st.session_state:
            try:
                st.session_state[_STATUS_KEY] = svc.llm_backends(refresh=recheck)
            except RagError as err:
                st.session_state[_STATUS_KEY] = BackendReport((), settings.llm_backend, None)
                show_error(err)
        report: BackendReport = st.session_state[_STATUS_KEY]
        live = report.live_status
        if live is None:
            st.warning(t("sidebar.no_backend", configured=settings.llm_backend))
        else:
            model = f" · {live.model}" if live.model else ""
            (st.success if live.available else st.error)(t("sidebar.live", name=live.name, model=model))
        with st.expander(t("sidebar.backends")):
            for status in report.statuses:
                mark = ":green[:material/check_circle:]" if status.available else ":red[:material/cancel:]"
                model = f" · {status.model}" if status.model else ""
                st.markdown(f"{mark} **{status.name}**{model}")
                if status.detail:
                    st.caption(status.detail)
        st.button(t("sidebar.recheck"), key="sidebar_recheck", icon=":material/refresh:")

        st.subheader(t("sidebar.index"))
        st.caption(t("sidebar.embedding", model=settings.embedding_model))
        st.caption(t("sidebar.reranker", state=settings.reranker_model or t("sidebar.off")))
        try:
            version = svc.stats().index_version or "–"
        except RagError as err:
            version = "–"
            show_error(err)
        st.caption(t("sidebar.version", version=version))
        st.caption(t("sidebar.collection", collection=settings.collection))
        st.caption(t("sidebar.storage", path=str(settings.storage)))
