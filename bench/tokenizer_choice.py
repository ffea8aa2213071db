"""Tokenizers for BM25 compared on retrieval quality and speed; keyword index latency at 100k documents.

Run from the repository root::

    .venv/bin/python bench/tokenizer_choice.py                 # tokenizer table, then index latency (a few minutes)
    .venv/bin/python bench/tokenizer_choice.py --skip-latency  # tokenizer table only
    .venv/bin/python bench/tokenizer_choice.py --query-terms   # the query cleanup (search_terms) on and off

The table gives BM25 (bm25s, k1=1.5, b=0.75, no embeddings) nDCG@10, recall@10 and MRR@10 of each Japanese
tokenizer on JSQuAD (4,420 questions over 1,159 paragraphs) and of English variants on SciFact's train split, with
tokenization speed in characters per CPU-second (one thread, corpus and queries together, best of three).
``rag.ingest.tokenization``'s ``AUTO_TOKENIZER`` is the best nDCG@10 on JSQuAD, speed breaking ties (a tie: the paired
per-query difference's 95% confidence interval includes zero). The latency part builds a KeywordIndex of
100k synthetic documents (SciFact abstracts, each copy with a random 80% of its tokens and a few tokens of
another abstract) and times queries without a mask, with a boolean mask and with a weight mask, and save/load.
``--query-terms`` compares BM25 with each query's tokens as the tokenizer gives them and after
``rag.ingest.tokenization.search_terms`` (no question words, no single letters), with the same paired test.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from golden_sets import DATA, SETS  # noqa: E402

from rag.evaluation.metrics import evaluate_run, ndcg_at_k  # noqa: E402
from rag.index.keyword_index import KeywordIndex  # noqa: E402
from rag.ingest.tokenization import (  # noqa: E402
    AUTO_TOKENIZER,
    BigramTokenizer,
    EnglishTokenizer,
    FugashiTokenizer,
    SudachiTokenizer,
    Tokenizer,
    make_tokenizer,
    search_terms,
)


def load_beir(folder: Path, split: str) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """Corpus texts (title + text), query texts and qrels of one BEIR-layout folder."""
    corpus: dict[str, str] = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            corpus[doc["_id"]] = f"{doc.get('title', '')}\n{doc['text']}".strip()
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / f"{split}.tsv", encoding="utf-8") as rows:
        reader = csv.reader(rows, delimiter="\t")
        next(reader)
        for query_id, doc_id, score in reader:
            qrels.setdefault(query_id, {})[doc_id] = int(score)
    queries: dict[str, str] = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as lines:
        for line in lines:
            query = json.loads(line)
            if query["_id"] in qrels:
                queries[query["_id"]] = query["text"]
    return corpus, queries, qrels


def evaluate_tokenizer(tokenizer: Tokenizer, dataset: tuple) -> tuple[dict[str, float], np.ndarray]:
    """Mean metrics (plus speed and tokens per document) and the per-query nDCG@10 of one tokenizer."""
    corpus, queries, qrels = dataset
    doc_tokens = [tokenizer.tokenize(text) for text in corpus.values()]  # also warms the analyzer up
    query_tokens = {qid: tokenizer.tokenize(text) for qid, text in queries.items()}
    index = KeywordIndex.build(list(corpus), doc_tokens)
    run = {qid: dict(index.query(tokens, 100)) for qid, tokens in query_tokens.items()}
    metrics = evaluate_run(run, qrels)
    metrics["chars/s"] = _chars_per_second(tokenizer, list(corpus.values()) + list(queries.values()))
    metrics["tokens/doc"] = sum(map(len, doc_tokens)) / len(doc_tokens)
    per_query = np.array([ndcg_at_k(run, {qid: qrels[qid]}, 10) for qid in qrels])
    return metrics, per_query


def _chars_per_second(tokenizer: Tokenizer, texts: list[str], budget_chars: int = 1_500_000) -> float:
    """Best of three timed passes over the first ``budget_chars`` characters (other work on the machine adds noise)."""
    sample, size = [], 0
    for text in texts:
        if size >= budget_chars:
            break
        sample.append(text)
        size += len(text)
    best = float("inf")
    for _ in range(3):  # CPU time of this thread: wall time swings by a third when other work shares the cores
        start = time.thread_time()
        for text in sample:
            tokenizer.tokenize(text)
        best = min(best, time.thread_time() - start)
    return size / best


def tokenizer_table() -> None:
    """Print the table; for each dataset, the paired nDCG@10 difference to its best tokenizer (95% CI)."""
    japanese: list[Tokenizer] = [
        SudachiTokenizer("A", name="sudachi"),  # make_tokenizer("sudachi")
        SudachiTokenizer("C", name="sudachi C"),
        SudachiTokenizer("A", drop_function_words=False, name="sudachi, particles kept"),
        FugashiTokenizer(),
        BigramTokenizer(),
    ]
    english: list[Tokenizer] = [
        EnglishTokenizer(),
        EnglishTokenizer(whole=False, name="english, no whole identifiers"),
        EnglishTokenizer(stem=False, stopwords=False, whole=False, name="english plain (lowercase only)"),
        SudachiTokenizer("A", name="sudachi"),
        BigramTokenizer(),
    ]
    header = f"{'dataset':10} {'tokenizer':32} {'nDCG@10':>8} {'vs best (95% CI)':>17} {'R@10':>7} {'MRR@10':>7}"
    print(f"{header} {'chars/s':>10} {'tok/doc':>8}")
    for label, folder, split, tokenizers in (
        ("jsquad-ja", DATA / "jsquad-ja", SETS["jsquad-ja"], japanese),
        ("scifact", DATA / "scifact", SETS["scifact"], english),
    ):
        dataset = load_beir(folder, split)
        results = {tokenizer.name: evaluate_tokenizer(tokenizer, dataset) for tokenizer in tokenizers}
        best = max(results, key=lambda name: results[name][0]["ndcg@10"])
        tied = []
        for name, (m, per_query) in results.items():
            diff = per_query - results[best][1]
            half_width = 1.96 * diff.std() / np.sqrt(len(diff))
            if diff.mean() + half_width >= 0:
                tied.append(name)
            print(
                f"{label:10} {name:32} {m['ndcg@10']:8.4f} {diff.mean():+8.4f} ±{half_width:6.4f}"
                f" {m['recall@10']:7.4f} {m['mrr@10']:7.4f} {m['chars/s']:10,.0f} {m['tokens/doc']:8.1f}"
            )
        choice = max(tied, key=lambda name: results[name][0]["chars/s"])
        print(f"{label}: best {best}; tied with it: {' | '.join(tied)}; fastest of those: {choice}\n", flush=True)
    print(f"rag.ingest.tokenization.AUTO_TOKENIZER = {AUTO_TOKENIZER!r} (the jsquad-ja choice above)")


def index_latency(n_docs: int, n_queries: int) -> None:
    corpus, queries, _ = load_beir(DATA / "scifact", "train")
    tokenizer = EnglishTokenizer()
    base = [tokenizer.tokenize(text) for text in corpus.values()]
    rng = np.random.default_rng(0)
    docs = []
    for i in range(n_docs):
        tokens = base[i % len(base)]
        other = base[int(rng.integers(len(base)))]
        keep = [t for t, r in zip(tokens, rng.random(len(tokens))) if r < 0.8]
        docs.append(keep + list(rng.choice(other, size=min(5, len(other)), replace=False)) if other else keep)
    ids = [f"doc-{i}" for i in range(n_docs)]
    start = time.perf_counter()
    index = KeywordIndex.build(ids, docs)
    build_s = time.perf_counter() - start
    query_tokens = [tokenizer.tokenize(q) for q in list(queries.values())[:n_queries]]
    masks = {
        "no mask": None,
        "bool mask (50%)": rng.random(n_docs) < 0.5,
        "weight mask": rng.random(n_docs).astype(np.float32),
    }
    vocabulary = len({token for doc in docs for token in doc})
    print(
        f"\nKeywordIndex, {n_docs:,} docs ({sum(map(len, docs)) / n_docs:.0f} tokens/doc, {vocabulary:,} terms),"
        f" build {build_s:.1f} s"
    )

    def time_queries(idx: KeywordIndex, label: str, mask: np.ndarray | None) -> None:
        times = []
        for tokens in query_tokens:
            t0 = time.perf_counter()
            idx.query(tokens, 20, allowed=mask)
            times.append((time.perf_counter() - t0) * 1000)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(
            f"  {label:28} mean {statistics.fmean(times):6.2f} ms  p50 {statistics.median(times):6.2f}  p95 {p95:6.2f}"
        )

    for label, mask in masks.items():
        time_queries(index, label, mask)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bm25"
        start = time.perf_counter()
        index.save(path, version="bench")
        save_s = time.perf_counter() - start
        size_mb = sum(f.stat().st_size for f in path.iterdir()) / 1e6
        print(f"  save {save_s:.2f} s ({size_mb:.0f} MB on disk)")
        for mmap in (True, False):
            start = time.perf_counter()
            loaded = KeywordIndex.load(path, mmap=mmap)
            print(f"  load mmap={mmap}: {time.perf_counter() - start:.2f} s")
            time_queries(loaded, f"after load mmap={mmap}", None)


def query_terms_table() -> None:
    """BM25 nDCG@10 with raw query tokens against ``search_terms`` of them, the default tokenizer, paired per query."""
    tokenizer = make_tokenizer("auto")
    print(f"{'dataset':10} {'query tokens':14} {'nDCG@10':>8} {'R@10':>7} {'MRR@10':>7} {'changed queries':>16}")
    for label in ("jsquad-ja", "scifact"):
        corpus, queries, qrels = load_beir(DATA / label, SETS[label])
        index = KeywordIndex.build(list(corpus), [tokenizer.tokenize(text) for text in corpus.values()])
        raw = {qid: tokenizer.tokenize(text) for qid, text in queries.items()}
        per_query = {}
        for name, tokens in (("as tokenized", raw), ("search_terms", {q: search_terms(t) for q, t in raw.items()})):
            run = {qid: dict(index.query(terms, 100)) for qid, terms in tokens.items()}
            m = evaluate_run(run, qrels)
            per_query[name] = np.array([ndcg_at_k(run, {qid: qrels[qid]}, 10) for qid in qrels])
            changed = sum(search_terms(t) != t for t in raw.values())
            print(f"{label:10} {name:14} {m['ndcg@10']:8.4f} {m['recall@10']:7.4f} {m['mrr@10']:7.4f} {changed:16,}")
        diff = per_query["search_terms"] - per_query["as tokenized"]
        half_width = 1.96 * diff.std() / np.sqrt(len(diff))
        print(f"{label}: search_terms - as tokenized = {diff.mean():+.4f} ±{half_width:.4f} (95% CI)\n", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-latency", action="store_true", help="only the tokenizer table")
    parser.add_argument("--skip-table", action="store_true", help="only the index latency")
    parser.add_argument("--query-terms", action="store_true", help="only the query cleanup comparison")
    parser.add_argument("--docs", type=int, default=100_000, help="documents in the latency index")
    parser.add_argument("--queries", type=int, default=300, help="queries timed per setting")
    args = parser.parse_args()
    if args.query_terms:
        query_terms_table()
        return
    if not args.skip_table:
        tokenizer_table()
    if not args.skip_latency:
        index_latency(args.docs, args.queries)


if __name__ == "__main__":
    main()
