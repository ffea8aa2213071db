"""The engine of the local RAG dashboard. Start from ``rag.service.RagService``; it never imports streamlit."""

__version__ = "0.13.0"
"""The package's version (``pyproject.toml`` reads it from here; ``python -m rag --version`` prints it)."""
