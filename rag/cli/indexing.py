"""``index``, ``check``, ``remove`` and ``sync``: the commands that write the index or check it."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Any

from rag.cli.commands import SOURCE_HELP, ProgressLines, add_command, emit, print_progress


def add_index_command(sub: Any) -> None:
    """``index PATH...``: files and folders, incrementally."""
    p = add_command(sub, "index", "index files and folders (incremental: unchanged files cost nothing)", """
index ~/docs                 # a folder: its files are named docs/<path inside it>
index report.pdf notes.md    # single files: named by their file name
index ~/docs --json          # the per-file outcomes as JSON""", _index)  # fmt: skip
    p.add_argument("paths", nargs="+", metavar="PATH", help="files and folders to index, e.g. ~/docs report.pdf")


def add_check_command(sub: Any) -> None:
    """``check [--repair] [--reembed]``: whether the three stores agree."""
    p = add_command(sub, "check", "check that the manifest, Chroma and BM25 agree (exit 1 when they do not)", """
check
check --repair --json
check --reembed          # after changing RAG_EMBEDDING_MODEL / _BACKEND / _PRECISION""", _check)  # fmt: skip
    p.add_argument("--repair", action="store_true", help="make Chroma and BM25 agree with the manifest first")
    p.add_argument(
        "--reembed", action="store_true",
        help="first re-embed every stored chunk with the configured embedding model, back end and precision",
    )  # fmt: skip


def add_remove_command(sub: Any) -> None:
    """``remove SOURCE... --yes``: sources out of the index."""
    p = add_command(sub, "remove", "delete sources from the index (refused without --yes)", """
remove docs/orion_manual.pdf --yes     # the name stats prints
remove orion_manual.pdf --yes          # the file name, when no other source has it
remove ~/docs/orion_manual.pdf --yes   # the path that was indexed""", _remove, json=False)  # fmt: skip
    p.add_argument("sources", nargs="+", metavar="SOURCE", help=SOURCE_HELP)
    p.add_argument("--yes", action="store_true", help="confirm the deletion (without it nothing is deleted)")


def add_sync_command(sub: Any) -> None:
    """``sync``: the log archive's new files and the live set."""
    add_command(sub, "sync", "update the index from the log archive (new files only) and the live set (rebuilt)", """
sync                         # RAG_ARCHIVE_DIR, RAG_LIVE_DIRS and RAG_LIVE_LOG say what to read
sync --json                  # the report as JSON; a changed archive file is listed under archive_changed""",
                _sync)  # fmt: skip


def _index(service, args) -> int:  # type: ignore[no-untyped-def]
    tty = sys.stderr.isatty()
    report = service.index_paths(args.paths, progress=print_progress if tty else ProgressLines())
    print(file=sys.stderr) if tty else None
    if args.json:
        emit({
            "files": [{"source": f.source, "status": f.status, "chunks": f.chunks, "error": f.error or None,
                       "warnings": list(f.warnings), "ocr_pages": list(f.ocr_pages)} for f in report.files],
            "embedded": report.embedded,
            "index_version": report.index_version,
            "removed": list(report.removed),
        })  # fmt: skip
    else:
        for f in report.files:
            detail = f" — {f.error}" if f.error else "".join(f" (warning: {w})" for w in f.warnings)
            print(f"{f.status:<9} {f.source} [{f.chunks} chunks]{detail}")
        for source in report.removed:
            print(f"removed   {source} (file no longer in the folder)")
        print(f"{report.embedded} chunks embedded; index version {report.index_version}")
    return 1 if report.failed else 0


def _check(service, args) -> int:  # type: ignore[no-untyped-def]
    if args.reembed:
        tty = sys.stderr.isatty()
        embedded = service.reembed(progress=print_progress if tty else ProgressLines())
        ending = "\n" if tty else ""  # the progress line of a terminal has no newline of its own
        print(f"{ending}re-embedded {embedded} chunks with {service.embedder.fingerprint}", file=sys.stderr)
    report = service.repair_consistency() if args.repair else service.check_consistency()
    if args.json:
        emit(asdict(report))
    else:
        print(report.message)
        print(f"manifest {report.manifest_chunks}, Chroma {report.vector_chunks}, BM25 {report.keyword_chunks} chunks")
    return 0 if report.ok else 1


def _remove(service, args) -> int:  # type: ignore[no-untyped-def]
    sources = service.resolve_sources(args.sources)
    if not args.yes:
        print(f"refusing to delete {len(sources)} source(s) without --yes: {', '.join(sources)}", file=sys.stderr)
        return 2
    removed = service.remove_sources(sources, confirmed_by="with --yes on the command line")
    print(f"removed {len(sources)} source(s), {removed} chunks")
    return 0


def _sync(service, args) -> int:  # type: ignore[no-untyped-def]
    tty = sys.stderr.isatty()
    report = service.sync(progress=print_progress if tty else ProgressLines())
    print(file=sys.stderr) if tty else None
    if args.json:
        data = asdict(report)
        data["failed"] = [{"source": f.source, "error": f.error} for f in report.failed]
        emit(data)
        return 1 if report.failed else 0
    print(f"archive: {len(report.archive_indexed)} new indexed, {report.archive_unchanged} unchanged skipped")
    for source in report.archive_changed:
        print(f"warning: archive file changed since it was indexed (old chunks kept; index it on purpose to "
              f"take the new content): {source}", file=sys.stderr)  # fmt: skip
    for source in report.archive_missing:
        print(f"warning: archive file no longer on disk (its chunks are kept): {source}", file=sys.stderr)
    print(f"live: {len(report.live_rebuilt)} read again, {report.live_unchanged} unchanged, "
          f"{len(report.live_removed)} removed")  # fmt: skip
    for f in report.failed:
        print(f"failed    {f.source} — {f.error}")
    seconds = ", ".join(f"{phase} {value:.2f}s" for phase, value in report.phase_seconds.items())
    print(f"{report.embedded} chunks embedded; index version {report.index_version}; {seconds}")
    return 1 if report.failed else 0
