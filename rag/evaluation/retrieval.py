"""Retrieval evaluation on BEIR folders and on our golden QA files, through the same ``search`` the app uses.

BEIR folder: ``corpus.jsonl`` + ``queries.jsonl`` + ``qrels/<split>.tsv``. The corpus is indexed as a JSONL
source into its own storage, keyed by corpus hash and embedding model, so a re-run embeds nothing.

Golden QA file (``.jsonl``, one object a line, or a ``.json`` list), evaluated against the current index::

    {"question": "...", "expected_sources": ["manual.pdf"], "expected_pages": [3, 4], "reference_answer": "..."}

``expected_pages`` is optional: with it, a hit counts when its source and page match; without it, its source.
A question no document answers (``"no_answer": true`` and no ``expected_sources``) is left out of the scores.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from rag.errors import EvaluationError
from rag.evaluation.metrics import evaluate_run
from rag.records import MODE_SEMANTIC_WEIGHTS, SEARCH_MODES, Hit, IndexReport, RetrievalEvaluation
from rag.settings import Settings

RUN_DEPTH = 100  # hits per query (recall@100)


class Searcher(Protocol):
    """What retrieval evaluation runs its queries through: the service's own ``search``."""

    def search(self, query: str, *, top_k: int | None = None, semantic_weight: float | None = None) -> list[Hit]: ...


class CorpusSearcher(Searcher, Protocol):
    """A searcher over storage of its own, into which a BEIR corpus is indexed."""

    def index_paths(self, paths: Sequence[str | Path]) -> IndexReport: ...


S = TypeVar("S", bound=CorpusSearcher)
# search, queries, qrels, and the document ids a hit stands for in a query's judgements
_Target = tuple[Callable[..., list[Hit]], dict[str, str], dict[str, dict[str, int]], Callable[[str, Hit], list[str]]]
"""What a BEIR folder or golden file gives to score: the search to run, queries, judgements, a hit's doc ids."""


def evaluate_path(service: Searcher, path: str | Path, *, settings: Settings,
                  make_service: Callable[[Settings], CorpusSearcher], split: str = "test",
                  modes: list[str] | None = None, limit: int | None = None) -> RetrievalEvaluation:  # fmt: skip
    """Metrics per mode for a BEIR folder or a golden QA file.

    Args:
        service: what a golden QA file's questions are searched with (the current index).
        path: a BEIR folder or a golden QA file.
        settings: the service's settings; a BEIR corpus's own storage is derived from them.
        make_service: builds a searcher over the given settings (the service passes one that shares its
            embedding model); called once for a BEIR folder, never for a golden QA file.
        split: the BEIR qrels split.
        modes: search modes to score (``SEARCH_MODES``); ``["hybrid"]`` when omitted.
        limit: score only the first ``limit`` queries.

    Returns:
        ``{"modes": {mode: {"ndcg@10", "recall@5", ..., "queries", "latency_ms_p50", "latency_ms_p95"}},
        "per_query": [{"query_id", "query", "mode", "ndcg@10", "top": [doc ids]}]}``.

    Raises:
        EvaluationError: the folder or file is not in a format described above.
    """
    modes = modes or ["hybrid"]
    unknown = [m for m in modes if m not in SEARCH_MODES]
    if unknown:
        raise ValueError(f"Unknown mode(s) {unknown}; allowed: {', '.join(SEARCH_MODES)}")
    target = Path(path)
    if target.is_dir():
        search, queries, qrels, to_doc = _beir(settings, make_service, target, split)
    elif target.is_file():
        search, queries, qrels, to_doc = _golden(service, target)
    else:
        raise EvaluationError(f"{path} is neither a BEIR folder nor a golden QA file.")
    if limit:
        queries = dict(list(queries.items())[:limit])
        qrels = {qid: judged for qid, judged in qrels.items() if qid in queries}  # averaged over the queries run
    result: RetrievalEvaluation = {"modes": {}, "per_query": []}
    for mode in modes:
        run: dict[str, dict[str, float]] = {}
        latencies: list[float] = []
        for qid, text in queries.items():
            started = time.perf_counter()
            hits = search(text, top_k=RUN_DEPTH, semantic_weight=MODE_SEMANTIC_WEIGHTS[mode])  # type: ignore[index]  # checked above
            latencies.append((time.perf_counter() - started) * 1e3)
            run[qid] = _doc_scores(hits, functools.partial(to_doc, qid))
        metrics = evaluate_run(run, qrels)
        metrics.update(queries=len(queries), latency_ms_p50=percentile(latencies, 50),
                       latency_ms_p95=percentile(latencies, 95))  # fmt: skip
        result["modes"][mode] = metrics
        for qid in list(queries)[:200]:
            one = evaluate_run({qid: run[qid]}, {qid: qrels.get(qid, {})})
            top = sorted(run[qid], key=lambda d: -run[qid][d])[:5]
            result["per_query"].append({"query_id": qid, "query": queries[qid], "mode": mode,
                                        "ndcg@10": one["ndcg@10"], "top": top,
                                        "relevant": sorted(qrels.get(qid, {}))})  # fmt: skip
    return result


def _doc_scores(hits: list[Hit], to_docs: Callable[[Hit], list[str]]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for rank, hit in enumerate(hits, 1):
        for doc in to_docs(hit):  # a collapsed duplicate counts for every source it stands for
            scores.setdefault(doc, 1.0 / rank)  # a document ranks at its best chunk
    return scores


def percentile(values: list[float], q: int) -> float:
    """The ``q``-th percentile of ``values`` (nearest rank; 0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


# ---- BEIR ------------------------------------------------------------------------------------------------


def _beir(settings: Settings, make_service: Callable[[Settings], CorpusSearcher], folder: Path, split: str) -> _Target:
    corpus = folder / "corpus.jsonl"
    qrels_file = folder / "qrels" / f"{split}.tsv"
    for needed in (corpus, folder / "queries.jsonl", qrels_file):
        if not needed.is_file():
            raise EvaluationError(
                f"{needed} is missing: a BEIR folder has corpus.jsonl, queries.jsonl and qrels/<split>.tsv."
            )
    qrels = read_qrels(qrels_file)
    queries = {q["_id"]: q["text"] for q in _read_jsonl(folder / "queries.jsonl") if q["_id"] in qrels}
    eval_service = corpus_service(settings, corpus, make_service)
    return eval_service.search, queries, qrels, lambda _, hit: [str(hit.chunk.extra.get("_id", hit.chunk.source))]


def corpus_service(settings: Settings, corpus: Path, make_service: Callable[[Settings], S]) -> S:
    """A service over its own storage holding just this corpus, built once per (corpus, model).

    Args:
        settings: the settings to derive the corpus's storage and JSON reading from.
        corpus: the BEIR ``corpus.jsonl``.
        make_service: builds the service for the derived settings (e.g. a ``RagService`` sharing an embedder).
    """
    digest = hashlib.sha256(corpus.read_bytes()).hexdigest()[:12]
    embedding = settings.embedding_model
    if (settings.embedding_backend, settings.embedding_precision) != ("torch", "fp32"):  # another index identity
        embedding += f"-{settings.embedding_backend}-{settings.embedding_precision}"
        embedding += "-static" if settings.embedding_quantization == "static" else ""
    model = re.sub(r"[^A-Za-z0-9._-]+", "_", embedding)[-40:]
    storage = settings.storage / "eval" / f"{corpus.parent.name}-{digest}-{model}"
    eval_settings = replace(
        settings,
        storage_dir=storage,
        model_dir=settings.models,
        json_text_fields=("title", "text"),
        json_metadata_fields=("_id",),
        json_cut_marker="",
        json_max_chars=0,
    )
    eval_service = make_service(eval_settings)
    report = eval_service.index_paths([corpus])
    if report.failed:
        raise EvaluationError(f"Could not index {corpus}: {report.files[0].error}")
    return eval_service


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if line_no == 0 and not parts[-1].strip().lstrip("-").isdigit():
            continue  # header
        if len(parts) < 3:
            continue
        qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ---- golden QA -------------------------------------------------------------------------------------------


def _golden(service: Searcher, path: Path) -> _Target:
    try:
        text = path.read_text(encoding="utf-8")
        lines = [line for line in text.splitlines() if line.strip()]
        items = json.loads(text) if path.suffix == ".json" else [json.loads(line) for line in lines]
    except (OSError, json.JSONDecodeError) as err:
        raise EvaluationError(f"Cannot read golden QA file {path}: {err}") from err
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    by_page: set[str] = set()  # the queries judged by source and page; the others by source
    expected: dict[str, tuple[str, ...]] = {}
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("no_answer") and not item.get("expected_sources"):
            continue  # a question no document answers has nothing to retrieve (the answer evaluation scores it)
        if not isinstance(item, dict) or not item.get("question") or not item.get("expected_sources"):
            raise EvaluationError(
                f'{path} item {i + 1}: needs "question" and "expected_sources", or "no_answer": true '
                "(see rag.evaluation.retrieval)."
            )
        qid = str(item.get("id", i + 1))
        queries[qid] = item["question"]
        pages = item.get("expected_pages") or []
        if pages:
            by_page.add(qid)
        expected[qid] = tuple(item["expected_sources"])
        keys = [f"{s}#{p}" for s in item["expected_sources"] for p in pages] if pages else item["expected_sources"]
        qrels[qid] = {k: 1 for k in keys}

    def to_docs(qid: str, hit: Hit) -> list[str]:
        sources = [_as_expected(s, expected[qid]) for s in (hit.chunk.source, *hit.also_sources)]
        return [f"{s}#{hit.chunk.page}" for s in sources] if qid in by_page else sources

    return service.search, queries, qrels, to_docs


def _as_expected(source: str, expected: Sequence[str]) -> str:
    """``source`` as the golden file names it: "manual.pdf" stands for "docs/manual.pdf" (a folder was indexed)."""
    return next((name for name in expected if source == name or source.endswith("/" + name.lstrip("/"))), source)
