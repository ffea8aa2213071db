"""The manifest: SQLite under storage, the index's source of truth.

It records per source its path, hash, size, mtime, status, error and chunk rows (text, BM25 tokens, metadata),
the index version history, and the embedding model that built the index. Chroma and BM25 are derived from it:
a chunk exists for readers once its row is committed here, so a crash half-way through a source never shows.
A big file is committed in parts (``rag.index``): its row says ``partial`` and lists the chunks committed so far,
and the meta key ``partial_key(source)`` holds how many chunks (in reading order) that was, for the next run to
resume after them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rag.records import Chunk, VersionEntry
from rag.wal import open_wal

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    source TEXT PRIMARY KEY, path TEXT NOT NULL, rel_path TEXT NOT NULL, doc_type TEXT NOT NULL,
    size INTEGER NOT NULL, mtime REAL NOT NULL, hash TEXT NOT NULL, pages INTEGER NOT NULL DEFAULT 0,
    chunks INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, error TEXT NOT NULL DEFAULT '',
    warnings TEXT NOT NULL DEFAULT '[]', date TEXT NOT NULL DEFAULT '', language TEXT NOT NULL DEFAULT '',
    index_version TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL, ocr_pages TEXT NOT NULL DEFAULT '[]',
    reading INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, source TEXT NOT NULL, chunk_index INTEGER NOT NULL,
    text TEXT NOT NULL, tokens TEXT NOT NULL, metadata TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_source ON chunks(source, chunk_index);
CREATE TABLE IF NOT EXISTS versions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, index_version TEXT NOT NULL, at TEXT NOT NULL,
    action TEXT NOT NULL, detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class SourceRow:
    source: str
    path: str
    rel_path: str
    doc_type: str
    size: int
    mtime: float
    hash: str
    pages: int
    chunks: int
    status: str
    error: str
    warnings: tuple[str, ...]
    date: str
    language: str
    index_version: str
    ocr_pages: tuple[int, ...] = ()
    reading: int = 0  # the engine's READING_VERSION the file was read with (0: before versions were recorded)


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What tells an indexed file unchanged without reading it: its recorded path, size, mtime, hash, status and
    the reading version it was read with."""

    path: str
    size: int
    mtime: float
    hash: str
    status: str
    reading: int = 0


@dataclass(frozen=True, slots=True)
class ChunkRow:
    chunk: Chunk
    tokens: tuple[str, ...]


class Manifest:
    """Thread-safe access to the manifest database (one connection per thread, WAL mode)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._db().executescript(_SCHEMA)  # executescript manages its own transaction
        columns = {row[1] for row in self._db().execute("PRAGMA table_info(sources)")}
        if "ocr_pages" not in columns:  # a manifest written before OCR existed
            self._db().execute("ALTER TABLE sources ADD COLUMN ocr_pages TEXT NOT NULL DEFAULT '[]'")
        if "reading" not in columns:  # written before reading versions were recorded: every file reads as stale
            self._db().execute("ALTER TABLE sources ADD COLUMN reading INTEGER NOT NULL DEFAULT 0")

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = open_wal(self.path, timeout_s=30)
            self._local.db = db
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: everything inside commits together or not at all."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # ---- meta ---------------------------------------------------------------------------------------------

    def get_meta(self, key: str, default: str = "") -> str:
        row = self._db().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, db: sqlite3.Connection, key: str, value: str) -> None:
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def delete_meta(self, db: sqlite3.Connection, key: str) -> None:
        db.execute("DELETE FROM meta WHERE key = ?", (key,))

    def index_id(self) -> str:
        """This index's id, made once (a random hex string): which vector collection is its own."""
        if known := self.get_meta("index_id"):
            return known  # readers never wait for the write lock
        with self.transaction() as db:  # BEGIN IMMEDIATE: two processes opening a new index agree on one id
            row = db.execute("SELECT value FROM meta WHERE key = 'index_id'").fetchone()
            if row:
                return str(row[0])
            made = uuid.uuid4().hex
            self.set_meta(db, "index_id", made)
            return made

    @property
    def index_version(self) -> str:
        return self.get_meta("index_version")

    def bump_version(self, db: sqlite3.Connection, action: str, detail: str) -> str:
        """Next ``YYYYMMDD_vN`` (N counts the writes of that day), recorded in the history."""
        today = datetime.now(UTC).strftime("%Y%m%d")
        current = self.get_meta("index_version")
        n = int(current.split("_v")[1]) + 1 if current.startswith(today + "_v") else 1
        version = f"{today}_v{n}"
        self.set_meta(db, "index_version", version)
        db.execute(
            "INSERT INTO versions(index_version, at, action, detail) VALUES (?, ?, ?, ?)",
            (version, _now(), action, detail),
        )
        return version

    def record_event(self, action: str, detail: str) -> None:
        """A line in the version history that changes no index content (so the version stays as it is)."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO versions(index_version, at, action, detail) VALUES (?, ?, ?, ?)",
                (self.index_version, _now(), action, detail),
            )

    def history(self, limit: int = 50) -> list[VersionEntry]:
        rows = self._db().execute(
            "SELECT index_version, at, action, detail FROM versions ORDER BY seq DESC LIMIT ?", (limit,)
        )
        return [VersionEntry(*row) for row in rows]

    # ---- sources ------------------------------------------------------------------------------------------

    def source(self, source: str) -> SourceRow | None:
        row = self._db().execute("SELECT * FROM sources WHERE source = ?", (source,)).fetchone()
        return _source_row(row) if row else None

    def all_sources(self) -> list[SourceRow]:
        return [_source_row(r) for r in self._db().execute("SELECT * FROM sources ORDER BY source")]

    def file_stamps(self, prefix: str = "") -> dict[str, FileStamp]:
        """Each source (whose name starts with ``prefix``) and its ``FileStamp``: one narrow query, so a sync over
        10,000 archived logs compares them without loading their rows."""
        rows = self._db().execute(
            "SELECT source, path, size, mtime, hash, status, reading FROM sources WHERE substr(source, 1, ?) = ?",
            (len(prefix), prefix),
        )
        return {r[0]: FileStamp(*r[1:]) for r in rows}

    def sources_with_content(self, digest: str) -> list[str]:
        """The indexed sources whose file has this content hash (one document under several names)."""
        rows = self._db().execute(
            "SELECT source FROM sources WHERE hash = ? AND status IN ('indexed', 'partial') ORDER BY source", (digest,)
        )
        return [r[0] for r in rows]

    def path_of(self, source: str) -> Path:
        from rag.errors import SourceNotFoundError

        row = self.source(source)
        if row is None:
            raise SourceNotFoundError(f"No indexed source named {source!r}.")
        return Path(row.path)

    def put_source(self, db: sqlite3.Connection, row: SourceRow) -> None:
        db.execute(
            "INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                row.source,
                row.path,
                row.rel_path,
                row.doc_type,
                row.size,
                row.mtime,
                row.hash,
                row.pages,
                row.chunks,
                row.status,
                row.error,
                json.dumps(list(row.warnings), ensure_ascii=False),
                row.date,
                row.language,
                row.index_version,
                _now(),
                json.dumps(list(row.ocr_pages)),
                row.reading,
            ),
        )

    def delete_source(self, db: sqlite3.Connection, source: str) -> list[str]:
        ids = [r[0] for r in db.execute("SELECT chunk_id FROM chunks WHERE source = ?", (source,))]
        db.execute("DELETE FROM chunks WHERE source = ?", (source,))
        db.execute("DELETE FROM sources WHERE source = ?", (source,))
        self.delete_meta(db, partial_key(source))
        return ids

    # ---- chunks -------------------------------------------------------------------------------------------

    def chunk_ids_of(self, source: str) -> list[str]:
        rows = self._db().execute("SELECT chunk_id FROM chunks WHERE source = ? ORDER BY chunk_index", (source,))
        return [r[0] for r in rows]

    def chunk_count_of(self, source: str) -> int:
        return int(self._db().execute("SELECT COUNT(*) FROM chunks WHERE source = ?", (source,)).fetchone()[0])

    def replace_chunks(self, db: sqlite3.Connection, source: str, rows: Sequence[ChunkRow]) -> None:
        db.execute("DELETE FROM chunks WHERE source = ?", (source,))
        self.add_chunks(db, source, rows)

    def add_chunks(self, db: sqlite3.Connection, source: str, rows: Sequence[ChunkRow]) -> None:
        """Insert (or replace) chunk rows of ``source``, keeping its other rows (a big file's next slice)."""
        db.executemany(
            "INSERT OR REPLACE INTO chunks VALUES (?,?,?,?,?,?)",
            [
                (
                    r.chunk.chunk_id,
                    source,
                    r.chunk.chunk_index,
                    r.chunk.text,
                    " ".join(r.tokens),
                    json.dumps(r.chunk.metadata(), ensure_ascii=False),
                )
                for r in rows
            ],
        )

    def first_chunks(self) -> list[Chunk]:
        """Each source's first chunk (what a document says of itself, such as its title, is kept on every chunk)."""
        rows = self._db().execute("SELECT chunk_id, text, metadata FROM chunks WHERE chunk_index = 0")
        return [chunk_from_row(*r) for r in rows]

    def chunks_of(self, source: str) -> list[Chunk]:
        rows = self._db().execute(
            "SELECT chunk_id, text, metadata FROM chunks WHERE source = ? ORDER BY chunk_index", (source,)
        )
        return [chunk_from_row(*r) for r in rows]

    def chunks_by_id(self, ids: Sequence[str]) -> dict[str, Chunk]:
        return {r[0]: chunk_from_row(*r) for r in self._rows_by_id("chunk_id, text, metadata", ids)}

    def tokens_by_id(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        """The BM25 tokens stored with each chunk (what keyword search matched against)."""
        return {chunk_id: frozenset(tokens.split()) for chunk_id, tokens in self._rows_by_id("chunk_id, tokens", ids)}

    def _rows_by_id(self, columns: str, ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """``columns`` of the chunks with these ids, read in batches that stay under SQLite's parameter limit."""
        db = self._db()
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            yield from db.execute(f"SELECT {columns} FROM chunks WHERE chunk_id IN ({marks})", part)

    def chunk_at(self, source: str, chunk_index: int) -> Chunk | None:
        row = (
            self._db()
            .execute(
                "SELECT chunk_id, text, metadata FROM chunks WHERE source = ? AND chunk_index = ?",
                (source, chunk_index),
            )
            .fetchone()
        )
        return chunk_from_row(*row) if row else None

    def all_tokens(self) -> tuple[list[str], list[list[str]]]:
        """Every chunk id with its BM25 tokens, in a stable order (for rebuilding the keyword index).

        Each distinct token is one string object shared by every list it is in: a 150 MB corpus has tens of
        millions of tokens but only a few hundred thousand distinct ones (8 bytes a token instead of ~60).
        """
        ids: list[str] = []
        tokens: list[list[str]] = []
        vocabulary: dict[str, str] = {}
        shared = vocabulary.setdefault
        for cid, tok in self._db().execute("SELECT chunk_id, tokens FROM chunks ORDER BY rowid"):
            ids.append(cid)
            tokens.append([shared(t, t) for t in tok.split(" ")] if tok else [])
        return ids, tokens

    def metadata_field(self, field: str) -> dict[str, Any]:
        """One metadata field of every chunk that has it, by chunk id."""
        rows = self._db().execute(
            "SELECT chunk_id, json_extract(metadata, ?) FROM chunks WHERE json_type(metadata, ?) IS NOT NULL",
            (f'$."{field}"', f'$."{field}"'),
        )
        return dict(rows)

    def chunk_lengths(self) -> list[int]:
        """Every committed chunk's length in characters (SQLite counts a TEXT value's characters, as ``len`` does)."""
        return [r[0] for r in self._db().execute("SELECT length(text) FROM chunks")]

    def all_chunk_ids(self) -> set[str]:
        return {r[0] for r in self._db().execute("SELECT chunk_id FROM chunks")}

    def chunk_count(self) -> int:
        return int(self._db().execute("SELECT COUNT(*) FROM chunks").fetchone()[0])


def partial_key(source: str) -> str:
    """The meta key recording how many chunks of a ``partial`` source were committed (in reading order)."""
    return f"partial:{source}"


def chunk_from_row(chunk_id: str, text: str, metadata_json: str) -> Chunk:
    meta = json.loads(metadata_json)
    known = {"source", "rel_path", "doc_type", "section", "page", "total_pages", "date", "date_num", "content_hash",
             "chunk_index", "chunk_type", "language"}  # fmt: skip
    page = meta.get("page") or None
    return Chunk(
        chunk_id=chunk_id,
        text=text,
        source=meta["source"],
        rel_path=meta.get("rel_path", ""),
        doc_type=meta.get("doc_type", "general"),
        section=meta.get("section", ""),
        page=page,
        total_pages=meta.get("total_pages", 1),
        date=meta.get("date", ""),
        content_hash=meta.get("content_hash", ""),
        chunk_index=meta.get("chunk_index", 0),
        chunk_type=meta.get("chunk_type", "text"),
        language=meta.get("language", ""),
        extra={k: v for k, v in meta.items() if k not in known},
    )


def _source_row(row: tuple) -> SourceRow:  # type: ignore[type-arg]
    values = list(row[:15])
    values[11] = tuple(json.loads(values[11]))
    values.append(tuple(json.loads(row[16])))  # row[15] is updated_at, not part of SourceRow
    values.append(row[17])
    return SourceRow(*values)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
