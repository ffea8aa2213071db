"""Ingest: files become clean text and then chunks, one file at a time.

Discovery finds the files under a folder and names their sources; ``parsing`` reads each format (PDF with OCR
where a page has no text layer, Office, slides, web, plain text, tables, JSON records, chat logs) into pages of
text; cleanup repairs that text; metadata classifies the document; chunking cuts it into chunks whose ids derive
from content and position; tokenization gives each chunk its BM25 tokens; ``pii`` masks personal data when the
settings ask. ``prepare.prepare_file`` runs these steps for one file and hands the chunks to ``rag.index``, which
embeds and stores them. Uploaded files get safe names here too (``uploads``).
"""
