"""Time to the first evidence on screen: search, passages and the evidence read by meaning, no LLM.

What the QA page waits for before it shows the top passages with their best sentence highlighted (``svc.
prepare_answer``), for every question of the realdocs golden set, asked in order in one process, as a user asks
them. Three ways of embedding the passages' sentences, in the same run::

    .venv/bin/python bench/evidence_latency.py          # uses the bench index of bench/answers_realdocs.py

- ``batch 32, nothing kept``: each question embeds its sentences afresh, 32 to a batch (as before ``VectorMemo``,
  save that the question is embedded once for its search and its evidence);
- ``batch 8, nothing kept``: the same in batches of 8 (a question seen for the first time);
- ``batch 8, kept`` (the product): sentences and questions embedded before are not embedded again.

Prints the p50 and p95 seconds of each and its ratio to the first, and whether every question's evidence was the
same sentences in all three.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.answers_realdocs import GOLDEN, indexed_service  # noqa: E402
from bench.answers_replay import ReplayBackend  # noqa: E402
from rag.models.vector_memo import QUESTION_TIME_BATCH, VectorMemo  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

WAYS = (
    ("batch 32, nothing kept", 32, False),
    (f"batch {QUESTION_TIME_BATCH}, nothing kept", QUESTION_TIME_BATCH, False),
)
KEPT = (f"batch {QUESTION_TIME_BATCH}, kept", QUESTION_TIME_BATCH, True)


def timed_evidence(
    service: RagService, questions: list[str], batch: int, kept: bool
) -> tuple[list[float], list[list[str]]]:
    """Seconds to each question's evidence, and the evidence sentences, with the sentence vectors embedded so."""
    seconds: list[float] = []
    shown: list[list[str]] = []
    for i, question in enumerate(questions):
        if i == 0 or not kept:  # the service's memo, replaced by an empty one
            service.__dict__["_question_time_vectors"] = VectorMemo(service.embedder, batch_size=batch)
        started = time.perf_counter()
        draft = service.prepare_answer(question)
        seconds.append(time.perf_counter() - started)
        shown.append([e.sentence for e in draft.evidence])
    return seconds, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, default=GOLDEN, help="the questions (default: the realdocs golden set)")
    args = parser.parse_args()
    settings = Settings.from_env(
        storage_dir=ROOT / "storage" / "bench" / "realdocs", model_dir=ROOT / "storage" / "models"
    )
    indexed_service(settings)  # indexes the documents on first use
    # the embedded model's context (its name caps the passages in tokens) without loading or running it
    service = RagService(settings, llm=ReplayBackend("embedded", {}))
    lines = args.golden.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    service.prepare_answer(questions[0])  # loads the models and the keyword index
    print("way | p50 s | p95 s | p50 ratio")
    baseline, same = 0.0, True
    first_shown: list[list[str]] = []
    for label, batch, kept in (*WAYS, KEPT):
        seconds, shown = timed_evidence(service, questions, batch, kept)
        p50, p95 = statistics.median(seconds), statistics.quantiles(seconds, n=20)[-1]
        baseline = baseline or p50
        first_shown = first_shown or shown
        same = same and shown == first_shown
        print(f"{label} | {p50:.3f} | {p95:.3f} | {p50 / baseline:.2f}")
    print(f"questions: {len(questions)}; same evidence sentences in every way: {same}")


if __name__ == "__main__":
    main()
