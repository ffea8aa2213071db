"""Index: the three stores kept in agreement, and the one writer that changes them.

The SQLite manifest is the source of truth (sources, chunk rows with their BM25 tokens, version history); Chroma
holds the embeddings; a bm25s keyword index is rebuilt from the manifest's tokens. ``writer.Index`` is the only
code that writes: it embeds prepared chunks, writes the stores in a crash-safe order under a lock file, and checks
and repairs their agreement. The catalog, near-duplicate collapsing and source-name resolution read the manifest.
"""
