"""One storage's index in one archive: export it, import it on another machine without embedding anything again.

The archive is a zip:

- ``backup.json``: ``format``, ``format_version``, ``created_at``, ``embedding_model`` (the fingerprint the
  vectors were made with), ``dimension``, ``counts``, ``index_version``, ``tokenizer`` and the ``settings`` that
  shaped the index (chunking, BM25, near-duplicates);
- ``manifest/sources.jsonl``, ``manifest/chunks.jsonl`` (text, BM25 tokens and metadata as stored),
  ``manifest/versions.jsonl`` (the history) and ``manifest/meta.json``: the manifest's rows, column by name;
- ``vectors.npy``: float32, one row per line of ``chunks.jsonl``, in the same order (stored, not deflated:
  embeddings do not compress);
- ``quizzes/<id>.json``: the saved quiz sets.

Export holds the writer lock (indexing waits; searches do not) and reads the manifest in one transaction, so the
archive holds exactly the chunks the manifest lists with their vectors. It is written beside the target and renamed
into place. Import reads the whole archive first (every member's CRC, the counts, the vectors' shape, the model),
so a corrupt, truncated or foreign file is refused before anything is written; then it follows the writer's order:
mark the index dirty, stream the vectors into Chroma while the manifest rows go into one open transaction, commit,
rebuild BM25 from the imported tokens, clear dirty. A failure in between leaves Chroma ids no manifest row lists,
which the writer's recovery deletes (at once here, or on the next write).
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import time
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import BackupError
from rag.index.backup_format import (
    BATCH,
    CHUNK_COLUMNS,
    FORMAT,
    FORMAT_VERSION,
    HEADER,
    MEMBERS,
    QUIZ_NAME,
    index_settings,
    read_vectors,
    settings_warnings,
    write_vectors,
)
from rag.index.manifest import chunk_from_row
from rag.index.writer import Index
from rag.records import BackupReport

# Meta keys of the machine, not of the content: the dirty flag, and the index's id (which Chroma collection is its
# own, rag.index.vector_store): an imported index keeps the importing storage's id.
_LOCAL_META = frozenset({"dirty", "index_id"})


def export_base(index: Index, quiz_dir: Path, target: Path) -> BackupReport:
    """Write the index of ``index``'s storage and the quiz sets in ``quiz_dir`` to the archive ``target``.

    Raises:
        BackupError: Chroma lacks vectors the manifest lists (repair first), or ``target`` cannot be written.
        IndexBusyError: another process kept writing past the lock timeout.
    """
    started = time.perf_counter()
    target = Path(target).expanduser().resolve()
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        with index.writer(), zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
            header = _write_contents(index, quiz_dir, archive)
        os.replace(partial, target)
    except OSError as err:
        raise BackupError(f"Cannot write the archive {target}: {err}. Check the folder exists and has room.") from err
    finally:
        partial.unlink(missing_ok=True)
    return _report(target, header, started)


def _write_contents(index: Index, quiz_dir: Path, archive: zipfile.ZipFile) -> dict[str, Any]:
    db = sqlite3.connect(f"file:{index.manifest.path}?mode=ro", uri=True)
    try:
        db.execute("BEGIN")  # one read transaction: every row below is of one committed state
        counts = {table: _write_rows(db, archive, table) for table in ("sources", "versions")}
        chunk_ids = _write_chunks(db, archive)
        meta = {k: v for k, v in db.execute("SELECT key, value FROM meta") if k not in _LOCAL_META}
        db.execute("COMMIT")
    finally:
        db.close()
    archive.writestr(MEMBERS["meta"], json.dumps(meta, ensure_ascii=False))
    dimension = _write_vectors(index, archive, chunk_ids)
    quizzes = sorted(p for p in quiz_dir.glob("*.json") if QUIZ_NAME.fullmatch(p.name)) if quiz_dir.is_dir() else []
    for path in quizzes:
        archive.write(path, f"quizzes/{path.name}")
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "embedding_model": meta.get("embedding_model", ""),
        "dimension": dimension,
        "counts": {**counts, "chunks": len(chunk_ids), "quizzes": len(quizzes)},
        "index_version": meta.get("index_version", ""),
        "tokenizer": index.tokenizer.name,
        "settings": index_settings(index.settings),
    }
    archive.writestr(HEADER, json.dumps(header, ensure_ascii=False, indent=2))
    return header


def _write_rows(db: sqlite3.Connection, archive: zipfile.ZipFile, table: str) -> int:
    order = "seq" if table == "versions" else "source"
    cursor = db.execute(f"SELECT * FROM {table} ORDER BY {order}")
    columns = [c[0] for c in cursor.description if c[0] != "seq"]
    count = 0
    with archive.open(MEMBERS[table], "w") as out:
        for row in cursor:
            values = dict(zip([c[0] for c in cursor.description], row))
            out.write((json.dumps({c: values[c] for c in columns}, ensure_ascii=False) + "\n").encode())
            count += 1
    return count


def _write_chunks(db: sqlite3.Connection, archive: zipfile.ZipFile) -> list[str]:
    ids: list[str] = []
    rows = db.execute(f"SELECT {', '.join(CHUNK_COLUMNS)} FROM chunks ORDER BY rowid")  # the BM25 rows keep their order
    with archive.open(MEMBERS["chunks"], "w", force_zip64=True) as out:
        for row in rows:
            ids.append(row[0])
            out.write((json.dumps(dict(zip(CHUNK_COLUMNS, row)), ensure_ascii=False) + "\n").encode())
    return ids


def _write_vectors(index: Index, archive: zipfile.ZipFile, ids: list[str]) -> int:
    """Chroma's vectors of ``ids``, in their order; returns their dimension (0 for an empty index)."""

    def batches() -> Iterator[np.ndarray]:
        for start in range(0, len(ids), BATCH):
            part = ids[start : start + BATCH]
            found = index.vectors.embeddings_of(part)
            if len(found) < len(part):
                raise BackupError(
                    f"{len(part) - len(found)} chunk(s) the manifest lists have no vector in Chroma. Run "
                    "`python -m rag check --repair`, then export again."
                )
            yield np.stack([found[cid] for cid in part]).astype("<f4")

    info = zipfile.ZipInfo(MEMBERS["vectors"], date_time=time.gmtime()[:6])
    info.compress_type = zipfile.ZIP_STORED
    rows = batches()
    first = next(rows, None)
    dimension = 0 if first is None else int(first.shape[1])
    with archive.open(info, "w", force_zip64=True) as out:
        write_vectors(out, (len(ids), dimension), itertools.chain([] if first is None else [first], rows))
    return dimension


# ---- import ----------------------------------------------------------------------------------------------------


def import_base(index: Index, quiz_dir: Path, source: Path, model_fingerprint: Callable[[], str]) -> BackupReport:
    """Restore an archive made by ``export_base`` into ``index``'s storage, which must hold no index yet.

    Args:
        index: the index of the storage to restore into.
        quiz_dir: where the quiz sets go.
        source: the archive.
        model_fingerprint: the configured embedding model's fingerprint (asked only when the archive has vectors).

    Raises:
        BackupError: the file is not such an archive, is corrupt or truncated, was made with another embedding
            model, or the storage already holds sources, vectors or quiz sets.
        IndexBusyError: another process kept writing past the lock timeout.
    """
    started = time.perf_counter()
    source = Path(source).expanduser().resolve()
    with _open_archive(source) as archive:
        header = _verified_header(archive, source)
        _require_model(header, model_fingerprint() if header["counts"]["chunks"] else "", source)
        with index.writer():
            _require_empty(index, quiz_dir)
            try:
                _restore(index, archive, header, source.name)
            except BaseException as err:
                index._recover()  # the writer's own clean-up (writer.py): drop the vectors no manifest row lists
                if isinstance(err, ValueError | KeyError | TypeError):  # rows that are not what export writes
                    raise BackupError(f"{source} holds malformed rows ({err}). Nothing was imported.") from err
                raise
        _restore_quizzes(archive, quiz_dir)
    warnings = settings_warnings(header, index.settings, index.tokenizer.name)
    return replace(_report(source, header, started), warnings=warnings)


@contextmanager
def _open_archive(path: Path) -> Iterator[zipfile.ZipFile]:
    try:
        with zipfile.ZipFile(path) as archive:
            yield archive
    except FileNotFoundError as err:
        raise BackupError(f"No archive at {path}. Give the path of a file made by `python -m rag export`.") from err
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        raise BackupError(
            f"{path} is not a complete archive ({err}): it is truncated, damaged or not a zip file. Nothing was "
            "imported. Copy the file again from the machine that exported it."
        ) from err


def _verified_header(archive: zipfile.ZipFile, path: Path) -> dict[str, Any]:
    """The archive's header, after checking every member's CRC and that the members agree with it."""
    names = set(archive.namelist())
    foreign = BackupError(f"{path} is not an archive made by `python -m rag export` (no {HEADER}). Nothing imported.")
    if HEADER not in names:
        raise foreign
    try:
        header = json.loads(archive.read(HEADER))
    except ValueError as err:
        raise foreign from err
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise foreign
    if header.get("format_version") != FORMAT_VERSION:
        raise BackupError(
            f"{path} is archive format {header.get('format_version')}; this version reads format {FORMAT_VERSION}. "
            "Update this installation to the exporting machine's version, then import again."
        )
    missing = sorted(set(MEMBERS.values()) - names)
    corrupt = None if missing else archive.testzip()  # reads every member and checks its CRC
    if missing or corrupt is not None:
        damaged = missing or [str(corrupt)]
        raise BackupError(f"{path} is damaged ({', '.join(damaged)} missing or corrupt). Nothing was "
                          "imported. Copy the file again from the machine that exported it.")  # fmt: skip
    counted = {"sources": _count_lines(archive, "sources"), "chunks": _count_lines(archive, "chunks")}
    with archive.open(MEMBERS["vectors"]) as stream:
        vectors = sum(len(batch) for batch in read_vectors(stream, int(header.get("dimension", 0))).batches)
    counts = header.get("counts", {})
    if any(counts.get(k) != v for k, v in counted.items()) or vectors != counted["chunks"]:
        raise BackupError(f"{path} does not add up: its header lists {counts}, it holds {counted} and "
                          f"{vectors} vectors. Nothing was imported; export it again.")  # fmt: skip
    return header


def _count_lines(archive: zipfile.ZipFile, member: str) -> int:
    with archive.open(MEMBERS[member]) as lines:
        return sum(1 for line in lines if line.strip())


def _require_model(header: dict[str, Any], configured: str, path: Path) -> None:
    made_with = str(header.get("embedding_model", ""))
    if configured and made_with != configured:
        raise BackupError(
            f"{path.name} holds vectors made with {made_with}, but this machine's embedding model is {configured}. "
            f"Set RAG_EMBEDDING_MODEL={made_with.split('@')[0]} (with the same model files) and import again, or "
            "index the original documents here with this model instead."
        )


def _require_empty(index: Index, quiz_dir: Path) -> None:
    sources, chunks, vectors = len(index.manifest.all_sources()), index.manifest.chunk_count(), index.vectors.count()
    quizzes = len(list(quiz_dir.glob("*.json"))) if quiz_dir.is_dir() else 0
    if sources or chunks or vectors or quizzes:
        raise BackupError(
            f"{index.settings.storage} already holds {sources} source(s), {vectors} vector(s) and {quizzes} quiz "
            "set(s); an archive is imported into an empty storage only, so nothing is mixed. Point RAG_STORAGE_DIR "
            "at a new folder and import again."
        )


def _restore(index: Index, archive: zipfile.ZipFile, header: dict[str, Any], name: str) -> None:
    index._mark_dirty(True)  # the writer's protocol (writer.py): Chroma first, then the manifest's one switch-over
    manifest = index.manifest
    with manifest.transaction() as db:
        db.execute("DELETE FROM versions")  # an emptied storage's history gives way to the archive's
        db.execute("DELETE FROM meta WHERE key NOT IN ('dirty', 'index_id')")
        _insert_rows(db, "sources", _lines(archive, "sources"))
        _insert_rows(db, "versions", _lines(archive, "versions"))
        meta = json.loads(archive.read(MEMBERS["meta"]))
        db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                       [(k, str(v)) for k, v in meta.items() if k not in _LOCAL_META])  # fmt: skip
        with archive.open(MEMBERS["vectors"]) as stream:
            vectors = read_vectors(stream, header["dimension"], batch=BATCH)
            rows = _lines(archive, "chunks")
            while batch := [row for _, row in zip(range(BATCH), rows)]:
                _insert_rows(db, "chunks", batch)
                chunks = [chunk_from_row(r["chunk_id"], r["text"], r["metadata"]) for r in batch]
                index.vectors.upsert(chunks, next(vectors.batches))
        counts = header["counts"]
        manifest.bump_version(db, "import", f"{name}: {counts['sources']} source(s), {counts['chunks']} chunk(s) "
                                            f"exported {header.get('created_at', '')}")  # fmt: skip
    index._rebuild_keyword()
    index._mark_dirty(False)


def _lines(archive: zipfile.ZipFile, member: str) -> Iterator[dict[str, Any]]:
    with archive.open(MEMBERS[member]) as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _insert_rows(db: sqlite3.Connection, table: str, rows: Any) -> None:
    local = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] != "seq"]
    for row in rows:
        columns = [c for c in local if c in row]
        marks = ", ".join("?" * len(columns))
        db.execute(f"INSERT INTO {table}({', '.join(columns)}) VALUES ({marks})", [row[c] for c in columns])


def _restore_quizzes(archive: zipfile.ZipFile, quiz_dir: Path) -> None:
    """Quiz files under their own names only (a name with a path in it is skipped, never followed)."""
    for member in archive.namelist():
        folder, _, name = member.partition("/")
        if folder != "quizzes" or not QUIZ_NAME.fullmatch(name):
            continue
        quiz_dir.mkdir(parents=True, exist_ok=True)
        staged = quiz_dir / f".{name}.{uuid.uuid4().hex[:8]}.tmp"
        staged.write_bytes(archive.read(member))
        os.replace(staged, quiz_dir / name)


def _report(path: Path, header: dict[str, Any], started: float) -> BackupReport:
    counts = header["counts"]
    return BackupReport(
        path=str(path),
        sources=counts["sources"],
        chunks=counts["chunks"],
        quizzes=counts.get("quizzes", 0),
        embedding_model=header["embedding_model"],
        dimension=header["dimension"],
        index_version=header["index_version"],
        bytes=path.stat().st_size,
        seconds=round(time.perf_counter() - started, 3),
    )
