"""Searching several knowledge bases at once: how to merge their hits, against one base that holds everything.

A golden set's corpus is split in two knowledge bases (odd and even documents) and also indexed whole in a third;
each query is searched in both halves (each base on its own, as ``RagService.search(bases=[...])`` does) and
the two hit lists are merged each way ``rag.retrieval.across_bases`` offers (``cosine``, ``rrf``, ``score``). The
whole-corpus base, searched in the same run, is the baseline: a merge is as good as it comes close to it.
Latency: the median of one search over the whole base against the two half searches and the merge. Run::

    RAG_MODEL_DIR=$PWD/storage/models .venv/bin/python bench/bases.py                    # JSQuAD, 500 queries
    RAG_MODEL_DIR=$PWD/storage/models .venv/bin/python bench/bases.py --set scifact --limit 200
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from golden_sets import DATA, SETS  # noqa: E402

from rag.evaluation.metrics import evaluate_run  # noqa: E402
from rag.evaluation.retrieval import read_qrels  # noqa: E402
from rag.records import Hit  # noqa: E402
from rag.retrieval.across_bases import MERGES, merge_base_hits  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

TOP_K = 10
JSON_SETTINGS = {"json_text_fields": "title,text", "json_metadata_fields": "_id", "json_max_chars": 0}


def _doc_scores(hits: list[Hit]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for rank, hit in enumerate(hits, 1):
        scores.setdefault(str(hit.chunk.extra.get("_id", hit.chunk.source)), 1.0 / rank)
    return scores


def _build(service: RagService, folder: Path, corpus: Path) -> None:
    lines = corpus.read_text(encoding="utf-8").splitlines()
    parts = {"half_a": lines[0::2], "half_b": lines[1::2], "all": lines}
    for name, part in parts.items():
        if name not in [b.name for b in service.knowledge_bases()]:
            service.create_base(name, JSON_SETTINGS)
        path = folder / f"{name}.jsonl"
        path.write_text("\n".join(part) + "\n", encoding="utf-8")
        started = time.perf_counter()
        report = service.base(name).index_paths([path])
        print(f"indexed {name}: {len(part)} documents, {report.embedded} chunks embedded "
              f"in {time.perf_counter() - started:.0f} s", file=sys.stderr)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="jsquad-ja", choices=sorted(SETS), help="the golden set (default jsquad-ja)")
    parser.add_argument("--limit", type=int, default=500, help="queries to run (default 500)")
    parser.add_argument("--storage", type=Path, default=Path(tempfile.gettempdir()) / "rag-bench-bases",
                        help="where the three bases are built (kept between runs)")  # fmt: skip
    args = parser.parse_args()
    folder = DATA / args.set
    settings = Settings.from_env(storage_dir=args.storage / args.set)
    service = RagService(settings)
    _build(service, settings.storage, folder / "corpus.jsonl")

    qrels = read_qrels(folder / "qrels" / f"{SETS[args.set]}.tsv")
    queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    queries = [q for q in queries if q["_id"] in qrels][: args.limit]
    qrels = {q["_id"]: qrels[q["_id"]] for q in queries}  # the metrics average over the qrels' queries
    runs: dict[str, dict[str, dict[str, float]]] = {name: {} for name in ("one base", *MERGES)}
    one_ms: list[float] = []
    two_ms: list[float] = []
    for query in queries:
        started = time.perf_counter()
        runs["one base"][query["_id"]] = _doc_scores(service.search(query["text"], top_k=TOP_K, bases=["all"]))
        one_ms.append((time.perf_counter() - started) * 1e3)
        started = time.perf_counter()
        per_base = {name: service.base(name).search(query["text"], top_k=TOP_K) for name in ("half_a", "half_b")}
        merge_base_hits(per_base, TOP_K)  # the default merge, timed with the searches
        two_ms.append((time.perf_counter() - started) * 1e3)
        for merge in MERGES:
            runs[merge][query["_id"]] = _doc_scores(merge_base_hits(per_base, TOP_K, merge=merge))

    baseline = evaluate_run(runs["one base"], qrels, ks=(10,))
    print(f"{args.set}: {len(queries)} queries, corpus split in two bases vs. one base holding it all")
    print(f"{'merge':<12} {'nDCG@10':>8} {'recall@10':>10} {'MRR@10':>8} {'nDCG vs one base':>17}")
    for name, run in runs.items():
        m = evaluate_run(run, qrels, ks=(10,))
        ratio = m["ndcg@10"] / baseline["ndcg@10"] if baseline["ndcg@10"] else float("nan")
        print(f"{name:<12} {m['ndcg@10']:>8.4f} {m['recall@10']:>10.4f} {m['mrr@10']:>8.4f} {ratio:>17.3f}")
    one, two = statistics.median(one_ms), statistics.median(two_ms)
    print(f"median latency: one base {one:.1f} ms, two bases + merge {two:.1f} ms ({two / one:.2f}x)")


if __name__ == "__main__":
    main()
