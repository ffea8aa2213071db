"""Ingestion figures: parse+chunk pages/s, pipeline embedding throughput vs bare encode, unchanged re-index.

Run: .venv/bin/python bench/ingest.py [--model multilingual-e5-small-offline] [--files 1000]
Prints medians over repeats; no thresholds are asserted here (the closing note compares them with the goals).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402

from rag.ingest.chunking import chunk_document  # noqa: E402
from rag.ingest.parsing import parse_file  # noqa: E402
from rag.models.embedding import load_embedder  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

JA = (
    "本書は暗号化モジュールの設定手順を説明する。"
    "鍵の生成には管理者権限が必要であり、生成した鍵は安全な場所に保管すること。"
)
EN = (
    "The trusted application allocates memory with TEE_Malloc and releases it with TEE_Free before the session closes. "
)


def make_pdf(path: Path, pages: int) -> None:
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page()
        page.insert_text((72, 40), "Company Confidential — Crypto Module Guide", fontsize=8)
        page.insert_textbox(pymupdf.Rect(72, 72, 520, 760), (JA * 6 + "\n\n") * 2, fontname="japan", fontsize=10)
        page.insert_textbox(pymupdf.Rect(72, 420, 520, 760), EN * 8, fontsize=10)
        page.insert_text((290, 810), str(n + 1), fontsize=8)
    doc.save(path)


def bench_parse(settings: Settings, work: Path, pages: int, repeats: int) -> None:
    pdf = work / "guide.pdf"
    make_pdf(pdf, pages)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        doc = parse_file(pdf, settings)
        chunk_document(doc, source="guide.pdf", rel_path="guide.pdf", doc_type="manual", settings=settings)
        times.append(time.perf_counter() - started)
    print(f"parse+chunk: {pages / statistics.median(times):.1f} pages/s (PDF, {pages} pages, median of {repeats})")


class RecordingEmbedder:
    """Delegates to an embedder and keeps every text the pipeline asked it to embed, in order."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self._inner = inner
        self.texts: list[str] = []

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._inner, name)

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return self._inner.embed_passages(texts)


def bench_embedding_pipeline(settings: Settings, work: Path, docs: int) -> None:
    folder = work / "pipeline"
    folder.mkdir()
    for i in range(docs):  # distinct text per document, so near-duplicate removal keeps every chunk
        ja = JA.replace("。", f"（第{i}版）。", 1)
        body = "\n\n".join(f"{i}-{p}: " + (ja if p % 2 else EN) * 3 for p in range(4))
        (folder / f"doc{i:03d}.md").write_text(f"# Document {i}\n\n{body}\n", encoding="utf-8")
    embedder = RecordingEmbedder(load_embedder(settings))
    service = RagService(replace(settings, storage_dir=work / "pipeline-storage"), embedder=embedder)
    embedder.embed_passages(["warm up"])
    embedder.texts.clear()
    started = time.perf_counter()
    report = service.index_paths([folder])
    pipeline_s = time.perf_counter() - started
    started = time.perf_counter()
    embedder._inner.embed_passages(embedder.texts)  # the very texts the pipeline embedded, in one call
    bare_s = time.perf_counter() - started
    print(
        f"embedding: pipeline {report.embedded / pipeline_s:.1f} chunks/s (whole index run incl. parse, tokenize, "
        f"Chroma, manifest) vs bare encode {len(embedder.texts) / bare_s:.1f} chunks/s of the same "
        f"{len(embedder.texts)} texts: ratio {bare_s / pipeline_s:.2f} ({settings.embedding_model})"
    )


def bench_unchanged(settings: Settings, work: Path, files: int, repeats: int) -> None:
    folder = work / "many"
    folder.mkdir()
    for i in range(files):
        (folder / f"note{i:04d}.txt").write_text(f"Note {i}: meeting room {i % 17} is booked on day {i % 28}.\n")
    fast = replace(settings, storage_dir=work / "many-storage", embedding_model="all-MiniLM-L6-v2-offline")
    service = RagService(fast)
    started = time.perf_counter()
    first = service.index_paths([folder])
    print(
        f"first index of {files} small files: {time.perf_counter() - started:.1f} s, {first.embedded} embedded (MiniLM)"
    )
    times, embedded = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        again = RagService(fast, embedder=service.embedder).index_paths([folder])
        times.append(time.perf_counter() - started)
        embedded.append(again.embedded)
    print(
        f"re-index unchanged folder of {files} files: median {statistics.median(times):.2f} s, "
        f"embeddings {max(embedded)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=Settings().embedding_model)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        models = Path(os.environ.get("RAG_MODEL_DIR") or ROOT / "storage" / "models")
        base = Settings.from_env(storage_dir=work / "storage", model_dir=models, embedding_model=args.model)
        bench_parse(base, work, args.pages, args.repeats)
        bench_embedding_pipeline(base, work, args.docs)
        bench_unchanged(base, work, args.files, args.repeats)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
