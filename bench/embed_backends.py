"""Embedding back ends x precisions against torch fp32, on the same texts in the same run (ratios, not absolutes).

Run: ``.venv/bin/python -m bench.embed --backends [--chunks 1000] [--configs torch-fp32,onnx-int8] [--quality]``
(or ``-m bench.embed_backends``). Each configuration runs in its own process (an honest peak RSS, no shared
caches): it embeds the same 800-character chunks, half Japanese (JSQuAD paragraphs of one article joined) and
half English (SciFact abstracts), after a warm-up, then times single warm queries. Rates are per wall second and
per CPU second (the second is less distorted when other jobs share the cores). Cosine to fp32 is per chunk.
``onnx-int8-static`` is the calibrated int8 model (``RAG_EMBEDDING_QUANTIZATION=static``).

``--ingest FOLDER`` times indexing a folder from scratch with each configuration (``--ocr-cache DIR`` copies an
``ocr_cache`` into each fresh storage so OCR does not dominate; ``--keep-storage DIR`` keeps the indexes).
``--compare-stored BASE OTHER`` prints the cosine of the vectors two kept indexes hold for the same chunks, and
``--from-index BASE`` takes the speed run's chunks from an index and its stored vectors as the cosine's reference.
``--quality`` adds nDCG@10 of hybrid, dense and BM25 through the real pipeline (``RagService.evaluate``) on
SciFact (train qrels) and JSQuAD, each subsampled to ``--docs`` documents (every relevant document of the first
``--queries`` queries, then the others in corpus order; ``--docs 0``: whole corpora) to keep two cores' time in
minutes; the subsample is printed. ``--scores FILE`` keeps the scores across runs (one back end per run).
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
CONFIGS = ("torch-fp32", "torch-bf16", "torch-int8", "onnx-fp32", "onnx-int8", "onnx-int8-static")
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


def indexed_chunks(storage: Path, n: int) -> tuple[list[str], list[str]]:
    """Ids and texts of the first ``n`` chunks (in id order: spread over files and languages) of the index in
    ``storage``."""
    from rag.index.manifest import Manifest

    manifest = Manifest(storage / "manifest.sqlite3")
    found = manifest.chunks_by_id(sorted(manifest.all_chunk_ids())[:n])
    ids = sorted(found)
    return ids, [found[i].text for i in ids]


def stored_vectors(storage: Path, ids: list[str], models_dir: Path) -> np.ndarray:
    """The vectors the index in ``storage`` holds for ``ids`` (as its own embedding model made them at ingest)."""
    from rag.service import RagService
    from rag.settings import Settings

    found = RagService(Settings(storage_dir=storage, model_dir=models_dir)).index.vectors.embeddings_of(ids)
    return np.vstack([np.asarray(found[i], dtype=np.float32) for i in ids])


def compare_stored(base: Path, other: Path, models_dir: Path) -> None:
    """Cosine of every chunk's vector in the index ``other`` to the same chunk's in ``base`` (two ingests of one
    folder with two configurations: ``--ingest ... --keep-storage``)."""
    ids, texts = indexed_chunks(base, 10**9)
    a, b = stored_vectors(base, ids, models_dir), stored_vectors(other, ids, models_dir)
    cos = (a * b).sum(axis=1)
    ja = np.array([any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in t) for t in texts])
    print(f"cosine of {other.name} to {base.name} over {len(ids)} chunks: min {cos.min():.4f} mean {cos.mean():.4f}"
          f" (ja {ja.sum()}: min {cos[ja].min():.4f} mean {cos[ja].mean():.4f}; en {(~ja).sum()}: min "
          f"{cos[~ja].min():.4f} mean {cos[~ja].mean():.4f}); below 0.995: {(cos < 0.995).sum()}")  # fmt: skip


def _settings(config: str, models_dir: Path, **extra: object):  # type: ignore[no-untyped-def]
    from rag.settings import Settings

    backend, precision, *static = config.split("-")  # onnx-int8-static: calibrated int8
    return Settings(model_dir=models_dir, embedding_backend=backend, embedding_precision=precision,  # type: ignore[arg-type]
                    embedding_quantization="static" if static else "dynamic", **extra)  # fmt: skip


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


def compare(configs: list[str], models_dir: Path, n: int, from_index: Path | None = None) -> None:
    """Rates against ``configs[0]``; cosine against ``configs[0]``'s vectors, or with ``from_index`` against the
    vectors that index stored at ingest (its model, e.g. torch fp32), so the base need not be embedded again."""
    ids, texts = indexed_chunks(from_index, n) if from_index else ([], chunks(n))
    reference = stored_vectors(from_index, ids, models_dir) if from_index else None
    ja = sum(1 for t in texts if any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in t))
    origin = f"the index in {from_index}" if from_index else "JSQuAD + SciFact"
    print(f"cpu cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}, {len(texts)} chunks of <= 800 "
          f"chars from {origin} ({ja} ja, {len(texts) - ja} en), one process per config, ratios against "
          f"{configs[0]}" + (f"; cosine to the vectors stored in {from_index}" if from_index else ""))  # fmt: skip
    print(f"{'config':11s} {'chunks/s':>8s} {'x':>5s} {'/cpu-s':>7s} {'x':>5s} {'query p50':>9s} {'peak RSS':>9s} "
          f"{'load':>6s}  cosine to {'stored' if from_index else configs[0]} min / mean", flush=True)  # fmt: skip
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
            cos = (vectors * (base["vectors"] if reference is None else reference)).sum(axis=1)
            row = (f"{config:11s} {r['rate']:8.2f} {r['rate'] / base['rate']:5.2f} {r['cpu_rate']:7.2f} "
                   f"{r['cpu_rate'] / base['cpu_rate']:5.2f} {r['query_p50_ms']:7.1f}ms {r['peak_rss_mb']:6.0f} MB "
                   f"{r['load_s']:5.1f}s  {cos.min():.4f} / {cos.mean():.4f}   {r['fingerprint']}")  # fmt: skip
            print(row + f"  (load average {os.getloadavg()[0]:.1f})", flush=True)


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


def quality(configs: list[str], models_dir: Path, n_docs: int, n_queries: int, scores_file: Path | None) -> None:
    """nDCG@10 per mode; ``n_docs`` 0: the whole corpora, the first ``n_queries`` queries (0: all) of each.

    With ``scores_file`` the scores are kept there across runs (the first configuration ever written is the base
    of the printed changes), so a long comparison can run one back end per invocation.
    """
    from rag.service import RagService

    with tempfile.TemporaryDirectory() as scratch:
        if n_docs > 0:
            sets = [subsample(DATA / "scifact", "train", Path(scratch) / "scifact", n_docs, n_queries),
                    subsample(DATA / "jsquad-ja", "test", Path(scratch) / "jsquad-ja", n_docs, n_queries)]  # fmt: skip
            limit = None
        else:
            sets, limit = [DATA / "scifact", DATA / "jsquad-ja"], n_queries or None
            print(f"whole corpora, {'all' if limit is None else f'the first {limit}'} queries of each")
        scores: dict[str, dict[str, float]] = {}
        if scores_file is not None and scores_file.is_file():
            scores = json.loads(scores_file.read_text(encoding="utf-8"))
        for config in configs:
            settings = _settings(config, models_dir, storage_dir=Path(scratch) / "storage")
            service = RagService(settings)
            for folder, split in zip(sets, ("train", "test"), strict=True):
                started = time.perf_counter()
                result = service.evaluate(folder, split=split, modes=("hybrid", "dense", "bm25"), limit=limit)
                scores[f"{config} {folder.name}"] = {m: v["ndcg@10"] for m, v in result["modes"].items()}
                shown = "  ".join(f"{m} {v:.4f}" for m, v in scores[f"{config} {folder.name}"].items())
                count = result["modes"]["hybrid"].get("queries", "?")
                print(f"{config:11s} {folder.name:10s} {shown}   ({count} queries, {time.perf_counter() - started:.0f}"
                      f" s, load average {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
            if scores_file is not None:
                scores_file.write_text(json.dumps(scores, indent=1), encoding="utf-8")
        known = list(dict.fromkeys(key.rsplit(" ", 1)[0] for key in scores))
        base = known[0]
        for config in known[1:]:
            for folder in sets:
                a, b = scores.get(f"{config} {folder.name}"), scores.get(f"{base} {folder.name}")
                if a and b:
                    print(f"nDCG@10 change {config} vs {base} on {folder.name}: "
                          + "  ".join(f"{m} {a[m] - b[m]:+.4f}" for m in a))  # fmt: skip


def ingest(configs: list[str], models_dir: Path, folder: Path, ocr_cache: Path | None, keep: Path | None) -> None:
    """Seconds to index ``folder`` from scratch (parse, OCR, chunk, embed, store) with each configuration.

    ``ocr_cache``: a ``<storage>/ocr_cache`` folder copied into each fresh storage first, so OCR (cached by content
    hash) does not dominate the figure. ``keep``: keep each storage as ``keep/ingest-<config>`` (replaced).
    """
    import shutil

    from rag.service import RagService

    first: dict[str, float] = {}
    for config in configs:
        with tempfile.TemporaryDirectory() as scratch:
            storage = Path(scratch) if keep is None else keep / f"ingest-{config}"
            if keep is not None and storage.exists():
                shutil.rmtree(storage)
            if ocr_cache is not None:
                shutil.copytree(ocr_cache, storage / "ocr_cache")
            service = RagService(_settings(config, models_dir, storage_dir=storage))
            service.embedder.embed_passages(["warm-up"])  # the model's load is not ingest time
            load = os.getloadavg()[0]
            started, cpu = time.perf_counter(), time.process_time()
            report = service.index_paths([folder])
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            first = first or {"wall": wall, "cpu": cpu}
            print(f"ingest {folder.name} with {config:16s}: {wall:6.1f} s ({wall / first['wall']:.2f}x) "
                  f"{cpu:6.1f} CPU-s ({cpu / first['cpu']:.2f}x), {report.embedded} chunks embedded, "
                  f"{len(report.files)} files, OCR cache {'copied' if ocr_cache else 'empty'}, "
                  f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip


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
    parser.add_argument("--ocr-cache", type=Path, help="--ingest: copy this ocr_cache into each fresh storage")
    parser.add_argument("--keep-storage", type=Path, help="--ingest: keep each storage as DIR/ingest-<config>")
    parser.add_argument("--from-index", type=Path, help="speed: take the chunks from the index in this storage")
    parser.add_argument("--compare-stored", type=Path, nargs=2, metavar=("BASE", "OTHER"),
                        help="cosine of the vectors two kept ingest storages hold for the same chunks")  # fmt: skip
    parser.add_argument("--docs", type=int, default=400, help="documents per corpus for --quality (0: all)")
    parser.add_argument("--queries", type=int, default=200, help="queries per corpus for --quality (0: all)")
    parser.add_argument("--scores", type=Path, help="--quality: keep scores in this JSON file across runs")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.worker:
        worker(args.worker, args.models_dir, args.texts, args.out)
        return
    if args.compare_stored:
        compare_stored(*args.compare_stored, args.models_dir)
        return
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not args.skip_speed:
        compare(configs, args.models_dir, args.chunks, args.from_index)
    if args.quality:
        quality(configs, args.models_dir, args.docs, args.queries, args.scores)
    if args.ingest:
        ingest(configs, args.models_dir, args.ingest, args.ocr_cache, args.keep_storage)


if __name__ == "__main__":
    main()
