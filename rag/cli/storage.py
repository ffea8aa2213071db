"""``stats``, ``export``, ``import`` and ``collections``: what the storage holds, moved whole, or split into bases."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from rag.cli.commands import JSON_HELP, add_command, emit, prog
from rag.errors import RagError
from rag.records import BackupReport, MonitoringSummary


def add_stats_command(sub: Any) -> None:
    """``stats``: totals and one line per source."""
    add_command(sub, "stats", "what is indexed: totals and one line per source, with the names other commands take", """
stats
stats --json""", _stats)  # fmt: skip


def add_export_command(sub: Any) -> None:
    """``export FILE``: the index and quizzes to one archive."""
    summary = "write the index (vectors, BM25 tokens, manifest, settings) and quizzes to a file"
    p = add_command(sub, "export", summary, """
export backup.zip            # indexing waits meanwhile; searches do not
export /mnt/usb/docs-base.zip --json""", _export)  # fmt: skip
    p.add_argument("file", metavar="FILE", help="the archive to write (replaced if it exists), e.g. backup.zip")


def add_import_command(sub: Any) -> None:
    """``import FILE``: an exported archive into an empty storage."""
    p = add_command(sub, "import", "restore an exported file into an empty storage, without embedding again", """
import backup.zip
import backup.zip --json     # into the storage RAG_STORAGE_DIR names, which must be empty""", _import)  # fmt: skip
    p.add_argument("file", metavar="FILE", help="an archive written by `export`, e.g. backup.zip")


def add_collections_command(sub: Any) -> None:
    """``collections list|create|rename|delete``: the knowledge bases."""
    p = add_command(sub, "collections", "list, create, rename or delete knowledge bases (each its own index)", """
collections list
collections create manuals --chunk-size 400 --chunk-overlap 60 --ocr-language eng
collections create support-bot --embedding ollama:bge-m3
collections rename manuals product-manuals
collections delete product-manuals --yes""", _collections, json=False)  # fmt: skip
    ops = p.add_subparsers(dest="operation", required=True, metavar="OPERATION", help="list, create, rename, delete")
    listing = ops.add_parser("list", help="every knowledge base with its sources, chunks and embedding engine")
    listing.add_argument("--json", action="store_true", help=JSON_HELP)
    create = ops.add_parser("create", help="create an empty knowledge base with its own settings")
    create.add_argument("name", help="letters (Japanese too), digits, - and _; at most 64 characters, e.g. manuals")
    create.add_argument("--chunk-size", type=int, metavar="N", help="characters per chunk (default: settings')")
    create.add_argument("--chunk-overlap", type=int, metavar="N", help="characters chunks share (default: settings')")
    create.add_argument("--ocr-language", metavar="L", help="Tesseract languages for scanned pages, e.g. jpn+eng")
    create.add_argument("--embedding", metavar="ENGINE", help="offline (default) or ollama:MODEL, e.g. ollama:bge-m3")
    create.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="another per-base setting as RAG_* takes it: json_text_fields=body,title")  # fmt: skip
    create.add_argument("--json", action="store_true", help=JSON_HELP)
    rename = ops.add_parser("rename", help="rename a knowledge base (not default)")
    rename.add_argument("old", help="its name now")
    rename.add_argument("new", help="the new name")
    rename.add_argument("--json", action="store_true", help=JSON_HELP)
    delete = ops.add_parser("delete", help="delete a knowledge base and everything in it (refused without --yes)")
    delete.add_argument("name", help="the knowledge base to delete (not default)")
    delete.add_argument("--yes", action="store_true", help="confirm the deletion (without it nothing is deleted)")


def _stats(service, args) -> int:  # type: ignore[no-untyped-def]
    stats = service.stats()
    data = {
        "sources": stats.sources,
        "chunks": stats.chunks,
        "pages": stats.pages,
        "index_version": stats.index_version,
        "embedding_model": stats.embedding_model,
        "per_source": [{"source": s.source, "doc_type": s.doc_type, "pages": s.pages, "chunks": s.chunks,
                        "status": s.status, "error": s.error or None, "ocr_pages": list(s.ocr_pages)}
                       for s in stats.per_source],
    }  # fmt: skip
    if args.json:
        emit({**data, "monitoring": _monitoring_json(service)})
        return 0
    print(f"{stats.sources} sources, {stats.pages} pages, {stats.chunks} chunks; version {stats.index_version}; "
          f"model {stats.embedding_model}")  # fmt: skip
    for s in stats.per_source:
        error = f" — {s.error}" if s.error else ""
        ocr = f", OCR on {len(s.ocr_pages)} page(s)" if s.ocr_pages else ""
        print(f"  {s.status:<8} {s.source} ({s.doc_type}, {s.pages} pages, {s.chunks} chunks{ocr}){error}")
    block = _monitoring_json(service)
    total = block.get("stages_ms", {}).get("total")
    if total:
        counts = f"{block['searches']} searches, {block['answers']} answers"
        ratios = f"hit ratio {block['hit_ratio']:.0%}, no basis {block['no_basis_ratio']:.0%}"
        print(f"last 7 days: {counts}; total p50 {total['p50']:.0f} ms, p95 {total['p95']:.0f} ms; {ratios}")
    return 0


def _monitoring_json(service) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """``stats --json``'s ``monitoring`` block: the last 7 days of searches and answers (``{"error": ...}`` when the
    log cannot be read: the index's own figures still print)."""
    try:
        summary: MonitoringSummary = service.monitoring_summary()
    except RagError as err:
        return {"error": str(err)}
    return {
        "since": summary.since,
        "searches": summary.searches,
        "answers": summary.answers,
        "hit_ratio": summary.hit_ratio,
        "no_basis_ratio": summary.no_basis_ratio,
        "stages_ms": {s.stage: {"p50": s.p50_ms, "p95": s.p95_ms, "count": s.count} for s in summary.stages},
        "by_hour": [{"hour": h.hour, "searches": h.searches, "answers": h.answers} for h in summary.by_hour],
        "backends": dict(summary.backends),
    }


def _backup_done(report: BackupReport, verb: str, args: argparse.Namespace) -> int:
    if args.json:
        emit(asdict(report))
        return 0
    print(f"{verb} {report.sources} sources, {report.chunks} chunks, {report.quizzes} quiz sets "
          f"({report.embedding_model}, {report.dimension} dimensions, version {report.index_version}): "
          f"{report.path}, {report.bytes / 1e6:.1f} MB in {report.seconds:.1f} s")  # fmt: skip
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _export(service, args) -> int:  # type: ignore[no-untyped-def]
    return _backup_done(service.export_base(args.file), "exported", args)


def _import(service, args) -> int:  # type: ignore[no-untyped-def]
    return _backup_done(service.import_base(args.file), "imported", args)


def _base_json(base: Any) -> dict[str, Any]:
    return {"name": base.name, "storage": base.storage, "embedding_model": base.embedding_model,
            "settings": base.overrides, "sources": base.sources, "chunks": base.chunks}  # fmt: skip


def _collections(service, args) -> int:  # type: ignore[no-untyped-def]
    if args.operation == "delete":
        if not args.yes:
            print(f"refusing to delete knowledge base {args.name!r} and everything in it without --yes; "
                  f"run `{prog()} collections delete {args.name} --yes`", file=sys.stderr)  # fmt: skip
            return 2
        service.delete_base(args.name, confirmed_by="with --yes on the command line")
        print(f"deleted knowledge base {args.name}")
        return 0
    if args.operation == "list":
        bases = service.knowledge_bases()
        if args.json:
            emit({"collections": [_base_json(b) for b in bases]})
            return 0
        for b in bases:
            differs = "".join(f", {k}={v}" for k, v in b.overrides.items() if k != "embedding_model")
            print(f"{b.name}: {b.sources} sources, {b.chunks} chunks; embedding {b.embedding_model}{differs}")
        return 0
    if args.operation == "create":
        overrides: dict[str, Any] = dict(item.split("=", 1) for item in args.set if "=" in item)
        if bad := [item for item in args.set if "=" not in item]:
            print(f"error: --set takes KEY=VALUE, got {', '.join(bad)}", file=sys.stderr)
            return 2
        given = {"chunk_size": args.chunk_size, "chunk_overlap": args.chunk_overlap,
                 "ocr_language": args.ocr_language, "embedding_model": args.embedding}  # fmt: skip
        overrides.update({k: v for k, v in given.items() if v is not None})
        base = service.create_base(args.name, overrides)
    else:
        base = service.rename_base(args.old, args.new)
    if args.json:
        emit(_base_json(base))
    else:
        print(f"{args.operation}d knowledge base {base.name} ({base.storage}); embedding {base.embedding_model}")
    return 0
