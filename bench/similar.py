"""Which way ``similar`` matches a text finds the right record most often: passage, query or hybrid.

Run: nice -n 10 .venv/bin/python bench/similar.py [--records 1000] [--queries 200] [--models storage/models]

A generated example library (``tests/records_maker.py``: annotated positions, half Japanese shogi, half English
chess; features embedded after compaction, commentary shown) is built with the real default embedding model in a
temporary folder. Each query is one record's features changed the way a new position differs from a stored one:

- ``dropped``: one feature line left out and the rest in reverse order;
- ``altered``: one feature line's value replaced by another value of the same feature.

The right answer is the record the query came from. Printed per mode and query kind: hit@1, MRR@5 and the
median milliseconds per query, with hit@1 and time as ratios against ``passage`` (the baseline) in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.retrieval.similar import SIMILAR_MODES  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402
from tests.records_maker import feature_lines, library_env, write_library  # noqa: E402


def queries(records: list[dict], count: int, seed: int = 11) -> dict[str, list[tuple[int, str]]]:
    """(record number, query text) pairs per query kind."""
    rng = random.Random(seed)
    picked = rng.sample(range(len(records)), min(count, len(records)))
    values: dict[str, set[str]] = {}
    for record in records:
        for line in feature_lines(record):
            name, _, value = line.partition(": ")
            values.setdefault(name, set()).add(value)
    dropped, altered = [], []
    for n in picked:
        lines = feature_lines(records[n])
        gone = rng.randrange(len(lines))
        dropped.append((n + 1, "\n".join([line for i, line in enumerate(lines) if i != gone][::-1])))
        name, _, value = lines[gone].partition(": ")
        other = rng.choice(sorted(values[name] - {value}))
        altered.append((n + 1, "\n".join(f"{name}: {other}" if i == gone else line for i, line in enumerate(lines))))
    return {"dropped": dropped, "altered": altered}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1000, help="library size (default 1000)")
    parser.add_argument("--queries", type=int, default=200, help="queries per kind (default 200)")
    parser.add_argument("--models", type=Path, default=ROOT / "storage" / "models", help="RAG_MODEL_DIR")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        records = write_library(root / "positions.jsonl", args.records)
        settings = Settings.from_env(library_env(), storage_dir=root / "storage", model_dir=args.models)
        service = RagService(settings)
        started = time.perf_counter()
        report = service.index_paths([root / "positions.jsonl"])
        built = time.perf_counter() - started
        print(f"library: {report.files[0].chunks:,} records embedded in {built:.0f} s "
              f"({report.files[0].chunks / built:.1f} records/s), model {service.stats().embedding_model}")  # fmt: skip
        service.similar("warm-up", top_k=1, mode="hybrid")  # BM25 loaded, model warm
        baseline: dict[str, tuple[float, float]] = {}
        for kind, pairs in queries(records, args.queries).items():
            for mode in SIMILAR_MODES:
                hits1, reciprocal, millis = 0, 0.0, []
                for number, text in pairs:
                    t0 = time.perf_counter()
                    found = [r.record_no for r in service.similar(text, top_k=5, mode=mode)]
                    millis.append((time.perf_counter() - t0) * 1e3)
                    hits1 += bool(found) and found[0] == number
                    reciprocal += 1.0 / (found.index(number) + 1) if number in found else 0.0
                hit1, ms = hits1 / len(pairs), statistics.median(millis)
                base = baseline.setdefault(kind, (hit1, ms))
                print(f"{kind:<8} {mode:<8} hit@1 {hit1:.3f} ({hit1 / base[0] if base[0] else 0:.2f}x passage)  "
                      f"MRR@5 {reciprocal / len(pairs):.3f}  median {ms:6.1f} ms/query ({ms / base[1]:.2f}x passage)",
                      flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
