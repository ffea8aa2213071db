"""The backup archive's layout (``rag.index.backup``): member names, the vectors' ``.npy`` stream, the settings kept.

Vectors are one ``.npy`` member written and read in batches, so neither export nor import holds every vector at
once: the header first (``float32``, C order, shape ``(chunks, dimension)``), then the rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.lib.format as npy

from rag.errors import BackupError
from rag.settings import Settings

FORMAT = "rag-base-backup"
FORMAT_VERSION = 1
HEADER = "backup.json"
MEMBERS = {
    "sources": "manifest/sources.jsonl",
    "chunks": "manifest/chunks.jsonl",
    "versions": "manifest/versions.jsonl",
    "meta": "manifest/meta.json",
    "vectors": "vectors.npy",
}
CHUNK_COLUMNS = ("chunk_id", "source", "chunk_index", "text", "tokens", "metadata")
QUIZ_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\.json")
"""A quiz file's name as ``QuizStore`` writes it; nothing else in an archive becomes a file."""
BATCH = 2000
"""Vectors read from Chroma, written to or read from the archive and upserted at a time."""

_KEPT_SETTINGS = (
    "embedding_model",
    "chunk_size",
    "chunk_overlap",
    "chunk_min_chars",
    "chunk_size_by_doc_type",
    "near_duplicate_cosine",
    "mask_pii",
    "doc_type_rules",
    "entity_patterns",
    "bm25_tokenizer",
    "bm25_k1",
    "bm25_b",
)
"""The settings that shaped the stored chunks, tokens and vectors."""
_DTYPE = np.dtype("<f4")


def index_settings(settings: Settings) -> dict[str, Any]:
    """The settings that shaped an index, as JSON values."""
    return {name: getattr(settings, name) for name in _KEPT_SETTINGS}


def settings_warnings(header: dict[str, Any], settings: Settings, tokenizer: str) -> tuple[str, ...]:
    """What differs between the exporting machine's settings and this one's, said as what it changes."""
    theirs = header.get("settings", {})
    ours = index_settings(settings)
    warnings = []
    if header.get("tokenizer") and header["tokenizer"] != tokenizer:
        warnings.append(
            f"The archive's BM25 tokens were made by the {header['tokenizer']} tokenizer, but queries here are "
            f"tokenized by {tokenizer}: keyword matches may be missed. Set RAG_BM25_TOKENIZER={header['tokenizer']} "
            "if it is installed here."
        )
    bm25 = [name for name in ("bm25_k1", "bm25_b") if name in theirs and theirs[name] != ours[name]]
    if bm25:
        here = ", ".join(f"{n}={ours[n]}" for n in bm25)
        there = ", ".join(f"{n}={theirs[n]}" for n in bm25)
        warnings.append(f"BM25 was rebuilt with this machine's {here} (the archive's: {there}): keyword scores differ.")
    chunking = [name for name in _KEPT_SETTINGS[1:9] if name in theirs and theirs[name] != ours[name]]
    if chunking:
        warnings.append(
            f"Files indexed here from now on are cut with different settings ({', '.join(chunking)}); the imported "
            "chunks keep the archive's."
        )
    return tuple(warnings)


def write_vectors(out: IO[bytes], shape: tuple[int, int], batches: Iterable[np.ndarray]) -> None:
    """Write an ``.npy`` stream of ``shape`` from row batches.

    Raises:
        BackupError: the batches hold another number of rows than ``shape`` says.
    """
    npy.write_array_header_1_0(out, {"descr": npy.dtype_to_descr(_DTYPE), "fortran_order": False, "shape": shape})
    rows = 0
    for batch in batches:
        out.write(np.ascontiguousarray(batch, dtype=_DTYPE).tobytes())
        rows += len(batch)
    if rows != shape[0]:
        raise BackupError(f"Wrote {rows} vectors for {shape[0]} chunks; the index changed underneath. Export again.")


@dataclass
class VectorStream:
    """An ``.npy`` stream being read: its shape, and its rows in batches (each checked to be complete)."""

    shape: tuple[int, int]
    batches: Iterator[np.ndarray]


def read_vectors(stream: IO[bytes], dimension: int, *, batch: int = BATCH) -> VectorStream:
    """Start reading an ``.npy`` stream written by ``write_vectors``.

    Args:
        stream: the open member.
        dimension: the dimension the archive's header states.
        batch: rows per batch.

    Raises:
        BackupError: not a float32 C-order matrix of that dimension, or (while reading batches) fewer bytes than
            its shape needs.
    """
    try:
        version = npy.read_magic(stream)
        shape, fortran, dtype = (npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0)(stream)
    except ValueError as err:
        raise BackupError(f"The archive's vectors are unreadable ({err}). Export the index again.") from err
    empty = len(shape) == 2 and shape[0] == 0
    if dtype != _DTYPE or fortran or len(shape) != 2 or (shape[1] != dimension and not empty):
        raise BackupError(f"The archive's vectors are {dtype} {shape}, not float32 rows of {dimension}. "
                          "Export the index again.")  # fmt: skip
    rows, width = int(shape[0]), int(shape[1])

    def batches() -> Iterator[np.ndarray]:
        for start in range(0, rows, batch):
            count = min(batch, rows - start)
            data = stream.read(count * width * _DTYPE.itemsize)
            if len(data) != count * width * _DTYPE.itemsize:
                raise BackupError("The archive's vectors end early: it is truncated. Copy it again.")
            yield np.frombuffer(data, dtype=_DTYPE).reshape(count, width)

    return VectorStream((rows, width), batches())
