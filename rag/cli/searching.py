"""``search``, ``ask``, ``similar`` and ``evaluate``: the commands that put questions to the index."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rag.cli.commands import EXIT_LLM_FAILED, SOURCE_HELP, add_command, emit
from rag.records import SEARCH_MODES, Hit, SearchFilters


def add_search_command(sub: Any) -> None:
    """``search QUERY``: hybrid search with every stage's rank and score."""
    p = add_command(sub, "search", "hybrid search (dense + BM25) with every stage's rank and score", """
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
                   help=f"search only this source (repeatable): {SOURCE_HELP}")  # fmt: skip


def add_ask_command(sub: Any) -> None:
    """``ask QUESTION``: an answer with checked citations."""
    p = add_command(sub, "ask", "answer a question from the documents, every claim checked against its citation", """
ask "How is a session opened?"
ask "セッションはどう開く？" --json""", _ask)  # fmt: skip
    p.add_argument("question", help='the question, e.g. "What does TEE_Malloc return on failure?"')


def add_similar_command(sub: Any) -> None:
    """``similar TEXT``: the example-library records nearest a text."""
    p = add_command(sub, "similar", "the records nearest a text, with their shown fields (for few-shot prompts)", """
similar "先手 居飛車 後手 四間飛車 中盤"
similar --file position.txt --top-k 3 --json""", _similar)  # fmt: skip
    p.add_argument("text", nargs="?", default=None, help="the text to match records against (or --file)")
    p.add_argument("--file", default=None, metavar="F", help="read the text from this file (UTF-8)")
    p.add_argument("--top-k", type=int, default=None, metavar="K", help="how many records (default: top_k, 5)")


def add_evaluate_command(sub: Any) -> None:
    """``evaluate PATH``: retrieval metrics, or with ``--answers`` answer accuracy."""
    p = add_command(sub, "evaluate", "retrieval metrics on a BEIR folder or a golden QA file (or --answers)", """
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
        emit({"hits": [hit_json(h) for h in hits]})
        return 0
    for h in hits:
        page = f" p.{h.chunk.page}" if h.chunk.page else ""
        base = f" [{h.base}]" if args.collection else ""
        print(f"#{h.scores.final_rank} {h.score:.4f} {h.chunk.source}{page}{base}\n    {h.chunk.text[:200]!s}")
    return 0


def _ask(service, args) -> int:  # type: ignore[no-untyped-def]
    answer = service.ask(args.question, bases=args.collection)
    if args.json:
        emit({
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


def _without_base(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "base"}


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
        emit({"records": [asdict(r) for r in records]})
        return 0
    for r in records:
        print(f"#{r.rank} {r.score:.4f} {r.source} record {r.record_no}")
        for name, value in r.shown.items():
            print(f"    {name}: {value}")
    return 0


def _evaluate(service, args) -> int:  # type: ignore[no-untyped-def]
    if args.answers:
        return _evaluate_answers(service, args)
    modes = list(SEARCH_MODES) if args.mode == "all" else [args.mode]
    result = service.evaluate(args.path, split=args.split, modes=modes)
    if args.json:
        emit({"modes": result["modes"]})
        return 0
    for mode, metrics in result["modes"].items():
        figures = (f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items())
        print(f"{mode}: {', '.join(figures)}")
    return 0


def _evaluate_answers(service, args) -> int:  # type: ignore[no-untyped-def]
    result = service.evaluate_answers(args.path, progress=lambda line: print(line, file=sys.stderr))
    if args.json:
        emit(result)
        return 0
    for key, value in result["summary"].items():
        print(f"{key}: {value}")
    return 0
