"""The one ``RagService`` of the process, shared by every browser session."""

from __future__ import annotations

import streamlit as st

from rag.service import RagService
from rag.settings import Settings


@st.cache_resource(show_spinner=False)
def get_service() -> RagService:
    """Build the facade once per process; models inside it load lazily on first use.

    Raises:
        ConfigError: a ``RAG_*`` setting does not parse (the page shows it; nothing is cached then).
    """
    return RagService(Settings.from_env())
