"""The engine of the local RAG dashboard. Start from ``rag.service.RagService``; it never imports streamlit."""
