"""Knowledge bases: what each holds, create one with its own settings, rename one, delete one by typing its name."""

from __future__ import annotations

import streamlit as st

from rag.errors import RagError
from rag.records import DEFAULT_BASE
from ui.bases import ACTIVE_KEY
from ui.i18n import t
from ui.service import get_service
from ui.widgets import escape_md, show_error

svc = get_service()
settings = svc.settings
st.title(t("bases.title"))
if message := st.session_state.pop("bases_done", None):
    st.success(escape_md(message))


def done(message: str) -> None:
    st.session_state["bases_done"] = message
    st.rerun()


try:
    bases = svc.knowledge_bases()
except RagError as err:
    show_error(err)
    bases = []
st.dataframe(
    [
        {
            t("bases.name"): b.name,
            t("col.sources"): b.sources,
            t("col.chunks"): b.chunks,
            t("bases.embedding"): b.embedding_model,
            t("bases.own_settings"): ", ".join(f"{k}={v}" for k, v in b.overrides.items() if k != "embedding_model"),
        }
        for b in bases
    ],
    hide_index=True,
)
others = [b.name for b in bases if b.name != DEFAULT_BASE]

st.subheader(t("bases.create"))
with st.form("bases_create"):
    name = st.text_input(t("bases.name"), key="bases_new_name", help=t("bases.name_help"))
    size_col, overlap_col = st.columns(2)
    chunk_size = size_col.number_input(t("bases.chunk_size"), 50, 20_000, settings.chunk_size, key="bases_chunk_size")
    overlap = overlap_col.number_input(t("bases.overlap"), 0, 10_000, settings.chunk_overlap, key="bases_overlap")
    ocr_col, engine_col = st.columns(2)
    ocr_language = ocr_col.text_input(t("bases.ocr_language"), settings.ocr_language, key="bases_ocr")
    engine = engine_col.text_input(
        t("bases.engine"), "offline", key="bases_engine", help=t("bases.engine_help"), placeholder="ollama:bge-m3"
    )
    if st.form_submit_button(t("bases.create_button"), type="primary", key="bases_create_submit"):
        chosen = {"chunk_size": int(chunk_size), "chunk_overlap": int(overlap), "ocr_language": ocr_language.strip()}
        overrides = {k: v for k, v in chosen.items() if v != getattr(settings, k)}
        if engine.strip() not in ("", "offline"):
            overrides["embedding_model"] = engine.strip()
        try:
            created = svc.create_base(name, overrides)
        except RagError as err:
            show_error(err)
        else:
            done(t("bases.created", name=created.name))

if others:
    st.subheader(t("bases.rename"))
    old_col, new_col = st.columns(2)
    old = old_col.selectbox(t("bases.which"), others, key="bases_rename_old")
    new = new_col.text_input(t("bases.new_name"), key="bases_rename_new")
    if st.button(t("bases.rename_button"), disabled=not new.strip(), key="bases_rename_submit"):
        try:
            renamed = svc.rename_base(old, new)
        except RagError as err:
            show_error(err)
        else:
            active = st.session_state.get(ACTIVE_KEY, [])
            st.session_state[ACTIVE_KEY] = [renamed.name if n == old else n for n in active]
            done(t("bases.renamed", old=old, new=renamed.name))

    st.subheader(t("bases.delete"))
    doomed = st.selectbox(t("bases.which"), others, key="bases_delete_name")
    st.warning(escape_md(t("bases.delete_warning", name=doomed)))
    typed = st.text_input(t("bases.type_name", name=doomed), key="bases_delete_typed")
    if st.button(t("bases.delete_button"), disabled=typed != doomed, type="primary", key="bases_delete_submit"):
        try:
            svc.delete_base(doomed, confirmed_by="by typing its name in the dashboard")
        except RagError as err:
            show_error(err)
        else:
            st.session_state.pop("bases_delete_typed", None)
            done(t("bases.deleted", name=doomed))
