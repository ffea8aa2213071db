"""The cosine floor below which a question is off the documents' topics (``rag.settings.BASIS_COSINE_FLOORS``).

For each golden set, the top-1 cosine of its questions (600 each) against: its own corpus (the relevant document
is there), its own corpus without the relevant documents (same topic, no answer), and the other set's corpus
(off-topic). Reads the evaluation indexes that ``python -m rag evaluate`` builds (same ``RAG_STORAGE_DIR``). A floor
between "off-topic" and "present" lets QA say "no basis" without a reranker; "absent, same topic" overlaps
"present", so no cosine floor can catch those (the prompt's "say you do not know" and the faithfulness check do). ::

    .venv/bin/python bench/basis_floor.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from golden_sets import DATA, SETS  # noqa: E402

from rag.evaluation.retrieval import corpus_service, read_qrels  # noqa: E402
from rag.service import RagService  # noqa: E402

QUESTIONS = 600


def corpus_matrix(service: RagService, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk embedding of a set's evaluation index, with the document id of each row."""
    index = corpus_service(
        service.settings, DATA / name / "corpus.jsonl", lambda s: RagService(s, embedder=service.embedder)
    ).index
    ids, _ = index.manifest.all_tokens()
    vectors = index.vectors.embeddings_of(list(ids))
    chunks = index.manifest.chunks_by_id(list(ids))
    kept = [cid for cid in ids if cid in vectors]
    return np.stack([vectors[c] for c in kept]), np.array([str(chunks[c].extra.get("_id")) for c in kept])


def main() -> None:
    service = RagService()
    corpora = {name: corpus_matrix(service, name) for name in SETS}
    print(f"{'set':10} {'corpus searched':24}" + "".join(f"{p:>7}" for p in ("p1", "p5", "p50", "p95", "p99")))
    for name, split in SETS.items():
        qrels = read_qrels(DATA / name / "qrels" / f"{split}.tsv")
        lines = (DATA / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        questions = [q for q in map(json.loads, lines) if q["_id"] in qrels][:QUESTIONS]
        vectors = service.embedder.embed_queries([q["text"] for q in questions])
        matrix, docs = corpora[name]
        other = next(m for n, (m, _) in corpora.items() if n != name)
        present, absent, off_topic = [], [], []
        for question, vector in zip(questions, vectors, strict=True):
            cosines = matrix @ vector
            relevant = np.isin(docs, list(qrels[question["_id"]]))
            present.append(cosines.max())
            absent.append(cosines[~relevant].max())
            off_topic.append((other @ vector).max())
        for label, values in (("own (answer present)", present), ("own minus relevant", absent),
                              ("other set (off-topic)", off_topic)):  # fmt: skip
            row = np.percentile(values, [1, 5, 50, 95, 99])
            print(f"{name:10} {label:24}" + "".join(f"{v:7.3f}" for v in row))


if __name__ == "__main__":
    main()
