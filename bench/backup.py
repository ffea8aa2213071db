"""Export and import of a whole index: time, archive size, and what they save against copying and re-embedding.

Copies an existing index (by default the realdocs bench index, ``/work/main/storage/bench/realdocs``) to a
temporary folder first and never writes to the original. Each round runs the command line as a person would,
``python -m rag export FILE --json`` on the copy and ``python -m rag import FILE --json`` into a fresh empty
storage, and prints the median wall time of each (process start and imports included) and the engine's own time
(the JSON's ``seconds``). Baselines measured in the same run: copying the storage folder with ``shutil.copytree``
(what a backup by hand does, but it cannot cross to a server-mode Chroma), and embedding every chunk's stored
text again (what an import without vectors would cost). Last, the questions of a golden file (``--questions``, by
default ``golden-every-2.jsonl`` beside the index) are searched on the copy and on the restored index: how many
return the same top 5 (chunk ids, ranks, scores to 5 decimals).

Run: RAG_MODEL_DIR=$PWD/storage/models .venv/bin/python bench/backup.py [--index DIR] [--rounds 3] [--no-reembed]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

REALDOCS = Path("/work/main/storage/bench/realdocs")


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def run_cli(storage: Path, *args: str) -> tuple[float, dict]:
    """Wall seconds of one ``python -m rag`` command on ``storage``, and its JSON."""
    env = {**os.environ, "RAG_STORAGE_DIR": str(storage)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "rag", *args, "--json"], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"`rag {' '.join(args)}` failed: {done.stderr.strip()[-500:]}")
    return elapsed, json.loads(done.stdout)


def reembed_seconds(storage: Path) -> tuple[float, int]:
    service = RagService(Settings.from_env(storage_dir=storage, monitoring=False))
    texts = [c.text for source in service.sources() for c in service.chunks_of(source)]
    service.embedder.embed_passages(texts[:8])  # load the model outside the timing
    started = time.perf_counter()
    service.embedder.embed_passages(texts)
    return time.perf_counter() - started, len(texts)


def same_hits(source: Path, restored: Path, questions: Path) -> tuple[int, int]:
    """How many of the file's questions get the same top 5 on both indexes, of how many."""
    original = RagService(Settings.from_env(storage_dir=source, monitoring=False))
    copy = RagService(Settings.from_env(storage_dir=restored, monitoring=False), embedder=original.embedder)
    asked = [json.loads(line)["question"] for line in questions.read_text(encoding="utf-8").splitlines() if line]
    ranked = lambda svc, q: [(h.chunk.chunk_id, h.scores.final_rank, round(h.score, 5)) for h in svc.search(q)]  # noqa: E731
    return sum(ranked(original, q) == ranked(copy, q) for q in asked), len(asked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, default=REALDOCS, help="the storage folder to copy and export")
    parser.add_argument("--rounds", type=int, default=3, help="export/import rounds (medians are printed)")
    parser.add_argument("--no-reembed", action="store_true", help="skip the re-embedding baseline")
    parser.add_argument("--questions", type=Path, default=None, help="a golden .jsonl file whose questions to compare")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-backup-") as tmp:
        work = Path(tmp)
        source = work / "source"
        started = time.perf_counter()
        shutil.copytree(args.index, source)
        copy_s = time.perf_counter() - started
        storage_bytes = folder_bytes(source)

        export_wall, export_engine, import_wall, import_engine, sizes = [], [], [], [], []
        for n in range(args.rounds):
            archive = work / f"backup-{n}.zip"
            wall, report = run_cli(source, "export", str(archive))
            export_wall.append(wall)
            export_engine.append(report["seconds"])
            sizes.append(report["bytes"])
            wall, restored = run_cli(work / f"restored-{n}", "import", str(archive))
            import_wall.append(wall)
            import_engine.append(restored["seconds"])
            check_s, check = run_cli(work / f"restored-{n}", "check")
            if not check["ok"]:
                sys.exit(f"round {n}: the imported index does not agree with itself: {check['message']}")

        print(f"index: {args.index} ({report['sources']} sources, {report['chunks']} chunks, "
              f"{report['dimension']} dimensions, {report['embedding_model']})")  # fmt: skip
        print(f"storage on disk: {storage_bytes / 1e6:.1f} MB; archive: {statistics.median(sizes) / 1e6:.2f} MB "
              f"({statistics.median(sizes) / storage_bytes:.2f}x the storage)")  # fmt: skip
        print(f"export, median of {args.rounds}: {statistics.median(export_wall):.2f} s wall "
              f"({statistics.median(export_engine):.2f} s in the engine)")  # fmt: skip
        print(f"import, median of {args.rounds}: {statistics.median(import_wall):.2f} s wall "
              f"({statistics.median(import_engine):.2f} s in the engine); `rag check` after each: agree")  # fmt: skip
        print(f"baseline, copying the storage folder: {copy_s:.2f} s")
        questions = args.questions or args.index / "golden-every-2.jsonl"
        if questions.is_file():
            same, asked = same_hits(source, work / f"restored-{args.rounds - 1}", questions)
            print(f"same top 5 on the restored index as on the original: {same}/{asked} questions of {questions.name}")
        if not args.no_reembed:
            seconds, chunks = reembed_seconds(source)
            print(f"baseline, embedding the {chunks} chunks again: {seconds:.1f} s "
                  f"(import in the engine is {seconds / statistics.median(import_engine):.1f}x faster)")  # fmt: skip


if __name__ == "__main__":
    main()
