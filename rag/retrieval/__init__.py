"""Retrieval: a question becomes ranked hits.

``hybrid.HybridRetriever`` runs dense search (Chroma) and BM25 side by side, fuses the two rankings, applies the
metadata filters and optionally reranks with a cross-encoder. Every Hit carries its per-stage scores (dense and
BM25 rank and score, fused score, rerank score) so the search page can show why it ranks where it does.
"""
