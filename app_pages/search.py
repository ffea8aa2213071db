"""Search inspection: hybrid hits with every stage's score, BM25 / dense / hybrid side by side, and evaluation."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rag.errors import RagError
from rag.records import MODE_SEMANTIC_WEIGHTS, SEARCH_MODES, Hit, SearchFilters
from ui.bases import active_bases, shows_base
from ui.i18n import t
from ui.service import get_service
from ui.widgets import escape_md, hit_title, show_error, show_hit

svc = get_service()
settings = svc.settings
bases = active_bases(svc)
st.title(t("search.title"))

try:
    indexed = [row for name in bases for row in svc.base(name).stats().per_source]
except RagError as err:
    show_error(err)
    indexed = []


def show_hits(hits: list[Hit], key: str) -> None:
    if not hits:
        st.info(t("search.no_hits"))
    for rank, hit in enumerate(hits, start=1):
        with st.container(border=True):
            show_hit(hit, rank, show_base=shows_base(bases))
            if st.toggle(t("search.neighbours"), key=f"{key}_nb_{rank}"):
                try:
                    for chunk in svc.neighbours(hit.chunk.chunk_id, base=hit.base):
                        marker = "▶ " if chunk.chunk_id == hit.chunk.chunk_id else ""
                        st.caption(f"{marker}#{chunk.chunk_index} p.{chunk.page or '–'}")
                        st.text(chunk.text)
                except RagError as err:
                    show_error(err)


search_tab, eval_tab = st.tabs([t("search.tab_search"), t("search.tab_eval")])
with search_tab:
    with st.form("search_form"):
        query = st.text_input(t("search.query"), key="search_query")
        weight_col, k_col, rerank_col = st.columns([3, 1, 1])
        weight = weight_col.slider(
            t("search.weight"),
            0.0,
            1.0,
            settings.semantic_weight,
            0.05,
            key="search_weight",
            help=t("search.weight_help"),
        )
        top_k = k_col.number_input(t("search.top_k"), 1, 50, settings.top_k, key="search_top_k")
        rerank = rerank_col.toggle(t("search.rerank"), value=bool(settings.reranker_model), key="search_rerank")
        with st.expander(t("search.filters")):
            sources = st.multiselect(
                t("search.f_sources"),
                list(dict.fromkeys(s.source for s in indexed)),
                key="search_f_src",
                placeholder=t("common.choose"),
            )
            doc_types = st.multiselect(
                t("search.f_types"),
                sorted({s.doc_type for s in indexed}),
                key="search_f_types",
                placeholder=t("common.choose"),
            )
            languages = st.multiselect(
                t("search.f_langs"),
                sorted({s.language for s in indexed if s.language}),
                key="search_f_langs",
                placeholder=t("common.choose"),
            )
        compare = st.toggle(t("search.compare"), value=True, key="search_compare")
        submitted = st.form_submit_button(t("search.run"), type="primary", key="search_submit")

    if submitted and query.strip():
        filters = SearchFilters(sources=tuple(sources), doc_types=tuple(doc_types), languages=tuple(languages))
        compared = SEARCH_MODES if compare else ("hybrid",)
        runs = {mode: weight if (w := MODE_SEMANTIC_WEIGHTS[mode]) is None else w for mode in compared}
        try:
            with st.spinner(t("search.running")):
                st.session_state["search_results"] = {
                    name: svc.search(
                        query, top_k=int(top_k), semantic_weight=w, filters=filters, rerank=rerank, bases=bases
                    )
                    for name, w in runs.items()
                }
        except RagError as err:
            st.session_state.pop("search_results", None)
            show_error(err)

    results: dict[str, list[Hit]] = st.session_state.get("search_results", {})
    if results:
        st.subheader(t("search.results", n=len(results["hybrid"])))
        show_hits(results["hybrid"], "search_hybrid")
    if len(results) > 1:
        st.subheader(t("search.side_by_side"))
        for column, name in zip(st.columns(len(SEARCH_MODES)), SEARCH_MODES, strict=True):
            with column:
                st.markdown(f"**{t('search.mode_' + name)}**")
                for rank, hit in enumerate(results[name], start=1):
                    st.markdown(escape_md(hit_title(hit, rank, show_base=shows_base(bases))))
                    st.caption(escape_md(hit.chunk.text[:160]))

with eval_tab:
    st.caption(t("search.eval_help"))
    path = st.text_input(t("search.eval_path"), key="search_eval_path", placeholder="../shared/data/scifact")
    split_col, limit_col, modes_col = st.columns([1, 1, 3])
    split = split_col.text_input(t("search.eval_split"), value="test", key="search_eval_split")
    limit = limit_col.number_input(
        t("search.eval_limit"), 0, 100_000, 50, key="search_eval_limit", help=t("search.eval_limit_help")
    )
    modes = modes_col.multiselect(
        t("search.eval_modes"),
        SEARCH_MODES,
        default=list(SEARCH_MODES),
        key="search_eval_modes",
        placeholder=t("common.choose"),
    )
    answers = st.toggle(t("search.eval_answers"), key="search_eval_answers", help=t("search.eval_answers_help"))
    if st.button(t("search.eval_run"), disabled=not (path.strip() and (modes or answers)), key="search_eval_run"):
        with st.spinner(t("search.eval_running")):
            try:
                st.session_state["search_eval"] = (
                    svc.evaluate_answers(path.strip(), limit=int(limit) or None)
                    if answers
                    else svc.evaluate(path.strip(), split=split.strip(), modes=list(modes), limit=int(limit) or None)
                )
            except (RagError, ValueError) as err:
                show_error(err)
    if evaluation := st.session_state.get("search_eval"):
        st.subheader(t("search.eval_metrics"))
        summary = {"answers": evaluation["summary"]} if "summary" in evaluation else evaluation.get("modes", {})
        st.dataframe(pd.DataFrame(summary).T)
        if per_query := evaluation.get("per_query"):
            st.subheader(t("search.eval_per_query"))
            st.dataframe(pd.DataFrame(per_query), hide_index=True)
