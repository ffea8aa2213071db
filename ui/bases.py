"""Which knowledge bases a session works on: the sidebar's active bases (search, QA) and one base for a page that
writes or shows one (upload, stats, quiz). Kept in ``st.session_state``, per browser session."""

from __future__ import annotations

import streamlit as st

from rag.errors import RagError
from rag.records import DEFAULT_BASE
from rag.service import RagService
from ui.i18n import t
from ui.widgets import show_error

ACTIVE_KEY = "sidebar_bases"


def base_names(svc: RagService) -> list[str]:
    """Every knowledge base's name, ``default`` first."""
    try:
        return svc.base_names()
    except RagError as err:
        show_error(err)
        return [DEFAULT_BASE]


def active_bases(svc: RagService) -> list[str]:
    """The bases the sidebar has selected (those that still exist), or ``default`` when none is."""
    names = base_names(svc)
    return [n for n in st.session_state.get(ACTIVE_KEY, []) if n in names] or [DEFAULT_BASE]


def shows_base(bases: list[str]) -> bool:
    """Whether results should name their base: when they can come from a base other than ``default``."""
    return bases != [DEFAULT_BASE]


def active_bases_picker(svc: RagService) -> None:
    """The sidebar's multiselect of active bases (hidden while ``default`` is the only base)."""
    names = base_names(svc)
    current = active_bases(svc)
    if len(names) == 1:
        return
    st.session_state[ACTIVE_KEY] = current  # drops a base deleted since; safe before the widget is drawn
    st.multiselect(t("bases.active"), names, key=ACTIVE_KEY, help=t("bases.active_help"))


def pick_base(svc: RagService, key: str, label: str) -> str:
    """One base for this page: a select box over every base, starting at the first active one ("default" alone:
    no box)."""
    names = base_names(svc)
    if len(names) == 1:
        return names[0]
    if st.session_state.get(key) not in names:
        st.session_state[key] = active_bases(svc)[0]
    return str(st.selectbox(label, names, key=key))
