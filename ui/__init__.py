"""Streamlit-only helpers for the pages: the cached service, strings in two languages, the sidebar, widgets."""
