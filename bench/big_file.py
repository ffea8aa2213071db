"""A big text file indexed in slices: chunks/s and peak memory, with the real model and with a fast stand-in.

Run: .venv/bin/python bench/big_file.py [--real-mb 0.5] [--stand-in-mb 150] [--all-at-once-mb 6] [--pdf-pages 2000]
[--models DIR]

Three measurements, each a fresh interpreter (``tests/big_files.measure_indexing``):

- ``real``: a ``--real-mb`` file with the real default embedding model (multilingual-e5-small): the chunks/s a
  person gets, and the hours a 150 MB file takes at that rate (an extrapolation, printed as one);
- ``stand-in``: a ``--stand-in-mb`` file (150 by default) with the embedding step replaced by a stand-in that is
  not a model (``tests.big_files.StandInEmbedder``): memory and pipeline speed on the full size, labelled;
- ``all-at-once``: the same stand-in on a ``--all-at-once-mb`` file with one slice for the whole file, i.e. the
  writer as it was before files were committed in parts (its memory grows with the file);
- ``pdf``: a ``--pdf-pages`` PDF (``tests.docmaker.make_long_pdf``: headings, running header and footer, a table
  every fifth page) with the stand-in: it is read a window of pages at a time (``rag.ingest.parsing.pdf``).

Each line gives the peak resident memory over the process before indexing (RSS growth: includes Chroma's HNSW
graph and the BM25 index, which grow with what is indexed) and the writer's Python-heap peak up to the BM25
rebuild (tracemalloc; the stand-in runs only, as tracing slows the run).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.big_files import STAND_IN, measure_indexing, write_text_file  # noqa: E402
from tests.docmaker import make_long_pdf  # noqa: E402

MB = 1024 * 1024


def line(label: str, embedder: str, size: int, figures: dict[str, object]) -> str:
    chunks, seconds = int(figures["chunks"]), float(figures["seconds"])  # type: ignore[arg-type]
    growth = (int(figures["rss_peak"]) - int(figures["rss_before"])) / MB  # type: ignore[call-overload]
    heap = int(figures["heap_peak_writing"]) / MB  # type: ignore[call-overload]
    return (f"{label:<12} {size / MB:7.1f} MB  embedder: {embedder:<54} {chunks:>8,} chunks  {seconds:8.1f} s  "
            f"{chunks / seconds:7.1f} chunks/s  RSS growth {growth:7.1f} MB  heap peak writing "
            f"{heap:6.1f} MB  consistent: {figures['ok']}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real-mb", type=float, default=0.5, help="file size for the real model (0: skip)")
    parser.add_argument("--stand-in-mb", type=float, default=150.0, help="file size for the stand-in (0: skip)")
    parser.add_argument("--all-at-once-mb", type=float, default=6.0, help="file size, one slice (0: skip)")
    parser.add_argument("--pdf-pages", type=int, default=2000, help="pages of the PDF, stand-in (0: skip)")
    parser.add_argument("--models", type=Path, default=None, help="built models folder (RAG_MODEL_DIR)")
    args = parser.parse_args()
    if args.models:
        os.environ["RAG_MODEL_DIR"] = str(args.models)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.real_mb:
            path = write_text_file(root / "real.txt", args.real_mb)
            figures = measure_indexing(path, root / "real", stand_in=False)
            size = path.stat().st_size
            print(line("real", os.environ.get("RAG_EMBEDDING_MODEL", "default (multilingual-e5-small)"), size,
                       figures), flush=True)  # fmt: skip
            rate = int(figures["chunks"]) / float(figures["seconds"])  # type: ignore[call-overload,arg-type]
            per_mb = int(figures["chunks"]) / (size / MB)  # type: ignore[call-overload]
            print(f"extrapolation, not a measurement: 150 MB ≈ {150 * per_mb:,.0f} chunks ≈ "
                  f"{150 * per_mb / rate / 3600:.1f} h at {rate:.1f} chunks/s on this machine", flush=True)  # fmt: skip
        if args.stand_in_mb:
            path = write_text_file(root / "stand_in.txt", args.stand_in_mb)
            figures = measure_indexing(path, root / "stand_in", trace_heap=True)
            print(line("in slices", STAND_IN, path.stat().st_size, figures), flush=True)
            path.unlink()
        if args.all_at_once_mb:
            path = write_text_file(root / "once.txt", args.all_at_once_mb)
            figures = measure_indexing(path, root / "once", slice_chunks=10**9, trace_heap=True)
            print(line("all at once", STAND_IN, path.stat().st_size, figures), flush=True)
            figures = measure_indexing(path, root / "sliced", trace_heap=True)
            print(line("in slices", STAND_IN, path.stat().st_size, figures), flush=True)
        if args.pdf_pages:
            path = make_long_pdf(root / "long.pdf", args.pdf_pages)
            figures = measure_indexing(path, root / "pdf", trace_heap=True)
            print(line(f"pdf {args.pdf_pages}p", STAND_IN, path.stat().st_size, figures), flush=True)


if __name__ == "__main__":
    main()
