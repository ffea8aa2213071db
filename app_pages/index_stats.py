"""Index stats: totals, one row per source, charts, the version history and a consistency check."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import streamlit as st

from rag.errors import RagError
from rag.records import IndexStats
from ui.backup import backup_controls
from ui.bases import pick_base
from ui.i18n import t
from ui.monitoring import show_monitoring
from ui.service import get_service
from ui.widgets import show_error

st.title(t("stats.title"))
svc = get_service()
svc = svc.base(pick_base(svc, "stats_base", t("bases.show")))  # everything below shows that base


def show_index(stats: IndexStats) -> None:
    """Totals, the per-source table and the charts."""
    total_sources, total_pages, total_chunks, version = st.columns(4)
    total_sources.metric(t("stats.sources"), stats.sources)
    total_pages.metric(t("stats.pages"), stats.pages)
    total_chunks.metric(t("stats.chunks"), stats.chunks)
    version.metric(t("stats.version"), stats.index_version or "–")
    st.caption(t("stats.embedding", model=stats.embedding_model or "–"))

    if not stats.per_source:
        st.info(t("common.empty_index"))
        return
    table = pd.DataFrame(
        [
            {
                t("col.source"): row.source,
                t("col.doc_type"): row.doc_type,
                t("col.pages"): row.pages,
                t("col.ocr_pages"): ", ".join(str(n) for n in row.ocr_pages),
                t("col.chunks"): row.chunks,
                t("col.date"): row.date,
                t("col.language"): row.language,
                t("col.status"): row.status,
                t("col.errors"): "; ".join(filter(None, [row.error, *row.warnings])),
                t("col.version"): row.index_version,
            }
            for row in stats.per_source
        ]
    )
    st.dataframe(table, hide_index=True)

    st.subheader(t("stats.charts"))
    per_source_tab, length_tab, types_tab, language_tab = st.tabs(
        [t("stats.chunks_per_source"), t("stats.chunk_lengths"), t("stats.doc_types"), t("stats.languages")]
    )
    with per_source_tab:
        st.bar_chart(table, x=t("col.source"), y=t("col.chunks"), horizontal=True)
    with length_tab:
        try:
            lengths = svc.chunk_length_stats()
        except RagError as err:
            show_error(err)
        else:
            if lengths.chunks:
                st.bar_chart(
                    pd.DataFrame(
                        {
                            t("stats.length"): [f"{b.low}–{b.high}" for b in lengths.bins],
                            t("stats.count"): [b.count for b in lengths.bins],
                        }
                    ),
                    x=t("stats.length"),
                    y=t("stats.count"),
                    sort=False,
                )
                st.caption(t("stats.length_summary", n=lengths.chunks, mean=lengths.mean, longest=lengths.longest))
    with types_tab:
        doc_types = Counter(row.doc_type for row in stats.per_source)
        st.bar_chart(
            pd.DataFrame({t("col.doc_type"): list(doc_types), t("stats.count"): list(doc_types.values())}),
            x=t("col.doc_type"),
            y=t("stats.count"),
        )
    with language_tab:
        languages = Counter(row.language or "?" for row in stats.per_source)
        st.bar_chart(
            pd.DataFrame({t("col.language"): list(languages), t("stats.count"): list(languages.values())}),
            x=t("col.language"),
            y=t("stats.count"),
        )


try:
    show_index(svc.stats())
except RagError as err:
    show_error(err)

st.subheader(t("stats.history"))
try:
    history = svc.version_history()
except RagError as err:
    show_error(err)
    history = []
if history:
    st.dataframe(
        [
            {t("col.version"): h.index_version, t("col.at"): h.at, t("col.action"): h.action, t("col.detail"): h.detail}
            for h in history
        ],
        hide_index=True,
    )
else:
    st.caption(t("stats.no_history"))

try:
    mismatch = svc.embedding_mismatch()  # the index was built with another model, back end or precision
except RagError as err:  # the configured model cannot load: its message says how to build it
    show_error(err)
    mismatch = ""
if mismatch:
    st.warning(mismatch)
    if st.button(t("stats.reembed"), key="stats_reembed"):
        with st.spinner(t("stats.reembedding")):
            try:
                st.session_state["stats_reembedded"] = svc.reembed()
            except RagError as err:
                show_error(err)
            else:
                st.rerun()  # read the index again: the warning above is no longer true
if (reembedded := st.session_state.pop("stats_reembedded", None)) is not None:
    st.success(t("stats.reembedded", n=reembedded))

st.subheader(t("stats.consistency"))
if st.button(t("stats.check"), key="stats_check"):
    with st.spinner(t("stats.checking")):
        try:
            st.session_state["stats_consistency"] = svc.check_consistency()
        except RagError as err:
            show_error(err)
if report := st.session_state.get("stats_consistency"):
    (st.success if report.ok else st.error)(t("stats.consistent") if report.ok else t("stats.inconsistent"))
    st.table(
        [
            {t("stats.store"): name, t("col.chunks"): count}
            for name, count in [
                ("manifest", report.manifest_chunks),
                ("Chroma", report.vector_chunks),
                ("BM25", report.keyword_chunks),
            ]
        ]
    )
    if report.missing_in_vectors:
        st.text(t("stats.missing", ids=", ".join(report.missing_in_vectors[:20])))
    if report.orphans_in_vectors:
        st.text(t("stats.orphans", ids=", ".join(report.orphans_in_vectors[:20])))
    if report.message:
        st.info(report.message)

st.subheader(t("monitor.title"))
try:
    show_monitoring(svc.monitoring_summary())
except RagError as err:
    show_error(err)

st.subheader(t("backup.title"))
backup_controls(svc)
