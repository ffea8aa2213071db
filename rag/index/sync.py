"""Conversation-log archives: an append-only archive and a live set, synced into one index, searched as one.

The **archive** (``settings.archive_dir``) holds immutable logs. A sync embeds only the archive files it has not
seen: the manifest's stamp of each indexed file (name, size, mtime, hash) is compared with a ``stat`` of it, so
10,000 known logs cost 10,000 stats and no reads; only a file whose size or mtime moved is hashed. One whose hash
differs is *changed*: an archive log should never change, so it is reported and its old chunks stay as they were
(to take the new content, index it on purpose with ``python -m rag index``). An indexed file no longer on disk is
reported as missing and its chunks stay too: the archive only grows.

The **live set** (``settings.live_dirs`` and ``settings.live_log``: knowledge folders and the current log) is
rebuilt every sync, as if from scratch: each live file's content is compared by hash, never by size and mtime (an
edit that kept both is still seen), a changed one is read again and its chunk rows replaced, a file gone from a
live folder, or a source no longer live (the current log renamed, a folder dropped from the setting), is removed.
That is what a rebuild from nothing would show: chunk ids derive from source, position and text, so a file with
the same hash yields the same chunks; so unchanged chunk texts are not embedded again (their vectors are reused).

Both go through one ``Index.index_found`` run: one writer lock, one BM25 rebuild, and one search covers both.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from rag.errors import ConfigError
from rag.index.manifest import FileStamp
from rag.index.writer import Index
from rag.ingest.discovery import Discovery, SourceFile, discover, nfc
from rag.ingest.parsing.kinds import KIND_BY_EXTENSION, is_ignored
from rag.ingest.prepare import READING_VERSION, file_digest
from rag.records import IndexProgress, SyncReport
from rag.settings import Settings

LIVE_SOURCES_META = "sync_live_sources"
"""Manifest meta key: the live set's sources at the last sync (JSON list), to remove those no longer live."""


@dataclass(frozen=True, slots=True)
class ArchiveScan:
    """The archive folder compared with the manifest: what to embed and what to report."""

    new: tuple[SourceFile, ...]
    unchanged: int
    changed: tuple[str, ...]
    missing: tuple[str, ...]


def scan_archive(folder: Path, stamps: dict[str, FileStamp]) -> ArchiveScan:
    """Compare the files under ``folder`` with their manifest stamps, hashing only those whose stat moved.

    Strings, not ``Path`` objects, until a file turns out new: 10,000 known logs are 10,000 ``stat`` calls and
    dictionary lookups (``bench/sync.py``).

    Args:
        folder: the archive folder; its files are named ``<folder name>/<path inside>``, as ``index`` names them.
        stamps: the manifest's stamps of sources under that name (``Manifest.file_stamps``).
    """
    folder = folder.expanduser().resolve()
    left = dict(stamps)
    new: list[SourceFile] = []
    changed: list[str] = []
    unchanged = 0
    for path, inside, stat in _archive_files(str(folder), nfc(folder.name) + "/"):
        source = nfc(inside) if not inside.isascii() else inside
        stamp = left.pop(source, None)
        if stamp is None or stamp.status != "indexed" or stamp.reading != READING_VERSION:
            # new, an interrupted/failed run to finish, or read by an older version of the reading code
            new.append(SourceFile(Path(path), source, source, explicit=True))
        elif (stamp.path, stamp.size, stamp.mtime) == (path, stat.st_size, stat.st_mtime):
            unchanged += 1
        elif file_digest(Path(path)) == stamp.hash:
            unchanged += 1
        else:
            changed.append(source)
    missing = sorted(source for source, stamp in left.items() if stamp.status == "indexed")
    return ArchiveScan(tuple(new), unchanged, tuple(changed), tuple(missing))


def _archive_files(top: str, prefix: str) -> Iterator[tuple[str, str, os.stat_result]]:
    """(path, ``prefix`` + path inside ``top``, stat) of each readable file, in name order; hidden and lock files
    and kinds the engine does not read are left out."""
    with os.scandir(top) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        if is_ignored(entry.name):
            continue
        if entry.is_dir(follow_symlinks=True):
            yield from _archive_files(entry.path, f"{prefix}{entry.name}/")
        elif os.path.splitext(entry.name)[1].lower() in KIND_BY_EXTENSION and entry.is_file():
            yield entry.path, prefix + entry.name, entry.stat()


def live_discovery(settings: Settings) -> Discovery:
    """The live set's files, each to be compared by content (``SourceFile.verify_content``)."""
    paths = [Path(p) for p in settings.live_dirs]
    if _is_set(settings.live_log):
        paths.append(settings.live_log)
    if not paths:
        return Discovery((), (), ())
    found = discover(paths)
    return replace(found, files=tuple(replace(f, verify_content=True) for f in found.files))


def sync(index: Index, settings: Settings, *, progress: Callable[[IndexProgress], None] | None = None) -> SyncReport:
    """Embed new archive files and rebuild the live set, in one writer run (see the module docstring).

    Raises:
        ConfigError: neither an archive nor a live set is configured, or the archive folder does not exist.
        IndexBusyError: another process is writing and did not finish within the lock timeout.
        ModelMismatchError: the index was built with another embedding model.
    """
    started = time.perf_counter()
    if not _is_set(settings.archive_dir) and not settings.live_dirs and not _is_set(settings.live_log):
        raise ConfigError(
            "Nothing to sync: set RAG_ARCHIVE_DIR (a folder of finished logs) and/or RAG_LIVE_DIRS (comma-separated "
            "folders) and RAG_LIVE_LOG (the current log), then run sync again."
        )
    scan = ArchiveScan((), 0, (), ())
    if _is_set(settings.archive_dir):
        folder = settings.archive_dir.expanduser().resolve()
        if not folder.is_dir():
            raise ConfigError(f"The archive folder {folder} does not exist. Create it or fix RAG_ARCHIVE_DIR.")
        scan = scan_archive(folder, index.manifest.file_stamps(prefix=nfc(folder.name) + "/"))
    live = live_discovery(settings)
    live_sources = sorted(f.source for f in live.files)
    was_live = json.loads(index.manifest.get_meta(LIVE_SOURCES_META) or "[]")
    retire = [source for source in was_live if source not in set(live_sources)]
    scanned = time.perf_counter()
    found = Discovery(scan.new + live.files, live.folders, live.missing)
    report = index.index_found(found, progress=progress, retire=retire)
    if live_sources != was_live:
        with index.manifest.transaction() as db:
            index.manifest.set_meta(db, LIVE_SOURCES_META, json.dumps(live_sources, ensure_ascii=False))
    finished = time.perf_counter()
    archived = {f.source for f in scan.new}
    done = [f for f in report.files if f.status in ("indexed", "updated")]
    return SyncReport(
        archive_indexed=tuple(f.source for f in done if f.source in archived),
        archive_unchanged=scan.unchanged,
        archive_changed=scan.changed,
        archive_missing=scan.missing,
        live_rebuilt=tuple(f.source for f in done if f.source not in archived),
        live_unchanged=sum(f.status == "unchanged" for f in report.files),
        live_removed=report.removed,
        failed=tuple(f for f in report.files if f.status == "failed"),
        embedded=report.embedded,
        index_version=report.index_version or index.manifest.index_version,
        phase_seconds={"scan": scanned - started, "write": finished - scanned, "total": finished - started},
    )


def _is_set(path: Path) -> bool:
    return str(path) not in ("", ".")
