"""``python -m rag index|stats|check|remove|search|ask|quiz|evaluate|export|import|sync|similar|collections``.

The command names, flags and JSON keys here are a contract other tools rely on: keep them stable.
Human-readable output goes to stdout; progress and errors to stderr. Exit codes: 0 success, 1 some files
failed (index) or the command failed with a known error, 2 bad usage, 3 the LLM failed (``ask``: the evidence
found is still printed, with the cause and fix on stderr, or as ``llm_error`` in the JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rag import __version__
from rag.errors import RagError
from rag.records import QUIZ_LEVELS, SEARCH_MODES, BackupReport, Hit, IndexProgress, MonitoringSummary, SearchFilters

EXIT_LLM_FAILED = 3


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from rag.service import RagService

    try:
        service = RagService()
        if isinstance(getattr(args, "collection", None), str):  # the one knowledge base the command works on
            service = service.base(args.collection)
        return int(args.run(service, args) or 0)
    except RagError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; the index keeps its last complete state", file=sys.stderr)
        return 130


_JSON_HELP = "print one JSON object on stdout instead of text (progress and errors stay on stderr)"
_SOURCE_HELP = (
    "a source as `stats` prints it (docs/manual.pdf), its file name if no other source has it (manual.pdf), "
    "or the path you indexed, absolute or relative to this folder (~/docs/manual.pdf)"
)


_COLLECTION_HELP = "the knowledge base to work on (default: default); `collections list` shows them"
_COLLECTIONS_HELP = (
    "a knowledge base to search (repeatable; default: default); results are merged, each naming its base"
)
_SEVERAL_COLLECTIONS = ("search", "ask")


def _prog() -> str:
    """``rag`` when run as the installed console script, else ``python -m rag``."""
    return "rag" if Path(sys.argv[0]).name == "rag" else "python -m rag"


def _command(sub: Any, name: str, summary: str, examples: str, run: Callable[..., int], *, json: bool = True) -> Any:
    """A subcommand with its summary as description, ``examples`` as the epilog and (by default) ``--json``."""
    prog = _prog()
    lines = "\n".join(f"  {prog} {line}" for line in examples.strip().splitlines())
    p = sub.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog=f"examples:\n{lines}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if json:
        p.add_argument("--json", action="store_true", help=_JSON_HELP)
    if name in _SEVERAL_COLLECTIONS:
        p.add_argument("--collection", action="append", default=[], metavar="NAME", help=_COLLECTIONS_HELP)
    elif name != "collections":
        p.add_argument("--collection", default="default", metavar="NAME", help=_COLLECTION_HELP)
    p.set_defaults(run=run)
    return p


def _parser() -> argparse.ArgumentParser:
    prog = _prog()
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Local, private RAG over your documents: index, search, ask with citations, quiz, evaluate.",
        epilog=(
            f"Run `{prog} COMMAND --help` for a command's arguments and examples.\n"
            "The index lives in ./storage under the folder you run from; set RAG_STORAGE_DIR (an absolute path)\n"
            "to use one index from anywhere. Other settings: RAG_* variables or a RAG_CONFIG TOML file.\n"
            "Exit codes: 0 success, 1 failed files or a known error, 2 bad usage or refused deletion, 3 the LLM failed."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = _command(sub, "index", "index files and folders (incremental: unchanged files cost nothing)", """
index ~/docs                 # a folder: its files are named docs/<path inside it>
index report.pdf notes.md    # single files: named by their file name
index ~/docs --json          # the per-file outcomes as JSON""", _index)  # fmt: skip
    p.add_argument("paths", nargs="+", metavar="PATH", help="files and folders to index, e.g. ~/docs report.pdf")

    _command(sub, "stats", "what is indexed: totals and one line per source, with the names other commands take", """
stats
stats --json""", _stats)  # fmt: skip

    p = _command(sub, "check", "check that the manifest, Chroma and BM25 agree (exit 1 when they do not)", """
check
check --repair --json
check --reembed          # after changing RAG_EMBEDDING_MODEL / _BACKEND / _PRECISION""", _check)  # fmt: skip
    p.add_argument("--repair", action="store_true", help="make Chroma and BM25 agree with the manifest first")
    p.add_argument(
        "--reembed", action="store_true",
        help="first re-embed every stored chunk with the configured embedding model, back end and precision",
    )  # fmt: skip

    p = _command(sub, "remove", "delete sources from the index (refused without --yes)", """
remove docs/orion_manual.pdf --yes     # the name stats prints
remove orion_manual.pdf --yes          # the file name, when no other source has it
remove ~/docs/orion_manual.pdf --yes   # the path that was indexed""", _remove, json=False)  # fmt: skip
    p.add_argument("sources", nargs="+", metavar="SOURCE", help=_SOURCE_HELP)
    p.add_argument("--yes", action="store_true", help="confirm the deletion (without it nothing is deleted)")

    p = _command(sub, "search", "hybrid search (dense + BM25) with every stage's rank and score", """
search "session handling"
search "TEEC_OpenSession" --top-k 10 --semantic-weight 0.2
search "timeout" --source orion_manual.pdf --source docs/notes.md --json""", _search)  # fmt: skip
    p.add_argument("query", help='what to look for, e.g. "how is a session opened"')
    p.add_argument("--top-k", type=int, default=None, metavar="K", help="how many hits (default: settings' top_k, 5)")
    p.add_argument(
        "--semantic-weight", type=float, default=None, metavar="W",
        help="0 = BM25 only, 1 = embeddings only (default: settings' semantic_weight, 0.5), e.g. 0.3",
    )  # fmt: skip
    p.add_argument("--source", action="append", default=[], metavar="SOURCE",
                   help=f"search only this source (repeatable): {_SOURCE_HELP}")  # fmt: skip

    p = _command(sub, "ask", "answer a question from the documents, every claim checked against its citation", """
ask "How is a session opened?"
ask "セッションはどう開く？" --json""", _ask)  # fmt: skip
    p.add_argument("question", help='the question, e.g. "What does TEE_Malloc return on failure?"')

    p = _command(sub, "quiz", "generate a true/false quiz from one source and save it", """
quiz orion_manual.pdf
quiz docs/orion_manual.pdf --count 10 --level advanced --json""", _quiz)  # fmt: skip
    p.add_argument("source", metavar="SOURCE", help=_SOURCE_HELP)
    p.add_argument("--count", type=int, default=5, metavar="N", help="how many statements (default 5), e.g. 10")
    p.add_argument("--level", choices=QUIZ_LEVELS, default="beginner", help="difficulty (default beginner)")

    p = _command(sub, "evaluate", "retrieval metrics on a BEIR folder or a golden QA file (or --answers)", """
evaluate ../shared/data/scifact --split test --mode all
evaluate golden/realdocs_qa.jsonl --mode hybrid --json
evaluate golden/realdocs_qa.jsonl --answers""", _evaluate)  # fmt: skip
    p.add_argument("path", help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) or a golden .jsonl/.json file")
    p.add_argument("--split", default="test", help="the BEIR qrels split (default test), e.g. dev")
    p.add_argument("--mode", choices=(*SEARCH_MODES, "all"), default="hybrid",
                   help="how to search (default hybrid); all runs each mode")  # fmt: skip
    p.add_argument(
        "--answers",
        action="store_true",
        help="answer a golden .jsonl file's questions with the current index and score the answers",
    )

    p = _command(sub, "export", "write the index (vectors, BM25 tokens, manifest, settings) and quizzes to a file", """
export backup.zip            # indexing waits meanwhile; searches do not
export /mnt/usb/docs-base.zip --json""", _export)  # fmt: skip
    p.add_argument("file", metavar="FILE", help="the archive to write (replaced if it exists), e.g. backup.zip")

    p = _command(sub, "import", "restore an exported file into an empty storage, without embedding again", """
import backup.zip
import backup.zip --json     # into the storage RAG_STORAGE_DIR names, which must be empty""", _import)  # fmt: skip
    p.add_argument("file", metavar="FILE", help="an archive written by `export`, e.g. backup.zip")

    _add_archive_commands(sub)
    _collections_parser(sub)
    return parser


def _emit(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _progress(event: IndexProgress) -> None:
    eta = f", ~{event.eta_s:.0f}s left" if event.eta_s is not None else ""
    counts = f"[{event.done_files}/{event.total_files}]"
    line = f"\r{counts} {event.stage} {event.current[:50]:<50} {event.elapsed_s:.0f}s{eta}"
    print(line, end="", file=sys.stderr, flush=True)


class _ProgressLines:
    """Progress for a log or a pipe (``--json``, cron): whole lines on stderr, one per step but at most one a second
    (the last step always), so stdout keeps only the report."""

    def __init__(self, every_s: float = 1.0) -> None:
        self._every_s = every_s
        self._last_at = float("-inf")
        self._last_step = ""

    def __call__(self, event: IndexProgress) -> None:
        step = f"[{event.done_files}/{event.total_files}] {event.stage} {event.current}".rstrip()
        due = event.elapsed_s - self._last_at >= self._every_s or event.stage == "finishing"
        if step == self._last_step or not due:
            return
        self._last_at, self._last_step = event.elapsed_s, step
        eta = f", ~{event.eta_s:.0f}s left" if event.eta_s is not None else ""
        print(f"{step} ({event.elapsed_s:.0f}s{eta}, {event.embedded} chunks embedded)", file=sys.stderr, flush=True)


def _index(service, args) -> int:  # type: ignore[no-untyped-def]
    tty = sys.stderr.isatty()
    report = service.index_paths(args.paths, progress=_progress if tty else _ProgressLines())
    print(file=sys.stderr) if tty else None
    if args.json:
        _emit({
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
        _emit({**data, "monitoring": _monitoring_json(service)})
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


def _check(service, args) -> int:  # type: ignore[no-untyped-def]
    if args.reembed:
        tty = sys.stderr.isatty()
        embedded = service.reembed(progress=_progress if tty else _ProgressLines())
        ending = "\n" if tty else ""  # the progress line of a terminal has no newline of its own
        print(f"{ending}re-embedded {embedded} chunks with {service.embedder.fingerprint}", file=sys.stderr)
    report = service.repair_consistency() if args.repair else service.check_consistency()
    if args.json:
        _emit(asdict(report))
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


def hit_json(hit: Hit) -> dict[str, Any]:
    s = hit.scores
    return {
        "chunk_id": hit.chunk.chunk_id,
        "source": hit.chunk.source,
        "page": hit.chunk.page,
        "text": hit.chunk.text,
        "score": hit.score,
        "scores": {
            "dense": s.dense_score,
            "bm25": s.bm25_score,
            "rrf": s.rrf_score,
            "rerank": s.rerank_score,
        },
        "ranks": {"dense": s.dense_rank, "bm25": s.bm25_rank, "final": s.final_rank},
        "also_sources": list(hit.also_sources),
        "collection": hit.base,
    }


def _search(service, args) -> int:  # type: ignore[no-untyped-def]
    filters = SearchFilters(sources=tuple(service.resolve_sources(args.source)))
    hits = service.search(
        args.query, top_k=args.top_k, semantic_weight=args.semantic_weight, filters=filters, bases=args.collection
    )
    if args.json:
        _emit({"hits": [hit_json(h) for h in hits]})
        return 0
    for h in hits:
        page = f" p.{h.chunk.page}" if h.chunk.page else ""
        base = f" [{h.base}]" if args.collection else ""
        print(f"#{h.scores.final_rank} {h.score:.4f} {h.chunk.source}{page}{base}\n    {h.chunk.text[:200]!s}")
    return 0


def _ask(service, args) -> int:  # type: ignore[no-untyped-def]
    answer = service.ask(args.question, bases=args.collection)
    if args.json:
        _emit({
            "answer": answer.answer,
            "citations": [{**_without_base(asdict(c)), "collection": c.base} for c in answer.citations],
            "followups": list(answer.followups),
            "no_basis": answer.no_basis,
            "backend": answer.backend,
            "unsupported_sentences": list(answer.unsupported_sentences),
            "message": answer.message or None,
            "evidence": [{"n": e.n, "source": e.source, "page": e.page, "chunk_id": e.chunk_id,
                          "sentence": e.sentence, "score": e.score, "collection": e.base} for e in answer.evidence],
            "claims": [asdict(c) for c in answer.claims],
            "query": answer.query or None,
            "model_answer": answer.model_answer or None,
            "llm_error": answer.llm_error or None,
        })  # fmt: skip
        return EXIT_LLM_FAILED if answer.llm_error else 0
    print(answer.answer)
    for claim in answer.claims:
        if claim.status == "unsupported":
            print(f"  (not supported: {claim.sentence} — {claim.reason})")
    for c in answer.citations:
        base = f" [{c.base}]" if args.collection else ""
        print(f"[{c.n}] {c.source} p.{c.page}{base}: “{c.quote}”")
    if answer.message:
        print(answer.message, file=sys.stderr)
    return EXIT_LLM_FAILED if answer.llm_error else 0


def _quiz(service, args) -> int:  # type: ignore[no-untyped-def]
    quiz = service.generate_quiz(service.resolve_source(args.source), count=args.count, level=args.level,
                                 progress=lambda msg: print(msg, file=sys.stderr))  # fmt: skip
    data = quiz.model_dump(mode="json")
    if args.json:
        keys = ("id", "statement", "answer_bool", "explanation", "citations")
        _emit({"quiz_id": data["id"], "items": [{k: item[k] for k in keys} for item in data["items"]]})
        return 0
    for i, item in enumerate(data["items"], 1):
        print(f"{i}. {item['statement']}  [{'○' if item['answer_bool'] else '×'}]")
    print(f"saved as {data['id']}")
    return 0


def _evaluate(service, args) -> int:  # type: ignore[no-untyped-def]
    if args.answers:
        return _evaluate_answers(service, args)
    modes = list(SEARCH_MODES) if args.mode == "all" else [args.mode]
    result = service.evaluate(args.path, split=args.split, modes=modes)
    if args.json:
        _emit({"modes": result["modes"]})
        return 0
    for mode, metrics in result["modes"].items():
        figures = (f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items())
        print(f"{mode}: {', '.join(figures)}")
    return 0


def _evaluate_answers(service, args) -> int:  # type: ignore[no-untyped-def]
    result = service.evaluate_answers(args.path, progress=lambda line: print(line, file=sys.stderr))
    if args.json:
        _emit(result)
        return 0
    for key, value in result["summary"].items():
        print(f"{key}: {value}")
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
        _emit(asdict(report))
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


# ---- conversation-log archives and example libraries ---------------------------------------------------------


def _add_archive_commands(sub: Any) -> None:
    _command(sub, "sync", "update the index from the log archive (new files only) and the live set (rebuilt)", """
sync                         # RAG_ARCHIVE_DIR, RAG_LIVE_DIRS and RAG_LIVE_LOG say what to read
sync --json                  # the report as JSON; a changed archive file is listed under archive_changed""",
             _sync)  # fmt: skip
    p = _command(sub, "similar", "the records nearest a text, with their shown fields (for few-shot prompts)", """
similar "先手 居飛車 後手 四間飛車 中盤"
similar --file position.txt --top-k 3 --json""", _similar)  # fmt: skip
    p.add_argument("text", nargs="?", default=None, help="the text to match records against (or --file)")
    p.add_argument("--file", default=None, metavar="F", help="read the text from this file (UTF-8)")
    p.add_argument("--top-k", type=int, default=None, metavar="K", help="how many records (default: top_k, 5)")


def _sync(service, args) -> int:  # type: ignore[no-untyped-def]
    tty = sys.stderr.isatty()
    report = service.sync(progress=_progress if tty else _ProgressLines())
    print(file=sys.stderr) if tty else None
    if args.json:
        data = asdict(report)
        data["failed"] = [{"source": f.source, "error": f.error} for f in report.failed]
        _emit(data)
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


def _similar(service, args) -> int:  # type: ignore[no-untyped-def]
    if (args.text is None) == (args.file is None):
        print("error: give the text, or --file F (one of them)", file=sys.stderr)
        return 2
    try:
        text = Path(args.file).read_text(encoding="utf-8") if args.file else args.text
    except (OSError, UnicodeDecodeError) as err:
        print(f"error: cannot read {args.file} ({err}); give a UTF-8 text file, or the text itself", file=sys.stderr)
        return 1
    records = service.similar(text, top_k=args.top_k)
    if args.json:
        _emit({"records": [asdict(r) for r in records]})
        return 0
    for r in records:
        print(f"#{r.rank} {r.score:.4f} {r.source} record {r.record_no}")
        for name, value in r.shown.items():
            print(f"    {name}: {value}")
    return 0


def _without_base(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "base"}


# ---- knowledge bases ------------------------------------------------------------------------------------------


def _collections_parser(sub: Any) -> None:
    p = _command(sub, "collections", "list, create, rename or delete knowledge bases (each its own index)", """
collections list
collections create manuals --chunk-size 400 --chunk-overlap 60 --ocr-language eng
collections create support-bot --embedding ollama:bge-m3
collections rename manuals product-manuals
collections delete product-manuals --yes""", _collections, json=False)  # fmt: skip
    ops = p.add_subparsers(dest="operation", required=True, metavar="OPERATION", help="list, create, rename, delete")
    listing = ops.add_parser("list", help="every knowledge base with its sources, chunks and embedding engine")
    listing.add_argument("--json", action="store_true", help=_JSON_HELP)
    create = ops.add_parser("create", help="create an empty knowledge base with its own settings")
    create.add_argument("name", help="letters (Japanese too), digits, - and _; at most 64 characters, e.g. manuals")
    create.add_argument("--chunk-size", type=int, metavar="N", help="characters per chunk (default: settings')")
    create.add_argument("--chunk-overlap", type=int, metavar="N", help="characters chunks share (default: settings')")
    create.add_argument("--ocr-language", metavar="L", help="Tesseract languages for scanned pages, e.g. jpn+eng")
    create.add_argument("--embedding", metavar="ENGINE", help="offline (default) or ollama:MODEL, e.g. ollama:bge-m3")
    create.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="another per-base setting as RAG_* takes it: json_text_fields=body,title")  # fmt: skip
    create.add_argument("--json", action="store_true", help=_JSON_HELP)
    rename = ops.add_parser("rename", help="rename a knowledge base (not default)")
    rename.add_argument("old", help="its name now")
    rename.add_argument("new", help="the new name")
    rename.add_argument("--json", action="store_true", help=_JSON_HELP)
    delete = ops.add_parser("delete", help="delete a knowledge base and everything in it (refused without --yes)")
    delete.add_argument("name", help="the knowledge base to delete (not default)")
    delete.add_argument("--yes", action="store_true", help="confirm the deletion (without it nothing is deleted)")


def _base_json(base: Any) -> dict[str, Any]:
    return {"name": base.name, "storage": base.storage, "embedding_model": base.embedding_model,
            "settings": base.overrides, "sources": base.sources, "chunks": base.chunks}  # fmt: skip


def _collections(service, args) -> int:  # type: ignore[no-untyped-def]
    if args.operation == "delete":
        if not args.yes:
            print(f"refusing to delete knowledge base {args.name!r} and everything in it without --yes; "
                  f"run `{_prog()} collections delete {args.name} --yes`", file=sys.stderr)  # fmt: skip
            return 2
        service.delete_base(args.name, confirmed_by="with --yes on the command line")
        print(f"deleted knowledge base {args.name}")
        return 0
    if args.operation == "list":
        bases = service.knowledge_bases()
        if args.json:
            _emit({"collections": [_base_json(b) for b in bases]})
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
        _emit(_base_json(base))
    else:
        print(f"{args.operation}d knowledge base {base.name} ({base.storage}); embedding {base.embedding_model}")
    return 0
