"""The stats page's backup section: download the index as one archive, restore one into an empty storage."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from rag.errors import RagError
from rag.records import BackupReport
from rag.service import RagService
from ui.i18n import t
from ui.widgets import escape_md, show_error

_EXPORT_KEY = "stats_export"


def _summary(report: BackupReport) -> str:
    return t("backup.summary", sources=report.sources, chunks=report.chunks, quizzes=report.quizzes,
             mb=report.bytes / 1e6, seconds=report.seconds)  # fmt: skip


def backup_controls(svc: RagService) -> None:
    """An export button that turns into a download, and an uploader that imports an archive."""
    export_tab, import_tab = st.tabs([t("backup.export"), t("backup.import")])
    with export_tab:
        st.caption(t("backup.export_help"))
        if st.button(t("backup.prepare"), key="stats_export_prepare"):
            with st.spinner(t("backup.exporting")), tempfile.TemporaryDirectory() as folder:
                try:
                    report = svc.export_base(Path(folder) / "backup.zip")
                    st.session_state[_EXPORT_KEY] = (Path(report.path).read_bytes(), report)
                except RagError as err:
                    show_error(err)
        if prepared := st.session_state.get(_EXPORT_KEY):
            data, report = prepared
            st.success(_summary(report))
            st.download_button(t("backup.download"), data, file_name=f"rag-backup-{report.index_version}.zip",
                               mime="application/zip", key="stats_export_download")  # fmt: skip
    with import_tab:
        st.caption(t("backup.import_help"))
        upload = st.file_uploader(t("backup.archive"), type=["zip"], key="stats_import_file")
        if upload is not None and st.button(t("backup.restore"), key="stats_import_run"):
            with st.spinner(t("backup.importing")), tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "backup.zip"
                path.write_bytes(upload.getvalue())
                try:
                    report = svc.import_base(path)
                except RagError as err:
                    show_error(err)
                else:
                    st.success(_summary(report))
                    for warning in report.warnings:
                        st.warning(escape_md(warning))
