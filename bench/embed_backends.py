"""Embedding back ends x precisions against torch fp32, on the same texts in the same run (ratios, not absolutes).

Run: ``.venv/bin/python -m bench.embed --backends [--chunks 1000] [--configs torch-fp32,onnx-int8] [--quality]``
(or ``-m bench.embed_backends``). Each configuration runs in its own process (an honest peak RSS, no shared
caches): it embeds the same 800-character chunks, half Japanese (JSQuAD paragraphs of one article joined) and
half English (SciFact abstracts), after a warm-up, then times single warm queries. Rates are per wall second and
per CPU second (the second is less distorted when other jobs share the cores). Cosine to fp32 is per chunk.

``--ingest FOLDER`` times indexing a folder from scratch with each configuration. ``--quality`` adds nDCG@10 of
hybrid, dense and BM25 through the real pipeline (``RagService.evaluate``) on
SciFact (train qrels) and JSQuAD, each subsampled to ``--docs`` documents (every relevant document of the first
``--queries`` queries, then the others in corpus order) to keep two cores' time in minutes; the subsample is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
CONFIGS = ("torch-fp32", "torch-bf16", "torch-int8", "onnx-fp32", "onnx-int8")
QUERIES = (
    "日本一高い山の高さは？",
    "how does insulin regulate blood sugar",
    "パスワードを忘れた場合の再設定方法",
    "what reduces the risk of heart failure",
    "新幹線が開業したのはいつ",
    "effects of vitamin D on bone density",
)


def chunks(n: int, chars: int = 800) -> list[str]:
    """``n`` texts of ``chars`` characters: half JSQuAD (paragraphs of one article joined), half SciFact."""
    ja: list[str] = []
    title, buffer = "", ""
    for line in (DATA / "jsquad-ja" / "corpus.jsonl").open(encoding="utf-8"):
        doc = json.loads(line)
        if doc["title"] != title:
            title, buffer = doc["title"], ""
        buffer += doc["text"].strip()
        if len(buffer) >= chars and len(ja) < n - n // 2:
            ja.append(buffer[:chars])
            buffer = ""
    en = [t[:chars] for t in (json.loads(x)["text"].strip() for x in (DATA / "scifact" / "corpus.jsonl").open())
          if len(t) >= chars][: n // 2]  # fmt: skip
    return ja + en


def _settings(config: str, models_dir: Path, **extra: object):  # type: ignore[no-untyped-def]
    from rag.settings import Settings

    backend, precision = config.split("-")
    return Settings(model_dir=models_dir, embedding_backend=backend, embedding_precision=precision, **extra)  # type: ignore[arg-type]


def worker(config: str, models_dir: Path, texts_file: Path, out: Path) -> None:
    """One configuration, in its own process: rates, query latencies, peak RSS; the vectors go to ``out``."""
    from rag.models.embedding import load_embedder

    texts = json.loads(texts_file.read_text(encoding="utf-8"))
    started = time.perf_counter()
    embedder = load_embedder(_settings(config, models_dir))
    load_s = time.perf_counter() - started
    embedder.embed_passages(texts[:8])  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = embedder.embed_passages(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    latencies = []
    for _ in range(5):
        for query in QUERIES:
            t0 = time.perf_counter()
            embedder.embed_queries([query])
            latencies.append((time.perf_counter() - t0) * 1e3)
    np.save(out, vectors)
    status = Path("/proc/self/status").read_text().splitlines()
    rss_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))  # the process's peak
    figures = {
        "config": config,
        "fingerprint": embedder.fingerprint,
        "load_s": load_s,
        "rate": len(texts) / wall,
        "cpu_rate": len(texts) / cpu,
        "query_p50_ms": statistics.median(latencies),
        "peak_rss_mb": rss_kb / 1024,
    }
    print(json.dumps(figures))


def compare(configs: list[str], models_dir: Path, n: int) -> None:
    texts = chunks(n)
    print(f"cpu cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}, {len(texts)} chunks of 800 chars "
          f"({len(texts) - n // 2} ja, {n // 2} en), one process per config, ratios against {configs[0]}")  # fmt: skip
    print(f"{'config':11s} {'chunks/s':>8s} {'x':>5s} {'/cpu-s':>7s} {'x':>5s} {'query p50':>9s} {'peak RSS':>9s} "
          f"{'load':>6s}  cosine to {configs[0]} min / mean", flush=True)  # fmt: skip
    base: dict = {}
    with tempfile.TemporaryDirectory() as scratch:
        texts_file = Path(scratch) / "texts.json"
        texts_file.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
        for config in configs:  # each row as soon as it is measured: a slow configuration takes many minutes
            out = Path(scratch) / f"{config}.npy"
            done = subprocess.run([sys.executable, "-m", "bench.embed_backends", "--worker", config, "--texts",
                                   str(texts_file), "--out", str(out), "--models-dir", str(models_dir)],
                                  cwd=ROOT, capture_output=True, text=True)  # fmt: skip
            if done.returncode != 0:
                print(f"{config:11s} failed: {done.stderr.strip().splitlines()[-1]}", flush=True)
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            vectors = np.load(out)
            base = base or {**r, "vectors": vectors}
            cos = (vectors * base["vectors"]).sum(axis=1)
            row = (f"{config:11s} {r['rate']:8.2f} {r['rate'] / base['rate']:5.2f} {r['cpu_rate']:7.2f} "
                   f"{r['cpu_rate'] / base['cpu_rate']:5.2f} {r['query_p50_ms']:7.1f}ms {r['peak_rss_mb']:6.0f} MB "
                   f"{r['load_s']:5.1f}s  {cos.min():.4f} / {cos.mean():.4f}   {r['fingerprint']}")  # fmt: skip
            print(row, flush=True)


def subsample(folder: Path, split: str, out: Path, n_docs: int, n_queries: int) -> Path:
    """A BEIR folder with the first ``n_queries`` judged queries and ``n_docs`` documents holding all their answers."""
    qrels_lines = (folder / "qrels" / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in qrels_lines if line and not line.startswith("query")]
    query_ids = list(dict.fromkeys(r[0] for r in rows))[:n_queries]
    relevant = {r[1] for r in rows if r[0] in query_ids}
    docs = [json.loads(x) for x in (folder / "corpus.jsonl").open(encoding="utf-8")]
    kept = [d for d in docs if d["_id"] in relevant]
    kept += [d for d in docs if d["_id"] not in relevant][: max(0, n_docs - len(kept))]
    (out / "qrels").mkdir(parents=True)
    (out / "qrels" / f"{split}.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{r[0]}\t{r[1]}\t{r[2]}\n" for r in rows if r[0] in query_ids)
    )
    keep_q = set(query_ids)
    queries = [x for x in (folder / "queries.jsonl").open(encoding="utf-8") if json.loads(x)["_id"] in keep_q]
    (out / "queries.jsonl").write_text("".join(queries), encoding="utf-8")
    (out / "corpus.jsonl").write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in kept), encoding="utf-8")
    print(f"{folder.name} ({split}): {len(query_ids)} queries, {len(kept)} documents ({len(relevant)} relevant)")
    return out


def quality(configs: list[str], models_dir: Path, n_docs: int, n_queries: int) -> None:
    from rag.service import RagService

    with tempfile.TemporaryDirectory() as scratch:
        sets = [subsample(DATA / "scifact", "train", Path(scratch) / "scifact", n_docs, n_queries),
                subsample(DATA / "jsquad-ja", "test", Path(scratch) / "jsquad-ja", n_docs, n_queries)]  # fmt: skip
        scores: dict[str, dict[str, float]] = {}
        for config in configs:
            settings = _settings(config, models_dir, storage_dir=Path(scratch) / "storage")
            service = RagService(settings)
            for folder, split in zip(sets, ("train", "test"), strict=True):
                started = time.perf_counter()
                result = service.evaluate(folder, split=split, modes=("hybrid", "dense", "bm25"))
                scores[f"{config} {folder.name}"] = {m: v["ndcg@10"] for m, v in result["modes"].items()}
                shown = "  ".join(f"{m} {v:.4f}" for m, v in scores[f"{config} {folder.name}"].items())
                print(f"{config:11s} {folder.name:10s} {shown}   ({time.perf_counter() - started:.0f} s)")
        base = configs[0]
        for config in configs[1:]:
            for folder in sets:
                a, b = scores[f"{config} {folder.name}"], scores[f"{base} {folder.name}"]
                print(f"nDCG@10 change {config} vs {base} on {folder.name}: "
                      + "  ".join(f"{m} {a[m] - b[m]:+.4f}" for m in a))  # fmt: skip


def ingest(configs: list[str], models_dir: Path, folder: Path) -> None:
    """Seconds to index ``folder`` from scratch (parse, OCR, chunk, embed, store) with each configuration."""
    from rag.service import RagService

    for config in configs:
        with tempfile.TemporaryDirectory() as scratch:
            service = RagService(_settings(config, models_dir, storage_dir=Path(scratch)))
            service.embedder.embed_passages(["warm-up"])  # the model's load is not ingest time
            started, cpu = time.perf_counter(), time.process_time()
            report = service.index_paths([folder])
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            print(f"ingest {folder.name} with {config:11s}: {wall:6.1f} s ({cpu:6.1f} CPU-s), "
                  f"{report.embedded} chunks embedded, {len(report.files)} files", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", type=Path, default=ROOT / ".cache" / "models")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="backend-precision list; the first is the base")
    parser.add_argument("--chunks", type=int, default=1000, help="800-character chunks per configuration")
    parser.add_argument("--quality", action="store_true", help="also nDCG@10 on SciFact train and JSQuAD")
    parser.add_argument("--skip-speed", action="store_true", help="skip the chunks/s comparison")
    parser.add_argument(
        "--ingest", type=Path, help="also time indexing this folder from scratch, e.g. ../shared/realdocs/docs"
    )
    parser.add_argument("--docs", type=int, default=400, help="documents per corpus for --quality")
    parser.add_argument("--queries", type=int, default=200, help="queries per corpus for --quality")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.worker:
        worker(args.worker, args.models_dir, args.texts, args.out)
        return
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not args.skip_speed:
        compare(configs, args.models_dir, args.chunks)
    if args.quality:
        quality(configs, args.models_dir, args.docs, args.queries)
    if args.ingest:
        ingest(configs, args.models_dir, args.ingest)


if __name__ == "__main__":
    main()
