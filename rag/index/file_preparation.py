"""Reading one file for the writer behind a bulkhead: whatever a reader raises becomes that file's failed outcome."""

from __future__ import annotations

import logging

from rag.index.manifest import partial_key
from rag.index.write_run import IndexStores
from rag.ingest.discovery import SourceFile
from rag.ingest.prepare import PreparedFile, prepare_file
from rag.records import FileOutcome

log = logging.getLogger("rag.index.writer")  # one logger for all an index run logs


def prepare_or_fail(index: IndexStores, file: SourceFile) -> PreparedFile | FileOutcome:
    """``prepare_file`` behind a bulkhead: whatever one file makes a reader raise becomes that file's outcome.

    Parsers are third-party code fed untrusted files: a RecursionError from deep nesting, lxml's limits, a
    MemoryError are not ours to predict one by one, and one such file must not cost the batch its report.
    The traceback goes to the log (for a bug report), the person gets what happened and what to do.
    """
    previous = index.manifest.source(file.source)
    committed = int(index.manifest.get_meta(partial_key(file.source)) or 0) if previous else 0
    try:
        return prepare_file(file, previous, index.settings, index.tokenizer, committed_chunks=committed)
    except Exception as err:  # the bulkhead: recorded as this file's failure, logged in full
        log.exception("Reading %s failed unexpectedly", file.path)
        return FileOutcome(file.source, "failed", error=unreadable_message(err))


def unreadable_message(err: Exception) -> str:
    """What a person reads when a file made its reader fail in a way the engine has no specific message for."""
    what = {
        RecursionError: "it is nested too deeply",
        MemoryError: "it needs more memory than this machine has free",
    }.get(type(err), f"the reader stopped ({type(err).__name__}: {str(err)[:160]})")
    return (
        f"Could not read this file: {what}. The other files were indexed. If it opens in its own application, "
        "save it again in a simpler form (PDF, plain text, or smaller parts) and index it again."
    )
