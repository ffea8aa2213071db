"""Upload: add files (or a folder) to the index, see what happened to each file, delete or re-index sources."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from rag.errors import RagError
from rag.records import IndexReport, SyncReport
from ui.bases import pick_base
from ui.i18n import t
from ui.service import get_service
from ui.widgets import ProgressView, escape_md, show_error, show_report, show_sync_report

st.title(t("upload.title"))
svc = get_service()
svc = svc.base(pick_base(svc, "upload_base", t("bases.index_into")))  # everything below works on that base


def run_indexing(
    label: str, work: Callable[[ProgressView], IndexReport | SyncReport], keep_as: str = "upload_report"
) -> bool:
    """Run one indexing job in a status box with a live progress bar; keep its report. False when it failed."""
    with st.status(label, expanded=True) as box:
        try:
            report = work(ProgressView())
        except RagError as err:
            box.update(label=t("upload.failed"), state="error")
            show_error(err)
            return False
        failed = bool(report.failed)
        box.update(label=t("upload.done"), state="error" if failed else "complete", expanded=False)
    st.session_state[keep_as] = report
    return True


def update_archive_and_live_set() -> None:
    """The "Update index" button: new archive logs embedded, the live set read again, changed logs warned about."""
    s = svc.settings
    archive = str(s.archive_dir) if str(s.archive_dir) not in ("", ".") else "–"
    live = [*s.live_dirs, *([str(s.live_log)] if str(s.live_log) not in ("", ".") else [])]
    configured = archive != "–" or bool(live)
    st.subheader(t("upload.sync_title"))
    if configured:
        st.caption(escape_md(t("upload.sync_where", archive=archive, live=", ".join(live) or "–")))
    else:
        st.info(t("upload.sync_unset"))
    if st.button(t("upload.sync"), key="upload_sync", disabled=not configured):
        run_indexing(t("upload.syncing"), lambda cb: svc.sync(progress=cb), keep_as="upload_sync_report")
    if report := st.session_state.get("upload_sync_report"):
        show_sync_report(report)


def manage_sources() -> None:
    """Re-index or delete chosen sources; deleting asks for an explicit confirmation first."""
    try:
        sources = svc.sources()
    except RagError as err:
        show_error(err)
        return
    if not sources:
        st.info(t("common.empty_index"))
        return
    chosen = st.multiselect(t("upload.choose_sources"), sources, key="upload_selected", placeholder=t("common.choose"))
    reindex_col, delete_col = st.columns(2)
    if reindex_col.button(t("upload.reindex"), key="upload_reindex", help=t("upload.reindex_help")):
        if run_indexing(t("upload.reindexing"), lambda cb: svc.reindex(chosen or None, progress=cb)):
            st.rerun()
    if delete_col.button(t("upload.delete"), key="upload_delete", disabled=not chosen):
        st.session_state["upload_confirm_delete"] = list(chosen)

    pending: list[str] = st.session_state.get("upload_confirm_delete", [])
    if pending:
        st.warning(escape_md(t("upload.confirm_text", n=len(pending), sources=", ".join(pending))))
        yes, no = st.columns(2)
        if yes.button(t("upload.confirm_yes"), type="primary", key="upload_confirm_yes"):
            del st.session_state["upload_confirm_delete"]
            try:
                removed = svc.remove_sources(pending, confirmed_by="in the dashboard")
            except RagError as err:
                show_error(err)
            else:
                st.session_state["upload_deleted"] = t("upload.deleted", n=len(pending), chunks=removed)
                st.session_state.pop("upload_selected", None)
                st.rerun()
        if no.button(t("upload.confirm_no"), key="upload_confirm_no"):
            del st.session_state["upload_confirm_delete"]
            st.rerun()


files_tab, folder_tab = st.tabs([t("upload.tab_files"), t("upload.tab_folder")])
with files_tab:
    uploader_key = f"upload_files_{st.session_state.get('upload_generation', 0)}"
    uploaded = st.file_uploader(
        t("upload.files"),
        type=list(svc.supported_extensions()),
        accept_multiple_files=True,
        key=uploader_key,
    )
    if st.button(t("upload.index_files"), type="primary", disabled=not uploaded, key="upload_index_files"):
        payload = [(f.name, f.getvalue()) for f in uploaded or []]
        if run_indexing(t("upload.indexing", n=len(payload)), lambda cb: svc.index_uploads(payload, progress=cb)):
            # a fresh uploader key empties the widget so the same files are not sent twice
            st.session_state["upload_generation"] = st.session_state.get("upload_generation", 0) + 1
            st.rerun()
with folder_tab:
    folder = st.text_input(t("upload.folder"), key="upload_folder", placeholder="/path/to/documents")
    if st.button(t("upload.index_folder"), type="primary", disabled=not folder.strip(), key="upload_index_folder"):
        run_indexing(
            t("upload.indexing_folder", path=folder), lambda cb: svc.index_paths([folder.strip()], progress=cb)
        )

if report := st.session_state.get("upload_report"):
    st.subheader(t("upload.result"))
    show_report(report)

st.divider()
update_archive_and_live_set()

st.divider()
st.subheader(t("upload.manage"))
if message := st.session_state.pop("upload_deleted", None):
    st.success(escape_md(message))

manage_sources()
